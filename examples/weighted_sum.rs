//! The running example of the TensorFlow eager answer this project starts from, with the
//! differentiation done at compile time: two trainable variables `w1 = 2`, `w2 = 3` and
//! `weighted_sum(x1, x2) = w1 * x1 + w2 * x2`, so `weighted_sum(5, 7) = 31`.
//!
//! Run it with `cargo run --example weighted_sum`.

use autodiff::prelude::*;

/// `[(5.0, Variable(w1)), (7.0, Variable(w2))]`, as TensorFlow prints the pairs.
fn pairs(grads: &Gradients) -> String {
    let pairs: Vec<String> = grads
        .iter()
        .map(|(g, v)| format!("({g:?}, {v:?})"))
        .collect();
    format!("[{}]", pairs.join(", "))
}

/// The same function with the weights as parameters, for the explicit mode.
#[differentiable]
fn weighted_sum_with_weights(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

fn main() {
    println!("autodiff: gradients of ordinary Rust, differentiated at compile time\n");

    let w1 = Variable::new(2.0).with_name("w1");
    let w2 = Variable::new(3.0).with_name("w2");
    // A closure that reads the variables; it stays an ordinary closure.
    let weighted_sum = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
    println!(
        "weighted_sum(5, 7) = {}    (2·5 + 3·7)\n",
        weighted_sum(5.0, 7.0)
    );

    // 1. The tape (TensorFlow's GradientTape): record, then ask for any gradient.
    let tape = GradientTape::new();
    let s = tape.record(|| weighted_sum(5.0, 7.0));
    let w1_grad: f64 = tape.gradient(&s, &w1);
    println!("1. GradientTape: ∂s/∂w1 = {w1_grad}    (= x1; the tape is the production choice)");

    // 2. Explicit parameters (gradients_function): with respect to the arguments.
    let (dx1, dx2) =
        gradients_function!(weighted_sum_with_weights, params = ["x1", "x2"])(2.0, 5.0, 3.0, 7.0);
    println!("2. gradients_function!(…, params = [\"x1\", \"x2\"]) = ({dx1}, {dx2})    (= w1, w2; for quick experiments)");
    let (dw1, dw2) =
        gradients_function!(weighted_sum_with_weights, params = ["w1", "w2"])(2.0, 5.0, 3.0, 7.0);
    println!("   gradients_function!(…, params = [\"w1\", \"w2\"]) = ({dw1}, {dw2})    (= x1, x2: only the named parameters)");

    // 3. Implicit gradients: with respect to every trainable variable read, as pairs.
    let grads = implicit_gradients(&weighted_sum)(5.0, 7.0);
    println!(
        "3. implicit_gradients(weighted_sum)(5, 7) = {}",
        pairs(&grads)
    );
    println!(
        "   the pair names the variable itself: {}",
        grads[0].1.is(&w1)
    );

    let frozen_w1 = Variable::non_trainable(2.0).with_name("w1");
    let partly_frozen = differentiable_closure!(|x1: f64, x2: f64| frozen_w1 * x1 + w2 * x2);
    let grads = implicit_gradients(&partly_frozen)(5.0, 7.0);
    println!(
        "   with w1 non-trainable: {}    (non-trainable variables are left out)",
        pairs(&grads)
    );

    // 4. Value and gradients: reverse mode computes the value anyway.
    let (s, grads) = implicit_value_and_gradients(&weighted_sum)(5.0, 7.0);
    println!("4. implicit_value_and_gradients(weighted_sum)(5, 7) = ({s}, {})    (loss and gradients: a training step)", pairs(&grads));
}
