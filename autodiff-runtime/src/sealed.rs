//! The marker that seals the runtime's traits ([`Real`](crate::Real) and the traits of
//! [`ops::tensor`](crate::ops::tensor)): each has it as a supertrait, and no other crate
//! can name it, so only the implementations written in this crate exist.
//!
//! ```compile_fail,E0277
//! struct Mine;
//! impl autodiff_runtime::ops::tensor::Val for Mine {
//!     type V = Mine;
//!     fn val(&self) -> &Mine {
//!         self
//!     }
//! }
//! ```

/// Implemented for the types the sealed traits are implemented for: the scalars, ndarray's
/// arrays, references to these, and the dimensions `dot` multiplies.
pub trait Sealed {}

impl Sealed for f32 {}
impl Sealed for f64 {}
impl<S: ndarray::RawData, D> Sealed for ndarray::ArrayBase<S, D> {}
impl<T: Sealed + ?Sized> Sealed for &T {}
impl Sealed for ndarray::Ix1 {}
impl Sealed for ndarray::Ix2 {}
