//! Implicit variable capture: `implicit_gradients(f)` and `implicit_value_and_gradients(f)`.
//!
//! Every differentiable entry point (an annotated function called from ordinary code, a
//! `differentiable!` closure) first checks a thread-local flag. When a helper has set it,
//! the entry point runs its forward and reverse sweeps inside the call, its reverse sweep
//! deposits the gradient of every variable it read into this thread's request, and it
//! returns its value as usual. The helper then checks that exactly one entry point
//! answered and that the callable returned exactly that value, and hands out the
//! gradients. Nothing is shared between threads: two threads computing gradients at once
//! never see each other's variables.

use crate::select::ScalarOutput;
use crate::variable::{Inner, Variable, VariableId};
use crate::Differentiable;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::Arc;

/// A tangent that can be stored type-erased: summed, scaled, cloned, shown.
pub trait TangentValue: crate::Accumulate + Clone + Send + Sync + fmt::Debug + 'static {
    /// `self *= factor`.
    fn scale(&mut self, factor: f64);

    /// The value as handed to the caller: a float `−0.0` (the zero reverse sweeps start
    /// adjoints from) becomes `0.0`.
    #[doc(hidden)]
    fn normalized(self) -> Self {
        self
    }
}

impl TangentValue for f64 {
    fn scale(&mut self, factor: f64) {
        *self *= factor;
    }
    fn normalized(self) -> Self {
        self + 0.0
    }
}

impl TangentValue for f32 {
    fn scale(&mut self, factor: f64) {
        *self = (f64::from(*self) * factor) as f32;
    }
    fn normalized(self) -> Self {
        self + 0.0
    }
}

impl<T: TangentValue> TangentValue for Vec<T> {
    fn scale(&mut self, factor: f64) {
        self.iter_mut().for_each(|x| x.scale(factor));
    }
}

trait ErasedTangent: Send + Sync + fmt::Debug {
    fn add(&mut self, other: &dyn Any);
    fn scale(&mut self, factor: f64);
    fn clone_box(&self) -> Box<dyn ErasedTangent>;
    fn as_any(&self) -> &dyn Any;
}

impl<T: TangentValue> ErasedTangent for T {
    fn add(&mut self, other: &dyn Any) {
        if let Some(o) = other.downcast_ref::<T>() {
            self.accumulate(o.clone());
        }
    }
    fn scale(&mut self, factor: f64) {
        TangentValue::scale(self, factor);
    }
    fn clone_box(&self) -> Box<dyn ErasedTangent> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A gradient, of whatever type the variable's tangent is.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let grads = implicit_gradients(&f)(2.0);
/// assert_eq!(grads[0].0.to_scalar::<f64>(), 2.0);
/// ```
pub struct Gradient(Box<dyn ErasedTangent>);

impl Gradient {
    fn new<T: TangentValue>(value: T) -> Self {
        Gradient(Box::new(value))
    }

    /// Adds `other`, a gradient of the same type.
    pub(crate) fn add(&mut self, other: &Gradient) {
        self.0.add(other.0.as_any());
    }

    /// The gradient as a value of type `T`, if it is one.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// let grads = implicit_gradients(&f)(2.0);
    /// assert_eq!(grads[0].0.downcast_ref::<f64>(), Some(&2.0));
    /// assert_eq!(grads[0].0.downcast_ref::<f32>(), None);
    /// ```
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }

    /// The gradient of a scalar variable. Panics, naming both types, if it is not a `T`.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert_eq!(implicit_gradients(&f)(2.0)[0].0.to_scalar::<f64>(), 2.0);
    /// ```
    #[track_caller]
    pub fn to_scalar<T: Copy + 'static>(&self) -> T {
        self.to_value::<T>()
    }

    /// The gradient as an owned value of type `T` (an array for an array variable).
    /// Panics, naming both types, if it is not a `T`.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert_eq!(implicit_gradients(&f)(2.0)[0].0.to_value::<f64>(), 2.0);
    /// ```
    #[track_caller]
    pub fn to_value<T: Clone + 'static>(&self) -> T {
        match self.downcast_ref::<T>() {
            Some(v) => v.clone(),
            None => panic!(
                "this gradient is a {:?}, not a `{}`",
                self.0,
                std::any::type_name::<T>()
            ),
        }
    }
}

impl Clone for Gradient {
    fn clone(&self) -> Self {
        Gradient(self.0.clone_box())
    }
}

impl fmt::Debug for Gradient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an optimizer needs of a variable's value: elementwise access, with the gradient
/// alongside. Implemented for `f32`, `f64`, `Vec`s and ndarray arrays of them, and by
/// `#[derive(Differentiable)]`.
pub trait Parameter: Differentiable + Send + Sync + 'static {
    /// The number of scalar elements.
    fn num_elements(&self) -> usize;
    /// Calls `f(k, value_k, gradient_k)` for every element `k` and stores what it returns.
    fn update_elements(&mut self, grad: &Self::Tangent, f: &mut dyn FnMut(usize, f64, f64) -> f64);
    /// Calls `f(k, gradient_k)` for every element of a gradient.
    fn visit_gradient(grad: &Self::Tangent, f: &mut dyn FnMut(usize, f64));
    /// Scales a gradient in place.
    fn scale_gradient(grad: &mut Self::Tangent, factor: f64);
}

macro_rules! scalar_parameter {
    ($($t:ty),*) => {$(
        impl Parameter for $t {
            fn num_elements(&self) -> usize {
                1
            }
            fn update_elements(&mut self, grad: &$t, f: &mut dyn FnMut(usize, f64, f64) -> f64) {
                *self = f(0, f64::from(*self), f64::from(*grad)) as $t;
            }
            fn visit_gradient(grad: &$t, f: &mut dyn FnMut(usize, f64)) {
                f(0, f64::from(*grad));
            }
            fn scale_gradient(grad: &mut $t, factor: f64) {
                *grad = (f64::from(*grad) * factor) as $t;
            }
        }

    )*};
}
scalar_parameter!(f32, f64);

/// A `Vec` of parameters (numbers, arrays, derived layers): its elements one after another.
impl<T: Parameter> Parameter for Vec<T> {
    fn num_elements(&self) -> usize {
        self.iter().map(Parameter::num_elements).sum()
    }
    fn update_elements(
        &mut self,
        grad: &Vec<T::Tangent>,
        f: &mut dyn FnMut(usize, f64, f64) -> f64,
    ) {
        assert_eq!(
            self.len(),
            grad.len(),
            "gradient of length {} for a parameter of length {}",
            grad.len(),
            self.len()
        );
        let mut offset = 0;
        for (v, g) in self.iter_mut().zip(grad) {
            let n = v.num_elements();
            v.update_elements(g, &mut |k, v, g| f(offset + k, v, g));
            offset += n;
        }
    }
    fn visit_gradient(grad: &Vec<T::Tangent>, f: &mut dyn FnMut(usize, f64)) {
        let mut offset = 0;
        for g in grad {
            let mut seen = 0;
            T::visit_gradient(g, &mut |k, g| {
                seen = seen.max(k + 1);
                f(offset + k, g);
            });
            offset += seen;
        }
    }
    fn scale_gradient(grad: &mut Vec<T::Tangent>, factor: f64) {
        grad.iter_mut().for_each(|g| T::scale_gradient(g, factor));
    }
}

macro_rules! array_parameter {
    ($($t:ty),*) => {$(
        impl<D: ndarray::Dimension + Send + Sync + 'static> Parameter for ndarray::Array<$t, D> {
            fn num_elements(&self) -> usize {
                self.len()
            }
            fn update_elements(
                &mut self,
                grad: &ndarray::Array<$t, D>,
                f: &mut dyn FnMut(usize, f64, f64) -> f64,
            ) {
                assert_eq!(
                    self.shape(),
                    grad.shape(),
                    "gradient of shape {:?} for a parameter of shape {:?}",
                    grad.shape(),
                    self.shape()
                );
                for (k, (v, g)) in self.iter_mut().zip(grad.iter()).enumerate() {
                    *v = f(k, f64::from(*v), f64::from(*g)) as $t;
                }
            }
            fn visit_gradient(grad: &ndarray::Array<$t, D>, f: &mut dyn FnMut(usize, f64)) {
                grad.iter().enumerate().for_each(|(k, g)| f(k, f64::from(*g)));
            }
            fn scale_gradient(grad: &mut ndarray::Array<$t, D>, factor: f64) {
                grad.mapv_inplace(|g| (f64::from(g) * factor) as $t);
            }
        }

        impl<D: ndarray::Dimension + Send + Sync + 'static> TangentValue for ndarray::Array<$t, D> {
            fn scale(&mut self, factor: f64) {
                self.mapv_inplace(|g| (f64::from(g) * factor) as $t);
            }
        }
    )*};
}
array_parameter!(f32, f64);

trait ErasedVariable: Send + Sync {
    fn id(&self) -> VariableId;
    fn name(&self) -> Option<String>;
    fn num_elements(&self) -> usize;
    fn update(&self, grad: &Gradient, f: &mut dyn FnMut(usize, f64, f64) -> f64);
    fn visit_gradient(&self, grad: &Gradient, f: &mut dyn FnMut(usize, f64));
    fn scale_gradient(&self, grad: &mut Gradient, factor: f64);
    #[cfg(feature = "serde")]
    fn origin(&self) -> crate::persist::VariableOrigin;
}

// Implemented for the variable's shared state itself, so a `VariableRef` is the variable's
// own `Arc`, cloned: no allocation per gradient pair.
impl<T: Parameter + Clone> ErasedVariable for Inner<T>
where
    T::Tangent: TangentValue,
{
    fn id(&self) -> VariableId {
        self.id
    }
    fn name(&self) -> Option<String> {
        self.name.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    fn num_elements(&self) -> usize {
        self.value
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .num_elements()
    }
    fn update(&self, grad: &Gradient, f: &mut dyn FnMut(usize, f64, f64) -> f64) {
        let g = grad
            .downcast_ref::<T::Tangent>()
            .expect("a gradient of this variable's tangent type");
        let mut guard = self.value.write().unwrap_or_else(|e| e.into_inner());
        Arc::make_mut(&mut guard).update_elements(g, f);
    }
    fn visit_gradient(&self, grad: &Gradient, f: &mut dyn FnMut(usize, f64)) {
        let g = grad
            .downcast_ref::<T::Tangent>()
            .expect("a gradient of this variable's tangent type");
        T::visit_gradient(g, f);
    }
    fn scale_gradient(&self, grad: &mut Gradient, factor: f64) {
        grad.0.scale(factor);
    }
    #[cfg(feature = "serde")]
    fn origin(&self) -> crate::persist::VariableOrigin {
        Inner::origin(self)
    }
}

/// A type-erased handle naming a variable: the second element of each gradient pair.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Variable};
/// let w = Variable::new(3.0_f64).with_name("w");
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let grads = implicit_gradients(&f)(2.0);
/// assert!(grads[0].1.is(&w));
/// assert_eq!(grads[0].1.name().as_deref(), Some("w"));
/// ```
#[derive(Clone)]
pub struct VariableRef(Arc<dyn ErasedVariable>);

impl VariableRef {
    pub(crate) fn of<T: Parameter + Clone>(v: &Variable<T>) -> Self
    where
        T::Tangent: TangentValue,
    {
        VariableRef(Arc::clone(&v.inner) as Arc<dyn ErasedVariable>)
    }

    /// Whether this names `variable`.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert!(implicit_gradients(&f)(2.0)[0].1.is(&w.clone()));
    /// ```
    pub fn is<T: Send + Sync + 'static>(&self, variable: &Variable<T>) -> bool {
        self.0.id() == variable.id()
    }

    /// The variable's identity.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert_eq!(implicit_gradients(&f)(2.0)[0].1.id(), w.id());
    /// ```
    pub fn id(&self) -> VariableId {
        self.0.id()
    }

    /// The variable's name, if it has one.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert_eq!(implicit_gradients(&f)(2.0)[0].1.name(), None);
    /// ```
    pub fn name(&self) -> Option<String> {
        self.0.name()
    }

    /// The number of scalar elements of the variable's value.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert_eq!(implicit_gradients(&f)(2.0)[0].1.num_elements(), 1);
    /// ```
    pub fn num_elements(&self) -> usize {
        self.0.num_elements()
    }

    /// Replaces every element `v_k` of the value by `f(k, v_k, g_k)`, `g` being `grad`
    /// (what optimizers do).
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// let grads = implicit_gradients(&f)(2.0);
    /// let (g, v) = &grads[0];
    /// v.update(g, &mut |_, value, grad| value - 0.5 * grad);
    /// assert_eq!(w.get(), 2.0);
    /// ```
    pub fn update(&self, grad: &Gradient, f: &mut dyn FnMut(usize, f64, f64) -> f64) {
        self.0.update(grad, f)
    }

    /// Calls `f(k, g_k)` for every element of `grad`, a gradient of this variable.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// let grads = implicit_gradients(&f)(2.0);
    /// let mut sum = 0.0;
    /// grads[0].1.visit_gradient(&grads[0].0, &mut |_, g| sum += g);
    /// assert_eq!(sum, 2.0);
    /// ```
    pub fn visit_gradient(&self, grad: &Gradient, f: &mut dyn FnMut(usize, f64)) {
        self.0.visit_gradient(grad, f)
    }

    pub(crate) fn scale_gradient(&self, grad: &mut Gradient, factor: f64) {
        self.0.scale_gradient(grad, factor)
    }

    /// What a checkpoint records as the variable's identity.
    #[cfg(feature = "serde")]
    pub(crate) fn origin(&self) -> crate::persist::VariableOrigin {
        self.0.origin()
    }
}

impl fmt::Debug for VariableRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "Variable({n})"),
            None => write!(f, "Variable(#{:?})", self.id()),
        }
    }
}

/// The result of the implicit helpers: one `(gradient, variable)` pair for each distinct
/// trainable variable read, in the variables' construction order, gradients of repeated
/// reads summed.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let grads = implicit_gradients(&f)(2.0);
/// assert_eq!(grads.len(), 1);
/// assert_eq!(grads.get(&w), Some(2.0));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Gradients {
    pub(crate) pairs: Vec<(Gradient, VariableRef)>,
}

impl Gradients {
    /// The number of pairs.
    ///
    /// ```
    /// assert_eq!(autodiff_runtime::Gradients::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there is no pair.
    ///
    /// ```
    /// assert!(autodiff_runtime::Gradients::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pairs, in construction order of the variables.
    ///
    /// ```
    /// assert_eq!(autodiff_runtime::Gradients::default().iter().count(), 0);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, (Gradient, VariableRef)> {
        self.pairs.iter()
    }

    /// Mutable access to the pairs (to clip or scale gradients before applying them).
    ///
    /// ```
    /// assert_eq!(autodiff_runtime::Gradients::default().iter_mut().count(), 0);
    /// ```
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, (Gradient, VariableRef)> {
        self.pairs.iter_mut()
    }

    /// The gradient of `variable`, typed; `None` if it was not read (or is not trainable).
    ///
    /// ```
    /// use autodiff_runtime::{implicit_gradients, Variable};
    /// let (w, unused) = (Variable::new(3.0_f64), Variable::new(1.0_f64));
    /// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// let grads = implicit_gradients(&f)(2.0);
    /// assert_eq!(grads.get(&w), Some(2.0));
    /// assert_eq!(grads.get(&unused), None);
    /// ```
    pub fn get<T: Differentiable + Send + Sync + 'static>(
        &self,
        variable: &Variable<T>,
    ) -> Option<T::Tangent>
    where
        T::Tangent: 'static,
    {
        self.pairs
            .iter()
            .find(|(_, v)| v.is(variable))
            .and_then(|(g, _)| g.downcast_ref::<T::Tangent>().cloned())
    }

    /// Multiplies every gradient by `factor`.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// let mut grads = implicit_gradients(&f)(2.0);
    /// grads.scale(0.5);
    /// assert_eq!(grads.get(&w), Some(1.0));
    /// ```
    pub fn scale(&mut self, factor: f64) {
        for (g, v) in &mut self.pairs {
            v.scale_gradient(g, factor);
        }
    }

    /// The Euclidean norm of all gradients together.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// assert_eq!(implicit_gradients(&f)(2.0).global_norm(), 2.0);
    /// ```
    pub fn global_norm(&self) -> f64 {
        let mut sum = 0.0;
        for (g, v) in &self.pairs {
            v.visit_gradient(g, &mut |_, x| sum += x * x);
        }
        sum.sqrt()
    }

    /// Scales all gradients down so that their [`global_norm`](Self::global_norm) is at
    /// most `max_norm` (TensorFlow's `clip_by_global_norm`); returns the norm before.
    ///
    /// ```
    /// # use autodiff_runtime::{implicit_gradients, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// # let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
    /// let mut grads = implicit_gradients(&f)(2.0);
    /// assert_eq!(grads.clip_by_global_norm(0.5), 2.0);
    /// assert_eq!(grads.get(&w), Some(0.5));
    /// ```
    pub fn clip_by_global_norm(&mut self, max_norm: f64) -> f64 {
        let norm = self.global_norm();
        if norm > max_norm && norm > 0.0 {
            self.scale(max_norm / norm);
        }
        norm
    }

    pub(crate) fn from_sink(sink: Sink) -> Self {
        Gradients {
            pairs: sink.variables.into_values().collect(),
        }
    }
}

impl std::ops::Index<usize> for Gradients {
    type Output = (Gradient, VariableRef);
    fn index(&self, i: usize) -> &Self::Output {
        &self.pairs[i]
    }
}

impl<'a> IntoIterator for &'a Gradients {
    type Item = &'a (Gradient, VariableRef);
    type IntoIter = std::slice::Iter<'a, (Gradient, VariableRef)>;
    fn into_iter(self) -> Self::IntoIter {
        self.pairs.iter()
    }
}

/// Which variables a request collects gradients for.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    pub(crate) accessed_trainable: bool,
    pub(crate) watched: HashSet<VariableId>,
}

/// Where the reverse sweeps of one request deposit their gradients.
#[derive(Default)]
pub(crate) struct Sink {
    pub(crate) variables: BTreeMap<VariableId, (Gradient, VariableRef)>,
    /// Gradients with respect to recorded results of a tape (chaining).
    pub(crate) recorded: BTreeMap<u64, f64>,
    /// Every variable read, collected or not (for the "no trainable variable" message).
    pub(crate) read_any: bool,
}

pub(crate) struct Request {
    pub(crate) filter: Filter,
    pub(crate) answers: usize,
    pub(crate) value: Option<Box<dyn Any>>,
    pub(crate) sink: Sink,
    answering: bool,
}

thread_local! {
    static REQUESTED: Cell<bool> = const { Cell::new(false) };
    static REQUEST: RefCell<Option<Request>> = const { RefCell::new(None) };
}

/// Whether a helper is waiting for an entry point to answer (one thread-local read).
#[doc(hidden)]
#[inline(always)]
pub fn requested() -> bool {
    REQUESTED.with(Cell::get)
}

/// Runs `call` under a fresh request; returns its result and the request.
pub(crate) fn with_request<R>(filter: Filter, call: impl FnOnce() -> R) -> (R, Request) {
    struct Restore(Option<Request>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            REQUEST.with(|r| *r.borrow_mut() = outer);
            REQUESTED.with(|r| r.set(self.1));
        }
    }
    let outer = REQUEST.with(|r| {
        r.borrow_mut().replace(Request {
            filter,
            answers: 0,
            value: None,
            sink: Sink::default(),
            answering: false,
        })
    });
    let outer_flag = REQUESTED.with(|r| r.replace(true));
    let mut restore = Restore(None, outer_flag);
    let result = call();
    let request = REQUEST
        .with(|r| r.borrow_mut().take())
        .expect("the request is in place");
    restore.0 = outer;
    drop(restore);
    (result, request)
}

/// Called by a differentiable entry point when [`requested`] is set: runs its forward
/// and reverse sweeps (seed one), letting the reverse sweep deposit variable gradients,
/// records the value, and returns it.
#[doc(hidden)]
pub fn answer<R, P, G>(vjp: impl FnOnce() -> (R, P)) -> R
where
    R: ScalarOutput,
    P: FnOnce(R) -> G,
{
    begin_answer();
    let (value, pullback) = vjp();
    let _ = pullback(R::one());
    end_answer(value)
}

/// The request set aside while a function answers it (its callees run as written).
/// Not generic: one copy serves every function.
#[inline(never)]
fn begin_answer() {
    REQUESTED.with(|r| r.set(false));
    REQUEST.with(|r| {
        if let Some(req) = r.borrow_mut().as_mut() {
            req.answering = true;
        }
    });
}

/// The answer recorded, the request set back: generic over the output only, so one copy
/// serves every function of an output type.
#[inline(never)]
fn end_answer<R: ScalarOutput>(value: R) -> R {
    REQUEST.with(|r| {
        if let Some(req) = r.borrow_mut().as_mut() {
            req.answering = false;
            req.answers += 1;
            req.value = Some(Box::new(value));
        }
    });
    REQUESTED.with(|r| r.set(true));
    value
}

/// The entry point of a function that can read no variable (parameters of plain numeric
/// types, no captured name read, no other differentiable function called): answers a
/// request by running the function as written (`call` runs it with the request set
/// aside), with nothing to pull back — the nothing its derivative would have deposited,
/// without compiling the derivative into every such function.
#[inline]
pub fn answer_plain<R: ScalarOutput>(call: impl FnOnce() -> R) -> R {
    begin_answer();
    let value = call();
    end_answer(value)
}

/// Called by a reverse sweep for a variable it read: adds `gradient` to the request being
/// answered on this thread, if any, and if the request collects this variable.
pub(crate) fn deposit_variable<T: Parameter + Clone>(variable: &Variable<T>, gradient: T::Tangent)
where
    T::Tangent: TangentValue,
{
    REQUEST.with(|r| {
        let mut r = r.borrow_mut();
        let Some(req) = r.as_mut().filter(|q| q.answering) else {
            return;
        };
        req.sink.read_any = true;
        let id = variable.id();
        let wanted = (req.filter.accessed_trainable && variable.is_trainable())
            || req.filter.watched.contains(&id);
        if !wanted {
            return;
        }
        let gradient = gradient.normalized();
        match req.sink.variables.get_mut(&id) {
            Some((g, _)) => g.0.add(&gradient),
            None => {
                req.sink
                    .variables
                    .insert(id, (Gradient::new(gradient), VariableRef::of(variable)));
            }
        }
    });
}

/// Called by a reverse sweep for a recorded tape result it read (chaining).
pub(crate) fn deposit_recorded(entry: u64, gradient: f64) {
    REQUEST.with(|r| {
        let mut r = r.borrow_mut();
        let Some(req) = r.as_mut().filter(|q| q.answering) else {
            return;
        };
        *req.sink.recorded.entry(entry).or_insert(0.0) += gradient;
    });
}

/// Checks that exactly one differentiable entry point answered and that the callable
/// returned exactly its value.
#[track_caller]
pub(crate) fn check_answer<R: PartialEq + fmt::Debug + 'static>(
    helper: impl fmt::Display,
    result: &R,
    request: &Request,
) {
    match request.answers {
        0 => panic!(
            "{helper}: the function ran no differentiable code. Pass a `#[differentiable]` \
            function, a `differentiable!` closure, or a closure whose result is exactly one such \
            call (`|x| model.loss(x)`). (A `const fn` answers no request: it can read no \
            variable.)"
        ),
        1 => {}
        n => panic!(
            "{helper}: the function called {n} differentiable functions and combined their results \
            outside differentiable code, so their gradient cannot be known. Combine them inside \
            one `#[differentiable]` function or `differentiable!` closure."
        ),
    }
    let answered = request.value.as_ref().and_then(|v| v.downcast_ref::<R>());
    if answered != Some(result) {
        panic!(
            "{helper}: the function returned {result:?}, but its differentiable code computed \
            {answered:?}: the result was changed outside differentiable code, so its gradient \
            cannot be known. Do the whole computation inside one `#[differentiable]` function or \
            `differentiable!` closure."
        );
    }
}

/// A helper's name and where the user called it: the closure it returns runs later, so
/// its panics name that place (a closure cannot take the caller's location).
#[derive(Clone, Copy)]
pub(crate) struct Helper {
    name: &'static str,
    at: &'static std::panic::Location<'static>,
}

impl Helper {
    #[track_caller]
    pub(crate) fn at(name: &'static str) -> Helper {
        Helper {
            name,
            at: std::panic::Location::caller(),
        }
    }
}

impl fmt::Display for Helper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (called at {})", self.name, self.at)
    }
}

fn gradients_of<R: PartialEq + fmt::Debug + 'static>(
    helper: Helper,
    result: &R,
    request: Request,
) -> Gradients {
    check_answer(helper, result, &request);
    if request.sink.variables.is_empty() {
        panic!(
            "{helper}: no trainable variables were accessed by the function: it read no \
            `Variable`, or only non-trainable ones (`Variable::non_trainable`)."
        );
    }
    Gradients::from_sink(request.sink)
}

/// Callables the implicit helpers accept: any `Fn` of up to six arguments whose result
/// is a scalar. The marker `M` is the argument list, inferred.
pub trait ImplicitFn<'a, M> {
    /// `Fn(args) -> Gradients`.
    type Gradients;
    /// `Fn(args) -> (value, Gradients)`.
    type ValueAndGradients;
    /// Makes the closure behind [`implicit_gradients`].
    fn gradients(self) -> Self::Gradients;
    /// Makes the closure behind [`implicit_value_and_gradients`].
    fn value_and_gradients(self) -> Self::ValueAndGradients;
}

const TRAINABLE: fn() -> Filter = || Filter {
    accessed_trainable: true,
    watched: HashSet::new(),
};

macro_rules! implicit_fn {
    ($(($($a:ident),*))*) => {$(
        #[allow(non_snake_case)]
        impl<'a, F, R, $($a),*> ImplicitFn<'a, ($($a,)*)> for F
        where
            F: Fn($($a),*) -> R + 'a,
            R: PartialEq + fmt::Debug + 'static,
        {
            type Gradients = Box<dyn Fn($($a),*) -> Gradients + 'a>;
            type ValueAndGradients = Box<dyn Fn($($a),*) -> (R, Gradients) + 'a>;
            #[track_caller]
            fn gradients(self) -> Self::Gradients {
                let helper = Helper::at("implicit_gradients");
                Box::new(move |$($a),*| {
                    let (result, request) = with_request(TRAINABLE(), || self($($a),*));
                    gradients_of(helper, &result, request)
                })
            }
            #[track_caller]
            fn value_and_gradients(self) -> Self::ValueAndGradients {
                let helper = Helper::at("implicit_value_and_gradients");
                Box::new(move |$($a),*| {
                    let (result, request) = with_request(TRAINABLE(), || self($($a),*));
                    let grads = gradients_of(helper, &result, request);
                    (result, grads)
                })
            }
        }
    )*};
}

implicit_fn! {
    ()
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, G)
}

/// TensorFlow's `implicit_gradients`: a function taking `f`'s own arguments and
/// returning the gradient of `f`'s result with respect to every trainable variable `f`
/// reads, as `(gradient, variable)` pairs in construction order.
///
/// `f` is a `#[differentiable]` function, a `differentiable!` closure (by value or by
/// reference), or a plain closure whose result is exactly one such call. Anything else is
/// refused with a message, never answered with a wrong gradient.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let grads = implicit_gradients(&f)(2.0);
/// assert_eq!(grads.get(&w), Some(2.0));
/// ```
#[track_caller]
pub fn implicit_gradients<'a, F: ImplicitFn<'a, M>, M>(f: F) -> F::Gradients {
    f.gradients()
}

/// TensorFlow's `implicit_value_and_gradients`: like [`implicit_gradients`], with `f`'s
/// value (which reverse mode computes anyway).
///
/// ```
/// use autodiff_runtime::{implicit_value_and_gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let (value, grads) = implicit_value_and_gradients(&f)(2.0);
/// assert_eq!(value, 6.0);
/// assert_eq!(grads.get(&w), Some(2.0));
/// ```
#[track_caller]
pub fn implicit_value_and_gradients<'a, F: ImplicitFn<'a, M>, M>(f: F) -> F::ValueAndGradients {
    f.value_and_gradients()
}

/// A hand-written differentiable entry point, for this crate's documentation examples
/// (the macro writes such code for users).
#[doc(hidden)]
pub mod test_support {
    use super::*;

    /// `w * x`, answering implicit requests.
    pub fn scaled(w: &Variable<f64>, x: f64) -> f64 {
        if requested() {
            return answer(|| {
                let wv = *w.snapshot();
                (wv * x, move |dy: f64| {
                    deposit_variable(w, dy * x);
                    dy * wv
                })
            });
        }
        *w.snapshot() * x
    }
}
