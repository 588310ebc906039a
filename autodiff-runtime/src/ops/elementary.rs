//! Elementary functions: the float methods of `f32`/`f64` (`x.sin()`, `x.powf(p)`, …).
//!
//! Every rule is checked against central finite differences in the crate's tests and in
//! its own documentation example.

use crate::real::Real;

/// Defines a rule for a one-input method `y = x.name()`.
/// `|x, y, dy| body` computes the cotangent of `x`; `$at` is a point of the domain used by
/// the documentation example, which compares the rule with a central difference.
macro_rules! unary_rule {
    // `reads x`: the rule reads the input; `reads y`: the output; `reads nothing`.
    ($(
        $(#[$meta:meta])*
        $name:ident / $method:ident at $at:literal
        reads $what:ident : |$v:ident, $dy:ident| $body:expr;
    )*) => {$(
        $(#[$meta])*
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("let (x, h) = (", stringify!($at), "_f64, 1e-6);")]
        #[doc = "let y = x."]
        #[doc = stringify!($method)]
        #[doc = "();"]
        #[doc = concat!(
            "let fd = ((x + h).", stringify!($method), "() - (x - h).", stringify!($method),
            "()) / (2.0 * h);"
        )]
        #[doc = concat!(
            "let rule = autodiff_runtime::ops::", stringify!($name), "(", unary_rule!(@arg $what),
            "&1.0);"
        )]
        #[doc = "assert!((rule - fd).abs() <= 1e-6 * fd.abs().max(1.0), \"{rule} vs {fd}\");"]
        #[doc = "let _ = y;"]
        #[doc = "```"]
        #[inline(always)]
        pub fn $name<T: Real>($v: &T, $dy: &T) -> T {
            let ($v, $dy) = (*$v, *$dy);
            // a zero cotangent contributes zero, whatever the derivative (see `strong_zero`)
            if $dy.is_strong_zero() {
                return $dy;
            }
            $body
        }
    )*};
    (@arg x) => { "&x, " };
    (@arg y) => { "&y, " };
}

fn c<T: Real>(v: f64) -> T {
    T::from_f64_rounded(v)
}

/// Every one-input float method with a rule, in one list: the rule's name, the method, a
/// point of its domain (for the documentation example), what the rule reads and its
/// formula. `unary_rules!(callback)` hands the rows to `callback`: here the scalar rules,
/// in `ops::tensor` their elementwise forms. A new one-input primitive is a row here (and
/// a row of the macro's table, `autodiff-macros/src/rules.rs`).
macro_rules! unary_rules {
    ($callback:ident) => {
        $callback! {
            /// `y = x.sin()`: `dy · cos x`.
            sin_d0 / sin at 0.7 reads x: |x, dy| dy * x.cos();
            /// `y = x.cos()`: `-dy · sin x`.
            cos_d0 / cos at 0.7 reads x: |x, dy| -dy * x.sin();
            /// `y = x.tan()`: `dy · (1 + y²)`.
            tan_d0 / tan at 0.7 reads y: |y, dy| dy * (T::one() + y * y);
            /// `y = x.asin()`: `dy / √(1 − x²)`.
            asin_d0 / asin at 0.3 reads x: |x, dy| dy / (T::one() - x * x).sqrt();
            /// `y = x.acos()`: `−dy / √(1 − x²)`.
            acos_d0 / acos at 0.3 reads x: |x, dy| -dy / (T::one() - x * x).sqrt();
            /// `y = x.atan()`: `dy / (1 + x²)`.
            atan_d0 / atan at 0.3 reads x: |x, dy| dy / (T::one() + x * x);
            /// `y = x.sinh()`: `dy · cosh x`.
            sinh_d0 / sinh at 0.7 reads x: |x, dy| dy * x.cosh();
            /// `y = x.cosh()`: `dy · sinh x`.
            cosh_d0 / cosh at 0.7 reads x: |x, dy| dy * x.sinh();
            /// `y = x.tanh()`: `dy · (1 − y²)`.
            tanh_d0 / tanh at 0.7 reads y: |y, dy| dy * (T::one() - y * y);
            /// `y = x.asinh()`: `dy / √(x² + 1)`.
            asinh_d0 / asinh at 0.7 reads x: |x, dy| dy / (x * x + T::one()).sqrt();
            /// `y = x.acosh()`: `dy / (√(x − 1) · √(x + 1))`.
            acosh_d0 / acosh at 1.7 reads x:
                |x, dy| dy / ((x - T::one()).sqrt() * (x + T::one()).sqrt());
            /// `y = x.atanh()`: `dy / (1 − x²)`.
            atanh_d0 / atanh at 0.3 reads x: |x, dy| dy / (T::one() - x * x);
            /// `y = x.exp()`: `dy · y`.
            exp_d0 / exp at 0.7 reads y: |y, dy| dy * y;
            /// `y = x.exp2()`: `dy · y · ln 2`.
            exp2_d0 / exp2 at 0.7 reads y: |y, dy| dy * y * T::LN_2();
            /// `y = x.exp_m1()`: `dy · (y + 1)`.
            exp_m1_d0 / exp_m1 at 0.7 reads y: |y, dy| dy * (y + T::one());
            /// `y = x.ln()`: `dy / x`.
            ln_d0 / ln at 0.7 reads x: |x, dy| dy / x;
            /// `y = x.ln_1p()`: `dy / (1 + x)`.
            ln_1p_d0 / ln_1p at 0.7 reads x: |x, dy| dy / (T::one() + x);
            /// `y = x.log2()`: `dy / (x · ln 2)`.
            log2_d0 / log2 at 0.7 reads x: |x, dy| dy / (x * T::LN_2());
            /// `y = x.log10()`: `dy / (x · ln 10)`.
            log10_d0 / log10 at 0.7 reads x: |x, dy| dy / (x * T::LN_10());
            /// `y = x.sqrt()`: `dy / (2y)`; `+∞` at `x = 0` (JAX's convention).
            sqrt_d0 / sqrt at 0.7 reads y: |y, dy| dy / (y + y);
            /// `y = x.cbrt()`: `dy / (3y²)`.
            cbrt_d0 / cbrt at 0.7 reads y: |y, dy| dy / (c::<T>(3.0) * y * y);
            /// `y = x.abs()`: `dy · sign(x)`, with derivative `1` at `x = 0` (JAX's convention).
            abs_d0 / abs at -0.7 reads x: |x, dy| if x < T::zero() { -dy } else { dy };
            /// `y = x.recip()`: `−dy · y²`.
            recip_d0 / recip at 0.7 reads y: |y, dy| -dy * y * y;
        }
    };
}

unary_rules!(unary_rule);

/// Defines the rule of `y = x.name()` that reads `s = x.sibling()` (computed by the same
/// function on the same value, so kept by the forward sweep) instead of computing it again:
/// `x.sin()` and `x.cos()` of one angle, as a rotation has them, need no trigonometric call
/// in the reverse sweep.
macro_rules! sibling_rule {
    ($(
        $(#[$meta:meta])*
        $name:ident / $method:ident from $sibling:ident at $at:literal : |$s:ident, $dy:ident| $body:expr;
    )*) => {$(
        $(#[$meta])*
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("let (x, h) = (", stringify!($at), "_f64, 1e-6);")]
        #[doc = concat!(
            "let fd = ((x + h).", stringify!($method), "() - (x - h).", stringify!($method),
            "()) / (2.0 * h);"
        )]
        #[doc = concat!(
            "let rule = autodiff_runtime::ops::", stringify!($name), "(&x.",
            stringify!($sibling), "(), &1.0);"
        )]
        #[doc = "assert!((rule - fd).abs() <= 1e-6 * fd.abs().max(1.0), \"{rule} vs {fd}\");"]
        #[doc = "```"]
        #[inline(always)]
        pub fn $name<T: Real>($s: &T, $dy: &T) -> T {
            let ($s, $dy) = (*$s, *$dy);
            // a zero cotangent contributes zero, whatever the derivative (see `strong_zero`);
            // a choice of two values computed, not a branch: the sibling is then read on
            // every path, so where it is computed for this rule (the tangent sweep's
            // `x.cos()` for `x.sin()`), the compiler makes it one `sin_cos` call with the
            // value's, instead of moving it into a branch of its own
            let product = $body;
            if $dy.is_strong_zero() {
                $dy
            } else {
                product
            }
        }
    )*};
}

sibling_rule! {
    /// `y = x.sin()`, from `c = x.cos()`: `dy · c`.
    sin_d0_from_cos / sin from cos at 0.7: |c, dy| dy * c;
    /// `y = x.cos()`, from `s = x.sin()`: `-dy · s`.
    cos_d0_from_sin / cos from sin at 0.7: |s, dy| -dy * s;
    /// `y = x.sinh()`, from `c = x.cosh()`: `dy · c`.
    sinh_d0_from_cosh / sinh from cosh at 0.7: |c, dy| dy * c;
    /// `y = x.cosh()`, from `s = x.sinh()`: `dy · s`.
    cosh_d0_from_sinh / cosh from sinh at 0.7: |s, dy| dy * s;
}

/// `y = x.to_degrees()`: `dy · 180/π`.
///
/// ```
/// let d = autodiff_runtime::ops::to_degrees_d0(&1.0_f64);
/// assert_eq!(d, 180.0 / std::f64::consts::PI);
/// ```
#[inline(always)]
pub fn to_degrees_d0<T: Real>(dy: &T) -> T {
    *dy * (c::<T>(180.0) / T::PI())
}

/// `y = x.to_radians()`: `dy · π/180`.
///
/// ```
/// let d = autodiff_runtime::ops::to_radians_d0(&1.0_f64);
/// assert_eq!(d, std::f64::consts::PI / 180.0);
/// ```
#[inline(always)]
pub fn to_radians_d0<T: Real>(dy: &T) -> T {
    *dy * (T::PI() / c::<T>(180.0))
}

/// `y = x.fract()` (`x − trunc x`): `dy`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::fract_d0(&2.0_f64), 2.0);
/// ```
#[inline(always)]
pub fn fract_d0<T: Real>(dy: &T) -> T {
    *dy
}

/// `y = x.powi(n)`: `dy · n · xⁿ⁻¹` (`0` for `n = 0`).
///
/// ```
/// let d = autodiff_runtime::ops::powi_d0(&2.0_f64, &3, &1.0);
/// assert_eq!(d, 12.0);
/// ```
#[inline(always)]
pub fn powi_d0<T: Real>(x: &T, n: &i32, dy: &T) -> T {
    if *n == 0 {
        T::zero()
    } else {
        *dy * T::from_f64_rounded(f64::from(*n)) * x.powi(*n - 1)
    }
}

/// `y = x.powf(p)`: cotangent of `x`, `dy · p · xᵖ⁻¹` (`0` for `p = 0`).
///
/// ```
/// let d = autodiff_runtime::ops::powf_d0(&4.0_f64, &0.5, &1.0);
/// assert_eq!(d, 0.25);
/// ```
#[inline(always)]
pub fn powf_d0<T: Real>(x: &T, p: &T, dy: &T) -> T {
    if *p == T::zero() || dy.is_strong_zero() {
        T::zero()
    } else {
        *dy * *p * x.powf(*p - T::one())
    }
}

/// `y = x.powf(p)`: cotangent of `p`, `dy · y · ln x` (`0` at `x = 0`, JAX's convention).
///
/// ```
/// let d = autodiff_runtime::ops::powf_d1(&4.0_f64, &2.0, &1.0);
/// assert_eq!(d, 2.0 * 4.0_f64.ln());
/// ```
#[inline(always)]
pub fn powf_d1<T: Real>(x: &T, y: &T, dy: &T) -> T {
    if *x == T::zero() || dy.is_strong_zero() {
        T::zero()
    } else {
        *dy * *y * x.ln()
    }
}

/// `y = x.log(b)` (`ln x / ln b`): cotangent of `x`, `dy / (x · ln b)`.
///
/// ```
/// let d = autodiff_runtime::ops::log_d0(&8.0_f64, &2.0, &1.0);
/// assert_eq!(d, 1.0 / (8.0 * 2.0_f64.ln()));
/// ```
#[inline(always)]
pub fn log_d0<T: Real>(x: &T, b: &T, dy: &T) -> T {
    if dy.is_strong_zero() {
        return *dy;
    }
    *dy / (*x * b.ln())
}

/// `y = x.log(b)`: cotangent of `b`, `−dy · y / (b · ln b)`.
///
/// ```
/// let d = autodiff_runtime::ops::log_d1(&2.0_f64, &3.0, &1.0);
/// assert_eq!(d, -3.0 / (2.0 * 2.0_f64.ln()));
/// ```
#[inline(always)]
pub fn log_d1<T: Real>(b: &T, y: &T, dy: &T) -> T {
    if dy.is_strong_zero() {
        return *dy;
    }
    -(*dy * *y) / (*b * b.ln())
}

/// `y = a.atan2(b)` (the angle of the point `(b, a)`): cotangent of `a`, `dy · b / (a² + b²)`.
///
/// ```
/// let d = autodiff_runtime::ops::atan2_d0(&1.0_f64, &1.0, &1.0);
/// assert_eq!(d, 0.5);
/// ```
#[inline(always)]
pub fn atan2_d0<T: Real>(a: &T, b: &T, dy: &T) -> T {
    *dy * *b / (*a * *a + *b * *b)
}

/// `y = a.atan2(b)`: cotangent of `b`, `−dy · a / (a² + b²)`.
///
/// ```
/// let d = autodiff_runtime::ops::atan2_d1(&1.0_f64, &1.0, &1.0);
/// assert_eq!(d, -0.5);
/// ```
#[inline(always)]
pub fn atan2_d1<T: Real>(a: &T, b: &T, dy: &T) -> T {
    -*dy * *a / (*a * *a + *b * *b)
}

/// `y = a.hypot(b)`: cotangent of `a`, `dy · a / y` (`0` when `y = 0`).
///
/// ```
/// let d = autodiff_runtime::ops::hypot_d0(&3.0_f64, &5.0, &1.0);
/// assert_eq!(d, 0.6);
/// ```
#[inline(always)]
pub fn hypot_d0<T: Real>(a: &T, y: &T, dy: &T) -> T {
    if *y == T::zero() {
        T::zero()
    } else {
        *dy * *a / *y
    }
}

/// `y = a.hypot(b)`: cotangent of `b`, `dy · b / y` (`0` when `y = 0`).
///
/// ```
/// let d = autodiff_runtime::ops::hypot_d1(&4.0_f64, &5.0, &1.0);
/// assert_eq!(d, 0.8);
/// ```
#[inline(always)]
pub fn hypot_d1<T: Real>(b: &T, y: &T, dy: &T) -> T {
    if *y == T::zero() {
        T::zero()
    } else {
        *dy * *b / *y
    }
}

/// The share of the cotangent that goes to the first input of `max`/`min`:
/// all of it when it was chosen strictly, half at a tie, none otherwise.
#[inline(always)]
fn tie_share<T: Real>(chosen: bool, tie: bool, dy: T) -> T {
    if tie {
        dy * T::from_f64_rounded(0.5)
    } else if chosen {
        dy
    } else {
        T::zero()
    }
}

/// `y = a.max(b)`: cotangent of `a` (`½ dy` at a tie, JAX's convention).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::max_d0(&3.0_f64, &1.0, &1.0), 1.0);
/// ```
#[inline(always)]
pub fn max_d0<T: Real>(a: &T, b: &T, dy: &T) -> T {
    tie_share(a > b, a == b, *dy)
}

/// `y = a.max(b)`: cotangent of `b` (`½ dy` at a tie).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::max_d1(&3.0_f64, &1.0, &1.0), 0.0);
/// ```
#[inline(always)]
pub fn max_d1<T: Real>(a: &T, b: &T, dy: &T) -> T {
    tie_share(b > a, a == b, *dy)
}

/// `y = a.min(b)`: cotangent of `a` (`½ dy` at a tie).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::min_d0(&3.0_f64, &1.0, &1.0), 0.0);
/// ```
#[inline(always)]
pub fn min_d0<T: Real>(a: &T, b: &T, dy: &T) -> T {
    tie_share(a < b, a == b, *dy)
}

/// `y = a.min(b)`: cotangent of `b` (`½ dy` at a tie).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::min_d1(&3.0_f64, &1.0, &1.0), 1.0);
/// ```
#[inline(always)]
pub fn min_d1<T: Real>(a: &T, b: &T, dy: &T) -> T {
    tie_share(b < a, a == b, *dy)
}

/// `y = x.clamp(lo, hi)`, differentiated as `min(max(x, lo), hi)`: cotangent of `x`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::clamp_d0(&0.5_f64, &0.0, &1.0, &1.0), 1.0);
/// assert_eq!(autodiff_runtime::ops::clamp_d0(&0.0_f64, &0.0, &1.0, &1.0), 0.5);
/// ```
#[inline(always)]
pub fn clamp_d0<T: Real>(x: &T, lo: &T, hi: &T, dy: &T) -> T {
    let m = x.max(*lo);
    max_d0(x, lo, &min_d0(&m, hi, dy))
}

/// `y = x.clamp(lo, hi)`: cotangent of `lo`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::clamp_d1(&-1.0_f64, &0.0, &1.0, &1.0), 1.0);
/// ```
#[inline(always)]
pub fn clamp_d1<T: Real>(x: &T, lo: &T, hi: &T, dy: &T) -> T {
    let m = x.max(*lo);
    max_d1(x, lo, &min_d0(&m, hi, dy))
}

/// `y = x.clamp(lo, hi)`: cotangent of `hi`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::clamp_d2(&2.0_f64, &0.0, &1.0, &1.0), 1.0);
/// ```
#[inline(always)]
pub fn clamp_d2<T: Real>(x: &T, lo: &T, hi: &T, dy: &T) -> T {
    let m = x.max(*lo);
    min_d1(&m, hi, dy)
}

/// `y = x.mul_add(a, b)` (`x·a + b`): cotangent of `x`, `dy · a`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_add_d0(&3.0_f64, &1.0), 3.0);
/// ```
#[inline(always)]
pub fn mul_add_d0<T: Real>(a: &T, dy: &T) -> T {
    *dy * *a
}

/// `y = x.mul_add(a, b)`: cotangent of `a`, `dy · x`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_add_d1(&2.0_f64, &1.0), 2.0);
/// ```
#[inline(always)]
pub fn mul_add_d1<T: Real>(x: &T, dy: &T) -> T {
    *dy * *x
}

/// `y = x.mul_add(a, b)`: cotangent of `b`, `dy`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::mul_add_d2(&1.0_f64), 1.0);
/// ```
#[inline(always)]
pub fn mul_add_d2<T: Real>(dy: &T) -> T {
    *dy
}

/// `y = x.copysign(s)` (`|x|` with the sign of `s`): cotangent of `x`, `dy` when `x` and
/// `s` have the same sign, `−dy` otherwise.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::copysign_d0(&2.0_f64, &-1.0, &1.0), -1.0);
/// ```
#[inline(always)]
pub fn copysign_d0<T: Real>(x: &T, s: &T, dy: &T) -> T {
    if x.is_sign_negative() == s.is_sign_negative() {
        *dy
    } else {
        -*dy
    }
}

/// `y = x.copysign(s)`: cotangent of `s`, zero (only its sign is read).
///
/// ```
/// assert_eq!(autodiff_runtime::ops::copysign_d1(&1.0_f64), 0.0);
/// ```
#[inline(always)]
pub fn copysign_d1<T: Real>(_dy: &T) -> T {
    T::zero()
}

/// `y = a.midpoint(b)` (`(a + b) / 2`): cotangent of `a`, `dy / 2`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::midpoint_d0(&1.0_f64), 0.5);
/// ```
#[inline(always)]
pub fn midpoint_d0<T: Real>(dy: &T) -> T {
    *dy / (T::one() + T::one())
}

/// `y = a.midpoint(b)`: cotangent of `b`, `dy / 2`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::midpoint_d1(&1.0_f64), 0.5);
/// ```
#[inline(always)]
pub fn midpoint_d1<T: Real>(dy: &T) -> T {
    *dy / (T::one() + T::one())
}
