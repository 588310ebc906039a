//! Calls of differentiable helpers that take slices: the callee adds its gradient into its
//! caller's buffer (no full-length gradient per call). Every gradient is compared with
//! central finite differences and, where it is easy, with a hand-derived value.
// Written the way C and C++ users write these helpers (index loops, explicit copies, every
// range form), which is what these tests measure.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::redundant_slicing
)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

#[differentiable]
fn pick(v: &[f64], i: usize) -> f64 {
    v[i] * v[i]
}

/// Σ_k v[k mod n]² over `m` calls of a helper.
#[differentiable]
fn sum_picks(v: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..m {
        s += pick(v, k % v.len());
    }
    s
}

fn point(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.3 + 0.17 * i as f64 - 0.01 * (i * i) as f64)
        .collect()
}

#[test]
fn a_helper_reading_one_element_adds_into_the_callers_buffer() {
    let v = point(7);
    let m = 19;
    let g = gradients_function!(sum_picks, params = ["v"])(&v, m);
    // each element is picked ⌈…⌉ times: d/dv_i = 2 v_i · count_i
    let hand: Vec<f64> = (0..v.len())
        .map(|i| 2.0 * v[i] * (0..m).filter(|k| k % v.len() == i).count() as f64)
        .collect();
    assert_gradient_close(&g, &hand, 1e-14);
    let fd = finite_difference(|x| sum_picks(x, m), &v);
    assert_gradient_close(&g, &fd, 1e-8);
}

/// A helper calling a helper, both on slices: the shadow is lent on.
#[differentiable]
fn weighted_pick(w: &[f64], v: &[f64], i: usize) -> f64 {
    w[i] * pick(v, i)
}

#[differentiable]
fn nested(w: &[f64], v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += weighted_pick(w, v, i) + pick(w, (i + 1) % w.len());
    }
    s
}

#[test]
fn nested_helpers_lend_the_buffer_on() {
    let (w, v) = (
        point(5),
        point(5).iter().map(|x| x + 0.5).collect::<Vec<_>>(),
    );
    let (gw, gv) = gradients_function!(nested)(&w, &v);
    let fd_w = finite_difference(|x| nested(x, &v), &w);
    let fd_v = finite_difference(|x| nested(&w, x), &v);
    assert_gradient_close(&gw, &fd_w, 1e-8);
    assert_gradient_close(&gv, &fd_v, 1e-8);
    // by hand: ∂/∂w_i = v_i² + 2 w_i, ∂/∂v_i = 2 w_i v_i
    let hw: Vec<f64> = (0..5).map(|i| v[i] * v[i] + 2.0 * w[i]).collect();
    let hv: Vec<f64> = (0..5).map(|i| 2.0 * w[i] * v[i]).collect();
    assert_gradient_close(&gw, &hw, 1e-14);
    assert_gradient_close(&gv, &hv, 1e-14);
}

/// Data passed to a differentiable slice parameter: no adjoint is made for it.
#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable]
fn fit(w: &[f64], #[no_grad] data: &[f64]) -> f64 {
    let r = dot(w, data) - 1.0;
    r * r
}

#[test]
fn a_constant_argument_gets_no_adjoint() {
    let (w, data) = (point(4), vec![0.5, -1.0, 2.0, 0.25]);
    let gw = gradients_function!(fit)(&w, &data);
    let r = dot(&w, &data) - 1.0;
    let hand: Vec<f64> = data.iter().map(|d| 2.0 * r * d).collect();
    assert_gradient_close(&gw, &hand, 1e-14);
    assert_gradient_close(&gw, &finite_difference(|x| fit(x, &data), &w), 1e-8);
}

/// The same slice passed twice: its adjoint cannot be lent twice, the callee returns both
/// gradients instead.
#[differentiable]
fn squared_norm(v: &[f64]) -> f64 {
    dot(v, v)
}

#[test]
fn a_slice_passed_twice() {
    let v = point(6);
    let g = gradients_function!(squared_norm)(&v);
    let hand: Vec<f64> = v.iter().map(|x| 2.0 * x).collect();
    assert_gradient_close(&g, &hand, 1e-14);
}

/// Generic over the float type, with a `Vec` parameter taken by value.
#[differentiable]
fn generic_sum<T: Float>(v: Vec<T>, scale: T) -> T {
    let mut s = T::zero();
    for i in 0..v.len() {
        s = s + pick_generic(&v, i) * scale;
    }
    s
}

#[differentiable]
fn pick_generic<T: Float>(v: &[T], i: usize) -> T {
    v[i].sin()
}

#[test]
fn generic_helpers_and_vec_parameters() {
    let v = point(5);
    let (gv, gs) = gradients_function!(generic_sum::<f64>)(v.clone(), 1.5);
    let hand: Vec<f64> = v.iter().map(|x| 1.5 * x.cos()).collect();
    assert_gradient_close(&gv, &hand, 1e-14);
    let sum_sin: f64 = v.iter().map(|x| x.sin()).sum();
    assert!((gs - sum_sin).abs() < 1e-14);
    let (gv32, _) = gradients_function!(generic_sum::<f32>)(vec![0.5_f32, 1.0], 2.0);
    assert!((gv32[1] - 2.0 * 1.0_f32.cos()).abs() < 1e-6);
}

#[test]
fn vjp_and_the_implicit_mode_of_slice_helpers() {
    let v = point(7);
    let (value, pullback) = vjp!(sum_picks)(&v, 10);
    assert_eq!(value, sum_picks(&v, 10));
    let gv = pullback(2.0);
    let g = gradients_function!(sum_picks, params = ["v"])(&v, 10);
    let doubled: Vec<f64> = g.iter().map(|x| 2.0 * x).collect();
    assert_gradient_close(&gv, &doubled, 1e-15);

    // a closure reading a variable and calling the slice helper
    let w = Variable::new(vec![0.2_f64, -0.4, 0.9]);
    let f = differentiable_closure!(|k: usize| sum_picks(&w, k) * 0.5);
    let grads = implicit_gradients(&f)(5);
    let gw: Vec<f64> = grads.get(&w).expect("w was read");
    let wv = vec![0.2_f64, -0.4, 0.9];
    let fd = finite_difference(|x| 0.5 * sum_picks(x, 5), &wv);
    assert_gradient_close(&gw, &fd, 1e-8);
}

// ---------------------------------------------------------------------------------------
// Sub-slices: `&x[a..b]` and its relatives; the adjoint is the same range of `x`'s.
// ---------------------------------------------------------------------------------------

#[differentiable]
fn sqnorm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

/// Σ_blocks ‖x[block]‖² · (block + 1), blocks of `d` elements.
#[differentiable]
fn block_norms(x: &[f64], d: usize) -> f64 {
    let mut s = 0.0;
    for b in 0..x.len() / d {
        let w = (b + 1) as f64;
        s += sqnorm(&x[b * d..(b + 1) * d]) * w;
    }
    s
}

#[test]
fn sub_slices_passed_to_helpers() {
    let x = point(12);
    let g = gradients_function!(block_norms)(&x, 3);
    let hand: Vec<f64> = (0..12).map(|i| 2.0 * x[i] * (i / 3 + 1) as f64).collect();
    assert_gradient_close(&g, &hand, 1e-14);
    assert_gradient_close(&g, &finite_difference(|v| block_norms(v, 3), &x), 1e-8);
}

/// Every form of range, read locally and passed on, inside a helper that was itself
/// handed a sub-slice.
#[differentiable]
fn ranges(x: &[f64]) -> f64 {
    let head = &x[..3];
    let tail = &x[2..];
    let all = &x[..];
    let mid = &x[1..=3];
    head[0] * tail[1] + sqnorm(mid) * all[4] + dot(head, &tail[..3])
}

#[differentiable]
fn outer(x: &[f64]) -> f64 {
    ranges(&x[1..]) + ranges(&x[..6]).sin()
}

#[test]
fn every_range_form_locally_and_nested() {
    let x = point(8);
    let g = gradients_function!(outer)(&x);
    assert_gradient_close(&g, &finite_difference(outer, &x), 1e-8);
    let g = gradients_function!(ranges)(&x);
    // by hand, y = x0·x3 + (x1²+x2²+x3²)·x4 + x0x2 + x1x3 + x2x4
    let s = x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
    let mut hand = vec![0.0; 8];
    hand[0] = x[3] + x[2];
    hand[1] = 2.0 * x[1] * x[4] + x[3];
    hand[2] = 2.0 * x[2] * x[4] + x[0] + x[4];
    hand[3] = x[0] + 2.0 * x[3] * x[4] + x[1];
    hand[4] = s + x[2];
    assert_gradient_close(&g, &hand, 1e-14);
}

/// Two sub-slices of one slice in one call share an adjoint: the callee returns their
/// gradients instead.
#[differentiable]
fn halves(x: &[f64]) -> f64 {
    let n = x.len() / 2;
    dot(&x[..n], &x[n..])
}

#[test]
fn two_sub_slices_of_one_slice_in_one_call() {
    let x = point(6);
    let g = gradients_function!(halves)(&x);
    let hand = vec![x[3], x[4], x[5], x[0], x[1], x[2]];
    assert_gradient_close(&g, &hand, 1e-15);
    let (value, pullback) = vjp!(halves)(&x);
    assert_eq!(value, halves(&x));
    assert_gradient_close(&pullback(1.0), &hand, 1e-15);
}

/// A function with an explicit lifetime parameter (the construct under test: clippy
/// would elide it).
#[allow(clippy::needless_lifetimes)]
#[differentiable]
fn first_two<'a>(x: &'a [f64], w: f64) -> f64 {
    w * x[0] * x[1]
}

#[test]
fn explicit_lifetime_parameters() {
    let x = [2.0, 3.0];
    let (gx, gw) = gradients_function!(first_two)(&x, 0.5);
    assert_eq!((gx, gw), (vec![1.5, 1.0], 6.0));
    let gw = gradients_function!(first_two, params = ["w"])(&x, 0.5);
    assert_eq!(gw, 6.0);
}

// ---------------------------------------------------------------------------------------
// Sub-slices of `let mut` buffers: the slice is one of the buffer's snapshot, taken once
// before a loop that does not write the buffer; its adjoint is the same range of the
// buffer's adjoint.
// ---------------------------------------------------------------------------------------

/// `y = exp(x)` filled in a loop, then Σ_b ‖y[b·d..(b+1)·d]‖² · (b + 1) by sub-slices of
/// the still-`mut` buffer, every range form among them.
#[differentiable]
fn blocks_of_a_buffer(x: &[f64], d: usize) -> f64 {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i].exp();
    }
    let mut s = 0.0;
    for b in 0..x.len() / d {
        s += sqnorm(&y[b * d..(b + 1) * d]) * (b + 1) as f64;
    }
    s + sqnorm(&y[..d]) + sqnorm(&y[d..]) * 0.5 + sqnorm(&y[1..=2]) + y[..][0]
}

fn blocks_of_a_buffer_by_hand(x: &[f64], d: usize) -> Vec<f64> {
    // ∂/∂x_i = y_i · ∂s/∂y_i with ∂s/∂y_i = 2 y_i (block weight + [i < d] + ½[i ≥ d] +
    // [1 ≤ i ≤ 2]) + [i = 0]
    (0..x.len())
        .map(|i| {
            let y = x[i].exp();
            let w = (i / d + 1) as f64
                + if i < d { 1.0 } else { 0.5 }
                + if (1..=2).contains(&i) { 1.0 } else { 0.0 };
            y * (2.0 * y * w + if i == 0 { 1.0 } else { 0.0 })
        })
        .collect()
}

/// The buffer is written again inside the loop after each read, so each iteration reads
/// what the previous one wrote (no snapshot may move out of this loop).
#[differentiable]
fn buffer_rewritten_in_the_loop(x: &[f64], rounds: usize) -> f64 {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i];
    }
    let mut s = 0.0;
    for r in 0..rounds {
        let h = y.len() / 2;
        s += sqnorm(&y[..h]) * (r + 1) as f64;
        for i in 0..y.len() {
            y[i] = (y[i] * 0.5).sin() + x[i] * 0.1;
        }
    }
    s + sqnorm(&y[1..])
}

/// `chunks` of a `let mut` buffer in a `for` loop, and a sub-slice inside a nested loop
/// that writes another buffer.
#[differentiable]
fn chunks_of_a_buffer(x: &[f64], d: usize) -> f64 {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i] * x[i] + x[i];
    }
    let mut s = 0.0;
    for c in y.chunks(d) {
        s += sqnorm(c);
    }
    let mut acc = vec![0.0; d];
    for b in 0..x.len() / d {
        for j in 0..d {
            acc[j] += sqnorm(&y[b * d + j..b * d + j + 1]);
        }
    }
    s + sqnorm(&acc)
}

#[test]
fn sub_slices_of_a_let_mut_buffer() {
    let x = point(12);
    let g = gradients_function!(blocks_of_a_buffer)(&x, 3);
    assert_gradient_close(&g, &blocks_of_a_buffer_by_hand(&x, 3), 1e-13);
    let fd = finite_difference(|x| blocks_of_a_buffer(x, 3), &x);
    assert_gradient_close(&g, &fd, 1e-8);

    let g = gradients_function!(buffer_rewritten_in_the_loop)(&x, 3);
    let fd = finite_difference(|x| buffer_rewritten_in_the_loop(x, 3), &x);
    assert_gradient_close(&g, &fd, 1e-8);

    let x = point(10);
    let g = gradients_function!(chunks_of_a_buffer)(&x, 4);
    let fd = finite_difference(|x| chunks_of_a_buffer(x, 4), &x);
    assert_gradient_close(&g, &fd, 1e-8);

    // vjp! and the implicit mode
    let (value, pullback) = vjp!(blocks_of_a_buffer)(&x, 5);
    assert_eq!(value, blocks_of_a_buffer(&x, 5));
    let hand: Vec<f64> = blocks_of_a_buffer_by_hand(&x, 5)
        .iter()
        .map(|g| -1.5 * g)
        .collect();
    assert_gradient_close(&pullback(-1.5), &hand, 1e-13);
    let w = Variable::new(x.clone());
    let f = differentiable_closure!(|d: usize| chunks_of_a_buffer(&w, d) * 2.0);
    let grads = implicit_gradients(&f)(4);
    let gw: Vec<f64> = grads.get(&w).expect("w was read");
    let fd = finite_difference(|x| 2.0 * chunks_of_a_buffer(x, 4), &x);
    assert_gradient_close(&gw, &fd, 1e-8);
}

// ---------------------------------------------------------------------------------------
// Several sub-slices of one slice handed to one call: a parameter vector cut into weights
// and biases. Disjoint ranges share the slice's adjoint; overlapping ones (which shared
// slices allow) add into it from buffers of their own.
// ---------------------------------------------------------------------------------------

/// `Σᵢ tanh(wᵢ · xᵢ + bᵢ)`.
#[differentiable]
fn layer(w: &[f64], b: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (w[i] * x[i] + b[i]).tanh();
    }
    s
}

/// Each step's layer reads its weights and biases from one parameter vector.
#[differentiable]
fn layers(params: &[f64], x: &[f64], steps: usize) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for k in 0..steps {
        let at = 2 * n * k;
        total += layer(&params[at..at + n], &params[at + n..at + 2 * n], x);
    }
    total
}

/// The same vector read through two overlapping windows, and through three.
#[differentiable]
fn overlapping(params: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    layer(&params[..n], &params[1..n + 1], x)
        + layer(&params[2..n + 2], &params[..n], &params[1..n + 1])
}

fn layers_by_hand(params: &[f64], x: &[f64], steps: usize) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; params.len()];
    for k in 0..steps {
        let at = 2 * n * k;
        for i in 0..n {
            let t = (params[at + i] * x[i] + params[at + n + i]).tanh();
            let d = 1.0 - t * t;
            g[at + i] += d * x[i];
            g[at + n + i] += d;
        }
    }
    g
}

#[test]
fn sub_slices_of_one_parameter_in_one_call() {
    let x = point(4);
    let params: Vec<f64> = (0..24).map(|k| 0.1 * (k as f64 * 0.7).sin()).collect();
    let g = gradients_function!(layers, params = ["params"])(&params, &x, 3);
    assert_gradient_close(&g, &layers_by_hand(&params, &x, 3), 1e-14);
    let fd = finite_difference(|p| layers(p, &x, 3), &params);
    assert_gradient_close(&g, &fd, 1e-8);
    // into a kept buffer, twice: added, not overwritten
    let mut kept = vec![0.0; params.len()];
    let into = accumulate_gradients!(layers, params = ["params"]);
    for _ in 0..2 {
        into(&params, &x, 3, &mut kept[..]);
    }
    let twice: Vec<f64> = g.iter().map(|v| 2.0 * v).collect();
    assert_gradient_close(&kept, &twice, 1e-14);
    // vjp! and the implicit mode
    let (value, pullback) = vjp!(layers)(&params, &x, 3);
    assert_eq!(value, layers(&params, &x, 3));
    let (gp, _) = pullback(0.5);
    let half: Vec<f64> = g.iter().map(|v| 0.5 * v).collect();
    assert_gradient_close(&gp, &half, 1e-14);
    let p = Variable::new(params.clone());
    let f = differentiable_closure!(|steps: usize| layers(&p, &x, steps));
    let grads = implicit_gradients(&f)(3);
    let gp: Vec<f64> = grads.get(&p).expect("params was read");
    assert_gradient_close(&gp, &g, 1e-14);

    // the parameter vector not selected: its sinks carry nothing, `x`'s gradient is whole
    let gx = gradients_function!(layers, params = ["x"])(&params, &x, 3);
    assert_gradient_close(&gx, &finite_difference(|x| layers(&params, x, 3), &x), 1e-8);

    // overlapping windows: every window's contribution reaches the shared elements
    let params: Vec<f64> = (0..7).map(|k| 0.3 * (k as f64 * 1.3).cos()).collect();
    let x = point(5);
    let (gp, gx) = gradients_function!(overlapping)(&params, &x);
    assert_gradient_close(
        &gp,
        &finite_difference(|p| overlapping(p, &x), &params),
        1e-8,
    );
    assert_gradient_close(
        &gx,
        &finite_difference(|x| overlapping(&params, x), &x),
        1e-8,
    );
}
