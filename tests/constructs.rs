//! One test per language construct `#[differentiable]` accepts in scalar code. Each
//! generated gradient is compared with the finite difference of the function as written
//! (`autodiff::check`) and with a derivative worked out by hand in the test.
//!
//! The functions are written the way users write them, including forms clippy would
//! rewrite (`.clone()` of a float, `let` then return, an explicit final `return`): those
//! are the constructs under test.
#![allow(clippy::clone_on_copy, clippy::let_and_return, clippy::needless_return)]

use autodiff::check::{assert_gradient_close, finite_difference, first_mismatch};
use autodiff::prelude::*;

// ---------------------------------------------------------------------------------------
// Checking helpers
// ---------------------------------------------------------------------------------------

/// Tolerance against finite differences of `f64` functions (relative, see `check`).
const FD_TOL: f64 = 1e-7;
/// Tolerance against hand-derived formulas, relative: a few ulps.
const HAND_TOL: f64 = 1e-13;

/// `analytic` agrees with the finite difference of `f` at `at`.
#[track_caller]
fn assert_fd_tol(name: &str, at: &[f64], analytic: &[f64], tol: f64, f: impl FnMut(&[f64]) -> f64) {
    let numeric = finite_difference(f, at);
    if first_mismatch(analytic, &numeric, tol).is_some() {
        eprintln!("`{name}` at {at:?}: generated gradient vs finite difference");
    }
    assert_gradient_close(analytic, &numeric, tol);
}

#[track_caller]
fn assert_fd(name: &str, at: &[f64], analytic: &[f64], f: impl FnMut(&[f64]) -> f64) {
    assert_fd_tol(name, at, analytic, FD_TOL, f);
}

/// `actual` equals the hand-derived `expected` to within `tol` relative (exactly at 0).
#[track_caller]
fn assert_hand_tol(name: &str, at: &[f64], actual: &[f64], expected: &[f64], tol: f64) {
    assert_eq!(actual.len(), expected.len());
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let ok = a == e || (a - e).abs() <= tol * e.abs();
        assert!(
            ok,
            "`{name}` at {at:?}: d/d(input {i}) is {a:e}, by hand {e:e} (difference {:e})",
            (a - e).abs()
        );
    }
}

#[track_caller]
fn assert_hand(name: &str, at: &[f64], actual: &[f64], expected: &[f64]) {
    assert_hand_tol(name, at, actual, expected, HAND_TOL);
}

/// An `f32` gradient against the hand-derived `f64` value: `1e-5 · max(1, |expected|)`.
#[track_caller]
fn assert_hand_f32(name: &str, at: &[f64], actual: &[f32], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len());
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let a = f64::from(*a);
        assert!(
            (a - e).abs() <= 1e-5 * e.abs().max(1.0),
            "`{name}` (f32) at {at:?}: d/d(input {i}) is {a:e}, by hand {e:e}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Literals and parameters
// ---------------------------------------------------------------------------------------

#[differentiable]
fn literals(x: f64) -> f64 {
    2.5 * x + 1e-1 - 3.0 / x + 4_f64 * x * x - 0.5f64
}

#[test]
fn literal_constants() {
    for x in [-1.5, 0.7, 2.0] {
        let g: f64 = gradients_function!(literals)(x);
        assert_fd("literals", &[x], &[g], |v| literals(v[0]));
        assert_hand("literals", &[x], &[g], &[2.5 + 3.0 / (x * x) + 8.0 * x]);
    }
}

#[differentiable]
fn constant_output(x: f64) -> f64 {
    let _ = x;
    42.0
}

#[test]
fn a_literal_result_has_zero_gradient() {
    for x in [-1.5, 0.7] {
        let g: f64 = gradients_function!(constant_output)(x);
        assert_fd("constant_output", &[x], &[g], |v| constant_output(v[0]));
        assert_eq!(g, 0.0);
    }
}

/// Every parameter, one used three times, one not at all.
#[differentiable]
fn parameters(a: f64, b: f64, c: f64, unused: f64) -> f64 {
    let _ = unused;
    a * b - c / b + a * a * a
}

#[test]
fn parameters_each_get_their_gradient() {
    for (a, b, c, u) in [(1.5, -2.0, 0.5, 3.0), (-0.3, 0.8, 2.0, -1.0)] {
        let (ga, gb, gc, gu) = gradients_function!(parameters)(a, b, c, u);
        assert_fd("parameters", &[a, b, c, u], &[ga, gb, gc, gu], |v| {
            parameters(v[0], v[1], v[2], v[3])
        });
        assert_hand(
            "parameters",
            &[a, b, c, u],
            &[ga, gb, gc, gu],
            &[b + 3.0 * a * a, a + c / (b * b), -1.0 / b, 0.0],
        );
    }
}

// ---------------------------------------------------------------------------------------
// `let`, shadowing, blocks, parentheses, explicit `return`
// ---------------------------------------------------------------------------------------

#[differentiable]
fn shadowing(x: f64) -> f64 {
    let y = x * x; // x²
    let y = y + x; // x² + x
    let x: f64 = y * 3.0; // 3(x² + x), shadows the parameter
    let z = y.clone();
    x * z // 3(x² + x)²
}

#[test]
fn let_with_shadowing() {
    for x in [-1.5, 0.3, 2.0] {
        let g: f64 = gradients_function!(shadowing)(x);
        assert_fd("shadowing", &[x], &[g], |v| shadowing(v[0]));
        assert_hand(
            "shadowing",
            &[x],
            &[g],
            &[6.0 * (x * x + x) * (2.0 * x + 1.0)],
        );
    }
}

#[differentiable]
fn blocks(x: f64, y: f64) -> f64 {
    let t = x * y;
    let u = {
        let t = x + 1.0; // shadows `t` inside the block only
        t * t
    };
    let w = {
        let t = t * 2.0; // reads the outer `t`
        {
            let t = t + y;
            t
        }
    };
    // The outer `t` is still `x·y` here: 3xy + (x + 1)² + y.
    t + u + w
}

#[test]
fn nested_blocks_do_not_leak_their_bindings() {
    for (x, y) in [(1.5, -2.0), (-0.3, 0.8), (2.0, 3.0)] {
        assert_eq!(
            blocks(x, y),
            x * y + (x + 1.0) * (x + 1.0) + (2.0 * (x * y) + y)
        );
        let (gx, gy) = gradients_function!(blocks)(x, y);
        assert_fd("blocks", &[x, y], &[gx, gy], |v| blocks(v[0], v[1]));
        assert_hand(
            "blocks",
            &[x, y],
            &[gx, gy],
            &[3.0 * y + 2.0 * (x + 1.0), 3.0 * x + 1.0],
        );
    }
}

#[differentiable]
fn parentheses(x: f64, y: f64) -> f64 {
    (x - (y * (x + 2.0))) / (y)
}

#[test]
fn parentheses_group_as_written() {
    // x/y − x − 2
    for (x, y) in [(1.5, -2.0), (-0.3, 0.8), (2.0, 3.0)] {
        let (gx, gy) = gradients_function!(parentheses)(x, y);
        assert_fd("parentheses", &[x, y], &[gx, gy], |v| {
            parentheses(v[0], v[1])
        });
        assert_hand(
            "parentheses",
            &[x, y],
            &[gx, gy],
            &[1.0 / y - 1.0, -x / (y * y)],
        );
    }
}

#[differentiable]
fn with_assert(x: f64) -> f64 {
    assert!(x > 0.0, "x must be positive, got {}", x);
    x.ln() * x
}

#[test]
fn statements_evaluated_for_their_effect() {
    for x in [0.5, 2.0] {
        let g: f64 = gradients_function!(with_assert)(x);
        assert_fd("with_assert", &[x], &[g], |v| with_assert(v[0]));
        assert_hand("with_assert", &[x], &[g], &[x.ln() + 1.0]);
    }
}

// ---------------------------------------------------------------------------------------
// Tuples
// ---------------------------------------------------------------------------------------

#[differentiable]
fn tuple_fields(x: f64, y: f64) -> f64 {
    let p = (x * y, x - y);
    let q = (p.1, (p.0, 2.0));
    // xy(x − y) + 2xy
    p.0 * q.0 + (q.1).0 * (q.1).1
}

#[test]
fn tuples_built_and_read_by_field() {
    for (x, y) in [(1.5, -2.0), (-0.3, 0.8), (2.0, 3.0)] {
        let (gx, gy) = gradients_function!(tuple_fields)(x, y);
        assert_fd("tuple_fields", &[x, y], &[gx, gy], |v| {
            tuple_fields(v[0], v[1])
        });
        assert_hand(
            "tuple_fields",
            &[x, y],
            &[gx, gy],
            &[2.0 * x * y - y * y + 2.0 * y, x * x - 2.0 * x * y + 2.0 * x],
        );
    }
}

#[differentiable]
fn destructuring(x: f64, y: f64) -> f64 {
    let (a, b) = (x, y);
    let (a, b) = (b, a * 2.0); // a = y, b = 2x
    let ((c, _), d): ((f64, f64), f64) = ((a + b, x), a * b); // c = y + 2x, d = 2xy
                                                              // y/(2x) + 2xy² + 4x²y
    a / b + c * d
}

#[test]
fn tuples_destructured_by_let() {
    for (x, y) in [(1.5, -2.0), (-0.3, 0.8), (2.0, 3.0)] {
        let (gx, gy) = gradients_function!(destructuring)(x, y);
        assert_fd("destructuring", &[x, y], &[gx, gy], |v| {
            destructuring(v[0], v[1])
        });
        assert_hand(
            "destructuring",
            &[x, y],
            &[gx, gy],
            &[
                -y / (2.0 * x * x) + 2.0 * y * y + 8.0 * x * y,
                1.0 / (2.0 * x) + 4.0 * x * y + 4.0 * x * x,
            ],
        );
    }
}

// ---------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------

#[differentiable]
fn unary_minus(x: f64, y: f64) -> f64 {
    // (−x)(−(y − x)) + (−(−y)) = xy − x² + y
    -x * -(y - x) + -(-y)
}

#[test]
fn negation() {
    for (x, y) in [(1.5, -2.0), (-0.3, 0.8)] {
        let (gx, gy) = gradients_function!(unary_minus)(x, y);
        assert_fd("unary_minus", &[x, y], &[gx, gy], |v| {
            unary_minus(v[0], v[1])
        });
        assert_hand("unary_minus", &[x, y], &[gx, gy], &[y - 2.0 * x, x + 1.0]);
    }
}

#[differentiable]
fn arithmetic(x: f64, y: f64) -> f64 {
    (x + y) * (x - y) / y + x % y
}

#[test]
fn add_sub_mul_div_rem() {
    // (x² − y²)/y + (x − y·trunc(x/y)); points away from the jumps of `%`.
    for (x, y) in [(7.3, 2.0), (-5.5, 1.5), (2.2, 3.1)] {
        let (gx, gy) = gradients_function!(arithmetic)(x, y);
        assert_fd("arithmetic", &[x, y], &[gx, gy], |v| arithmetic(v[0], v[1]));
        let q = (x / y).trunc();
        assert_hand(
            "arithmetic",
            &[x, y],
            &[gx, gy],
            &[2.0 * x / y + 1.0, -x * x / (y * y) - 1.0 - q],
        );
    }
}

// ---------------------------------------------------------------------------------------
// Casts, integer and bool locals
// ---------------------------------------------------------------------------------------

#[differentiable]
fn integer_and_bool_locals(x: f64) -> f64 {
    let n = 3;
    let k = n * 2; // 6
    let m = (k % 4) as f64; // 2.0
    let c = x > 0.0;
    let sign = if c { 1.0 } else { -1.0 };
    x.powi(k) * m + sign * x
}

#[test]
fn integer_and_bool_locals_are_constants() {
    for x in [-1.2, 0.7, 1.5] {
        let g: f64 = gradients_function!(integer_and_bool_locals)(x);
        assert_fd("integer_and_bool_locals", &[x], &[g], |v| {
            integer_and_bool_locals(v[0])
        });
        let sign = if x > 0.0 { 1.0 } else { -1.0 };
        assert_hand(
            "integer_and_bool_locals",
            &[x],
            &[g],
            &[12.0 * x.powi(5) + sign],
        );
    }
}

#[differentiable]
fn integer_casts(x: f64) -> f64 {
    let k = (x * 10.0) as i32;
    let r = x.round() as i64;
    x * f64::from(k) + (r as f64) + x
}

#[test]
fn casts_to_integers_have_zero_derivative() {
    // d/dx = k + 1 with k = trunc(10x) held constant; points away from the steps.
    for x in [0.37, 1.23, -0.84] {
        let g: f64 = gradients_function!(integer_casts)(x);
        assert_fd("integer_casts", &[x], &[g], |v| integer_casts(v[0]));
        assert_hand("integer_casts", &[x], &[g], &[(x * 10.0).trunc() + 1.0]);
    }
}

// ---------------------------------------------------------------------------------------
// stop_gradient
// ---------------------------------------------------------------------------------------

#[differentiable]
fn stopped(x: f64, y: f64) -> f64 {
    let s = stop_gradient(x * y);
    s * x + stop_gradient(y) * y
}

#[test]
fn stop_gradient_treats_its_value_as_a_constant() {
    for (x, y) in [(1.5, -2.0), (-0.3, 0.8)] {
        assert_eq!(stopped(x, y), (x * y) * x + y * y);
        let (gx, gy) = gradients_function!(stopped)(x, y);
        // The truth: the same function with the stopped values frozen at this point.
        let (s, t) = (x * y, y);
        assert_fd("stopped (frozen)", &[x, y], &[gx, gy], |v| {
            s * v[0] + t * v[1]
        });
        assert_hand("stopped", &[x, y], &[gx, gy], &[x * y, y]);
    }
}

// ---------------------------------------------------------------------------------------
// Calls of other differentiable functions
// ---------------------------------------------------------------------------------------

#[differentiable]
fn level3(u: f64) -> f64 {
    u.sin() * u
}

#[differentiable]
fn level2(x: f64, y: f64) -> f64 {
    level3(x * y) + y
}

#[differentiable]
fn level1(x: f64, y: f64) -> f64 {
    level2(x, y).exp() - level3(y)
}

#[test]
fn calls_nested_three_deep() {
    let d3 = |u: f64| u.sin() + u * u.cos();
    for (x, y) in [(0.5, -1.2), (1.1, 0.4), (-0.7, 0.9)] {
        let (gx, gy) = gradients_function!(level1)(x, y);
        assert_fd("level1", &[x, y], &[gx, gy], |v| level1(v[0], v[1]));
        let e = level2(x, y).exp();
        assert_hand(
            "level1",
            &[x, y],
            &[gx, gy],
            &[e * y * d3(x * y), e * (x * d3(x * y) + 1.0) - d3(y)],
        );
    }
}

#[differentiable]
fn cubic_plus_sin<T: Float>(x: T) -> T {
    x.powi(3) + x.sin() * x
}

#[differentiable]
fn calls_generic(x: f64) -> f64 {
    cubic_plus_sin(x) * 2.0
}

#[differentiable]
fn generic_calls_generic<T: Float>(x: T, y: T) -> T {
    cubic_plus_sin(x * y) / y
}

#[test]
fn generic_function_called_from_f64_code_and_used_with_f32() {
    let d = |x: f64| 3.0 * x * x + x.sin() + x * x.cos();
    for x in [-1.2, 0.4, 1.5] {
        let g: f64 = gradients_function!(calls_generic)(x);
        assert_fd("calls_generic", &[x], &[g], |v| calls_generic(v[0]));
        assert_hand("calls_generic", &[x], &[g], &[2.0 * d(x)]);

        let g32: f32 = gradients_function!(cubic_plus_sin)(x as f32);
        let xd = f64::from(x as f32);
        assert_hand_f32("cubic_plus_sin::<f32>", &[xd], &[g32], &[d(xd)]);
    }
    for (x, y) in [(0.5_f32, -1.25_f32), (1.5, 0.75)] {
        let (gx, gy) = gradients_function!(generic_calls_generic)(x, y);
        let (xd, yd) = (f64::from(x), f64::from(y));
        let u = xd * yd;
        let c = u.powi(3) + u.sin() * u;
        let expected = [d(u), (xd * d(u) * yd - c) / (yd * yd)];
        assert_hand_f32(
            "generic_calls_generic::<f32>",
            &[xd, yd],
            &[gx, gy],
            &expected,
        );
        let (gx, gy) = gradients_function!(generic_calls_generic)(xd, yd);
        assert_fd("generic_calls_generic::<f64>", &[xd, yd], &[gx, gy], |v| {
            generic_calls_generic(v[0], v[1])
        });
        assert_hand(
            "generic_calls_generic::<f64>",
            &[xd, yd],
            &[gx, gy],
            &expected,
        );
    }
}

#[differentiable]
fn with_constants(x: f64, n: usize, flag: bool) -> f64 {
    let p = x.powi(n as i32);
    let scale = if flag { n as f64 } else { 1.0 };
    p * scale
}

#[differentiable]
fn calls_with_constants(x: f64) -> f64 {
    with_constants(x * 2.0, 3, true) + with_constants(x, 2, false)
}

#[test]
fn constant_parameters_usize_and_bool() {
    for x in [-1.2, 0.4, 1.5] {
        for (n, flag) in [(3_usize, true), (2, false), (4, true)] {
            // One differentiable parameter: the bare gradient, whatever the constants.
            let g: f64 = gradients_function!(with_constants)(x, n, flag);
            assert_fd("with_constants", &[x], &[g], |v| {
                with_constants(v[0], n, flag)
            });
            let scale = if flag { n as f64 } else { 1.0 };
            assert_hand(
                "with_constants",
                &[x],
                &[g],
                &[scale * n as f64 * x.powi(n as i32 - 1)],
            );
            let named: f64 = gradients_function!(with_constants, params = ["x"])(x, n, flag);
            let positional: f64 = gradients_function!(with_constants, params = [0])(x, n, flag);
            assert_eq!((named, positional), (g, g));
        }
        // 3·3·(2x)²·2 + 2x
        let g: f64 = gradients_function!(calls_with_constants)(x);
        assert_fd("calls_with_constants", &[x], &[g], |v| {
            calls_with_constants(v[0])
        });
        assert_hand(
            "calls_with_constants",
            &[x],
            &[g],
            &[18.0 * (2.0 * x) * (2.0 * x) + 2.0 * x],
        );
    }
}

#[differentiable]
fn no_grad_param(x: f64, #[no_grad] s: f64) -> f64 {
    x * s + s.sin() * x.exp()
}

#[test]
fn no_grad_parameter_has_no_gradient() {
    for (x, s) in [(0.5, 2.0), (-1.0, 0.3)] {
        // The only gradient is that of `x`: it comes back bare, `s` is absent.
        let g: f64 = gradients_function!(no_grad_param)(x, s);
        assert_fd("no_grad_param", &[x], &[g], |v| no_grad_param(v[0], s));
        assert_hand("no_grad_param", &[x], &[g], &[s + s.sin() * x.exp()]);
        let (value, pullback) = vjp!(no_grad_param)(x, s);
        assert_eq!(value.to_bits(), no_grad_param(x, s).to_bits());
        let from_vjp: f64 = pullback(1.0);
        assert_eq!(from_vjp, g);
    }
}

/// Coefficients of a rational approximation, a plain struct of data (no
/// `Differentiable`), as generated approximation code hands them over: by value.
struct Rational {
    a: f64,
    s: f64,
    p: [f64; 2],
    q: Vec<f64>,
}

#[differentiable]
fn rational_by_value(f: f64, #[no_grad] c: Rational) -> f64 {
    let d = f - c.a;
    (c.s + c.p[0] * d + c.p[1] * d * d) / (1.0 + c.q[0] * d + c.q[1] * d * d)
}

#[test]
fn plain_struct_passed_by_value_is_a_constant() {
    let make = || Rational {
        a: 0.25,
        s: 0.5,
        p: [1.5, -0.75],
        q: vec![0.2, 0.4],
    };
    for f in [-0.7, 0.3, 1.1] {
        let g: f64 = gradients_function!(rational_by_value)(f, make());
        assert_fd("rational_by_value", &[f], &[g], |v| {
            rational_by_value(v[0], make())
        });
        // d/df (n/m) = (n'm - nm')/m², d = f - a
        let c = make();
        let d = f - c.a;
        let (n, m) = (
            c.s + c.p[0] * d + c.p[1] * d * d,
            1.0 + c.q[0] * d + c.q[1] * d * d,
        );
        let (dn, dm) = (c.p[0] + 2.0 * c.p[1] * d, c.q[0] + 2.0 * c.q[1] * d);
        let hand = (dn * m - n * dm) / (m * m);
        assert_hand("rational_by_value", &[f], &[g], &[hand]);
        let (value, pullback) = vjp!(rational_by_value)(f, make());
        assert_eq!(value.to_bits(), rational_by_value(f, make()).to_bits());
        assert_eq!(pullback(1.0), g);
        let (value, tangent) = jvp!(rational_by_value)(f, make(), 1.0);
        assert_eq!(value.to_bits(), rational_by_value(f, make()).to_bits());
        assert_hand("jvp of rational_by_value", &[f], &[tangent], &[hand]);
    }
}

#[differentiable]
fn scaled_exp(a: f64, b: f64) -> f64 {
    a * b.exp()
}

#[differentiable]
fn literal_arguments(x: f64) -> f64 {
    scaled_exp(2.0, x) + scaled_exp(x, 0.5) + scaled_exp(1.5, -0.25)
}

#[test]
fn literal_passed_to_a_differentiable_parameter() {
    for x in [-1.2, 0.4, 1.5] {
        let g: f64 = gradients_function!(literal_arguments)(x);
        assert_fd("literal_arguments", &[x], &[g], |v| literal_arguments(v[0]));
        assert_hand(
            "literal_arguments",
            &[x],
            &[g],
            &[2.0 * x.exp() + 0.5_f64.exp()],
        );
    }
}

// ---------------------------------------------------------------------------------------
// The helpers: params by name and position, value_and_gradients_function!
// ---------------------------------------------------------------------------------------

#[differentiable]
fn four(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1.sin() + w2 * x2 * x2 + w1 * w2
}

/// The hand-derived gradient of `four`, in signature order.
fn four_grad(w1: f64, x1: f64, w2: f64, x2: f64) -> [f64; 4] {
    [x1.sin() + w2, w1 * x1.cos(), x2 * x2 + w1, 2.0 * w2 * x2]
}

#[test]
fn gradients_function_every_parameter() {
    let (w1, x1, w2, x2) = (0.5, 1.2, -1.5, 0.75);
    let (a, b, c, d) = gradients_function!(four)(w1, x1, w2, x2);
    assert_fd("four", &[w1, x1, w2, x2], &[a, b, c, d], |v| {
        four(v[0], v[1], v[2], v[3])
    });
    assert_hand(
        "four",
        &[w1, x1, w2, x2],
        &[a, b, c, d],
        &four_grad(w1, x1, w2, x2),
    );
}

#[test]
fn gradients_function_params_by_name_in_any_order() {
    let (w1, x1, w2, x2) = (0.5, 1.2, -1.5, 0.75);
    let g = four_grad(w1, x1, w2, x2);
    let (dx2, dw1) = gradients_function!(four, params = ["x2", "w1"])(w1, x1, w2, x2);
    assert_hand(
        "four [x2, w1]",
        &[w1, x1, w2, x2],
        &[dx2, dw1],
        &[g[3], g[0]],
    );
    let (dw2, dx1, dx2b) = gradients_function!(four, params = ["w2", "x1", "x2"])(w1, x1, w2, x2);
    assert_hand(
        "four [w2, x1, x2]",
        &[w1, x1, w2, x2],
        &[dw2, dx1, dx2b],
        &[g[2], g[1], g[3]],
    );
}

#[test]
fn gradients_function_params_by_position() {
    let (w1, x1, w2, x2) = (0.5, 1.2, -1.5, 0.75);
    let g = four_grad(w1, x1, w2, x2);
    let (dw2, dw1) = gradients_function!(four, params = [2, 0])(w1, x1, w2, x2);
    assert_hand("four [2, 0]", &[w1, x1, w2, x2], &[dw2, dw1], &[g[2], g[0]]);
    let (dx2, dx1) = gradients_function!(four, params = ["x2", 1])(w1, x1, w2, x2);
    assert_hand(
        "four [\"x2\", 1]",
        &[w1, x1, w2, x2],
        &[dx2, dx1],
        &[g[3], g[1]],
    );
}

#[test]
fn gradients_function_single_param_is_bare() {
    let (w1, x1, w2, x2) = (0.5, 1.2, -1.5, 0.75);
    let g = four_grad(w1, x1, w2, x2);
    let dx1: f64 = gradients_function!(four, params = ["x1"])(w1, x1, w2, x2);
    let dx2: f64 = gradients_function!(four, params = [3])(w1, x1, w2, x2);
    assert_hand(
        "four [x1] / [3]",
        &[w1, x1, w2, x2],
        &[dx1, dx2],
        &[g[1], g[3]],
    );
    // …and the same numbers as the full gradient.
    let all = gradients_function!(four)(w1, x1, w2, x2);
    assert_eq!((dx1, dx2), (all.1, all.3));
}

#[test]
fn value_and_gradients_function_returns_the_exact_primal() {
    for (w1, x1, w2, x2) in [(0.5, 1.2, -1.5, 0.75), (-2.0, 0.1, 3.0, -1.25)] {
        let g = four_grad(w1, x1, w2, x2);
        let (value, (dx1, dw2)) =
            value_and_gradients_function!(four, params = ["x1", "w2"])(w1, x1, w2, x2);
        assert_eq!(value.to_bits(), four(w1, x1, w2, x2).to_bits());
        assert_hand(
            "four [x1, w2]",
            &[w1, x1, w2, x2],
            &[dx1, dw2],
            &[g[1], g[2]],
        );
        let (value, grads) = value_and_gradients_function!(four)(w1, x1, w2, x2);
        assert_eq!(value.to_bits(), four(w1, x1, w2, x2).to_bits());
        assert_eq!(grads, gradients_function!(four)(w1, x1, w2, x2));
        let (value, dx) = value_and_gradients_function!(level1)(x1, x2);
        assert_eq!(value.to_bits(), level1(x1, x2).to_bits());
        assert_eq!(dx, gradients_function!(level1)(x1, x2));
    }
}

// ---------------------------------------------------------------------------------------
// Where the function is declared
// ---------------------------------------------------------------------------------------

#[test]
fn differentiable_fn_declared_inside_a_function_body() {
    #[differentiable]
    fn local(x: f64, y: f64) -> f64 {
        x.hypot(y) * x
    }
    for (x, y) in [(3.0, 4.0), (-1.2, 0.5)] {
        let (gx, gy) = gradients_function!(local)(x, y);
        assert_fd("local", &[x, y], &[gx, gy], |v| local(v[0], v[1]));
        let h = x.hypot(y);
        assert_hand("local", &[x, y], &[gx, gy], &[h + x * x / h, x * y / h]);
    }
}

#[differentiable]
fn outer_with_inner_fn(x: f64) -> f64 {
    #[differentiable]
    fn inner(t: f64) -> f64 {
        t * t.cos()
    }
    inner(x) + inner(2.0 * x)
}

#[test]
fn differentiable_fn_declared_inside_a_differentiable_fn() {
    let d = |t: f64| t.cos() - t * t.sin();
    for x in [-1.2, 0.4, 1.5] {
        let g: f64 = gradients_function!(outer_with_inner_fn)(x);
        assert_fd("outer_with_inner_fn", &[x], &[g], |v| {
            outer_with_inner_fn(v[0])
        });
        assert_hand(
            "outer_with_inner_fn",
            &[x],
            &[g],
            &[d(x) + 2.0 * d(2.0 * x)],
        );
    }
}

mod geometry {
    use autodiff::prelude::*;

    /// The area of a circular sector.
    #[differentiable]
    pub fn sector_area(r: f64, theta: f64) -> f64 {
        0.5 * r * r * theta
    }

    pub mod deeper {
        use autodiff::prelude::*;

        #[differentiable]
        pub fn arc_length(r: f64, theta: f64) -> f64 {
            r * theta
        }
    }
}

#[differentiable]
fn calls_into_modules(r: f64, theta: f64) -> f64 {
    geometry::sector_area(r, theta) + geometry::deeper::arc_length(r, theta).sqrt()
}

#[test]
fn module_paths() {
    for (r, t) in [(2.0, 0.5), (0.7, 3.0)] {
        let (gr, gt) = gradients_function!(geometry::sector_area)(r, t);
        assert_fd("geometry::sector_area", &[r, t], &[gr, gt], |v| {
            geometry::sector_area(v[0], v[1])
        });
        assert_hand(
            "geometry::sector_area",
            &[r, t],
            &[gr, gt],
            &[r * t, 0.5 * r * r],
        );

        let gt: f64 =
            gradients_function!(crate::geometry::deeper::arc_length, params = ["theta"])(r, t);
        assert_hand("geometry::deeper::arc_length", &[r, t], &[gt], &[r]);
        let (value, _) = value_and_gradients_function!(geometry::deeper::arc_length)(r, t);
        assert_eq!(
            value.to_bits(),
            geometry::deeper::arc_length(r, t).to_bits()
        );

        let (gr, gt) = gradients_function!(calls_into_modules)(r, t);
        assert_fd("calls_into_modules", &[r, t], &[gr, gt], |v| {
            calls_into_modules(v[0], v[1])
        });
        let s = (r * t).sqrt();
        assert_hand(
            "calls_into_modules",
            &[r, t],
            &[gr, gt],
            &[r * t + t / (2.0 * s), 0.5 * r * r + r / (2.0 * s)],
        );
    }
}

// ---------------------------------------------------------------------------------------
// Custom rules
// ---------------------------------------------------------------------------------------

/// `Σ_{k=1..n} xᵏ`, written with an iterator and a closure the macro could not
/// differentiate itself: the rule below supplies the derivative.
#[differentiable(vjp = sum_of_powers_vjp)]
fn sum_of_powers(x: f64, n: u32) -> f64 {
    (1..=n).map(|k| x.powi(k as i32)).sum()
}

fn sum_of_powers_vjp(x: f64, n: u32) -> (f64, impl FnOnce(f64) -> f64) {
    let derivative: f64 = (1..=n).map(|k| f64::from(k) * x.powi(k as i32 - 1)).sum();
    (sum_of_powers(x, n), move |dy| dy * derivative)
}

/// `ln(eᵃ + eᵇ)` with a branch on the inputs (not differentiable by the macro).
#[differentiable(vjp = logaddexp_vjp)]
fn logaddexp(a: f64, b: f64) -> f64 {
    if a > b {
        a + (b - a).exp().ln_1p()
    } else {
        b + (a - b).exp().ln_1p()
    }
}

fn logaddexp_vjp(a: f64, b: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
    let value = logaddexp(a, b);
    let (wa, wb) = ((a - value).exp(), (b - value).exp());
    (value, move |dy| (dy * wa, dy * wb))
}

#[differentiable]
fn uses_custom_rules(x: f64, y: f64, z: f64) -> f64 {
    logaddexp(logaddexp(x, y), z) + sum_of_powers(x * y, 3)
}

#[test]
fn custom_rule_used_directly_and_from_other_differentiable_code() {
    for x in [-1.2, 0.4, 1.5] {
        let g: f64 = gradients_function!(sum_of_powers)(x, 3);
        assert_fd("sum_of_powers", &[x], &[g], |v| sum_of_powers(v[0], 3));
        assert_hand("sum_of_powers", &[x], &[g], &[1.0 + 2.0 * x + 3.0 * x * x]);
    }
    for (x, y, z) in [(0.5, -1.0, 2.0), (1.5, 0.3, -0.7)] {
        let (gx, gy, gz) = gradients_function!(uses_custom_rules)(x, y, z);
        assert_fd("uses_custom_rules", &[x, y, z], &[gx, gy, gz], |v| {
            uses_custom_rules(v[0], v[1], v[2])
        });
        // The log-sum-exp part has the softmax as its gradient.
        let total = x.exp() + y.exp() + z.exp();
        let (sx, sy, sz) = (x.exp() / total, y.exp() / total, z.exp() / total);
        let p = x * y;
        let dp = 1.0 + 2.0 * p + 3.0 * p * p;
        assert_hand_tol(
            "uses_custom_rules",
            &[x, y, z],
            &[gx, gy, gz],
            &[sx + dp * y, sy + dp * x, sz],
            1e-12,
        );
    }
}

// ---------------------------------------------------------------------------------------
// vjp! with a tuple output
// ---------------------------------------------------------------------------------------

#[differentiable]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

#[test]
fn vjp_of_a_tuple_output() {
    for (r, t) in [(2.0, 0.0), (1.5, 0.7), (0.5, -2.0)] {
        let (value, pullback) = vjp!(polar)(r, t);
        assert_eq!(value, polar(r, t));
        let (dr, dt) = pullback((0.0, 1.0)); // y = r sin θ
        assert_fd("polar.1", &[r, t], &[dr, dt], |v| polar(v[0], v[1]).1);
        assert_hand("polar.1", &[r, t], &[dr, dt], &[t.sin(), r * t.cos()]);
        let (_, pullback) = vjp!(polar)(r, t);
        let (dr, dt) = pullback((1.0, 0.0)); // x = r cos θ
        assert_fd("polar.0", &[r, t], &[dr, dt], |v| polar(v[0], v[1]).0);
        assert_hand("polar.0", &[r, t], &[dr, dt], &[t.cos(), -r * t.sin()]);
        let (_, pullback) = vjp!(polar)(r, t);
        let (dr, dt) = pullback((2.0, -3.0)); // 2x − 3y
        assert_fd("2·polar.0 − 3·polar.1", &[r, t], &[dr, dt], |v| {
            let (a, b) = polar(v[0], v[1]);
            2.0 * a - 3.0 * b
        });
    }
}

// ---------------------------------------------------------------------------------------
// Casts between float types, and a `return` ending the body.
// ---------------------------------------------------------------------------------------

/// Tolerance against finite differences when `f32` rounding enters the function.
const FD_TOL_F32: f64 = 1e-3;

#[differentiable]
fn f32_to_f64(x: f32) -> f64 {
    let y = x as f64;
    y * y + f64::from(x)
}

#[differentiable]
fn f64_to_f32(x: f64) -> f32 {
    let y = x as f32;
    y * 3.0 + (x * x) as f32
}

#[test]
fn float_casts_between_f32_and_f64() {
    for x in [-1.5_f32, 0.375, 2.0] {
        let g: f32 = gradients_function!(f32_to_f64)(x);
        let xd = f64::from(x);
        assert_fd_tol("f32_to_f64", &[xd], &[f64::from(g)], FD_TOL_F32, |v| {
            f32_to_f64(v[0] as f32)
        });
        assert_hand_f32("f32_to_f64", &[xd], &[g], &[2.0 * xd + 1.0]);
    }
    for x in [-1.5, 0.375, 2.0] {
        let g: f64 = gradients_function!(f64_to_f32)(x);
        assert_fd_tol("f64_to_f32", &[x], &[g], FD_TOL_F32, |v| {
            f64::from(f64_to_f32(v[0]))
        });
        assert_hand("f64_to_f32", &[x], &[g], &[3.0 + 2.0 * x]);
    }
}

#[differentiable]
fn explicit_return(x: f64) -> f64 {
    let y = x.sin();
    return y * x;
}

#[differentiable]
fn explicit_return_without_semicolon(x: f64) -> f64 {
    let y = x.sin();
    return y * x;
}

#[test]
fn return_at_the_end_of_the_body() {
    for x in [-1.5, 0.3, 2.0] {
        let g: f64 = gradients_function!(explicit_return)(x);
        assert_fd("explicit_return", &[x], &[g], |v| explicit_return(v[0]));
        assert_hand("explicit_return", &[x], &[g], &[x.sin() + x * x.cos()]);
        let g2: f64 = gradients_function!(explicit_return_without_semicolon)(x);
        assert_eq!(g, g2);
    }
}

// ---------------------------------------------------------------------------------------
// Signs: an adjoint reached through `-` or a negation keeps its sign pending in generated
// code and is subtracted where it lands; every way it can land is here.
// ---------------------------------------------------------------------------------------

#[differentiable]
fn signs(a: f64, b: f64, c: f64) -> f64 {
    // `b` only ever through subtractions and negations: its gradient leaves with the
    // sign applied; `c` twice negated; `a` through both signs, into a cell and a call.
    let t = a - b * c;
    let u = -(-c) * 2.0 - (-a);
    let mut s = 0.0;
    s -= t.sin();
    s -= -u;
    let v = -b;
    s + weighted_sum(v, 0.5, -t, 1.5)
}

#[differentiable]
fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

#[test]
fn pending_signs_reach_every_gradient() {
    for &(a, b, c) in &[(0.3, -1.2, 0.7), (-2.0, 0.5, 1.5), (1.0, 0.0, -0.25)] {
        let (da, db, dc) = gradients_function!(signs)(a, b, c);
        // s = −sin(a − bc) + 2c + a − 0.5b − 1.5(a − bc)
        let t: f64 = a - b * c;
        let expected = (
            -t.cos() + 1.0 - 1.5,
            t.cos() * c - 0.5 + 1.5 * c,
            t.cos() * b + 2.0 + 1.5 * b,
        );
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-14 * y.abs().max(1.0);
        assert!(close(da, expected.0), "d/da {da} vs {}", expected.0);
        assert!(close(db, expected.1), "d/db {db} vs {}", expected.1);
        assert!(close(dc, expected.2), "d/dc {dc} vs {}", expected.2);
        let numeric = finite_difference(|p| signs(p[0], p[1], p[2]), &[a, b, c]);
        assert_gradient_close(&[da, db, dc], &numeric, 1e-8);
    }
    // a parameter reached only through one negation
    #[differentiable]
    fn minus(x: f64) -> f64 {
        -x
    }
    assert_eq!(gradients_function!(minus)(2.0), -1.0);
}

#[differentiable]
fn zero_gradients(a: f64, b: f64, c: f64) -> f64 {
    let mut s = 0.0;
    if a > 100.0 {
        s += b;
    }
    let t = -c;
    s + a * 0.0 + t * 0.0
}

#[test]
fn zero_gradients_are_positive_zeros() {
    // Reverse sweeps start adjoints from −0.0 (the additive identity the compiler can
    // drop); a gradient nothing reached still comes back as 0.0, through every path.
    let (da, db, dc) = gradients_function!(zero_gradients)(1.0, 2.0, 3.0);
    for (name, g) in [("a", da), ("b", db), ("c", dc)] {
        assert!(g == 0.0 && g.is_sign_positive(), "d/d{name} = {g:?}");
    }
    let (_, pullback) = vjp!(zero_gradients)(1.0, 2.0, 3.0);
    let (da, db, dc) = pullback(1.0);
    for (name, g) in [("a", da), ("b", db), ("c", dc)] {
        assert!(g == 0.0 && g.is_sign_positive(), "vjp d/d{name} = {g:?}");
    }
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| {
        let mut s = x;
        if x > 100.0 {
            s += w * 1.0;
        }
        s + w * 0.0
    });
    let grads = implicit_gradients(f)(1.0);
    let g: f64 = grads.get(&w).expect("w was read");
    assert!(g == 0.0 && g.is_sign_positive(), "implicit d/dw = {g:?}");
}

// ---------------------------------------------------------------------------------------
// Reinterpreting a float's bits has no derivative the macro can know: an error (see
// tests/ui/bits_of_differentiable_value.rs); through `stop_gradient` it is a constant.
// ---------------------------------------------------------------------------------------

#[differentiable]
fn next_up_scaled(x: f64) -> f64 {
    let bits = stop_gradient(x).to_bits();
    f64::from_bits(bits + 1) * x
}

#[test]
fn bits_through_stop_gradient_are_a_constant() {
    let x = 1.5_f64;
    let g = gradients_function!(next_up_scaled)(x);
    assert_eq!(g, f64::from_bits(x.to_bits() + 1));
}

// ---------------------------------------------------------------------------------------
// num-traits' names are not shadowed: `T::from_f64(c)` (FromPrimitive) in generic code,
// and `f64::from_f64` with the prelude in scope, resolve as in plain Rust.
// ---------------------------------------------------------------------------------------

use autodiff::num_traits::FromPrimitive;

#[differentiable]
fn scaled_cube<T: Float + FromPrimitive>(x: T) -> T {
    let c = T::from_f64(1.5).unwrap();
    c * x * x * x
}

#[test]
fn from_primitive_in_generic_code() {
    assert_eq!(f64::from_f64(2.0), Some(2.0));
    let g = gradients_function!(scaled_cube::<f64>)(2.0);
    assert_eq!(g, 1.5 * 3.0 * 4.0);
    let g32 = gradients_function!(scaled_cube::<f32>)(2.0);
    assert_eq!(g32, 18.0_f32);
}

// ---- queries: calls reading differentiable values whose results are constants ----------

/// Every query form: the result's type (an integer, shape, `bool`) makes it a constant.
#[allow(clippy::iter_count)] // `iter().count()` is the form under test
#[differentiable]
fn queries(x: &[f64], a: &autodiff::ndarray::Array2<f64>) -> f64 {
    let n = x.iter().count() as f64;
    let (r, c) = a.dim();
    let rows = a.len_of(autodiff::ndarray::Axis(0)) + a.shape()[1] + a.ndim();
    let m = if x.is_empty() || a.is_empty() {
        0.0
    } else {
        x[0] * a[[0, 0]]
    };
    let s = a.sum() / (r * c) as f64;
    m * n + s * rows as f64 + x[1] * (x.len() as f64) / (a.nrows() + a.ncols()) as f64
}

#[test]
fn queries_are_constants_decided_by_their_type() {
    use autodiff::ndarray::array;
    let x = [0.7, -1.3, 2.0];
    let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let (gx, ga) = gradients_function!(queries)(&x, &a);
    // by hand: n = 3, r·c = 6, rows = 2 + 3 + 2 = 7, nrows + ncols = 5
    assert_hand("queries x", &x, &gx, &[a[[0, 0]] * 3.0, 3.0 / 5.0, 0.0]);
    let mut expected = autodiff::ndarray::Array2::from_elem((2, 3), 7.0 / 6.0);
    expected[[0, 0]] += x[0] * 3.0;
    for (g, e) in ga.iter().zip(expected.iter()) {
        assert!((g - e).abs() < 1e-12, "queries a: {ga} against {expected}");
    }
    assert_fd("queries x (differences)", &x, &gx, |x| queries(x, &a));
}

// ---- local closures, differentiated where they are called ------------------------------

#[differentiable]
fn squares(a: f64, b: f64) -> f64 {
    let sq = |v: f64| v * v;
    sq(a) + sq(b)
}

/// Captures a differentiable value, and the binding it captured is shadowed before the call.
#[differentiable]
fn captured(w: f64, x: f64) -> f64 {
    let s = w * 2.0;
    let affine = |v: f64| s * v + 1.0;
    let s = x; // the closure still sees the first `s`
    affine(x) * affine(s.sin())
}

/// A block body with a loop, a closure calling a closure, a `move` closure with its own
/// copy of a `let mut` local, and an `FnMut` closure adding into one.
#[differentiable]
fn closure_forms(x: f64, y: f64) -> f64 {
    let mut acc = x;
    let scaled = move |v: f64| acc * v; // `acc` as it is now: x
    let poly = |t: f64| {
        let mut p = 0.0;
        for k in 1..4 {
            p = p * t + k as f64;
        }
        p
    };
    let both = |t: f64| poly(t) + scaled(t);
    acc *= y;
    let mut total = 0.0;
    let mut add = |v: f64| total += v * acc;
    add(x);
    add(y);
    both(y) + total
}

#[differentiable]
fn generic_closure<T: Float>(x: T, y: T) -> T {
    let h = |a: T, b: T| (a * a + b * b).sqrt();
    h(x, y) + h(y, T::one())
}

#[test]
fn local_closures() {
    let (a, b) = (0.7, -1.9);
    let (ga, gb) = gradients_function!(squares)(a, b);
    assert_hand("squares", &[a, b], &[ga, gb], &[2.0 * a, 2.0 * b]);
    assert_fd("squares", &[a, b], &[ga, gb], |p| squares(p[0], p[1]));

    let (w, x) = (1.3, 0.4);
    let (gw, gx) = gradients_function!(captured)(w, x);
    // f = (2w x + 1)(2w sin x + 1)
    let (u, v) = (2.0 * w * x + 1.0, 2.0 * w * x.sin() + 1.0);
    let hand = [
        2.0 * x * v + u * 2.0 * x.sin(),
        2.0 * w * v + u * 2.0 * w * x.cos(),
    ];
    assert_hand("captured", &[w, x], &[gw, gx], &hand);
    assert_fd("captured", &[w, x], &[gw, gx], |p| captured(p[0], p[1]));

    let (x, y) = (0.8, 1.7);
    let (gx, gy) = gradients_function!(closure_forms)(x, y);
    // f = (y² + 2y + 3) + x·y + (x + y)·x·y
    let hand = [
        y + 2.0 * x * y + y * y,
        2.0 * y + 2.0 + x + x * x + 2.0 * x * y,
    ];
    assert_hand("closure forms", &[x, y], &[gx, gy], &hand);
    assert_fd("closure forms", &[x, y], &[gx, gy], |p| {
        closure_forms(p[0], p[1])
    });

    let (gx, gy) = gradients_function!(generic_closure)(3.0_f32, 4.0_f32);
    let r = 5.0;
    let r2 = (16.0_f64 + 1.0).sqrt();
    assert_hand_f32(
        "generic closure",
        &[3.0, 4.0],
        &[gx, gy],
        &[3.0 / r, 4.0 / r + 4.0 / r2],
    );

    // vjp! and the implicit mode see the same derivative
    let (value, pullback) = vjp!(squares)(a, b);
    assert_eq!(value, squares(a, b));
    assert_eq!(pullback(1.0), (2.0 * a, 2.0 * b));
    let w = Variable::new(1.5);
    let f = differentiable_closure!(|x: f64| {
        let g = |v: f64| w * v * v;
        g(x) + g(2.0)
    });
    let grads = implicit_gradients(&f)(3.0);
    assert_eq!(grads.get(&w), Some(9.0 + 4.0));
}

#[differentiable]
fn mapped_by_name(x: f64, xs: &[f64]) -> f64 {
    let scale = |v: &f64| v * x;
    let add = |acc: f64, v: &f64| acc + v * v;
    xs.iter().map(scale).sum::<f64>() + xs.iter().fold(0.0, add)
}

#[test]
fn local_closures_mapped_and_folded_by_name() {
    let (x, xs) = (0.9, [1.0, -2.0, 0.5]);
    let (gx, gxs) = gradients_function!(mapped_by_name)(x, &xs);
    let s: f64 = xs.iter().sum();
    assert_hand("mapped x", &[x], &[gx], &[s]);
    let hand: Vec<f64> = xs.iter().map(|v| x + 2.0 * v).collect();
    assert_hand("mapped xs", &xs, &gxs, &hand);
    assert_fd("mapped xs (differences)", &xs, &gxs, |p| {
        mapped_by_name(x, p)
    });
}

// ---- `let` without a value, assigned later ----------------------------------------------

#[allow(clippy::needless_late_init)] // the late initialisation is the form under test
#[differentiable]
fn assigned_later(x: f64, y: f64) -> f64 {
    let r: f64;
    if x > 0.0 {
        r = x * y;
    } else {
        r = -y;
    }
    let mut s;
    s = r.sin();
    let n: usize;
    n = 3;
    for _ in 0..n {
        s = s * 0.5 + r;
    }
    s
}

#[test]
fn let_without_a_value() {
    for (x, y) in [(0.7, 1.3), (-0.4, 0.9)] {
        let (gx, gy) = gradients_function!(assigned_later)(x, y);
        // s₃ = sin(r)/8 + r·(1/4 + 1/2 + 1)
        let (r, dr_dx, dr_dy) = if x > 0.0 {
            (x * y, y, x)
        } else {
            (-y, 0.0, -1.0)
        };
        let ds_dr = r.cos() / 8.0 + 1.75;
        assert_hand(
            "assigned later",
            &[x, y],
            &[gx, gy],
            &[ds_dr * dr_dx, ds_dr * dr_dy],
        );
        assert_fd("assigned later", &[x, y], &[gx, gy], |p| {
            assigned_later(p[0], p[1])
        });
    }
}

// ---- constant tables --------------------------------------------------------------------

const COEFFS: [f64; 4] = [1.0, -0.5, 0.25, 2.0];
static WEIGHTS: [f64; 2] = [0.3, 0.7];

/// Horner's rule over a constant table, as special-function code is written.
#[differentiable]
fn horner(t: f64, k: usize) -> f64 {
    let mut acc = COEFFS[3];
    for i in (0..3).rev() {
        acc = acc * t + COEFFS[i];
    }
    acc * WEIGHTS[k % 2]
}

#[test]
fn constant_tables_indexed_in_differentiable_code() {
    let (t, k) = (0.6, 1);
    let g = gradients_function!(horner, params = ["t"])(t, k);
    // p(t) = 1 − 0.5t + 0.25t² + 2t³
    let hand = (-0.5 + 0.5 * t + 6.0 * t * t) * WEIGHTS[k % 2];
    assert_hand("horner", &[t], &[g], &[hand]);
    assert_fd("horner", &[t], &[g], |p| horner(p[0], k));
}

/// Raw identifiers as parameter names.
#[differentiable]
fn raw_names(r#in: f64, #[no_grad] r#type: f64) -> f64 {
    r#in * r#type + r#in.sin()
}

#[test]
fn raw_identifiers_as_parameters() {
    let (x, k) = (0.4, 3.0);
    let g = gradients_function!(raw_names)(x, k);
    assert_hand("raw names", &[x], &[g], &[k + x.cos()]);
}

// ---- constant tables lent to slice helpers, conversions, collected maps ------------------

const NUM: [f64; 3] = [1.0, 2.0, 3.0];
const DEN: [f64; 3] = [0.5, 0.25, 0.125];

/// A rational approximation whose coefficient tables are handed to a helper by reference,
/// as special-function code does (`rat(x, &J0R, &J0S, 6)`).
#[differentiable]
fn rational(x: f64, r: &[f64], s: &[f64], n: usize) -> (f64, f64, f64) {
    let y = x.powi(2);
    let z = 64.0 - y;
    let mut nump = r[n];
    let mut denp = s[n];
    for i in (0..n).rev() {
        nump = r[i] + z * nump;
        denp = s[i] + y * denp;
    }
    (y, nump, denp)
}

#[differentiable]
fn tabled(x: f64) -> f64 {
    let (y, nump, denp) = rational(x, &NUM, &DEN, 2);
    y * nump / denp
}

#[test]
fn constant_tables_lent_to_slice_helpers() {
    for x in [0.3, 1.5, -2.0] {
        let g = gradients_function!(tabled)(x);
        assert_fd("tabled", &[x], &[g], |p| tabled(p[0]));
        // forward mode lends the tables zero tangents of their own
        let (value, dy) = jvp!(tabled)(x, 1.0);
        assert_eq!(value, tabled(x));
        assert_hand("tabled (jvp)", &[x], &[dy], &[g]);
    }
}

/// `.into()` between float types, as code generic over `Into<f64>` writes it (here of an
/// `f64` to an `f64`, which clippy calls useless: the construct is what is under test).
#[allow(clippy::useless_conversion)]
#[differentiable]
fn converted(param: &[f64; 2]) -> f64 {
    let x1: f64 = param[0].into();
    let x2: f64 = param[1].into();
    x1.sin() * x2 + f64::cos((2.0 * x1).into())
}

#[differentiable]
fn widened(x: f32, y: f64) -> f64 {
    let w: f64 = x.into();
    w * y
}

#[test]
fn into_a_float_type_is_a_conversion() {
    let p = [0.3, 0.7];
    let g = gradients_function!(converted)(&p);
    let hand = [p[0].cos() * p[1] - 2.0 * (2.0 * p[0]).sin(), p[0].sin()];
    assert_hand("converted", &p, &g, &hand);
    let (gx, gy) = gradients_function!(widened)(0.5_f32, 3.0);
    assert_eq!((gx, gy), (3.0_f32, 0.5));
}

/// `x.iter().map(…).collect()`: a `Vec` whose elements carry their gradients.
#[differentiable]
fn collected_sum(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|a| a.sin() * 3.0).collect();
    v[0] * v[1] + v[2]
}

/// The derivative functions of optimisation test suites return a collected `Vec`.
#[differentiable]
fn collected_generic<T: Float + FromPrimitive>(param: &[T]) -> Vec<T> {
    let num2 = T::from_f64(2.0).unwrap();
    param.iter().map(|x| num2 * *x * *x).collect()
}

/// A map over data reading a differentiable weight.
#[differentiable]
fn collected_over_data(w: f64, data: &[f64]) -> f64 {
    let scaled = data.iter().map(|d| d * w).collect::<Vec<f64>>();
    scaled[0] + scaled[1] * scaled[1]
}

#[test]
fn collected_maps_carry_gradients() {
    let x = [0.1, 0.2, 0.3];
    let gs = gradients_function!(collected_sum)(&x);
    let hand = [
        9.0 * x[0].cos() * x[1].sin(),
        9.0 * x[0].sin() * x[1].cos(),
        3.0 * x[2].cos(),
    ];
    assert_hand("collected_sum", &x, &gs, &hand);
    assert_fd("collected_sum", &x, &gs, collected_sum);

    let p = [1.0, -2.0, 3.0];
    let (value, pullback) = vjp!(collected_generic::<f64>)(&p);
    assert_eq!(value, vec![2.0, 8.0, 18.0]);
    let g = pullback(vec![1.0, 0.5, -1.0]);
    assert_hand("collected_generic", &p, &g, &[4.0, -4.0, -12.0]);
    let (value32, pullback32) = vjp!(collected_generic::<f32>)(&[1.5_f32]);
    assert_eq!(value32, vec![4.5_f32]);
    assert_eq!(pullback32(vec![1.0]), vec![6.0_f32]);

    let data = [2.0, 5.0];
    let w = 0.7;
    let gw = gradients_function!(collected_over_data, params = ["w"])(w, &data);
    assert_hand(
        "collected_over_data",
        &[w],
        &[gw],
        &[data[0] + 2.0 * data[1] * data[1] * w],
    );
    let (_, dy) = jvp!(collected_sum)(&x, &[1.0, 0.0, 0.0]);
    assert_hand("collected_sum (jvp)", &x, &[dy], &[gs[0]]);
}

// ---- a local Vec built by push ------------------------------------------------------------

/// A window applied by pushing onto a `Vec::with_capacity`, as signal-processing code does.
#[differentiable]
fn windowed(samples: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(samples.len());
    let n = samples.len() as f32;
    for (i, sample) in samples.iter().enumerate() {
        let multiplier = 0.5 * (1.0 - (2.0 * std::f32::consts::PI * i as f32 / n).cos());
        out.push(multiplier * sample)
    }
    out
}

/// Pushes before and after the `Vec` is read whole, in a loop and out of one.
#[differentiable]
fn pushed_then_read(x: f64, y: f64) -> f64 {
    let mut v = Vec::new();
    v.push(x * y);
    let s: f64 = v.iter().sum();
    v.push(s.sin());
    for k in 0..3 {
        v.push(x * k as f64);
    }
    v[0] * v[1] + v[4] * v[2]
}

/// A `Vec` made again in each iteration, of another length each time, a constant pushed
/// first.
#[differentiable]
fn rebuilt_each_iteration(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let mut v = Vec::new();
        v.push(0.5);
        for j in 0..(3 - i) {
            v.push(x * (j as f64 + 1.0));
        }
        s += v[v.len() - 1] * v[0] + v[1];
    }
    s
}

#[test]
fn vec_built_by_push() {
    // Σ_i 0.5 · x (3 − i) + x = 6x
    assert_hand(
        "rebuilt",
        &[0.3],
        &[gradients_function!(rebuilt_each_iteration)(0.3)],
        &[6.0],
    );

    let s = [1.0_f32, 2.0, 3.0, 4.0];
    let (value, pullback) = vjp!(windowed)(&s);
    let weights: Vec<f32> = (0..4)
        .map(|i| 0.5 * (1.0 - (2.0 * std::f32::consts::PI * i as f32 / 4.0).cos()))
        .collect();
    for i in 0..4 {
        assert!((value[i] - weights[i] * s[i]).abs() < 1e-6);
    }
    let cot = vec![1.0, -2.0, 0.5, 3.0];
    let g = pullback(cot.clone());
    for i in 0..4 {
        assert!((g[i] - weights[i] * cot[i]).abs() < 1e-6, "{g:?}");
    }

    let (x, y) = (0.7, 1.3);
    let (gx, gy) = gradients_function!(pushed_then_read)(x, y);
    // x y sin(x y) + 2x · 0
    let (p, c) = (x * y, (x * y).cos());
    let hand = [y * p.sin() + p * c * y + 0.0, x * p.sin() + p * c * x];
    assert_hand("pushed_then_read", &[x, y], &[gx, gy], &hand);
    assert_fd("pushed_then_read", &[x, y], &[gx, gy], |p| {
        pushed_then_read(p[0], p[1])
    });
    let (_, dy) = jvp!(pushed_then_read)(x, y, 1.0, 0.0);
    assert_hand("pushed_then_read (jvp)", &[x, y], &[dy], &[gx]);
}

// ---------------------------------------------------------------------------------------
// Parameters assigned in the body, enum parameters, static tables
// ---------------------------------------------------------------------------------------

/// A `mut` parameter assigned like a local (as special-function code shifts its argument).
#[differentiable]
fn shifted_product(mut z: f64, n: usize) -> f64 {
    let mut acc = 1.0;
    for _ in 0..n {
        z -= 1.0;
        acc *= z;
    }
    acc + z
}

/// `mut` parameters swapped through a local declared without a value.
#[differentiable]
fn swapped(mut a: f64, mut b: f64, mut x: f64) -> f64 {
    let mut p;
    if 0.5 < x {
        p = a;
        a = b;
        b = p;
        x = 1.0 - x;
    }
    p = (-(x * x).ln()).sqrt();
    p * a + b * b * x
}

#[test]
fn mut_parameters() {
    // (z - 1)(z - 2) + z - 2: derivative 2z - 3 + 1
    let g = gradients_function!(shifted_product)(5.0, 2);
    assert_gradient_close(&[g], &[8.0], HAND_TOL);
    assert_gradient_close(
        &[g],
        &finite_difference(|v| shifted_product(v[0], 2), &[5.0]),
        FD_TOL,
    );
    for at in [[2.0, 3.0, 0.7], [2.0, 3.0, 0.3]] {
        let (ga, gb, gx) = gradients_function!(swapped)(at[0], at[1], at[2]);
        let fd = finite_difference(|v| swapped(v[0], v[1], v[2]), &at);
        assert_gradient_close(&[ga, gb, gx], &fd, FD_TOL);
        // by hand: with (a, b, x) after the swap, p = sqrt(-2 ln x), dp/dx = -1/(p x)
        let flip = at[2] > 0.5;
        let (a, b, x) = if flip {
            (at[1], at[0], 1.0 - at[2])
        } else {
            (at[0], at[1], at[2])
        };
        let p = (-2.0 * x.ln()).sqrt();
        let (da, db, dx) = (p, 2.0 * b * x, -a / (p * x) + b * b);
        let hand = if flip { [db, da, -dx] } else { [da, db, dx] };
        assert_gradient_close(&[ga, gb, gx], &hand, 1e-12);
    }
    let (y, dy) = jvp!(swapped)(2.0, 3.0, 0.7, 1.0, 0.0, 0.0);
    assert_eq!(y, swapped(2.0, 3.0, 0.7));
    assert_gradient_close(
        &[dy],
        &[gradients_function!(swapped)(2.0, 3.0, 0.7).0],
        1e-12,
    );
}

/// Which tail of a distribution: a plain enum, matched on.
#[derive(Clone, Copy)]
pub enum Tail {
    Lower,
    Upper,
}

/// A parameter matched against enum variants is a constant.
#[differentiable]
fn logistic_tail(a: f64, tail: Tail) -> f64 {
    let s = a.exp() / (1.0 + a.exp());
    match tail {
        Tail::Lower => {
            let r = 1.0 - s;
            r.clamp(0.0, 1.0)
        }
        Tail::Upper => s.clamp(0.0, 1.0),
    }
}

#[differentiable]
fn both_tails(a: f64) -> f64 {
    logistic_tail(a, Tail::Lower) + 2.0 * logistic_tail(a, Tail::Upper)
}

#[test]
fn enum_parameters_are_constants() {
    let a = 0.3_f64;
    let s = a.exp() / (1.0 + a.exp());
    let g = gradients_function!(both_tails)(a);
    assert_gradient_close(&[g], &[s * (1.0 - s)], HAND_TOL);
    assert_gradient_close(&[g], &finite_difference(|v| both_tails(v[0]), &[a]), FD_TOL);
    let g = gradients_function!(logistic_tail)(a, Tail::Lower);
    assert_gradient_close(&[g], &[-s * (1.0 - s)], HAND_TOL);
}

static SCALED: [f64; 8] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];

/// A mantissa and an exponent (the exponent an integer with no derivative).
#[differentiable]
fn mantissa_exponent(x: f64) -> (f64, i32) {
    let e = x.abs().log2().floor() as i32 + 1;
    (x / 2f64.powi(e), e)
}

/// A static table indexed by an integer computed from a differentiable call.
#[differentiable]
fn table_interpolant(x: f64) -> f64 {
    let (m, e) = mantissa_exponent(x);
    let idx = e * 2;
    let t = m * 3.0;
    SCALED[(idx + 1) as usize] * t + SCALED[idx as usize] * t * t
}

#[test]
fn static_tables_at_computed_indices() {
    for x in [1.3, 2.6, 0.7] {
        let g = gradients_function!(table_interpolant)(x);
        assert_gradient_close(
            &[g],
            &finite_difference(|v| table_interpolant(v[0]), &[x]),
            FD_TOL,
        );
        // by hand: m = x / 2^e, t = 3m, dt/dx = 3 / 2^e
        let e = x.abs().log2().floor() as i32 + 1;
        let s = 2f64.powi(e);
        let t = 3.0 * x / s;
        let k = (2 * e) as usize;
        let hand = (SCALED[k + 1] + 2.0 * SCALED[k] * t) * 3.0 / s;
        assert_gradient_close(&[g], &[hand], HAND_TOL);
        let (_, dy) = jvp!(table_interpolant)(x, 1.0);
        assert_gradient_close(&[dy], &[hand], HAND_TOL);
    }
}

/// A `for` loop over a constant slice of arrays, by reference (the items are kept owned
/// for the reverse sweep).
#[differentiable]
fn fit_points(w: f64, #[no_grad] points: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for p in points {
        let r = w * p[0] - p[1];
        s += r * r;
    }
    s
}

#[test]
fn loop_over_borrowed_constant_arrays() {
    let points = [[1.0, 2.0], [2.0, 3.5], [-1.0, 0.5]];
    let w = 1.5;
    let g = gradients_function!(fit_points)(w, &points);
    let hand: f64 = points.iter().map(|p| 2.0 * (w * p[0] - p[1]) * p[0]).sum();
    assert_gradient_close(&[g], &[hand], HAND_TOL);
    let fd = finite_difference(|v| fit_points(v[0], &points), &[w]);
    assert_gradient_close(&[g], &fd, FD_TOL);
}
