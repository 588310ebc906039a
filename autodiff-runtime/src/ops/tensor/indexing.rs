//! Parts of an array: `slice`, `index_axis`, `row`, `column`, `diag`, `select`. Each rule puts the
//! cotangent back where the part was taken from, zero elsewhere.

use super::{check_axis, dyn_view, Tensor};
use ndarray::{Array, ArrayView, Axis, Dimension, RemoveAxis};

/// `x.slice(info)` (`info` from `s![…]`): a view.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, s};
/// let x = array![[1.0_f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(tensor::slice(&x, &s![.., 1..]), array![[2.0, 3.0], [5.0, 6.0]]);
/// ```
#[inline(always)]
pub fn slice<'a, A, I>(a: &'a A, info: &I) -> ArrayView<'a, A::Elem, I::OutDim>
where
    A: Tensor + ?Sized,
    I: ndarray::SliceArg<A::Dim> + Copy,
{
    a.view_tensor().slice_move(*info)
}

/// `y = x.slice(info)`: the gradient of `x`, `dy` in the sliced region and zero elsewhere.
///
/// ```
/// use ndarray::{array, s};
/// let x = array![1.0_f64, 2.0, 3.0];
/// let g = autodiff_runtime::ops::tensor::slice_d0(&x, &s![1..], &array![5.0_f64, 7.0]);
/// assert_eq!(g, array![0.0, 5.0, 7.0]);
/// ```
pub fn slice_d0<A, I, G>(a: &A, info: &I, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    I: ndarray::SliceArg<A::Dim> + Copy,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let mut z = Array::zeros(a.view_tensor().raw_dim());
    {
        let mut region = z.slice_mut(*info).into_dyn();
        let g = dyn_view(dy);
        assert_eq!(
            region.shape(),
            g.shape(),
            "autodiff: the gradient of a slice of shape {:?} has shape {:?}",
            region.shape(),
            g.shape()
        );
        region.zip_mut_with(&g, |z, g| *z = *z + *g);
    }
    a.cot_from(z)
}

/// `x.index_axis(axis, i)`, and `x.row(i)` / `x.column(i)` (axis 0 / 1): a view.
///
/// ```
/// use ndarray::{array, Axis};
/// let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::index_axis(&x, &Axis(1), &0), array![1.0, 3.0]);
/// ```
#[inline(always)]
pub fn index_axis<'a, A>(
    a: &'a A,
    axis: &Axis,
    i: &usize,
) -> ArrayView<'a, A::Elem, <A::Dim as Dimension>::Smaller>
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
{
    let v = a.view_tensor();
    check_axis("index_axis", *axis, v.shape());
    assert!(
        *i < v.len_of(*axis),
        "autodiff: index {i} along axis {} of an array of shape {:?}",
        axis.index(),
        v.shape()
    );
    v.index_axis_move(*axis, *i)
}

/// `y = x.index_axis(axis, i)`: the gradient of `x`, `dy` at index `i` along `axis`.
///
/// ```
/// use ndarray::{array, Axis};
/// let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = autodiff_runtime::ops::tensor::index_axis_d0(&x, &Axis(0), &1, &array![5.0_f64, 7.0]);
/// assert_eq!(g, array![[0.0, 0.0], [5.0, 7.0]]);
/// ```
pub fn index_axis_d0<A, G>(a: &A, axis: &Axis, i: &usize, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let mut z = Array::zeros(a.view_tensor().raw_dim());
    {
        let mut row = z.index_axis_mut(*axis, *i).into_dyn();
        row.zip_mut_with(&dyn_view(dy), |z, g| *z = *z + *g);
    }
    a.cot_from(z)
}

/// `x.row(i)`.
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::row(&x, &1), ndarray::array![3.0, 4.0]);
/// ```
#[inline(always)]
pub fn row<'a, A>(a: &'a A, i: &usize) -> ArrayView<'a, A::Elem, <A::Dim as Dimension>::Smaller>
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
{
    index_axis(a, &Axis(0), i)
}

/// `y = x.row(i)`: the gradient of `x`.
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = autodiff_runtime::ops::tensor::row_d0(&x, &0, &ndarray::array![1.0_f64, 1.0]);
/// assert_eq!(g, ndarray::array![[1.0, 1.0], [0.0, 0.0]]);
/// ```
pub fn row_d0<A, G>(a: &A, i: &usize, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    index_axis_d0(a, &Axis(0), i, dy)
}

/// `x.diag()`: a view of the diagonal (elements `(k, k, …)`).
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0], [5.0, 6.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::diag(&x), ndarray::array![1.0, 4.0]);
/// ```
#[inline(always)]
pub fn diag<A: Tensor + ?Sized>(a: &A) -> ArrayView<'_, A::Elem, ndarray::Ix1> {
    a.view_tensor().into_diag()
}

/// `y = x.diag()`: the gradient of `x`, `dy` on the diagonal and zero elsewhere.
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = autodiff_runtime::ops::tensor::diag_d0(&x, &ndarray::array![5.0_f64, 7.0]);
/// assert_eq!(g, ndarray::array![[5.0, 0.0], [0.0, 7.0]]);
/// ```
pub fn diag_d0<A, G>(a: &A, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let mut z = Array::zeros(a.view_tensor().raw_dim());
    {
        let mut d = z.diag_mut().into_dyn();
        let g = dyn_view(dy);
        assert_eq!(
            d.shape(),
            g.shape(),
            "autodiff: the gradient of a diagonal of shape {:?} has shape {:?}",
            d.shape(),
            g.shape()
        );
        d.zip_mut_with(&g, |z, g| *z = *z + *g);
    }
    a.cot_from(z)
}

/// `x.column(i)`.
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::column(&x, &1), ndarray::array![2.0, 4.0]);
/// ```
#[inline(always)]
pub fn column<'a, A>(a: &'a A, i: &usize) -> ArrayView<'a, A::Elem, <A::Dim as Dimension>::Smaller>
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
{
    index_axis(a, &Axis(1), i)
}

/// `y = x.column(i)`: the gradient of `x`.
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = autodiff_runtime::ops::tensor::column_d0(&x, &0, &ndarray::array![1.0_f64, 1.0]);
/// assert_eq!(g, ndarray::array![[1.0, 0.0], [1.0, 0.0]]);
/// ```
pub fn column_d0<A, G>(a: &A, i: &usize, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    index_axis_d0(a, &Axis(1), i, dy)
}

/// `x.select(axis, indices)`: the chosen sub-arrays along `axis`, copied (repeats allowed).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let y = tensor::select(&x, &Axis(0), &&[1, 1, 0][..]);
/// assert_eq!(y, array![[3.0, 4.0], [3.0, 4.0], [1.0, 2.0]]);
/// ```
pub fn select<A, S>(a: &A, axis: &Axis, indices: &S) -> Array<A::Elem, A::Dim>
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
    S: AsRef<[usize]> + ?Sized,
{
    let v = a.view_tensor();
    check_axis("select", *axis, v.shape());
    v.select(*axis, indices.as_ref())
}

/// `y = x.select(axis, indices)`: the gradient of `x`, each slice of `dy` added back where
/// it was taken from (repeated indices accumulate).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let x = array![1.0_f64, 2.0];
/// let g = tensor::select_d0(&x, &Axis(0), &&[1, 1][..], &array![1.0_f64, 2.0]);
/// assert_eq!(g, array![0.0, 3.0]);
/// ```
pub fn select_d0<A, S, G>(a: &A, axis: &Axis, indices: &S, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
    S: AsRef<[usize]> + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let mut z = Array::zeros(a.view_tensor().raw_dim());
    let g = dyn_view(dy);
    for (k, &i) in indices.as_ref().iter().enumerate() {
        let mut to = z.index_axis_mut(*axis, i).into_dyn();
        let from = g.index_axis(*axis, k);
        to.zip_mut_with(&from, |z, g| *z = *z + *g);
    }
    a.cot_from(z)
}
