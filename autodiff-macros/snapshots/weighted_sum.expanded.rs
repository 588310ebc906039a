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
    const __SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "weighted_sum",
        &["w1", "x1", "w2", "x2"],
        &[],
    );
    const fn __all() -> ::autodiff::__private::select::Sel4<0, 1, 2, 3> {
        ::autodiff::__private::select::Sel4
    }
    #[inline]
    fn __vjp_into(
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
        ) -> (f64, f64, f64, f64) + use<>,
    ) {
        let _ = weighted_sum;
        let __v4 = __v0 * __v1;
        let __v5 = __v2 * __v3;
        let __v6 = __v4 + __v5;
        (
            __v6,
            move |
                __dy: f64,
                _: ::autodiff::__private::shadow::Ignored,
                _: ::autodiff::__private::shadow::Ignored,
                _: ::autodiff::__private::shadow::Ignored,
                _: ::autodiff::__private::shadow::Ignored|
            {
                let mut __d6 = __dy;
                let mut __d4 = ::autodiff::__private::ops::add_d0(&__d6);
                let mut __d5 = ::autodiff::__private::ops::add_d1(&__d6);
                let mut __d2 = ::autodiff::__private::ops::mul_d0(&__v3, &__d5);
                let mut __d3 = ::autodiff::__private::ops::mul_d1(&__v2, &__d5);
                let mut __d0 = ::autodiff::__private::ops::mul_d0(&__v1, &__d4);
                let mut __d1 = ::autodiff::__private::ops::mul_d1(&__v0, &__d4);
                (
                    ::autodiff::__private::finish_tangent(&__v0, __d0),
                    ::autodiff::__private::finish_tangent(&__v1, __d1),
                    ::autodiff::__private::finish_tangent(&__v2, __d2),
                    ::autodiff::__private::finish_tangent(&__v3, __d3),
                )
            },
        )
    }
    #[inline]
    fn __vjp_reborrow(
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
            ::autodiff::__private::again::Val<f64>,
            ::autodiff::__private::again::Val<f64>,
            ::autodiff::__private::again::Val<f64>,
            ::autodiff::__private::again::Val<f64>,
        ) -> (f64, f64, f64, f64) + use<>,
    ) {
        let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2, __v3);
        (
            __value,
            move |
                __dy: f64,
                __s0: ::autodiff::__private::shadow::Ignored,
                __s1: ::autodiff::__private::shadow::Ignored,
                __s2: ::autodiff::__private::shadow::Ignored,
                __s3: ::autodiff::__private::shadow::Ignored,
                _: ::autodiff::__private::again::Val<f64>,
                _: ::autodiff::__private::again::Val<f64>,
                _: ::autodiff::__private::again::Val<f64>,
                _: ::autodiff::__private::again::Val<f64>|
            { __pullback(__dy, __s0, __s1, __s2, __s3) },
        )
    }
    const __FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const fn __forward_at(_: u32) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
    }
    #[inline]
    fn __jvp(
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
        let __y: f64 = __v6;
        let __ty: f64 = __tv6;
        (__y, __ty)
    }
    #[inline]
    #[track_caller]
    fn __jvp_opts(
        __v0: f64,
        __v1: f64,
        __v2: f64,
        __v3: f64,
        __o: <(f64, f64, f64, f64) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (f64, f64) {
        let __tv0: f64 = __o.0.unwrap_or(0.0);
        let __tv1: f64 = __o.1.unwrap_or(0.0);
        let __tv2: f64 = __o.2.unwrap_or(0.0);
        let __tv3: f64 = __o.3.unwrap_or(0.0);
        Self::__jvp(__v0, __v1, __v2, __v3, __tv0, __tv1, __tv2, __tv3)
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`weighted_sum` is not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over the float type is written for them), or write it `fn weighted_sum<T: Float>(…) -> T` with `T` for `f64`",
    );
    fn __hvp_function() -> fn(f64, f64, f64, f64, f64, f64, f64, f64) -> ! {
        ::core::unreachable!()
    }
    const __HESSIAN: ::core::option::Option<&'static str> = Self::__HVP;
    fn __hessian_function() -> fn(f64, f64, f64, f64) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel1<__S, __I0>(_selection: __S) -> fn(f64, f64, f64, f64, __I0) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel2<__S, __I0, __I1>(
        _selection: __S,
    ) -> fn(f64, f64, f64, f64, __I0, __I1) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel3<__S, __I0, __I1, __I2>(
        _selection: __S,
    ) -> fn(f64, f64, f64, f64, __I0, __I1, __I2) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel4<__S, __I0, __I1, __I2, __I3>(
        _selection: __S,
    ) -> fn(f64, f64, f64, f64, __I0, __I1, __I2, __I3) -> ! {
        ::core::unreachable!()
    }
    fn __hessian_sel1<__S>(_selection: __S) -> fn(f64, f64, f64, f64) -> ! {
        ::core::unreachable!()
    }
    const __JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const __JACOBIAN_ALL: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`weighted_sum` has 4 differentiable parameters (`w1`, `x1`, `w2`, `x2`): `jacobian!` needs exactly one; select it with `params = [\"w1\"]`",
    );
    const __JACOBIAN_K: usize = 0usize;
}
impl ::autodiff::__private::entry::Jvp4 for weighted_sum {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Scalar<f64>;
    type K1 = ::autodiff::__private::entry::Scalar<f64>;
    type K2 = ::autodiff::__private::entry::Scalar<f64>;
    type K3 = ::autodiff::__private::entry::Scalar<f64>;
    #[inline(always)]
    fn jvp_opts<'a>(
        __v0: <Self::K0 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __v1: <Self::K1 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __v2: <Self::K2 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __v3: <Self::K3 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __o: (
            ::core::option::Option<
                <Self::K0 as ::autodiff::__private::entry::Kind>::Slot<'a>,
            >,
            ::core::option::Option<
                <Self::K1 as ::autodiff::__private::entry::Kind>::Slot<'a>,
            >,
            ::core::option::Option<
                <Self::K2 as ::autodiff::__private::entry::Kind>::Slot<'a>,
            >,
            ::core::option::Option<
                <Self::K3 as ::autodiff::__private::entry::Kind>::Slot<'a>,
            >,
        ),
    ) -> (f64, f64) {
        Self::__jvp_opts(__v0, __v1, __v2, __v3, __o)
    }
}
impl ::autodiff::__private::entry::Sig4 for weighted_sum {
    type Out = f64;
    type K0 = ::autodiff::__private::entry::Scalar<f64>;
    type K1 = ::autodiff::__private::entry::Scalar<f64>;
    type K2 = ::autodiff::__private::entry::Scalar<f64>;
    type K3 = ::autodiff::__private::entry::Scalar<f64>;
    const NAME: &'static str = "weighted_sum";
    const PARAMS: [&'static str; 4usize] = ["w1", "x1", "w2", "x2"];
    #[inline(always)]
    fn vjp_into<'a>(
        __v0: <Self::K0 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __v1: <Self::K1 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __v2: <Self::K2 as ::autodiff::__private::entry::Kind>::Arg<'a>,
        __v3: <Self::K3 as ::autodiff::__private::entry::Kind>::Arg<'a>,
    ) -> (
        f64,
        impl for<'s> ::core::ops::FnOnce(
            f64,
            <Self::K0 as ::autodiff::__private::entry::Kind>::Shadow<'s>,
            <Self::K1 as ::autodiff::__private::entry::Kind>::Shadow<'s>,
            <Self::K2 as ::autodiff::__private::entry::Kind>::Shadow<'s>,
            <Self::K3 as ::autodiff::__private::entry::Kind>::Shadow<'s>,
        ) -> (
                <Self::K0 as ::autodiff::__private::entry::Kind>::Pulled,
                <Self::K1 as ::autodiff::__private::entry::Kind>::Pulled,
                <Self::K2 as ::autodiff::__private::entry::Kind>::Pulled,
                <Self::K3 as ::autodiff::__private::entry::Kind>::Pulled,
            ),
    ) {
        Self::__vjp_into(__v0, __v1, __v2, __v3)
    }
}
