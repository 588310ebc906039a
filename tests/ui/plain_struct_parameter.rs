use autodiff::prelude::*;

/// A struct of data, neither `#[derive(Differentiable)]` nor marked `#[no_grad]`.
struct Data {
    scale: f64,
}

#[differentiable]
fn scaled(x: f64, data: &Data) -> f64 {
    x * data.scale
}

fn main() {
    let data = Data { scale: 2.0 };
    let _ = scaled(1.0, &data);
}
