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
