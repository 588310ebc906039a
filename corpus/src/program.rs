//! Functions whose program is not differentiable the way the function it approximates is,
//! each with its program's derivative derived by hand.
//!
//! Automatic differentiation gives the derivative of the program as written. An iteration
//! whose steps are piecewise constant in the input (a bisection on the sign of a residual)
//! computes a function whose slope, which finite differences measure, is not the derivative
//! of any of its steps: every AD tool returns the program's derivative there. For these
//! functions the corpus checks the gradient against that derivative, derived by hand from
//! the published source, to rounding — not against finite differences — and says so in
//! `CORPUS.md`. The table is short on purpose: an entry is a claim about the published code,
//! checked by reading it.

/// `(crate, item, the derivative as a Rust expression of the argument tuple `a`, why)`.
pub const PROGRAM_DERIVATIVES: &[(&str, &str, &str, &str)] = &[(
    "statrs",
    "inv_digamma",
    "vec![a.0.exp()]",
    "`y = exp(x)`, then a bisection `y += i * signum(x - digamma(y))` whose steps have zero \
     derivative (`signum`'s), so the program's derivative is `exp(x)`; finite differences see \
     the slope of the inverse of digamma it approximates, `1 / trigamma(y)`",
)];

/// The hand-derived derivative expression for an item, if it has one.
pub fn expression(krate: &str, item: &str) -> Option<&'static str> {
    PROGRAM_DERIVATIVES
        .iter()
        .find(|(k, i, _, _)| *k == krate && *i == item)
        .map(|(_, _, e, _)| *e)
}

/// Why an item's gradient is checked against its program's own derivative.
pub fn why(krate: &str, item: &str) -> Option<&'static str> {
    PROGRAM_DERIVATIVES
        .iter()
        .find(|(k, i, _, _)| *k == krate && *i == item)
        .map(|(_, _, _, w)| *w)
}
