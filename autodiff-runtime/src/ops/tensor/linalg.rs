//! Linear algebra: `dot` (vector and matrix products, by the operands' dimensions through
//! [`DotDims`]) and the transpose `t`.

use super::{dyn_view, Tensor};
use crate::real::Real;
use crate::sealed::Sealed;
use ndarray::{Array, ArrayView, Dimension, Ix1, Ix2, IxDyn};

/// `x.t()`: the transpose, a view.
///
/// ```
/// use ndarray::array;
/// assert_eq!(autodiff_runtime::ops::tensor::t(&array![[1.0_f64, 2.0]]), array![[1.0], [2.0]]);
/// ```
#[inline(always)]
pub fn t<A: Tensor + ?Sized>(a: &A) -> ArrayView<'_, A::Elem, A::Dim> {
    a.view_tensor().reversed_axes()
}

/// `y = x.t()`: the gradient of `x`, `dy` transposed back.
///
/// ```
/// use ndarray::array;
/// assert_eq!(autodiff_runtime::ops::tensor::t_d0(&array![[1.0_f64], [2.0]]), array![[1.0, 2.0]]);
/// ```
#[inline(always)]
pub fn t_d0<G: Tensor + ?Sized>(dy: &G) -> G::Cotangent {
    dy.cot_from(dy.view_tensor().reversed_axes().to_owned())
}

/// The matrix and vector products `dot` differentiates: by the dimensions of its operands.
/// The trait is sealed.
pub trait DotDims<E: Dimension>: Dimension + Sealed {
    /// The product's type for elements `F` (a scalar for two vectors).
    type Out<F: Real>;
    /// `a.dot(&b)`.
    fn dot<F: Real>(a: ArrayView<'_, F, Self>, b: ArrayView<'_, F, E>) -> Self::Out<F>;
    /// The gradient of `a`.
    fn d0<F: Real>(
        a: ArrayView<'_, F, Self>,
        b: ArrayView<'_, F, E>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Self>;
    /// The gradient of `b`.
    fn d1<F: Real>(
        a: ArrayView<'_, F, Self>,
        b: ArrayView<'_, F, E>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, E>;
}

fn fixed<'a, F: Real, D: Dimension>(g: ArrayView<'a, F, IxDyn>, what: &str) -> ArrayView<'a, F, D> {
    let ndim = g.ndim();
    g.into_dimensionality::<D>()
        .unwrap_or_else(|_| panic!("autodiff: the gradient of {what} has {ndim} axes"))
}

fn scalar_of<F: Real>(g: ArrayView<'_, F, IxDyn>) -> F {
    *g.iter().next().expect("autodiff: a scalar gradient")
}

impl DotDims<Ix1> for Ix1 {
    type Out<F: Real> = F;
    fn dot<F: Real>(a: ArrayView<'_, F, Ix1>, b: ArrayView<'_, F, Ix1>) -> F {
        a.dot(&b)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, Ix1>,
        b: ArrayView<'_, F, Ix1>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix1> {
        let g = scalar_of(dy);
        b.mapv(|b| b * g)
    }
    fn d1<F: Real>(
        a: ArrayView<'_, F, Ix1>,
        _b: ArrayView<'_, F, Ix1>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix1> {
        let g = scalar_of(dy);
        a.mapv(|a| a * g)
    }
}

/// `a · b` of two matrices, by the element type's kernel ([`Real::matmul`]).
fn mm<F: Real>(a: ArrayView<'_, F, Ix2>, b: ArrayView<'_, F, Ix2>) -> Array<F, Ix2> {
    F::matmul(a, b)
}

/// `a · b` of a matrix and a vector, by the element type's kernel ([`Real::matvec`]).
fn mv<F: Real>(a: ArrayView<'_, F, Ix2>, b: ArrayView<'_, F, Ix1>) -> Array<F, Ix1> {
    F::matvec(a, b)
}

fn outer<F: Real>(u: ArrayView<'_, F, Ix1>, v: ArrayView<'_, F, Ix1>) -> Array<F, Ix2> {
    let mut out = Array::zeros((u.len(), v.len()));
    for (mut row, &ui) in out.rows_mut().into_iter().zip(u.iter()) {
        row.zip_mut_with(&v, |o, &vj| *o = ui * vj);
    }
    out
}

impl DotDims<Ix1> for Ix2 {
    type Out<F: Real> = Array<F, Ix1>;
    fn dot<F: Real>(a: ArrayView<'_, F, Ix2>, b: ArrayView<'_, F, Ix1>) -> Array<F, Ix1> {
        mv(a, b)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, Ix2>,
        b: ArrayView<'_, F, Ix1>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix2> {
        outer(fixed(dy, "a matrix-vector product"), b)
    }
    fn d1<F: Real>(
        a: ArrayView<'_, F, Ix2>,
        _b: ArrayView<'_, F, Ix1>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix1> {
        mv(a.t(), fixed::<F, Ix1>(dy, "a matrix-vector product"))
    }
}

impl DotDims<Ix2> for Ix1 {
    type Out<F: Real> = Array<F, Ix1>;
    fn dot<F: Real>(a: ArrayView<'_, F, Ix1>, b: ArrayView<'_, F, Ix2>) -> Array<F, Ix1> {
        mv(b.t(), a)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, Ix1>,
        b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix1> {
        mv(b, fixed::<F, Ix1>(dy, "a vector-matrix product"))
    }
    fn d1<F: Real>(
        a: ArrayView<'_, F, Ix1>,
        _b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix2> {
        outer(a, fixed(dy, "a vector-matrix product"))
    }
}

impl DotDims<Ix2> for Ix2 {
    type Out<F: Real> = Array<F, Ix2>;
    fn dot<F: Real>(a: ArrayView<'_, F, Ix2>, b: ArrayView<'_, F, Ix2>) -> Array<F, Ix2> {
        mm(a, b)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, Ix2>,
        b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix2> {
        mm(fixed::<F, Ix2>(dy, "a matrix product"), b.t())
    }
    fn d1<F: Real>(
        a: ArrayView<'_, F, Ix2>,
        _b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix2> {
        mm(a.t(), fixed::<F, Ix2>(dy, "a matrix product"))
    }
}

/// `a.dot(&b)`: vector·vector (a scalar), matrix·vector, vector·matrix, matrix·matrix.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::dot(&array![1.0_f64, 2.0], &array![3.0_f64, 4.0]), 11.0);
/// ```
#[inline(always)]
pub fn dot<A, B>(a: &A, b: &B) -> <A::Dim as DotDims<B::Dim>>::Out<A::Elem>
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    A::Dim: DotDims<B::Dim>,
{
    <A::Dim as DotDims<B::Dim>>::dot(a.view_tensor(), b.view_tensor())
}

/// `y = a.dot(&b)`: the gradient of `a`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let g = tensor::dot_d0(&array![[1.0_f64, 2.0]], &array![[3.0_f64], [4.0]], &array![[1.0_f64]]);
/// assert_eq!(g, array![[3.0, 4.0]]);
/// ```
#[inline(always)]
pub fn dot_d0<A, B, G>(a: &A, b: &B, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
    A::Dim: DotDims<B::Dim>,
{
    a.cot_from(<A::Dim as DotDims<B::Dim>>::d0(
        a.view_tensor(),
        b.view_tensor(),
        dyn_view(dy),
    ))
}

/// `y = a.dot(&b)`: the gradient of `b`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let g = tensor::dot_d1(&array![[1.0_f64, 2.0]], &array![[3.0_f64], [4.0]], &array![[1.0_f64]]);
/// assert_eq!(g, array![[1.0], [2.0]]);
/// ```
#[inline(always)]
pub fn dot_d1<A, B, G>(a: &A, b: &B, dy: &G) -> B::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
    A::Dim: DotDims<B::Dim>,
{
    b.cot_from(<A::Dim as DotDims<B::Dim>>::d1(
        a.view_tensor(),
        b.view_tensor(),
        dyn_view(dy),
    ))
}
