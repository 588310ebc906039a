fn dense(x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>) -> f64 {
    if ::autodiff::__private::implicit::requested() {
        return ::autodiff::__private::implicit::answer_plain(|| dense(x, w, b));
    }
    let h = x.dot(w) + b;
    h.mapv(f64::tanh).sum()
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct dense {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl dense {
    const __SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "dense",
        &["x", "w", "b"],
        &[],
    );
    const fn __all() -> ::autodiff::__private::select::Sel3<0, 1, 2> {
        ::autodiff::__private::select::Sel3
    }
    #[inline]
    fn __vjp<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
        ) -> (
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all>,
    ) {
        let _ = dense;
        let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2);
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
    fn __vjp_selected<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
        ) -> (
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all>,
    ) {
        let (__value, __pullback) = Self::__vjp(__v0, __v1, __v2);
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1, __g2) = __pullback(__dy);
                (__g0, __g1, __g2)
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all>,
    ) {
        let _ = dense;
        let (__value, __pullback) = Self::__vjp_reborrow(__v0, __v1, __v2);
        (
            __value,
            #[inline(always)]
            move |
                __dy: f64,
                __s0: ::autodiff::__private::shadow::Ignored,
                __s1: ::autodiff::__private::shadow::Ignored,
                __s2: ::autodiff::__private::shadow::Ignored|
            {
                __pullback(
                    __dy,
                    __s0,
                    __s1,
                    __s2,
                    ::autodiff::__private::again::Ref(__v0),
                    ::autodiff::__private::again::Ref(__v1),
                    ::autodiff::__private::again::Ref(__v2),
                )
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_reborrow<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Ref<'_, Array2<f64>>,
            ::autodiff::__private::again::Ref<'_, Array2<f64>>,
            ::autodiff::__private::again::Ref<'_, Array1<f64>>,
        ) -> (
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<>,
    ) {
        let __v3 = ::autodiff::__private::ops::tensor::dot(__v0, __v1);
        let __v4 = ::autodiff::__private::ops::tensor::add(&__v3, &__v2);
        let __v5 = ::autodiff::__private::ops::tensor::mapv(&__v4, &(f64::tanh));
        let __v6 = ::autodiff::__private::ops::tensor::sum(&__v5);
        (
            __v6,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                _,
                _,
                _,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, Array2<f64>>,
                ::autodiff::__private::again::Ref(
                    __v1,
                ): ::autodiff::__private::again::Ref<'_, Array2<f64>>,
                ::autodiff::__private::again::Ref(
                    __v2,
                ): ::autodiff::__private::again::Ref<'_, Array1<f64>>|
            {
                let mut __d6 = __dy;
                let mut __d5 = ::autodiff::__private::ops::tensor::sum_d0(&__v5, &__d6);
                let mut __d4 = ::autodiff::__private::ops::tensor::mapv_d0(
                    &__v4,
                    &__v5,
                    &(|__x, __y, __g| ::autodiff::__private::ops::tanh_d0(&__y, &__g)),
                    __d5,
                );
                let mut __d2 = ::autodiff::__private::ops::tensor::add_d1(&__v2, &__d4);
                let mut __d3 = ::autodiff::__private::ops::tensor::add_d0(&__v3, __d4);
                let mut __d0 = ::autodiff::__private::ops::tensor::dot_d0(
                    &__v0,
                    &__v1,
                    &__d3,
                );
                let mut __d1 = ::autodiff::__private::ops::tensor::dot_d1(
                    &__v0,
                    &__v1,
                    &__d3,
                );
                (
                    ::autodiff::__private::finish_tangent(&__v0, __d0),
                    ::autodiff::__private::finish_tangent(&__v1, __d1),
                    ::autodiff::__private::finish_tangent(&__v2, __d2),
                )
            },
        )
    }
    fn __gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        let __value_and_gradients = Self::__value_and_gradients_function::<
            __S,
        >(_selection);
        move |__v0: &Array2<f64>, __v1: &Array2<f64>, __v2: &Array1<f64>| {
            __value_and_gradients(__v0, __v1, __v2).1
        }
    }
    fn __value_and_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
    ) -> (
            f64,
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<
                        <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &Array2<f64>, __v1: &Array2<f64>, __v2: &Array1<f64>| {
            let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2);
            let (__g0, __g1, __g2) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<
                            <Array2<
                                f64,
                            > as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                        ::core::option::Option<
                            <Array2<
                                f64,
                            > as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                        ::core::option::Option<
                            <Array1<
                                f64,
                            > as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                    ),
                >>::select((
                    ::core::option::Option::Some(__g0),
                    ::core::option::Option::Some(__g1),
                    ::core::option::Option::Some(__g2),
                )),
            )
        }
    }
    fn __accumulate_gradients<__S>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut <Array2<
                        f64,
                    > as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut <Array2<
                        f64,
                    > as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut <Array1<
                        f64,
                    > as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >>::Input,
    ) -> f64
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut <Array2<
                        f64,
                    > as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut <Array2<
                        f64,
                    > as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    &'__autodiff_g mut <Array1<
                        f64,
                    > as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &Array2<f64>, __v1: &Array2<f64>, __v2: &Array1<f64>, __buffers| {
            let (__b0, __b1, __b2) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<
                        &mut <Array2<
                            f64,
                        > as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        &mut <Array2<
                            f64,
                        > as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        &mut <Array1<
                            f64,
                        > as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
            >>::scatter(__buffers);
            let __k0 = ::autodiff::__private::shadow::no_sink();
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let __k2 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2);
            let (__g0, __g1, __g2) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
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
            if let ::core::option::Option::Some(b) = __b2 {
                ::autodiff::__private::Accumulate::accumulate(b, __g2);
            }
            __value
        }
    }
    #[inline]
    fn __seeded<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
        __dy: f64,
    ) -> (
        f64,
        (
            <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
            <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
            <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
        ),
    ) {
        let (__value, __pullback) = Self::__vjp(__v0, __v1, __v2);
        (__value, __pullback(__dy))
    }
    const __FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const fn __forward_at(_: u32) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
        __tv0: &Array2<f64>,
        __tv1: &Array2<f64>,
        __tv2: &Array1<f64>,
    ) -> (f64, f64) {
        let __v3 = ::autodiff::__private::ops::tensor::dot(__v0, __v1);
        let __tv3 = ::autodiff::__private::ops::tensor::add(
            &::autodiff::__private::ops::tensor::dot(&__tv0, &__v1),
            &::autodiff::__private::ops::tensor::dot(&__v0, &__tv1),
        );
        let __v4 = ::autodiff::__private::ops::tensor::add(&__v3, &__v2);
        let __tv4 = ::autodiff::__private::ops::tensor::add(&__tv3, &__tv2);
        let __v5 = ::autodiff::__private::ops::tensor::mapv(&__v4, &(f64::tanh));
        let __tv5 = ::autodiff::__private::ops::tensor::mapv_d0(
            &__v4,
            &__v5,
            &(|__x, __y, __g| ::autodiff::__private::ops::tanh_d0(&__y, &__g)),
            &__tv4,
        );
        let __v6 = ::autodiff::__private::ops::tensor::sum(&__v5);
        let __tv6 = ::autodiff::__private::ops::tensor::sum(&__tv5);
        (__v6, __tv6)
    }
    #[inline]
    #[track_caller]
    fn __jvp_opts<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >(
        __v0: &'__autodiff_l0 Array2<f64>,
        __v1: &'__autodiff_l1 Array2<f64>,
        __v2: &'__autodiff_l2 Array1<f64>,
        __o: <(
            &'__autodiff_l0 Array2<f64>,
            &'__autodiff_l1 Array2<f64>,
            &'__autodiff_l2 Array1<f64>,
        ) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (f64, f64) {
        #[allow(unused_imports)]
        use ::autodiff::__private::forward::{ArgZero as _, NoZero as _, ScalarZero as _};
        let __z0 = __o
            .0
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v0)).zero());
        let __tv0: &Array2<f64> = __o
            .0
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z0));
        ::autodiff::__private::forward::check_shape(&__v0, &__tv0, "dense", "x");
        let __z1 = __o
            .1
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v1)).zero());
        let __tv1: &Array2<f64> = __o
            .1
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z1));
        ::autodiff::__private::forward::check_shape(&__v1, &__tv1, "dense", "w");
        let __z2 = __o
            .2
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v2)).zero());
        let __tv2: &Array1<f64> = __o
            .2
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z2));
        ::autodiff::__private::forward::check_shape(&__v2, &__tv2, "dense", "b");
        Self::__jvp(__v0, __v1, __v2, __tv0, __tv1, __tv2)
    }
    #[inline]
    fn __jvp_function<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >() -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
    ) -> (
            f64,
            f64,
        ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all> {
        move |__v0, __v1, __v2, __tv0, __tv1, __tv2| {
            Self::__jvp_opts(
                __v0,
                __v1,
                __v2,
                (
                    ::core::option::Option::Some(__tv0),
                    ::core::option::Option::Some(__tv1),
                    ::core::option::Option::Some(__tv2),
                ),
            )
        }
    }
    #[inline]
    fn __jvp_sel1<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
    >(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
        __S::I0,
    ) -> (
            f64,
            f64,
        ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all, __S>
    where
        __S: ::autodiff::__private::forward::Scatter1<
            (
                &'__autodiff_l0 Array2<f64>,
                &'__autodiff_l1 Array2<f64>,
                &'__autodiff_l2 Array1<f64>,
            ),
        >,
    {
        move |__v0, __v1, __v2, __sel0| {
            Self::__jvp_opts(__v0, __v1, __v2, __S::scatter(__sel0))
        }
    }
    #[inline]
    fn __jvp_sel2<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
    >(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
        __S::I0,
        __S::I1,
    ) -> (
            f64,
            f64,
        ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all, __S>
    where
        __S: ::autodiff::__private::forward::Scatter2<
            (
                &'__autodiff_l0 Array2<f64>,
                &'__autodiff_l1 Array2<f64>,
                &'__autodiff_l2 Array1<f64>,
            ),
        >,
    {
        move |__v0, __v1, __v2, __sel0, __sel1| {
            Self::__jvp_opts(__v0, __v1, __v2, __S::scatter(__sel0, __sel1))
        }
    }
    #[inline]
    fn __jvp_sel3<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
    >(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
        __S::I0,
        __S::I1,
        __S::I2,
    ) -> (
            f64,
            f64,
        ) + use<'__autodiff_l0, '__autodiff_l1, '__autodiff_l2, '__autodiff_all, __S>
    where
        __S: ::autodiff::__private::forward::Scatter3<
            (
                &'__autodiff_l0 Array2<f64>,
                &'__autodiff_l1 Array2<f64>,
                &'__autodiff_l2 Array1<f64>,
            ),
        >,
    {
        move |__v0, __v1, __v2, __sel0, __sel1, __sel2| {
            Self::__jvp_opts(__v0, __v1, __v2, __S::scatter(__sel0, __sel1, __sel2))
        }
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`dense` is not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over the float type is written for them), or write it `fn dense<T: Float>(…) -> T` with `T` for its float type",
    );
    fn __hvp_function<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >() -> fn(
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
    ) -> ! {
        ::core::unreachable!()
    }
    const __HESSIAN: ::core::option::Option<&'static str> = Self::__HVP;
    fn __hessian_function<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
    >() -> fn(
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
    ) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel1<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
        __I0,
    >(
        _selection: __S,
    ) -> fn(
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
        __I0,
    ) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel2<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
        __I0,
        __I1,
    >(
        _selection: __S,
    ) -> fn(
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
        __I0,
        __I1,
    ) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel3<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
        __I0,
        __I1,
        __I2,
    >(
        _selection: __S,
    ) -> fn(
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
        __I0,
        __I1,
        __I2,
    ) -> ! {
        ::core::unreachable!()
    }
    fn __hessian_sel1<
        '__autodiff_l0: '__autodiff_all,
        '__autodiff_l1: '__autodiff_all,
        '__autodiff_l2: '__autodiff_all,
        '__autodiff_all,
        __S,
    >(
        _selection: __S,
    ) -> fn(
        &'__autodiff_l0 Array2<f64>,
        &'__autodiff_l1 Array2<f64>,
        &'__autodiff_l2 Array1<f64>,
    ) -> ! {
        ::core::unreachable!()
    }
    const __JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    fn __jacobian_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Array2<f64>,
        &Array2<f64>,
        &Array1<f64>,
    ) -> ::autodiff::__private::ndarray::Array2<
            <__S as ::autodiff::__private::jacobian::JacobianFor<
                (
                    ::core::option::Option<
                        <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
                f64,
                f64,
            >>::Elem,
        >
    where
        __S: ::autodiff::__private::jacobian::JacobianFor<
            (
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
            f64,
            f64,
        >,
    {
        move |__v0: &Array2<f64>, __v1: &Array2<f64>, __v2: &Array1<f64>| {
            let (__value, __pullback) = Self::__vjp(
                ::core::clone::Clone::clone(&__v0),
                ::core::clone::Clone::clone(&__v1),
                ::core::clone::Clone::clone(&__v2),
            );
            ::autodiff::__private::jacobian::by_rows::<
                __S,
                (
                    ::core::option::Option<
                        <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <Array2<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <Array1<f64> as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
                f64,
                f64,
            >(
                &__value,
                "dense",
                move |__c| {
                    let (__g0, __g1, __g2) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                        ::core::option::Option::Some(__g2),
                    )
                },
                |__c| {
                    let (_, __pullback) = Self::__vjp(
                        ::core::clone::Clone::clone(&__v0),
                        ::core::clone::Clone::clone(&__v1),
                        ::core::clone::Clone::clone(&__v2),
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
