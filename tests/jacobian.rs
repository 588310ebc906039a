use autodiff::ndarray::{array, Array1, Array2};
use autodiff::prelude::*;

#[differentiable]
fn squares(x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    y
}

#[test]
fn smoke() {
    let j: Array2<f64> = jacobian!(squares)(&[1.0, 3.0]);
    assert_eq!(j, array![[2.0, 0.0], [0.0, 6.0]]);
    let _ = Array1::<f64>::zeros(1);
}
