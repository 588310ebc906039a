//! Runtime of [`autodiff`](https://docs.rs/autodiff): the derivative rule of every
//! primitive, the tangent spaces of the differentiable types, and gradient checking.
//!
//! The procedural macro `#[differentiable]` knows the *structure* of a function (order,
//! storage, control flow); this crate knows the *maths*. Generated code calls the rules in
//! [`ops`] through fully-qualified paths, so one rule table serves every front end.
//!
//! Users normally depend on the `autodiff` facade, which re-exports this crate.
//!
//! ```
//! use autodiff_runtime::ops;
//! // The rule for `y = x.sin()`: the cotangent of `x` is `dy * cos(x)`.
//! let x = 0.5_f64;
//! let y = x.sin();
//! assert_eq!(ops::sin_d0(&x, &2.0), 2.0 * x.cos());
//! let _ = y;
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "rayon")]
mod add;
#[doc(hidden)]
pub mod again;
mod array;
pub mod check;
pub mod dual;
pub mod entry;
#[doc(hidden)]
pub mod forward;
pub mod implicit;
#[doc(hidden)]
pub mod jacobian;
#[doc(hidden)]
pub mod methods;
#[cfg(feature = "nalgebra")]
mod nalgebra_support;
pub mod ops;
pub mod optim;
#[cfg(feature = "serde")]
mod persist;
#[doc(hidden)]
pub mod pool;
pub mod query;
mod real;
#[doc(hidden)]
pub mod reuse;
#[doc(hidden)]
pub mod saved;
mod sealed;
#[doc(hidden)]
pub mod select;
#[doc(hidden)]
pub mod shadow;
#[doc(hidden)]
pub mod source;
mod tangent;
mod tape;
mod variable;
#[doc(hidden)]
pub mod views;

pub use implicit::{
    implicit_gradients, implicit_value_and_gradients, Gradient, Gradients, Parameter, VariableRef,
};
pub use real::Real;
#[doc(hidden)]
pub use tangent::{adjoint_zero, complete_tangent, finish_tangent, lazy_zero_tangent};
pub use tangent::{zero_tangent, Accumulate, ConstantNumber, Differentiable, NoTangent, Reset};
pub use tape::{GradientTape, Once, Persistent, Recorded, Sources};
pub use variable::{Variable, VariableId};

/// The identity function whose derivative is zero.
///
/// Inside `#[differentiable]` code, `stop_gradient(e)` evaluates `e` as usual but no
/// gradient flows back through it: it is treated as a constant. Outside differentiable
/// code it is simply the identity.
///
/// ```
/// use autodiff_runtime::stop_gradient;
/// assert_eq!(stop_gradient(3.0_f64), 3.0);
/// ```
#[inline(always)]
pub fn stop_gradient<T>(value: T) -> T {
    value
}

/// The nalgebra crate this runtime is built with, with the `nalgebra` feature (re-exported
/// by the facade as `autodiff::nalgebra`): its vectors, matrices, points and unit
/// quaternions are differentiable.
///
/// ```
/// use autodiff_runtime::{nalgebra::Vector3, Differentiable};
/// let v = Vector3::new(1.0_f64, 2.0, 3.0);
/// let g: Vector3<f64> = v.zero_tangent(); // a vector's gradient is a vector
/// assert_eq!(g, Vector3::zeros());
/// ```
#[cfg(feature = "nalgebra")]
pub use nalgebra;
/// The ndarray crate this runtime is built with (re-exported by the facade as
/// `autodiff::ndarray`, so users never mismatch versions).
pub use ndarray;
/// The num-traits crate, for [`num_traits::Float`].
pub use num_traits;
/// The serde this crate's `Serialize`/`Deserialize` impls are written for (the `serde`
/// feature): derive a model's with `#[derive(serde::Serialize, serde::Deserialize)]` from
/// it, or from your own `serde = "1"` (the same crate).
#[cfg(feature = "serde")]
pub use serde;
