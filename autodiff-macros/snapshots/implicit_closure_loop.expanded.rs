fn snapshot() {
    let _ = |x: f64| {
        if ::autodiff::__private::implicit::requested() {
            return ::autodiff::__private::implicit::answer(|| {
                let __v0 = x;
                let mut __sr1 = ::std::vec::Vec::new();
                let mut __c0 = (0.0);
                let mut __c1 = (0u8);
                let mut __n12 = 0usize;
                __sr1
                    .extend(
                        ::core::iter::Iterator::map(
                            ::core::iter::IntoIterator::into_iter((0)..(n)),
                            |__v1| {
                                let __v2 = ::autodiff::__private::__autodiff_source_handle!(
                                    w
                                );
                                let __k2 = ::core::clone::Clone::clone(&__v2);
                                let __v3 = {
                                    #[allow(unused_imports)]
                                    use ::autodiff::__private::source::{
                                        ReadCopy as _, ReadRef as _, ReadSource as _,
                                    };
                                    (&&&::autodiff::__private::source::Probe(&__v2)).read()
                                };
                                let __k3 = ::core::clone::Clone::clone(&__v3);
                                let __v4 = ::autodiff::__private::ops::tensor::mul(
                                    &__v3,
                                    &__v0,
                                );
                                let __v5 = ::autodiff::__private::__autodiff_source_handle!(
                                    scale
                                );
                                let __k5 = ::core::clone::Clone::clone(&__v5);
                                let __v6 = {
                                    #[allow(unused_imports)]
                                    use ::autodiff::__private::source::{
                                        ReadCopy as _, ReadRef as _, ReadSource as _,
                                    };
                                    (&&&::autodiff::__private::source::Probe(&__v5)).read()
                                };
                                let __k6 = ::core::clone::Clone::clone(&__v6);
                                let __v7 = ::autodiff::__private::ops::tensor::mul(
                                    &__v4,
                                    &__v6,
                                );
                                let __v8 = __v1 as f64;
                                let __v9 = ::autodiff::__private::ops::tensor::add(
                                    &__v7,
                                    &__v8,
                                );
                                let __v10 = ::core::clone::Clone::clone(&__c0);
                                let __k10 = ::core::clone::Clone::clone(&__v10);
                                let __v11 = ::autodiff::__private::ops::tensor::add(
                                    &__v10,
                                    &__v9,
                                );
                                __c0 = __v11;
                                __n12 += 1;
                                (__k2, __k3, __k5, __k6, __k10)
                            },
                        ),
                    );
                let __v12 = __n12;
                let __v13 = ::core::clone::Clone::clone(&__c0);
                (
                    __v13,
                    move |__dy| {
                        let mut __dc0 = {
                            #[allow(unused_imports)]
                            use ::autodiff::__private::reuse::{
                                ReuseAny as _, ReuseVec as _,
                            };
                            ::autodiff::__private::reuse::Reuse(__c0).adjoint()
                        };
                        let mut __d0 = ::autodiff::__private::adjoint_zero(&__v0);
                        let mut __d13 = __dy;
                        ::autodiff::__private::Accumulate::accumulate(
                            &mut __dc0,
                            ::autodiff::__private::ops::identity_d0(&__d13),
                        );
                        for __v1 in ::autodiff::__private::saved::range_back(
                            (0),
                            __v12,
                        ) {
                            let (__v2, __v3, __v5, __v6, __v10) = ::autodiff::__private::saved::pop(
                                &mut __sr1,
                            );
                            let __v4 = ::autodiff::__private::ops::tensor::mul(
                                &__v3,
                                &__v0,
                            );
                            let __v7 = ::autodiff::__private::ops::tensor::mul(
                                &__v4,
                                &__v6,
                            );
                            let __v8 = __v1 as f64;
                            let __v9 = ::autodiff::__private::ops::tensor::add(
                                &__v7,
                                &__v8,
                            );
                            let __t1 = ::autodiff::__private::ops::take_d0(&mut __dc0);
                            let mut __d11 = __t1;
                            let mut __d9 = ::autodiff::__private::ops::tensor::add_d1(
                                &__v9,
                                &__d11,
                            );
                            let mut __d10 = ::autodiff::__private::ops::tensor::add_d0(
                                &__v10,
                                __d11,
                            );
                            ::autodiff::__private::Accumulate::accumulate_read(
                                &mut __dc0,
                                ::autodiff::__private::ops::identity_d0(&__d10),
                            );
                            let mut __d7 = ::autodiff::__private::ops::tensor::add_d0(
                                &__v7,
                                __d9,
                            );
                            let mut __d4 = ::autodiff::__private::ops::tensor::mul_d0(
                                &__v4,
                                &__v6,
                                &__d7,
                            );
                            let mut __d6 = ::autodiff::__private::ops::tensor::mul_d1(
                                &__v4,
                                &__v6,
                                __d7,
                            );
                            {
                                #[allow(unused_imports)]
                                use ::autodiff::__private::source::{
                                    ReadCopy as _, ReadRef as _, ReadSource as _,
                                };
                                (&&&::autodiff::__private::source::Probe(&__v5))
                                    .deposit(__d6)
                            };
                            let mut __d3 = ::autodiff::__private::ops::tensor::mul_d0(
                                &__v3,
                                &__v0,
                                &__d4,
                            );
                            ::autodiff::__private::Accumulate::accumulate(
                                &mut __d0,
                                ::autodiff::__private::ops::tensor::mul_d1(
                                    &__v3,
                                    &__v0,
                                    __d4,
                                ),
                            );
                            {
                                #[allow(unused_imports)]
                                use ::autodiff::__private::source::{
                                    ReadCopy as _, ReadRef as _, ReadSource as _,
                                };
                                (&&&::autodiff::__private::source::Probe(&__v2))
                                    .deposit(__d3)
                            };
                        }
                        ::autodiff::__private::ops::reset_d0(&mut __dc0);
                        ((__d0 + 0.0),)
                    },
                )
            });
        }
        let mut s = 0.0;
        for i in 0..n {
            s
                += ::autodiff::__private::__autodiff_source_read!(w) * x
                    * ::autodiff::__private::__autodiff_source_read!(scale) + i as f64;
        }
        s
    };
}
