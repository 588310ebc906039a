//! Forward mode (`jvp!`): every construct's tangent against ⟨∇f, v⟩ from the reverse
//! gradient and against central finite differences, with hand-derived values where easy.

use autodiff::prelude::*;

/// Central difference of `f` at `x` along `v`.
fn central(f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64]) -> f64 {
    let h = 1e-6;
    let plus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
    let minus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
    (f(&plus) - f(&minus)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

#[differentiable]
fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

#[test]
fn weighted_sum_as_in_the_api() {
    let (y, dy) = jvp!(weighted_sum, params = ["w1", "w2"])(2.0, 5.0, 3.0, 7.0, 1.0, 0.0);
    assert_eq!((y, dy), (31.0, 5.0));
    let (y, dy) = jvp!(weighted_sum)(2.0, 5.0, 3.0, 7.0, 1.0, 1.0, 1.0, 1.0);
    assert_eq!((y, dy), (31.0, 5.0 + 2.0 + 7.0 + 3.0));
    let (_, dy) = jvp!(weighted_sum, params = ["x2", 0])(2.0, 5.0, 3.0, 7.0, 1.0, 10.0);
    assert_eq!(dy, 3.0 + 50.0);
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

#[test]
fn rosenbrock_loop_against_the_gradient_and_differences() {
    let x = [0.3, -1.2, 0.8, 1.5, -0.4];
    let v = [1.0, 0.5, -0.25, 2.0, 0.1];
    let (y, dy) = jvp!(rosenbrock)(&x, &v);
    assert_eq!(y, rosenbrock(&x));
    let g = gradients_function!(rosenbrock)(&x);
    let dot: f64 = g.iter().zip(&v).map(|(a, b)| a * b).sum();
    assert!(close(dy, dot, 1e-12), "{dy} vs {dot}");
    let fd = central(rosenbrock, &x, &v);
    assert!(close(dy, fd, 1e-6), "{dy} vs {fd}");
}
