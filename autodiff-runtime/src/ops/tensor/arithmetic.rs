//! `+ - * /` and negation between scalars and arrays, broadcasting as ndarray does, and
//! their rules: the gradient of an operand is reduced to its own shape.

use super::geometry::{matmul_d0, matmul_d1, rotate_d0, rotate_d1};
use super::{broadcast_to, dyn_view, CotangentArg, Product, Tensor, Val};
use crate::real::Real;
use crate::sealed::Sealed;
use ndarray::{Array, ArrayBase, ArrayD, ArrayView, CowArray, Data, DimMax, Dimension, IxDyn};

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
            panic!(
                "autodiff: `{op}` of arrays of shapes {a:?} and {b:?}: the shapes do not \
                broadcast (axis {k} of the result has lengths {x} and {y})"
            );
        }
    }
}

/// The arithmetic operators between scalars and arrays, by reference. The trait is sealed.
///
/// ```
/// use autodiff_runtime::ops::tensor::Binary;
/// let a = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(Binary::mul(&a, &3.0), ndarray::array![3.0, 6.0]);
/// ```
pub trait Binary<Rhs: ?Sized>: Sealed {
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

impl<F: Real, S: Data<Elem = F>, D: Dimension> Binary<ArrayBase<S, D>> for F {
    type Output = Array<F, D>;
    fn add(&self, rhs: &ArrayBase<S, D>) -> Array<F, D> {
        rhs.mapv(|v| *self + v)
    }
    fn sub(&self, rhs: &ArrayBase<S, D>) -> Array<F, D> {
        rhs.mapv(|v| *self - v)
    }
    fn mul(&self, rhs: &ArrayBase<S, D>) -> Array<F, D> {
        rhs.mapv(|v| *self * v)
    }
    fn div(&self, rhs: &ArrayBase<S, D>) -> Array<F, D> {
        rhs.mapv(|v| *self / v)
    }
}

/// A scalar on the left of an operator, in code generic over its float type: `s * &a` of a
/// scalar `F` and an ndarray array, which ndarray has for the primitive floats only (its
/// impls cannot be generic over the left operand). The attribute's copy of a function
/// written with `f64` (`#[differentiable(second_order)]`) writes `ScalarLeft(s) * &a` where
/// the user wrote `s * &a` with `s` a float; a scalar on the right is a scalar as before.
///
/// ```
/// use autodiff_runtime::ops::tensor::ScalarLeft;
/// let a = ndarray::array![1.0_f64, 2.0];
/// assert_eq!(ScalarLeft(3.0) * &a, ndarray::array![3.0, 6.0]);
/// assert_eq!(ScalarLeft(3.0) - 1.0, 2.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ScalarLeft<F>(pub F);

macro_rules! scalar_left {
    ($($tr:ident $f:ident $op:tt),*) => {$(
        impl<F: Real> core::ops::$tr<F> for ScalarLeft<F> {
            type Output = F;
            #[inline(always)]
            fn $f(self, rhs: F) -> F {
                self.0 $op rhs
            }
        }
        impl<'a, F: Real> core::ops::$tr<&'a F> for ScalarLeft<F> {
            type Output = F;
            #[inline(always)]
            fn $f(self, rhs: &'a F) -> F {
                self.0 $op *rhs
            }
        }
        impl<'a, F: Real, S: Data<Elem = F>, D: Dimension> core::ops::$tr<&'a ArrayBase<S, D>>
            for ScalarLeft<F>
        {
            type Output = Array<F, D>;
            fn $f(self, rhs: &'a ArrayBase<S, D>) -> Array<F, D> {
                rhs.mapv(|v| self.0 $op v)
            }
        }
        impl<F: Real, S: Data<Elem = F>, D: Dimension> core::ops::$tr<ArrayBase<S, D>>
            for ScalarLeft<F>
        {
            type Output = Array<F, D>;
            fn $f(self, rhs: ArrayBase<S, D>) -> Array<F, D> {
                rhs.mapv(|v| self.0 $op v)
            }
        }
    )*};
}

scalar_left!(Add add +, Sub sub -, Mul mul *, Div div /);

// (what the copy took for a scalar may be an array, `m.dot(&v)`, or an integer, `idx[k]`:
// its operators are its own)
macro_rules! forwarded_left {
    ($($tr:ident $f:ident),*) => {$(
        impl<S: ndarray::RawData, D, R> core::ops::$tr<R> for ScalarLeft<ArrayBase<S, D>>
        where
            ArrayBase<S, D>: core::ops::$tr<R>,
        {
            type Output = <ArrayBase<S, D> as core::ops::$tr<R>>::Output;
            #[inline(always)]
            fn $f(self, rhs: R) -> Self::Output {
                core::ops::$tr::$f(self.0, rhs)
            }
        }
        impl<'a, S: ndarray::RawData, D, R> core::ops::$tr<R> for ScalarLeft<&'a ArrayBase<S, D>>
        where
            &'a ArrayBase<S, D>: core::ops::$tr<R>,
        {
            type Output = <&'a ArrayBase<S, D> as core::ops::$tr<R>>::Output;
            #[inline(always)]
            fn $f(self, rhs: R) -> Self::Output {
                core::ops::$tr::$f(self.0, rhs)
            }
        }
        forwarded_left!(@ints $tr $f usize isize u8 u16 u32 u64 i8 i16 i32 i64);
    )*};
    (@ints $tr:ident $f:ident $($t:ty)*) => {$(
        impl<R> core::ops::$tr<R> for ScalarLeft<$t>
        where
            $t: core::ops::$tr<R>,
        {
            type Output = <$t as core::ops::$tr<R>>::Output;
            #[inline(always)]
            fn $f(self, rhs: R) -> Self::Output {
                core::ops::$tr::$f(self.0, rhs)
            }
        }
    )*};
}

forwarded_left!(Add add, Sub sub, Mul mul, Div div);

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
        #[doc = concat!(
            "let y = autodiff_runtime::ops::tensor::", stringify!($name),
            "(&array![[1.0_f64], [2.0]], &array![4.0_f64, 8.0]);"
        )]
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
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::neg(&array![1.0_f64]), array![-1.0]);
/// ```
#[inline(always)]
pub fn neg<A: Tensor + ?Sized>(a: &A) -> A::Cotangent {
    match a.as_scalar() {
        Some(s) => a.reduce_scalar(-s),
        None => a.cot_from(a.view_tensor().mapv(|v| -v)),
    }
}

/// `y = a + b`: the gradient of `a` (`dy` summed over the axes `a` was broadcast along).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::add_d0(&1.0_f64, &array![1.0_f64, 2.0]), 3.0);
/// ```
#[inline(always)]
pub fn add_d0<A: Tensor + ?Sized, G: CotangentArg<Elem = A::Elem>>(a: &A, dy: G) -> A::Cotangent {
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
pub fn add_d1<B: Tensor + ?Sized, G: CotangentArg<Elem = B::Elem>>(b: &B, dy: G) -> B::Cotangent {
    add_d0(b, dy)
}

/// `y = a - b`: the gradient of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::sub_d0(&2.0_f64, &5.0), 5.0);
/// ```
#[inline(always)]
pub fn sub_d0<A: Tensor + ?Sized, G: CotangentArg<Elem = A::Elem>>(a: &A, dy: G) -> A::Cotangent {
    add_d0(a, dy)
}

/// `y = a - b`: the gradient of `b`, `-dy` reduced to `b`'s shape.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::sub_d1(&2.0_f64, &5.0), -5.0);
/// ```
#[inline(always)]
pub fn sub_d1<B: Tensor + ?Sized, G: CotangentArg<Elem = B::Elem>>(b: &B, dy: G) -> B::Cotangent {
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
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let g = tensor::mul_d0(&2.0_f64, &array![1.0_f64, 3.0], &array![1.0_f64, 1.0]);
/// assert_eq!(g, 4.0);
/// ```
#[inline(always)]
pub fn mul_d0<A, B, G>(a: &A, b: &B, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    match (A::PRODUCT, B::PRODUCT) {
        (Product::Matrix, Product::Matrix) => {
            return A::cot_from_dyn(matmul_d0(dyn_view(b), dy.cot_view()));
        }
        (Product::Rotation, Product::Matrix) => {
            return A::cot_from_dyn(rotate_d0(dyn_view(a), dyn_view(b), dy.cot_view()));
        }
        _ => {}
    }
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
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let g = tensor::mul_d1(&2.0_f64, &array![1.0_f64, 3.0], &array![1.0_f64, 1.0]);
/// assert_eq!(g, array![2.0, 2.0]);
/// ```
#[inline(always)]
pub fn mul_d1<A, B, G>(a: &A, b: &B, dy: G) -> B::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    match (A::PRODUCT, B::PRODUCT) {
        (Product::Matrix, Product::Matrix) => {
            B::cot_from_dyn(matmul_d1(dyn_view(a), dy.cot_view()))
        }
        (Product::Rotation, Product::Matrix) => {
            B::cot_from_dyn(rotate_d1(dyn_view(a), dy.cot_view()))
        }
        _ => mul_d0(b, a, dy),
    }
}

/// `y = a / b`: the gradient of `a`, `dy / b` reduced to `a`'s shape.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::div_d0(&1.0_f64, &4.0, &1.0), 0.25);
/// ```
#[inline(always)]
pub fn div_d0<A, B, G>(a: &A, b: &B, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
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
pub fn div_d1<B, Y, G>(b: &B, y: &Y, dy: G) -> B::Cotangent
where
    B: Tensor + ?Sized,
    Y: Tensor<Elem = B::Elem> + ?Sized,
    G: CotangentArg<Elem = B::Elem>,
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
pub fn neg_d0<G: CotangentArg>(dy: G) -> G::Cotangent {
    match dy.cot_scalar() {
        Some(g) => G::cot_of(ndarray::arr0(-g).into_dyn()),
        None => {
            let mut g = dy.into_array();
            g.mapv_inplace(|v| -v);
            G::cot_of(g)
        }
    }
}
