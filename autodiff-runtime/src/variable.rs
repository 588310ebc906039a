//! `Variable<T>`: a shared, thread-safe handle to a trainable value.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Orders variables by construction (TensorFlow's rule for the order of gradient pairs).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// The identity of a variable: unique, and ordered by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VariableId(pub(crate) u64);

impl VariableId {
    pub(crate) fn fresh() -> VariableId {
        VariableId(NEXT_ID.fetch_add(1, Ordering::Relaxed))
    }
}

pub(crate) struct Inner<T> {
    pub(crate) id: VariableId,
    pub(crate) trainable: bool,
    pub(crate) name: RwLock<Option<String>>,
    pub(crate) value: RwLock<Arc<T>>,
    /// The identity of the variable this one was loaded from (a checkpoint).
    #[cfg(feature = "serde")]
    pub(crate) origin: std::sync::OnceLock<crate::persist::VariableOrigin>,
}

/// A value that the implicit helpers and the tape differentiate with respect to.
///
/// A `Variable` is a shared handle: `clone()` names the same variable. Reads take a cheap
/// snapshot (an `Arc` clone); [`set`](Variable::set) replaces the value, so a gradient
/// computation that already read the variable keeps the value it read. It is
/// `Send + Sync`.
///
/// Inside differentiable code (a `#[differentiable]` function or a `differentiable!`
/// closure) a variable is used directly as its value: `w1 * x1`.
///
/// ```
/// use autodiff_runtime::Variable;
/// let w = Variable::new(2.0_f64).with_name("w");
/// let same = w.clone();
/// same.set(3.0);
/// assert_eq!(w.get(), 3.0);
/// assert_eq!(w.name().as_deref(), Some("w"));
/// assert!(w.is_trainable());
/// assert!(!Variable::non_trainable(1.0_f64).is_trainable());
/// ```
pub struct Variable<T> {
    pub(crate) inner: Arc<Inner<T>>,
}

impl<T> Clone for Variable<T> {
    fn clone(&self) -> Self {
        Variable {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: Send + Sync + 'static> Variable<T> {
    pub(crate) fn make(value: T, trainable: bool) -> Self {
        Variable {
            inner: Arc::new(Inner {
                id: VariableId::fresh(),
                trainable,
                name: RwLock::new(None),
                value: RwLock::new(Arc::new(value)),
                #[cfg(feature = "serde")]
                origin: std::sync::OnceLock::new(),
            }),
        }
    }

    /// A trainable variable holding `value`.
    ///
    /// ```
    /// let w = autodiff_runtime::Variable::new(2.0_f64);
    /// assert_eq!(w.get(), 2.0);
    /// ```
    pub fn new(value: T) -> Self {
        Self::make(value, true)
    }

    /// A variable the implicit helpers never differentiate with respect to (TensorFlow's
    /// `trainable=False`); a tape can still [`watch`](crate::GradientTape::watch) it.
    ///
    /// ```
    /// let w = autodiff_runtime::Variable::non_trainable(2.0_f64);
    /// assert!(!w.is_trainable());
    /// ```
    pub fn non_trainable(value: T) -> Self {
        Self::make(value, false)
    }

    /// Gives the variable a name (shown by `Debug` and
    /// [`VariableRef::name`](crate::VariableRef::name)).
    ///
    /// ```
    /// let w = autodiff_runtime::Variable::new(2.0_f64).with_name("w1");
    /// assert_eq!(w.name().as_deref(), Some("w1"));
    /// ```
    pub fn with_name(self, name: &str) -> Self {
        *self.inner.name.write().unwrap_or_else(|e| e.into_inner()) = Some(name.to_string());
        self
    }

    /// The variable's name, if it was given one.
    ///
    /// ```
    /// assert_eq!(autodiff_runtime::Variable::new(1.0_f64).name(), None);
    /// ```
    pub fn name(&self) -> Option<String> {
        self.inner
            .name
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether the implicit helpers differentiate with respect to this variable.
    ///
    /// ```
    /// assert!(autodiff_runtime::Variable::new(1.0_f64).is_trainable());
    /// ```
    pub fn is_trainable(&self) -> bool {
        self.inner.trainable
    }

    /// The variable's identity; identities are ordered by construction.
    ///
    /// ```
    /// use autodiff_runtime::Variable;
    /// let (a, b) = (Variable::new(1.0_f64), Variable::new(2.0_f64));
    /// assert!(a.id() < b.id());
    /// assert_eq!(a.id(), a.clone().id());
    /// ```
    pub fn id(&self) -> VariableId {
        self.inner.id
    }

    /// A snapshot of the current value: cheap (no copy of the value), and unaffected by
    /// later [`set`](Variable::set)s.
    ///
    /// ```
    /// let w = autodiff_runtime::Variable::new(vec![1.0_f64, 2.0]);
    /// let snap = w.snapshot();
    /// w.set(vec![5.0]);
    /// assert_eq!(*snap, vec![1.0, 2.0]);
    /// ```
    pub fn snapshot(&self) -> Arc<T> {
        Arc::clone(&self.inner.value.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Replaces the value.
    ///
    /// ```
    /// let w = autodiff_runtime::Variable::new(1.0_f64);
    /// w.set(4.0);
    /// assert_eq!(w.get(), 4.0);
    /// ```
    pub fn set(&self, value: T) {
        *self.inner.value.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(value);
    }

    /// Applies `f` to the value in place (copying it first only if a snapshot of it is
    /// still alive), as optimizers do.
    ///
    /// ```
    /// let w = autodiff_runtime::Variable::new(1.0_f64);
    /// w.update(|v| *v += 1.0);
    /// assert_eq!(w.get(), 2.0);
    /// ```
    pub fn update(&self, f: impl FnOnce(&mut T))
    where
        T: Clone,
    {
        let mut guard = self.inner.value.write().unwrap_or_else(|e| e.into_inner());
        f(Arc::make_mut(&mut guard));
    }
}

impl<T: Clone + Send + Sync + 'static> Variable<T> {
    /// A copy of the current value.
    ///
    /// ```
    /// assert_eq!(autodiff_runtime::Variable::new(2.5_f64).get(), 2.5);
    /// ```
    pub fn get(&self) -> T {
        (*self.snapshot()).clone()
    }
}

impl<T: fmt::Debug + Send + Sync + 'static> fmt::Debug for Variable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Variable");
        if let Some(name) = self.name() {
            d.field("name", &name);
        }
        d.field("value", &*self.snapshot())
            .field("trainable", &self.inner.trainable)
            .finish()
    }
}
