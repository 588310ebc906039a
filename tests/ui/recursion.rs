use autodiff::prelude::*;

#[differentiable]
fn digamma(x: f64) -> f64 {
    if x < 6.0 {
        digamma(x + 1.0) - 1.0 / x
    } else {
        x.ln() - 0.5 / x
    }
}

fn main() {}
