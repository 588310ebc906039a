use autodiff::prelude::*;

const N: usize = 3;

#[differentiable]
fn f(x: f64) -> f64 {
    let a = [x * 2.0; N];
    a[0] + a[2]
}

fn main() {}
