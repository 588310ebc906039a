//! Generic numeric code as its authors write it: `T: Float + FromPrimitive + Sum`,
//! `T::from_f64(c).unwrap()`, `T::from_usize(n).unwrap()`, `F::from(x).expect(..)`,
//! `T::one()`, iterator sums, and a branch that panics. Gradients are compared with
//! central finite differences and with derivatives worked out by hand, for `f64` and `f32`.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;
use autodiff_runtime::num_traits::FromPrimitive;
use std::iter::Sum;

#[track_caller]
fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= 1e-12 * expected.abs().max(1.0),
        "{actual} vs {expected}"
    );
}

/// Ackley's function as optimisation libraries publish it.
#[differentiable]
pub fn ackley_abc<T>(param: &[T], a: T, b: T, c: T) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let num1 = T::from_f64(1.0).unwrap();
    let n = T::from_usize(param.len()).unwrap();
    -a * (-b * ((num1 / n) * param.iter().map(|x| x.powi(2)).sum()).sqrt()).exp()
        - ((num1 / n) * param.iter().map(|x| (c * *x).cos()).sum()).exp()
        + a
        + num1.exp()
}

#[differentiable]
pub fn sphere<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    param.iter().map(|x| x.powi(2)).sum()
}

#[differentiable]
pub fn product_of_squares<T: Float + std::iter::Product>(param: &[T]) -> T {
    param.iter().map(|x| *x * *x).product()
}

#[test]
fn generic_sums_start_at_the_float_type() {
    let x = [1.0, -2.0, 0.5];
    let g = gradients_function!(sphere)(&x);
    assert_eq!(g, vec![2.0, -4.0, 1.0]);
    let g32 = gradients_function!(sphere::<f32>)(&[1.5f32, 0.25]);
    assert_eq!(g32, vec![3.0f32, 0.5]);
    // ∏ x² : d/dx_i = 2 ∏ x² / x_i
    let g = gradients_function!(product_of_squares)(&x);
    let p = 1.0 * 4.0 * 0.25;
    for (gi, xi) in g.iter().zip(x) {
        assert_close(*gi, 2.0 * p / xi);
    }
}

#[test]
fn ackley_as_published() {
    let x = [0.3, -0.7, 1.1];
    let (a, b, c) = (20.0, 0.2, 2.0 * std::f64::consts::PI);
    let (gx, ga, gb, gc) = gradients_function!(ackley_abc)(&x, a, b, c);
    let numeric = finite_difference(|v: &[f64]| ackley_abc(v, a, b, c), &x);
    assert_gradient_close(&gx, &numeric, 1e-7);
    // ∂/∂a = 1 − exp(−b √(mean x²))
    let rms = (x.iter().map(|v| v * v).sum::<f64>() / 3.0).sqrt();
    assert_close(ga, 1.0 - (-b * rms).exp());
    // ∂/∂b = a √(mean x²) exp(−b √(mean x²))
    assert_close(gb, a * rms * (-b * rms).exp());
    let numeric_c = finite_difference(|v: &[f64]| ackley_abc(&x, a, b, v[0]), &[c]);
    assert_gradient_close(&[gc], &numeric_c, 1e-7);
    let (gx32, ..) =
        gradients_function!(ackley_abc::<f32>)(&[0.3f32, -0.7, 1.1], 20.0, 0.2, 6.2831855);
    for (g32, g64) in gx32.iter().zip(&gx) {
        assert!((f64::from(*g32) - g64).abs() < 1e-4, "{g32} vs {g64}");
    }
}

/// A conversion helper as easing libraries write it.
#[differentiable]
pub fn f<F: Float>(x: f64) -> F {
    F::from(x).expect("cast failed, are you using non f32,f64 types?")
}

#[differentiable]
pub fn scaled<T: Float + FromPrimitive>(x: T, k: usize) -> T {
    let n = T::from_usize(k).unwrap();
    let half = T::from_f64(0.5).unwrap();
    half * n * x * x + T::one()
}

#[test]
fn conversions_to_the_float_type() {
    let g: f64 = gradients_function!(f::<f32>)(0.5);
    assert_eq!(g, 1.0);
    let (v, pullback) = vjp!(f::<f64>)(0.25);
    assert_eq!((v, pullback(3.0)), (0.25, 3.0));
    // d/dx (k x²/2 + 1) = k x
    let g = gradients_function!(scaled, params = ["x"])(1.5, 4);
    assert_close(g, 6.0);
    let g32: f32 = gradients_function!(scaled::<f32>, params = ["x"])(0.5, 3);
    assert_eq!(g32, 1.5);
}

/// A branch that panics has no value: the other branch's is the `if`'s.
#[differentiable]
pub fn inverse_cdf(location: f64, scale: f64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        panic!("p must be in [0, 1]");
    } else {
        location + scale * (std::f64::consts::PI * (p - 0.5)).tan()
    }
}

#[differentiable]
pub fn checked_sqrt(x: f64) -> f64 {
    match x >= 0.0 {
        true => x.sqrt(),
        false => unreachable!("a negative argument"),
    }
}

#[test]
fn a_branch_that_panics() {
    let (gl, gs, gp) = gradients_function!(inverse_cdf)(0.5, 2.0, 0.3);
    let t = (std::f64::consts::PI * (0.3 - 0.5)).tan();
    assert_eq!(gl, 1.0);
    assert_close(gs, t);
    // d/dp s tan(π(p − ½)) = s π (1 + tan²)
    assert_close(gp, 2.0 * std::f64::consts::PI * (1.0 + t * t));
    let numeric = finite_difference(|v: &[f64]| inverse_cdf(0.5, 2.0, v[0]), &[0.3]);
    assert_gradient_close(&[gp], &numeric, 1e-7);
    assert_close(gradients_function!(checked_sqrt)(4.0), 0.25);
}

/// A conversion to `f64` inside code generic over `T: Into<f64>` and back through
/// `T::from_f64` (as optimisation test suites write Rastrigin's terms, index loop and all).
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn rastrigin_terms<T: Float + FromPrimitive + Into<f64>>(param: &[T], a: T) -> T {
    let npi2 = T::from_f64(2.0 * std::f64::consts::PI).unwrap();
    let mut s = T::zero();
    for i in 0..param.len() {
        s = s + param[i] * param[i] - a * T::from_f64(f64::cos((npi2 * param[i]).into())).unwrap();
    }
    s
}

/// `T::from(x)` of a value of the same type, under forward over reverse.
#[differentiable]
fn cast_in_the_middle<T: Float>(x: T) -> T {
    let y = T::from(x * x).unwrap();
    y * x.sin()
}

#[test]
fn conversions_through_f64_in_generic_code() {
    let p = [0.3, -0.7];
    let a = 10.0;
    let (g, ga) = gradients_function!(rastrigin_terms::<f64>)(&p, a);
    let w = 2.0 * std::f64::consts::PI;
    let hand: Vec<f64> = p.iter().map(|x| 2.0 * x + a * w * (w * x).sin()).collect();
    assert_gradient_close(&g, &hand, 1e-12);
    let hand_a: f64 = p.iter().map(|x| -(w * x).cos()).sum();
    assert_gradient_close(&[ga], &[hand_a], 1e-12);
    // d²/dx² of x² sin x = 2 sin x + 4x cos x − x² sin x
    let x = 0.8_f64;
    let h = hessian!(cast_in_the_middle)(x);
    let hand = 2.0 * x.sin() + 4.0 * x * x.cos() - x * x * x.sin();
    assert_gradient_close(&[h], &[hand], 1e-12);
}

/// `fma`-style helper for the polynomial below.
#[differentiable]
fn fused(acc: f64, x: f64, c: f64) -> f64 {
    acc * x + c
}

/// Horner's rule over any iterator of coefficients (a constant: `I` is not a float type).
#[differentiable]
fn polynomial<I>(x: f64, coefficients: I) -> f64
where
    I: IntoIterator<Item = f64>,
{
    coefficients
        .into_iter()
        .fold(0.0, |acc, coeff| fused(acc, x, coeff))
}

/// The same as a `for` loop over an iterator.
#[differentiable]
fn polynomial_loop<I: Iterator<Item = f64>>(x: f64, coefficients: I) -> f64 {
    let mut acc = 0.0;
    for c in coefficients {
        acc = acc * x + c;
    }
    acc
}

#[test]
fn iterators_of_constants_as_type_parameters() {
    // 4x³ + 3x² - 2x + 1: derivative 12x² + 6x - 2
    let c = [4.0, 3.0, -2.0, 1.0];
    for x in [0.5, -1.5, 2.0] {
        let hand = 12.0 * x * x + 6.0 * x - 2.0;
        let g = gradients_function!(polynomial, params = ["x"])(x, c);
        assert_gradient_close(&[g], &[hand], 1e-13);
        let g = gradients_function!(polynomial_loop, params = ["x"])(x, c.into_iter());
        assert_gradient_close(&[g], &[hand], 1e-13);
        let fd = finite_difference(|v| polynomial(v[0], c), &[x]);
        assert_gradient_close(&[g], &fd, 1e-7);
    }
}

/// ndarray code generic over the float type: a dot product (a scalar result) added to a
/// sum of an elementwise product, and a matrix–vector product reduced to a scalar.
#[differentiable]
fn generic_array_code<T: Float + autodiff::ndarray::LinalgScalar>(
    a: &autodiff::ndarray::Array2<T>,
    x: &autodiff::ndarray::Array1<T>,
) -> T {
    let s = x.mapv(|v| v * v);
    (&s * &s).sum() + x.dot(x) + a.dot(x).sum()
}

#[test]
fn generic_ndarray_code_with_dot_products() {
    use autodiff::ndarray::array;
    let a = array![[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]];
    let x = array![0.5, -1.0, 2.0];
    let (ga, gx) = gradients_function!(generic_array_code)(&a, &x);
    // ∂/∂xⱼ = 4xⱼ³ + 2xⱼ + Σᵢ aᵢⱼ, ∂/∂aᵢⱼ = xⱼ
    for j in 0..3 {
        let col: f64 = a.column(j).sum();
        assert_close(gx[j], 4.0 * x[j] * x[j] * x[j] + 2.0 * x[j] + col);
        for i in 0..2 {
            assert_close(ga[[i, j]], x[j]);
        }
    }
    let fd = finite_difference(
        |p| {
            let x = autodiff::ndarray::Array1::from(p.to_vec());
            generic_array_code(&a, &x)
        },
        x.as_slice().unwrap(),
    );
    assert_gradient_close(gx.as_slice().unwrap(), &fd, 1e-7);
    // in f32
    let (_, gx32) =
        gradients_function!(generic_array_code)(&a.mapv(|v| v as f32), &x.mapv(|v| v as f32));
    assert!((f64::from(gx32[2]) - gx[2]).abs() < 1e-4 * gx[2].abs());
}

/// Numeric traits of the crate's own, as vector-math crates bound their scalar
/// (`T: Copy + traits::Sqrt + traits::One + Add + Mul`): their methods share names with
/// num-traits' (`sqrt`, `one`), which the derivative's `T: Real` brings in scope too.
mod own_traits {
    pub trait Sqrt {
        fn sqrt(self) -> Self;
    }
    impl Sqrt for f64 {
        fn sqrt(self) -> f64 {
            f64::sqrt(self)
        }
    }
    impl Sqrt for f32 {
        fn sqrt(self) -> f32 {
            f32::sqrt(self)
        }
    }
    pub trait One {
        fn one() -> Self;
    }
    impl One for f64 {
        fn one() -> f64 {
            1.0
        }
    }
    impl One for f32 {
        fn one() -> f32 {
            1.0
        }
    }
}

/// `1 / |a|` as vecmath writes `vec3_inv_len`.
#[differentiable]
pub fn inv_len<T>(a: [T; 3]) -> T
where
    T: Copy
        + own_traits::Sqrt
        + own_traits::One
        + std::ops::Add<T, Output = T>
        + std::ops::Mul<T, Output = T>
        + std::ops::Div<T, Output = T>,
{
    let one = T::one();
    one / (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

#[test]
fn the_crates_own_numeric_traits() {
    let a = [0.3, -1.2, 2.0];
    let g = gradients_function!(inv_len::<f64>)(a);
    let r = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    for i in 0..3 {
        assert_close(g[i], -a[i] / (r * r * r));
    }
    let fd = finite_difference(|p| inv_len::<f64>([p[0], p[1], p[2]]), &a);
    assert_gradient_close(&g, &fd, 1e-8);
    let g32 = gradients_function!(inv_len::<f32>)([0.3f32, -1.2, 2.0]);
    assert!((g32[0] as f64 - g[0]).abs() < 1e-5);
    let (value, tangent) = jvp!(inv_len::<f64>)(a, [1.0, 0.0, 0.0]);
    assert_eq!(value, inv_len::<f64>(a));
    assert_close(tangent, g[0]);
}

/// A model generic over its float type, without `#[derive(Differentiable)]`: a constant.
struct Affine<T> {
    w: T,
    b: T,
}

trait Predict<T> {
    fn predict(&self, x: T) -> T;
}

#[differentiable]
impl<T: autodiff::num_traits::Float> Predict<T> for Affine<T> {
    fn predict(&self, x: T) -> T {
        self.w * x + self.b
    }
}

/// A generic function with a constant parameter of a plain struct generic over the same
/// float type.
#[differentiable]
fn affine_times<T: autodiff::num_traits::Float>(#[no_grad] m: &Affine<T>, x: T, y: T) -> T {
    m.predict(x) * y
}

#[test]
fn a_constant_plain_struct_generic_over_the_float_type() {
    let m = Affine { w: 2.0, b: 1.0 };
    // (2x + 1)·y
    let (gx, gy) = gradients_function!(affine_times)(&m, 3.0, 4.0);
    assert_close(gx, 8.0);
    assert_close(gy, 7.0);
    let m32 = Affine { w: 2.0_f32, b: 1.0 };
    let (gx, _) = gradients_function!(affine_times)(&m32, 3.0_f32, 4.0);
    assert!((gx - 8.0).abs() < 1e-6);
    let (_, t) = jvp!(affine_times)(&m, 3.0, 4.0, 1.0, 0.0);
    assert_close(t, 8.0);
}
