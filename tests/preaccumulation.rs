//! A cell updated from its own value read more than once (`y -= h * a * y`, `x = x * x`,
//! `y = y.sin() * c + (x * y).cos()`): the reverse sweep combines the update's partials
//! with respect to the old value before the cotangent meets them (`dy *= 1 − h·a`, as a
//! hand-written adjoint does). Each function is checked against a derivative written by
//! hand and against central differences, through every way of asking for a gradient, and
//! a zero cotangent still contributes zero where a partial is infinite.

use autodiff::check::finite_difference;
use autodiff::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// Euler steps switching at a threshold; both branches update `y` from `y` twice.
#[differentiable]
fn switching(a: f64, b: f64, n: usize) -> f64 {
    let h = 0.01;
    let mut y = 0.1;
    for _ in 0..n {
        if y > 0.5 {
            y -= h * a * y;
        } else {
            y += h * b * (1.0 - y);
        }
    }
    y
}

/// The adjoint of [`switching`] written by hand.
fn switching_by_hand(a: f64, b: f64, n: usize) -> (f64, f64) {
    let h = 0.01;
    let mut ys = Vec::new();
    let mut y = 0.1;
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
    (da, db)
}

#[test]
fn euler_steps_against_the_adjoint_by_hand_and_differences() {
    for &(a, b, n) in &[(3.0, 2.0, 200), (0.5, 9.0, 57), (7.0, 0.3, 1)] {
        let (value, (da, db)) = value_and_gradients_function!(switching)(a, b, n);
        assert_eq!(value.to_bits(), switching(a, b, n).to_bits());
        let (ha, hb) = switching_by_hand(a, b, n);
        let fd = finite_difference(|p: &[f64]| switching(p[0], p[1], n), &[a, b]);
        for (got, by_hand, numeric) in [(da, ha, fd[0]), (db, hb, fd[1])] {
            assert!(close(got, by_hand, 1e-13), "{got} vs by hand {by_hand}");
            assert!(close(got, numeric, 1e-6), "{got} vs differences {numeric}");
        }
        // the two-sweep pullback, a cotangent other than one
        let (v, pullback) = vjp!(switching)(a, b, n);
        assert_eq!(v.to_bits(), value.to_bits());
        let (va, vb) = pullback(-2.5);
        assert!(close(va, -2.5 * ha, 1e-13) && close(vb, -2.5 * hb, 1e-13));
    }
}

/// `x` squared `k` times: `x^(2^k)`.
#[differentiable]
fn repeated_square(x: f64, k: usize) -> f64 {
    let mut y = x;
    for _ in 0..k {
        y = y * y;
    }
    y
}

#[test]
fn repeated_squares_against_the_closed_form() {
    for &(x, k) in &[(1.01, 5usize), (0.9, 3), (-1.1, 4), (2.0, 0)] {
        let (value, dx) = value_and_gradients_function!(repeated_square)(x, k);
        let p = 2f64.powi(k as i32);
        assert!(close(value, x.powf(p), 1e-12));
        let expected = p * x.powf(p - 1.0);
        assert!(close(dx, expected, 1e-12), "k = {k}: {dx} vs {expected}");
        let fd = finite_difference(|v: &[f64]| repeated_square(v[0], k), &[x]);
        assert!(close(dx, fd[0], 1e-6), "{dx} vs differences {}", fd[0]);
    }
}

/// A chain through elementary functions: `y ← sin(y)·c + cos(x·y)`.
#[differentiable]
fn trig_chain(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 0.9 + (x * y).cos();
    }
    y
}

fn trig_chain_by_hand(x: f64, n: usize) -> f64 {
    let mut ys = Vec::new();
    let mut y = x;
    for _ in 0..n {
        ys.push(y);
        y = y.sin() * 0.9 + (x * y).cos();
    }
    let (mut dy, mut dx) = (1.0, 0.0);
    for &yk in ys.iter().rev() {
        let s = (x * yk).sin();
        dx -= dy * s * yk;
        dy *= yk.cos() * 0.9 - s * x;
    }
    dx + dy
}

#[test]
fn elementary_chains_against_the_adjoint_by_hand() {
    for &(x, n) in &[(0.3, 40usize), (1.7, 9), (-0.8, 2)] {
        let (_, dx) = value_and_gradients_function!(trig_chain)(x, n);
        let by_hand = trig_chain_by_hand(x, n);
        assert!(close(dx, by_hand, 1e-12), "{dx} vs by hand {by_hand}");
        let fd = finite_difference(|v: &[f64]| trig_chain(v[0], n), &[x]);
        assert!(close(dx, fd[0], 1e-6), "{dx} vs differences {}", fd[0]);
    }
}

/// At `x = 0` the update's partial is infinite (`sqrt` at zero), and nothing reads the
/// updated value: its cotangent is zero, and so is the gradient (not `0 · ∞`).
#[differentiable]
fn unread_update(x: f64, keep: bool) -> f64 {
    let mut y = x;
    y = y.sqrt() + y * 2.0;
    if keep {
        y
    } else {
        x * 3.0
    }
}

#[test]
fn a_zero_cotangent_contributes_zero_through_an_infinite_partial() {
    let (_, dx) = value_and_gradients_function!(unread_update)(0.0, false);
    assert_eq!(dx, 3.0);
    let (_, dx) = value_and_gradients_function!(unread_update)(0.25, true);
    assert!(close(dx, 1.0 / (2.0 * 0.5) + 2.0, 1e-15), "{dx}");
}

/// Generic over its float type: the same update on `f32`, and under `hvp!` on dual
/// numbers.
#[differentiable]
fn logistic_steps<T: Float>(r: T, n: usize) -> T {
    let mut y = T::from(0.2).unwrap();
    for _ in 0..n {
        y = r * y * (T::one() - y);
    }
    y
}

#[test]
fn generic_updates_in_f32_and_second_order() {
    let n = 12;
    let (_, dr) = value_and_gradients_function!(logistic_steps)(2.9_f64, n);
    let fd = finite_difference(|v: &[f64]| logistic_steps(v[0], n), &[2.9]);
    assert!(close(dr, fd[0], 1e-6), "{dr} vs {}", fd[0]);
    let (_, dr32) = value_and_gradients_function!(logistic_steps)(2.9_f32, n);
    assert!(close(dr32 as f64, dr, 1e-3), "{dr32} vs {dr}");
    // the second derivative: differences of the gradient
    let h = 1e-4;
    let g = |r: f64| value_and_gradients_function!(logistic_steps)(r, n).1;
    let second = (g(2.9 + h) - g(2.9 - h)) / (2.0 * h);
    let hv = hvp!(logistic_steps)(2.9, n, 1.0);
    assert!(close(hv, second, 1e-5), "{hv} vs {second}");
}

#[test]
fn implicit_mode_reads_the_same_update() {
    let a = Variable::new(3.0);
    let f = differentiable_closure!(|b: f64| switching(a, b, 150));
    let (value, grads) = implicit_value_and_gradients(&f)(2.0);
    assert_eq!(value.to_bits(), switching(3.0, 2.0, 150).to_bits());
    let (ha, _) = switching_by_hand(3.0, 2.0, 150);
    let got = grads.get(&a).expect("a is read");
    assert!(close(got, ha, 1e-13), "{got} vs {ha}");
}
