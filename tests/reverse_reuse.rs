//! What the reverse sweep takes from the forward sweep instead of computing or keeping again,
//! and what the outermost helpers leave out, each checked against finite differences and
//! hand-derived derivatives:
//!
//! - `x.sin()` beside `x.cos()` (and `sinh`/`cosh`) of one value in one region: each rule
//!   reads the other's output instead of calling the other function;
//! - an element of an array parameter at a constant index, read again from the array
//!   rather than kept beside it;
//! - the two branches of an `if` outside loops saving into one slot;
//! - `value_and_gradients_function!` with `params` leaving out a slice (no buffer for it)
//!   or a `&mut` buffer (whose adjoint still carries the others');
//! - a local buffer handed to a helper as its last mention, moved into the call rather than
//!   copied (and copied where it is read again, viewed, or was lent `&mut`).

// (the helpers index their buffers, the form measured)
#![allow(clippy::needless_range_loop)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// A rotation of `(x, y)` by `a`, both coordinates summed with weights: `sin` and `cos`
/// of one angle, each read by both coordinates.
#[differentiable]
fn rotated(a: f64, x: f64, y: f64) -> f64 {
    let c = a.cos();
    let s = a.sin();
    let u = x * c - y * s;
    let v = x * s + y * c;
    2.0 * u + 3.0 * v * v
}

#[test]
fn sine_and_cosine_of_one_angle() {
    for &(a, x, y) in &[(0.3, 1.5, -0.5), (2.5, -1.0, 0.75), (-1.2, 0.2, 2.0)] {
        let (ga, gx, gy) = gradients_function!(rotated)(a, x, y);
        let (c, s) = (a.cos(), a.sin());
        let v = x * s + y * c;
        // hand-derived: du/da = -v, dv/da = u
        let u = x * c - y * s;
        let expected = [
            2.0 * -v + 6.0 * v * u,
            2.0 * c + 6.0 * v * s,
            2.0 * -s + 6.0 * v * c,
        ];
        assert_gradient_close(&[ga, gx, gy], &expected, 1e-13);
        let fd = finite_difference(|p| rotated(p[0], p[1], p[2]), &[a, x, y]);
        assert_gradient_close(&[ga, gx, gy], &fd, 1e-8);
    }
}

/// `sin` of `t` in the body, `cos` of `t` only in one branch (another region), `sinh` and
/// `cosh` of `w` side by side, and `cos` of `t` computed twice.
#[differentiable]
fn scattered(t: f64, w: f64) -> f64 {
    let s = t.sin();
    let mut out = s * w.sinh() + w.cosh() * w;
    if w > 0.0 {
        out += t.cos() * 2.0;
    } else {
        out -= t.cos() * t.cos();
    }
    out + t.cos() * s
}

#[test]
fn sine_and_cosine_in_different_regions() {
    for &(t, w) in &[(0.7, 0.4), (0.7, -0.4), (-2.0, 1.3), (1.1, -0.9)] {
        let (gt, gw) = gradients_function!(scattered)(t, w);
        let fd = finite_difference(|p| scattered(p[0], p[1]), &[t, w]);
        assert_gradient_close(&[gt, gw], &fd, 1e-8);
    }
}

/// In `f32`, in a loop: the sibling's output is restored per iteration.
#[differentiable]
#[allow(clippy::needless_range_loop)] // an indexed loop is the form checked
fn looped(xs: &[f32]) -> f32 {
    let mut acc = 0.0;
    for i in 0..xs.len() {
        let (s, c) = (xs[i].sin(), xs[i].cos());
        acc += s * c + c;
    }
    acc
}

#[test]
fn sine_and_cosine_in_a_loop_in_f32() {
    let xs = [0.3_f32, -1.2, 2.0];
    let g = gradients_function!(looped)(&xs);
    for (i, x) in xs.iter().enumerate() {
        // d/dx (sin x cos x + cos x) = cos 2x − sin x
        let expected = (2.0 * x).cos() - x.sin();
        assert!((g[i] - expected).abs() <= 1e-5, "{} vs {expected}", g[i]);
    }
}

/// Elements of array parameters at constant indices (the cross product), as a caller of a
/// helper returning an array.
#[differentiable]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
    out
}

#[differentiable]
fn weighted_cross(a: [f64; 3], b: [f64; 3]) -> f64 {
    let c = cross(a, b);
    c[0] + 2.0 * c[1] + 3.0 * c[2] + a[0] * a[2]
}

#[test]
fn array_elements_read_again() {
    let (a, b) = ([0.5, -1.0, 2.0], [1.5, 0.25, -0.75]);
    let (ga, gb) = gradients_function!(weighted_cross)(a, b);
    // w · (a × b) = a · (b × w) = b · (w × a), with w = (1, 2, 3)
    let w = [1.0, 2.0, 3.0];
    let mut expected_a = cross(b, w);
    expected_a[0] += a[2];
    expected_a[2] += a[0];
    assert_gradient_close(&ga, &expected_a, 1e-14);
    assert_gradient_close(&gb, &cross(w, a), 1e-14);
    let (_, pullback) = vjp!(cross)(a, b);
    let (da, db) = pullback([1.0, 2.0, 3.0]);
    assert_gradient_close(&da, &cross(b, w), 1e-14);
    assert_gradient_close(&db, &cross(w, a), 1e-14);
}

#[differentiable]
fn scaled(v: &[f64], k: f64) -> f64 {
    v[0] * k + v[1] * v[1]
}

/// Both branches call a helper and keep values; one branch of a nested `if` keeps
/// nothing.
#[differentiable]
fn branches(x: &[f64], t: f64) -> f64 {
    let mut out = 0.0;
    if t > 0.0 {
        let e = (t * x[0]).exp();
        out += e * scaled(x, t);
    } else {
        let q = t * t;
        let r = (x[1] * q).sin();
        out += r * scaled(x, q) + q.ln();
        if x[0] > 0.0 {
            out *= x[0];
        } else {
            out += 1.0;
        }
    }
    out
}

#[test]
fn both_branches_of_an_if_saving_values() {
    for &(x0, x1, t) in &[
        (0.5, -0.25, 0.8),
        (0.5, -0.25, -0.8),
        (-0.5, 0.75, -1.3),
        (1.5, 0.75, 0.3),
    ] {
        let x = [x0, x1];
        let (gx, gt) = gradients_function!(branches)(&x, t);
        let fd = finite_difference(|p| branches(&p[..2], p[2]), &[x0, x1, t]);
        assert_gradient_close(&[gx[0], gx[1], gt], &fd, 1e-7);
    }
}

/// y ← y + a·x, then a value of `y` and of `b`.
#[differentiable]
fn through_a_buffer(y: &mut [f64], x: &[f64], b: &[f64], a: f64) -> f64 {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
    y[0] * y[1] + b[0] * x[1]
}

#[test]
fn params_leaving_out_a_slice_or_a_buffer() {
    let (y0, x, b, a) = ([1.0, -2.0], [0.5, 1.5], [3.0, 4.0], 0.75);
    let f = |p: &[f64]| through_a_buffer(&mut [y0[0], y0[1]], &p[..2], &b, p[2]);
    let fd = finite_difference(f, &[x[0], x[1], a]);
    // `y` (a `&mut` buffer) and `b` left out: the gradients reaching `x` and `a` through
    // `y` are still there
    let (value, (gx, ga)) = value_and_gradients_function!(through_a_buffer, params = ["x", "a"])(
        &mut y0.clone(),
        &x,
        &b,
        a,
    );
    assert_eq!(value, f(&[x[0], x[1], a]));
    assert_gradient_close(&[gx[0], gx[1], ga], &fd, 1e-8);
    let gx_alone =
        gradients_function!(through_a_buffer, params = ["x"])(&mut y0.clone(), &x, &b, a);
    assert_gradient_close(&gx_alone, &gx, 1e-15);
    // and the buffer alone: df/dy0 = (y1, y0) at the updated values
    let gy = gradients_function!(through_a_buffer, params = ["y"])(&mut y0.clone(), &x, &b, a);
    let y = [y0[0] + a * x[0], y0[1] + a * x[1]];
    assert_gradient_close(&gy, &[y[1], y[0]], 1e-15);
}

/// `Σ vᵢ²`, the helper the local buffers below are handed to.
#[differentiable]
fn sum_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

/// A local buffer built by index and handed to a helper as its last mention: the forward
/// sweep moves the buffer into the call's snapshot instead of copying it.
#[differentiable]
fn buffer_handed_last(x: &[f64], a: f64) -> f64 {
    let mut b = vec![0.0; x.len()];
    for i in 0..x.len() {
        b[i] = a * x[i];
    }
    0.5 * sum_sq(&b)
}

/// The same buffer read again after the call: copied, as before.
#[differentiable]
fn buffer_read_after(x: &[f64], a: f64) -> f64 {
    let mut b = vec![0.0; x.len()];
    for i in 0..x.len() {
        b[i] = a * x[i];
    }
    sum_sq(&b) + b[0] * b[1]
}

/// A sub-slice of the buffer taken before the call and used after it: the buffer stays
/// borrowed, so it is copied.
#[differentiable]
fn buffer_with_a_view(x: &[f64], a: f64) -> f64 {
    let mut b = vec![0.0; x.len()];
    for i in 0..x.len() {
        b[i] = a * x[i];
    }
    let tail = &b[1..];
    let t = sum_sq(&b);
    t + sum_sq(tail)
}

/// `out ← a x`.
#[differentiable]
fn fill_scaled(x: &[f64], a: f64, out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = a * x[i];
    }
}

/// The buffer written by a helper it is lent `&mut` to, then handed on.
#[differentiable]
fn buffer_filled_by_a_helper(x: &[f64], a: f64) -> f64 {
    let mut b = vec![0.0; x.len()];
    fill_scaled(x, a, &mut b);
    sum_sq(&b)
}

/// `f`'s gradient by `gradients_function!` and by `vjp!`, against the gradient by hand and
/// central differences.
fn check_buffer_case(
    f: fn(&[f64], f64) -> f64,
    gradient: (Vec<f64>, f64),
    pulled: (Vec<f64>, f64),
    by_hand: (Vec<f64>, f64),
    x: &[f64],
    a: f64,
) {
    let (gx, ga) = gradient;
    assert_gradient_close(&gx, &by_hand.0, 1e-13);
    assert_gradient_close(&[ga], &[by_hand.1], 1e-13);
    let mut p = x.to_vec();
    p.push(a);
    let n = x.len();
    let fd = finite_difference(|p| f(&p[..n], p[n]), &p);
    assert_gradient_close(&gx, &fd[..n], 1e-7);
    assert_gradient_close(&[ga], &fd[n..], 1e-7);
    assert_eq!(pulled.0, gx, "vjp! and the gradient");
    assert_eq!(pulled.1, ga, "vjp! and the gradient");
}

#[test]
fn local_buffers_handed_to_helpers() {
    let x = [0.5, -1.25, 2.0, 0.75];
    let a = 1.5;
    let sx: f64 = x.iter().map(|v| v * v).sum();
    let tail: f64 = x[1..].iter().map(|v| v * v).sum();
    check_buffer_case(
        buffer_handed_last,
        gradients_function!(buffer_handed_last)(&x, a),
        vjp!(buffer_handed_last)(&x, a).1(1.0),
        (x.iter().map(|v| a * a * v).collect(), a * sx),
        &x,
        a,
    );
    let read_after = (0..4)
        .map(|i| {
            2.0 * a * a * x[i]
                + match i {
                    0 => a * a * x[1],
                    1 => a * a * x[0],
                    _ => 0.0,
                }
        })
        .collect();
    check_buffer_case(
        buffer_read_after,
        gradients_function!(buffer_read_after)(&x, a),
        vjp!(buffer_read_after)(&x, a).1(1.0),
        (read_after, 2.0 * a * sx + 2.0 * a * x[0] * x[1]),
        &x,
        a,
    );
    let with_view = (0..4)
        .map(|i| if i == 0 { 2.0 } else { 4.0 } * a * a * x[i])
        .collect();
    check_buffer_case(
        buffer_with_a_view,
        gradients_function!(buffer_with_a_view)(&x, a),
        vjp!(buffer_with_a_view)(&x, a).1(1.0),
        (with_view, 2.0 * a * sx + 2.0 * a * tail),
        &x,
        a,
    );
    check_buffer_case(
        buffer_filled_by_a_helper,
        gradients_function!(buffer_filled_by_a_helper)(&x, a),
        vjp!(buffer_filled_by_a_helper)(&x, a).1(1.0),
        (x.iter().map(|v| 2.0 * a * a * v).collect(), 2.0 * a * sx),
        &x,
        a,
    );
}
