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

/// A reference argument whose referent may itself be a reference: a closure reads a
/// captured value that is not `Copy` by reference, so the user's `&x` is a `&&Vec<f64>`,
/// which a call coerces to `&[f64]` but [`again`] (generic) does not. `(&&Strip(a)).strip()`
/// is `&U` for an `a: &&U` ([`StripTwo`]) and `a` itself otherwise ([`StripOne`]).
///
/// ```
/// use autodiff_runtime::again::{Strip, StripOne as _, StripTwo as _};
/// let v = vec![1.0_f64, 2.0];
/// let r = &v;
/// let once: &Vec<f64> = (&&Strip(&r)).strip();
/// let same: &Vec<f64> = (&&Strip(&v)).strip();
/// assert_eq!(once, same);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Strip<X>(pub X);

/// [`Strip`] of a reference to a reference: the inner reference.
pub trait StripTwo<'a, U: ?Sized> {
    /// The inner reference.
    fn strip(self) -> &'a U;
}

impl<'a, 'b: 'a, U: ?Sized> StripTwo<'a, U> for &&Strip<&'a &'b U> {
    #[inline(always)]
    fn strip(self) -> &'a U {
        self.0
    }
}

/// [`Strip`] of anything else: itself.
pub trait StripOne<X> {
    /// The argument.
    fn strip(self) -> X;
}

impl<X: Copy> StripOne<X> for &Strip<X> {
    #[inline(always)]
    fn strip(self) -> X {
        self.0
    }
}

/// The argument `x` handed again, as the pullback's position takes it (see the module).
#[inline(always)]
pub fn again<A: AgainFrom<X>, X>(x: X) -> A {
    A::again_from(x)
}

/// What a caller keeps of a buffer it hands on as it is (`helper(y)`, `y` a `&mut`
/// parameter), for the pullback of a callee that may read it or write it: the callee's
/// signature decides. A callee writing the buffer (`&mut [f64]`) takes its shadow and is
/// handed nothing again: [`Nothing`] is kept. A callee reading it (`&[f64]`, reborrowed
/// from the `&mut`) is handed again what it read: a copy is kept, taken before the calls
/// that follow may change the buffer. The kept type is inferred from the pullback's
/// position through [`FromLent`] (one implementation per position type), so the caller
/// writes the same code for both.
///
/// ```
/// use autodiff_runtime::again::{lent, Lent, Nothing, Ref, Skip};
/// let mut y = vec![1.0, 2.0];
/// let read: Vec<f64> = Lent::keep(&*y);
/// let written: Nothing = Lent::keep(&*y);
/// y[0] = 5.0;
/// let Ref(seen): Ref<'_, [f64]> = lent(&read);
/// assert_eq!(seen, &[1.0, 2.0]);
/// let _: Skip = lent(&written);
/// ```
pub trait Lent<T: ?Sized>: Sized {
    /// What is kept of `x`.
    fn keep(x: &T) -> Self;
}

/// Nothing kept: the callee writes the buffer lent to it.
#[derive(Debug, Clone, Copy)]
pub struct Nothing;

impl<T: ?Sized> Lent<T> for Nothing {
    #[inline(always)]
    fn keep(_: &T) -> Self {
        Nothing
    }
}

impl<E: Clone> Lent<[E]> for Vec<E> {
    #[inline(always)]
    fn keep(x: &[E]) -> Self {
        x.to_vec()
    }
}

impl<E: Clone> Lent<Vec<E>> for Vec<E> {
    #[inline(always)]
    fn keep(x: &Vec<E>) -> Self {
        x.clone()
    }
}

impl<E: Clone, const N: usize> Lent<[E; N]> for Vec<E> {
    #[inline(always)]
    fn keep(x: &[E; N]) -> Self {
        x.to_vec()
    }
}

impl<E: Clone, const N: usize> Lent<[E; N]> for [E; N] {
    #[inline(always)]
    fn keep(x: &[E; N]) -> Self {
        x.clone()
    }
}

/// A pullback's position made from what [`Lent`] kept (see there).
pub trait FromLent<'a, K> {
    /// The position's argument.
    fn from_lent(kept: &'a K) -> Self;
}

impl<'a> FromLent<'a, Nothing> for Skip {
    #[inline(always)]
    fn from_lent(_: &'a Nothing) -> Self {
        Skip
    }
}

impl<'a, E> FromLent<'a, Vec<E>> for Ref<'a, [E]> {
    #[inline(always)]
    fn from_lent(kept: &'a Vec<E>) -> Self {
        Ref(kept)
    }
}

impl<'a, E> FromLent<'a, Vec<E>> for Ref<'a, Vec<E>> {
    #[inline(always)]
    fn from_lent(kept: &'a Vec<E>) -> Self {
        Ref(kept)
    }
}

impl<'a, E, const N: usize> FromLent<'a, [E; N]> for Ref<'a, [E; N]> {
    #[inline(always)]
    fn from_lent(kept: &'a [E; N]) -> Self {
        Ref(kept)
    }
}

/// What [`Lent`] kept, handed again as the pullback's position takes it.
#[inline(always)]
pub fn lent<'a, A: FromLent<'a, K>, K>(kept: &'a K) -> A {
    A::from_lent(kept)
}
