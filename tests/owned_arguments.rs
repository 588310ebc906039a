//! Differentiable values handed to a differentiable function by value: a `Vec` (a copy by
//! `to_vec`, a `Vec` parameter passed on), a struct of parameters (a clone of one taken by
//! value or borrowed). The reverse sweep still needs the value after the call has consumed
//! it (its adjoint's shape), so the callee gets a copy. (A struct parameter handed on as it
//! is, not cloned, is not supported yet: rustc reports the moved value.) Each gradient is
//! checked against a closed form derived by hand and against central differences.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

#[derive(Clone, Differentiable)]
struct Coefficients {
    a: f64,
    b: f64,
}

/// `a x + b²`
#[differentiable]
fn affine(x: f64, c: Coefficients) -> f64 {
    c.a * x + c.b * c.b
}

/// `affine(2x, c)`, a clone of the struct taken by value.
#[differentiable]
fn passed_on(x: f64, c: Coefficients) -> f64 {
    affine(x * 2.0, c.clone())
}

/// `affine(2x, c)`, a clone of a borrowed struct.
#[differentiable]
fn cloned_on(x: f64, c: &Coefficients) -> f64 {
    affine(x * 2.0, c.clone())
}

/// `v₀ v₁`
#[differentiable]
fn product(v: Vec<f64>) -> f64 {
    v[0] * v[1]
}

/// `product` of a copy of a slice.
#[differentiable]
fn of_copy(x: &[f64]) -> f64 {
    product(x.to_vec()) + x[0]
}

/// `2 product(v)`, the `Vec` parameter passed on.
#[differentiable]
fn vec_passed_on(v: Vec<f64>) -> f64 {
    product(v) * 2.0
}

#[test]
fn structs_by_value() {
    let c = Coefficients { a: 3.0, b: 0.5 };
    let x = 1.5;
    // d/dx = 2a, d/da = 2x, d/db = 2b
    let (gx, gc) = gradients_function!(passed_on)(x, c.clone());
    assert_gradient_close(&[gx, gc.a, gc.b], &[2.0 * c.a, 2.0 * x, 2.0 * c.b], 1e-15);
    let (gx, gc) = gradients_function!(cloned_on)(x, &c);
    assert_gradient_close(&[gx, gc.a, gc.b], &[2.0 * c.a, 2.0 * x, 2.0 * c.b], 1e-15);
    let fd = finite_difference(
        |p| passed_on(p[0], Coefficients { a: p[1], b: p[2] }),
        &[x, c.a, c.b],
    );
    assert_gradient_close(&[gx, gc.a, gc.b], &fd, 1e-7);
    let (value, pullback) = vjp!(passed_on)(x, c.clone());
    assert_eq!(value, passed_on(x, c.clone()));
    let (dx, dc) = pullback(2.0);
    assert_gradient_close(&[dx, dc.a, dc.b], &[4.0 * c.a, 4.0 * x, 4.0 * c.b], 1e-15);
}

#[test]
fn vecs_by_value() {
    let x = [2.0, 3.0];
    // of_copy = x₀ x₁ + x₀
    let g = gradients_function!(of_copy)(&x);
    assert_gradient_close(&g, &[x[1] + 1.0, x[0]], 1e-15);
    assert_gradient_close(&g, &finite_difference(of_copy, &x), 1e-7);
    // vec_passed_on = 2 v₀ v₁
    let g = gradients_function!(vec_passed_on)(x.to_vec());
    assert_gradient_close(&g, &[2.0 * x[1], 2.0 * x[0]], 1e-15);
    let (value, pullback) = vjp!(vec_passed_on)(x.to_vec());
    assert_eq!(value, 12.0);
    assert_gradient_close(&pullback(0.5), &[x[1], x[0]], 1e-15);
    let (y, dy) = jvp!(vec_passed_on)(x.to_vec(), vec![1.0, -1.0]);
    assert_eq!(y, 12.0);
    assert_gradient_close(&[dy], &[2.0 * x[1] - 2.0 * x[0]], 1e-15);
}
