use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = unsafe { core::ptr::read(&x) };
    y * x
}

fn main() {}
