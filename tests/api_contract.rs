//! The examples of the public contract (API.md), as written there — with one unavoidable
//! rename: the closure macro is `differentiable_closure!` (see the README).

use autodiff::prelude::*;

#[differentiable]
fn weighted_sum_with_weights(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

#[test]
fn section_1_the_attribute() {
    assert_eq!(weighted_sum_with_weights(2.0, 5.0, 3.0, 7.0), 31.0); // still callable as written
}

#[test]
fn section_2_explicit_parameters() {
    let grad_fn = gradients_function!(weighted_sum_with_weights); // every differentiable parameter
    let (g_w1, g_x1, g_w2, g_x2) = grad_fn(2.0, 5.0, 3.0, 7.0);
    assert_eq!((g_w1, g_x1, g_w2, g_x2), (5.0, 2.0, 7.0, 3.0));

    let grad_fn = gradients_function!(weighted_sum_with_weights, params = ["w1", "w2"]);
    let (w1_grad, w2_grad) = grad_fn(2.0, 5.0, 3.0, 7.0);
    assert_eq!((w1_grad, w2_grad), (5.0, 7.0));

    let grad_fn = gradients_function!(weighted_sum_with_weights, params = ["x2"]);
    let x2_grad: f64 = grad_fn(2.0, 5.0, 3.0, 7.0); // one parameter: the bare value
    assert_eq!(x2_grad, 3.0);

    let grad_fn = gradients_function!(weighted_sum_with_weights, params = [0, 2]); // by position
    assert_eq!(grad_fn(2.0, 5.0, 3.0, 7.0), (5.0, 7.0));

    let vg = value_and_gradients_function!(weighted_sum_with_weights, params = ["w1", "w2"]);
    let (s, (w1_grad, w2_grad)) = vg(2.0, 5.0, 3.0, 7.0);
    assert_eq!((s, (w1_grad, w2_grad)), (31.0, (5.0, 7.0)));
}

#[test]
fn sections_3_and_4_implicit_capture_and_the_tape() {
    let w1 = Variable::new(2.0);
    let w2 = Variable::new(3.0);

    // a closure that reads variables; it stays an ordinary closure
    let weighted_sum = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    assert_eq!(weighted_sum(5.0, 7.0), 31.0);

    let grad_fn = implicit_gradients(&weighted_sum);
    let grads = grad_fn(5.0, 7.0);
    assert_eq!(grads.len(), 2);
    assert_eq!(grads[0].0.to_scalar::<f64>(), 5.0); // d s / d w1 = x1
    assert!(grads[0].1.is(&w1)); // the pair names the variable itself
    assert_eq!(grads.get(&w2), Some(7.0)); // typed look-up by variable

    let vg = implicit_value_and_gradients(&weighted_sum);
    let (s, grads) = vg(5.0, 7.0); // (31.0, [(5.0, w1), (7.0, w2)])
    assert_eq!(
        (s, grads.get(&w1), grads.get(&w2)),
        (31.0, Some(5.0), Some(7.0))
    );

    let tape = GradientTape::new();
    let s = tape.record(|| weighted_sum(5.0, 7.0));
    assert_eq!(*s, 31.0);
    let w1_grad: f64 = tape.gradient(&s, &w1); // 5.0
    assert_eq!(w1_grad, 5.0);

    // Optimizers take the pairs directly.
    autodiff::optim::Sgd::new(0.1).apply_gradients(&grads);
    autodiff::optim::Adam::new(1e-3).apply_gradients(&grads);
    // SGD: 2 − 0.1·5; Adam's first step: lr · m̂ / (√v̂ + ε) = 1e-3 · 5 / (5 + 1e-8)
    let expected = 2.0 - 0.1 * 5.0 - 1e-3 * 5.0 / (5.0 + 1e-8);
    assert!(
        (w1.get() - expected).abs() < 1e-15,
        "{} vs {expected}",
        w1.get()
    );
}

#[differentiable]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

#[test]
fn section_6_vjp_and_stop_gradient() {
    let (value, pullback) = vjp!(polar)(2.0, 0.0);
    assert_eq!(value, (2.0, 0.0));
    assert_eq!(pullback((1.0, 0.0)), (1.0, 0.0));
    assert_eq!(stop_gradient(3.0), 3.0);
}
