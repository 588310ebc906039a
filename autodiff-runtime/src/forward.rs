//! Support for forward mode (`jvp!`): the zero tangents generated code hands to a callee
//! for arguments that do not depend on the inputs, the placement of the tangents
//! `params = [...]` selects, the shape checks of the tangents users pass, and the
//! compile-time refusal of functions forward mode cannot differentiate yet.
//!
//! Not a public API: generated code reaches it through the facade's hidden path. The
//! tangent formulas themselves are the rules of [`crate::ops`] (a scalar rule is linear in
//! its cotangent, so `ops::sin_d0(&x, &tx)` is also the tangent of `x.sin()`) and, for
//! values that may be arrays, [`crate::ops::tensor`]'s `*_t*` functions.

use crate::real::Real;
use crate::tangent::{Differentiable, NoTangent};
use ndarray::{Array, ArrayBase, ArrayView, Dimension, OwnedRepr, ViewRepr};

/// A value whose zero tangent generated code asks for, without knowing its type.
///
/// `(&&&Probe(&v)).zero()` resolves, in this order, to [`ScalarZero`] (a float, also a
/// type parameter bounded by `Real`), [`ArgZero`] (slices, `Vec`s, arrays, integers and
/// references to them) and [`NoZero`] (anything else: a constant, `NoTangent`).
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// The zero of a float (first choice of [`Probe`]).
pub trait ScalarZero {
    /// The zero tangent.
    type Zero;
    /// The zero tangent.
    fn zero(&self) -> Self::Zero;
}

impl<T: Real> ScalarZero for &&Probe<'_, T> {
    type Zero = T;
    #[inline(always)]
    fn zero(&self) -> T {
        T::zero()
    }
}

/// The zero of a value of a type with an [`ArgTangent`] (second choice of [`Probe`]).
pub trait ArgZero {
    /// The zero tangent.
    type Zero;
    /// The zero tangent.
    fn zero(&self) -> Self::Zero;
}

impl<T: ArgTangent + ?Sized> ArgZero for &Probe<'_, T> {
    type Zero = T::Zero;
    #[inline(always)]
    fn zero(&self) -> T::Zero {
        self.0.zero_arg()
    }
}

/// No tangent (last choice of [`Probe`]).
pub trait NoZero {
    /// [`NoTangent`].
    fn zero(&self) -> NoTangent;
}

impl<T: ?Sized> NoZero for Probe<'_, T> {
    #[inline(always)]
    fn zero(&self) -> NoTangent {
        NoTangent
    }
}

/// How a value of this type is passed as a zero tangent: the zero, owned, from which
/// [`Lend`] makes the argument.
pub trait ArgTangent {
    /// The owned zero.
    type Zero: Lend;
    /// The owned zero.
    fn zero_arg(&self) -> Self::Zero;
}

/// A zero owned for a parameter taken by reference: lent as `&zero`.
pub struct Borrowed<Z>(pub Z);

/// A zero array owned for a parameter that is a view: lent as its view.
pub struct Viewed<Z>(pub Z);

/// Values made of floats: a float, a float slice or `Vec`, an ndarray array, a derived
/// struct (the derive implements it). A reference to one is lent a zero of its own.
pub trait FloatValue: Differentiable {}
impl<T: Real> FloatValue for T {}
impl<T: Real> FloatValue for [T] {}
impl<T: Real> FloatValue for Vec<T> {}
impl<T: Real, const N: usize> FloatValue for [T; N] {}
impl<T: Real, const M: usize, const N: usize> FloatValue for [[T; M]; N] {}
impl<A: Real, S: ndarray::Data<Elem = A>, D: Dimension> FloatValue for ArrayBase<S, D> {}

impl<T: FloatValue + ?Sized> ArgTangent for &T {
    type Zero = Borrowed<T::Tangent>;
    fn zero_arg(&self) -> Borrowed<T::Tangent> {
        Borrowed((**self).zero_tangent())
    }
}

impl<T: Real> ArgTangent for Vec<T> {
    type Zero = Vec<T>;
    fn zero_arg(&self) -> Vec<T> {
        vec![T::zero(); self.len()]
    }
}

/// (An optional float, `xbar: Option<f64>`: its tangent is the float's, as
/// [`Differentiable`] has it.)
impl<T: Real> ArgTangent for Option<T> {
    type Zero = T;
    fn zero_arg(&self) -> T {
        T::zero()
    }
}

impl<T: Real, const N: usize> ArgTangent for [T; N] {
    type Zero = [T; N];
    fn zero_arg(&self) -> [T; N] {
        [T::zero(); N]
    }
}

/// (An array of arrays, `[[f64; 3]; 3]`: a zero of its shape.)
impl<T: Real, const M: usize, const N: usize> ArgTangent for [[T; M]; N] {
    type Zero = [[T; M]; N];
    fn zero_arg(&self) -> [[T; M]; N] {
        [[T::zero(); M]; N]
    }
}

impl<A: Real, D: Dimension> ArgTangent for ArrayBase<OwnedRepr<A>, D> {
    type Zero = Array<A, D>;
    fn zero_arg(&self) -> Array<A, D> {
        Array::zeros(self.raw_dim())
    }
}

impl<A: Real, D: Dimension> ArgTangent for ArrayBase<ViewRepr<&A>, D> {
    type Zero = Viewed<Array<A, D>>;
    fn zero_arg(&self) -> Viewed<Array<A, D>> {
        Viewed(Array::zeros(self.raw_dim()))
    }
}

/// Makes the argument a callee's tangent parameter takes from an owned zero.
pub trait Lend {
    /// The argument.
    type Out<'a>
    where
        Self: 'a;
    /// The argument.
    fn lend(&self) -> Self::Out<'_>;
}

impl<T: Real> Lend for T {
    type Out<'a> = T;
    #[inline(always)]
    fn lend(&self) -> T {
        *self
    }
}

impl Lend for NoTangent {
    type Out<'a> = NoTangent;
    #[inline(always)]
    fn lend(&self) -> NoTangent {
        NoTangent
    }
}

impl<Z> Lend for Borrowed<Z> {
    type Out<'a>
        = &'a Z
    where
        Z: 'a;
    #[inline(always)]
    fn lend(&self) -> &Z {
        &self.0
    }
}

impl<A: Real, D: Dimension> Lend for Viewed<Array<A, D>> {
    type Out<'a>
        = ArrayView<'a, A, D>
    where
        Self: 'a;
    fn lend(&self) -> ArrayView<'_, A, D> {
        self.0.view()
    }
}

impl<T: Clone> Lend for Vec<T> {
    type Out<'a>
        = Vec<T>
    where
        T: 'a;
    fn lend(&self) -> Vec<T> {
        self.clone()
    }
}

impl<T: Real, const N: usize> Lend for [T; N] {
    type Out<'a> = [T; N];
    fn lend(&self) -> [T; N] {
        *self
    }
}

impl<T: Real, const M: usize, const N: usize> Lend for [[T; M]; N] {
    type Out<'a> = [[T; M]; N];
    fn lend(&self) -> [[T; M]; N] {
        *self
    }
}

impl<A: Real, D: Dimension> Lend for Array<A, D> {
    type Out<'a>
        = Array<A, D>
    where
        Self: 'a;
    fn lend(&self) -> Array<A, D> {
        self.clone()
    }
}

/// The argument lent from an owned zero (see [`Lend`]).
/// A zero tangent that can be made a unit one (one at element `j`, in row-major order):
/// the tangents of `jacobian!`'s forward sweeps, one column each.
///
/// ```
/// use autodiff_runtime::forward::Unit;
/// let mut t = vec![0.0_f64; 3];
/// t.set_unit(1, true);
/// assert_eq!((t.count(), &t[..]), (3, &[0.0, 1.0, 0.0][..]));
/// ```
pub trait Unit {
    /// The number of elements.
    fn count(&self) -> usize;
    /// Sets element `j` to one (`on`) or back to zero.
    fn set_unit(&mut self, j: usize, on: bool);
}

fn unit_value<T: Real>(on: bool) -> T {
    if on {
        T::one()
    } else {
        T::zero()
    }
}

impl<T: Real> Unit for T {
    fn count(&self) -> usize {
        1
    }
    fn set_unit(&mut self, _: usize, on: bool) {
        *self = unit_value(on);
    }
}

impl<T: Real> Unit for Vec<T> {
    fn count(&self) -> usize {
        self.len()
    }
    fn set_unit(&mut self, j: usize, on: bool) {
        self[j] = unit_value(on);
    }
}

impl<T: Real, const N: usize> Unit for [T; N] {
    fn count(&self) -> usize {
        N
    }
    fn set_unit(&mut self, j: usize, on: bool) {
        self[j] = unit_value(on);
    }
}

impl<A: Real, D: Dimension> Unit for Array<A, D> {
    fn count(&self) -> usize {
        self.len()
    }
    fn set_unit(&mut self, j: usize, on: bool) {
        if let Some(x) = self.iter_mut().nth(j) {
            *x = unit_value(on);
        }
    }
}

impl<Z: Unit> Unit for Borrowed<Z> {
    fn count(&self) -> usize {
        self.0.count()
    }
    fn set_unit(&mut self, j: usize, on: bool) {
        self.0.set_unit(j, on);
    }
}

impl<Z: Unit> Unit for Viewed<Z> {
    fn count(&self) -> usize {
        self.0.count()
    }
    fn set_unit(&mut self, j: usize, on: bool) {
        self.0.set_unit(j, on);
    }
}

#[inline(always)]
pub fn lend<Z: Lend>(zero: &Z) -> Z::Out<'_> {
    zero.lend()
}

/// The argument lent from the zero made for a tangent `jvp!` was not given.
#[inline(always)]
pub fn lend_zero<Z: Lend>(zero: &Option<Z>) -> Z::Out<'_> {
    zero.as_ref().expect("a zero tangent").lend()
}

/// The shape of a value a tangent is checked against: a length, an array's shape, or
/// nothing to check (a scalar). Handed to a closure, so that checking it allocates nothing.
pub trait Shape {
    /// `f` of the shape (empty for a scalar).
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R;
}

impl<T> Shape for [T] {
    #[inline]
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R {
        f(&[self.len()])
    }
}

impl<T, const N: usize> Shape for [T; N] {
    #[inline]
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R {
        f(&[N])
    }
}

impl<T> Shape for Vec<T> {
    #[inline]
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R {
        f(&[self.len()])
    }
}

impl<S: ndarray::RawData, D: Dimension> Shape for ArrayBase<S, D> {
    #[inline]
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R {
        f(self.shape())
    }
}

impl<T: Shape + ?Sized> Shape for &T {
    #[inline]
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R {
        (**self).with_shape(f)
    }
}

impl<T: Shape + ?Sized> Shape for &mut T {
    #[inline]
    fn with_shape<R>(&self, f: impl FnOnce(&[usize]) -> R) -> R {
        (**self).with_shape(f)
    }
}

/// Panics, naming the parameter and both shapes, when a tangent does not have its
/// parameter's shape.
///
/// ```should_panic
/// autodiff_runtime::forward::check_shape(&[1.0_f64, 2.0][..], &[1.0_f64][..], "f", "x");
/// ```
#[inline]
#[track_caller]
pub fn check_shape<P: Shape + ?Sized, T: Shape + ?Sized>(
    param: &P,
    tangent: &T,
    function: &str,
    name: &str,
) {
    if !same_shape(param, tangent) {
        let (p, t) = shapes(param, tangent);
        TangentPath::root(function, name).mismatch(&p, &t);
    }
}

#[inline]
fn same_shape<P: Shape + ?Sized, T: Shape + ?Sized>(param: &P, tangent: &T) -> bool {
    param.with_shape(|p| tangent.with_shape(|t| p == t))
}

/// Both shapes, for a message (a mismatch only: this allocates).
#[cold]
#[inline(never)]
fn shapes<P: Shape + ?Sized, T: Shape + ?Sized>(
    param: &P,
    tangent: &T,
) -> (Vec<usize>, Vec<usize>) {
    (
        param.with_shape(<[usize]>::to_vec),
        tangent.with_shape(<[usize]>::to_vec),
    )
}

/// Panics, naming the parameter, the row and both shapes, when a tangent of a sequence of
/// sequences (`&[Vec<f64>]`, `Vec<[f64; 3]>`, `[[f64; 2]; 2]`) does not have its
/// parameter's shape: its number of rows, then each row's.
///
/// ```should_panic
/// let m = vec![vec![1.0_f64, 2.0], vec![3.0, 4.0]];
/// let t = vec![vec![1.0_f64, 2.0], vec![3.0]];
/// // "the tangent of `m[1]` (parameter of `f`) has shape [1], but `m[1]` has shape [2]"
/// autodiff_runtime::forward::check_rows(&m, &t, "f", "m");
/// ```
#[inline]
#[track_caller]
pub fn check_rows<A: Differentiable>(
    param: &[A],
    tangent: &[A::Tangent],
    function: &str,
    name: &str,
) {
    let at = TangentPath::root(function, name);
    at.check_len(param.len(), tangent.len());
    for (i, (v, t)) in param.iter().zip(tangent).enumerate() {
        v.check_tangent(t, &at.row(i));
    }
}

/// Panics, naming the struct and the field and both shapes, when a field of a vector (for
/// `hvp!` of a parameter of a derived struct) does not have the parameter's field's shape.
///
/// ```should_panic
/// autodiff_runtime::forward::check_field_shape(&[1.0_f64, 2.0][..], &[1.0_f64][..], "Mlp", "b");
/// ```
#[inline]
#[track_caller]
pub fn check_field_shape<P: Shape + ?Sized, T: Shape + ?Sized>(
    param: &P,
    vector: &T,
    strukt: &str,
    field: &str,
) {
    if !same_shape(param, vector) {
        let (p, t) = shapes(param, vector);
        panic!(
            "autodiff: the vector's field `{field}` (of a `{strukt}`) has shape {t:?}, but the \
             parameter's `{field}` has shape {p:?}"
        );
    }
}

/// Puts a tangent at position `K` of a tuple of `Option`al tangents (one per parameter).
pub trait PutAt<const K: usize> {
    /// The tangent's type.
    type Item;
    /// Puts it.
    fn put(&mut self, item: Self::Item);
}

macro_rules! put_at {
    ($([$($T:ident),+] => $(($K:tt $TK:ident))+;)*) => {
        $( put_at!(@each [$($T),+] $(($K $TK))+); )*
    };
    (@each $gens:tt $(($K:tt $TK:ident))+) => { $( put_at!(@one $gens $K $TK); )+ };
    (@one [$($T:ident),+] $K:tt $TK:ident) => {
        impl<$($T),+> PutAt<$K> for ($(Option<$T>,)+) {
            type Item = $TK;
            #[inline(always)]
            fn put(&mut self, item: $TK) {
                self.$K = Some(item);
            }
        }
    };
}

put_at! {
    [A] => (0 A);
    [A, B] => (0 A) (1 B);
    [A, B, C] => (0 A) (1 B) (2 C);
    [A, B, C, D] => (0 A) (1 B) (2 C) (3 D);
    [A, B, C, D, E] => (0 A) (1 B) (2 C) (3 D) (4 E);
    [A, B, C, D, E, F] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F);
    [A, B, C, D, E, F, G] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G);
    [A, B, C, D, E, F, G, H] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H);
    [A, B, C, D, E, F, G, H, I] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I);
    [A, B, C, D, E, F, G, H, I, J] => (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I) (9 J);
    [A, B, C, D, E, F, G, H, I, J, K] =>
        (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I) (9 J) (10 K);
    [A, B, C, D, E, F, G, H, I, J, K, L] =>
        (0 A) (1 B) (2 C) (3 D) (4 E) (5 F) (6 G) (7 H) (8 I) (9 J) (10 K) (11 L);
}

/// The tuple of `Option`al tangents, one per parameter, that a tuple of tangent types
/// names (`(f64, &[f64])` → `(Option<f64>, Option<&[f64]>)`): where `params = [...]`
/// places the selected tangents, `None` for the zeros.
pub trait Slots {
    /// The tuple of `Option`s.
    type Opts: Default;
}

macro_rules! slots {
    ($([$($T:ident),+])*) => {$(
        impl<$($T),+> Slots for ($($T,)+) {
            type Opts = ($(Option<$T>,)+);
        }
    )*};
}

// (a function of no parameters: a constant, `fn unit() -> f64`, called by others)
impl Slots for () {
    type Opts = ();
}

slots! {
    [A] [A, B] [A, B, C] [A, B, C, D] [A, B, C, D, E] [A, B, C, D, E, F]
    [A, B, C, D, E, F, G] [A, B, C, D, E, F, G, H] [A, B, C, D, E, F, G, H, I]
    [A, B, C, D, E, F, G, H, I, J] [A, B, C, D, E, F, G, H, I, J, K]
    [A, B, C, D, E, F, G, H, I, J, K, L]
}

macro_rules! scatter {
    ($($(#[$doc:meta])* $tr:ident: $sel:ident < $($K:ident),+ > ($($I:ident $t:ident),+);)*) => {$(
        $(#[$doc])*
        pub trait $tr<T: Slots> {
            $(
                /// The type of a selected tangent.
                type $I;
            )+
            /// The selected tangents in their slots, `None` elsewhere.
            #[allow(clippy::too_many_arguments)] // one a selected tangent, up to eight
            fn scatter($($t: Self::$I,)+) -> T::Opts;
        }

        impl<T: Slots, $(const $K: usize),+> $tr<T> for crate::select::$sel<$($K),+>
        where
            T::Opts: $(PutAt<$K> +)+,
        {
            $( type $I = <T::Opts as PutAt<$K>>::Item; )+
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn scatter($($t: Self::$I,)+) -> T::Opts {
                let mut into = T::Opts::default();
                $( <T::Opts as PutAt<$K>>::put(&mut into, $t); )+
                into
            }
        }
    )*};
}

scatter! {
    /// Places the tangent `params = [a]` selects into the tuple of `Option`al tangents,
    /// one per parameter, of a function whose tangent types are `T` (see [`Slots`]).
    Scatter1: Sel1<A>(I0 a);
    /// As [`Scatter1`], for two.
    Scatter2: Sel2<A, B>(I0 a, I1 b);
    /// As [`Scatter1`], for three.
    Scatter3: Sel3<A, B, C>(I0 a, I1 b, I2 c);
    /// As [`Scatter1`], for four.
    Scatter4: Sel4<A, B, C, D>(I0 a, I1 b, I2 c, I3 d);
    /// As [`Scatter1`], for five.
    Scatter5: Sel5<A, B, C, D, E>(I0 a, I1 b, I2 c, I3 d, I4 e);
    /// As [`Scatter1`], for six.
    Scatter6: Sel6<A, B, C, D, E, F>(I0 a, I1 b, I2 c, I3 d, I4 e, I5 f);
    /// As [`Scatter1`], for seven.
    Scatter7: Sel7<A, B, C, D, E, F, G>(I0 a, I1 b, I2 c, I3 d, I4 e, I5 f, I6 g);
    /// As [`Scatter1`], for eight.
    Scatter8: Sel8<A, B, C, D, E, F, G, H>(I0 a, I1 b, I2 c, I3 d, I4 e, I5 f, I6 g, I7 h);
}

/// How many calls down a function's forward-mode constant looks for a callee without forward
/// mode (a reason deeper down is the panic of that callee's tangent sweep, at run time).
#[doc(hidden)]
pub const CALL_DEPTH: u32 = 8;

/// Why a function has no forward mode, or `None`: the first of `reasons` that is one.
/// (A function's reason, then its callees'.)
pub const fn first_reason(reasons: &[Option<&'static str>]) -> Option<&'static str> {
    let mut i = 0;
    while i < reasons.len() {
        if let Some(r) = reasons[i] {
            return Some(r);
        }
        i += 1;
    }
    None
}

/// Why `hvp!` and `hessian!` refuse a function not generic over its float type (`{f}`: its
/// name).
pub const NOT_GENERIC: &str = "`{f}` is not generic over its float type: `hvp!` and \
    `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` \
    (a copy generic over the float type is written for them), or write it \
    `fn {f}<T: Float>(…) -> T` with `T` for its float type";

/// A compile-time error where a helper (`jvp!`, `hvp!`, `hessian!`) is used, when the
/// function cannot be served (yet): `reason` says why, `{f}` in it standing for the name
/// `function` is called by there.
pub const fn check_supported(reason: Option<&'static str>, function: &str) {
    if let Some(r) = reason {
        crate::select::Message::new()
            .push_naming(r, function)
            .fail();
    }
}

/// Where in a parameter a tangent's shape is checked: the parameter, or a field of a part
/// of it (`p.layer.w`), for a message naming it. Built on the stack, field by field: a
/// check allocates nothing unless it fails.
///
/// ```should_panic
/// use autodiff_runtime::{forward::TangentPath, Differentiable};
/// let root = TangentPath::root("f", "p");
/// vec![1.0_f64, 2.0].check_tangent(&vec![1.0], &root.field("b")); // `p.b`: [1] vs [2]
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TangentPath<'a> {
    function: &'a str,
    parent: Option<&'a TangentPath<'a>>,
    name: &'a str,
    /// A row of the parent (`name` is then empty): `rows[2]`.
    row: Option<usize>,
}

impl<'a> TangentPath<'a> {
    /// The parameter `param` of `function`.
    pub fn root(function: &'a str, param: &'a str) -> Self {
        TangentPath {
            function,
            parent: None,
            name: param,
            row: None,
        }
    }

    /// Its field `name`.
    pub fn field(&'a self, name: &'a str) -> TangentPath<'a> {
        TangentPath {
            function: self.function,
            parent: Some(self),
            name,
            row: None,
        }
    }

    /// Its row `i` (an element of a sequence of sequences).
    pub fn row(&'a self, i: usize) -> TangentPath<'a> {
        TangentPath {
            function: self.function,
            parent: Some(self),
            name: "",
            row: Some(i),
        }
    }

    /// `p.layer.w`, `rows[2]`.
    fn render(&self) -> String {
        match (self.parent, self.row) {
            (Some(parent), Some(i)) => format!("{}[{i}]", parent.render()),
            (Some(parent), None) => format!("{}.{}", parent.render(), self.name),
            (None, _) => self.name.to_string(),
        }
    }

    /// Panics unless a tangent of `tangent` elements has the `expected` length.
    #[inline]
    #[track_caller]
    pub fn check_len(&self, expected: usize, tangent: usize) {
        if expected != tangent {
            self.mismatch(&[expected], &[tangent]);
        }
    }

    /// Panics: the tangent of this part has shape `tangent`, the part has `expected`.
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub fn mismatch(&self, expected: &[usize], tangent: &[usize]) -> ! {
        let (name, function) = (self.render(), self.function);
        panic!(
            "autodiff: the tangent of `{name}` (parameter of `{function}`) has shape \
             {tangent:?}, but `{name}` has shape {expected:?}"
        );
    }
}

/// A zero owned for a parameter taken by value whose tangent is not a float or an array (a
/// derived struct's): lent as a copy.
pub struct Owned<Z>(pub Z);

impl<Z: Clone> Lend for Owned<Z> {
    type Out<'a>
        = Z
    where
        Z: 'a;
    fn lend(&self) -> Z {
        self.0.clone()
    }
}

/// A field read from a struct in a tangent sweep: its tangent, a field of the struct's.
/// A `#[no_grad]` field's is [`NoTangent`]: read as the zero of its value where the value
/// has one (a float, an array), so that arithmetic on it takes a zero, else as
/// `NoTangent` (an enum, a flag, read only for branching).
pub struct Member<'a, V: ?Sized, T>(pub &'a V, pub T);

/// The zero of a `#[no_grad]` field's value (see [`Member`]).
pub trait MemberZero {
    /// The tangent.
    type Out;
    /// The tangent.
    fn tangent(&self) -> Self::Out;
}

impl<V: Differentiable + ?Sized> MemberZero for &&Member<'_, V, NoTangent> {
    type Out = V::Tangent;
    #[inline(always)]
    fn tangent(&self) -> V::Tangent {
        self.0.zero_tangent()
    }
}

/// `NoTangent` for a `#[no_grad]` field of a type without tangents (see [`Member`]).
pub trait MemberNone {
    /// `NoTangent`.
    fn tangent(&self) -> NoTangent;
}

impl<V: ?Sized> MemberNone for &Member<'_, V, NoTangent> {
    #[inline(always)]
    fn tangent(&self) -> NoTangent {
        NoTangent
    }
}

/// The field's own tangent (see [`Member`]).
pub trait MemberTangent {
    /// The tangent.
    type Out;
    /// The tangent.
    fn tangent(&self) -> Self::Out;
}

/// (A field's tangent as `__autodiff_project!` reads it: a copy, or a reference.)
impl<V: ?Sized, T: Clone> MemberTangent for Member<'_, V, T> {
    type Out = T;
    #[inline(always)]
    fn tangent(&self) -> T {
        self.1.clone()
    }
}
