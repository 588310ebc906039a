impl Continuous<f64, f64> for Exp {
    fn pdf(&self, x: f64) -> f64 {
        if ::autodiff::__private::implicit::requested() {
            return ::autodiff::__private::implicit::answer(|| Self::__autodiff_pdf_vjp(
                self,
                x,
            ));
        }
        ::autodiff::__private::__autodiff_source_read!(self.rate)
            * (-::autodiff::__private::__autodiff_source_read!(self.rate) * x).exp()
    }
    fn ln_pdf(&self, x: f64) -> f64 {
        if ::autodiff::__private::implicit::requested() {
            return ::autodiff::__private::implicit::answer(|| Self::__autodiff_ln_pdf_vjp(
                self,
                x,
            ));
        }
        self.pdf(x).ln() + self.base.ln_pdf(x)
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl Exp {
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_pdf_SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "pdf",
        &["self", "x"],
        &[0],
    );
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_pdf_RECEIVER: ::autodiff::__private::methods::ConstantReceiver = ::autodiff::__private::methods::ConstantReceiver;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const fn __autodiff_pdf_all() -> ::autodiff::__private::select::Sel1<1> {
        ::autodiff::__private::select::Sel1
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_vjp<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
        ) -> (::autodiff::__private::NoTangent, f64) + use<'__autodiff_l0>,
    ) {
        let __v0 = self;
        let (__value, __pullback) = Self::__autodiff_pdf_vjp_into(__v0, __v1);
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
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_vjp_selected<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (f64, impl ::core::ops::FnOnce(f64) -> f64 + use<'__autodiff_l0>) {
        let __v0 = self;
        let (__value, __pullback) = Self::__autodiff_pdf_vjp(__v0, __v1);
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1) = __pullback(__dy);
                __g1
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_vjp_into<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (::autodiff::__private::NoTangent, f64) + use<'__autodiff_l0>,
    ) {
        let __v0 = self;
        let __v2 = ::autodiff::__private::__autodiff_source_handle!(__v0.rate);
        let __v3 = {
            #[allow(unused_imports)]
            use ::autodiff::__private::source::{
                ReadCopy as _, ReadRef as _, ReadSource as _,
            };
            (&&&::autodiff::__private::source::Probe(&__v2)).read()
        };
        let __v4 = ::autodiff::__private::__autodiff_source_handle!(__v0.rate);
        let __v5 = {
            #[allow(unused_imports)]
            use ::autodiff::__private::source::{
                ReadCopy as _, ReadRef as _, ReadSource as _,
            };
            (&&&::autodiff::__private::source::Probe(&__v4)).read()
        };
        let __v6 = ::autodiff::__private::ops::tensor::neg(&__v5);
        let __v7 = ::autodiff::__private::ops::tensor::mul(&__v6, &__v1);
        let __v8 = ::autodiff::__private::ops::tensor::exp(&__v7);
        let __v9 = ::autodiff::__private::ops::tensor::mul(&__v3, &__v8);
        (
            __v9,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |__dy: f64, _, _| {
                let mut __d9 = __dy;
                let mut __d3 = ::autodiff::__private::ops::tensor::mul_d0(
                    &__v3,
                    &__v8,
                    &__d9,
                );
                let mut __d8 = ::autodiff::__private::ops::tensor::mul_d1(
                    &__v3,
                    &__v8,
                    __d9,
                );
                let mut __d7 = ::autodiff::__private::ops::tensor::exp_d0(&__v8, __d8);
                let mut __d6 = ::autodiff::__private::ops::tensor::mul_d0(
                    &__v6,
                    &__v1,
                    &__d7,
                );
                let mut __d1 = ::autodiff::__private::ops::tensor::mul_d1(
                    &__v6,
                    &__v1,
                    __d7,
                );
                let mut __d5 = ::autodiff::__private::ops::tensor::neg_d0(__d6);
                {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::source::{
                        ReadCopy as _, ReadRef as _, ReadSource as _,
                    };
                    (&&&::autodiff::__private::source::Probe(&__v4)).deposit(__d5)
                };
                {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::source::{
                        ReadCopy as _, ReadRef as _, ReadSource as _,
                    };
                    (&&&::autodiff::__private::source::Probe(&__v2)).deposit(__d3)
                };
                (::autodiff::__private::NoTangent, (__d1 + 0.0))
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_vjp_reborrow<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Ref<'_, Self>,
            ::autodiff::__private::again::Val<f64>,
        ) -> (::autodiff::__private::NoTangent, f64) + use<>,
    ) {
        let __v0 = self;
        let __value = Self::__autodiff_pdf_vjp_into(__v0, __v1).0;
        (
            __value,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                __s0: ::autodiff::__private::shadow::Ignored,
                __s1: ::autodiff::__private::shadow::Ignored,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, Self>,
                ::autodiff::__private::again::Val(
                    __v1,
                ): ::autodiff::__private::again::Val<f64>|
            {
                let (_, __pullback) = Self::__autodiff_pdf_vjp_into(__v0, __v1);
                __pullback(__dy, __s0, __s1)
            },
        )
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        let __value_and_gradients = Self::__autodiff_pdf_value_and_gradients_function::<
            __S,
        >(_selection);
        move |__v0: &Self, __v1: f64| __value_and_gradients(__v0, __v1).1
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_value_and_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
    ) -> (
            f64,
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                    ::core::option::Option<f64>,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &Self, __v1: f64| {
            let (__value, __pullback) = Self::__autodiff_pdf_vjp_into(__v0, __v1);
            let (__g0, __g1) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<::autodiff::__private::NoTangent>,
                        ::core::option::Option<f64>,
                    ),
                >>::select((
                    ::core::option::Option::Some(__g0),
                    ::core::option::Option::Some(__g1),
                )),
            )
        }
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_accumulate_gradients<__S>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        &Self,
        f64,
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
                ::core::option::Option<&'__autodiff_g mut f64>,
            ),
        >>::Input,
    ) -> f64
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
                ::core::option::Option<&'__autodiff_g mut f64>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &Self, __v1: f64, __buffers| {
            let (__b0, __b1) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<&mut ::autodiff::__private::NoTangent>,
                    ::core::option::Option<&mut f64>,
                ),
            >>::scatter(__buffers);
            let __k0 = ::autodiff::__private::shadow::no_sink();
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = Self::__autodiff_pdf_vjp_into(__v0, __v1);
            let (__g0, __g1) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                __k0,
                __k1,
            );
            if let ::core::option::Option::Some(b) = __b1 {
                ::autodiff::__private::Accumulate::accumulate(b, __g1);
            }
            __value
        }
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_seeded<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
        __dy: f64,
    ) -> (f64, (::autodiff::__private::NoTangent, f64)) {
        let __v0 = self;
        let (__value, __pullback) = Self::__autodiff_pdf_vjp(__v0, __v1);
        (__value, __pullback(__dy))
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_pdf_FORWARD: ::core::option::Option<&'static str> = ::core::option::Option::None;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const fn __autodiff_pdf_forward_at(
        _: u32,
    ) -> ::core::option::Option<&'static str> {
        ::core::option::Option::None
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_jvp<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
        __tv0: impl ::core::marker::Sized,
        __tv1: f64,
    ) -> (f64, f64) {
        let __v0 = self;
        let __v2 = ::autodiff::__private::__autodiff_source_handle!(__v0.rate);
        let __v3 = {
            #[allow(unused_imports)]
            use ::autodiff::__private::source::{
                ReadCopy as _, ReadRef as _, ReadSource as _,
            };
            (&&&::autodiff::__private::source::Probe(&__v2)).read()
        };
        let __tv3 = ::autodiff::__private::zero_tangent(&__v3);
        let __v4 = ::autodiff::__private::__autodiff_source_handle!(__v0.rate);
        let __v5 = {
            #[allow(unused_imports)]
            use ::autodiff::__private::source::{
                ReadCopy as _, ReadRef as _, ReadSource as _,
            };
            (&&&::autodiff::__private::source::Probe(&__v4)).read()
        };
        let __tv5 = ::autodiff::__private::zero_tangent(&__v5);
        let __v6 = ::autodiff::__private::ops::tensor::neg(&__v5);
        let __tv6 = ::autodiff::__private::ops::tensor::neg(&__tv5);
        let __v7 = ::autodiff::__private::ops::tensor::mul(&__v6, &__v1);
        let __tv7 = ::autodiff::__private::ops::tensor::add(
            &::autodiff::__private::ops::tensor::mul(&__tv6, &__v1),
            &::autodiff::__private::ops::tensor::mul(&__v6, &__tv1),
        );
        let __v8 = ::autodiff::__private::ops::tensor::exp(&__v7);
        let __tv8 = ::autodiff::__private::ops::tensor::exp_d0(&__v8, &__tv7);
        let __v9 = ::autodiff::__private::ops::tensor::mul(&__v3, &__v8);
        let __tv9 = ::autodiff::__private::ops::tensor::add(
            &::autodiff::__private::ops::tensor::mul(&__tv3, &__v8),
            &::autodiff::__private::ops::tensor::mul(&__v3, &__tv8),
        );
        (__v9, __tv9)
    }
    #[inline]
    #[track_caller]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_jvp_opts<'__autodiff_l0>(
        __v0: &'__autodiff_l0 Self,
        __v1: f64,
        __o: <(
            ::autodiff::__private::NoTangent,
            f64,
        ) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (f64, f64) {
        let __tv0 = ::autodiff::__private::NoTangent;
        let __tv1: f64 = __o.1.unwrap_or(0.0);
        Self::__autodiff_pdf_jvp(__v0, __v1, __tv0, __tv1)
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_jvp_function<'__autodiff_l0>() -> impl ::core::ops::Fn(
        &Self,
        f64,
        f64,
    ) -> (f64, f64) + use<'__autodiff_l0> {
        move |__v0, __v1, __tv1| {
            Self::__autodiff_pdf_jvp_opts(
                __v0,
                __v1,
                (::core::option::Option::None, ::core::option::Option::Some(__tv1)),
            )
        }
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_jvp_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
        __S::I0,
    ) -> (f64, f64) + use<'__autodiff_l0, __S>
    where
        __S: ::autodiff::__private::forward::Scatter1<
            (::autodiff::__private::NoTangent, f64),
        >,
    {
        move |__v0, __v1, __sel0| {
            Self::__autodiff_pdf_jvp_opts(__v0, __v1, __S::scatter(__sel0))
        }
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_pdf_HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`pdf` is a method not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so write it `fn pdf<T: Float>(&self, …) -> T` with `T` a type parameter of the method itself (one of the `impl`'s is not served yet)",
    );
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_hvp_function<'__autodiff_l0>() -> fn(
        &'__autodiff_l0 Self,
        f64,
        f64,
    ) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_pdf_HESSIAN: ::core::option::Option<&'static str> = Self::__autodiff_pdf_HVP;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_hessian_function<'__autodiff_l0>() -> fn(
        &'__autodiff_l0 Self,
        f64,
    ) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_hvp_sel1<'__autodiff_l0, __S, __I0>(
        _selection: __S,
    ) -> fn(&'__autodiff_l0 Self, f64, __I0) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_hessian_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> fn(&'__autodiff_l0 Self, f64) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_pdf_JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_pdf_jacobian_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
    ) -> ::autodiff::__private::ndarray::Array2<
            <__S as ::autodiff::__private::jacobian::JacobianFor<
                (
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                    ::core::option::Option<f64>,
                ),
                f64,
                f64,
            >>::Elem,
        >
    where
        __S: ::autodiff::__private::jacobian::JacobianFor<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
            f64,
            f64,
        >,
    {
        move |__v0: &Self, __v1: f64| {
            let (__value, __pullback) = Self::__autodiff_pdf_vjp(
                ::core::clone::Clone::clone(&__v0),
                __v1,
            );
            ::autodiff::__private::jacobian::by_rows::<
                __S,
                (
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                    ::core::option::Option<f64>,
                ),
                f64,
                f64,
            >(
                &__value,
                "pdf",
                move |__c| {
                    let (__g0, __g1) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                    )
                },
                |__c| {
                    let (_, __pullback) = Self::__autodiff_pdf_vjp(
                        ::core::clone::Clone::clone(&__v0),
                        __v1,
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
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_ln_pdf_SIGNATURE: ::autodiff::__private::select::Signature = ::autodiff::__private::select::Signature::new(
        "ln_pdf",
        &["self", "x"],
        &[0],
    );
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_ln_pdf_RECEIVER: ::autodiff::__private::methods::ConstantReceiver = ::autodiff::__private::methods::ConstantReceiver;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const fn __autodiff_ln_pdf_all() -> ::autodiff::__private::select::Sel1<1> {
        ::autodiff::__private::select::Sel1
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_vjp<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
        ) -> (::autodiff::__private::NoTangent, f64) + use<'__autodiff_l0>,
    ) {
        let __v0 = self;
        let (__value, __pullback) = Self::__autodiff_ln_pdf_vjp_into(__v0, __v1);
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
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_vjp_selected<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (f64, impl ::core::ops::FnOnce(f64) -> f64 + use<'__autodiff_l0>) {
        let __v0 = self;
        let (__value, __pullback) = Self::__autodiff_ln_pdf_vjp(__v0, __v1);
        (
            __value,
            move |__dy: f64| {
                let (__g0, __g1) = __pullback(__dy);
                __g1
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_vjp_into<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
        ) -> (::autodiff::__private::NoTangent, f64) + use<'__autodiff_l0>,
    ) {
        let __v0 = self;
        let (__v2, __pb2) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            Self::__autodiff_pdf_vjp_into(__v0, __v1)
        };
        let __v3 = __v2.ln();
        let __v4 = __v0.base;
        let (__v5, __pb5) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::methods::Gate as _;
            (__v4)
                .__autodiff_gate::<
                    { ::autodiff::__private::methods::method_id("ln_pdf") },
                >()
                .__autodiff_ln_pdf_vjp_into(__v1)
        };
        let __v6 = __v3 + __v5;
        (
            __v6,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |__dy: f64, _, _| {
                let mut __d6 = __dy;
                let mut __d3 = ::autodiff::__private::ops::add_d0(&__d6);
                let mut __d5 = ::autodiff::__private::ops::add_d1(&__d6);
                let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
                let __g1 = __pb5(
                    __d5,
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::sink(&mut __d1),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d1, __g1.1);
                let mut __d2 = ::autodiff::__private::ops::ln_d0(&__v2, &__d3);
                let __g2 = __pb2(
                    __d2,
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::sink(&mut __d1),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d1, __g2.1);
                (::autodiff::__private::NoTangent, (__d1 + 0.0))
            },
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_vjp_reborrow<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
    ) -> (
        f64,
        impl ::core::ops::FnOnce(
            f64,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::shadow::Ignored,
            ::autodiff::__private::again::Ref<'_, Self>,
            ::autodiff::__private::again::Skip,
        ) -> (::autodiff::__private::NoTangent, f64) + use<>,
    ) {
        let __v0 = self;
        let (__v2, __pb2) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            Self::__autodiff_pdf_vjp_reborrow(__v0, __v1)
        };
        let __v3 = __v2.ln();
        let __v4 = __v0.base;
        let (__v5, __pb5) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::methods::Gate as _;
            (__v4)
                .__autodiff_gate::<
                    { ::autodiff::__private::methods::method_id("ln_pdf") },
                >()
                .__autodiff_ln_pdf_vjp_into(__v1)
        };
        let __v6 = __v3 + __v5;
        (
            __v6,
            #[cfg_attr(not(debug_assertions), inline(always))]
            move |
                __dy: f64,
                _,
                _,
                ::autodiff::__private::again::Ref(
                    __v0,
                ): ::autodiff::__private::again::Ref<'_, Self>,
                _: ::autodiff::__private::again::Skip|
            {
                let mut __d6 = __dy;
                let mut __d3 = ::autodiff::__private::ops::add_d0(&__d6);
                let mut __d5 = ::autodiff::__private::ops::add_d1(&__d6);
                let mut __d1 = ::autodiff::__private::adjoint_zero(&__v1);
                let __g1 = __pb5(
                    __d5,
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::sink(&mut __d1),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d1, __g1.1);
                let mut __d2 = ::autodiff::__private::ops::ln_d0(&__v2, &__d3);
                let __g2 = __pb2(
                    __d2,
                    ::autodiff::__private::shadow::no_sink(),
                    ::autodiff::__private::shadow::sink(&mut __d1),
                    ::autodiff::__private::again::again(
                        ::core::clone::Clone::clone(&__v0),
                    ),
                    ::autodiff::__private::again::again(__v1),
                );
                ::autodiff::__private::Accumulate::accumulate(&mut __d1, __g2.1);
                (::autodiff::__private::NoTangent, (__d1 + 0.0))
            },
        )
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
    ) -> <__S as ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
        >>::Output
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        let __value_and_gradients = Self::__autodiff_ln_pdf_value_and_gradients_function::<
            __S,
        >(_selection);
        move |__v0: &Self, __v1: f64| __value_and_gradients(__v0, __v1).1
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_value_and_gradients_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
    ) -> (
            f64,
            <__S as ::autodiff::__private::select::Select<
                (
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                    ::core::option::Option<f64>,
                ),
            >>::Output,
        )
    where
        __S: ::autodiff::__private::select::Select<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &Self, __v1: f64| {
            let (__value, __pullback) = Self::__autodiff_ln_pdf_vjp_into(__v0, __v1);
            let (__g0, __g1) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                ::autodiff::__private::shadow::no_sink(),
                ::autodiff::__private::shadow::no_sink(),
            );
            (
                __value,
                <__S as ::autodiff::__private::select::Select<
                    (
                        ::core::option::Option<::autodiff::__private::NoTangent>,
                        ::core::option::Option<f64>,
                    ),
                >>::select((
                    ::core::option::Option::Some(__g0),
                    ::core::option::Option::Some(__g1),
                )),
            )
        }
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_accumulate_gradients<__S>(
        _selection: __S,
    ) -> impl for<'__autodiff_g> ::core::ops::Fn(
        &Self,
        f64,
        <__S as ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
                ::core::option::Option<&'__autodiff_g mut f64>,
            ),
        >>::Input,
    ) -> f64
    where
        __S: for<'__autodiff_g> ::autodiff::__private::select::Scatter<
            (
                ::core::option::Option<
                    &'__autodiff_g mut ::autodiff::__private::NoTangent,
                >,
                ::core::option::Option<&'__autodiff_g mut f64>,
            ),
        >,
        __S: ::autodiff::__private::select::ScalarOutputFor<f64>,
    {
        move |__v0: &Self, __v1: f64, __buffers| {
            let (__b0, __b1) = <__S as ::autodiff::__private::select::Scatter<
                (
                    ::core::option::Option<&mut ::autodiff::__private::NoTangent>,
                    ::core::option::Option<&mut f64>,
                ),
            >>::scatter(__buffers);
            let __k0 = ::autodiff::__private::shadow::no_sink();
            let __k1 = ::autodiff::__private::shadow::no_sink();
            let (__value, __pullback) = Self::__autodiff_ln_pdf_vjp_into(__v0, __v1);
            let (__g0, __g1) = __pullback(
                <__S as ::autodiff::__private::select::ScalarOutputFor<f64>>::seed(),
                __k0,
                __k1,
            );
            if let ::core::option::Option::Some(b) = __b1 {
                ::autodiff::__private::Accumulate::accumulate(b, __g1);
            }
            __value
        }
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_seeded<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
        __dy: f64,
    ) -> (f64, (::autodiff::__private::NoTangent, f64)) {
        let __v0 = self;
        let (__value, __pullback) = Self::__autodiff_ln_pdf_vjp(__v0, __v1);
        (__value, __pullback(__dy))
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_ln_pdf_FORWARD: ::core::option::Option<&'static str> = Self::__autodiff_ln_pdf_forward_at(
        ::autodiff::__private::forward::CALL_DEPTH,
    );
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const fn __autodiff_ln_pdf_forward_at(
        depth: u32,
    ) -> ::core::option::Option<&'static str> {
        if depth == 0 {
            return ::core::option::Option::None;
        }
        ::autodiff::__private::forward::first_reason(
            &[::core::option::Option::None, Self::__autodiff_pdf_forward_at(depth - 1)],
        )
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_jvp<'__autodiff_l0>(
        self: &'__autodiff_l0 Self,
        __v1: f64,
        __tv0: impl ::core::marker::Sized,
        __tv1: f64,
    ) -> (f64, f64) {
        let __v0 = self;
        let (__v2, __tv2) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::entry::traits::*;
            Self::__autodiff_pdf_jvp(
                __v0,
                __v1,
                ::autodiff::__private::forward::lend(
                    &{
                        #[allow(unused_imports)]
                        use ::autodiff::__private::forward::{
                            ArgZero as _, NoZero as _, ScalarZero as _,
                        };
                        (&&&::autodiff::__private::forward::Probe(&__v0)).zero()
                    },
                ),
                __tv1,
            )
        };
        let __v3 = __v2.ln();
        let __tv3 = (::autodiff::__private::ops::ln_d0(&__v2, &__tv2));
        let __v4 = __v0.base;
        let (__v5, __tv5) = {
            #[allow(unused_imports)]
            use ::autodiff::__private::methods::Gate as _;
            (__v4)
                .__autodiff_gate::<
                    { ::autodiff::__private::methods::method_id("ln_pdf") },
                >()
                .__autodiff_ln_pdf_jvp(
                    __v1,
                    ::autodiff::__private::forward::lend(
                        &{
                            #[allow(unused_imports)]
                            use ::autodiff::__private::forward::{
                                ArgZero as _, NoZero as _, ScalarZero as _,
                            };
                            (&&&::autodiff::__private::forward::Probe(&__v4)).zero()
                        },
                    ),
                    __tv1,
                )
        };
        let __v6 = __v3 + __v5;
        let __tv6 = (::autodiff::__private::ops::add_d0(&__tv3)
            + ::autodiff::__private::ops::add_d1(&__tv5));
        (__v6, __tv6)
    }
    #[inline]
    #[track_caller]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_jvp_opts<'__autodiff_l0>(
        __v0: &'__autodiff_l0 Self,
        __v1: f64,
        __o: <(
            ::autodiff::__private::NoTangent,
            f64,
        ) as ::autodiff::__private::forward::Slots>::Opts,
    ) -> (f64, f64) {
        let __tv0 = ::autodiff::__private::NoTangent;
        let __tv1: f64 = __o.1.unwrap_or(0.0);
        Self::__autodiff_ln_pdf_jvp(__v0, __v1, __tv0, __tv1)
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_jvp_function<'__autodiff_l0>() -> impl ::core::ops::Fn(
        &Self,
        f64,
        f64,
    ) -> (f64, f64) + use<'__autodiff_l0> {
        move |__v0, __v1, __tv1| {
            Self::__autodiff_ln_pdf_jvp_opts(
                __v0,
                __v1,
                (::core::option::Option::None, ::core::option::Option::Some(__tv1)),
            )
        }
    }
    #[inline]
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_jvp_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
        __S::I0,
    ) -> (f64, f64) + use<'__autodiff_l0, __S>
    where
        __S: ::autodiff::__private::forward::Scatter1<
            (::autodiff::__private::NoTangent, f64),
        >,
    {
        move |__v0, __v1, __sel0| {
            Self::__autodiff_ln_pdf_jvp_opts(__v0, __v1, __S::scatter(__sel0))
        }
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_ln_pdf_HVP: ::core::option::Option<&'static str> = ::core::option::Option::Some(
        "`ln_pdf` is a method not generic over its float type: `hvp!` and `hessian!` run its gradient on dual numbers, so write it `fn ln_pdf<T: Float>(&self, …) -> T` with `T` a type parameter of the method itself (one of the `impl`'s is not served yet)",
    );
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_hvp_function<'__autodiff_l0>() -> fn(
        &'__autodiff_l0 Self,
        f64,
        f64,
    ) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_ln_pdf_HESSIAN: ::core::option::Option<&'static str> = Self::__autodiff_ln_pdf_HVP;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_hessian_function<'__autodiff_l0>() -> fn(
        &'__autodiff_l0 Self,
        f64,
    ) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_hvp_sel1<'__autodiff_l0, __S, __I0>(
        _selection: __S,
    ) -> fn(&'__autodiff_l0 Self, f64, __I0) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_hessian_sel1<'__autodiff_l0, __S>(
        _selection: __S,
    ) -> fn(&'__autodiff_l0 Self, f64) -> ! {
        ::core::unreachable!()
    }
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub const __autodiff_ln_pdf_JACOBIAN: ::core::option::Option<&'static str> = ::core::option::Option::None;
    #[doc(hidden)]
    #[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
    pub fn __autodiff_ln_pdf_jacobian_function<__S>(
        _selection: __S,
    ) -> impl ::core::ops::Fn(
        &Self,
        f64,
    ) -> ::autodiff::__private::ndarray::Array2<
            <__S as ::autodiff::__private::jacobian::JacobianFor<
                (
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                    ::core::option::Option<f64>,
                ),
                f64,
                f64,
            >>::Elem,
        >
    where
        __S: ::autodiff::__private::jacobian::JacobianFor<
            (
                ::core::option::Option<::autodiff::__private::NoTangent>,
                ::core::option::Option<f64>,
            ),
            f64,
            f64,
        >,
    {
        move |__v0: &Self, __v1: f64| {
            let (__value, __pullback) = Self::__autodiff_ln_pdf_vjp(
                ::core::clone::Clone::clone(&__v0),
                __v1,
            );
            ::autodiff::__private::jacobian::by_rows::<
                __S,
                (
                    ::core::option::Option<::autodiff::__private::NoTangent>,
                    ::core::option::Option<f64>,
                ),
                f64,
                f64,
            >(
                &__value,
                "ln_pdf",
                move |__c| {
                    let (__g0, __g1) = __pullback(__c);
                    (
                        ::core::option::Option::Some(__g0),
                        ::core::option::Option::Some(__g1),
                    )
                },
                |__c| {
                    let (_, __pullback) = Self::__autodiff_ln_pdf_vjp(
                        ::core::clone::Clone::clone(&__v0),
                        __v1,
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
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::methods::Annotated<
    { ::autodiff::__private::methods::method_id("pdf") },
> for Exp {
    type Target = Self;
    #[inline(always)]
    fn target(&self) -> &Self {
        self
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::methods::Annotated<
    { ::autodiff::__private::methods::method_id("ln_pdf") },
> for Exp {
    type Target = Self;
    #[inline(always)]
    fn target(&self) -> &Self {
        self
    }
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::methods::AnnotatedFn<
    { ::autodiff::__private::methods::method_id("pdf") },
> for Exp {
    type Never = ::core::convert::Infallible;
}
#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)]
impl ::autodiff::__private::methods::AnnotatedFn<
    { ::autodiff::__private::methods::method_id("ln_pdf") },
> for Exp {
    type Never = ::core::convert::Infallible;
}
