use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) {
    let _ = x * 2.0;
}

fn main() {}
