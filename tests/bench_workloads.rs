//! The benchmark workloads' hand-written adjoints agree with the generated gradients (so
//! the benchmarks compare equal work), checked in every `cargo test`.

#[path = "../benches/workloads.rs"]
mod workloads;

use autodiff::check::assert_gradient_close;
use autodiff::prelude::*;
use workloads::*;

#[test]
fn rosenbrock_by_hand_matches() {
    let x = rosenbrock_input(1000);
    let (v, g) = value_and_gradients_function!(rosenbrock)(&x);
    let (vh, gh) = rosenbrock_by_hand(&x);
    assert!((v - vh).abs() <= 1e-12 * v.abs());
    assert_gradient_close(&g, &gh, 1e-12);
}

#[test]
fn rosenbrock_wrapped_matches() {
    let x = rosenbrock_input(1000);
    let (v, g) = value_and_gradients_function!(rosenbrock_wrapped)(&x);
    let (vh, gh) = rosenbrock_by_hand(&x);
    assert!((v - vh).abs() <= 1e-12 * v.abs());
    assert_gradient_close(&g, &gh, 1e-12);
    assert_gradient_close(
        &g,
        &autodiff::check::finite_difference(rosenbrock_wrapped, &x),
        1e-6,
    );
}

#[test]
fn chain_by_hand_matches() {
    let (v, g) = value_and_gradients_function!(chain, params = ["x"])(0.5, 10_000);
    let (vh, gh) = chain_by_hand(0.5, 10_000);
    assert_eq!(v, vh);
    assert_gradient_close(&[g], &[gh], 1e-9);
}

#[test]
fn recurrence_by_hand_matches() {
    let (v, (ga, gb)) =
        value_and_gradients_function!(recurrence, params = ["a", "b"])(0.9, 0.3, 100_000);
    let (vh, (gah, gbh)) = recurrence_by_hand(0.9, 0.3, 100_000);
    assert_eq!(v, vh);
    assert_gradient_close(&[ga, gb], &[gah, gbh], 1e-9);
    let fd = autodiff::check::central_difference(|p| recurrence(p[0], p[1], 100_000), &[0.9, 0.3]);
    assert_gradient_close(&[ga, gb], &fd, 1e-5);
}

#[test]
fn mlp_by_hand_matches() {
    let (m, x, labels) = mlp_input(20, 12, 5, 8);
    let (v, g) = value_and_gradients_function!(mlp_loss, params = ["m"])(&m, &x, &labels);
    let (vh, gh) = mlp_by_hand(&m, &x, &labels);
    assert!((v - vh).abs() <= 1e-12 * v.abs());
    for (a, b) in [(&g.w1, &gh.w1), (&g.w2, &gh.w2)] {
        assert_gradient_close(a.as_slice().unwrap(), b.as_slice().unwrap(), 1e-12);
    }
    for (a, b) in [(&g.b1, &gh.b1), (&g.b2, &gh.b2)] {
        assert_gradient_close(a.as_slice().unwrap(), b.as_slice().unwrap(), 1e-12);
    }
}
