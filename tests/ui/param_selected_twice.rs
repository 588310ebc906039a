use autodiff::prelude::*;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn main() {
    let _ = gradients_function!(f, params = ["x", "x"]);
}
