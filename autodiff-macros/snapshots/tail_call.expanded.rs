fn rosenbrock(x: &[f64]) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer(|| <rosenbrock as ::autodiff::__private::entry::Entries1>::__vjp(
            x,
        ));
    }
    rosenbrock_ab(x, 1.0, 100.0)
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct rosenbrock {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl rosenbrock {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_reborrow<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::SliceShadow<'_, f64>,
            ::autodiff::__private::again::Ref<'_, [f64]>,
        ) -> (::autodiff::__private::NoTangent,) + use<>,
    ) {
        let (__v1, __pb1) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            rosenbrock_ab::__vjp_reborrow(__v0, (1.0), (100.0))
        };
        (
            __v1,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                mut __d0: ::autodiff::__private::shadow::SliceShadow<'_, f64>,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, [f64]>|
            {
                let mut __d1 = __dy;
                let __g1 = __pb1(
                    __d1,
                    ::autodiff::__private::shadow::sink(&mut __d0),
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::again::again(__v0),
                    ::autodiff::__private::again::again((1.0)),
                    ::autodiff::__private::again::again((100.0)),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d0, __g1.0);
                (::autodiff::__private::NoTangent,)
            },
        )
    }
    fn __gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[f64],
    ) -> <__S as ::autodiff::__private::select::Select<
            (::core::option::Option<::std::vec::Vec<f64>>,),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (::core::option::Option<::std::vec::Vec<f64>>,),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        let __value_and_gradients = Self::__value_and_gradients_function::<
            __S,
        >(_selection);
        move |__v0: &[f64]| __value_and_gradients(__v0).1
    }
    fn __value_and_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[f64],
    ) -> (
            f64,
            <__S as ::autodiff::__private::select::Select<
                (::core::option::Option<::std::vec::Vec<f64>>,),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (::core::option::Option<::std::vec::Vec<f64>>,),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &[f64]| {
            let (__value, (__g0,)) = Self::__seeded(
                __v0,
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (::core::option::Option<::std::vec::Vec<f64>>,),
                >>::select((::core::option::Option::Some(__g0),)),
            )
        }
    }
    fn __accumulate_gradients<__S>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        &[f64],
        <__S as ::autodiff::__private::select::Scatter<
            (::core::option::Option<&'__autodiff_g mut [f64]>,),
        >>::Input,
    ) -> f64
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (::core::option::Option<&'__autodiff_g mut [f64]>,),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &[f64], __buffers| {
            let (__b0,) = <__S as ::autodiff::__private::select::Scatter<
                (::core::option::Option<&mut [f64]>,),
            >>::scatter(__buffers);
            let __k0 = match __b0 {
                ::core::option::Option::Some(b) => {
                    ::autodiff::__private::shadow::caller_buffer(
                        "rosenbrock",
                        "x",
                        &*__v0,
                        b,
                    )
                }
                ::core::option::Option::None => ::autodiff::__private::shadow::no_sink(),
            };
            let (__value, __pullback) = <Self as ::autodiff::__private::entry::Reverse1>::__vjp_into(
                __v0,
            );
            let (__g0,) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                __k0,
            );
            let _ = __g0;
            __value
        }
    }
    #[inline]
    fn __seeded<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
        __dy: f64,
    ) -> (f64, (::std::vec::Vec<f64>,)) {
        let _ = rosenbrock;
        let __len0 = __v0.len();
        let (__v1, __gradients) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            rosenbrock_ab::__seeded(__v0, (1.0), (100.0), __dy)
        };
        (__v1, (::autodiff::__private::entry::handed_sequence(__len0, __gradients.0),))
    }
    const __FORWARD: ::core::option::Option<&'static str> = Self::__forward_at(
        ::autodiff::__private::forward::CALL_DEPTH,
    );
    const fn __forward_at(depth: u32) -> ::core::option::Option<&'static str> {
        if depth == 0 {
            return ::core::option::Option::None;
        }
        ::autodiff::__private::forward::first_reason(
            &[::core::option::Option::None, rosenbrock_ab::__forward_at(depth - 1)],
        )
    }
}
impl ::autodiff::__private::entry::Sig1 for rosenbrock {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Slice<f64>;
    const NAME: &'static str = "rosenbrock";
    const PARAMS: [&'static str; 1] = ["x"];
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Forward1 for rosenbrock {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'a, 't>(
        __v0: ::autodiff::__private::entry::SliceArg<'a, f64>,
        __tv0: ::autodiff::__private::entry::SliceSlot<'t, f64>,
    ) -> (f64, f64) {
        let __tv0 = &__tv0[..__v0.len()];
        let (__v1, __tv1) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            rosenbrock_ab::__jvp(
                __v0,
                (1.0),
                (100.0),
                __tv0,
                ::autodiff::__private::forward::lend(
                    &{
                        #[allow(unused_imports)]
                        use ::autodiff::__private::forward::{
                            ArgZero as _, NoZero as _, ScalarZero as _,
                        };
                        (&&&::autodiff::__private::forward::Probe(&(1.0))).zero()
                    },
                ),
                ::autodiff::__private::forward::lend(
                    &{
                        #[allow(unused_imports)]
                        use ::autodiff::__private::forward::{
                            ArgZero as _, NoZero as _, ScalarZero as _,
                        };
                        (&&&::autodiff::__private::forward::Probe(&(100.0))).zero()
                    },
                ),
            )
        };
        (__v1, __tv1)
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Reverse1 for rosenbrock {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'a0: 'all, 'all>(
        __v0: ::autodiff::__private::entry::SliceArg<'a0, f64>,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::SliceShadow<'_, f64>,
        ) -> (::autodiff::__private::NoTangent,),
    ) {
        let _ = rosenbrock;
        let (__v1, __pb1) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            rosenbrock_ab::__vjp_into(__v0, (1.0), (100.0))
        };
        (
            __v1,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                mut __d0: ::autodiff::__private::shadow::SliceShadow<'_, f64>|
            {
                let mut __d1 = __dy;
                let __g1 = __pb1(
                    __d1,
                    ::autodiff::__private::shadow::sink(&mut __d0),
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::no_sink(),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d0, __g1.0);
                (::autodiff::__private::NoTangent,)
            },
        )
    }
}
