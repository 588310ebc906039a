use autodiff::prelude::*;

#[differentiable]
struct Model {
    w: f64,
}

fn main() {}
