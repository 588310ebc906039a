fn gated_squares<T: Float>(x: &[T], a: T) -> T {
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        if x[i] > a {
            continue;
        }
        let d = x[i + 1] - a * x[i];
        sum = sum + d * d;
    }
    sum
}
#[doc(hidden)]
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
struct gated_squares {}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl gated_squares {
    const __SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "gated_squares",
        &["x", "a"],
        &[],
    );
    const fn __all() -> ::autodiff::__private::select::Sel2<0, 1> {
        ::autodiff::__private::select::Sel2
    }
    #[inline]
    fn __vjp<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
        ) -> (
                <[T] as ::autodiff::__private::Differentiable>::Tangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<'__autodiff_l0, T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let _ = gated_squares::<T>;
        let mut __b0 = ::autodiff::__private::adjoint_zero(&__v0);
        let (__value, __pullback) = Self::__vjp_into::<T>(__v0, __v1);
        (
            __value,
            move |__dy: <T as ::autodiff::__private::Differentiable>::Tangent| {
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
    fn __vjp_selected<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
        ) -> (
                <[T] as ::autodiff::__private::Differentiable>::Tangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<'__autodiff_l0, T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let (__value, __pullback) = Self::__vjp::<T>(__v0, __v1);
        (
            __value,
            move |__dy: <T as ::autodiff::__private::Differentiable>::Tangent| {
                let (__g0, __g1) = __pullback(__dy);
                (__g0, __g1)
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_into<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
            ::autodiff::__private::shadow::SliceShadow<'_, T>,
            ::autodiff::__private::shadow::Ignored,
        ) -> (
                ::autodiff::__private::NoTangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<'__autodiff_l0, T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let _ = gated_squares::<T>;
        let (__value, __pullback) = Self::__vjp_reborrow::<T>(__v0, __v1);
        (
            __value,
            #[inline(always)]
            move |
                __dy: <T as ::autodiff::__private::Differentiable>::Tangent,
                __s0: ::autodiff::__private::shadow::SliceShadow<'_, T>,
                __s1: ::autodiff::__private::shadow::Ignored|
            {
                __pullback(
                    __dy,
                    __s0,
                    __s1,
                    ::autodiff::__private::again::Ref(__v0),
                    ::autodiff::__private::again::Skip,
                )
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __vjp_reborrow<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
    ) -> (
        T,
        impl ::core::ops::FnOnce(
            <T as ::autodiff::__private::Differentiable>::Tangent,
            ::autodiff::__private::shadow::SliceShadow<'_, T>,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Ref<'_, [T]>,
            ::autodiff::__private::again::Skip,
        ) -> (
                ::autodiff::__private::NoTangent,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            ) + use<T>,
    )
    where
        T: ::autodiff::__private::Real,
    {
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (<T as ::autodiff::__private::num_traits::Zero>::zero());
        let __v2 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __n14 = 0usize;
        let __it14 = ::core::iter::IntoIterator::into_iter((0)..__v2);
        let __hint = ::core::iter::Iterator::size_hint(&__it14).0;
        __sr1.reserve(__hint);
        for __v3 in __it14 {
            let __v4 = __v0[__v3] > __v1;
            if __v4 {
                __c1 = (2u8);
            } else {}
            let __v5 = __c1 == 0u8;
            let __k5 = ::core::clone::Clone::clone(&__v5);
            if __v5 {
                let __v6 = __v3 + 1;
                let __v7 = __v0[__v6];
                let __v8 = __v0[__v3];
                let __v9 = __v1 * __v8;
                let __v10 = __v7 - __v9;
                let __v11 = ::core::clone::Clone::clone(&__c0);
                let __v12 = __v10 * __v10;
                let __v13 = __v11 + __v12;
                __c0 = __v13;
            } else {}
            __sr1.push((__k5,));
            __n14 += 1;
            if __c1 == 1u8 {
                break;
            }
            __c1 = 0u8;
        }
        let __v14 = __n14;
        let __v15 = ::core::clone::Clone::clone(&__c0);
        (
            __v15,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: <T as ::autodiff::__private::Differentiable>::Tangent,
                mut __d0: ::autodiff::__private::shadow::SliceShadow<'_, T>,
                _,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, [T]>,
                _: ::autodiff::__private::again::Skip|
            {
                let mut __dc0 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::reuse::{ReuseAny as _, ReuseVec as _};
                    ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                };
                let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
                let mut __d15 = __dy;
                ::autodiff::__private::Accumulate::accumulate(
                    &mut __dc0,
                    ::autodiff::__private::ops::identity_d0(&__d15),
                );
                for __v3 in ::autodiff::__private::saved::range_back((0), __v14) {
                    let (__v5,) = ::autodiff::__private::saved::pop(&mut __sr1);
                    if __v5 {
                        let __v6 = __v3 + 1;
                        let __v7 = __v0[__v6];
                        let __v8 = __v0[__v3];
                        let __v9 = __v1 * __v8;
                        let __v10 = __v7 - __v9;
                        let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                        let mut __d13 = __t1;
                        let mut __d11 = ::autodiff::__private::ops::add_d0(&__d13);
                        let mut __d12 = ::autodiff::__private::ops::add_d1(&__d13);
                        let mut __d10 = ::autodiff::__private::ops::mul_d0(
                            &__v10,
                            &__d12,
                        );
                        ::autodiff::__private::Accumulate::accumulate(
                            &mut __d10,
                            ::autodiff::__private::ops::mul_d1(&__v10, &__d12),
                        );
                        ::autodiff::__private::Accumulate::accumulate_read(
                            &mut __dc0,
                            ::autodiff::__private::ops::identity_d0(&__d11),
                        );
                        let mut __d7 = ::autodiff::__private::ops::sub_d0(&__d10);
                        let mut __d9 = ::autodiff::__private::ops::add_d0(&__d10);
                        ::autodiff::__private::ops::accumulate_negated(
                            &mut __d1,
                            ::autodiff::__private::ops::mul_d0(&__v8, &__d9),
                        );
                        let mut __d8 = ::autodiff::__private::ops::mul_d1(&__v1, &__d9);
                        let mut __d8 = ::autodiff::__private::ops::sub_d1(&__d8);
                        ::autodiff::__private::ops::index_d0(&mut __d0, __v3, &__d8);
                        ::autodiff::__private::ops::index_d0(&mut __d0, __v6, &__d7);
                    } else {}
                }
                ::autodiff::__private::ops::reset_d0(&mut __dc0);
                (
                    ::autodiff::__private::NoTangent,
                    ::autodiff::__private::finish_tangent(&__v1, __d1),
                )
            },
        )
    }
    fn __gradients_function<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <[T] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <[T] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<T>,
        T: ::autodiff::__private::Real,
    {
        let __value_and_gradients = Self::__value_and_gradients_function::<
            __S,
            T,
        >(_selection);
        move |__v0: &[T], __v1: T| __value_and_gradients(__v0, __v1).1
    }
    fn __value_and_gradients_function<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
    ) -> (
            T,
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<
                        <[T] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<
                    <[T] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<T>,
        T: ::autodiff::__private::Real,
    {
        move |__v0: &[T], __v1: T| {
            let (__value, (__g0, __g1)) = Self::__seeded::<
                T,
            >(
                __v0,
                __v1,
                <__S as ::autodiff::__private::select::ScalarOutputFor<T>>::seed(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<
                            <[T] as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                        ::core::option::Option<
                            <T as ::autodiff::__private::Differentiable>::Tangent,
                        >,
                    ),
                >>::select((
                    ::core::option::Option::Some(__g0),
                    ::core::option::Option::Some(__g1),
                )),
            )
        }
    }
    fn __accumulate_gradients<__S, T: Float>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        &[T],
        T,
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<&'__autodiff_g mut [T]>,
                ::core::option::Option<
                    &'__autodiff_g mut <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >>::Input,
    ) -> T
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<&'__autodiff_g mut [T]>,
                ::core::option::Option<
                    &'__autodiff_g mut <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<T>,
        T: ::autodiff::__private::Real,
    {
        move |__v0: &[T], __v1: T, __buffers| {
            let (__b0, __b1) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<&mut [T]>,
                    ::core::option::Option<
                        &mut <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
            >>::scatter(__buffers);
            let __k0 = match __b0 {
                ::core::option::Option::Some(b) => {
                    ::autodiff::__private::shadow::caller_buffer(
                        "gated_squares",
                        "x",
                        &*__v0,
                        b,
                    )
                }
                ::core::option::Option::None => ::autodiff::__private::shadow::no_sink(),
            };
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = Self::__vjp_into::<T>(__v0, __v1);
            let (__g0, __g1) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<T>>::seed(),
                __k0,
                __k1,
            );
            let _ = __g0;
            if let ::core::option::Option::Some(b) = __b1 {
                ::autodiff::__private::Accumulate::accumulate(b, __g1);
            }
            __value
        }
    }
    #[inline]
    fn __seeded<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
        __dy: <T as ::autodiff::__private::Differentiable>::Tangent,
    ) -> (
        T,
        (
            <[T] as ::autodiff::__private::Differentiable>::Tangent,
            <T as ::autodiff::__private::Differentiable>::Tangent,
        ),
    )
    where
        T: ::autodiff::__private::Real,
    {
        let _ = gated_squares::<T>;
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (<T as ::autodiff::__private::num_traits::Zero>::zero());
        let __v2 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __dc0 = ::autodiff::__private::adjoint_zero(&__c0);
        let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
        let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
        let mut __d15 = __dy;
        ::autodiff::__private::Accumulate::accumulate(
            &mut __dc0,
            ::autodiff::__private::ops::identity_d0(&__d15),
        );
        let mut __carry2 = ::autodiff::__private::ops::element_zero(&__d0);
        let mut __at3 = ::core::option::Option::None;
        let mut __n14 = 0usize;
        for __v3 in (0)..__v2 {
            let __v4 = __v0[__v3] > __v1;
            if __v4 {
                __c1 = (2u8);
            } else {}
            let __v5 = __c1 == 0u8;
            let __k5 = ::core::clone::Clone::clone(&__v5);
            if __v5 {
                let __v6 = __v3 + 1;
                let __v7 = __v0[__v6];
                let __v8 = __v0[__v3];
                let __v9 = __v1 * __v8;
                let __v10 = __v7 - __v9;
                let __v11 = ::core::clone::Clone::clone(&__c0);
                let __v12 = __v10 * __v10;
                let __v13 = __v11 + __v12;
                __c0 = __v13;
            } else {}
            __sr1.push((__k5,));
            __n14 += 1;
            {
                let mut __here1 = __carry2;
                let mut __hot4 = __at3.take().is_some();
                __carry2 = ::autodiff::__private::ops::element_zero(&__d0);
                let (__v5,) = ::autodiff::__private::saved::pop(&mut __sr1);
                if __v5 {
                    let __v6 = __v3 + 1;
                    let __v7 = __v0[__v6];
                    let __v8 = __v0[__v3];
                    let __v9 = __v1 * __v8;
                    let __v10 = __v7 - __v9;
                    let mut __d13 = ::core::clone::Clone::clone(&__dc0);
                    let mut __d11 = ::autodiff::__private::ops::add_d0(&__d13);
                    let mut __d12 = ::autodiff::__private::ops::add_d1(&__d13);
                    let mut __d10 = ::autodiff::__private::ops::mul_d0(&__v10, &__d12);
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d10,
                        ::autodiff::__private::ops::mul_d1(&__v10, &__d12),
                    );
                    let mut __d7 = ::autodiff::__private::ops::sub_d0(&__d10);
                    let mut __d9 = ::autodiff::__private::ops::add_d0(&__d10);
                    ::autodiff::__private::ops::accumulate_negated(
                        &mut __d1,
                        ::autodiff::__private::ops::mul_d0(&__v8, &__d9),
                    );
                    let mut __d8 = ::autodiff::__private::ops::mul_d1(&__v1, &__d9);
                    let mut __d8 = ::autodiff::__private::ops::sub_d1(&__d8);
                    ::autodiff::__private::Accumulate::accumulate(&mut __here1, __d8);
                    __hot4 = true;
                    ::autodiff::__private::Accumulate::accumulate(&mut __carry2, __d7);
                    __at3 = ::core::option::Option::Some(__v6);
                } else {}
                if __hot4 {
                    __d0[__v3] = __here1;
                }
            }
            if __c1 == 1u8 {
                break;
            }
            __c1 = 0u8;
        }
        let __v14 = __n14;
        if let ::core::option::Option::Some(__k) = __at3 {
            __d0[__k] = __carry2;
        }
        let __v15 = ::core::clone::Clone::clone(&__c0);
        ::autodiff::__private::ops::reset_d0(&mut __dc0);
        (
            __v15,
            (
                ::autodiff::__private::finish_tangent(&__v0, __d0),
                ::autodiff::__private::finish_tangent(&__v1, __d1),
            ),
        )
    }
    const __FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    const fn __forward_at(_: u32) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn __jvp<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
        __tv0: &[T],
        __tv1: T,
    ) -> (T, T)
    where
        T: ::autodiff::__private::Real,
    {
        let __tv0 = &__tv0[..__v0.len()];
        let mut __c0 = (<T as ::autodiff::__private::num_traits::Zero>::zero());
        let mut __tc0 = ::autodiff::__private::zero_tangent(&__c0);
        let __v2 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __n14 = 0usize;
        for __v3 in (0)..__v2 {
            let __v4 = __v0[__v3] > __v1;
            if __v4 {
                __c1 = (2u8);
            } else {}
            let __v5 = __c1 == 0u8;
            if __v5 {
                let __v6 = __v3 + 1;
                let __v7 = __v0[__v6];
                let __tv7 = __tv0[__v6];
                let __v8 = __v0[__v3];
                let __tv8 = __tv0[__v3];
                let __v9 = __v1 * __v8;
                let __tv9 = (::autodiff::__private::ops::mul_d0(&__v8, &__tv1)
                    + ::autodiff::__private::ops::mul_d1(&__v1, &__tv8));
                let __v10 = __v7 - __v9;
                let __tv10 = (::autodiff::__private::ops::sub_d0(&__tv7)
                    + ::autodiff::__private::ops::sub_d1(&__tv9));
                let __v11 = ::core::clone::Clone::clone(&__c0);
                let __tv11 = ::core::clone::Clone::clone(&__tc0);
                let __v12 = __v10 * __v10;
                let __stv12 = ::autodiff::__private::ops::mul_d1(&__v10, &__tv10);
                let __tv12 = {
                    let __autodiff_half = __stv12;
                    ::autodiff::__private::ops::add_d0(&__autodiff_half)
                        + __autodiff_half
                };
                let __v13 = __v11 + __v12;
                let __tv13 = (::autodiff::__private::ops::add_d0(&__tv11)
                    + {
                        let __autodiff_half = ::autodiff::__private::ops::add_d1(
                            &__stv12,
                        );
                        ::autodiff::__private::ops::add_d0(&__autodiff_half)
                            + __autodiff_half
                    });
                __c0 = __v13;
                __tc0 = __tv13;
            } else {}
            __n14 += 1;
            if __c1 == 1u8 {
                break;
            }
            __c1 = 0u8;
        }
        let __v14 = __n14;
        let __v15 = ::core::clone::Clone::clone(&__c0);
        let __tv15 = ::core::clone::Clone::clone(&__tc0);
        (__v15, __tv15)
    }
    #[inline]
    #[track_caller]
    fn __jvp_opts<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
        __o: <(&'__autodiff_l0 [T], T) as ::autodiff::__private::forward::Slots>::Opts,
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
        let __tv0: &[T] = __o
            .0
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z0));
        ::autodiff::__private::forward::check_shape(&__v0, &__tv0, "gated_squares", "x");
        let __z1 = __o
            .1
            .is_none()
            .then(|| (&&&::autodiff::__private::forward::Probe(&__v1)).zero());
        let __tv1: T = __o
            .1
            .unwrap_or_else(|| ::autodiff::__private::forward::lend_zero(&__z1));
        Self::__jvp::<T>(__v0, __v1, __tv0, __tv1)
    }
    #[inline]
    fn __jvp_function<'__autodiff_l0, T: Float>() -> impl ::core::ops::Fn(
        &[T],
        T,
        &[T],
        T,
    ) -> (T, T) + use<'__autodiff_l0, T>
    where
        T: ::autodiff::__private::Real,
    {
        move |__v0, __v1, __tv0, __tv1| {
            Self::__jvp_opts::<
                T,
            >(
                __v0,
                __v1,
                (
                    ::core::option::Option::Some(__tv0),
                    ::core::option::Option::Some(__tv1),
                ),
            )
        }
    }
    #[inline]
    fn __jvp_sel1<'__autodiff_l0, __S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(&[T], T, __S::I0) -> (T, T) + use<'__autodiff_l0, __S, T>
    where
        __S: ::autodiff::__private::forward::Scatter1<(&'__autodiff_l0 [T], T)>,
        T: '__autodiff_l0,
        T: ::autodiff::__private::Real,
    {
        move |__v0, __v1, __sel0| {
            Self::__jvp_opts::<T>(__v0, __v1, __S::scatter(__sel0))
        }
    }
    #[inline]
    fn __jvp_sel2<'__autodiff_l0, __S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
        __S::I0,
        __S::I1,
    ) -> (T, T) + use<'__autodiff_l0, __S, T>
    where
        __S: ::autodiff::__private::forward::Scatter2<(&'__autodiff_l0 [T], T)>,
        T: '__autodiff_l0,
        T: ::autodiff::__private::Real,
    {
        move |__v0, __v1, __sel0, __sel1| {
            Self::__jvp_opts::<T>(__v0, __v1, __S::scatter(__sel0, __sel1))
        }
    }
    #[inline]
    fn __seeded_split<'__autodiff_l0, T: Float>(
        __v0: &[<T as ::autodiff::__private::dual::split::Joined>::Part],
        __tv0: &[<T as ::autodiff::__private::dual::split::Joined>::Part],
        __v1: T,
        __dy: <T as ::autodiff::__private::Differentiable>::Tangent,
    ) -> (
        T,
        (
            ::std::vec::Vec<<T as ::autodiff::__private::dual::split::Joined>::Part>,
            <T as ::autodiff::__private::Differentiable>::Tangent,
        ),
    )
    where
        T: ::autodiff::__private::Real,
        T: ::autodiff::__private::dual::split::Joined,
    {
        let mut __sr1 = ::std::vec::Vec::new();
        let mut __c0 = (<T as ::autodiff::__private::num_traits::Zero>::zero());
        let __v2 = __v0.len() - 1;
        let mut __c1 = (0u8);
        let mut __dc0 = ::autodiff::__private::adjoint_zero(&__c0);
        let mut __d0 = ::autodiff::__private::dual::split::zeros::<T>(__v0.len());
        let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
        let mut __d15 = __dy;
        ::autodiff::__private::Accumulate::accumulate(
            &mut __dc0,
            ::autodiff::__private::ops::identity_d0(&__d15),
        );
        let mut __carry2 = <T as ::autodiff::__private::dual::split::Joined>::joined_zero();
        let mut __at3 = ::core::option::Option::None;
        let mut __n14 = 0usize;
        for __v3 in (0)..__v2 {
            let __v4 = ::autodiff::__private::dual::split::join::<T>(__v0, __tv0, __v3)
                > __v1;
            if __v4 {
                __c1 = (2u8);
            } else {}
            let __v5 = __c1 == 0u8;
            let __k5 = ::core::clone::Clone::clone(&__v5);
            if __v5 {
                let __v6 = __v3 + 1;
                let __v7 = ::autodiff::__private::dual::split::join::<
                    T,
                >(__v0, __tv0, __v6);
                let __v8 = ::autodiff::__private::dual::split::join::<
                    T,
                >(__v0, __tv0, __v3);
                let __v9 = __v1 * __v8;
                let __v10 = __v7 - __v9;
                let __v11 = ::core::clone::Clone::clone(&__c0);
                let __v12 = __v10 * __v10;
                let __v13 = __v11 + __v12;
                __c0 = __v13;
            } else {}
            __sr1.push((__k5,));
            __n14 += 1;
            {
                let mut __here1 = __carry2;
                let mut __hot4 = __at3.take().is_some();
                __carry2 = <T as ::autodiff::__private::dual::split::Joined>::joined_zero();
                let (__v5,) = ::autodiff::__private::saved::pop(&mut __sr1);
                if __v5 {
                    let __v6 = __v3 + 1;
                    let __v7 = ::autodiff::__private::dual::split::join::<
                        T,
                    >(__v0, __tv0, __v6);
                    let __v8 = ::autodiff::__private::dual::split::join::<
                        T,
                    >(__v0, __tv0, __v3);
                    let __v9 = __v1 * __v8;
                    let __v10 = __v7 - __v9;
                    let mut __d13 = ::core::clone::Clone::clone(&__dc0);
                    let mut __d11 = ::autodiff::__private::ops::add_d0(&__d13);
                    let mut __d12 = ::autodiff::__private::ops::add_d1(&__d13);
                    let mut __d10 = ::autodiff::__private::ops::mul_d0(&__v10, &__d12);
                    ::autodiff::__private::Accumulate::accumulate(
                        &mut __d10,
                        ::autodiff::__private::ops::mul_d1(&__v10, &__d12),
                    );
                    let mut __d7 = ::autodiff::__private::ops::sub_d0(&__d10);
                    let mut __d9 = ::autodiff::__private::ops::add_d0(&__d10);
                    ::autodiff::__private::ops::accumulate_negated(
                        &mut __d1,
                        ::autodiff::__private::ops::mul_d0(&__v8, &__d9),
                    );
                    let mut __d8 = ::autodiff::__private::ops::mul_d1(&__v1, &__d9);
                    let mut __d8 = ::autodiff::__private::ops::sub_d1(&__d8);
                    ::autodiff::__private::Accumulate::accumulate(&mut __here1, __d8);
                    __hot4 = true;
                    ::autodiff::__private::Accumulate::accumulate(&mut __carry2, __d7);
                    __at3 = ::core::option::Option::Some(__v6);
                } else {}
                if __hot4 {
                    ::autodiff::__private::dual::split::store(&mut __d0, __v3, __here1);
                }
            }
            if __c1 == 1u8 {
                break;
            }
            __c1 = 0u8;
        }
        let __v14 = __n14;
        if let ::core::option::Option::Some(__k) = __at3 {
            ::autodiff::__private::dual::split::store(&mut __d0, __k, __carry2);
        }
        let __v15 = ::core::clone::Clone::clone(&__c0);
        ::autodiff::__private::ops::reset_d0(&mut __dc0);
        (__v15, (__d0, ::autodiff::__private::finish_tangent(&__v1, __d1)))
    }
    const __HVP: ::core::option::Option<&'static str> = ::core::option::Option::None;
    #[inline]
    #[track_caller]
    fn __hvp_opts<'__autodiff_l0, T: Float>(
        __v0: &'__autodiff_l0 [T],
        __v1: T,
        __o: <(&'__autodiff_l0 [T], T) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>)
    where
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        let (__o0, __o1) = __o;
        if let ::core::option::Option::Some(__h) = &__o0 {
            ::autodiff::__private::forward::check_shape(
                &__v0,
                __h,
                "gated_squares",
                "x",
            );
        }
        let __tv0 = ::autodiff::__private::dual::split::vector(__o0, __v0.len());
        let __d1 = ::autodiff::__private::dual::HvpArg::duals(&__v1, __o1.as_ref());
        let (_, (__g0, __g1)) = Self::__seeded_split::<
            ::autodiff::__private::dual::Dual<T>,
        >(__v0, &__tv0, __d1, ::autodiff::__private::dual::seed());
        (
            ::core::option::Option::Some(__g0),
            ::core::option::Option::Some(
                <T as ::autodiff::__private::dual::HvpArg>::product(__g1),
            ),
        )
    }
    #[inline]
    fn __hvp_function<'__autodiff_l0, T: Float>() -> impl ::core::ops::Fn(
        &[T],
        T,
        &[T],
        T,
    ) -> (::std::vec::Vec<T>, T) + use<'__autodiff_l0, T>
    where
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __h0, __h1| {
            let __r = Self::__hvp_opts::<
                T,
            >(
                __v0,
                __v1,
                (::core::option::Option::Some(__h0), ::core::option::Option::Some(__h1)),
            );
            (
                ::core::option::Option::unwrap(__r.0),
                ::core::option::Option::unwrap(__r.1),
            )
        }
    }
    #[inline]
    fn __hvp_sel1<'__autodiff_l0, __S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
        __S::I0,
    ) -> <__S as ::autodiff::__private::select::Select<
            (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>),
        >>::Output + use<'__autodiff_l0, __S, T>
    where
        __S: ::autodiff::__private::forward::Scatter1<(&'__autodiff_l0 [T], T)>
            + ::autodiff::__private::select::Select<
                (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>),
            >,
        T: '__autodiff_l0,
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __sel0| {
            <__S as ::autodiff::__private::select::Select<
                (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>),
            >>::select(
                Self::__hvp_opts::<
                    T,
                >(
                    __v0,
                    __v1,
                    <__S as ::autodiff::__private::forward::Scatter1<
                        (&'__autodiff_l0 [T], T),
                    >>::scatter(__sel0),
                ),
            )
        }
    }
    #[inline]
    fn __hvp_sel2<'__autodiff_l0, __S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
        __S::I0,
        __S::I1,
    ) -> <__S as ::autodiff::__private::select::Select<
            (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>),
        >>::Output + use<'__autodiff_l0, __S, T>
    where
        __S: ::autodiff::__private::forward::Scatter2<(&'__autodiff_l0 [T], T)>
            + ::autodiff::__private::select::Select<
                (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>),
            >,
        T: '__autodiff_l0,
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1, __sel0, __sel1| {
            <__S as ::autodiff::__private::select::Select<
                (::core::option::Option<::std::vec::Vec<T>>, ::core::option::Option<T>),
            >>::select(
                Self::__hvp_opts::<
                    T,
                >(
                    __v0,
                    __v1,
                    <__S as ::autodiff::__private::forward::Scatter2<
                        (&'__autodiff_l0 [T], T),
                    >>::scatter(__sel0, __sel1),
                ),
            )
        }
    }
    const __HESSIAN: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`gated_squares` has 2 differentiable parameters: `hessian!` needs exactly one, or `params = [\"…\"]` selecting one",
    );
    fn __hessian_function<'__autodiff_l0, T: Float>() -> fn(&'__autodiff_l0 [T], T) -> !
    where
        T: ::autodiff::__private::Real,
    {
        ::core::unreachable!()
    }
    #[inline]
    fn __hessian_sel1<'__autodiff_l0, __S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::ndarray::Array2<T>>,
                ::core::option::Option<T>,
            ),
        >>::Output + use<'__autodiff_l0, __S, T>
    where
        __S: ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<::autodiff::__private::ndarray::Array2<T>>,
                    ::core::option::Option<T>,
                ),
            > + ::autodiff::__private::select::Single,
        T: '__autodiff_l0,
        T: ::autodiff::__private::Real,
        ::autodiff::__private::dual::Dual<T>: Float + ::autodiff::__private::Real,
    {
        move |__v0, __v1| {
            let mut __outs: (
                ::core::option::Option<::autodiff::__private::ndarray::Array2<T>>,
                ::core::option::Option<T>,
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
                                            (
                                                ::core::option::Option::Some(&__e),
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
                                            (
                                                ::core::option::Option::None,
                                                ::core::option::Option::Some(__e),
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
                    ::core::option::Option<::autodiff::__private::ndarray::Array2<T>>,
                    ::core::option::Option<T>,
                ),
            >>::select(__outs)
        }
    }
    const __JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    fn __jacobian_function<__S, T: Float>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &[T],
        T,
    ) -> ::autodiff::__private::ndarray::Array2<
            <__S as ::autodiff::__private::jacobian::JacobianFor<
                (
                    ::core::option::Option<
                        <[T] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
                T,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            >>::Elem,
        >
    where
        __S: ::autodiff::__private::jacobian::JacobianFor<
            (
                ::core::option::Option<
                    <[T] as ::autodiff::__private::Differentiable>::Tangent,
                >,
                ::core::option::Option<
                    <T as ::autodiff::__private::Differentiable>::Tangent,
                >,
            ),
            T,
            <T as ::autodiff::__private::Differentiable>::Tangent,
        >,
        __S: ::autodiff::__private::jacobian::Again<T>,
        T: ::autodiff::__private::Real,
    {
        move |__v0: &[T], __v1: T| {
            let (__value, __pullback) = Self::__vjp::<
                T,
            >(
                ::core::clone::Clone::clone(&__v0),
                <__S as ::autodiff::__private::jacobian::Again<T>>::again(&__v1),
            );
            ::autodiff::__private::jacobian::by_rows::<
                __S,
                (
                    ::core::option::Option<
                        <[T] as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                    ::core::option::Option<
                        <T as ::autodiff::__private::Differentiable>::Tangent,
                    >,
                ),
                T,
                <T as ::autodiff::__private::Differentiable>::Tangent,
            >(
                &__value,
                "gated_squares",
                move |__c| {
                    let (__g0, __g1) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                    )
                },
                |__c| {
                    let (_, __pullback) = Self::__vjp::<
                        T,
                    >(
                        ::core::clone::Clone::clone(&__v0),
                        <__S as ::autodiff::__private::jacobian::Again<T>>::again(&__v1),
                    );
                    let (__g0, __g1) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                    )
                },
            )
        }
    }
}
#[doc(hidden)]
#[allow(unused_imports)]
use gated_squares as __autodiff_so_gated_squares;
