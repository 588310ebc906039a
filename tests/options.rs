//! `Option` and `Result` around differentiable values: functions returning them (`Some`,
//! `None`, `Ok`, `Err`, early `return`), and callers using `unwrap`, `expect`, `?`,
//! `if let` and `match`. The value carries the gradient, the other path none. Each
//! gradient is checked against central differences and a closed form, in every mode.
#![allow(
    clippy::question_mark,
    clippy::manual_unwrap_or,
    clippy::unnecessary_literal_unwrap,
    clippy::unnecessary_lazy_evaluations
)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// As statistics libraries write it: `None` outside the domain.
#[differentiable]
fn checked_logit(p: f64) -> Option<f64> {
    if (0.0..=1.0).contains(&p) {
        Some((p / (1.0 - p)).ln())
    } else {
        None
    }
}

#[differentiable]
fn logit(p: f64) -> f64 {
    checked_logit(p).unwrap()
}

#[derive(Debug, Clone, PartialEq)]
enum DomainError {
    Negative,
}

#[differentiable]
fn safe_sqrt(x: f64) -> Result<f64, DomainError> {
    if x < 0.0 {
        return Err(DomainError::Negative);
    }
    Ok(x.sqrt())
}

/// `?` on each step.
#[differentiable]
fn chained(x: f64, y: f64) -> Result<f64, DomainError> {
    let a = safe_sqrt(x)?;
    let b = safe_sqrt(y * x)?;
    Ok(a * b + y)
}

/// `match` on a `Result`, `if let` on an `Option`, `expect`.
#[differentiable]
fn with_fallbacks(x: f64) -> f64 {
    let r = match safe_sqrt(x) {
        Ok(v) => v * 2.0,
        Err(_) => 0.0,
    };
    let l = if let Some(l) = checked_logit(x) {
        l
    } else {
        -1.0
    };
    r + l + safe_sqrt(x * x).expect("a square is not negative")
}

/// `?` on an `Option` in generic code.
#[differentiable]
fn ratio<T: Float>(a: T, b: T) -> Option<T> {
    if b == T::zero() {
        return None;
    }
    Some(a / b)
}

#[differentiable]
fn ratio_sum<T: Float>(a: T, b: T) -> Option<T> {
    let r = ratio(a, b)?;
    let s = ratio(b, a)?;
    Some(r + s)
}

fn fd(f: impl Fn(&[f64]) -> f64, at: &[f64]) -> Vec<f64> {
    finite_difference(f, at)
}

#[test]
fn unwrap_of_an_option_returning_function() {
    for p in [0.2, 0.5, 0.9] {
        let g = gradients_function!(logit)(p);
        // d/dp ln(p / (1 − p)) = 1 / (p (1 − p))
        assert_gradient_close(&[g], &[1.0 / (p * (1.0 - p))], 1e-13);
        assert_gradient_close(&[g], &fd(|v| logit(v[0]), &[p]), 1e-7);
        let (y, dy) = jvp!(logit)(p, 1.0);
        assert_eq!(y, logit(p));
        assert_gradient_close(&[dy], &[g], 1e-13);
    }
    // the Option itself, through vjp! and jvp!
    let (value, pullback) = vjp!(checked_logit)(0.25);
    assert_eq!(value, checked_logit(0.25));
    assert_gradient_close(&[pullback(2.0)], &[2.0 / (0.25 * 0.75)], 1e-13);
    let (value, tangent) = jvp!(checked_logit)(0.25, 1.0);
    assert_eq!(value, checked_logit(0.25));
    assert_gradient_close(&[tangent], &[1.0 / (0.25 * 0.75)], 1e-13);
    // outside the domain: None, and no gradient
    let (value, pullback) = vjp!(checked_logit)(1.5);
    assert_eq!(value, None);
    assert_eq!(pullback(1.0), 0.0);
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn unwrap_of_none_panics_as_written() {
    let _ = gradients_function!(logit)(1.5);
}

#[test]
fn question_mark_on_results() {
    let (x, y) = (0.5, 2.0);
    let (value, pullback) = vjp!(chained)(x, y);
    assert_eq!(value, chained(x, y));
    let (gx, gy) = pullback(1.0);
    // √x · √(xy) + y = x √y + y
    assert_gradient_close(&[gx, gy], &[y.sqrt(), x / (2.0 * y.sqrt()) + 1.0], 1e-13);
    let f = |v: &[f64]| chained(v[0], v[1]).unwrap();
    assert_gradient_close(&[gx, gy], &fd(f, &[x, y]), 1e-7);
    // the early return: the error, no gradient
    let (value, pullback) = vjp!(chained)(-1.0, 2.0);
    assert_eq!(value, Err(DomainError::Negative));
    assert_eq!(pullback(1.0), (0.0, 0.0));
    let (value, pullback) = vjp!(chained)(0.5, -2.0);
    assert_eq!(value, Err(DomainError::Negative));
    assert_eq!(pullback(1.0), (0.0, 0.0));
}

#[test]
fn match_if_let_and_expect() {
    for x in [0.3, 0.7] {
        let g = gradients_function!(with_fallbacks)(x);
        let hand = 1.0 / x.sqrt() + 1.0 / (x * (1.0 - x)) + 1.0;
        assert_gradient_close(&[g], &[hand], 1e-12);
        assert_gradient_close(&[g], &fd(|v| with_fallbacks(v[0]), &[x]), 1e-7);
    }
    // outside both domains only the last term is left: |x|
    let g = gradients_function!(with_fallbacks)(-0.4);
    assert_gradient_close(&[g], &[-1.0], 1e-13);
    // the implicit mode
    let w = Variable::new(0.3);
    let f = differentiable_closure!(|s: f64| with_fallbacks(w * s));
    let grads = implicit_gradients(f)(1.0);
    let hand = gradients_function!(with_fallbacks)(0.3);
    assert_gradient_close(&[grads.get(&w).expect("w was read")], &[hand], 1e-13);
}

#[test]
fn question_mark_on_options_in_generic_code() {
    let (a, b) = (1.5, 0.5);
    let (value, pullback) = vjp!(ratio_sum::<f64>)(a, b);
    assert_eq!(value, Some(a / b + b / a));
    let (ga, gb) = pullback(1.0);
    assert_gradient_close(
        &[ga, gb],
        &[1.0 / b - b / (a * a), -a / (b * b) + 1.0 / a],
        1e-13,
    );
    let (value, pullback) = vjp!(ratio_sum::<f32>)(1.0, 0.0);
    assert_eq!(value, None);
    assert_eq!(pullback(1.0), (0.0, 0.0));
}

/// An `Option` local written with its type, from an `if`, then matched and `if let`-ed.
#[differentiable]
fn typed_option_local(a: f64, b: f64) -> f64 {
    let o: Option<f64> = if a > 0.0 { Some(a * b) } else { None };
    let t: f64 = match o {
        Some(u) => u.sin(),
        None => b,
    };
    let s: f64 = if let Some(u) = o { u * t } else { 0.0 };
    t + s
}

#[test]
fn typed_option_locals() {
    for (a, b) in [(0.5, 1.5), (-0.5, 1.5)] {
        let (ga, gb) = gradients_function!(typed_option_local)(a, b);
        let numeric = fd(|p| typed_option_local(p[0], p[1]), &[a, b]);
        assert_gradient_close(&[ga, gb], &numeric, 1e-7);
    }
    // a < 0: only t = b remains
    assert_eq!(
        gradients_function!(typed_option_local)(-0.5, 1.5),
        (0.0, 1.0)
    );
}

#[derive(Debug, Clone, PartialEq)]
enum BetaError {
    A,
    B,
}

/// A `Result` chosen by an `if`/`else if` chain, then unwrapped by the caller.
#[differentiable]
fn checked_ln_b(a: f64, b: f64) -> Result<f64, BetaError> {
    if a <= 0.0 {
        Err(BetaError::A)
    } else if b <= 0.0 {
        Err(BetaError::B)
    } else {
        Ok(a.ln() * b + (a + b).ln())
    }
}

#[differentiable]
fn ln_b(a: f64, b: f64) -> f64 {
    checked_ln_b(a, b).unwrap()
}

#[test]
fn results_chosen_by_branches() {
    let (a, b) = (1.5, 2.5);
    let (ga, gb) = gradients_function!(ln_b)(a, b);
    assert_gradient_close(
        &[ga, gb],
        &[b / a + 1.0 / (a + b), a.ln() + 1.0 / (a + b)],
        1e-14,
    );
    let (value, pullback) = vjp!(checked_ln_b)(-1.0, 2.0);
    assert_eq!(value, Err(BetaError::A));
    assert_eq!(pullback(1.0), (0.0, 0.0));
}

mod special {
    use autodiff::prelude::*;

    /// A helper in another module: its result's shape is not visible at the call.
    #[differentiable]
    pub fn scaled_log(a: f64, b: f64, x: f64) -> f64 {
        a * x.ln() + b
    }
}

/// A distribution's parameters, read as constants.
pub struct Scaled {
    a: f64,
    b: f64,
}

impl Scaled {
    /// `Ok(helper(self.a, …))`, as distributions write their checked functions.
    #[differentiable]
    fn checked_cdf(&self, x: f64) -> Result<f64, String> {
        if x <= 0.0 {
            return Err(format!("{x} is not positive"));
        }
        Ok(special::scaled_log(self.a, self.b, x))
    }
}

/// Arrays wrapped and unwrapped: `Some`, `Ok`, `unwrap`, `expect`, `match`.
#[differentiable]
fn wrapped_arrays(x: &Array1<f64>) -> f64 {
    let o = Some(x * 2.0);
    let r: Result<Array1<f64>, String> = Ok(o.unwrap().mapv(f64::sin));
    let y = r.expect("a value");
    let z = match Some(y) {
        Some(v) => v,
        None => x.clone(),
    };
    z.sum()
}

use autodiff::ndarray::Array1;

#[test]
fn results_of_helpers_and_options_of_arrays() {
    let d = Scaled { a: 2.0, b: 1.0 };
    for x in [3.0, 0.5] {
        let (v, pullback) = vjp!(Scaled::checked_cdf)(&d, x);
        assert_eq!(v, d.checked_cdf(x));
        let g = pullback(1.0);
        assert_gradient_close(&[g], &[d.a / x], 1e-14);
        let fd = finite_difference(|q| d.checked_cdf(q[0]).unwrap(), &[x]);
        assert_gradient_close(&[g], &fd, 1e-7);
    }
    // the error names the argument (a format string capturing a local)
    let (v, pullback) = vjp!(Scaled::checked_cdf)(&d, -1.0);
    assert_eq!(v, Err("-1 is not positive".to_string()));
    assert_eq!(pullback(1.0), 0.0);
    let x = Array1::from(vec![1.0, 2.0, -0.5]);
    let g = gradients_function!(wrapped_arrays)(&x);
    // d/dx Σ sin(2x) = 2 cos(2x)
    let hand: Vec<f64> = x.iter().map(|v| 2.0 * (2.0 * v).cos()).collect();
    assert_gradient_close(g.as_slice().unwrap(), &hand, 1e-14);
    let fd = finite_difference(
        |q| wrapped_arrays(&Array1::from(q.to_vec())),
        x.as_slice().unwrap(),
    );
    assert_gradient_close(g.as_slice().unwrap(), &fd, 1e-7);
    let v = Array1::from(vec![0.5, -1.0, 2.0]);
    let (y, dy) = jvp!(wrapped_arrays)(&x, &v);
    assert_eq!(y, wrapped_arrays(&x));
    let along: f64 = hand.iter().zip(&v).map(|(g, v)| g * v).sum();
    assert_gradient_close(&[dy], &[along], 1e-14);
}

/// Why a power is undefined.
#[derive(Debug, Clone, PartialEq)]
pub enum PowerError {
    NotPositive,
}

/// `ln B`-like helper returning a `Result`.
#[differentiable]
fn checked_ln_power(a: f64, b: f64) -> Result<f64, PowerError> {
    if a <= 0.0 {
        Err(PowerError::NotPositive)
    } else {
        Ok(a.ln() * b)
    }
}

/// `Result::map`, as statistics libraries write their checked functions.
#[differentiable]
fn checked_power(a: f64, b: f64) -> Result<f64, PowerError> {
    checked_ln_power(a, b).map(|x| x.exp())
}

#[differentiable]
fn power(a: f64, b: f64) -> f64 {
    checked_power(a, b).unwrap()
}

/// `Option::map` with a closure reading an outer value, then `unwrap_or`.
#[differentiable]
fn mapped_or(a: f64) -> f64 {
    let o = if a > 0.0 { Some(a * a) } else { None };
    o.map(|v: f64| v.sin() * a).unwrap_or(0.5 * a)
}

#[test]
fn map_and_unwrap_or() {
    let (a, b) = (2.0_f64, 1.5_f64);
    let (ga, gb) = gradients_function!(power)(a, b);
    // a^b: (b a^(b-1), a^b ln a)
    assert_gradient_close(&[ga, gb], &[b * a.powf(b - 1.0), a.powf(b) * a.ln()], 1e-14);
    let fd = finite_difference(|v| power(v[0], v[1]), &[a, b]);
    assert_gradient_close(&[ga, gb], &fd, 1e-7);
    let (v, pullback) = vjp!(checked_power)(-1.0, b);
    assert_eq!(v, Err(PowerError::NotPositive));
    assert_eq!(pullback(1.0), (0.0, 0.0));
    let (y, dy) = jvp!(power)(a, b, 1.0, 0.0);
    assert_eq!(y, power(a, b));
    assert_gradient_close(&[dy], &[ga], 1e-14);
    for a in [0.7_f64, -0.4] {
        let g = gradients_function!(mapped_or)(a);
        // a > 0: sin(a²)·a, derivative 2a² cos(a²) + sin(a²); else 0.5
        let hand = if a > 0.0 {
            2.0 * a * a * (a * a).cos() + (a * a).sin()
        } else {
            0.5
        };
        assert_gradient_close(&[g], &[hand], 1e-14);
        assert_gradient_close(&[g], &finite_difference(|v| mapped_or(v[0]), &[a]), 1e-7);
    }
}

/// `and_then` chaining two checked steps, `unwrap_or_else` with the error.
#[differentiable]
fn and_then_chain(a: f64, b: f64) -> f64 {
    let r = checked_ln_power(a, b).and_then(|l| checked_ln_power(l.exp() + 1.0, 2.0));
    r.unwrap_or_else(|e| {
        if e == PowerError::NotPositive {
            -a
        } else {
            0.0
        }
    })
}

/// `unwrap_or_default` and `unwrap_or_else` of an `Option`.
#[differentiable]
fn defaults(a: f64) -> f64 {
    let o = if a > 0.0 { Some(a.sqrt()) } else { None };
    let p = if a > 1.0 { Some(a * a) } else { None };
    o.unwrap_or_default() + p.unwrap_or_else(|| 3.0 * a)
}

#[test]
fn and_then_unwrap_or_else_and_default() {
    // a > 0: 2 ln(a^b + 1)
    let (a, b) = (1.5_f64, 0.5_f64);
    let (ga, gb) = gradients_function!(and_then_chain)(a, b);
    let p = a.powf(b);
    let hand = [
        2.0 * b * a.powf(b - 1.0) / (p + 1.0),
        2.0 * p * a.ln() / (p + 1.0),
    ];
    assert_gradient_close(&[ga, gb], &hand, 1e-14);
    let fd = finite_difference(|v| and_then_chain(v[0], v[1]), &[a, b]);
    assert_gradient_close(&[ga, gb], &fd, 1e-7);
    // a ≤ 0: the error path, -a
    let (ga, gb) = gradients_function!(and_then_chain)(-0.5, b);
    assert_eq!((ga, gb), (-1.0, 0.0));
    for a in [0.25_f64, 2.0, -1.0] {
        let g = gradients_function!(defaults)(a);
        let hand =
            (if a > 0.0 { 0.5 / a.sqrt() } else { 0.0 }) + if a > 1.0 { 2.0 * a } else { 3.0 };
        assert_gradient_close(&[g], &[hand], 1e-14);
        assert_gradient_close(&[g], &finite_difference(|v| defaults(v[0]), &[a]), 1e-7);
    }
}

/// `ok_or`, `ok()`, `is_some()`: conversions between `Option` and `Result`.
#[differentiable]
fn converted(x: f64) -> f64 {
    let o = checked_logit(x);
    let weight = if o.is_some() { 1.5 } else { 2.0 };
    let r: Result<f64, String> = o.ok_or("outside (0, 1)".to_string());
    weight * r.ok().unwrap_or(0.0)
}

/// `ok_or_else(|| …)?` in a function returning a `Result`.
#[differentiable]
fn converted_try(x: f64) -> Result<f64, String> {
    let v = checked_logit(x).ok_or_else(|| format!("{x} is outside (0, 1)"))?;
    Ok(v * 2.0)
}

#[test]
fn option_result_conversions() {
    for x in [0.3_f64, 0.8] {
        // d/dx logit = 1 / (x (1 - x))
        let d = 1.0 / (x * (1.0 - x));
        let g = gradients_function!(converted)(x);
        assert_gradient_close(&[g], &[1.5 * d], 1e-14);
        assert_gradient_close(&[g], &finite_difference(|v| converted(v[0]), &[x]), 1e-7);
        let (v, pullback) = vjp!(converted_try)(x);
        assert_eq!(v, converted_try(x));
        assert_gradient_close(&[pullback(1.0)], &[2.0 * d], 1e-14);
    }
    let (v, pullback) = vjp!(converted_try)(1.5);
    assert_eq!(v, Err("1.5 is outside (0, 1)".to_string()));
    assert_eq!(pullback(1.0), 0.0);
    assert_eq!(gradients_function!(converted)(1.5), 0.0);
}
