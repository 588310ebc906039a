//! The arguments a pullback is handed again at reverse time (as Enzyme's reverse pass is
//! handed the primal pointers), so that it keeps no borrow of its caller's values.
//!
//! A callee handed a buffer its caller owns (`f(&local)`) cannot return a pullback that
//! borrows it: the caller's own pullback owns the buffer, and a closure cannot hold a
//! borrow of itself. The callee's `__vjp_reborrow` companion returns a pullback that keeps
//! none of its shared-reference arguments: the caller hands each argument again when it
//! runs the pullback, with [`again`], and the callee's signature decides what each
//! position takes — a [`Ref`] for a shared reference (re-borrowed, read by the reverse
//! sweep), a [`Val`] for a value (used by a callee that runs its forward sweep again), a
//! [`Skip`] for an exclusive reference (never handed again).
//!
//! ```
//! use autodiff_runtime::again::{again, Ref, Skip, Val};
//!
//! // A pullback that borrows nothing: its slice comes back at reverse time.
//! fn forward(x: &[f64], scale: f64) -> (f64, impl FnOnce(f64, Ref<'_, [f64]>, Val<f64>) -> f64 + use<>) {
//!     let value = scale * x[0] * x[0];
//!     (value, move |dy, Ref(x), _| 2.0 * scale * x[0] * dy)
//! }
//! let pullback = {
//!     let local = vec![3.0, 1.0];
//!     forward(&local, 0.5).1
//! }; // `local` is gone: the pullback did not keep it
//! let local = vec![3.0, 1.0];
//! assert_eq!(pullback(1.0, again(&local), again(0.5)), 3.0);
//! let _: Skip = again(&mut 1.0);
//! ```

use core::borrow::Borrow;

/// A shared-reference argument handed again.
#[derive(Debug, Clone, Copy)]
pub struct Ref<'a, T: ?Sized>(pub &'a T);

/// A value argument handed again.
#[derive(Debug, Clone, Copy)]
pub struct Val<T>(pub T);

/// An argument that is not handed again (an exclusive reference).
#[derive(Debug, Clone, Copy)]
pub struct Skip;

/// What a pullback's position takes, made from the caller's argument `X`.
pub trait AgainFrom<X> {
    /// The argument as the position takes it.
    fn again_from(x: X) -> Self;
}

impl<'a, T: ?Sized, U: ?Sized + Borrow<T>> AgainFrom<&'a U> for Ref<'a, T> {
    #[inline(always)]
    fn again_from(x: &'a U) -> Self {
        Ref(x.borrow())
    }
}

impl<X> AgainFrom<X> for Val<X> {
    #[inline(always)]
    fn again_from(x: X) -> Self {
        Val(x)
    }
}

impl<X> AgainFrom<X> for Skip {
    #[inline(always)]
    fn again_from(_: X) -> Self {
        Skip
    }
}

/// The argument `x` handed again, as the pullback's position takes it (see the module).
#[inline(always)]
pub fn again<A: AgainFrom<X>, X>(x: X) -> A {
    A::again_from(x)
}
