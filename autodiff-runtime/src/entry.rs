//! The gradient helpers' entry points written once, generic over a function's signature,
//! instead of once per function.
//!
//! `gradients_function!(f)`, `value_and_gradients_function!(f)` and
//! `accumulate_gradients!(f)` call `f::__gradients_function(selection)` (and so on). Written
//! for each function by the attribute, those three were a third of what a crate of
//! differentiable functions asked the compiler to check, whether or not any helper was ever
//! used. For a free function whose parameters are all float scalars, float slices or
//! constants the attribute now writes only its sweeps, as trait impls — [`Sig1`]…[`Sig8`]
//! (its output, the kinds of its parameters, their names), [`Reverse1`]… (its reverse
//! sweep, `__vjp_into`) and [`Forward1`]… (its tangent sweep, `__jvp`) — and everything
//! else is a default of [`Entries1`]…, [`JvpEntries1`]… and [`Defaults1`]…, which every
//! such function has through blanket `impl`s: they are compiled where a helper is used,
//! and nowhere else. (Generated code that reaches them glob-imports [`traits`]; a function
//! with items of its own — generic, a method, a parameter of another kind — keeps them,
//! and inherent items are found first.)
//!
//! Not a public API: generated code reaches it through the facade's hidden path.
//!
//! ```
//! use autodiff_runtime::entry::{Kind, Scalar, Slice};
//!
//! // a slice's gradient is added into a buffer of its own (allocated when selected) …
//! let x = [1.0_f64, 2.0, 3.0];
//! let mut buffer = <Slice<f64> as Kind>::buffer(&&x[..], true);
//! assert_eq!(buffer, vec![0.0; 3]);
//! let mut shadow = <Slice<f64> as Kind>::shadow(&mut buffer, true);
//! shadow[1] += 5.0; // what a reverse sweep does
//! let gradient = <Slice<f64> as Kind>::finish(buffer, autodiff_runtime::NoTangent);
//! assert_eq!(gradient, vec![0.0, 5.0, 0.0]);
//!
//! // … a float's is what the pullback returns
//! assert_eq!(<Scalar<f64> as Kind>::finish((), 2.5), 2.5);
//! ```

use crate::jacobian::{by_rows, JacobianFor};
use crate::select::{ScalarOutputFor, Scatter, Select};
use crate::shadow::{Ignored, SliceShadow};
use crate::{Accumulate, Differentiable, NoTangent, Real};
use core::marker::PhantomData;

/// How one parameter's gradient travels: what the caller passes, the shadow its pullback
/// takes, what the pullback returns for it, and the gradient a helper hands back.
pub trait Kind {
    /// The argument's type, borrowing for `'a` (copied for each row of a Jacobian).
    type Arg<'a>: Copy;
    /// Its slot among `jvp!`'s tangents: the argument's type, or `NoTangent` for a
    /// parameter that gets none.
    type Slot<'a>;
    /// The shadow the reverse sweep adds this parameter's gradient into (or `Ignored`).
    type Shadow<'s>;
    /// What the pullback returns at this position.
    type Pulled;
    /// The gradient `gradients_function!` hands back.
    type Grad;
    /// The buffer `value_and_gradients_function!` allocates for it (or `()`).
    type Buf;
    /// The buffer a caller of `accumulate_gradients!` hands over for it.
    type Into<'g>;
    /// What `accumulate_gradients!` adds into after the pullback (for a returned gradient).
    type Later<'g>;
    /// The buffer of a selected (`picked`) parameter.
    fn buffer(arg: &Self::Arg<'_>, picked: bool) -> Self::Buf;
    /// The shadow of `buf`.
    fn shadow(buf: &mut Self::Buf, picked: bool) -> Self::Shadow<'_>;
    /// The gradient, from the buffer and what the pullback returned.
    fn finish(buf: Self::Buf, pulled: Self::Pulled) -> Self::Grad;
    /// The shadow of a caller's buffer (checked against the argument), and what to add
    /// into after the pullback.
    fn caller<'g>(
        function: &str,
        param: &str,
        arg: &Self::Arg<'_>,
        into: Option<Self::Into<'g>>,
    ) -> (Self::Shadow<'g>, Self::Later<'g>);
    /// Adds a returned gradient into the caller's buffer.
    fn after(later: Self::Later<'_>, pulled: Self::Pulled);
    /// Whether the parameter gets a gradient (and a tangent).
    const DIFFERENTIABLE: bool;
    /// What a `__vjp_reborrow` pullback is handed again at this position (see
    /// [`again`](crate::again)).
    type Again<'s>;
    /// The zero tangent `jvp!` lends a parameter it was given no tangent for.
    type Zero: 'static;
    /// The zero tangent of `arg` when `absent` (nothing to make otherwise).
    fn zero(arg: &Self::Arg<'_>, absent: bool) -> Self::Zero;
    /// The tangent the sweep takes: the one given (its shape checked against `arg`'s,
    /// naming the parameter), or `zero`'s.
    fn tangent<'g: 't, 't>(
        arg: &Self::Arg<'_>,
        given: Option<Self::Slot<'g>>,
        zero: &'t Self::Zero,
        function: &str,
        param: &str,
    ) -> Self::Slot<'t>;
}

/// A float parameter taken by value: its gradient is returned by the pullback.
pub struct Scalar<T>(PhantomData<T>);

impl<T: Real + Differentiable<Tangent = T>> Kind for Scalar<T> {
    type Arg<'a> = T;
    type Slot<'a> = T;
    type Shadow<'s> = Ignored;
    type Pulled = T;
    type Grad = T;
    type Buf = ();
    type Into<'g> = &'g mut T;
    type Later<'g> = Option<&'g mut T>;
    #[inline(always)]
    fn buffer(_: &T, _: bool) {}
    #[inline(always)]
    fn shadow(_: &mut (), _: bool) -> Ignored {
        Ignored
    }
    #[inline(always)]
    fn finish(_: (), pulled: T) -> T {
        pulled
    }
    #[inline(always)]
    fn caller<'g>(
        _: &str,
        _: &str,
        _: &T,
        into: Option<Self::Into<'g>>,
    ) -> (Self::Shadow<'g>, Self::Later<'g>) {
        (Ignored, into)
    }
    #[inline(always)]
    fn after(later: Option<&mut T>, pulled: T) {
        if let Some(b) = later {
            Accumulate::accumulate(b, pulled);
        }
    }
    const DIFFERENTIABLE: bool = true;
    type Again<'s> = crate::again::Val<T>;
    type Zero = ();
    #[inline(always)]
    fn zero(_: &T, _: bool) {}
    #[inline(always)]
    fn tangent<'g: 't, 't>(arg: &T, given: Option<T>, _: &'t (), _: &str, _: &str) -> T {
        match given {
            Some(t) => t,
            None => arg.zero_tangent(),
        }
    }
}

/// A float slice parameter (`&[f64]`): the reverse sweep adds its gradient into a shadow.
pub struct Slice<E>(PhantomData<E>);

impl<E: Real + Differentiable<Tangent = E>> Kind for Slice<E> {
    type Arg<'a> = &'a [E];
    type Slot<'a> = &'a [E];
    type Shadow<'s> = SliceShadow<'s, E>;
    type Pulled = NoTangent;
    type Grad = Vec<E>;
    type Buf = Vec<E>;
    type Into<'g> = &'g mut [E];
    type Later<'g> = ();
    #[inline(always)]
    fn buffer(arg: &&[E], picked: bool) -> Vec<E> {
        if picked {
            crate::adjoint_zero::<[E]>(arg)
        } else {
            Vec::new()
        }
    }
    #[inline(always)]
    fn shadow(buf: &mut Vec<E>, picked: bool) -> SliceShadow<'_, E> {
        if picked {
            crate::shadow::sink(buf)
        } else {
            SliceShadow::default()
        }
    }
    #[inline(always)]
    fn finish(buf: Vec<E>, _: NoTangent) -> Vec<E> {
        buf
    }
    #[inline(always)]
    fn caller<'g>(
        function: &str,
        param: &str,
        arg: &&[E],
        into: Option<Self::Into<'g>>,
    ) -> (Self::Shadow<'g>, Self::Later<'g>) {
        match into {
            Some(b) => (crate::shadow::caller_buffer(function, param, *arg, b), ()),
            None => (SliceShadow::default(), ()),
        }
    }
    #[inline(always)]
    fn after(_: (), _: NoTangent) {}
    const DIFFERENTIABLE: bool = true;
    type Again<'s> = crate::again::Ref<'s, [E]>;
    type Zero = Vec<E>;
    #[inline(always)]
    fn zero(arg: &&[E], absent: bool) -> Vec<E> {
        if absent {
            E::zero_tangents(arg)
        } else {
            Vec::new()
        }
    }
    #[inline(always)]
    fn tangent<'g: 't, 't>(
        arg: &&[E],
        given: Option<&'g [E]>,
        zero: &'t Vec<E>,
        function: &str,
        param: &str,
    ) -> &'t [E] {
        match given {
            Some(t) => {
                crate::forward::check_shape(*arg, t, function, param);
                t
            }
            None => zero,
        }
    }
}

/// A [`Slice`] argument, as a function's `Reverse{n}` and `Forward{n}` impls write it: the
/// trait's lifetime is bound where the function is called (early), as the trait's is.
pub type SliceArg<'a, E> = <Slice<E> as Kind>::Arg<'a>;

/// A [`Slice`] parameter's tangent, as a function's `Forward{n}` impl writes it.
pub type SliceSlot<'t, E> = <Slice<E> as Kind>::Slot<'t>;

/// A [`ConstantSlice`] argument, as a function's `Reverse{n}` and `Forward{n}` impls write it.
pub type ConstantSliceArg<'a, E> = <ConstantSlice<E> as Kind>::Arg<'a>;

/// A parameter that gets no gradient, taken by value (a count, a flag, a `#[no_grad]`
/// float): a constant to the sweeps.
pub struct Constant<T>(PhantomData<T>);

/// A shared slice that gets no gradient (`#[no_grad] data: &[f64]`, indices `&[usize]`).
pub struct ConstantSlice<E>(PhantomData<E>);

/// The [`Kind`] of a parameter that gets no gradient, its argument `$arg` (borrowing for
/// `$a`): no shadow, no buffer, `NoTangent` everywhere.
macro_rules! constant_kind {
    ($name:ident<$t:ident: [$($bound:tt)+]>, $a:lifetime => $arg:ty, $again:ty) => {
        impl<$t: $($bound)+> Kind for $name<$t> {
            type Arg<$a> = $arg;
            type Slot<$a> = NoTangent;
            type Shadow<'s> = Ignored;
            type Pulled = NoTangent;
            type Grad = NoTangent;
            type Buf = ();
            type Into<'g> = &'g mut NoTangent;
            type Later<'g> = ();
            #[inline(always)]
            fn buffer(_: &Self::Arg<'_>, _: bool) {}
            #[inline(always)]
            fn shadow(_: &mut (), _: bool) -> Ignored {
                Ignored
            }
            #[inline(always)]
            fn finish(_: (), _: NoTangent) -> NoTangent {
                NoTangent
            }
            #[inline(always)]
            fn caller<'g>(
                _: &str,
                _: &str,
                _: &Self::Arg<'_>,
                _: Option<Self::Into<'g>>,
            ) -> (Self::Shadow<'g>, Self::Later<'g>) {
                (Ignored, ())
            }
            #[inline(always)]
            fn after(_: (), _: NoTangent) {}
            const DIFFERENTIABLE: bool = false;
            type Again<'s> = $again;
            type Zero = ();
            #[inline(always)]
            fn zero(_: &Self::Arg<'_>, _: bool) {}
            #[inline(always)]
            fn tangent<'g: 't, 't>(
                _: &Self::Arg<'_>,
                _: Option<NoTangent>,
                _: &'t (),
                _: &str,
                _: &str,
            ) -> NoTangent {
                NoTangent
            }
        }
    };
}

constant_kind!(Constant<T: [Copy]>, 'a => T, crate::again::Val<T>);
constant_kind!(ConstantSlice<E: [Copy + 'static]>, 'a => &'a [E], crate::again::Ref<'s, [E]>);

/// What `vjp!`'s pullback returns: one gradient bare, several as a tuple.
macro_rules! selected_type {
    (one; $K:ident) => { <Self::$K as Kind>::Grad };
    (many; $($K:ident),+) => { ($(<Self::$K as Kind>::Grad,)+) };
}

/// [`selected_type`]'s value, from the gradients.
macro_rules! selected_value {
    (one; $g:ident) => { $g };
    (many; $($g:ident),+) => { ($($g,)+) };
}

/// `hvp!(f, params = [...])`'s closure with the selection `$I`, for a refused function:
/// never made.
macro_rules! refused_sel {
    ($name:ident, ($($K:ident),+), ($($I:ident),+)) => {
        #[doc = concat!("`hvp!` with ", stringify!($($I),+), " selected: never made.")]
        fn $name<'a, S, $($I),+>(_selection: S) -> fn($(<Self::$K as Kind>::Arg<'a>,)+ $($I),+) -> ! {
            unreachable!()
        }
    };
}

macro_rules! entries {
    ($doc:literal, $Sig:ident, $Reverse:ident, $Entries:ident, $Defaults:ident, $SelAll:ident,
     $n:literal,
     $shape:ident;
     $(($K:ident, $a:ident, $b:ident, $s:ident, $g:ident, $l:ident, $i:tt, $lt:lifetime)),+) => {
        #[doc = concat!("A function of ", $doc, ": its output, the kinds of its parameters, their names.")]
        pub trait $Sig {
            /// The function's output (a float).
            type Out: Differentiable;
            $(
                #[doc = concat!("The kind of parameter ", stringify!($i), ".")]
                type $K: Kind;
            )+
            /// The function's name, for messages.
            const NAME: &'static str;
            /// The parameters' names, for messages.
            const PARAMS: [&'static str; $n];
        }

        #[doc = concat!("A [`", stringify!($Sig), "`] function's reverse sweep.")]
        pub trait $Reverse: $Sig {
            /// The value, and the pullback adding the gradients of slices into their
            /// shadows and returning the others'.
            /// (Each argument's lifetime its own, as the function's are: the pullback
            /// captures each; and one that all of them outlive, for a local borrowing
            /// either of two arguments, whose lifetime is shorter than both.)
            #[allow(clippy::too_many_arguments)]
            fn __vjp_into<$($lt: 'all,)+ 'all>($($a: <Self::$K as Kind>::Arg<$lt>),+) -> (
                Self::Out,
                impl for<'s> FnOnce(
                    <Self::Out as Differentiable>::Tangent,
                    $(<Self::$K as Kind>::Shadow<'s>),+
                ) -> ($(<Self::$K as Kind>::Pulled,)+),
            );
        }

        #[doc = concat!("What every [`", stringify!($Sig), "`] function has unless it writes its own: its signature for `params = [...]`, the selection of all its parameters, and what `hvp!` and `hessian!` find of a function not generic over its float type — the reason they refuse it, and closures of the types they return, for the call to type-check while the reason is reported.")]
        pub trait $Defaults: $Sig + Sized {
            /// The parameters' names and which get gradients, for `params = [...]`.
            const __SIGNATURE: crate::select::Signature = crate::select::Signature {
                function: Self::NAME,
                names: &Self::PARAMS,
                constants: &[],
                flags: &[$(<Self::$K as Kind>::DIFFERENTIABLE),+],
            };
            /// Every parameter selected (a function with constants has its own).
            #[inline(always)]
            fn __all() -> crate::select::$SelAll<$($i),+> {
                crate::select::$SelAll
            }
            /// Why `hvp!` refuses the function (`{f}`: its name).
            const __HVP: Option<&'static str> = Some(crate::forward::NOT_GENERIC);
            /// Why `hessian!` refuses the function.
            const __HESSIAN: Option<&'static str> = Some(crate::forward::NOT_GENERIC);
            /// `hvp!(f)`'s closure: never made.
            #[allow(clippy::type_complexity)]
            fn __hvp_function<'a>() -> fn(
                $(<Self::$K as Kind>::Arg<'a>,)+
                $(<Self::$K as Kind>::Slot<'a>),+
            ) -> ! {
                unreachable!()
            }
            /// `hessian!(f)`'s closure: never made.
            fn __hessian_function<'a>() -> fn($(<Self::$K as Kind>::Arg<'a>),+) -> ! {
                unreachable!()
            }
            /// `hessian!(f, params = [...])`'s closure: never made.
            fn __hessian_sel1<'a, S>(_selection: S) -> fn($(<Self::$K as Kind>::Arg<'a>),+) -> ! {
                unreachable!()
            }
            refused_sel!(__hvp_sel1, ($($K),+), (I0));
            refused_sel!(__hvp_sel2, ($($K),+), (I0, I1));
            refused_sel!(__hvp_sel3, ($($K),+), (I0, I1, I2));
            refused_sel!(__hvp_sel4, ($($K),+), (I0, I1, I2, I3));
            refused_sel!(__hvp_sel5, ($($K),+), (I0, I1, I2, I3, I4));
            refused_sel!(__hvp_sel6, ($($K),+), (I0, I1, I2, I3, I4, I5));
            refused_sel!(__hvp_sel7, ($($K),+), (I0, I1, I2, I3, I4, I5, I6));
            refused_sel!(__hvp_sel8, ($($K),+), (I0, I1, I2, I3, I4, I5, I6, I7));
        }

        impl<F: $Sig> $Defaults for F {}

        #[doc = concat!("The gradient helpers' entry points of every [`", stringify!($Sig), "`] function.")]
        pub trait $Entries: $Reverse + Sized {
            /// Why `jacobian!` refuses the function: never (a float output).
            const __JACOBIAN: Option<&'static str> = None;

            /// The value, and a pullback handed the arguments again after the shadows (a
            /// function of values only, which it needs not: its `__vjp_into`'s).
            #[inline(always)]
            #[allow(clippy::too_many_arguments, clippy::type_complexity, unused_variables)]
            fn __vjp_reborrow<'a>($($a: <Self::$K as Kind>::Arg<'a>),+) -> (
                Self::Out,
                impl for<'s> FnOnce(
                    <Self::Out as Differentiable>::Tangent,
                    $(<Self::$K as Kind>::Shadow<'s>,)+
                    $(<Self::$K as Kind>::Again<'s>),+
                ) -> ($(<Self::$K as Kind>::Pulled,)+),
            ) {
                let (value, pullback) = Self::__vjp_into($($a),+);
                (value, #[inline(always)] move |dy, $($s,)+ $($l),+| pullback(dy, $($s),+))
            }

            /// `value_and_gradients_function!`: the value and the selected gradients;
            /// buffers only for the selected slices.
            #[inline]
            fn __value_and_gradients_function<S>(
                _selection: S,
            ) -> impl for<'a> Fn($(<Self::$K as Kind>::Arg<'a>),+) -> (
                Self::Out,
                <S as Select<($(Option<<Self::$K as Kind>::Grad>,)+)>>::Output,
            )
            where
                S: Select<($(Option<<Self::$K as Kind>::Grad>,)+)> + ScalarOutputFor<Self::Out>,
            {
                let picks = |i: usize| {
                    <S as Select<($(Option<<Self::$K as Kind>::Grad>,)+)>>::picks(i)
                };
                move |$($a),+| {
                    $(let mut $b = <Self::$K as Kind>::buffer(&$a, picks($i));)+
                    let (value, pullback) = Self::__vjp_into($($a),+);
                    let ($($g,)+) = pullback(
                        <S as ScalarOutputFor<Self::Out>>::seed(),
                        $(<Self::$K as Kind>::shadow(&mut $b, picks($i))),+
                    );
                    (
                        value,
                        <S as Select<($(Option<<Self::$K as Kind>::Grad>,)+)>>::select((
                            $(Some(<Self::$K as Kind>::finish($b, $g)),)+
                        )),
                    )
                }
            }

            /// `gradients_function!`: the value and gradients closure without the value.
            #[inline]
            fn __gradients_function<S>(
                selection: S,
            ) -> impl for<'a> Fn($(<Self::$K as Kind>::Arg<'a>),+)
                -> <S as Select<($(Option<<Self::$K as Kind>::Grad>,)+)>>::Output
            where
                S: Select<($(Option<<Self::$K as Kind>::Grad>,)+)> + ScalarOutputFor<Self::Out>,
            {
                let value_and_gradients = Self::__value_and_gradients_function(selection);
                move |$($a),+| value_and_gradients($($a),+).1
            }

            /// `accumulate_gradients!`: the value; the selected gradients added into the
            /// caller's buffers.
            #[inline]
            fn __accumulate_gradients<S>(
                _selection: S,
            ) -> impl for<'a, 'g> Fn(
                $(<Self::$K as Kind>::Arg<'a>,)+
                <S as Scatter<($(Option<<Self::$K as Kind>::Into<'g>>,)+)>>::Input,
            ) -> Self::Out
            where
                S: for<'g> Scatter<($(Option<<Self::$K as Kind>::Into<'g>>,)+)>
                    + ScalarOutputFor<Self::Out>,
            {
                move |$($a,)+ buffers| {
                    let ($($b,)+) =
                        <S as Scatter<($(Option<<Self::$K as Kind>::Into<'_>>,)+)>>::scatter(
                            buffers,
                        );
                    $(
                        let ($s, $l) = <Self::$K as Kind>::caller(
                            Self::NAME,
                            Self::PARAMS[$i],
                            &$a,
                            $b,
                        );
                    )+
                    let (value, pullback) = Self::__vjp_into($($a),+);
                    let ($($g,)+) = pullback(<S as ScalarOutputFor<Self::Out>>::seed(), $($s),+);
                    $(<Self::$K as Kind>::after($l, $g);)+
                    value
                }
            }

            /// The value and a pullback returning every gradient (each slice's in a
            /// buffer of its own).
            #[inline]
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            fn __vjp<'a>($($a: <Self::$K as Kind>::Arg<'a>),+) -> (
                Self::Out,
                impl FnOnce(<Self::Out as Differentiable>::Tangent)
                    -> ($(<Self::$K as Kind>::Grad,)+),
            ) {
                $(let mut $b = <Self::$K as Kind>::buffer(&$a, true);)+
                let (value, pullback) = Self::__vjp_into($($a),+);
                (value, move |dy| {
                    let ($($g,)+) = pullback(dy, $(<Self::$K as Kind>::shadow(&mut $b, true)),+);
                    ($(<Self::$K as Kind>::finish($b, $g),)+)
                })
            }

            /// The value and every gradient for the output's cotangent `dy`, as a fused
            /// function's own `__seeded` returns them (a function with a fused sweep has
            /// one, found first): here its forward sweep, then its pullback. What a function
            /// whose body is one call of another hands the call on to (`fuse::tail`).
            #[inline]
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            fn __seeded<'a>(
                $($a: <Self::$K as Kind>::Arg<'a>,)+
                dy: <Self::Out as Differentiable>::Tangent,
            ) -> (Self::Out, ($(<Self::$K as Kind>::Grad,)+)) {
                let (value, pullback) = Self::__vjp($($a),+);
                (value, pullback(dy))
            }

            /// `vjp!`: the value and a pullback returning the gradients (one bare).
            #[inline]
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            fn __vjp_selected<'a>($($a: <Self::$K as Kind>::Arg<'a>),+) -> (
                Self::Out,
                impl FnOnce(<Self::Out as Differentiable>::Tangent)
                    -> selected_type!($shape; $($K),+),
            ) {
                let (value, pullback) = Self::__vjp($($a),+);
                (value, move |dy| {
                    let ($($g,)+) = pullback(dy);
                    selected_value!($shape; $($g),+)
                })
            }

            /// `jacobian!` of a float output: one row, by the pullback.
            #[inline]
            #[allow(clippy::type_complexity)]
            fn __jacobian_function<S>(
                _selection: S,
            ) -> impl for<'a> Fn($(<Self::$K as Kind>::Arg<'a>),+) -> ndarray::Array2<
                <S as JacobianFor<
                    ($(Option<<Self::$K as Kind>::Grad>,)+),
                    Self::Out,
                    <Self::Out as Differentiable>::Tangent,
                >>::Elem,
            >
            where
                S: JacobianFor<
                    ($(Option<<Self::$K as Kind>::Grad>,)+),
                    Self::Out,
                    <Self::Out as Differentiable>::Tangent,
                >,
            {
                move |$($a),+| {
                    let (value, pullback) = Self::__vjp($($a),+);
                    by_rows::<
                        S,
                        ($(Option<<Self::$K as Kind>::Grad>,)+),
                        Self::Out,
                        <Self::Out as Differentiable>::Tangent,
                    >(
                        &value,
                        Self::NAME,
                        move |c| {
                            let ($($g,)+) = pullback(c);
                            ($(Some($g),)+)
                        },
                        |c| {
                            let (_, pullback) = Self::__vjp($($a),+);
                            let ($($g,)+) = pullback(c);
                            ($(Some($g),)+)
                        },
                    )
                }
            }
        }

        impl<F: $Reverse> $Entries for F {}
    };
}

entries!("one parameter", Sig1, Reverse1, Entries1, Defaults1, Sel1, 1,
    one;
    (K0, a0, b0, s0, g0, l0, 0, 'a0));
entries!("two parameters", Sig2, Reverse2, Entries2, Defaults2, Sel2, 2,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1));
entries!("three parameters", Sig3, Reverse3, Entries3, Defaults3, Sel3, 3,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1), (K2, a2, b2, s2, g2, l2, 2, 'a2));
entries!("four parameters", Sig4, Reverse4, Entries4, Defaults4, Sel4, 4,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1), (K2, a2, b2, s2, g2, l2, 2, 'a2),
    (K3, a3, b3, s3, g3, l3, 3, 'a3));
entries!("five parameters", Sig5, Reverse5, Entries5, Defaults5, Sel5, 5,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1), (K2, a2, b2, s2, g2, l2, 2, 'a2),
    (K3, a3, b3, s3, g3, l3, 3, 'a3), (K4, a4, b4, s4, g4, l4, 4, 'a4));
entries!("six parameters", Sig6, Reverse6, Entries6, Defaults6, Sel6, 6,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1), (K2, a2, b2, s2, g2, l2, 2, 'a2),
    (K3, a3, b3, s3, g3, l3, 3, 'a3), (K4, a4, b4, s4, g4, l4, 4, 'a4), (K5, a5, b5, s5, g5, l5, 5, 'a5));
entries!("seven parameters", Sig7, Reverse7, Entries7, Defaults7, Sel7, 7,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1), (K2, a2, b2, s2, g2, l2, 2, 'a2),
    (K3, a3, b3, s3, g3, l3, 3, 'a3), (K4, a4, b4, s4, g4, l4, 4, 'a4), (K5, a5, b5, s5, g5, l5, 5, 'a5),
    (K6, a6, b6, s6, g6, l6, 6, 'a6));
entries!("eight parameters", Sig8, Reverse8, Entries8, Defaults8, Sel8, 8,
    many;
    (K0, a0, b0, s0, g0, l0, 0, 'a0), (K1, a1, b1, s1, g1, l1, 1, 'a1), (K2, a2, b2, s2, g2, l2, 2, 'a2),
    (K3, a3, b3, s3, g3, l3, 3, 'a3), (K4, a4, b4, s4, g4, l4, 4, 'a4), (K5, a5, b5, s5, g5, l5, 5, 'a5),
    (K6, a6, b6, s6, g6, l6, 6, 'a6), (K7, a7, b7, s7, g7, l7, 7, 'a7));

/// `jvp!(f, params = [...])` with `k` selected tangents: the arguments, then the selected
/// tangents, placed in their slots by the selection.
macro_rules! jvp_sel {
    ($name:ident, $Scatter:ident, ($($K:ident $a:ident),+), ($($I:ident $s:ident),+)) => {
        #[doc = concat!("`jvp!` with the selection `", stringify!($Scatter), "` places.")]
        #[inline]
        #[allow(clippy::type_complexity)]
        fn $name<'a, S>(
            _selection: S,
        ) -> impl Fn($(<Self::$K as Kind>::Arg<'a>,)+ $(S::$I),+)
            -> (Self::Out, <Self::Out as Differentiable>::Tangent)
        where
            S: crate::forward::$Scatter<($(<Self::$K as Kind>::Slot<'a>,)+)>,
        {
            move |$($a,)+ $($s),+| Self::jvp_opts($($a,)+ S::scatter($($s),+))
        }
    };
}

macro_rules! jvp_entries {
    ($Sig:ident, $Forward:ident, $Entries:ident;
     $(($K:ident, $a:ident, $t:ident, $z:ident, $i:tt)),+) => {
        #[doc = concat!("A [`", stringify!($Sig), "`] function's tangent sweep.")]
        pub trait $Forward: $Sig {
            /// The value and the tangent, from the arguments and their tangents
            /// (`NoTangent` for a constant).
            #[allow(clippy::too_many_arguments)]
            fn __jvp<'a, 't>(
                $($a: <Self::$K as Kind>::Arg<'a>,)+
                $($t: <Self::$K as Kind>::Slot<'t>),+
            ) -> (Self::Out, <Self::Out as Differentiable>::Tangent);
        }

        #[doc = concat!("`jvp!`'s entry points of every [`", stringify!($Forward), "`] function.")]
        pub trait $Entries: $Forward + Sized {
            /// The value and the tangent, from the tangents given in their slots (zeros
            /// for the others; each given one's shape checked against its argument's).
            #[inline]
            #[allow(clippy::type_complexity, clippy::too_many_arguments)]
            fn jvp_opts<'a>(
                $($a: <Self::$K as Kind>::Arg<'a>,)+
                opts: ($(Option<<Self::$K as Kind>::Slot<'a>>,)+),
            ) -> (Self::Out, <Self::Out as Differentiable>::Tangent) {
                let ($($t,)+) = opts;
                $(let $z = <Self::$K as Kind>::zero(&$a, $t.is_none());)+
                Self::__jvp(
                    $($a,)+
                    $(<Self::$K as Kind>::tangent(&$a, $t, &$z, Self::NAME, Self::PARAMS[$i])),+
                )
            }

            /// `jvp!(f)`: the arguments, then every parameter's tangent.
            #[inline]
            #[allow(clippy::type_complexity)]
            fn __jvp_function() -> impl for<'a> Fn(
                $(<Self::$K as Kind>::Arg<'a>,)+
                $(<Self::$K as Kind>::Slot<'a>),+
            ) -> (Self::Out, <Self::Out as Differentiable>::Tangent) {
                move |$($a,)+ $($t),+| Self::jvp_opts($($a,)+ ($(Some($t),)+))
            }
            jvp_sel!(__jvp_sel1, Scatter1, ($($K $a),+), (I0 s0));
            jvp_sel!(__jvp_sel2, Scatter2, ($($K $a),+), (I0 s0, I1 s1));
            jvp_sel!(__jvp_sel3, Scatter3, ($($K $a),+), (I0 s0, I1 s1, I2 s2));
            jvp_sel!(__jvp_sel4, Scatter4, ($($K $a),+), (I0 s0, I1 s1, I2 s2, I3 s3));
            jvp_sel!(__jvp_sel5, Scatter5, ($($K $a),+), (I0 s0, I1 s1, I2 s2, I3 s3, I4 s4));
            jvp_sel!(__jvp_sel6, Scatter6, ($($K $a),+),
                (I0 s0, I1 s1, I2 s2, I3 s3, I4 s4, I5 s5));
            jvp_sel!(__jvp_sel7, Scatter7, ($($K $a),+),
                (I0 s0, I1 s1, I2 s2, I3 s3, I4 s4, I5 s5, I6 s6));
            jvp_sel!(__jvp_sel8, Scatter8, ($($K $a),+),
                (I0 s0, I1 s1, I2 s2, I3 s3, I4 s4, I5 s5, I6 s6, I7 s7));
        }

        impl<F: $Forward> $Entries for F {}
    };
}

jvp_entries!(Sig1, Forward1, JvpEntries1; (K0, a0, t0, z0, 0));
jvp_entries!(Sig2, Forward2, JvpEntries2; (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1));
jvp_entries!(Sig3, Forward3, JvpEntries3;
    (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1), (K2, a2, t2, z2, 2));
jvp_entries!(Sig4, Forward4, JvpEntries4;
    (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1), (K2, a2, t2, z2, 2), (K3, a3, t3, z3, 3));
jvp_entries!(Sig5, Forward5, JvpEntries5;
    (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1), (K2, a2, t2, z2, 2), (K3, a3, t3, z3, 3),
    (K4, a4, t4, z4, 4));
jvp_entries!(Sig6, Forward6, JvpEntries6;
    (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1), (K2, a2, t2, z2, 2), (K3, a3, t3, z3, 3),
    (K4, a4, t4, z4, 4), (K5, a5, t5, z5, 5));
jvp_entries!(Sig7, Forward7, JvpEntries7;
    (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1), (K2, a2, t2, z2, 2), (K3, a3, t3, z3, 3),
    (K4, a4, t4, z4, 4), (K5, a5, t5, z5, 5), (K6, a6, t6, z6, 6));
jvp_entries!(Sig8, Forward8, JvpEntries8;
    (K0, a0, t0, z0, 0), (K1, a1, t1, z1, 1), (K2, a2, t2, z2, 2), (K3, a3, t3, z3, 3),
    (K4, a4, t4, z4, 4), (K5, a5, t5, z5, 5), (K6, a6, t6, z6, 6), (K7, a7, t7, z7, 7));

/// A callee's gradient at the position a float parameter of its caller was handed to, as
/// the parameter's gradient (a function whose body is one call hands the call on to the
/// callee's `__seeded`): the gradient itself, or zero where the callee keeps that position
/// constant (`#[no_grad]`).
pub trait HandedScalar<T> {
    /// The parameter's gradient.
    fn handed(self) -> T;
}

impl<T: Real> HandedScalar<T> for T {
    #[inline(always)]
    fn handed(self) -> T {
        self
    }
}

impl<T: Real> HandedScalar<T> for NoTangent {
    #[inline(always)]
    fn handed(self) -> T {
        T::zero()
    }
}

/// [`HandedScalar`] for a float slice or `Vec` of `len` elements.
pub trait HandedSequence<E> {
    /// The parameter's gradient.
    fn handed(self, len: usize) -> Vec<E>;
}

impl<E> HandedSequence<E> for Vec<E> {
    #[inline(always)]
    fn handed(self, _: usize) -> Vec<E> {
        self
    }
}

impl<E: Real> HandedSequence<E> for NoTangent {
    #[inline(always)]
    fn handed(self, len: usize) -> Vec<E> {
        vec![E::zero(); len]
    }
}

/// The gradient of a float parameter handed to a callee (see [`HandedScalar`]).
///
/// ```
/// use autodiff_runtime::{entry::handed_scalar, NoTangent};
/// assert_eq!(handed_scalar::<f64, _>(2.5), 2.5);
/// assert_eq!(handed_scalar::<f64, _>(NoTangent), 0.0);
/// ```
#[inline(always)]
pub fn handed_scalar<T, G: HandedScalar<T>>(gradient: G) -> T {
    gradient.handed()
}

/// The gradient of a float sequence of `len` elements handed to a callee (see
/// [`HandedScalar`]).
///
/// ```
/// use autodiff_runtime::{entry::handed_sequence, NoTangent};
/// assert_eq!(handed_sequence::<f64, _>(3, vec![1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
/// assert_eq!(handed_sequence::<f64, _>(2, NoTangent), [0.0, 0.0]);
/// ```
#[inline(always)]
pub fn handed_sequence<E, G: HandedSequence<E>>(len: usize, gradient: G) -> Vec<E> {
    gradient.handed(len)
}

/// Every trait of this module, in scope without a name: generated code that calls a
/// function's `__vjp_into`, `__vjp_reborrow` or `__jvp`, or reaches its helpers' entry
/// points, glob-imports this module (the function's own items, when it has them, are found
/// first).
pub mod traits {
    pub use super::{
        Defaults1 as _, Defaults2 as _, Defaults3 as _, Defaults4 as _, Defaults5 as _,
        Defaults6 as _, Defaults7 as _, Defaults8 as _,
    };
    pub use super::{
        Entries1 as _, Entries2 as _, Entries3 as _, Entries4 as _, Entries5 as _, Entries6 as _,
        Entries7 as _, Entries8 as _,
    };
    pub use super::{
        Forward1 as _, Forward2 as _, Forward3 as _, Forward4 as _, Forward5 as _, Forward6 as _,
        Forward7 as _, Forward8 as _,
    };
    pub use super::{
        JvpEntries1 as _, JvpEntries2 as _, JvpEntries3 as _, JvpEntries4 as _, JvpEntries5 as _,
        JvpEntries6 as _, JvpEntries7 as _, JvpEntries8 as _,
    };
    pub use super::{
        Reverse1 as _, Reverse2 as _, Reverse3 as _, Reverse4 as _, Reverse5 as _, Reverse6 as _,
        Reverse7 as _, Reverse8 as _,
    };
}
