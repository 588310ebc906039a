//! # autodiff
//!
//! Gradients of ordinary Rust code, computed at compile time. `#[differentiable]` reads a
//! function and writes its reverse-mode derivative (adjoint code) next to it: no tape of
//! boxed nodes, no special tensor type, no runtime graph.
//!
//! ```
//! use autodiff::prelude::*;
//!
//! #[differentiable]
//! fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
//!     w1 * x1 + w2 * x2
//! }
//!
//! // The function is still an ordinary function…
//! assert_eq!(weighted_sum(2.0, 5.0, 3.0, 7.0), 31.0);
//!
//! // …and its gradient with respect to chosen parameters is a closure away
//! // (TensorFlow's `gradients_function(f, params=["w1", "w2"])`).
//! let grad = gradients_function!(weighted_sum, params = ["w1", "w2"]);
//! assert_eq!(grad(2.0, 5.0, 3.0, 7.0), (5.0, 7.0)); // (x1, x2)
//!
//! let value_and_grad = value_and_gradients_function!(weighted_sum);
//! assert_eq!(value_and_grad(2.0, 5.0, 3.0, 7.0), (31.0, (5.0, 2.0, 7.0, 3.0)));
//! ```
//!
//! The macro does the *structure* (order, storage, control flow); the runtime
//! ([`autodiff_runtime`]) owns every derivative rule. Conventions at points where a
//! function is not differentiable follow JAX and are listed in [`ops`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Generated code names this crate `::autodiff`, also inside it (`nn`).
extern crate self as autodiff;

pub mod nn;

#[cfg(feature = "argmin")]
pub mod argmin;

#[cfg(feature = "rayon")]
pub mod parallel;
/// The serde that models, tangents, variables and optimizers implement `Serialize` and
/// `Deserialize` for (the `serde` feature); the same crate as your own `serde = "1"`.
///
/// ```
/// use autodiff::serde::{Deserialize, Serialize};
///
/// #[derive(autodiff::Differentiable, Serialize, Deserialize)]
/// #[serde(crate = "autodiff::serde")]
/// struct Model {
///     w: autodiff::ndarray::Array1<f64>,
///     b: f64,
/// }
/// fn saved<T: Serialize + for<'de> Deserialize<'de>>() {}
/// saved::<Model>();
/// saved::<ModelTangent>();
/// saved::<autodiff::optim::Adam>();
/// ```
#[cfg(feature = "serde")]
pub use autodiff_runtime::serde;
/// The rayon `autodiff::parallel` is built on (the `rayon` feature):
/// `use autodiff::rayon::prelude::*;` brings `par_chunks` and the parallel iterators.
///
/// ```
/// use autodiff::rayon::prelude::*;
/// let total: f64 = [1.0, 2.0, 3.0].par_iter().sum();
/// assert_eq!(total, 6.0);
/// ```
#[cfg(feature = "rayon")]
pub use rayon;

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub use autodiff_macros::{
    accumulate_gradients, differentiable, differentiable_closure, gradients_function, hessian, hvp,
    jacobian, jvp, value_and_gradients_function, vjp, Differentiable,
};
/// The nalgebra this crate is built with (the `nalgebra` feature): its vectors, matrices,
/// points and unit quaternions are differentiable, and their gradients have their own types.
///
/// ```
/// use autodiff::nalgebra::Vector3;
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn energy(x: &Vector3<f64>) -> f64 {
///     0.5 * x.norm_squared()
/// }
///
/// let x = Vector3::new(1.0, 2.0, 3.0);
/// let g: Vector3<f64> = gradients_function!(energy)(&x);
/// assert_eq!(g, x);
/// ```
#[cfg(feature = "nalgebra")]
pub use autodiff_runtime::nalgebra;
pub use autodiff_runtime::ndarray;
/// The num-traits this crate is built with (`Float`, `FromPrimitive`, …), so generic code
/// names the same traits the generated code requires.
pub use autodiff_runtime::num_traits;
pub use autodiff_runtime::{
    check, dual, implicit, implicit_gradients, implicit_value_and_gradients, ops, optim, query,
    stop_gradient, zero_tangent, Accumulate, Differentiable, Gradient, GradientTape, Gradients,
    NoTangent, Once, Parameter, Persistent, Real, Recorded, Sources, Variable, VariableId,
    VariableRef,
};

/// `use autodiff::prelude::*;` brings the attribute, the macros, the implicit helpers,
/// `Variable`, `GradientTape`, `stop_gradient`, the traits and `Float` into scope.
///
/// ```
/// use autodiff::prelude::*;
/// #[differentiable]
/// fn square<T: Float>(x: T) -> T { x * x }
/// assert_eq!(gradients_function!(square)(3.0_f32), 6.0);
/// ```
pub mod prelude {
    pub use autodiff_macros::{
        accumulate_gradients, differentiable, differentiable_closure, gradients_function, hessian,
        hvp, jacobian, jvp, value_and_gradients_function, vjp, Differentiable,
    };
    pub use autodiff_runtime::num_traits::Float;
    pub use autodiff_runtime::{
        implicit_gradients, implicit_value_and_gradients, stop_gradient, Differentiable,
        GradientTape, Gradients, Real, Variable,
    };
}

/// What generated code reaches; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use autodiff_macros::__rule_table_checks;
    pub use autodiff_macros::__tangent_table_checks;
    #[cfg(feature = "serde")]
    pub use autodiff_runtime::serde;
    pub use autodiff_runtime::{
        __autodiff_project, __autodiff_source_handle, __autodiff_source_read,
    };
    pub use autodiff_runtime::{
        adjoint_zero, complete_tangent, finish_tangent, lazy_zero_tangent, ops, zero_tangent,
        Accumulate, ConstantNumber, Differentiable, NoTangent, Real, Reset,
    };
    pub use autodiff_runtime::{
        again, dual, entry, forward, implicit, jacobian, methods, ndarray, num_traits, pool, reuse,
        saved, select, shadow, source, views,
    };
}
