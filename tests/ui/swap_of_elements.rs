use autodiff::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut v = [y, 1.0];
    std::mem::swap(&mut a, &mut v[0]);
    a * v[0]
}

fn main() {}
