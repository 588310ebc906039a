use autodiff::ndarray::Array1;
use autodiff::prelude::*;

#[differentiable]
fn clipped(x: &Array1<f64>, s: f64) -> f64 {
    x.mapv(|v| if v > s { s } else { v }).sum()
}

fn main() {}
