use autodiff::prelude::*;

#[differentiable]
fn f(x: f64, k: u32) -> f64 {
    if let (y, 1) = (x * 2.0, k) {
        y
    } else {
        x
    }
}

fn main() {}
