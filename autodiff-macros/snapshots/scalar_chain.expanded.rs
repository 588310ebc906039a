fn chain(x: f64, n: usize) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer_plain(|| chain(x, n));
    }
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 1.0001 + (x * y).cos();
    }
    y
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct chain {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl chain {
    const fn __all() -> ::autodiff::__private::select::Sel1<0> {
        ::autodiff::__private::select::Sel1
    }
    #[inline]
    fn __vjp(
        __v0: f64,
        __v1: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(f64) -> (f64, ::autodiff::__private::NoTangent) + use<>,
    ) {
        let _ = chain;
        let (__value, __pullback) = <Self as ::autodiff::__private::entry::Reverse2>::__vjp_into(
            __v0,
            __v1,
        );
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1) = __pullback(
                    __dy,
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::no_sink(),
                );
                (__g0, __g1)
            },
        )
    }
    #[inline]
    fn __vjp_selected(
        __v0: f64,
        __v1: usize,
    ) -> (f64, impl ::core::ops::FnOnce(f64) -> f64 + use<>) {
        let (__value, __pullback) = Self::__vjp(__v0, __v1);
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1) = __pullback(__dy);
                __g0
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
        __v1: usize,
        __tv0: f64,
        __tv1: impl ::core::marker::Sized,
    ) -> (f64, f64) {
        let mut __c0 = __v0;
        let mut __tc0 = __tv0;
        let mut __c1 = (0u8);
        let mut __n9 = 0usize;
        for __v2 in (0)..__v1 {
            let __v3 = ::core::clone::Clone::clone(&__c0);
            let __tv3 = ::core::clone::Clone::clone(&__tc0);
            let __v4 = __v3.sin();
            let __tv4 = (::autodiff::__private::ops::sin_d0_from_cos(
                &(__v3).cos(),
                &__tv3,
            ));
            let __v5 = __v4 * (1.0001);
            let __tv5 = (::autodiff::__private::ops::mul_d0(&(1.0001), &__tv4));
            let __v6 = __v0 * __v3;
            let __tv6 = (::autodiff::__private::ops::mul_d0(&__v3, &__tv0)
                + ::autodiff::__private::ops::mul_d1(&__v0, &__tv3));
            let __v7 = __v6.cos();
            let __tv7 = (::autodiff::__private::ops::cos_d0_from_sin(
                &(__v6).sin(),
                &__tv6,
            ));
            let __v8 = __v5 + __v7;
            let __tv8 = (::autodiff::__private::ops::add_d0(&__tv5)
                + ::autodiff::__private::ops::add_d1(&__tv7));
            __c0 = __v8;
            __tc0 = __tv8;
            __n9 += 1;
        }
        let __v9 = __n9;
        let __v10 = ::core::clone::Clone::clone(&__c0);
        let __tv10 = ::core::clone::Clone::clone(&__tc0);
        (__v10, __tv10)
    }
    #[inline]
    fn __jvp_function() -> impl ::core::ops::Fn(f64, usize, f64) -> (f64, f64) + use<> {
        move |__v0, __v1, __tv0| {
            <Self as ::autodiff::__private::entry::JvpEntries2>::jvp_opts(
                __v0,
                __v1,
                (::core::option::Option::Some(__tv0), ::core::option::Option::None),
            )
        }
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`chain` is not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over the float type is written for them), or write it `fn chain<T: Float>(…) -> T` with `T` for its float type",
    );
    fn __hvp_function() -> fn(f64, usize, f64) -> ! {
        ::core::unreachable!()
    }
    const __HESSIAN: ::core::option::Option<&'static str> = Self::__HVP;
    fn __hessian_function() -> fn(f64, usize) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel1<__S, __I0>(_selection: __S) -> fn(f64, usize, __I0) -> ! {
        ::core::unreachable!()
    }
    fn __hessian_sel1<__S>(_selection: __S) -> fn(f64, usize) -> ! {
        ::core::unreachable!()
    }
}
impl ::autodiff::__private::entry::Sig2 for chain {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Scalar<f64>;
    type K1 = ::autodiff::__private::entry::Constant<usize>;
    const NAME: &'static str = "chain";
    const PARAMS: [&'static str; 2] = ["x", "n"];
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Forward2 for chain {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'a, 't>(
        __v0: f64,
        __v1: usize,
        __tv0: f64,
        __tv1: ::autodiff::__private::NoTangent,
    ) -> (f64, f64) {
        Self::__jvp(__v0, __v1, __tv0, __tv1)
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Reverse2 for chain {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'a0: 'all, 'a1: 'all, 'all>(
        __v0: f64,
        __v1: usize,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (f64, ::autodiff::__private::NoTangent),
    ) {
        let _ = chain;
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = __v0;
        let mut __c1 = (0u8);
        let mut __n9 = 0usize;
        __sr1
            .extend(
                ::core::iter::Iterator::map(
                    ::core::iter::IntoIterator::into_iter((0)..__v1),
                    |__v2| {
                        let __v3 = ::core::clone::Clone::clone(&__c0);
                        let __k3 = ::core::clone::Clone::clone(&__v3);
                        let __v4 = __v3.sin();
                        let __v5 = __v4 * (1.0001);
                        let __v6 = __v0 * __v3;
                        let __v7 = __v6.cos();
                        let __v8 = __v5 + __v7;
                        __c0 = __v8;
                        __n9 += 1;
                        (__k3,)
                    },
                ),
            );
        let __v9 = __n9;
        let __v10 = ::core::clone::Clone::clone(&__c0);
        (
            __v10,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |__dy: f64, _, _| {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
                let mut __d10 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d10),
                );
                for __v2 in ::autodiff::__private::saved::range_back(
                    (0),
                    ::core::iter::Iterator::size_hint(&((0)..__v1)).0,
                ) {
                    let (__v3,) = ::autodiff::__private::saved::pop(&mut __sr1);
                    let __v6 = __v0 * __v3;
                    let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                    let mut __d8 = __t1;
                    let (__pa7, __pa8) = if ::autodiff::__private::ops::zero_cotangent(
                        &__d8,
                    ) {
                        (__d8, __d8)
                    } else {
                        let __p2 = ::autodiff::__private::ops::one_like(&__d8);
                        let __p3 = ::autodiff::__private::ops::add_d0(&__p2);
                        let __p4 = ::autodiff::__private::ops::add_d1(&__p2);
                        let __p5 = ::autodiff::__private::ops::mul_d0(&(1.0001), &__p3);
                        let __p6 = ::autodiff::__private::ops::cos_d0(&__v6, &__p4);
                        (
                            ::autodiff::__private::ops::scale_by(
                                ::autodiff::__private::ops::sin_d0(&__v3, &__p5)
                                    + ::autodiff::__private::ops::mul_d1(&__v0, &__p6),
                                &__d8,
                            ),
                            ::autodiff::__private::ops::scale_by(
                                ::autodiff::__private::ops::mul_d0(&__v3, &__p6),
                                &__d8,
                            ),
                        )
                    };
                    let mut __d3 = __pa7;
                    ::autodiff::__private::Accumulate::accumulate(&mut __d0, __pa8);
                    ::autodiff::__private::Accumulate::accumulate_read(
                        &mut __dc0,
                        ::autodiff::__private::ops::identity_d0(&__d3),
                    );
                }
                let __t9 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                ::autodiff::__private::Accumulate::accumulate(&mut __d0, __t9);
                ((__d0 + 0.0), ::autodiff::__private::NoTangent)
            },
        )
    }
}
