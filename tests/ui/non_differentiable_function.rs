use autodiff::prelude::*;

fn helper(x: f64) -> f64 {
    x * 2.0
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}
