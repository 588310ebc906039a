use autodiff::prelude::*;

pub struct Coefficients {
    a: f64,
    b: f64,
}

#[differentiable]
fn evaluate(c: &Coefficients, x: f64) -> f64 {
    c.a * x * x + c.b
}

fn main() {}
