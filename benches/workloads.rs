//! The benchmark workloads, each written the way a user writes it and differentiated by
//! the macro, next to a careful hand-written adjoint of the same code.
#![allow(dead_code)]

use autodiff::prelude::*;

/// The Rosenbrock function as a plain loop with one accumulator.
#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

/// Hand-written value and gradient of [`rosenbrock`], in one fused pass, carrying the
/// contribution to `g[i + 1]` in a register rather than through memory.
pub fn rosenbrock_by_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut sum = 0.0;
    let mut carry = 0.0;
    for i in 0..n - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
        g[i] = carry - 2.0 * a - 400.0 * x[i] * b;
        carry = 200.0 * b;
    }
    g[n - 1] = carry;
    (sum, g)
}

/// A long scalar chain: `y ← sin(y)·1.0001 + cos(x·y)`, `n` times.
#[differentiable]
pub fn chain(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 1.0001 + (x * y).cos();
    }
    y
}

/// Hand-written value and derivative of [`chain`]: the forward pass keeps each `y`.
pub fn chain_by_hand(x: f64, n: usize) -> (f64, f64) {
    let mut ys = Vec::with_capacity(n);
    let mut y = x;
    for _ in 0..n {
        ys.push(y);
        y = y.sin() * 1.0001 + (x * y).cos();
    }
    let (mut dy, mut dx) = (1.0, 0.0);
    for &yk in ys.iter().rev() {
        let s = (x * yk).sin();
        dx -= dy * s * yk;
        dy *= yk.cos() * 1.0001 - s * x;
    }
    (y, dx + dy)
}

/// A recurrence with a data-dependent branch at every step, what a tape of boxed nodes
/// suffers most on: Euler steps of a piecewise dynamics whose state settles around the
/// switching point, so the branch taken keeps changing. (The step is small so that the
/// derivative stays in the normal range over 10⁶ steps.)
#[differentiable]
pub fn recurrence(a: f64, b: f64, n: usize) -> f64 {
    let h = 1e-5;
    let mut y = 0.0;
    for _ in 0..n {
        if y > 0.5 {
            y -= h * a * y;
        } else {
            y += h * b * (1.0 - y);
        }
    }
    y
}

/// Hand-written value and gradient of [`recurrence`]: keeps each `y` (the branch taken is
/// recomputed from it).
pub fn recurrence_by_hand(a: f64, b: f64, n: usize) -> (f64, (f64, f64)) {
    let h = 1e-5;
    let mut ys = Vec::with_capacity(n);
    let mut y = 0.0;
    for _ in 0..n {
        ys.push(y);
        if y > 0.5 {
            y -= h * a * y;
        } else {
            y += h * b * (1.0 - y);
        }
    }
    let (mut dy, mut da, mut db) = (1.0, 0.0, 0.0);
    for &yk in ys.iter().rev() {
        if yk > 0.5 {
            da -= dy * h * yk;
            dy *= 1.0 - h * a;
        } else {
            db += dy * h * (1.0 - yk);
            dy *= 1.0 - h * b;
        }
    }
    (y, (da, db))
}

/// Deterministic inputs.
pub fn rosenbrock_input(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * 0.37).sin() * 0.5).collect()
}

/// The seed's function with the weights as parameters (explicit mode).
#[differentiable]
pub fn weighted_sum_with_weights(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}
