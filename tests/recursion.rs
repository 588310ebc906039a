//! Recursion, direct (a function calling itself, a method calling itself through `self.` or
//! `Self::`): the reverse sweep runs the callee's derivative again at each level, so no
//! pullback's type contains itself. Each gradient is checked against central differences
//! and a closed form.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;
use std::f64::consts::PI;

/// The digamma function as special-function libraries write it: reflection for negative
/// arguments (a recursive call), the recurrence up to 6, then the asymptotic series.
#[differentiable]
fn digamma(x: f64) -> f64 {
    if x < 0.0 {
        return digamma(1.0 - x) + PI / (-PI * x).tan();
    }
    let mut v = 0.0;
    let mut y = x;
    while y < 6.0 {
        v -= 1.0 / y;
        y += 1.0;
    }
    v + y.ln() - 0.5 / y - 1.0 / (12.0 * y * y) + 1.0 / (120.0 * y.powi(4))
}

#[test]
fn reflection_by_recursion() {
    for x in [-2.7, -0.3, 0.4, 2.5, 9.0] {
        let g = gradients_function!(digamma)(x);
        let fd = finite_difference(|p| digamma(p[0]), &[x]);
        assert_gradient_close(&[g], &fd, 1e-6);
    }
    // ψ(1 − x) − ψ(x) = π cot(πx): the reflection's own derivative, by hand
    let x = -0.3;
    let hand = -gradients_function!(digamma)(1.0 - x) + PI * PI / (PI * x).sin().powi(2);
    assert_gradient_close(&[gradients_function!(digamma)(x)], &[hand], 1e-12);
}

/// `x^n` by recursion on a constant count, with the differentiable value in every call.
#[differentiable]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

/// Generic, for forward over reverse.
#[differentiable]
fn power_generic<T: Float>(x: T, n: u32) -> T {
    if n == 0 {
        T::one()
    } else {
        x * power_generic(x, n - 1)
    }
}

#[test]
fn recursion_in_every_mode() {
    let (x, n) = (1.5, 5);
    let hand = 5.0 * x.powi(4);
    assert_gradient_close(
        &[gradients_function!(power, params = ["x"])(x, n)],
        &[hand],
        1e-14,
    );
    let (y, dy) = jvp!(power, params = ["x"])(x, n, 1.0);
    assert_eq!(y, x.powi(5));
    assert_gradient_close(&[dy], &[hand], 1e-14);
    let (value, pullback) = vjp!(power)(x, n);
    assert_eq!(value, power(x, n));
    assert_gradient_close(&[pullback(2.0)], &[2.0 * hand], 1e-14);
    let h = hessian!(power_generic)(x, n);
    assert_gradient_close(&[h], &[20.0 * x.powi(3)], 1e-13);
    // no recursion at all
    assert_eq!(gradients_function!(power, params = ["x"])(x, 0), 0.0);
}

/// Two recursive calls per level (a tree of calls).
#[differentiable]
fn tree(x: f64, depth: u32) -> f64 {
    if depth == 0 {
        x.sin()
    } else {
        tree(x * 0.5, depth - 1) + tree(x * x, depth - 1) * 0.25
    }
}

#[test]
fn branching_recursion() {
    for x in [0.3, 0.9] {
        let g = gradients_function!(tree, params = ["x"])(x, 3);
        let fd = finite_difference(|p| tree(p[0], 3), &[x]);
        assert_gradient_close(&[g], &fd, 1e-7);
    }
}

struct Series {
    ratio: f64,
}

#[differentiable]
impl Series {
    /// 1 + r x (1 + r x (…)): through `self.`
    fn geometric(&self, x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            1.0 + self.ratio * x * self.geometric(x, n - 1)
        }
    }

    /// sin(sin(… x)): through `Self::`
    fn nested_sin(&self, x: f64, n: u32) -> f64 {
        if n == 0 {
            x * self.ratio
        } else {
            Self::nested_sin(self, x, n - 1).sin()
        }
    }
}

#[test]
fn methods_calling_themselves() {
    let s = Series { ratio: 0.5 };
    let x = 0.7;
    let g = gradients_function!(Series::geometric, params = ["x"])(&s, x, 3);
    // 1 + rx + (rx)² + (rx)³
    let r = s.ratio;
    let hand = r + 2.0 * r * r * x + 3.0 * r.powi(3) * x * x;
    assert_gradient_close(&[g], &[hand], 1e-14);
    let g = gradients_function!(Series::nested_sin, params = ["x"])(&s, x, 3);
    let fd = finite_difference(|p| s.nested_sin(p[0], 3), &[x]);
    assert_gradient_close(&[g], &fd, 1e-7);
}

// Mutual recursion: `zig` and `zag` call each other. Each attribute sees one function, so
// one function in the cycle is marked `recursive`: its calls run their derivatives again in
// its reverse sweep instead of keeping their pullbacks, and no pullback's type contains
// itself. (Unmarked, rustc reports E0720 at the attributes.)

/// `sin(zag(1.1 x, n − 1))`, or `x` at the bottom.
#[differentiable(recursive)]
fn zig(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        zag(x * 1.1, n - 1).sin()
    }
}

/// `zig(x + 0.5, n − 1) · x`, or `x²` at the bottom.
#[differentiable]
fn zag(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        zig(x + 0.5, n - 1) * x
    }
}

/// The same cycle marked on the other function, generic over the float type.
#[differentiable]
fn zig_generic<T: Float>(x: T, n: u32) -> T {
    if n == 0 {
        x
    } else {
        zag_generic(x * T::from(1.1).unwrap(), n - 1).sin()
    }
}

#[differentiable(recursive)]
fn zag_generic<T: Float>(x: T, n: u32) -> T {
    if n == 0 {
        x * x
    } else {
        zig_generic(x + T::from(0.5).unwrap(), n - 1) * x
    }
}

#[test]
fn mutual_recursion() {
    let x = 0.3;
    // zig(x, 2) = sin((1.1x + 0.5) · 1.1x): derivative cos(u) · (2.42x + 0.55), by hand
    let u = (1.1 * x + 0.5) * 1.1 * x;
    let hand = u.cos() * (2.42 * x + 0.55);
    let g = gradients_function!(zig, params = ["x"])(x, 2);
    assert_gradient_close(&[g], &[hand], 1e-14);
    let g = gradients_function!(zig_generic, params = ["x"])(x, 2);
    assert_gradient_close(&[g], &[hand], 1e-14);
    // deeper, every mode, against central differences and against each other
    for n in [1, 4, 7] {
        let fd = finite_difference(|p| zig(p[0], n), &[x]);
        let g = gradients_function!(zig, params = ["x"])(x, n);
        assert_gradient_close(&[g], &fd, 1e-7);
        let fd = finite_difference(|p| zag(p[0], n), &[x]);
        let g = gradients_function!(zag, params = ["x"])(x, n);
        assert_gradient_close(&[g], &fd, 1e-7);
        let (value, pullback) = vjp!(zag)(x, n);
        assert_eq!(value, zag(x, n));
        assert_gradient_close(&[pullback(2.0)], &[2.0 * g], 1e-14);
        let (y, dy) = jvp!(zag, params = ["x"])(x, n, 1.0);
        assert_eq!(y, zag(x, n));
        assert_gradient_close(&[dy], &[g], 1e-14);
        let g = gradients_function!(zag_generic, params = ["x"])(x, n);
        assert_gradient_close(&[g], &fd, 1e-7);
        // forward over reverse: the second derivative against differences of gradients
        let h = hessian!(zag_generic)(x, n);
        let d = 1e-5;
        let step = (gradients_function!(zag_generic, params = ["x"])(x + d, n)
            - gradients_function!(zag_generic, params = ["x"])(x - d, n))
            / (2.0 * d);
        assert_gradient_close(&[h], &[step], 1e-6);
    }
}
