//! The gradient helpers' entry points written once, generic over a function's signature,
//! instead of once per function.
//!
//! `gradients_function!(f)`, `value_and_gradients_function!(f)` and
//! `accumulate_gradients!(f)` call `f::__gradients_function(selection)` (and so on). Written
//! for each function by the attribute, those three were a third of what a crate of
//! differentiable functions asked the compiler to check, whether or not any helper was ever
//! used. For a free function whose parameters are all float scalars or float slices the
//! attribute now writes only [`Sig1`]…[`Sig8`] — the kinds of its parameters and a call of
//! its reverse sweep — and the entry points are the default methods of [`Entries1`]…
//! [`Entries8`], which every such function has through a blanket `impl`: they are compiled
//! where a helper is used, and nowhere else. (A helper's expansion brings the `Entries`
//! traits into scope; a function with its own inherent entry points — generic, a method, a
//! parameter of another kind — keeps them, and inherent items are found first.)
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
}

/// A parameter that gets no gradient, taken by value (a count, a flag, a `#[no_grad]`
/// float): a constant to the sweeps.
pub struct Constant<T>(PhantomData<T>);

/// A shared slice that gets no gradient (`#[no_grad] data: &[f64]`, indices `&[usize]`).
pub struct ConstantSlice<E>(PhantomData<E>);

/// The [`Kind`] of a parameter that gets no gradient, its argument `$arg` (borrowing for
/// `$a`): no shadow, no buffer, `NoTangent` everywhere.
macro_rules! constant_kind {
    ($name:ident<$t:ident: [$($bound:tt)+]>, $a:lifetime => $arg:ty) => {
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
        }
    };
}

constant_kind!(Constant<T: [Copy]>, 'a => T);
constant_kind!(ConstantSlice<E: [Copy + 'static]>, 'a => &'a [E]);

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

macro_rules! entries {
    ($doc:literal, $Sig:ident, $Entries:ident, $n:literal, $shape:ident;
     $(($K:ident, $a:ident, $b:ident, $s:ident, $g:ident, $l:ident, $i:tt)),+) => {
        #[doc = concat!("A function of ", $doc, ": the kinds of its parameters and its reverse sweep.")]
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
            /// The function's `__vjp_into`.
            #[allow(clippy::too_many_arguments)]
            fn vjp_into<'a>($($a: <Self::$K as Kind>::Arg<'a>),+) -> (
                Self::Out,
                impl for<'s> FnOnce(
                    <Self::Out as Differentiable>::Tangent,
                    $(<Self::$K as Kind>::Shadow<'s>),+
                ) -> ($(<Self::$K as Kind>::Pulled,)+),
            );
        }

        #[doc = concat!("The gradient helpers' entry points of every [`", stringify!($Sig), "`] function.")]
        pub trait $Entries: $Sig + Sized {
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
                    let (value, pullback) = Self::vjp_into($($a),+);
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
                    let (value, pullback) = Self::vjp_into($($a),+);
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
                let (value, pullback) = Self::vjp_into($($a),+);
                (value, move |dy| {
                    let ($($g,)+) = pullback(dy, $(<Self::$K as Kind>::shadow(&mut $b, true)),+);
                    ($(<Self::$K as Kind>::finish($b, $g),)+)
                })
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

        impl<F: $Sig> $Entries for F {}
    };
}

entries!("one parameter", Sig1, Entries1, 1, one;
    (K0, a0, b0, s0, g0, l0, 0));
entries!("two parameters", Sig2, Entries2, 2, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1));
entries!("three parameters", Sig3, Entries3, 3, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1), (K2, a2, b2, s2, g2, l2, 2));
entries!("four parameters", Sig4, Entries4, 4, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1), (K2, a2, b2, s2, g2, l2, 2),
    (K3, a3, b3, s3, g3, l3, 3));
entries!("five parameters", Sig5, Entries5, 5, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1), (K2, a2, b2, s2, g2, l2, 2),
    (K3, a3, b3, s3, g3, l3, 3), (K4, a4, b4, s4, g4, l4, 4));
entries!("six parameters", Sig6, Entries6, 6, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1), (K2, a2, b2, s2, g2, l2, 2),
    (K3, a3, b3, s3, g3, l3, 3), (K4, a4, b4, s4, g4, l4, 4), (K5, a5, b5, s5, g5, l5, 5));
entries!("seven parameters", Sig7, Entries7, 7, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1), (K2, a2, b2, s2, g2, l2, 2),
    (K3, a3, b3, s3, g3, l3, 3), (K4, a4, b4, s4, g4, l4, 4), (K5, a5, b5, s5, g5, l5, 5),
    (K6, a6, b6, s6, g6, l6, 6));
entries!("eight parameters", Sig8, Entries8, 8, many;
    (K0, a0, b0, s0, g0, l0, 0), (K1, a1, b1, s1, g1, l1, 1), (K2, a2, b2, s2, g2, l2, 2),
    (K3, a3, b3, s3, g3, l3, 3), (K4, a4, b4, s4, g4, l4, 4), (K5, a5, b5, s5, g5, l5, 5),
    (K6, a6, b6, s6, g6, l6, 6), (K7, a7, b7, s7, g7, l7, 7));

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
    ($doc:literal, $Jvp:ident, $Entries:ident;
     $(($K:ident, $a:ident, $t:ident)),+) => {
        #[doc = concat!("A function of ", $doc, " for `jvp!`: the kinds of its parameters and its tangent sweep.")]
        pub trait $Jvp {
            /// The function's output (a float).
            type Out: Differentiable;
            $(
                #[doc = concat!("The kind of parameter `", stringify!($a), "`.")]
                type $K: Kind;
            )+
            /// The function's `__jvp_opts`: the value and the tangent, from the tangents
            /// given in their slots (zeros for the others).
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            fn jvp_opts<'a>(
                $($a: <Self::$K as Kind>::Arg<'a>,)+
                opts: ($(Option<<Self::$K as Kind>::Slot<'a>>,)+),
            ) -> (Self::Out, <Self::Out as Differentiable>::Tangent);
        }

        #[doc = concat!("`jvp!`'s entry points of every [`", stringify!($Jvp), "`] function.")]
        pub trait $Entries: $Jvp + Sized {
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

        impl<F: $Jvp> $Entries for F {}
    };
}

jvp_entries!("one parameter", Jvp1, JvpEntries1; (K0, a0, t0));
jvp_entries!("two parameters", Jvp2, JvpEntries2; (K0, a0, t0), (K1, a1, t1));
jvp_entries!("three parameters", Jvp3, JvpEntries3; (K0, a0, t0), (K1, a1, t1), (K2, a2, t2));
jvp_entries!("four parameters", Jvp4, JvpEntries4;
    (K0, a0, t0), (K1, a1, t1), (K2, a2, t2), (K3, a3, t3));
jvp_entries!("five parameters", Jvp5, JvpEntries5;
    (K0, a0, t0), (K1, a1, t1), (K2, a2, t2), (K3, a3, t3), (K4, a4, t4));
jvp_entries!("six parameters", Jvp6, JvpEntries6;
    (K0, a0, t0), (K1, a1, t1), (K2, a2, t2), (K3, a3, t3), (K4, a4, t4), (K5, a5, t5));
jvp_entries!("seven parameters", Jvp7, JvpEntries7;
    (K0, a0, t0), (K1, a1, t1), (K2, a2, t2), (K3, a3, t3), (K4, a4, t4), (K5, a5, t5),
    (K6, a6, t6));
jvp_entries!("eight parameters", Jvp8, JvpEntries8;
    (K0, a0, t0), (K1, a1, t1), (K2, a2, t2), (K3, a3, t3), (K4, a4, t4), (K5, a5, t5),
    (K6, a6, t6), (K7, a7, t7));
