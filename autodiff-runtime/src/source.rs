//! Reads of values differentiable code did not receive as parameters: captured names and
//! fields of constant parameters. What such a read is depends on its type, which only the
//! compiler knows, so generated code dispatches on it (autoref specialization):
//!
//! 1. a [`Variable`] (or a tape's [`Recorded`](crate::Recorded) result) gives its snapshot
//!    value, and the reverse sweep deposits the read's gradient for it;
//! 2. any other `Copy` value is copied, and its gradient is dropped;
//! 3. anything else is borrowed.
//!
//! Not a public API: generated code calls it through the facade's hidden path.

use crate::implicit::{deposit_recorded, deposit_variable, Parameter, TangentValue};
use crate::tape::Recorded;
use crate::Variable;

/// The value being read, wrapped for dispatch.
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// Level 1: sources of gradients.
pub trait ReadSource {
    /// The value read.
    type Value;
    /// Reads the value.
    fn read(&self) -> Self::Value;
    /// Deposits the gradient of the read.
    fn deposit(&self, gradient: <Self::Value as crate::Differentiable>::Tangent)
    where
        Self::Value: crate::Differentiable;
}

impl<T: Parameter + Clone> ReadSource for &&Probe<'_, Variable<T>>
where
    T::Tangent: TangentValue,
{
    type Value = T;
    #[inline]
    fn read(&self) -> T {
        (*self.0.snapshot()).clone()
    }
    #[inline]
    fn deposit(&self, gradient: T::Tangent) {
        deposit_variable(self.0, gradient);
    }
}

impl ReadSource for &&Probe<'_, Recorded<f64>> {
    type Value = f64;
    #[inline]
    fn read(&self) -> f64 {
        *self.0.value()
    }
    #[inline]
    fn deposit(&self, gradient: f64) {
        deposit_recorded(self.0.entry(), gradient);
    }
}

/// Level 2: plain `Copy` values, read by copy.
pub trait ReadCopy {
    /// The value read.
    type Value;
    /// Copies the value.
    fn read(&self) -> Self::Value;
    /// Drops the gradient: a plain value is a constant.
    #[inline(always)]
    fn deposit<G>(&self, _gradient: G) {}
}

impl<T: Copy> ReadCopy for &Probe<'_, T> {
    type Value = T;
    #[inline(always)]
    fn read(&self) -> T {
        *self.0
    }
}

/// Level 3: anything else, borrowed.
pub trait ReadRef<'a> {
    /// The value read.
    type Value;
    /// Borrows the value.
    fn read(&self) -> Self::Value;
    /// Drops the gradient: a plain value is a constant.
    #[inline(always)]
    fn deposit<G>(&self, _gradient: G) {}
}

impl<'a, T: ?Sized> ReadRef<'a> for Probe<'a, T> {
    type Value = &'a T;
    #[inline(always)]
    fn read(&self) -> &'a T {
        self.0
    }
}

/// Level 1 of a handle: what the reverse sweep deposits through, held by the forward
/// sweep without borrowing the place it was read from (a field of a parameter passed by
/// value dies with the forward sweep): a variable's shared handle, a recorded result.
pub trait HandleSource {
    /// The handle.
    type Handle;
    /// Takes the handle.
    fn handle(&self) -> Self::Handle;
}

impl<T> HandleSource for &&Probe<'_, Variable<T>> {
    type Handle = Variable<T>;
    #[inline]
    fn handle(&self) -> Variable<T> {
        self.0.clone()
    }
}

impl<T: Clone> HandleSource for &&Probe<'_, Recorded<T>> {
    type Handle = Recorded<T>;
    #[inline]
    fn handle(&self) -> Recorded<T> {
        self.0.clone()
    }
}

/// Level 2 of a handle: a plain `Copy` value is its own handle.
pub trait HandleCopy {
    /// The handle.
    type Handle;
    /// Copies the value.
    fn handle(&self) -> Self::Handle;
}

impl<T: Copy> HandleCopy for &Probe<'_, T> {
    type Handle = T;
    #[inline(always)]
    fn handle(&self) -> T {
        *self.0
    }
}

/// Level 3 of a handle: anything else is borrowed.
pub trait HandleRef<'a> {
    /// The handle.
    type Handle;
    /// Borrows the value.
    fn handle(&self) -> Self::Handle;
}

impl<'a, T: ?Sized> HandleRef<'a> for Probe<'a, T> {
    type Handle = &'a T;
    #[inline(always)]
    fn handle(&self) -> &'a T {
        self.0
    }
}

/// `handle!(place)` as generated code writes it: the handle a source read and its deposit
/// go through (`read` and `deposit` dispatch on the handle as on the place itself).
#[doc(hidden)]
#[macro_export]
macro_rules! __autodiff_source_handle {
    ($place:expr) => {{
        #[allow(unused_imports)]
        use $crate::source::{HandleCopy as _, HandleRef as _, HandleSource as _};
        (&&&$crate::source::Probe(&($place))).handle()
    }};
}

/// `read!(place)` as generated code writes it.
#[doc(hidden)]
#[macro_export]
macro_rules! __autodiff_source_read {
    ($place:expr) => {{
        #[allow(unused_imports)]
        use $crate::source::{ReadCopy as _, ReadRef as _, ReadSource as _};
        (&&&$crate::source::Probe(&($place))).read()
    }};
}

/// Level 1 of a field projection: a `Copy` field is copied.
pub trait ProjectCopy {
    /// The value read.
    type Value;
    /// Copies the field.
    fn project(&self) -> Self::Value;
}

impl<T: Copy> ProjectCopy for &Probe<'_, T> {
    type Value = T;
    #[inline(always)]
    fn project(&self) -> T {
        *self.0
    }
}

/// Level 2 of a field projection: any other field is borrowed.
pub trait ProjectRef<'a> {
    /// The value read.
    type Value;
    /// Borrows the field.
    fn project(&self) -> Self::Value;
}

impl<'a, T: ?Sized> ProjectRef<'a> for Probe<'a, T> {
    type Value = &'a T;
    #[inline(always)]
    fn project(&self) -> &'a T {
        self.0
    }
}

/// `project!(base.field)` as generated code writes it: the field of a differentiable
/// struct, copied when it is `Copy` (a scalar), borrowed otherwise (an array).
#[doc(hidden)]
#[macro_export]
macro_rules! __autodiff_project {
    ($place:expr) => {{
        #[allow(unused_imports)]
        use $crate::source::{ProjectCopy as _, ProjectRef as _};
        (&&$crate::source::Probe(&($place))).project()
    }};
}
