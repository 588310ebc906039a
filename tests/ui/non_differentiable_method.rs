use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    x.sin_cos().0 * 2.0
}

fn main() {}
