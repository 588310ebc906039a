//! Optimizers: they take the `(gradient, variable)` pairs of the implicit helpers directly
//! (`apply_gradients`), or update explicit parameters with their gradient (`step`).
//!
//! ```
//! use autodiff_runtime::optim::{Optimizer, Sgd};
//! let mut w = vec![1.0_f64, -2.0];
//! let mut sgd = Sgd::new(0.25);
//! for _ in 0..100 {
//!     let grad: Vec<f64> = w.iter().map(|x| 2.0 * x).collect(); // d/dw |w|²
//!     sgd.step(&mut w, &grad);
//! }
//! assert!(w.iter().all(|x| x.abs() < 1e-12));
//! ```

use crate::implicit::{Gradients, Parameter};
use crate::VariableId;
use std::collections::HashMap;

#[cfg(feature = "serde")]
mod checkpoint;

/// A learning rate as a function of the step number (starting at 1).
pub trait Schedule {
    /// The learning rate at `step`.
    fn rate(&self, step: u64) -> f64;
}

/// A constant learning rate.
///
/// ```
/// use autodiff_runtime::optim::Schedule;
/// assert_eq!(0.1.rate(7), 0.1);
/// ```
impl Schedule for f64 {
    fn rate(&self, _: u64) -> f64 {
        *self
    }
}

/// `initial · decay^(step / every)`.
///
/// ```
/// use autodiff_runtime::optim::{ExponentialDecay, Schedule};
/// let s = ExponentialDecay { initial: 1.0, decay: 0.5, every: 10 };
/// assert_eq!(s.rate(20), 0.25);
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug)]
pub struct ExponentialDecay {
    /// The rate at step 0.
    pub initial: f64,
    /// The factor applied every `every` steps.
    pub decay: f64,
    /// The number of steps per factor.
    pub every: u64,
}

impl Schedule for ExponentialDecay {
    fn rate(&self, step: u64) -> f64 {
        self.initial * self.decay.powf(step as f64 / self.every as f64)
    }
}

/// Cosine decay from `initial` to `initial · floor` over `steps` steps, then constant.
///
/// ```
/// use autodiff_runtime::optim::{CosineDecay, Schedule};
/// let s = CosineDecay { initial: 1.0, steps: 100, floor: 0.0 };
/// assert_eq!(s.rate(0), 1.0);
/// assert!(s.rate(100).abs() < 1e-15);
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug)]
pub struct CosineDecay {
    /// The rate at step 0.
    pub initial: f64,
    /// The length of the decay.
    pub steps: u64,
    /// The final rate, as a fraction of `initial`.
    pub floor: f64,
}

impl Schedule for CosineDecay {
    fn rate(&self, step: u64) -> f64 {
        let t = (step.min(self.steps)) as f64 / self.steps as f64;
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * t).cos());
        self.initial * ((1.0 - self.floor) * cosine + self.floor)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Variable(VariableId),
    Explicit,
}

/// The per-element update of an optimizer: `buffers` state values per element.
trait Rule {
    const BUFFERS: usize;
    /// The new value of an element `w` with gradient `g`, at learning rate `lr` and step `t`.
    fn update(&self, lr: f64, t: u64, w: f64, g: f64, state: &mut [f64]) -> f64;
}

/// Step count, schedule and state shared by the optimizers.
#[derive(Debug)]
struct Core<S> {
    schedule: S,
    step: u64,
    state: HashMap<Key, Vec<f64>>,
    /// What a checkpoint calls each variable of `state` (see `checkpoint`).
    #[cfg(feature = "serde")]
    origins: HashMap<VariableId, crate::persist::VariableOrigin>,
    /// Loaded state not bound to a variable yet, by the origin it was saved for.
    #[cfg(feature = "serde")]
    loaded: HashMap<crate::persist::VariableOrigin, Vec<f64>>,
}

impl<S: Schedule> Core<S> {
    fn new(schedule: S) -> Self {
        Core {
            schedule,
            step: 0,
            state: HashMap::new(),
            #[cfg(feature = "serde")]
            origins: HashMap::new(),
            #[cfg(feature = "serde")]
            loaded: HashMap::new(),
        }
    }

    fn apply<R: Rule>(&mut self, rule: &R, grads: &Gradients) {
        self.step += 1;
        let (lr, t) = (self.schedule.rate(self.step), self.step);
        for (g, v) in grads {
            #[cfg(feature = "serde")]
            self.bind(v);
            let n = v.num_elements();
            let state = self
                .state
                .entry(Key::Variable(v.id()))
                .or_insert_with(|| vec![0.0; n * R::BUFFERS]);
            v.update(g, &mut |k, w, gk| {
                rule.update(
                    lr,
                    t,
                    w,
                    gk,
                    &mut state[k * R::BUFFERS..(k + 1) * R::BUFFERS],
                )
            });
        }
    }

    fn step<R: Rule, P: Parameter>(&mut self, rule: &R, params: &mut P, grad: &P::Tangent) {
        self.step += 1;
        let (lr, t) = (self.schedule.rate(self.step), self.step);
        let n = params.num_elements();
        let state = self
            .state
            .entry(Key::Explicit)
            .or_insert_with(|| vec![0.0; n * R::BUFFERS]);
        assert_eq!(
            state.len(),
            n * R::BUFFERS,
            "this optimizer was used with parameters of {} elements before, now {n}: use one \
            optimizer per set of parameters",
            state.len() / R::BUFFERS.max(1)
        );
        params.update_elements(grad, &mut |k, w, gk| {
            rule.update(
                lr,
                t,
                w,
                gk,
                &mut state[k * R::BUFFERS..(k + 1) * R::BUFFERS],
            )
        });
    }
}

/// What every optimizer does.
pub trait Optimizer {
    /// Updates every variable of `grads` (the implicit helpers' pairs).
    fn apply_gradients(&mut self, grads: &Gradients);
    /// Updates explicit parameters (a number, a `Vec`, …) with their gradient.
    fn step<P: Parameter>(&mut self, params: &mut P, grad: &P::Tangent);
}

macro_rules! optimizer {
    ($name:ident, $rule:ident) => {
        impl<S: Schedule> Optimizer for $name<S> {
            fn apply_gradients(&mut self, grads: &Gradients) {
                self.core.apply(&self.rule, grads);
            }
            fn step<P: Parameter>(&mut self, params: &mut P, grad: &P::Tangent) {
                self.core.step(&self.rule, params, grad);
            }
        }

        impl<S: Schedule> $name<S> {
            /// Updates every variable of `grads` (see [`Optimizer::apply_gradients`]).
            pub fn apply_gradients(&mut self, grads: &Gradients) {
                Optimizer::apply_gradients(self, grads)
            }
            /// Updates explicit parameters (see [`Optimizer::step`]).
            pub fn step<P: Parameter>(&mut self, params: &mut P, grad: &P::Tangent) {
                Optimizer::step(self, params, grad)
            }
        }
    };
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug)]
struct SgdRule {
    momentum: f64,
    nesterov: bool,
    weight_decay: f64,
}

impl Rule for SgdRule {
    const BUFFERS: usize = 1;
    fn update(&self, lr: f64, _: u64, w: f64, g: f64, state: &mut [f64]) -> f64 {
        let g = g + self.weight_decay * w;
        if self.momentum == 0.0 {
            return w - lr * g;
        }
        state[0] = self.momentum * state[0] + g;
        let direction = if self.nesterov {
            g + self.momentum * state[0]
        } else {
            state[0]
        };
        w - lr * direction
    }
}

/// Stochastic gradient descent, with optional momentum (and Nesterov's form of it) and
/// L2 weight decay (PyTorch's conventions).
///
/// ```
/// use autodiff_runtime::optim::Sgd;
/// let mut w = 1.0_f64;
/// let mut sgd = Sgd::new(0.1).momentum(0.9).nesterov(true);
/// for _ in 0..200 {
///     let g = 2.0 * w;
///     sgd.step(&mut w, &g);
/// }
/// assert!(w.abs() < 1e-6);
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub struct Sgd<S = f64> {
    core: Core<S>,
    rule: SgdRule,
}

impl<S: Schedule> Sgd<S> {
    /// Plain gradient descent with learning rate (or schedule) `lr`.
    ///
    /// ```
    /// use autodiff_runtime::optim::Sgd;
    /// let mut w = vec![1.0_f64, -2.0];
    /// Sgd::new(0.5).step(&mut w, &vec![2.0, -4.0]); // w − 0.5·g
    /// assert_eq!(w, vec![0.0, 0.0]);
    /// ```
    pub fn new(lr: S) -> Self {
        Sgd {
            core: Core::new(lr),
            rule: SgdRule {
                momentum: 0.0,
                nesterov: false,
                weight_decay: 0.0,
            },
        }
    }
    /// Heavy-ball momentum `μ`: the step is the velocity `v ← μ v + g`.
    ///
    /// ```
    /// use autodiff_runtime::optim::Sgd;
    /// let mut sgd = Sgd::new(1.0).momentum(0.5);
    /// let mut w = 0.0_f64;
    /// sgd.step(&mut w, &1.0); // v = 1
    /// sgd.step(&mut w, &1.0); // v = 0.5·1 + 1
    /// assert_eq!(w, -2.5);
    /// ```
    pub fn momentum(mut self, momentum: f64) -> Self {
        self.rule.momentum = momentum;
        self
    }
    /// Nesterov's momentum (needs a nonzero momentum): the step looks ahead, `g + μ v`.
    ///
    /// ```
    /// use autodiff_runtime::optim::Sgd;
    /// let mut sgd = Sgd::new(1.0).momentum(0.5).nesterov(true);
    /// let mut w = 0.0_f64;
    /// sgd.step(&mut w, &1.0); // v = 1, step g + μ v = 1.5
    /// assert_eq!(w, -1.5);
    /// ```
    pub fn nesterov(mut self, nesterov: bool) -> Self {
        self.rule.nesterov = nesterov;
        self
    }
    /// L2 weight decay `λ` (adds `λ w` to the gradient).
    ///
    /// ```
    /// use autodiff_runtime::optim::Sgd;
    /// let mut w = 2.0_f64;
    /// Sgd::new(0.5).weight_decay(0.1).step(&mut w, &0.0); // g + λ w = 0.2
    /// assert!((w - 1.9).abs() < 1e-15);
    /// ```
    pub fn weight_decay(mut self, weight_decay: f64) -> Self {
        self.rule.weight_decay = weight_decay;
        self
    }
}
optimizer!(Sgd, SgdRule);

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug)]
struct AdamRule {
    beta1: f64,
    beta2: f64,
    epsilon: f64,
    weight_decay: f64,
    decoupled: bool,
}

impl Rule for AdamRule {
    const BUFFERS: usize = 2;
    fn update(&self, lr: f64, t: u64, w: f64, g: f64, state: &mut [f64]) -> f64 {
        let g = if self.decoupled {
            g
        } else {
            g + self.weight_decay * w
        };
        state[0] = self.beta1 * state[0] + (1.0 - self.beta1) * g;
        state[1] = self.beta2 * state[1] + (1.0 - self.beta2) * g * g;
        let m = state[0] / (1.0 - self.beta1.powi(t as i32));
        let v = state[1] / (1.0 - self.beta2.powi(t as i32));
        let w = if self.decoupled {
            w - lr * self.weight_decay * w
        } else {
            w
        };
        w - lr * m / (v.sqrt() + self.epsilon)
    }
}

/// Adam (Kingma & Ba), with bias correction; `β₁ = 0.9`, `β₂ = 0.999`, `ε = 1e-8` by
/// default. `AdamW` is Adam with decoupled weight decay.
///
/// ```
/// use autodiff_runtime::optim::Adam;
/// let mut w = vec![3.0_f64, -1.0];
/// let mut adam = Adam::new(0.1);
/// for _ in 0..500 {
///     let g: Vec<f64> = w.iter().map(|x| 2.0 * (x - 1.0)).collect();
///     adam.step(&mut w, &g);
/// }
/// assert!(w.iter().all(|x| (x - 1.0).abs() < 1e-3));
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub struct Adam<S = f64> {
    core: Core<S>,
    rule: AdamRule,
}

/// Adam with decoupled weight decay (Loshchilov & Hutter).
pub type AdamW<S = f64> = Adam<S>;

impl<S: Schedule> Adam<S> {
    /// Adam with learning rate (or schedule) `lr` (`β₁ = 0.9`, `β₂ = 0.999`, `ε = 1e-8`).
    ///
    /// ```
    /// use autodiff_runtime::optim::Adam;
    /// let mut w = 1.0_f64;
    /// Adam::new(0.1).step(&mut w, &3.0); // the first step is lr·sign(g) (bias-corrected)
    /// assert!((w - 0.9).abs() < 1e-6);
    /// ```
    pub fn new(lr: S) -> Self {
        Adam {
            core: Core::new(lr),
            rule: AdamRule {
                beta1: 0.9,
                beta2: 0.999,
                epsilon: 1e-8,
                weight_decay: 0.0,
                decoupled: false,
            },
        }
    }
    /// AdamW: Adam with decoupled weight decay `λ` (`w -= lr λ w` each step).
    ///
    /// ```
    /// let adamw = autodiff_runtime::optim::Adam::adamw(1e-3, 1e-2);
    /// # let _ = adamw;
    /// ```
    pub fn adamw(lr: S, weight_decay: f64) -> Self {
        let mut a = Self::new(lr);
        a.rule.weight_decay = weight_decay;
        a.rule.decoupled = true;
        a
    }
    /// The moment decay rates `β₁`, `β₂`.
    ///
    /// ```
    /// let adam = autodiff_runtime::optim::Adam::new(1e-3).betas(0.8, 0.99);
    /// # let _ = adam;
    /// ```
    pub fn betas(mut self, beta1: f64, beta2: f64) -> Self {
        self.rule.beta1 = beta1;
        self.rule.beta2 = beta2;
        self
    }
    /// The denominator's `ε`.
    ///
    /// ```
    /// let adam = autodiff_runtime::optim::Adam::new(1e-3).epsilon(1e-6);
    /// # let _ = adam;
    /// ```
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.rule.epsilon = epsilon;
        self
    }
    /// L2 weight decay `λ`, added to the gradient (use [`adamw`](Self::adamw) for the
    /// decoupled form).
    ///
    /// ```
    /// let adam = autodiff_runtime::optim::Adam::new(1e-3).weight_decay(1e-4);
    /// # let _ = adam;
    /// ```
    pub fn weight_decay(mut self, weight_decay: f64) -> Self {
        self.rule.weight_decay = weight_decay;
        self
    }
}
optimizer!(Adam, AdamRule);

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug)]
struct RmsPropRule {
    rho: f64,
    epsilon: f64,
}

impl Rule for RmsPropRule {
    const BUFFERS: usize = 1;
    fn update(&self, lr: f64, _: u64, w: f64, g: f64, state: &mut [f64]) -> f64 {
        state[0] = self.rho * state[0] + (1.0 - self.rho) * g * g;
        w - lr * g / (state[0].sqrt() + self.epsilon)
    }
}

/// RMSProp: gradient divided by a running root mean square (`ρ = 0.9`, `ε = 1e-8`).
///
/// ```
/// use autodiff_runtime::optim::RmsProp;
/// let mut w = 2.0_f64;
/// let mut opt = RmsProp::new(0.01);
/// for _ in 0..1000 {
///     let g = 2.0 * w;
///     opt.step(&mut w, &g);
/// }
/// assert!(w.abs() < 0.05);
/// ```
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub struct RmsProp<S = f64> {
    core: Core<S>,
    rule: RmsPropRule,
}

impl<S: Schedule> RmsProp<S> {
    /// RMSProp with learning rate (or schedule) `lr` (`ρ = 0.9`, `ε = 1e-8`).
    ///
    /// ```
    /// use autodiff_runtime::optim::RmsProp;
    /// let mut w = 1.0_f64;
    /// RmsProp::new(0.01).step(&mut w, &2.0); // g / √((1 − ρ) g²) = 1/√0.1
    /// assert!((w - (1.0 - 0.01 / 0.1_f64.sqrt())).abs() < 1e-6);
    /// ```
    pub fn new(lr: S) -> Self {
        RmsProp {
            core: Core::new(lr),
            rule: RmsPropRule {
                rho: 0.9,
                epsilon: 1e-8,
            },
        }
    }
    /// The decay rate `ρ` of the running mean square.
    ///
    /// ```
    /// let rms = autodiff_runtime::optim::RmsProp::new(1e-3).rho(0.99);
    /// # let _ = rms;
    /// ```
    pub fn rho(mut self, rho: f64) -> Self {
        self.rule.rho = rho;
        self
    }
}
optimizer!(RmsProp, RmsPropRule);
