use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let g = |v: f64| v * 2.0;
    g(x)
}

fn main() {}
