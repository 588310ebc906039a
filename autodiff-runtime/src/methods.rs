//! Calls in method form (`dist.pdf(x)`): the receiver's type is the compiler's to know, so
//! generated code reaches the method's derivative through the receiver —
//! `dist.__autodiff_gate::<M>().__autodiff_pdf_vjp_into(x)`, `M` the method's name as a
//! number. An `impl` with `#[differentiable]` implements [`Annotated<M>`] for each method it
//! differentiates; a method of an `impl` without it fails that bound at the call, once,
//! with a message that says so — not a missing `__autodiff_*` item.
//!
//! Not a public API: generated code calls it through the facade's hidden path.

use std::rc::Rc;
use std::sync::Arc;

/// A type whose method named by `M` (see [`method_id`]) is differentiable: its `impl` has
/// `#[differentiable]`.
#[diagnostic::on_unimplemented(
    message = "cannot differentiate through this method of `{Self}`: its `impl` has no \
        `#[differentiable]`",
    label = "a method of an `impl` without `#[differentiable]`",
    note = "add `#[differentiable]` to the `impl` block that defines the method (on a trait \
        `impl`, to that block), give the method a rule with `#[differentiable(vjp = …)]`, \
        or wrap its result in `stop_gradient(…)` if no gradient should flow through it"
)]
pub trait Annotated<const M: u64> {
    /// The type whose `impl` holds the method's derivative (`Self`, behind references and
    /// smart pointers).
    type Target: ?Sized;
    /// The receiver, as that type.
    fn target(&self) -> &Self::Target;
}

/// A type whose associated function named by `M` (see [`method_id`]) is differentiable:
/// an `impl` with `#[differentiable]` implements it for each function it differentiates. A
/// call `Type::function(…)` requires it where `Type` has no companion of that function, so
/// that a function of an `impl` without the attribute fails there with a message that
/// says so (the call's result, of the type `Never` names, is then not looked at further).
#[diagnostic::on_unimplemented(
    message = "cannot differentiate through this function of `{Self}`: its `impl` has no \
        `#[differentiable]`",
    label = "an associated function of an `impl` without `#[differentiable]`",
    note = "add `#[differentiable]` to the `impl` block that defines the function (on a trait \
        `impl`, to that block), give the function a rule with `#[differentiable(vjp = …)]`, \
        or wrap its result in `stop_gradient(…)` if no gradient should flow through it"
)]
pub trait AnnotatedFn<const M: u64> {
    /// Never looked at: a call that needs the bound does not compile without it.
    type Never;
}

/// A type whose method named by `M` is differentiable with respect to its receiver: the
/// method (or its `impl`) says `#[differentiable(self)]`. Generated code requires it of a
/// call whose receiver carries a gradient, so that the gradient is never dropped at a
/// method whose receiver is a constant.
#[diagnostic::on_unimplemented(
    message = "the receiver of this method is a constant, but the value it is called on \
        carries a gradient that would be lost here",
    label = "a method of `{Self}` whose receiver is a constant",
    note = "mark the method (or its `impl` block) `#[differentiable(self)]` to differentiate \
        with respect to its receiver, or call it on `stop_gradient(…)` of the value (or \
        mark the parameter `#[no_grad]`) if no gradient should flow through the receiver"
)]
pub trait SelfDifferentiable<const M: u64> {}

/// Requires of a receiver carrying a gradient that its method `M` is
/// [`SelfDifferentiable`]: a check at compile time, nothing at run time.
#[inline(always)]
pub fn receiver_differentiable<const M: u64, T: SelfDifferentiable<M> + ?Sized>(_: &T) {}

/// A method whose receiver is differentiable (`#[differentiable(self)]`), as its
/// companions record it.
#[derive(Clone, Copy, Debug)]
pub struct DifferentiableReceiver;

/// A method whose receiver is a constant, as its companions record it.
#[derive(Clone, Copy, Debug)]
pub struct ConstantReceiver;

/// What a sibling method called through `self` must be when `self` carries a gradient.
#[diagnostic::on_unimplemented(
    message = "the receiver of this method is a constant, but `self` carries a gradient here \
        that would be lost",
    label = "a method whose receiver is a constant, called on `self`",
    note = "mark the method `#[differentiable(self)]` to differentiate with respect to its \
        receiver"
)]
pub trait ReceiverDifferentiable {}

impl ReceiverDifferentiable for DifferentiableReceiver {}

/// Requires of a sibling method called through a `self` that carries a gradient (`self.helper(x)`
/// in a method differentiable with respect to its receiver) that its receiver is
/// differentiable too: a check at compile time, nothing at run time.
#[inline(always)]
pub fn sibling_receiver<R: ReceiverDifferentiable>(_: R) {}

macro_rules! through_pointers {
    ($($p:ident),*) => {$(
        #[diagnostic::do_not_recommend]
        impl<T: Annotated<M> + ?Sized, const M: u64> Annotated<M> for $p<T> {
            type Target = T::Target;
            #[inline(always)]
            fn target(&self) -> &T::Target {
                (**self).target()
            }
        }
        #[diagnostic::do_not_recommend]
        impl<T: SelfDifferentiable<M> + ?Sized, const M: u64> SelfDifferentiable<M> for $p<T> {}
    )*};
}
through_pointers!(Box, Rc, Arc);

#[diagnostic::do_not_recommend]
impl<T: SelfDifferentiable<M> + ?Sized, const M: u64> SelfDifferentiable<M> for &T {}

#[diagnostic::do_not_recommend]
impl<T: Annotated<M> + ?Sized, const M: u64> Annotated<M> for &T {
    type Target = T::Target;
    #[inline(always)]
    fn target(&self) -> &T::Target {
        (**self).target()
    }
}

/// The gate every value has: `recv.__autodiff_gate::<M>()` is the receiver as the type
/// whose `impl` differentiates method `M`, or one error saying the `impl` has no
/// `#[differentiable]` (and, its result unknown, nothing after it).
pub trait Gate {
    /// The receiver, if its method `M` is differentiable.
    #[inline(always)]
    fn __autodiff_gate<const M: u64>(&self) -> &<Self as Annotated<M>>::Target
    where
        Self: Annotated<M>,
    {
        self.target()
    }
}

impl<T: ?Sized> Gate for T {}

/// The number naming a method (64-bit FNV-1a of its name), as the attribute writes it
/// at both ends: the `impl`'s [`Annotated`] and each call.
///
/// ```
/// use autodiff_runtime::methods::method_id;
/// assert_ne!(method_id("pdf"), method_id("cdf"));
/// ```
pub const fn method_id(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}
