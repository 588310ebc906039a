use autodiff::prelude::*;

#[differentiable]
fn ldexp_like(x: f64, e: i64) -> f64 {
    f64::from_bits((x.to_bits() as i64 + (e << 52)) as u64)
}

fn main() {}
