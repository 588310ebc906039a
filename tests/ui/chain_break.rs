use autodiff::prelude::*;

#[differentiable]
fn first_large(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y.iter()) {
        if *v > 1.0 {
            break;
        }
        s += v * v;
    }
    s
}

fn main() {}
