use autodiff::prelude::*;

#[differentiable]
fn f(x: f64) -> f64 {
    match x {
        v if v > 0.0 => v,
        _ => 0.0,
    }
}

fn main() {}
