//! Implicit variable capture: TensorFlow's `implicit_gradients` and
//! `implicit_value_and_gradients`, with the seed's numbers and every misuse.

use autodiff::prelude::*;
use std::sync::Arc;

#[test]
fn the_seed_example() {
    let w1 = Variable::new(2.0).with_name("w1");
    let w2 = Variable::new(3.0).with_name("w2");
    let weighted_sum = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    assert_eq!(weighted_sum(5.0, 7.0), 31.0);

    let grads = implicit_gradients(&weighted_sum)(5.0, 7.0);
    assert_eq!(grads.len(), 2);
    assert_eq!(grads[0].0.to_scalar::<f64>(), 5.0); // d s / d w1 = x1
    assert!(grads[0].1.is(&w1));
    assert_eq!(grads[1].0.to_scalar::<f64>(), 7.0);
    assert!(grads[1].1.is(&w2));
    assert_eq!(grads.get(&w2), Some(7.0));

    let (s, grads) = implicit_value_and_gradients(&weighted_sum)(5.0, 7.0);
    assert_eq!(s, 31.0);
    assert_eq!((grads.get(&w1), grads.get(&w2)), (Some(5.0), Some(7.0)));
}

#[test]
fn pairs_come_in_construction_order_not_reading_order() {
    let a = Variable::new(1.0);
    let b = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| b * x + a * x * x);
    let grads = implicit_gradients(&f)(3.0);
    assert!(grads[0].1.is(&a) && grads[1].1.is(&b));
    assert_eq!(grads[0].0.to_scalar::<f64>(), 9.0);
    assert_eq!(grads[1].0.to_scalar::<f64>(), 3.0);
}

#[test]
fn non_trainable_variables_are_left_out() {
    let w1 = Variable::non_trainable(2.0);
    let w2 = Variable::new(3.0);
    let f = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    let grads = implicit_gradients(&f)(5.0, 7.0);
    assert_eq!(grads.len(), 1);
    assert!(grads[0].1.is(&w2));
    assert_eq!(grads.get(&w1), None);
}

#[test]
fn repeated_reads_are_summed() {
    let w = Variable::new(1.5);
    let f = differentiable_closure!(|x: f64| w * x + w * w + (w * 2.0).sin());
    let g = implicit_gradients(&f)(4.0).get(&w).expect("w was read");
    let expected = 4.0 + 2.0 * 1.5 + 2.0 * (3.0_f64).cos();
    assert!((g - expected).abs() < 1e-14, "{g} vs {expected}");
}

#[differentiable]
fn loss(x: f64, y: f64) -> f64 {
    (x - y) * (x - y)
}

struct Line {
    slope: Variable<f64>,
    intercept: Variable<f64>,
}

impl Line {
    #[differentiable]
    fn predict(&self, x: f64) -> f64 {
        self.slope * x + self.intercept
    }

    #[differentiable]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let p = self.predict(x);
        loss(p, y)
    }
}

#[test]
fn variables_reached_through_fields_and_methods() {
    let line = Line {
        slope: Variable::new(2.0),
        intercept: Variable::new(-1.0),
    };
    assert_eq!(line.loss(3.0, 4.0), 1.0);
    // A plain closure whose result is exactly one differentiable call.
    let grads = implicit_gradients(|x: f64, y: f64| line.loss(x, y))(3.0, 4.0);
    // d/dslope (slope x + b - y)^2 = 2 (p - y) x, d/db = 2 (p - y)
    assert_eq!(grads.get(&line.slope), Some(2.0 * 1.0 * 3.0));
    assert_eq!(grads.get(&line.intercept), Some(2.0));
}

#[test]
fn an_annotated_function_is_a_callable_too() {
    let w = Variable::new(0.5);
    let model = Line {
        slope: w.clone(),
        intercept: Variable::non_trainable(0.0),
    };
    let vg = implicit_value_and_gradients(|x: f64| model.predict(x));
    let (v, g) = vg(4.0);
    assert_eq!(v, 2.0);
    assert_eq!(g.get(&w), Some(4.0));
}

#[test]
fn a_snapshot_is_unaffected_by_a_later_set() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| w * w * x);
    let (v, g) = implicit_value_and_gradients(&f)(1.0);
    w.set(10.0);
    assert_eq!((v, g.get(&w)), (4.0, Some(4.0)));
    let (v, g) = implicit_value_and_gradients(&f)(1.0);
    assert_eq!((v, g.get(&w)), (100.0, Some(20.0)));
}

#[test]
#[should_panic(expected = "ran no differentiable code")]
fn refuses_a_callable_without_differentiable_code() {
    let _ = implicit_gradients(|x: f64| x * 2.0)(1.0);
}

#[test]
#[should_panic(expected = "combined their results outside differentiable code")]
fn refuses_results_combined_outside_differentiable_code() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| w * x);
    let _ = implicit_gradients(|x: f64| f(x) + f(x))(1.0);
}

#[test]
#[should_panic(expected = "the result was changed outside differentiable code")]
fn refuses_a_result_changed_outside_differentiable_code() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| w * x);
    let _ = implicit_gradients(|x: f64| f(x) * 3.0)(1.0);
}

/// The closure a helper returns runs later; its refusal names the user's line where the
/// helper was called.
#[test]
fn refusals_name_the_line_that_called_the_helper() {
    let w = Variable::non_trainable(2.0);
    let f = differentiable_closure!(|x: f64| w * x);
    let line = line!() + 1;
    let grads = implicit_gradients(&f);
    let payload =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| grads(1.0))).expect_err("refused");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    let place = format!("implicit_gradients (called at tests/implicit.rs:{line}:");
    assert!(message.contains(&place), "{message}");
}

#[test]
#[should_panic(expected = "no trainable variables were accessed")]
fn refuses_a_function_reading_no_trainable_variable() {
    let w = Variable::non_trainable(2.0);
    let f = differentiable_closure!(|x: f64| w * x);
    let _ = implicit_gradients(&f)(1.0);
}

/// A function that can read no variable answers by running as written (its derivative is
/// not compiled for the request); the helpers' refusal is the same as before.
#[differentiable]
fn plain_sum_of_squares(x: &[f64], scale: f64) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += scale * v * v;
    }
    s
}

#[test]
#[should_panic(expected = "no trainable variables were accessed")]
fn refuses_an_annotated_function_that_can_read_no_variable() {
    let _ = implicit_value_and_gradients(&plain_sum_of_squares)(&[1.0, 2.0], 3.0);
}

#[test]
fn captured_constants_and_integers_pass_through() {
    let w = Variable::new(2.0);
    let scale = 3.0;
    let n: usize = 4;
    let f = differentiable_closure!(|x: f64| {
        let mut s = 0.0;
        for i in 0..n {
            s += w * x * scale + i as f64 + n as f64 * 0.5;
        }
        s
    });
    let (v, g) = implicit_value_and_gradients(&f)(1.0);
    assert_eq!(v, 4.0 * 6.0 + 6.0 + 8.0);
    assert_eq!(g.get(&w), Some(4.0 * 3.0));
}

/// `Σᵢ aᵢ · bᵢ`, for the closures below.
#[differentiable]
fn dot_of(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// A captured `Vec` that is not a `Variable` is read by reference, so the user's `&x` is a
/// reference to a reference: handed to a slice helper as the helper's other argument, and
/// as its only one.
#[test]
fn captured_data_handed_to_a_slice_helper_by_reference() {
    let x = vec![1.0, -2.0, 0.5];
    let p = Variable::new(vec![0.5, 0.25, 2.0]);
    let f = differentiable_closure!(|k: f64| dot_of(&p, &x) * k + dot_of(&x, &x) * 0.0);
    let (value, grads) = implicit_value_and_gradients(&f)(3.0);
    assert_eq!(value, (0.5 - 0.5 + 1.0) * 3.0);
    // d/dp (k · p·x) = k · x
    let gp: Vec<f64> = grads.get(&p).expect("p was read");
    assert_eq!(gp, vec![3.0, -6.0, 1.5]);
    let fd = autodiff::check::finite_difference(|q| dot_of(q, &x) * 3.0, &[0.5, 0.25, 2.0]);
    autodiff::check::assert_gradient_close(&gp, &fd, 1e-8);
}

#[test]
fn many_threads_share_variables_and_never_see_each_other() {
    let w = Arc::new(Variable::new(2.0));
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let w = Arc::clone(&w);
            std::thread::spawn(move || {
                let own = Variable::new(t as f64);
                let f = differentiable_closure!(|x: f64| (*w) * x + own * own);
                for i in 0..10_000 {
                    let x = (i % 7) as f64;
                    let grads = implicit_gradients(&f)(x);
                    assert_eq!(grads.len(), 2);
                    assert_eq!(grads.get(&*w), Some(x));
                    assert_eq!(grads.get(&own), Some(2.0 * t as f64));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a gradient thread panicked");
    }
}

#[test]
fn move_closures_own_their_variables() {
    let make = || {
        let w = Variable::new(4.0);
        let handle = w.clone();
        (differentiable_closure!(move |x: f64| w * x * x), handle)
    };
    let (f, w) = make();
    assert_eq!(f(3.0), 36.0);
    let (v, g) = implicit_value_and_gradients(&f)(3.0);
    assert_eq!((v, g.get(&w)), (36.0, Some(9.0)));
}

#[test]
#[allow(clippy::useless_vec)] // (the form under test)
fn variables_in_a_vec_literal() {
    let w = Variable::new(0.7_f64);
    let b = Variable::new(-0.2_f64);
    let f = differentiable_closure!(|k: f64| {
        let v = vec![w * k, w * w, b];
        v[0] + v[1] * v[2]
    });
    let grads = implicit_gradients(&f)(2.0);
    // by hand: f = w k + w² b: ∂/∂w = k + 2 w b, ∂/∂b = w²
    let (gw, gb): (f64, f64) = (grads.get(&w).expect("w"), grads.get(&b).expect("b"));
    assert!((gw - (2.0 + 2.0 * 0.7 * -0.2)).abs() < 1e-15, "{gw}");
    assert!((gb - 0.49).abs() < 1e-15, "{gb}");
}
