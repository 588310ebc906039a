//! Every diagnostic of the macro and the helpers, at its exact span: one case a file in
//! `tests/ui/`, named after the error it shows. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test compile_fail` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    if cfg!(any(feature = "nalgebra", feature = "serde")) {
        // With nalgebra in the dependency graph rustc writes ndarray's `Dim` with its path in
        // the list of implementations one case shows, and lists nalgebra's types among the
        // implementations another shows; with serde (loaded by the derive, and exporting an
        // `Option` of its own) it writes `std::option::Option` there. The messages are the
        // same.
        let mut cases: Vec<_> = std::fs::read_dir("tests/ui")
            .expect("tests/ui")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .filter(|p| {
                !p.ends_with("jacobian_of_a_struct_parameter.rs")
                    && !p.ends_with("method_named_like_an_array_operation.rs")
            })
            .collect();
        cases.sort();
        for case in cases {
            t.compile_fail(case);
        }
    } else {
        t.compile_fail("tests/ui/*.rs");
    }
}
