use autodiff::ndarray::Array1;
use autodiff::prelude::*;
use autodiff::Real;

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Layer<T: Real> {
    pub w: Array1<T>,
    pub b: T,
}

#[differentiable]
fn loss<T: Real>(layer: &Layer<T>, #[no_grad] x: &Array1<T>) -> T {
    let y = (&layer.w * x).sum() + layer.b;
    y * y
}

fn main() {
    let layer = Layer { w: Array1::from(vec![1.0, 2.0]), b: 0.5 };
    let x = Array1::from(vec![0.5, -1.0]);
    // the product with a vector of the struct's shape is served
    let _ = hvp!(loss)(&layer, &x, &layer);
    // the Hessian of a struct is not formed
    let _ = hessian!(loss)(&layer, &x);
}

/// A type alias generic over the float type: not a struct with the derive's impls.
type Matrix2<T> = [[T; 2]; 2];

#[differentiable]
fn det<T: Float>(m: Matrix2<T>) -> T {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

fn more() {
    let _ = hvp!(det)([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 0.0]]);
}
