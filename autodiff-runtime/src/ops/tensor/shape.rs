//! Shape without arithmetic: views and copies, reshaping, broadcasting, new and permuted
//! axes, `concatenate` and `stack`. Each rule moves the cotangent back into the operand's
//! shape.

use super::{dyn_view, Tensor};
use crate::real::Real;
use ndarray::{Array, ArrayView, Axis, CowArray, Dimension, IxDyn, RemoveAxis};

/// `x.view()`: a view (a scalar is viewed as a 0-dimensional array).
///
/// ```
/// let x = ndarray::array![1.0_f64];
/// assert_eq!(autodiff_runtime::ops::tensor::view(&x), x.view());
/// ```
#[inline(always)]
pub fn view<A: Tensor + ?Sized>(a: &A) -> ArrayView<'_, A::Elem, A::Dim> {
    a.view_tensor()
}

/// `y = x.view()`: the gradient of `x`, `dy` itself.
///
/// ```
/// let g = ndarray::array![1.0_f64];
/// assert_eq!(autodiff_runtime::ops::tensor::view_d0(&g), g);
/// ```
#[inline(always)]
pub fn view_d0<G: Tensor + ?Sized>(dy: &G) -> G::Cotangent {
    to_owned_d0(dy)
}

/// `x.to_owned()`: an owned copy.
///
/// ```
/// let x = ndarray::array![1.0_f64];
/// assert_eq!(autodiff_runtime::ops::tensor::to_owned(&x.view()), x);
/// ```
#[inline(always)]
pub fn to_owned<A: Tensor + ?Sized>(a: &A) -> Array<A::Elem, A::Dim> {
    a.view_tensor().to_owned()
}

/// `y = x.to_owned()`: the gradient of `x`, `dy` itself.
///
/// ```
/// let g = ndarray::array![1.0_f64];
/// assert_eq!(autodiff_runtime::ops::tensor::to_owned_d0(&g), g);
/// ```
#[inline(always)]
pub fn to_owned_d0<G: Tensor + ?Sized>(dy: &G) -> G::Cotangent {
    match dy.as_scalar() {
        Some(g) => dy.reduce_scalar(g),
        None => dy.cot_from(dy.view_tensor().to_owned()),
    }
}

/// `x.insert_axis(axis)`: a view with a new axis of length 1.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// assert_eq!(tensor::insert_axis(&array![1.0_f64, 2.0], &Axis(0)).shape(), &[1, 2]);
/// ```
#[inline(always)]
pub fn insert_axis<'a, A: Tensor + ?Sized>(
    a: &'a A,
    axis: &Axis,
) -> ArrayView<'a, A::Elem, <A::Dim as Dimension>::Larger> {
    a.view_tensor().insert_axis(*axis)
}

/// `y = x.insert_axis(axis)`: the gradient of `x`, `dy` without that axis.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let g = tensor::insert_axis_d0(&array![1.0_f64, 2.0], &Axis(0), &array![[3.0_f64, 4.0]]);
/// assert_eq!(g, array![3.0, 4.0]);
/// ```
pub fn insert_axis_d0<A, G>(_a: &A, axis: &Axis, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let g = dyn_view(dy).index_axis_move(*axis, 0).to_owned();
    A::cot_from_dyn(g)
}

/// `x.to_shape(shape).unwrap()` / `x.into_shape_with_order(shape).unwrap()`: the elements
/// in row-major order, in a new shape (an owned array).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let y = tensor::reshape(&array![1.0_f64, 2.0, 3.0, 4.0], &(2, 2));
/// assert_eq!(y, array![[1.0, 2.0], [3.0, 4.0]]);
/// ```
pub fn reshape<A, Sh>(a: &A, shape: &Sh) -> Array<A::Elem, Sh::Dim>
where
    A: Tensor + ?Sized,
    Sh: ndarray::ShapeBuilder + Clone,
    Sh::Dim: Dimension,
{
    let v = a.view_tensor();
    let elements: Vec<A::Elem> = v.iter().copied().collect();
    let from = v.shape().to_vec();
    Array::from_shape_vec(shape.clone(), elements)
        .unwrap_or_else(|e| panic!("autodiff: cannot reshape an array of shape {from:?}: {e}"))
}

/// `y = reshape(x)`: the gradient of `x`, `dy`'s elements in `x`'s shape.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let g = tensor::reshape_d0(&array![1.0_f64, 2.0], &(1, 2), &array![[3.0_f64, 4.0]]);
/// assert_eq!(g, array![3.0, 4.0]);
/// ```
pub fn reshape_d0<A, Sh, G>(a: &A, _shape: &Sh, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let elements: Vec<A::Elem> = dy.view_tensor().iter().copied().collect();
    a.cot_from(
        Array::from_shape_vec(a.view_tensor().raw_dim(), elements)
            .expect("autodiff: a reshaped gradient has the operand's size"),
    )
}

/// `x.broadcast(shape).unwrap()`: `x` stretched to `shape` (an owned copy).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let x = array![1.0_f64, 2.0];
/// assert_eq!(tensor::broadcast(&x, &(2, 2)), array![[1.0, 2.0], [1.0, 2.0]]);
/// ```
pub fn broadcast<A, Sh>(a: &A, shape: &Sh) -> Array<A::Elem, Sh::Dim>
where
    A: Tensor + ?Sized,
    Sh: ndarray::IntoDimension + Clone,
{
    let v = a.view_tensor();
    let target = shape.clone().into_dimension();
    match v.broadcast(target.clone()) {
        Some(b) => b.to_owned(),
        None => panic!(
            "autodiff: cannot broadcast an array of shape {:?} to {:?}",
            v.shape(),
            target.slice()
        ),
    }
}

/// `y = x.broadcast(shape)`: the gradient of `x`, `dy` summed over the stretched axes.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let dy = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = tensor::broadcast_d0(&array![1.0_f64, 2.0], &(2, 2), &dy);
/// assert_eq!(g, array![4.0, 6.0]);
/// ```
pub fn broadcast_d0<A, Sh, G>(a: &A, _shape: &Sh, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    a.reduce(CowArray::from(dyn_view(dy)))
}

/// `ndarray::concatenate(axis, &[a.view(), b.view(), …]).unwrap()`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64]);
/// assert_eq!(tensor::concatenate(&Axis(0), &[a.view(), b.view()]), array![1.0, 2.0, 3.0]);
/// ```
pub fn concatenate<F: Real, D: RemoveAxis>(
    axis: &Axis,
    parts: &[ArrayView<'_, F, D>],
) -> Array<F, D> {
    ndarray::concatenate(*axis, parts).unwrap_or_else(|e| {
        let shapes: Vec<&[usize]> = parts.iter().map(|p| p.shape()).collect();
        panic!(
            "autodiff: `concatenate` along axis {} of shapes {shapes:?}: {e}",
            axis.index()
        )
    })
}

/// `y = concatenate(axis, parts)`: the gradient of part `k`, its slice of `dy`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64]);
/// let g = tensor::concatenate_d(&Axis(0), &[a.view(), b.view()], 1, &array![4.0_f64, 5.0, 6.0]);
/// assert_eq!(g, array![6.0]);
/// ```
pub fn concatenate_d<F: Real, D: RemoveAxis, G: Tensor<Elem = F> + ?Sized>(
    axis: &Axis,
    parts: &[ArrayView<'_, F, D>],
    k: usize,
    dy: &G,
) -> Array<F, D> {
    let start: usize = parts[..k].iter().map(|p| p.len_of(*axis)).sum();
    let len = parts[k].len_of(*axis);
    let g = dyn_view(dy);
    let piece = g.slice_axis(*axis, ndarray::Slice::from(start..start + len));
    piece
        .to_owned()
        .into_dimensionality::<D>()
        .expect("autodiff: `concatenate`'s gradient has the parts' dimension")
}

/// `ndarray::stack(axis, &[a.view(), b.view(), …]).unwrap()`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64, 4.0]);
/// assert_eq!(tensor::stack(&Axis(0), &[a.view(), b.view()]), array![[1.0, 2.0], [3.0, 4.0]]);
/// ```
pub fn stack<F: Real, D: Dimension>(
    axis: &Axis,
    parts: &[ArrayView<'_, F, D>],
) -> Array<F, D::Larger>
where
    D::Larger: RemoveAxis,
{
    ndarray::stack(*axis, parts).unwrap_or_else(|e| {
        let shapes: Vec<&[usize]> = parts.iter().map(|p| p.shape()).collect();
        panic!(
            "autodiff: `stack` along axis {} of shapes {shapes:?}: {e}",
            axis.index()
        )
    })
}

/// `y = stack(axis, parts)`: the gradient of part `k`, `dy` at index `k` along `axis`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64, 4.0]);
/// let dy = array![[5.0_f64, 6.0], [7.0, 8.0]];
/// let g = tensor::stack_d(&Axis(0), &[a.view(), b.view()], 1, &dy);
/// assert_eq!(g, array![7.0, 8.0]);
/// ```
pub fn stack_d<F: Real, D: Dimension, G: Tensor<Elem = F> + ?Sized>(
    axis: &Axis,
    _parts: &[ArrayView<'_, F, D>],
    k: usize,
    dy: &G,
) -> Array<F, D> {
    dyn_view(dy)
        .index_axis_move(*axis, k)
        .to_owned()
        .into_dimensionality::<D>()
        .expect("autodiff: `stack`'s gradient has one more axis than its parts")
}

/// `x.view().permuted_axes(axes)`: a view with its axes reordered.
///
/// ```
/// let x = ndarray::array![[1.0_f64, 2.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::permuted_axes(&x, &[1, 0]).shape(), &[2, 1]);
/// ```
#[inline(always)]
pub fn permuted_axes<'a, A, T>(a: &'a A, axes: &T) -> ArrayView<'a, A::Elem, A::Dim>
where
    A: Tensor + ?Sized,
    T: ndarray::IntoDimension<Dim = A::Dim> + Clone,
{
    a.view_tensor().permuted_axes(axes.clone())
}

/// `y = x.permuted_axes(axes)`: the gradient of `x`, `dy` with the inverse permutation.
///
/// ```
/// let x = ndarray::Array3::<f64>::zeros((1, 2, 3));
/// let dy = ndarray::Array3::<f64>::ones((3, 1, 2));
/// let g = autodiff_runtime::ops::tensor::permuted_axes_d0(&x, &[2, 0, 1], &dy);
/// assert_eq!(g.shape(), &[1, 2, 3]);
/// ```
pub fn permuted_axes_d0<A, T, G>(_a: &A, axes: &T, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    T: ndarray::IntoDimension<Dim = A::Dim> + Clone,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let perm = axes.clone().into_dimension();
    let mut inverse = vec![0; perm.ndim()];
    for (k, &p) in perm.slice().iter().enumerate() {
        inverse[p] = k;
    }
    A::cot_from_dyn(dyn_view(dy).permuted_axes(IxDyn(&inverse)).to_owned())
}
