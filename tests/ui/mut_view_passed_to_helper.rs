use autodiff::prelude::*;

#[differentiable]
fn step(h: &mut [f64], c: &mut [f64], x: &[f64]) {
    for i in 0..x.len() {
        c[i] = c[i] * x[i] + h[i];
        h[i] = c[i].tanh();
    }
}

#[differentiable]
fn run(x: &[f64]) -> f64 {
    let mut state = vec![0.5; 4];
    let (h, c) = state.split_at_mut(2);
    step(h, c, x);
    state[0] + state[3]
}

fn main() {
    let _ = gradients_function!(run)(&[0.1, 0.2]);
}
