use autodiff::prelude::*;

#[differentiable]
fn f(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n {
        h[i][i] = x[i] * x[i];
    }
    h
}

fn main() {}
