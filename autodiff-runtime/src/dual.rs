//! Dual numbers: the scalar type on which a generic function's generated gradient runs to
//! give Hessian-vector products (`hvp!`, `hessian!`), forward mode over reverse mode.
//!
//! A [`Dual`] carries a value and its tangent along one direction. Every operation computes
//! its tangent with the same rule the reverse sweep uses for its adjoint (a scalar rule is
//! linear in its cotangent, so `ops::sin_d0(&x, &t)` is also the tangent of `x.sin()`):
//! one rule table serves both directions, and the reverse sweep of a function generic over
//! `T: Float`, run on `Dual<f64>`, returns gradients whose tangents are `H·v`.
//!
//! Comparisons, rounding and classification look at the value only, as the primal program
//! does; rounding functions have zero tangents.

use crate::ops;
use crate::real::Real;
use crate::tangent::Differentiable;
use core::cmp::Ordering;
use core::fmt;
use core::num::FpCategory;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};
use ndarray::Array2;
use num_traits::{Float, FloatConst, Num, NumCast, One, ToPrimitive, Zero};

/// A value and its tangent along one direction.
///
/// ```
/// use autodiff_runtime::dual::Dual;
/// use num_traits::Float;
/// let x = Dual::new(0.5_f64, 1.0);
/// let y = (x * x).sin();
/// assert_eq!(y.value, 0.25_f64.sin());
/// assert!((y.tangent - 2.0 * 0.5 * 0.25_f64.cos()).abs() < 1e-15);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub value: T,
    /// The tangent: the derivative of the value along the direction.
    pub tangent: T,
}

impl<T: Real> Dual<T> {
    /// A value and its tangent.
    #[inline(always)]
    pub fn new(value: T, tangent: T) -> Self {
        Dual { value, tangent }
    }

    /// A constant: zero tangent.
    #[inline(always)]
    pub fn constant(value: T) -> Self {
        Dual::new(value, T::zero())
    }

    /// The result of a one-input operation: `value`, and the rule `rule(read, tangent)`.
    #[inline(always)]
    fn unary(self, value: T, rule: fn(&T, &T) -> T, reads_output: bool) -> Self {
        let read = if reads_output { value } else { self.value };
        Dual::new(value, rule(&read, &self.tangent))
    }
}

impl<T: fmt::Display> fmt::Display for Dual<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}ε", self.value, self.tangent)
    }
}

impl<T: PartialEq> PartialEq for Dual<T> {
    /// Compares values (the primal program's comparison).
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: PartialOrd> PartialOrd for Dual<T> {
    /// Compares values (the primal program's comparison).
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

macro_rules! operators_of_f64_code {
    ($($tr:ident $m:ident $assign:ident $assign_m:ident;)*) => {$(
        /// As the operator on the values (code written with references of `f64` runs on
        /// dual numbers).
        impl<T: Real> $tr<Dual<T>> for &Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $m(self, rhs: Dual<T>) -> Dual<T> {
                (*self).$m(rhs)
            }
        }
        /// As the operator on the values.
        impl<'b, T: Real> $tr<&'b Dual<T>> for &Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $m(self, rhs: &'b Dual<T>) -> Dual<T> {
                (*self).$m(*rhs)
            }
        }
        /// As the operator on the values.
        impl<'b, T: Real> $tr<&'b Dual<T>> for Dual<T> {
            type Output = Dual<T>;
            #[inline(always)]
            fn $m(self, rhs: &'b Dual<T>) -> Dual<T> {
                self.$m(*rhs)
            }
        }
        /// As the operator, in place (code written with `+=` runs on dual numbers).
        impl<T: Real> $assign for Dual<T> {
            #[inline(always)]
            fn $assign_m(&mut self, rhs: Self) {
                *self = (*self).$m(rhs);
            }
        }
    )*};
}

operators_of_f64_code! {
    Add add AddAssign add_assign;
    Sub sub SubAssign sub_assign;
    Mul mul MulAssign mul_assign;
    Div div DivAssign div_assign;
    Rem rem RemAssign rem_assign;
}

/// The sum of dual numbers (`iter().sum()` run on dual numbers).
impl<T: Real> core::iter::Sum for Dual<T> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::zero()), |a, b| a + b)
    }
}

/// The sum of dual numbers.
impl<'a, T: Real> core::iter::Sum<&'a Dual<T>> for Dual<T> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::zero()), |a, b| a + *b)
    }
}

/// The product of dual numbers.
impl<T: Real> core::iter::Product for Dual<T> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::one()), |a, b| a * b)
    }
}

/// The product of dual numbers.
impl<'a, T: Real> core::iter::Product<&'a Dual<T>> for Dual<T> {
    fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        iter.fold(Dual::constant(T::one()), |a, b| a * *b)
    }
}

impl<T: Real> Add for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        let t = ops::add_d0(&self.tangent) + ops::add_d1(&b.tangent);
        Dual::new(self.value + b.value, t)
    }
}

impl<T: Real> Sub for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        let t = ops::sub_d0(&self.tangent) + ops::sub_d1(&b.tangent);
        Dual::new(self.value - b.value, t)
    }
}

impl<T: Real> Mul for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        let t = ops::mul_d0(&b.value, &self.tangent) + ops::mul_d1(&self.value, &b.tangent);
        Dual::new(self.value * b.value, t)
    }
}

impl<T: Real> Div for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        let y = self.value / b.value;
        let t = ops::div_d0(&b.value, &self.tangent) + ops::div_d1(&b.value, &y, &b.tangent);
        Dual::new(y, t)
    }
}

impl<T: Real> Rem for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn rem(self, b: Self) -> Self {
        let t = ops::rem_d0(&self.tangent) + ops::rem_d1(&self.value, &b.value, &b.tangent);
        Dual::new(self.value % b.value, t)
    }
}

impl<T: Real> Neg for Dual<T> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Dual::new(-self.value, ops::neg_d0(&self.tangent))
    }
}

impl<T: Real> Zero for Dual<T> {
    fn zero() -> Self {
        Dual::constant(T::zero())
    }
    fn is_zero(&self) -> bool {
        self.value.is_zero()
    }
}

impl<T: Real> One for Dual<T> {
    fn one() -> Self {
        Dual::constant(T::one())
    }
}

impl<T: Real> Num for Dual<T> {
    type FromStrRadixErr = T::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(s, radix).map(Dual::constant)
    }
}

impl<T: Real> ToPrimitive for Dual<T> {
    fn to_i64(&self) -> Option<i64> {
        self.value.to_i64()
    }
    fn to_u64(&self) -> Option<u64> {
        self.value.to_u64()
    }
    fn to_f64(&self) -> Option<f64> {
        self.value.to_f64()
    }
}

impl<T: Real> NumCast for Dual<T> {
    /// A constant.
    fn from<N: ToPrimitive>(n: N) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
}

macro_rules! unary_methods {
    ($($method:ident => $rule:ident reads $what:ident;)*) => {$(
        #[inline(always)]
        fn $method(self) -> Self {
            self.unary(self.value.$method(), ops::$rule, unary_methods!(@reads $what))
        }
    )*};
    (@reads x) => { false };
    (@reads y) => { true };
}

macro_rules! constant_methods {
    ($($method:ident),*) => {$(
        #[inline(always)]
        fn $method() -> Self {
            Dual::constant(T::$method())
        }
    )*};
}

macro_rules! flat_methods {
    ($($method:ident),*) => {$(
        /// Piecewise constant: zero tangent.
        #[inline(always)]
        fn $method(self) -> Self {
            Dual::constant(self.value.$method())
        }
    )*};
}

macro_rules! value_queries {
    ($($method:ident),*) => {$(
        #[inline(always)]
        fn $method(self) -> bool {
            self.value.$method()
        }
    )*};
}

impl<T: Real> Float for Dual<T> {
    constant_methods!(
        nan,
        infinity,
        neg_infinity,
        neg_zero,
        min_value,
        min_positive_value
    );
    constant_methods!(max_value, epsilon);
    value_queries!(is_nan, is_infinite, is_finite, is_normal, is_sign_positive);
    value_queries!(is_sign_negative);
    flat_methods!(floor, ceil, round, trunc, signum);
    unary_methods! {
        sin => sin_d0 reads x;
        cos => cos_d0 reads x;
        tan => tan_d0 reads y;
        asin => asin_d0 reads x;
        acos => acos_d0 reads x;
        atan => atan_d0 reads x;
        sinh => sinh_d0 reads x;
        cosh => cosh_d0 reads x;
        tanh => tanh_d0 reads y;
        asinh => asinh_d0 reads x;
        acosh => acosh_d0 reads x;
        atanh => atanh_d0 reads x;
        exp => exp_d0 reads y;
        exp2 => exp2_d0 reads y;
        exp_m1 => exp_m1_d0 reads y;
        ln => ln_d0 reads x;
        ln_1p => ln_1p_d0 reads x;
        log2 => log2_d0 reads x;
        log10 => log10_d0 reads x;
        sqrt => sqrt_d0 reads y;
        cbrt => cbrt_d0 reads y;
        abs => abs_d0 reads x;
        recip => recip_d0 reads y;
    }

    fn classify(self) -> FpCategory {
        self.value.classify()
    }
    fn fract(self) -> Self {
        Dual::new(self.value.fract(), ops::fract_d0(&self.tangent))
    }
    fn to_degrees(self) -> Self {
        Dual::new(self.value.to_degrees(), ops::to_degrees_d0(&self.tangent))
    }
    fn to_radians(self) -> Self {
        Dual::new(self.value.to_radians(), ops::to_radians_d0(&self.tangent))
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        let t = ops::mul_add_d0(&a.value, &self.tangent)
            + ops::mul_add_d1(&self.value, &a.tangent)
            + ops::mul_add_d2(&b.tangent);
        Dual::new(self.value.mul_add(a.value, b.value), t)
    }
    fn powi(self, n: i32) -> Self {
        let t = ops::powi_d0(&self.value, &n, &self.tangent);
        Dual::new(self.value.powi(n), t)
    }
    fn powf(self, p: Self) -> Self {
        let y = self.value.powf(p.value);
        let t = ops::powf_d0(&self.value, &p.value, &self.tangent)
            + ops::powf_d1(&self.value, &y, &p.tangent);
        Dual::new(y, t)
    }
    fn log(self, base: Self) -> Self {
        let y = self.value.log(base.value);
        let t = ops::log_d0(&self.value, &base.value, &self.tangent)
            + ops::log_d1(&base.value, &y, &base.tangent);
        Dual::new(y, t)
    }
    fn max(self, b: Self) -> Self {
        let t = ops::max_d0(&self.value, &b.value, &self.tangent)
            + ops::max_d1(&self.value, &b.value, &b.tangent);
        Dual::new(self.value.max(b.value), t)
    }
    fn min(self, b: Self) -> Self {
        let t = ops::min_d0(&self.value, &b.value, &self.tangent)
            + ops::min_d1(&self.value, &b.value, &b.tangent);
        Dual::new(self.value.min(b.value), t)
    }
    #[allow(deprecated)]
    fn abs_sub(self, b: Self) -> Self {
        if self.value > b.value {
            self - b
        } else {
            Self::zero()
        }
    }
    fn hypot(self, b: Self) -> Self {
        let y = self.value.hypot(b.value);
        let t =
            ops::hypot_d0(&self.value, &y, &self.tangent) + ops::hypot_d1(&b.value, &y, &b.tangent);
        Dual::new(y, t)
    }
    fn atan2(self, b: Self) -> Self {
        let t = ops::atan2_d0(&self.value, &b.value, &self.tangent)
            + ops::atan2_d1(&self.value, &b.value, &b.tangent);
        Dual::new(self.value.atan2(b.value), t)
    }
    fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        self.value.integer_decode()
    }
}

macro_rules! float_consts {
    ($($name:ident),*) => {$(
        #[inline(always)]
        fn $name() -> Self {
            Dual::constant(T::$name())
        }
    )*};
}

impl<T: Real> FloatConst for Dual<T> {
    float_consts!(
        E,
        FRAC_1_PI,
        FRAC_1_SQRT_2,
        FRAC_2_PI,
        FRAC_2_SQRT_PI,
        FRAC_PI_2
    );
    float_consts!(FRAC_PI_3, FRAC_PI_4, FRAC_PI_6, FRAC_PI_8, LN_10, LN_2, LOG10_E);
    float_consts!(LOG2_E, PI, SQRT_2, TAU, LOG10_2, LOG2_10);
}

impl<T: Real> Differentiable for Dual<T> {
    type Tangent = Self;
    #[inline(always)]
    fn zero_tangent(&self) -> Self {
        Self::zero()
    }
    #[inline(always)]
    fn adjoint_zero(&self) -> Self {
        Dual::constant(T::neg_zero())
    }
    /// The gradient of a slice of dual numbers, in a buffer an earlier product of this
    /// thread gave back (see [`scratch`]) when there is one: no fresh pages to fault in.
    fn zero_tangents(values: &[Self]) -> Vec<Self> {
        let mut v = scratch::take::<Self>();
        v.resize(values.len(), Self::zero());
        v
    }
}

/// Buffers of dual numbers a thread reuses from one Hessian-vector product to the next: the
/// dual arguments and the dual gradient, each as long as a parameter. A fresh buffer of a
/// large parameter costs the kernel's zeroed pages on every call (at 10⁶ elements, most of
/// the product's time); a reused one is already mapped and in cache. A thread keeps at most
/// [`KEEP`] buffers and [`KEEP_BYTES`] bytes of them, the last ones given back; [`clear`]
/// frees them.
///
/// [`KEEP`]: scratch::KEEP
/// [`KEEP_BYTES`]: scratch::KEEP_BYTES
/// [`clear`]: scratch::clear
pub mod scratch {
    use std::any::Any;
    use std::cell::RefCell;

    /// How many buffers a thread keeps.
    pub const KEEP: usize = 4;
    /// How many bytes of buffers a thread keeps (a larger buffer is freed when given back).
    pub const KEEP_BYTES: usize = 256 << 20;

    thread_local! {
        static POOL: RefCell<Vec<(usize, Box<dyn Any>)>> = const { RefCell::new(Vec::new()) };
    }

    /// An empty buffer of `E`s, with the capacity of one given back earlier if there is one.
    ///
    /// ```
    /// use autodiff_runtime::dual::scratch;
    /// scratch::give(vec![1.0_f64; 100]);
    /// let v = scratch::take::<f64>();
    /// assert!(v.is_empty() && v.capacity() >= 100);
    /// ```
    pub fn take<E: 'static>() -> Vec<E> {
        POOL.try_with(|pool| {
            let mut pool = pool.try_borrow_mut().ok()?;
            let i = pool.iter().rposition(|(_, b)| b.is::<Vec<E>>())?;
            pool.swap_remove(i).1.downcast::<Vec<E>>().ok().map(|v| *v)
        })
        .ok()
        .flatten()
        .unwrap_or_default()
    }

    /// Gives a buffer back for a later [`take`] of this thread (emptied): the oldest are
    /// dropped to keep at most [`KEEP`] buffers and [`KEEP_BYTES`] bytes.
    pub fn give<E: 'static>(mut v: Vec<E>) {
        v.clear();
        let bytes = v.capacity() * std::mem::size_of::<E>();
        if bytes == 0 || bytes > KEEP_BYTES {
            return;
        }
        let _ = POOL.try_with(|pool| {
            if let Ok(mut pool) = pool.try_borrow_mut() {
                pool.push((bytes, Box::new(v)));
                while pool.len() > KEEP || pool.iter().map(|(b, _)| b).sum::<usize>() > KEEP_BYTES {
                    pool.remove(0);
                }
            }
        });
    }

    /// Frees the buffers this thread keeps.
    ///
    /// ```
    /// use autodiff_runtime::dual::scratch;
    /// scratch::give(vec![1.0_f64; 100]);
    /// scratch::clear();
    /// assert_eq!(scratch::take::<f64>().capacity(), 0);
    /// ```
    pub fn clear() {
        let _ = POOL.try_with(|pool| {
            if let Ok(mut pool) = pool.try_borrow_mut() {
                pool.clear();
            }
        });
    }
}

impl<T: Real> crate::sealed::Sealed for Dual<T> {}

/// A dual number multiplies and adds to ndarray arrays of them (`&a * x`).
impl<T: Real> ndarray::ScalarOperand for Dual<T> {}

/// The values and the tangents of an array of dual numbers, and whether any tangent is
/// not zero.
fn parts<T: Real>(a: ndarray::ArrayView2<'_, Dual<T>>) -> (Array2<T>, Array2<T>, bool) {
    let values = a.map(|d| d.value);
    let tangents = a.map(|d| d.tangent);
    let moving = tangents.iter().any(|t| *t != T::zero());
    (values, tangents, moving)
}

impl<T: Real> Real for Dual<T> {
    /// `(a + εa')(b + εb') = ab + ε(a'b + ab')`: three products of the parts by their own
    /// kernel (ndarray's optimised one for `f32` and `f64`), two when one operand's tangents
    /// are all zero (a constant), rather than one product of dual numbers element by
    /// element.
    fn matmul(a: ndarray::ArrayView2<'_, Self>, b: ndarray::ArrayView2<'_, Self>) -> Array2<Self> {
        let (av, at, a_moves) = parts(a);
        let (bv, bt, b_moves) = parts(b);
        let values = T::matmul(av.view(), bv.view());
        let tangents = match (a_moves, b_moves) {
            (false, false) => Array2::zeros(values.raw_dim()),
            (true, false) => T::matmul(at.view(), bv.view()),
            (false, true) => T::matmul(av.view(), bt.view()),
            (true, true) => T::matmul(at.view(), bv.view()) + T::matmul(av.view(), bt.view()),
        };
        ndarray::Zip::from(&values)
            .and(&tangents)
            .map_collect(|&v, &t| Dual::new(v, t))
    }
    /// The matrix–vector product as a product with a one-column matrix (see
    /// [`Real::matmul`]).
    fn matvec(
        a: ndarray::ArrayView2<'_, Self>,
        b: ndarray::ArrayView1<'_, Self>,
    ) -> ndarray::Array1<Self> {
        Self::matmul(a, b.insert_axis(ndarray::Axis(1))).remove_axis(ndarray::Axis(1))
    }
    /// A constant.
    fn from_f64_rounded(value: f64) -> Self {
        Dual::constant(T::from_f64_rounded(value))
    }
    /// The value (the tangent is dropped).
    fn to_f64_lossless(self) -> f64 {
        self.value.to_f64_lossless()
    }
    fn is_strong_zero(&self) -> bool {
        self.value.is_strong_zero() && self.tangent.is_strong_zero()
    }
    fn tangent_f64(&self) -> f64 {
        self.tangent.to_f64_lossless()
    }
    fn from_parts(value: f64, tangent: f64) -> Self {
        Dual {
            value: T::from_f64_rounded(value),
            tangent: T::from_f64_rounded(tangent),
        }
    }
}

impl<T: Real> num_traits::FromPrimitive for Dual<T> {
    /// A constant.
    fn from_i64(n: i64) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
    /// A constant.
    fn from_u64(n: u64) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
    /// A constant.
    fn from_f64(n: f64) -> Option<Self> {
        <T as NumCast>::from(n).map(Dual::constant)
    }
}

/// A parameter `hvp!` and `hessian!` can serve: a float `T`, a slice or `Vec` of them
/// (`&[T]`, `&Vec<T>`, `Vec<T>`), a fixed-size array (`[T; N]`, `&[T; N]`), an ndarray
/// array (`Array<T, D>`, `&Array<T, D>`), or a struct generic over its float type with
/// `#[derive(Differentiable)]` (`Mlp<T>`, `&Mlp<T>`; the derive writes its impls).
#[diagnostic::on_unimplemented(
    message = "`hvp!` and `hessian!` do not serve a parameter of type `{Self}`",
    label = "a parameter of this function has this type",
    note = "they serve floats, slices, `Vec`s, fixed-size arrays and ndarray arrays of the float \
        type, and structs generic over it (`struct Mlp<T: Real>`) with `#[derive(Differentiable)]`"
)]
pub trait HvpArg {
    /// The parameter as dual numbers, owned.
    type Duals: Differentiable;
    /// A vector of the parameter's shape, owned (what `hessian!` hands `hvp` per column).
    type Owned;
    /// The product `H·v` for this parameter: the type of its gradient.
    type Out;
    /// The Hessian: a float for a float, an `n × n` array for `n` elements.
    type Hessian;
    /// The parameter's values with `v` as their tangents, or zero tangents without `v`
    /// (a parameter `hvp!(f, params = [...])` does not select, or a constant).
    fn duals(&self, v: Option<&Self>) -> Self::Duals;
    /// The Hessian, one column per unit vector `e_i` from `hvp(e_i)`.
    fn hessian(&self, hvp: impl FnMut(Self::Owned) -> Self::Out) -> Self::Hessian;
    /// The product out of the parameter's gradient computed on dual numbers: its tangents.
    fn product(g: <Self::Duals as Differentiable>::Tangent) -> Self::Out;
    /// Gives the dual argument back once the sweep is done (a buffer for the thread's next
    /// product, see [`scratch`]; nothing for the others).
    #[inline(always)]
    fn recycle(duals: Self::Duals) {
        drop(duals);
    }
}

impl<T: Real> HvpArg for T {
    type Duals = Dual<T>;
    type Owned = T;
    type Out = T;
    type Hessian = T;
    #[inline(always)]
    fn duals(&self, v: Option<&T>) -> Dual<T> {
        Dual::new(*self, v.copied().unwrap_or_else(T::zero))
    }
    fn hessian(&self, mut hvp: impl FnMut(T) -> T) -> T {
        hvp(T::one())
    }
    #[inline(always)]
    fn product(g: Dual<T>) -> T {
        g.tangent
    }
}

macro_rules! sequence_arg {
    ($($ty:ty),*) => {$(
        impl<T: Real> HvpArg for $ty {
            type Duals = Vec<Dual<T>>;
            type Owned = Vec<T>;
            type Out = Vec<T>;
            type Hessian = Array2<T>;
            fn duals(&self, v: Option<&Self>) -> Vec<Dual<T>> {
                let mut d = scratch::take::<Dual<T>>();
                match v {
                    Some(v) => d.extend(self.iter().zip(v.iter()).map(|(a, b)| Dual::new(*a, *b))),
                    None => d.extend(self.iter().map(|a| Dual::new(*a, T::zero()))),
                }
                d
            }
            fn hessian(&self, hvp: impl FnMut(Vec<T>) -> Vec<T>) -> Array2<T> {
                let n = self.len();
                let unit = |j| (0..n).map(|i| if i == j { T::one() } else { T::zero() }).collect();
                unit_hessian(n, unit, hvp, |c| c)
            }
            fn product(g: Vec<Dual<T>>) -> Vec<T> {
                tangent_part(g)
            }
            fn recycle(duals: Vec<Dual<T>>) {
                scratch::give(duals);
            }
        }
    )*};
}

sequence_arg!(&[T], &mut [T], &Vec<T>, Vec<T>);

/// The Hessian of `n` elements from products with unit vectors made by `unit(j)`, whose
/// results `column` lists in order.
fn unit_hessian<T: Real, E, O>(
    n: usize,
    mut unit: impl FnMut(usize) -> E,
    mut hvp: impl FnMut(E) -> O,
    column: impl Fn(O) -> Vec<T>,
) -> Array2<T> {
    let mut h = Array2::zeros((n, n));
    for j in 0..n {
        let c = column(hvp(unit(j)));
        for (i, c) in c.into_iter().enumerate() {
            h[[i, j]] = c;
        }
    }
    h
}

macro_rules! fixed_array_arg {
    ($($ty:ty),*) => {$(
        impl<T: Real, const N: usize> HvpArg for $ty {
            type Duals = [Dual<T>; N];
            type Owned = [T; N];
            type Out = [T; N];
            type Hessian = Array2<T>;
            #[inline]
            fn duals(&self, v: Option<&Self>) -> [Dual<T>; N] {
                core::array::from_fn(|i| {
                    Dual::new(self[i], v.map_or_else(T::zero, |v| v[i]))
                })
            }
            fn hessian(&self, hvp: impl FnMut([T; N]) -> [T; N]) -> Array2<T> {
                let unit = |j| core::array::from_fn(|i| if i == j { T::one() } else { T::zero() });
                unit_hessian(N, unit, hvp, |c: [T; N]| c.to_vec())
            }
            #[inline]
            fn product(g: [Dual<T>; N]) -> [T; N] {
                tangent_part(g)
            }
        }
    )*};
}

fixed_array_arg!([T; N], &[T; N]);

macro_rules! ndarray_arg {
    ($($ty:ty),*) => {$(
        impl<T: Real, D: ndarray::Dimension> HvpArg for $ty {
            type Duals = ndarray::Array<Dual<T>, D>;
            type Owned = ndarray::Array<T, D>;
            type Out = ndarray::Array<T, D>;
            type Hessian = Array2<T>;
            fn duals(&self, v: Option<&Self>) -> ndarray::Array<Dual<T>, D> {
                match v {
                    Some(v) => ndarray::Zip::from(&**self)
                        .and(&**v)
                        .map_collect(|a, b| Dual::new(*a, *b)),
                    None => self.map(|a| Dual::new(*a, T::zero())),
                }
            }
            fn hessian(
                &self,
                hvp: impl FnMut(ndarray::Array<T, D>) -> ndarray::Array<T, D>,
            ) -> Array2<T> {
                let shape = self.raw_dim();
                let unit = |j| {
                    let mut e = ndarray::Array::<T, D>::zeros(shape.clone());
                    if let Some(x) = e.iter_mut().nth(j) {
                        *x = T::one();
                    }
                    e
                };
                let column = |c: ndarray::Array<T, D>| c.iter().copied().collect();
                unit_hessian(self.len(), unit, hvp, column)
            }
            fn product(g: ndarray::Array<Dual<T>, D>) -> ndarray::Array<T, D> {
                tangent_part(g)
            }
        }
    )*};
}

ndarray_arg!(ndarray::Array<T, D>, &ndarray::Array<T, D>);

/// The tangent part of a gradient computed on dual numbers: `H·v`.
pub trait TangentPart {
    /// The tangents.
    type Out;
    /// The tangents.
    fn tangent_part(self) -> Self::Out;
}

impl<T: Real> TangentPart for Dual<T> {
    type Out = T;
    #[inline(always)]
    fn tangent_part(self) -> T {
        self.tangent
    }
}

impl<T: Real> TangentPart for Vec<Dual<T>> {
    type Out = Vec<T>;
    fn tangent_part(self) -> Vec<T> {
        let out = self.iter().map(|d| d.tangent).collect();
        scratch::give(self);
        out
    }
}

impl<T: Real, const N: usize> TangentPart for [Dual<T>; N] {
    type Out = [T; N];
    #[inline]
    fn tangent_part(self) -> [T; N] {
        self.map(|d| d.tangent)
    }
}

impl<T: Real, D: ndarray::Dimension> TangentPart for ndarray::Array<Dual<T>, D> {
    type Out = ndarray::Array<T, D>;
    fn tangent_part(self) -> ndarray::Array<T, D> {
        self.map(|d| d.tangent)
    }
}

/// The tangent part of a gradient computed on dual numbers (see [`TangentPart`]).
#[inline(always)]
pub fn tangent_part<G: TangentPart>(g: G) -> G::Out {
    g.tangent_part()
}

/// The seed of the reverse sweep on dual numbers: `1`, tangent `0`.
#[inline(always)]
pub fn seed<T: Real>() -> Dual<T> {
    Dual::new(T::one(), T::zero())
}

/// Slice parameters taken apart: what `hvp!` hands the split sweep of a function generic
/// over its float type (`f::__seeded_split`), for each slice parameter whose sweep only
/// reads elements and its length. The sweep reads element `i` as
/// `Dual::new(x[i], v[i])` from the argument and the vector as they are, and adds only
/// the tangents of the element's adjoints into a gradient of plain floats: no buffer of
/// dual arguments is filled, no dual gradient zeroed, no tangent part copied out. The
/// operations and their order are those of the sweep on a buffer of dual numbers, so the
/// product has the same bits.
///
/// ```
/// use autodiff_runtime::dual::{split, Dual};
/// let (x, v) = ([1.0_f64, 2.0], [0.5, -1.0]);
/// let e: Dual<f64> = split::join(&x, &v, 1);
/// assert_eq!((e.value, e.tangent), (2.0, -1.0));
/// let mut g = split::zeros::<Dual<f64>>(2);
/// split::add_d0(&mut g, 1, &Dual::new(7.0, 3.0));
/// split::store(&mut g, 0, Dual::new(7.0, 4.0));
/// assert_eq!(g, vec![4.0, 3.0]);
/// ```
pub mod split {
    use super::Dual;
    use crate::real::Real;
    use std::borrow::Cow;

    /// A dual number made of two floats, which the split sweep joins and takes apart.
    pub trait Joined: Copy {
        /// The float type of the parts.
        type Part: Copy;
        /// The dual number of a value and its tangent.
        fn join(value: Self::Part, tangent: Self::Part) -> Self;
        /// The tangent.
        fn tangent_of(self) -> Self::Part;
        /// The tangent added to `g` (as the dual gradient's element adds it).
        fn add_tangent_to(self, g: &mut Self::Part);
        /// The zero of the parts.
        fn part_zero() -> Self::Part;
        /// The dual zero.
        fn joined_zero() -> Self;
    }

    impl<T: Real> Joined for Dual<T> {
        type Part = T;
        #[inline(always)]
        fn join(value: T, tangent: T) -> Self {
            Dual::new(value, tangent)
        }
        #[inline(always)]
        fn tangent_of(self) -> T {
            self.tangent
        }
        #[inline(always)]
        fn add_tangent_to(self, g: &mut T) {
            *g = *g + self.tangent;
        }
        #[inline(always)]
        fn part_zero() -> T {
            T::zero()
        }
        #[inline(always)]
        fn joined_zero() -> Self {
            Dual::new(T::zero(), T::zero())
        }
    }

    /// Element `i` of the split parameter: its value and its tangent.
    #[inline(always)]
    #[track_caller]
    pub fn join<D: Joined>(values: &[D::Part], tangents: &[D::Part], i: usize) -> D {
        D::join(values[i], tangents[i])
    }

    /// The gradient's tangents, zero (the dual gradient's zero: `0.0`, as
    /// [`Differentiable::zero_tangents`](crate::tangent::Differentiable::zero_tangents) of
    /// dual numbers gives).
    #[inline]
    pub fn zeros<D: Joined>(len: usize) -> Vec<D::Part> {
        vec![D::part_zero(); len]
    }

    /// The reverse of an element read: the cotangent's tangent added to element `i`.
    #[inline(always)]
    #[track_caller]
    pub fn add_d0<D: Joined>(g: &mut [D::Part], i: usize, dy: &D) {
        dy.add_tangent_to(&mut g[i]);
    }

    /// A carried element's adjoint, complete: its tangent stored at `i`.
    #[inline(always)]
    #[track_caller]
    pub fn store<D: Joined>(g: &mut [D::Part], i: usize, dy: D) {
        g[i] = dy.tangent_of();
    }

    /// The vector `hvp!` was given for a split parameter, or zeros (a parameter
    /// `params = [...]` does not select).
    #[inline]
    pub fn vector<'a, T: Real>(given: Option<&'a [T]>, len: usize) -> Cow<'a, [T]> {
        match given {
            Some(v) => Cow::Borrowed(v),
            None => Cow::Owned(vec![T::zero(); len]),
        }
    }
}

/// A compile-time error, where `hvp!` or `hessian!` is used, when the function cannot be
/// served (not generic over its float type, a method, a parameter type not supported): the
/// same check as `jvp!`'s.
pub use crate::forward::check_supported;

/// A constant read by the generic copy `#[differentiable(second_order)]` writes of a
/// function written with `f64`: an `f64` (or an array or slice of them) becomes the float
/// type `F`, anything else stays as it is.
pub trait Lift<F> {
    /// The constant as the copy reads it.
    type Out;
    /// Converts it.
    fn lift(self) -> Self::Out;
}

impl<F: Real> Lift<F> for f64 {
    type Out = F;
    #[inline(always)]
    fn lift(self) -> F {
        F::from_f64_rounded(self)
    }
}

impl<F: Real> Lift<F> for &f64 {
    type Out = F;
    #[inline(always)]
    fn lift(self) -> F {
        F::from_f64_rounded(*self)
    }
}

impl<F: Real, T: Copy + Lift<F>, const N: usize> Lift<F> for [T; N] {
    type Out = [T::Out; N];
    #[inline(always)]
    fn lift(self) -> Self::Out {
        self.map(Lift::lift)
    }
}

impl<F: Real, T: Copy + Lift<F>, const N: usize> Lift<F> for &[T; N] {
    type Out = [T::Out; N];
    #[inline(always)]
    fn lift(self) -> Self::Out {
        self.map(Lift::lift)
    }
}

impl<F: Real, T: Copy + Lift<F>> Lift<F> for &[T] {
    type Out = Vec<T::Out>;
    fn lift(self) -> Self::Out {
        self.iter().map(|t| t.lift()).collect()
    }
}

macro_rules! lift_as_is {
    ($($t:ty),*) => {$(
        impl<F: Real> Lift<F> for $t {
            type Out = $t;
            #[inline(always)]
            fn lift(self) -> $t {
                self
            }
        }
    )*};
}

lift_as_is!(
    f32,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    &'static str
);

/// [`Lift::lift`] as a function the generated code names with the float type.
///
/// ```
/// use autodiff_runtime::dual::{lift, Dual};
/// const C: [f64; 2] = [0.5, 2.0];
/// let c: [Dual<f64>; 2] = lift::<Dual<f64>, _>(C);
/// assert_eq!(c[1], Dual::constant(2.0));
/// assert_eq!(lift::<Dual<f64>, _>(3_usize), 3);
/// ```
#[inline(always)]
pub fn lift<F, T: Lift<F>>(value: T) -> T::Out {
    value.lift()
}

/// `value as I` in the generic copy `#[differentiable(second_order)]` writes, where the
/// value may be the float type parameter (which `as` cannot convert): a float converts as
/// `as` converts an `f64`, an integer as `as` converts it.
pub trait CastInt<I> {
    /// `self as I`.
    fn cast_int(self) -> I;
}

macro_rules! cast_int {
    ($($i:ty),*) => {
        $(
            impl<F: Real> CastInt<$i> for F {
                #[inline(always)]
                fn cast_int(self) -> $i {
                    self.to_f64_lossless() as $i
                }
            }
        )*
        cast_int!(@from [$($i),*] $($i),*);
    };
    (@from $targets:tt $($s:ty),*) => { $( cast_int!(@pairs $s, $targets); )* };
    (@pairs $s:ty, [$($i:ty),*]) => {$(
        impl CastInt<$i> for $s {
            #[inline(always)]
            #[allow(clippy::cast_lossless, trivial_numeric_casts)]
            fn cast_int(self) -> $i {
                self as $i
            }
        }
    )*};
}

cast_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// [`CastInt::cast_int`] as a function the generated code names with the target type.
///
/// ```
/// use autodiff_runtime::dual::{cast_int, Dual};
/// assert_eq!(cast_int::<usize, _>(Dual::new(2.75_f64, 1.0)), 2);
/// assert_eq!(cast_int::<u8, _>(300_i32), 44);
/// ```
#[inline(always)]
pub fn cast_int<I, T: CastInt<I>>(value: T) -> I {
    value.cast_int()
}
