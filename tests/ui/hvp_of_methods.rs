use autodiff::prelude::*;

#[derive(Clone, Differentiable)]
struct Line {
    a: f64,
}

#[differentiable]
impl Line {
    /// Written with `f64`: not generic over its float type.
    fn cost(&self, x: &[f64]) -> f64 {
        self.a * x[0] * x[0]
    }

    /// Its receiver differentiable.
    #[differentiable(self)]
    fn fit<T: Float>(&self, x: T) -> T {
        x * x
    }
}

fn main() {
    let l = Line { a: 2.0 };
    let _: Vec<f64> = hvp!(Line::cost, params = ["x"])(&l, &[1.0], &[1.0]);
    let _: f64 = hessian!(Line::fit, params = ["x"])(&l, 1.0);
}
