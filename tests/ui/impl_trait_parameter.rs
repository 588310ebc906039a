use autodiff::prelude::*;

#[differentiable]
fn polynomial(x: f64, coefficients: impl Iterator<Item = f64>) -> f64 {
    let mut acc = 0.0;
    for c in coefficients {
        acc = acc * x + c;
    }
    acc
}

fn main() {}
