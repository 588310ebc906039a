use autodiff::prelude::*;

#[differentiable]
fn helper(x: f64) -> f64 {
    x.sin()
}

// a helper written with `f64` must be marked `second_order` too
#[differentiable(second_order)]
fn outer(x: f64) -> f64 {
    helper(x) * x
}

fn main() {
    let _ = outer(1.0);
}
