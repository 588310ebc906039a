//! Reductions to a scalar or along one axis: `sum`, `mean`, `sum_axis`, `mean_axis`,
//! `product`, `var`, `std`. Their rules spread the cotangent back over the reduced elements.

use super::{check_axis, dyn_view, Tensor};
use crate::real::Real;
use ndarray::{Array, Axis, Dimension, IxDyn, RemoveAxis};
use num_traits::Float;

/// `x.sum()`: the sum of every element.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::sum(&ndarray::array![1.0_f64, 2.0]), 3.0);
/// ```
#[inline(always)]
pub fn sum<A: Tensor + ?Sized>(a: &A) -> A::Elem {
    match a.as_scalar() {
        Some(s) => s,
        None => a.view_tensor().sum(),
    }
}

/// `y = x.sum()`: the gradient of `x`, `dy` everywhere.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::sum_d0(&array![1.0_f64, 2.0], &3.0), array![3.0, 3.0]);
/// ```
#[inline(always)]
pub fn sum_d0<A: Tensor + ?Sized>(a: &A, dy: &A::Elem) -> A::Cotangent {
    match a.as_scalar() {
        Some(_) => a.reduce_scalar(*dy),
        None => a.cot_from(Array::from_elem(a.view_tensor().raw_dim(), *dy)),
    }
}

/// `x.mean().unwrap()`: the mean of every element; panics on an empty array.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::mean(&ndarray::array![1.0_f64, 2.0]), 1.5);
/// ```
#[inline(always)]
pub fn mean<A: Tensor + ?Sized>(a: &A) -> A::Elem {
    let v = a.view_tensor();
    assert!(!v.is_empty(), "autodiff: `mean` of an empty array");
    v.sum() / A::Elem::from_f64_rounded(v.len() as f64)
}

/// `y = x.mean()`: the gradient of `x`, `dy / n` everywhere.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::mean_d0(&array![1.0_f64, 2.0], &1.0), array![0.5, 0.5]);
/// ```
#[inline(always)]
pub fn mean_d0<A: Tensor + ?Sized>(a: &A, dy: &A::Elem) -> A::Cotangent {
    let n = A::Elem::from_f64_rounded(a.view_tensor().len() as f64);
    sum_d0(a, &(*dy / n))
}

/// `x.sum_axis(axis)`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// assert_eq!(tensor::sum_axis(&array![[1.0_f64, 2.0], [3.0, 4.0]], &Axis(0)), array![4.0, 6.0]);
/// ```
#[inline(always)]
pub fn sum_axis<A: Tensor + ?Sized>(
    a: &A,
    axis: &Axis,
) -> Array<A::Elem, <A::Dim as Dimension>::Smaller>
where
    A::Dim: RemoveAxis,
{
    let v = a.view_tensor();
    check_axis("sum_axis", *axis, v.shape());
    v.sum_axis(*axis)
}

/// `y = x.sum_axis(axis)`: the gradient of `x`, `dy` repeated along `axis`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = tensor::sum_axis_d0(&x, &Axis(0), &array![1.0_f64, 2.0]);
/// assert_eq!(g, array![[1.0, 2.0], [1.0, 2.0]]);
/// ```
pub fn sum_axis_d0<A, G>(a: &A, axis: &Axis, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let v = a.view_tensor();
    let g = dyn_view(dy).insert_axis(*axis);
    let full = g
        .broadcast(IxDyn(v.shape()))
        .expect("autodiff: `sum_axis`'s gradient has the reduced shape");
    a.cot_from(
        full.to_owned()
            .into_dimensionality::<A::Dim>()
            .expect("same axes"),
    )
}

/// `x.mean_axis(axis).unwrap()`; panics on an empty axis.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// assert_eq!(tensor::mean_axis(&array![[1.0_f64, 2.0], [3.0, 4.0]], &Axis(1)), array![1.5, 3.5]);
/// ```
pub fn mean_axis<A: Tensor + ?Sized>(
    a: &A,
    axis: &Axis,
) -> Array<A::Elem, <A::Dim as Dimension>::Smaller>
where
    A::Dim: RemoveAxis,
{
    let v = a.view_tensor();
    check_axis("mean_axis", *axis, v.shape());
    let n = v.len_of(*axis);
    assert!(n > 0, "autodiff: `mean_axis` along an empty axis");
    let n = A::Elem::from_f64_rounded(n as f64);
    let mut s = v.sum_axis(*axis);
    s.mapv_inplace(|x| x / n);
    s
}

/// `y = x.mean_axis(axis)`: the gradient of `x`, `dy / n` repeated along `axis`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::{array, Axis};
/// let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = tensor::mean_axis_d0(&x, &Axis(1), &array![1.0_f64, 2.0]);
/// assert_eq!(g, array![[0.5, 0.5], [1.0, 1.0]]);
/// ```
pub fn mean_axis_d0<A, G>(a: &A, axis: &Axis, dy: &G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let n = A::Elem::from_f64_rounded(a.view_tensor().len_of(*axis) as f64);
    let scaled = dyn_view(dy).mapv(|g| g / n);
    sum_axis_d0(a, axis, &scaled)
}

/// `x.product()`: the product of every element.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::product(&ndarray::array![2.0_f64, 3.0]), 6.0);
/// ```
#[inline(always)]
pub fn product<A: Tensor + ?Sized>(a: &A) -> A::Elem {
    a.view_tensor().product()
}

/// `y = x.product()`: the gradient of `x`, `dy · Πⱼ≠ᵢ xⱼ` (computed without dividing, so
/// zeros are handled exactly).
///
/// ```
/// let g = autodiff_runtime::ops::tensor::product_d0(&ndarray::array![2.0_f64, 0.0, 5.0], &1.0);
/// assert_eq!(g, ndarray::array![0.0, 10.0, 0.0]);
/// ```
pub fn product_d0<A: Tensor + ?Sized>(a: &A, dy: &A::Elem) -> A::Cotangent {
    let v = a.view_tensor();
    let xs: Vec<A::Elem> = v.iter().copied().collect();
    // prefix and suffix products
    let one = <A::Elem as num_traits::One>::one();
    let mut prefix = Vec::with_capacity(xs.len());
    let mut p = one;
    for &x in &xs {
        prefix.push(p);
        p = p * x;
    }
    let mut g = vec![one; xs.len()];
    let mut s = one;
    for i in (0..xs.len()).rev() {
        g[i] = prefix[i] * s * *dy;
        s = s * xs[i];
    }
    a.cot_from(Array::from_shape_vec(v.raw_dim(), g).expect("autodiff: the operand's shape"))
}

/// `y = x.product()`: the tangent of `y` along `t`, `Σᵢ tᵢ Πⱼ≠ᵢ xⱼ` (one forward pass of
/// the product and its tangent, so zeros are handled exactly, as the gradient does).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::product_t(&array![2.0_f64, 0.0, 5.0], &array![1.0, 1.0, 1.0]), 10.0);
/// ```
pub fn product_t<A, T>(a: &A, t: &T) -> A::Elem
where
    A: Tensor + ?Sized,
    T: Tensor<Elem = A::Elem> + ?Sized,
{
    let (one, zero) = (
        <A::Elem as num_traits::One>::one(),
        <A::Elem as num_traits::Zero>::zero(),
    );
    let (_, dp) = (a.view_tensor().iter())
        .zip(t.view_tensor().iter())
        .fold((one, zero), |(p, dp), (&x, &dx)| (p * x, dp * x + p * dx));
    dp
}

/// `x.var(ddof)`: the variance of every element, with `ddof` degrees of freedom removed.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::var(&ndarray::array![1.0_f64, 3.0], &0.0), 1.0);
/// ```
pub fn var<A: Tensor + ?Sized>(a: &A, ddof: &A::Elem) -> A::Elem {
    let v = a.view_tensor();
    let n = A::Elem::from_f64_rounded(v.len() as f64);
    assert!(
        *ddof < n,
        "autodiff: `var` of {} elements with ddof {ddof}",
        v.len()
    );
    let mean = v.sum() / n;
    let squares = v.fold(<A::Elem as num_traits::Zero>::zero(), |s, &x| {
        s + (x - mean) * (x - mean)
    });
    squares / (n - *ddof)
}

/// `y = x.var(ddof)`: the gradient of `x`, `dy · 2 (xᵢ − mean) / (n − ddof)`.
///
/// ```
/// let g = autodiff_runtime::ops::tensor::var_d0(&ndarray::array![1.0_f64, 3.0], &0.0, &1.0);
/// assert_eq!(g, ndarray::array![-1.0, 1.0]);
/// ```
pub fn var_d0<A: Tensor + ?Sized>(a: &A, ddof: &A::Elem, dy: &A::Elem) -> A::Cotangent {
    let v = a.view_tensor();
    let n = A::Elem::from_f64_rounded(v.len() as f64);
    let mean = v.sum() / n;
    let k = (*dy + *dy) / (n - *ddof);
    a.cot_from(v.mapv(|x| (x - mean) * k))
}

/// `y = x.var(ddof)`: the tangent of `y` along `t`, `2 Σᵢ (xᵢ − mean) tᵢ / (n − ddof)`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::var_t(&array![1.0_f64, 3.0], &0.0, &array![0.5, 2.0]), 1.5);
/// ```
pub fn var_t<A, T>(a: &A, ddof: &A::Elem, t: &T) -> A::Elem
where
    A: Tensor + ?Sized,
    T: Tensor<Elem = A::Elem> + ?Sized,
{
    let v = a.view_tensor();
    let n = A::Elem::from_f64_rounded(v.len() as f64);
    let mean = v.sum() / n;
    let s = (v.iter())
        .zip(t.view_tensor().iter())
        .fold(<A::Elem as num_traits::Zero>::zero(), |s, (&x, &dx)| {
            s + (x - mean) * dx
        });
    (s + s) / (n - *ddof)
}

/// `y = x.std(ddof)`: the tangent of `y` along `t`, `var`'s divided by `2y`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::std_t(&array![1.0_f64, 3.0], &0.0, &1.0, &array![0.5, 2.0]), 0.75);
/// ```
pub fn std_t<A, T>(a: &A, ddof: &A::Elem, y: &A::Elem, t: &T) -> A::Elem
where
    A: Tensor + ?Sized,
    T: Tensor<Elem = A::Elem> + ?Sized,
{
    let two = A::Elem::from_f64_rounded(2.0);
    var_t(a, ddof, t) / (two * *y)
}

/// `x.std(ddof)`: the standard deviation of every element.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::std(&ndarray::array![1.0_f64, 3.0], &0.0), 1.0);
/// ```
pub fn std<A: Tensor + ?Sized>(a: &A, ddof: &A::Elem) -> A::Elem {
    var(a, ddof).sqrt()
}

/// `y = x.std(ddof)`: the gradient of `x`, `var`'s divided by `2y` (`+∞·0 = NaN` for
/// constant data, as `sqrt` at 0).
///
/// ```
/// let g = autodiff_runtime::ops::tensor::std_d0(&ndarray::array![1.0_f64, 3.0], &0.0, &1.0, &1.0);
/// assert_eq!(g, ndarray::array![-0.5, 0.5]);
/// ```
pub fn std_d0<A: Tensor + ?Sized>(
    a: &A,
    ddof: &A::Elem,
    y: &A::Elem,
    dy: &A::Elem,
) -> A::Cotangent {
    let two = A::Elem::from_f64_rounded(2.0);
    var_d0(a, ddof, &(*dy / (two * *y)))
}
