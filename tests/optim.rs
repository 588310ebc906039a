//! Optimizers converge on a convex problem, in the implicit and the explicit modes.
//!
//! Differentiable functions here index in loops on purpose: that is the construct under test.
#![allow(clippy::needless_range_loop)]

use autodiff::optim::{Adam, CosineDecay, ExponentialDecay, Optimizer, RmsProp, Sgd};
use autodiff::prelude::*;

/// f(a, b) = (a − 3)² + 4 (b + 1)² + (a + b − 2)², a convex quadratic. Its minimum is
/// where the gradient vanishes: 2(a − 3) + 2(a + b − 2) = 0 and 8(b + 1) + 2(a + b − 2) = 0,
/// that is [4 2; 2 10] [a b]ᵀ = [10, −4], solved here by Cramer's rule.
fn minimum() -> (f64, f64) {
    let (m11, m12, m21, m22, r1, r2) = (4.0, 2.0, 2.0, 10.0, 10.0, -4.0);
    let det = m11 * m22 - m12 * m21;
    ((r1 * m22 - m12 * r2) / det, (m11 * r2 - m21 * r1) / det)
}

fn train(mut optimizer: impl Optimizer, steps: usize) -> (f64, f64) {
    let a = Variable::new(0.0);
    let b = Variable::new(0.0);
    let f = differentiable_closure!(|| (a - 3.0) * (a - 3.0)
        + 4.0 * (b + 1.0) * (b + 1.0)
        + (a + b - 2.0) * (a + b - 2.0));
    let grad = implicit_gradients(&f);
    for _ in 0..steps {
        optimizer.apply_gradients(&grad());
    }
    (a.get(), b.get())
}

fn assert_near(found: (f64, f64), tolerance: f64) {
    let (a, b) = minimum();
    assert!(
        (found.0 - a).abs() < tolerance && (found.1 - b).abs() < tolerance,
        "{found:?} vs ({a}, {b})"
    );
}

#[test]
fn sgd_converges() {
    assert_near(train(Sgd::new(0.05), 500), 1e-9);
}

#[test]
fn sgd_with_momentum_and_nesterov_converges() {
    assert_near(train(Sgd::new(0.02).momentum(0.9), 500), 1e-9);
    assert_near(
        train(Sgd::new(0.02).momentum(0.9).nesterov(true), 500),
        1e-9,
    );
}

#[test]
fn adam_converges() {
    assert_near(train(Adam::new(0.05), 3000), 1e-4);
}

#[test]
fn adamw_decays_towards_zero() {
    // Decoupled weight decay shrinks the solution: it is no longer the exact minimum, but
    // closer to zero than it.
    let (a, b) = train(Adam::adamw(0.05, 0.1), 3000);
    let (ma, mb) = minimum();
    assert!(a.hypot(b) < ma.hypot(mb), "({a}, {b})");
}

#[test]
fn rmsprop_converges() {
    assert_near(train(RmsProp::new(0.01), 3000), 1e-2);
}

#[test]
fn schedules_drive_the_rate() {
    assert_near(
        train(
            Sgd::new(ExponentialDecay {
                initial: 0.1,
                decay: 0.5,
                every: 200,
            }),
            1000,
        ),
        1e-6,
    );
    assert_near(
        train(
            Sgd::new(CosineDecay {
                initial: 0.1,
                steps: 1000,
                floor: 0.01,
            }),
            1000,
        ),
        1e-6,
    );
}

#[differentiable]
fn quadratic(w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        let d = w[i] - i as f64;
        s += d * d;
    }
    s
}

#[test]
fn explicit_parameters_step() {
    let mut w = vec![5.0; 4];
    let mut adam = Adam::new(0.1);
    let grad = gradients_function!(quadratic);
    for _ in 0..2000 {
        let g = grad(&w);
        adam.step(&mut w, &g);
    }
    for (i, x) in w.iter().enumerate() {
        assert!((x - i as f64).abs() < 1e-4, "{w:?}");
    }
}

#[test]
fn clipping_by_global_norm() {
    let a = Variable::new(0.0_f64);
    let b = Variable::new(0.0_f64);
    let f = differentiable_closure!(|| 3.0 * a + 4.0 * b);
    let mut grads = implicit_gradients(&f)();
    assert_eq!(grads.clip_by_global_norm(1.0), 5.0);
    assert!((grads.get(&a).unwrap() - 0.6).abs() < 1e-15);
    assert!((grads.get(&b).unwrap() - 0.8).abs() < 1e-15);
}
