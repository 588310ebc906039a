//! Every diagnostic of the macro and the helpers, at its exact span: one case a file in
//! `tests/ui/`, named after the error it shows. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test compile_fail` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
