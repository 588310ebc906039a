//! Elementwise functions with scalar arguments: `powf(p)`, `log(b)`, `atan2(b)`, `hypot(b)`,
//! `max(b)`, `min(b)`, `mul_add(b, c)`, `clamp(lo, hi)`. The receiver's gradient is
//! elementwise; a scalar argument's gradient is summed over the elements.

use super::elementwise::{lift, map_elem};
use super::{broadcast_to, dyn_view, Tensor};
use crate::ops;
use ndarray::Zip;
use num_traits::Float;

macro_rules! empty {
    ($x:ident) => {
        ""
    };
}

macro_rules! elementwise_fn_scalar_args {
    ($($name:ident($($p:ident),*)),* $(,)?) => {$(
        #[doc = concat!(
            "`x.", stringify!($name),
            "(…)` for a scalar `x`, elementwise for an array `x` ",
            "(the other arguments are scalars)."
        )]
        ///
        /// ```
        #[doc = concat!(
            "let a = autodiff_runtime::ops::tensor::", stringify!($name),
            "(&ndarray::array![0.5_f64]", $(", &0.75", empty!($p),)* ");"
        )]
        #[doc = concat!(
            "assert_eq!(a[0], 0.5_f64.", stringify!($name), "(", $("0.75", empty!($p), ",",)* "));"
        )]
        /// ```
        #[inline(always)]
        pub fn $name<A: Tensor + ?Sized>(a: &A, $($p: &A::Elem),*) -> A::Cotangent {
            map_elem(a, |v| v.$name($(*$p),*))
        }
    )*};
}

elementwise_fn_scalar_args!(
    powf(p),
    log(b),
    atan2(b),
    hypot(b),
    max(b),
    min(b),
    mul_add(b, c)
);

/// `x.clamp(lo, hi)` for a scalar `x`, elementwise for an array `x`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::clamp(&ndarray::array![3.0_f64], &0.0, &1.0)[0], 1.0);
/// ```
#[inline(always)]
pub fn clamp<A: Tensor + ?Sized>(a: &A, lo: &A::Elem, hi: &A::Elem) -> A::Cotangent {
    assert!(
        *lo <= *hi,
        "autodiff: `clamp` with lower bound {lo} above upper bound {hi}"
    );
    map_elem(a, |v| v.max(*lo).min(*hi))
}

/// `Σᵢ f(uᵢ, vᵢ, dyᵢ)` over elementwise-aligned `u`, `v`, `dy`: the gradient of a scalar
/// argument of an elementwise function.
#[inline(always)]
fn sum_over<U, V, G>(
    u: &U,
    v: &V,
    dy: &G,
    f: impl Fn(U::Elem, U::Elem, U::Elem) -> U::Elem,
) -> U::Elem
where
    U: Tensor + ?Sized,
    V: Tensor<Elem = U::Elem> + ?Sized,
    G: Tensor<Elem = U::Elem> + ?Sized,
{
    if let (Some(u), Some(v), Some(g)) = (u.as_scalar(), v.as_scalar(), dy.as_scalar()) {
        return f(u, v, g);
    }
    let (u, v, g) = (dyn_view(u), dyn_view(v), dyn_view(dy));
    let shape = g.raw_dim();
    let what = "an operand of an elementwise function";
    let (u, v) = (
        broadcast_to(&u, &shape, what),
        broadcast_to(&v, &shape, what),
    );
    let mut s = <U::Elem as num_traits::Zero>::zero();
    Zip::from(&u)
        .and(&v)
        .and(&g)
        .for_each(|&u, &v, &g| s = s + f(u, v, g));
    s
}

/// An elementwise rule of the receiver reading it, a second value of its shape (`y`), and
/// `dy`.
#[inline(always)]
fn lift_with<U, V, G>(
    u: &U,
    v: &V,
    dy: &G,
    f: impl Fn(U::Elem, U::Elem, U::Elem) -> U::Elem,
) -> U::Cotangent
where
    U: Tensor + ?Sized,
    V: Tensor<Elem = U::Elem> + ?Sized,
    G: Tensor<Elem = U::Elem> + ?Sized,
{
    if let (Some(u0), Some(v0), Some(g)) = (u.as_scalar(), v.as_scalar(), dy.as_scalar()) {
        return u.reduce_scalar(f(u0, v0, g));
    }
    let uv = u.view_tensor();
    let dims = uv.raw_dim();
    let vv = v
        .view_tensor()
        .into_dimensionality::<U::Dim>()
        .expect("autodiff: same dimension");
    let gv = dy
        .view_tensor()
        .into_dimensionality::<U::Dim>()
        .expect("autodiff: same dimension");
    assert!(
        vv.raw_dim() == dims && gv.raw_dim() == dims,
        "autodiff: an elementwise function's values have shapes {:?}, {:?} and {:?}",
        uv.shape(),
        vv.shape(),
        gv.shape()
    );
    u.cot_from(
        Zip::from(&uv)
            .and(&vv)
            .and(&gv)
            .map_collect(|&u, &v, &g| f(u, v, g)),
    )
}

/// `y = x.powf(p)`: the gradient of `x` (elementwise).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::powf_d0(&array![2.0_f64], &3.0, &array![1.0_f64])[0], 12.0);
/// ```
#[inline(always)]
pub fn powf_d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    p: &X::Elem,
    dy: &G,
) -> X::Cotangent {
    lift(x, dy, |x, g| ops::powf_d0(&x, p, &g))
}

/// `y = x.powf(p)`: the gradient of the scalar `p` (summed over the elements).
///
/// ```
/// let x = ndarray::array![2.0_f64, 3.0];
/// let y = x.mapv(|v| v.powf(2.0));
/// let g = autodiff_runtime::ops::tensor::powf_d1(&x, &y, &ndarray::array![1.0_f64, 1.0]);
/// assert!((g - (4.0 * 2f64.ln() + 9.0 * 3f64.ln())).abs() < 1e-12);
/// ```
#[inline(always)]
pub fn powf_d1<X, Y, G>(x: &X, y: &Y, dy: &G) -> X::Elem
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: Tensor<Elem = X::Elem> + ?Sized,
{
    sum_over(x, y, dy, |x, y, g| ops::powf_d1(&x, &y, &g))
}

/// `y = x.log(b)`: the gradient of `x` (elementwise).
///
/// ```
/// use autodiff_runtime::ops::{self, tensor};
/// use ndarray::array;
/// let g = tensor::log_d0(&array![2.0_f64], &10.0, &array![1.0_f64]);
/// assert_eq!(g[0], ops::log_d0(&2.0, &10.0, &1.0));
/// ```
#[inline(always)]
pub fn log_d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    b: &X::Elem,
    dy: &G,
) -> X::Cotangent {
    lift(x, dy, |x, g| ops::log_d0(&x, b, &g))
}

/// `y = x.log(b)`: the gradient of the scalar base `b`.
///
/// ```
/// use autodiff_runtime::ops::{self, tensor};
/// use ndarray::array;
/// let y = array![2.0_f64.log(10.0)];
/// assert_eq!(tensor::log_d1(&10.0, &y, &array![1.0_f64]), ops::log_d1(&10.0, &y[0], &1.0));
/// ```
#[inline(always)]
pub fn log_d1<Y: Tensor + ?Sized, G: Tensor<Elem = Y::Elem> + ?Sized>(
    b: &Y::Elem,
    y: &Y,
    dy: &G,
) -> Y::Elem {
    sum_over(y, y, dy, |_, y, g| ops::log_d1(b, &y, &g))
}

macro_rules! receiver_and_scalar_rules {
    ($($d0:ident / $d1:ident),* $(,)?) => {$(
        #[doc = concat!(
            "[`", stringify!($d0), "`](crate::ops::", stringify!($d0),
            ") with an array receiver (elementwise) and a scalar second argument."
        )]
        ///
        /// ```
        #[doc = concat!(
            "let a = autodiff_runtime::ops::tensor::", stringify!($d0),
            "(&ndarray::array![0.5_f64], &0.25, &ndarray::array![1.0_f64]);"
        )]
        #[doc = concat!(
            "assert_eq!(a[0], autodiff_runtime::ops::", stringify!($d0), "(&0.5, &0.25, &1.0));"
        )]
        /// ```
        #[inline(always)]
        pub fn $d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
            a: &X,
            b: &X::Elem,
            dy: &G,
        ) -> X::Cotangent {
            lift(a, dy, |a, g| ops::$d0(&a, b, &g))
        }

        #[doc = concat!(
            "[`", stringify!($d1), "`](crate::ops::", stringify!($d1),
            ") for the scalar second argument of an elementwise function ",
            "(summed over the elements)."
        )]
        ///
        /// ```
        #[doc = concat!(
            "let a = autodiff_runtime::ops::tensor::", stringify!($d1),
            "(&ndarray::array![0.5_f64], &0.25, &ndarray::array![1.0_f64]);"
        )]
        #[doc = concat!(
            "assert_eq!(a, autodiff_runtime::ops::", stringify!($d1), "(&0.5, &0.25, &1.0));"
        )]
        /// ```
        #[inline(always)]
        pub fn $d1<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
            a: &X,
            b: &X::Elem,
            dy: &G,
        ) -> X::Elem {
            sum_over(a, a, dy, |a, _, g| ops::$d1(&a, b, &g))
        }
    )*};
}

receiver_and_scalar_rules!(atan2_d0 / atan2_d1, max_d0 / max_d1, min_d0 / min_d1);

/// `y = a.hypot(b)`: the gradient of `a` (elementwise).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// let y = array![3.0_f64.hypot(4.0)];
/// assert_eq!(tensor::hypot_d0(&array![3.0_f64], &y, &array![1.0_f64])[0], 0.6);
/// ```
#[inline(always)]
pub fn hypot_d0<X, Y, G>(a: &X, y: &Y, dy: &G) -> X::Cotangent
where
    X: Tensor + ?Sized,
    Y: Tensor<Elem = X::Elem> + ?Sized,
    G: Tensor<Elem = X::Elem> + ?Sized,
{
    lift_with(a, y, dy, |a, y, g| ops::hypot_d0(&a, &y, &g))
}

/// `y = a.hypot(b)`: the gradient of the scalar `b`.
///
/// ```
/// let y = ndarray::array![3.0_f64.hypot(4.0)];
/// assert_eq!(autodiff_runtime::ops::tensor::hypot_d1(&4.0, &y, &ndarray::array![1.0_f64]), 0.8);
/// ```
#[inline(always)]
pub fn hypot_d1<Y: Tensor + ?Sized, G: Tensor<Elem = Y::Elem> + ?Sized>(
    b: &Y::Elem,
    y: &Y,
    dy: &G,
) -> Y::Elem {
    sum_over(y, y, dy, |_, y, g| ops::hypot_d1(b, &y, &g))
}

/// `y = x.clamp(lo, hi)`: the gradient of `x` (elementwise).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::clamp_d0(&array![0.5_f64], &0.0, &1.0, &array![1.0_f64])[0], 1.0);
/// ```
#[inline(always)]
pub fn clamp_d0<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    lo: &X::Elem,
    hi: &X::Elem,
    dy: &G,
) -> X::Cotangent {
    lift(x, dy, |x, g| ops::clamp_d0(&x, lo, hi, &g))
}

/// `y = x.clamp(lo, hi)`: the gradient of the scalar `lo`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::clamp_d1(&array![-0.5_f64], &0.0, &1.0, &array![1.0_f64]), 1.0);
/// ```
#[inline(always)]
pub fn clamp_d1<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    lo: &X::Elem,
    hi: &X::Elem,
    dy: &G,
) -> X::Elem {
    sum_over(x, x, dy, |x, _, g| ops::clamp_d1(&x, lo, hi, &g))
}

/// `y = x.clamp(lo, hi)`: the gradient of the scalar `hi`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::clamp_d2(&array![1.5_f64], &0.0, &1.0, &array![1.0_f64]), 1.0);
/// ```
#[inline(always)]
pub fn clamp_d2<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    x: &X,
    lo: &X::Elem,
    hi: &X::Elem,
    dy: &G,
) -> X::Elem {
    sum_over(x, x, dy, |x, _, g| ops::clamp_d2(&x, lo, hi, &g))
}

/// `y = a.mul_add(b, c)` (`a·b + c`): the gradient of `a` (elementwise, `b` a scalar).
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::mul_add_d0(&2.0_f64, &array![1.0_f64, 3.0]), array![2.0, 6.0]);
/// ```
#[inline(always)]
pub fn mul_add_d0<G: Tensor + ?Sized>(b: &G::Elem, dy: &G) -> G::Cotangent {
    map_elem(dy, |g| ops::mul_add_d0(b, &g))
}

/// `y = a.mul_add(b, c)`: the gradient of the scalar `b`, `Σ a·dy`.
///
/// ```
/// use autodiff_runtime::ops::tensor;
/// use ndarray::array;
/// assert_eq!(tensor::mul_add_d1(&array![1.0_f64, 2.0], &array![1.0_f64, 3.0]), 7.0);
/// ```
#[inline(always)]
pub fn mul_add_d1<X: Tensor + ?Sized, G: Tensor<Elem = X::Elem> + ?Sized>(
    a: &X,
    dy: &G,
) -> X::Elem {
    sum_over(a, a, dy, |a, _, g| ops::mul_add_d1(&a, &g))
}

/// `y = a.mul_add(b, c)`: the gradient of the scalar `c`, `Σ dy`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::tensor::mul_add_d2(&ndarray::array![1.0_f64, 3.0]), 4.0);
/// ```
#[inline(always)]
pub fn mul_add_d2<G: Tensor + ?Sized>(dy: &G) -> G::Elem {
    sum_over(dy, dy, dy, |_, _, g| ops::mul_add_d2(&g))
}
