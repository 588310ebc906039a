//! The optional features (run with `cargo test -p autodiff-runtime --all-features --test
//! features`): `serde`, variables and optimizer state saved as JSON and loaded again
//! continue bit for bit; `rayon`, gradient pairs add.
#![cfg(any(feature = "serde", feature = "rayon"))]
use autodiff_runtime::implicit::test_support::scaled;
#[cfg(feature = "serde")]
use autodiff_runtime::optim::{Adam, Sgd};
use autodiff_runtime::{implicit_gradients, Variable};

#[cfg(feature = "serde")]
/// Adam's state after `steps` steps on `f(w) = w · x` with a varying `x`.
fn train(adam: &mut Adam, w: &Variable<f64>, from: usize, to: usize) {
    let f = |x: f64| scaled(w, x);
    for k in from..to {
        adam.apply_gradients(&implicit_gradients(&f)(1.0 + (k as f64).sin()));
    }
}

#[cfg(feature = "serde")]
#[test]
fn a_variable_and_its_optimizer_resume_where_they_stopped() {
    let w = Variable::new(0.5_f64);
    let mut adam = Adam::new(0.05);
    train(&mut adam, &w, 0, 10);
    let text = serde_json::to_string(&(&w, &adam)).unwrap();
    train(&mut adam, &w, 10, 20);

    let (w2, mut adam2): (Variable<f64>, Adam) = serde_json::from_str(&text).unwrap();
    train(&mut adam2, &w2, 10, 20);
    assert_eq!(w2.get().to_bits(), w.get().to_bits());
    // Saved again after loading, the state keeps the same origin.
    let again = serde_json::to_string(&(&w2, &adam2)).unwrap();
    let (w3, mut adam3): (Variable<f64>, Adam) = serde_json::from_str(&again).unwrap();
    train(&mut adam3, &w3, 20, 25);
    train(&mut adam, &w, 20, 25);
    assert_eq!(w3.get().to_bits(), w.get().to_bits());
}

#[cfg(feature = "serde")]
#[test]
fn explicit_parameters_resume_where_they_stopped() {
    let mut sgd = Sgd::new(0.1).momentum(0.9).nesterov(true);
    let mut w = vec![1.0_f64, -2.0];
    let step = |sgd: &mut Sgd, w: &mut Vec<f64>| {
        let g: Vec<f64> = w.iter().map(|x| 2.0 * x + 0.1).collect();
        sgd.step(w, &g);
    };
    for _ in 0..5 {
        step(&mut sgd, &mut w);
    }
    let text = serde_json::to_string(&(&w, &sgd)).unwrap();
    let (mut w2, mut sgd2): (Vec<f64>, Sgd) = serde_json::from_str(&text).unwrap();
    for _ in 0..5 {
        step(&mut sgd, &mut w);
        step(&mut sgd2, &mut w2);
    }
    assert_eq!(w, w2);
}

#[cfg(feature = "rayon")]
#[test]
fn pairs_of_different_variables_merge_in_construction_order() {
    let (a, b, c) = (
        Variable::new(1.0_f64),
        Variable::new(2.0_f64),
        Variable::new(3.0_f64),
    );
    let fa = |x: f64| scaled(&a, x);
    let fb = |x: f64| scaled(&b, x);
    let fc = |x: f64| scaled(&c, x);
    let total = implicit_gradients(&fc)(4.0)
        + implicit_gradients(&fa)(1.0)
        + implicit_gradients(&fb)(2.0)
        + implicit_gradients(&fa)(10.0);
    assert_eq!(total.len(), 3);
    assert!(total[0].1.is(&a) && total[1].1.is(&b) && total[2].1.is(&c));
    assert_eq!(total.get(&a), Some(11.0));
    assert_eq!(total.get(&b), Some(2.0));
    assert_eq!(total.get(&c), Some(4.0));
}
