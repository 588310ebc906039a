fn snapshot() {
    let _ = |x1: f64, x2: f64| {
        if ::autodiff::__private::implicit::requested() {
            return ::autodiff::__private::implicit::answer(|| {
                let __v0 = x1;
                let __v1 = x2;
                let __v2 = ::autodiff::__private::__autodiff_source_handle!(w1);
                let __v3 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::source::{
                        ReadCopy as _, ReadRef as _, ReadSource as _,
                    };
                    (&&&::autodiff::__private::source::Probe(&__v2)).read()
                };
                let __v4 = ::autodiff::__private::ops::tensor::mul(&__v3, &__v0);
                let __v5 = ::autodiff::__private::__autodiff_source_handle!(w2);
                let __v6 = {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::source::{
                        ReadCopy as _, ReadRef as _, ReadSource as _,
                    };
                    (&&&::autodiff::__private::source::Probe(&__v5)).read()
                };
                let __v7 = ::autodiff::__private::ops::tensor::mul(&__v6, &__v1);
                let __v8 = ::autodiff::__private::ops::tensor::add(&__v4, &__v7);
                (
                    __v8,
                    move |__dy| {
                        let mut __d8 = __dy;
                        let mut __d7 = ::autodiff::__private::ops::tensor::add_d1(
                            &__v7,
                            &__d8,
                        );
                        let mut __d4 = ::autodiff::__private::ops::tensor::add_d0(
                            &__v4,
                            __d8,
                        );
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
                        let mut __d0 = ::autodiff::__private::ops::tensor::mul_d1(
                            &__v3,
                            &__v0,
                            __d4,
                        );
                        {
                            #[allow(unused_imports)]
                            use ::autodiff::__private::source::{
                                ReadCopy as _, ReadRef as _, ReadSource as _,
                            };
                            (&&&::autodiff::__private::source::Probe(&__v2))
                                .deposit(__d3)
                        };
                        ((__d0 + 0.0), (__d1 + 0.0))
                    },
                )
            });
        }
        ::autodiff::__private::__autodiff_source_read!(w1) * x1
            + ::autodiff::__private::__autodiff_source_read!(w2) * x2
    };
}
