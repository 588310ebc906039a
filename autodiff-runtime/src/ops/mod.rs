//! The derivative rules of every primitive, one family a file.
//!
//! A rule is named after the operation and the input it differentiates:
//! `mul_d1(&lhs, &dy)` is the contribution of `dy` (the cotangent of the output
//! `y = lhs * rhs`) to the cotangent of input 1, `rhs`. A rule takes, by reference, only
//! the values its formula reads (inputs and/or the output `y`, in that order), then `dy`:
//! `exp_d0(&y, &dy)` reuses the output, `add_d0(&dy)` reads nothing. What a reverse sweep
//! keeps from its forward sweep is therefore exactly what its rules read (the macro's
//! to-be-recorded table mirrors these signatures).
//!
//! # Conventions at kinks
//!
//! Where a function is not differentiable the rules follow JAX:
//!
//! | function | point | derivative used |
//! | --- | --- | --- |
//! | `abs(x)` | `x == 0` | `1` (the right derivative) |
//! | `max(a, b)`, `min(a, b)` | `a == b` | `½` to each input |
//! | `clamp(x, lo, hi)` | `x == lo` or `x == hi` | as `max`, `min`: `½` to `x`, `½` to the bound |
//! | `sqrt(x)` | `x == 0` | `+∞` (so `dy = 0` gives NaN, as in JAX) |
//! | `powf(x, p)` w.r.t. `p` | `x == 0` | `0` |
//! | `hypot(a, b)` | `a == b == 0` | `0` |
//! | `floor`, `ceil`, `round`, `trunc`, `signum`, comparisons, integer casts | everywhere | `0` |
//!
//! ```
//! use autodiff_runtime::ops;
//! assert_eq!(ops::abs_d0(&0.0_f64, &1.0), 1.0);
//! assert_eq!(ops::max_d0(&2.0_f64, &2.0, &1.0), 0.5);
//! ```

mod arithmetic;
mod options;
#[macro_use]
mod elementary;
pub mod tensor;

pub use arithmetic::*;
pub use elementary::*;
pub use options::*;
