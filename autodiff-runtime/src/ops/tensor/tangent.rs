//! What forward mode (`jvp!`) needs beyond the forward operations and the rules: the
//! tangent of an operation is the operation's own forward function applied to tangents
//! where it is linear (`sum`, `t`, `slice`, `a + b`), built from them where it is a
//! product (`dot(ta, b) + dot(a, tb)`), and the elementwise rule applied to the tangent
//! for elementwise functions (`sin_d0(&x, &tx)` is `cos x · tx`). A sum with a constant
//! operand that may broadcast adds that operand's zeros, so the tangent has the result's
//! shape.

use super::Tensor;

/// Zeros shaped like `a`: `0` for a scalar, an owned array of zeros for an array.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::zeros_like(&array![1.0_f64, 2.0]), array![0.0, 0.0]);
/// assert_eq!(tensor::zeros_like(&3.0_f32), 0.0);
/// ```
#[inline]
pub fn zeros_like<A: Tensor + ?Sized>(a: &A) -> A::Cotangent {
    match a.as_scalar() {
        Some(_) => a.reduce_scalar(num_traits::Zero::zero()),
        None => a.cot_from(ndarray::Array::zeros(a.view_tensor().raw_dim())),
    }
}
