use autodiff::prelude::*;

#[differentiable]
fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

fn main() {
    let _ = gradients_function!(weighted_sum, params = ["w1", "w3"]);
}
