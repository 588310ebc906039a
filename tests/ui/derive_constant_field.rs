use autodiff::ndarray::Array1;
use autodiff::prelude::*;

#[derive(Differentiable)]
struct Layer {
    weights: Array1<f64>,
    width: usize,
}

fn main() {}
