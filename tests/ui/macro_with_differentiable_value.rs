use autodiff::prelude::*;

macro_rules! square {
    ($e:expr) => {
        $e * $e
    };
}

#[differentiable]
fn f(x: f64) -> f64 {
    let y = square!(x);
    y + 1.0
}

#[differentiable]
fn g(x: f64, n: usize) -> f64 {
    let v = vec![x * 2.0; n];
    v[0]
}

#[differentiable]
fn h(x: f64, y: f64) -> f64 {
    let r0 = vec![x, y];
    let r1 = vec![x * y, 1.0];
    let m = vec![r0, r1];
    m[0][0] * m[1][1]
}

fn main() {}
