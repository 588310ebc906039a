//! `GradientTape`: TensorFlow's tape over compile-time derivatives.

use autodiff::prelude::*;

#[test]
fn the_seed_example() {
    let w1 = Variable::new(2.0);
    let w2 = Variable::new(3.0);
    let weighted_sum = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    let tape = GradientTape::new();
    let s = tape.record(|| weighted_sum(5.0, 7.0));
    assert_eq!(*s, 31.0);
    assert_eq!(*s.value(), 31.0);
    let w1_grad: f64 = tape.gradient(&s, &w1);
    assert_eq!(w1_grad, 5.0);
}

#[test]
fn a_tuple_of_sources_and_a_zero_for_an_unconnected_one() {
    let (w1, w2, unused) = (Variable::new(2.0), Variable::new(3.0), Variable::new(9.0));
    let f = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    let tape = GradientTape::new();
    let s = tape.record(|| f(5.0, 7.0));
    let (a, b, c) = tape.gradient(&s, (&w1, &w2, &unused));
    assert_eq!((a, b, c), (5.0, 7.0, 0.0));
}

#[test]
fn a_persistent_tape_answers_many_times() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| w * w * x);
    let tape = GradientTape::persistent();
    let s = tape.record(|| f(3.0));
    let t = tape.record(|| f(1.0));
    assert_eq!(tape.gradient(&s, &w), 12.0);
    assert_eq!(tape.gradient(&t, &w), 4.0);
    assert_eq!(tape.gradient(&s, &w), 12.0);
}

#[test]
fn recorded_results_chain() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| w * x);
    let tape = GradientTape::persistent();
    let s = tape.record(|| f(3.0)); // s = 3w = 6
    let square = differentiable_closure!(|| s * s + w);
    let t = tape.record(square); // t = s² + w = 9w² + w
    assert_eq!(*t, 38.0);
    // dt/dw = 18w + 1
    assert_eq!(tape.gradient(&t, &w), 37.0);
    // a value taken out with `*s` is a plain number: no chaining
    let plain = *s;
    let g = differentiable_closure!(|| w * plain);
    let u = tape.record(g);
    assert_eq!(tape.gradient(&u, &w), 6.0);
}

#[test]
fn watching_non_trainable_variables() {
    let c = Variable::non_trainable(4.0);
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| c * w * x);
    let tape = GradientTape::new();
    tape.watch(&c);
    let s = tape.record(|| f(1.0));
    assert_eq!(tape.gradient(&s, (&c, &w)), (2.0, 4.0));

    let tape = GradientTape::new().watch_accessed_variables(false);
    tape.watch(&c);
    let s = tape.record(|| f(1.0));
    // only watched variables are recorded
    assert_eq!(tape.gradient(&s, (&c, &w)), (2.0, 0.0));
}

#[test]
#[should_panic(expected = "GradientTape::record: the function ran no differentiable code")]
fn recording_plain_code_is_refused() {
    let tape = GradientTape::new();
    let _ = tape.record(|| 1.0 + 2.0);
}

/// A function that can read no variable (plain numeric parameters, no other function
/// called) answers the tape by running as written: its result is recorded, and every
/// variable's gradient through it is zero — what its derivative would give.
#[differentiable]
fn reads_no_variable(x: &[f64], a: f64) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += (v * a).sin();
    }
    s
}

#[test]
fn a_function_reading_no_variable_is_recorded_as_a_constant() {
    let w = Variable::new(2.0);
    let x = [0.5, -1.0, 2.0];
    let tape = GradientTape::persistent();
    let s = tape.record(|| reads_no_variable(&x, 1.5));
    let expected: f64 = x.iter().map(|v| (v * 1.5).sin()).sum();
    assert_eq!(*s, expected);
    assert_eq!(tape.gradient(&s, &w), 0.0);
    // and a later recording that reads the variable chains as before
    let f = differentiable_closure!(|y: f64| w * y);
    let t = tape.record(|| f(*s));
    assert_eq!(tape.gradient(&t, &w), expected);
}
