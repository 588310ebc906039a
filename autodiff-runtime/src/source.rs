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
