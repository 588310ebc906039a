//! The scalar types the rules are written for.

use crate::ops::tensor::{CotangentArg, Tensor, Val};
use crate::sealed::Sealed;
use crate::tangent::Differentiable;
use core::fmt::{Debug, Display};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Ix0};
use num_traits::{Float, FloatConst};

/// A real scalar type the derivative rules are implemented for: `f32`, `f64`, and the dual
/// numbers over them ([`crate::dual::Dual`], on which `hvp!` runs generated gradients).
///
/// Generic differentiable functions are written against [`num_traits::Float`]
/// (`fn f<T: Float>(x: T) -> T`); the code generated for them additionally requires
/// `T: Real`, which holds exactly for those. The trait is sealed.
///
/// ```
/// use autodiff_runtime::Real;
/// fn half<T: Real>() -> T { T::from_f64_rounded(0.5) }
/// assert_eq!(half::<f32>(), 0.5_f32);
/// ```
pub trait Real:
    Float
    + FloatConst
    + Debug
    + Display
    + Default
    + Send
    + Sync
    + 'static
    + Differentiable<Tangent = Self>
    + Tensor<Elem = Self, Dim = Ix0, Cotangent = Self>
    + Val<V = Self>
    + CotangentArg<Elem = Self, Cotangent = Self>
    + crate::ops::Placeholder
    + Sealed
{
    /// Converts an `f64` constant to this type (rounding for `f32`). Named apart from
    /// num-traits' `FromPrimitive::from_f64`, so `T::from_f64(c)` in user code stays
    /// unambiguous with `Real` in scope.
    fn from_f64_rounded(value: f64) -> Self;
    /// Runs `f` on this thread's pool of buffers of this type (see [`crate::pool`]), if
    /// it has one: `f32` and `f64` do.
    #[doc(hidden)]
    #[inline(always)]
    fn with_pool<R>(f: impl FnOnce(&mut crate::pool::Pool<Self>) -> R) -> Option<R> {
        let _ = f;
        None
    }
    /// Converts this value to `f64` (exactly).
    fn to_f64_lossless(self) -> f64;
    /// Whether this cotangent is exactly zero, so a rule's contribution from it is zero
    /// whatever the derivative (`0 · ∞` is not NaN here). A dual number is zero when its
    /// tangent is too.
    #[doc(hidden)]
    #[inline(always)]
    fn is_strong_zero(&self) -> bool {
        *self == Self::zero()
    }
    /// The tangent a dual number carries, as `f64` (zero for a float): what a cast keeps.
    #[doc(hidden)]
    #[inline(always)]
    fn tangent_f64(&self) -> f64 {
        0.0
    }
    /// The matrix product `a · b`, which the rules of `dot` call: ndarray's (its optimised
    /// kernel for `f32` and `f64`); dual numbers split into three products of their parts.
    #[doc(hidden)]
    #[inline]
    fn matmul(a: ArrayView2<'_, Self>, b: ArrayView2<'_, Self>) -> Array2<Self> {
        a.dot(&b)
    }
    /// The matrix–vector product `a · b` (see [`Real::matmul`]).
    #[doc(hidden)]
    #[inline]
    fn matvec(a: ArrayView2<'_, Self>, b: ArrayView1<'_, Self>) -> Array1<Self> {
        a.dot(&b)
    }
    /// A value from an `f64` value and tangent (the tangent dropped by a float): a cast's
    /// result.
    #[doc(hidden)]
    #[inline(always)]
    fn from_parts(value: f64, tangent: f64) -> Self {
        let _ = tangent;
        Self::from_f64_rounded(value)
    }
}

impl Real for f32 {
    #[inline(always)]
    fn with_pool<R>(f: impl FnOnce(&mut crate::pool::Pool<Self>) -> R) -> Option<R> {
        crate::pool::with_f32(f)
    }
    #[inline(always)]
    fn from_f64_rounded(value: f64) -> Self {
        value as f32
    }
    #[inline(always)]
    fn to_f64_lossless(self) -> f64 {
        f64::from(self)
    }
}

impl Real for f64 {
    #[inline(always)]
    fn with_pool<R>(f: impl FnOnce(&mut crate::pool::Pool<Self>) -> R) -> Option<R> {
        crate::pool::with_f64(f)
    }
    #[inline(always)]
    fn from_f64_rounded(value: f64) -> Self {
        value
    }
    #[inline(always)]
    fn to_f64_lossless(self) -> f64 {
        self
    }
}
