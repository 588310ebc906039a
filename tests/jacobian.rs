//! `jacobian!`: vector functions against hand-derived Jacobians and central differences,
//! f32 and f64, generic and concrete functions, every output and parameter kind.
// (the differentiated loops index their slices, as numerical code does)
#![allow(clippy::needless_range_loop)]

use autodiff::ndarray::{array, Array1, Array2};
use autodiff::prelude::*;

/// The central-difference Jacobian of `f` at `x` (m × n).
fn central(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Array2<f64> {
    let h = 1e-6;
    let m = f(x).len();
    let mut j = Array2::zeros((m, x.len()));
    for k in 0..x.len() {
        let (mut plus, mut minus) = (x.to_vec(), x.to_vec());
        plus[k] += h;
        minus[k] -= h;
        let (fp, fm) = (f(&plus), f(&minus));
        for i in 0..m {
            j[[i, k]] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    j
}

fn assert_close(a: &Array2<f64>, b: &Array2<f64>, tol: f64) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a} vs {b}");
    }
}

/// The residuals of the Rosenbrock function, generic over the float type.
#[differentiable]
fn residuals<T: Float>(x: &[T]) -> Vec<T> {
    let ten = T::from(10.0).unwrap();
    let mut r = vec![T::zero(); 2 * (x.len() - 1)];
    for i in 0..x.len() - 1 {
        r[2 * i] = ten * (x[i + 1] - x[i] * x[i]);
        r[2 * i + 1] = T::one() - x[i];
    }
    r
}

#[test]
fn generic_residuals_match_the_hand_derived_jacobian_in_f64_and_f32() {
    let x = [1.5, -0.5, 2.0];
    let j = jacobian!(residuals)(&x[..]);
    let expected = array![
        [-20.0 * x[0], 10.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, -20.0 * x[1], 10.0],
        [0.0, -1.0, 0.0],
    ];
    assert_eq!(j, expected);

    let x32 = [1.5_f32, -0.5, 2.0];
    let j32: Array2<f32> = jacobian!(residuals)(&x32[..]);
    assert_eq!(j32, expected.mapv(|v| v as f32));
}

#[differentiable]
fn square(v: f64) -> f64 {
    v * v
}

/// A loop, a branch and a call to a differentiable helper.
#[differentiable]
fn soft_clip(x: &[f64], a: f64) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    let mut acc = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            acc += square(x[i]) * a;
        } else {
            acc += (a * x[i]).exp();
        }
        y[i] = acc.sin() + x[i] / a;
    }
    y
}

#[test]
fn loops_branches_and_calls_match_central_differences() {
    let x = [0.3, -0.7, 1.1, -0.2, 0.5];
    let a = 0.8;
    let jx = jacobian!(soft_clip, params = ["x"])(&x, a);
    assert_close(&jx, &central(|x| soft_clip(x, a), &x), 1e-6);
    // lower triangular: y[i] depends on x[..=i] only
    assert_eq!(jx[[0, 4]], 0.0);

    let ja = jacobian!(soft_clip, params = [1])(&x, a);
    assert_eq!(ja.shape(), &[5, 1]);
    assert_close(&ja, &central(|a| soft_clip(&x, a[0]), &[a]), 1e-6);
}

#[differentiable]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

#[test]
fn an_array_output_and_scalar_parameters() {
    let (r, t) = (2.0_f64, 0.6_f64);
    let jt = jacobian!(polar, params = ["theta"])(r, t);
    assert_eq!(jt, array![[-r * t.sin()], [r * t.cos()]]);
    let jr = jacobian!(polar, params = ["r"])(r, t);
    assert_eq!(jr, array![[t.cos()], [t.sin()]]);
}

#[differentiable]
fn scaled(w: &Array1<f64>) -> Array1<f64> {
    w * w * 3.0
}

#[test]
fn array1_output_and_parameter() {
    let w = array![1.0, -2.0, 0.5];
    let j = jacobian!(scaled)(&w);
    assert_eq!(j, Array2::from_diag(&(&w * 6.0)));
}

#[differentiable]
fn energy(x: Vec<f64>) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() {
        e += x[i] * x[i] * (i as f64 + 1.0);
    }
    e
}

#[test]
fn a_scalar_output_is_one_row_the_gradient_and_an_owned_vec_parameter() {
    let j = jacobian!(energy)(vec![1.0, 2.0, 3.0]);
    assert_eq!(j, array![[2.0, 8.0, 18.0]]);
}

#[differentiable]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[test]
fn an_array_parameter_gives_the_skew_matrix_of_the_cross_product() {
    let (a, b) = ([1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]);
    // d(a × b)/da = -[b]×
    let ja = jacobian!(cross, params = ["a"])(a, b);
    let skew_b = array![[0.0, -b[2], b[1]], [b[2], 0.0, -b[0]], [-b[1], b[0], 0.0]];
    assert_eq!(ja, -skew_b);
    let jb = jacobian!(cross, params = ["b"])(a, b);
    let skew_a = array![[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]];
    assert_eq!(jb, skew_a);
}

/// Squares of `x[k..]`: empty when `k = x.len()`.
#[differentiable]
fn tail_squares(x: &[f64], k: usize) -> Vec<f64> {
    let mut y = vec![0.0; x.len() - k];
    for i in k..x.len() {
        y[i - k] = x[i] * x[i];
    }
    y
}

#[test]
fn an_empty_output_gives_zero_rows_of_the_parameter_s_length() {
    let x = [1.0, 2.0, 3.0];
    assert_eq!(jacobian!(tail_squares)(&x, 3).shape(), &[0, 3]);
    assert_eq!(
        jacobian!(tail_squares)(&x, 1),
        array![[0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]
    );
}

#[test]
fn rows_agree_with_jvp_columns() {
    let x = [0.4, -1.2, 0.9];
    let j = jacobian!(residuals)(&x[..]);
    for k in 0..x.len() {
        let mut e = [0.0; 3];
        e[k] = 1.0;
        let (_, column) = jvp!(residuals)(&x[..], &e[..]);
        assert_eq!(column, j.column(k).to_vec());
    }
}

#[test]
#[should_panic(
    expected = "the tangent of `x` (parameter of `residuals`) has shape [2], but `x` has shape [3]"
)]
fn a_tangent_of_the_wrong_length_panics_naming_the_parameter() {
    let _ = jvp!(residuals)(&[1.0, 2.0, 3.0][..], &[1.0, 0.0][..]);
}

struct Stretch {
    k: f64,
}

impl Stretch {
    #[differentiable]
    fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = self.k * x[i] * x[i];
        }
        y
    }
}

#[test]
fn a_method_s_jacobian() {
    let s = Stretch { k: 3.0 };
    let j = jacobian!(Stretch::apply)(&s, &[1.0, 2.0]);
    assert_eq!(j, array![[6.0, 0.0], [0.0, 12.0]]);
}

// ---- forward fill: fewer parameter elements than outputs ----

/// A curve in the plane sampled at five points: 2 parameters, 10 outputs.
#[differentiable]
fn samples(p: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for k in 0..5 {
        let t = k as f64 * 0.5;
        out.push(p[0] * t.cos() + p[1] * t * t);
        out.push((p[0] * t).sin() * p[1]);
    }
    out
}

/// The closed form: row 2k is (cos t, t²), row 2k + 1 is (t·cos(p₀t)·p₁, sin(p₀t)).
fn samples_jacobian(p: &[f64]) -> Array2<f64> {
    let mut j = Array2::zeros((10, 2));
    for k in 0..5 {
        let t = k as f64 * 0.5;
        j[[2 * k, 0]] = t.cos();
        j[[2 * k, 1]] = t * t;
        j[[2 * k + 1, 0]] = t * (p[0] * t).cos() * p[1];
        j[[2 * k + 1, 1]] = (p[0] * t).sin();
    }
    j
}

#[test]
fn fewer_inputs_than_outputs_fill_columns_by_forward_mode_against_the_closed_form() {
    let p = [0.7, -1.3];
    let j = jacobian!(samples)(&p);
    assert_close(&j, &samples_jacobian(&p), 1e-14);
    assert_close(&j, &central(samples, &p), 1e-8);
}

/// A scalar parameter and an `Array1` output: one column, one tangent sweep.
#[differentiable]
fn orbit(t: f64, radii: &Array1<f64>) -> Array1<f64> {
    radii.mapv(|r| r * r) * t.sin() + radii * t.cos()
}

#[test]
fn a_scalar_parameter_gives_one_column() {
    let radii = array![0.5, 1.0, 2.0];
    let t = 0.4;
    let j = jacobian!(orbit, params = ["t"])(t, &radii);
    let expected: Array2<f64> = radii
        .mapv(|r| r * r * t.cos() - r * t.sin())
        .insert_axis(autodiff::ndarray::Axis(1));
    assert_close(&j, &expected, 1e-14);
    // the other parameter has as many elements as the output: rows by reverse mode
    let j = jacobian!(orbit, params = ["radii"])(t, &radii);
    let expected = Array2::from_diag(&radii.mapv(|r| 2.0 * r * t.sin() + t.cos()));
    assert_close(&j, &expected, 1e-14);
}

thread_local! {
    static FORWARD_SWEEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static REVERSE_SWEEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `(x₀ + x₁, x₀ x₁, x₀², x₁²)` with both rules by hand, counting the sweeps `jacobian!`
/// runs.
#[differentiable(vjp = four_vjp, jvp = four_jvp)]
fn four(x: &[f64]) -> Vec<f64> {
    vec![x[0] + x[1], x[0] * x[1], x[0] * x[0], x[1] * x[1]]
}

#[allow(clippy::type_complexity)]
fn four_vjp(x: &[f64]) -> (Vec<f64>, impl FnOnce(Vec<f64>) -> Vec<f64>) {
    REVERSE_SWEEPS.with(|c| c.set(c.get() + 1));
    let (a, b) = (x[0], x[1]);
    (four(x), move |dy: Vec<f64>| {
        vec![
            dy[0] + dy[1] * b + dy[2] * 2.0 * a,
            dy[0] + dy[1] * a + dy[3] * 2.0 * b,
        ]
    })
}

fn four_jvp(x: &[f64], t: &[f64]) -> (Vec<f64>, Vec<f64>) {
    FORWARD_SWEEPS.with(|c| c.set(c.get() + 1));
    let (a, b) = (x[0], x[1]);
    let tangent = vec![
        t[0] + t[1],
        t[0] * b + a * t[1],
        2.0 * a * t[0],
        2.0 * b * t[1],
    ];
    (four(x), tangent)
}

/// Chosen by shape: 2 inputs and 4 outputs take the first reverse sweep (which gives the
/// output's length) and then 2 tangent sweeps, not 4 reverse ones.
#[test]
fn the_mode_is_chosen_by_shape() {
    let x = [0.3, -2.0];
    FORWARD_SWEEPS.with(|c| c.set(0));
    REVERSE_SWEEPS.with(|c| c.set(0));
    let j = jacobian!(four)(&x);
    let expected = array![[1.0, 1.0], [-2.0, 0.3], [0.6, 0.0], [0.0, -4.0]];
    assert_close(&j, &expected, 1e-15);
    assert_eq!(
        FORWARD_SWEEPS.with(|c| c.get()),
        2,
        "one tangent sweep per input"
    );
    assert_eq!(
        REVERSE_SWEEPS.with(|c| c.get()),
        1,
        "the sweep that measures the output"
    );
}

#[differentiable]
fn lent_buffer(y: &mut [f64], s: f64) {
    for i in 0..y.len() {
        y[i] *= s;
    }
}

/// A function forward mode does not serve (it lends a `&mut` buffer) keeps reverse mode.
#[differentiable]
fn scaled_copies(s: f64) -> Vec<f64> {
    let mut y = vec![1.0, 2.0, 3.0];
    lent_buffer(&mut y, s);
    lent_buffer(&mut y, s);
    y
}

#[test]
fn a_function_forward_mode_refuses_keeps_rows_by_reverse_mode() {
    let s = 1.5;
    let j = jacobian!(scaled_copies)(s);
    let expected = array![[2.0 * s], [4.0 * s], [6.0 * s]];
    assert_close(&j, &expected, 1e-14);
}

#[differentiable]
#[allow(clippy::ptr_arg, clippy::vec_init_then_push)] // the parameter kind under test
fn from_vec(x: &Vec<f64>, scale: f64) -> Vec<f64> {
    let mut out = Vec::new();
    out.push(x[0] * scale);
    out.push(x[1] * x[0]);
    out.push(x[1].sin());
    out.push(x[0] + x[1]);
    out
}

#[differentiable]
fn from_view(x: autodiff::ndarray::ArrayView1<f64>) -> Array1<f64> {
    let y = &x * 2.0;
    autodiff::ndarray::concatenate(autodiff::ndarray::Axis(0), &[y.view(), x]).unwrap()
}

/// Other parameter kinds of the forward fill (a `&Vec`), and one forward mode refuses (a
/// view): both against the closed form.
#[test]
fn forward_fill_of_other_parameter_kinds() {
    let x = vec![0.4, -1.1];
    let j = jacobian!(from_vec, params = ["x"])(&x, 3.0);
    let expected = array![[3.0, 0.0], [x[1], x[0]], [0.0, x[1].cos()], [1.0, 1.0]];
    assert_close(&j, &expected, 1e-15);
    let v = array![0.5, -2.0];
    let j = jacobian!(from_view)(v.view());
    let expected = array![[2.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.0, 1.0]];
    assert_close(&j, &expected, 1e-15);
}
