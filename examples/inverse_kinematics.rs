//! Inverse kinematics: a planar arm of three links reaches for a target by gradient descent
//! on its joint angles, with nalgebra's types in the differentiable code.
//!
//! `cargo run --features nalgebra --example inverse_kinematics`
//!
//! Each joint turns the rest of the arm by its angle, so the hand is at
//! `Σ_k l_k (cos φ_k, sin φ_k)` with `φ_k = θ_0 + … + θ_k`. The loss is the squared distance
//! from the hand to the target; its gradient with respect to the angles (an
//! `SVector<f64, 3>`, the parameter's own type) comes from `gradients_function!`.

use autodiff::nalgebra::{Point2, Vector2, Vector3};
use autodiff::prelude::*;

/// Where the hand of an arm with these joint angles and link lengths is.
#[differentiable]
fn hand(angles: &Vector3<f64>, #[no_grad] lengths: &Vector3<f64>) -> Point2<f64> {
    let (ex, ey) = (Vector2::x(), Vector2::y());
    let mut p = Point2::origin();
    let mut phi = 0.0;
    for k in 0..3 {
        phi += angles[k];
        p += (ex * phi.cos() + ey * phi.sin()) * lengths[k];
    }
    p
}

/// The squared distance from the hand to the target.
#[differentiable]
fn miss(
    angles: &Vector3<f64>,
    #[no_grad] lengths: &Vector3<f64>,
    #[no_grad] target: &Point2<f64>,
) -> f64 {
    (hand(angles, lengths) - target).norm_squared()
}

fn main() {
    let lengths = Vector3::new(1.0, 0.8, 0.5);
    let target = Point2::new(0.9, 1.4);
    let mut angles = Vector3::new(0.3, 0.3, 0.3);
    let step = 0.1;

    let value_and_gradient = value_and_gradients_function!(miss, params = ["angles"]);
    println!("iteration   distance   angles (rad)");
    let mut iterations = 0;
    for k in 0..=500 {
        let (loss, g): (f64, Vector3<f64>) = value_and_gradient(&angles, &lengths, &target);
        if k % 25 == 0 || loss < 1e-12 {
            println!(
                "{k:9}   {:.2e}   [{:.4}, {:.4}, {:.4}]",
                loss.sqrt(),
                angles[0],
                angles[1],
                angles[2]
            );
        }
        iterations = k;
        if loss < 1e-12 {
            break;
        }
        angles -= g * step;
    }
    let reached = hand(&angles, &lengths);
    let distance = (reached - target).norm();
    println!(
        "after {iterations} iterations the hand is at ({:.6}, {:.6}), {distance:.2e} from the \
         target ({}, {})",
        reached.x, reached.y, target.x, target.y
    );
    assert!(distance < 1e-5, "the arm should reach the target");
}
