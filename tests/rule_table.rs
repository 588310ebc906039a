//! The macro's primitive table against the runtime's formulas: for every scalar rule
//! `<name>_d<k>`, called with exactly the values the table says it reads, the result must be
//! the central finite difference of the primitive at the row's sample point; and the
//! operands the emitter gives `dy` or `-dy` without calling a rule must have derivative
//! `1` or `-1`. A wrong entry in the table (a rule reading `x` where the formula needs `y`,
//! a wrong operand) fails here instead of giving a silently wrong gradient.

#[test]
fn every_scalar_rule_reads_what_the_table_says() {
    let checks: &[(&str, f64, f64)] = autodiff::__private::__rule_table_checks!();
    assert!(checks.len() > 50, "the table has {} checks", checks.len());
    let failures: Vec<String> = checks
        .iter()
        .filter(|(_, rule, fd)| (rule - fd).abs() > 1e-6 * fd.abs().max(1.0))
        .map(|(name, rule, fd)| format!("{name}: rule {rule}, finite difference {fd}"))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every scalar rule's tangent through the whole of forward mode: `jvp!` of a function
/// of the primitive alone (the tangent sweep the macro writes and the runtime formula it
/// calls), in `f64` and `f32`, at the row's sample point and two points near it, along each
/// differentiable operand and along all of them, against the fourth-order central
/// difference of the `f64` primitive along the direction (`h = 1e-3`: truncation error
/// ~1e-13 at the table's smooth sample points). Tolerances relative to `max(1, |fd|)`:
/// `1e-7` in f64, `1e-3` in f32 (ε ≈ 6e-8, a few operations).
#[test]
fn every_scalar_rules_tangent_matches_differences_in_f64_and_f32() {
    let checks: Vec<(String, f64, f64, f64)> = autodiff::__private::__tangent_table_checks!();
    assert!(checks.len() > 300, "the table has {} checks", checks.len());
    let failures: Vec<String> = checks
        .iter()
        .filter(|(_, t, fd, tol)| t.is_nan() || (t - fd).abs() > tol * fd.abs().max(1.0))
        .map(|(name, t, fd, _)| format!("{name}: jvp! {t}, finite difference {fd}"))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
