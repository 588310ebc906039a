fn sum_picks(v: &[f64], n: usize) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer(|| <sum_picks as ::autodiff::__private::entry::Entries2>::__vjp(
            v,
            n,
        ));
    }
    let mut s = 0.0;
    for i in 0..n {
        s += pick(v, i % v.len());
    }
    s
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct sum_picks {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl sum_picks {
    const fn __all() -> ::autodiff::__private::select::Sel1<0> {
        ::autodiff::__private::select::Sel1
    }
    #[inline]
    fn __vjp<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
        __v1: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
        ) -> (
                ::std::vec::Vec<f64>,
                ::autodiff::__private::NoTangent,
            ) + use<'__autodiff_l0>,
    ) {
        let _ = sum_picks;
        let mut __b0 = ::autodiff::__private::adjoint_zero(&__v0);
        let (__value, __pullback) = <Self as ::autodiff::__private::entry::Reverse2>::__vjp_into(
            __v0,
            __v1,
        );
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1) = __pullback(
                    __dy,
                    ::autodiff::__private::shadow::sink(&mut __b0),
                    ::autodiff::__private::shadow::no_sink(),
                );
                (__b0, __g1)
            },
        )
    }
    #[inline]
    fn __vjp_selected<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
        __v1: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(f64) -> ::std::vec::Vec<f64> + use<'__autodiff_l0>,
    ) {
        let (__value, __pullback) = Self::__vjp(__v0, __v1);
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1) = __pullback(__dy);
                __g0
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_reborrow<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
        __v1: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::SliceShadow<'_, f64>,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Ref<'_, [f64]>,
            ::autodiff::__private::again::Skip,
        ) -> (::autodiff::__private::NoTangent, ::autodiff::__private::NoTangent) + use<>,
    ) {
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (0.0);
        let mut __c1 = (0u8);
        let mut __n7 = 0usize;
        __sr1
            .extend(
                ::core::iter::Iterator::map(
                    ::core::iter::IntoIterator::into_iter((0)..__v1),
                    |__v2| {
                        let __v3 = __v2 % __v0.len();
                        let (__v4, __pb4) = {
                            #[allow(unused_imports)]
                            use ::autodiff::__private::entry::traits::*;
                            pick::__vjp_reborrow(__v0, __v3)
                        };
                        let __v5 = ::core::clone::Clone::clone(&__c0);
                        let __v6 = __v5 + __v4;
                        __c0 = __v6;
                        __n7 += 1;
                        (__pb4,)
                    },
                ),
            );
        let __v7 = __n7;
        let __v8 = ::core::clone::Clone::clone(&__c0);
        (
            __v8,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                mut __d0: ::autodiff::__private::shadow::SliceShadow<'_, f64>,
                _,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, [f64]>,
                _: ::autodiff::__private::again::Skip|
            {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __d8 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d8),
                );
                for __v2 in ::autodiff::__private::saved::range_back(
                    (0),
                    ::core::iter::Iterator::size_hint(&((0)..__v1)).0,
                ) {
                    let (__pb4,) = ::autodiff::__private::saved::pop(&mut __sr1);
                    let __v3 = __v2 % __v0.len();
                    let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                    let mut __d6 = __t1;
                    let mut __d5 = ::autodiff::__private::ops::add_d0(&__d6);
                    let mut __d4 = ::autodiff::__private::ops::add_d1(&__d6);
                    ::autodiff::__private::Accumulate::accumulate_read(
                        &mut __dc0,
                        ::autodiff::__private::ops::identity_d0(&__d5),
                    );
                    let __g2 = __pb4(
                        __d4,
                        ::autodiff::__private::shadow::sink(&mut __d0),
                        ::autodiff::__private::shadow::no_sink(),
                        ::autodiff::__private::again::again(__v0),
                        ::autodiff::__private::again::again(__v3),
                    );
                    ::autodiff::__private::Accumulate::accumulate(&mut __d0, __g2.0);
                }
                ::autodiff::__private::ops::reset_d0(&mut __dc0);
                (::autodiff::__private::NoTangent, ::autodiff::__private::NoTangent)
            },
        )
    }
    fn __gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[f64],
        usize,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::std::vec::Vec<f64>>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::std::vec::Vec<f64>>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        let __value_and_gradients = Self::__value_and_gradients_function::<
            __S,
        >(_selection);
        move |__v0: &[f64], __v1: usize| __value_and_gradients(__v0, __v1).1
    }
    fn __value_and_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[f64],
        usize,
    ) -> (
            f64,
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<::std::vec::Vec<f64>>,
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::std::vec::Vec<f64>>,
                ::core::option::Option<::autodiff::__private::NoTangent>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &[f64], __v1: usize| {
            let (__value, (__g0, __g1)) = Self::__seeded(
                __v0,
                __v1,
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<::std::vec::Vec<f64>>,
                        ::core::option::Option<::autodiff::__private::NoTangent>,
                    ),
                >>::select((
                    ::core::option::Option::Some(__g0),
                    ::core::option::Option::Some(__g1),
                )),
            )
        }
    }
    fn __accumulate_gradients<__S>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        &[f64],
        usize,
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<&'__autodiff_g mut [f64]>,
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
            ),
        >>::Input,
    ) -> f64
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<&'__autodiff_g mut [f64]>,
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &[f64], __v1: usize, __buffers| {
            let (__b0, __b1) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<&mut [f64]>,
                    ::core::option::Option<&mut ::autodiff::__private::NoTangent>,
                ),
            >>::scatter(__buffers);
            let __k0 = match __b0 {
                ::core::option::Option::Some(b) => {
                    ::autodiff::__private::shadow::caller_buffer(
                        "sum_picks",
                        "v",
                        &*__v0,
                        b,
                    )
                }
                ::core::option::Option::None => ::autodiff::__private::shadow::no_sink(),
            };
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = <Self as ::autodiff::__private::entry::Reverse2>::__vjp_into(
                __v0,
                __v1,
            );
            let (__g0, __g1) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                __k0,
                __k1,
            );
            let _ = __g0;
            __value
        }
    }
    #[inline]
    fn __seeded<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
        __v1: usize,
        __dy: f64,
    ) -> (f64, (::std::vec::Vec<f64>, ::autodiff::__private::NoTangent)) {
        let _ = sum_picks;
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (0.0);
        let mut __c1 = (0u8);
        let mut __dc0 = ::autodiff::__private::adjoint_zero(&__c0);
        let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
        let mut __d8 = __dy;
        ::autodiff::__private::Accumulate::accumulate(
            &mut __dc0,
            ::autodiff::__private::ops::identity_d0(&__d8),
        );
        let mut __n7 = 0usize;
        for __v2 in (0)..__v1 {
            let __v3 = __v2 % __v0.len();
            let (__v4, __pb4) = {
                #[allow(unused_imports)]
                use ::autodiff::__private::entry::traits::*;
                pick::__vjp_into(__v0, __v3)
            };
            let __v5 = ::core::clone::Clone::clone(&__c0);
            let __v6 = __v5 + __v4;
            __c0 = __v6;
            __sr1.push((__pb4,));
            __n7 += 1;
            {
                let (__pb4,) = ::autodiff::__private::saved::pop(&mut __sr1);
                let mut __d6 = ::core::clone::Clone::clone(&__dc0);
                let mut __d5 = ::autodiff::__private::ops::add_d0(&__d6);
                let mut __d4 = ::autodiff::__private::ops::add_d1(&__d6);
                let __g1 = __pb4(
                    __d4,
                    ::autodiff::__private::shadow::sink(&mut __d0),
                    ::autodiff::__private::shadow::no_sink(),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d0, __g1.0);
            }
        }
        let __v7 = __n7;
        let __v8 = ::core::clone::Clone::clone(&__c0);
        ::autodiff::__private::ops::reset_d0(&mut __dc0);
        (
            __v8,
            (
                ::autodiff::__private::finish_tangent(&__v0, __d0),
                ::autodiff::__private::NoTangent,
            ),
        )
    }
    const __FORWARD: ::core::option::Option<&'static str> = Self::__forward_at(
        ::autodiff::__private::forward::CALL_DEPTH,
    );
    const fn __forward_at(depth: u32) -> ::core::option::Option<&'static str> {
        if depth == 0 {
            return ::core::option::Option::None;
        }
        ::autodiff::__private::forward::first_reason(
            &[::core::option::Option::None, pick::__forward_at(depth - 1)],
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'__autodiff_l0>(
        __v0: &'__autodiff_l0 [f64],
        __v1: usize,
        __tv0: &[f64],
        __tv1: impl ::core::marker::Sized,
    ) -> (f64, f64) {
        let __tv0 = &__tv0[..__v0.len()];
        let mut __c0 = (0.0);
        let mut __tc0 = ::autodiff::__private::zero_tangent(&__c0);
        let mut __c1 = (0u8);
        let mut __n7 = 0usize;
        for __v2 in (0)..__v1 {
            let __v3 = __v2 % __v0.len();
            let (__v4, __tv4) = {
                #[allow(unused_imports)]
                use ::autodiff::__private::entry::traits::*;
                pick::__jvp(
                    __v0,
                    __v3,
                    __tv0,
                    ::autodiff::__private::forward::lend(
                        &{
                            #[allow(unused_imports)]
                            use ::autodiff::__private::forward::{
                                ArgZero as _, NoZero as _, ScalarZero as _,
                            };
                            (&&&::autodiff::__private::forward::Probe(&__v3)).zero()
                        },
                    ),
                )
            };
            let __v5 = ::core::clone::Clone::clone(&__c0);
            let __tv5 = ::core::clone::Clone::clone(&__tc0);
            let __v6 = __v5 + __v4;
            let __tv6 = (::autodiff::__private::ops::add_d0(&__tv5)
                + ::autodiff::__private::ops::add_d1(&__tv4));
            __c0 = __v6;
            __tc0 = __tv6;
            __n7 += 1;
        }
        let __v7 = __n7;
        let __v8 = ::core::clone::Clone::clone(&__c0);
        let __tv8 = ::core::clone::Clone::clone(&__tc0);
        (__v8, __tv8)
    }
    #[inline]
    fn __jvp_function<'__autodiff_l0>() -> impl ::core::ops::Fn(
        &[f64],
        usize,
        &[f64],
    ) -> (f64, f64) + use<'__autodiff_l0> {
        move |__v0, __v1, __tv0| {
            <Self as ::autodiff::__private::entry::JvpEntries2>::jvp_opts(
                __v0,
                __v1,
                (::core::option::Option::Some(__tv0), ::core::option::Option::None),
            )
        }
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`sum_picks` is not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over the float type is written for them), or write it `fn sum_picks<T: Float>(…) -> T` with `T` for its float type",
    );
    fn __hvp_function<'__autodiff_l0>() -> fn(
        &'__autodiff_l0 [f64],
        usize,
        &'__autodiff_l0 [f64],
    ) -> ! {
        ::core::unreachable!()
    }
    const __HESSIAN: ::core::option::Option<&'static str> = Self::__HVP;
    fn __hessian_function<'__autodiff_l0>() -> fn(&'__autodiff_l0 [f64], usize) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel1<'__autodiff_l0, __S, __I0>(
        _selection: __S,
    ) -> fn(&'__autodiff_l0 [f64], usize, __I0) -> ! {
        ::core::unreachable!()
    }
    fn __hessian_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> fn(&'__autodiff_l0 [f64], usize) -> ! {
        ::core::unreachable!()
    }
}
impl ::autodiff::__private::entry::Sig2 for sum_picks {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Slice<f64>;
    type K1 = ::autodiff::__private::entry::Constant<usize>;
    const NAME: &'static str = "sum_picks";
    const PARAMS: [&'static str; 2] = ["v", "n"];
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Forward2 for sum_picks {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'a, 't>(
        __v0: ::autodiff::__private::entry::SliceArg<'a, f64>,
        __v1: usize,
        __tv0: ::autodiff::__private::entry::SliceSlot<'t, f64>,
        __tv1: ::autodiff::__private::NoTangent,
    ) -> (f64, f64) {
        Self::__jvp(__v0, __v1, __tv0, __tv1)
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Reverse2 for sum_picks {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'a0: 'all, 'a1: 'all, 'all>(
        __v0: ::autodiff::__private::entry::SliceArg<'a0, f64>,
        __v1: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::SliceShadow<'_, f64>,
            ::autodiff::__private::shadow::Ignored,
        ) -> (::autodiff::__private::NoTangent, ::autodiff::__private::NoTangent),
    ) {
        let _ = sum_picks;
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (0.0);
        let mut __c1 = (0u8);
        let mut __n7 = 0usize;
        __sr1
            .extend(
                ::core::iter::Iterator::map(
                    ::core::iter::IntoIterator::into_iter((0)..__v1),
                    |__v2| {
                        let __v3 = __v2 % __v0.len();
                        let (__v4, __pb4) = {
                            #[allow(unused_imports)]
                            use ::autodiff::__private::entry::traits::*;
                            pick::__vjp_into(__v0, __v3)
                        };
                        let __v5 = ::core::clone::Clone::clone(&__c0);
                        let __v6 = __v5 + __v4;
                        __c0 = __v6;
                        __n7 += 1;
                        (__pb4,)
                    },
                ),
            );
        let __v7 = __n7;
        let __v8 = ::core::clone::Clone::clone(&__c0);
        (
            __v8,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                mut __d0: ::autodiff::__private::shadow::SliceShadow<'_, f64>,
                _|
            {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __d8 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d8),
                );
                for __v2 in ::autodiff::__private::saved::range_back(
                    (0),
                    ::core::iter::Iterator::size_hint(&((0)..__v1)).0,
                ) {
                    let (__pb4,) = ::autodiff::__private::saved::pop(&mut __sr1);
                    let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                    let mut __d6 = __t1;
                    let mut __d5 = ::autodiff::__private::ops::add_d0(&__d6);
                    let mut __d4 = ::autodiff::__private::ops::add_d1(&__d6);
                    ::autodiff::__private::Accumulate::accumulate_read(
                        &mut __dc0,
                        ::autodiff::__private::ops::identity_d0(&__d5),
                    );
                    let __g2 = __pb4(
                        __d4,
                        ::autodiff::__private::shadow::sink(&mut __d0),
                        ::autodiff::__private::shadow::no_sink(),
                    );
                    ::autodiff::__private::Accumulate::accumulate(&mut __d0, __g2.0);
                }
                ::autodiff::__private::ops::reset_d0(&mut __dc0);
                (::autodiff::__private::NoTangent, ::autodiff::__private::NoTangent)
            },
        )
    }
}
