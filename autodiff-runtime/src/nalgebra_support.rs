//! nalgebra's vectors, matrices, points and unit quaternions as differentiable values (the
//! `nalgebra` feature).
//!
//! Nothing here is a rule of its own: the types implement the traits the rules of
//! [`ops::tensor`](crate::ops::tensor) are written against, so the generated code calls
//! the same rules for them as for ndarray's arrays.
//!
//! - [`Differentiable`]: a matrix or vector (`SVector`, `SMatrix`, `DVector`, `DMatrix`, any
//!   contiguous storage) has the owned matrix of its shape as its tangent; a `Point` has
//!   the vector of its coordinates (a displacement, as `p - q` is in nalgebra); a
//!   `UnitQuaternion` has a `Quaternion` (the gradient of its four coordinates, tangent to
//!   the unit sphere).
//! - [`Tensor`]: each is read as an ndarray view of its elements (a matrix `r × c`, a point
//!   `d × 1`, a quaternion its four coordinates `[i, j, k, w]`), so the elementwise rules,
//!   `dot`, the norms and indexing work unchanged; [`Tensor::PRODUCT`] makes `*` the matrix
//!   product between matrices and a rotation for a quaternion, as nalgebra's `*` is.
//! - [`Binary`], [`Transpose`], [`Cross`]: the forward operations, with nalgebra's result
//!   types (`SMatrix<T, R, K>` for `SMatrix<T, R, C> * SMatrix<T, C, K>`, a `Point` for a
//!   matrix times a point).
//!
//! ```
//! use autodiff_runtime::ops::tensor;
//! use nalgebra::{Matrix2, Vector2};
//! let m = Matrix2::new(1.0_f64, 2.0, 3.0, 4.0);
//! let v = Vector2::new(1.0_f64, -1.0);
//! let y = tensor::mul(&m, &v); // the matrix product, as `m * v`
//! assert_eq!(y, m * v);
//! // the gradient of `v` for the cotangent `dy` is `mᵀ dy`, of `m` it is `dy vᵀ`
//! let dy = Vector2::new(1.0, 0.0);
//! assert_eq!(tensor::mul_d1(&m, &v, &dy), m.transpose() * dy);
//! assert_eq!(tensor::mul_d0(&m, &v, &dy), dy * v.transpose());
//! ```

use crate::implicit::{Parameter, TangentValue};
use crate::ops::tensor::{sum_to, Binary, CotangentArg, Cross, DotDims, Product, Tensor};
use crate::ops::tensor::{Transpose, Val};
use crate::real::Real;
use crate::sealed::Sealed;
use crate::tangent::{Accumulate, Differentiable, NoTangent, Reset};
use nalgebra::allocator::Allocator;
use nalgebra::storage::{IsContiguous, RawStorage, RawStorageMut};
use nalgebra::{
    Const, DefaultAllocator, Dim, DimName, Matrix, OMatrix, OPoint, OVector, Point, Quaternion,
    SVector, Scalar, UnitQuaternion, Vector3, Vector4, U1, U3,
};
use ndarray::{Array, ArrayD, ArrayView, Axis, CowArray, Ix2, IxDyn, ShapeBuilder};

impl<T, R, C, S> Sealed for Matrix<T, R, C, S> {}
impl<T: Scalar, D: DimName> Sealed for OPoint<T, D> where DefaultAllocator: Allocator<D> {}
impl<T: Scalar> Sealed for UnitQuaternion<T> {}
impl Sealed for IxDyn {}

/// A panic for an operator nalgebra does not define between these operands: the user's own
/// code (the primal) would not have compiled, so generated code never reaches it.
#[cold]
fn undefined(op: &str, a: &str, b: &str) -> ! {
    panic!("autodiff: `{op}` between a {a} and a {b} is not an operation of nalgebra")
}

/// The elements of a column-major slice as an `r × c` view.
fn column_major<T>(r: usize, c: usize, data: &[T]) -> ArrayView<'_, T, IxDyn> {
    ArrayView::from_shape(IxDyn(&[r, c]).f(), data).expect("autodiff: a contiguous matrix")
}

/// A matrix of nalgebra's shape `(r, c)` from an array (`r × c`, `r` elements for a vector,
/// or one element), read in place.
fn from_array<T: Real + Scalar, R: Dim, C: Dim>(g: ArrayView<'_, T, IxDyn>) -> OMatrix<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let g = match g.ndim() {
        2 => g.into_dimensionality::<Ix2>().expect("two axes"),
        1 => g
            .insert_axis(Axis(1))
            .into_dimensionality::<Ix2>()
            .expect("two axes"),
        0 => g
            .insert_axis(Axis(0))
            .insert_axis(Axis(1))
            .into_dimensionality::<Ix2>()
            .expect("two axes"),
        _ => panic!("autodiff: a gradient of shape {:?} for a matrix", g.shape()),
    };
    let (r, c) = g.dim();
    OMatrix::from_fn_generic(R::from_usize(r), C::from_usize(c), |i, j| g[[i, j]])
}

/// `g` reduced to an `r × c` matrix (summed over the axes a value was broadcast along; as it
/// is when it has that shape already).
fn reduced<T: Real + Scalar, R: Dim, C: Dim>(
    g: CowArray<'_, T, IxDyn>,
    r: usize,
    c: usize,
) -> OMatrix<T, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    if g.shape() == [r, c] {
        return from_array(g.view());
    }
    from_array(sum_to(g.into_owned(), IxDyn(&[r, c])).view())
}

// ----- tangents -------------------------------------------------------------------------

/// A matrix's or vector's tangent is the owned matrix of its shape (`SVector<f64, 3>` for
/// `SVector<f64, 3>` and `&SVector<f64, 3>`, `DMatrix<f64>` for a `DMatrix<f64>`).
///
/// ```
/// use autodiff_runtime::Differentiable;
/// let v = nalgebra::Vector3::new(1.0_f64, 2.0, 3.0);
/// assert_eq!(v.zero_tangent(), nalgebra::Vector3::zeros());
/// ```
impl<T, R, C, S> Differentiable for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
    type Tangent = OMatrix<T, R, C>;
    fn zero_tangent(&self) -> OMatrix<T, R, C> {
        let (r, c) = self.shape_generic();
        OMatrix::from_element_generic(r, c, T::zero())
    }
}

/// A point's tangent is a vector of its dimension (a displacement: `p - q` is a vector).
///
/// ```
/// use autodiff_runtime::Differentiable;
/// let p = nalgebra::Point2::new(1.0_f64, 2.0);
/// assert_eq!(p.zero_tangent(), nalgebra::Vector2::zeros());
/// ```
impl<T: Real + Scalar, D: DimName> Differentiable for OPoint<T, D>
where
    DefaultAllocator: Allocator<D>,
{
    type Tangent = OVector<T, D>;
    fn zero_tangent(&self) -> OVector<T, D> {
        OVector::from_element_generic(D::name(), U1, T::zero())
    }
}

/// A unit quaternion's tangent is a `Quaternion`: the gradient of its four coordinates,
/// with no component along the quaternion itself (a step along it would change only the
/// norm, which the rotation ignores).
///
/// ```
/// use autodiff_runtime::Differentiable;
/// let q = nalgebra::UnitQuaternion::<f64>::identity();
/// assert_eq!(q.zero_tangent(), nalgebra::Quaternion::new(0.0, 0.0, 0.0, 0.0));
/// ```
impl<T: Real + Scalar> Differentiable for UnitQuaternion<T> {
    type Tangent = Quaternion<T>;
    fn zero_tangent(&self) -> Quaternion<T> {
        Quaternion::from_vector(Vector4::from_element(T::zero()))
    }
}

/// Adds elementwise; the shapes must agree.
///
/// ```
/// use autodiff_runtime::Accumulate;
/// let mut g = nalgebra::Vector2::new(1.0_f64, 2.0);
/// g.accumulate(nalgebra::Vector2::new(0.5, 0.5));
/// assert_eq!(g, nalgebra::Vector2::new(1.5, 2.5));
/// ```
impl<T, R, C, S> Accumulate for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorageMut<T, R, C>,
{
    fn accumulate(&mut self, contribution: Self) {
        assert_eq!(
            self.shape(),
            contribution.shape(),
            "autodiff: accumulating a gradient of shape {:?} into one of shape {:?}",
            contribution.shape(),
            self.shape()
        );
        for (a, b) in self.iter_mut().zip(contribution.iter()) {
            *a = *a + *b;
        }
    }
}

/// Adds the four coordinates.
///
/// ```
/// use autodiff_runtime::Accumulate;
/// let mut g = nalgebra::Quaternion::new(1.0_f64, 0.0, 0.0, 0.0);
/// g.accumulate(nalgebra::Quaternion::new(1.0, 2.0, 0.0, 0.0));
/// assert_eq!(g, nalgebra::Quaternion::new(2.0, 2.0, 0.0, 0.0));
/// ```
impl<T: Real + Scalar> Accumulate for Quaternion<T> {
    fn accumulate(&mut self, contribution: Self) {
        for (a, b) in self.coords.iter_mut().zip(contribution.coords.iter()) {
            *a = *a + *b;
        }
    }
}

/// A gradient reaching a `#[no_grad]` field is dropped.
impl<T, R, C, S> Accumulate<Matrix<T, R, C, S>> for NoTangent {
    #[inline(always)]
    fn accumulate(&mut self, _: Matrix<T, R, C, S>) {}
}

/// Zeros in place, keeping the shape.
///
/// ```
/// use autodiff_runtime::Reset;
/// let mut g = nalgebra::Vector2::new(1.0_f64, 2.0);
/// assert_eq!(g.take_reset(), nalgebra::Vector2::new(1.0, 2.0));
/// assert_eq!(g, nalgebra::Vector2::zeros());
/// ```
impl<T, R, C, S> Reset for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorageMut<T, R, C> + Clone,
{
    fn reset(&mut self) {
        self.iter_mut().for_each(|v| *v = T::zero());
    }
    fn take_reset(&mut self) -> Self {
        let out = self.clone();
        self.reset();
        out
    }
}

/// Zeros in place.
///
/// ```
/// use autodiff_runtime::Reset;
/// let mut g = nalgebra::Quaternion::new(1.0_f64, 2.0, 3.0, 4.0);
/// g.reset();
/// assert_eq!(g, nalgebra::Quaternion::new(0.0, 0.0, 0.0, 0.0));
/// ```
impl<T: Real + Scalar> Reset for Quaternion<T> {
    fn reset(&mut self) {
        self.coords.iter_mut().for_each(|v| *v = T::zero());
    }
    fn take_reset(&mut self) -> Self {
        let out = *self;
        self.reset();
        out
    }
}

// ----- values the rules read ----------------------------------------------------------

impl<T, R, C, S> Tensor for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C> + IsContiguous,
    DefaultAllocator: Allocator<R, C>,
{
    type Elem = T;
    type Dim = IxDyn;
    type Cotangent = OMatrix<T, R, C>;
    const PRODUCT: Product = Product::Matrix;
    fn view_tensor(&self) -> ArrayView<'_, T, IxDyn> {
        column_major(self.nrows(), self.ncols(), self.as_slice())
    }
    fn as_scalar(&self) -> Option<T> {
        None
    }
    fn reduce(&self, g: CowArray<'_, T, IxDyn>) -> OMatrix<T, R, C> {
        reduced(g, self.nrows(), self.ncols())
    }
    fn cot_from_dyn(g: ArrayD<T>) -> OMatrix<T, R, C> {
        from_array(g.view())
    }
    fn reduce_scalar(&self, g: T) -> OMatrix<T, R, C> {
        let (r, c) = self.shape_generic();
        OMatrix::from_element_generic(r, c, g)
    }
    fn cot_from(&self, g: ArrayD<T>) -> OMatrix<T, R, C> {
        from_array(g.view())
    }
}

impl<T: Real + Scalar, D: DimName> Tensor for OPoint<T, D>
where
    DefaultAllocator: Allocator<D>,
{
    type Elem = T;
    type Dim = IxDyn;
    type Cotangent = OVector<T, D>;
    const PRODUCT: Product = Product::Matrix;
    fn view_tensor(&self) -> ArrayView<'_, T, IxDyn> {
        column_major(D::DIM, 1, self.coords.as_slice())
    }
    fn as_scalar(&self) -> Option<T> {
        None
    }
    fn reduce(&self, g: CowArray<'_, T, IxDyn>) -> OVector<T, D> {
        reduced(g, D::DIM, 1)
    }
    fn cot_from_dyn(g: ArrayD<T>) -> OVector<T, D> {
        from_array(g.view())
    }
    fn reduce_scalar(&self, g: T) -> OVector<T, D> {
        OVector::from_element_generic(D::name(), U1, g)
    }
    fn cot_from(&self, g: ArrayD<T>) -> OVector<T, D> {
        from_array(g.view())
    }
}

impl<T: Real + Scalar> Tensor for UnitQuaternion<T> {
    type Elem = T;
    type Dim = IxDyn;
    type Cotangent = Quaternion<T>;
    const PRODUCT: Product = Product::Rotation;
    fn view_tensor(&self) -> ArrayView<'_, T, IxDyn> {
        ArrayView::from_shape(IxDyn(&[4]), self.as_ref().coords.as_slice())
            .expect("autodiff: four coordinates")
    }
    fn as_scalar(&self) -> Option<T> {
        None
    }
    fn reduce(&self, g: CowArray<'_, T, IxDyn>) -> Quaternion<T> {
        Self::cot_from_dyn(sum_to(g.into_owned(), IxDyn(&[4])))
    }
    fn cot_from_dyn(g: ArrayD<T>) -> Quaternion<T> {
        assert_eq!(
            g.len(),
            4,
            "autodiff: a quaternion's gradient has four coordinates"
        );
        let c: Vec<T> = g.iter().copied().collect();
        Quaternion::from_vector(Vector4::new(c[0], c[1], c[2], c[3]))
    }
    fn reduce_scalar(&self, g: T) -> Quaternion<T> {
        Quaternion::from_vector(Vector4::from_element(g))
    }
    fn cot_from(&self, g: ArrayD<T>) -> Quaternion<T> {
        Self::cot_from_dyn(g)
    }
}

/// A cotangent handed over for its last use (`dy` by value).
impl<T, R, C, S> CotangentArg for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C> + IsContiguous,
    DefaultAllocator: Allocator<R, C>,
{
    type Elem = T;
    type Cotangent = OMatrix<T, R, C>;
    fn cot_scalar(&self) -> Option<T> {
        None
    }
    fn cot_view(&self) -> ArrayView<'_, T, IxDyn> {
        self.view_tensor()
    }
    fn into_array(self) -> ArrayD<T> {
        self.view_tensor().to_owned()
    }
    fn into_cow<'a>(self) -> CowArray<'a, T, IxDyn>
    where
        Self: 'a,
    {
        CowArray::from(self.view_tensor().to_owned())
    }
    fn cot_of(g: ArrayD<T>) -> OMatrix<T, R, C> {
        from_array(g.view())
    }
}

impl<T, R, C, S> Val for Matrix<T, R, C, S> {
    type V = Self;
    #[inline(always)]
    fn val(&self) -> &Self {
        self
    }
}

impl<T: Scalar, D: DimName> Val for OPoint<T, D>
where
    DefaultAllocator: Allocator<D>,
{
    type V = Self;
    #[inline(always)]
    fn val(&self) -> &Self {
        self
    }
}

impl<T: Scalar> Val for UnitQuaternion<T> {
    type V = Self;
    #[inline(always)]
    fn val(&self) -> &Self {
        self
    }
}

/// `a.dot(&b)` of two nalgebra matrices or vectors: the sum of the products of their
/// elements, a scalar (nalgebra's `dot`). ndarray's arrays of dynamic dimension have no
/// `dot`, so nothing else reaches this.
impl DotDims<IxDyn> for IxDyn {
    type Out<F: Real> = F;
    fn dot<F: Real>(a: ArrayView<'_, F, IxDyn>, b: ArrayView<'_, F, IxDyn>) -> F {
        assert_eq!(
            a.shape(),
            b.shape(),
            "autodiff: `dot` of matrices of different shapes"
        );
        a.iter()
            .zip(b.iter())
            .fold(F::zero(), |s, (&a, &b)| s + a * b)
    }
    fn d0<F: Real>(
        _a: ArrayView<'_, F, IxDyn>,
        b: ArrayView<'_, F, IxDyn>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, IxDyn> {
        let g = *dy.iter().next().expect("autodiff: a scalar gradient");
        b.mapv(|b| b * g)
    }
    fn d1<F: Real>(
        a: ArrayView<'_, F, IxDyn>,
        _b: ArrayView<'_, F, IxDyn>,
        dy: ArrayView<'_, F, IxDyn>,
    ) -> Array<F, IxDyn> {
        let g = *dy.iter().next().expect("autodiff: a scalar gradient");
        a.mapv(|a| a * g)
    }
}

// ----- forward operations -------------------------------------------------------------

/// `a ∘ b` elementwise, of the same shape.
fn zip<T, R1, C1, S1, R2, C2, S2>(
    op: &str,
    a: &Matrix<T, R1, C1, S1>,
    b: &Matrix<T, R2, C2, S2>,
    f: impl Fn(T, T) -> T,
) -> OMatrix<T, R1, C2>
where
    T: Real + Scalar,
    R1: Dim,
    C1: Dim,
    R2: Dim,
    C2: Dim,
    S1: RawStorage<T, R1, C1>,
    S2: RawStorage<T, R2, C2>,
    DefaultAllocator: Allocator<R1, C2>,
{
    assert_eq!(
        a.shape(),
        b.shape(),
        "autodiff: `{op}` of matrices of shapes {:?} and {:?}",
        a.shape(),
        b.shape()
    );
    OMatrix::from_fn_generic(a.shape_generic().0, b.shape_generic().1, |i, j| {
        f(a[(i, j)], b[(i, j)])
    })
}

/// The matrix product `a b`.
fn product<T, R1, C1, S1, R2, C2, S2>(
    a: &Matrix<T, R1, C1, S1>,
    b: &Matrix<T, R2, C2, S2>,
) -> OMatrix<T, R1, C2>
where
    T: Real + Scalar,
    R1: Dim,
    C1: Dim,
    R2: Dim,
    C2: Dim,
    S1: RawStorage<T, R1, C1>,
    S2: RawStorage<T, R2, C2>,
    DefaultAllocator: Allocator<R1, C2>,
{
    assert_eq!(
        a.ncols(),
        b.nrows(),
        "autodiff: a product of matrices of shapes {:?} and {:?}",
        a.shape(),
        b.shape()
    );
    let k = a.ncols();
    OMatrix::from_fn_generic(a.shape_generic().0, b.shape_generic().1, |i, j| {
        (0..k).fold(T::zero(), |s, l| s + a[(i, l)] * b[(l, j)])
    })
}

/// Between matrices `+`, `-` are elementwise and `*` is the matrix product, as in nalgebra
/// (the result has `a`'s rows and `b`'s columns, which is also the shape of a sum).
impl<T, R1, C1, S1, R2, C2, S2> Binary<Matrix<T, R2, C2, S2>> for Matrix<T, R1, C1, S1>
where
    T: Real + Scalar,
    R1: Dim,
    C1: Dim,
    R2: Dim,
    C2: Dim,
    S1: RawStorage<T, R1, C1>,
    S2: RawStorage<T, R2, C2>,
    DefaultAllocator: Allocator<R1, C2>,
{
    type Output = OMatrix<T, R1, C2>;
    fn add(&self, rhs: &Matrix<T, R2, C2, S2>) -> Self::Output {
        zip("+", self, rhs, |a, b| a + b)
    }
    fn sub(&self, rhs: &Matrix<T, R2, C2, S2>) -> Self::Output {
        zip("-", self, rhs, |a, b| a - b)
    }
    fn mul(&self, rhs: &Matrix<T, R2, C2, S2>) -> Self::Output {
        product(self, rhs)
    }
    fn div(&self, _: &Matrix<T, R2, C2, S2>) -> Self::Output {
        undefined("/", "matrix", "matrix")
    }
}

/// A matrix and a scalar: `*` and `/` scale.
impl<T, R, C, S> Binary<T> for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
    type Output = OMatrix<T, R, C>;
    fn add(&self, _: &T) -> Self::Output {
        undefined("+", "matrix", "scalar")
    }
    fn sub(&self, _: &T) -> Self::Output {
        undefined("-", "matrix", "scalar")
    }
    fn mul(&self, rhs: &T) -> Self::Output {
        self.map(|v| v * *rhs)
    }
    fn div(&self, rhs: &T) -> Self::Output {
        self.map(|v| v / *rhs)
    }
}

/// A scalar and a matrix: `*` scales.
impl<T, R, C, S> Binary<Matrix<T, R, C, S>> for T
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
    type Output = OMatrix<T, R, C>;
    fn add(&self, _: &Matrix<T, R, C, S>) -> Self::Output {
        undefined("+", "scalar", "matrix")
    }
    fn sub(&self, _: &Matrix<T, R, C, S>) -> Self::Output {
        undefined("-", "scalar", "matrix")
    }
    fn mul(&self, rhs: &Matrix<T, R, C, S>) -> Self::Output {
        rhs.map(|v| *self * v)
    }
    fn div(&self, _: &Matrix<T, R, C, S>) -> Self::Output {
        undefined("/", "scalar", "matrix")
    }
}

/// A matrix times a point: a point (`m * p`).
impl<T, const R: usize, const C: usize, S> Binary<Point<T, C>> for Matrix<T, Const<R>, Const<C>, S>
where
    T: Real + Scalar,
    S: RawStorage<T, Const<R>, Const<C>>,
{
    type Output = Point<T, R>;
    fn add(&self, _: &Point<T, C>) -> Point<T, R> {
        undefined("+", "matrix", "point")
    }
    fn sub(&self, _: &Point<T, C>) -> Point<T, R> {
        undefined("-", "matrix", "point")
    }
    fn mul(&self, rhs: &Point<T, C>) -> Point<T, R> {
        Point::from(product(self, &rhs.coords))
    }
    fn div(&self, _: &Point<T, C>) -> Point<T, R> {
        undefined("/", "matrix", "point")
    }
}

/// A point and a vector: `p + v` and `p - v` are points.
impl<T, const D: usize, S> Binary<Matrix<T, Const<D>, U1, S>> for Point<T, D>
where
    T: Real + Scalar,
    S: RawStorage<T, Const<D>, U1>,
{
    type Output = Point<T, D>;
    fn add(&self, rhs: &Matrix<T, Const<D>, U1, S>) -> Point<T, D> {
        Point::from(zip("+", &self.coords, rhs, |a, b| a + b))
    }
    fn sub(&self, rhs: &Matrix<T, Const<D>, U1, S>) -> Point<T, D> {
        Point::from(zip("-", &self.coords, rhs, |a, b| a - b))
    }
    fn mul(&self, _: &Matrix<T, Const<D>, U1, S>) -> Point<T, D> {
        undefined("*", "point", "vector")
    }
    fn div(&self, _: &Matrix<T, Const<D>, U1, S>) -> Point<T, D> {
        undefined("/", "point", "vector")
    }
}

/// Two points: `p - q` is a vector.
impl<T: Real + Scalar, const D: usize> Binary<Point<T, D>> for Point<T, D> {
    type Output = SVector<T, D>;
    fn add(&self, _: &Point<T, D>) -> SVector<T, D> {
        undefined("+", "point", "point")
    }
    fn sub(&self, rhs: &Point<T, D>) -> SVector<T, D> {
        zip("-", &self.coords, &rhs.coords, |a, b| a - b)
    }
    fn mul(&self, _: &Point<T, D>) -> SVector<T, D> {
        undefined("*", "point", "point")
    }
    fn div(&self, _: &Point<T, D>) -> SVector<T, D> {
        undefined("/", "point", "point")
    }
}

/// A point and a scalar: `*` and `/` scale the coordinates.
impl<T: Real + Scalar, const D: usize> Binary<T> for Point<T, D> {
    type Output = Point<T, D>;
    fn add(&self, _: &T) -> Point<T, D> {
        undefined("+", "point", "scalar")
    }
    fn sub(&self, _: &T) -> Point<T, D> {
        undefined("-", "point", "scalar")
    }
    fn mul(&self, rhs: &T) -> Point<T, D> {
        Point::from(self.coords.map(|v| v * *rhs))
    }
    fn div(&self, rhs: &T) -> Point<T, D> {
        Point::from(self.coords.map(|v| v / *rhs))
    }
}

/// A scalar and a point: `*` scales the coordinates.
impl<T: Real + Scalar, const D: usize> Binary<Point<T, D>> for T {
    type Output = Point<T, D>;
    fn add(&self, _: &Point<T, D>) -> Point<T, D> {
        undefined("+", "scalar", "point")
    }
    fn sub(&self, _: &Point<T, D>) -> Point<T, D> {
        undefined("-", "scalar", "point")
    }
    fn mul(&self, rhs: &Point<T, D>) -> Point<T, D> {
        Point::from(rhs.coords.map(|v| *self * v))
    }
    fn div(&self, _: &Point<T, D>) -> Point<T, D> {
        undefined("/", "scalar", "point")
    }
}

/// `u, w` (a unit quaternion's parts) rotating `x` (nalgebra's formula).
fn rotate<T: Real + Scalar, S: RawStorage<T, U3, U1>>(
    q: &UnitQuaternion<T>,
    x: &Matrix<T, U3, U1, S>,
) -> Vector3<T> {
    let c = &q.as_ref().coords;
    let (u, w) = (Vector3::new(c[0], c[1], c[2]), c[3]);
    let x = Vector3::new(x[0], x[1], x[2]);
    let cross = |a: &Vector3<T>, b: &Vector3<T>| {
        Vector3::new(
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        )
    };
    let t = cross(&u, &x).map(|v| v + v);
    let ut = cross(&u, &t);
    Vector3::from_fn(|k, _| x[k] + w * t[k] + ut[k])
}

/// A unit quaternion rotating a vector: `q * v`.
impl<T, S> Binary<Matrix<T, U3, U1, S>> for UnitQuaternion<T>
where
    T: Real + Scalar,
    S: RawStorage<T, U3, U1>,
{
    type Output = Vector3<T>;
    fn add(&self, _: &Matrix<T, U3, U1, S>) -> Vector3<T> {
        undefined("+", "quaternion", "vector")
    }
    fn sub(&self, _: &Matrix<T, U3, U1, S>) -> Vector3<T> {
        undefined("-", "quaternion", "vector")
    }
    fn mul(&self, rhs: &Matrix<T, U3, U1, S>) -> Vector3<T> {
        rotate(self, rhs)
    }
    fn div(&self, _: &Matrix<T, U3, U1, S>) -> Vector3<T> {
        undefined("/", "quaternion", "vector")
    }
}

/// A unit quaternion rotating a point about the origin: `q * p`.
impl<T: Real + Scalar> Binary<Point<T, 3>> for UnitQuaternion<T> {
    type Output = Point<T, 3>;
    fn add(&self, _: &Point<T, 3>) -> Point<T, 3> {
        undefined("+", "quaternion", "point")
    }
    fn sub(&self, _: &Point<T, 3>) -> Point<T, 3> {
        undefined("-", "quaternion", "point")
    }
    fn mul(&self, rhs: &Point<T, 3>) -> Point<T, 3> {
        Point::from(rotate(self, &rhs.coords))
    }
    fn div(&self, _: &Point<T, 3>) -> Point<T, 3> {
        undefined("/", "quaternion", "point")
    }
}

impl<T, R, C, S> Transpose for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C>,
    DefaultAllocator: Allocator<C, R>,
{
    type Output = OMatrix<T, C, R>;
    fn transpose(&self) -> OMatrix<T, C, R> {
        let (r, c) = self.shape_generic();
        OMatrix::from_fn_generic(c, r, |i, j| self[(j, i)])
    }
}

impl<T, S1, S2> Cross<Matrix<T, U3, U1, S2>> for Matrix<T, U3, U1, S1>
where
    T: Real + Scalar,
    S1: RawStorage<T, U3, U1>,
    S2: RawStorage<T, U3, U1>,
{
    type Output = Vector3<T>;
    fn cross(&self, b: &Matrix<T, U3, U1, S2>) -> Vector3<T> {
        let a = self;
        Vector3::new(
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        )
    }
}

// ----- parameters of models and optimizers ----------------------------------------------

macro_rules! parameters {
    ($($t:ty),*) => {$(
        /// A matrix or vector as a field of a derived model, updated by the optimizers.
        ///
        /// ```
        /// use autodiff_runtime::{optim::Sgd, nalgebra::Vector2};
        /// let mut v = Vector2::new(1.0_f64, 2.0);
        /// Sgd::new(0.5).step(&mut v, &Vector2::new(2.0, 2.0));
        /// assert_eq!(v, Vector2::new(0.0, 1.0));
        /// ```
        impl<R, C, S> Parameter for Matrix<$t, R, C, S>
        where
            R: Dim,
            C: Dim,
            S: RawStorageMut<$t, R, C> + Send + Sync + 'static,
            DefaultAllocator: Allocator<R, C>,
        {
            fn num_elements(&self) -> usize {
                self.len()
            }
            fn update_elements(
                &mut self,
                grad: &OMatrix<$t, R, C>,
                f: &mut dyn FnMut(usize, f64, f64) -> f64,
            ) {
                assert_eq!(
                    self.shape(),
                    grad.shape(),
                    "gradient of shape {:?} for a parameter of shape {:?}",
                    grad.shape(),
                    self.shape()
                );
                for (k, (v, g)) in self.iter_mut().zip(grad.iter()).enumerate() {
                    *v = f(k, f64::from(*v), f64::from(*g)) as $t;
                }
            }
            fn visit_gradient(grad: &OMatrix<$t, R, C>, f: &mut dyn FnMut(usize, f64)) {
                grad.iter().enumerate().for_each(|(k, g)| f(k, f64::from(*g)));
            }
            fn scale_gradient(grad: &mut OMatrix<$t, R, C>, factor: f64) {
                grad.iter_mut().for_each(|g| *g = (f64::from(*g) * factor) as $t);
            }
        }

        impl<R, C, S> TangentValue for Matrix<$t, R, C, S>
        where
            R: Dim,
            C: Dim,
            S: RawStorageMut<$t, R, C> + Clone + core::fmt::Debug + Send + Sync + 'static,
        {
            fn scale(&mut self, factor: f64) {
                self.iter_mut().for_each(|g| *g = (f64::from(*g) * factor) as $t);
            }
        }

        /// A point as a field of a derived model: its coordinates are updated.
        ///
        /// ```
        /// use autodiff_runtime::{optim::Sgd, nalgebra::{Point2, Vector2}};
        /// let mut p = Point2::new(1.0_f64, 2.0);
        /// Sgd::new(0.5).step(&mut p, &Vector2::new(2.0, 2.0));
        /// assert_eq!(p, Point2::new(0.0, 1.0));
        /// ```
        impl<const D: usize> Parameter for Point<$t, D> {
            fn num_elements(&self) -> usize {
                D
            }
            fn update_elements(
                &mut self,
                grad: &SVector<$t, D>,
                f: &mut dyn FnMut(usize, f64, f64) -> f64,
            ) {
                self.coords.update_elements(grad, f);
            }
            fn visit_gradient(grad: &SVector<$t, D>, f: &mut dyn FnMut(usize, f64)) {
                <SVector<$t, D> as Parameter>::visit_gradient(grad, f);
            }
            fn scale_gradient(grad: &mut SVector<$t, D>, factor: f64) {
                <SVector<$t, D> as Parameter>::scale_gradient(grad, factor);
            }
        }

        /// A unit quaternion as a field of a derived model: its four coordinates are
        /// updated, then normalised again (a step along the sphere's tangent, back onto it).
        ///
        /// ```
        /// use autodiff_runtime::{optim::Sgd, nalgebra::{Quaternion, UnitQuaternion}};
        /// let mut q = UnitQuaternion::<f64>::identity();
        /// Sgd::new(1.0).step(&mut q, &Quaternion::new(0.0, -1.0, 0.0, 0.0));
        /// // (1, 0, 0, 0) + (0, 1, 0, 0), normalised: a quarter turn about x
        /// assert!((q.angle() - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        /// ```
        impl Parameter for UnitQuaternion<$t> {
            fn num_elements(&self) -> usize {
                4
            }
            fn update_elements(
                &mut self,
                grad: &Quaternion<$t>,
                f: &mut dyn FnMut(usize, f64, f64) -> f64,
            ) {
                let mut c = self.as_ref().coords;
                c.update_elements(&grad.coords, f);
                *self = UnitQuaternion::from_quaternion(Quaternion::from(c));
            }
            fn visit_gradient(grad: &Quaternion<$t>, f: &mut dyn FnMut(usize, f64)) {
                <Vector4<$t> as Parameter>::visit_gradient(&grad.coords, f);
            }
            fn scale_gradient(grad: &mut Quaternion<$t>, factor: f64) {
                <Vector4<$t> as Parameter>::scale_gradient(&mut grad.coords, factor);
            }
        }

        impl TangentValue for Quaternion<$t> {
            fn scale(&mut self, factor: f64) {
                TangentValue::scale(&mut self.coords, factor);
            }
        }
    )*};
}
parameters!(f32, f64);

/// A matrix or vector is a value made of floats (forward mode lends a reference to one a
/// zero of its own).
impl<T, R, C, S> crate::forward::FloatValue for Matrix<T, R, C, S>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    S: RawStorage<T, R, C>,
    DefaultAllocator: Allocator<R, C>,
{
}

/// A matrix or vector taken by value is lent a zero matrix of its shape.
///
/// ```
/// use autodiff_runtime::forward::ArgTangent;
/// let m = nalgebra::Matrix2x3::<f64>::repeat(1.5);
/// assert_eq!(m.zero_arg().0, nalgebra::Matrix2x3::zeros());
/// ```
impl<T, R, C> crate::forward::ArgTangent for OMatrix<T, R, C>
where
    T: Real + Scalar,
    R: Dim,
    C: Dim,
    DefaultAllocator: Allocator<R, C>,
{
    type Zero = crate::forward::Owned<OMatrix<T, R, C>>;
    fn zero_arg(&self) -> Self::Zero {
        crate::forward::Owned(self.zero_tangent())
    }
}
