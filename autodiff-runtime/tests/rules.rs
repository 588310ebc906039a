//! Every scalar rule against central finite differences, on random points of its domain,
//! for f64 and f32 (property tests).
//!
//! Tolerances: the reference is the fourth-order central difference
//! `(−f(x+2h) + 8f(x+h) − 8f(x−h) + f(x−2h)) / 12h` in f64 with `h = 1e-3·max(1, |x|)`; its
//! truncation error is about `h⁴·|f⁽⁵⁾|/30` and its rounding error about `ε·|f|/h ≈ 2e-13·|f|`.
//! The domains below keep `|f⁽⁵⁾|` moderate (arguments bounded away from poles and
//! branch points), so `1e-7` relative (to `max(1, |fd|)`) leaves a wide margin while still
//! catching any wrong formula (which is off by O(1)). The f32 rules are compared with the
//! f64 finite difference to `1e-3` relative: f32 has 24 bits (ε ≈ 6e-8), and the rules
//! compute a few operations in f32.

use autodiff_runtime::check::finite_difference;
use autodiff_runtime::ops;
use proptest::prelude::*;

fn close(analytic: f64, numeric: f64, tolerance: f64) -> bool {
    (analytic - numeric).abs() <= tolerance * numeric.abs().max(1.0)
}

/// Unary rules reading `x` or `y`: (name, f, rule(x, y) with dy = 1, domain).
type Unary = (
    &'static str,
    fn(f64) -> f64,
    fn(f64, f64) -> f64,
    (f64, f64),
);

const UNARY: &[Unary] = &[
    ("sin", f64::sin, |x, _| ops::sin_d0(&x, &1.0), (-5.0, 5.0)),
    ("cos", f64::cos, |x, _| ops::cos_d0(&x, &1.0), (-5.0, 5.0)),
    ("tan", f64::tan, |_, y| ops::tan_d0(&y, &1.0), (-1.2, 1.2)),
    (
        "asin",
        f64::asin,
        |x, _| ops::asin_d0(&x, &1.0),
        (-0.9, 0.9),
    ),
    (
        "acos",
        f64::acos,
        |x, _| ops::acos_d0(&x, &1.0),
        (-0.9, 0.9),
    ),
    (
        "atan",
        f64::atan,
        |x, _| ops::atan_d0(&x, &1.0),
        (-5.0, 5.0),
    ),
    (
        "sinh",
        f64::sinh,
        |x, _| ops::sinh_d0(&x, &1.0),
        (-3.0, 3.0),
    ),
    (
        "cosh",
        f64::cosh,
        |x, _| ops::cosh_d0(&x, &1.0),
        (-3.0, 3.0),
    ),
    (
        "tanh",
        f64::tanh,
        |_, y| ops::tanh_d0(&y, &1.0),
        (-3.0, 3.0),
    ),
    (
        "asinh",
        f64::asinh,
        |x, _| ops::asinh_d0(&x, &1.0),
        (-5.0, 5.0),
    ),
    (
        "acosh",
        f64::acosh,
        |x, _| ops::acosh_d0(&x, &1.0),
        (1.2, 5.0),
    ),
    (
        "atanh",
        f64::atanh,
        |x, _| ops::atanh_d0(&x, &1.0),
        (-0.9, 0.9),
    ),
    ("exp", f64::exp, |_, y| ops::exp_d0(&y, &1.0), (-3.0, 3.0)),
    (
        "exp2",
        f64::exp2,
        |_, y| ops::exp2_d0(&y, &1.0),
        (-3.0, 3.0),
    ),
    (
        "exp_m1",
        f64::exp_m1,
        |_, y| ops::exp_m1_d0(&y, &1.0),
        (-3.0, 3.0),
    ),
    ("ln", f64::ln, |x, _| ops::ln_d0(&x, &1.0), (0.2, 10.0)),
    (
        "ln_1p",
        f64::ln_1p,
        |x, _| ops::ln_1p_d0(&x, &1.0),
        (-0.7, 10.0),
    ),
    (
        "log2",
        f64::log2,
        |x, _| ops::log2_d0(&x, &1.0),
        (0.2, 10.0),
    ),
    (
        "log10",
        f64::log10,
        |x, _| ops::log10_d0(&x, &1.0),
        (0.2, 10.0),
    ),
    (
        "sqrt",
        f64::sqrt,
        |_, y| ops::sqrt_d0(&y, &1.0),
        (0.1, 10.0),
    ),
    (
        "cbrt",
        f64::cbrt,
        |_, y| ops::cbrt_d0(&y, &1.0),
        (0.1, 10.0),
    ),
    ("abs", f64::abs, |x, _| ops::abs_d0(&x, &1.0), (0.01, 5.0)),
    (
        "recip",
        f64::recip,
        |_, y| ops::recip_d0(&y, &1.0),
        (0.2, 5.0),
    ),
    (
        "to_degrees",
        f64::to_degrees,
        |_, _| ops::to_degrees_d0(&1.0),
        (-5.0, 5.0),
    ),
    (
        "to_radians",
        f64::to_radians,
        |_, _| ops::to_radians_d0(&1.0),
        (-5.0, 5.0),
    ),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn unary_rules(t in 0.0..1.0f64, k in 0..UNARY.len()) {
        let (name, f, rule, (lo, hi)) = UNARY[k];
        let x = lo + t * (hi - lo);
        let fd = finite_difference(|p| f(p[0]), &[x])[0];
        let analytic = rule(x, f(x));
        prop_assert!(close(analytic, fd, 1e-7), "{name}'({x}) = {analytic}, finite difference {fd}");
        // `abs` is also checked on the negative side
        if name == "abs" {
            prop_assert_eq!(ops::abs_d0(&-x, &1.0), -1.0);
        }
    }

    #[test]
    fn unary_rules_f32(t in 0.0..1.0f64, k in 0..5usize) {
        // A sample of rules instantiated at f32.
        let x = 0.2 + t * 2.0;
        let (name, analytic, fd): (&str, f32, f64) = match k {
            0 => ("sin", ops::sin_d0(&(x as f32), &1.0), finite_difference(|p| p[0].sin(), &[x])[0]),
            1 => ("exp", ops::exp_d0(&(x as f32).exp(), &1.0), finite_difference(|p| p[0].exp(), &[x])[0]),
            2 => ("ln", ops::ln_d0(&(x as f32), &1.0), finite_difference(|p| p[0].ln(), &[x])[0]),
            3 => ("tanh", ops::tanh_d0(&(x as f32).tanh(), &1.0), finite_difference(|p| p[0].tanh(), &[x])[0]),
            _ => ("sqrt", ops::sqrt_d0(&(x as f32).sqrt(), &1.0), finite_difference(|p| p[0].sqrt(), &[x])[0]),
        };
        prop_assert!(close(f64::from(analytic), fd, 1e-3), "{name}'({x}) = {analytic} (f32), finite difference {fd}");
    }

    #[test]
    fn binary_arithmetic(a in -5.0..5.0f64, b in 0.3..5.0f64) {
        let grad = |f: &dyn Fn(f64, f64) -> f64| finite_difference(|p| f(p[0], p[1]), &[a, b]);
        let checks: [(&str, [f64; 2], Vec<f64>); 5] = [
            ("add", [ops::add_d0(&1.0), ops::add_d1(&1.0)], grad(&|a, b| a + b)),
            ("sub", [ops::sub_d0(&1.0), ops::sub_d1(&1.0)], grad(&|a, b| a - b)),
            ("mul", [ops::mul_d0(&b, &1.0), ops::mul_d1(&a, &1.0)], grad(&|a, b| a * b)),
            ("div", [ops::div_d0(&b, &1.0), ops::div_d1(&b, &(a / b), &1.0)], grad(&|a, b| a / b)),
            ("neg", [ops::neg_d0(&1.0), 0.0], grad(&|a, _| -a)),
        ];
        for (name, analytic, fd) in checks {
            prop_assert!(close(analytic[0], fd[0], 1e-7) && close(analytic[1], fd[1], 1e-7), "{name} at ({a}, {b}): {analytic:?} vs {fd:?}");
        }
    }

    #[test]
    fn rem_away_from_its_jumps(a in 0.1..9.9f64, b in 0.7..3.0f64) {
        // a % b jumps where a = k·b for an integer k. The finite difference samples up to
        // 2h = 2e-3·max(1, |x|) away along each axis, so keep both coordinates three times
        // that far from the nearest jump: |a − k·b| along a and |b − a/k| along b.
        let k = (a / b).round();
        let margin = |x: f64| 6e-3 * x.abs().max(1.0);
        prop_assume!((a - k * b).abs() > margin(a));
        prop_assume!(k == 0.0 || (b - a / k).abs() > margin(b));
        let fd = finite_difference(|p| p[0] % p[1], &[a, b]);
        let analytic = [ops::rem_d0(&1.0), ops::rem_d1(&a, &b, &1.0)];
        prop_assert!(close(analytic[0], fd[0], 1e-7) && close(analytic[1], fd[1], 1e-7), "{analytic:?} vs {fd:?}");
    }

    #[test]
    fn binary_methods(a in 0.3..4.0f64, b in 0.3..4.0f64, n in -4..5i32) {
        let fd = |f: &dyn Fn(f64, f64) -> f64| finite_difference(|p| f(p[0], p[1]), &[a, b]);
        let y_powf = a.powf(b);
        let y_log = a.log(b.max(1.5));
        let cases: Vec<(&str, [f64; 2], Vec<f64>)> = vec![
            ("powf", [ops::powf_d0(&a, &b, &1.0), ops::powf_d1(&a, &y_powf, &1.0)], fd(&|a, b| a.powf(b))),
            ("atan2", [ops::atan2_d0(&a, &b, &1.0), ops::atan2_d1(&a, &b, &1.0)], fd(&|a, b| a.atan2(b))),
            ("hypot", [ops::hypot_d0(&a, &a.hypot(b), &1.0), ops::hypot_d1(&b, &a.hypot(b), &1.0)], fd(&|a, b| a.hypot(b))),
            ("log", [ops::log_d0(&a, &b.max(1.5), &1.0), ops::log_d1(&b.max(1.5), &y_log, &1.0)], finite_difference(|p| p[0].log(p[1]), &[a, b.max(1.5)])),
            ("powi", [ops::powi_d0(&a, &n, &1.0), 0.0], vec![finite_difference(|p| p[0].powi(n), &[a])[0], 0.0]),
            ("mul_add", [ops::mul_add_d0(&b, &1.0), ops::mul_add_d1(&a, &1.0)], fd(&|a, b| a.mul_add(b, 0.5))),
        ];
        for (name, analytic, numeric) in cases {
            prop_assert!(close(analytic[0], numeric[0], 1e-6) && close(analytic[1], numeric[1], 1e-6), "{name} at ({a}, {b}, {n}): {analytic:?} vs {numeric:?}");
        }
    }

    #[test]
    fn max_min_clamp_away_from_ties(a in -4.0..4.0f64, b in -4.0..4.0f64) {
        prop_assume!((a - b).abs() > 1e-2);
        let fd_max = finite_difference(|p| p[0].max(p[1]), &[a, b]);
        let fd_min = finite_difference(|p| p[0].min(p[1]), &[a, b]);
        prop_assert!(close(ops::max_d0(&a, &b, &1.0), fd_max[0], 1e-7) && close(ops::max_d1(&a, &b, &1.0), fd_max[1], 1e-7));
        prop_assert!(close(ops::min_d0(&a, &b, &1.0), fd_min[0], 1e-7) && close(ops::min_d1(&a, &b, &1.0), fd_min[1], 1e-7));
        let (lo, hi) = (a.min(b), a.max(b));
        let x = 0.37 * lo + 0.63 * hi + 0.5 * (a * 7.0).sin(); // sometimes inside, sometimes out
        prop_assume!((x - lo).abs() > 1e-2 && (x - hi).abs() > 1e-2);
        let fd = finite_difference(|p| p[0].clamp(p[1], p[2]), &[x, lo, hi]);
        let analytic = [ops::clamp_d0(&x, &lo, &hi, &1.0), ops::clamp_d1(&x, &lo, &hi, &1.0), ops::clamp_d2(&x, &lo, &hi, &1.0)];
        for k in 0..3 {
            prop_assert!(close(analytic[k], fd[k], 1e-7), "clamp({x}, {lo}, {hi}): {analytic:?} vs {fd:?}");
        }
    }
}
