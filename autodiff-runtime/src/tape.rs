//! `GradientTape`: TensorFlow's tape, over compile-time derivatives.
//!
//! `record` runs a closure under the same rule as the implicit helpers (exactly one
//! differentiable entry point answers, and the closure returns exactly its value) and
//! keeps what that entry point's reverse sweep found: the gradient of the recorded
//! result with respect to every variable it read, and to every earlier recorded result it
//! read (chaining). `gradient` walks those records back from the target.

use crate::implicit::{
    check_answer, with_request, Filter, Gradient, Parameter, TangentValue, VariableRef,
};
use crate::variable::{Variable, VariableId};
use std::collections::{BTreeMap, HashSet};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

static NEXT_ENTRY: AtomicU64 = AtomicU64::new(0);

/// A tape whose [`gradient`](GradientTape::gradient) may be asked once (it consumes it).
#[derive(Debug, Clone, Copy, Default)]
pub struct Once;

/// A tape whose [`gradient`](GradientTape::gradient) may be asked any number of times.
#[derive(Debug, Clone, Copy, Default)]
pub struct Persistent;

struct Entry {
    /// d(this result)/d(variable), for the variables the recorded code read.
    variables: BTreeMap<VariableId, (Gradient, VariableRef)>,
    /// d(this result)/d(earlier recorded result).
    recorded: BTreeMap<u64, f64>,
}

#[derive(Default)]
struct State {
    entries: BTreeMap<u64, Entry>,
    watched: HashSet<VariableId>,
}

/// Records differentiable computations and gives gradients of their results.
///
/// ```
/// use autodiff_runtime::{GradientTape, Variable};
/// let w = Variable::new(3.0_f64);
/// let tape = GradientTape::new();
/// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 5.0));
/// assert_eq!(*s, 15.0);
/// let dw: f64 = tape.gradient(&s, &w);
/// assert_eq!(dw, 5.0);
/// ```
pub struct GradientTape<Kind = Once> {
    state: Arc<Mutex<State>>,
    watch_accessed: bool,
    _kind: PhantomData<Kind>,
}

/// A result recorded on a tape: its value (`*s`, [`value`](Recorded::value)) and its place
/// on the tape. Read by later recorded differentiable code, it chains.
#[derive(Clone, Debug)]
pub struct Recorded<T> {
    value: T,
    entry: u64,
}

impl<T> Recorded<T> {
    /// The value (a plain value, as `.numpy()` is in TensorFlow).
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// let tape = GradientTape::new();
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 5.0));
    /// assert_eq!(*s.value(), 15.0);
    /// ```
    pub fn value(&self) -> &T {
        &self.value
    }

    pub(crate) fn entry(&self) -> u64 {
        self.entry
    }
}

impl<T> std::ops::Deref for Recorded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl GradientTape<Once> {
    /// A tape whose `gradient` can be asked once; it records the trainable variables the
    /// recorded code reads.
    ///
    /// ```
    /// let tape = autodiff_runtime::GradientTape::new();
    /// # let _ = tape;
    /// ```
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        GradientTape {
            state: Arc::default(),
            watch_accessed: true,
            _kind: PhantomData,
        }
    }

    /// The gradient of `target` with respect to `sources` (a `&Variable`, or a tuple of
    /// them); consumes the tape. A source the target does not depend on gets zero.
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// let (w, unused) = (Variable::new(3.0_f64), Variable::new(1.0_f64));
    /// let tape = GradientTape::new();
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 5.0));
    /// let (dw, du): (f64, f64) = tape.gradient(&s, (&w, &unused));
    /// assert_eq!((dw, du), (5.0, 0.0));
    /// ```
    pub fn gradient<T, S: Sources>(self, target: &Recorded<T>, sources: S) -> S::Output {
        gradient_of(&self.state, target.entry, sources)
    }
}

impl GradientTape<Persistent> {
    /// A tape whose `gradient` can be asked any number of times.
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// let w = Variable::new(3.0_f64);
    /// let tape = GradientTape::persistent();
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 5.0));
    /// let a: f64 = tape.gradient(&s, &w);
    /// let b: f64 = tape.gradient(&s, &w);
    /// assert_eq!(a, b);
    /// ```
    pub fn persistent() -> Self {
        GradientTape {
            state: Arc::default(),
            watch_accessed: true,
            _kind: PhantomData,
        }
    }

    /// The gradient of `target` with respect to `sources`; the tape stays usable.
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// let tape = GradientTape::persistent();
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 5.0));
    /// assert_eq!(tape.gradient(&s, &w), 5.0);
    /// ```
    pub fn gradient<T, S: Sources>(&self, target: &Recorded<T>, sources: S) -> S::Output {
        gradient_of(&self.state, target.entry, sources)
    }
}

impl<Kind> GradientTape<Kind> {
    /// With `false`, the tape records only the variables it [`watch`](Self::watch)es,
    /// not every trainable variable the code reads.
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// let w = Variable::new(3.0_f64);
    /// let tape = GradientTape::new().watch_accessed_variables(false);
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 5.0));
    /// assert_eq!(tape.gradient(&s, &w), 0.0);
    /// ```
    pub fn watch_accessed_variables(mut self, watch: bool) -> Self {
        self.watch_accessed = watch;
        self
    }

    /// Records gradients with respect to `variable` too, even if it is not trainable.
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// let c = Variable::non_trainable(3.0_f64);
    /// let tape = GradientTape::new();
    /// tape.watch(&c);
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&c, 5.0));
    /// assert_eq!(tape.gradient(&s, &c), 5.0);
    /// ```
    pub fn watch<T: Send + Sync + 'static>(&self, variable: &Variable<T>) {
        self.lock().watched.insert(variable.id());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f`, which must be (or return exactly the result of) one differentiable call,
    /// and records its result.
    ///
    /// ```
    /// # use autodiff_runtime::{GradientTape, Variable};
    /// # let w = Variable::new(3.0_f64);
    /// let tape = GradientTape::new();
    /// let s = tape.record(|| autodiff_runtime::implicit::test_support::scaled(&w, 2.0));
    /// assert_eq!(*s, 6.0);
    /// ```
    #[track_caller]
    pub fn record<R: PartialEq + std::fmt::Debug + 'static>(
        &self,
        f: impl FnOnce() -> R,
    ) -> Recorded<R> {
        let watched = self.lock().watched.clone();
        let filter = Filter {
            accessed_trainable: self.watch_accessed,
            watched,
        };
        let (value, request) = with_request(filter, f);
        check_answer("GradientTape::record", &value, &request);
        let entry = NEXT_ENTRY.fetch_add(1, Ordering::Relaxed);
        let sink = request.sink;
        self.lock().entries.insert(
            entry,
            Entry {
                variables: sink.variables,
                recorded: sink.recorded,
            },
        );
        Recorded { value, entry }
    }
}

fn gradient_of<S: Sources>(state: &Mutex<State>, target: u64, sources: S) -> S::Output {
    let state = state.lock().unwrap_or_else(|e| e.into_inner());
    // Adjoints of recorded results, walked from the target back (entries are numbered in
    // recording order, so a result only reads earlier ones).
    let mut adjoints: BTreeMap<u64, f64> = BTreeMap::new();
    adjoints.insert(target, 1.0);
    let mut variables: BTreeMap<VariableId, (Gradient, VariableRef)> = BTreeMap::new();
    for (id, entry) in state.entries.range(..=target).rev() {
        let Some(&adjoint) = adjoints.get(id) else {
            continue;
        };
        for (earlier, g) in &entry.recorded {
            *adjoints.entry(*earlier).or_insert(0.0) += adjoint * g;
        }
        for (vid, (g, v)) in &entry.variables {
            let mut g = g.clone();
            v.scale_gradient(&mut g, adjoint);
            match variables.get_mut(vid) {
                Some((acc, _)) => acc.add(&g),
                None => {
                    variables.insert(*vid, (g, v.clone()));
                }
            }
        }
    }
    sources.collect(&variables)
}

/// What `gradient` can be asked for: a `&Variable<T>` (giving its tangent) or a tuple of
/// them (giving a tuple).
pub trait Sources {
    /// The gradients, typed.
    type Output;
    #[doc(hidden)]
    fn collect(self, found: &BTreeMap<VariableId, (Gradient, VariableRef)>) -> Self::Output;
}

impl<T: Parameter + Clone> Sources for &Variable<T>
where
    T::Tangent: TangentValue,
{
    type Output = T::Tangent;
    fn collect(self, found: &BTreeMap<VariableId, (Gradient, VariableRef)>) -> T::Tangent {
        match found.get(&self.id()) {
            Some((g, _)) => g.to_value::<T::Tangent>(),
            None => crate::Differentiable::zero_tangent(&*self.snapshot()),
        }
    }
}

macro_rules! tuple_sources {
    ($(($($s:ident $i:tt),+))*) => {$(
        impl<$($s: Sources),+> Sources for ($($s,)+) {
            type Output = ($($s::Output,)+);
            fn collect(
                self,
                found: &BTreeMap<VariableId, (Gradient, VariableRef)>,
            ) -> Self::Output {
                ($(self.$i.collect(found),)+)
            }
        }
    )*};
}
tuple_sources! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
}
