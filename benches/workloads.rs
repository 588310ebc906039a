//! The benchmark workloads, each written the way a user writes it and differentiated by
//! the macro, next to a careful hand-written adjoint of the same code.
#![allow(dead_code)]

use autodiff::ndarray::{Array1, Array2, Axis};
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

/// The Rosenbrock function with its constants as parameters, written as an iterator chain
/// over neighbouring pairs.
#[differentiable]
pub fn rosenbrock_ab(x: &[f64], a: f64, b: f64) -> f64 {
    x.iter()
        .zip(x.iter().skip(1))
        .map(|(&u, &w)| (a - u) * (a - u) + b * (w - u * u) * (w - u * u))
        .sum()
}

/// [`rosenbrock`] as published libraries often give it: the general function at its usual
/// constants (the gradient hands the call on to `rosenbrock_ab`'s).
#[differentiable]
pub fn rosenbrock_wrapped(x: &[f64]) -> f64 {
    rosenbrock_ab(x, 1.0, 100.0)
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

/// A multilayer perceptron 784-256(tanh)-10, as a user writes it: a derived struct of
/// parameters.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Mlp {
    pub w1: Array2<f64>,
    pub b1: Array1<f64>,
    pub w2: Array2<f64>,
    pub b2: Array1<f64>,
}

/// Softmax cross-entropy of a batch (numerically stable, through `autodiff::nn`).
#[differentiable]
pub fn mlp_loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let logits = h.dot(&m.w2) + &m.b2;
    autodiff::nn::cross_entropy(&logits, labels)
}

/// Hand-written value and gradient of [`mlp_loss`]: ndarray matrix products, the stable
/// log-softmax, in-place updates where the values are not needed again.
pub fn mlp_by_hand(m: &Mlp, x: &Array2<f64>, labels: &[usize]) -> (f64, Mlp) {
    let mut h = x.dot(&m.w1);
    h += &m.b1;
    h.mapv_inplace(f64::tanh);
    let mut p = h.dot(&m.w2);
    p += &m.b2;
    // softmax in place, and the loss from the log-sum-exp of each row
    let n = labels.len() as f64;
    let mut loss = 0.0;
    for (mut row, &c) in p.outer_iter_mut().zip(labels) {
        let max = row.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let z = row[c] - max;
        row.mapv_inplace(|v| (v - max).exp());
        let s = row.sum();
        loss -= z - s.ln();
        row.mapv_inplace(|v| v / s);
    }
    // dlogits = (softmax − onehot) / n, in place
    for (mut row, &c) in p.outer_iter_mut().zip(labels) {
        row[c] -= 1.0;
    }
    p /= n;
    let w2 = h.t().dot(&p);
    let b2 = p.sum_axis(Axis(0));
    let mut dh = p.dot(&m.w2.t());
    autodiff::ndarray::Zip::from(&mut dh)
        .and(&h)
        .for_each(|d, &h| *d *= 1.0 - h * h);
    let w1 = x.t().dot(&dh);
    let b1 = dh.sum_axis(Axis(0));
    (loss / n, Mlp { w1, b1, w2, b2 })
}

/// Deterministic MLP parameters and a batch (`inputs` features, `batch` rows).
pub fn mlp_input(
    inputs: usize,
    hidden: usize,
    classes: usize,
    batch: usize,
) -> (Mlp, Array2<f64>, Vec<usize>) {
    let mut s = 12345u64;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let scale1 = (1.0 / inputs as f64).sqrt();
    let scale2 = (1.0 / hidden as f64).sqrt();
    let m = Mlp {
        w1: Array2::from_shape_fn((inputs, hidden), |_| next() * scale1),
        b1: Array1::from_shape_fn(hidden, |_| next() * 0.1),
        w2: Array2::from_shape_fn((hidden, classes), |_| next() * scale2),
        b2: Array1::from_shape_fn(classes, |_| next() * 0.1),
    };
    let x = Array2::from_shape_fn((batch, inputs), |_| next());
    let labels = (0..batch).map(|i| (i * 7) % classes).collect();
    (m, x, labels)
}
