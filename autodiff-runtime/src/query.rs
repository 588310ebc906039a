//! Queries: calls in differentiable code that read a differentiable value but return
//! something without a derivative — a length, a shape, a count, a flag, an ordering
//! (`x.nrows()`, `v.len()`, `a.dim()`, `x.iter().count()`). The attribute does not keep a
//! list of such methods: a call of a method that has no derivative rule goes through
//! [`constant_query`], and the type of its result decides — an integer, `bool`, `char`,
//! shape, ordering or tuple of these is a constant; anything else is refused at compile
//! time at the call, with the fix.

/// Types whose values carry no derivative, so a call returning one may read
/// differentiable values freely.
///
/// `M` is a marker type named after the method, one per call (the message points at the
/// method rather than naming it: rustc prints a marker by its full path when two calls
/// share a name).
#[diagnostic::on_unimplemented(
    message = "cannot differentiate through this method: it has no derivative rule, and its \
        result `{Self}` would need one",
    label = "not differentiable",
    note = "add `#[differentiable]` to its definition, give it a rule with \
        `#[differentiable(vjp = …)]`, or wrap the value in `stop_gradient(…)` if no \
        gradient should flow through it",
    note = "calls returning integers, `bool`, shapes and orderings (`x.len()`, \
        `x.nrows()`, `x.dim()`) need none of this"
)]
pub trait ConstantQuery<M> {}

macro_rules! constant_queries {
    ($($t:ty),* $(,)?) => { $(impl<M> ConstantQuery<M> for $t {})* };
}
constant_queries!(
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
    core::cmp::Ordering,
    str,
    String
);

impl<M, T: ConstantQuery<M> + ?Sized> ConstantQuery<M> for &T {}
impl<M, T: ConstantQuery<M>> ConstantQuery<M> for Option<T> {}
impl<M, T: ConstantQuery<M>> ConstantQuery<M> for [T] {}
impl<M, T: ConstantQuery<M>, const N: usize> ConstantQuery<M> for [T; N] {}
impl<M, T: ConstantQuery<M>> ConstantQuery<M> for Vec<T> {}
impl<M, I> ConstantQuery<M> for ndarray::Dim<I> {}
impl<M> ConstantQuery<M> for ndarray::IxDynImpl {}
impl<M> ConstantQuery<M> for ndarray::Axis {}

macro_rules! constant_query_tuples {
    ($(($($t:ident),+))*) => {
        $(impl<M, $($t: ConstantQuery<M>),+> ConstantQuery<M> for ($($t,)+) {})*
    };
}
constant_query_tuples!((A)(A, B)(A, B, C)(A, B, C, D)(A, B, C, D, E)(
    A, B, C, D, E, F
));

/// Passes a query's result through, refusing at compile time a result that would need a
/// derivative (see [`ConstantQuery`]).
///
/// ```
/// use autodiff_runtime::query::constant_query;
/// struct len;
/// let v = [1.0, 2.0];
/// assert_eq!(constant_query::<len, _>(v.len()), 2);
/// ```
#[inline(always)]
pub fn constant_query<M, T: ConstantQuery<M>>(value: T) -> T {
    value
}

/// [`constant_query`] without its check, for the forward-mode copy of a body (the
/// reverse-mode copy checks the same call).
#[doc(hidden)]
#[inline(always)]
pub fn unchecked_query<M, T>(value: T) -> T {
    value
}
