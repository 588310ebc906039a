use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    x.rem_euclid(1.5) * 2.0
}

fn main() {}
