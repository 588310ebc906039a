//! Tangent spaces: what the gradient of a value of each differentiable type is.

use crate::real::Real;

/// A type whose values can be differentiated: it names its tangent type (the type of its
/// gradient) and can produce a zero tangent shaped like a value.
///
/// Implemented for `f32`, `f64`, slices, `Vec`, fixed-size arrays and references to
/// these. A gradient of a `&[f64]` is a `Vec<f64>`, of a `[f64; N]` an `[f64; N]`.
///
/// ```
/// use autodiff_runtime::Differentiable;
/// let x = [1.0_f64, 2.0, 3.0];
/// assert_eq!(x.zero_tangent(), [0.0; 3]);
/// let v: &[f64] = &[1.0, 2.0];
/// assert_eq!(v.zero_tangent(), vec![0.0, 0.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a differentiable type",
    label = "this parameter's type has no tangent space",
    note = "differentiable types are f32, f64, slices, Vec, arrays of these, ndarray arrays, \
        and types implementing `Differentiable`",
    note = "add `#[derive(Differentiable)]` to a struct of parameters, or mark the parameter \
        `#[no_grad]` if it is a constant"
)]
pub trait Differentiable {
    /// The type of a gradient (cotangent) of a value of this type.
    type Tangent: Accumulate + Clone;
    /// A zero tangent shaped like `self`.
    fn zero_tangent(&self) -> Self::Tangent;

    /// A zero tangent that may not be shaped like `self` yet (an array of no elements, an
    /// empty `Vec`): the first contribution accumulated into it is moved in rather than
    /// added to zeros. Generated code starts a struct parameter's gradient this way and
    /// calls [`complete_tangent`](Differentiable::complete_tangent) before returning it.
    #[doc(hidden)]
    #[inline(always)]
    fn lazy_zero_tangent(&self) -> Self::Tangent {
        self.zero_tangent()
    }

    /// Gives a tangent started by [`lazy_zero_tangent`](Differentiable::lazy_zero_tangent)
    /// the shape of `self` where nothing reached it.
    #[doc(hidden)]
    #[inline(always)]
    fn complete_tangent(&self, tangent: &mut Self::Tangent) {
        let _ = tangent;
    }

    /// Panics, naming the part of the parameter, when `tangent` (handed to `jvp!` for a
    /// parameter of this type) does not have `self`'s shape: a `Vec`'s or an array's, and
    /// a derived struct's fields' in turn. Nothing to check for a float.
    #[doc(hidden)]
    #[inline(always)]
    #[track_caller]
    fn check_tangent(&self, tangent: &Self::Tangent, at: &crate::forward::TangentPath<'_>) {
        let _ = (tangent, at);
    }

    /// The zero a reverse sweep starts an adjoint from: for floats `−0.0`, the additive
    /// identity of IEEE arithmetic (`−0.0 + x` is `x` for every `x`, so the compiler drops
    /// the addition; `0.0 + x` is not `x` when `x` is `−0.0`).
    #[doc(hidden)]
    #[inline(always)]
    fn adjoint_zero(&self) -> Self::Tangent {
        self.zero_tangent()
    }

    /// Zero tangents of every element of `values` (the gradient of a slice). Floats take
    /// zeroed memory from the allocator, which the system gives without writing it: a
    /// large gradient costs only the pages its elements' contributions touch (a small one,
    /// at most `pool::SMALL` elements, comes from the thread's pool).
    #[doc(hidden)]
    fn zero_tangents(values: &[Self]) -> Vec<Self::Tangent>
    where
        Self: Sized,
    {
        values.iter().map(Differentiable::zero_tangent).collect()
    }

    /// A gradient as returned to the caller: a float zero reached only by `−0.0` starts
    /// becomes `0.0` (`x + 0.0`), anything else is unchanged.
    #[doc(hidden)]
    #[inline(always)]
    fn finish_tangent(&self, tangent: Self::Tangent) -> Self::Tangent {
        tangent
    }
}

/// The gradient slot of a parameter that is a constant (an integer, a `bool`, a
/// `#[no_grad]` parameter…): it carries nothing, and accumulating it changes nothing.
///
/// ```
/// use autodiff_runtime::{Accumulate, NoTangent};
/// let mut g = 2.0_f64;
/// g.accumulate(NoTangent);
/// assert_eq!(g, 2.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NoTangent;

/// In-place addition of a gradient contribution: `self += contribution`.
///
/// Generated reverse sweeps accumulate every contribution through this trait, so a
/// gradient buffer is never reallocated.
///
/// ```
/// use autodiff_runtime::Accumulate;
/// let mut g = vec![1.0_f64, 2.0];
/// g.accumulate(vec![0.5, 0.5]);
/// assert_eq!(g, vec![1.5, 2.5]);
/// ```
pub trait Accumulate<Contribution = Self> {
    /// Adds `contribution` to `self`.
    fn accumulate(&mut self, contribution: Contribution);

    /// [`accumulate`](Accumulate::accumulate) of the adjoint of a value read from a
    /// local into the local's adjoint. A `Vec` local whose length changes where it is
    /// assigned (`h = layer(&w, &h)` through layers of different widths) has, at a read
    /// before the assignment, the zero adjoint the assignment left, of the other length: it
    /// takes the contribution whole. Everything else adds.
    #[doc(hidden)]
    #[inline(always)]
    fn accumulate_read(&mut self, contribution: Contribution) {
        self.accumulate(contribution);
    }

    /// Whether `self` is known to be a zero adjoint (a float equal to zero, a `Vec` of
    /// such); unknown, `false`, for anything else.
    #[doc(hidden)]
    #[inline(always)]
    fn is_zero_adjoint(&self) -> bool {
        false
    }
}

impl<T> Accumulate<NoTangent> for T {
    #[inline(always)]
    fn accumulate(&mut self, _: NoTangent) {}
}

/// A gradient reaching a `#[no_grad]` field is dropped.
impl<T: Real> Accumulate<T> for NoTangent {
    #[inline(always)]
    fn accumulate(&mut self, _: T) {}
}

/// A gradient reaching a `#[no_grad]` field is dropped.
impl<F: Real, D: ndarray::Dimension> Accumulate<ndarray::Array<F, D>> for NoTangent {
    #[inline(always)]
    fn accumulate(&mut self, _: ndarray::Array<F, D>) {}
}

impl<T: Real> Accumulate for T {
    #[inline(always)]
    fn accumulate(&mut self, contribution: T) {
        *self = *self + contribution;
    }
    #[inline(always)]
    fn is_zero_adjoint(&self) -> bool {
        *self == T::zero()
    }
}

impl<T: Accumulate> Accumulate for Vec<T> {
    /// Adds elementwise. An empty buffer stands for zero: it takes the contribution, and
    /// an empty contribution adds nothing.
    fn accumulate(&mut self, contribution: Vec<T>) {
        if self.is_empty() {
            *self = contribution;
            return;
        }
        if contribution.is_empty() {
            return;
        }
        assert_eq!(
            self.len(),
            contribution.len(),
            "gradient length mismatch: accumulating a gradient of length {} into one of length {}",
            contribution.len(),
            self.len()
        );
        for (a, b) in self.iter_mut().zip(contribution) {
            a.accumulate(b);
        }
    }

    /// ```
    /// use autodiff_runtime::Accumulate;
    /// let mut adjoint = vec![0.0_f64; 3];
    /// adjoint.accumulate_read(vec![1.0, 2.0]);
    /// assert_eq!(adjoint, vec![1.0, 2.0]);
    /// ```
    fn accumulate_read(&mut self, contribution: Vec<T>) {
        if self.len() != contribution.len()
            && !contribution.is_empty()
            && self.iter().all(<T as Accumulate<T>>::is_zero_adjoint)
        {
            *self = contribution;
            return;
        }
        self.accumulate(contribution);
    }

    fn is_zero_adjoint(&self) -> bool {
        self.iter().all(<T as Accumulate<T>>::is_zero_adjoint)
    }
}

/// The gradient of a slice parameter (`fn det(m: &[[f64; 2]])`) handed an array (`det(&m)`
/// with `m: [[f64; 2]; 2]`), added elementwise into the array's adjoint; an empty gradient
/// stands for zero.
///
/// ```
/// use autodiff_runtime::Accumulate;
/// let mut adjoint = [[1.0_f64, 0.0], [0.0, 1.0]];
/// adjoint.accumulate(vec![[0.5, 0.5], [2.0, 0.0]]);
/// assert_eq!(adjoint, [[1.5, 0.5], [2.0, 1.0]]);
/// adjoint.accumulate(Vec::<[f64; 2]>::new());
/// assert_eq!(adjoint, [[1.5, 0.5], [2.0, 1.0]]);
/// ```
impl<T: Accumulate, const N: usize> Accumulate<Vec<T>> for [T; N] {
    fn accumulate(&mut self, contribution: Vec<T>) {
        add_elements(self, contribution, "an array");
    }
}

/// Adds `contribution` into `into` element by element (an empty one stands for zero);
/// panics on a length mismatch, naming what it was added into (`"an array"`, `"rows"`).
#[track_caller]
pub(crate) fn add_elements<T: Accumulate>(into: &mut [T], contribution: Vec<T>, what: &str) {
    if contribution.is_empty() {
        return;
    }
    assert_eq!(
        into.len(),
        contribution.len(),
        "gradient length mismatch: accumulating a gradient of length {} into {what} of length {}",
        contribution.len(),
        into.len()
    );
    for (a, b) in into.iter_mut().zip(contribution) {
        a.accumulate(b);
    }
}

/// Adds elementwise (arrays of floats, and arrays of arrays: a matrix `[[f64; 3]; 3]`).
impl<T: Accumulate, const N: usize> Accumulate for [T; N] {
    #[inline(always)]
    fn accumulate(&mut self, contribution: [T; N]) {
        for (a, b) in self.iter_mut().zip(contribution) {
            a.accumulate(b);
        }
    }
}

macro_rules! scalar_differentiable {
    ($($t:ty),*) => {$(
        impl Differentiable for $t {
            type Tangent = $t;
            #[inline(always)]
            fn zero_tangent(&self) -> $t {
                0.0
            }
            #[inline(always)]
            fn adjoint_zero(&self) -> $t {
                -0.0
            }
            #[inline(always)]
            fn finish_tangent(&self, tangent: $t) -> $t {
                tangent + 0.0
            }
            #[inline(always)]
            fn zero_tangents(values: &[$t]) -> Vec<$t> {
                let n = values.len();
                if n <= crate::pool::SMALL {
                    crate::pool::filled(0.0, n, || vec![0.0; n])
                } else {
                    vec![0.0; n]
                }
            }
        }
    )*};
}
scalar_differentiable!(f32, f64);

/// The unit value (the result of a function that writes its results through `&mut`
/// parameters) has a trivial tangent.
impl Differentiable for () {
    type Tangent = ();
    #[inline(always)]
    fn zero_tangent(&self) {}
}

impl Accumulate for () {
    #[inline(always)]
    fn accumulate(&mut self, _: ()) {}
}

/// A slice's tangent is a `Vec` of its elements' tangents (`Vec<f64>` for `[f64]`, a
/// `Vec` of layer tangents for a slice of derived layers).
impl<T: Differentiable> Differentiable for [T] {
    type Tangent = Vec<T::Tangent>;
    #[track_caller]
    fn check_tangent(&self, tangent: &Vec<T::Tangent>, at: &crate::forward::TangentPath<'_>) {
        at.check_len(self.len(), tangent.len());
        for (v, t) in self.iter().zip(tangent) {
            v.check_tangent(t, at);
        }
    }
    fn zero_tangent(&self) -> Vec<T::Tangent> {
        T::zero_tangents(self)
    }
    fn lazy_zero_tangent(&self) -> Vec<T::Tangent> {
        Vec::new()
    }
    fn complete_tangent(&self, tangent: &mut Vec<T::Tangent>) {
        complete_elements(self, tangent);
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    type Tangent = Vec<T::Tangent>;
    #[track_caller]
    fn check_tangent(&self, tangent: &Vec<T::Tangent>, at: &crate::forward::TangentPath<'_>) {
        at.check_len(self.len(), tangent.len());
        for (v, t) in self.iter().zip(tangent) {
            v.check_tangent(t, at);
        }
    }
    fn zero_tangent(&self) -> Vec<T::Tangent> {
        T::zero_tangents(self)
    }
    fn lazy_zero_tangent(&self) -> Vec<T::Tangent> {
        Vec::new()
    }
    fn complete_tangent(&self, tangent: &mut Vec<T::Tangent>) {
        complete_elements(self, tangent);
    }
}

/// An array's tangent is the array of its elements' tangents: `[f64; N]` for `[f64; N]`,
/// `[[f64; 3]; 3]` for a matrix written as nested arrays.
impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    type Tangent = [T::Tangent; N];
    #[track_caller]
    fn check_tangent(&self, tangent: &[T::Tangent; N], at: &crate::forward::TangentPath<'_>) {
        for (v, t) in self.iter().zip(tangent) {
            v.check_tangent(t, at);
        }
    }
    #[inline(always)]
    fn zero_tangent(&self) -> [T::Tangent; N] {
        core::array::from_fn(|k| self[k].zero_tangent())
    }
    #[inline(always)]
    fn adjoint_zero(&self) -> [T::Tangent; N] {
        core::array::from_fn(|k| self[k].adjoint_zero())
    }
    #[inline(always)]
    fn finish_tangent(&self, tangent: [T::Tangent; N]) -> [T::Tangent; N] {
        let mut k = 0;
        tangent.map(|t| {
            let finished = self[k].finish_tangent(t);
            k += 1;
            finished
        })
    }
}

/// An `Option`'s tangent is its value's: the value carries the gradient, `None` none (its
/// zero is the tangent type's default: `0.0`, an empty `Vec` that stands for zeros).
///
/// ```
/// use autodiff_runtime::Differentiable;
/// assert_eq!(Some(2.0_f64).zero_tangent(), 0.0);
/// assert_eq!(None::<Vec<f64>>.zero_tangent(), Vec::<f64>::new());
/// ```
impl<T: Differentiable> Differentiable for Option<T>
where
    T::Tangent: Default,
{
    type Tangent = T::Tangent;
    #[inline(always)]
    fn zero_tangent(&self) -> T::Tangent {
        match self {
            Some(v) => v.zero_tangent(),
            None => T::Tangent::default(),
        }
    }
    #[inline(always)]
    fn adjoint_zero(&self) -> T::Tangent {
        match self {
            Some(v) => v.adjoint_zero(),
            None => T::Tangent::default(),
        }
    }
    #[inline(always)]
    fn finish_tangent(&self, tangent: T::Tangent) -> T::Tangent {
        match self {
            Some(v) => v.finish_tangent(tangent),
            None => tangent,
        }
    }
}

/// A `Result`'s tangent is its value's: the error path carries no gradient.
///
/// ```
/// use autodiff_runtime::Differentiable;
/// assert_eq!(Ok::<f64, String>(2.0).zero_tangent(), 0.0);
/// assert_eq!(Err::<f32, String>("bad".into()).zero_tangent(), 0.0);
/// ```
impl<T: Differentiable, E> Differentiable for Result<T, E>
where
    T::Tangent: Default,
{
    type Tangent = T::Tangent;
    #[inline(always)]
    fn zero_tangent(&self) -> T::Tangent {
        match self {
            Ok(v) => v.zero_tangent(),
            Err(_) => T::Tangent::default(),
        }
    }
    #[inline(always)]
    fn adjoint_zero(&self) -> T::Tangent {
        match self {
            Ok(v) => v.adjoint_zero(),
            Err(_) => T::Tangent::default(),
        }
    }
    #[inline(always)]
    fn finish_tangent(&self, tangent: T::Tangent) -> T::Tangent {
        match self {
            Ok(v) => v.finish_tangent(tangent),
            Err(_) => tangent,
        }
    }
}

/// An empty gradient buffer (nothing reached it) becomes zeros; each element is completed.
fn complete_elements<T: Differentiable>(values: &[T], tangent: &mut Vec<T::Tangent>) {
    if tangent.is_empty() {
        *tangent = values.iter().map(Differentiable::zero_tangent).collect();
    }
    for (v, t) in values.iter().zip(tangent.iter_mut()) {
        v.complete_tangent(t);
    }
}

impl<T: Differentiable + ?Sized> Differentiable for &T {
    type Tangent = T::Tangent;
    #[inline(always)]
    fn zero_tangent(&self) -> T::Tangent {
        (**self).zero_tangent()
    }
    #[inline(always)]
    fn lazy_zero_tangent(&self) -> T::Tangent {
        (**self).lazy_zero_tangent()
    }
    #[inline(always)]
    fn complete_tangent(&self, tangent: &mut T::Tangent) {
        (**self).complete_tangent(tangent)
    }
    #[inline(always)]
    fn adjoint_zero(&self) -> T::Tangent {
        (**self).adjoint_zero()
    }
    #[inline(always)]
    fn finish_tangent(&self, tangent: T::Tangent) -> T::Tangent {
        (**self).finish_tangent(tangent)
    }
    #[inline(always)]
    #[track_caller]
    fn check_tangent(&self, tangent: &T::Tangent, at: &crate::forward::TangentPath<'_>) {
        (**self).check_tangent(tangent, at)
    }
}

impl<T: Differentiable + ?Sized> Differentiable for &mut T {
    type Tangent = T::Tangent;
    #[inline(always)]
    fn zero_tangent(&self) -> T::Tangent {
        (**self).zero_tangent()
    }
    #[inline(always)]
    fn lazy_zero_tangent(&self) -> T::Tangent {
        (**self).lazy_zero_tangent()
    }
    #[inline(always)]
    fn complete_tangent(&self, tangent: &mut T::Tangent) {
        (**self).complete_tangent(tangent)
    }
    #[inline(always)]
    fn adjoint_zero(&self) -> T::Tangent {
        (**self).adjoint_zero()
    }
    #[inline(always)]
    fn finish_tangent(&self, tangent: T::Tangent) -> T::Tangent {
        (**self).finish_tangent(tangent)
    }
}

/// A zero tangent shaped like `value`; what generated code initialises adjoints with.
///
/// ```
/// assert_eq!(autodiff_runtime::zero_tangent(&3.0_f64), 0.0);
/// ```
#[inline(always)]
pub fn zero_tangent<T: Differentiable + ?Sized>(value: &T) -> T::Tangent {
    value.zero_tangent()
}

/// [`Differentiable::lazy_zero_tangent`]: how generated code starts the gradient of a
/// struct parameter whose fields it reads.
#[doc(hidden)]
#[inline(always)]
pub fn lazy_zero_tangent<T: Differentiable + ?Sized>(value: &T) -> T::Tangent {
    value.lazy_zero_tangent()
}

/// [`Differentiable::adjoint_zero`].
#[doc(hidden)]
#[inline(always)]
pub fn adjoint_zero<T: Differentiable + ?Sized>(value: &T) -> T::Tangent {
    value.adjoint_zero()
}

/// [`Differentiable::finish_tangent`].
#[doc(hidden)]
#[inline(always)]
pub fn finish_tangent<T: Differentiable + ?Sized>(value: &T, tangent: T::Tangent) -> T::Tangent {
    value.finish_tangent(tangent)
}

/// [`Differentiable::complete_tangent`], returning the completed tangent.
#[doc(hidden)]
#[inline(always)]
pub fn complete_tangent<T: Differentiable + ?Sized>(
    value: &T,
    mut tangent: T::Tangent,
) -> T::Tangent {
    value.complete_tangent(&mut tangent);
    tangent
}

/// Setting a tangent back to zero in place, as the reverse sweep does when it passes an
/// assignment.
///
/// ```
/// use autodiff_runtime::Reset;
/// let mut g = vec![1.0_f64, 2.0];
/// assert_eq!(g.take_reset(), vec![1.0, 2.0]);
/// assert_eq!(g, vec![0.0, 0.0]);
/// ```
pub trait Reset: Sized {
    /// Makes `self` zero, keeping its shape.
    fn reset(&mut self);
    /// Returns the current value and leaves zero behind.
    fn take_reset(&mut self) -> Self;

    /// [`reset`](Reset::reset) as a reverse sweep does it: a float becomes `−0.0` (see
    /// [`Differentiable::adjoint_zero`]).
    #[doc(hidden)]
    #[inline(always)]
    fn reset_adjoint(&mut self) {
        self.reset();
    }

    /// [`take_reset`](Reset::take_reset) as a reverse sweep does it.
    #[doc(hidden)]
    #[inline(always)]
    fn take_reset_adjoint(&mut self) -> Self {
        self.take_reset()
    }
}

impl<T: Real> Reset for T {
    #[inline(always)]
    fn reset(&mut self) {
        *self = T::zero();
    }
    #[inline(always)]
    fn take_reset(&mut self) -> Self {
        core::mem::replace(self, T::zero())
    }
    #[inline(always)]
    fn reset_adjoint(&mut self) {
        *self = -T::zero();
    }
    #[inline(always)]
    fn take_reset_adjoint(&mut self) -> Self {
        core::mem::replace(self, -T::zero())
    }
}

impl<T: Reset> Reset for Vec<T> {
    fn reset(&mut self) {
        self.iter_mut().for_each(Reset::reset);
    }
    fn take_reset(&mut self) -> Self {
        self.iter_mut().map(Reset::take_reset).collect()
    }
}

impl<T: Reset, const N: usize> Reset for [T; N] {
    #[inline(always)]
    fn reset(&mut self) {
        self.iter_mut().for_each(Reset::reset);
    }
    #[inline(always)]
    fn take_reset(&mut self) -> Self {
        core::array::from_fn(|k| self[k].take_reset())
    }
    #[inline(always)]
    fn reset_adjoint(&mut self) {
        self.iter_mut().for_each(Reset::reset_adjoint);
    }
    #[inline(always)]
    fn take_reset_adjoint(&mut self) -> Self {
        core::array::from_fn(|k| self[k].take_reset_adjoint())
    }
}

macro_rules! tuple_tangents {
    ($(($($T:ident $i:tt),+))*) => {$(
        impl<$($T: Differentiable),+> Differentiable for ($($T,)+) {
            type Tangent = ($($T::Tangent,)+);
            fn zero_tangent(&self) -> Self::Tangent {
                ($(self.$i.zero_tangent(),)+)
            }
        }

        impl<$($T: Accumulate),+> Accumulate for ($($T,)+) {
            fn accumulate(&mut self, contribution: Self) {
                $(self.$i.accumulate(contribution.$i);)+
            }
        }

        impl<$($T: Reset),+> Reset for ($($T,)+) {
            fn reset(&mut self) {
                $(self.$i.reset();)+
            }
            fn take_reset(&mut self) -> Self {
                ($(self.$i.take_reset(),)+)
            }
        }
    )*};
}

// A tuple's tangent is the tuple of its elements' tangents (functions returning tuples).
tuple_tangents! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
}

macro_rules! integer_tangents {
    ($($t:ty),*) => {$(
        /// Integers are constants; their "tangent" is always zero. (An integer captured by
        /// differentiable code may flow through its arithmetic.)
        impl Differentiable for $t {
            type Tangent = $t;
            #[inline(always)]
            fn zero_tangent(&self) -> $t {
                0
            }
        }

        impl Accumulate for $t {
            #[inline(always)]
            fn accumulate(&mut self, _: $t) {}
        }

        impl Reset for $t {
            #[inline(always)]
            fn reset(&mut self) {}
            #[inline(always)]
            fn take_reset(&mut self) -> $t {
                0
            }
        }
    )*};
}
integer_tangents!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// A `bool` is a constant, like an integer; as the result of a function that writes its
/// differentiable results through `&mut` parameters (`fn converged(x: &mut f64, next: f64)
/// -> bool`), it carries nothing back.
impl Differentiable for bool {
    type Tangent = bool;
    #[inline(always)]
    fn zero_tangent(&self) -> bool {
        false
    }
}

impl Accumulate for bool {
    #[inline(always)]
    fn accumulate(&mut self, _: bool) {}
}

impl Reset for bool {
    #[inline(always)]
    fn reset(&mut self) {}
    #[inline(always)]
    fn take_reset(&mut self) -> bool {
        false
    }
}

/// A number a differentiable function takes through a type parameter bounded by a
/// conversion to or from a float type (`fn falling<T: Into<f64>>(x: T, k: usize)`), which
/// its derivative treats as a constant: integers and `bool` only. Handing such a parameter
/// a float from differentiable code would leave that float out of the gradient silently,
/// so it does not compile.
///
/// ```
/// fn constant<T: autodiff_runtime::ConstantNumber>(_: T) {}
/// constant(3usize);
/// constant(-2i32);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` handed to a parameter that `#[differentiable]` treats as a constant",
    label = "a float here would be left out of the gradient",
    note = "the parameter's type is a type parameter bounded by a conversion (`T: Into<f64>`), not a float type: give the parameter a float type (`x: f64`), or bound its type parameter by `Float` (`T: Float`), so that its derivative is computed"
)]
pub trait ConstantNumber {}

macro_rules! constant_numbers {
    ($($t:ty)*) => {$(
        impl ConstantNumber for $t {}
    )*};
}

constant_numbers!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize bool);
