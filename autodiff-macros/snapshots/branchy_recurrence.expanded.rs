fn recurrence(a: f64, b: f64, n: usize) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer_plain(|| recurrence(a, b, n));
    }
    let h = 1e-5;
    let mut y = 0.0;
    for _ in 0..n {
        if y > 0.5 {
            y -= h * a * y;
        } else {
            y += h * b * (1.0 - y);
        }
    }
    y
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct recurrence {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl recurrence {
    const fn __all() -> ::autodiff::__private::select::Sel2<0, 1> {
        ::autodiff::__private::select::Sel2
    }
    #[inline]
    fn __vjp(
        __v0: f64,
        __v1: f64,
        __v2: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
        ) -> (f64, f64, ::autodiff::__private::NoTangent) + use<>,
    ) {
        let _ = recurrence;
        let (__value, __pullback) = <Self as ::autodiff::__private::entry::Reverse3>::__vjp_into(
            __v0,
            __v1,
            __v2,
        );
        (
            __value,
            move |__dy: f64| {
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
    fn __vjp_selected(
        __v0: f64,
        __v1: f64,
        __v2: usize,
    ) -> (f64, impl ::core::ops::FnOnce(f64) -> (f64, f64) + use<>) {
        let (__value, __pullback) = Self::__vjp(__v0, __v1, __v2);
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1, __g2) = __pullback(__dy);
                (__g0, __g1)
            },
        )
    }
    const __FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const fn __forward_at(_: u32) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp(
        __v0: f64,
        __v1: f64,
        __v2: usize,
        __tv0: f64,
        __tv1: f64,
        __tv2: impl ::core::marker::Sized,
    ) -> (f64, f64) {
        let mut __c0 = (0.0);
        let mut __tc0 = ::autodiff::__private::zero_tangent(&__c0);
        let mut __c1 = (0u8);
        let mut __n13 = 0usize;
        for __v3 in (0)..__v2 {
            let __v4 = ::core::clone::Clone::clone(&__c0);
            let __tv4 = ::core::clone::Clone::clone(&__tc0);
            let __v5 = __v4 > 0.5;
            if __v5 {
                let __v6 = (1e-5) * __v0;
                let __tv6 = (::autodiff::__private::ops::mul_d1(&(1e-5), &__tv0));
                let __v7 = __v6 * __v4;
                let __tv7 = (::autodiff::__private::ops::mul_d0(&__v4, &__tv6)
                    + ::autodiff::__private::ops::mul_d1(&__v6, &__tv4));
                let __v8 = __v4 - __v7;
                let __tv8 = (::autodiff::__private::ops::sub_d0(&__tv4)
                    + ::autodiff::__private::ops::sub_d1(&__tv7));
                __c0 = __v8;
                __tc0 = __tv8;
            } else {
                let __v9 = (1e-5) * __v1;
                let __tv9 = (::autodiff::__private::ops::mul_d1(&(1e-5), &__tv1));
                let __v10 = (1.0) - __v4;
                let __stv10 = (::autodiff::__private::ops::sub_d0(&__tv4));
                let __tv10 = ::autodiff::__private::ops::neg_d0(&__stv10);
                let __v11 = __v9 * __v10;
                let __tv11 = (::autodiff::__private::ops::mul_d0(&__v10, &__tv9)
                    + ::autodiff::__private::ops::neg_d0(
                        &::autodiff::__private::ops::mul_d1(&__v9, &__stv10),
                    ));
                let __v12 = __v4 + __v11;
                let __tv12 = (::autodiff::__private::ops::add_d0(&__tv4)
                    + ::autodiff::__private::ops::add_d1(&__tv11));
                __c0 = __v12;
                __tc0 = __tv12;
            }
            __n13 += 1;
        }
        let __v13 = __n13;
        let __v14 = ::core::clone::Clone::clone(&__c0);
        let __tv14 = ::core::clone::Clone::clone(&__tc0);
        (__v14, __tv14)
    }
    #[inline]
    fn __jvp_function() -> impl ::core::ops::Fn(
        f64,
        f64,
        usize,
        f64,
        f64,
    ) -> (f64, f64) + use<> {
        move |__v0, __v1, __v2, __tv0, __tv1| {
            <Self as ::autodiff::__private::entry::JvpEntries3>::jvp_opts(
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
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`recurrence` is not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over the float type is written for them), or write it `fn recurrence<T: Float>(…) -> T` with `T` for its float type",
    );
    fn __hvp_function() -> fn(f64, f64, usize, f64, f64) -> ! {
        ::core::unreachable!()
    }
    const __HESSIAN: ::core::option::Option<&'static str> = Self::__HVP;
    fn __hessian_function() -> fn(f64, f64, usize) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel1<__S, __I0>(_selection: __S) -> fn(f64, f64, usize, __I0) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel2<__S, __I0, __I1>(
        _selection: __S,
    ) -> fn(f64, f64, usize, __I0, __I1) -> ! {
        ::core::unreachable!()
    }
    fn __hessian_sel1<__S>(_selection: __S) -> fn(f64, f64, usize) -> ! {
        ::core::unreachable!()
    }
}
impl ::autodiff::__private::entry::Sig3 for recurrence {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Scalar<f64>;
    type K1 = ::autodiff::__private::entry::Scalar<f64>;
    type K2 = ::autodiff::__private::entry::Constant<usize>;
    const NAME: &'static str = "recurrence";
    const PARAMS: [&'static str; 3] = ["a", "b", "n"];
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Forward3 for recurrence {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'a, 't>(
        __v0: f64,
        __v1: f64,
        __v2: usize,
        __tv0: f64,
        __tv1: f64,
        __tv2: ::autodiff::__private::NoTangent,
    ) -> (f64, f64) {
        Self::__jvp(__v0, __v1, __v2, __tv0, __tv1, __tv2)
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Reverse3 for recurrence {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'a0: 'all, 'a1: 'all, 'a2: 'all, 'all>(
        __v0: f64,
        __v1: f64,
        __v2: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (f64, f64, ::autodiff::__private::NoTangent),
    ) {
        let _ = recurrence;
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (0.0);
        let mut __c1 = (0u8);
        let mut __n13 = 0usize;
        __sr1
            .extend(
                ::core::iter::Iterator::map(
                    ::core::iter::IntoIterator::into_iter((0)..__v2),
                    |__v3| {
                        let __v4 = ::core::clone::Clone::clone(&__c0);
                        let __k4 = ::core::clone::Clone::clone(&__v4);
                        let __v5 = __v4 > 0.5;
                        if __v5 {
                            let __v6 = (1e-5) * __v0;
                            let __v7 = __v6 * __v4;
                            let __v8 = __v4 - __v7;
                            __c0 = __v8;
                        } else {
                            let __v9 = (1e-5) * __v1;
                            let __v10 = (1.0) - __v4;
                            let __v11 = __v9 * __v10;
                            let __v12 = __v4 + __v11;
                            __c0 = __v12;
                        }
                        __n13 += 1;
                        (__k4,)
                    },
                ),
            );
        let __v13 = __n13;
        let __v14 = ::core::clone::Clone::clone(&__c0);
        (
            __v14,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |__dy: f64, _, _, _| {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
                let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
                let mut __d14 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d14),
                );
                for __v3 in ::autodiff::__private::saved::range_back(
                    (0),
                    ::core::iter::Iterator::size_hint(&((0)..__v2)).0,
                ) {
                    let (__v4,) = ::autodiff::__private::saved::pop(&mut __sr1);
                    let __v5 = __v4 > 0.5;
                    let mut __d4 = ::autodiff::__private::adjoint_zero(&__v4);
                    if __v5 {
                        let __v6 = (1e-5) * __v0;
                        let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                        let mut __d8 = __t1;
                        let (__pa5, __pa6) = {
                            let __p2 = ::autodiff::__private::ops::one_like(&__d8);
                            let __p3 = ::autodiff::__private::ops::sub_d1(&__p2);
                            let __p4 = ::autodiff::__private::ops::mul_d0(&__v4, &__p3);
                            (
                                ::autodiff::__private::ops::scale_by(
                                    ::autodiff::__private::ops::sub_d0(&__p2)
                                        + ::autodiff::__private::ops::mul_d1(&__v6, &__p3),
                                    &__d8,
                                ),
                                ::autodiff::__private::ops::scale_by(
                                    ::autodiff::__private::ops::mul_d1(&(1e-5), &__p4),
                                    &__d8,
                                ),
                            )
                        };
                        ::autodiff::__private::Accumulate::accumulate(&mut __d4, __pa5);
                        ::autodiff::__private::Accumulate::accumulate(&mut __d0, __pa6);
                    } else {
                        let __v9 = (1e-5) * __v1;
                        let __v10 = (1.0) - __v4;
                        let __t7 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                        let mut __d12 = __t7;
                        let (__pa12, __pa13) = {
                            let __p8 = ::autodiff::__private::ops::one_like(&__d12);
                            let __p9 = ::autodiff::__private::ops::add_d1(&__p8);
                            let __p10 = ::autodiff::__private::ops::mul_d0(
                                &__v10,
                                &__p9,
                            );
                            let __p11 = ::autodiff::__private::ops::mul_d1(&__v9, &__p9);
                            (
                                ::autodiff::__private::ops::scale_by(
                                    ::autodiff::__private::ops::add_d0(&__p8)
                                        + ::autodiff::__private::ops::sub_d1(&__p11),
                                    &__d12,
                                ),
                                ::autodiff::__private::ops::scale_by(
                                    ::autodiff::__private::ops::mul_d1(&(1e-5), &__p10),
                                    &__d12,
                                ),
                            )
                        };
                        ::autodiff::__private::Accumulate::accumulate(&mut __d4, __pa12);
                        ::autodiff::__private::Accumulate::accumulate(&mut __d1, __pa13);
                    }
                    ::autodiff::__private::Accumulate::accumulate_read(
                        &mut __dc0,
                        ::autodiff::__private::ops::identity_d0(&__d4),
                    );
                }
                ::autodiff::__private::ops::reset_d0(&mut __dc0);
                ((__d0 + 0.0), (__d1 + 0.0), ::autodiff::__private::NoTangent)
            },
        )
    }
}
