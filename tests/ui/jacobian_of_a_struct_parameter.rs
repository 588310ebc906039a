use autodiff::prelude::*;

#[derive(Clone, Differentiable)]
struct Line {
    slope: f64,
    offset: f64,
}

#[differentiable]
fn predict(line: &Line, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = line.slope * x[i] + line.offset;
    }
    y
}

fn main() {
    let line = Line { slope: 2.0, offset: 1.0 };
    let x = [1.0, 2.0];
    // the Jacobian with respect to `x` is served; with respect to a struct it is not
    let _ = jacobian!(predict, params = ["x"])(&line, &x);
    let _ = jacobian!(predict, params = ["line"])(&line, &x);
}
