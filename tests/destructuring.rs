//! Destructuring in differentiable code, written as published numeric code writes it:
//! `let [x1, x2] = *param;`, `let [a, b] = p;`, parameters that are patterns
//! (`fn f([x, y]: [f64; 2])`), `let (a, b) = (x, y);`, tuple-valued `if` and `match`, and
//! tuples returned by differentiable calls. Every gradient is compared with central finite
//! differences and with a hand-derived value; `vjp!`, generic `T: Float` forms and the
//! implicit mode are included.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;
use autodiff::vjp;

const FD_TOL: f64 = 1e-8;

/// Beale's function as an optimisation library writes it: the point by reference to an
/// array, destructured.
#[differentiable]
fn beale(param: &[f64; 2]) -> f64 {
    let [x1, x2] = *param;
    (1.5 - x1 + x1 * x2).powi(2)
        + (2.25 - x1 + x1 * x2.powi(2)).powi(2)
        + (2.625 - x1 + x1 * x2.powi(3)).powi(2)
}

/// The same, generic over the float type.
#[differentiable]
fn beale_generic<T: Float>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let (a, b, c) = (
        T::from(1.5).unwrap(),
        T::from(2.25).unwrap(),
        T::from(2.625).unwrap(),
    );
    (a - x1 + x1 * x2).powi(2)
        + (b - x1 + x1 * x2.powi(2)).powi(2)
        + (c - x1 + x1 * x2.powi(3)).powi(2)
}

fn beale_by_hand(x: f64, y: f64) -> [f64; 2] {
    let t1 = 1.5 - x + x * y;
    let t2 = 2.25 - x + x * y * y;
    let t3 = 2.625 - x + x * y * y * y;
    [
        2.0 * t1 * (y - 1.0) + 2.0 * t2 * (y * y - 1.0) + 2.0 * t3 * (y * y * y - 1.0),
        2.0 * t1 * x + 2.0 * t2 * 2.0 * x * y + 2.0 * t3 * 3.0 * x * y * y,
    ]
}

#[test]
fn an_array_pattern_of_a_parameter_behind_a_reference() {
    let p = [0.7, -0.4];
    let g = gradients_function!(beale)(&p);
    assert_gradient_close(&g, &beale_by_hand(p[0], p[1]), 1e-13);
    let fd = finite_difference(|q| beale(&[q[0], q[1]]), &p);
    assert_gradient_close(&g, &fd, FD_TOL);

    let g64 = gradients_function!(beale_generic::<f64>)(&p);
    assert_gradient_close(&g64, &g, 1e-15);
    let g32 = gradients_function!(beale_generic::<f32>)(&[0.7_f32, -0.4]);
    assert!((g32[0] as f64 - g[0]).abs() < 1e-4 && (g32[1] as f64 - g[1]).abs() < 1e-4);

    let (value, pullback) = vjp!(beale)(&p);
    assert_eq!(value, beale(&p));
    let doubled = pullback(2.0);
    assert_gradient_close(&doubled, &[2.0 * g[0], 2.0 * g[1]], 1e-15);
}

/// By value, with `..` and counting from the end.
#[differentiable]
fn ends(p: [f64; 4]) -> f64 {
    let [a, b, ..] = p;
    let [.., y, z] = p;
    let [first, .., last] = p;
    a * z + b.sin() * y + first * last * last
}

#[test]
fn array_patterns_by_value_with_rest() {
    let p = [0.3, -1.2, 0.8, 2.0];
    let g = gradients_function!(ends)(p);
    // by hand: ∂/∂p0 = z + last², ∂/∂p1 = cos(b)·y, ∂/∂p2 = sin(b), ∂/∂p3 = a + 2·first·last
    let hand = [
        p[3] + p[3] * p[3],
        p[1].cos() * p[2],
        p[1].sin(),
        p[0] + 2.0 * p[0] * p[3],
    ];
    assert_gradient_close(&g, &hand, 1e-14);
    let fd = finite_difference(|q| ends([q[0], q[1], q[2], q[3]]), &p);
    assert_gradient_close(&g, &fd, FD_TOL);
}

/// Parameters written as patterns.
#[differentiable]
fn patterns_as_parameters([x, y]: [f64; 2], (a, b): (f64, f64), &[u, v]: &[f64; 2]) -> f64 {
    x * a + y * b * b + u * v.exp()
}

#[test]
fn parameters_written_as_patterns() {
    let (g1, g2, g3) =
        gradients_function!(patterns_as_parameters)([0.5, 0.3], (2.0, 3.0), &[0.1, 0.2]);
    assert_eq!(g1, [2.0, 9.0]);
    assert_eq!(g2, (0.5, 2.0 * 0.3 * 3.0));
    assert_eq!(g3, [0.2_f64.exp(), 0.1 * 0.2_f64.exp()]);
    let fd = finite_difference(
        |q| patterns_as_parameters([q[0], q[1]], (q[2], q[3]), &[q[4], q[5]]),
        &[0.5, 0.3, 2.0, 3.0, 0.1, 0.2],
    );
    assert_gradient_close(&[g1[0], g1[1], g2.0, g2.1, g3[0], g3[1]], &fd, FD_TOL);
    // a parameter chosen by position (it has no name)
    let g = gradients_function!(patterns_as_parameters, params = [0])(
        [0.5, 0.3],
        (2.0, 3.0),
        &[0.1, 0.2],
    );
    assert_eq!(g, [2.0, 9.0]);
}

/// Tuples: a tuple of values, a tuple-valued `if` and `match`, in a loop.
#[differentiable]
fn tuples(x: f64, y: f64, n: usize) -> f64 {
    let (a, b) = (x, y * 2.0);
    let mut s = a * b;
    for k in 0..n {
        let (r, t) = if s > 1.0 {
            (s * 0.5, y)
        } else {
            (s + x, x * y)
        };
        let (p, q) = match k % 3 {
            0 => (r, t),
            1 => (t * t, r),
            _ => (r + t, r - t),
        };
        s = p * 0.7 + q.sin();
    }
    s
}

#[test]
fn tuple_valued_let_if_and_match_in_a_loop() {
    for &(x, y) in &[(0.4, 0.9), (1.3, -0.6), (-0.5, 0.2)] {
        let (gx, gy) = gradients_function!(tuples)(x, y, 7);
        let fd = finite_difference(|p| tuples(p[0], p[1], 7), &[x, y]);
        assert_gradient_close(&[gx, gy], &fd, 1e-7);
    }
    // by hand, no iteration: s = x · 2y
    let (gx, gy) = gradients_function!(tuples)(0.4, 0.9, 0);
    assert_gradient_close(&[gx, gy], &[1.8, 0.8], 1e-15);
}

/// Generic: a tuple-valued `if` whose arms mix a tuple and a call returning one.
#[differentiable]
fn polar<T: Float>(x: T, y: T) -> (T, T) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

#[differentiable]
fn from_polar<T: Float>(x: T, y: T) -> T {
    let (r, t) = if x > T::zero() { polar(x, y) } else { (y, x) };
    r * t.cos()
}

#[test]
fn tuples_returned_by_differentiable_calls() {
    let (x, y) = (0.6, 0.8);
    let (gx, gy) = gradients_function!(from_polar::<f64>)(x, y);
    // r cos t = x when x > 0: the gradient is (1, 0)
    assert_gradient_close(&[gx, gy], &[1.0, 0.0], 1e-15);
    let (gx, gy) = gradients_function!(from_polar::<f64>)(-0.6, 0.8);
    // y cos x
    assert_gradient_close(
        &[gx, gy],
        &[-0.8 * (-0.6_f64).sin(), (-0.6_f64).cos()],
        1e-15,
    );
    let fd = finite_difference(|p| from_polar(p[0], p[1]), &[-0.6, 0.8]);
    assert_gradient_close(&[gx, gy], &fd, FD_TOL);

    // the tuple-valued function itself through `vjp!`
    let (value, pullback) = vjp!(polar::<f64>)(x, y);
    assert_eq!(value, polar(x, y));
    let (dx, dy) = pullback((1.0, 0.0));
    assert_gradient_close(&[dx, dy], &[x, y], 1e-15); // ∂r/∂(x, y) = (x, y)/r, r = 1
}

#[test]
fn the_implicit_mode_through_destructuring() {
    let w = Variable::new(0.7_f64);
    let f = differentiable_closure!(|y: f64| beale(&[w, y]) + from_polar(w, y));
    let grads = implicit_gradients(&f)(-0.4);
    let gw: f64 = grads.get(&w).expect("w was read");
    let fd = finite_difference(|p| beale(&[p[0], -0.4]) + from_polar(p[0], -0.4), &[0.7]);
    assert_gradient_close(&[gw], &fd, FD_TOL);
    assert!((gw - (beale_by_hand(0.7, -0.4)[0] + 1.0)).abs() < 1e-13);
}

/// A tuple returned early and at the end.
#[differentiable]
fn returned_early(x: f64, y: f64) -> (f64, f64) {
    if x > 0.0 {
        return (x * y, x * x);
    }
    (x * 2.0, y.sin())
}

#[test]
fn tuples_returned_early() {
    for &(x, y) in &[(0.5, -0.3), (-0.5, 0.7)] {
        let (value, pullback) = vjp!(returned_early)(x, y);
        assert_eq!(value, returned_early(x, y));
        let (dx, dy) = pullback((1.0, 2.0));
        // by hand: (xy, x²)·(1, 2) → (y + 4x, x); (2x, sin y)·(1, 2) → (2, 2 cos y)
        let hand = if x > 0.0 {
            [y + 4.0 * x, x]
        } else {
            [2.0, 2.0 * y.cos()]
        };
        assert_gradient_close(&[dx, dy], &hand, 1e-15);
    }
}

/// Array-valued branches destructured in a loop.
#[differentiable]
fn arrays_in_a_loop(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let a = if i % 2 == 0 {
            [x, s, 1.0]
        } else {
            [s, x * x, 2.0]
        };
        let [p, q, r] = a;
        s = (p * q + r * 0.1 + a[1]).tanh();
    }
    s
}

#[test]
fn array_valued_branches_in_a_loop() {
    for &x in &[0.7, -0.4] {
        let g = gradients_function!(arrays_in_a_loop)(x, 5);
        let fd = finite_difference(|p| arrays_in_a_loop(p[0], 5), &[x]);
        assert_gradient_close(&[g], &fd, FD_TOL);
    }
    // by hand, one iteration: s = tanh(x·0 + 0.1 + 0), no dependence on x
    assert_eq!(gradients_function!(arrays_in_a_loop)(0.7, 1), 0.0);
    // two: s₂ = tanh(s₁ x² + 0.2 + x²), s₁ = tanh(0.1)
    let s1 = 0.1_f64.tanh();
    let u = s1 * 0.49 + 0.2 + 0.49;
    let hand = (1.0 - u.tanh().powi(2)) * (2.0 * 0.7 * s1 + 2.0 * 0.7);
    assert!((gradients_function!(arrays_in_a_loop)(0.7, 2) - hand).abs() < 1e-14);
}
