use autodiff::prelude::*;

#[differentiable]
fn scaled(x: f64, n: usize) -> f64 {
    x * n as f64
}

fn main() {
    let _ = gradients_function!(scaled, params = ["n"]);
}
