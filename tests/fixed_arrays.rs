//! Fixed-size arrays in differentiable code, written as vector-math and optimisation code
//! writes them: array literals as locals and results (`-> [f64; 3]`, `-> Vector3<T>` for
//! `type Vector3<T> = [T; 3]`), `[x; N]`, matrices as nested arrays (`m[i][j]`), array
//! parameters by value and by reference, `&arr` handed to a helper taking `&[f64]`, and
//! local arrays written element by element. Every gradient is compared with central finite
//! differences and with a hand-derived value; `vjp!` of array-valued results, the generic
//! forms (`T: Float`, and `T: Copy + Add<T, Output = T> + …` as vector-math crates bound
//! their scalar) and the implicit mode are included.
#![allow(clippy::needless_range_loop)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;
use autodiff::vjp;
use std::ops::{Add, Mul, Sub};

const FD_TOL: f64 = 1e-8;

fn flat<const N: usize, const M: usize>(m: &[[f64; N]; M]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

fn unflat3(p: &[f64]) -> [[f64; 3]; 3] {
    [[p[0], p[1], p[2]], [p[3], p[4], p[5]], [p[6], p[7], p[8]]]
}

// ---------------------------------------------------------------------------------------
// Array literals as results
// ---------------------------------------------------------------------------------------

#[differentiable]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// A scalar of a cross product computed by a differentiable helper.
#[differentiable]
fn twisted(a: [f64; 3], b: [f64; 3]) -> f64 {
    let c = cross(a, b);
    c[0] * c[0] + c[1].sin() + c[2] * 2.0
}

#[test]
fn an_array_literal_returned_through_vjp() {
    let (a, b) = ([0.3, -0.5, 0.7], [1.1, 0.4, -0.2]);
    let (value, pullback) = vjp!(cross)(a, b);
    assert_eq!(value, cross(a, b));
    // by hand: with cotangent u, ∂(a × b)ᵀu/∂a = b × u and ∂/∂b = u × a
    let u = [0.5, -1.0, 2.0];
    let (da, db) = pullback(u);
    assert_gradient_close(&da, &cross(b, u), 1e-15);
    assert_gradient_close(&db, &cross(u, a), 1e-15);

    let (ga, gb) = gradients_function!(twisted)(a, b);
    let c = cross(a, b);
    let dc = [2.0 * c[0], c[1].cos(), 2.0];
    assert_gradient_close(&ga, &cross(b, dc), 1e-14);
    assert_gradient_close(&gb, &cross(dc, a), 1e-14);
    let fd = finite_difference(
        |p| twisted([p[0], p[1], p[2]], [p[3], p[4], p[5]]),
        &[a[0], a[1], a[2], b[0], b[1], b[2]],
    );
    assert_gradient_close(&[ga, gb].concat(), &fd, FD_TOL);
}

/// Generic over the float type: destructured, rebuilt.
#[differentiable]
fn rotate<T: Float>(p: &[T; 2], angle: T) -> [T; 2] {
    let [x, y] = *p;
    let (s, c) = (angle.sin(), angle.cos());
    [c * x - s * y, s * x + c * y]
}

#[test]
fn a_generic_array_result() {
    let (p, t) = ([0.8, -0.3], 0.4);
    let (value, pullback) = vjp!(rotate::<f64>)(&p, t);
    assert_eq!(value, rotate(&p, t));
    let (dp, dt) = pullback([1.0, 0.0]);
    // by hand: ∂(c x − s y)/∂(x, y, θ) = (c, −s, −s x − c y)
    let (s, c) = (t.sin(), t.cos());
    assert_gradient_close(&dp, &[c, -s], 1e-15);
    assert!((dt - (-s * p[0] - c * p[1])).abs() < 1e-15);
    let fd = finite_difference(|q| rotate(&[q[0], q[1]], q[2])[1], &[p[0], p[1], t]);
    let (dp, dt) = vjp!(rotate::<f64>)(&p, t).1([0.0, 1.0]);
    assert_gradient_close(&[dp[0], dp[1], dt], &fd, FD_TOL);
    let (v32, pb32) = vjp!(rotate::<f32>)(&[0.8_f32, -0.3], 0.4);
    assert!((v32[0] as f64 - value[0]).abs() < 1e-6);
    assert!((pb32([1.0, 0.0]).0[0] as f64 - c).abs() < 1e-6);
}

// ---------------------------------------------------------------------------------------
// Vector-math code as a generic crate writes it
// ---------------------------------------------------------------------------------------

/// A 3-vector.
pub type Vector3<T> = [T; 3];
/// A row-major 3×3 matrix.
pub type Matrix3<T> = [[T; 3]; 3];

#[differentiable]
fn vec3_dot<T>(a: Vector3<T>, b: Vector3<T>) -> T
where
    T: Copy + Add<T, Output = T> + Mul<T, Output = T>,
{
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[differentiable]
fn row_mat3_col<T: Copy>(a: Matrix3<T>, i: usize) -> Vector3<T> {
    [a[0][i], a[1][i], a[2][i]]
}

#[differentiable]
fn mat3_transposed<T>(mat: Matrix3<T>) -> Matrix3<T>
where
    T: Copy,
{
    [
        row_mat3_col(mat, 0),
        row_mat3_col(mat, 1),
        row_mat3_col(mat, 2),
    ]
}

#[differentiable]
fn row_mat3_transform<T>(mat: Matrix3<T>, a: Vector3<T>) -> Vector3<T>
where
    T: Copy + Add<T, Output = T> + Mul<T, Output = T>,
{
    [
        vec3_dot(mat[0], a),
        vec3_dot(mat[1], a),
        vec3_dot(mat[2], a),
    ]
}

#[differentiable]
fn mat3_det<T>(mat: Matrix3<T>) -> T
where
    T: Copy + Add<T, Output = T> + Mul<T, Output = T> + Sub<T, Output = T>,
{
    mat[0][0] * mat[1][1] * mat[2][2]
        + mat[0][1] * mat[1][2] * mat[2][0]
        + mat[0][2] * mat[1][0] * mat[2][1]
        - mat[0][0] * mat[1][2] * mat[2][1]
        - mat[0][1] * mat[1][0] * mat[2][2]
        - mat[0][2] * mat[1][1] * mat[2][0]
}

fn m3() -> Matrix3<f64> {
    [[1.0, 0.2, -0.3], [0.4, 2.0, 0.6], [-0.7, 0.8, 3.0]]
}

#[test]
fn matrix_vector_products_of_nested_arrays() {
    let (m, v) = (m3(), [0.5, -1.5, 0.25]);
    let (value, pullback) = vjp!(row_mat3_transform::<f64>)(m, v);
    assert_eq!(value, row_mat3_transform(m, v));
    let u = [1.0, -2.0, 0.5];
    let (dm, dv) = pullback(u);
    // by hand: y = M v, so ∂(uᵀy)/∂M = u vᵀ and ∂/∂v = Mᵀu
    let hand_m: Vec<f64> = (0..9).map(|k| u[k / 3] * v[k % 3]).collect();
    let hand_v: Vec<f64> = (0..3)
        .map(|j| (0..3).map(|i| m[i][j] * u[i]).sum())
        .collect();
    assert_gradient_close(&flat(&dm), &hand_m, 1e-15);
    assert_gradient_close(&dv, &hand_v, 1e-15);
    let fd = finite_difference(
        |p| vec3_dot(row_mat3_transform(unflat3(p), v), u),
        &flat(&m),
    );
    assert_gradient_close(&flat(&dm), &fd, FD_TOL);
}

#[test]
fn the_determinant_and_the_transpose() {
    let m = m3();
    let g = gradients_function!(mat3_det::<f64>)(m);
    // by hand: ∂det/∂m_ij is the cofactor C_ij
    let c = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
    };
    let cof: Vec<f64> = (0..9).map(|k| c(k / 3, k % 3)).collect();
    assert_gradient_close(&flat(&g), &cof, 1e-14);
    let fd = finite_difference(|p| mat3_det(unflat3(p)), &flat(&m));
    assert_gradient_close(&flat(&g), &fd, FD_TOL);

    let (t, pullback) = vjp!(mat3_transposed::<f64>)(m);
    assert_eq!(t, [[1.0, 0.4, -0.7], [0.2, 2.0, 0.8], [-0.3, 0.6, 3.0]]);
    // the transpose's pullback transposes the cotangent
    assert_eq!(pullback(m), t);
    let g32 = gradients_function!(mat3_det::<f32>)([
        [1.0_f32, 0.0, 0.0],
        [0.0, 2.0, 0.0],
        [0.0, 0.0, 4.0],
    ]);
    assert_eq!(g32, [[8.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 2.0]]);
}

// ---------------------------------------------------------------------------------------
// Local arrays: literals, repeats, writes, nested writes
// ---------------------------------------------------------------------------------------

#[differentiable]
fn local_arrays(x: f64, y: f64) -> f64 {
    let p = [x * y, y, 2.0];
    let [a, b, c] = p;
    let q = [x; 3];
    let mut w = [0.0; 3];
    for i in 0..3 {
        w[i] = p[i] * q[i] + (i as f64) * y;
    }
    w[1] += w[0] * w[2];
    a * b + c * x + w[0] + w[1] - w[2] * q[0]
}

#[test]
fn local_literals_repeats_and_element_writes() {
    for &(x, y) in &[(0.3, 0.8), (-1.1, 0.4)] {
        let (gx, gy) = gradients_function!(local_arrays)(x, y);
        let fd = finite_difference(|p| local_arrays(p[0], p[1]), &[x, y]);
        assert_gradient_close(&[gx, gy], &fd, FD_TOL);
        // by hand: w = (x²y, xy + y, 2x + 2y), w1 += w0·w2,
        // f = x y² + 2x + w0 + w1 + w0 w2 − w2 x
        let (w0, w2) = (x * x * y, 2.0 * x + 2.0 * y);
        let (dw0x, dw0y, dw1x, dw1y) = (2.0 * x * y, x * x, y, x + 1.0);
        let hx = y * y + 2.0 + dw0x + dw1x + (dw0x * w2 + w0 * 2.0) - (2.0 * x + w2);
        let hy = 2.0 * x * y + dw0y + dw1y + (dw0y * w2 + w0 * 2.0) - 2.0 * x;
        assert_gradient_close(&[gx, gy], &[hx, hy], 1e-13);
    }
}

/// A matrix built element by element (`m[i][j] = …`, `m[i][j] += …`).
#[differentiable]
fn outer_trace(u: [f64; 2], v: [f64; 2]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            m[i][j] = u[i] * v[j];
        }
    }
    m[0][1] += m[1][0] * m[1][1];
    m[0][0] + m[1][1] + m[0][1].sin()
}

#[test]
fn nested_element_writes() {
    let (u, v) = ([0.3, -0.8], [1.2, 0.5]);
    let (gu, gv) = gradients_function!(outer_trace)(u, v);
    let fd = finite_difference(
        |p| outer_trace([p[0], p[1]], [p[2], p[3]]),
        &[u[0], u[1], v[0], v[1]],
    );
    assert_gradient_close(&[gu, gv].concat(), &fd, FD_TOL);
    // by hand: f = u0 v0 + u1 v1 + sin(u0 v1 + u1² v0 v1)
    let s = u[0] * v[1] + u[1] * u[1] * v[0] * v[1];
    let cs = s.cos();
    let hand = [
        v[0] + cs * v[1],
        v[1] + cs * 2.0 * u[1] * v[0] * v[1],
        u[0] + cs * u[1] * u[1] * v[1],
        u[1] + cs * (u[0] + u[1] * u[1] * v[0]),
    ];
    assert_gradient_close(&[gu, gv].concat(), &hand, 1e-14);
}

// ---------------------------------------------------------------------------------------
// Arrays handed to helpers that take slices
// ---------------------------------------------------------------------------------------

#[differentiable]
fn sqnorm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[differentiable]
fn arrays_to_slices(x: f64, a: [f64; 3], b: &[f64; 2]) -> f64 {
    let local = [x, x * x, 1.0];
    sqnorm(&local) * 0.5 + sqnorm(&a) + sqnorm(b) * x
}

#[test]
fn arrays_passed_where_slices_are_expected() {
    let (x, a, b) = (0.7, [0.3, 0.8, 0.1], [0.5, -0.6]);
    let (gx, ga, gb) = gradients_function!(arrays_to_slices)(x, a, &b);
    // by hand: ½(x² + x⁴ + 1) + |a|² + x|b|²
    let nb = b[0] * b[0] + b[1] * b[1];
    assert!((gx - (x + 2.0 * x * x * x + nb)).abs() < 1e-14);
    assert_gradient_close(&ga, &[0.6, 1.6, 0.2], 1e-15);
    assert_gradient_close(&gb, &[2.0 * x * b[0], 2.0 * x * b[1]], 1e-15);
    let fd = finite_difference(
        |p| arrays_to_slices(p[0], [p[1], p[2], p[3]], &[p[4], p[5]]),
        &[x, a[0], a[1], a[2], b[0], b[1]],
    );
    assert_gradient_close(&[vec![gx], ga.to_vec(), gb.to_vec()].concat(), &fd, FD_TOL);
}

/// An array whose length is a const parameter.
#[differentiable]
fn weighted<const N: usize>(x: &[f64; N], w: f64) -> f64 {
    let mut acc = [0.0; N];
    for i in 0..N {
        acc[i] = x[i] * w;
    }
    sqnorm(&acc)
}

#[test]
fn const_generic_lengths() {
    let x = [0.5, -0.25, 2.0, 1.0];
    let (gx, gw) = gradients_function!(weighted::<4>)(&x, 1.5);
    let hand: Vec<f64> = x.iter().map(|v| 2.0 * v * 1.5 * 1.5).collect();
    assert_gradient_close(&gx, &hand, 1e-15);
    assert!((gw - 2.0 * 1.5 * x.iter().map(|v| v * v).sum::<f64>()).abs() < 1e-13);
}

/// Rows that are `Vec`s, borrowed by element reads.
#[differentiable]
fn vec_rows(m: &[Vec<f64>], w: Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * w[j][i];
        }
    }
    s
}

#[test]
fn rows_that_are_vecs() {
    let m = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
    let w = vec![vec![0.5, 0.25], vec![2.0, 3.0]];
    let (gm, gw) = gradients_function!(vec_rows)(&m, w.clone());
    // by hand: ∂/∂m_ij = w_ji, ∂/∂w_ji = m_ij
    assert_eq!(gm, vec![vec![0.5, 2.0], vec![0.25, 3.0]]);
    assert_eq!(gw, vec![vec![1.0, 3.0], vec![2.0, 4.0]]);
}

#[test]
fn the_implicit_mode_with_array_literals() {
    let w = Variable::new(0.6_f64);
    let f =
        differentiable_closure!(|y: f64| vec3_dot(cross([w, y, 1.0], [y, w, 0.5]), [1.0, w, y]));
    let grads = implicit_gradients(&f)(-0.3);
    let gw: f64 = grads.get(&w).expect("w was read");
    let g = |w: f64, y: f64| vec3_dot(cross([w, y, 1.0], [y, w, 0.5]), [1.0, w, y]);
    let fd = finite_difference(|p| g(p[0], -0.3), &[0.6]);
    assert_gradient_close(&[gw], &fd, FD_TOL);
    // by hand: a × b = (0.5y − w, y − 0.5w, w² − y²), f = 0.5y − w + w y − 0.5w² + y w² − y³
    let (wv, y) = (0.6, -0.3);
    assert!((gw - (-1.0 + y - wv + 2.0 * y * wv)).abs() < 1e-14);
}

/// The same, generic over the float type.
#[differentiable]
fn weighted_generic<T: Float, const N: usize>(x: &[T; N], w: T) -> T {
    let mut acc = [T::zero(); N];
    for i in 0..N {
        acc[i] = x[i] * w;
    }
    let mut s = T::zero();
    for i in 0..N {
        s = s + acc[i] * acc[i];
    }
    s
}

#[test]
fn const_generic_lengths_in_generic_code() {
    let x = [0.5, -0.25, 2.0];
    let (gx, gw) = gradients_function!(weighted_generic::<f64, 3>)(&x, 1.5);
    let hand: Vec<f64> = x.iter().map(|v| 2.0 * v * 1.5 * 1.5).collect();
    assert_gradient_close(&gx, &hand, 1e-15);
    assert!((gw - 2.0 * 1.5 * x.iter().map(|v| v * v).sum::<f64>()).abs() < 1e-13);
}

// ---------------------------------------------------------------------------------------
// A local `Vec` of `Vec`s written element by element (a Hessian as optimisation code
// writes it), and a result of that type read by element.
// ---------------------------------------------------------------------------------------

#[differentiable]
fn banded<T: Float + std::ops::AddAssign>(param: &[T], b: T) -> Vec<Vec<T>> {
    let n = param.len();
    let mut h = vec![vec![T::zero(); n]; n];
    for i in 0..n - 1 {
        let (xi, xi1) = (param[i], param[i + 1]);
        h[i][i] += T::from(12.0).unwrap() * b * xi.powi(2) - T::from(4.0).unwrap() * b * xi1;
        h[i + 1][i + 1] = b * T::from(2.0).unwrap();
        h[i][i + 1] = -b * xi;
        h[i + 1][i] = h[i][i + 1] * xi1;
    }
    h
}

#[differentiable]
fn weighted_entries(x: &[f64], b: f64) -> f64 {
    let h = banded(x, b);
    let mut s = 0.0;
    for i in 0..h.len() {
        for j in 0..h[i].len() {
            s += h[i][j] * (i as f64 + 2.0 * j as f64 + 1.0);
        }
    }
    s
}

#[test]
fn a_vec_of_vecs_written_and_read_by_element() {
    let (x, b) = (vec![0.3, -0.7, 1.1], 1.5);
    let (gx, gb) = gradients_function!(weighted_entries)(&x, b);
    let fd = finite_difference(|q| weighted_entries(&q[..3], q[3]), &[x[0], x[1], x[2], b]);
    assert_gradient_close(&[gx.clone(), vec![gb]].concat(), &fd, FD_TOL);

    let (value, pullback) = vjp!(banded::<f64>)(&x, b);
    assert_eq!(value, banded(&x, b));
    // by hand, the cotangent picking h[0][1] = −b x₀: ∂/∂x₀ = −b, ∂/∂b = −x₀
    let mut pick = vec![vec![0.0; 3]; 3];
    pick[0][1] = 1.0;
    let (dx, db) = pullback(pick);
    assert_gradient_close(&dx, &[-b, 0.0, 0.0], 1e-15);
    assert!((db + x[0]).abs() < 1e-15);
}

// An alias of a fixed-size array over a concrete float (`Vector3<f64>` with `Vector3<T> =
// [T; 3]`) may as well be nalgebra's type of the same name, so the macro takes it for a
// value that may be an array: its elements, rows and results still differentiate.

#[differentiable]
fn concrete_alias_transform(mat: Matrix3<f64>, a: Vector3<f64>) -> Vector3<f64> {
    [
        mat[0][0] * a[0] + mat[0][1] * a[1] + mat[0][2] * a[2].sin(),
        vec3_dot(mat[1], a),
        mat[2][2] * a[0] * a[1],
    ]
}

#[differentiable]
fn concrete_alias_loss(mat: Matrix3<f64>, a: Vector3<f64>) -> f64 {
    let y = concrete_alias_transform(mat, a);
    let mut s = 0.0;
    for k in 0..3 {
        s += y[k] * y[k];
    }
    s
}

#[test]
fn aliases_of_arrays_over_a_concrete_float() {
    let (m, v) = (m3(), [0.5, -1.5, 0.25]);
    let (dm, dv) = gradients_function!(concrete_alias_loss)(m, v);
    let fd_m = finite_difference(|p| concrete_alias_loss(unflat3(p), v), &flat(&m));
    let fd_v = finite_difference(|p| concrete_alias_loss(m, [p[0], p[1], p[2]]), &v);
    assert_gradient_close(&flat(&dm), &fd_m, FD_TOL);
    assert_gradient_close(&dv, &fd_v, FD_TOL);
}

/// `[f64; N]::map` with a closure whose parameter is not annotated (as users write it: the
/// element type is inferred), and its `second_order` copy under `hessian!`.
#[differentiable(second_order)]
fn mapped_sines(w: [f64; 3]) -> f64 {
    let t = w.map(|q| q.sin());
    t[0] * t[1] + t[2] * w[0]
}

#[test]
fn array_map_with_an_unannotated_closure() {
    let w = [0.1, 0.2, 0.3];
    let g = gradients_function!(mapped_sines)(w);
    // by hand: ∂/∂w0 = cos w0 sin w1 + sin w2, ∂/∂w1 = sin w0 cos w1, ∂/∂w2 = w0 cos w2
    let hand = [
        w[0].cos() * w[1].sin() + w[2].sin(),
        w[0].sin() * w[1].cos(),
        w[0] * w[2].cos(),
    ];
    for i in 0..3 {
        assert!(
            (g[i] - hand[i]).abs() < 1e-15,
            "{i}: {} vs {}",
            g[i],
            hand[i]
        );
    }
    let h = hessian!(mapped_sines)(w);
    // ∂²/∂w0∂w1 = cos w0 cos w1, ∂²/∂w0∂w2 = cos w2, ∂²/∂w2² = −w0 sin w2
    assert!((h[[0, 1]] - w[0].cos() * w[1].cos()).abs() < 1e-15);
    assert!((h[[0, 2]] - w[2].cos()).abs() < 1e-15);
    assert!((h[[2, 2]] + w[0] * w[2].sin()).abs() < 1e-15);
    assert_eq!(h[[1, 2]], 0.0);
}

/// The determinant of a 2 × 2 matrix handed as a slice of rows.
#[differentiable]
fn det_of_rows(m: &[[f64; 2]]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

/// An array of arrays built locally and handed by reference where a slice of rows is
/// expected: the callee's gradient (a `Vec` of rows) added into the array's adjoint.
#[differentiable]
fn det_of_local_rows(x: f64) -> f64 {
    let m = [[x, 1.0], [2.0, x * x]];
    det_of_rows(&m)
}

struct RowScale {
    s: f64,
}

#[differentiable]
impl RowScale {
    fn det(&self, m: &[[f64; 2]]) -> f64 {
        self.s * (m[0][0] * m[1][1] - m[0][1] * m[1][0])
    }
}

/// The same through a method (`sc.det(&m)`, which took the array by value).
#[differentiable]
fn scaled_det_of_local_rows(#[no_grad] sc: &RowScale, x: f64) -> f64 {
    let m = [[x, 1.0], [2.0, x * x]];
    sc.det(&m)
}

#[test]
fn arrays_of_arrays_handed_as_slices_of_rows() {
    // det [[x, 1], [2, x²]] = x³ − 2: the derivative 3x²
    for x in [-1.3, 0.4, 1.5] {
        let g = gradients_function!(det_of_local_rows)(x);
        assert!((g - 3.0 * x * x).abs() < 1e-12, "{g}");
        let h = 1e-6;
        let fd = (det_of_local_rows(x + h) - det_of_local_rows(x - h)) / (2.0 * h);
        assert!((g - fd).abs() < 1e-6 * fd.abs().max(1.0), "{g} vs {fd}");
        let sc = RowScale { s: 2.5 };
        let gs = gradients_function!(scaled_det_of_local_rows, params = ["x"])(&sc, x);
        assert!((gs - 2.5 * 3.0 * x * x).abs() < 1e-12, "{gs}");
    }
}

/// An `N × N` array of a const-generic length written element by element in a loop, as
/// optimisation crates write their Hessians (`let mut out = [[n0; N]; N]; … out[i][j] = …`):
/// the row the write goes through has no `Default` (`[T; N]` of a const `N`).
#[differentiable]
fn outer_product_const<const N: usize, T: Float>(x: &[T; N], scale: T) -> [[T; N]; N] {
    let zero = T::zero();
    let mut out = [[zero; N]; N];
    for i in 0..N {
        for j in 0..N {
            if i == j {
                out[i][j] = scale * x[i] * x[i];
            } else {
                let t = x[i] * x[j];
                out[i][j] = t;
                out[j][i] = t;
            }
        }
    }
    out
}

#[test]
fn a_const_generic_matrix_written_in_a_loop() {
    let x = [0.3, -0.5, 0.7];
    let s = 1.5;
    let (value, pullback) = vjp!(outer_product_const::<3, f64>)(&x, s);
    assert_eq!(value, outer_product_const::<3, f64>(&x, s));
    // ⟨C, out⟩ with C[i][j] = i + 2j + 1: its gradient by hand, and by central differences
    let c: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| (i + 2 * j + 1) as f64));
    let (gx, gs) = pullback(c);
    let mut by_hand = [0.0; 3];
    let mut gs_hand = 0.0;
    for i in 0..3 {
        by_hand[i] += 2.0 * s * c[i][i] * x[i];
        gs_hand += c[i][i] * x[i] * x[i];
        for j in 0..3 {
            if i != j {
                by_hand[i] += (c[i][j] + c[j][i]) * x[j];
            }
        }
    }
    assert_gradient_close(&gx, &by_hand, 1e-14);
    assert!((gs - gs_hand).abs() < 1e-14);
    let inner = |p: &[f64]| {
        let out = outer_product_const::<3, f64>(&[p[0], p[1], p[2]], p[3]);
        (0..3)
            .flat_map(|i| (0..3).map(move |j| (i, j)))
            .map(|(i, j)| c[i][j] * out[i][j])
            .sum()
    };
    let fd = finite_difference(inner, &[x[0], x[1], x[2], s]);
    assert_gradient_close(&[gx[0], gx[1], gx[2], gs], &fd, FD_TOL);
}
