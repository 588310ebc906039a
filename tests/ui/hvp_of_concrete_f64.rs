use autodiff::prelude::*;

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let a = 1.0 - x[0];
    let b = x[1] - x[0] * x[0];
    a * a + 100.0 * b * b
}

#[differentiable]
fn product<T: Float>(x: T, y: T) -> T {
    x * y
}

fn main() {
    let x = [1.0, 2.0];
    let _: Vec<f64> = hvp!(rosenbrock)(&x, &x);
    let _: autodiff::ndarray::Array2<f64> = hessian!(rosenbrock)(&x);
    let _: f64 = hessian!(product)(1.0, 2.0);
}
