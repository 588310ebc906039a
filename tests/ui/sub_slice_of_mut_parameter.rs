use autodiff::prelude::*;

#[differentiable]
fn sqnorm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[differentiable]
fn scaled_norm(a: f64, y: &mut [f64]) -> f64 {
    for i in 0..y.len() {
        y[i] *= a;
    }
    sqnorm(&y[1..])
}

fn main() {
    let mut y = vec![1.0, 2.0, 3.0];
    let _ = gradients_function!(scaled_norm)(2.0, &mut y);
}
