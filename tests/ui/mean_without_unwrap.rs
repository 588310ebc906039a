use autodiff::ndarray::Array1;
use autodiff::prelude::*;

#[differentiable]
fn average(x: &Array1<f64>) -> f64 {
    let m = x.mean();
    m.unwrap()
}

fn main() {}
