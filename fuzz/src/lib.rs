//! A random-program differential tester for `#[differentiable]`.
//!
//! [`generate`] writes the source of a module of random, well-formed differentiable Rust
//! functions `p0`, `p1`, …, each in a `program!` invocation that also names its checker:
//! the harness ([`HARNESS`], `tests/random_programs/harness.rs`) compares the generated
//! gradient (`gradients_function!`) with `autodiff::check::finite_difference` and the
//! value of `value_and_gradients_function!` with the primal, bit for bit; then, at each
//! point and along a random direction `v`, forward mode: `jvp!`'s value with the primal
//! (bit for bit) and its tangent with ⟨∇f, v⟩ from the gradient and with the central
//! difference along `v`. A function forward mode refuses (`__FORWARD`: a construct it does
//! not take yet) skips the `jvp!` check with a `NOTE` line the soak counts by reason.
//! A function of `f64` scalars and slices that calls no other, or only functions marked
//! so (about one in three), is marked `#[differentiable(second_order)]` and its checker also compares `hvp!` along a
//! random vector with the central difference of the reverse gradient along it.
//!
//! The functions mix the constructs the README lists as supported: arithmetic, float
//! methods on safe domains, `let` and shadowing, `let mut` accumulators, `if`/`else` on
//! constant and on differentiable conditions, `for`/`while`/`loop` (with `break` on a
//! differentiable condition and an iteration cap), slices, local buffers, iterator
//! reductions, calls between generated functions, early `return` and `match` on integers;
//! slice programs with helpers taking `&[f64]` (called with whole slices and sub-slices of
//! every range form), local sub-slices, `&mut [f64]` helpers (in place, accumulating,
//! passing their buffer on, with or without a return value) on `let mut` buffers and on
//! the caller's `&mut` parameter, and fixed-size arrays; wrappers (about one function in
//! sixteen: one call of an earlier function, some of its parameters given constants, the
//! rest in another order); and, for about one function in six, a `params = [...]`
//! selection checked against the finite differences of only the
//! selected parameters ([`feature_counts`] counts them).
//! Values are kept bounded (squashing with `tanh`/`sin`, safe divisors, exponentials of
//! bounded arguments) so that finite differences are accurate.
//!
//! `tests/random_programs/programs.rs` of the `autodiff` package is
//! `generate(TEST_SEED, TEST_COUNT)`; the binary (`src/main.rs`) runs many more programs
//! in throwaway cargo projects and minimizes failures.
//!
//! The modules: [`Rng`] (`rng`); the expression tree (`expr`); a function as data, its
//! source text and the minimizer's edits ([`Func`], `program`); the generators of scalar
//! functions (`scalar`, with its expressions, statements and control flow), of ndarray
//! programs (`arrays`), of reduction loops (`reductions`), of slice programs with their
//! helpers and of `params` selections (`slices`), and of wrappers (`wrappers`); the text of generated
//! modules ([`render_test_file`], `render`).
#![forbid(unsafe_code)]
// `*self.rng.pick(&[..])` picks a `&str` out of a slice of them; without the `*` the
// element type is inferred as `str`, so clippy's auto-deref suggestion does not apply.
#![allow(clippy::explicit_auto_deref)]

mod arrays;
mod expr;
mod program;
mod reductions;
mod render;
mod rng;
mod scalar;
mod slices;
mod wrappers;

pub use program::{called_functions, Func, Node, Param, Stmt};
pub use render::{render_module_body, render_test_file, Rendered, ALLOWED_LINTS, HARNESS};
pub use rng::Rng;
pub use slices::feature_counts;

/// The seed of the checked-in `tests/random_programs/programs.rs`.
pub const TEST_SEED: u64 = 797;
/// How many functions the checked-in test file holds.
pub const TEST_COUNT: usize = 200;
/// The command that rewrites the checked-in test file (run from the workspace root).
pub const REGENERATE: &str =
    "cargo run -p autodiff-fuzz --release -- --emit tests/random_programs/programs.rs";

/// The functions of `generate(seed, count)`.
pub fn generate_functions(seed: u64, count: usize) -> Vec<Func> {
    let mut rng = Rng::new(seed);
    let mut funcs: Vec<Func> = Vec::with_capacity(count);
    for index in 0..count {
        // one function in eight is an array program, one in eight a reduction loop, one in
        // five a slice program
        let wrapper = match rng.chance(1.0 / 16.0) {
            true => wrappers::gen_wrapper(&mut rng, index, &funcs),
            false => None,
        };
        let mut f = if let Some(w) = wrapper {
            w
        } else if rng.chance(0.125) {
            arrays::gen_array_function(&mut rng, index)
        } else if rng.chance(1.0 / 7.0) {
            reductions::gen_reduction_function(&mut rng, index)
        } else if rng.chance(4.0 / 15.0) {
            slices::gen_slice_function(&mut rng, index)
        } else {
            scalar::gen_function(&mut rng, index, &funcs)
        };
        // drawn from the function's own seed: the stream above is left as it was
        slices::select_params(&mut f);
        f.calls_second_order = {
            let callees = f.callees();
            !callees.is_empty() && callees.iter().all(|&j| funcs[j].second_order())
        };
        if f.second_order() {
            f.features
                .insert("#[differentiable(second_order)]: hvp! checked");
        }
        funcs.push(f);
    }
    funcs
}

/// The source of a module with `count` random differentiable functions `p0`, `p1`, …,
/// each with its checker `check_p{k}` (`tests/random_programs/programs.rs` of the
/// `autodiff` package, compiled with [`HARNESS`]). The same `seed` always gives the same
/// text.
pub fn generate(seed: u64, count: usize) -> String {
    render_test_file(seed, &generate_functions(seed, count)).text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_checked_in_test_file_is_the_generators_output() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/random_programs/programs.rs"
        );
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        let generated = generate(TEST_SEED, TEST_COUNT);
        assert!(
            checked_in == generated,
            "tests/random_programs/programs.rs is not `generate({TEST_SEED}, {TEST_COUNT})`: regenerate it with `{REGENERATE}` (from the workspace root)"
        );
    }

    #[test]
    fn generation_is_deterministic_and_seed_dependent() {
        assert_eq!(generate(7, 20), generate(7, 20));
        assert_ne!(generate(7, 20), generate(8, 20));
    }

    #[test]
    fn calls_only_go_to_earlier_scalar_functions() {
        let funcs = generate_functions(3, 300);
        for f in &funcs {
            let wrapper = f.features.contains("wrapper: one call handed on");
            for j in f.callees() {
                assert!(j < f.index, "p{} calls p{j}", f.index);
                assert!(wrapper || funcs[j].callable());
            }
        }
    }

    #[test]
    fn deleting_statements_keeps_essential_ones() {
        let funcs = generate_functions(5, 50);
        for f in &funcs {
            let all: BTreeSet<u32> = f.deletable().into_iter().collect();
            let reduced = f.without(&all);
            assert!(reduced.deletable().is_empty());
            assert!(reduced.render_source().contains(&f.ret));
        }
    }
}
