//! The running example of the TensorFlow eager answer this project starts from, done at
//! compile time: `weighted_sum(x1, x2) = w1 * x1 + w2 * x2` with `w1 = 2`, `w2 = 3`.
//!
//! Run it with `cargo run --example weighted_sum`.

use autodiff::prelude::*;

/// The weights of the example (trainable variables in TensorFlow).
const W1: f64 = 2.0;
const W2: f64 = 3.0;

/// `weighted_sum(x1, x2)`: the weights are constants read by the function.
#[differentiable]
fn weighted_sum(x1: f64, x2: f64) -> f64 {
    W1 * x1 + W2 * x2
}

/// The same with the weights as parameters, so gradients can be taken with respect to them.
#[differentiable]
fn weighted_sum_with_weights(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

fn main() {
    println!("autodiff: gradients of ordinary Rust, differentiated at compile time\n");

    let s = weighted_sum(5.0, 7.0);
    println!("weighted_sum(5, 7) = {s}    (2·5 + 3·7: #[differentiable] functions stay ordinary functions)");

    // TensorFlow: tfe.gradients_function(weighted_sum)(5., 7.)
    let (dx1, dx2) = gradients_function!(weighted_sum)(5.0, 7.0);
    println!("gradients_function!(weighted_sum)(5, 7) = ({dx1}, {dx2})    (∂s/∂x1 = w1, ∂s/∂x2 = w2: every argument)");

    // TensorFlow: tfe.gradients_function(weighted_sum_with_weights, params=["w1", "w2"])
    let (dw1, dw2) =
        gradients_function!(weighted_sum_with_weights, params = ["w1", "w2"])(2.0, 5.0, 3.0, 7.0);
    println!("gradients_function!(…, params = [\"w1\", \"w2\"])(2, 5, 3, 7) = ({dw1}, {dw2})    (∂s/∂w1 = x1, ∂s/∂w2 = x2: only the named parameters)");

    let dw1: f64 =
        gradients_function!(weighted_sum_with_weights, params = ["w1"])(2.0, 5.0, 3.0, 7.0);
    println!("the gradient with respect to w1 alone: {dw1}    (one parameter comes back as a bare number)");

    // Reverse mode computes the value anyway: get both in one sweep.
    let (s, (dw1, dw2)) = value_and_gradients_function!(
        weighted_sum_with_weights,
        params = ["w1", "w2"]
    )(2.0, 5.0, 3.0, 7.0);
    println!("value_and_gradients_function!(…) = ({s}, ({dw1}, {dw2}))    (the value for free)");

    // Any output, any cotangent: the pullback.
    let (s, pullback) = vjp!(weighted_sum_with_weights)(2.0, 5.0, 3.0, 7.0);
    let (gw1, gx1, gw2, gx2) = pullback(10.0);
    println!("vjp!: value {s}, pullback(10) = ({gw1}, {gx1}, {gw2}, {gx2})    (10 × each partial derivative)");
}
