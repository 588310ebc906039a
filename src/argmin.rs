//! [argmin](https://argmin-rs.org) problems from differentiable functions (the `argmin`
//! cargo feature).
//!
//! argmin's gradient-based solvers (L-BFGS, BFGS, conjugate gradient, steepest descent…)
//! ask a problem for its cost ([`CostFunction`]) and its gradient ([`Gradient`]) in
//! separate calls, very often at the same parameter. A [`GradientProblem`] answers both from
//! one sweep of the function's generated value-and-gradient code, and keeps the last answer,
//! so the second call at the same parameter costs a comparison, not a second sweep.
//!
//! [`argmin_problem!`](crate::argmin_problem) writes the problem in one line; the parameter
//! vector is a `Vec<f64>` (or `Vec<f32>`), argmin-math's `vec` backend:
//!
//! ```
//! use argmin::core::{Executor, State};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//! use autodiff::prelude::*;
//!
//! /// The Rosenbrock function in n dimensions: minimum 0 at (1, …, 1).
//! #[differentiable]
//! fn rosenbrock(x: &[f64]) -> f64 {
//!     let mut sum = 0.0;
//!     for i in 0..x.len() - 1 {
//!         sum += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
//!     }
//!     sum
//! }
//!
//! let problem = autodiff::argmin_problem!(rosenbrock);
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7);
//! let result = Executor::new(problem, solver)
//!     .configure(|state| state.param(vec![-1.2, 1.0, -1.2, 1.0]).max_iters(200))
//!     .run()?;
//! let best = result.state().get_best_param().expect("a parameter");
//! assert!(best.iter().all(|&x| (x - 1.0).abs() < 1e-6));
//! # Ok::<(), argmin::core::Error>(())
//! ```
//!
//! Versions: argmin 0.11 with argmin-math 0.5 (feature `vec`). argmin-math has no backend
//! for ndarray 0.17 (the version [`ndarray`](crate::ndarray) is), so the parameter is a
//! `Vec`; a differentiable function takes it as a slice, `&[f64]`.

use ::argmin::core::{CostFunction, Error, Gradient, Hessian};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// An argmin problem made of a value-and-gradient function: [`CostFunction`] and
/// [`Gradient`] from one call of it, cached for the last parameter.
///
/// `P` is the parameter (argmin's `Param`), `V` the value (`Output`), `G` the gradient. The
/// function is usually the closure of
/// [`value_and_gradients_function!`](crate::value_and_gradients_function), applied to the
/// parameter and the function's constant arguments;
/// [`argmin_problem!`](crate::argmin_problem) writes it.
///
/// ```
/// use argmin::core::{CostFunction, Gradient};
/// use autodiff::argmin::GradientProblem;
/// use autodiff::prelude::*;
///
/// /// Half the squared distance to a target.
/// #[differentiable]
/// fn distance(x: &[f64], #[no_grad] target: &[f64]) -> f64 {
///     let mut sum = 0.0;
///     for i in 0..x.len() {
///         sum += 0.5 * (x[i] - target[i]) * (x[i] - target[i]);
///     }
///     sum
/// }
///
/// let target = vec![1.0, 2.0];
/// let vg = value_and_gradients_function!(distance, params = ["x"]);
/// let problem = GradientProblem::new(move |x: &Vec<f64>| vg(x, &target));
///
/// let x = vec![3.0, 3.0];
/// assert_eq!(problem.cost(&x)?, 2.5);
/// assert_eq!(problem.gradient(&x)?, vec![2.0, 1.0]); // x - target
/// assert_eq!(problem.evaluations(), 1);              // one sweep for both
/// # Ok::<(), argmin::core::Error>(())
/// ```
pub struct GradientProblem<F, P, V, G> {
    value_and_gradient: F,
    last: Mutex<Option<(P, V, G)>>,
    evaluations: AtomicUsize,
}

impl<F, P, V, G> GradientProblem<F, P, V, G>
where
    F: Fn(&P) -> (V, G),
    P: Clone + PartialEq,
    V: Clone,
    G: Clone,
{
    /// The problem of a function returning the value and the gradient at a parameter.
    ///
    /// ```
    /// use autodiff::argmin::GradientProblem;
    /// let problem = GradientProblem::new(|x: &Vec<f64>| (x[0] * x[0], vec![2.0 * x[0]]));
    /// assert_eq!(problem.evaluations(), 0);
    /// ```
    pub fn new(value_and_gradient: F) -> Self {
        GradientProblem {
            value_and_gradient,
            last: Mutex::new(None),
            evaluations: AtomicUsize::new(0),
        }
    }

    /// The same problem with a Hessian, for argmin's second-order solvers (Newton-CG,
    /// trust regions): `hessian` gives it at a parameter, usually from
    /// [`hessian!`](crate::hessian) turned into argmin's matrix type (rows of a `Vec` for the
    /// `vec` backend, [`rows`] does it).
    ///
    /// ```
    /// use argmin::core::Hessian;
    /// use autodiff::argmin::{rows, GradientProblem};
    /// use autodiff::prelude::*;
    ///
    /// #[differentiable]
    /// fn bowl<T: Float>(x: &[T]) -> T {
    ///     x[0] * x[0] + x[0] * x[1] + T::from(3.0).unwrap() * x[1] * x[1]
    /// }
    ///
    /// let vg = value_and_gradients_function!(bowl);
    /// let h = hessian!(bowl);
    /// let problem = GradientProblem::new(move |x: &Vec<f64>| vg(x.as_slice()))
    ///     .with_hessian(move |x: &Vec<f64>| rows(&h(x.as_slice())));
    /// assert_eq!(problem.hessian(&vec![0.5, 0.5])?, vec![vec![2.0, 1.0], vec![1.0, 6.0]]);
    /// # Ok::<(), argmin::core::Error>(())
    /// ```
    pub fn with_hessian<H, M>(self, hessian: H) -> HessianProblem<F, H, P, V, G>
    where
        H: Fn(&P) -> M,
    {
        HessianProblem {
            gradient: self,
            hessian,
            hessians: AtomicUsize::new(0),
        }
    }

    /// How many times the value-and-gradient function ran (argmin's cost and gradient
    /// calls at the parameter of the last run are answered from the cache).
    ///
    /// ```
    /// use argmin::core::{CostFunction, Gradient};
    /// use autodiff::argmin::GradientProblem;
    /// let problem = GradientProblem::new(|x: &Vec<f64>| (x[0] * x[0], vec![2.0 * x[0]]));
    /// problem.cost(&vec![3.0])?;
    /// problem.gradient(&vec![3.0])?;
    /// problem.cost(&vec![1.0])?;
    /// assert_eq!(problem.evaluations(), 2);
    /// # Ok::<(), argmin::core::Error>(())
    /// ```
    pub fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::Relaxed)
    }

    /// The value and the gradient at `param`: from the cache when `param` equals the last
    /// parameter asked, else from one call of the function (then cached).
    ///
    /// ```
    /// use autodiff::argmin::GradientProblem;
    /// let problem = GradientProblem::new(|x: &Vec<f64>| (x[0] * x[0], vec![2.0 * x[0]]));
    /// assert_eq!(problem.value_and_gradient(&vec![3.0]), (9.0, vec![6.0]));
    /// ```
    pub fn value_and_gradient(&self, param: &P) -> (V, G) {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((p, v, g)) = last.as_ref() {
            if p == param {
                return (v.clone(), g.clone());
            }
        }
        let (v, g) = (self.value_and_gradient)(param);
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        *last = Some((param.clone(), v.clone(), g.clone()));
        (v, g)
    }
}

impl<F, P, V, G> CostFunction for GradientProblem<F, P, V, G>
where
    F: Fn(&P) -> (V, G),
    P: Clone + PartialEq,
    V: Clone,
    G: Clone,
{
    type Param = P;
    type Output = V;

    fn cost(&self, param: &P) -> Result<V, Error> {
        Ok(self.value_and_gradient(param).0)
    }
}

impl<F, P, V, G> Gradient for GradientProblem<F, P, V, G>
where
    F: Fn(&P) -> (V, G),
    P: Clone + PartialEq,
    V: Clone,
    G: Clone,
{
    type Param = P;
    type Gradient = G;

    fn gradient(&self, param: &P) -> Result<G, Error> {
        Ok(self.value_and_gradient(param).1)
    }
}

/// A [`GradientProblem`] with a Hessian ([`GradientProblem::with_hessian`]): argmin's
/// [`CostFunction`], [`Gradient`] (one cached sweep for both) and [`Hessian`].
pub struct HessianProblem<F, H, P, V, G> {
    gradient: GradientProblem<F, P, V, G>,
    hessian: H,
    hessians: AtomicUsize,
}

impl<F, H, P, V, G> HessianProblem<F, H, P, V, G>
where
    F: Fn(&P) -> (V, G),
    P: Clone + PartialEq,
    V: Clone,
    G: Clone,
{
    /// How many times the value-and-gradient function ran (see
    /// [`GradientProblem::evaluations`]).
    ///
    /// ```
    /// use autodiff::argmin::GradientProblem;
    /// let problem = GradientProblem::new(|x: &Vec<f64>| (x[0] * x[0], vec![2.0 * x[0]]))
    ///     .with_hessian(|_: &Vec<f64>| vec![vec![2.0]]);
    /// assert_eq!(problem.evaluations(), 0);
    /// ```
    pub fn evaluations(&self) -> usize {
        self.gradient.evaluations()
    }

    /// How many Hessians were computed.
    ///
    /// ```
    /// use argmin::core::Hessian;
    /// use autodiff::argmin::GradientProblem;
    /// let problem = GradientProblem::new(|x: &Vec<f64>| (x[0] * x[0], vec![2.0 * x[0]]))
    ///     .with_hessian(|_: &Vec<f64>| vec![vec![2.0]]);
    /// problem.hessian(&vec![1.0])?;
    /// assert_eq!(problem.hessians(), 1);
    /// # Ok::<(), argmin::core::Error>(())
    /// ```
    pub fn hessians(&self) -> usize {
        self.hessians.load(Ordering::Relaxed)
    }
}

impl<F, H, P, V, G> CostFunction for HessianProblem<F, H, P, V, G>
where
    F: Fn(&P) -> (V, G),
    P: Clone + PartialEq,
    V: Clone,
    G: Clone,
{
    type Param = P;
    type Output = V;

    /// The value, from the cached sweep.
    fn cost(&self, param: &P) -> Result<V, Error> {
        self.gradient.cost(param)
    }
}

impl<F, H, P, V, G> Gradient for HessianProblem<F, H, P, V, G>
where
    F: Fn(&P) -> (V, G),
    P: Clone + PartialEq,
    V: Clone,
    G: Clone,
{
    type Param = P;
    type Gradient = G;

    /// The gradient, from the cached sweep.
    fn gradient(&self, param: &P) -> Result<G, Error> {
        self.gradient.gradient(param)
    }
}

impl<F, H, M, P, V, G> Hessian for HessianProblem<F, H, P, V, G>
where
    H: Fn(&P) -> M,
{
    type Param = P;
    type Hessian = M;

    /// The Hessian at `param`.
    fn hessian(&self, param: &P) -> Result<M, Error> {
        self.hessians.fetch_add(1, Ordering::Relaxed);
        Ok((self.hessian)(param))
    }
}

/// An `Array2` (what [`hessian!`](crate::hessian) gives) as rows of `Vec`s, argmin-math's
/// matrix type for the `vec` backend.
///
/// ```
/// let m = autodiff::ndarray::array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(autodiff::argmin::rows(&m), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
/// ```
pub fn rows<T: Clone>(m: &crate::ndarray::Array2<T>) -> Vec<Vec<T>> {
    m.rows().into_iter().map(|r| r.to_vec()).collect()
}

/// An argmin problem ([`GradientProblem`]) from a `#[differentiable]` function, in one
/// line; the parameter vector is a `Vec`.
///
/// - `argmin_problem!(f)`: `f` takes the parameter vector (as `&[f64]`) and nothing else.
/// - `argmin_problem!(|x| f(x, &a, &b))`: `f` with its other arguments; `x` stands for the
///   parameter, and the variables the arguments name are moved into the problem (as into a
///   `move` closure).
/// - `…, params = ["x"]` after either: the parameter's name (or position) in `f`, when `f`
///   has more than one differentiable parameter (as in
///   [`value_and_gradients_function!`](crate::value_and_gradients_function)).
///
/// ```
/// use argmin::core::{CostFunction, Gradient};
/// use autodiff::argmin_problem;
/// use autodiff::prelude::*;
///
/// /// The mean squared error of a line through the points.
/// #[differentiable]
/// fn mse(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
///     let mut sum = 0.0;
///     for i in 0..xs.len() {
///         let r = w[0] * xs[i] + w[1] - ys[i];
///         sum += r * r;
///     }
///     sum / xs.len() as f64
/// }
///
/// let (xs, ys) = (vec![0.0, 1.0, 2.0], vec![1.0, 3.0, 5.0]);
/// let problem = argmin_problem!(|w| mse(w, &xs, &ys), params = ["w"]);
/// assert_eq!(problem.cost(&vec![2.0, 1.0])?, 0.0);      // y = 2x + 1 fits exactly
/// assert_eq!(problem.gradient(&vec![2.0, 1.0])?, vec![0.0, 0.0]);
/// assert_eq!(problem.evaluations(), 1);
/// # Ok::<(), argmin::core::Error>(())
/// ```
#[macro_export]
macro_rules! argmin_problem {
    (|$x:ident| $f:ident ( $($arg:expr),* $(,)? ) $(, params = [$($p:tt)*])? $(,)?) => {{
        let __value_and_gradients =
            $crate::value_and_gradients_function!($f $(, params = [$($p)*])?);
        $crate::argmin::GradientProblem::new(
            move |$x: &::std::vec::Vec<_>| __value_and_gradients($($arg),*),
        )
    }};
    ($f:ident $(, params = [$($p:tt)*])? $(,)?) => {{
        let __value_and_gradients =
            $crate::value_and_gradients_function!($f $(, params = [$($p)*])?);
        $crate::argmin::GradientProblem::new(
            move |x: &::std::vec::Vec<_>| __value_and_gradients(x.as_slice()),
        )
    }};
}
