use autodiff::prelude::*;

pub trait Polynomial {
    fn polynomial(&self, x: f64, coefficients: impl Iterator<Item = f64>) -> f64;
}

pub struct Horner;

#[differentiable]
impl Polynomial for Horner {
    // (a free function or an inherent method names its `impl Trait` parameters itself; a
    // trait's method must keep its trait's signature)
    fn polynomial(&self, x: f64, coefficients: impl Iterator<Item = f64>) -> f64 {
        let mut acc = 0.0;
        for c in coefficients {
            acc = acc * x + c;
        }
        acc
    }
}

fn main() {}
