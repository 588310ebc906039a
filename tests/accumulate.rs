//! `accumulate_gradients!`: gradients added into buffers the caller owns. Each gradient is
//! compared with central finite differences and, where it is easy, a hand-derived value.
#![allow(clippy::needless_range_loop)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::ndarray::{array, Array1};
use autodiff::prelude::*;

#[differentiable]
fn pick(v: &[f64], i: usize) -> f64 {
    v[i] * v[i]
}

/// Σ_k pick(v, idx[k]).
#[differentiable]
fn picks(v: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for k in 0..idx.len() {
        s += pick(v, idx[k]);
    }
    s
}

fn point(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.3 + 0.17 * i as f64 - 0.01 * (i * i) as f64)
        .collect()
}

#[test]
fn gradients_add_up_over_calls() {
    let v = point(9);
    let batches = [vec![0usize, 3, 3, 8], vec![1, 3, 5], vec![8, 8]];
    let add = accumulate_gradients!(picks, params = ["v"]);
    let mut grad = vec![0.0; v.len()];
    let mut total = 0.0;
    for idx in &batches {
        total += add(&v, idx, &mut grad);
    }
    // d/dv_i Σ v_idx² = 2 v_i · (times i is picked)
    let hand: Vec<f64> = (0..v.len())
        .map(|i| 2.0 * v[i] * batches.iter().flatten().filter(|&&k| k == i).count() as f64)
        .collect();
    assert_gradient_close(&grad, &hand, 1e-14);
    let fd = finite_difference(|x| batches.iter().map(|idx| picks(x, idx)).sum(), &v);
    assert_gradient_close(&grad, &fd, 1e-8);
    let value: f64 = batches.iter().map(|idx| picks(&v, idx)).sum();
    assert_eq!(total, value);
}

#[test]
fn a_buffer_can_be_a_sub_slice_of_a_larger_one() {
    // two parameter vectors stored in one flat gradient, as an optimiser keeps them
    let (a, b) = (point(4), point(6));
    let mut flat = [0.0; 10];
    let add = accumulate_gradients!(picks);
    add(&a, &[0, 2, 2], &mut flat[..4]);
    add(&b, &[5, 1], &mut flat[4..]);
    let fa = finite_difference(|x| picks(x, &[0, 2, 2]), &a);
    let fb = finite_difference(|x| picks(x, &[5, 1]), &b);
    assert_gradient_close(&flat[..4], &fa, 1e-8);
    assert_gradient_close(&flat[4..], &fb, 1e-8);
}

/// Parameters of every kind: a scalar, a slice, a fixed array, an ndarray vector.
#[differentiable]
fn mixed(w: f64, v: &[f64], p: [f64; 2], a: &Array1<f64>) -> f64 {
    let mut s = w * p[0] - p[1];
    for i in 0..v.len() {
        s += w * v[i] * v[i];
    }
    s * a.sum() + (a * a).sum()
}

#[test]
fn buffers_of_every_parameter_kind() {
    let (w, v, p, a) = (0.7, point(3), [1.5, -0.25], array![0.2, -0.4, 1.1]);
    let add = accumulate_gradients!(mixed, params = ["a", "w", "p", "v"]);
    let (mut ga, mut gw, mut gp, mut gv) = (Array1::zeros(3), 0.0, [0.0; 2], vec![0.0; 3]);
    let value = add(w, &v, p, &a, (&mut ga, &mut gw, &mut gp, &mut gv));
    assert_eq!(value, mixed(w, &v, p, &a));
    // twice: everything doubles
    add(w, &v, p, &a, (&mut ga, &mut gw, &mut gp, &mut gv));

    // hand-derived: s = w p0 − p1 + w Σv², y = s Σa + Σa²
    let sum_a = a.sum();
    let sq: f64 = v.iter().map(|x| x * x).sum();
    let s = w * p[0] - p[1] + w * sq;
    assert!((gw - 2.0 * (p[0] + sq) * sum_a).abs() < 1e-12);
    assert_gradient_close(&gp, &[2.0 * w * sum_a, -2.0 * sum_a], 1e-12);
    let hand_v: Vec<f64> = v.iter().map(|x| 2.0 * 2.0 * w * x * sum_a).collect();
    assert_gradient_close(&gv, &hand_v, 1e-12);
    let hand_a: Vec<f64> = a.iter().map(|x| 2.0 * (s + 2.0 * x)).collect();
    assert_gradient_close(ga.as_slice().unwrap(), &hand_a, 1e-12);

    // and against finite differences of the whole function, one parameter at a time
    let fd_v = finite_difference(|x| mixed(w, x, p, &a), &v);
    assert_gradient_close(&gv, &fd_v.iter().map(|g| 2.0 * g).collect::<Vec<_>>(), 1e-7);
    let fd_a = finite_difference(
        |x| mixed(w, &v, p, &Array1::from(x.to_vec())),
        a.as_slice().unwrap(),
    );
    assert_gradient_close(
        ga.as_slice().unwrap(),
        &fd_a.iter().map(|g| 2.0 * g).collect::<Vec<_>>(),
        1e-7,
    );
}

#[test]
fn parameters_not_selected_need_no_buffer() {
    let (w, v, p, a) = (0.7, point(3), [1.5, -0.25], array![0.2, -0.4, 1.1]);
    let mut gw = 0.0;
    let add = accumulate_gradients!(mixed, params = ["w"]);
    add(w, &v, p, &a, &mut gw);
    let fd = finite_difference(|x| mixed(x[0], &v, p, &a), &[w]);
    assert!((gw - fd[0]).abs() < 1e-7, "{gw} against {}", fd[0]);
}

/// An in-place helper: y ← y + a·x, then a read of y.
#[differentiable]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

#[differentiable]
fn update_and_read(a: f64, x: &[f64], y: &mut [f64]) -> f64 {
    axpy(a, x, y);
    let mut s = 0.0;
    for i in 0..y.len() {
        s += y[i] * y[i];
    }
    s
}

#[test]
fn a_mut_parameter_gets_the_gradient_of_its_initial_value() {
    let (a, x, y0) = (0.6, point(4), vec![0.5, -1.0, 0.25, 2.0]);
    let add = accumulate_gradients!(update_and_read, params = ["y", "a", "x"]);
    let (mut gy, mut ga, mut gx) = (vec![1.0; 4], 0.0, vec![0.0; 4]);
    let mut y = y0.clone();
    add(a, &x, &mut y, (&mut gy, &mut ga, &mut gx));
    // y₁ = y₀ + a x, s = Σ y₁²: ds/dy₀ = 2 y₁, ds/da = 2 Σ y₁ x, ds/dx = 2 a y₁
    let y1: Vec<f64> = (0..4).map(|i| y0[i] + a * x[i]).collect();
    assert_eq!(y, y1);
    let hand_y: Vec<f64> = y1.iter().map(|v| 1.0 + 2.0 * v).collect(); // added to the ones
    assert_gradient_close(&gy, &hand_y, 1e-12);
    let hand_a: f64 = 2.0 * (0..4).map(|i| y1[i] * x[i]).sum::<f64>();
    assert!((ga - hand_a).abs() < 1e-12);
    let hand_x: Vec<f64> = y1.iter().map(|v| 2.0 * a * v).collect();
    assert_gradient_close(&gx, &hand_x, 1e-12);
    let fd_x = finite_difference(|x| update_and_read(a, x, &mut y0.clone()), &x);
    assert_gradient_close(&gx, &fd_x, 1e-7);

    // the buffer's own gradient left out: the others are still right (the in-place
    // update's adjoint still flows through the buffer)
    let add = accumulate_gradients!(update_and_read, params = ["a"]);
    let mut ga = 0.0;
    add(a, &x, &mut y0.clone(), &mut ga);
    assert!((ga - hand_a).abs() < 1e-12);
}

#[test]
#[should_panic(
    expected = "the gradient buffer of `v` (a parameter of `picks`) has length 3, but `v` has \
                length 5"
)]
fn a_buffer_of_the_wrong_length_is_refused() {
    let v = point(5);
    let mut grad = vec![0.0; 3];
    accumulate_gradients!(picks)(&v, &[1], &mut grad);
}
