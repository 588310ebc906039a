use autodiff::prelude::*;

/// Data, neither `#[derive(Differentiable)]` nor marked `#[no_grad]` where it is taken:
/// every function below gets one error, at the parameter's type.
struct Coefficients {
    a: f64,
    b: f64,
}

#[differentiable]
fn by_value(x: f64, c: Coefficients) -> f64 {
    c.a * x + c.b
}

#[differentiable]
fn passed_on(x: f64, c: Coefficients) -> f64 {
    by_value(x * 2.0, c)
}

#[differentiable]
fn generic<T: Float>(x: T, c: &Coefficients) -> T {
    x * x * T::from(c.a).unwrap()
}

struct Model {
    w: f64,
}

#[differentiable]
impl Model {
    fn predict(&self, x: f64, c: &Coefficients) -> f64 {
        self.w * x + c.a
    }
}

fn main() {}
