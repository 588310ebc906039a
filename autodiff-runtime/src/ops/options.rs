//! `Option` and `Result` around differentiable values. The tangent of an `Option<T>` or a
//! `Result<T, E>` is `T`'s (the value carries the gradient, `None` and the error path
//! none), so wrapping (`Some(x)`, `Ok(x)`) and unwrapping (`unwrap`, `expect`, `?`) pass
//! the cotangent through unchanged.

/// `Some(x)` / `Ok(x)`: the cotangent of `x`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::wrap_d0(&2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn wrap_d0<T: Clone>(dy: &T) -> T {
    dy.clone()
}

/// `o.map(f)` where `o` holds a value: `f`'s value `y` wrapped as `o` is (`Some(y)` for an
/// `Option`, `Ok(y)` for a `Result`).
///
/// ```
/// let o: Option<f64> = autodiff_runtime::ops::wrap_like(2.0_f64, &Some(1_i32));
/// assert_eq!(o, Some(2.0));
/// let r: Result<f64, String> = autodiff_runtime::ops::wrap_like(2.0_f64, &Ok::<i32, String>(1));
/// assert_eq!(r, Ok(2.0));
/// ```
#[inline(always)]
pub fn wrap_like<U, O: Rewrap<U>>(y: U, like: &O) -> O::Out {
    let _ = like;
    O::rewrap(y)
}

/// `o.map(f)`'s value: the cotangent of `f`'s value.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::wrap_like_d0(&2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn wrap_like_d0<T: Clone>(dy: &T) -> T {
    dy.clone()
}

/// An `Option` or `Result` whose value can be replaced by one of type `U` (what `map`
/// makes).
pub trait Rewrap<U> {
    /// `Option<U>`, or `Result<U, E>`.
    type Out;
    /// `Some(y)` or `Ok(y)`.
    fn rewrap(y: U) -> Self::Out;
}

impl<T, U> Rewrap<U> for Option<T> {
    type Out = Option<U>;
    #[inline(always)]
    fn rewrap(y: U) -> Option<U> {
        Some(y)
    }
}

impl<T, E, U> Rewrap<U> for Result<T, E> {
    type Out = Result<U, E>;
    #[inline(always)]
    fn rewrap(y: U) -> Result<U, E> {
        Ok(y)
    }
}

/// The value a cell of generated code starts as before it is first written, for the types
/// without a `Default`: an `Option`/`Result` cell a branch writes (`None`, or `Ok` of the
/// value's default), and, in a function with const generic parameters, any cell (an array
/// `[T; N]` of a const-generic length has no `Default`: its elements' placeholders).
///
/// ```
/// let r: Result<f64, String> = autodiff_runtime::ops::placeholder();
/// assert_eq!(r, Ok(0.0));
/// assert_eq!(autodiff_runtime::ops::placeholder::<Option<f64>>(), None);
/// fn row<const N: usize>() -> [[f64; N]; 2] {
///     autodiff_runtime::ops::placeholder()
/// }
/// assert_eq!(row::<3>(), [[0.0; 3]; 2]);
/// ```
#[inline(always)]
pub fn placeholder<T: Placeholder>() -> T {
    T::placeholder()
}

/// See [`placeholder`].
pub trait Placeholder {
    /// `None`, or `Ok(Default::default())`.
    fn placeholder() -> Self;
}

impl<T> Placeholder for Option<T> {
    #[inline(always)]
    fn placeholder() -> Self {
        None
    }
}

impl<T: Default, E> Placeholder for Result<T, E> {
    #[inline(always)]
    fn placeholder() -> Self {
        Ok(T::default())
    }
}

macro_rules! default_placeholder {
    ($($t:ty),*) => {$(
        impl Placeholder for $t {
            #[inline(always)]
            fn placeholder() -> Self {
                <$t as Default>::default()
            }
        }
    )*};
}
default_placeholder!(
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    char,
    ()
);

impl<T: Placeholder, const N: usize> Placeholder for [T; N] {
    #[inline(always)]
    fn placeholder() -> Self {
        core::array::from_fn(|_| T::placeholder())
    }
}

impl<T> Placeholder for Vec<T> {
    #[inline(always)]
    fn placeholder() -> Self {
        Vec::new()
    }
}

impl<T: crate::real::Real> Placeholder for crate::dual::Dual<T> {
    #[inline(always)]
    fn placeholder() -> Self {
        crate::dual::Dual::constant(T::zero())
    }
}

macro_rules! tuple_placeholder {
    ($(($($T:ident),+)),*) => {$(
        impl<$($T: Placeholder),+> Placeholder for ($($T,)+) {
            #[inline(always)]
            fn placeholder() -> Self {
                ($($T::placeholder(),)+)
            }
        }
    )*};
}
tuple_placeholder!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H)
);

/// `o.unwrap()`: the cotangent of `o`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::unwrap_d0(&2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn unwrap_d0<T: Clone>(dy: &T) -> T {
    dy.clone()
}

/// `o.expect(message)`: the cotangent of `o`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::expect_d0(&2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn expect_d0<T: Clone>(dy: &T) -> T {
    dy.clone()
}

/// The value of `o?` once [`is_residual`] has said it is there.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::try_value(Some(1.5_f64)), 1.5);
/// assert_eq!(autodiff_runtime::ops::try_value(Ok::<f64, String>(1.5)), 1.5);
/// ```
#[inline(always)]
#[track_caller]
pub fn try_value<O: Residual>(o: O) -> O::Value {
    o.value()
}

/// `o?`'s value: the cotangent of `o`.
///
/// ```
/// assert_eq!(autodiff_runtime::ops::try_value_d0(&2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn try_value_d0<T: Clone>(dy: &T) -> T {
    dy.clone()
}

/// Whether `o?` returns early (`None`, `Err(_)`).
///
/// ```
/// assert!(autodiff_runtime::ops::is_residual(&None::<f64>));
/// assert!(!autodiff_runtime::ops::is_residual(&Ok::<f64, ()>(1.0)));
/// ```
#[inline(always)]
pub fn is_residual<O: Residual>(o: &O) -> bool {
    o.is_residual()
}

/// What `o?` returns early: `None`, or `Err(From::from(e))`.
///
/// ```
/// let r: Result<f32, String> = autodiff_runtime::ops::residual(Err::<f64, &str>("bad"));
/// assert_eq!(r, Err("bad".to_string()));
/// ```
#[inline(always)]
#[track_caller]
pub fn residual<O: Residual<Out>, Out>(o: O) -> Out {
    o.residual()
}

/// The `?` operator's two paths for `Option` and `Result` (std's `Try` is unstable).
pub trait Residual<Out = Self> {
    /// The value `?` gives.
    type Value;
    /// Whether `?` returns early.
    fn is_residual(&self) -> bool;
    /// The value (after [`Residual::is_residual`] said it is there).
    fn value(self) -> Self::Value;
    /// What `?` returns (after [`Residual::is_residual`] said it returns).
    fn residual(self) -> Out;
}

impl<T, U> Residual<Option<U>> for Option<T> {
    type Value = T;
    #[inline(always)]
    fn is_residual(&self) -> bool {
        self.is_none()
    }
    #[inline(always)]
    #[track_caller]
    fn value(self) -> T {
        match self {
            Some(v) => v,
            None => panic!("`?` read a value from `None`"),
        }
    }
    #[inline(always)]
    fn residual(self) -> Option<U> {
        None
    }
}

impl<T, E, U, F: From<E>> Residual<Result<U, F>> for Result<T, E> {
    type Value = T;
    #[inline(always)]
    fn is_residual(&self) -> bool {
        self.is_err()
    }
    #[inline(always)]
    #[track_caller]
    fn value(self) -> T {
        match self {
            Ok(v) => v,
            Err(_) => panic!("`?` read a value from `Err`"),
        }
    }
    #[inline(always)]
    #[track_caller]
    fn residual(self) -> Result<U, F> {
        match self {
            Ok(_) => panic!("`?` returned early from `Ok`"),
            Err(e) => Err(F::from(e)),
        }
    }
}
