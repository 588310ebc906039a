use autodiff::prelude::*;

#[differentiable]
async fn f(x: f64) -> f64 {
    x
}

fn main() {}
