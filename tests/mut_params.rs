//! `&mut` parameters, as C and C++ users write helpers: the callee reads and writes the
//! caller's buffer, and its shadow carries the adjoint of the buffer's final value in and
//! of its initial value out; floats written through (`x: &mut f64`) the same way. Gradients
//! against finite differences and by hand.
// Written the way C and C++ users write these helpers (index loops, explicit copies, every
// range form), which is what these tests measure.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::redundant_slicing
)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// y ← y + a·x
#[differentiable]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[i] += a * x[i];
    }
}

#[differentiable]
fn sqnorm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

/// ‖1 + a·x + a²·x‖²
#[differentiable]
fn two_axpys(a: f64, x: &[f64]) -> f64 {
    let mut y = vec![1.0; x.len()];
    axpy(a, x, &mut y);
    axpy(a * a, x, &mut y);
    sqnorm(&y)
}

fn point(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.4 - 0.23 * i as f64 + 0.02 * (i * i) as f64)
        .collect()
}

#[test]
fn a_helper_writing_the_callers_buffer() {
    let (a, x) = (0.7, point(5));
    let (ga, gx) = gradients_function!(two_axpys)(a, &x);
    // y_i = 1 + (a + a²) x_i: ∂/∂a = Σ 2 y_i (1 + 2a) x_i, ∂/∂x_i = 2 y_i (a + a²)
    let c = a + a * a;
    let y: Vec<f64> = x.iter().map(|xi| 1.0 + c * xi).collect();
    let hand_a: f64 = (0..5).map(|i| 2.0 * y[i] * (1.0 + 2.0 * a) * x[i]).sum();
    let hand_x: Vec<f64> = y.iter().map(|yi| 2.0 * yi * c).collect();
    assert!((ga - hand_a).abs() < 1e-12 * hand_a.abs().max(1.0));
    assert_gradient_close(&gx, &hand_x, 1e-13);
    let fd = finite_difference(|v| two_axpys(v[0], &x), &[a]);
    assert!((ga - fd[0]).abs() < 1e-8);
    assert_gradient_close(&gx, &finite_difference(|v| two_axpys(a, v), &x), 1e-8);
}

/// An in-place nonlinear update that reads the old values: s_i ← tanh(s_i · p_i + s_{i-1}).
#[differentiable]
fn step(state: &mut [f64], params: &[f64]) {
    for i in (1..state.len()).rev() {
        state[i] = (state[i] * params[i] + state[i - 1]).tanh();
    }
    state[0] = (state[0] * params[0]).tanh();
}

/// A helper passing its `&mut` parameter on.
#[differentiable]
fn two_steps(state: &mut [f64], params: &[f64]) {
    step(state, params);
    step(state, &params[..]);
}

#[differentiable]
fn run(params: &[f64], init: &[f64], n: usize) -> f64 {
    let mut state = vec![0.0; init.len()];
    for i in 0..init.len() {
        state[i] = init[i];
    }
    for _ in 0..n {
        two_steps(&mut state, params);
    }
    let mut s = 0.0;
    for i in 0..state.len() {
        s += state[i] * (i + 1) as f64;
    }
    s
}

#[test]
fn in_place_state_updates_in_a_loop() {
    let (p, init) = (point(4), vec![0.3, -0.2, 0.5, 0.1]);
    let (gp, gi) = gradients_function!(run, params = ["params", "init"])(&p, &init, 3);
    assert_gradient_close(&gp, &finite_difference(|v| run(v, &init, 3), &p), 1e-8);
    assert_gradient_close(&gi, &finite_difference(|v| run(&p, v, 3), &init), 1e-8);
}

/// A top-level function with a `&mut` parameter: the gradient with respect to the
/// buffer's initial value.
#[differentiable]
fn update_and_read(x: &[f64], y: &mut [f64]) -> f64 {
    axpy(2.0, x, y);
    y[0] * y[1]
}

#[test]
fn the_gradient_of_a_buffers_initial_value() {
    let x = [0.5, -1.5];
    let y0 = [1.0, 2.0];
    let mut y = y0;
    let (gx, gy) = gradients_function!(update_and_read)(&x, &mut y);
    // the primal ran once: y = y0 + 2x
    assert_eq!(y, [2.0, -1.0]);
    // f = (y0_0 + 2x_0)(y0_1 + 2x_1)
    let (u, v) = (y0[0] + 2.0 * x[0], y0[1] + 2.0 * x[1]);
    assert_gradient_close(&gx, &[2.0 * v, 2.0 * u], 1e-15);
    assert_gradient_close(&gy, &[v, u], 1e-15);
    let (value, pullback) = vjp!(update_and_read)(&x, &mut y0.clone());
    assert_eq!(value, u * v);
    let (gx2, gy2) = pullback(1.0);
    assert_eq!((gx2, gy2), (gx, gy));
}

/// y ← y ⊙ a + b
#[differentiable]
fn scale_into(a: &[f64], b: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = y[i] * a[i] + b[i];
    }
}

/// Two sub-slices of one slice lent to a helper that writes a buffer: the second is lent a
/// buffer of its own, added back after the call (it was once a silently zero gradient).
#[differentiable]
fn two_parts_of_one_slice(p: &[f64]) -> f64 {
    let mut y = vec![2.0; 1];
    scale_into(&p[0..1], &p[1..2], &mut y);
    scale_into(&p[..1], &p[..1], &mut y);
    y[0] * 5.0
}

#[test]
fn sub_slices_of_one_slice_lent_with_a_written_buffer() {
    let p = [0.5, 0.25];
    let g = gradients_function!(two_parts_of_one_slice)(&p);
    // y1 = 2 p0 + p1, y2 = y1 p0 + p0, f = 5 y2
    // ∂f/∂p0 = 5 (2 p0 + y1 + 1) = 5 (1 + 1.25 + 1), ∂f/∂p1 = 5 p0
    assert_gradient_close(
        &g,
        &[5.0 * (2.0 * p[0] + 2.0 * p[0] + p[1] + 1.0), 5.0 * p[0]],
        1e-15,
    );
    assert_gradient_close(&g, &finite_difference(two_parts_of_one_slice, &p), 1e-8);
}

// ---------------------------------------------------------------------------------------
// A range of a buffer lent `&mut buf[a..b]`: the callee's shadow is the same range of the
// buffer's adjoint.
// ---------------------------------------------------------------------------------------

/// y = 1 everywhere, then y[1..n+1] += a·x and y[k..] += a²·x[..n+1-k] (every range form
/// but one), then ‖y‖².
#[differentiable]
fn axpy_into_ranges(a: f64, x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![1.0; n + 2];
    axpy(a, x, &mut y[1..n + 1]);
    axpy(a * a, &x[..2], &mut y[..2]);
    axpy(a, &x[..1], &mut y[n + 1..]);
    axpy(0.5 * a, &x[1..=2], &mut y[2..=3]);
    sqnorm(&y)
}

/// The same, by hand: y and then ∂‖y‖²/∂a and ∂/∂x.
fn axpy_into_ranges_by_hand(a: f64, x: &[f64]) -> (f64, Vec<f64>) {
    let n = x.len();
    let mut y = vec![1.0; n + 2];
    // (index of y, index of x, coefficient c(a), c'(a))
    let mut terms = Vec::new();
    for i in 0..n {
        terms.push((i + 1, i, a, 1.0));
    }
    for i in 0..2 {
        terms.push((i, i, a * a, 2.0 * a));
    }
    terms.push((n + 1, 0, a, 1.0));
    for i in 0..2 {
        terms.push((2 + i, 1 + i, 0.5 * a, 0.5));
    }
    for &(j, i, c, _) in &terms {
        y[j] += c * x[i];
    }
    let mut ga = 0.0;
    let mut gx = vec![0.0; n];
    for &(j, i, c, dc) in &terms {
        ga += 2.0 * y[j] * dc * x[i];
        gx[i] += 2.0 * y[j] * c;
    }
    (ga, gx)
}

/// A `&mut` parameter's range passed on, in a loop: y[k..k+2] += a·x[k..k+2] for every k.
#[differentiable]
fn windows_of_a_mut_param(a: f64, x: &[f64], y: &mut [f64]) -> f64 {
    for k in 0..x.len() - 1 {
        axpy(a, &x[k..k + 2], &mut y[k..k + 2]);
    }
    let mut s = 0.0;
    for i in 0..y.len() {
        s += y[i] * y[i];
    }
    s
}

#[test]
fn ranges_of_a_buffer_lent_to_a_helper() {
    let (a, x) = (0.7, point(5));
    let (ga, gx) = gradients_function!(axpy_into_ranges)(a, &x);
    let (hand_a, hand_x) = axpy_into_ranges_by_hand(a, &x);
    assert!((ga - hand_a).abs() < 1e-12 * hand_a.abs().max(1.0));
    assert_gradient_close(&gx, &hand_x, 1e-13);
    let fd = finite_difference(|v| axpy_into_ranges(v[0], &x), &[a]);
    assert!((ga - fd[0]).abs() < 1e-7 * fd[0].abs().max(1.0));
    assert_gradient_close(
        &gx,
        &finite_difference(|v| axpy_into_ranges(a, v), &x),
        1e-8,
    );

    // vjp! agrees with the gradient, scaled
    let (value, pullback) = vjp!(axpy_into_ranges)(a, &x);
    assert_eq!(value, axpy_into_ranges(a, &x));
    let (va, vx) = pullback(2.0);
    assert!((va - 2.0 * ga).abs() < 1e-12 * ga.abs().max(1.0));
    let doubled: Vec<f64> = gx.iter().map(|g| 2.0 * g).collect();
    assert_gradient_close(&vx, &doubled, 1e-14);

    // a `&mut` parameter's ranges, written in a loop: against finite differences in a, x
    // and the buffer's initial value
    let y0 = point(5).iter().map(|v| 1.0 - v).collect::<Vec<_>>();
    let f = |a: f64, x: &[f64], y0: &[f64]| {
        let mut y = y0.to_vec();
        windows_of_a_mut_param(a, x, &mut y)
    };
    let mut y = y0.clone();
    let (ga, gx, gy) = gradients_function!(windows_of_a_mut_param)(a, &x, &mut y);
    let fd = finite_difference(|v| f(v[0], &x, &y0), &[a]);
    assert!((ga - fd[0]).abs() < 1e-7 * fd[0].abs().max(1.0));
    assert_gradient_close(&gx, &finite_difference(|v| f(a, v, &y0), &x), 1e-8);
    assert_gradient_close(&gy, &finite_difference(|v| f(a, &x, v), &y0), 1e-8);
}

/// Sub-slices of a `&mut` parameter read by a helper (`&y[1..]`, `&y[..]`, `y.chunks(2)`),
/// between writes, in a loop that also lends a range of it: each read sees the values of
/// that moment (a copy made then).
#[differentiable]
fn reads_of_a_mut_param(a: f64, y: &mut [f64]) -> f64 {
    for i in 0..y.len() {
        y[i] *= a;
    }
    let mut s = sqnorm(&y[1..]);
    for k in 0..y.len() - 1 {
        s += sqnorm(&y[k..k + 2]) * 0.5;
        axpy(0.3, &[1.0, 2.0], &mut y[k..k + 2]);
    }
    for c in y.chunks(2) {
        s += sqnorm(c) * 0.25;
    }
    s + sqnorm(&y[..])
}

#[test]
fn sub_slices_of_a_mut_parameter_read_by_helpers() {
    let y0 = vec![0.5, -1.0, 2.0, 0.25];
    let f = |a: f64, y0: &[f64]| {
        let mut y = y0.to_vec();
        reads_of_a_mut_param(a, &mut y)
    };
    let mut y = y0.clone();
    let (ga, gy) = gradients_function!(reads_of_a_mut_param)(1.5, &mut y);
    assert_eq!(y, {
        let mut y = y0.clone();
        reads_of_a_mut_param(1.5, &mut y);
        y
    });
    let fa = finite_difference(|v| f(v[0], &y0), &[1.5]);
    assert!((ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0));
    assert_gradient_close(&gy, &finite_difference(|v| f(1.5, v), &y0), 1e-8);
    // vjp! agrees with the gradient, scaled
    let mut y = y0.clone();
    let (value, pullback) = vjp!(reads_of_a_mut_param)(1.5, &mut y);
    assert_eq!(value, f(1.5, &y0));
    let (va, vy) = pullback(2.0);
    assert!((va - 2.0 * ga).abs() < 1e-12 * ga.abs().max(1.0));
    let doubled: Vec<f64> = gy.iter().map(|g| 2.0 * g).collect();
    assert_gradient_close(&vy, &doubled, 1e-14);
}

/// A `&mut` parameter handed on as it is (`sqnorm(y)`, `axpy(a, x, y)`): the callee's
/// signature decides whether it reads the buffer (its pullback is handed a copy of what it
/// read) or writes it (its pullback takes the buffer's shadow). In a loop, between writes.
#[differentiable]
fn handed_as_it_is(a: f64, x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..y.len() {
        y[i] *= a;
    }
    let mut s = sqnorm(y);
    for _ in 0..3 {
        axpy(a, x, y);
        s += sqnorm(y) * y[0];
    }
    s
}

/// The same, one level down: a helper with a `&mut` parameter handing it on as it is, called
/// with a local buffer and with the caller's own `&mut` parameter.
#[differentiable]
fn nested_hand_on(a: f64, y: &mut [f64]) -> f64 {
    let s = sqnorm(y);
    axpy(a, &[1.0, -0.5, 0.25], y);
    s * a + sqnorm(y)
}

#[differentiable]
fn calls_nested(a: f64, y: &mut [f64]) -> f64 {
    let mut local = vec![0.5, 1.5, -1.0];
    let t = nested_hand_on(a, &mut local);
    t + nested_hand_on(a * a, y) + sqnorm(&local)
}

/// A `&mut Vec<f64>` and a `&mut [f64; 3]` (both written) handed on as they are to readers
/// of `&[f64]` and `&Vec<f64>`.
#[differentiable]
fn sum_vec(v: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * v[i];
    }
    s
}

#[differentiable]
fn vec_and_array(v: &mut Vec<f64>, w: &mut [f64; 3]) -> f64 {
    for i in 0..3 {
        v[i] *= w[i];
        w[i] = w[i].sin();
    }
    sum_vec(v) + sqnorm(w) * sqnorm(v)
}

#[test]
fn a_mut_parameter_handed_on_as_it_is() {
    let (a, x, y0) = (0.8, vec![0.3, -0.6, 1.1], vec![0.5, -1.0, 2.0]);
    let f = |a: f64, x: &[f64], y0: &[f64]| {
        let mut y = y0.to_vec();
        handed_as_it_is(a, x, &mut y)
    };
    let mut y = y0.clone();
    let (value, (ga, gx, gy)) = value_and_gradients_function!(handed_as_it_is)(a, &x, &mut y);
    assert_eq!(value.to_bits(), f(a, &x, &y0).to_bits());
    let fa = finite_difference(|v| f(v[0], &x, &y0), &[a]);
    assert!((ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0));
    assert_gradient_close(&gx, &finite_difference(|v| f(a, v, &y0), &x), 1e-8);
    assert_gradient_close(&gy, &finite_difference(|v| f(a, &x, v), &y0), 1e-8);
    // by hand, one step: y ← a·y, then s = ‖y‖²: ∂s/∂y0 = 2a²·y0, ∂s/∂a = 2a‖y0‖²
    #[differentiable]
    fn one_step(a: f64, y: &mut [f64]) -> f64 {
        for i in 0..y.len() {
            y[i] *= a;
        }
        sqnorm(y)
    }
    let mut y = y0.clone();
    let (ga, gy) = gradients_function!(one_step)(a, &mut y);
    let n: f64 = y0.iter().map(|v| v * v).sum();
    assert!((ga - 2.0 * a * n).abs() < 1e-12);
    let hand: Vec<f64> = y0.iter().map(|v| 2.0 * a * a * v).collect();
    assert_gradient_close(&gy, &hand, 1e-14);
    // vjp! agrees, scaled
    let mut y = y0.clone();
    let (_, pullback) = vjp!(handed_as_it_is)(a, &x, &mut y);
    let (va, _, vy) = pullback(-2.0);
    let mut y = y0.clone();
    let (ga, _, gy) = gradients_function!(handed_as_it_is)(a, &x, &mut y);
    assert!((va + 2.0 * ga).abs() < 1e-12 * ga.abs().max(1.0));
    let scaled: Vec<f64> = gy.iter().map(|g| -2.0 * g).collect();
    assert_gradient_close(&vy, &scaled, 1e-14);
}

#[test]
fn a_mut_parameter_handed_on_as_it_is_one_level_down() {
    let (a, y0) = (0.9, vec![0.5, -1.0, 2.0]);
    let f = |a: f64, y0: &[f64]| {
        let mut y = y0.to_vec();
        calls_nested(a, &mut y)
    };
    let mut y = y0.clone();
    let (ga, gy) = gradients_function!(calls_nested)(a, &mut y);
    let fa = finite_difference(|v| f(v[0], &y0), &[a]);
    assert!((ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0));
    assert_gradient_close(&gy, &finite_difference(|v| f(a, v), &y0), 1e-8);
}

#[test]
fn a_mut_vec_and_array_handed_on_as_they_are() {
    let (v0, w0) = (vec![0.5, -1.0, 2.0], [0.3, 1.2, -0.7]);
    let f = |v0: &[f64], w0: &[f64]| {
        let (mut v, mut w) = (v0.to_vec(), [w0[0], w0[1], w0[2]]);
        vec_and_array(&mut v, &mut w)
    };
    let (mut v, mut w) = (v0.clone(), w0);
    let (gv, gw) = gradients_function!(vec_and_array)(&mut v, &mut w);
    assert_gradient_close(&gv, &finite_difference(|x| f(x, &w0), &v0), 1e-8);
    assert_gradient_close(&gw, &finite_difference(|x| f(&v0, x), &w0), 1e-8);
}

// ---------------------------------------------------------------------------------------
// Floats written through (`x: &mut f64`): in-out parameters like the buffers above, the
// body's `*x` reading its one element; lent as `&mut x`, `&mut b[i]` or handed on as they
// are, to functions and to a model's own methods.
// ---------------------------------------------------------------------------------------

/// One Euler step of position, written through.
#[differentiable]
fn euler_step(x: &mut f64, v: f64, dt: f64) {
    *x += v * dt;
}

#[differentiable]
fn sim(x0: f64, v: f64) -> f64 {
    let mut x = x0;
    for _ in 0..3 {
        euler_step(&mut x, v, 0.1);
    }
    x * x
}

/// Two outputs through `&mut`, C style.
#[differentiable]
fn polar_to_cartesian(r: f64, theta: f64, x: &mut f64, y: &mut f64) {
    *x = r * theta.cos();
    *y = r * theta.sin();
}

#[differentiable]
fn radius_after(r: f64, theta: f64) -> f64 {
    let mut x = 0.0;
    let mut y = 0.0;
    polar_to_cartesian(r, theta, &mut x, &mut y);
    x * y + x.exp()
}

/// statrs' `prec::convergence`: writes the new value, returns whether it moved little.
#[differentiable]
fn convergence(x: &mut f64, x_new: f64) -> bool {
    let res = (*x - x_new).abs() < 1e-12 * x_new.abs().max(1.0);
    *x = x_new;
    res
}

/// Babylonian square root iterated to convergence.
#[differentiable]
fn babylonian(a: f64) -> f64 {
    let mut x = a;
    for _ in 0..100 {
        let next = 0.5 * (x + a / x);
        if convergence(&mut x, next) {
            break;
        }
    }
    x
}

/// A symplectic step of position and velocity, both written through, one reading the other.
#[differentiable]
fn leapfrog(x: &mut f64, v: &mut f64, k: f64, dt: f64) -> f64 {
    *v -= k * *x * dt;
    *x += *v * dt;
    0.5 * *v * *v + 0.5 * k * *x * *x
}

#[differentiable]
fn energy_after(x0: f64, v0: f64, k: f64) -> f64 {
    let (mut x, mut v) = (x0, v0);
    let mut e = 0.0;
    for _ in 0..5 {
        e += leapfrog(&mut x, &mut v, k, 0.1);
    }
    e + x * v
}

/// Elements of a local buffer written through by the scalar helper.
#[differentiable]
fn elements(xs: &[f64], v: f64) -> f64 {
    let mut b = xs.to_vec();
    for i in 0..b.len() {
        euler_step(&mut b[i], v * i as f64, 0.5);
    }
    b.iter().map(|t| t * t).sum()
}

#[test]
fn scalar_out_parameters() {
    let g = gradients_function!(sim)(1.0, 2.0);
    let fd = finite_difference(|p: &[f64]| sim(p[0], p[1]), &[1.0, 2.0]);
    assert_gradient_close(&[g.0, g.1], &fd, 1e-6);
    // by hand: x = x0 + 0.3 v, f = x²
    let x = 1.0 + 0.3 * 2.0;
    assert!((g.0 - 2.0 * x).abs() < 1e-12 && (g.1 - 0.6 * x).abs() < 1e-12);

    let g = gradients_function!(radius_after)(1.5, 0.4);
    let fd = finite_difference(|p: &[f64]| radius_after(p[0], p[1]), &[1.5, 0.4]);
    assert_gradient_close(&[g.0, g.1], &fd, 1e-6);

    let g = gradients_function!(babylonian)(2.0);
    assert!((g - 0.5 / 2f64.sqrt()).abs() < 1e-10, "{g}");

    let p = [0.7, -0.3, 2.0];
    let g = gradients_function!(energy_after)(p[0], p[1], p[2]);
    let fd = finite_difference(|q: &[f64]| energy_after(q[0], q[1], q[2]), &p);
    assert_gradient_close(&[g.0, g.1, g.2], &fd, 1e-6);

    let xs = [0.5, -1.0, 2.0];
    let (gx, gv) = gradients_function!(elements)(&xs, 0.3);
    let fd = finite_difference(|q: &[f64]| elements(q, 0.3), &xs);
    assert_gradient_close(&gx, &fd, 1e-6);
    let fd = finite_difference(|q: &[f64]| elements(&xs, q[0]), &[0.3]);
    assert!((gv - fd[0]).abs() < 1e-6);
}

#[test]
fn vjp_and_jvp() {
    let p = [0.7, -0.3, 2.0];
    let (value, pullback) = vjp!(energy_after)(p[0], p[1], p[2]);
    assert_eq!(value, energy_after(p[0], p[1], p[2]));
    let g = pullback(1.0);
    let g2 = gradients_function!(energy_after)(p[0], p[1], p[2]);
    assert_eq!(g, g2);
    let (v, dv) = jvp!(energy_after)(p[0], p[1], p[2], 1.0, 0.0, 0.0);
    assert_eq!(v, value);
    assert!((dv - g.0).abs() < 1e-12, "{dv} {}", g.0);
}

#[test]
fn the_helper_itself() {
    // the gradient with respect to the initial values of `x` and `v`
    let energy = |q: &[f64]| {
        let (mut x, mut v) = (q[0], q[1]);
        leapfrog(&mut x, &mut v, q[2], 0.1)
    };
    let p = [0.7, -0.3, 2.0];
    let (mut x, mut v) = (p[0], p[1]);
    let (gx, gv, gk, _) = gradients_function!(leapfrog)(&mut x, &mut v, p[2], 0.1);
    // the primal ran once
    let (mut x2, mut v2) = (p[0], p[1]);
    leapfrog(&mut x2, &mut v2, p[2], 0.1);
    assert_eq!((x, v), (x2, v2));
    assert_gradient_close(&[gx, gv, gk], &finite_difference(energy, &p), 1e-6);
    let (mut x, mut v) = (p[0], p[1]);
    let (e, pullback) = vjp!(leapfrog)(&mut x, &mut v, p[2], 0.1);
    assert_eq!(e, energy(&p));
    let (hx, hv, hk, _) = pullback(1.0);
    assert_eq!((hx, hv, hk), (gx, gv, gk));
    // forward mode along x's initial value
    let (mut x, mut v) = (p[0], p[1]);
    let (mut tx, mut tv) = (1.0, 0.0);
    let (e2, de) = jvp!(leapfrog)(&mut x, &mut v, p[2], 0.1, &mut tx, &mut tv, 0.0, 0.0);
    assert_eq!(e2, e);
    assert!((de - gx).abs() < 1e-12, "{de} {gx}");
}

/// A `&mut f64` parameter handed on to a helper that writes it.
#[differentiable]
fn two_euler_steps(x: &mut f64, v: f64) {
    euler_step(x, v, 0.1);
    euler_step(x, v * v, 0.2);
}

#[differentiable]
fn after_two(x0: f64, v: f64) -> f64 {
    let mut x = x0;
    two_euler_steps(&mut x, v);
    x.sin()
}

/// Generic over the float type.
#[differentiable]
fn scale_in_place<T: Float>(x: &mut T, k: T) {
    *x = *x * k + k;
}

#[differentiable]
fn scaled_twice<T: Float>(x0: T, k: T) -> T {
    let mut x = x0;
    scale_in_place(&mut x, k);
    scale_in_place(&mut x, k);
    x
}

#[test]
fn handed_on_and_generic() {
    let g = gradients_function!(after_two)(0.4, 1.3);
    let fd = finite_difference(|p: &[f64]| after_two(p[0], p[1]), &[0.4, 1.3]);
    assert_gradient_close(&[g.0, g.1], &fd, 1e-6);
    // x = (x0 k + k) k + k: ∂x0 = k², ∂k = 2 x0 k + 2k + 1
    let (g0, gk) = gradients_function!(scaled_twice::<f64>)(0.5, 3.0);
    assert_eq!((g0, gk), (9.0, 2.0 * 0.5 * 3.0 + 2.0 * 3.0 + 1.0));
}

/// Methods called through the reference, and a method of a model writing through `&mut`.
#[differentiable]
fn damp(x: &mut f64, k: f64) {
    let m = x.abs();
    *x = x.signum() * (m * k).ln_1p();
}

#[derive(Clone, Debug, Differentiable)]
struct Spring {
    k: f64,
    c: f64,
}

#[differentiable]
impl Spring {
    #[differentiable(self)]
    fn advance(&self, x: &mut f64, v: &mut f64, dt: f64) {
        let a = -self.k * *x - self.c * *v;
        *v += a * dt;
        *x += *v * dt;
    }

    #[differentiable(self)]
    fn settle(&self, x0: f64) -> f64 {
        let (mut x, mut v) = (x0, 0.0);
        for _ in 0..10 {
            self.advance(&mut x, &mut v, 0.05);
        }
        x * x + v
    }
}

#[differentiable]
fn damped(x0: f64, k: f64) -> f64 {
    let mut x = x0;
    damp(&mut x, k);
    damp(&mut x, k);
    x
}

#[test]
fn methods_and_models() {
    let p = [-0.8, 1.7];
    let g = gradients_function!(damped)(p[0], p[1]);
    assert_gradient_close(
        &[g.0, g.1],
        &finite_difference(|q: &[f64]| damped(q[0], q[1]), &p),
        1e-6,
    );
    let s = Spring { k: 3.0, c: 0.4 };
    let (gs, gx) = gradients_function!(Spring::settle)(&s, 0.6);
    let h = 1e-6;
    let fk = (Spring {
        k: 3.0 + h,
        ..s.clone()
    }
    .settle(0.6)
        - Spring {
            k: 3.0 - h,
            ..s.clone()
        }
        .settle(0.6))
        / (2.0 * h);
    let fc = (Spring {
        c: 0.4 + h,
        ..s.clone()
    }
    .settle(0.6)
        - Spring {
            c: 0.4 - h,
            ..s.clone()
        }
        .settle(0.6))
        / (2.0 * h);
    let fx = (s.settle(0.6 + h) - s.settle(0.6 - h)) / (2.0 * h);
    assert!(
        (gs.k - fk).abs() < 1e-6 && (gs.c - fc).abs() < 1e-6 && (gx - fx).abs() < 1e-6,
        "{gs:?} {gx} {fk} {fc} {fx}"
    );
}

#[derive(Clone, Debug, Differentiable)]
struct Decay {
    rates: Vec<f64>,
}

#[differentiable]
impl Decay {
    #[differentiable(self)]
    fn apply(&self, state: &mut [f64], dt: f64) {
        for i in 0..state.len() {
            state[i] -= self.rates[i] * state[i] * dt;
        }
    }

    #[differentiable(self)]
    fn remaining(&self, init: &[f64]) -> f64 {
        let mut state = init.to_vec();
        for _ in 0..4 {
            self.apply(&mut state, 0.1);
        }
        state.iter().sum()
    }
}

#[test]
fn a_models_method_writing_a_buffer() {
    let d = Decay {
        rates: vec![0.5, 2.0],
    };
    let init = [1.0, 3.0];
    let (gd, gi) = gradients_function!(Decay::remaining)(&d, &init);
    // state_i = init_i (1 - 0.1 r_i)^4
    for i in 0..2 {
        let f = 1.0 - 0.1 * d.rates[i];
        assert!((gi[i] - f.powi(4)).abs() < 1e-14);
        assert!((gd.rates[i] - init[i] * 4.0 * f.powi(3) * -0.1).abs() < 1e-14);
    }
}
