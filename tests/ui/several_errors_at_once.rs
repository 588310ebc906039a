use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    let a = x.sin_cos().0;
    let b = unsafe { core::ptr::read(&a) };
    let c = x.to_string_lossy();
    a + b + c
}

fn main() {}
