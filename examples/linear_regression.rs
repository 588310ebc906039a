//! Fit a line to noisy data with `implicit_value_and_gradients` and `Adam`.
//!
//! Run it with `cargo run --example linear_regression`.

use autodiff::optim::Adam;
use autodiff::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A standard normal sample (Box–Muller).
fn normal(rng: &mut StdRng) -> f64 {
    let (u, v): (f64, f64) = (rng.random(), rng.random());
    (-2.0 * (1.0 - u).ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// The model: `y = slope · x + intercept`.
struct Line {
    slope: Variable<f64>,
    intercept: Variable<f64>,
}

impl Line {
    /// Mean squared error over the data set.
    #[differentiable]
    fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys.iter()) {
            let error = self.slope * x + self.intercept - y;
            total += error * error;
        }
        total / xs.len() as f64
    }
}

fn main() {
    let (true_slope, true_intercept) = (2.5, -1.0);
    let mut rng = StdRng::seed_from_u64(0x9E37_79B9_7F4A_7C15);
    let xs: Vec<f64> = (0..200).map(|_| rng.random_range(-5.0..5.0)).collect();
    let ys: Vec<f64> = xs
        .iter()
        .map(|x| true_slope * x + true_intercept + 0.5 * normal(&mut rng))
        .collect();

    let line = Line {
        slope: Variable::new(0.0).with_name("slope"),
        intercept: Variable::new(0.0).with_name("intercept"),
    };
    let value_and_gradients =
        implicit_value_and_gradients(|xs: &[f64], ys: &[f64]| line.loss(xs, ys));
    let mut adam = Adam::new(0.1);

    println!(
        "fitting y = {true_slope} x + {true_intercept} (+ noise σ = 0.5) to 200 points with Adam\n"
    );
    println!("{:>5}  {:>10}", "step", "loss");
    for step in 0..=500 {
        let (loss, grads) = value_and_gradients(&xs, &ys);
        if step % 50 == 0 {
            println!("{step:>5}  {loss:>10.5}");
        }
        adam.apply_gradients(&grads);
    }
    println!(
        "\nrecovered: slope = {:.3}, intercept = {:.3}",
        line.slope.get(),
        line.intercept.get()
    );
    println!("true:      slope = {true_slope:.3}, intercept = {true_intercept:.3}");
}
