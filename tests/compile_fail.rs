//! Every diagnostic of the macro and the helpers, at its exact span: one case a file in
//! `tests/ui/`, named after the error it shows. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test compile_fail` and read the diff.

/// The expected messages are those of the default build. With the `serde` feature,
/// `#[derive(Differentiable)]` loads serde, which also exports an `Option`, and rustc then
/// prints `std::option::Option` where it printed `Option`.
#[test]
#[cfg_attr(
    feature = "serde",
    ignore = "the expected messages are the default build's"
)]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
