use autodiff::prelude::*;

// A running product and the number of factors, in one tuple.
#[differentiable]
fn product_and_count(xs: &[f64], a: f64) -> f64 {
    let mut acc = (a, 0usize);
    for x in xs {
        acc = (acc.0 * x, acc.1 + 1);
    }
    acc.0 / acc.1 as f64
}

fn main() {}
