//! Minimises the 1000-dimensional Rosenbrock function with argmin's L-BFGS and a
//! More–Thuente line search; the gradient is the one `#[differentiable]` writes, and cost and
//! gradient come from one sweep (`autodiff::argmin_problem!`).
//!
//! Run it with `cargo run --features argmin --example lbfgs`.

use argmin::core::observers::ObserverMode;
use argmin::core::{Executor, State, TerminationReason, TerminationStatus};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use autodiff::prelude::*;

/// The extended Rosenbrock function (Moré, Garbow and Hillstrom's problem 21: the
/// two-dimensional one on each pair of coordinates): its minimum is 0, at (1, 1, …, 1).
#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in (0..x.len()).step_by(2) {
        sum += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    sum
}

/// Prints the iteration and the cost every 10 iterations.
struct Progress;

impl<I: State<Float = f64>> argmin::core::observers::Observe<I> for Progress {
    fn observe_iter(
        &mut self,
        state: &I,
        _kv: &argmin::core::KV,
    ) -> Result<(), argmin::core::Error> {
        if state.get_iter() % 10 == 0 {
            println!(
                "iteration {:>4}: cost {:.6e}",
                state.get_iter(),
                state.get_cost()
            );
        }
        Ok(())
    }
}

fn main() -> Result<(), argmin::core::Error> {
    let n = 1000;
    // the classic start, (-1.2, 1) in each pair of coordinates
    let start: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();

    let problem = autodiff::argmin_problem!(rosenbrock);
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-8)?
        .with_tolerance_cost(0.0)?;
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start).max_iters(1000))
        .add_observer(Progress, ObserverMode::Always)
        .run()?;

    let state = result.state();
    let best = state.get_best_param().expect("a best parameter");
    let distance = best.iter().map(|x| (x - 1.0).powi(2)).sum::<f64>().sqrt();
    let counts = &result.problem().counts;
    println!("Rosenbrock in {n} dimensions, L-BFGS (memory 7) with More–Thuente line search");
    println!(
        "iterations: {}, cost: {:.3e}, |x - (1, …, 1)| = {distance:.3e}",
        state.get_iter(),
        state.get_best_cost()
    );
    println!(
        "argmin asked for {} costs and {} gradients; the function's value-and-gradient sweep ran {} times",
        counts.get("cost_count").copied().unwrap_or(0),
        counts.get("gradient_count").copied().unwrap_or(0),
        result.problem().problem.as_ref().map_or(0, |p| p.evaluations()),
    );
    match state.get_termination_status() {
        TerminationStatus::Terminated(TerminationReason::SolverConverged) if distance < 1e-6 => {
            println!("converged");
            Ok(())
        }
        status => Err(argmin::core::Error::msg(format!(
            "did not converge: {status}"
        ))),
    }
}
