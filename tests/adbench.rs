//! The ADBench workloads of `benches/adbench.rs` (GMM, BA, LSTM in two forms, `pick`):
//! values against closed forms and independent formulations, gradients against finite
//! differences, at small sizes.
// The reference formulations index their matrices as the formulas do.
#![allow(clippy::needless_range_loop)]

#[path = "../benches/adbench/workloads.rs"]
mod adbench;

use adbench::*;
use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;
use std::f64::consts::{LN_2, PI};

fn assert_close(what: &str, a: f64, b: f64, tolerance: f64) {
    assert!(
        (a - b).abs() <= tolerance * b.abs().max(1.0),
        "{what}: {a:e} against {b:e} (difference {:e})",
        (a - b).abs()
    );
}

// ---------------------------------------------------------------------------------------
// GMM
// ---------------------------------------------------------------------------------------

#[test]
fn ln_gamma_of_half_integers() {
    assert_close("ln Γ(1/2)", ln_gamma_half(1), 0.5 * PI.ln(), 1e-15);
    assert_close("ln Γ(1)", ln_gamma_half(2), 0.0, 1e-15);
    assert_close(
        "ln Γ(7/2)",
        ln_gamma_half(7),
        (15.0 / 8.0 * PI.sqrt()).ln(),
        1e-15,
    );
    assert_close("ln Γ(5)", ln_gamma_half(10), 24.0_f64.ln(), 1e-15);
    // Γ_2(a) = √π Γ(a) Γ(a − ½); at a = 2: √π · 1 · √π/2.
    assert_close("ln Γ_2(2)", log_gamma_distrib(4, 2), (PI / 2.0).ln(), 1e-15);
}

/// One component in one dimension: `Q = e^q`, and everything is a closed form.
#[test]
fn gmm_value_one_component_in_one_dimension() {
    let (alpha, mu, q) = (0.3, -0.2, 0.4);
    let x = [0.5, -1.0, 2.0];
    let (gamma, m) = (1.3, 2);
    let n = x.len() as f64;
    let data: f64 = x
        .iter()
        .map(|xi| alpha + q - 0.5 * (q.exp() * (xi - mu)).powi(2))
        .sum();
    // n_w = d + m + 1 = 4; ln Γ_1(2) = ln Γ(2) = 0.
    let c = 4.0 * (f64::ln(gamma) - 0.5 * LN_2);
    let wishart = 0.5 * gamma * gamma * (2.0 * q).exp() - m as f64 * q - c;
    let expected = -0.5 * n * (2.0 * PI).ln() + data - n * alpha + wishart;
    let value = gmm_objective(1, 1, &[alpha], &[mu], &[q], &x, gamma, m);
    assert_close("GMM, d = K = 1", value, expected, 1e-14);
}

/// The inverse covariance factor of component `k` as a dense lower-triangular matrix.
fn dense_q(d: usize, icf: &[f64], k: usize) -> Vec<Vec<f64>> {
    let block = &icf[k * d * (d + 1) / 2..(k + 1) * d * (d + 1) / 2];
    let mut q = vec![vec![0.0; d]; d];
    let mut l = d;
    for (col, diagonal) in block.iter().take(d).enumerate() {
        q[col][col] = diagonal.exp();
    }
    for col in 0..d {
        for row in col + 1..d {
            q[row][col] = block[l];
            l += 1;
        }
    }
    q
}

/// The objective as a mixture density: the log-likelihood `Σᵢ ln Σ_k w_k N(xᵢ; μ_k, (QᵀQ)⁻¹)`
/// with the normalised weights and the densities computed directly (no log-sum-exp), plus
/// the Wishart prior from the dense factors.
#[allow(clippy::too_many_arguments)]
fn gmm_as_mixture_density(
    d: usize,
    k: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: usize,
) -> f64 {
    let qs: Vec<_> = (0..k).map(|c| dense_q(d, icf, c)).collect();
    let total: f64 = alphas.iter().map(|a| a.exp()).sum();
    let mut log_likelihood = 0.0;
    for point in x.chunks(d) {
        let mut density = 0.0;
        for c in 0..k {
            let q = &qs[c];
            let det: f64 = (0..d).map(|i| q[i][i]).product();
            let mut mahalanobis = 0.0;
            for row in 0..d {
                let y: f64 = (0..d)
                    .map(|col| q[row][col] * (point[col] - means[c * d + col]))
                    .sum();
                mahalanobis += y * y;
            }
            let normal = (2.0 * PI).powf(-0.5 * d as f64) * det * (-0.5 * mahalanobis).exp();
            density += alphas[c].exp() / total * normal;
        }
        log_likelihood += density.ln();
    }
    let n_w = d + m + 1;
    let c = (n_w * d) as f64 * (gamma.ln() - 0.5 * LN_2) - log_gamma_distrib(n_w, d);
    let mut prior = 0.0;
    for q in &qs {
        let frobenius: f64 = q.iter().flatten().map(|v| v * v).sum();
        let log_det: f64 = (0..d).map(|i| q[i][i].ln()).sum();
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * log_det - c;
    }
    log_likelihood + prior
}

#[test]
fn gmm_value_matches_the_mixture_density() {
    for (d, k, n, m) in [(3, 2, 4, 0), (4, 3, 5, 2)] {
        let (alphas, means, icf, x) = gmm_input(d, k, n);
        let value = gmm_objective(d, k, &alphas, &means, &icf, &x, 1.0, m);
        let expected = gmm_as_mixture_density(d, k, &alphas, &means, &icf, &x, 1.0, m);
        assert_close("GMM value", value, expected, 1e-12);
    }
}

#[test]
fn gmm_gradient_matches_finite_differences() {
    let (d, k, n, gamma, m) = (3, 2, 4, 1.0, 1);
    let (alphas, means, icf, x) = gmm_input(d, k, n);
    let vg = value_and_gradients_function!(gmm_objective, params = ["alphas", "means", "icf"]);
    let (value, (g_alphas, g_means, g_icf)) = vg(d, k, &alphas, &means, &icf, &x, gamma, m);
    assert_eq!(
        value,
        gmm_objective(d, k, &alphas, &means, &icf, &x, gamma, m)
    );
    let fd = finite_difference(
        |a| gmm_objective(d, k, a, &means, &icf, &x, gamma, m),
        &alphas,
    );
    assert_gradient_close(&g_alphas, &fd, 1e-8);
    let fd = finite_difference(
        |mu| gmm_objective(d, k, &alphas, mu, &icf, &x, gamma, m),
        &means,
    );
    assert_gradient_close(&g_means, &fd, 1e-8);
    let fd = finite_difference(
        |q| gmm_objective(d, k, &alphas, &means, q, &x, gamma, m),
        &icf,
    );
    assert_gradient_close(&g_icf, &fd, 1e-8);
}

/// The C form (`&mut` output helpers, buffers allocated once, sub-slices of a `let mut`
/// buffer): the same value bit for bit, and a gradient matching finite differences and the
/// helper form's.
#[test]
fn gmm_with_buffers_matches_the_helper_form_and_finite_differences() {
    let (d, k, n, gamma, m) = (3, 2, 4, 1.0, 1);
    let (alphas, means, icf, x) = gmm_input(d, k, n);
    let value = gmm_objective_buffers(d, k, &alphas, &means, &icf, &x, gamma, m);
    assert_eq!(
        value,
        gmm_objective(d, k, &alphas, &means, &icf, &x, gamma, m)
    );
    let (g_alphas, g_means, g_icf) = gradients_function!(
        gmm_objective_buffers,
        params = ["alphas", "means", "icf"]
    )(d, k, &alphas, &means, &icf, &x, gamma, m);
    let (h_alphas, h_means, h_icf) = gradients_function!(
        gmm_objective,
        params = ["alphas", "means", "icf"]
    )(d, k, &alphas, &means, &icf, &x, gamma, m);
    assert_gradient_close(&g_alphas, &h_alphas, 1e-13);
    assert_gradient_close(&g_means, &h_means, 1e-13);
    assert_gradient_close(&g_icf, &h_icf, 1e-13);
    let fd = finite_difference(
        |q| gmm_objective_buffers(d, k, &alphas, &means, q, &x, gamma, m),
        &icf,
    );
    assert_gradient_close(&g_icf, &fd, 1e-8);
    let fd = finite_difference(
        |mu| gmm_objective_buffers(d, k, &alphas, mu, &icf, &x, gamma, m),
        &means,
    );
    assert_gradient_close(&g_means, &fd, 1e-8);
}

// ---------------------------------------------------------------------------------------
// BA
// ---------------------------------------------------------------------------------------

/// A camera looking down the z axis from `centre`, no rotation, no distortion: a pinhole.
#[test]
fn ba_pinhole_projection() {
    let cam = [0.0, 0.0, 0.0, 0.5, -0.25, -10.0, 400.0, 3.0, -2.0, 0.0, 0.0];
    let x = [1.0, 2.0, 0.5];
    let mut proj = [0.0; 2];
    project(&cam, &x, &mut proj);
    let [u, v] = proj;
    let depth = x[2] - cam[5];
    assert_close("u", u, 400.0 * (x[0] - cam[3]) / depth + 3.0, 1e-14);
    assert_close("v", v, 400.0 * (x[1] - cam[4]) / depth - 2.0, 1e-14);
    let mut err = [0.0; 2];
    compute_reproj_error(&cam, &x, 0.8, &[10.0, 20.0], &mut err);
    let [eu, ev] = err;
    assert_close("weighted u error", eu, 0.8 * (u - 10.0), 1e-14);
    assert_close("weighted v error", ev, 0.8 * (v - 20.0), 1e-14);
}

/// Rodrigues' formula against the rotation matrix `I + sin θ K + (1 − cos θ) K²`, `K` the
/// cross-product matrix of the unit axis; and the first-order form at the zero rotation.
#[test]
fn ba_rodrigues_rotation() {
    let rot = [0.3, -0.2, 0.5];
    let pt = [1.0, -2.0, 3.0];
    let theta = (rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]).sqrt();
    let a = [rot[0] / theta, rot[1] / theta, rot[2] / theta];
    let k = [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]];
    let mut rotated = [0.0; 3];
    rodrigues_rotate_point(&rot, pt, &mut rotated);
    for i in 0..3 {
        let mut expected = pt[i];
        for j in 0..3 {
            let k2: f64 = (0..3).map(|l| k[i][l] * k[l][j]).sum();
            expected += (theta.sin() * k[i][j] + (1.0 - theta.cos()) * k2) * pt[j];
        }
        assert_close("rotated point", rotated[i], expected, 1e-14);
    }
    rodrigues_rotate_point(&[0.0; 3], pt, &mut rotated);
    assert_eq!(rotated, pt);
}

#[test]
fn ba_jacobian_matches_finite_differences() {
    let problem = ba_input(3, 4, 6);
    let p = problem.obs.len();
    let mut errors = vec![0.0; 2 * p];
    let mut jacobian = vec![0.0; 30 * p];
    ba_jacobian(&problem, &mut errors, &mut jacobian);
    let mut objective = vec![0.0; 2 * p];
    ba_objective(&problem, &mut objective);
    assert_gradient_close(&errors, &objective, 1e-14);
    for i in 0..p {
        let (cam, x, w, feat) = problem.observation(i);
        let mut params = cam.to_vec();
        params.extend_from_slice(x);
        params.push(w);
        for row in 0..2 {
            let fd = finite_difference(
                |q| {
                    let mut err = [0.0; 2];
                    compute_reproj_error(&q[..11], &q[11..14], q[14], feat, &mut err);
                    err[row]
                },
                &params,
            );
            let block = &jacobian[30 * i + 15 * row..30 * i + 15 * (row + 1)];
            assert_gradient_close(block, &fd, 1e-7);
        }
    }
    // the rows by hand (the bench's reference), against the same Jacobian
    let mut errors_by_hand = vec![0.0; 2 * p];
    let mut jacobian_by_hand = vec![1.0; 30 * p];
    ba_jacobian_by_hand(&problem, &mut errors_by_hand, &mut jacobian_by_hand);
    assert_gradient_close(&errors_by_hand, &errors, 1e-14);
    assert_gradient_close(&jacobian_by_hand, &jacobian, 1e-12);
    // into the caller's matrix, twice (the blocks are cleared, not added to)
    let mut errors_into = vec![0.0; 2 * p];
    let mut jacobian_into = vec![1.0; 30 * p];
    for _ in 0..2 {
        ba_jacobian_accumulated(&problem, &mut errors_into, &mut jacobian_into);
        assert_eq!(errors_into, errors);
        assert_gradient_close(&jacobian_into, &jacobian, 1e-14);
    }
}

/// The rows by hand at a camera without rotation (Rodrigues' first-order branch), against
/// the generated rows, which finite differences check above.
#[test]
fn ba_rows_by_hand_at_the_zero_rotation() {
    let mut problem = ba_input(2, 5, 8);
    problem.cams[..3].fill(0.0);
    let p = problem.obs.len();
    let (mut e1, mut e2) = (vec![0.0; 2 * p], vec![0.0; 2 * p]);
    let (mut j1, mut j2) = (vec![0.0; 30 * p], vec![0.0; 30 * p]);
    ba_jacobian(&problem, &mut e1, &mut j1);
    ba_jacobian_by_hand(&problem, &mut e2, &mut j2);
    assert_gradient_close(&e2, &e1, 1e-14);
    assert_gradient_close(&j2, &j1, 1e-12);
    // the first camera's rows took the branch: their rotation columns are not all zero
    assert!(j1[..3].iter().any(|g| *g != 0.0));
}

/// The C form of BA (`&mut` output helpers handed local arrays as `&[f64]`): the same
/// errors bit for bit and the same Jacobian as the by-value form, which is checked against
/// finite differences above.
#[test]
fn ba_with_slices_matches_the_by_value_form() {
    let p = 40;
    let problem = ba_input(3, 7, p);
    let (mut e1, mut e2) = (vec![0.0; 2 * p], vec![0.0; 2 * p]);
    ba_objective(&problem, &mut e1);
    ba_objective_slices(&problem, &mut e2);
    assert_eq!(e1, e2);
    let (mut j1, mut j2) = (vec![0.0; 30 * p], vec![0.0; 30 * p]);
    ba_jacobian(&problem, &mut e1, &mut j1);
    ba_jacobian_slices(&problem, &mut e2, &mut j2);
    assert_eq!(e1, e2);
    assert_gradient_close(&j2, &j1, 1e-13);
}

// ---------------------------------------------------------------------------------------
// LSTM
// ---------------------------------------------------------------------------------------

/// One layer, one hidden unit, two characters: the loss written out by hand.
#[test]
fn lstm_value_one_unit_by_hand() {
    let main = [0.3, -0.4, 0.5, 0.2, 0.1, -0.2, 0.05, 0.3]; // 4 weights, 4 biases
    let extra = [1.5, -0.7, 0.2]; // in weight, out weight, out bias
    let state = [0.25, -0.5]; // hidden, cell
    let seq = [0.8, 0.6];
    let s = |v: f64| 1.0 / (1.0 + (-v).exp());
    let input = seq[0] * extra[0];
    let forget = s(input * main[0] + main[4]);
    let ingate = s(state[0] * main[1] + main[5]);
    let outgate = s(input * main[2] + main[6]);
    let change = (state[0] * main[3] + main[7]).tanh();
    let cell = state[1] * forget + ingate * change;
    let hidden = outgate * cell.tanh();
    let y = hidden * extra[1] + extra[2];
    let expected = -(seq[1] * (y - (y.exp() + 2.0).ln()));
    let in_place = lstm_objective(1, 2, 1, &main, &extra, &state, &seq);
    let split = lstm_objective_split(1, 2, 1, &main, &extra, &state, &seq);
    assert_close("LSTM in place", in_place, expected, 1e-15);
    assert_close("LSTM split", split, expected, 1e-15);
}

#[test]
fn lstm_both_forms_agree_and_match_finite_differences() {
    let (l, c, b) = (2, 5, 3);
    let (main, extra, state, seq) = lstm_input(l, c, b);
    let in_place =
        value_and_gradients_function!(lstm_objective, params = ["main_params", "extra_params"]);
    let split = value_and_gradients_function!(
        lstm_objective_split,
        params = ["main_params", "extra_params"]
    );
    let (v1, (gm1, ge1)) = in_place(l, c, b, &main, &extra, &state, &seq);
    let (v2, (gm2, ge2)) = split(l, c, b, &main, &extra, &state, &seq);
    assert_eq!(v1, lstm_objective(l, c, b, &main, &extra, &state, &seq));
    assert_close("the two forms' values", v2, v1, 1e-14);
    let fd_main = finite_difference(|p| lstm_objective(l, c, b, p, &extra, &state, &seq), &main);
    let fd_extra = finite_difference(|p| lstm_objective(l, c, b, &main, p, &state, &seq), &extra);
    assert_gradient_close(&gm1, &fd_main, 1e-8);
    assert_gradient_close(&ge1, &fd_extra, 1e-8);
    assert_gradient_close(&gm2, &fd_main, 1e-8);
    assert_gradient_close(&ge2, &fd_extra, 1e-8);
}

// ---------------------------------------------------------------------------------------
// pick
// ---------------------------------------------------------------------------------------

#[test]
fn pick_sum_value_and_gradient_by_hand() {
    for n in [1, 10, 1000] {
        let v = uniform(n, 5);
        let calls = 300;
        let mut count = vec![0.0; n];
        for k in 0..calls {
            count[k % n] += 1.0;
        }
        let expected: f64 = (0..n).map(|j| count[j] * v[j] * v[j]).sum();
        let (value, gradient) = value_and_gradients_function!(pick_sum)(&v, calls);
        assert_close("pick_sum", value, expected, 1e-14);
        let by_hand: Vec<f64> = (0..n).map(|j| 2.0 * count[j] * v[j]).collect();
        assert_gradient_close(&gradient, &by_hand, 1e-14);
    }
}
