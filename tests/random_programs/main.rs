//! Random differentiable functions, each checked against finite differences: one test
//! per function, `programs::check_p<k>`.
//!
//! `programs.rs` is written by `autodiff-fuzz` (see its first lines); `harness.rs` holds
//! the `program!` macro and the checker every function is tested with.
#![forbid(unsafe_code)]

#[macro_use]
mod harness;
// The generator's output is compared byte for byte with the file: rustfmt leaves it alone.
#[rustfmt::skip]
mod programs;
