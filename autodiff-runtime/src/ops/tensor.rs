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

use crate::real::Real;
use ndarray::{
    Array, ArrayBase, ArrayD, ArrayView, Axis, CowArray, Data, DimMax, Dimension, Ix0, Ix1, Ix2,
    IxDyn, RemoveAxis, Zip,
};
use num_traits::Float;

/// A value the tensor operations accept: an `f32`/`f64` scalar, an ndarray array (owned,
/// view or shared, any dimension), or a reference to one.
///
/// ```
/// use autodiff_runtime::ops::tensor::Tensor;
/// let a = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(a.view_tensor().len(), 2);
/// assert_eq!(2.0_f64.as_scalar(), Some(2.0));
/// ```
pub trait Tensor {
    /// The element type.
    type Elem: Real;
    /// The dimension (`Ix0` for a scalar).
    type Dim: Dimension;
    /// The type of a gradient: the scalar itself, or an owned array of the same dimension.
    type Cot;
    /// A view of the value (a 0-dimensional one for a scalar).
    fn view_tensor(&self) -> ArrayView<'_, Self::Elem, Self::Dim>;
    /// The value, when it is a scalar.
    fn as_scalar(&self) -> Option<Self::Elem>;
    /// A gradient for this value from the gradient `g` of a result it was broadcast into:
    /// `g` summed over the broadcast axes (an owned `g` of the right shape is reused).
    fn reduce(&self, g: CowArray<'_, Self::Elem, IxDyn>) -> Self::Cot;
    /// A gradient of this type from an array of its shape.
    fn cot_from_dyn(g: ArrayD<Self::Elem>) -> Self::Cot;
    /// A gradient for this value from a scalar result's gradient.
    fn reduce_scalar(&self, g: Self::Elem) -> Self::Cot;
    /// A gradient for this value from an array of exactly its shape.
    fn cot_from(&self, g: Array<Self::Elem, Self::Dim>) -> Self::Cot;
}

macro_rules! scalar_tensor {
    ($($t:ty),*) => {$(
        impl Tensor for $t {
            type Elem = $t;
            type Dim = Ix0;
            type Cot = $t;
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
scalar_tensor!(f32, f64);

impl<F: Real, S: Data<Elem = F>, D: Dimension> Tensor for ArrayBase<S, D> {
    type Elem = F;
    type Dim = D;
    type Cot = Array<F, D>;
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
    type Cot = T::Cot;
    #[inline(always)]
    fn view_tensor(&self) -> ArrayView<'_, T::Elem, T::Dim> {
        (**self).view_tensor()
    }
    #[inline(always)]
    fn as_scalar(&self) -> Option<T::Elem> {
        (**self).as_scalar()
    }
    #[inline(always)]
    fn reduce(&self, g: CowArray<'_, T::Elem, IxDyn>) -> T::Cot {
        (**self).reduce(g)
    }
    #[inline(always)]
    fn cot_from_dyn(g: ArrayD<T::Elem>) -> T::Cot {
        T::cot_from_dyn(g)
    }
    #[inline(always)]
    fn reduce_scalar(&self, g: T::Elem) -> T::Cot {
        (**self).reduce_scalar(g)
    }
    #[inline(always)]
    fn cot_from(&self, g: Array<T::Elem, T::Dim>) -> T::Cot {
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
            "autodiff: a gradient of shape {shape:?} cannot be reduced to an operand of shape {target:?} (the operand was not broadcast to it)"
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

/// The shape two operands broadcast to, or a panic naming the operation and both shapes.
fn broadcast_check(op: &str, a: &[usize], b: &[usize]) {
    let n = a.len().max(b.len());
    for k in 0..n {
        let x = if k + a.len() >= n {
            a[k + a.len() - n]
        } else {
            1
        };
        let y = if k + b.len() >= n {
            b[k + b.len() - n]
        } else {
            1
        };
        if x != y && x != 1 && y != 1 {
            panic!("autodiff: `{op}` of arrays of shapes {a:?} and {b:?}: the shapes do not broadcast (axis {k} of the result has lengths {x} and {y})");
        }
    }
}

/// Unwraps references for the forward operations: the value behind any number of `&`.
///
/// ```
/// use autodiff_runtime::ops::tensor::Val;
/// let x = 2.0_f64;
/// assert_eq!(*(&&x).val(), 2.0);
/// ```
pub trait Val {
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

/// The arithmetic operators between scalars and arrays, by reference.
///
/// ```
/// use autodiff_runtime::ops::tensor::Binary;
/// let a = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(Binary::mul(&a, &3.0), ndarray::array![3.0, 6.0]);
/// ```
pub trait Binary<Rhs: ?Sized> {
    /// The result's type.
    type Output;
    /// `self + rhs`.
    fn add(&self, rhs: &Rhs) -> Self::Output;
    /// `self - rhs`.
    fn sub(&self, rhs: &Rhs) -> Self::Output;
    /// `self * rhs`.
    fn mul(&self, rhs: &Rhs) -> Self::Output;
    /// `self / rhs`.
    fn div(&self, rhs: &Rhs) -> Self::Output;
}

impl<T: Real> Binary<T> for T {
    type Output = T;
    #[inline(always)]
    fn add(&self, rhs: &T) -> T {
        *self + *rhs
    }
    #[inline(always)]
    fn sub(&self, rhs: &T) -> T {
        *self - *rhs
    }
    #[inline(always)]
    fn mul(&self, rhs: &T) -> T {
        *self * *rhs
    }
    #[inline(always)]
    fn div(&self, rhs: &T) -> T {
        *self / *rhs
    }
}

macro_rules! scalar_lhs {
    ($($t:ty),*) => {$(
        impl<S: Data<Elem = $t>, D: Dimension> Binary<ArrayBase<S, D>> for $t {
            type Output = Array<$t, D>;
            fn add(&self, rhs: &ArrayBase<S, D>) -> Array<$t, D> {
                rhs.mapv(|v| *self + v)
            }
            fn sub(&self, rhs: &ArrayBase<S, D>) -> Array<$t, D> {
                rhs.mapv(|v| *self - v)
            }
            fn mul(&self, rhs: &ArrayBase<S, D>) -> Array<$t, D> {
                rhs.mapv(|v| *self * v)
            }
            fn div(&self, rhs: &ArrayBase<S, D>) -> Array<$t, D> {
                rhs.mapv(|v| *self / v)
            }
        }
    )*};
}
scalar_lhs!(f32, f64);

impl<F: Real, S: Data<Elem = F>, D: Dimension> Binary<F> for ArrayBase<S, D> {
    type Output = Array<F, D>;
    fn add(&self, rhs: &F) -> Array<F, D> {
        self.mapv(|v| v + *rhs)
    }
    fn sub(&self, rhs: &F) -> Array<F, D> {
        self.mapv(|v| v - *rhs)
    }
    fn mul(&self, rhs: &F) -> Array<F, D> {
        self.mapv(|v| v * *rhs)
    }
    fn div(&self, rhs: &F) -> Array<F, D> {
        self.mapv(|v| v / *rhs)
    }
}

impl<F, S1, S2, D1, D2> Binary<ArrayBase<S2, D2>> for ArrayBase<S1, D1>
where
    F: Real,
    S1: Data<Elem = F>,
    S2: Data<Elem = F>,
    D1: Dimension + DimMax<D2>,
    D2: Dimension,
{
    type Output = Array<F, <D1 as DimMax<D2>>::Output>;
    fn add(&self, rhs: &ArrayBase<S2, D2>) -> Self::Output {
        broadcast_check("+", self.shape(), rhs.shape());
        self + rhs
    }
    fn sub(&self, rhs: &ArrayBase<S2, D2>) -> Self::Output {
        broadcast_check("-", self.shape(), rhs.shape());
        self - rhs
    }
    fn mul(&self, rhs: &ArrayBase<S2, D2>) -> Self::Output {
        broadcast_check("*", self.shape(), rhs.shape());
        self * rhs
    }
    fn div(&self, rhs: &ArrayBase<S2, D2>) -> Self::Output {
        broadcast_check("/", self.shape(), rhs.shape());
        self / rhs
    }
}

macro_rules! forward_binary {
    ($($name:ident: $op:literal),*) => {$(
        #[doc = concat!("`a ", $op, " b` for scalars and arrays (broadcasting), by reference.")]
        ///
        /// ```
        /// use ndarray::array;
        #[doc = concat!("let y = autodiff_runtime::ops::tensor::", stringify!($name), "(&array![[1.0_f64], [2.0]], &array![4.0_f64, 8.0]);")]
        #[doc = concat!("assert_eq!(y, array![[1.0_f64], [2.0]] ", $op, " array![4.0_f64, 8.0]);")]
        /// ```
        #[inline(always)]
        pub fn $name<A, B>(a: &A, b: &B) -> <A::V as Binary<B::V>>::Output
        where
            A: Val + ?Sized,
            B: Val + ?Sized,
            A::V: Binary<B::V>,
        {
            Binary::$name(a.val(), b.val())
        }
    )*};
}
forward_binary!(add: "+", sub: "-", mul: "*", div: "/");

/// A literal as a value of `like`'s element type (`x * 2.0` with `x` an `Array<f32, _>`
/// makes `2.0` an `f32`).
///
/// ```
/// let x = ndarray::array![1.0_f32];
/// let two = autodiff_runtime::ops::tensor::elem_of(&x, 2.0);
/// assert_eq!(two, 2.0_f32);
/// ```
#[inline(always)]
pub fn elem_of<A: Tensor + ?Sized>(_like: &A, value: A::Elem) -> A::Elem {
    value
}

/// `-a` for scalars and arrays, by reference.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::neg(&ndarray::array![1.0_f64]), ndarray::array![-1.0]);
/// ```
#[inline(always)]
pub fn neg<A: Tensor + ?Sized>(a: &A) -> A::Cot {
    match a.as_scalar() {
        Some(s) => a.reduce_scalar(-s),
        None => a.cot_from(a.view_tensor().mapv(|v| -v)),
    }
}

#[inline(always)]
fn dyn_view<T: Tensor + ?Sized>(t: &T) -> ArrayView<'_, T::Elem, IxDyn> {
    t.view_tensor().into_dyn()
}

/// The cotangent a rule receives: borrowed (`&dy`), or owned (`dy`) when this is its last
/// use, so the rule can compute its result in `dy`'s own buffer instead of a new array.
///
/// ```
/// use autodiff_runtime::ops::tensor::{self, CotArg};
/// let dy = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(tensor::neg_d0(&dy), ndarray::array![-1.0, -2.0]); // borrowed: a new array
/// assert_eq!(tensor::neg_d0(dy), ndarray::array![-1.0, -2.0]); // owned: negated in place
/// assert_eq!(3.0_f64.cot_scalar(), Some(3.0));
/// ```
pub trait CotArg {
    /// The element type.
    type Elem: Real;
    /// The type of a gradient shaped like this cotangent.
    type Cot;
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
    fn cot_of(g: ArrayD<Self::Elem>) -> Self::Cot;
}

impl<T: Tensor + ?Sized> CotArg for &T {
    type Elem = T::Elem;
    type Cot = T::Cot;
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
    fn cot_of(g: ArrayD<T::Elem>) -> T::Cot {
        T::cot_from_dyn(g)
    }
}

impl<F: Real, D: Dimension> CotArg for Array<F, D> {
    type Elem = F;
    type Cot = Array<F, D>;
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
    ($($t:ty),*) => {$(
        impl CotArg for $t {
            type Elem = $t;
            type Cot = $t;
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
scalar_cot_arg!(f32, f64);

/// `y = a + b`: the gradient of `a` (`dy` summed over the axes `a` was broadcast along).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::add_d0(&1.0_f64, &ndarray::array![1.0_f64, 2.0]), 3.0);
/// ```
#[inline(always)]
pub fn add_d0<A: Tensor + ?Sized, G: CotArg<Elem = A::Elem>>(a: &A, dy: G) -> A::Cot {
    match dy.cot_scalar() {
        Some(g) => a.reduce_scalar(g),
        None => a.reduce(dy.into_cow()),
    }
}

/// `y = a + b`: the gradient of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::add_d1(&2.0_f64, &5.0), 5.0);
/// ```
#[inline(always)]
pub fn add_d1<B: Tensor + ?Sized, G: CotArg<Elem = B::Elem>>(b: &B, dy: G) -> B::Cot {
    add_d0(b, dy)
}

/// `y = a - b`: the gradient of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::sub_d0(&2.0_f64, &5.0), 5.0);
/// ```
#[inline(always)]
pub fn sub_d0<A: Tensor + ?Sized, G: CotArg<Elem = A::Elem>>(a: &A, dy: G) -> A::Cot {
    add_d0(a, dy)
}

/// `y = a - b`: the gradient of `b`, `-dy` reduced to `b`'s shape.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::sub_d1(&2.0_f64, &5.0), -5.0);
/// ```
#[inline(always)]
pub fn sub_d1<B: Tensor + ?Sized, G: CotArg<Elem = B::Elem>>(b: &B, dy: G) -> B::Cot {
    match dy.cot_scalar() {
        Some(g) => b.reduce_scalar(-g),
        None => {
            let mut g = dy.into_array();
            g.mapv_inplace(|v| -v);
            b.reduce(CowArray::from(g))
        }
    }
}

/// `g ← f(g, v)` elementwise in `g`'s buffer, `v` broadcast to `g`'s shape (`what` names
/// `v` in the panic message if it does not broadcast).
fn zip_in_place<F: Real>(
    g: &mut ArrayD<F>,
    v: ArrayView<'_, F, IxDyn>,
    what: &str,
    f: impl Fn(F, F) -> F,
) {
    let shape = g.raw_dim();
    let v = broadcast_to(&v, &shape, what);
    g.zip_mut_with(&v, |g, &v| *g = f(*g, v));
}

/// `y = a * b`: the gradient of `a`, `b · dy` reduced to `a`'s shape.
///
/// ```
/// use ndarray::array;
/// let g = autodiff_runtime::ops::tensor::mul_d0(&2.0_f64, &array![1.0_f64, 3.0], &array![1.0_f64, 1.0]);
/// assert_eq!(g, 4.0);
/// ```
#[inline(always)]
pub fn mul_d0<A, B, G>(a: &A, b: &B, dy: G) -> A::Cot
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotArg<Elem = A::Elem>,
{
    if let (Some(b), Some(g)) = (b.as_scalar(), dy.cot_scalar()) {
        return a.reduce_scalar(b * g);
    }
    if a.as_scalar().is_some() {
        // a scalar times an array: the gradient is a dot product, no temporary array
        let (bv, gv) = (b.view_tensor(), dy.cot_view());
        // both in standard (row-major) order, so the slices pair the same elements
        if let (Some(b), Some(g)) = (bv.as_slice(), gv.as_slice()) {
            if b.len() == g.len() && bv.shape() == gv.shape() {
                let mut s = <A::Elem as num_traits::Zero>::zero();
                for (b, g) in b.iter().zip(g) {
                    s = s + *b * *g;
                }
                return a.reduce_scalar(s);
            }
        }
    }
    let mut g = dy.into_array();
    zip_in_place(&mut g, dyn_view(b), "an operand of `*`", |g, b| g * b);
    a.reduce(CowArray::from(g))
}

/// `y = a * b`: the gradient of `b`, `a · dy` reduced to `b`'s shape.
///
/// ```
/// use ndarray::array;
/// let g = autodiff_runtime::ops::tensor::mul_d1(&2.0_f64, &array![1.0_f64, 3.0], &array![1.0_f64, 1.0]);
/// assert_eq!(g, array![2.0, 2.0]);
/// ```
#[inline(always)]
pub fn mul_d1<A, B, G>(a: &A, b: &B, dy: G) -> B::Cot
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotArg<Elem = A::Elem>,
{
    mul_d0(b, a, dy)
}

/// `y = a / b`: the gradient of `a`, `dy / b` reduced to `a`'s shape.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::div_d0(&1.0_f64, &4.0, &1.0), 0.25);
/// ```
#[inline(always)]
pub fn div_d0<A, B, G>(a: &A, b: &B, dy: G) -> A::Cot
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotArg<Elem = A::Elem>,
{
    if let (Some(b), Some(g)) = (b.as_scalar(), dy.cot_scalar()) {
        return a.reduce_scalar(g / b);
    }
    let mut g = dy.into_array();
    zip_in_place(&mut g, dyn_view(b), "the divisor of `/`", |g, b| g / b);
    a.reduce(CowArray::from(g))
}

/// `y = a / b`: the gradient of `b`, `-dy · y / b` reduced to `b`'s shape.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::div_d1(&4.0_f64, &0.25, &1.0), -0.0625);
/// ```
#[inline(always)]
pub fn div_d1<B, Y, G>(b: &B, y: &Y, dy: G) -> B::Cot
where
    B: Tensor + ?Sized,
    Y: Tensor<Elem = B::Elem> + ?Sized,
    G: CotArg<Elem = B::Elem>,
{
    if let (Some(bs), Some(ys), Some(g)) = (b.as_scalar(), y.as_scalar(), dy.cot_scalar()) {
        return b.reduce_scalar(-(g * ys) / bs);
    }
    let mut g = dy.into_array();
    zip_in_place(&mut g, dyn_view(y), "the result of `/`", |g, y| g * y);
    zip_in_place(&mut g, dyn_view(b), "the divisor of `/`", |g, b| -g / b);
    b.reduce(CowArray::from(g))
}

/// `y = -a`: the gradient of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::neg_d0(&2.0_f64), -2.0);
/// ```
#[inline(always)]
pub fn neg_d0<G: CotArg>(dy: G) -> G::Cot {
    match dy.cot_scalar() {
        Some(g) => G::cot_of(ndarray::arr0(-g).into_dyn()),
        None => {
            let mut g = dy.into_array();
            g.mapv_inplace(|v| -v);
            G::cot_of(g)
        }
    }
}

/// An elementwise rule applied to arrays: `f(u, dy)` at every element, where `u` is the
/// input or output the scalar rule reads; a gradient of `u`'s shape (in `dy`'s buffer when
/// it is owned).
#[inline(always)]
fn lift<U, G>(u: &U, dy: G, f: impl Fn(U::Elem, U::Elem) -> U::Elem) -> U::Cot
where
    U: Tensor + ?Sized,
    G: CotArg<Elem = U::Elem>,
{
    if let (Some(u0), Some(g)) = (u.as_scalar(), dy.cot_scalar()) {
        return u.reduce_scalar(f(u0, g));
    }
    let uv = dyn_view(u);
    let mut g = dy.into_array();
    assert_eq!(
        uv.shape(),
        g.shape(),
        "autodiff: an elementwise function's gradient has shape {:?}, its operand {:?}",
        g.shape(),
        uv.shape()
    );
    Zip::from(&mut g).and(&uv).for_each(|g, &u| *g = f(u, *g));
    U::cot_from_dyn(g)
}

macro_rules! lift_unary {
    ($($name:ident at $at:literal),* $(,)?) => {$(
        #[doc = concat!("The elementwise [`", stringify!($name), "`](super::", stringify!($name), ") for arrays (and scalars): reads the same value, elementwise.")]
        ///
        /// ```
        #[doc = concat!("let s = autodiff_runtime::ops::", stringify!($name), "(&", stringify!($at), "_f64, &2.0);")]
        #[doc = concat!("let a = autodiff_runtime::ops::tensor::", stringify!($name), "(&ndarray::array![", stringify!($at), "_f64], &ndarray::array![2.0_f64]);")]
        /// assert_eq!(a[0], s);
        /// ```
        #[inline(always)]
        pub fn $name<U, G>(u: &U, dy: G) -> U::Cot
        where
            U: Tensor + ?Sized,
            G: CotArg<Elem = U::Elem>,
        {
            lift(u, dy, |u, g| super::$name(&u, &g))
        }
    )*};
}

lift_unary!(
    sin_d0 at 0.5, cos_d0 at 0.5, tan_d0 at 0.5, asin_d0 at 0.5, acos_d0 at 0.5, atan_d0 at 0.5,
    sinh_d0 at 0.5, cosh_d0 at 0.5, tanh_d0 at 0.5, asinh_d0 at 0.5, acosh_d0 at 1.5,
    atanh_d0 at 0.5, exp_d0 at 0.5, exp2_d0 at 0.5, exp_m1_d0 at 0.5, ln_d0 at 0.5,
    ln_1p_d0 at 0.5, log2_d0 at 0.5, log10_d0 at 0.5, sqrt_d0 at 0.5, cbrt_d0 at 0.5,
    abs_d0 at 0.5, recip_d0 at 0.5,
);

macro_rules! lift_linear {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("The elementwise [`", stringify!($name), "`](super::", stringify!($name), ") for arrays (and scalars).")]
        ///
        /// ```
        #[doc = concat!("let s = autodiff_runtime::ops::", stringify!($name), "(&2.0_f64);")]
        #[doc = concat!("let a = autodiff_runtime::ops::tensor::", stringify!($name), "(&ndarray::array![2.0_f64]);")]
        /// assert_eq!(a[0], s);
        /// ```
        #[inline(always)]
        pub fn $name<G: CotArg>(dy: G) -> G::Cot {
            match dy.cot_scalar() {
                Some(g) => G::cot_of(ndarray::arr0(super::$name(&g)).into_dyn()),
                None => {
                    let mut g = dy.into_array();
                    g.mapv_inplace(|g| super::$name(&g));
                    G::cot_of(g)
                }
            }
        }
    )*};
}

lift_linear!(to_degrees_d0, to_radians_d0, fract_d0);

/// `y = x.powi(n)` elementwise: the gradient of `x`.
///
/// ```
/// let g = autodiff_runtime::ops::tensor::powi_d0(&ndarray::array![3.0_f64], &2, &ndarray::array![1.0_f64]);
/// assert_eq!(g[0], 6.0);
/// ```
#[inline(always)]
pub fn powi_d0<U, G>(x: &U, n: &i32, dy: G) -> U::Cot
where
    U: Tensor + ?Sized,
    G: CotArg<Elem = U::Elem>,
{
    lift(x, dy, |x, g| super::powi_d0(&x, n, &g))
}

/// `x.mapv(f)` for scalars and arrays, by reference.
///
/// ```
/// let y = autodiff_runtime::ops::tensor::mapv(&ndarray::array![0.0_f64, 1.0], &|v: f64| v * 2.0);
/// assert_eq!(y, ndarray::array![0.0, 2.0]);
/// ```
#[inline(always)]
pub fn mapv<A: Tensor + ?Sized, Fun: Fn(A::Elem) -> A::Elem>(
    a: &A,
    f: &Fun,
) -> Array<A::Elem, A::Dim> {
    a.view_tensor().mapv(f)
}

/// `y = x.mapv(f)`: the gradient of `x`, `rule(x, y, dy)` at every element, where `rule`
/// is `f`'s scalar rule.
///
/// ```
/// use ndarray::array;
/// let x = array![0.5_f64, 1.0];
/// let y = x.mapv(f64::tanh);
/// let g = autodiff_runtime::ops::tensor::mapv_d0(&x, &y, &|_x, y, dy| autodiff_runtime::ops::tanh_d0(&y, &dy), &array![1.0, 1.0]);
/// assert_eq!(g[0], 1.0 - y[0] * y[0]);
/// ```
#[inline(always)]
pub fn mapv_d0<X, Y, G, R>(x: &X, y: &Y, rule: &R, dy: G) -> X::Cot
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: CotArg<Elem = X::Elem>,
    R: Fn(X::Elem, X::Elem, X::Elem) -> X::Elem,
{
    if let (Some(x0), Some(y0), Some(g)) = (x.as_scalar(), y.as_scalar(), dy.cot_scalar()) {
        return x.reduce_scalar(rule(x0, y0, g));
    }
    let (xv, yv) = (dyn_view(x), dyn_view(y));
    let mut g = dy.into_array();
    assert!(
        xv.shape() == g.shape() && yv.shape() == g.shape(),
        "autodiff: `mapv` of shape {:?} with a gradient of shape {:?}",
        xv.shape(),
        g.shape()
    );
    Zip::from(&mut g)
        .and(&xv)
        .and(&yv)
        .for_each(|g, &x, &y| *g = rule(x, y, *g));
    X::cot_from_dyn(g)
}

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
/// assert_eq!(autodiff_runtime::ops::tensor::sum_d0(&ndarray::array![1.0_f64, 2.0], &3.0), ndarray::array![3.0, 3.0]);
/// ```
#[inline(always)]
pub fn sum_d0<A: Tensor + ?Sized>(a: &A, dy: &A::Elem) -> A::Cot {
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
    v.sum() / A::Elem::from_f64(v.len() as f64)
}

/// `y = x.mean()`: the gradient of `x`, `dy / n` everywhere.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::mean_d0(&ndarray::array![1.0_f64, 2.0], &1.0), ndarray::array![0.5, 0.5]);
/// ```
#[inline(always)]
pub fn mean_d0<A: Tensor + ?Sized>(a: &A, dy: &A::Elem) -> A::Cot {
    let n = A::Elem::from_f64(a.view_tensor().len() as f64);
    sum_d0(a, &(*dy / n))
}

/// `x.sum_axis(axis)`.
///
/// ```
/// use ndarray::{array, Axis};
/// assert_eq!(autodiff_runtime::ops::tensor::sum_axis(&array![[1.0_f64, 2.0], [3.0, 4.0]], &Axis(0)), array![4.0, 6.0]);
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

fn check_axis(op: &str, axis: Axis, shape: &[usize]) {
    assert!(
        axis.index() < shape.len(),
        "autodiff: `{op}(Axis({}))` of an array of shape {shape:?}: it has only {} axes",
        axis.index(),
        shape.len()
    );
}

/// `y = x.sum_axis(axis)`: the gradient of `x`, `dy` repeated along `axis`.
///
/// ```
/// use ndarray::{array, Axis};
/// let g = autodiff_runtime::ops::tensor::sum_axis_d0(&array![[1.0_f64, 2.0], [3.0, 4.0]], &Axis(0), &array![1.0_f64, 2.0]);
/// assert_eq!(g, array![[1.0, 2.0], [1.0, 2.0]]);
/// ```
pub fn sum_axis_d0<A, G>(a: &A, axis: &Axis, dy: &G) -> A::Cot
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
/// use ndarray::{array, Axis};
/// assert_eq!(autodiff_runtime::ops::tensor::mean_axis(&array![[1.0_f64, 2.0], [3.0, 4.0]], &Axis(1)), array![1.5, 3.5]);
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
    let n = A::Elem::from_f64(n as f64);
    let mut s = v.sum_axis(*axis);
    s.mapv_inplace(|x| x / n);
    s
}

/// `y = x.mean_axis(axis)`: the gradient of `x`, `dy / n` repeated along `axis`.
///
/// ```
/// use ndarray::{array, Axis};
/// let g = autodiff_runtime::ops::tensor::mean_axis_d0(&array![[1.0_f64, 2.0], [3.0, 4.0]], &Axis(1), &array![1.0_f64, 2.0]);
/// assert_eq!(g, array![[0.5, 0.5], [1.0, 1.0]]);
/// ```
pub fn mean_axis_d0<A, G>(a: &A, axis: &Axis, dy: &G) -> A::Cot
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let n = A::Elem::from_f64(a.view_tensor().len_of(*axis) as f64);
    let scaled = dyn_view(dy).mapv(|g| g / n);
    sum_axis_d0(a, axis, &scaled)
}

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
pub fn t_d0<G: Tensor + ?Sized>(dy: &G) -> G::Cot {
    dy.cot_from(dy.view_tensor().reversed_axes().to_owned())
}

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
pub fn view_d0<G: Tensor + ?Sized>(dy: &G) -> G::Cot {
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
pub fn to_owned_d0<G: Tensor + ?Sized>(dy: &G) -> G::Cot {
    match dy.as_scalar() {
        Some(g) => dy.reduce_scalar(g),
        None => dy.cot_from(dy.view_tensor().to_owned()),
    }
}

/// The matrix and vector products `dot` differentiates: by the dimensions of its operands.
pub trait DotDims<E: Dimension>: Dimension {
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
        a.dot(&b)
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
        a.t().dot(&fixed::<F, Ix1>(dy, "a matrix-vector product"))
    }
}

impl DotDims<Ix2> for Ix1 {
    type Out<F: Real> = Array<F, Ix1>;
    fn dot<F: Real>(a: ArrayView<'_, F, Ix1>, b: ArrayView<'_, F, Ix2>) -> Array<F, Ix1> {
        a.dot(&b)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, Ix1>,
        b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix1> {
        b.dot(&fixed::<F, Ix1>(dy, "a vector-matrix product"))
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
        a.dot(&b)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, Ix2>,
        b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix2> {
        fixed::<F, Ix2>(dy, "a matrix product").dot(&b.t())
    }
    fn d1<F: Real>(
        a: ArrayView<'_, F, Ix2>,
        _b: ArrayView<'_, F, Ix2>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, Ix2> {
        a.t().dot(&fixed::<F, Ix2>(dy, "a matrix product"))
    }
}

/// `a.dot(&b)`: vector·vector (a scalar), matrix·vector, vector·matrix, matrix·matrix.
///
/// ```
/// use ndarray::array;
/// assert_eq!(autodiff_runtime::ops::tensor::dot(&array![1.0_f64, 2.0], &array![3.0_f64, 4.0]), 11.0);
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
/// use ndarray::array;
/// let g = autodiff_runtime::ops::tensor::dot_d0(&array![[1.0_f64, 2.0]], &array![[3.0_f64], [4.0]], &array![[1.0_f64]]);
/// assert_eq!(g, array![[3.0, 4.0]]);
/// ```
#[inline(always)]
pub fn dot_d0<A, B, G>(a: &A, b: &B, dy: &G) -> A::Cot
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
/// use ndarray::array;
/// let g = autodiff_runtime::ops::tensor::dot_d1(&array![[1.0_f64, 2.0]], &array![[3.0_f64], [4.0]], &array![[1.0_f64]]);
/// assert_eq!(g, array![[1.0], [2.0]]);
/// ```
#[inline(always)]
pub fn dot_d1<A, B, G>(a: &A, b: &B, dy: &G) -> B::Cot
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

#[inline(always)]
fn map_elem<A: Tensor + ?Sized>(a: &A, f: impl Fn(A::Elem) -> A::Elem) -> A::Cot {
    match a.as_scalar() {
        Some(s) => a.reduce_scalar(f(s)),
        None => a.cot_from(a.view_tensor().mapv(f)),
    }
}

macro_rules! elementwise_fn {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("`x.", stringify!($name), "()` for a scalar, elementwise for an array (by reference).")]
        ///
        /// ```
        #[doc = concat!("let a = autodiff_runtime::ops::tensor::", stringify!($name), "(&ndarray::array![0.5_f64]);")]
        #[doc = concat!("assert_eq!(a[0], 0.5_f64.", stringify!($name), "());")]
        /// ```
        #[inline(always)]
        pub fn $name<A: Tensor + ?Sized>(a: &A) -> A::Cot {
            map_elem(a, |v| v.$name())
        }
    )*};
}

elementwise_fn!(
    sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, atanh, exp, exp2, exp_m1, ln, ln_1p,
    log2, log10, sqrt, cbrt, abs, recip, to_degrees, to_radians, fract,
);

/// `x.acosh()` for a scalar, elementwise for an array (by reference).
///
/// ```
/// let a = autodiff_runtime::ops::tensor::acosh(&ndarray::array![1.5_f64]);
/// assert_eq!(a[0], 1.5_f64.acosh());
/// ```
#[inline(always)]
pub fn acosh<A: Tensor + ?Sized>(a: &A) -> A::Cot {
    map_elem(a, |v| v.acosh())
}

/// `x.powi(n)` for a scalar, elementwise for an array.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::powi(&ndarray::array![3.0_f64], &2)[0], 9.0);
/// ```
#[inline(always)]
pub fn powi<A: Tensor + ?Sized>(a: &A, n: &i32) -> A::Cot {
    map_elem(a, |v| v.powi(*n))
}

macro_rules! empty {
    ($x:ident) => {
        ""
    };
}

macro_rules! elementwise_fn_scalar_args {
    ($($name:ident($($p:ident),*)),* $(,)?) => {$(
        #[doc = concat!("`x.", stringify!($name), "(…)` for a scalar `x`, elementwise for an array `x` (the other arguments are scalars).")]
        ///
        /// ```
        #[doc = concat!("let a = autodiff_runtime::ops::tensor::", stringify!($name), "(&ndarray::array![0.5_f64]", $(", &0.75", empty!($p),)* ");")]
        #[doc = concat!("assert_eq!(a[0], 0.5_f64.", stringify!($name), "(", $("0.75", empty!($p), ",",)* "));")]
        /// ```
        #[inline(always)]
        pub fn $name<A: Tensor + ?Sized>(a: &A, $($p: &A::Elem),*) -> A::Cot {
            map_elem(a, |v| v.$name($(*$p),*))
        }
    )*};
}

elementwise_fn_scalar_args!(
    powf(p),
    log(b),
    atan2(b),
    hypot(b),
    max(b),
    min(b),
    mul_add(b, c)
);

/// `x.clamp(lo, hi)` for a scalar `x`, elementwise for an array `x`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::clamp(&ndarray::array![3.0_f64], &0.0, &1.0)[0], 1.0);
/// ```
#[inline(always)]
pub fn clamp<A: Tensor + ?Sized>(a: &A, lo: &A::Elem, hi: &A::Elem) -> A::Cot {
    assert!(
        *lo <= *hi,
        "autodiff: `clamp` with lower bound {lo} above upper bound {hi}"
    );
    map_elem(a, |v| v.max(*lo).min(*hi))
}

/// `Σᵢ f(uᵢ, vᵢ, dyᵢ)` over elementwise-aligned `u`, `v`, `dy`: the gradient of a scalar
/// argument of an elementwise function.
#[inline(always)]
fn sum_over<U, V, G>(
    u: &U,
    v: &V,
    dy: &G,
    f: impl Fn(U::Elem, U::Elem, U::Elem) -> U::Elem,
) -> U::Elem
where
    U: Tensor + ?Sized,
    V: Tensor<Elem = U::Elem> + ?Sized,
    G: Tensor<Elem = U::Elem> + ?Sized,
{
    if let (Some(u), Some(v), Some(g)) = (u.as_scalar(), v.as_scalar(), dy.as_scalar()) {
        return f(u, v, g);
    }
    let (u, v, g) = (dyn_view(u), dyn_view(v), dyn_view(dy));
    let shape = g.raw_dim();
    let what = "an operand of an elementwise function";
    let (u, v) = (
        broadcast_to(&u, &shape, what),
        broadcast_to(&v, &shape, what),
    );
    let mut s = <U::Elem as num_traits::Zero>::zero();
    Zip::from(&u)
        .and(&v)
        .and(&g)
        .for_each(|&u, &v, &g| s = s + f(u, v, g));
    s
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

/// An elementwise rule of the receiver reading it, a second value of its shape (`y`), and
/// `dy`.
#[inline(always)]
fn lift_with<U, V, G>(
    u: &U,
    v: &V,
    dy: &G,
    f: impl Fn(U::Elem, U::Elem, U::Elem) -> U::Elem,
) -> U::Cot
where
    U: Tensor + ?Sized,
    V: Tensor<Elem = U::Elem> + ?Sized,
    G: Tensor<Elem = U::Elem> + ?Sized,
{
    if let (Some(u0), Some(v0), Some(g)) = (u.as_scalar(), v.as_scalar(), dy.as_scalar()) {
        return u.reduce_scalar(f(u0, v0, g));
    }
    let uv = u.view_tensor();
    let dims = uv.raw_dim();
    let vv = v
        .view_tensor()
        .into_dimensionality::<U::Dim>()
        .expect("autodiff: same dimension");
    let gv = dy
        .view_tensor()
        .into_dimensionality::<U::Dim>()
        .expect("autodiff: same dimension");
    assert!(
        vv.raw_dim() == dims && gv.raw_dim() == dims,
        "autodiff: an elementwise function's values have shapes {:?}, {:?} and {:?}",
        uv.shape(),
        vv.shape(),
        gv.shape()
    );
    u.cot_from(
        Zip::from(&uv)
            .and(&vv)
            .and(&gv)
            .map_collect(|&u, &v, &g| f(u, v, g)),
    )
}

/// `y = x.powf(p)`: the gradient of `x` (elementwise).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::powf_d0(&ndarray::array![2.0_f64], &3.0, &ndarray::array![1.0_f64])[0], 12.0);
/// ```
#[inline(always)]
pub fn powf_d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    p: &X::Elem,
    dy: &G,
) -> X::Cot {
    lift(x, dy, |x, g| super::powf_d0(&x, p, &g))
}

/// `y = x.powf(p)`: the gradient of the scalar `p` (summed over the elements).
///
/// ```
/// let x = ndarray::array![2.0_f64, 3.0];
/// let y = x.mapv(|v| v.powf(2.0));
/// let g = autodiff_runtime::ops::tensor::powf_d1(&x, &y, &ndarray::array![1.0_f64, 1.0]);
/// assert!((g - (4.0 * 2f64.ln() + 9.0 * 3f64.ln())).abs() < 1e-12);
/// ```
#[inline(always)]
pub fn powf_d1<X, Y, G>(x: &X, y: &Y, dy: &G) -> X::Elem
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: Tensor<Elem = X::Elem> + ?Sized,
{
    sum_over(x, y, dy, |x, y, g| super::powf_d1(&x, &y, &g))
}

/// `y = x.log(b)`: the gradient of `x` (elementwise).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::log_d0(&ndarray::array![2.0_f64], &10.0, &ndarray::array![1.0_f64])[0], autodiff_runtime::ops::log_d0(&2.0, &10.0, &1.0));
/// ```
#[inline(always)]
pub fn log_d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    b: &X::Elem,
    dy: &G,
) -> X::Cot {
    lift(x, dy, |x, g| super::log_d0(&x, b, &g))
}

/// `y = x.log(b)`: the gradient of the scalar base `b`.
///
/// ```
/// let y = ndarray::array![2.0_f64.log(10.0)];
/// assert_eq!(autodiff_runtime::ops::tensor::log_d1(&10.0, &y, &ndarray::array![1.0_f64]), autodiff_runtime::ops::log_d1(&10.0, &y[0], &1.0));
/// ```
#[inline(always)]
pub fn log_d1<Y: Tensor + ?Sized, G: Tensor<Elem = Y::Elem> + ?Sized>(
    b: &Y::Elem,
    y: &Y,
    dy: &G,
) -> Y::Elem {
    sum_over(y, y, dy, |_, y, g| super::log_d1(b, &y, &g))
}

macro_rules! receiver_and_scalar_rules {
    ($($d0:ident / $d1:ident),* $(,)?) => {$(
        #[doc = concat!("[`", stringify!($d0), "`](super::", stringify!($d0), ") with an array receiver (elementwise) and a scalar second argument.")]
        ///
        /// ```
        #[doc = concat!("let a = autodiff_runtime::ops::tensor::", stringify!($d0), "(&ndarray::array![0.5_f64], &0.25, &ndarray::array![1.0_f64]);")]
        #[doc = concat!("assert_eq!(a[0], autodiff_runtime::ops::", stringify!($d0), "(&0.5, &0.25, &1.0));")]
        /// ```
        #[inline(always)]
        pub fn $d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(a: &X, b: &X::Elem, dy: &G) -> X::Cot {
            lift(a, dy, |a, g| super::$d0(&a, b, &g))
        }

        #[doc = concat!("[`", stringify!($d1), "`](super::", stringify!($d1), ") for the scalar second argument of an elementwise function (summed over the elements).")]
        ///
        /// ```
        #[doc = concat!("let a = autodiff_runtime::ops::tensor::", stringify!($d1), "(&ndarray::array![0.5_f64], &0.25, &ndarray::array![1.0_f64]);")]
        #[doc = concat!("assert_eq!(a, autodiff_runtime::ops::", stringify!($d1), "(&0.5, &0.25, &1.0));")]
        /// ```
        #[inline(always)]
        pub fn $d1<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(a: &X, b: &X::Elem, dy: &G) -> X::Elem {
            sum_over(a, a, dy, |a, _, g| super::$d1(&a, b, &g))
        }
    )*};
}

receiver_and_scalar_rules!(atan2_d0 / atan2_d1, max_d0 / max_d1, min_d0 / min_d1);

/// `y = a.hypot(b)`: the gradient of `a` (elementwise).
///
/// ```
/// let y = ndarray::array![3.0_f64.hypot(4.0)];
/// assert_eq!(autodiff_runtime::ops::tensor::hypot_d0(&ndarray::array![3.0_f64], &y, &ndarray::array![1.0_f64])[0], 0.6);
/// ```
#[inline(always)]
pub fn hypot_d0<X, Y, G>(a: &X, y: &Y, dy: &G) -> X::Cot
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: Tensor<Elem = X::Elem> + ?Sized,
{
    lift_with(a, y, dy, |a, y, g| super::hypot_d0(&a, &y, &g))
}

/// `y = a.hypot(b)`: the gradient of the scalar `b`.
///
/// ```
/// let y = ndarray::array![3.0_f64.hypot(4.0)];
/// assert_eq!(autodiff_runtime::ops::tensor::hypot_d1(&4.0, &y, &ndarray::array![1.0_f64]), 0.8);
/// ```
#[inline(always)]
pub fn hypot_d1<Y: Tensor + ?Sized, G: Tensor<Elem = Y::Elem> + ?Sized>(
    b: &Y::Elem,
    y: &Y,
    dy: &G,
) -> Y::Elem {
    sum_over(y, y, dy, |_, y, g| super::hypot_d1(b, &y, &g))
}

/// `y = x.clamp(lo, hi)`: the gradient of `x` (elementwise).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::clamp_d0(&ndarray::array![0.5_f64], &0.0, &1.0, &ndarray::array![1.0_f64])[0], 1.0);
/// ```
#[inline(always)]
pub fn clamp_d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    lo: &X::Elem,
    hi: &X::Elem,
    dy: &G,
) -> X::Cot {
    lift(x, dy, |x, g| super::clamp_d0(&x, lo, hi, &g))
}

/// `y = x.clamp(lo, hi)`: the gradient of the scalar `lo`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::clamp_d1(&ndarray::array![-0.5_f64], &0.0, &1.0, &ndarray::array![1.0_f64]), 1.0);
/// ```
#[inline(always)]
pub fn clamp_d1<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    lo: &X::Elem,
    hi: &X::Elem,
    dy: &G,
) -> X::Elem {
    sum_over(x, x, dy, |x, _, g| super::clamp_d1(&x, lo, hi, &g))
}

/// `y = x.clamp(lo, hi)`: the gradient of the scalar `hi`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::clamp_d2(&ndarray::array![1.5_f64], &0.0, &1.0, &ndarray::array![1.0_f64]), 1.0);
/// ```
#[inline(always)]
pub fn clamp_d2<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    lo: &X::Elem,
    hi: &X::Elem,
    dy: &G,
) -> X::Elem {
    sum_over(x, x, dy, |x, _, g| super::clamp_d2(&x, lo, hi, &g))
}

/// `y = a.mul_add(b, c)` (`a·b + c`): the gradient of `a` (elementwise, `b` a scalar).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::mul_add_d0(&2.0_f64, &ndarray::array![1.0_f64, 3.0]), ndarray::array![2.0, 6.0]);
/// ```
#[inline(always)]
pub fn mul_add_d0<G: Tensor + ?Sized>(b: &G::Elem, dy: &G) -> G::Cot {
    map_elem(dy, |g| super::mul_add_d0(b, &g))
}

/// `y = a.mul_add(b, c)`: the gradient of the scalar `b`, `Σ a·dy`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::mul_add_d1(&ndarray::array![1.0_f64, 2.0], &ndarray::array![1.0_f64, 3.0]), 7.0);
/// ```
#[inline(always)]
pub fn mul_add_d1<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    a: &X,
    dy: &G,
) -> X::Elem {
    sum_over(a, a, dy, |a, _, g| super::mul_add_d1(&a, &g))
}

/// `y = a.mul_add(b, c)`: the gradient of the scalar `c`, `Σ dy`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::mul_add_d2(&ndarray::array![1.0_f64, 3.0]), 4.0);
/// ```
#[inline(always)]
pub fn mul_add_d2<G: Tensor + ?Sized>(dy: &G) -> G::Elem {
    sum_over(dy, dy, dy, |_, _, g| super::mul_add_d2(&g))
}

/// `x.slice(info)` (`info` from `s![…]`): a view.
///
/// ```
/// use ndarray::{array, s};
/// let x = array![[1.0_f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::slice(&x, &s![.., 1..]), array![[2.0, 3.0], [5.0, 6.0]]);
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
pub fn slice_d0<A, I, G>(a: &A, info: &I, dy: &G) -> A::Cot
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
pub fn index_axis_d0<A, G>(a: &A, axis: &Axis, i: &usize, dy: &G) -> A::Cot
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
pub fn row_d0<A, G>(a: &A, i: &usize, dy: &G) -> A::Cot
where
    A: Tensor + ?Sized,
    A::Dim: RemoveAxis,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    index_axis_d0(a, &Axis(0), i, dy)
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
pub fn column_d0<A, G>(a: &A, i: &usize, dy: &G) -> A::Cot
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
/// use ndarray::{array, Axis};
/// let x = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// assert_eq!(autodiff_runtime::ops::tensor::select(&x, &Axis(0), &&[1, 1, 0][..]), array![[3.0, 4.0], [3.0, 4.0], [1.0, 2.0]]);
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
/// use ndarray::{array, Axis};
/// let x = array![1.0_f64, 2.0];
/// let g = autodiff_runtime::ops::tensor::select_d0(&x, &Axis(0), &&[1, 1][..], &array![1.0_f64, 2.0]);
/// assert_eq!(g, array![0.0, 3.0]);
/// ```
pub fn select_d0<A, S, G>(a: &A, axis: &Axis, indices: &S, dy: &G) -> A::Cot
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

/// `x.insert_axis(axis)`: a view with a new axis of length 1.
///
/// ```
/// use ndarray::{array, Axis};
/// assert_eq!(autodiff_runtime::ops::tensor::insert_axis(&array![1.0_f64, 2.0], &Axis(0)).shape(), &[1, 2]);
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
/// use ndarray::{array, Axis};
/// let g = autodiff_runtime::ops::tensor::insert_axis_d0(&array![1.0_f64, 2.0], &Axis(0), &array![[3.0_f64, 4.0]]);
/// assert_eq!(g, array![3.0, 4.0]);
/// ```
pub fn insert_axis_d0<A, G>(_a: &A, axis: &Axis, dy: &G) -> A::Cot
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    let g = dyn_view(dy).index_axis_move(*axis, 0).to_owned();
    A::cot_from_dyn(g)
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
pub fn product_d0<A: Tensor + ?Sized>(a: &A, dy: &A::Elem) -> A::Cot {
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

/// `x.var(ddof)`: the variance of every element, with `ddof` degrees of freedom removed.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::var(&ndarray::array![1.0_f64, 3.0], &0.0), 1.0);
/// ```
pub fn var<A: Tensor + ?Sized>(a: &A, ddof: &A::Elem) -> A::Elem {
    let v = a.view_tensor();
    let n = A::Elem::from_f64(v.len() as f64);
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
pub fn var_d0<A: Tensor + ?Sized>(a: &A, ddof: &A::Elem, dy: &A::Elem) -> A::Cot {
    let v = a.view_tensor();
    let n = A::Elem::from_f64(v.len() as f64);
    let mean = v.sum() / n;
    let k = (*dy + *dy) / (n - *ddof);
    a.cot_from(v.mapv(|x| (x - mean) * k))
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
pub fn std_d0<A: Tensor + ?Sized>(a: &A, ddof: &A::Elem, y: &A::Elem, dy: &A::Elem) -> A::Cot {
    let two = A::Elem::from_f64(2.0);
    var_d0(a, ddof, &(*dy / (two * *y)))
}

/// `x.to_shape(shape).unwrap()` / `x.into_shape_with_order(shape).unwrap()`: the elements
/// in row-major order, in a new shape (an owned array).
///
/// ```
/// let y = autodiff_runtime::ops::tensor::reshape(&ndarray::array![1.0_f64, 2.0, 3.0, 4.0], &(2, 2));
/// assert_eq!(y, ndarray::array![[1.0, 2.0], [3.0, 4.0]]);
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
/// let g = autodiff_runtime::ops::tensor::reshape_d0(&ndarray::array![1.0_f64, 2.0], &(1, 2), &ndarray::array![[3.0_f64, 4.0]]);
/// assert_eq!(g, ndarray::array![3.0, 4.0]);
/// ```
pub fn reshape_d0<A, Sh, G>(a: &A, _shape: &Sh, dy: &G) -> A::Cot
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
/// let x = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(autodiff_runtime::ops::tensor::broadcast(&x, &(2, 2)), ndarray::array![[1.0, 2.0], [1.0, 2.0]]);
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
/// let g = autodiff_runtime::ops::tensor::broadcast_d0(&ndarray::array![1.0_f64, 2.0], &(2, 2), &ndarray::array![[1.0_f64, 2.0], [3.0, 4.0]]);
/// assert_eq!(g, ndarray::array![4.0, 6.0]);
/// ```
pub fn broadcast_d0<A, Sh, G>(a: &A, _shape: &Sh, dy: &G) -> A::Cot
where
    A: Tensor + ?Sized,
    G: Tensor<Elem = A::Elem> + ?Sized,
{
    a.reduce(CowArray::from(dyn_view(dy)))
}

/// `ndarray::concatenate(axis, &[a.view(), b.view(), …]).unwrap()`.
///
/// ```
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64]);
/// assert_eq!(autodiff_runtime::ops::tensor::concatenate(&Axis(0), &[a.view(), b.view()]), array![1.0, 2.0, 3.0]);
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
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64]);
/// let g = autodiff_runtime::ops::tensor::concatenate_d(&Axis(0), &[a.view(), b.view()], 1, &array![4.0_f64, 5.0, 6.0]);
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
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64, 4.0]);
/// assert_eq!(autodiff_runtime::ops::tensor::stack(&Axis(0), &[a.view(), b.view()]), array![[1.0, 2.0], [3.0, 4.0]]);
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
/// use ndarray::{array, Axis};
/// let (a, b) = (array![1.0_f64, 2.0], array![3.0_f64, 4.0]);
/// let g = autodiff_runtime::ops::tensor::stack_d(&Axis(0), &[a.view(), b.view()], 1, &array![[5.0_f64, 6.0], [7.0, 8.0]]);
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
pub fn permuted_axes_d0<A, T, G>(_a: &A, axes: &T, dy: &G) -> A::Cot
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

/// `x.map(f)` (the closure takes `&element`) for scalars and arrays, by reference.
///
/// ```
/// let y = autodiff_runtime::ops::tensor::map(&ndarray::array![1.0_f64, 2.0], &|v: &f64| *v * 3.0);
/// assert_eq!(y, ndarray::array![3.0, 6.0]);
/// ```
#[inline(always)]
pub fn map<A: Tensor + ?Sized, Fun: Fn(&A::Elem) -> A::Elem>(
    a: &A,
    f: &Fun,
) -> Array<A::Elem, A::Dim> {
    a.view_tensor().map(f)
}

/// `y = x.map(f)`: the gradient of `x`, as [`mapv_d0`] (the rule gets the element's value).
///
/// ```
/// use ndarray::array;
/// let x = array![0.5_f64];
/// let y = x.map(|v| v.tanh());
/// let g = autodiff_runtime::ops::tensor::map_d0(&x, &y, &|_x, y, dy| autodiff_runtime::ops::tanh_d0(&y, &dy), &array![1.0]);
/// assert_eq!(g[0], 1.0 - y[0] * y[0]);
/// ```
#[inline(always)]
pub fn map_d0<X, Y, G, R>(x: &X, y: &Y, rule: &R, dy: G) -> X::Cot
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: CotArg<Elem = X::Elem>,
    R: Fn(X::Elem, X::Elem, X::Elem) -> X::Elem,
{
    mapv_d0(x, y, rule, dy)
}
