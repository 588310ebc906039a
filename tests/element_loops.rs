//! Idiomatic loops and copies over differentiable sequences: `for v in buf.iter_mut()`,
//! `&mut buf`, `.iter_mut().enumerate()`, `.iter_mut().zip(x)` (either side), and owned
//! copies `x.to_vec()`, `Vec::from(x)`, `<[f64]>::to_vec(x)` that carry their gradient.
//! Gradients against hand-derived values and central finite differences, forward mode and
//! `vjp!` included. `clone()` is a copy as written (of a `Vec`, an owned one).

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// ‖a·x‖² through a copy scaled in place.
#[differentiable]
fn scaled_norm(a: f64, x: &[f64]) -> f64 {
    let mut buf = x.to_vec();
    for v in buf.iter_mut() {
        *v *= a;
    }
    let mut s = 0.0;
    for v in &buf {
        s += v * v;
    }
    s
}

#[test]
fn iter_mut_over_a_copy() {
    let (a, x) = (1.5, vec![0.5, -1.0, 2.0]);
    let (ga, gx) = gradients_function!(scaled_norm)(a, &x);
    // s = a²‖x‖²: ∂/∂a = 2a‖x‖², ∂/∂x = 2a²x
    let n: f64 = x.iter().map(|v| v * v).sum();
    assert!((ga - 2.0 * a * n).abs() < 1e-12);
    let hand: Vec<f64> = x.iter().map(|v| 2.0 * a * a * v).collect();
    assert_gradient_close(&gx, &hand, 1e-14);
    // forward mode: along (1, 0, 0, 0) the tangent is ∂/∂a
    let (value, tangent) = jvp!(scaled_norm)(a, &x, 1.0, &[0.0; 3]);
    assert_eq!(value.to_bits(), scaled_norm(a, &x).to_bits());
    assert!((tangent - ga).abs() < 1e-12);
}

/// y ← y + a·x by a zip over `&mut` and shared elements, in both orders, with `enumerate`
/// and `&mut y`.
#[differentiable]
fn zipped(a: f64, x: &[f64], y: &mut [f64]) -> f64 {
    for (o, xi) in y.iter_mut().zip(x) {
        *o += a * xi;
    }
    for (xi, o) in x.iter().zip(y.iter_mut()) {
        *o = *o * xi.cos() + *xi;
    }
    for (i, o) in y.iter_mut().enumerate() {
        *o *= 1.0 + 0.1 * i as f64;
    }
    for o in &mut *y {
        *o = o.sin();
    }
    y[0] * y[1] + y[2]
}

fn zipped_by_hand(a: f64, x: &[f64], y0: &[f64]) -> f64 {
    let y: Vec<f64> = (0..3)
        .map(|i| {
            let v = (y0[i] + a * x[i]) * x[i].cos() + x[i];
            (v * (1.0 + 0.1 * i as f64)).sin()
        })
        .collect();
    y[0] * y[1] + y[2]
}

#[test]
fn zip_and_enumerate_over_iter_mut() {
    let (a, x, y0) = (0.7, vec![0.4, -0.9, 1.3], vec![0.5, 1.0, -2.0]);
    let mut y = y0.clone();
    let value = zipped(a, &x, &mut y);
    assert!((value - zipped_by_hand(a, &x, &y0)).abs() < 1e-12);
    let mut y = y0.clone();
    let (v, (ga, gx, gy)) = value_and_gradients_function!(zipped)(a, &x, &mut y);
    assert_eq!(v.to_bits(), value.to_bits());
    let fa = finite_difference(|p| zipped_by_hand(p[0], &x, &y0), &[a]);
    assert!(
        (ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0),
        "{ga} vs {fa:?}"
    );
    assert_gradient_close(
        &gx,
        &finite_difference(|p| zipped_by_hand(a, p, &y0), &x),
        1e-8,
    );
    assert_gradient_close(
        &gy,
        &finite_difference(|p| zipped_by_hand(a, &x, p), &y0),
        1e-8,
    );
    // vjp! agrees, scaled
    let mut y = y0.clone();
    let (_, pullback) = vjp!(zipped)(a, &x, &mut y);
    let (va, _, _) = pullback(-0.5);
    assert!((va + 0.5 * ga).abs() < 1e-12 * ga.abs().max(1.0));
}

/// Owned copies by `Vec::from` and `<[f64]>::to_vec`, written and read.
#[differentiable]
fn copies(a: f64, x: &[f64]) -> f64 {
    let mut u = Vec::from(x);
    let w = <[f64]>::to_vec(x);
    u[0] *= a;
    u[1] = w[2] * a;
    u[0] + u[1] * w[0]
}

#[test]
fn owned_copies_carry_the_gradient() {
    let (a, x) = (1.2, vec![0.3, 0.8, -0.6]);
    let (ga, gx) = gradients_function!(copies)(a, &x);
    // f = a·x0 + a·x2·x0: ∂/∂a = x0 + x2·x0, ∂/∂x = (a + a·x2, 0, a·x0)
    assert!((ga - (x[0] + x[2] * x[0])).abs() < 1e-14);
    let hand = [a + a * x[2], 0.0, a * x[0]];
    assert_gradient_close(&gx, &hand, 1e-14);
}

/// `copy_from_slice` into a buffer, a range of one and a view; `fill` and `swap`.
#[differentiable]
fn copies_in_place(a: f64, x: &[f64]) -> f64 {
    let mut buf = vec![0.0; 5];
    buf[..3].copy_from_slice(&x[1..4]);
    buf[3..].fill(a);
    buf.swap(0, 4);
    let (h, c) = buf.split_at_mut(2);
    h.copy_from_slice(&c[1..3]);
    c[0] *= h[1];
    let mut out = vec![1.0; 3];
    out.copy_from_slice(x.split_at(3).0);
    out[2] *= a;
    buf[0] * buf[1] + buf[2] * buf[4] + out[0] * out[2]
}

fn copies_in_place_by_hand(a: f64, x: &[f64]) -> f64 {
    let mut buf = [x[1], x[2], x[3], a, a];
    buf.swap(0, 4);
    buf[0] = buf[3];
    buf[1] = buf[4];
    buf[2] *= buf[1];
    let out = [x[0], x[1], x[2] * a];
    buf[0] * buf[1] + buf[2] * buf[4] + out[0] * out[2]
}

#[test]
fn copy_from_slice_fill_and_swap() {
    let (a, x) = (0.9, vec![0.3, -0.7, 1.1, 0.5, 2.0]);
    assert!((copies_in_place(a, &x) - copies_in_place_by_hand(a, &x)).abs() < 1e-12);
    let (v, (ga, gx)) = value_and_gradients_function!(copies_in_place)(a, &x);
    assert_eq!(v.to_bits(), copies_in_place(a, &x).to_bits());
    let fa = finite_difference(|p| copies_in_place_by_hand(p[0], &x), &[a]);
    assert!(
        (ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0),
        "{ga} vs {fa:?}"
    );
    let fx = finite_difference(|p| copies_in_place_by_hand(a, p), &x);
    assert_gradient_close(&gx, &fx, 1e-8);
}

#[differentiable]
fn copy_of_another_length(x: &[f64]) -> f64 {
    let mut buf = vec![0.0; 3];
    buf.copy_from_slice(&x[..2]);
    buf[0]
}

#[test]
fn copy_from_slice_of_another_length_panics_as_rust_does() {
    let message = |r: std::thread::Result<f64>| -> String {
        let e = r.expect_err("should panic");
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    };
    let x = [0.5; 4];
    let plain = message(std::panic::catch_unwind(|| copy_of_another_length(&x)));
    let gradient = message(std::panic::catch_unwind(|| {
        gradients_function!(copy_of_another_length)(&x)[0]
    }));
    assert_eq!(
        plain,
        "copy_from_slice: source slice length (2) does not match destination slice length (3)"
    );
    assert_eq!(gradient, plain);
}

/// `clone()` of a `Vec` local, of a `Vec` parameter and of a `&Vec` parameter: a copy, the
/// original still read after it.
#[differentiable]
fn clones(a: f64, x: Vec<f64>, y: &Vec<f64>) -> f64 {
    let v = x.to_vec();
    let mut w = v.clone();
    w[0] *= a;
    let mut u = x.clone();
    u[1] *= w[0];
    let mut z = y.clone();
    z[0] += u[1] * a;
    v[0] + w[0] + x[1] * u[1] + z[0] * y[1]
}

#[test]
fn clones_are_copies() {
    let (a, x, y) = (0.8, vec![0.6, -1.2], vec![1.5, 0.4]);
    let by_hand = |a: f64, x: &[f64], y: &[f64]| {
        let w0 = x[0] * a;
        let u1 = x[1] * w0;
        let z0 = y[0] + u1 * a;
        x[0] + w0 + x[1] * u1 + z0 * y[1]
    };
    assert!((clones(a, x.clone(), &y) - by_hand(a, &x, &y)).abs() < 1e-12);
    let (ga, gx, gy) = gradients_function!(clones)(a, x.clone(), &y);
    let fa = finite_difference(|p| by_hand(p[0], &x, &y), &[a]);
    assert!(
        (ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0),
        "{ga} vs {fa:?}"
    );
    assert_gradient_close(&gx, &finite_difference(|p| by_hand(a, p, &y), &x), 1e-8);
    assert_gradient_close(&gy, &finite_difference(|p| by_hand(a, &x, p), &y), 1e-8);
}
