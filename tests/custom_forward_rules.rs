//! `#[differentiable(vjp = .., jvp = ..)]`: a hand-written forward rule serves `jvp!` of the
//! function and of its callers; checked against the reverse rule (⟨∇f, v⟩) and central
//! differences.

use autodiff::prelude::*;

/// `log(1 + eˣ)`, with both rules by hand.
#[differentiable(vjp = softplus_vjp, jvp = softplus_jvp)]
fn softplus(x: f64) -> f64 {
    x.exp().ln_1p()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (softplus(x), move |dy| dy * sigmoid(x))
}

fn softplus_jvp(x: f64, tx: f64) -> (f64, f64) {
    (softplus(x), tx * sigmoid(x))
}

/// `Σ wᵢ xᵢ²` over a slice, with a forward rule taking the slice's tangent.
#[differentiable(vjp = weighted_vjp, jvp = weighted_jvp)]
fn weighted(x: &[f64], w: f64) -> f64 {
    w * x.iter().map(|v| v * v).sum::<f64>()
}

#[allow(clippy::type_complexity)]
fn weighted_vjp(x: &[f64], w: f64) -> (f64, impl FnOnce(f64) -> (Vec<f64>, f64)) {
    let s: f64 = x.iter().map(|v| v * v).sum();
    let x = x.to_vec();
    (w * s, move |dy| {
        (x.iter().map(|v| dy * 2.0 * w * v).collect(), dy * s)
    })
}

fn weighted_jvp(x: &[f64], w: f64, tx: &[f64], tw: f64) -> (f64, f64) {
    let s: f64 = x.iter().map(|v| v * v).sum();
    let ds: f64 = x.iter().zip(tx).map(|(v, t)| 2.0 * v * t).sum();
    (w * s, w * ds + tw * s)
}

/// A generated caller: its forward sweep calls the hand-written rules.
#[differentiable]
fn caller(x: &[f64], w: f64) -> f64 {
    let a = weighted(x, w);
    softplus(a) * 3.0 + softplus(x[0])
}

fn central(f: impl Fn(f64) -> f64, at: f64) -> f64 {
    let h = 1e-6;
    (f(at + h) - f(at - h)) / (2.0 * h)
}

#[test]
fn the_forward_rule_serves_jvp() {
    let (y, dy) = jvp!(softplus)(0.3, 2.0);
    assert_eq!(y, softplus(0.3));
    assert!((dy - 2.0 * central(softplus, 0.3)).abs() < 1e-8);
}

#[test]
fn a_slice_rule_agrees_with_the_reverse_rule() {
    let (x, w) = ([0.5, -1.0, 2.0], 0.7);
    let (tx, tw) = ([0.1, 0.2, -0.3], 0.4);
    let (_, dy) = jvp!(weighted)(&x[..], w, &tx[..], tw);
    let (gx, gw) = gradients_function!(weighted)(&x[..], w);
    let inner: f64 = gx.iter().zip(&tx).map(|(g, t)| g * t).sum::<f64>() + gw * tw;
    assert!((dy - inner).abs() < 1e-12);
}

#[test]
fn callers_of_hand_written_rules_have_forward_mode() {
    let (x, w) = ([0.5, -1.0, 2.0], 0.2);
    let (tx, tw) = ([1.0, 0.0, -0.5], 0.3);
    let (y, dy) = jvp!(caller)(&x[..], w, &tx[..], tw);
    assert_eq!(y, caller(&x, w));
    let (gx, gw) = gradients_function!(caller)(&x[..], w);
    let inner: f64 = gx.iter().zip(&tx).map(|(g, t)| g * t).sum::<f64>() + gw * tw;
    assert!((dy - inner).abs() < 1e-12);
    let along = |s: f64| {
        let xs: Vec<f64> = x.iter().zip(&tx).map(|(a, t)| a + s * t).collect();
        caller(&xs, w + s * tw)
    };
    assert!((dy - central(along, 0.0)).abs() < 1e-6);
}
