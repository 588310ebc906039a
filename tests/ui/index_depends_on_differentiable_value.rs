use autodiff::prelude::*;

#[differentiable]
fn f(x: &[f64], t: f64) -> f64 {
    x[t] * t
}

fn main() {}
