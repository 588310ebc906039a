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

#[differentiable]
fn run_range(x: &[f64]) -> f64 {
    let mut state = vec![0.5; 6];
    let h = &mut state[1..5];
    let (left, right) = h.split_at_mut(2);
    step(left, right, x);
    let view = &mut state[2..4];
    step(view, &mut [0.0, 0.0], x);
    state[1] + state[2]
}

#[differentiable]
fn run_chunks(x: &[f64]) -> f64 {
    let mut state = vec![0.5; 4];
    for c in state.chunks_mut(2) {
        step(c, &mut [0.0, 0.0], x);
    }
    state[0]
}

fn main() {
    let _ = gradients_function!(run)(&[0.1, 0.2]);
}
