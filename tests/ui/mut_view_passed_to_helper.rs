use autodiff::prelude::*;

#[differentiable]
fn step(h: &mut [f64], c: &mut [f64], x: &[f64]) {
    for i in 0..x.len() {
        c[i] = c[i] * x[i] + h[i];
        h[i] = c[i].tanh();
    }
}

// Views the macro reads as ranges of their buffer (indexed, sliced, measured, handed on)
// are differentiable; a view used in another way as well cannot be handed on.

#[differentiable]
fn run(x: &[f64]) -> f64 {
    let mut state = vec![0.5; 4];
    let (h, c) = state.split_at_mut(2);
    let _first = h.iter().next();
    step(h, c, x);
    state[0] + state[3]
}

#[differentiable]
fn run_chunks(x: &[f64]) -> f64 {
    let mut state = vec![0.5; 4];
    let mut other = vec![0.0; 2];
    for (_i, c) in state.chunks_mut(2).enumerate() {
        step(c, &mut other, x);
    }
    state[0]
}

fn main() {
    let _ = gradients_function!(run)(&[0.1, 0.2]);
}
