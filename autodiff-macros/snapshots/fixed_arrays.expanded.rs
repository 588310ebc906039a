fn cross_rotated(__autodiff_arg0: [f64; 2], m: &[[f64; 2]; 2], b: [f64; 3]) -> [f64; 3] {
    let [x, y] = __autodiff_arg0;
    let (r, t) = if x > 0.0 { (x * m[0][1], y) } else { (y, x) };
    [b[1] * r - b[2] * t, b[2] * x - b[0] * r, b[0] * t - b[1] * x]
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct cross_rotated {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl cross_rotated {
    const __SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "cross_rotated",
        &["[x, y]", "m", "b"],
        &[],
    );
    const fn __all() -> ::autodiff::__private::select::Sel3<0, 1, 2> {
        ::autodiff::__private::select::Sel3
    }
    #[inline]
    fn __vjp<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
    ) -> (
        [f64; 3],
        impl ::core::ops::FnOnce(
            [f64; 3],
        ) -> (
                [f64; 2],
                <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                [f64; 3],
            ) + use<'__autodiff_l0>,
    ) {
        let _ = cross_rotated;
        let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2);
        (
            __value,
            move |__dy: [f64; 3]| {
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
    fn __vjp_selected<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
    ) -> (
        [f64; 3],
        impl ::core::ops::FnOnce(
            [f64; 3],
        ) -> (
                [f64; 2],
                <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                [f64; 3],
            ) + use<'__autodiff_l0>,
    ) {
        let (__value, __pullback) = Self::__vjp(__v0, __v1, __v2);
        (
            __value,
            move |__dy: [f64; 3]| {
                let (__g0, __g1, __g2) = __pullback(__dy);
                (__g0, __g1, __g2)
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
    ) -> (
        [f64; 3],
        impl ::core::ops::FnOnce(
            [f64; 3],
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (
                [f64; 2],
                <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                [f64; 3],
            ) + use<'__autodiff_l0>,
    ) {
        let _ = cross_rotated;
        let (__value, __pullback) = Self::__vjp_reborrow(__v0, __v1, __v2);
        (
            __value,
            #[inline(always)]
            move |
                __dy: [f64; 3],
                __s0: ::autodiff::__private::shadow::Ignored,
                __s1: ::autodiff::__private::shadow::Ignored,
                __s2: ::autodiff::__private::shadow::Ignored|
            {
                __pullback(
                    __dy,
                    __s0,
                    __s1,
                    __s2,
                    ::autodiff::__private::again::Skip,
                    ::autodiff::__private::again::Ref(__v1),
                    ::autodiff::__private::again::Skip,
                )
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_reborrow<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
    ) -> (
        [f64; 3],
        impl ::core::ops::FnOnce(
            [f64; 3],
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Skip,
            ::autodiff::__private::again::Ref<'_, [[f64; 2]; 2]>,
            ::autodiff::__private::again::Skip,
        ) -> (
                [f64; 2],
                <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                [f64; 3],
            ) + use<>,
    ) {
        let __v3 = __v0[(0usize)];
        let __v4 = __v0[(1usize)];
        let __v5 = __v3 > 0.0;
        let mut __c0 = ::core::default::Default::default();
        let mut __c1 = ::core::default::Default::default();
        if __v5 {
            let __v6 = ::autodiff::__private::__autodiff_project!(__v1[(0)]);
            let __v7 = __v6[(1)];
            let __v8 = __v3 * __v7;
            __c0 = __v8;
            __c1 = __v4;
        } else {
            __c0 = __v4;
            __c1 = __v3;
        }
        let __v9 = ::core::clone::Clone::clone(&__c0);
        let __v10 = ::core::clone::Clone::clone(&__c1);
        let __v11 = __v2[(1)];
        let __v12 = __v11 * __v9;
        let __v13 = __v2[(2)];
        let __v14 = __v13 * __v10;
        let __v15 = __v12 - __v14;
        let __v16 = __v2[(2)];
        let __v17 = __v16 * __v3;
        let __v18 = __v2[(0)];
        let __v19 = __v18 * __v9;
        let __v20 = __v17 - __v19;
        let __v21 = __v2[(0)];
        let __v22 = __v21 * __v10;
        let __v23 = __v2[(1)];
        let __v24 = __v23 * __v3;
        let __v25 = __v22 - __v24;
        let mut __c2 = ([__v15, __v20, __v25]);
        __c2[(0usize)] = __v15;
        __c2[(1usize)] = __v20;
        __c2[(2usize)] = __v25;
        let __v26 = ::core::clone::Clone::clone(&__c2);
        (
            __v26,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: [f64; 3],
                _,
                _,
                _,
                _: ::autodiff::__private::again::Skip,
                ::autodiff::__private::again::Ref(
                    __v1,
                ): ::autodiff::__private::again::Ref<'_, [[f64; 2]; 2]>,
                _: ::autodiff::__private::again::Skip|
            {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __dc1 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c1).adjoint()
                };
                let mut __dc2 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c2).adjoint()
                };
                let __v3 = __v0[(0usize)];
                let __v11 = __v2[(1)];
                let __v13 = __v2[(2)];
                let __v16 = __v2[(2)];
                let __v18 = __v2[(0)];
                let __v21 = __v2[(0)];
                let __v23 = __v2[(1)];
                let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
                let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
                let mut __d2 = ::autodiff::__private::adjoint_zero(&__v2);
                let mut __d3 = ::autodiff::__private::adjoint_zero(&__v3);
                let mut __d4 = ::autodiff::__private::adjoint_zero(&__v4);
                let mut __d26 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc2,
                    ::autodiff::__private::ops::identity_d0(&__d26),
                );
                let __t1 = ::autodiff::__private::ops::index_take_d0(
                    &mut __dc2,
                    (2usize),
                );
                let mut __d25 = __t1;
                let __t2 = ::autodiff::__private::ops::index_take_d0(
                    &mut __dc2,
                    (1usize),
                );
                let mut __d20 = __t2;
                let __t3 = ::autodiff::__private::ops::index_take_d0(
                    &mut __dc2,
                    (0usize),
                );
                let mut __d15 = __t3;
                ::autodiff::__private::ops::reset_d0(&mut __dc2);
                let mut __d22 = ::autodiff::__private::ops::sub_d0(&__d25);
                let mut __d24 = ::autodiff::__private::ops::add_d0(&__d25);
                let mut __d23 = ::autodiff::__private::ops::mul_d0(&__v3, &__d24);
                ::autodiff::__private::ops::accumulate_negated(
                    &mut __d3,
                    ::autodiff::__private::ops::mul_d1(&__v23, &__d24),
                );
                let mut __d23 = ::autodiff::__private::ops::sub_d1(&__d23);
                ::autodiff::__private::ops::index_d0(&mut __d2, (1), &__d23);
                let mut __d21 = ::autodiff::__private::ops::mul_d0(&__v10, &__d22);
                let mut __d10 = ::autodiff::__private::ops::mul_d1(&__v21, &__d22);
                ::autodiff::__private::ops::index_d0(&mut __d2, (0), &__d21);
                let mut __d17 = ::autodiff::__private::ops::sub_d0(&__d20);
                let mut __d19 = ::autodiff::__private::ops::add_d0(&__d20);
                let mut __d18 = ::autodiff::__private::ops::mul_d0(&__v9, &__d19);
                let mut __d9 = ::autodiff::__private::ops::mul_d1(&__v18, &__d19);
                let mut __d18 = ::autodiff::__private::ops::sub_d1(&__d18);
                ::autodiff::__private::ops::index_d0(&mut __d2, (0), &__d18);
                let mut __d16 = ::autodiff::__private::ops::mul_d0(&__v3, &__d17);
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __d3,
                    ::autodiff::__private::ops::mul_d1(&__v16, &__d17),
                );
                ::autodiff::__private::ops::index_d0(&mut __d2, (2), &__d16);
                let mut __d12 = ::autodiff::__private::ops::sub_d0(&__d15);
                let mut __d14 = ::autodiff::__private::ops::add_d0(&__d15);
                let mut __d13 = ::autodiff::__private::ops::mul_d0(&__v10, &__d14);
                ::autodiff::__private::ops::accumulate_negated(
                    &mut __d10,
                    ::autodiff::__private::ops::mul_d1(&__v13, &__d14),
                );
                let mut __d13 = ::autodiff::__private::ops::sub_d1(&__d13);
                ::autodiff::__private::ops::index_d0(&mut __d2, (2), &__d13);
                let mut __d11 = ::autodiff::__private::ops::mul_d0(&__v9, &__d12);
                ::autodiff::__private::ops::accumulate_negated(
                    &mut __d9,
                    ::autodiff::__private::ops::mul_d1(&__v11, &__d12),
                );
                ::autodiff::__private::ops::index_d0(&mut __d2, (1), &__d11);
                ::autodiff::__private::Accumulate::accumulate_read(
                    &mut __dc1,
                    ::autodiff::__private::ops::identity_d0(&__d10),
                );
                let mut __d9 = ::autodiff::__private::ops::sub_d1(&__d9);
                ::autodiff::__private::Accumulate::accumulate_read(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d9),
                );
                if __v5 {
                    let __v6 = ::autodiff::__private::__autodiff_project!(__v1[(0)]);
                    let __v7 = __v6[(1)];
                    let mut __d6 = ::autodiff::__private::adjoint_zero(&__v6);
                    let __t4 = ::autodiff::__private::ops::take_d0(&mut __dc1);
                    ::autodiff::__private::Accumulate::accumulate(&mut __d4, __t4);
                    let __t5 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                    let mut __d8 = __t5;
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d3,
                        ::autodiff::__private::ops::mul_d0(&__v7, &__d8),
                    );
                    let mut __d7 = ::autodiff::__private::ops::mul_d1(&__v3, &__d8);
                    ::autodiff::__private::ops::index_one_d0(&mut __d6, (1), &__d7);
                    ::autodiff::__private::Accumulate::accumulate(&mut __d1[(0)], __d6);
                } else {
                    let __t6 = ::autodiff::__private::ops::take_d0(&mut __dc1);
                    ::autodiff::__private::Accumulate::accumulate(&mut __d3, __t6);
                    let __t7 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                    ::autodiff::__private::Accumulate::accumulate(&mut __d4, __t7);
                }
                ::autodiff::__private::ops::index_d0(&mut __d0, (1usize), &__d4);
                ::autodiff::__private::ops::index_d0(&mut __d0, (0usize), &__d3);
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
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<[f64; 2]>,
                ::core::option::Option<
                    <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<[f64; 3]>,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<[f64; 2]>,
                ::core::option::Option<
                    <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<[f64; 3]>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<[f64; 3]>,
    {
        let __value_and_gradients = Self::__value_and_gradients_function::<
            __S,
        >(_selection);
        move |__v0: [f64; 2], __v1: &[[f64; 2]; 2], __v2: [f64; 3]| {
            __value_and_gradients(__v0, __v1, __v2).1
        }
    }
    fn __value_and_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
    ) -> (
            [f64; 3],
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<[f64; 2]>,
                    ::core::option::Option<
                        <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<[f64; 3]>,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<[f64; 2]>,
                ::core::option::Option<
                    <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<[f64; 3]>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<[f64; 3]>,
    {
        move |__v0: [f64; 2], __v1: &[[f64; 2]; 2], __v2: [f64; 3]| {
            let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2);
            let (__g0, __g1, __g2) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<
                    [f64; 3],
                >>::seed(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<[f64; 2]>,
                        ::core::option::Option<
                            <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                        ::core::option::Option<[f64; 3]>,
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
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<&'__autodiff_g mut [f64; 2]>,
                ::core::option::Option<
                    &'__autodiff_g mut <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<&'__autodiff_g mut [f64; 3]>,
            ),
        >>::Input,
    ) -> [f64; 3]
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<&'__autodiff_g mut [f64; 2]>,
                ::core::option::Option<
                    &'__autodiff_g mut <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<&'__autodiff_g mut [f64; 3]>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<[f64; 3]>,
    {
        move |__v0: [f64; 2], __v1: &[[f64; 2]; 2], __v2: [f64; 3], __buffers| {
            let (__b0, __b1, __b2) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<&mut [f64; 2]>,
                    ::core::option::Option<
                        &mut <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<&mut [f64; 3]>,
                ),
            >>::scatter(__buffers);
            let __k0 = ::autodiff::__private::shadow::no_sink();
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let __k2 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = Self::__vjp_into(__v0, __v1, __v2);
            let (__g0, __g1, __g2) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<
                    [f64; 3],
                >>::seed(),
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
    fn __seeded<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
        __dy: [f64; 3],
    ) -> (
        [f64; 3],
        (
            [f64; 2],
            <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
            [f64; 3],
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
    fn __jvp<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
        __tv0: [f64; 2],
        __tv1: &[[f64; 2]; 2],
        __tv2: [f64; 3],
    ) -> ([f64; 3], [f64; 3]) {
        let __v3 = __v0[(0usize)];
        let __tv3 = __tv0[(0usize)];
        let __v4 = __v0[(1usize)];
        let __tv4 = __tv0[(1usize)];
        let __v5 = __v3 > 0.0;
        let mut __c0 = ::core::default::Default::default();
        let mut __tc0 = ::core::default::Default::default();
        let mut __c1 = ::core::default::Default::default();
        let mut __tc1 = ::core::default::Default::default();
        if __v5 {
            let __v6 = ::autodiff::__private::__autodiff_project!(__v1[(0)]);
            let __tv6 = ::autodiff::__private::__autodiff_project!(__tv1[(0)]);
            let __v7 = __v6[(1)];
            let __tv7 = __tv6[(1)];
            let __v8 = __v3 * __v7;
            let __tv8 = (::autodiff::__private::ops::mul_d0(&__v7, &__tv3)
                + ::autodiff::__private::ops::mul_d1(&__v3, &__tv7));
            __c0 = __v8;
            __tc0 = __tv8;
            __c1 = __v4;
            __tc1 = __tv4;
        } else {
            __c0 = __v4;
            __tc0 = __tv4;
            __c1 = __v3;
            __tc1 = __tv3;
        }
        let __v9 = ::core::clone::Clone::clone(&__c0);
        let __tv9 = ::core::clone::Clone::clone(&__tc0);
        let __v10 = ::core::clone::Clone::clone(&__c1);
        let __tv10 = ::core::clone::Clone::clone(&__tc1);
        let __v11 = __v2[(1)];
        let __tv11 = __tv2[(1)];
        let __v12 = __v11 * __v9;
        let __tv12 = (::autodiff::__private::ops::mul_d0(&__v9, &__tv11)
            + ::autodiff::__private::ops::mul_d1(&__v11, &__tv9));
        let __v13 = __v2[(2)];
        let __tv13 = __tv2[(2)];
        let __v14 = __v13 * __v10;
        let __tv14 = (::autodiff::__private::ops::mul_d0(&__v10, &__tv13)
            + ::autodiff::__private::ops::mul_d1(&__v13, &__tv10));
        let __v15 = __v12 - __v14;
        let __tv15 = (::autodiff::__private::ops::sub_d0(&__tv12)
            + ::autodiff::__private::ops::sub_d1(&__tv14));
        let __v16 = __v2[(2)];
        let __tv16 = __tv2[(2)];
        let __v17 = __v16 * __v3;
        let __tv17 = (::autodiff::__private::ops::mul_d0(&__v3, &__tv16)
            + ::autodiff::__private::ops::mul_d1(&__v16, &__tv3));
        let __v18 = __v2[(0)];
        let __tv18 = __tv2[(0)];
        let __v19 = __v18 * __v9;
        let __tv19 = (::autodiff::__private::ops::mul_d0(&__v9, &__tv18)
            + ::autodiff::__private::ops::mul_d1(&__v18, &__tv9));
        let __v20 = __v17 - __v19;
        let __tv20 = (::autodiff::__private::ops::sub_d0(&__tv17)
            + ::autodiff::__private::ops::sub_d1(&__tv19));
        let __v21 = __v2[(0)];
        let __tv21 = __tv2[(0)];
        let __v22 = __v21 * __v10;
        let __tv22 = (::autodiff::__private::ops::mul_d0(&__v10, &__tv21)
            + ::autodiff::__private::ops::mul_d1(&__v21, &__tv10));
        let __v23 = __v2[(1)];
        let __tv23 = __tv2[(1)];
        let __v24 = __v23 * __v3;
        let __tv24 = (::autodiff::__private::ops::mul_d0(&__v3, &__tv23)
            + ::autodiff::__private::ops::mul_d1(&__v23, &__tv3));
        let __v25 = __v22 - __v24;
        let __tv25 = (::autodiff::__private::ops::sub_d0(&__tv22)
            + ::autodiff::__private::ops::sub_d1(&__tv24));
        let mut __c2 = ([__v15, __v20, __v25]);
        let mut __tc2 = ::autodiff::__private::zero_tangent(&__c2);
        __c2[(0usize)] = __v15;
        __tc2[(0usize)] = __tv15;
        __c2[(1usize)] = __v20;
        __tc2[(1usize)] = __tv20;
        __c2[(2usize)] = __v25;
        __tc2[(2usize)] = __tv25;
        let __v26 = ::core::clone::Clone::clone(&__c2);
        let __tv26 = ::core::clone::Clone::clone(&__tc2);
        (__v26, __tv26)
    }
    #[inline]
    #[track_caller]
    fn __jvp_opts<'__autodiff_l0>(
        __v0: [f64; 2],
        __v1: &'__autodiff_l0 [[f64; 2]; 2],
        __v2: [f64; 3],
        __o: <(
            [f64; 2],
            &'__autodiff_l0 [[f64; 2]; 2],
            [f64; 3],
        ) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> ([f64; 3], [f64; 3]) {
        #[allow(unused_imports)]
        use ::autodiff::__private::forward::{ArgZero as _, NoZero as _, ScalarZero as _};
        let __z0 = __o
            .0
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v0)).zero());
        let __tv0: [f64; 2] = __o
            .0
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z0));
        let __z1 = __o
            .1
            .is_none()
            .then(|| {
                ::autodiff::__private::forward::Borrowed(
                    <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::zero_tangent(
                        __v1,
                    ),
                )
            });
        let __tv1: &[[f64; 2]; 2] = __o
            .1
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z1));
        ::autodiff::__private::forward::check_rows(__v1, __tv1, "cross_rotated", "m");
        let __z2 = __o
            .2
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v2)).zero());
        let __tv2: [f64; 3] = __o
            .2
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z2));
        Self::__jvp(__v0, __v1, __v2, __tv0, __tv1, __tv2)
    }
    #[inline]
    fn __jvp_function<'__autodiff_l0>() -> impl ::core::ops::Fn(
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
    ) -> ([f64; 3], [f64; 3]) + use<'__autodiff_l0> {
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
    fn __jvp_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
        __S::I0,
    ) -> ([f64; 3], [f64; 3]) + use<'__autodiff_l0, __S>
    where
        __S: ::autodiff::__private::forward::Scatter1<
            ([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3]),
        >,
    {
        move |__v0, __v1, __v2, __sel0| {
            Self::__jvp_opts(__v0, __v1, __v2, __S::scatter(__sel0))
        }
    }
    #[inline]
    fn __jvp_sel2<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
        __S::I0,
        __S::I1,
    ) -> ([f64; 3], [f64; 3]) + use<'__autodiff_l0, __S>
    where
        __S: ::autodiff::__private::forward::Scatter2<
            ([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3]),
        >,
    {
        move |__v0, __v1, __v2, __sel0, __sel1| {
            Self::__jvp_opts(__v0, __v1, __v2, __S::scatter(__sel0, __sel1))
        }
    }
    #[inline]
    fn __jvp_sel3<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
        __S::I0,
        __S::I1,
        __S::I2,
    ) -> ([f64; 3], [f64; 3]) + use<'__autodiff_l0, __S>
    where
        __S: ::autodiff::__private::forward::Scatter3<
            ([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3]),
        >,
    {
        move |__v0, __v1, __v2, __sel0, __sel1, __sel2| {
            Self::__jvp_opts(__v0, __v1, __v2, __S::scatter(__sel0, __sel1, __sel2))
        }
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`cross_rotated` is not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over the float type is written for them), or write it `fn cross_rotated<T: Float>(…) -> T` with `T` for its float type",
    );
    fn __hvp_function<'__autodiff_l0>() -> fn(
        [f64; 2],
        &'__autodiff_l0 [[f64; 2]; 2],
        [f64; 3],
        [f64; 2],
        &'__autodiff_l0 [[f64; 2]; 2],
        [f64; 3],
    ) -> ! {
        ::core::unreachable!()
    }
    const __HESSIAN: ::core::option::Option<&'static str> = Self::__HVP;
    fn __hessian_function<'__autodiff_l0>() -> fn(
        [f64; 2],
        &'__autodiff_l0 [[f64; 2]; 2],
        [f64; 3],
    ) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel1<'__autodiff_l0, __S, __I0>(
        _selection: __S,
    ) -> fn([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3], __I0) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel2<'__autodiff_l0, __S, __I0, __I1>(
        _selection: __S,
    ) -> fn([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3], __I0, __I1) -> ! {
        ::core::unreachable!()
    }
    fn __hvp_sel3<'__autodiff_l0, __S, __I0, __I1, __I2>(
        _selection: __S,
    ) -> fn([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3], __I0, __I1, __I2) -> ! {
        ::core::unreachable!()
    }
    fn __hessian_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> fn([f64; 2], &'__autodiff_l0 [[f64; 2]; 2], [f64; 3]) -> ! {
        ::core::unreachable!()
    }
    const __JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    fn __jacobian_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        [f64; 2],
        &[[f64; 2]; 2],
        [f64; 3],
    ) -> ::autodiff::__private::ndarray::Array2<
            <__S as ::autodiff::__private::jacobian::JacobianFor<
                (
                    ::core::option::Option<[f64; 2]>,
                    ::core::option::Option<
                        <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<[f64; 3]>,
                ),
                [f64; 3],
                [f64; 3],
            >>::Elem,
        >
    where
        __S: ::autodiff::__private::jacobian::JacobianFor<
            (
                ::core::option::Option<[f64; 2]>,
                ::core::option::Option<
                    <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<[f64; 3]>,
            ),
            [f64; 3],
            [f64; 3],
        >,
        __S: ::autodiff::__private::jacobian::Again<[f64; 2]>,
        __S: ::autodiff::__private::jacobian::Again<[f64; 3]>,
    {
        move |__v0: [f64; 2], __v1: &[[f64; 2]; 2], __v2: [f64; 3]| {
            let (__value, __pullback) = Self::__vjp(
                <__S as ::autodiff::__private::jacobian::Again<[f64; 2]>>::again(&__v0),
                ::core::clone::Clone::clone(&__v1),
                <__S as ::autodiff::__private::jacobian::Again<[f64; 3]>>::again(&__v2),
            );
            ::autodiff::__private::jacobian::by_rows::<
                __S,
                (
                    ::core::option::Option<[f64; 2]>,
                    ::core::option::Option<
                        <[[f64; 2]; 2] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<[f64; 3]>,
                ),
                [f64; 3],
                [f64; 3],
            >(
                &__value,
                "cross_rotated",
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
                        <__S as ::autodiff::__private::jacobian::Again<
                            [f64; 2],
                        >>::again(&__v0),
                        ::core::clone::Clone::clone(&__v1),
                        <__S as ::autodiff::__private::jacobian::Again<
                            [f64; 3],
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
