//! Functions whose body is one call of another differentiable function — the way published
//! code gives a general function its usual constants (`rosenbrock(x)` calling
//! `rosenbrock_ab(x, 1, 100)`). Their gradient helpers hand the call on to the callee's
//! gradient for the same cotangent: its fused sweep where it has one, its forward sweep and
//! pullback otherwise. Each wrapper here is checked against a gradient derived by hand,
//! central finite differences, its callee's own gradient (bit for bit: the same sweep), and
//! `vjp!` (which keeps the two sweeps); the forms the hand-on does not take (a parameter
//! handed twice, or through an expression) are checked the same way.

#![allow(clippy::needless_range_loop)]

use autodiff::check::finite_difference;
use autodiff::prelude::*;

fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: {g} against {w}"
        );
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn input(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * 0.37).sin() * 0.8).collect()
}

/// The Rosenbrock loop with its constants as parameters (a loop the gradient fuses).
#[differentiable]
fn rosenbrock_ab<T: Float>(x: &[T], a: T, b: T) -> T {
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        let u = a - x[i];
        let v = x[i + 1] - x[i] * x[i];
        sum = sum + u * u + b * v * v;
    }
    sum
}

/// The usual Rosenbrock function: the general one at a = 1, b = 100.
#[differentiable]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    rosenbrock_ab(x, T::one(), T::from(100.0).unwrap())
}

/// A wrapper of the wrapper, with `f64`.
#[differentiable]
fn rosenbrock_f64(x: &[f64]) -> f64 {
    rosenbrock(x)
}

/// ∂/∂x of `rosenbrock_ab`, by hand.
fn rosenbrock_ab_gradient(x: &[f64], a: f64, b: f64) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let v = x[i + 1] - x[i] * x[i];
        g[i] += -2.0 * (a - x[i]) - 4.0 * b * x[i] * v;
        g[i + 1] += 2.0 * b * v;
    }
    g
}

#[test]
fn a_wrapper_of_a_fused_loop_has_its_gradient() {
    for n in [2, 3, 17, 100] {
        let x = input(n);
        let by_hand = rosenbrock_ab_gradient(&x, 1.0, 100.0);
        let numeric = finite_difference(rosenbrock, &x);
        let (value, g) = value_and_gradients_function!(rosenbrock::<f64>)(&x);
        assert_eq!(value.to_bits(), rosenbrock(&x).to_bits(), "n = {n}: value");
        close("by hand", &g, &by_hand, 1e-12);
        close("finite differences", &g, &numeric, 1e-7);
        // the callee's own gradient, bit for bit
        let (value_ab, (g_ab, _, _)) =
            value_and_gradients_function!(rosenbrock_ab::<f64>)(&x, 1.0, 100.0);
        assert_eq!(value.to_bits(), value_ab.to_bits());
        assert_eq!(bits(&g), bits(&g_ab), "n = {n}: the callee's gradient");
        // two levels of wrappers, and `gradients_function!`
        assert_eq!(bits(&gradients_function!(rosenbrock_f64)(&x)), bits(&g));
        // `vjp!` keeps its tape: the same gradient up to the order of its additions
        let (_, pullback) = vjp!(rosenbrock_f64)(&x);
        close("vjp!", &pullback(1.0), &g, 1e-13);
        // and in `f32`
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let g32 = gradients_function!(rosenbrock::<f32>)(&x32);
        let (_, (g32_ab, _, _)) =
            value_and_gradients_function!(rosenbrock_ab::<f32>)(&x32, 1.0, 100.0);
        assert_eq!(g32, g32_ab);
    }
}

#[test]
fn a_wrapper_keeps_its_second_order() {
    let x = input(12);
    let v: Vec<f64> = (0..12).map(|i| (i as f64 * 0.11).cos()).collect();
    // H·v of Rosenbrock in closed form (tridiagonal)
    let n = x.len();
    let mut by_hand = vec![0.0; n];
    for i in 0..n - 1 {
        let b = x[i + 1] - x[i] * x[i];
        let diag = 2.0 - 400.0 * b + 800.0 * x[i] * x[i];
        let off = -400.0 * x[i];
        by_hand[i] += diag * v[i] + off * v[i + 1];
        by_hand[i + 1] += 200.0 * v[i + 1] + off * v[i];
    }
    let hv = hvp!(rosenbrock)(&x, &v);
    close("hvp!", &hv, &by_hand, 1e-11);
    let h = hessian!(rosenbrock)(&x);
    let column: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| h[[i, j]] * v[j]).sum())
        .collect();
    close("hessian!", &column, &by_hand, 1e-11);
    let (_, dy) = jvp!(rosenbrock)(&x, &v);
    let g = gradients_function!(rosenbrock::<f64>)(&x);
    let dot: f64 = g.iter().zip(&v).map(|(a, b)| a * b).sum();
    assert!((dy - dot).abs() <= 1e-10 * dot.abs().max(1.0));
}

/// A function of floats and an integer without a loop to fuse: its gradient is its
/// forward sweep and pullback (`runtime::entry`).
#[differentiable]
fn bump(x: f64, y: f64, k: usize) -> f64 {
    if x > y {
        (x - y).powi(k as i32) + x.sin()
    } else {
        x * y.sin()
    }
}

/// Its parameters in the other order, the integer fixed.
#[differentiable]
fn bump_swapped(y: f64, x: f64) -> f64 {
    bump(x, y, 3)
}

#[test]
fn a_wrapper_passes_each_gradient_to_its_parameter() {
    for (y, x) in [(0.3, 1.2), (1.5, -0.4)] {
        let (dy, dx) = gradients_function!(bump_swapped)(y, x);
        let by_hand = if x > y {
            (3.0 * (x - y) * (x - y) + x.cos(), -3.0 * (x - y) * (x - y))
        } else {
            (y.sin(), x * y.cos())
        };
        assert!((dx - by_hand.0).abs() < 1e-14 && (dy - by_hand.1).abs() < 1e-14);
        let numeric = finite_difference(|p| bump_swapped(p[0], p[1]), &[y, x]);
        close("finite differences", &[dy, dx], &numeric, 1e-7);
        let (gx, gy) = gradients_function!(bump)(x, y, 3);
        assert_eq!((dx.to_bits(), dy.to_bits()), (gx.to_bits(), gy.to_bits()));
        let value = value_and_gradients_function!(bump_swapped)(y, x).0;
        assert_eq!(value.to_bits(), bump(x, y, 3).to_bits());
    }
}

/// A generic function without a loop (its own gradient entry points).
#[differentiable]
fn log_sum_exp2<T: Float>(a: T, b: T) -> T {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// Softplus: `log_sum_exp2` with a zero.
#[differentiable]
fn softplus<T: Float>(a: T) -> T {
    log_sum_exp2(a, T::zero())
}

#[test]
fn a_wrapper_of_a_generic_function() {
    for a in [-3.0_f64, -0.2, 0.0, 0.7, 25.0] {
        let g = gradients_function!(softplus::<f64>)(a);
        let logistic = 1.0 / (1.0 + (-a).exp());
        assert!((g - logistic).abs() < 1e-15, "softplus'({a}) = {g}");
        let (ga, _) = gradients_function!(log_sum_exp2::<f64>)(a, 0.0);
        assert_eq!(g.to_bits(), ga.to_bits());
        let g32 = gradients_function!(softplus::<f32>)(a as f32);
        assert!((f64::from(g32) - logistic).abs() < 1e-6);
    }
}

/// A weighted sum of squares; the weights a constant of the wrapper.
#[differentiable]
fn weighted_squares(x: &[f64], w: &[f64], s: f64) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() {
        sum += s * w[i] * x[i] * x[i];
    }
    sum
}

/// The weights handed through as data, the scale fixed.
#[differentiable]
fn half_weighted_squares(x: &[f64], #[no_grad] w: &[f64]) -> f64 {
    weighted_squares(x, w, 0.5)
}

#[test]
fn a_wrapper_hands_data_through() {
    let x = input(9);
    let w: Vec<f64> = (0..9).map(|i| 1.0 + i as f64).collect();
    let g = gradients_function!(half_weighted_squares)(&x, &w);
    let by_hand: Vec<f64> = x.iter().zip(&w).map(|(x, w)| w * x).collect();
    close("by hand", &g, &by_hand, 1e-15);
    let (gx, _, _) = gradients_function!(weighted_squares)(&x, &w, 0.5);
    assert_eq!(bits(&g), bits(&gx));
}

struct Scaled {
    k: f64,
}

#[differentiable]
impl Scaled {
    /// An associated function with a loop (fused).
    fn cubes(x: &[f64], k: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += k * x[i] * x[i] * x[i];
        }
        s
    }

    /// An associated function handing its argument on.
    fn quarter_cubes(x: &[f64]) -> f64 {
        Self::cubes(x, 0.25)
    }

    /// A method handing its argument on with its receiver's field (read through the
    /// implicit mode's sources, so not a constant: the call keeps its pullback).
    fn apply(&self, x: &[f64]) -> f64 {
        Self::cubes(x, self.k)
    }
}

#[test]
fn wrappers_in_an_impl() {
    let s = Scaled { k: 0.25 };
    let x = input(7);
    let by_hand: Vec<f64> = x.iter().map(|x| 0.75 * x * x).collect();
    let (gx, _) = gradients_function!(Scaled::cubes)(&x, 0.25);
    let g = gradients_function!(Scaled::quarter_cubes)(&x);
    close("associated function: by hand", &g, &by_hand, 1e-15);
    assert_eq!(bits(&g), bits(&gx));
    let g = gradients_function!(Scaled::apply)(&s, &x);
    close("method: by hand", &g, &by_hand, 1e-15);
}

/// Constants computed before the call.
#[differentiable]
fn rosenbrock_scaled(x: &[f64], n: usize) -> f64 {
    let b = 10.0 * n as f64;
    rosenbrock_ab(x, 1.0, b)
}

#[test]
fn a_wrapper_computing_its_constants() {
    let x = input(11);
    let g = gradients_function!(rosenbrock_scaled)(&x, 7);
    close("by hand", &g, &rosenbrock_ab_gradient(&x, 1.0, 70.0), 1e-12);
    let (g_ab, _, _) = gradients_function!(rosenbrock_ab::<f64>)(&x, 1.0, 70.0);
    assert_eq!(bits(&g), bits(&g_ab));
    close(
        "finite differences",
        &g,
        &finite_difference(|x| rosenbrock_scaled(x, 7), &x),
        1e-7,
    );
}

/// Forms the hand-on does not take: a parameter handed twice, a parameter handed through
/// an expression. They keep the callee's pullback.
#[differentiable]
fn twice(x: &[f64], a: f64) -> f64 {
    rosenbrock_ab(x, a, a)
}

#[differentiable]
fn through_an_expression(x: &[f64], a: f64) -> f64 {
    rosenbrock_ab(x, 2.0 * a, 100.0)
}

#[test]
fn wrappers_the_hand_on_does_not_take() {
    let x = input(6);
    let a = 0.6;
    let (gx, ga) = gradients_function!(twice)(&x, a);
    let mut numeric = finite_difference(|p| twice(&p[..6], p[6]), &[&x[..], &[a]].concat());
    let na = numeric.pop().unwrap();
    close("twice: x", &gx, &numeric, 1e-7);
    close("twice: a", &[ga], &[na], 1e-7);
    close(
        "twice: by hand",
        &gx,
        &rosenbrock_ab_gradient(&x, a, a),
        1e-12,
    );

    let (gx, ga) = gradients_function!(through_an_expression)(&x, a);
    let mut numeric = finite_difference(
        |p| through_an_expression(&p[..6], p[6]),
        &[&x[..], &[a]].concat(),
    );
    let na = numeric.pop().unwrap();
    close("expression: x", &gx, &numeric, 1e-7);
    close("expression: a", &[ga], &[na], 1e-7);
    let by_hand: f64 = (0..5).map(|i| 4.0 * (2.0 * a - x[i])).sum();
    assert!((ga - by_hand).abs() < 1e-12);
}

/// A callee keeping a position constant: the wrapper's parameter handed there gets a zero
/// gradient, as through the callee's pullback.
#[differentiable]
fn scaled_squares(x: &[f64], #[no_grad] s: f64, #[no_grad] w: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() {
        sum += s * w[i] * x[i] * x[i];
    }
    sum
}

#[differentiable]
fn scaled_squares_of(x: &[f64], s: f64, w: &[f64]) -> f64 {
    scaled_squares(x, s, w)
}

#[test]
fn a_parameter_handed_to_a_constant_position() {
    let x = input(5);
    let w = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    let (gx, gs, gw) = gradients_function!(scaled_squares_of)(&x, 0.5, &w);
    let by_hand: Vec<f64> = x.iter().zip(&w).map(|(x, w)| w * x).collect();
    close("x", &gx, &by_hand, 1e-15);
    assert_eq!(gs.to_bits(), 0.0_f64.to_bits());
    assert_eq!(gw, vec![0.0; 5]);
}

/// `second_order` functions written with `f64`: `hvp!` runs their copies generic over the
/// float type, the wrapper's handing the call on to the callee's.
#[differentiable(second_order)]
fn quartic_a(x: &[f64], a: f64) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() {
        sum += a * x[i] * x[i] * x[i] * x[i];
    }
    sum
}

#[differentiable(second_order)]
fn quartic(x: &[f64]) -> f64 {
    quartic_a(x, 0.5)
}

#[test]
fn a_second_order_wrapper() {
    let x = input(8);
    let v: Vec<f64> = (0..8).map(|i| 1.0 - 0.1 * i as f64).collect();
    let hv = hvp!(quartic)(&x, &v);
    let by_hand: Vec<f64> = x.iter().zip(&v).map(|(x, v)| 6.0 * x * x * v).collect();
    close("hvp!", &hv, &by_hand, 1e-14);
    let g = gradients_function!(quartic)(&x);
    let by_hand: Vec<f64> = x.iter().map(|x| 2.0 * x * x * x).collect();
    close("gradient", &g, &by_hand, 1e-15);
}

/// A log-likelihood, and the wrappers an optimiser is handed: its negative, scaled by the
/// number of observations, shifted by a constant.
#[differentiable]
fn log_likelihood(mu: &[f64], #[no_grad] data: &[f64], sigma: f64) -> f64 {
    let mut sum = 0.0;
    for i in 0..data.len() {
        let z = (data[i] - mu[i % mu.len()]) / sigma;
        sum += -0.5 * z * z - sigma.ln();
    }
    sum
}

#[differentiable]
fn negative_log_likelihood(mu: &[f64], #[no_grad] data: &[f64]) -> f64 {
    -log_likelihood(mu, data, 0.7)
}

#[differentiable]
fn mean_negative_log_likelihood(mu: &[f64], #[no_grad] data: &[f64], n: usize) -> f64 {
    -log_likelihood(mu, data, 0.7) / n as f64 + 3.0
}

#[differentiable]
fn half_log_likelihood(mu: &[f64], #[no_grad] data: &[f64]) -> f64 {
    1.0 - 0.5 * log_likelihood(mu, data, 0.7)
}

#[test]
fn wrappers_scaling_and_shifting_the_result() {
    let mu = input(4);
    let data: Vec<f64> = (0..13).map(|i| (i as f64 * 0.53).cos()).collect();
    // ∂/∂mu of the log-likelihood, by hand
    let mut by_hand = vec![0.0; 4];
    for (i, d) in data.iter().enumerate() {
        by_hand[i % 4] += (d - mu[i % 4]) / (0.7 * 0.7);
    }
    let (g_ll, _) = gradients_function!(log_likelihood, params = ["mu", "sigma"])(&mu, &data, 0.7);
    close("log-likelihood", &g_ll, &by_hand, 1e-13);

    let (value, g) = value_and_gradients_function!(negative_log_likelihood)(&mu, &data);
    assert_eq!(
        value.to_bits(),
        negative_log_likelihood(&mu, &data).to_bits()
    );
    let minus: Vec<f64> = by_hand.iter().map(|g| -g).collect();
    close("negative", &g, &minus, 1e-13);
    // the callee's gradient for the cotangent −1: its own, negated, bit for bit
    let negated: Vec<f64> = g_ll.iter().map(|g| -g).collect();
    assert_eq!(bits(&g), bits(&negated));

    let (value, g) = value_and_gradients_function!(mean_negative_log_likelihood)(&mu, &data, 13);
    assert_eq!(
        value.to_bits(),
        mean_negative_log_likelihood(&mu, &data, 13).to_bits()
    );
    let mean: Vec<f64> = by_hand.iter().map(|g| -g / 13.0).collect();
    close("mean", &g, &mean, 1e-13);
    let numeric = finite_difference(|m| mean_negative_log_likelihood(m, &data, 13), &mu);
    close("mean: finite differences", &g, &numeric, 1e-7);

    let g = gradients_function!(half_log_likelihood)(&mu, &data);
    let half: Vec<f64> = by_hand.iter().map(|g| -0.5 * g).collect();
    close("half", &g, &half, 1e-13);
    let (_, pullback) = vjp!(half_log_likelihood)(&mu, &data);
    close("half: vjp!", &pullback(1.0), &half, 1e-13);
}

/// The negated Rosenbrock function, generic: its Hessian is the negated Hessian.
#[differentiable]
fn negated_rosenbrock<T: Float>(x: &[T]) -> T {
    -rosenbrock(x)
}

#[test]
fn a_negating_wrapper_keeps_its_second_order() {
    let x = input(9);
    let v: Vec<f64> = (0..9).map(|i| (i as f64 * 0.3).sin()).collect();
    let hv = hvp!(negated_rosenbrock)(&x, &v);
    let minus: Vec<f64> = hvp!(rosenbrock)(&x, &v).iter().map(|h| -h).collect();
    // (equal values: a zero's sign may differ, `−(0 + 0)` against `(−0) + (−0)`…)
    assert_eq!(hv, minus);
    let g = gradients_function!(negated_rosenbrock::<f64>)(&x);
    let minus: Vec<f64> = rosenbrock_ab_gradient(&x, 1.0, 100.0)
        .iter()
        .map(|g| -g)
        .collect();
    close("gradient", &g, &minus, 1e-12);
}

/// The mean over the slice's length, with the callee named with its float type.
#[differentiable]
fn mean_rosenbrock(x: &[f64]) -> f64 {
    rosenbrock_ab::<f64>(x, 1.0, 100.0) / x.len() as f64
}

trait Density {
    fn log_density(&self, x: &[f64]) -> f64;
}

struct Quadratic;

#[differentiable]
impl Density for Quadratic {
    /// A trait method handing its argument on.
    fn log_density(&self, x: &[f64]) -> f64 {
        -weighted_squares(x, &[1.0, 2.0, 3.0], 0.5)
    }
}

/// A free function handing its argument on to a trait method by its path.
#[differentiable]
fn quadratic_density(#[no_grad] q: &Quadratic, x: &[f64]) -> f64 {
    <Quadratic as Density>::log_density(q, x)
}

#[test]
fn wrappers_with_paths_and_lengths() {
    let x = input(6);
    let g = gradients_function!(mean_rosenbrock)(&x);
    let by_hand: Vec<f64> = rosenbrock_ab_gradient(&x, 1.0, 100.0)
        .iter()
        .map(|g| g / 6.0)
        .collect();
    close("mean", &g, &by_hand, 1e-12);
    close(
        "mean: finite differences",
        &g,
        &finite_difference(mean_rosenbrock, &x),
        1e-7,
    );

    let x = input(3);
    let by_hand: Vec<f64> = x.iter().zip([1.0, 2.0, 3.0]).map(|(x, w)| -w * x).collect();
    let g = gradients_function!(Quadratic::log_density)(&Quadratic, &x);
    close("trait method", &g, &by_hand, 1e-15);
    let g = gradients_function!(quadratic_density)(&Quadratic, &x);
    close("through the trait method's path", &g, &by_hand, 1e-15);
}

#[test]
fn a_wrappers_other_helpers() {
    // a selection
    let (y, x) = (0.3, 1.2);
    let dx = gradients_function!(bump_swapped, params = ["x"])(y, x);
    let (gx, _) = gradients_function!(bump)(x, y, 3);
    assert_eq!(dx.to_bits(), gx.to_bits());
    // into the caller's buffer (the pullback)
    let x = input(10);
    let mut buffer = vec![1.0; 10];
    let value = accumulate_gradients!(rosenbrock_f64)(&x, &mut buffer);
    assert_eq!(value.to_bits(), rosenbrock_f64(&x).to_bits());
    let plus_one: Vec<f64> = rosenbrock_ab_gradient(&x, 1.0, 100.0)
        .iter()
        .map(|g| g + 1.0)
        .collect();
    close("accumulated", &buffer, &plus_one, 1e-12);
    // the implicit mode, a variable read in a closure calling the wrapper
    let w = Variable::new(0.3);
    let f = differentiable_closure!(|x: f64| softplus::<f64>(w * x));
    let (value, grads) = implicit_value_and_gradients(&f)(2.0);
    assert_eq!(value.to_bits(), softplus(0.3 * 2.0_f64).to_bits());
    let logistic = 1.0 / (1.0 + (-0.6_f64).exp());
    let dw = grads.get(&w).expect("w is read");
    assert!((dw - 2.0 * logistic).abs() < 1e-15, "{dw}");
}

/// A function with a hand-written rule (its `__seeded`: its rule's pullback at once).
#[differentiable(vjp = log_add_exp_rule)]
fn log_add_exp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn log_add_exp_rule(a: f64, b: f64) -> (f64, impl FnOnce(f64) -> (f64, f64)) {
    let value = log_add_exp(a, b);
    let (wa, wb) = ((a - value).exp(), (b - value).exp());
    (value, move |dy| (dy * wa, dy * wb))
}

/// Its wrapper, halved.
#[differentiable]
fn half_softplus(a: f64) -> f64 {
    0.5 * log_add_exp(a, 0.0)
}

#[test]
fn a_wrapper_of_a_function_with_a_rule() {
    for a in [-2.0, 0.3, 4.0] {
        let g = gradients_function!(half_softplus)(a);
        let by_hand = 0.5 / (1.0 + (-a).exp());
        assert!((g - by_hand).abs() < 1e-15, "{g} against {by_hand}");
        let (ga, _) = gradients_function!(log_add_exp)(a, 0.0);
        assert_eq!(g.to_bits(), (0.5 * ga).to_bits());
    }
}
