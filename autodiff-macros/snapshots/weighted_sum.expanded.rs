fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer_plain(|| weighted_sum(
            w1,
            x1,
            w2,
            x2,
        ));
    }
    w1 * x1 + w2 * x2
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct weighted_sum {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl weighted_sum {
    const __FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const fn __forward_at(_: u32) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
    }
}
impl ::autodiff::__private::entry::Sig4 for weighted_sum {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Scalar<f64>;
    type K1 = ::autodiff::__private::entry::Scalar<f64>;
    type K2 = ::autodiff::__private::entry::Scalar<f64>;
    type K3 = ::autodiff::__private::entry::Scalar<f64>;
    const NAME: &'static str = "weighted_sum";
    const PARAMS: [&'static str; 4] = ["w1", "x1", "w2", "x2"];
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Forward4 for weighted_sum {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'a, 't>(
        __v0: f64,
        __v1: f64,
        __v2: f64,
        __v3: f64,
        __tv0: f64,
        __tv1: f64,
        __tv2: f64,
        __tv3: f64,
    ) -> (f64, f64) {
        let __v4 = __v0 * __v1;
        let __tv4 = (::autodiff::__private::ops::mul_d0(&__v1, &__tv0)
            + ::autodiff::__private::ops::mul_d1(&__v0, &__tv1));
        let __v5 = __v2 * __v3;
        let __tv5 = (::autodiff::__private::ops::mul_d0(&__v3, &__tv2)
            + ::autodiff::__private::ops::mul_d1(&__v2, &__tv3));
        let __v6 = __v4 + __v5;
        let __tv6 = (::autodiff::__private::ops::add_d0(&__tv4)
            + ::autodiff::__private::ops::add_d1(&__tv5));
        (__v6, __tv6)
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::entry::Reverse4 for weighted_sum {
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'a0: 'all, 'a1: 'all, 'a2: 'all, 'a3: 'all, 'all>(
        __v0: f64,
        __v1: f64,
        __v2: f64,
        __v3: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (f64, f64, f64, f64),
    ) {
        let _ = weighted_sum;
        let __v4 = __v0 * __v1;
        let __v5 = __v2 * __v3;
        let __v6 = __v4 + __v5;
        (
            __v6,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |__dy: f64, _, _, _, _| {
                let mut __d6 = __dy;
                let mut __d4 = ::autodiff::__private::ops::add_d0(&__d6);
                let mut __d5 = ::autodiff::__private::ops::add_d1(&__d6);
                let mut __d2 = ::autodiff::__private::ops::mul_d0(&__v3, &__d5);
                let mut __d3 = ::autodiff::__private::ops::mul_d1(&__v2, &__d5);
                let mut __d0 = ::autodiff::__private::ops::mul_d0(&__v1, &__d4);
                let mut __d1 = ::autodiff::__private::ops::mul_d1(&__v0, &__d4);
                ((__d0 + 0.0), (__d1 + 0.0), (__d2 + 0.0), (__d3 + 0.0))
            },
        )
    }
}
