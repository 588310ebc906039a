//! The primal stays bit-for-bit: the value that `value_and_gradients_function!` and `vjp!`
//! return is exactly (same bits) the value of calling the function as written, over a few
//! hundred deterministic pseudo-random inputs.

use autodiff::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Inputs drawn per function.
const SAMPLES: usize = 300;

#[track_caller]
fn assert_same_bits_f64(name: &str, args: &[f64], primal: f64, from_helper: f64) {
    assert!(
        primal.to_bits() == from_helper.to_bits(),
        "`{name}` at {args:?}: the function returns {primal:e} ({:#018x}), the helper {from_helper:e} ({:#018x})",
        primal.to_bits(),
        from_helper.to_bits()
    );
}

#[track_caller]
fn assert_same_bits_f32(name: &str, args: &[f32], primal: f32, from_helper: f32) {
    assert!(
        primal.to_bits() == from_helper.to_bits(),
        "`{name}` at {args:?}: the function returns {primal:e} ({:#010x}), the helper {from_helper:e} ({:#010x})",
        primal.to_bits(),
        from_helper.to_bits()
    );
}

// ---------------------------------------------------------------------------------------
// The functions
// ---------------------------------------------------------------------------------------

#[differentiable]
fn weighted_sum<T: Float>(w1: T, x1: T, w2: T, x2: T) -> T {
    w1 * x1 + w2 * x2
}

/// Generic, with an integer parameter, a call, and constants converted with `T::from`.
#[differentiable]
fn energy<T: Float>(x: T, y: T, n: i32) -> T {
    let r = x.hypot(y);
    let k = (n as f64) * 0.5;
    let s = weighted_sum(x, T::from(k).unwrap(), r.sin(), y);
    s.powi(n) / r
}

/// Most scalar constructs at once: blocks, tuples, shadowing, `stop_gradient`, an integer
/// local, and many primitives.
#[differentiable]
fn mixture(a: f64, b: f64, c: f64) -> f64 {
    let r = a.hypot(b);
    let t = {
        let u = a * b - c;
        u.tanh() + (u * 0.5).sin()
    };
    let (p, q) = (r.ln_1p(), t.exp());
    let s = stop_gradient(p * q);
    let n = (c * 3.0) as i32;
    let w = a.mul_add(b, c).atan2(1.0 + r);
    let t = t.cbrt();
    (p * q + s / (1.0 + q)).powf(1.5) - w.powi(n)
        + c.abs().sqrt() * t
        + (a / (b * b + 1.0)) % 0.75
        + a.max(b).min(c).clamp(-1.0, 1.0)
        - (-a).exp_m1() / (2.0 + b.cos())
}

/// `ln(1 + eˣ)` with a custom rule.
#[differentiable(vjp = softplus_vjp)]
fn softplus(x: f64) -> f64 {
    x.exp().ln_1p()
}

fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let sigmoid = 1.0 / (1.0 + (-x).exp());
    (softplus(x), move |dy| dy * sigmoid)
}

#[differentiable]
fn layer(w: f64, x: f64, b: f64) -> f64 {
    softplus(w * x + b)
}

/// Nested calls, one of them through a custom rule, with literal arguments.
#[differentiable]
fn network(w1: f64, w2: f64, x: f64) -> f64 {
    let h = layer(w1, x, 0.1);
    let o = layer(w2, h, -0.2);
    o * x.sin() + layer(0.5, o, w1).sqrt()
}

#[differentiable]
fn f32_mix(x: f32, y: f32) -> f32 {
    let z = x * y - x / (1.0 + y * y);
    z.sin() * y.exp2() + x.hypot(z).sqrt() - (y * 0.25).atan().powi(3)
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

#[test]
fn energy_f64() {
    let mut rng = StdRng::seed_from_u64(0x9E37_79B9_7F4A_7C15);
    for i in 0..SAMPLES {
        let (x, y) = (rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0));
        let n = (i % 5) as i32 + 1;
        let primal = energy(x, y, n);
        let (value, _) = value_and_gradients_function!(energy)(x, y, n);
        assert_same_bits_f64("energy", &[x, y, f64::from(n)], primal, value);
        let (value, _) = value_and_gradients_function!(energy, params = ["y"])(x, y, n);
        assert_same_bits_f64("energy [y]", &[x, y, f64::from(n)], primal, value);
        let (value, _) = vjp!(energy)(x, y, n);
        assert_same_bits_f64("vjp!(energy)", &[x, y, f64::from(n)], primal, value);
    }
}

#[test]
fn energy_f32() {
    let mut rng = StdRng::seed_from_u64(0x2545_F491_4F6C_DD1D);
    for i in 0..SAMPLES {
        let (x, y) = (
            rng.random_range(-3.0..3.0) as f32,
            rng.random_range(-3.0..3.0) as f32,
        );
        let n = (i % 5) as i32 + 1;
        let primal = energy(x, y, n);
        let (value, _) = value_and_gradients_function!(energy)(x, y, n);
        assert_same_bits_f32("energy::<f32>", &[x, y, n as f32], primal, value);
        let (value, _) = vjp!(energy)(x, y, n);
        assert_same_bits_f32("vjp!(energy::<f32>)", &[x, y, n as f32], primal, value);
    }
}

#[test]
fn mixture_f64() {
    let mut rng = StdRng::seed_from_u64(0xD1B5_4A32_D192_ED03);
    for _ in 0..SAMPLES {
        let (a, b, c) = (
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
        );
        let primal = mixture(a, b, c);
        let (value, _) = value_and_gradients_function!(mixture)(a, b, c);
        assert_same_bits_f64("mixture", &[a, b, c], primal, value);
        let (value, _) = value_and_gradients_function!(mixture, params = [2, 0])(a, b, c);
        assert_same_bits_f64("mixture [2, 0]", &[a, b, c], primal, value);
        let (value, _) = vjp!(mixture)(a, b, c);
        assert_same_bits_f64("vjp!(mixture)", &[a, b, c], primal, value);
    }
}

#[test]
fn network_f64() {
    let mut rng = StdRng::seed_from_u64(0x8CB9_2BA7_2F3D_8DD7);
    for _ in 0..SAMPLES {
        let (w1, w2, x) = (
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-4.0..4.0),
        );
        let primal = network(w1, w2, x);
        let (value, _) = value_and_gradients_function!(network)(w1, w2, x);
        assert_same_bits_f64("network", &[w1, w2, x], primal, value);
        let (value, _) = value_and_gradients_function!(network, params = ["x"])(w1, w2, x);
        assert_same_bits_f64("network [x]", &[w1, w2, x], primal, value);
        let (value, _) = vjp!(network)(w1, w2, x);
        assert_same_bits_f64("vjp!(network)", &[w1, w2, x], primal, value);
    }
}

#[test]
fn f32_mix_f32() {
    let mut rng = StdRng::seed_from_u64(0x0123_4567_89AB_CDEF);
    for _ in 0..SAMPLES {
        let (x, y) = (
            rng.random_range(-3.0..3.0) as f32,
            rng.random_range(-3.0..3.0) as f32,
        );
        let primal = f32_mix(x, y);
        let (value, _) = value_and_gradients_function!(f32_mix)(x, y);
        assert_same_bits_f32("f32_mix", &[x, y], primal, value);
        let (value, _) = vjp!(f32_mix)(x, y);
        assert_same_bits_f32("vjp!(f32_mix)", &[x, y], primal, value);
    }
}

#[test]
fn the_inputs_are_not_degenerate() {
    // Guards the tests above against comparing only NaNs or infinities.
    let mut rng = StdRng::seed_from_u64(0xD1B5_4A32_D192_ED03);
    let finite = (0..SAMPLES)
        .filter(|_| {
            let (a, b, c) = (
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
            );
            mixture(a, b, c).is_finite()
        })
        .count();
    assert_eq!(finite, SAMPLES);
    let mut rng = StdRng::seed_from_u64(0x8CB9_2BA7_2F3D_8DD7);
    let distinct: std::collections::HashSet<u64> = (0..SAMPLES)
        .map(|_| {
            let (w1, w2, x) = (
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
                rng.random_range(-4.0..4.0),
            );
            network(w1, w2, x).to_bits()
        })
        .collect();
    assert!(distinct.len() > SAMPLES / 2);
}
