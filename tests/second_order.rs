//! `#[differentiable(second_order)]`: `hvp!` and `hessian!` of functions written with
//! concrete `f64`, checked against Hessians derived by hand and central differences of the
//! reverse gradient.

// index loops are the constructs under test
#![allow(clippy::needless_range_loop)]

use autodiff::ndarray::Array2;
use autodiff::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

const HUNDRED: f64 = 100.0;

/// Rosenbrock as users write it: `f64`, literals, a constant, `+=`.
#[differentiable(second_order)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + HUNDRED * b * b;
    }
    sum
}

fn rosenbrock_hessian(x: &[f64]) -> Array2<f64> {
    let n = x.len();
    let mut h = Array2::zeros((n, n));
    for i in 0..n - 1 {
        h[[i, i]] += 2.0 + 1200.0 * x[i] * x[i] - 400.0 * x[i + 1];
        h[[i, i + 1]] += -400.0 * x[i];
        h[[i + 1, i]] += -400.0 * x[i];
        h[[i + 1, i + 1]] += 200.0;
    }
    h
}

#[test]
fn rosenbrock_in_f64_against_the_closed_form_and_gradient_differences() {
    let x = [0.3, -1.2, 0.8, 1.5, -0.4];
    let h = hessian!(rosenbrock)(&x[..]);
    let expected = rosenbrock_hessian(&x);
    for i in 0..5 {
        for j in 0..5 {
            assert!(close(h[[i, j]], expected[[i, j]], 1e-12), "H[{i},{j}]");
        }
    }
    let v = [0.5, -1.0, 2.0, 0.25, 1.0];
    let hv = hvp!(rosenbrock)(&x[..], &v[..]);
    let e = 1e-6;
    let plus: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + e * b).collect();
    let minus: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a - e * b).collect();
    let (gp, gm) = (
        gradients_function!(rosenbrock)(&plus[..]),
        gradients_function!(rosenbrock)(&minus[..]),
    );
    for i in 0..5 {
        let exact: f64 = (0..5).map(|j| expected[[i, j]] * v[j]).sum();
        assert!(
            close(hv[i], exact, 1e-12),
            "(Hv)[{i}] = {} vs {exact}",
            hv[i]
        );
        assert!(close(hv[i], (gp[i] - gm[i]) / (2.0 * e), 1e-6));
    }
    // the function and its other derivatives are as without the marker
    assert_eq!(rosenbrock(&x), {
        let mut s = 0.0;
        for i in 0..4 {
            s += (1.0 - x[i]).powi(2) + 100.0 * (x[i + 1] - x[i] * x[i]).powi(2);
        }
        s
    });
}

/// Casts (to the float type and to an integer), `f64` constants and functions, a constant
/// slice, scalars and the selection.
#[differentiable(second_order)]
fn mixed(x: f64, y: f64, #[no_grad] data: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += data[i] * (x * y).sin() / (i as f64 + 1.0);
    }
    let k = (x * 10.0) as usize; // piecewise constant
    s + f64::exp(x) * std::f64::consts::PI + x.powi(3) * f64::EPSILON.sqrt() + (k as f64) * y
}

#[test]
fn scalars_casts_and_constants_against_hand_derived_hessians() {
    let (x, y) = (0.4, 0.7);
    let data = [1.0, 2.0, -0.5];
    // s = c · sin(xy), c = Σ data_i / (i + 1)
    let c: f64 = data
        .iter()
        .enumerate()
        .map(|(i, d)| d / (i as f64 + 1.0))
        .sum();
    let (sxy, cxy) = ((x * y).sin(), (x * y).cos());
    let eps = f64::EPSILON.sqrt();
    let dxx = -c * y * y * sxy + x.exp() * std::f64::consts::PI + 6.0 * x * eps;
    let dxy = c * (cxy - x * y * sxy);
    let dyy = -c * x * x * sxy;
    let (hx, hy) = hvp!(mixed)(x, y, &data[..], 3, 1.0, 0.0);
    assert!(close(hx, dxx, 1e-13) && close(hy, dxy, 1e-13), "{hx} {hy}");
    let (hx, hy) = hvp!(mixed)(x, y, &data[..], 3, 0.0, 1.0);
    assert!(close(hx, dxy, 1e-13) && close(hy, dyy, 1e-13), "{hx} {hy}");
    let hyy = hessian!(mixed, params = ["y"])(x, y, &data[..], 3);
    assert!(close(hyy, dyy, 1e-13), "{hyy}");
    let hx = hvp!(mixed, params = ["x"])(x, y, &data[..], 3, 1.0);
    assert!(close(hx, dxx, 1e-13));
}

/// A generic helper called from a function written with `f64`, and a call of itself.
#[differentiable]
fn sum_sq<T: Float>(v: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..v.len() {
        s = s + v[i] * v[i];
    }
    s
}

#[differentiable(second_order)]
fn calls(x: &[f64]) -> f64 {
    let s = sum_sq(x);
    s * s + x[0].sin()
}

#[differentiable(second_order, recursive)]
fn power_tower(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power_tower(x, n - 1)
    }
}

#[test]
fn calls_of_generic_helpers_and_of_itself() {
    let x = [0.5, -1.0, 2.0];
    let h = hessian!(calls)(&x[..]);
    let s: f64 = x.iter().map(|a| a * a).sum();
    for i in 0..3 {
        for j in 0..3 {
            let mut e = 8.0 * x[i] * x[j] + if i == j { 4.0 * s } else { 0.0 };
            if i == 0 && j == 0 {
                e -= x[0].sin();
            }
            assert!(close(h[[i, j]], e, 1e-12), "H[{i},{j}]");
        }
    }
    // x⁵: 20 x³
    let h = hessian!(power_tower)(1.3, 5);
    assert!(close(h, 20.0 * 1.3_f64.powi(3), 1e-12), "{h}");
}

/// A local buffer made with `vec![0.0; n]` and a constant table read in a loop.
const WEIGHTS: [f64; 3] = [0.5, 2.0, -1.5];

#[differentiable(second_order)]
fn weighted_cubes(x: &[f64]) -> f64 {
    let mut cubes = vec![0.0; x.len()];
    for i in 0..x.len() {
        cubes[i] = x[i] * x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += WEIGHTS[i % 3] * cubes[i];
    }
    s
}

#[test]
fn buffers_and_constant_tables() {
    let x = [0.7, -0.2, 1.1, 0.4];
    let h = hessian!(weighted_cubes)(&x[..]);
    for i in 0..4 {
        for j in 0..4 {
            let e = if i == j {
                6.0 * WEIGHTS[i % 3] * x[i]
            } else {
                0.0
            };
            assert!(close(h[[i, j]], e, 1e-13), "H[{i},{j}] = {}", h[[i, j]]);
        }
    }
}

/// Iterator chains over references, `+=` on elements of a buffer reading the buffer.
#[differentiable(second_order)]
fn chains(x: &[f64]) -> f64 {
    let sq: f64 = x.iter().map(|v| v * v).sum();
    let mut acc = vec![0.0; x.len()];
    acc[0] = x[0];
    for i in 1..x.len() {
        acc[i] += acc[i - 1] * x[i];
    }
    sq * acc[x.len() - 1]
}

#[test]
fn iterator_chains_and_compound_assignment() {
    // f = (Σ x²) · Π x
    let x = [0.7, -1.3, 0.9];
    let h = hessian!(chains)(&x[..]);
    let s: f64 = x.iter().map(|v| v * v).sum();
    let p: f64 = x.iter().product();
    for i in 0..3 {
        for j in 0..3 {
            // ∂²(s·p) = 2δ_ij p + 2x_i p/x_j + 2x_j p/x_i + s ∂²p, ∂²p/∂x_i∂x_j = p/(x_i x_j)
            // off the diagonal and 0 on it
            let d2p = if i == j { 0.0 } else { p / (x[i] * x[j]) };
            let e = if i == j { 2.0 * p } else { 0.0 }
                + 2.0 * x[i] * p / x[j]
                + 2.0 * x[j] * p / x[i]
                + s * d2p;
            assert!(
                close(h[[i, j]], e, 1e-12),
                "H[{i},{j}] = {} vs {e}",
                h[[i, j]]
            );
        }
    }
}

/// A helper written with `f64` and marked too, a generic helper and a local closure: the
/// copy calls the helper's copy, the generic helper itself, and the closure as written.
#[differentiable(second_order)]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[differentiable(second_order)]
fn with_helpers(x: &[f64], w: f64) -> f64 {
    let sq = |v: f64| v * v;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += softplus(w * x[i]) + sq(x[i]);
    }
    s + sum_sq(x) * w
}

#[test]
fn helpers_of_a_second_order_function() {
    let (x, w) = ([0.4, -0.9], 1.7);
    let sigmoid = |z: f64| 1.0 / (1.0 + (-z).exp());
    // f = Σ softplus(w x_i) + 2 Σ x_i² · … : ∂²/∂x_i² = w² σ'(w x_i) + 2 + 2w,
    // ∂²/∂x_i∂w = σ(w x_i) + w x_i σ'(w x_i) + 2 x_i, ∂²/∂w² = Σ x_i² σ'(w x_i)
    let ds = |z: f64| sigmoid(z) * (1.0 - sigmoid(z));
    let (hx, hw) = hvp!(with_helpers)(&x[..], w, &[1.0, 0.0][..], 0.0);
    let z0 = w * x[0];
    assert!(
        close(hx[0], w * w * ds(z0) + 2.0 + 2.0 * w, 1e-13),
        "{hx:?}"
    );
    assert!(close(hx[1], 0.0, 1e-13), "{hx:?}");
    assert!(
        close(hw, sigmoid(z0) + z0 * ds(z0) + 2.0 * x[0], 1e-13),
        "{hw}"
    );
    let hww = hessian!(with_helpers, params = ["w"])(&x[..], w);
    let e: f64 = x.iter().map(|xi| xi * xi * ds(w * xi)).sum();
    assert!(close(hww, e, 1e-13), "{hww} vs {e}");
}

/// ndarray code written with `f64`: a float method's path as a function value
/// (`mapv(f64::tanh)`), which the copy reads as the float type's own.
#[differentiable(second_order)]
fn squashed(v: &autodiff::ndarray::Array1<f64>, s: f64) -> f64 {
    let t = v.mapv(f64::tanh);
    (&t * &t).sum() * s
}

#[test]
fn a_float_methods_path_as_a_value() {
    let v = autodiff::ndarray::array![0.3, -0.7];
    let s = 1.5;
    let h = hessian!(squashed, params = ["v"])(&v, s);
    // f = s Σ tanh²(vᵢ): ∂²/∂vᵢ² = s (2 sech⁴ vᵢ − 4 tanh² vᵢ sech² vᵢ), diagonal
    for i in 0..2 {
        let (t, sech2) = (v[i].tanh(), 1.0 - v[i].tanh().powi(2));
        let expected = s * (2.0 * sech2 * sech2 - 4.0 * t * t * sech2);
        assert!(
            close(h[[i, i]], expected, 1e-14),
            "{} vs {expected}",
            h[[i, i]]
        );
    }
    assert_eq!(h[[0, 1]], 0.0);
}

/// `y ← y + a x`: a helper writing a `&mut` buffer and returning nothing, marked too.
#[differentiable(second_order)]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[i] += a * x[i];
    }
}

/// Lends a local buffer to the helper, then hands the helper its own `&mut` parameter:
/// `b = 1 + a x`, `acc ← acc + a² b`, `f = b₀ b₁ acc₀ acc₁`.
#[differentiable(second_order)]
fn lends_buffers(a: f64, x: &[f64], acc: &mut [f64]) -> f64 {
    let mut b = vec![1.0; 2];
    axpy(a, x, &mut b);
    axpy(a * a, &b, acc);
    b[0] * b[1] * acc[0] * acc[1]
}

#[test]
fn mut_parameters_and_helpers_writing_buffers() {
    let (a, x) = (0.7, [0.5, -1.0]);
    let mut acc = [0.3, 0.2];
    // with respect to the buffer's initial values: ∂²f/∂acc₀∂acc₁ = b₀ b₁, no squares
    let h = hessian!(lends_buffers, params = ["acc"])(a, &x, &mut acc);
    let (b0, b1) = (1.0 + a * x[0], 1.0 + a * x[1]);
    assert!(close(h[[0, 1]], b0 * b1, 1e-15) && close(h[[1, 0]], b0 * b1, 1e-15));
    assert_eq!((h[[0, 0]], h[[1, 1]]), (0.0, 0.0));
    assert_eq!(
        acc,
        [0.3, 0.2],
        "the products run on a copy: the buffer is not written"
    );
    // every parameter at once, against differences of the gradient
    let (v_a, v_x, v_acc) = (0.5, [1.0, -0.5], [0.25, 2.0]);
    let (ha, hx, hacc) = hvp!(lends_buffers)(a, &x, &mut acc, v_a, &v_x, &mut v_acc.clone());
    let g = |s: f64| {
        let xs = [x[0] + s * v_x[0], x[1] + s * v_x[1]];
        let mut accs = [acc[0] + s * v_acc[0], acc[1] + s * v_acc[1]];
        let (ga, gx, gacc) = gradients_function!(lends_buffers)(a + s * v_a, &xs, &mut accs);
        [ga, gx[0], gx[1], gacc[0], gacc[1]]
    };
    let (plus, minus) = (g(1e-6), g(-1e-6));
    let got = [ha, hx[0], hx[1], hacc[0], hacc[1]];
    for k in 0..5 {
        let fd = (plus[k] - minus[k]) / 2e-6;
        assert!(close(got[k], fd, 1e-6), "row {k}: {} vs {fd}", got[k]);
    }
}

/// Helpers returning `Option` and `Result` of `f64`, marked too, matched by the caller.
#[differentiable(second_order)]
fn head_of(v: &[f64], s: f64) -> Option<f64> {
    let h = if v[0] * s > -0.4 {
        Some((v[0] * s).sin())
    } else {
        None
    };
    let h = h?;
    Some(h * 2.0 + v[1] * s)
}

#[differentiable(second_order)]
fn checked_exp(v: &[f64], s: f64) -> Result<f64, String> {
    if v[0] * s > -0.4 {
        Ok((v[0] * s).exp())
    } else {
        Err(format!("{s} is too small"))
    }
}

// (the `match`es are the construct under test)
#[allow(clippy::manual_unwrap_or)]
#[differentiable(second_order)]
fn matched(v: &[f64], s: f64) -> f64 {
    let a = match head_of(v, s) {
        Some(h) => h,
        None => 0.0,
    };
    let b = match checked_exp(v, s) {
        Ok(c) => c,
        Err(_) => 1.0,
    };
    a * b + v[1] * v[1]
}

#[test]
fn helpers_returning_option_and_result() {
    let (v, s) = ([0.5, -1.0], 0.7);
    // f = (2 sin(v₀s) + v₁s) e^{v₀s} + v₁²: ∂²f/∂s² by hand
    let (u, e) = (v[0] * s, (v[0] * s).exp());
    let a = 2.0 * u.sin() + v[1] * s;
    let da = 2.0 * v[0] * u.cos() + v[1];
    let dda = -2.0 * v[0] * v[0] * u.sin();
    let expected = (dda + 2.0 * da * v[0] + a * v[0] * v[0]) * e;
    let h = hessian!(matched, params = ["s"])(&v, s);
    assert!(close(h, expected, 1e-14), "{h} vs {expected}");
    // the products with both parameters, against differences of the gradient
    let (hv, hs) = hvp!(matched)(&v, s, &[1.0, 0.5], -0.25);
    let g = |e: f64| {
        let vs = [v[0] + e, v[1] + 0.5 * e];
        let (gv, gs) = gradients_function!(matched)(&vs, s - 0.25 * e);
        [gv[0], gv[1], gs]
    };
    let (plus, minus) = (g(1e-6), g(-1e-6));
    for (k, got) in [hv[0], hv[1], hs].into_iter().enumerate() {
        let fd = (plus[k] - minus[k]) / 2e-6;
        assert!(close(got, fd, 1e-6), "row {k}: {got} vs {fd}");
    }
}

/// A marked helper returning a fixed-size array, read by element in a marked caller.
#[differentiable(second_order)]
fn triple(a: f64, b: f64) -> [f64; 3] {
    [a * b, a.sin(), b * b]
}

#[differentiable(second_order)]
fn uses_triple(a: f64, b: f64) -> f64 {
    let t = triple(a, b);
    t[0] * t[1] + t[2]
}

#[test]
fn a_helper_returning_an_array() {
    // f = a b sin a + b²: by hand, H = [[2b cos a − a b sin a, sin a + a cos a], [·, 2]]
    let (a, b) = (0.3, 0.7);
    let haa = 2.0 * b * a.cos() - a * b * a.sin();
    let hab = a.sin() + a * a.cos();
    let (ha, hb) = hvp!(uses_triple)(a, b, 1.0, 0.5);
    assert!(close(ha, haa + 0.5 * hab, 1e-14), "{ha}");
    assert!(close(hb, hab + 0.5 * 2.0, 1e-14), "{hb}");
    let h = hessian!(uses_triple, params = ["a"])(a, b);
    assert!(close(h, haa, 1e-14), "{h}");
}
