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
