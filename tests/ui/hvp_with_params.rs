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
    // two parameters for one Hessian
    let _ = hessian!(product, params = ["x", "y"]);
    // a function `hvp!` cannot serve, with a selection: one error, its reason
    let _: Vec<f64> = hvp!(rosenbrock, params = ["x"])(&x, &x);
    let _: autodiff::ndarray::Array2<f64> = hessian!(rosenbrock, params = ["x"])(&x);
    // a parameter the function does not have
    let _ = hvp!(product, params = ["z"]);
}
