use autodiff::prelude::*;

#[differentiable]
fn f64(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
