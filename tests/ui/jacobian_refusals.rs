use autodiff::prelude::*;

#[differentiable]
fn weighted(w: &[f64], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; 2];
    y[0] = w[0] * x[0];
    y[1] = w[1] * x[1];
    y
}

#[differentiable]
fn pair(x: &[f64]) -> (f64, f64) {
    (x[0] * x[1], x[0] + x[1])
}

fn main() {
    let x = [1.0, 2.0];
    // two differentiable parameters and no selection
    let _ = jacobian!(weighted)(&x, &x);
    // two selected parameters
    let _ = jacobian!(weighted, params = ["w", "x"])(&x, &x);
    // a tuple output
    let _ = jacobian!(pair)(&x);
}
