//! Gradients of every differentiable float method, checked against two independent truths:
//! the fourth-order finite difference of `autodiff::check` and the hand-derived closed
//! form of the derivative. Then the documented conventions at kinks, and the
//! piecewise-constant methods whose derivative is zero.
//!
//! Naming: `<method>_m` uses the method form (`x.sin()`), `<method>_p` the path form
//! (`f64::sin(x)`), `<method>_f32` works on `f32`.

use autodiff::check::{assert_gradient_close, finite_difference, first_mismatch};
use autodiff::prelude::*;
use std::f64::consts::{LN_10, LN_2, PI};

// ---------------------------------------------------------------------------------------
// Checking helpers
// ---------------------------------------------------------------------------------------

/// Tolerance of the comparison with finite differences (relative, see `check`).
const FD_TOL: f64 = 1e-7;
/// Tolerance of the comparison with the closed form, relative: a few ulps.
const EXACT_TOL: f64 = 1e-14;
/// Tolerance of `f32` gradients against the `f64` closed form.
const F32_TOL: f64 = 1e-5;

/// `analytic` agrees with the finite difference of `f` at `at`.
#[track_caller]
fn assert_fd(name: &str, at: &[f64], analytic: &[f64], f: impl FnMut(&[f64]) -> f64) {
    let numeric = finite_difference(f, at);
    if first_mismatch(analytic, &numeric, FD_TOL).is_some() {
        eprintln!("`{name}` at {at:?}: generated gradient vs finite difference");
    }
    assert_gradient_close(analytic, &numeric, FD_TOL);
}

/// `actual` equals `expected` to within `tol` relative (exactly where `expected` is 0).
#[track_caller]
fn assert_closed_form(name: &str, at: &[f64], actual: &[f64], expected: &[f64], tol: f64) {
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let ok = a == e || (a - e).abs() <= tol * e.abs();
        assert!(
            ok,
            "`{name}` at {at:?}: d/d(input {i}) is {a:e}, the closed form gives {e:e} (difference {:e})",
            (a - e).abs()
        );
    }
}

#[track_caller]
fn unary(
    name: &str,
    f: fn(f64) -> f64,
    grad: impl Fn(f64) -> f64,
    derivative: fn(f64) -> f64,
    points: &[f64],
) {
    for &x in points {
        let g = grad(x);
        assert_fd(name, &[x], &[g], |v| f(v[0]));
        assert_closed_form(name, &[x], &[g], &[derivative(x)], EXACT_TOL);
    }
}

#[track_caller]
fn binary(
    name: &str,
    f: fn(f64, f64) -> f64,
    grad: impl Fn(f64, f64) -> (f64, f64),
    derivative: fn(f64, f64) -> (f64, f64),
    points: &[(f64, f64)],
) {
    for &(a, b) in points {
        let (ga, gb) = grad(a, b);
        let (da, db) = derivative(a, b);
        assert_fd(name, &[a, b], &[ga, gb], |v| f(v[0], v[1]));
        assert_closed_form(name, &[a, b], &[ga, gb], &[da, db], EXACT_TOL);
    }
}

#[track_caller]
fn ternary(
    name: &str,
    f: fn(f64, f64, f64) -> f64,
    grad: impl Fn(f64, f64, f64) -> (f64, f64, f64),
    derivative: fn(f64, f64, f64) -> (f64, f64, f64),
    points: &[(f64, f64, f64)],
) {
    for &(a, b, c) in points {
        let (ga, gb, gc) = grad(a, b, c);
        let (da, db, dc) = derivative(a, b, c);
        assert_fd(name, &[a, b, c], &[ga, gb, gc], |v| f(v[0], v[1], v[2]));
        assert_closed_form(name, &[a, b, c], &[ga, gb, gc], &[da, db, dc], EXACT_TOL);
    }
}

/// An `f32` gradient against the `f64` closed form at the same (f32) point.
#[track_caller]
fn unary_f32(name: &str, grad: impl Fn(f32) -> f32, derivative: fn(f64) -> f64, points: &[f32]) {
    for &x in points {
        let g = f64::from(grad(x));
        let d = derivative(f64::from(x));
        assert!(
            (g - d).abs() <= F32_TOL * d.abs().max(1.0),
            "`{name}` (f32) at {x}: gradient {g:e}, closed form {d:e}"
        );
    }
}

#[track_caller]
fn binary_f32(
    name: &str,
    grad: impl Fn(f32, f32) -> (f32, f32),
    derivative: fn(f64, f64) -> (f64, f64),
    points: &[(f32, f32)],
) {
    for &(a, b) in points {
        let (ga, gb) = grad(a, b);
        let (da, db) = derivative(f64::from(a), f64::from(b));
        for (g, d) in [(f64::from(ga), da), (f64::from(gb), db)] {
            assert!(
                (g - d).abs() <= F32_TOL * d.abs().max(1.0),
                "`{name}` (f32) at ({a}, {b}): gradient {g:e}, closed form {d:e}"
            );
        }
    }
}

/// Checks each listed one-input differentiable function with `unary`.
macro_rules! check_unary {
    ([$($f:ident),+], $derivative:expr, $points:expr) => {
        $( unary(stringify!($f), $f, gradients_function!($f), $derivative, &$points); )+
    };
}

macro_rules! check_binary {
    ([$($f:ident),+], $derivative:expr, $points:expr) => {
        $( binary(stringify!($f), $f, gradients_function!($f), $derivative, &$points); )+
    };
}

macro_rules! check_ternary {
    ([$($f:ident),+], $derivative:expr, $points:expr) => {
        $( ternary(stringify!($f), $f, gradients_function!($f), $derivative, &$points); )+
    };
}

// ---------------------------------------------------------------------------------------
// Trigonometric functions
// ---------------------------------------------------------------------------------------

#[differentiable]
fn sin_m(x: f64) -> f64 {
    x.sin()
}
#[differentiable]
fn sin_p(x: f64) -> f64 {
    f64::sin(x)
}
#[differentiable]
fn cos_m(x: f64) -> f64 {
    x.cos()
}
#[differentiable]
fn cos_p(x: f64) -> f64 {
    f64::cos(x)
}
#[differentiable]
fn tan_m(x: f64) -> f64 {
    x.tan()
}
#[differentiable]
fn tan_p(x: f64) -> f64 {
    f64::tan(x)
}
#[differentiable]
fn asin_m(x: f64) -> f64 {
    x.asin()
}
#[differentiable]
fn asin_p(x: f64) -> f64 {
    f64::asin(x)
}
#[differentiable]
fn acos_m(x: f64) -> f64 {
    x.acos()
}
#[differentiable]
fn atan_m(x: f64) -> f64 {
    x.atan()
}
#[differentiable]
fn atan_p(x: f64) -> f64 {
    f64::atan(x)
}

#[test]
fn sin() {
    check_unary!([sin_m, sin_p], |x| x.cos(), [-1.0, 0.4, 2.0]);
}

#[test]
fn cos() {
    check_unary!([cos_m, cos_p], |x| -x.sin(), [-1.0, 0.4, 2.0]);
}

#[test]
fn tan() {
    check_unary!(
        [tan_m, tan_p],
        |x| 1.0 / (x.cos() * x.cos()),
        [-1.0, 0.4, 2.0]
    );
}

#[test]
fn asin() {
    check_unary!(
        [asin_m, asin_p],
        |x| 1.0 / (1.0 - x * x).sqrt(),
        [-0.6, 0.1, 0.5]
    );
}

#[test]
fn acos() {
    check_unary!([acos_m], |x| -1.0 / (1.0 - x * x).sqrt(), [-0.6, 0.1, 0.5]);
}

#[test]
fn atan() {
    check_unary!([atan_m, atan_p], |x| 1.0 / (1.0 + x * x), [-2.0, 0.3, 1.5]);
}

// ---------------------------------------------------------------------------------------
// Hyperbolic functions
// ---------------------------------------------------------------------------------------

#[differentiable]
fn sinh_m(x: f64) -> f64 {
    x.sinh()
}
#[differentiable]
fn cosh_m(x: f64) -> f64 {
    x.cosh()
}
#[differentiable]
fn cosh_p(x: f64) -> f64 {
    f64::cosh(x)
}
#[differentiable]
fn tanh_m(x: f64) -> f64 {
    x.tanh()
}
#[differentiable]
fn tanh_p(x: f64) -> f64 {
    f64::tanh(x)
}
#[differentiable]
fn asinh_m(x: f64) -> f64 {
    x.asinh()
}
#[differentiable]
fn acosh_m(x: f64) -> f64 {
    x.acosh()
}
#[differentiable]
fn atanh_m(x: f64) -> f64 {
    x.atanh()
}
#[differentiable]
fn atanh_p(x: f64) -> f64 {
    f64::atanh(x)
}

#[test]
fn sinh() {
    check_unary!([sinh_m], |x| x.cosh(), [-1.2, 0.3, 2.0]);
}

#[test]
fn cosh() {
    check_unary!([cosh_m, cosh_p], |x| x.sinh(), [-1.2, 0.3, 2.0]);
}

#[test]
fn tanh() {
    check_unary!(
        [tanh_m, tanh_p],
        |x| 1.0 / (x.cosh() * x.cosh()),
        [-1.2, 0.3, 2.0]
    );
}

#[test]
fn asinh() {
    check_unary!([asinh_m], |x| 1.0 / (x * x + 1.0).sqrt(), [-2.0, 0.3, 1.5]);
}

#[test]
fn acosh() {
    check_unary!([acosh_m], |x| 1.0 / (x * x - 1.0).sqrt(), [1.5, 2.0, 4.0]);
}

#[test]
fn atanh() {
    check_unary!(
        [atanh_m, atanh_p],
        |x| 1.0 / (1.0 - x * x),
        [-0.5, 0.1, 0.6]
    );
}

// ---------------------------------------------------------------------------------------
// Exponentials and logarithms
// ---------------------------------------------------------------------------------------

#[differentiable]
fn exp_m(x: f64) -> f64 {
    x.exp()
}
#[differentiable]
fn exp_p(x: f64) -> f64 {
    f64::exp(x)
}
#[differentiable]
fn exp2_m(x: f64) -> f64 {
    x.exp2()
}
#[differentiable]
fn exp2_p(x: f64) -> f64 {
    f64::exp2(x)
}
#[differentiable]
fn exp_m1_m(x: f64) -> f64 {
    x.exp_m1()
}
#[differentiable]
fn ln_m(x: f64) -> f64 {
    x.ln()
}
#[differentiable]
fn ln_p(x: f64) -> f64 {
    f64::ln(x)
}
#[differentiable]
fn ln_1p_m(x: f64) -> f64 {
    x.ln_1p()
}
#[differentiable]
fn ln_1p_p(x: f64) -> f64 {
    f64::ln_1p(x)
}
#[differentiable]
fn log2_m(x: f64) -> f64 {
    x.log2()
}
#[differentiable]
fn log10_m(x: f64) -> f64 {
    x.log10()
}
#[differentiable]
fn log10_p(x: f64) -> f64 {
    f64::log10(x)
}

#[test]
fn exp() {
    check_unary!([exp_m, exp_p], |x| x.exp(), [-1.5, 0.2, 2.0]);
}

#[test]
fn exp2() {
    check_unary!([exp2_m, exp2_p], |x| x.exp2() * LN_2, [-1.5, 0.2, 2.0]);
}

#[test]
fn exp_m1() {
    check_unary!([exp_m1_m], |x| x.exp(), [-1.5, 0.2, 2.0]);
}

#[test]
fn ln() {
    check_unary!([ln_m, ln_p], |x| 1.0 / x, [0.5, 1.3, 4.0]);
}

#[test]
fn ln_1p() {
    check_unary!([ln_1p_m, ln_1p_p], |x| 1.0 / (1.0 + x), [-0.4, 0.2, 3.0]);
}

#[test]
fn log2() {
    check_unary!([log2_m], |x| 1.0 / (x * LN_2), [0.5, 1.3, 4.0]);
}

#[test]
fn log10() {
    check_unary!([log10_m, log10_p], |x| 1.0 / (x * LN_10), [0.5, 1.3, 4.0]);
}

// ---------------------------------------------------------------------------------------
// Roots, abs, recip, angle conversions, fract
// ---------------------------------------------------------------------------------------

#[differentiable]
fn sqrt_m(x: f64) -> f64 {
    x.sqrt()
}
#[differentiable]
fn sqrt_p(x: f64) -> f64 {
    f64::sqrt(x)
}
#[differentiable]
fn cbrt_m(x: f64) -> f64 {
    x.cbrt()
}
#[differentiable]
fn cbrt_p(x: f64) -> f64 {
    f64::cbrt(x)
}
#[differentiable]
fn abs_m(x: f64) -> f64 {
    x.abs()
}
#[differentiable]
fn abs_p(x: f64) -> f64 {
    f64::abs(x)
}
#[differentiable]
fn recip_m(x: f64) -> f64 {
    x.recip()
}
#[differentiable]
fn recip_p(x: f64) -> f64 {
    f64::recip(x)
}
#[differentiable]
fn to_degrees_m(x: f64) -> f64 {
    x.to_degrees()
}
#[differentiable]
fn to_radians_m(x: f64) -> f64 {
    x.to_radians()
}
#[differentiable]
fn to_radians_p(x: f64) -> f64 {
    f64::to_radians(x)
}
#[differentiable]
fn fract_m(x: f64) -> f64 {
    x.fract()
}
#[differentiable]
fn fract_p(x: f64) -> f64 {
    f64::fract(x)
}

#[test]
fn sqrt() {
    check_unary!([sqrt_m, sqrt_p], |x| 0.5 / x.sqrt(), [0.25, 1.7, 9.0]);
}

#[test]
fn cbrt() {
    check_unary!(
        [cbrt_m, cbrt_p],
        |x| 1.0 / (3.0 * x.cbrt() * x.cbrt()),
        [-2.0, 0.5, 8.0]
    );
}

#[test]
fn abs() {
    check_unary!(
        [abs_m, abs_p],
        |x| if x < 0.0 { -1.0 } else { 1.0 },
        [-1.5, 0.7, 3.0]
    );
}

#[test]
fn recip() {
    check_unary!([recip_m, recip_p], |x| -1.0 / (x * x), [-2.0, 0.5, 3.0]);
}

#[test]
fn to_degrees() {
    check_unary!([to_degrees_m], |_| 180.0 / PI, [-1.0, 0.5, 2.0]);
}

#[test]
fn to_radians() {
    check_unary!(
        [to_radians_m, to_radians_p],
        |_| PI / 180.0,
        [-1.0, 0.5, 2.0]
    );
}

#[test]
fn fract() {
    // `fract(x) = x − trunc(x)`: slope one between the integers.
    check_unary!([fract_m, fract_p], |_| 1.0, [-1.3, 0.4, 2.7]);
}

// ---------------------------------------------------------------------------------------
// Methods with several operands
// ---------------------------------------------------------------------------------------

#[differentiable]
fn powi3_m(x: f64) -> f64 {
    x.powi(3)
}
#[differentiable]
fn powi3_p(x: f64) -> f64 {
    f64::powi(x, 3)
}
#[differentiable]
fn powi_neg2_m(x: f64) -> f64 {
    x.powi(-2)
}
#[differentiable]
fn powi_n(x: f64, n: i32) -> f64 {
    x.powi(n)
}

#[test]
fn powi() {
    check_unary!([powi3_m, powi3_p], |x| 3.0 * x * x, [-1.5, 0.5, 2.0]);
    check_unary!([powi_neg2_m], |x| -2.0 / (x * x * x), [-1.5, 0.5, 2.0]);
    // A runtime exponent: a constant parameter, so the gradient is the bare `d/dx`.
    for n in [0, 1, 2, 5, -3] {
        for x in [-1.5, 0.5, 2.0] {
            let g: f64 = gradients_function!(powi_n)(x, n);
            let name = format!("powi_n(·, {n})");
            assert_fd(&name, &[x], &[g], |v| powi_n(v[0], n));
            let closed = if n == 0 {
                0.0
            } else {
                f64::from(n) * x.powi(n - 1)
            };
            assert_closed_form(&name, &[x], &[g], &[closed], EXACT_TOL);
        }
    }
}

#[differentiable]
fn powf_m(x: f64, p: f64) -> f64 {
    x.powf(p)
}
#[differentiable]
fn powf_p(x: f64, p: f64) -> f64 {
    f64::powf(x, p)
}
#[differentiable]
fn powf_const_exponent(x: f64) -> f64 {
    x.powf(2.5)
}
#[differentiable]
fn powf_const_base(p: f64) -> f64 {
    2.0_f64.powf(p)
}

#[test]
fn powf() {
    check_binary!(
        [powf_m, powf_p],
        |x, p| (p * x.powf(p - 1.0), x.powf(p) * x.ln()),
        [(0.5, 2.5), (1.5, -0.7), (3.0, 1.3)]
    );
    check_unary!(
        [powf_const_exponent],
        |x| 2.5 * x.powf(1.5),
        [0.5, 1.5, 3.0]
    );
    check_unary!(
        [powf_const_base],
        |p| 2.0_f64.powf(p) * LN_2,
        [-1.0, 0.5, 3.0]
    );
}

#[differentiable]
fn log_m(x: f64, b: f64) -> f64 {
    x.log(b)
}
#[differentiable]
fn log_p(x: f64, b: f64) -> f64 {
    f64::log(x, b)
}
#[differentiable]
fn log_base2(x: f64) -> f64 {
    x.log(2.0)
}

#[test]
fn log() {
    check_binary!(
        [log_m, log_p],
        |x, b| (1.0 / (x * b.ln()), -x.ln() / (b * b.ln() * b.ln())),
        [(0.5, 2.0), (3.0, 10.0), (7.0, 1.5)]
    );
    check_unary!([log_base2], |x| 1.0 / (x * LN_2), [0.5, 1.3, 4.0]);
}

#[differentiable]
fn atan2_m(a: f64, b: f64) -> f64 {
    a.atan2(b)
}
#[differentiable]
fn atan2_p(a: f64, b: f64) -> f64 {
    f64::atan2(a, b)
}
#[differentiable]
fn atan2_const_receiver(b: f64) -> f64 {
    1.0_f64.atan2(b)
}

#[test]
fn atan2() {
    check_binary!(
        [atan2_m, atan2_p],
        |a, b| (b / (a * a + b * b), -a / (a * a + b * b)),
        [(1.0, 2.0), (-0.5, 0.3), (2.0, -1.5)]
    );
    check_unary!(
        [atan2_const_receiver],
        |b| -1.0 / (1.0 + b * b),
        [-2.0, 0.5, 1.5]
    );
}

#[differentiable]
fn hypot_m(a: f64, b: f64) -> f64 {
    a.hypot(b)
}
#[differentiable]
fn hypot_p(a: f64, b: f64) -> f64 {
    f64::hypot(a, b)
}
#[differentiable]
fn hypot_const(a: f64) -> f64 {
    a.hypot(3.0)
}

#[test]
fn hypot() {
    check_binary!(
        [hypot_m, hypot_p],
        |a, b| (a / (a * a + b * b).sqrt(), b / (a * a + b * b).sqrt()),
        [(3.0, 4.0), (-1.2, 0.5), (0.3, -2.0)]
    );
    check_unary!(
        [hypot_const],
        |a| a / (a * a + 9.0).sqrt(),
        [-2.0, 0.5, 4.0]
    );
}

#[differentiable]
fn max_m(a: f64, b: f64) -> f64 {
    a.max(b)
}
#[differentiable]
fn max_p(a: f64, b: f64) -> f64 {
    f64::max(a, b)
}
#[differentiable]
fn relu(x: f64) -> f64 {
    x.max(0.0)
}
#[differentiable]
fn min_m(a: f64, b: f64) -> f64 {
    a.min(b)
}
#[differentiable]
fn min_p(a: f64, b: f64) -> f64 {
    f64::min(a, b)
}

#[test]
fn max() {
    let points = [(1.0, 2.0), (3.0, -1.0), (-0.5, -0.7)];
    check_binary!(
        [max_m, max_p],
        |a, b| if a > b { (1.0, 0.0) } else { (0.0, 1.0) },
        points
    );
    check_unary!(
        [relu],
        |x| if x > 0.0 { 1.0 } else { 0.0 },
        [-1.5, 0.5, 2.0]
    );
}

#[test]
fn min() {
    let points = [(1.0, 2.0), (3.0, -1.0), (-0.5, -0.7)];
    check_binary!(
        [min_m, min_p],
        |a, b| if a < b { (1.0, 0.0) } else { (0.0, 1.0) },
        points
    );
}

#[differentiable]
fn clamp_m(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi)
}
#[differentiable]
fn clamp_p(x: f64, lo: f64, hi: f64) -> f64 {
    f64::clamp(x, lo, hi)
}
#[differentiable]
fn clamp_const(x: f64) -> f64 {
    x.clamp(-1.0, 1.0)
}

#[test]
fn clamp() {
    // Inside the interval, below it, above it.
    check_ternary!(
        [clamp_m, clamp_p],
        |x, lo, hi| if x < lo {
            (0.0, 1.0, 0.0)
        } else if x > hi {
            (0.0, 0.0, 1.0)
        } else {
            (1.0, 0.0, 0.0)
        },
        [(0.3, 0.0, 1.0), (-1.0, 0.0, 1.0), (2.5, -1.0, 1.5)]
    );
    check_unary!(
        [clamp_const],
        |x| if x.abs() < 1.0 { 1.0 } else { 0.0 },
        [-1.5, 0.3, 2.0]
    );
}

#[differentiable]
fn mul_add_m(x: f64, a: f64, b: f64) -> f64 {
    x.mul_add(a, b)
}
#[differentiable]
fn mul_add_p(x: f64, a: f64, b: f64) -> f64 {
    f64::mul_add(x, a, b)
}
#[differentiable]
fn mul_add_const(x: f64) -> f64 {
    x.mul_add(3.0, 0.5)
}

#[test]
fn mul_add() {
    check_ternary!(
        [mul_add_m, mul_add_p],
        |x, a, _| (a, x, 1.0),
        [(1.5, -2.0, 0.3), (-0.4, 0.7, 5.0), (3.0, 2.5, -1.0)]
    );
    check_unary!([mul_add_const], |_| 3.0, [-1.5, 0.3, 2.0]);
}

// ---------------------------------------------------------------------------------------
// f32
// ---------------------------------------------------------------------------------------

#[differentiable]
fn sin_f32(x: f32) -> f32 {
    x.sin()
}
#[differentiable]
fn exp_f32(x: f32) -> f32 {
    f32::exp(x)
}
#[differentiable]
fn ln_f32(x: f32) -> f32 {
    x.ln()
}
#[differentiable]
fn sqrt_f32(x: f32) -> f32 {
    x.sqrt()
}
#[differentiable]
fn tanh_f32(x: f32) -> f32 {
    f32::tanh(x)
}
#[differentiable]
fn powi_f32(x: f32) -> f32 {
    x.powi(4)
}
#[differentiable]
fn powf_f32(x: f32, p: f32) -> f32 {
    x.powf(p)
}
#[differentiable]
fn atan2_f32(a: f32, b: f32) -> f32 {
    f32::atan2(a, b)
}
#[differentiable]
fn hypot_f32(a: f32, b: f32) -> f32 {
    a.hypot(b)
}
/// Generic over the float type: used with `f32` here.
#[differentiable]
fn cos_generic<T: Float>(x: T) -> T {
    x.cos()
}
#[differentiable]
fn atan_generic_path<T: Float>(x: T) -> T {
    T::atan(x)
}

#[test]
fn f32_unary() {
    unary_f32(
        "sin_f32",
        gradients_function!(sin_f32),
        |x| x.cos(),
        &[-1.0, 0.4, 2.0],
    );
    unary_f32(
        "exp_f32",
        gradients_function!(exp_f32),
        |x| x.exp(),
        &[-1.5, 0.2, 2.0],
    );
    unary_f32(
        "ln_f32",
        gradients_function!(ln_f32),
        |x| 1.0 / x,
        &[0.5, 1.3, 4.0],
    );
    unary_f32(
        "sqrt_f32",
        gradients_function!(sqrt_f32),
        |x| 0.5 / x.sqrt(),
        &[0.25, 1.7, 9.0],
    );
    unary_f32(
        "tanh_f32",
        gradients_function!(tanh_f32),
        |x| 1.0 - x.tanh().powi(2),
        &[-1.2, 0.3, 2.0],
    );
    unary_f32(
        "powi_f32",
        gradients_function!(powi_f32),
        |x| 4.0 * x.powi(3),
        &[-1.5, 0.5, 2.0],
    );
    unary_f32(
        "cos_generic",
        gradients_function!(cos_generic),
        |x| -x.sin(),
        &[-1.0, 0.4, 2.0],
    );
    unary_f32(
        "atan_generic_path",
        gradients_function!(atan_generic_path),
        |x| 1.0 / (1.0 + x * x),
        &[-2.0, 0.3, 1.5],
    );
}

#[test]
fn f32_binary() {
    binary_f32(
        "powf_f32",
        gradients_function!(powf_f32),
        |x, p| (p * x.powf(p - 1.0), x.powf(p) * x.ln()),
        &[(0.5, 2.5), (1.5, -0.7), (3.0, 1.3)],
    );
    binary_f32(
        "atan2_f32",
        gradients_function!(atan2_f32),
        |a, b| (b / (a * a + b * b), -a / (a * a + b * b)),
        &[(1.0, 2.0), (-0.5, 0.3), (2.0, -1.5)],
    );
    binary_f32(
        "hypot_f32",
        gradients_function!(hypot_f32),
        |a, b| (a / a.hypot(b), b / a.hypot(b)),
        &[(3.0, 4.0), (-1.2, 0.5), (0.3, -2.0)],
    );
}

#[test]
fn generic_functions_agree_between_f32_and_f64() {
    for x in [-1.0_f64, 0.4, 2.0] {
        let g64: f64 = gradients_function!(cos_generic)(x);
        let g32: f32 = gradients_function!(cos_generic)(x as f32);
        assert_closed_form("cos_generic", &[x], &[g64], &[-x.sin()], EXACT_TOL);
        assert!((f64::from(g32) - g64).abs() <= F32_TOL, "{g32} vs {g64}");
    }
}

// ---------------------------------------------------------------------------------------
// Conventions at kinks (see the table in `autodiff::ops`)
// ---------------------------------------------------------------------------------------

#[test]
fn abs_at_zero_has_derivative_one() {
    assert_eq!(gradients_function!(abs_m)(0.0), 1.0);
    assert_eq!(gradients_function!(abs_p)(0.0), 1.0);
    assert_eq!(gradients_function!(abs_m)(-0.0), 1.0);
}

#[test]
fn max_and_min_split_ties_evenly() {
    for v in [-1.5, 0.0, 2.0] {
        assert_eq!(gradients_function!(max_m)(v, v), (0.5, 0.5));
        assert_eq!(gradients_function!(max_p)(v, v), (0.5, 0.5));
        assert_eq!(gradients_function!(min_m)(v, v), (0.5, 0.5));
        assert_eq!(gradients_function!(min_p)(v, v), (0.5, 0.5));
    }
    // relu at its kink: a tie between x and the constant 0, half of it goes to x.
    assert_eq!(gradients_function!(relu)(0.0), 0.5);
}

#[differentiable]
fn max_with_itself(x: f64) -> f64 {
    x.max(x)
}

#[test]
fn max_of_a_value_with_itself_has_derivative_one() {
    // Both halves of the tie reach the same input.
    for x in [-1.5, 0.0, 2.0] {
        assert_eq!(gradients_function!(max_with_itself)(x), 1.0);
    }
}

#[test]
fn clamp_at_its_bounds_splits_like_min_of_max() {
    // x == lo: max(x, lo) is a tie (½ to x, ½ to lo), then min(·, hi) passes it through.
    assert_eq!(gradients_function!(clamp_m)(0.0, 0.0, 1.0), (0.5, 0.5, 0.0));
    assert_eq!(gradients_function!(clamp_p)(0.0, 0.0, 1.0), (0.5, 0.5, 0.0));
    // x == hi: max(x, lo) = x strictly, then min(x, hi) is a tie (½ to x, ½ to hi).
    assert_eq!(gradients_function!(clamp_m)(1.0, 0.0, 1.0), (0.5, 0.0, 0.5));
    assert_eq!(gradients_function!(clamp_p)(1.0, 0.0, 1.0), (0.5, 0.0, 0.5));
    assert_eq!(gradients_function!(clamp_const)(1.0), 0.5);
    assert_eq!(gradients_function!(clamp_const)(-1.0), 0.5);
}

#[test]
fn sqrt_at_zero_is_infinite() {
    let g: f64 = gradients_function!(sqrt_m)(0.0);
    assert_eq!(g, f64::INFINITY);
    let g: f64 = gradients_function!(sqrt_p)(0.0);
    assert_eq!(g, f64::INFINITY);
    let g: f32 = gradients_function!(sqrt_f32)(0.0);
    assert_eq!(g, f32::INFINITY);
}

#[test]
fn powf_exponent_gradient_at_zero_base_is_zero() {
    let (dx, dp) = gradients_function!(powf_m)(0.0, 2.0);
    assert_eq!(dx, 0.0); // 2 · 0¹
    assert_eq!(dp, 0.0); // the convention (ln 0 = −∞ would give NaN)
}

#[test]
fn hypot_at_origin_is_zero() {
    assert_eq!(gradients_function!(hypot_m)(0.0, 0.0), (0.0, 0.0));
}

// ---------------------------------------------------------------------------------------
// Piecewise-constant methods: zero derivative
// ---------------------------------------------------------------------------------------

#[differentiable]
fn floor_m(x: f64) -> f64 {
    x.floor()
}
#[differentiable]
fn floor_p(x: f64) -> f64 {
    f64::floor(x)
}
#[differentiable]
fn ceil_m(x: f64) -> f64 {
    x.ceil()
}
#[differentiable]
fn round_m(x: f64) -> f64 {
    x.round()
}
#[differentiable]
fn round_p(x: f64) -> f64 {
    f64::round(x)
}
#[differentiable]
fn trunc_m(x: f64) -> f64 {
    x.trunc()
}
#[differentiable]
fn signum_m(x: f64) -> f64 {
    x.signum()
}
#[differentiable]
fn signum_p(x: f64) -> f64 {
    f64::signum(x)
}
#[differentiable]
fn round_ties_even_m(x: f64) -> f64 {
    x.round_ties_even()
}
/// A step times a smooth part: `d/dx = floor(x)`, the step contributing nothing.
#[differentiable]
fn floor_times_x(x: f64) -> f64 {
    x.floor() * x
}
/// Only the two bare `x` terms carry a derivative: `d/dx = 2`.
#[differentiable]
fn steps_plus_line(x: f64) -> f64 {
    x.ceil() + x + x.signum() * x.round() + x.trunc() + x
}

#[test]
fn piecewise_constant_methods_have_zero_gradient() {
    let points = [-2.3, -0.6, 0.4, 1.7, 3.2];
    check_unary!(
        [
            floor_m,
            floor_p,
            ceil_m,
            round_m,
            round_p,
            trunc_m,
            signum_m,
            signum_p,
            round_ties_even_m
        ],
        |_| 0.0,
        points
    );
    // Exactly zero, not merely small.
    for x in points {
        for g in [
            gradients_function!(floor_m)(x),
            gradients_function!(ceil_m)(x),
            gradients_function!(round_m)(x),
            gradients_function!(trunc_m)(x),
            gradients_function!(signum_m)(x),
        ] {
            assert_eq!(g, 0.0, "at {x}");
        }
    }
}

#[test]
fn piecewise_constant_methods_mixed_with_smooth_code() {
    let points = [-2.3, -0.6, 0.4, 1.7, 3.2];
    check_unary!([floor_times_x], |x| x.floor(), points);
    check_unary!([steps_plus_line], |_| 2.0, points);
}
