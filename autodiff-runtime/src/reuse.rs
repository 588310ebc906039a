//! A local buffer's storage reused for its adjoint: when the reverse sweep never reads a
//! buffer's values (`out` in `out[j] += l[k] * x[i]`, read only by a call handed a copy),
//! its adjoint takes over its allocation, cleared, instead of a fresh zeroed one (one
//! allocation and one free less per call of the function).
//!
//! Generated code calls `Reuse(buffer).adjoint()` with [`ReuseVec`] and [`ReuseAny`] in
//! scope: method resolution picks [`ReuseVec`] for a `Vec` of floats (by value, found
//! first) and [`ReuseAny`], a fresh zero adjoint, for anything else.
//!
//! ```
//! use autodiff_runtime::reuse::{Reuse, ReuseAny as _, ReuseVec as _};
//! let buffer = vec![1.5_f64, -2.0];
//! let at = buffer.as_ptr();
//! let adjoint = Reuse(buffer).adjoint();
//! assert_eq!((adjoint.clone(), adjoint.as_ptr()), (vec![0.0, 0.0], at));
//! let scalar: f64 = Reuse(3.0_f64).adjoint();
//! assert_eq!(scalar, 0.0);
//! ```

use crate::real::Real;
use crate::tangent::Differentiable;

/// A buffer handed over to become its own adjoint.
#[derive(Debug)]
pub struct Reuse<T>(pub T);

/// A `Vec` of floats: its allocation, cleared, is the adjoint.
pub trait ReuseVec<E> {
    /// The adjoint, zero, in the buffer's own storage.
    fn adjoint(self) -> Vec<E>;
}

impl<E: Real> ReuseVec<E> for Reuse<Vec<E>> {
    #[inline(always)]
    fn adjoint(self) -> Vec<E> {
        let mut v = self.0;
        v.fill(E::zero());
        v
    }
}

/// Any other differentiable value: a fresh zero adjoint.
pub trait ReuseAny<T: Differentiable> {
    /// The zero adjoint of the value.
    fn adjoint(self) -> T::Tangent;
}

impl<T: Differentiable> ReuseAny<T> for &Reuse<T> {
    #[inline(always)]
    fn adjoint(self) -> T::Tangent {
        crate::tangent::adjoint_zero(&self.0)
    }
}
