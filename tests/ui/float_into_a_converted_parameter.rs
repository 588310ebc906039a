use autodiff::prelude::*;

// A helper taking any number convertible to `f64` (scilib's `falling_factorial`): to its
// derivative `x` is a constant, so a float handed to it from differentiable code would be
// left out of the gradient.
#[differentiable]
fn falling<T, U>(x: T, k: U) -> f64
where
    T: Into<f64>,
    U: Into<usize>,
{
    let z: f64 = x.into();
    let mut r = 1.0;
    for v in 0..k.into() {
        r *= z - v as f64;
    }
    r
}

#[differentiable]
fn binomial(n: f64, k: usize) -> f64 {
    falling(n, k) / 2.0
}

fn main() {}
