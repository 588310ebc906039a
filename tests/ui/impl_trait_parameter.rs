use autodiff::prelude::*;

pub struct Horner;

#[differentiable]
impl Horner {
    // (a free function names its `impl Trait` parameters itself; a method's signature is
    // its trait's, which it must keep)
    pub fn polynomial(&self, x: f64, coefficients: impl Iterator<Item = f64>) -> f64 {
        let mut acc = 0.0;
        for c in coefficients {
            acc = acc * x + c;
        }
        acc
    }
}

fn main() {}
