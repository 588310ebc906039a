//! Operations on values that may be ndarray arrays: arithmetic with broadcasting, `dot`,
//! transposition, reductions, elementwise functions and `mapv`.
//!
//! The macro cannot see types, so code it cannot prove scalar goes through these
//! functions: the forward operations take their operands by reference (an array is read,
//! never moved, so the reverse sweep can still read it), and every rule works for `f32`,
//! `f64`, any `ArrayBase` (owned, view, shared) of any dimension, and references to these.
//! On scalars they compile to the scalar formula.
//!
//! # Broadcasting
//!
//! Arithmetic between arrays broadcasts as ndarray does (NumPy's rules: align trailing
//! axes; an axis of length 1 stretches). The rule of an operand sums the output's
//! cotangent over the axes it was stretched along, so its gradient has its own shape:
//!
//! ```
//! use autodiff_runtime::ops::tensor;
//! use ndarray::array;
//! let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
//! let b = array![10.0_f64, 20.0];
//! let y = tensor::add(&x, &b); // b is added to each row
//! assert_eq!(y, array![[11.0, 22.0], [13.0, 24.0]]);
//! let dy = array![[1.0_f64, 1.0], [1.0, 1.0]];
//! assert_eq!(tensor::add_d1(&b, &dy), array![2.0, 2.0]); // summed over the rows
//! ```
//!
//! Shapes that do not broadcast panic, naming the operation and both shapes.

// One file a family of operations; the traits and helpers they share are in this one.
mod arithmetic;
mod elementwise;
mod elementwise_args;
mod geometry;
mod indexing;
mod linalg;
mod reductions;
mod shape;
mod tangent;

pub use arithmetic::*;
pub use elementwise::*;
pub use elementwise_args::*;
pub use geometry::*;
pub use indexing::*;
pub use linalg::*;
pub use reductions::*;
pub use shape::*;
pub use tangent::*;

use crate::real::Real;
use crate::sealed::Sealed;
use ndarray::{Array, ArrayBase, ArrayD, ArrayView, Axis, CowArray, Data, Dimension, Ix0, IxDyn};

/// A value the tensor operations accept: an `f32`/`f64` scalar, an ndarray array (owned,
/// view or shared, any dimension), or a reference to one. The trait is sealed.
///
/// ```
/// use autodiff_runtime::ops::tensor::Tensor;
/// let a = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(a.view_tensor().len(), 2);
/// assert_eq!(2.0_f64.as_scalar(), Some(2.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float or an ndarray array, which this operation serves",
    label = "not a float or an array",
    note = "a method named as an array operation (`sum`, `dot`, `norm`, `mean`, `exp`, …) \
        called on a value of your own type is read as that operation; call your type's \
        method by its path instead: `Type::method(&value, …)`"
)]
pub trait Tensor: Sealed {
    /// The element type.
    type Elem: Real;
    /// The dimension (`Ix0` for a scalar).
    type Dim: Dimension;
    /// The type of a gradient: the scalar itself, or an owned array of the same dimension.
    type Cotangent;
    /// A view of the value (a 0-dimensional one for a scalar).
    fn view_tensor(&self) -> ArrayView<'_, Self::Elem, Self::Dim>;
    /// The value, when it is a scalar.
    fn as_scalar(&self) -> Option<Self::Elem>;
    /// A gradient for this value from the gradient `g` of a result it was broadcast into:
    /// `g` summed over the broadcast axes (an owned `g` of the right shape is reused).
    fn reduce(&self, g: CowArray<'_, Self::Elem, IxDyn>) -> Self::Cotangent;
    /// A gradient of this type from an array of its shape.
    fn cot_from_dyn(g: ArrayD<Self::Elem>) -> Self::Cotangent;
    /// A gradient for this value from a scalar result's gradient.
    fn reduce_scalar(&self, g: Self::Elem) -> Self::Cotangent;
    /// A gradient for this value from an array of exactly its shape.
    fn cot_from(&self, g: Array<Self::Elem, Self::Dim>) -> Self::Cotangent;
    /// What `*` between values of this kind means (elementwise for scalars and ndarray
    /// arrays, the matrix product for nalgebra's matrices, a rotation for a unit
    /// quaternion), so the rules of `*` match the forward operation.
    #[doc(hidden)]
    const PRODUCT: Product = Product::Elementwise;
}

/// What `*` means between two values (see [`Tensor::PRODUCT`]): the rules of `*` follow
/// the kinds of both operands.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    /// Elementwise, broadcasting (scalars, ndarray arrays).
    Elementwise,
    /// The matrix product when both operands are matrices (nalgebra).
    Matrix,
    /// A rotation of the right operand (a unit quaternion, nalgebra).
    Rotation,
}

macro_rules! scalar_tensor {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> Tensor for $t {
            type Elem = $t;
            type Dim = Ix0;
            type Cotangent = $t;
            #[inline(always)]
            fn view_tensor(&self) -> ArrayView<'_, $t, Ix0> {
                ArrayView::from_shape((), core::slice::from_ref(self)).expect("a scalar view")
            }
            #[inline(always)]
            fn as_scalar(&self) -> Option<$t> {
                Some(*self)
            }
            #[inline]
            fn reduce(&self, g: CowArray<'_, $t, IxDyn>) -> $t {
                g.sum()
            }
            #[inline]
            fn cot_from_dyn(g: ArrayD<$t>) -> $t {
                *g.iter().next().expect("autodiff: a scalar gradient")
            }
            #[inline(always)]
            fn reduce_scalar(&self, g: $t) -> $t {
                g
            }
            #[inline(always)]
            fn cot_from(&self, g: Array<$t, Ix0>) -> $t {
                g[()]
            }
        }
    )*};
}

scalar_tensor!([] f32, [] f64, [T: Real] crate::dual::Dual<T>);

impl<F: Real, S: Data<Elem = F>, D: Dimension> Tensor for ArrayBase<S, D> {
    type Elem = F;
    type Dim = D;
    type Cotangent = Array<F, D>;
    #[inline(always)]
    fn view_tensor(&self) -> ArrayView<'_, F, D> {
        self.view()
    }
    #[inline(always)]
    fn as_scalar(&self) -> Option<F> {
        None
    }
    fn reduce(&self, g: CowArray<'_, F, IxDyn>) -> Array<F, D> {
        sum_to_cow(g, self.raw_dim())
    }
    fn cot_from_dyn(g: ArrayD<F>) -> Array<F, D> {
        let ndim = g.ndim();
        g.into_dimensionality::<D>().unwrap_or_else(|_| {
            panic!(
                "autodiff: a gradient with {ndim} axes for an array with {:?}",
                D::NDIM
            )
        })
    }
    fn reduce_scalar(&self, g: F) -> Array<F, D> {
        sum_to(ndarray::arr0(g).into_dyn(), self.raw_dim())
    }
    #[inline(always)]
    fn cot_from(&self, g: Array<F, D>) -> Array<F, D> {
        g
    }
}

impl<T: Tensor + ?Sized> Tensor for &T {
    type Elem = T::Elem;
    type Dim = T::Dim;
    type Cotangent = T::Cotangent;
    const PRODUCT: Product = T::PRODUCT;
    #[inline(always)]
    fn view_tensor(&self) -> ArrayView<'_, T::Elem, T::Dim> {
        (**self).view_tensor()
    }
    #[inline(always)]
    fn as_scalar(&self) -> Option<T::Elem> {
        (**self).as_scalar()
    }
    #[inline(always)]
    fn reduce(&self, g: CowArray<'_, T::Elem, IxDyn>) -> T::Cotangent {
        (**self).reduce(g)
    }
    #[inline(always)]
    fn cot_from_dyn(g: ArrayD<T::Elem>) -> T::Cotangent {
        T::cot_from_dyn(g)
    }
    #[inline(always)]
    fn reduce_scalar(&self, g: T::Elem) -> T::Cotangent {
        (**self).reduce_scalar(g)
    }
    #[inline(always)]
    fn cot_from(&self, g: Array<T::Elem, T::Dim>) -> T::Cotangent {
        (**self).cot_from(g)
    }
}

/// Sums `g` over the axes an array of shape `dim` was broadcast along to reach `g`'s shape
/// (leading axes it lacked, and its axes of length 1), giving an array of shape `dim`.
///
/// ```
/// use ndarray::{array, Ix1};
/// let g = array![[1.0_f64, 2.0], [3.0, 4.0]].into_dyn();
/// let s = autodiff_runtime::ops::tensor::sum_to(g, Ix1(2));
/// assert_eq!(s, array![4.0, 6.0]);
/// ```
pub fn sum_to<F: Real, D: Dimension>(g: ArrayD<F>, dim: D) -> Array<F, D> {
    sum_to_cow(CowArray::from(g), dim)
}

/// [`sum_to`] of a borrowed or owned gradient: an owned one of the right shape is returned
/// as it is, a borrowed one is reduced without copying it first.
fn sum_to_cow<F: Real, D: Dimension>(g: CowArray<'_, F, IxDyn>, dim: D) -> Array<F, D> {
    let target = dim.slice();
    let shape = g.shape();
    if shape != target {
        // `g` must have `target`'s axes last, each of the same length or stretched from 1
        let lead = shape.len().checked_sub(target.len());
        let broadcast = lead.is_some_and(|lead| {
            target
                .iter()
                .zip(&shape[lead..])
                .all(|(&t, &s)| t == s || t == 1)
        });
        assert!(
            broadcast,
            "autodiff: a gradient of shape {shape:?} cannot be reduced to an operand of shape \
            {target:?} (the operand was not broadcast to it)"
        );
        let lead = lead.unwrap_or(0);
        // Sum the stretched axes from the last, so the indices of the others stay valid; the
        // first sum reads the (maybe borrowed) gradient without copying it.
        let mut out: Option<ArrayD<F>> = None;
        for k in (0..shape.len()).rev() {
            let leading = k < lead;
            if !leading && (target[k - lead] != 1 || shape[k] == 1) {
                continue;
            }
            let summed = match &out {
                Some(a) => a.sum_axis(Axis(k)),
                None => g.sum_axis(Axis(k)),
            };
            out = Some(if leading {
                summed
            } else {
                summed.insert_axis(Axis(k))
            });
        }
        let out = out.expect("autodiff: shapes that differ have a stretched axis");
        return out
            .into_dimensionality::<D>()
            .expect("autodiff: same number of axes");
    }
    g.into_owned()
        .into_dimensionality::<D>()
        .expect("autodiff: same number of axes")
}

/// Unwraps references for the forward operations: the value behind any number of `&`.
/// The trait is sealed.
///
/// ```
/// use autodiff_runtime::ops::tensor::Val;
/// let x = 2.0_f64;
/// assert_eq!(*(&&x).val(), 2.0);
/// ```
pub trait Val: Sealed {
    /// The value's type.
    type V: ?Sized;
    /// The value.
    fn val(&self) -> &Self::V;
}

impl Val for f32 {
    type V = f32;
    #[inline(always)]
    fn val(&self) -> &f32 {
        self
    }
}

impl Val for f64 {
    type V = f64;
    #[inline(always)]
    fn val(&self) -> &f64 {
        self
    }
}

impl<T: Real> Val for crate::dual::Dual<T> {
    type V = Self;
    #[inline(always)]
    fn val(&self) -> &Self {
        self
    }
}

impl<S: ndarray::RawData, D> Val for ArrayBase<S, D> {
    type V = Self;
    #[inline(always)]
    fn val(&self) -> &Self {
        self
    }
}

impl<T: Val + ?Sized> Val for &T {
    type V = T::V;
    #[inline(always)]
    fn val(&self) -> &T::V {
        (**self).val()
    }
}

#[inline(always)]
fn dyn_view<T: Tensor + ?Sized>(t: &T) -> ArrayView<'_, T::Elem, IxDyn> {
    t.view_tensor().into_dyn()
}

/// The cotangent a rule receives: borrowed (`&dy`), or owned (`dy`) when this is its last
/// use, so the rule can compute its result in `dy`'s own buffer instead of a new array.
/// The trait is sealed.
///
/// ```
/// use autodiff_runtime::ops::tensor::{self, CotangentArg};
/// let dy = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(tensor::neg_d0(&dy), ndarray::array![-1.0, -2.0]); // borrowed: a new array
/// assert_eq!(tensor::neg_d0(dy), ndarray::array![-1.0, -2.0]); // owned: negated in place
/// assert_eq!(3.0_f64.cot_scalar(), Some(3.0));
/// ```
pub trait CotangentArg: Sealed {
    /// The element type.
    type Elem: Real;
    /// The type of a gradient shaped like this cotangent.
    type Cotangent;
    /// The cotangent, when it is a scalar.
    fn cot_scalar(&self) -> Option<Self::Elem>;
    /// A view of the cotangent.
    fn cot_view(&self) -> ArrayView<'_, Self::Elem, IxDyn>;
    /// The cotangent as an owned array: its own buffer when owned, a copy when borrowed.
    fn into_array(self) -> ArrayD<Self::Elem>;
    /// The cotangent, borrowed or owned.
    fn into_cow<'a>(self) -> CowArray<'a, Self::Elem, IxDyn>
    where
        Self: 'a;
    /// A gradient shaped like this cotangent from an array of its shape.
    fn cot_of(g: ArrayD<Self::Elem>) -> Self::Cotangent;
}

impl<T: Tensor + ?Sized> CotangentArg for &T {
    type Elem = T::Elem;
    type Cotangent = T::Cotangent;
    #[inline(always)]
    fn cot_scalar(&self) -> Option<T::Elem> {
        (**self).as_scalar()
    }
    #[inline(always)]
    fn cot_view(&self) -> ArrayView<'_, T::Elem, IxDyn> {
        dyn_view(*self)
    }
    #[inline(always)]
    fn into_array(self) -> ArrayD<T::Elem> {
        dyn_view(self).to_owned()
    }
    #[inline(always)]
    fn into_cow<'a>(self) -> CowArray<'a, T::Elem, IxDyn>
    where
        Self: 'a,
    {
        CowArray::from(dyn_view(self))
    }
    #[inline(always)]
    fn cot_of(g: ArrayD<T::Elem>) -> T::Cotangent {
        T::cot_from_dyn(g)
    }
}

impl<F: Real, D: Dimension> CotangentArg for Array<F, D> {
    type Elem = F;
    type Cotangent = Array<F, D>;
    #[inline(always)]
    fn cot_scalar(&self) -> Option<F> {
        None
    }
    #[inline(always)]
    fn cot_view(&self) -> ArrayView<'_, F, IxDyn> {
        self.view().into_dyn()
    }
    #[inline(always)]
    fn into_array(self) -> ArrayD<F> {
        self.into_dyn()
    }
    #[inline(always)]
    fn into_cow<'a>(self) -> CowArray<'a, F, IxDyn>
    where
        Self: 'a,
    {
        CowArray::from(self.into_dyn())
    }
    #[inline(always)]
    fn cot_of(g: ArrayD<F>) -> Array<F, D> {
        <Array<F, D> as Tensor>::cot_from_dyn(g)
    }
}

macro_rules! scalar_cot_arg {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> CotangentArg for $t {
            type Elem = $t;
            type Cotangent = $t;
            #[inline(always)]
            fn cot_scalar(&self) -> Option<$t> {
                Some(*self)
            }
            #[inline(always)]
            fn cot_view(&self) -> ArrayView<'_, $t, IxDyn> {
                dyn_view(self)
            }
            #[inline(always)]
            fn into_array(self) -> ArrayD<$t> {
                ndarray::arr0(self).into_dyn()
            }
            #[inline(always)]
            fn into_cow<'a>(self) -> CowArray<'a, $t, IxDyn>
            where
                Self: 'a,
            {
                CowArray::from(ndarray::arr0(self).into_dyn())
            }
            #[inline(always)]
            fn cot_of(g: ArrayD<$t>) -> $t {
                <$t as Tensor>::cot_from_dyn(g)
            }
        }
    )*};
}

scalar_cot_arg!([] f32, [] f64, [T: Real] crate::dual::Dual<T>);

fn check_axis(op: &str, axis: Axis, shape: &[usize]) {
    assert!(
        axis.index() < shape.len(),
        "autodiff: `{op}(Axis({}))` of an array of shape {shape:?}: it has only {} axes",
        axis.index(),
        shape.len()
    );
}

fn broadcast_to<'a, F>(
    a: &'a ArrayView<'_, F, IxDyn>,
    shape: &IxDyn,
    what: &str,
) -> ArrayView<'a, F, IxDyn> {
    a.broadcast(shape.clone()).unwrap_or_else(|| {
        panic!(
            "autodiff: {what}, of shape {:?}, does not broadcast to the gradient's shape {:?}",
            a.shape(),
            shape.slice()
        )
    })
}
