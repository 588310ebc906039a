use autodiff::prelude::*;

#[differentiable]
fn ldexp_like(x: f64, e: i64) -> f64 {
    f64::from_bits((x.to_bits() as i64 + (e << 52)) as u64)
}

// The bits bound to a name first, as `ldexp` is written.
#[differentiable]
fn ldexp_in_steps(x: f64, e: i64) -> f64 {
    let bits = x.to_bits();
    let shifted = (bits as i64 + (e << 52)) as u64;
    f64::from_bits(shifted)
}

fn main() {}
