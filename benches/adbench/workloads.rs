//! ADBench's objectives (Srajer, Schkufza, Fitzgibbon 2018, "A benchmark of selected
//! algorithmic differentiation tools on some problems in computer vision and machine
//! learning"), written from the paper's definitions the way a Rust user writes them: flat
//! `&[f64]` slices, small helper functions called in the inner loop, local buffers.
//! Shared by `benches/adbench.rs` and `tests/adbench.rs`.
//!
//! Where a form costs more than another a user could equally have written, both are
//! measured: GMM and BA also come in their C form (`&mut` output helpers handed local
//! buffers), side by side.
#![allow(dead_code)]
// The loops index their slices the way ADBench's definitions do, which is the form measured
// (copies too, though `copy_from_slice` is differentiable).
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use autodiff::prelude::*;

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// The sum of squares of a slice.
#[differentiable]
pub fn sqnorm(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s
}

/// `ln Σ exp(xᵢ)`, shifted by the maximum so that it neither overflows nor underflows.
#[differentiable]
pub fn log_sum_exp(x: &[f64]) -> f64 {
    let mut mx = x[0];
    for i in 1..x.len() {
        mx = mx.max(x[i]);
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] - mx).exp();
    }
    s.ln() + mx
}

/// The logistic function.
#[differentiable]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// A deterministic stream of numbers in `[-1, 1)` (a linear congruential generator), so
/// the inputs are the same in every run.
pub fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// GMM: the negative log-likelihood of n points under a mixture of K Gaussians in d
// dimensions, with a Wishart prior on the inverse covariances.
//
// Parameters: `alphas` (K unnormalised log weights), `means` (K·d), `icf` (K blocks of
// d(d+1)/2: the logarithms of the diagonal of the inverse covariance's Cholesky factor Q,
// then its strictly lower triangle column by column). Data: `x` (n·d), the prior's γ and m.
// ---------------------------------------------------------------------------------------

/// `ln Γ(k / 2)` for a positive integer `k`, exactly from `Γ(1) = 1`, `Γ(½) = √π` and
/// `Γ(x + 1) = x Γ(x)` (the Wishart constant only needs half-integers).
pub fn ln_gamma_half(k: usize) -> f64 {
    assert!(k > 0, "ln Γ(k/2) needs k > 0");
    let (mut x, mut out) = if k % 2 == 0 {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while x < 0.5 * k as f64 {
        out += x.ln();
        x += 1.0;
    }
    out
}

/// The logarithm of the multivariate gamma function `Γ_p(n / 2)`.
pub fn log_gamma_distrib(n: usize, p: usize) -> f64 {
    let mut out = 0.25 * (p * (p - 1)) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        out += ln_gamma_half(n + 1 - j);
    }
    out
}

/// The logarithm of the Wishart prior of the K inverse covariances, up to the terms that
/// do not depend on the parameters' values: `½γ²‖Q_k‖²_F − m Σ ln diag(Q_k)` summed over
/// the components, minus K times the normalising constant.
#[differentiable]
pub fn log_wishart_prior(
    d: usize,
    k: usize,
    #[no_grad] gamma: f64,
    m: usize,
    sum_qs: &[f64],
    qdiags: &[f64],
    icf: &[f64],
) -> f64 {
    let n = d + m + 1;
    let icf_sz = d * (d + 1) / 2;
    let c = (n * d) as f64 * (gamma.ln() - 0.5 * std::f64::consts::LN_2)
        - stop_gradient(log_gamma_distrib(n, d));
    let mut out = 0.0;
    for ik in 0..k {
        let frobenius = sqnorm(&qdiags[ik * d..(ik + 1) * d])
            + sqnorm(&icf[ik * icf_sz + d..(ik + 1) * icf_sz]);
        out += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[ik];
    }
    out - k as f64 * c
}

/// `½‖Q (x − μ)‖²` for the lower-triangular `Q` with the diagonal `qdiag` and the strictly
/// lower triangle `ltri` stored column by column: the form of a user whose helper returns
/// the value and owns its two buffers, allocated per call. [`gmm_objective_buffers`] is
/// the C form, with `&mut` output helpers and buffers allocated once.
#[differentiable]
pub fn half_sq_mahalanobis(qdiag: &[f64], ltri: &[f64], x: &[f64], mean: &[f64]) -> f64 {
    let d = x.len();
    let mut xcentered = vec![0.0; d];
    for i in 0..d {
        xcentered[i] = x[i] - mean[i];
    }
    let mut out = vec![0.0; d];
    for i in 0..d {
        out[i] = qdiag[i] * xcentered[i];
    }
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += ltri[l] * xcentered[i];
            l += 1;
        }
    }
    0.5 * sqnorm(&out)
}

/// ADBench's GMM objective: `−(nd/2) ln 2π + Σᵢ LSE_k(α_k + Σ ln diag Q_k − ½‖Q_k(xᵢ −
/// μ_k)‖²) − n LSE(α) + ln Wishart(Q)`.
#[differentiable]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective(
    d: usize,
    k: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    #[no_grad] gamma: f64,
    m: usize,
) -> f64 {
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut qdiags = vec![0.0; d * k];
    let mut sum_qs = vec![0.0; k];
    for ik in 0..k {
        for id in 0..d {
            let q = icf[ik * icf_sz + id];
            sum_qs[ik] += q;
            qdiags[ik * d + id] = q.exp();
        }
    }
    // Sub-slices need an immutable buffer.
    let qdiags = qdiags;
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            main_term[ik] = alphas[ik] + sum_qs[ik]
                - half_sq_mahalanobis(
                    &qdiags[ik * d..(ik + 1) * d],
                    &icf[ik * icf_sz + d..(ik + 1) * icf_sz],
                    &x[ix * d..(ix + 1) * d],
                    &means[ik * d..(ik + 1) * d],
                );
        }
        slse += log_sum_exp(&main_term);
    }
    let constant = -((n * d) as f64) * 0.5 * (2.0 * std::f64::consts::PI).ln();
    constant + slse - n as f64 * log_sum_exp(alphas)
        + log_wishart_prior(d, k, gamma, m, &sum_qs, &qdiags, icf)
}

/// `out ← x − y`.
#[differentiable]
pub fn subtract(x: &[f64], y: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = x[i] - y[i];
    }
}

/// `out ← Q x` for the lower-triangular `Q` with the diagonal `qdiag` and the strictly lower
/// triangle `ltri` stored column by column.
#[differentiable]
pub fn q_times_x(qdiag: &[f64], ltri: &[f64], x: &[f64], out: &mut [f64]) {
    let d = x.len();
    for i in 0..d {
        out[i] = qdiag[i] * x[i];
    }
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += ltri[l] * x[i];
            l += 1;
        }
    }
}

/// [`gmm_objective`] written as ADBench's C++ is: helpers writing into the caller's
/// buffers (`subtract`, `q_times_x`), the two buffers allocated once outside the loops, and
/// sub-slices of the `let mut` buffer of the diagonals.
#[differentiable]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective_buffers(
    d: usize,
    k: usize,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    #[no_grad] gamma: f64,
    m: usize,
) -> f64 {
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut qdiags = vec![0.0; d * k];
    let mut sum_qs = vec![0.0; k];
    for ik in 0..k {
        for id in 0..d {
            let q = icf[ik * icf_sz + id];
            sum_qs[ik] += q;
            qdiags[ik * d + id] = q.exp();
        }
    }
    let mut xcentered = vec![0.0; d];
    let mut qxcentered = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            subtract(
                &x[ix * d..(ix + 1) * d],
                &means[ik * d..(ik + 1) * d],
                &mut xcentered,
            );
            q_times_x(
                &qdiags[ik * d..(ik + 1) * d],
                &icf[ik * icf_sz + d..(ik + 1) * icf_sz],
                &xcentered,
                &mut qxcentered,
            );
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(&qxcentered);
        }
        slse += log_sum_exp(&main_term);
    }
    let constant = -((n * d) as f64) * 0.5 * (2.0 * std::f64::consts::PI).ln();
    constant + slse - n as f64 * log_sum_exp(alphas)
        + log_wishart_prior(d, k, gamma, m, &sum_qs, &qdiags, icf)
}

/// A GMM problem of the given size: `(alphas, means, icf, x)`, uniform in `[-1, 1)` like
/// ADBench's generated inputs (the log-diagonal too, so Q is well conditioned).
pub fn gmm_input(d: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let icf_sz = d * (d + 1) / 2;
    (
        uniform(k, 1),
        uniform(k * d, 2),
        uniform(k * icf_sz, 3),
        uniform(n * d, 4),
    )
}

// ---------------------------------------------------------------------------------------
// BA: the reprojection error of one observation. A camera has 11 parameters: a Rodrigues
// rotation (3), its centre (3), the focal length, the principal point (2) and two radial
// distortion coefficients; a point has 3 coordinates; an observation has a weight and a
// measured feature (2). The Jacobian of the two weighted errors with respect to the camera,
// the point and the weight is a 2 × 15 block per observation.
// ---------------------------------------------------------------------------------------

/// The number of parameters of a camera.
pub const BA_NCAMPARAMS: usize = 11;

/// The cross product of two 3-vectors.
///
/// The arrays come by value here; [`cross_into`] and the functions after it are the C form
/// (`&mut` outputs, local arrays handed on as `&[f64]`), measured side by side.
#[differentiable]
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
    out
}

/// `pt` rotated by the angle-axis vector `rot` (Rodrigues' formula) into `rotated`, with
/// the first-order form near the zero rotation.
///
/// The C form is [`rodrigues_rotate_slice`].
#[differentiable]
pub fn rodrigues_rotate_point(rot: &[f64], pt: [f64; 3], rotated: &mut [f64]) {
    let sqtheta = sqnorm(rot);
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let theta_inverse = 1.0 / theta;
        let mut w = [0.0; 3];
        for i in 0..3 {
            w[i] = rot[i] * theta_inverse;
        }
        let w_cross_pt = cross(w, pt);
        let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1.0 - costheta);
        for i in 0..3 {
            rotated[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
        }
    } else {
        let mut r = [0.0; 3];
        for i in 0..3 {
            r[i] = rot[i];
        }
        let rot_cross_pt = cross(r, pt);
        for i in 0..3 {
            rotated[i] = pt[i] + rot_cross_pt[i];
        }
    }
}

/// Radial distortion of the projected point `proj` in place, by the coefficients
/// `rad_params` (2).
#[differentiable]
pub fn radial_distort(rad_params: &[f64], proj: &mut [f64]) {
    let rsq = proj[0] * proj[0] + proj[1] * proj[1];
    let l = 1.0 + rad_params[0] * rsq + rad_params[1] * rsq * rsq;
    proj[0] *= l;
    proj[1] *= l;
}

/// The projection `proj` (2) of the point `x` by the camera `cam`: rotate the point
/// relative to the camera's centre, divide by depth, distort radially, scale by the focal
/// length and shift by the principal point.
///
/// The C form is [`project_slices`].
#[differentiable]
pub fn project(cam: &[f64], x: &[f64], proj: &mut [f64]) {
    let c = &cam[3..6];
    let mut xo = [0.0; 3];
    for i in 0..3 {
        xo[i] = x[i] - c[i];
    }
    let mut xcam = [0.0; 3];
    rodrigues_rotate_point(&cam[0..3], xo, &mut xcam);
    proj[0] = xcam[0] / xcam[2];
    proj[1] = xcam[1] / xcam[2];
    radial_distort(&cam[9..11], proj);
    proj[0] = proj[0] * cam[6] + cam[7];
    proj[1] = proj[1] * cam[6] + cam[8];
}

/// The weighted reprojection error `err` (2) of one observation: the objective.
#[differentiable]
pub fn compute_reproj_error(cam: &[f64], x: &[f64], w: f64, feat: &[f64], err: &mut [f64]) {
    let mut proj = [0.0; 2];
    project(cam, x, &mut proj);
    err[0] = w * (proj[0] - feat[0]);
    err[1] = w * (proj[1] - feat[1]);
}

/// The first coordinate of [`compute_reproj_error`], for the Jacobian's first row.
#[differentiable]
pub fn reproj_error_u(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> f64 {
    let mut err = [0.0; 2];
    compute_reproj_error(cam, x, w, feat, &mut err);
    err[0]
}

/// The second coordinate of [`compute_reproj_error`], for the Jacobian's second row.
#[differentiable]
pub fn reproj_error_v(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> f64 {
    let mut err = [0.0; 2];
    compute_reproj_error(cam, x, w, feat, &mut err);
    err[1]
}

/// A bundle-adjustment problem: `n` cameras, `m` points, `p` observations, each observation
/// `i` seeing point `i % m` from camera `i % n` (as ADBench's generated problems do).
pub struct BaProblem {
    /// `n · 11` camera parameters.
    pub cams: Vec<f64>,
    /// `m · 3` point coordinates.
    pub points: Vec<f64>,
    /// `p` weights.
    pub weights: Vec<f64>,
    /// `p · 2` measured features.
    pub feats: Vec<f64>,
    /// `p` pairs (camera, point).
    pub obs: Vec<(usize, usize)>,
}

/// A BA problem with realistic magnitudes: small rotations, points in front of the cameras,
/// a focal length of a few hundred pixels, small distortion.
pub fn ba_input(n: usize, m: usize, p: usize) -> BaProblem {
    let r = uniform(n * BA_NCAMPARAMS, 11);
    let mut cams = vec![0.0; n * BA_NCAMPARAMS];
    for c in 0..n {
        let cam = &mut cams[c * BA_NCAMPARAMS..(c + 1) * BA_NCAMPARAMS];
        let r = &r[c * BA_NCAMPARAMS..(c + 1) * BA_NCAMPARAMS];
        for i in 0..3 {
            cam[i] = 0.3 * r[i];
            cam[3 + i] = r[3 + i];
        }
        cam[5] -= 10.0; // the camera sits well behind the points
        cam[6] = 400.0 + 50.0 * r[6];
        cam[7] = 5.0 * r[7];
        cam[8] = 5.0 * r[8];
        cam[9] = 0.01 * r[9];
        cam[10] = 0.001 * r[10];
    }
    let points = uniform(m * 3, 12);
    let weights = uniform(p, 13).iter().map(|w| 0.75 + 0.25 * w).collect();
    let feats = uniform(p * 2, 14).iter().map(|f| 30.0 * f).collect();
    let obs = (0..p).map(|i| (i % n, i % m)).collect();
    BaProblem {
        cams,
        points,
        weights,
        feats,
        obs,
    }
}

impl BaProblem {
    /// The camera, point, weight and feature of observation `i`.
    pub fn observation(&self, i: usize) -> (&[f64], &[f64], f64, &[f64]) {
        let (c, p) = self.obs[i];
        (
            &self.cams[c * BA_NCAMPARAMS..(c + 1) * BA_NCAMPARAMS],
            &self.points[p * 3..p * 3 + 3],
            self.weights[i],
            &self.feats[2 * i..2 * i + 2],
        )
    }
}

/// ADBench's BA objective: the two weighted reprojection errors of every observation.
pub fn ba_objective(problem: &BaProblem, errors: &mut [f64]) {
    for i in 0..problem.obs.len() {
        let (cam, x, w, feat) = problem.observation(i);
        compute_reproj_error(cam, x, w, feat, &mut errors[2 * i..2 * i + 2]);
    }
}

/// The Jacobian of [`ba_objective`]: per observation a 2 × 15 block (row-major; columns:
/// the 11 camera parameters, the 3 point coordinates, the weight), from two gradients.
pub fn ba_jacobian(problem: &BaProblem, errors: &mut [f64], jacobian: &mut [f64]) {
    let row_u = value_and_gradients_function!(reproj_error_u, params = ["cam", "x", "w"]);
    let row_v = value_and_gradients_function!(reproj_error_v, params = ["cam", "x", "w"]);
    for i in 0..problem.obs.len() {
        let (cam, x, w, feat) = problem.observation(i);
        let block = &mut jacobian[30 * i..30 * (i + 1)];
        for (row, gradient) in [row_u(cam, x, w, feat), row_v(cam, x, w, feat)]
            .into_iter()
            .enumerate()
        {
            let (value, (g_cam, g_x, g_w)) = gradient;
            errors[2 * i + row] = value;
            let out = &mut block[15 * row..15 * (row + 1)];
            out[..11].copy_from_slice(&g_cam);
            out[11..14].copy_from_slice(&g_x);
            out[14] = g_w;
        }
    }
}

/// [`ba_jacobian`] with each row's gradients added straight into the Jacobian's block, a
/// buffer the caller keeps (`accumulate_gradients!`): no gradient vector is allocated per
/// observation.
pub fn ba_jacobian_accumulated(problem: &BaProblem, errors: &mut [f64], jacobian: &mut [f64]) {
    let row_u = accumulate_gradients!(reproj_error_u, params = ["cam", "x", "w"]);
    let row_v = accumulate_gradients!(reproj_error_v, params = ["cam", "x", "w"]);
    for i in 0..problem.obs.len() {
        let (cam, x, w, feat) = problem.observation(i);
        let block = &mut jacobian[30 * i..30 * (i + 1)];
        block.fill(0.0); // the gradients are added
        let (u, v) = block.split_at_mut(15);
        let (u_cam, u_rest) = u.split_at_mut(11);
        let (u_x, u_w) = u_rest.split_at_mut(3);
        errors[2 * i] = row_u(cam, x, w, feat, (u_cam, u_x, &mut u_w[0]));
        let (v_cam, v_rest) = v.split_at_mut(11);
        let (v_x, v_w) = v_rest.split_at_mut(3);
        errors[2 * i + 1] = row_v(cam, x, w, feat, (v_cam, v_x, &mut v_w[0]));
    }
}

/// One row of BA's Jacobian block by hand: the reprojection error's forward sweep, then its
/// adjoint for the cotangent `(e0, e1)` of the two errors, added into `g` (the 11 camera
/// parameters, the 3 point coordinates, the weight); returns `e0·err₀ + e1·err₁`. The
/// generated Jacobian's structure (each row runs the forward sweep again), written as a
/// careful user writes an adjoint: the reference the generated rows are measured against.
#[allow(clippy::too_many_arguments)]
pub fn ba_row_by_hand(
    cam: &[f64],
    x: &[f64],
    w: f64,
    feat: &[f64],
    e0: f64,
    e1: f64,
    g: &mut [f64],
) -> f64 {
    let (cam, x, g) = (&cam[..11], &x[..3], &mut g[..15]);
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let rot = [cam[0], cam[1], cam[2]];
    let sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
    // the rotation: Rodrigues' formula, or its first order at the zero rotation
    let mut xc = [0.0; 3];
    let (theta, cos, sin, inv, wv, wxp, dot, omc, tmp);
    if sqtheta != 0.0 {
        theta = sqtheta.sqrt();
        (sin, cos) = theta.sin_cos();
        inv = 1.0 / theta;
        wv = [rot[0] * inv, rot[1] * inv, rot[2] * inv];
        wxp = cross(wv, xo);
        dot = wv[0] * xo[0] + wv[1] * xo[1] + wv[2] * xo[2];
        omc = 1.0 - cos;
        tmp = dot * omc;
        for i in 0..3 {
            xc[i] = xo[i] * cos + wxp[i] * sin + wv[i] * tmp;
        }
    } else {
        (theta, cos, sin, inv, dot, omc, tmp) = (0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        wv = rot;
        wxp = cross(rot, xo);
        for i in 0..3 {
            xc[i] = xo[i] + wxp[i];
        }
    }
    let p0 = xc[0] / xc[2];
    let p1 = xc[1] / xc[2];
    let rsq = p0 * p0 + p1 * p1;
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let (q0, q1) = (p0 * l, p1 * l);
    let r0 = q0 * cam[6] + cam[7] - feat[0];
    let r1 = q1 * cam[6] + cam[8] - feat[1];
    // reverse
    g[14] += e0 * r0 + e1 * r1;
    let (dr0, dr1) = (w * e0, w * e1);
    g[7] += dr0;
    g[8] += dr1;
    g[6] += dr0 * q0 + dr1 * q1;
    let (dq0, dq1) = (dr0 * cam[6], dr1 * cam[6]);
    let dl = dq0 * p0 + dq1 * p1;
    g[9] += dl * rsq;
    g[10] += dl * rsq * rsq;
    let drsq = dl * (cam[9] + 2.0 * cam[10] * rsq);
    let dp0 = dq0 * l + 2.0 * p0 * drsq;
    let dp1 = dq1 * l + 2.0 * p1 * drsq;
    let dxc = [dp0 / xc[2], dp1 / xc[2], -(dp0 * p0 + dp1 * p1) / xc[2]];
    let mut dxo = [0.0; 3];
    let mut drot = [0.0; 3];
    // the cross product a × b: da = b × d, db = d × a
    let cross_back =
        |a: [f64; 3], b: [f64; 3], d: [f64; 3], da: &mut [f64; 3], db: &mut [f64; 3]| {
            let (ga, gb) = (cross(b, d), cross(d, a));
            for i in 0..3 {
                da[i] += ga[i];
                db[i] += gb[i];
            }
        };
    if sqtheta != 0.0 {
        let (mut dwv, mut dwxp) = ([0.0; 3], [0.0; 3]);
        let (mut dcos, mut dsin, mut dtmp) = (0.0, 0.0, 0.0);
        for i in 0..3 {
            dxo[i] += dxc[i] * cos;
            dcos += dxc[i] * xo[i];
            dwxp[i] = dxc[i] * sin;
            dsin += dxc[i] * wxp[i];
            dwv[i] += dxc[i] * tmp;
            dtmp += dxc[i] * wv[i];
        }
        let ddot = dtmp * omc;
        dcos -= dtmp * dot;
        for i in 0..3 {
            dwv[i] += ddot * xo[i];
            dxo[i] += ddot * wv[i];
        }
        cross_back(wv, xo, dwxp, &mut dwv, &mut dxo);
        let mut dinv = 0.0;
        for i in 0..3 {
            drot[i] += dwv[i] * inv;
            dinv += dwv[i] * rot[i];
        }
        let dtheta = -dinv * inv / theta + cos * dsin - sin * dcos;
        let dsq = dtheta / (2.0 * theta);
        for i in 0..3 {
            drot[i] += 2.0 * rot[i] * dsq;
        }
    } else {
        dxo = dxc;
        cross_back(rot, xo, dxc, &mut drot, &mut dxo);
    }
    for i in 0..3 {
        g[i] += drot[i];
        g[3 + i] -= dxo[i];
        g[11 + i] += dxo[i];
    }
    w * (e0 * r0 + e1 * r1)
}

/// [`ba_jacobian_accumulated`] with the rows by hand ([`ba_row_by_hand`]).
pub fn ba_jacobian_by_hand(problem: &BaProblem, errors: &mut [f64], jacobian: &mut [f64]) {
    for i in 0..problem.obs.len() {
        let (cam, x, w, feat) = problem.observation(i);
        let block = &mut jacobian[30 * i..30 * (i + 1)];
        block.fill(0.0);
        let (u, v) = block.split_at_mut(15);
        errors[2 * i] = ba_row_by_hand(cam, x, w, feat, 1.0, 0.0, u);
        errors[2 * i + 1] = ba_row_by_hand(cam, x, w, feat, 0.0, 1.0, v);
    }
}

// BA written as ADBench's C++ is: helpers writing `&mut` outputs, handed local arrays
// (array literals) as `&[f64]`.

/// `out ← a × b`.
#[differentiable]
pub fn cross_into(a: &[f64], b: &[f64], out: &mut [f64]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/// [`rodrigues_rotate_point`] with the point as a slice and the unit axis an array literal.
#[differentiable]
pub fn rodrigues_rotate_slice(rot: &[f64], pt: &[f64], rotated: &mut [f64]) {
    let sqtheta = sqnorm(rot);
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let theta_inverse = 1.0 / theta;
        let w = [
            rot[0] * theta_inverse,
            rot[1] * theta_inverse,
            rot[2] * theta_inverse,
        ];
        let mut w_cross_pt = [0.0; 3];
        cross_into(&w, pt, &mut w_cross_pt);
        let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1.0 - costheta);
        for i in 0..3 {
            rotated[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
        }
    } else {
        let mut rot_cross_pt = [0.0; 3];
        cross_into(rot, pt, &mut rot_cross_pt);
        for i in 0..3 {
            rotated[i] = pt[i] + rot_cross_pt[i];
        }
    }
}

/// [`project`] with `xo` an array literal handed on as `&xo`.
#[differentiable]
pub fn project_slices(cam: &[f64], x: &[f64], proj: &mut [f64]) {
    let c = &cam[3..6];
    let xo = [x[0] - c[0], x[1] - c[1], x[2] - c[2]];
    let mut xcam = [0.0; 3];
    rodrigues_rotate_slice(&cam[0..3], &xo, &mut xcam);
    proj[0] = xcam[0] / xcam[2];
    proj[1] = xcam[1] / xcam[2];
    radial_distort(&cam[9..11], proj);
    proj[0] = proj[0] * cam[6] + cam[7];
    proj[1] = proj[1] * cam[6] + cam[8];
}

/// [`compute_reproj_error`] through [`project_slices`].
#[differentiable]
pub fn reproj_error_slices(cam: &[f64], x: &[f64], w: f64, feat: &[f64], err: &mut [f64]) {
    let mut proj = [0.0; 2];
    project_slices(cam, x, &mut proj);
    err[0] = w * (proj[0] - feat[0]);
    err[1] = w * (proj[1] - feat[1]);
}

/// The first coordinate of [`reproj_error_slices`].
#[differentiable]
pub fn reproj_error_slices_u(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> f64 {
    let mut err = [0.0; 2];
    reproj_error_slices(cam, x, w, feat, &mut err);
    err[0]
}

/// The second coordinate of [`reproj_error_slices`].
#[differentiable]
pub fn reproj_error_slices_v(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> f64 {
    let mut err = [0.0; 2];
    reproj_error_slices(cam, x, w, feat, &mut err);
    err[1]
}

/// [`ba_objective`] through [`reproj_error_slices`].
pub fn ba_objective_slices(problem: &BaProblem, errors: &mut [f64]) {
    for i in 0..problem.obs.len() {
        let (cam, x, w, feat) = problem.observation(i);
        reproj_error_slices(cam, x, w, feat, &mut errors[2 * i..2 * i + 2]);
    }
}

/// [`ba_jacobian`] through [`reproj_error_slices`].
pub fn ba_jacobian_slices(problem: &BaProblem, errors: &mut [f64], jacobian: &mut [f64]) {
    let row_u = value_and_gradients_function!(reproj_error_slices_u, params = ["cam", "x", "w"]);
    let row_v = value_and_gradients_function!(reproj_error_slices_v, params = ["cam", "x", "w"]);
    for i in 0..problem.obs.len() {
        let (cam, x, w, feat) = problem.observation(i);
        let block = &mut jacobian[30 * i..30 * (i + 1)];
        for (row, gradient) in [row_u(cam, x, w, feat), row_v(cam, x, w, feat)]
            .into_iter()
            .enumerate()
        {
            let (value, (g_cam, g_x, g_w)) = gradient;
            errors[2 * i + row] = value;
            let out = &mut block[15 * row..15 * (row + 1)];
            out[..11].copy_from_slice(&g_cam);
            out[11..14].copy_from_slice(&g_x);
            out[14] = g_w;
        }
    }
}

// ---------------------------------------------------------------------------------------
// LSTM: the mean log-likelihood of a sequence of c characters (one-hot-like vectors of b
// entries) under an l-layer LSTM with hidden size b, ADBench's diagonal ("elementwise")
// variant. `main_params`: per layer 8b values, the weights then the biases of the forget,
// input, output and change gates; `extra_params`: 3b values, the input weights, the output
// weights, the output biases; `state`: per layer the hidden then the cell values (2b).
// ---------------------------------------------------------------------------------------

/// ADBench's LSTM objective with the state updated in place, in one function.
#[differentiable]
#[allow(clippy::too_many_arguments)]
pub fn lstm_objective(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    #[no_grad] state0: &[f64],
    #[no_grad] sequence: &[f64],
) -> f64 {
    let mut state = state0.to_vec();
    let mut layer_input = vec![0.0; b];
    let mut ypred = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..c - 1 {
        for i in 0..b {
            layer_input[i] = sequence[t * b + i] * extra_params[i];
        }
        for layer in 0..l {
            let w = 8 * b * layer;
            let s = 2 * b * layer;
            for i in 0..b {
                let forget =
                    sigmoid(layer_input[i] * main_params[w + i] + main_params[w + 4 * b + i]);
                let ingate =
                    sigmoid(state[s + i] * main_params[w + b + i] + main_params[w + 5 * b + i]);
                let outgate = sigmoid(
                    layer_input[i] * main_params[w + 2 * b + i] + main_params[w + 6 * b + i],
                );
                let change =
                    (state[s + i] * main_params[w + 3 * b + i] + main_params[w + 7 * b + i]).tanh();
                state[s + b + i] = state[s + b + i] * forget + ingate * change;
                state[s + i] = outgate * state[s + b + i].tanh();
            }
            for i in 0..b {
                layer_input[i] = state[s + i];
            }
        }
        let mut sum_exp = 0.0;
        for i in 0..b {
            ypred[i] = layer_input[i] * extra_params[b + i] + extra_params[2 * b + i];
            sum_exp += ypred[i].exp();
        }
        let lse = (sum_exp + 2.0).ln();
        for i in 0..b {
            total += sequence[(t + 1) * b + i] * (ypred[i] - lse);
        }
    }
    -total / ((c - 1) * b) as f64
}

/// ADBench's `logsumexp` of the LSTM: `ln(Σ exp(xᵢ) + 2)`.
#[differentiable]
pub fn lstm_logsumexp(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() {
        sum += x[i].exp();
    }
    (sum + 2.0).ln()
}

/// One layer's step, as ADBench's C++ writes it: updates the layer's `hidden` and `cell`
/// values (b each) in place from the layer's weights `weight` (4b) and biases `bias` (4b)
/// (forget, input, output, change) and its `input`.
#[differentiable]
pub fn lstm_model(
    weight: &[f64],
    bias: &[f64],
    hidden: &mut [f64],
    cell: &mut [f64],
    input: &[f64],
) {
    let b = hidden.len();
    for i in 0..b {
        let forget = sigmoid(input[i] * weight[i] + bias[i]);
        let ingate = sigmoid(hidden[i] * weight[b + i] + bias[b + i]);
        let outgate = sigmoid(input[i] * weight[2 * b + i] + bias[2 * b + i]);
        let change = (hidden[i] * weight[3 * b + i] + bias[3 * b + i]).tanh();
        cell[i] = cell[i] * forget + ingate * change;
        hidden[i] = outgate * cell[i].tanh();
    }
}

/// The prediction `output` (b) for the input `input` (b), updating the state (`2lb`) in
/// place; `output` is also the layers' input buffer, as in ADBench's C++.
#[differentiable]
#[allow(clippy::too_many_arguments)]
pub fn lstm_predict(
    l: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    state: &mut [f64],
    input: &[f64],
    output: &mut [f64],
) {
    for i in 0..b {
        output[i] = input[i] * extra_params[i];
    }
    for layer in 0..l {
        let w = 8 * b * layer;
        // the layer's hidden and cell values, split off the state (the input is the
        // caller's `&mut` output buffer, handed on as it is)
        let (hidden, cell) = state[2 * b * layer..2 * b * (layer + 1)].split_at_mut(b);
        lstm_model(
            &main_params[w..w + 4 * b],
            &main_params[w + 4 * b..w + 8 * b],
            hidden,
            cell,
            output,
        );
        for i in 0..b {
            output[i] = hidden[i];
        }
    }
    for i in 0..b {
        output[i] = output[i] * extra_params[b + i] + extra_params[2 * b + i];
    }
}

/// ADBench's LSTM objective split into the `lstm_predict` and `lstm_model` helpers.
#[differentiable]
#[allow(clippy::too_many_arguments)]
pub fn lstm_objective_split(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    #[no_grad] state0: &[f64],
    #[no_grad] sequence: &[f64],
) -> f64 {
    let mut state = state0.to_vec();
    let mut ypred = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..c - 1 {
        lstm_predict(
            l,
            b,
            main_params,
            extra_params,
            &mut state,
            &sequence[t * b..(t + 1) * b],
            &mut ypred,
        );
        let lse = lstm_logsumexp(&ypred);
        for i in 0..b {
            total += sequence[(t + 1) * b + i] * (ypred[i] - lse);
        }
    }
    -total / ((c - 1) * b) as f64
}

/// An LSTM problem: `(main_params, extra_params, state, sequence)`.
pub fn lstm_input(l: usize, c: usize, b: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    (
        uniform(8 * l * b, 21),
        uniform(3 * b, 22),
        uniform(2 * l * b, 23),
        uniform(c * b, 24).iter().map(|v| 0.5 * (v + 1.0)).collect(),
    )
}

// ---------------------------------------------------------------------------------------
// The `pick` scaling workload: a helper reading one element of a slice, called from a
// differentiable loop; differentiating it should cost the same for every length of `v`.
// ---------------------------------------------------------------------------------------

/// The square of one element.
#[differentiable]
pub fn pick(v: &[f64], i: usize) -> f64 {
    v[i] * v[i]
}

/// `calls` calls of [`pick`], at the indices `0, 1, …` wrapping around at the end of `v`
/// (a counter rather than `k % n`, whose division would cost more than the call).
#[differentiable]
pub fn pick_sum(v: &[f64], calls: usize) -> f64 {
    let n = v.len();
    let mut s = 0.0;
    let mut i = 0;
    for _ in 0..calls {
        s += pick(v, i);
        i += 1;
        if i == n {
            i = 0;
        }
    }
    s
}
