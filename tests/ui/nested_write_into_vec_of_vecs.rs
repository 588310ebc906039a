use autodiff::prelude::*;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let n = x.len();
    let mut t = vec![vec![vec![0.0; n]; n]; n];
    for i in 0..n {
        t[i][i][i] = x[i] * x[i];
    }
    t[0][0][0]
}

fn main() {}
