fn energy<T: Float>(x: T, y: T, n: i32) -> T {
    let r = x.hypot(y);
    let k = (n as f64) * 0.5;
    let s = weighted_sum(x, T::from(k).unwrap(), r.sin(), y);
    s.powi(n) / r
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct energy {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl energy {
    const __SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "energy",
        &["x", "y", "n"],
        &[2],
    );
    const fn __all() -> ::autodiff::__private::select::Sel2<0, 1> {
        ::autodiff::__private::select::Sel2
    }
    #[inline]
    fn __vjp<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
        ) -> (
                <T as ::autodiff::__private::Differentiable>::Tangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
                ::autodiff::__private::NoTangent,
            ) + use<T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let _ = energy::<T>;
        let (__value, __pullback) = Self::__vjp_into::<T>(__v0, __v1, __v2);
        (
            __value,
            move |__dy: <T as ::autodiff::__private::Differentiable>::Tangent| {
                let (__g0, __g1, __g2) = __pullback(
                    __dy,
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::no_sink(),
                );
                (__g0, __g1, __g2)
            },
        )
    }
    #[inline]
    fn __vjp_selected<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
        ) -> (
                <T as ::autodiff::__private::Differentiable>::Tangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let (__value, __pullback) = Self::__vjp::<T>(__v0, __v1, __v2);
        (
            __value,
            move |__dy: <T as ::autodiff::__private::Differentiable>::Tangent| {
                let (__g0, __g1, __g2) = __pullback(__dy);
                (__g0, __g1)
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (
                <T as ::autodiff::__private::Differentiable>::Tangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
                ::autodiff::__private::NoTangent,
            ) + use<T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let _ = energy::<T>;
        let __v3 = ::autodiff::__private::ops::tensor::hypot(&__v0, &__v1);
        let __v4 = (__v2 as f64) * 0.5;
        let __v5 = T::from(__v4).unwrap();
        let __v6 = ::autodiff::__private::ops::tensor::sin(&__v3);
        let (__v7, __pb7) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            weighted_sum::__vjp_into(__v0, __v5, __v6, __v1)
        };
        let __v8 = ::autodiff::__private::ops::tensor::powi(&__v7, &__v2);
        let __v9 = __v8 / __v3;
        (
            __v9,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |__dy: <T as ::autodiff::__private::Differentiable>::Tangent, _, _, _| {
                let mut __d9 = __dy;
                let mut __d8 = ::autodiff::__private::ops::div_d0(&__v3, &__d9);
                let mut __d3 = ::autodiff::__private::ops::div_d1(&__v3, &__v9, &__d9);
                let mut __d7 = ::autodiff::__private::ops::powi_d0(&__v7, &__v2, &__d8);
                let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
                let mut __d6 = ::autodiff::__private::adjoint_zero(&__v6);
                let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
                let __g1 = __pb7(
                    __d7,
                    ::autodiff::__private::shadow::sink(&mut __d0),
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::sink(&mut __d6),
                    ::autodiff::__private::shadow::sink(&mut __d1),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d0, __g1.0);
                ::autodiff::__private::Accumulate::accumulate(&mut __d6, __g1.2);
                ::autodiff::__private::Accumulate::accumulate(&mut __d1, __g1.3);
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d3,
                    ::autodiff::__private::ops::sin_d0(&__v3, &__d6),
                );
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d0,
                    ::autodiff::__private::ops::hypot_d0(&__v0, &__v3, &__d3),
                );
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d1,
                    ::autodiff::__private::ops::hypot_d1(&__v1, &__v3, &__d3),
                );
                (
                    ::autodiff::__private::finish_tangent(&__v0, __d0),
                    ::autodiff::__private::finish_tangent(&__v1, __d1),
                    ::autodiff::__private::NoTangent,
                )
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_reborrow<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Val<T>,
            ::autodiff::__private::again::Val<T>,
            ::autodiff::__private::again::Val<i32>,
        ) -> (
                <T as ::autodiff::__private::Differentiable>::Tangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
                ::autodiff::__private::NoTangent,
            ) + use<T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let (__value, __pullback) = Self::__vjp_into::<T>(__v0, __v1, __v2);
        (
            __value,
            #[inline(always)]
            move |
                __dy: <T as ::autodiff::__private::Differentiable>::Tangent,
                __s0: ::autodiff::__private::shadow::Ignored,
                __s1: ::autodiff::__private::shadow::Ignored,
                __s2: ::autodiff::__private::shadow::Ignored,
                _: ::autodiff::__private::again::Val<T>,
                _: ::autodiff::__private::again::Val<T>,
                _: ::autodiff::__private::again::Val<i32>|
            { __pullback(__dy, __s0, __s1, __s2) },
        )
    }
    fn __gradients_function<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        T,
        T,
        i32,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<T>,
        T: ::autodiff::__private::Real,
    {
        let __value_and_gradients = Self::__value_and_gradients_function::<
            __S,
            T,
        >(_selection);
        move |__v0: T, __v1: T, __v2: i32| __value_and_gradients(__v0, __v1, __v2).1
    }
    fn __value_and_gradients_function<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        T,
        T,
        i32,
    ) -> (
            T,
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<T>,
        T: ::autodiff::__private::Real,
    {
        move |__v0: T, __v1: T, __v2: i32| {
            let (__value, __pullback) = Self::__vjp_into::<T>(__v0, __v1, __v2);
            let (__g0, __g1, __g2) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<T>>::seed(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<
                            <T as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                        ::core::option::Option<
                            <T as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                        ::core::option::Option<::autodiff::__private::NoTangent>,
                    ),
                >>::select((
                    ::core::option::Option::Some(__g0),
                    ::core::option::Option::Some(__g1),
                    ::core::option::Option::Some(__g2),
                )),
            )
        }
    }
    fn __accumulate_gradients<__S, T: Float>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        T,
        T,
        i32,
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
            ),
        >>::Input,
    ) -> T
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<T>,
        T: ::autodiff::__private::Real,
    {
        move |__v0: T, __v1: T, __v2: i32, __buffers| {
            let (__b0, __b1, __b2) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<
                        &mut <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        &mut <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<&mut ::autodiff::__private::NoTangent>,
                ),
            >>::scatter(__buffers);
            let __k0 = ::autodiff::__private::shadow::no_sink();
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let __k2 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = Self::__vjp_into::<T>(__v0, __v1, __v2);
            let (__g0, __g1, __g2) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<T>>::seed(),
                __k0,
                __k1,
                __k2,
            );
            if let ::core::option::Option::Some(b) = __b0 {
                ::autodiff::__private::Accumulate::accumulate(b, __g0);
            }
            if let ::core::option::Option::Some(b) = __b1 {
                ::autodiff::__private::Accumulate::accumulate(b, __g1);
            }
            __value
        }
    }
    #[inline]
    fn __seeded<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
        __dy: <T as ::autodiff::__private::Differentiable>::Tangent,
    ) -> (
        T,
        (
            <T as ::autodiff::__private::Differentiable>::Tangent,
            <T as ::autodiff::__private::Differentiable>::Tangent,
            ::autodiff::__private::NoTangent,
        ),
    )
    where
        T: ::autodiff::__private::Real,
    {
        let (__value, __pullback) = Self::__vjp::<T>(__v0, __v1, __v2);
        (__value, __pullback(__dy))
    }
    const __FORWARD: ::core::option::Option<&'static str> = Self::__forward_at(
        ::autodiff::__private::forward::CALL_DEPTH,
    );
    const fn __forward_at(depth: u32) -> ::core::option::Option<&'static str> {
        if depth == 0 {
            return ::core::option::Option::None;
        }
        ::autodiff::__private::forward::first_reason(
            &[::core::option::Option::None, weighted_sum::__forward_at(depth - 1)],
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
        __tv0: T,
        __tv1: T,
        __tv2: impl ::core::marker::Sized,
    ) -> (T, T)
    where
        T: ::autodiff::__private::Real,
    {
        let __v3 = ::autodiff::__private::ops::tensor::hypot(&__v0, &__v1);
        let __tv3 = (::autodiff::__private::ops::hypot_d0(&__v0, &__v3, &__tv0)
            + ::autodiff::__private::ops::hypot_d1(&__v1, &__v3, &__tv1));
        let __v4 = (__v2 as f64) * 0.5;
        let __v5 = T::from(__v4).unwrap();
        let __v6 = ::autodiff::__private::ops::tensor::sin(&__v3);
        let __tv6 = (::autodiff::__private::ops::sin_d0_from_cos(
            &::autodiff::__private::ops::tensor::cos(&__v3),
            &__tv3,
        ));
        let (__v7, __tv7) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            weighted_sum::__jvp(
                __v0,
                __v5,
                __v6,
                __v1,
                __tv0,
                ::autodiff::__private::forward::lend(
                    &{
                        #[allow(unused_imports)]
                        use ::autodiff::__private::forward::{
                            ArgZero as _, NoZero as _, ScalarZero as _,
                        };
                        (&&&::autodiff::__private::forward::Probe(&__v5)).zero()
                    },
                ),
                __tv6,
                __tv1,
            )
        };
        let __v8 = ::autodiff::__private::ops::tensor::powi(&__v7, &__v2);
        let __tv8 = (::autodiff::__private::ops::powi_d0(&__v7, &__v2, &__tv7));
        let __v9 = __v8 / __v3;
        let __tv9 = (::autodiff::__private::ops::div_d0(&__v3, &__tv8)
            + ::autodiff::__private::ops::div_d1(&__v3, &__v9, &__tv3));
        (__v9, __tv9)
    }
    #[inline]
    #[track_caller]
    fn __jvp_opts<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
        __o: <(
            T,
            T,
            ::autodiff::__private::NoTangent,
        ) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (T, T)
    where
        T: ::autodiff::__private::Real,
    {
        #[allow(unused_imports)]
        use ::autodiff::__private::forward::{ArgZero as _, NoZero as _, ScalarZero as _};
        let __z0 = __o
            .0
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v0)).zero());
        let __tv0: T = __o
            .0
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z0));
        let __z1 = __o
            .1
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v1)).zero());
        let __tv1: T = __o
            .1
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z1));
        let __tv2 = ::autodiff::__private::NoTangent;
        Self::__jvp::<T>(__v0, __v1, __v2, __tv0, __tv1, __tv2)
    }
    #[inline]
    fn __jvp_function<T: Float>() -> impl ::core::ops::Fn(
        T,
        T,
        i32,
        T,
        T,
    ) -> (T, T) + use<T>
    where
        T: ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2, __tv0, __tv1| {
            Self::__jvp_opts::<
                T,
            >(
                __v0,
                __v1,
                __v2,
                (
                    ::core::option::Option::Some(__tv0),
                    ::core::option::Option::Some(__tv1),
                    ::core::option::Option::None,
                ),
            )
        }
    }
    #[inline]
    fn __jvp_sel1<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(T, T, i32, __S::I0) -> (T, T) + use<__S, T>
    where
        __S: ::autodiff::__private::forward::Scatter1<
            (T, T, ::autodiff::__private::NoTangent),
        >,
        T: ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2, __sel0| {
            Self::__jvp_opts::<T>(__v0, __v1, __v2, __S::scatter(__sel0))
        }
    }
    #[inline]
    fn __jvp_sel2<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(T, T, i32, __S::I0, __S::I1) -> (T, T) + use<__S, T>
    where
        __S: ::autodiff::__private::forward::Scatter2<
            (T, T, ::autodiff::__private::NoTangent),
        >,
        T: ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2, __sel0, __sel1| {
            Self::__jvp_opts::<T>(__v0, __v1, __v2, __S::scatter(__sel0, __sel1))
        }
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::None;
    #[inline]
    #[track_caller]
    fn __hvp_opts<T: Float>(
        __v0: T,
        __v1: T,
        __v2: i32,
        __o: <(
            T,
            T,
            ::autodiff::__private::NoTangent,
        ) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (
        ::core::option::Option<T>,
        ::core::option::Option<T>,
        ::core::option::Option<::autodiff::__private::NoTangent>,
    )
    where
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        let (__o0, __o1, __o2) = __o;
        let __d0 = ::autodiff::__private::dual::HvpArg::duals(&__v0, __o0.as_ref());
        let __d1 = ::autodiff::__private::dual::HvpArg::duals(&__v1, __o1.as_ref());
        let (_, __pullback) = Self::__vjp::<
            ::autodiff::__private::dual::Dual<T>,
        >(__d0, __d1, __v2);
        let (__g0, __g1, __g2) = __pullback(::autodiff::__private::dual::seed());
        (
            ::core::option::Option::Some(
                <T as ::autodiff::__private::dual::HvpArg>::product(__g0),
            ),
            ::core::option::Option::Some(
                <T as ::autodiff::__private::dual::HvpArg>::product(__g1),
            ),
            ::core::option::Option::None,
        )
    }
    #[inline]
    fn __hvp_function<T: Float>() -> impl ::core::ops::Fn(
        T,
        T,
        i32,
        T,
        T,
    ) -> (T, T) + use<T>
    where
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2, __h0, __h1| {
            let __r = Self::__hvp_opts::<
                T,
            >(
                __v0,
                __v1,
                __v2,
                (
                    ::core::option::Option::Some(__h0),
                    ::core::option::Option::Some(__h1),
                    ::core::option::Option::None,
                ),
            );
            (
                ::core::option::Option::unwrap(__r.0),
                ::core::option::Option::unwrap(__r.1),
            )
        }
    }
    #[inline]
    fn __hvp_sel1<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        T,
        T,
        i32,
        __S::I0,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<T>,
                ::core::option::Option<T>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >>::Output + use<__S, T>
    where
        __S: ::autodiff::__private::forward::Scatter1<
                (T, T, ::autodiff::__private::NoTangent),
            >
            + ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<T>,
                    ::core::option::Option<T>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >,
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2, __sel0| {
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<T>,
                    ::core::option::Option<T>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >>::select(
                Self::__hvp_opts::<
                    T,
                >(
                    __v0,
                    __v1,
                    __v2,
                    <__S as ::autodiff::__private::forward::Scatter1<
                        (T, T, ::autodiff::__private::NoTangent),
                    >>::scatter(__sel0),
                ),
            )
        }
    }
    #[inline]
    fn __hvp_sel2<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        T,
        T,
        i32,
        __S::I0,
        __S::I1,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<T>,
                ::core::option::Option<T>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >>::Output + use<__S, T>
    where
        __S: ::autodiff::__private::forward::Scatter2<
                (T, T, ::autodiff::__private::NoTangent),
            >
            + ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<T>,
                    ::core::option::Option<T>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >,
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2, __sel0, __sel1| {
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<T>,
                    ::core::option::Option<T>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >>::select(
                Self::__hvp_opts::<
                    T,
                >(
                    __v0,
                    __v1,
                    __v2,
                    <__S as ::autodiff::__private::forward::Scatter2<
                        (T, T, ::autodiff::__private::NoTangent),
                    >>::scatter(__sel0, __sel1),
                ),
            )
        }
    }
    const __HESSIAN: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`energy` has 2 differentiable parameters: `hessian!` needs exactly one, or `params = [\"…\"]` selecting one",
    );
    fn __hessian_function<T: Float>() -> fn(T, T, i32) -> !
    where
        T: ::autodiff::__private::Real,
    {
        ::core::unreachable!()
    }
    #[inline]
    fn __hessian_sel1<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        T,
        T,
        i32,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<T>,
                ::core::option::Option<T>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >>::Output + use<__S, T>
    where
        __S: ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<T>,
                    ::core::option::Option<T>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            > + ::autodiff::__private::select::Single,
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __v2| {
            let mut __outs: (
                ::core::option::Option<T>,
                ::core::option::Option<T>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ) = ::core::default::Default::default();
            match <__S as ::autodiff::__private::select::Single>::INDEX {
                0usize => {
                    __outs.0 = ::core::option::Option::Some(
                        ::autodiff::__private::dual::HvpArg::hessian(
                            &__v0,
                            |__e| {
                                ::core::option::Option::unwrap(
                                    Self::__hvp_opts::<
                                        T,
                                    >(
                                            ::core::clone::Clone::clone(&__v0),
                                            ::core::clone::Clone::clone(&__v1),
                                            ::core::clone::Clone::clone(&__v2),
                                            (
                                                ::core::option::Option::Some(__e),
                                                ::core::option::Option::None,
                                                ::core::option::Option::None,
                                            ),
                                        )
                                        .0,
                                )
                            },
                        ),
                    );
                }
                1usize => {
                    __outs.1 = ::core::option::Option::Some(
                        ::autodiff::__private::dual::HvpArg::hessian(
                            &__v1,
                            |__e| {
                                ::core::option::Option::unwrap(
                                    Self::__hvp_opts::<
                                        T,
                                    >(
                                            ::core::clone::Clone::clone(&__v0),
                                            ::core::clone::Clone::clone(&__v1),
                                            ::core::clone::Clone::clone(&__v2),
                                            (
                                                ::core::option::Option::None,
                                                ::core::option::Option::Some(__e),
                                                ::core::option::Option::None,
                                            ),
                                        )
                                        .1,
                                )
                            },
                        ),
                    );
                }
                _ => {}
            }
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<T>,
                    ::core::option::Option<T>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >>::select(__outs)
        }
    }
    const __JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    fn __jacobian_function<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        T,
        T,
        i32,
    ) -> ::autodiff::__private::ndarray::Array2<
            <__S as ::autodiff::__private::jacobian::JacobianFor<
                (
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
                T,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            >>::Elem,
        >
    where
        __S: ::autodiff::__private::jacobian::JacobianFor<
            (
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
            T,
            <T as ::autodiff::__private::Differentiable>::Tangent,
        >,
        __S: ::autodiff::__private::jacobian::Again<T>,
        __S: ::autodiff::__private::jacobian::Again<T>,
        __S: ::autodiff::__private::jacobian::Again<i32>,
        T: ::autodiff::__private::Real,
    {
        move |__v0: T, __v1: T, __v2: i32| {
            let (__value, __pullback) = Self::__vjp::<
                T,
            >(
                <__S as ::autodiff::__private::jacobian::Again<T>>::again(&__v0),
                <__S as ::autodiff::__private::jacobian::Again<T>>::again(&__v1),
                <__S as ::autodiff::__private::jacobian::Again<i32>>::again(&__v2),
            );
            ::autodiff::__private::jacobian::by_rows::<
                __S,
                (
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
                T,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            >(
                &__value,
                "energy",
                move |__c| {
                    let (__g0, __g1, __g2) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                        ::core::option::Option::Some(__g2),
                    )
                },
                |__c| {
                    let (_, __pullback) = Self::__vjp::<
                        T,
                    >(
                        <__S as ::autodiff::__private::jacobian::Again<T>>::again(&__v0),
                        <__S as ::autodiff::__private::jacobian::Again<T>>::again(&__v1),
                        <__S as ::autodiff::__private::jacobian::Again<
                            i32,
                        >>::again(&__v2),
                    );
                    let (__g0, __g1, __g2) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                        ::core::option::Option::Some(__g2),
                    )
                },
            )
        }
    }
}
#[doc(hidden)]
#[allow(unused_imports)]
use energy as __autodiff_so_energy;
