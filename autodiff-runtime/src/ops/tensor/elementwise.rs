//! Functions of one value applied to every element (`sin`, `exp`, `powi`, …), and `mapv` /
//! `map` with a closure. Each rule lifts the scalar rule of `ops` to every element.

use super::{dyn_view, CotangentArg, Tensor};
use crate::ops;
use ndarray::{Array, Zip};
use num_traits::Float;

#[inline(always)]
pub(super) fn map_elem<A: Tensor + ?Sized>(a: &A, f: impl Fn(A::Elem) -> A::Elem) -> A::Cotangent {
    match a.as_scalar() {
        Some(s) => a.reduce_scalar(f(s)),
        None => a.cot_from(a.view_tensor().mapv(f)),
    }
}

macro_rules! elementwise_fn {
    ($($name:ident at $at:literal),* $(,)?) => {$(
        #[doc = concat!(
            "`x.", stringify!($name), "()` for a scalar, elementwise for an array (by reference)."
        )]
        ///
        /// ```
        #[doc = concat!(
            "let a = autodiff_runtime::ops::tensor::", stringify!($name),
            "(&ndarray::array![", stringify!($at), "_f64]);"
        )]
        #[doc = concat!("assert_eq!(a[0], (", stringify!($at), "_f64).", stringify!($name), "());")]
        /// ```
        #[inline(always)]
        pub fn $name<A: Tensor + ?Sized>(a: &A) -> A::Cotangent {
            map_elem(a, |v| v.$name())
        }
    )*};
}

/// The elementwise forms of every one-input rule (`ops::elementary`'s one list): the
/// function on arrays and its rule lifted to every element.
macro_rules! tensor_unary {
    ($(
        $(#[$meta:meta])*
        $name:ident / $method:ident at $at:literal
        reads $what:ident : |$v:ident, $dy:ident| $body:expr;
    )*) => {
        elementwise_fn!($($method at $at),*);
        lift_unary!($($name at $at),*);
    };
}

elementwise_fn!(to_degrees at 0.5, to_radians at 0.5, fract at 0.5);

/// `x.powi(n)` for a scalar, elementwise for an array.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::powi(&ndarray::array![3.0_f64], &2)[0], 9.0);
/// ```
#[inline(always)]
pub fn powi<A: Tensor + ?Sized>(a: &A, n: &i32) -> A::Cotangent {
    map_elem(a, |v| v.powi(*n))
}

/// An elementwise rule applied to arrays: `f(u, dy)` at every element, where `u` is the
/// input or output the scalar rule reads; a gradient of `u`'s shape (in `dy`'s buffer when
/// it is owned).
#[inline(always)]
pub(super) fn lift<U, G>(u: &U, dy: G, f: impl Fn(U::Elem, U::Elem) -> U::Elem) -> U::Cotangent
where
    U: Tensor + ?Sized,
    G: CotangentArg<Elem = U::Elem>,
{
    if let (Some(u0), Some(g)) = (u.as_scalar(), dy.cot_scalar()) {
        return u.reduce_scalar(f(u0, g));
    }
    let uv = dyn_view(u);
    let mut g = dy.into_array();
    assert_eq!(
        uv.shape(),
        g.shape(),
        "autodiff: an elementwise function's gradient has shape {:?}, its operand {:?}",
        g.shape(),
        uv.shape()
    );
    Zip::from(&mut g).and(&uv).for_each(|g, &u| *g = f(u, *g));
    U::cot_from_dyn(g)
}

macro_rules! lift_unary {
    ($($name:ident at $at:literal),* $(,)?) => {$(
        #[doc = concat!(
            "The elementwise [`", stringify!($name), "`](crate::ops::", stringify!($name),
            ") for arrays (and scalars): reads the same value, elementwise."
        )]
        ///
        /// ```
        #[doc = concat!(
            "let s = autodiff_runtime::ops::", stringify!($name), "(&", stringify!($at),
            "_f64, &2.0);"
        )]
        #[doc = concat!(
            "let a = autodiff_runtime::ops::tensor::", stringify!($name), "(&ndarray::array![",
            stringify!($at), "_f64], &ndarray::array![2.0_f64]);"
        )]
        /// assert_eq!(a[0], s);
        /// ```
        #[inline(always)]
        pub fn $name<U, G>(u: &U, dy: G) -> U::Cotangent
        where
            U: Tensor + ?Sized,
            G: CotangentArg<Elem = U::Elem>,
        {
            lift(u, dy, |u, g| ops::$name(&u, &g))
        }
    )*};
}

unary_rules!(tensor_unary);

macro_rules! lift_linear {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!(
            "The elementwise [`", stringify!($name), "`](crate::ops::", stringify!($name),
            ") for arrays (and scalars)."
        )]
        ///
        /// ```
        #[doc = concat!("let s = autodiff_runtime::ops::", stringify!($name), "(&2.0_f64);")]
        #[doc = concat!(
            "let a = autodiff_runtime::ops::tensor::", stringify!($name),
            "(&ndarray::array![2.0_f64]);"
        )]
        /// assert_eq!(a[0], s);
        /// ```
        #[inline(always)]
        pub fn $name<G: CotangentArg>(dy: G) -> G::Cotangent {
            match dy.cot_scalar() {
                Some(g) => G::cot_of(ndarray::arr0(crate::ops::$name(&g)).into_dyn()),
                None => {
                    let mut g = dy.into_array();
                    g.mapv_inplace(|g| ops::$name(&g));
                    G::cot_of(g)
                }
            }
        }
    )*};
}

lift_linear!(to_degrees_d0, to_radians_d0, fract_d0);

/// `y = x.powi(n)` elementwise: the gradient of `x`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let g = tensor::powi_d0(&array![3.0_f64], &2, &array![1.0_f64]);
/// assert_eq!(g[0], 6.0);
/// ```
#[inline(always)]
pub fn powi_d0<U, G>(x: &U, n: &i32, dy: G) -> U::Cotangent
where
    U: Tensor + ?Sized,
    G: CotangentArg<Elem = U::Elem>,
{
    lift(x, dy, |x, g| ops::powi_d0(&x, n, &g))
}

/// `x.mapv(f)` for scalars and arrays, by reference.
///
/// ```
/// let y = autodiff_runtime::ops::tensor::mapv(&ndarray::array![0.0_f64, 1.0], &|v: f64| v * 2.0);
/// assert_eq!(y, ndarray::array![0.0, 2.0]);
/// ```
#[inline(always)]
pub fn mapv<A: Tensor + ?Sized, Fun: Fn(A::Elem) -> A::Elem>(
    a: &A,
    f: &Fun,
) -> Array<A::Elem, A::Dim> {
    a.view_tensor().mapv(f)
}

/// `y = x.mapv(f)`: the gradient of `x`, `rule(x, y, dy)` at every element, where `rule`
/// is `f`'s scalar rule.
///
/// ```
/// use autodiff_runtime::ops::{self, tensor};
/// use ndarray::array;
/// let x = array![0.5_f64, 1.0];
/// let y = x.mapv(f64::tanh);
/// let g = tensor::mapv_d0(&x, &y, &|_x, y, dy| ops::tanh_d0(&y, &dy), &array![1.0, 1.0]);
/// assert_eq!(g[0], 1.0 - y[0] * y[0]);
/// ```
#[inline(always)]
pub fn mapv_d0<X, Y, G, R>(x: &X, y: &Y, rule: &R, dy: G) -> X::Cotangent
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: CotangentArg<Elem = X::Elem>,
    R: Fn(X::Elem, X::Elem, X::Elem) -> X::Elem,
{
    if let (Some(x0), Some(y0), Some(g)) = (x.as_scalar(), y.as_scalar(), dy.cot_scalar()) {
        return x.reduce_scalar(rule(x0, y0, g));
    }
    let (xv, yv) = (dyn_view(x), dyn_view(y));
    let mut g = dy.into_array();
    assert!(
        xv.shape() == g.shape() && yv.shape() == g.shape(),
        "autodiff: `mapv` of shape {:?} with a gradient of shape {:?}",
        xv.shape(),
        g.shape()
    );
    Zip::from(&mut g)
        .and(&xv)
        .and(&yv)
        .for_each(|g, &x, &y| *g = rule(x, y, *g));
    X::cot_from_dyn(g)
}

/// `x.map(f)` (the closure takes `&element`) for scalars and arrays, by reference.
///
/// ```
/// let y = autodiff_runtime::ops::tensor::map(&ndarray::array![1.0_f64, 2.0], &|v: &f64| *v * 3.0);
/// assert_eq!(y, ndarray::array![3.0, 6.0]);
/// ```
#[inline(always)]
pub fn map<A: Tensor + ?Sized, Fun: Fn(&A::Elem) -> A::Elem>(
    a: &A,
    f: &Fun,
) -> Array<A::Elem, A::Dim> {
    a.view_tensor().map(f)
}

/// `y = x.map(f)`: the gradient of `x`, as [`mapv_d0`] (the rule gets the element's value).
///
/// ```
/// use autodiff_runtime::ops::{self, tensor};
/// use ndarray::array;
/// let x = array![0.5_f64];
/// let y = x.map(|v| v.tanh());
/// let g = tensor::map_d0(&x, &y, &|_x, y, dy| ops::tanh_d0(&y, &dy), &array![1.0]);
/// assert_eq!(g[0], 1.0 - y[0] * y[0]);
/// ```
#[inline(always)]
pub fn map_d0<X, Y, G, R>(x: &X, y: &Y, rule: &R, dy: G) -> X::Cotangent
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: CotangentArg<Elem = X::Elem>,
    R: Fn(X::Elem, X::Elem, X::Elem) -> X::Elem,
{
    mapv_d0(x, y, rule, dy)
}
