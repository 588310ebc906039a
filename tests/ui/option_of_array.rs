use autodiff::ndarray::Array1;
use autodiff::prelude::*;

#[differentiable]
fn f(x: &Array1<f64>) -> f64 {
    let o = Some(x * 2.0);
    o.unwrap().sum()
}

fn main() {}
