//! `autodiff::argmin`: a differentiable function as an argmin problem (run with
//! `cargo test --features argmin --test argmin`).
#![cfg(feature = "argmin")]

use argmin::core::TerminationStatus;
use argmin::core::{CostFunction, Error, Executor, Gradient, State, TerminationReason};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use autodiff::argmin::GradientProblem;
use autodiff::argmin_problem;
use autodiff::prelude::*;
use std::cell::RefCell;

/// The extended Rosenbrock function (the two-dimensional one on each pair of coordinates,
/// an even number of them): minimum 0 at (1, …, 1).
#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in (0..x.len()).step_by(2) {
        sum += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    sum
}

/// The gradient of the extended Rosenbrock function, derived by hand.
fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in (0..n).step_by(2) {
        let r = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * x[i] * r - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * r;
    }
    g
}

/// An argmin problem that forwards to a `GradientProblem` and records every parameter
/// argmin asks about, cost or gradient.
struct Recorded<P> {
    inner: P,
    asked: RefCell<Vec<Vec<f64>>>,
}

impl<P: CostFunction<Param = Vec<f64>, Output = f64>> CostFunction for Recorded<P> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        self.asked.borrow_mut().push(x.clone());
        self.inner.cost(x)
    }
}

impl<P: Gradient<Param = Vec<f64>, Gradient = Vec<f64>>> Gradient for Recorded<P> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, x: &Vec<f64>) -> Result<Vec<f64>, Error> {
        self.asked.borrow_mut().push(x.clone());
        self.inner.gradient(x)
    }
}

#[test]
fn cost_and_gradient_match_the_function_and_its_hand_derived_gradient() {
    let problem = argmin_problem!(rosenbrock);
    let x: Vec<f64> = (0..8).map(|i| 0.3 * i as f64 - 0.8).collect();
    assert_eq!(problem.cost(&x).unwrap(), rosenbrock(&x));
    let g = problem.gradient(&x).unwrap();
    for (a, b) in g.iter().zip(rosenbrock_gradient(&x)) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
    }
    assert_eq!(problem.evaluations(), 1);
}

#[test]
fn one_sweep_per_parameter_in_a_row() {
    let calls = std::cell::Cell::new(0);
    let vg = value_and_gradients_function!(rosenbrock);
    let problem = GradientProblem::new(|x: &Vec<f64>| {
        calls.set(calls.get() + 1);
        vg(x)
    });
    let (a, b) = (vec![0.5, 0.5], vec![1.0, 1.0]);
    problem.cost(&a).unwrap();
    problem.gradient(&a).unwrap();
    problem.gradient(&a).unwrap();
    assert_eq!(calls.get(), 1);
    problem.gradient(&b).unwrap();
    problem.cost(&b).unwrap();
    assert_eq!(calls.get(), 2);
    problem.cost(&a).unwrap(); // only the last parameter is kept
    assert_eq!((calls.get(), problem.evaluations()), (3, 3));
}

#[test]
fn constant_arguments_and_named_parameters() {
    #[differentiable]
    fn weighted_distance(x: &[f64], weights: &[f64], target: &[f64]) -> f64 {
        let mut sum = 0.0;
        for i in 0..x.len() {
            sum += weights[i] * (x[i] - target[i]) * (x[i] - target[i]);
        }
        sum
    }
    let (weights, target) = (vec![1.0, 2.0, 3.0], vec![0.5, -1.0, 2.0]);
    let problem = argmin_problem!(|x| weighted_distance(x, &weights, &target), params = ["x"]);
    let x = vec![1.0, 1.0, 1.0];
    // 1·0.25 + 2·4 + 3·1 and 2·w·(x - t)
    assert_eq!(problem.cost(&x).unwrap(), 11.25);
    assert_eq!(problem.gradient(&x).unwrap(), vec![1.0, 8.0, -6.0]);
}

/// L-BFGS with More–Thuente on the 1000-dimensional extended Rosenbrock function reaches its minimum
/// 0 at (1, …, 1) (the run of `examples/lbfgs.rs`), with one sweep per parameter asked.
#[test]
fn lbfgs_reaches_the_minimum_of_the_1000_dimensional_rosenbrock_function() {
    let n = 1000;
    let start: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    let problem = Recorded {
        inner: argmin_problem!(rosenbrock),
        asked: RefCell::new(Vec::new()),
    };
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-8)
        .unwrap()
        .with_tolerance_cost(0.0)
        .unwrap();
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start).max_iters(1000))
        .run()
        .unwrap();
    let state = result.state();
    assert_eq!(
        *state.get_termination_status(),
        TerminationStatus::Terminated(TerminationReason::SolverConverged)
    );
    let best = state.get_best_param().unwrap();
    for &x in best {
        assert!((x - 1.0).abs() < 1e-7, "{x}");
    }
    assert!(state.get_best_cost() < 1e-14, "{}", state.get_best_cost());
    let norm = rosenbrock_gradient(best)
        .iter()
        .map(|g| g * g)
        .sum::<f64>()
        .sqrt();
    assert!(norm <= 1e-8, "gradient norm {norm}");

    // argmin asked for costs and gradients, often both at one parameter; the sweep ran
    // once per run of equal parameters in the sequence of its questions.
    let recorded = result.problem().problem.as_ref().unwrap();
    let asked = recorded.asked.borrow();
    let runs = 1 + asked.windows(2).filter(|w| w[0] != w[1]).count();
    assert_eq!(recorded.inner.evaluations(), runs);
    // L-BFGS with More–Thuente asks for a gradient wherever it asked for a cost: one sweep
    // answers both (50 sweeps for 50 costs and 89 gradients when this was written).
    let counts = &result.problem().counts;
    let (costs, gradients) = (counts["cost_count"], counts["gradient_count"]);
    assert_eq!(costs + gradients, asked.len() as u64);
    assert!(
        runs as u64 <= costs.max(gradients),
        "{runs} sweeps, {costs} costs, {gradients} gradients"
    );
}

/// A smooth convex function with its minimum at (1, …, 1): `Σ exp(xᵢ − 1) − xᵢ` plus half
/// the squared differences of neighbours. Generic, as `hessian!` needs it.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn convex_chain<T: Float>(x: &[T]) -> T {
    let (one, half) = (T::from(1.0).unwrap(), T::from(0.5).unwrap());
    let mut sum = T::zero();
    for i in 0..x.len() {
        sum = sum + (x[i] - one).exp() - x[i];
    }
    for i in 0..x.len() - 1 {
        sum = sum + half * (x[i + 1] - x[i]).powi(2);
    }
    sum
}

/// Its Hessian, derived by hand: `exp(xᵢ − 1)` on the diagonal plus the path graph's
/// Laplacian.
fn convex_chain_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for (i, v) in x.iter().enumerate() {
        h[i][i] = (v - 1.0).exp();
    }
    for i in 0..n - 1 {
        h[i][i] += 1.0;
        h[i + 1][i + 1] += 1.0;
        h[i][i + 1] -= 1.0;
        h[i + 1][i] -= 1.0;
    }
    h
}

#[test]
fn newton_cg_with_the_hessian_converges_to_the_minimum() {
    use argmin::core::Hessian;
    use argmin::solver::newton::NewtonCG;
    let vg = value_and_gradients_function!(convex_chain);
    let h = hessian!(convex_chain);
    let problem = GradientProblem::new(move |x: &Vec<f64>| vg(x.as_slice()))
        .with_hessian(move |x: &Vec<f64>| autodiff::argmin::rows(&h(x.as_slice())));
    let x = vec![0.0, 2.0, -1.0, 0.5, 3.0, 1.5];
    let hess = problem.hessian(&x).expect("a Hessian");
    let hand = convex_chain_hessian(&x);
    for (r, h) in hess.iter().zip(&hand) {
        for (a, b) in r.iter().zip(h) {
            assert!(
                (a - b).abs() <= 1e-13 * b.abs().max(1.0),
                "{hess:?} vs {hand:?}"
            );
        }
    }
    let solver = NewtonCG::new(MoreThuenteLineSearch::new());
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(x.clone()).max_iters(100))
        .run()
        .expect("Newton-CG runs");
    let state = result.state();
    let best = state.get_best_param().expect("a parameter");
    assert!(
        best.iter().all(|&v| (v - 1.0).abs() < 1e-8),
        "{best:?} after {} iterations",
        state.get_iter()
    );
    // stopped by its own criterion, not by the iteration limit
    assert_eq!(
        state.get_termination_status(),
        &TerminationStatus::Terminated(TerminationReason::SolverConverged),
        "after {} iterations",
        state.get_iter()
    );
    // one Hessian per iteration
    let problem = result.problem.problem.as_ref().expect("the problem");
    assert_eq!(problem.hessians() as u64, state.get_iter() + 1);
}
