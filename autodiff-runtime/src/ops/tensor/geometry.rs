//! Geometry: `norm`, `norm_squared`, `normalize`, `transpose`, `cross`, and the rules of
//! the matrix product and of a rotation by a unit quaternion (what `*` means between
//! nalgebra's matrices and quaternions, see [`Tensor::PRODUCT`]).
//!
//! The norms work on every [`Tensor`] (an ndarray array's Euclidean norm, all elements);
//! `transpose` and `cross` on the types that have them (nalgebra's, with the `nalgebra`
//! feature).

use super::{CotangentArg, Tensor, Val};
use crate::real::Real;
use crate::sealed::Sealed;
use ndarray::{Array, ArrayD, ArrayView, Ix1, Ix2, IxDyn};
use num_traits::{Float, Zero};

fn squares<A: Tensor + ?Sized>(a: &A) -> A::Elem {
    a.view_tensor()
        .iter()
        .fold(A::Elem::zero(), |s, &v| s + v * v)
}

fn scalar<G: CotangentArg>(dy: G) -> G::Elem {
    match dy.cot_scalar() {
        Some(g) => g,
        None => *dy
            .cot_view()
            .iter()
            .next()
            .expect("autodiff: a scalar gradient"),
    }
}

/// `x.norm()`: the Euclidean norm of all the elements.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// assert_eq!(tensor::norm(&ndarray::array![3.0_f64, 4.0]), 5.0);
/// ```
#[inline]
pub fn norm<A: Tensor + ?Sized>(a: &A) -> A::Elem {
    squares(a).sqrt()
}

/// `y = x.norm()`: the gradient of `x`, `dy · x / y`; at `x = 0` zero (as `hypot(0, 0)`).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let x = array![3.0_f64, 4.0];
/// assert_eq!(tensor::norm_d0(&x, &5.0, &10.0), array![6.0, 8.0]);
/// ```
#[inline]
pub fn norm_d0<A, G>(a: &A, y: &A::Elem, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    let g = scalar(dy);
    let s = if *y == A::Elem::zero() || g.is_strong_zero() {
        A::Elem::zero()
    } else {
        g / *y
    };
    a.cot_from(a.view_tensor().mapv(|v| v * s))
}

/// `x.norm_squared()`: the sum of the squares of the elements.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// assert_eq!(tensor::norm_squared(&ndarray::array![3.0_f64, 4.0]), 25.0);
/// ```
#[inline]
pub fn norm_squared<A: Tensor + ?Sized>(a: &A) -> A::Elem {
    squares(a)
}

/// `y = x.norm_squared()`: the gradient of `x`, `2 · dy · x`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::norm_squared_d0(&array![3.0_f64, 4.0], &0.5), array![3.0, 4.0]);
/// ```
#[inline]
pub fn norm_squared_d0<A, G>(a: &A, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    let g = scalar(dy);
    let s = g + g;
    a.cot_from(a.view_tensor().mapv(|v| v * s))
}

/// `x.normalize()`: `x / x.norm()`, a value of the type of `x`'s gradient (an owned vector).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::normalize(&array![3.0_f64, 4.0]), array![0.6, 0.8]);
/// ```
#[inline]
pub fn normalize<A: Tensor + ?Sized>(a: &A) -> A::Cotangent {
    let n = norm(a);
    a.cot_from(a.view_tensor().mapv(|v| v / n))
}

/// `y = x.normalize()`: the gradient of `x`, `(dy − y (y·dy)) / ‖x‖` (the part of `dy`
/// across `y`, scaled); at `x = 0` zero.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let x = array![2.0_f64, 0.0];
/// let y = tensor::normalize(&x);
/// // moving along `y` does not change the direction; across it, at rate 1/‖x‖
/// assert_eq!(tensor::normalize_d0(&x, &y, &array![1.0, 0.0]), array![0.0, 0.0]);
/// assert_eq!(tensor::normalize_d0(&x, &y, &array![0.0, 1.0]), array![0.0, 0.5]);
/// ```
#[inline]
pub fn normalize_d0<A, Y, G>(a: &A, y: &Y, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    Y: Tensor<Elem = A::Elem> + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    let n = norm(a);
    let (yv, g) = (y.view_tensor(), dy.cot_view());
    let along = yv
        .iter()
        .zip(g.iter())
        .fold(A::Elem::zero(), |s, (&y, &g)| s + y * g);
    let d: Vec<A::Elem> = if n == A::Elem::zero() {
        vec![A::Elem::zero(); yv.len()]
    } else {
        yv.iter()
            .zip(g.iter())
            .map(|(&y, &g)| (g - y * along) / n)
            .collect()
    };
    let shape = a.view_tensor().raw_dim();
    // `y` and `dy` iterate in the logical order of `x`'s shape
    a.cot_from(Array::from_shape_vec(shape, d).expect("autodiff: `normalize` keeps the shape"))
}

/// `⟨a, b⟩` over all the elements, in the logical order of their shapes.
fn inner<A, B>(a: &A, b: &B) -> A::Elem
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
{
    let (a, b) = (a.view_tensor(), b.view_tensor());
    a.iter()
        .zip(b.iter())
        .fold(A::Elem::zero(), |s, (&x, &t)| s + x * t)
}

/// `y = x.norm()`: the tangent of `y` along `t`, `⟨x, t⟩ / y`; at `x = 0` zero (as the
/// gradient is).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::norm_t(&array![3.0_f64, 4.0], &5.0, &array![1.0, 0.5]), 1.0);
/// ```
#[inline]
pub fn norm_t<A, T>(a: &A, y: &A::Elem, t: &T) -> A::Elem
where
    A: Tensor + ?Sized,
    T: Tensor<Elem = A::Elem> + ?Sized,
{
    if *y == A::Elem::zero() {
        return A::Elem::zero();
    }
    inner(a, t) / *y
}

/// `y = x.norm_squared()`: the tangent of `y` along `t`, `2 ⟨x, t⟩`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::norm_squared_t(&array![3.0_f64, 4.0], &array![1.0, 0.5]), 10.0);
/// ```
#[inline]
pub fn norm_squared_t<A, T>(a: &A, t: &T) -> A::Elem
where
    A: Tensor + ?Sized,
    T: Tensor<Elem = A::Elem> + ?Sized,
{
    let s = inner(a, t);
    s + s
}

/// A value with a transpose of its own type (nalgebra's matrices: `SMatrix<T, R, C>`
/// becomes `SMatrix<T, C, R>`). The trait is sealed.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use autodiff_runtime::ops::tensor::Transpose;
/// let m = nalgebra::Matrix2x3::new(1.0_f64, 2.0, 3.0, 4.0, 5.0, 6.0);
/// let t: nalgebra::Matrix3x2<f64> = Transpose::transpose(&m);
/// assert_eq!(t, m.transpose());
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no differentiable `transpose`",
    note = "`transpose` is differentiated for nalgebra's matrices (the `nalgebra` feature); \
        an ndarray array's transpose is `t()`"
)]
pub trait Transpose: Sealed {
    /// The transpose's type.
    type Output;
    /// `self.transpose()`.
    fn transpose(&self) -> Self::Output;
}

/// `x.transpose()`.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use nalgebra::Matrix2x3;
/// let m = Matrix2x3::new(1.0_f64, 2.0, 3.0, 4.0, 5.0, 6.0);
/// assert_eq!(autodiff_runtime::ops::tensor::transpose(&m), m.transpose());
/// # }
/// ```
#[inline]
pub fn transpose<A>(a: &A) -> <A::V as Transpose>::Output
where
    A: Val + ?Sized,
    A::V: Transpose,
{
    a.val().transpose()
}

/// `y = x.transpose()`: the gradient of `x`, `dy` transposed back.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use nalgebra::{Matrix2x3, Matrix3x2};
/// let m = Matrix2x3::<f64>::zeros();
/// let dy = Matrix3x2::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
/// assert_eq!(autodiff_runtime::ops::tensor::transpose_d0(&m, &dy), dy.transpose());
/// # }
/// ```
#[inline]
pub fn transpose_d0<A, G>(a: &A, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    let _ = a;
    A::cot_from_dyn(dy.cot_view().reversed_axes().to_owned())
}

/// Three-element vectors with a cross product (nalgebra's `Vector3`). The trait is sealed.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use autodiff_runtime::ops::tensor::Cross;
/// let (a, b) = (nalgebra::Vector3::new(0.0_f64, 1.0, 0.0), nalgebra::Vector3::new(0.0, 0.0, 1.0));
/// assert_eq!(Cross::cross(&a, &b), nalgebra::Vector3::new(1.0, 0.0, 0.0));
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no differentiable `cross` with `{Rhs}`",
    note = "`cross` is differentiated for nalgebra's 3-vectors (the `nalgebra` feature)"
)]
pub trait Cross<Rhs: ?Sized>: Sealed {
    /// The product's type.
    type Output;
    /// `self.cross(rhs)`.
    fn cross(&self, rhs: &Rhs) -> Self::Output;
}

/// `a.cross(&b)`.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use nalgebra::Vector3;
/// let (a, b) = (Vector3::new(1.0_f64, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0));
/// assert_eq!(autodiff_runtime::ops::tensor::cross(&a, &b), Vector3::new(0.0, 0.0, 1.0));
/// # }
/// ```
#[inline]
pub fn cross<A, B>(a: &A, b: &B) -> <A::V as Cross<B::V>>::Output
where
    A: Val + ?Sized,
    B: Val + ?Sized,
    A::V: Cross<B::V>,
{
    a.val().cross(b.val())
}

fn cross3<F: Real>(a: &[F; 3], b: &[F; 3]) -> [F; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn three<F: Real>(v: ArrayView<'_, F, IxDyn>, what: &str) -> [F; 3] {
    assert_eq!(
        v.len(),
        3,
        "autodiff: {what} of `cross` has {} elements",
        v.len()
    );
    let mut out = [F::zero(); 3];
    for (o, &x) in out.iter_mut().zip(v.iter()) {
        *o = x;
    }
    out
}

/// `y = a.cross(&b)`: the gradient of `a`, `b × dy`.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use nalgebra::Vector3;
/// let (a, b) = (Vector3::new(1.0_f64, 2.0, 3.0), Vector3::new(0.0, 1.0, 0.0));
/// let dy = Vector3::new(0.0, 0.0, 1.0);
/// assert_eq!(autodiff_runtime::ops::tensor::cross_d0(&a, &b, &dy), b.cross(&dy));
/// # }
/// ```
#[inline]
pub fn cross_d0<A, B, G>(a: &A, b: &B, dy: G) -> A::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    let b = three(b.view_tensor().into_dyn(), "the right operand");
    let g = three(dy.cot_view(), "the gradient");
    let d = cross3(&b, &g);
    let shape = a.view_tensor().raw_dim();
    a.cot_from(Array::from_shape_vec(shape, d.to_vec()).expect("autodiff: three elements"))
}

/// `y = a.cross(&b)`: the gradient of `b`, `dy × a`.
///
/// ```
/// # #[cfg(feature = "nalgebra")] {
/// use nalgebra::Vector3;
/// let (a, b) = (Vector3::new(1.0_f64, 2.0, 3.0), Vector3::new(0.0, 1.0, 0.0));
/// let dy = Vector3::new(0.0, 0.0, 1.0);
/// assert_eq!(autodiff_runtime::ops::tensor::cross_d1(&a, &b, &dy), dy.cross(&a));
/// # }
/// ```
#[inline]
pub fn cross_d1<A, B, G>(a: &A, b: &B, dy: G) -> B::Cotangent
where
    A: Tensor + ?Sized,
    B: Tensor<Elem = A::Elem> + ?Sized,
    G: CotangentArg<Elem = A::Elem>,
{
    let a = three(a.view_tensor().into_dyn(), "the left operand");
    let g = three(dy.cot_view(), "the gradient");
    let d = cross3(&g, &a);
    let shape = b.view_tensor().raw_dim();
    b.cot_from(Array::from_shape_vec(shape, d.to_vec()).expect("autodiff: three elements"))
}

fn matrix<'a, F>(v: ArrayView<'a, F, IxDyn>, what: &str) -> ArrayView<'a, F, Ix2> {
    let ndim = v.ndim();
    v.into_dimensionality::<Ix2>()
        .unwrap_or_else(|_| panic!("autodiff: {what} of a matrix product has {ndim} axes"))
}

/// `y = a * b` of matrices: the gradient of `a`, `dy · bᵀ`.
pub(super) fn matmul_d0<F: Real>(
    b: ArrayView<'_, F, IxDyn>,
    dy: ArrayView<'_, F, IxDyn>,
) -> ArrayD<F> {
    let (b, dy) = (matrix(b, "the right operand"), matrix(dy, "the gradient"));
    dy.dot(&b.t()).into_dyn()
}

/// `y = a * b` of matrices: the gradient of `b`, `aᵀ · dy`.
pub(super) fn matmul_d1<F: Real>(
    a: ArrayView<'_, F, IxDyn>,
    dy: ArrayView<'_, F, IxDyn>,
) -> ArrayD<F> {
    let (a, dy) = (matrix(a, "the left operand"), matrix(dy, "the gradient"));
    a.t().dot(&dy).into_dyn()
}

/// A unit quaternion's vector part and scalar part (nalgebra's order `[i, j, k, w]`),
/// normalised, and its norm.
fn unit_parts<F: Real>(q: ArrayView<'_, F, IxDyn>) -> ([F; 3], F, F) {
    let q = q
        .into_dimensionality::<Ix1>()
        .expect("autodiff: a quaternion's four coordinates");
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    ([q[0] / n, q[1] / n, q[2] / n], q[3] / n, n)
}

/// `u, w` rotating `x`: `x + w t + u × t` with `t = 2 u × x` (nalgebra's formula).
fn rotate<F: Real>(u: &[F; 3], w: F, x: &[F; 3]) -> [F; 3] {
    let c = cross3(u, x);
    let t = [c[0] + c[0], c[1] + c[1], c[2] + c[2]];
    let ut = cross3(u, &t);
    [
        x[0] + w * t[0] + ut[0],
        x[1] + w * t[1] + ut[1],
        x[2] + w * t[2] + ut[2],
    ]
}

fn dot3<F: Real>(a: &[F; 3], b: &[F; 3]) -> F {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `y = q * v` (a unit quaternion rotating a vector or point): the gradient of `q`'s four
/// coordinates. The rotation is that of `q / ‖q‖`, so the gradient is tangent to the unit
/// sphere (a step along it changes the rotation, not the quaternion's norm):
/// `(I − q̂ q̂ᵀ) g / ‖q‖`, with `g` the gradient of `v + 2w (u × v) + 2u × (u × v)` in
/// `u` (`2w (v × dy) + 2(dy (u·v) + v (u·dy) − 2u (v·dy))`) and `w` (`2 dy·(u × v)`).
pub(super) fn rotate_d0<F: Real>(
    q: ArrayView<'_, F, IxDyn>,
    v: ArrayView<'_, F, IxDyn>,
    dy: ArrayView<'_, F, IxDyn>,
) -> ArrayD<F> {
    let (u, w, n) = unit_parts(q);
    let v = three(v, "the rotated vector");
    let g = three(dy, "the gradient");
    let two = F::one() + F::one();
    let vg = cross3(&v, &g);
    let (uv, ug, vdg) = (dot3(&u, &v), dot3(&u, &g), dot3(&v, &g));
    let mut d = [F::zero(); 4];
    for k in 0..3 {
        d[k] = two * w * vg[k] + two * (g[k] * uv + v[k] * ug - two * u[k] * vdg);
    }
    d[3] = two * dot3(&g, &cross3(&u, &v));
    let qhat = [u[0], u[1], u[2], w];
    let radial = (0..4).fold(F::zero(), |s, k| s + qhat[k] * d[k]);
    let out: Vec<F> = (0..4).map(|k| (d[k] - qhat[k] * radial) / n).collect();
    Array::from_vec(out).into_dyn()
}

/// `y = q * v`: the gradient of `v`, `dy` rotated back (`q⁻¹ * dy`).
pub(super) fn rotate_d1<F: Real>(
    q: ArrayView<'_, F, IxDyn>,
    dy: ArrayView<'_, F, IxDyn>,
) -> ArrayD<F> {
    let (u, w, _) = unit_parts(q);
    let shape = dy.raw_dim();
    let g = three(dy, "the gradient");
    let back = rotate(&[-u[0], -u[1], -u[2]], w, &g);
    Array::from_shape_vec(shape, back.to_vec())
        .expect("autodiff: three elements")
        .into_dyn()
}
