use autodiff::ndarray::Array1;
use autodiff::prelude::*;

#[differentiable]
fn scaled(x: &Array1<f64>, s: f64) -> f64 {
    x.mapv(|v| v * s).sum()
}

fn main() {}
