//! ndarray arrays as differentiable values: the gradient of an `ArrayBase<S, D>` (owned,
//! view, shared) is an owned `Array<F, D>` of the same shape.

use crate::real::Real;
use crate::tangent::{Accumulate, Differentiable, Reset};
use ndarray::{Array, ArrayBase, ArrayView, Data, Dimension};

impl<F: Real, S: Data<Elem = F>, D: Dimension> Differentiable for ArrayBase<S, D> {
    type Tangent = Array<F, D>;
    fn zero_tangent(&self) -> Array<F, D> {
        Array::zeros(self.raw_dim())
    }
    #[track_caller]
    fn check_tangent(&self, tangent: &Array<F, D>, at: &crate::forward::TangentPath<'_>) {
        if tangent.shape() != self.shape() {
            at.mismatch(self.shape(), tangent.shape());
        }
    }
    /// An array of no elements: a zero that takes the shape of what is added to it.
    fn lazy_zero_tangent(&self) -> Array<F, D> {
        Array::zeros(D::zeros(self.ndim()))
    }
    fn complete_tangent(&self, tangent: &mut Array<F, D>) {
        if tangent.shape() != self.shape() {
            *tangent = self.zero_tangent();
        }
    }
}

fn is_zero<F: Real, S: Data<Elem = F>, D: Dimension>(a: &ArrayBase<S, D>) -> bool {
    a.iter().all(|v| v.is_zero())
}

/// Adds `from` into `into` elementwise and returns `true`, or returns `false` when `into`
/// is a zero of another shape, which the caller replaces by `from`. A zero `from` of
/// another shape adds nothing; two non-zero tangents of different shapes are a bug in the
/// caller: it panics naming both shapes.
fn add_in_place<F: Real, S: Data<Elem = F>, D: Dimension>(
    into: &mut Array<F, D>,
    from: &ArrayBase<S, D>,
) -> bool {
    if into.shape() != from.shape() {
        if is_zero(into) {
            return false;
        }
        if is_zero(from) {
            return true;
        }
        panic!(
            "gradient shape mismatch: accumulating a gradient of shape {:?} into one of shape {:?}",
            from.shape(),
            into.shape()
        );
    }
    into.zip_mut_with(from, |a, b| *a = *a + *b);
    true
}

impl<F: Real, D: Dimension> Accumulate for Array<F, D> {
    /// Adds elementwise, in place. A zero tangent takes the shape of what is added to it
    /// (a local array may change shape between assignments, and its gradient with it).
    fn accumulate(&mut self, contribution: Array<F, D>) {
        if !add_in_place(self, &contribution) {
            *self = contribution;
        }
    }
}

impl<'a, F: Real, D: Dimension> Accumulate<ArrayView<'a, F, D>> for Array<F, D> {
    /// Adds a borrowed contribution elementwise, in place (no allocation once `self`
    /// exists).
    fn accumulate(&mut self, contribution: ArrayView<'a, F, D>) {
        if !add_in_place(self, &contribution) {
            *self = contribution.to_owned();
        }
    }
}

impl<F: Real, D: Dimension> Reset for Array<F, D> {
    fn reset(&mut self) {
        self.fill(F::zero());
    }
    fn take_reset(&mut self) -> Self {
        let zeros = Array::zeros(self.raw_dim());
        core::mem::replace(self, zeros)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn views_and_owned_arrays_have_owned_tangents() {
        let a = array![[1.0_f64, 2.0], [3.0, 4.0]];
        let g: Array<f64, _> = a.view().zero_tangent();
        assert_eq!(g.shape(), &[2, 2]);
        let mut acc = Array::<f64, _>::zeros((0, 0));
        acc.accumulate(array![[1.0, 1.0], [1.0, 1.0]]);
        acc.accumulate(a.view());
        assert_eq!(acc, array![[2.0, 3.0], [4.0, 5.0]]);
        assert_eq!(acc.take_reset(), array![[2.0, 3.0], [4.0, 5.0]]);
        assert_eq!(acc, Array::zeros((2, 2)));
    }

    #[test]
    #[should_panic(expected = "gradient shape mismatch")]
    fn mismatched_shapes_panic() {
        let mut acc = Array::<f64, _>::from_elem(3, 1.0);
        acc.accumulate(Array::from_elem(2, 1.0));
    }

    #[test]
    fn a_zero_tangent_takes_the_shape_of_what_is_added() {
        let mut acc = Array::<f64, _>::zeros(3);
        acc.accumulate(array![1.0, 2.0]);
        assert_eq!(acc, array![1.0, 2.0]);
        acc.accumulate(Array::zeros(5));
        assert_eq!(acc, array![1.0, 2.0]);
    }
}
