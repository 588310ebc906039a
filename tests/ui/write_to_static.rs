use autodiff::prelude::*;

static mut TOTAL: f64 = 0.0;

#[differentiable]
fn f(x: f64) -> f64 {
    TOTAL = x;
    x
}

fn main() {}
