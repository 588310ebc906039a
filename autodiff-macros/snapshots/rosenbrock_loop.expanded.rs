fn rosenbrock(x: &[f64]) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer_plain(|| rosenbrock(x));
    }
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
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
        let mut __c0 = (0.0);
        let __v1 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __n15 = 0usize;
        for __v2 in (0)..__v1 {
            let __v3 = __v0[__v2];
            let __v4 = (1.0) - __v3;
            let __v5 = __v2 + 1;
            let __v6 = __v0[__v5];
            let __v7 = __v3 * __v3;
            let __v8 = __v6 - __v7;
            let __v9 = __v4 * __v4;
            let __v10 = (100.0) * __v8;
            let __v11 = __v10 * __v8;
            let __v12 = __v9 + __v11;
            let __v13 = ::core::clone::Clone::clone(&__c0);
            let __v14 = __v13 + __v12;
            __c0 = __v14;
            __n15 += 1;
        }
        let __v15 = __n15;
        let __v16 = ::core::clone::Clone::clone(&__c0);
        (
            __v16,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                mut __d0: ::autodiff::__private::shadow::SliceShadow<'_, f64>,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, [f64]>|
            {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __d16 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d16),
                );
                for __v2 in ::autodiff::__private::saved::range_back(
                    (0),
                    ::core::iter::Iterator::size_hint(&((0)..__v1)).0,
                ) {
                    let __v3 = __v0[__v2];
                    let __v4 = (1.0) - __v3;
                    let __v5 = __v2 + 1;
                    let __v6 = __v0[__v5];
                    let __v7 = __v3 * __v3;
                    let __v8 = __v6 - __v7;
                    let __v10 = (100.0) * __v8;
                    let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                    let mut __d14 = __t1;
                    let mut __d13 = ::autodiff::__private::ops::add_d0(&__d14);
                    let mut __d12 = ::autodiff::__private::ops::add_d1(&__d14);
                    ::autodiff::__private::Accumulate::accumulate_read(
                        &mut __dc0,
                        ::autodiff::__private::ops::identity_d0(&__d13),
                    );
                    let mut __d9 = ::autodiff::__private::ops::add_d0(&__d12);
                    let mut __d11 = ::autodiff::__private::ops::add_d1(&__d12);
                    let mut __d10 = ::autodiff::__private::ops::mul_d0(&__v8, &__d11);
                    let mut __d8 = ::autodiff::__private::ops::mul_d1(&__v10, &__d11);
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d8,
                        ::autodiff::__private::ops::mul_d1(&(100.0), &__d10),
                    );
                    let mut __d4 = ::autodiff::__private::ops::mul_d0(&__v4, &__d9);
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d4,
                        ::autodiff::__private::ops::mul_d1(&__v4, &__d9),
                    );
                    let mut __d6 = ::autodiff::__private::ops::sub_d0(&__d8);
                    let mut __d7 = ::autodiff::__private::ops::add_d0(&__d8);
                    let mut __d3 = ::autodiff::__private::ops::mul_d0(&__v3, &__d7);
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d3,
                        ::autodiff::__private::ops::mul_d1(&__v3, &__d7),
                    );
                    ::autodiff::__private::ops::index_d0(&mut __d0, __v5, &__d6);
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d3,
                        ::autodiff::__private::ops::add_d0(&__d4),
                    );
                    let mut __d3 = ::autodiff::__private::ops::sub_d1(&__d3);
                    ::autodiff::__private::ops::index_d0(&mut __d0, __v2, &__d3);
                }
                ::autodiff::__private::ops::reset_d0(&mut __dc0);
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
        let mut __c0 = (0.0);
        let __v1 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __dc0 = ::autodiff::__private::adjoint_zero(&__c0);
        let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
        let mut __d16 = __dy;
        ::autodiff::__private::Accumulate::accumulate(
            &mut __dc0,
            ::autodiff::__private::ops::identity_d0(&__d16),
        );
        let mut __carry2 = ::autodiff::__private::ops::element_zero(&__d0);
        let mut __at3 = ::core::option::Option::None;
        let mut __n15 = 0usize;
        for __v2 in (0)..__v1 {
            let __v3 = __v0[__v2];
            let __v4 = (1.0) - __v3;
            let __v5 = __v2 + 1;
            let __v6 = __v0[__v5];
            let __v7 = __v3 * __v3;
            let __v8 = __v6 - __v7;
            let __v9 = __v4 * __v4;
            let __v10 = (100.0) * __v8;
            let __v11 = __v10 * __v8;
            let __v12 = __v9 + __v11;
            let __v13 = ::core::clone::Clone::clone(&__c0);
            let __v14 = __v13 + __v12;
            __c0 = __v14;
            __n15 += 1;
            {
                let mut __here1 = __carry2;
                let mut __hot4 = __at3.take().is_some();
                let __v5 = __v2 + 1;
                let mut __d14 = ::core::clone::Clone::clone(&__dc0);
                let mut __d13 = ::autodiff::__private::ops::add_d0(&__d14);
                let mut __d12 = ::autodiff::__private::ops::add_d1(&__d14);
                let mut __d9 = ::autodiff::__private::ops::add_d0(&__d12);
                let mut __d11 = ::autodiff::__private::ops::add_d1(&__d12);
                let mut __d10 = ::autodiff::__private::ops::mul_d0(&__v8, &__d11);
                let mut __d8 = ::autodiff::__private::ops::mul_d1(&__v10, &__d11);
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d8,
                    ::autodiff::__private::ops::mul_d1(&(100.0), &__d10),
                );
                let mut __d4 = ::autodiff::__private::ops::mul_d0(&__v4, &__d9);
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d4,
                    ::autodiff::__private::ops::mul_d1(&__v4, &__d9),
                );
                let mut __d6 = ::autodiff::__private::ops::sub_d0(&__d8);
                let mut __d7 = ::autodiff::__private::ops::add_d0(&__d8);
                let mut __d3 = ::autodiff::__private::ops::mul_d0(&__v3, &__d7);
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d3,
                    ::autodiff::__private::ops::mul_d1(&__v3, &__d7),
                );
                __carry2 = __d6;
                __at3 = ::core::option::Option::Some(__v5);
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d3,
                    ::autodiff::__private::ops::add_d0(&__d4),
                );
                let mut __d3 = ::autodiff::__private::ops::sub_d1(&__d3);
                ::autodiff::__private::Accumulate::accumulate(&mut __here1, __d3);
                __hot4 = true;
                if __hot4 {
                    __d0[__v2] = __here1;
                }
            }
        }
        let __v15 = __n15;
        if let ::core::option::Option::Some(__k) = __at3 {
            __d0[__k] = __carry2;
        }
        let __v16 = ::core::clone::Clone::clone(&__c0);
        ::autodiff::__private::ops::reset_d0(&mut __dc0);
        (__v16, (::autodiff::__private::finish_tangent(&__v0, __d0),))
    }
    const __FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const fn __forward_at(_: u32) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
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
        let mut __c0 = (0.0);
        let mut __tc0 = ::autodiff::__private::zero_tangent(&__c0);
        let __v1 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __n15 = 0usize;
        {
            let __strip_range = (0)..__v1;
            let __strip_end = __strip_range.end;
            let mut __strip_at = __strip_range.start;
            while __strip_end > __strip_at && __strip_end - __strip_at >= 16 {
                let mut __strip_v12: [(_, _); 16] = [::core::default::Default::default(); 16];
                let __v0 = ::autodiff::__private::saved::Part::new(
                    &__v0[..],
                    __strip_at,
                    (__strip_at + 17),
                );
                let __tv0 = ::autodiff::__private::saved::Part::new(
                    &__tv0[..],
                    __strip_at,
                    (__strip_at + 17),
                );
                let __strip_first = __strip_at;
                for __strip_k in 0..16 {
                    let __v2 = __strip_at;
                    __strip_at += 1;
                    let __v3 = __v0[__v2];
                    let __tv3 = __tv0[__v2];
                    let __v4 = (1.0) - __v3;
                    let __stv4 = (::autodiff::__private::ops::sub_d0(&__tv3));
                    let __tv4 = ::autodiff::__private::ops::neg_d0(&__stv4);
                    let __v5 = __v2 + 1;
                    let __v6 = __v0[__v5];
                    let __tv6 = __tv0[__v5];
                    let __v7 = __v3 * __v3;
                    let __stv7 = ::autodiff::__private::ops::mul_d1(&__v3, &__tv3);
                    let __tv7 = {
                        let __autodiff_half = __stv7;
                        ::autodiff::__private::ops::add_d0(&__autodiff_half)
                            + __autodiff_half
                    };
                    let __v8 = __v6 - __v7;
                    let __tv8 = (::autodiff::__private::ops::sub_d0(&__tv6)
                        + ::autodiff::__private::ops::neg_d0(
                            &{
                                let __autodiff_half = ::autodiff::__private::ops::sub_d0(
                                    &__stv7,
                                );
                                ::autodiff::__private::ops::add_d0(&__autodiff_half)
                                    + __autodiff_half
                            },
                        ));
                    let __v9 = __v4 * __v4;
                    let __stv9 = ::autodiff::__private::ops::mul_d1(&__v4, &__stv4);
                    let __tv9 = ::autodiff::__private::ops::neg_d0(
                        &{
                            let __autodiff_half = __stv9;
                            ::autodiff::__private::ops::add_d0(&__autodiff_half)
                                + __autodiff_half
                        },
                    );
                    let __v10 = (100.0) * __v8;
                    let __tv10 = (::autodiff::__private::ops::mul_d1(&(100.0), &__tv8));
                    let __v11 = __v10 * __v8;
                    let __stv11 = ::autodiff::__private::ops::mul_d1(&__v10, &__tv8);
                    let __tv11 = {
                        let __autodiff_half = __stv11;
                        ::autodiff::__private::ops::add_d0(&__autodiff_half)
                            + __autodiff_half
                    };
                    let __v12 = __v9 + __v11;
                    let __stv12 = (::autodiff::__private::ops::add_d1(&__stv11)
                        + ::autodiff::__private::ops::neg_d0(
                            &(::autodiff::__private::ops::add_d0(&__stv9)),
                        ));
                    let __tv12 = {
                        let __autodiff_half = __stv12;
                        ::autodiff::__private::ops::add_d0(&__autodiff_half)
                            + __autodiff_half
                    };
                    __strip_v12[__strip_k] = (__v12, __tv12);
                }
                __strip_at = __strip_first;
                for __strip_k in 0..16 {
                    let __v2 = __strip_at;
                    __strip_at += 1;
                    let (__v12, __tv12) = __strip_v12[__strip_k];
                    let __v13 = ::core::clone::Clone::clone(&__c0);
                    let __tv13 = ::core::clone::Clone::clone(&__tc0);
                    let __v14 = __v13 + __v12;
                    let __tv14 = (::autodiff::__private::ops::add_d0(&__tv13)
                        + ::autodiff::__private::ops::add_d1(&__tv12));
                    __c0 = __v14;
                    __tc0 = __tv14;
                }
                __n15 += 16;
            }
            for __v2 in __strip_at..__strip_end {
                let __v3 = __v0[__v2];
                let __tv3 = __tv0[__v2];
                let __v4 = (1.0) - __v3;
                let __stv4 = (::autodiff::__private::ops::sub_d0(&__tv3));
                let __tv4 = ::autodiff::__private::ops::neg_d0(&__stv4);
                let __v5 = __v2 + 1;
                let __v6 = __v0[__v5];
                let __tv6 = __tv0[__v5];
                let __v7 = __v3 * __v3;
                let __stv7 = ::autodiff::__private::ops::mul_d1(&__v3, &__tv3);
                let __tv7 = {
                    let __autodiff_half = __stv7;
                    ::autodiff::__private::ops::add_d0(&__autodiff_half)
                        + __autodiff_half
                };
                let __v8 = __v6 - __v7;
                let __tv8 = (::autodiff::__private::ops::sub_d0(&__tv6)
                    + ::autodiff::__private::ops::neg_d0(
                        &{
                            let __autodiff_half = ::autodiff::__private::ops::sub_d0(
                                &__stv7,
                            );
                            ::autodiff::__private::ops::add_d0(&__autodiff_half)
                                + __autodiff_half
                        },
                    ));
                let __v9 = __v4 * __v4;
                let __stv9 = ::autodiff::__private::ops::mul_d1(&__v4, &__stv4);
                let __tv9 = ::autodiff::__private::ops::neg_d0(
                    &{
                        let __autodiff_half = __stv9;
                        ::autodiff::__private::ops::add_d0(&__autodiff_half)
                            + __autodiff_half
                    },
                );
                let __v10 = (100.0) * __v8;
                let __tv10 = (::autodiff::__private::ops::mul_d1(&(100.0), &__tv8));
                let __v11 = __v10 * __v8;
                let __stv11 = ::autodiff::__private::ops::mul_d1(&__v10, &__tv8);
                let __tv11 = {
                    let __autodiff_half = __stv11;
                    ::autodiff::__private::ops::add_d0(&__autodiff_half)
                        + __autodiff_half
                };
                let __v12 = __v9 + __v11;
                let __stv12 = (::autodiff::__private::ops::add_d1(&__stv11)
                    + ::autodiff::__private::ops::neg_d0(
                        &(::autodiff::__private::ops::add_d0(&__stv9)),
                    ));
                let __tv12 = {
                    let __autodiff_half = __stv12;
                    ::autodiff::__private::ops::add_d0(&__autodiff_half)
                        + __autodiff_half
                };
                let __v13 = ::core::clone::Clone::clone(&__c0);
                let __tv13 = ::core::clone::Clone::clone(&__tc0);
                let __v14 = __v13 + __v12;
                let __tv14 = (::autodiff::__private::ops::add_d0(&__tv13)
                    + {
                        let __autodiff_half = ::autodiff::__private::ops::add_d1(
                            &__stv12,
                        );
                        ::autodiff::__private::ops::add_d0(&__autodiff_half)
                            + __autodiff_half
                    });
                __c0 = __v14;
                __tc0 = __tv14;
                __n15 += 1;
            }
        }
        let __v15 = __n15;
        let __v16 = ::core::clone::Clone::clone(&__c0);
        let __tv16 = ::core::clone::Clone::clone(&__tc0);
        (__v16, __tv16)
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
        let (__value, __pullback) = Self::__vjp_reborrow(__v0);
        (
            __value,
            #[inline(always)]
            move |__dy: f64, __s0: ::autodiff::__private::shadow::SliceShadow<'_, f64>| {
                __pullback(__dy, __s0, ::autodiff::__private::again::Ref(__v0))
            },
        )
    }
}
