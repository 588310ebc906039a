//! Second order (`hvp!`, `hessian!`): forward over reverse, checked against closed-form
//! Hessians, symmetry and central differences of the reverse gradient.

// index loops are the constructs under test
#![allow(clippy::needless_range_loop)]

use autodiff::dual::Dual;
use autodiff::ndarray::Array2;
use autodiff::num_traits::FromPrimitive;
use autodiff::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

#[differentiable]
fn rosenbrock<T: Float + FromPrimitive>(x: &[T]) -> T {
    let hundred = T::from_f64(100.0).unwrap();
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        let a = T::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum = sum + a * a + hundred * b * b;
    }
    sum
}

/// The Rosenbrock Hessian by hand.
fn rosenbrock_hessian(x: &[f64]) -> Array2<f64> {
    let n = x.len();
    let mut h = Array2::zeros((n, n));
    for i in 0..n - 1 {
        // a² + 100 b², a = 1 − x_i, b = x_{i+1} − x_i²
        h[[i, i]] += 2.0 + 1200.0 * x[i] * x[i] - 400.0 * x[i + 1];
        h[[i, i + 1]] += -400.0 * x[i];
        h[[i + 1, i]] += -400.0 * x[i];
        h[[i + 1, i + 1]] += 200.0;
    }
    h
}

/// Central differences of the reverse gradient along `v`.
fn gradient_difference(x: &[f64], v: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let plus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
    let minus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
    let (gp, gm) = (
        gradients_function!(rosenbrock)(&plus[..]),
        gradients_function!(rosenbrock)(&minus[..]),
    );
    gp.iter()
        .zip(&gm)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

#[test]
fn rosenbrock_hessian_against_the_closed_form() {
    let x = [0.3, -1.2, 0.8, 1.5, -0.4, 2.0];
    let h = hessian!(rosenbrock)(&x[..]);
    let expected = rosenbrock_hessian(&x);
    assert_eq!(h.dim(), (6, 6));
    for i in 0..6 {
        for j in 0..6 {
            assert!(close(h[[i, j]], expected[[i, j]], 1e-12), "H[{i},{j}]");
            assert_eq!(h[[i, j]], h[[j, i]], "symmetry at {i},{j}");
        }
    }
}

#[test]
fn rosenbrock_hvp_against_the_closed_form_and_gradient_differences() {
    let x = [0.3, -1.2, 0.8, 1.5, -0.4];
    let v = [1.0, 0.5, -0.25, 2.0, 0.1];
    let hv = hvp!(rosenbrock)(&x[..], &v[..]);
    let expected = rosenbrock_hessian(&x).dot(&autodiff::ndarray::arr1(&v));
    let fd = gradient_difference(&x, &v);
    for i in 0..5 {
        assert!(
            close(hv[i], expected[i], 1e-12),
            "{} vs {}",
            hv[i],
            expected[i]
        );
        assert!(
            close(hv[i], fd[i], 1e-5),
            "{} vs difference {}",
            hv[i],
            fd[i]
        );
    }
}

/// xᵀ A x with a constant (non-symmetric) A: H = A + Aᵀ.
#[allow(clippy::ptr_arg)] // the `&Vec<T>` parameter kind is under test
#[differentiable]
fn quadratic_form<T: Float + FromPrimitive>(x: &Vec<T>, #[no_grad] a: &[f64], n: usize) -> T {
    let mut s = T::zero();
    for i in 0..n {
        for j in 0..n {
            let aij = T::from_f64(a[i * n + j]).unwrap();
            s = s + x[i] * aij * x[j];
        }
    }
    s
}

#[test]
fn quadratic_form_hessian_is_a_plus_a_transpose() {
    let n = 3;
    let a = [1.0, 2.0, -1.0, 0.5, 3.0, 4.0, -2.0, 0.0, 5.0];
    let x = vec![0.7, -0.3, 1.1];
    let h = hessian!(quadratic_form)(&x, &a[..], n);
    for i in 0..n {
        for j in 0..n {
            assert_eq!(h[[i, j]], a[i * n + j] + a[j * n + i], "H[{i},{j}]");
        }
    }
    let hv = hvp!(quadratic_form)(&x, &a[..], n, &vec![1.0, 0.0, 0.0]);
    assert_eq!(hv, vec![2.0, 2.5, -3.0]);
}

/// Several scalar parameters and a constant: the products come back as a tuple.
#[differentiable]
fn energy<T: Float>(x: T, y: T, n: i32) -> T {
    (x * y).sin() + x.powi(n) * y.exp() - (x / y).ln()
}

#[test]
fn scalar_parameters_against_hand_derived_hessians() {
    let (x, y, n) = (0.7, 1.3, 3);
    let (hx, hy) = hvp!(energy)(x, y, n, 1.0, 0.0);
    // ∂²/∂x² and ∂²/∂y∂x
    let s = x * y;
    let dxx = -y * y * s.sin() + 6.0 * x * y.exp() + 1.0 / (x * x);
    let dxy = s.cos() - s * s.sin() + 3.0 * x * x * y.exp();
    assert!(close(hx, dxx, 1e-12), "{hx} vs {dxx}");
    assert!(close(hy, dxy, 1e-12), "{hy} vs {dxy}");
    let (hx2, hy2) = hvp!(energy)(x, y, n, 0.0, 1.0);
    let dyy = -x * x * s.sin() + x.powi(3) * y.exp() - 1.0 / (y * y);
    assert!(close(hx2, hy, 1e-12), "symmetry: {hx2} vs {hy}");
    assert!(close(hy2, dyy, 1e-12), "{hy2} vs {dyy}");
}

#[differentiable]
fn smooth<T: Float>(x: T) -> T {
    x.tanh() * x.exp() + x.sqrt().atan2(x + T::one())
}

#[test]
fn scalar_hessian_against_differences_in_f32_and_f64() {
    let x = 0.6_f64;
    let h = hessian!(smooth)(x);
    let e = 1e-5;
    let fd = (gradients_function!(smooth)(x + e) - gradients_function!(smooth)(x - e)) / (2.0 * e);
    assert!(close(h, fd, 1e-6), "{h} vs {fd}");
    let h32 = hessian!(smooth)(0.6_f32);
    assert!((f64::from(h32) - h).abs() < 1e-4, "{h32} vs {h}");
}

/// A generic function calling another: the callee's gradient runs on dual numbers too.
#[differentiable]
fn sum_sq<T: Float>(v: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..v.len() {
        s = s + v[i] * v[i];
    }
    s
}

#[differentiable]
fn calls<T: Float>(x: &[T]) -> T {
    let s = sum_sq(x);
    s * s + x[0].sin()
}

#[test]
fn calls_between_generic_functions() {
    let x = [0.5, -1.0, 2.0];
    let h = hessian!(calls)(&x[..]);
    let s: f64 = x.iter().map(|a| a * a).sum();
    for i in 0..3 {
        for j in 0..3 {
            // (Σx²)²: 8 x_i x_j + 4 s δ_ij; sin x_0: −sin x_0 at (0, 0)
            let mut e = 8.0 * x[i] * x[j] + if i == j { 4.0 * s } else { 0.0 };
            if i == 0 && j == 0 {
                e -= x[0].sin();
            }
            assert!(
                close(h[[i, j]], e, 1e-12),
                "H[{i},{j}] = {} vs {e}",
                h[[i, j]]
            );
        }
    }
}

#[test]
fn dual_numbers_follow_the_rules() {
    let x = Dual::new(0.4_f64, 1.0);
    for (name, d, exact) in [
        ("sin", x.sin().tangent, 0.4_f64.cos()),
        ("exp", x.exp().tangent, 0.4_f64.exp()),
        ("ln", x.ln().tangent, 1.0 / 0.4),
        (
            "powf",
            x.powf(Dual::constant(2.5)).tangent,
            2.5 * 0.4_f64.powf(1.5),
        ),
        ("recip", x.recip().tangent, -1.0 / 0.16),
        ("atanh", x.atanh().tangent, 1.0 / (1.0 - 0.16)),
    ] {
        assert!(close(d, exact, 1e-14), "{name}: {d} vs {exact}");
    }
    assert!(x < Dual::constant(0.5) && x.floor().tangent == 0.0);
}

#[test]
#[should_panic(expected = "the tangent of `x` (parameter of `rosenbrock`) has shape [2]")]
fn a_vector_of_the_wrong_length_panics() {
    let _ = hvp!(rosenbrock)(&[1.0, 2.0, 3.0][..], &[1.0, 0.0][..]);
}

/// Three differentiable parameters of three kinds, for `params = [...]`:
/// `f = b² Σ w_i² + b³ v_0² + Σ w_i v_i`. By hand: `H_ww = 2b² I`, `∂²f/∂w_i∂b = 4b w_i`,
/// `∂²f/∂w_i∂v_j = δ_ij`, `H_bb = 2 Σ w² + 6b v_0²`, `∂²f/∂b∂v_j = 6b² v_0 δ_0j`,
/// `H_vv = 2b³ e_0 e_0ᵀ`.
#[differentiable]
fn three_kinds<T: Float + FromPrimitive>(w: &[T], b: T, v: Vec<T>) -> T {
    let two = T::from_f64(2.0).unwrap();
    let mut s = T::zero();
    for i in 0..w.len() {
        s = s + b * b * w[i] * w[i] + w[i] * v[i];
    }
    s + b.powi(3) * v[0].powf(two)
}

#[test]
fn hvp_with_params_gives_the_selected_blocks() {
    let w = [0.4, -1.1, 0.7];
    let (b, v) = (1.3, vec![0.9, -0.2, 0.5]);
    let (uw, ub) = ([0.3, 0.8, -0.5], -0.6);
    let sw2: f64 = w.iter().map(|a| a * a).sum();

    // the w block alone: 2b² uw
    let hw = hvp!(three_kinds, params = ["w"])(&w[..], b, v.clone(), &uw[..]);
    for i in 0..3 {
        assert!(close(hw[i], 2.0 * b * b * uw[i], 1e-13), "{hw:?}");
    }
    // two selected, in the order named: (H_bb ub + H_bw uw, H_wb ub + H_ww uw)
    let (hb, hw) = hvp!(three_kinds, params = ["b", "w"])(&w[..], b, v.clone(), ub, &uw[..]);
    let hbw_uw: f64 = (0..3).map(|i| 4.0 * b * w[i] * uw[i]).sum();
    let hbb = 2.0 * sw2 + 6.0 * b * v[0] * v[0];
    assert!(close(hb, hbb * ub + hbw_uw, 1e-13), "{hb}");
    for i in 0..3 {
        let e = 4.0 * b * w[i] * ub + 2.0 * b * b * uw[i];
        assert!(close(hw[i], e, 1e-13), "{hw:?}");
    }
    // the same by position, and the v block
    let hb1 = hvp!(three_kinds, params = [1])(&w[..], b, v.clone(), ub);
    assert!(close(hb1, hbb * ub, 1e-13), "{hb1}");
    let hv = hvp!(three_kinds, params = ["v"])(&w[..], b, v.clone(), vec![1.0, 1.0, 1.0]);
    assert!(close(hv[0], 2.0 * b.powi(3), 1e-13) && hv[1] == 0.0 && hv[2] == 0.0);

    // against central differences of the selected gradients along the selected directions
    let e = 1e-6;
    let grads = gradients_function!(three_kinds, params = ["b", "w"]);
    let shifted = |s: f64| {
        let ws: Vec<f64> = w.iter().zip(&uw).map(|(a, d)| a + s * d).collect();
        grads(&ws[..], b + s * ub, v.clone())
    };
    let ((gbp, gwp), (gbm, gwm)) = (shifted(e), shifted(-e));
    assert!(close(hb, (gbp - gbm) / (2.0 * e), 1e-6));
    for i in 0..3 {
        assert!(close(hw[i], (gwp[i] - gwm[i]) / (2.0 * e), 1e-6));
    }
}

#[test]
fn hessian_with_params_gives_the_block_of_the_selected_parameter() {
    let w = [0.4, -1.1, 0.7];
    let (b, v) = (1.3, vec![0.9, -0.2, 0.5]);
    let hw = hessian!(three_kinds, params = ["w"])(&w[..], b, v.clone());
    assert_eq!(hw.dim(), (3, 3));
    for i in 0..3 {
        for j in 0..3 {
            let e = if i == j { 2.0 * b * b } else { 0.0 };
            assert!(
                close(hw[[i, j]], e, 1e-13),
                "H_ww[{i},{j}] = {}",
                hw[[i, j]]
            );
        }
    }
    let hbb = hessian!(three_kinds, params = ["b"])(&w[..], b, v.clone());
    let sw2: f64 = w.iter().map(|a| a * a).sum();
    assert!(
        close(hbb, 2.0 * sw2 + 6.0 * b * v[0] * v[0], 1e-13),
        "{hbb}"
    );
    let hvv = hessian!(three_kinds, params = [2])(&w[..], b, v.clone());
    for i in 0..3 {
        for j in 0..3 {
            let e = if i == 0 && j == 0 {
                2.0 * b.powi(3)
            } else {
                0.0
            };
            assert!(
                close(hvv[[i, j]], e, 1e-13),
                "H_vv[{i},{j}] = {}",
                hvv[[i, j]]
            );
        }
    }
    // one differentiable parameter: the selection and no selection agree
    let x = [0.3, -1.2, 0.8];
    assert_eq!(
        hessian!(rosenbrock, params = ["x"])(&x[..]),
        hessian!(rosenbrock)(&x[..])
    );
    assert_eq!(
        hvp!(rosenbrock, params = ["x"])(&x[..], &[1.0, 0.5, -2.0][..]),
        hvp!(rosenbrock)(&x[..], &[1.0, 0.5, -2.0][..])
    );
}

#[test]
#[should_panic(expected = "the tangent of `w` (parameter of `three_kinds`) has shape [2]")]
fn a_selected_vector_of_the_wrong_length_panics() {
    let _ =
        hvp!(three_kinds, params = ["w"])(&[1.0, 2.0, 3.0][..], 0.5, vec![0.0; 3], &[1.0, 0.0][..]);
}

/// The float type named at the call (`f::<f64>`), as `gradients_function!(f::<f64>)` takes
/// it: the same products and Hessians as inferred.
#[test]
fn the_float_type_named_with_a_turbofish() {
    let x = [0.3, -1.2, 0.8, 1.5];
    let v = [1.0, 0.5, -0.25, 2.0];
    let expected = rosenbrock_hessian(&x);
    let hv = hvp!(rosenbrock::<f64>)(&x[..], &v[..]);
    let hv_selected = hvp!(rosenbrock::<f64>, params = ["x"])(&x[..], &v[..]);
    let h = hessian!(rosenbrock::<f64>)(&x[..]);
    let h_selected = hessian!(rosenbrock::<f64>, params = ["x"])(&x[..]);
    let hv_expected = expected.dot(&autodiff::ndarray::arr1(&v));
    for i in 0..4 {
        assert!(close(hv[i], hv_expected[i], 1e-12), "{i}");
        assert_eq!(hv[i], hv_selected[i]);
        for j in 0..4 {
            assert!(close(h[[i, j]], expected[[i, j]], 1e-12), "H[{i},{j}]");
            assert_eq!(h[[i, j]], h_selected[[i, j]]);
        }
    }
    // a scalar function in `f32`, named
    let (hx, _) = hvp!(energy::<f32>)(0.7, 1.3, 3, 1.0, 0.0);
    let (hx64, _) = hvp!(energy::<f64>)(0.7, 1.3, 3, 1.0, 0.0);
    assert!(
        (f64::from(hx) - hx64).abs() <= 1e-4 * hx64.abs(),
        "{hx} vs {hx64}"
    );
}

/// Products of different lengths in a row on one thread (their dual buffers reused, longer
/// and shorter than before), each against the closed form; and a `hessian!` in between.
#[test]
fn products_of_different_lengths_in_a_row() {
    for n in [6, 3, 9, 2, 9] {
        let x: Vec<f64> = (0..n).map(|i| 0.3 * i as f64 - 0.7).collect();
        let v: Vec<f64> = (0..n).map(|i| 1.0 - 0.25 * i as f64).collect();
        let hv = hvp!(rosenbrock)(&x[..], &v[..]);
        assert_eq!(hv.len(), n);
        let expected = rosenbrock_hessian(&x).dot(&autodiff::ndarray::arr1(&v));
        for i in 0..n {
            assert!(close(hv[i], expected[i], 1e-12), "n = {n}, {i}");
        }
        let h = hessian!(rosenbrock)(&x[..]);
        assert!(close(h[[n - 1, n - 1]], 200.0, 1e-12));
    }
}

/// A problem whose objective is a method generic over its float type (its receiver, the
/// problem's configuration, a constant): `a·Σ(xᵢ₊₁ − xᵢ²)² + Σ(1 − xᵢ)²`, and a sibling
/// method calling it through `self`.
struct Problem {
    a: f64,
}

#[differentiable]
impl Problem {
    fn objective<T: Float + FromPrimitive>(&self, x: &[T]) -> T {
        let a = T::from_f64(self.a).unwrap();
        let mut s = T::zero();
        for i in 0..x.len() - 1 {
            let b = x[i + 1] - x[i] * x[i];
            s = s + a * b * b + (T::one() - x[i]) * (T::one() - x[i]);
        }
        s
    }

    fn scaled<T: Float + FromPrimitive>(&self, x: &[T], k: T) -> T {
        self.objective(x) * k
    }
}

#[test]
fn methods_generic_over_their_float_type() {
    // with a = 100 the objective is the Rosenbrock function
    let p = Problem { a: 100.0 };
    let x = [0.3, -0.5, 0.7, 1.1];
    let v = [1.0, -0.5, 0.25, 2.0];
    let closed = rosenbrock_hessian(&x);
    let h = hessian!(Problem::objective, params = ["x"])(&p, &x);
    for i in 0..4 {
        for j in 0..4 {
            assert!(close(h[[i, j]], closed[[i, j]], 1e-12), "[{i}][{j}]");
        }
    }
    let hv = hvp!(Problem::objective, params = ["x"])(&p, &x, &v);
    let diff = gradient_difference(&x, &v);
    for i in 0..4 {
        let by_hand: f64 = (0..4).map(|j| closed[[i, j]] * v[j]).sum();
        assert!(close(hv[i], by_hand, 1e-12), "{hv:?}");
        assert!(close(hv[i], diff[i], 1e-5), "{hv:?} vs {diff:?}");
    }
    // a sibling method calling it: k·H v, and ∂²/∂k² = 0
    let k = 0.5;
    let hv = hvp!(Problem::scaled, params = ["x"])(&p, &x, k, &v);
    for i in 0..4 {
        let by_hand: f64 = (0..4).map(|j| k * closed[[i, j]] * v[j]).sum();
        assert!(close(hv[i], by_hand, 1e-12), "{hv:?}");
    }
    assert_eq!(hessian!(Problem::scaled, params = ["k"])(&p, &x, k), 0.0);
}

// The split sweep (`__seeded_split`): a slice parameter the fused gradient only indexes is
// read as `Dual::new(x[i], v[i])` from the argument and the vector, its gradient holds the
// tangents. Each function below has a twin that differs by one constant statement naming
// the slice another way (`x.first()`), which keeps the twin on the buffer of dual numbers:
// the products must have the same bits, and match differences of the gradient.

/// Reads before the loop and in it (at `i`, `i + 1` and `n − 1 − i`), in a branch; a
/// scalar and a second slice beside.
#[differentiable]
fn split_reads<T: Float + FromPrimitive>(x: &[T], y: &[T], s: T) -> T {
    let n = x.len();
    let first = x[0] * y[0];
    let last = x[n - 1];
    let mut sum = first * last + s * s * last;
    for i in 0..n - 1 {
        let a = x[i] - s * y[i];
        let b = x[i + 1] * x[n - 1 - i];
        let t = if a > T::zero() {
            a * a * b
        } else {
            (a * b).sin()
        };
        sum = sum + t + y[i + 1] * b.cos();
    }
    sum
}

/// [`split_reads`] with `x.first()` read: its `hvp!` runs on buffers of dual numbers.
// (`first()` names the slice as something other than an indexed read, on purpose)
#[allow(clippy::unnecessary_first_then_check)]
#[differentiable]
fn split_reads_twin<T: Float + FromPrimitive>(x: &[T], y: &[T], s: T) -> T {
    let _named = x.first().is_some() && y.first().is_some();
    let n = x.len();
    let first = x[0] * y[0];
    let last = x[n - 1];
    let mut sum = first * last + s * s * last;
    for i in 0..n - 1 {
        let a = x[i] - s * y[i];
        let b = x[i + 1] * x[n - 1 - i];
        let t = if a > T::zero() {
            a * a * b
        } else {
            (a * b).sin()
        };
        sum = sum + t + y[i + 1] * b.cos();
    }
    sum
}

fn split_inputs(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let x = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
    let y = (0..n).map(|i| 0.3 + (i as f64 * 0.4).cos()).collect();
    let vx = (0..n).map(|i| 1.0 - 0.1 * i as f64).collect();
    let vy = (0..n).map(|i| (i as f64 * 1.3).sin()).collect();
    (x, y, vx, vy)
}

#[test]
fn split_sweep_has_the_dual_buffers_bits_and_the_gradients_differences() {
    let grad = gradients_function!(split_reads);
    for n in [2, 3, 7, 40] {
        let (x, y, vx, vy) = split_inputs(n);
        let (s, vs) = (0.6, -0.8);
        let (hx, hy, hs) = hvp!(split_reads)(&x[..], &y[..], s, &vx[..], &vy[..], vs);
        let (tx, ty, ts) = hvp!(split_reads_twin)(&x[..], &y[..], s, &vx[..], &vy[..], vs);
        assert_eq!(
            (&hx, &hy, hs.to_bits()),
            (&tx, &ty, ts.to_bits()),
            "n = {n}"
        );
        // central differences of the gradient along (vx, vy, vs)
        let e = 1e-6;
        let at = |k: f64| {
            let xs: Vec<f64> = x.iter().zip(&vx).map(|(a, b)| a + k * e * b).collect();
            let ys: Vec<f64> = y.iter().zip(&vy).map(|(a, b)| a + k * e * b).collect();
            grad(&xs[..], &ys[..], s + k * e * vs)
        };
        let ((px, py, ps), (mx, my, ms)) = (at(1.0), at(-1.0));
        for i in 0..n {
            assert!(
                close(hx[i], (px[i] - mx[i]) / (2.0 * e), 1e-6),
                "x {i}, n = {n}"
            );
            assert!(
                close(hy[i], (py[i] - my[i]) / (2.0 * e), 1e-6),
                "y {i}, n = {n}"
            );
        }
        assert!(close(hs, (ps - ms) / (2.0 * e), 1e-6), "s, n = {n}");
    }
}

#[test]
fn split_sweep_bit_for_bit_at_random_points() {
    // (both branches of the loop's `if`, lengths 2 to 30)
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    };
    for round in 0..60 {
        let n = 2 + round % 29;
        let mut draw = |n: usize| (0..n).map(|_| next()).collect::<Vec<f64>>();
        let (x, y, vx, vy) = (draw(n), draw(n), draw(n), draw(n));
        let (s, vs) = (x[0] * 0.5, y[0]);
        let split = hvp!(split_reads)(&x[..], &y[..], s, &vx[..], &vy[..], vs);
        let twin = hvp!(split_reads_twin)(&x[..], &y[..], s, &vx[..], &vy[..], vs);
        assert_eq!(split.0, twin.0, "n = {n}, round {round}");
        assert_eq!(split.1, twin.1, "n = {n}, round {round}");
        assert_eq!(
            split.2.to_bits(),
            twin.2.to_bits(),
            "n = {n}, round {round}"
        );
    }
}

#[test]
fn split_sweep_with_params_and_in_f32() {
    let (x, y, vx, vy) = split_inputs(9);
    // one slice selected: the other's vector is zero
    let hx = hvp!(split_reads, params = ["x"])(&x[..], &y[..], 0.6, &vx[..]);
    let tx = hvp!(split_reads_twin, params = ["x"])(&x[..], &y[..], 0.6, &vx[..]);
    assert_eq!(hx, tx);
    let (hy, hs) = hvp!(split_reads, params = ["y", "s"])(&x[..], &y[..], 0.6, &vy[..], 1.0);
    let (ty, ts) = hvp!(split_reads_twin, params = ["y", "s"])(&x[..], &y[..], 0.6, &vy[..], 1.0);
    assert_eq!((hy, hs.to_bits()), (ty, ts.to_bits()));
    // `hessian!` fills its columns through the split sweep
    let h = hessian!(split_reads, params = ["x"])(&x[..], &y[..], 0.6);
    let th = hessian!(split_reads_twin, params = ["x"])(&x[..], &y[..], 0.6);
    assert_eq!(h, th);
    for i in 0..9 {
        for j in 0..9 {
            assert!(close(h[[i, j]], h[[j, i]], 1e-13), "symmetric at {i}, {j}");
        }
    }
    let f = |v: &Vec<f64>| v.iter().map(|a| *a as f32).collect::<Vec<f32>>();
    let (x32, y32, vx32, vy32) = (f(&x), f(&y), f(&vx), f(&vy));
    let a = hvp!(split_reads)(&x32[..], &y32[..], 0.6f32, &vx32[..], &vy32[..], 0.5f32);
    let b = hvp!(split_reads_twin)(&x32[..], &y32[..], 0.6f32, &vx32[..], &vy32[..], 0.5f32);
    assert_eq!(a, b);
}

#[test]
fn rosenbrock_split_sweep_against_the_closed_form() {
    // (`rosenbrock` above: a loop reading `x[i]` and `x[i + 1]`, carried)
    for n in [2, 5, 33] {
        let x: Vec<f64> = (0..n).map(|i| 0.4 * (i as f64 * 0.9).cos()).collect();
        let v: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).sin() - 0.2).collect();
        let hv = hvp!(rosenbrock)(&x[..], &v[..]);
        let h = rosenbrock_hessian(&x);
        for i in 0..n {
            let exact: f64 = (0..n).map(|j| h[[i, j]] * v[j]).sum();
            assert!(close(hv[i], exact, 1e-12), "(Hv)[{i}], n = {n}");
        }
        let d = gradient_difference(&x, &v);
        for i in 0..n {
            assert!(close(hv[i], d[i], 1e-6), "differences at {i}, n = {n}");
        }
    }
}

/// A slice handed to a helper keeps its dual buffer; the other slice is taken apart.
#[differentiable]
fn split_one_of_two<T: Float + FromPrimitive>(x: &[T], w: &[T]) -> T {
    let mut sum = sum_sq(x);
    for i in 0..w.len() {
        sum = sum + w[i] * w[i] * x[i % x.len()];
    }
    sum
}

#[test]
fn a_slice_handed_to_a_helper_beside_a_split_one() {
    let x = [0.5, -1.5, 2.0];
    let w = [1.0, 0.25, -0.5, 2.0];
    let (vx, vw) = ([1.0, 0.0, -1.0], [0.5, 1.0, 0.0, -2.0]);
    let (hx, hw) = hvp!(split_one_of_two)(&x[..], &w[..], &vx[..], &vw[..]);
    // f = Σ x² + Σ_i w_i² x_{i mod 3}: by hand
    let mut ex = [0.0; 3];
    let mut ew = [0.0; 4];
    for j in 0..3 {
        ex[j] += 2.0 * vx[j];
    }
    for i in 0..4 {
        let k = i % 3;
        ex[k] += 2.0 * w[i] * vw[i];
        ew[i] += 2.0 * x[k] * vw[i] + 2.0 * w[i] * vx[k];
    }
    for j in 0..3 {
        assert!(close(hx[j], ex[j], 1e-14), "x {j}");
    }
    for i in 0..4 {
        assert!(close(hw[i], ew[i], 1e-14), "w {i}");
    }
}

/// argmin's Rosenbrock as published (an iterator chain), and a `for` loop over the slice's
/// elements: both lowered to indexed reads, so both run the split sweep.
#[differentiable]
fn rosenbrock_chain<T: Float>(param: &[T], a: T, b: T) -> T {
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
        .fold(T::zero(), |acc, x| acc + x)
}

#[differentiable]
fn quartic_sum<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for &xi in x {
        s = s + xi * xi * xi * xi;
    }
    s
}

#[test]
fn iterator_chains_and_element_loops_through_the_split_sweep() {
    for n in [2, 6, 25] {
        let x: Vec<f64> = (0..n).map(|i| 0.3 * (i as f64 * 1.1).sin()).collect();
        let v: Vec<f64> = (0..n).map(|i| 1.0 - (i as f64 * 0.5).cos()).collect();
        let hv = hvp!(rosenbrock_chain, params = ["param"])(&x[..], 1.0, 100.0, &v[..]);
        let h = rosenbrock_hessian(&x);
        for i in 0..n {
            let exact: f64 = (0..n).map(|j| h[[i, j]] * v[j]).sum();
            assert!(close(hv[i], exact, 1e-12), "(Hv)[{i}], n = {n}");
        }
        // Σ x⁴: H = diag(12 x²)
        let hq = hvp!(quartic_sum)(&x[..], &v[..]);
        for i in 0..n {
            assert!(
                close(hq[i], 12.0 * x[i] * x[i] * v[i], 1e-14),
                "quartic {i}"
            );
        }
    }
}

/// A condition and a constant read elements of the slice the split sweep takes apart
/// (`xs[i] > 0.0` is code kept as written, its elements read with their tangents too).
#[differentiable]
fn gated<T: Float>(xs: &[T], a: T) -> T {
    let mut acc = T::zero();
    for i in 0..xs.len() {
        acc = acc + (xs[i] * a).sin();
        if xs[i] * a > T::zero() {
            continue;
        }
        acc = acc - xs[i] * xs[i] * xs[i];
    }
    acc
}

#[test]
fn conditions_reading_elements_through_the_split_sweep() {
    let xs = [0.5, -1.0, 0.25, -0.75, 2.0];
    let (vx, va) = ([1.0, -0.5, 0.25, 2.0, -1.0], 0.5);
    let a = 0.8;
    let (hx, ha) = hvp!(gated)(&xs[..], a, &vx[..], va);
    // f = Σ sin(a xᵢ) − Σ_{a xᵢ ≤ 0} xᵢ³
    let mut ex = [0.0; 5];
    let mut ea = 0.0;
    for i in 0..5 {
        let (x, s) = (xs[i], (a * xs[i]).sin());
        // ∂²/∂x² = −a² s, ∂²/∂x∂a = cos − a x s, ∂²/∂a² = −x² s
        ex[i] += -a * a * s * vx[i] + ((a * x).cos() - a * x * s) * va;
        ea += ((a * x).cos() - a * x * s) * vx[i] - x * x * s * va;
        if a * x <= 0.0 {
            ex[i] -= 6.0 * x * vx[i];
        }
    }
    for i in 0..5 {
        assert!(close(hx[i], ex[i], 1e-13), "x {i}: {} vs {}", hx[i], ex[i]);
    }
    assert!(close(ha, ea, 1e-13), "a: {ha} vs {ea}");
}
