use autodiff::prelude::*;

#[differentiable(self)]
fn square(x: f64) -> f64 {
    x * x
}

fn main() {}
