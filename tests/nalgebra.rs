//! nalgebra's types in differentiable code (the `nalgebra` feature): every operation's
//! gradient against central finite differences on random values, the gradient of a
//! pinhole projection of a rotated point against the hand-derived one, a derived model of
//! nalgebra fields trained by Adam, and a `Variable` holding a vector.
//!
//! Method: each operation is a `#[differentiable]` function returning a scalar (the
//! operation's result weighted by a random constant `w`, so every element of the result
//! is checked); its gradients are compared with fourth-order central differences
//! (`check::finite_difference`) at 32 random points drawn from a seeded generator. Values
//! are drawn from `[-2, 2]` (divisors and norms kept away from zero), where every function
//! is smooth: the differences are accurate to about `1e-10`, and the tolerance `1e-7`
//! relative still catches any wrong formula (off by O(1)).
#![cfg(feature = "nalgebra")]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::nalgebra::allocator::Allocator;
use autodiff::nalgebra::{
    DMatrix, DVector, DefaultAllocator, Dim, Matrix2x3, Matrix3, Matrix3x4, OMatrix, Point3,
    Quaternion, SVector, UnitQuaternion, Vector2, Vector3, Vector4,
};
use autodiff::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const CASES: u64 = 32;
const TOL: f64 = 1e-7;

fn random<R: Dim, C: Dim>(rng: &mut StdRng, r: R, c: C) -> OMatrix<f64, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    OMatrix::from_fn_generic(r, c, |_, _| rng.random_range(-2.0..2.0))
}

fn vec3(rng: &mut StdRng) -> Vector3<f64> {
    random(rng, autodiff::nalgebra::U3, autodiff::nalgebra::U1)
}

fn mat<const R: usize, const C: usize>(
    rng: &mut StdRng,
) -> OMatrix<f64, autodiff::nalgebra::Const<R>, autodiff::nalgebra::Const<C>> {
    random(
        rng,
        autodiff::nalgebra::Const::<R>,
        autodiff::nalgebra::Const::<C>,
    )
}

fn dmat(rng: &mut StdRng, r: usize, c: usize) -> DMatrix<f64> {
    random(rng, autodiff::nalgebra::Dyn(r), autodiff::nalgebra::Dyn(c))
}

fn dvec(rng: &mut StdRng, n: usize) -> DVector<f64> {
    random(rng, autodiff::nalgebra::Dyn(n), autodiff::nalgebra::U1)
}

/// The gradient of `f` at `x` by finite differences, shaped like `x`.
fn fd<R: Dim, C: Dim>(
    x: &OMatrix<f64, R, C>,
    f: impl Fn(&OMatrix<f64, R, C>) -> f64,
) -> OMatrix<f64, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let (r, c) = x.shape_generic();
    let g = finite_difference(
        |p| f(&OMatrix::from_column_slice_generic(r, c, p)),
        x.as_slice(),
    );
    OMatrix::from_column_slice_generic(r, c, &g)
}

fn close<R: Dim, C: Dim>(analytic: &OMatrix<f64, R, C>, numeric: &OMatrix<f64, R, C>)
where
    DefaultAllocator: Allocator<R, C>,
{
    assert_eq!(analytic.shape(), numeric.shape());
    assert_gradient_close(analytic.as_slice(), numeric.as_slice(), TOL);
}

fn scalar_close(analytic: f64, numeric: f64) {
    assert_gradient_close(&[analytic], &[numeric], TOL);
}

fn cases(seed: u64, mut case: impl FnMut(&mut StdRng)) {
    for k in 0..CASES {
        let mut rng = StdRng::seed_from_u64(seed * 1000 + k);
        case(&mut rng);
    }
}

// ----- `+`, `-`, negation, scaling ----------------------------------------------------

#[differentiable]
fn sum_and_difference(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    #[no_grad] w: &Vector3<f64>,
    #[no_grad] u: &Vector3<f64>,
) -> f64 {
    let s = a + b;
    let d = a - b;
    let n = -d;
    s.dot(w) + n.dot(u)
}

#[test]
fn addition_subtraction_and_negation_of_vectors() {
    cases(1, |rng| {
        let (a, b, w, u) = (vec3(rng), vec3(rng), vec3(rng), vec3(rng));
        let (ga, gb) = gradients_function!(sum_and_difference)(&a, &b, &w, &u);
        close(&ga, &fd(&a, |a| sum_and_difference(a, &b, &w, &u)));
        close(&gb, &fd(&b, |b| sum_and_difference(&a, b, &w, &u)));
    });
}

#[differentiable]
fn matrix_sum(a: Matrix2x3<f64>, b: &Matrix2x3<f64>, #[no_grad] w: &Matrix2x3<f64>) -> f64 {
    (a - b * 2.0 + b).dot(w)
}

#[differentiable]
fn dynamic_sum(a: &DMatrix<f64>, b: &DMatrix<f64>, #[no_grad] w: &DMatrix<f64>) -> f64 {
    let c = a + b;
    let d = c - a * 3.0;
    d.dot(w)
}

#[test]
fn addition_of_static_and_dynamic_matrices() {
    cases(2, |rng| {
        let (a, b, w) = (mat::<2, 3>(rng), mat::<2, 3>(rng), mat::<2, 3>(rng));
        let (ga, gb) = gradients_function!(matrix_sum)(a, &b, &w);
        close(&ga, &fd(&a, |a| matrix_sum(*a, &b, &w)));
        close(&gb, &fd(&b, |b| matrix_sum(a, b, &w)));

        let (r, c) = (rng.random_range(1..5), rng.random_range(1..5));
        let (a, b, w) = (dmat(rng, r, c), dmat(rng, r, c), dmat(rng, r, c));
        let (ga, gb) = gradients_function!(dynamic_sum)(&a, &b, &w);
        close(&ga, &fd(&a, |a| dynamic_sum(a, &b, &w)));
        close(&gb, &fd(&b, |b| dynamic_sum(&a, b, &w)));
    });
}

#[differentiable]
fn scaled(s: f64, v: &Vector3<f64>, d: f64, #[no_grad] w: &Vector3<f64>) -> f64 {
    let a = s * v;
    let b = v * s;
    let c = v / d;
    (a + b).dot(w) + c.dot(w)
}

#[test]
fn scaling_by_a_scalar_both_sides_and_division() {
    cases(3, |rng| {
        let (s, v, w) = (rng.random_range(-2.0..2.0), vec3(rng), vec3(rng));
        let d = rng.random_range(0.5..2.0)
            * if rng.random_range(0.0..1.0) < 0.5 {
                -1.0
            } else {
                1.0
            };
        let (gs, gv, gd) = gradients_function!(scaled)(s, &v, d, &w);
        let x = [s, v[0], v[1], v[2], d];
        let f = |p: &[f64]| scaled(p[0], &Vector3::new(p[1], p[2], p[3]), p[4], &w);
        let n = finite_difference(f, &x);
        assert_gradient_close(&[gs, gv[0], gv[1], gv[2], gd], &n, TOL);
    });
}

// ----- products ---------------------------------------------------------------------------

#[differentiable]
fn matrix_product(
    a: &Matrix2x3<f64>,
    b: &Matrix3x4<f64>,
    #[no_grad] w: &OMatrix<f64, autodiff::nalgebra::U2, autodiff::nalgebra::U4>,
) -> f64 {
    (a * b).dot(w)
}

#[differentiable]
fn matrix_vector(m: &Matrix3<f64>, v: &Vector3<f64>, #[no_grad] w: &Vector3<f64>) -> f64 {
    let y = m * v;
    let z = m.transpose() * y;
    y.dot(w) + z.dot(w)
}

#[differentiable]
fn dynamic_product(m: &DMatrix<f64>, v: &DVector<f64>, #[no_grad] w: &DVector<f64>) -> f64 {
    let y = m * v;
    y.dot(w)
}

#[test]
fn matrix_products_static_and_dynamic() {
    cases(4, |rng| {
        let (a, b) = (mat::<2, 3>(rng), mat::<3, 4>(rng));
        let w = mat::<2, 4>(rng);
        let (ga, gb) = gradients_function!(matrix_product)(&a, &b, &w);
        close(&ga, &fd(&a, |a| matrix_product(a, &b, &w)));
        close(&gb, &fd(&b, |b| matrix_product(&a, b, &w)));

        let (m, v, w) = (mat::<3, 3>(rng), vec3(rng), vec3(rng));
        let (gm, gv) = gradients_function!(matrix_vector)(&m, &v, &w);
        close(&gm, &fd(&m, |m| matrix_vector(m, &v, &w)));
        close(&gv, &fd(&v, |v| matrix_vector(&m, v, &w)));

        let (r, c) = (rng.random_range(1..6), rng.random_range(1..6));
        let (m, v, w) = (dmat(rng, r, c), dvec(rng, c), dvec(rng, r));
        let (gm, gv) = gradients_function!(dynamic_product)(&m, &v, &w);
        close(&gm, &fd(&m, |m| dynamic_product(m, &v, &w)));
        close(&gv, &fd(&v, |v| dynamic_product(&m, v, &w)));
    });
}

#[differentiable]
fn transposed(m: &Matrix2x3<f64>, #[no_grad] w: &Matrix3x2OfF64) -> f64 {
    m.transpose().dot(w)
}

type Matrix3x2OfF64 = autodiff::nalgebra::Matrix3x2<f64>;

#[test]
fn transpose() {
    cases(5, |rng| {
        let (m, w) = (mat::<2, 3>(rng), mat::<3, 2>(rng));
        let g = gradients_function!(transposed)(&m, &w);
        close(&g, &fd(&m, |m| transposed(m, &w)));
        // by hand: the gradient of ⟨mᵀ, w⟩ is wᵀ
        assert_eq!(g, w.transpose());
    });
}

// ----- dot, norms, cross ------------------------------------------------------------------

#[differentiable]
fn dots(a: &Vector3<f64>, b: &Vector3<f64>, m: &DMatrix<f64>, n: &DMatrix<f64>) -> f64 {
    a.dot(b) * m.dot(n)
}

#[test]
fn dot_of_vectors_and_of_matrices() {
    cases(6, |rng| {
        let (a, b) = (vec3(rng), vec3(rng));
        let (m, n) = (dmat(rng, 2, 3), dmat(rng, 2, 3));
        let (ga, gb, gm, gn) = gradients_function!(dots)(&a, &b, &m, &n);
        close(&ga, &fd(&a, |a| dots(a, &b, &m, &n)));
        close(&gb, &fd(&b, |b| dots(&a, b, &m, &n)));
        close(&gm, &fd(&m, |m| dots(&a, &b, m, &n)));
        close(&gn, &fd(&n, |n| dots(&a, &b, &m, n)));
    });
}

#[differentiable]
fn norms(v: &Vector3<f64>, d: &DVector<f64>, #[no_grad] w: &Vector3<f64>) -> f64 {
    v.norm() + 0.5 * d.norm_squared() + v.normalize().dot(w) + d.norm()
}

#[test]
fn norm_norm_squared_and_normalize() {
    cases(7, |rng| {
        let (mut v, w) = (vec3(rng), vec3(rng));
        if v.norm() < 0.5 {
            v += Vector3::new(1.0, 1.0, 1.0);
        }
        let d = dvec(rng, 4) + DVector::from_element(4, 2.5);
        let (gv, gd) = gradients_function!(norms)(&v, &d, &w);
        close(&gv, &fd(&v, |v| norms(v, &d, &w)));
        close(&gd, &fd(&d, |d| norms(&v, d, &w)));
    });
}

#[differentiable]
fn crossed(a: &Vector3<f64>, b: &Vector3<f64>, #[no_grad] w: &Vector3<f64>) -> f64 {
    a.cross(b).dot(w)
}

#[test]
fn cross_product() {
    cases(8, |rng| {
        let (a, b, w) = (vec3(rng), vec3(rng), vec3(rng));
        let (ga, gb) = gradients_function!(crossed)(&a, &b, &w);
        close(&ga, &fd(&a, |a| crossed(a, &b, &w)));
        close(&gb, &fd(&b, |b| crossed(&a, b, &w)));
        // by hand: ⟨a × b, w⟩ = ⟨a, b × w⟩ = ⟨b, w × a⟩
        close(&ga, &b.cross(&w));
        close(&gb, &w.cross(&a));
    });
}

// ----- indexing -------------------------------------------------------------------------

#[differentiable]
fn elements(v: &Vector3<f64>, m: &Matrix3<f64>, i: usize, j: usize) -> f64 {
    v[i] * m[(i, j)] + m[(j, i)] * v[j] * v[j]
}

#[test]
fn indexing_vectors_and_matrices() {
    cases(9, |rng| {
        let (v, m) = (vec3(rng), mat::<3, 3>(rng));
        let (i, j) = (rng.random_range(0..3), rng.random_range(0..3));
        let (gv, gm) = gradients_function!(elements)(&v, &m, i, j);
        close(&gv, &fd(&v, |v| elements(v, &m, i, j)));
        close(&gm, &fd(&m, |m| elements(&v, m, i, j)));
    });
}

// ----- points and rotations -------------------------------------------------------------

#[differentiable]
fn points(p: &Point3<f64>, q: &Point3<f64>, m: &Matrix3<f64>, s: f64) -> f64 {
    let d = p - q;
    let r = m * p;
    let moved = r + d * s;
    let scaled = moved * s;
    (scaled - q).norm_squared()
}

fn point_fd(p: &Point3<f64>, f: impl Fn(&Point3<f64>) -> f64) -> Vector3<f64> {
    fd(&p.coords, |c| f(&Point3::from(*c)))
}

#[test]
fn points_differences_and_matrix_times_point() {
    cases(10, |rng| {
        let (p, q) = (Point3::from(vec3(rng)), Point3::from(vec3(rng)));
        let (m, s) = (mat::<3, 3>(rng), rng.random_range(-2.0..2.0));
        // a point's gradient is a vector (a displacement)
        let (gp, gq, gm, gs): (Vector3<f64>, Vector3<f64>, Matrix3<f64>, f64) =
            gradients_function!(points)(&p, &q, &m, s);
        close(&gp, &point_fd(&p, |p| points(p, &q, &m, s)));
        close(&gq, &point_fd(&q, |q| points(&p, q, &m, s)));
        close(&gm, &fd(&m, |m| points(&p, &q, m, s)));
        scalar_close(gs, finite_difference(|x| points(&p, &q, &m, x[0]), &[s])[0]);
    });
}

fn unit_quaternion(rng: &mut StdRng) -> UnitQuaternion<f64> {
    let c = random(rng, autodiff::nalgebra::U4, autodiff::nalgebra::U1)
        + Vector4::new(0.1, 0.1, 0.1, 0.1);
    UnitQuaternion::from_quaternion(Quaternion::from(c))
}

/// The gradient of `f` at a unit quaternion by differences of its four coordinates,
/// renormalised: the gradient of `c ↦ f(c / ‖c‖)`, which the rules return.
fn quaternion_fd(q: &UnitQuaternion<f64>, f: impl Fn(&UnitQuaternion<f64>) -> f64) -> Vector4<f64> {
    fd(&q.as_ref().coords, |c| {
        f(&UnitQuaternion::from_quaternion(Quaternion::from(*c)))
    })
}

#[differentiable]
fn rotated(
    q: &UnitQuaternion<f64>,
    v: &Vector3<f64>,
    p: &Point3<f64>,
    #[no_grad] w: &Vector3<f64>,
) -> f64 {
    let a = q * v;
    let b = q * p;
    a.dot(w) + (b - p).norm_squared()
}

#[test]
fn a_unit_quaternion_rotating_vectors_and_points() {
    cases(11, |rng| {
        let q = unit_quaternion(rng);
        let (v, p, w) = (vec3(rng), Point3::from(vec3(rng)), vec3(rng));
        // the forward operations are nalgebra's
        assert!(
            (rotated(&q, &v, &p, &w) - ((q * v).dot(&w) + (q * p - p).norm_squared())).abs()
                < 1e-12
        );
        let (gq, gv, gp): (Quaternion<f64>, Vector3<f64>, Vector3<f64>) =
            gradients_function!(rotated)(&q, &v, &p, &w);
        close(&gq.coords, &quaternion_fd(&q, |q| rotated(q, &v, &p, &w)));
        close(&gv, &fd(&v, |v| rotated(&q, v, &p, &w)));
        close(&gp, &point_fd(&p, |p| rotated(&q, &v, p, &w)));
        // tangent to the unit sphere: no component along q
        assert!(gq.coords.dot(&q.as_ref().coords).abs() < 1e-12);
    });
}

// ----- a pinhole camera -----------------------------------------------------------------

/// The squared reprojection error of a point `p` seen by a pinhole camera of focal length
/// `f`, rotated by `q` and translated by `t`, against the pixel `target`.
#[differentiable]
fn reprojection(
    q: &UnitQuaternion<f64>,
    t: &Vector3<f64>,
    p: &Point3<f64>,
    f: f64,
    #[no_grad] target: &Vector2<f64>,
) -> f64 {
    let c = q * p + t;
    let u = f * c[0] / c[2];
    let v = f * c[1] / c[2];
    let du = u - target[0];
    let dv = v - target[1];
    du * du + dv * dv
}

#[test]
fn pinhole_projection_of_a_rotated_point_against_the_hand_derived_gradient() {
    cases(12, |rng| {
        let q = unit_quaternion(rng);
        let p = Point3::from(vec3(rng));
        let t = vec3(rng) + Vector3::new(0.0, 0.0, 8.0); // in front of the camera
        let f = rng.random_range(0.5..2.0);
        let target = Vector2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let (gq, gt, gp, gf) = gradients_function!(reprojection)(&q, &t, &p, f, &target);

        // By hand. c = R p + t = (x, y, z), u = f x / z, v = f y / z, e = (u − u₀, v − v₀),
        // L = ‖e‖². ∂L/∂c = 2 f (e_u / z, e_v / z, −(e_u x + e_v y) / z²); ∂L/∂t = ∂L/∂c;
        // ∂L/∂p = Rᵀ ∂L/∂c; ∂L/∂f = 2 (e_u x + e_v y) / z.
        let rp = q * p.coords;
        let c = rp + t;
        let (x, y, z) = (c[0], c[1], c[2]);
        let (eu, ev) = (f * x / z - target[0], f * y / z - target[1]);
        let dc = Vector3::new(
            2.0 * f * eu / z,
            2.0 * f * ev / z,
            -2.0 * f * (eu * x + ev * y) / (z * z),
        );
        let tight = |a: &[f64], b: &[f64]| assert_gradient_close(a, b, 1e-12);
        tight(gt.as_slice(), dc.as_slice());
        tight(gp.as_slice(), (q.inverse() * dc).as_slice());
        tight(&[gf], &[2.0 * (eu * x + ev * y) / z]);
        // The rotation: turning by a small angle ω about the axis e_k (q ↦ exp(ω e_k / 2) q)
        // moves R p by ω e_k × R p, so L changes at rate ⟨e_k × R p, ∂L/∂c⟩ = (R p × ∂L/∂c)_k;
        // along the quaternion coordinates that turn is δq = ½ e_k q.
        let by_hand = rp.cross(&dc);
        for k in 0..3 {
            let mut e = Vector3::zeros();
            e[k] = 0.5;
            let dq = Quaternion::from_imag(e) * q.as_ref();
            tight(&[gq.coords.dot(&dq.coords)], &[by_hand[k]]);
        }
        // and the finite differences agree
        close(
            &gq.coords,
            &quaternion_fd(&q, |q| reprojection(q, &t, &p, f, &target)),
        );
        close(&gp, &point_fd(&p, |p| reprojection(&q, &t, p, f, &target)));
    });
}

// ----- f32, gradient types, vector outputs ---------------------------------------------

#[differentiable]
fn single(m: &Matrix3<f32>, v: SVector<f32, 3>) -> f32 {
    let y = m * v;
    y.norm_squared() + v.dot(&y)
}

#[test]
fn f32_values_and_gradients_have_their_own_types() {
    cases(13, |rng| {
        let (m, v) = (mat::<3, 3>(rng), vec3(rng));
        let (m32, v32) = (m.cast::<f32>(), v.cast::<f32>());
        let (gm, gv): (Matrix3<f32>, SVector<f32, 3>) = gradients_function!(single)(&m32, v32);
        let m64 = fd(&m, |m| single(&m.cast(), v32) as f64);
        let v64 = fd(&v, |v| single(&m32, v.cast()) as f64);
        for (a, n) in gm.iter().zip(m64.iter()).chain(gv.iter().zip(v64.iter())) {
            assert!(
                (*a as f64 - n).abs() < 1e-2 * n.abs().max(1.0),
                "{a} vs {n}"
            );
        }
    });
}

#[differentiable]
fn linear_map(m: &Matrix3<f64>, v: &Vector3<f64>) -> Vector3<f64> {
    m * v + m.transpose() * v
}

#[test]
fn the_pullback_of_a_vector_output() {
    cases(15, |rng| {
        let (m, v, u) = (mat::<3, 3>(rng), vec3(rng), vec3(rng));
        let (y, pullback) = vjp!(linear_map)(&m, &v);
        assert_eq!(y, linear_map(&m, &v));
        let (gm, gv) = pullback(u);
        close(&gm, &fd(&m, |m| linear_map(m, &v).dot(&u)));
        close(&gv, &fd(&v, |v| linear_map(&m, v).dot(&u)));
    });
}

// ----- a derived model of nalgebra fields, trained by an optimizer ---------------------

#[derive(Clone, Differentiable)]
struct Pose {
    q: UnitQuaternion<f64>,
    t: Vector3<f64>,
}

/// The squared distance from a point placed by the pose to a target.
#[differentiable]
fn placed(pose: &Pose, p: &Point3<f64>, #[no_grad] target: &Point3<f64>) -> f64 {
    let c = pose.q * p + pose.t;
    (c - target).norm_squared()
}

#[test]
fn a_pose_of_a_quaternion_and_a_translation_gradients_and_adam() {
    cases(16, |rng| {
        let pose = Pose {
            q: unit_quaternion(rng),
            t: vec3(rng),
        };
        let (p, target) = (Point3::from(vec3(rng)), Point3::from(vec3(rng)));
        let g = gradients_function!(placed, params = ["pose"])(&pose, &p, &target);
        let with =
            |q: &UnitQuaternion<f64>, t: &Vector3<f64>| placed(&Pose { q: *q, t: *t }, &p, &target);
        close(&g.q.coords, &quaternion_fd(&pose.q, |q| with(q, &pose.t)));
        close(&g.t, &fd(&pose.t, |t| with(&pose.q, t)));
    });
    // Adam moves the pose (the quaternion renormalised after each step) onto the target
    let mut rng = StdRng::seed_from_u64(17);
    let mut pose = Pose {
        q: unit_quaternion(&mut rng),
        t: vec3(&mut rng),
    };
    let (p, target) = (Point3::from(vec3(&mut rng)), Point3::from(vec3(&mut rng)));
    let mut adam = autodiff::optim::Adam::new(0.05);
    let start = placed(&pose, &p, &target);
    for _ in 0..400 {
        let g = gradients_function!(placed, params = ["pose"])(&pose, &p, &target);
        adam.step(&mut pose, &g);
    }
    let end = placed(&pose, &p, &target);
    assert!(end < 1e-8 * start.max(1.0), "{start} -> {end}");
    assert!((pose.q.as_ref().norm() - 1.0).abs() < 1e-12);
}

// ----- named coordinates ----------------------------------------------------------------

#[differentiable]
fn coordinates(v: &Vector3<f64>, p: &Point3<f64>) -> f64 {
    v.x * p.y + v.z * v.z * p.x - p.z * v.y
}

#[test]
fn named_coordinates_of_vectors_and_points() {
    cases(18, |rng| {
        let (v, p) = (vec3(rng), Point3::from(vec3(rng)));
        let (gv, gp) = gradients_function!(coordinates)(&v, &p);
        close(&gv, &fd(&v, |v| coordinates(v, &p)));
        close(&gp, &point_fd(&p, |p| coordinates(&v, p)));
    });
}

// ----- variables --------------------------------------------------------------------------

#[test]
fn a_variable_holding_a_vector_in_the_implicit_mode() {
    let w = Variable::new(Vector3::new(1.0, 2.0, 3.0));
    let f = differentiable_closure!(|x: &Vector3<f64>| w.dot(x) * w.dot(x));
    cases(19, |rng| {
        let (x, value) = (vec3(rng), vec3(rng));
        w.set(value);
        let grads = implicit_gradients(&f)(&x);
        let g: Vector3<f64> = grads.get(&w).expect("w was read");
        close(&g, &fd(&value, |v| v.dot(&x) * v.dot(&x)));
    });
    // an optimizer applies the pairs to the variable
    w.set(Vector3::new(1.0, 0.0, 0.0));
    let before = w.get();
    let ones = Vector3::new(1.0, 1.0, 1.0);
    let grads = implicit_gradients(&f)(&ones);
    let g: Vector3<f64> = grads.get(&w).expect("w was read");
    autodiff::optim::Sgd::new(0.1).apply_gradients(&grads);
    close(&w.get(), &(before - g * 0.1));
}

// ----- forward mode ---------------------------------------------------------------------

/// `⟨g, v⟩` of a gradient and a tangent of the same shape.
fn inner<R: Dim, C: Dim>(g: &OMatrix<f64, R, C>, v: &OMatrix<f64, R, C>) -> f64
where
    DefaultAllocator: Allocator<R, C>,
{
    g.dot(v)
}

/// `jvp!` of matrix and vector parameters (their tangents have their types): against
/// ⟨∇f, v⟩ from the reverse gradient, on the functions above.
#[test]
fn forward_mode_of_matrices_and_vectors() {
    let along = |tangent: f64, expected: f64| {
        assert!(
            (tangent - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "{tangent} vs {expected}"
        );
    };
    cases(21, |rng| {
        let (a, b, w, u) = (vec3(rng), vec3(rng), vec3(rng), vec3(rng));
        let (ta, tb) = (vec3(rng), vec3(rng));
        let (ga, gb) = gradients_function!(sum_and_difference, params = ["a", "b"])(&a, &b, &w, &u);
        let (value, t) = jvp!(sum_and_difference)(&a, &b, &w, &u, &ta, &tb);
        assert_eq!(
            value.to_bits(),
            sum_and_difference(&a, &b, &w, &u).to_bits()
        );
        along(t, inner(&ga, &ta) + inner(&gb, &tb));

        let (m, n) = (dmat(rng, 2, 3), dmat(rng, 2, 3));
        let (tm, tn) = (dmat(rng, 2, 3), dmat(rng, 2, 3));
        let (ga, gb, gm, gn) = gradients_function!(dots)(&a, &b, &m, &n);
        let (_, t) = jvp!(dots)(&a, &b, &m, &n, &ta, &tb, &tm, &tn);
        along(
            t,
            inner(&ga, &ta) + inner(&gb, &tb) + inner(&gm, &tm) + inner(&gn, &tn),
        );

        let (ga, gb) = gradients_function!(crossed)(&a, &b, &w);
        let (_, t) = jvp!(crossed)(&a, &b, &w, &ta, &tb);
        along(t, inner(&ga, &ta) + inner(&gb, &tb));

        let (m3, tm3) = (mat::<3, 3>(rng), mat::<3, 3>(rng));
        let (gm, gv) = gradients_function!(matrix_vector)(&m3, &a, &w);
        let (_, t) = jvp!(matrix_vector)(&m3, &a, &w, &tm3, &ta);
        along(t, inner(&gm, &tm3) + inner(&gv, &ta));

        let (dm, dv, dw) = (dmat(rng, 3, 4), dvec(rng, 4), dvec(rng, 3));
        let (tdm, tdv) = (dmat(rng, 3, 4), dvec(rng, 4));
        let (gm, gv) = gradients_function!(dynamic_product)(&dm, &dv, &dw);
        let (_, t) = jvp!(dynamic_product)(&dm, &dv, &dw, &tdm, &tdv);
        along(t, inner(&gm, &tdm) + inner(&gv, &tdv));

        let mut v = vec3(rng);
        if v.norm() < 0.5 {
            v += Vector3::new(1.0, 1.0, 1.0);
        }
        let d = dvec(rng, 4) + DVector::from_element(4, 2.5);
        let td = dvec(rng, 4);
        let (gv, gd) = gradients_function!(norms)(&v, &d, &w);
        let (_, t) = jvp!(norms)(&v, &d, &w, &ta, &td);
        along(t, inner(&gv, &ta) + inner(&gd, &td));

        let (s, dd) = (0.7, 1.9);
        let (gs, gv, gd) = gradients_function!(scaled)(s, &a, dd, &w);
        let (_, t) = jvp!(scaled)(s, &a, dd, &w, 0.3, &ta, -0.4);
        along(t, gs * 0.3 + inner(&gv, &ta) - 0.4 * gd);
    });
}
