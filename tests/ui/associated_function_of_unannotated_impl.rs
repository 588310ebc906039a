use autodiff::prelude::*;

pub struct Normal;

impl Normal {
    pub fn cdf(x: f64, mean: f64, std_dev: f64) -> f64 {
        0.5 * (1.0 + ((x - mean) / std_dev).tanh())
    }
}

#[differentiable]
fn tail(x: f64) -> f64 {
    1.0 - Normal::cdf(x, 0.0, 1.0)
}

fn main() {}
