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

/// Constants (a count, a `#[no_grad]` float and slice, indices) beside differentiable
/// floats and slices: every helper through the entry points the runtime writes for such a
/// function, against central differences and each other.
#[differentiable]
fn mixed(
    d: usize,
    x: &[f64],
    #[no_grad] gamma: f64,
    idx: &[usize],
    #[no_grad] data: &[f64],
    a: f64,
) -> f64 {
    let mut s = 0.0;
    for i in 0..d {
        let v = x[idx[i]] * a + data[i];
        s += gamma * v * v;
    }
    s
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn mixed_f32(x: &[f32], a: f32) -> f32 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * a).sin();
    }
    s
}

#[test]
fn every_helper_on_constants_floats_and_slices() {
    let (x, idx, data) = (
        vec![1.0, 2.0, 3.0],
        vec![2usize, 0, 1],
        vec![0.5, -0.5, 0.25],
    );
    let f = |x: &[f64], a: f64| mixed(3, x, 1.5, &idx, &data, a);
    let (v, (gx, ga)) = value_and_gradients_function!(mixed)(3, &x, 1.5, &idx, &data, 0.7);
    assert_eq!(v, f(&x, 0.7));
    let e = 1e-6;
    let fa = (f(&x, 0.7 + e) - f(&x, 0.7 - e)) / (2.0 * e);
    assert!((ga - fa).abs() < 1e-6 * fa.abs().max(1.0), "{ga} vs {fa}");
    for i in 0..3 {
        let (mut p, mut m) = (x.clone(), x.clone());
        p[i] += e;
        m[i] -= e;
        let fx = (f(&p, 0.7) - f(&m, 0.7)) / (2.0 * e);
        assert!(
            (gx[i] - fx).abs() < 1e-6 * fx.abs().max(1.0),
            "{i}: {} vs {fx}",
            gx[i]
        );
    }
    let ga2 = gradients_function!(mixed, params = ["a"])(3, &x, 1.5, &idx, &data, 0.7);
    assert_eq!(ga2, ga);
    let (value, pullback) = vjp!(mixed)(3, &x, 1.5, &idx, &data, 0.7);
    assert_eq!((value, pullback(1.0)), (v, (gx.clone(), ga)));
    let tx = vec![0.5, 0.25, -1.0];
    let (_, dy) = jvp!(mixed)(3, &x, 1.5, &idx, &data, 0.7, &tx, 2.0);
    let dot: f64 = gx.iter().zip(&tx).map(|(g, t)| g * t).sum::<f64>() + 2.0 * ga;
    assert!((dy - dot).abs() < 1e-12 * dot.abs().max(1.0));
    let (_, da) = jvp!(mixed, params = ["a"])(3, &x, 1.5, &idx, &data, 0.7, 1.0);
    assert!((da - ga).abs() < 1e-12 * ga.abs().max(1.0));
    let mut bx = vec![1.0; 3];
    accumulate_gradients!(mixed, params = ["x"])(3, &x, 1.5, &idx, &data, 0.7, &mut bx);
    assert_eq!(bx, gx.iter().map(|g| 1.0 + g).collect::<Vec<_>>());
    let j = jacobian!(mixed, params = ["x"])(3, &x, 1.5, &idx, &data, 0.7);
    assert_eq!(j.row(0).to_vec(), gx);

    // f32: d/da Σ sin(x a) = Σ x cos(x a), d/dx_i = a cos(x_i a)
    let xs = [0.5_f32, -1.0, 2.0];
    let (gx, ga) = gradients_function!(mixed_f32)(&xs, 0.3);
    let by_hand: f32 = xs.iter().map(|x| x * (x * 0.3).cos()).sum();
    assert!((ga - by_hand).abs() < 1e-5);
    for (g, x) in gx.iter().zip(xs) {
        assert!((g - 0.3 * (x * 0.3).cos()).abs() < 1e-6);
    }
    let (_, dy) = jvp!(mixed_f32, params = ["a"])(&xs, 0.3, 1.0);
    assert!((dy - by_hand).abs() < 1e-5);
}
