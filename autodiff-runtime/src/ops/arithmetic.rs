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
pub fn add_d0<T: Real>(dy: &T) -> T {
    *dy
}

/// `y = a + b`: cotangent of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::add_d1(&5.0_f64), 5.0);
/// ```
#[inline(always)]
pub fn add_d1<T: Real>(dy: &T) -> T {
    *dy
}

/// `y = a - b`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::sub_d0(&5.0_f64), 5.0);
/// ```
#[inline(always)]
pub fn sub_d0<T: Real>(dy: &T) -> T {
    *dy
}

/// `y = a - b`: cotangent of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::sub_d1(&5.0_f64), -5.0);
/// ```
#[inline(always)]
pub fn sub_d1<T: Real>(dy: &T) -> T {
    -*dy
}

/// `y = a * b`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_d0(&3.0_f64, &1.0), 3.0);
/// ```
#[inline(always)]
pub fn mul_d0<T: Real>(b: &T, dy: &T) -> T {
    *dy * *b
}

/// `y = a * b`: cotangent of `b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_d1(&2.0_f64, &1.0), 2.0);
/// ```
#[inline(always)]
pub fn mul_d1<T: Real>(a: &T, dy: &T) -> T {
    *dy * *a
}

/// `y = a / b`: cotangent of `a`, `dy / b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::div_d0(&4.0_f64, &1.0), 0.25);
/// ```
#[inline(always)]
pub fn div_d0<T: Real>(b: &T, dy: &T) -> T {
    *dy / *b
}

/// `y = a / b`: cotangent of `b`, `-dy · a / b²`, computed as `-(dy · y) / b`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::div_d1(&4.0_f64, &0.25, &1.0), -0.0625);
/// ```
#[inline(always)]
pub fn div_d1<T: Real>(b: &T, y: &T, dy: &T) -> T {
    -(*dy * *y) / *b
}

/// `y = a % b` (`a - b·trunc(a/b)`): cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::rem_d0(&1.0_f64), 1.0);
/// ```
#[inline(always)]
pub fn rem_d0<T: Real>(dy: &T) -> T {
    *dy
}

/// `y = a % b`: cotangent of `b`, `-dy · trunc(a / b)`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::rem_d1(&7.5_f64, &2.0, &1.0), -3.0);
/// ```
#[inline(always)]
pub fn rem_d1<T: Real>(a: &T, b: &T, dy: &T) -> T {
    -*dy * (*a / *b).trunc()
}

/// `y = -a`: cotangent of `a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::neg_d0(&1.5_f64), -1.5);
/// ```
#[inline(always)]
pub fn neg_d0<T: Real>(dy: &T) -> T {
    -*dy
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
    A::from_f64(dy.to_f64_lossless())
}

/// `y = v[i]`: adds `dy` to element `i` of the cotangent of `v`.
///
/// ```
/// let mut dv = vec![0.0_f64; 3];
/// autodiff_runtime::ops::index_d0(&mut dv, 1, &2.5);
/// assert_eq!(dv, vec![0.0, 2.5, 0.0]);
/// ```
#[inline(always)]
pub fn index_d0<T: Real, C: core::ops::IndexMut<usize, Output = T> + ?Sized>(
    dv: &mut C,
    i: usize,
    dy: &T,
) {
    dv[i] = dv[i] + *dy;
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
pub fn index_take_d0<T: Real, C: core::ops::IndexMut<usize, Output = T> + ?Sized>(
    dv: &mut C,
    i: usize,
) -> T {
    core::mem::replace(&mut dv[i], T::zero())
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
    dv.take_reset()
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
    dv.reset();
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
pub fn cast_accumulate<A: Real, B: Real>(da: &mut A, dy: &B) {
    *da = *da + A::from_f64(dy.to_f64_lossless());
}
