use autodiff::prelude::*;

#[differentiable]
fn f(x: f64, out: &mut (f64, f64)) -> f64 {
    out.0 = x * 2.0;
    x
}

fn main() {}
