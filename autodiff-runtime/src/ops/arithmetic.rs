//! `+ - * / %`, negation, conversions between float types, indexing and assignment.
//!
//! Each rule takes only the values its formula reads, then the output's cotangent `dy`:
//! what a reverse sweep must keep from its forward sweep is exactly what the rules it runs
//! take (the macro's to-be-recorded table mirrors these signatures).

use crate::real::Real;

/// `y = a + b`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::add_d0(&5.0_f64), 5.0);
/// ```
#[inline(always)]
pub fn add_d0<T: Arith>(dy: &T) -> T {
    T::pass(dy, false)
}

/// `y = a + b`: cotangent of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::add_d1(&5.0_f64), 5.0);
/// ```
#[inline(always)]
pub fn add_d1<T: Arith>(dy: &T) -> T {
    T::pass(dy, false)
}

/// `y = a - b`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::sub_d0(&5.0_f64), 5.0);
/// ```
#[inline(always)]
pub fn sub_d0<T: Arith>(dy: &T) -> T {
    T::pass(dy, false)
}

/// `y = a - b`: cotangent of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::sub_d1(&5.0_f64), -5.0);
/// ```
#[inline(always)]
pub fn sub_d1<T: Arith>(dy: &T) -> T {
    T::pass(dy, true)
}

/// `y = a * b`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_d0(&3.0_f64, &1.0), 3.0);
/// ```
#[inline(always)]
pub fn mul_d0<T: Arith>(b: &T, dy: &T) -> T {
    T::scale(b, dy)
}

/// `y = a * b`: cotangent of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_d1(&2.0_f64, &1.0), 2.0);
/// ```
#[inline(always)]
pub fn mul_d1<T: Arith>(a: &T, dy: &T) -> T {
    T::scale(a, dy)
}

/// `y = a / b`: cotangent of `a`, `dy / b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::div_d0(&4.0_f64, &1.0), 0.25);
/// ```
#[inline(always)]
pub fn div_d0<T: Arith>(b: &T, dy: &T) -> T {
    T::over(b, dy)
}

/// `y = a / b`: cotangent of `b`, `-dy · a / b²`, computed as `-(dy / b) · y`: the quotient
/// `dy / b` is `a`'s cotangent ([`div_d0`]), one division for both.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::div_d1(&4.0_f64, &0.25, &1.0), -0.0625);
/// ```
#[inline(always)]
pub fn div_d1<T: Arith>(b: &T, y: &T, dy: &T) -> T {
    T::quotient_rhs(b, y, dy)
}

/// `y = a % b` (`a - b·trunc(a/b)`): cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::rem_d0(&1.0_f64), 1.0);
/// ```
#[inline(always)]
pub fn rem_d0<T: Arith>(dy: &T) -> T {
    T::pass(dy, false)
}

/// `y = a % b`: cotangent of `b`, `-dy · trunc(a / b)`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::rem_d1(&7.5_f64, &2.0, &1.0), -3.0);
/// ```
#[inline(always)]
pub fn rem_d1<T: Arith>(a: &T, b: &T, dy: &T) -> T {
    T::rem_rhs(a, b, dy)
}

/// `y = -a`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::neg_d0(&1.5_f64), -1.5);
/// ```
#[inline(always)]
pub fn neg_d0<T: Arith>(dy: &T) -> T {
    T::pass(dy, true)
}

/// `y = a` (a copy, a move, or a `let` binding): cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::identity_d0(&2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn identity_d0<T: Clone>(dy: &T) -> T {
    dy.clone()
}

/// `y = a as B` between float types: cotangent of `a`, `dy` converted back.
///
/// ```
/// let d: f32 = autodiff_runtime::ops::cast_d0(&0.5_f64);
/// assert_eq!(d, 0.5_f32);
/// ```
#[inline(always)]
pub fn cast_d0<A: Real, B: Real>(dy: &B) -> A {
    A::from_f64_rounded(dy.to_f64_lossless())
}

/// `a as T` (or `T::from(a).unwrap()`) for a float type parameter `T` of generic code,
/// where `as` cannot name it: `a` (a float or an integer) converted through `f64`, as
/// `as` rounds; not-a-number for a value `f64` cannot hold.
///
/// ```
/// let y: f32 = autodiff_runtime::ops::cast_to(3_usize);
/// assert_eq!(y, 3.0);
/// let z: f64 = autodiff_runtime::ops::cast_to(0.25_f32);
/// assert_eq!(z, 0.25);
/// ```
#[inline(always)]
pub fn cast_to<T: Real, A: CastSource>(a: A) -> T {
    let (value, tangent) = a.cast_parts();
    T::from_parts(value, tangent)
}

/// A value a float cast converts: a float (with the tangent a dual number carries, so
/// second-order derivatives go through casts) or an integer.
pub trait CastSource {
    /// The value and its tangent, as `f64`s.
    fn cast_parts(&self) -> (f64, f64);
}

impl<T: Real> CastSource for T {
    #[inline(always)]
    fn cast_parts(&self) -> (f64, f64) {
        (self.to_f64_lossless(), self.tangent_f64())
    }
}

/// Accumulates the negation of a contribution: `into = into − contribution` (what
/// `into + (−contribution)` is, exactly). Generated code keeps an adjoint reached through
/// a subtraction or a negation with its sign pending, and subtracts it where it lands.
///
/// ```
/// let mut d = 1.5_f64;
/// autodiff_runtime::ops::accumulate_negated(&mut d, 0.5);
/// assert_eq!(d, 1.0);
/// ```
#[inline(always)]
pub fn accumulate_negated<T: Real>(into: &mut T, contribution: T) {
    *into = *into - contribution;
}

/// One of a scalar adjoint's type: the seed of a statement's preaccumulated partials
/// (generated code combines the partials of a cell's update with respect to its old value,
/// read more than once, before the cotangent meets them: `y -= h * a * y` gives
/// `dy *= 1 − h·a`).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::one_like(&0.25_f32), 1.0);
/// ```
#[inline(always)]
pub fn one_like<T: Real>(_: &T) -> T {
    T::one()
}

/// Whether a scalar cotangent is exactly zero (a dual number's value and tangent both):
/// a preaccumulated statement then contributes zero without computing its partials (see
/// [`one_like`]).
///
/// ```
/// assert!(autodiff_runtime::ops::zero_cotangent(&-0.0_f64));
/// assert!(!autodiff_runtime::ops::zero_cotangent(&1e-300_f64));
/// ```
#[inline(always)]
pub fn zero_cotangent<T: Real>(dy: &T) -> bool {
    dy.is_strong_zero()
}

/// A preaccumulated partial applied to the cotangent: `partial · dy` (see [`one_like`]).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::scale_by(0.5_f64, &3.0), 1.5);
/// ```
#[inline(always)]
pub fn scale_by<T: Real>(partial: T, dy: &T) -> T {
    partial * *dy
}

/// The zero of a float type, inferred from where it goes (the zeros a collected `Vec` of
/// differentiable values starts from).
///
/// ```
/// let z: f32 = autodiff_runtime::ops::real_zero();
/// assert_eq!(z, 0.0);
/// ```
#[inline(always)]
pub fn real_zero<T: Real>() -> T {
    T::zero()
}

/// `vec![a, b, c]` with differentiable elements, as the lowering writes it: the `Vec` of
/// the array's elements.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::vec_literal([1.0_f64, 2.0]), vec![1.0, 2.0]);
/// ```
#[inline(always)]
pub fn vec_literal<T, const N: usize>(items: [T; N]) -> Vec<T> {
    Vec::from(items)
}

/// A zero of the element type of a slice's cotangent (the registers a fused loop keeps
/// element cotangents in before storing them): a float, or an array of them for a slice of
/// points (`pts: &[[f64; 3]]`).
///
/// ```
/// let dv = vec![1.5_f32, 2.0];
/// let z = autodiff_runtime::ops::element_zero(&dv);
/// assert_eq!(z, 0.0_f32);
/// let dp = vec![[1.0_f64, 2.0, 3.0]];
/// assert_eq!(autodiff_runtime::ops::element_zero(&dp), [0.0; 3]);
/// ```
#[inline(always)]
pub fn element_zero<T: ElementZero, C: AsRef<[T]> + ?Sized>(_: &C) -> T {
    T::element_zero()
}

/// The zero [`element_zero`] makes: a float's, or an array's of them (elementwise).
pub trait ElementZero {
    /// The zero.
    fn element_zero() -> Self;
}

impl<T: Real> ElementZero for T {
    #[inline(always)]
    fn element_zero() -> T {
        T::zero()
    }
}

impl<T: ElementZero, const N: usize> ElementZero for [T; N] {
    #[inline(always)]
    fn element_zero() -> [T; N] {
        core::array::from_fn(|_| T::element_zero())
    }
}

macro_rules! tuple_element_zero {
    ($(($($T:ident),+))*) => {$(
        /// (Tuples of them: a slice of pairs, `&[(f64, f64)]`.)
        impl<$($T: ElementZero),+> ElementZero for ($($T,)+) {
            #[inline(always)]
            fn element_zero() -> Self {
                ($($T::element_zero(),)+)
            }
        }
    )*};
}

tuple_element_zero! { (A) (A, B) (A, B, C) (A, B, C, D) }

/// `y = v[i]`: adds `dy` to element `i` of the cotangent of `v`.
///
/// ```
/// let mut dv = vec![0.0_f64; 3];
/// autodiff_runtime::ops::index_d0(&mut dv, 1, &2.5);
/// assert_eq!(dv, vec![0.0, 2.5, 0.0]);
/// ```
#[inline(always)]
pub fn index_d0<
    T: crate::tangent::Accumulate + Clone,
    I: Copy,
    C: core::ops::IndexMut<I, Output = T> + ?Sized,
>(
    dv: &mut C,
    i: I,
    dy: &T,
) {
    // (an element may itself be an array: a row of a matrix `[[f64; 3]; 3]`)
    dv[i].accumulate(dy.clone());
    // Keeps neighbouring element updates (`g[i + 1]`, then `g[i]`) as separate scalar
    // accesses: merged into one 16-byte access, the next iteration's overlapping load
    // stalls on store-to-load forwarding (measured: Rosenbrock's gradient 2.5× slower).
    // It emits no instruction.
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::Release);
}

/// [`index_d0`] without the fence, for a slice an iteration reads at one index only: no
/// neighbouring update to merge with, and the element may stay in a register across the
/// loop (`d_x[i] += …` in an inner loop over `j`) or the loop be vectorised.
///
/// ```
/// let mut dv = vec![0.0_f64; 3];
/// autodiff_runtime::ops::index_one_d0(&mut dv, 2, &1.5);
/// assert_eq!(dv, vec![0.0, 0.0, 1.5]);
/// ```
#[inline(always)]
pub fn index_one_d0<
    T: crate::tangent::Accumulate + Clone,
    I: Copy,
    C: core::ops::IndexMut<I, Output = T> + ?Sized,
>(
    dv: &mut C,
    i: I,
    dy: &T,
) {
    dv[i].accumulate(dy.clone());
}

/// The reverse of a write `v[i] = y`: the cotangent of element `i` goes to `y` and the
/// element's cotangent becomes zero (the value it had before the write did not reach the
/// output through that element).
///
/// ```
/// let mut dv = vec![1.0_f64, 2.0];
/// assert_eq!(autodiff_runtime::ops::index_take_d0(&mut dv, 1), 2.0);
/// assert_eq!(dv, vec![1.0, 0.0]);
/// ```
#[inline(always)]
pub fn index_take_d0<
    T: crate::tangent::Reset,
    I: Copy,
    C: core::ops::IndexMut<I, Output = T> + ?Sized,
>(
    dv: &mut C,
    i: I,
) -> T {
    dv[i].take_reset()
}

/// `y = v[i]` of a local `Vec` built by `push`: as [`index_d0`], growing the cotangent
/// with zeros if it is shorter (the `Vec` had another length where the reverse sweep
/// started).
///
/// ```
/// let mut dv: Vec<f64> = Vec::new();
/// autodiff_runtime::ops::grown_index_d0(&mut dv, 1, &2.5);
/// assert_eq!(dv, vec![0.0, 2.5]);
/// ```
#[inline]
pub fn grown_index_d0<T: crate::tangent::Accumulate + Clone + Default>(
    dv: &mut Vec<T>,
    i: usize,
    dy: &T,
) {
    if i >= dv.len() {
        dv.resize(i + 1, T::default());
    }
    dv[i].accumulate(dy.clone());
}

/// The reverse of a write `v[i] = y` (or `v.push(y)`) into a local `Vec` built by `push`:
/// as [`index_take_d0`], an element the cotangent does not reach yet having a zero one.
///
/// ```
/// let mut dv = vec![1.0_f64];
/// assert_eq!(autodiff_runtime::ops::grown_index_take_d0(&mut dv, 3), 0.0);
/// assert_eq!(autodiff_runtime::ops::grown_index_take_d0(&mut dv, 0), 1.0);
/// ```
#[inline]
pub fn grown_index_take_d0<T: crate::tangent::Reset + Default>(dv: &mut [T], i: usize) -> T {
    match dv.get_mut(i) {
        Some(d) => d.take_reset(),
        None => T::default(),
    }
}

/// The reverse of the growth of `v.push(y)` (after its write's, [`grown_index_take_d0`]):
/// the cotangent of the local `Vec` shrinks back to `len`, the length before the push.
///
/// ```
/// let mut dv = vec![1.0_f64, 2.0, 0.0];
/// autodiff_runtime::ops::grown_shrink_d0(&mut dv, 2);
/// assert_eq!(dv, vec![1.0, 2.0]);
/// ```
#[inline]
pub fn grown_shrink_d0<T>(dv: &mut Vec<T>, len: usize) {
    dv.truncate(len);
}

/// The reverse of an assignment `v = y`: the cotangent of `v` goes to `y`, and `v`'s
/// becomes zero.
///
/// ```
/// let mut dv = 3.0_f64;
/// assert_eq!(autodiff_runtime::ops::take_d0(&mut dv), 3.0);
/// assert_eq!(dv, 0.0);
/// ```
#[inline(always)]
pub fn take_d0<T: crate::tangent::Reset>(dv: &mut T) -> T {
    dv.take_reset_adjoint()
}

/// A local's adjoint fitted to a value read from it (handed to a callee, `h = layer(&w,
/// &h)`, or added back where the local was read): a `Vec` local whose length changed where
/// it was assigned (layers of different widths) has there the zero adjoint of the value
/// assigned; it becomes the zero adjoint of the value read before. An adjoint that is not
/// zero is left as it is (a length that does not match is then the error it is), and so
/// is anything else. Generated code calls `(&mut Fit(&mut adjoint, &value)).fit()`
/// with [`FitVec`] and [`FitAny`] in scope.
///
/// ```
/// use autodiff_runtime::ops::{Fit, FitAny as _, FitVec as _};
/// let mut adjoint = vec![0.0_f64; 1];
/// let read = vec![0.5, 1.5, 2.5];
/// (&mut Fit(&mut adjoint, &read)).fit();
/// assert_eq!(adjoint, vec![0.0; 3]);
/// let mut scalar = 0.0_f64;
/// (&mut Fit(&mut scalar, &1.0_f64)).fit();
/// ```
pub struct Fit<'a, A, V: ?Sized>(pub &'a mut A, pub &'a V);

/// [`Fit`] of a `Vec` of floats.
pub trait FitVec {
    /// Fits the adjoint.
    fn fit(self);
}

impl<E: crate::Real, V: AsRef<[E]> + ?Sized> FitVec for &mut Fit<'_, Vec<E>, V> {
    #[inline(always)]
    fn fit(self) {
        let n = self.1.as_ref().len();
        // (an empty value is an empty adjoint, which stands for zero: nothing to fit)
        if self.0.len() != n && n > 0 && self.0.iter().all(|d| *d == E::zero()) {
            self.0.clear();
            self.0.resize(n, E::zero());
        }
    }
}

/// [`Fit`] of anything else: nothing to do.
pub trait FitAny {
    /// Leaves the adjoint as it is.
    fn fit(self);
}

impl<A, V: ?Sized> FitAny for &&mut Fit<'_, A, V> {
    #[inline(always)]
    fn fit(self) {}
}

/// The extent of a local's value before an assignment that may change it: a `Vec`'s
/// length (`Some(n)`), else `None`. Generated code calls `(&Extent(&value)).extent()` with
/// [`ExtentVec`] and [`ExtentAny`] in scope, and hands the result to [`Refit`] in the
/// reverse sweep.
///
/// ```
/// use autodiff_runtime::ops::{Extent, ExtentAny as _, ExtentVec as _};
/// assert_eq!((&Extent(&vec![1.0_f64, 2.0])).extent(), Some(2));
/// assert_eq!((&Extent(&1.0_f64)).extent(), None);
/// ```
pub struct Extent<'a, V: ?Sized>(pub &'a V);

/// [`Extent`] of a `Vec`: its length.
pub trait ExtentVec {
    /// `Some(len)`.
    fn extent(self) -> Option<usize>;
}

impl<E> ExtentVec for &Extent<'_, Vec<E>> {
    #[inline(always)]
    fn extent(self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// [`Extent`] of a borrowed slice (a local `let mut a = x;` reassigned another slice,
/// `a = y;`, whose adjoint takes each one's length in turn): its length.
impl<E> ExtentVec for &Extent<'_, &[E]> {
    #[inline(always)]
    fn extent(self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// [`Extent`] of a borrowed `Vec`: its length.
impl<E> ExtentVec for &Extent<'_, &Vec<E>> {
    #[inline(always)]
    fn extent(self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// [`Extent`] of anything else: `None` (its shape is the same whatever is assigned, or its
/// adjoint's rules fit it themselves).
pub trait ExtentAny {
    /// `None`.
    fn extent(self) -> Option<usize>;
}

impl<V: ?Sized> ExtentAny for &&Extent<'_, V> {
    #[inline(always)]
    fn extent(self) -> Option<usize> {
        None
    }
}

/// An adjoint of a `Vec` local given the length of the `Vec` at a point of the reverse
/// sweep: zeros appended, or zeros dropped from its end. The adjoint of a `Vec` whose
/// elements are read by index grows only as far as the reads reach
/// ([`grown_index_d0`]), and the `Vec` may have had another length before `h = value`;
/// so around the write's reverse the adjoint is given the extent of `value` (before the
/// reverse takes it) and then the [`Extent`] `h` had (the one the reads of `h` before the
/// write see). Generated code calls `(&mut Refit(&mut adjoint, extent)).refit()` with
/// [`RefitVec`] and [`RefitAny`] in scope.
///
/// ```
/// use autodiff_runtime::ops::{Refit, RefitAny as _, RefitVec as _};
/// let mut adjoint = vec![0.0_f64; 2];
/// (&mut Refit(&mut adjoint, Some(3))).refit();
/// assert_eq!(adjoint, vec![0.0; 3]);
/// let mut grown = vec![0.0, 1.5];
/// (&mut Refit(&mut grown, Some(4))).refit();
/// assert_eq!(grown, vec![0.0, 1.5, 0.0, 0.0]);
/// (&mut Refit(&mut grown, Some(2))).refit();
/// assert_eq!(grown, vec![0.0, 1.5]);
/// let mut scalar = 0.0_f64;
/// (&mut Refit(&mut scalar, None)).refit();
/// ```
pub struct Refit<'a, A>(pub &'a mut A, pub Option<usize>);

/// [`Refit`] of the adjoint of a `Vec` of floats.
pub trait RefitVec {
    /// Gives the adjoint the extent.
    fn refit(self);
}

impl<E: crate::Real> RefitVec for &mut Refit<'_, Vec<E>> {
    #[inline(always)]
    fn refit(self) {
        if let Some(n) = self.1 {
            if self.0.len() > n {
                assert!(
                    self.0[n..].iter().all(|d| *d == E::zero()),
                    "internal error: an adjoint reached past the end of its `Vec`"
                );
                self.0.truncate(n);
            } else if self.0.len() < n {
                self.0.resize(n, E::zero());
            }
        }
    }
}

/// [`Refit`] of anything else: nothing to do.
pub trait RefitAny {
    /// Leaves the adjoint as it is.
    fn refit(self);
}

impl<A> RefitAny for &&mut Refit<'_, A> {
    #[inline(always)]
    fn refit(self) {}
}

/// The reverse of an assignment of a constant `v = c`: `v`'s cotangent becomes zero.
///
/// ```
/// let mut dv = vec![3.0_f64];
/// autodiff_runtime::ops::reset_d0(&mut dv);
/// assert_eq!(dv, vec![0.0]);
/// ```
#[inline(always)]
pub fn reset_d0<T: crate::tangent::Reset>(dv: &mut T) {
    dv.reset_adjoint();
}

/// `y = a as B` between float types: adds `dy`, converted back to `A`, to the cotangent
/// of `a`. (One function rather than a returned value, so the target type is fixed.)
///
/// ```
/// let mut da = 1.0_f32;
/// autodiff_runtime::ops::cast_accumulate(&mut da, &0.5_f64);
/// assert_eq!(da, 1.5_f32);
/// ```
#[inline(always)]
pub fn cast_accumulate<A: CastTarget, B: Real>(da: &mut A, dy: &B) {
    da.add_cast(dy.to_f64_lossless(), dy.tangent_f64());
}

/// The arithmetic rules for a scalar type: the derivatives for floats, zero for
/// integers (an integer captured by differentiable code may flow through arithmetic;
/// it carries no derivative).
pub trait Arith: Copy {
    /// `y = a + b` or `y = a - b`: `dy` (negated for `b` of `-`).
    fn pass(dy: &Self, negate: bool) -> Self;
    /// `dy · other`.
    fn scale(other: &Self, dy: &Self) -> Self;
    /// `dy / b`.
    fn over(b: &Self, dy: &Self) -> Self;
    /// `-(dy / b) · y`.
    fn quotient_rhs(b: &Self, y: &Self, dy: &Self) -> Self;
    /// `-dy · trunc(a / b)`.
    fn rem_rhs(a: &Self, b: &Self, dy: &Self) -> Self;
}

impl<T: Real> Arith for T {
    #[inline(always)]
    fn pass(dy: &T, negate: bool) -> T {
        if negate {
            -*dy
        } else {
            *dy
        }
    }
    #[inline(always)]
    fn scale(other: &T, dy: &T) -> T {
        *dy * *other
    }
    #[inline(always)]
    fn over(b: &T, dy: &T) -> T {
        // (a zero cotangent contributes zero even where `b` is zero: see `ops`; the quotient
        // is computed either way and chosen, so that the quotient rule's two cotangents
        // share it: one division, not two)
        let q = *dy / *b;
        if dy.is_strong_zero() {
            *dy
        } else {
            q
        }
    }
    #[inline(always)]
    fn quotient_rhs(b: &T, y: &T, dy: &T) -> T {
        let q = *dy / *b;
        if dy.is_strong_zero() {
            *dy
        } else {
            -(q * *y)
        }
    }
    #[inline(always)]
    fn rem_rhs(a: &T, b: &T, dy: &T) -> T {
        -*dy * (*a / *b).trunc()
    }
}

macro_rules! integer_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn pass(_: &$t, _: bool) -> $t { 0 }
            #[inline(always)]
            fn scale(_: &$t, _: &$t) -> $t { 0 }
            #[inline(always)]
            fn over(_: &$t, _: &$t) -> $t { 0 }
            #[inline(always)]
            fn quotient_rhs(_: &$t, _: &$t, _: &$t) -> $t { 0 }
            #[inline(always)]
            fn rem_rhs(_: &$t, _: &$t, _: &$t) -> $t { 0 }
        }

        impl CastTarget for $t {
            #[inline(always)]
            fn add_cast(&mut self, _: f64, _: f64) {}
        }

        impl CastSource for $t {
            #[inline(always)]
            fn cast_parts(&self) -> (f64, f64) {
                (*self as f64, 0.0)
            }
        }
    )*};
}
integer_arith!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// A type a float cast's cotangent flows back to: floats add it (a dual number its
/// tangent too), integers drop it.
pub trait CastTarget {
    /// `self += dy`, converted, with `dy`'s tangent.
    fn add_cast(&mut self, dy: f64, tangent: f64);
}

impl<T: Real> CastTarget for T {
    #[inline(always)]
    fn add_cast(&mut self, dy: f64, tangent: f64) {
        *self = *self + T::from_parts(dy, tangent);
    }
}
