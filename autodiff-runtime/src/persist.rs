//! Checkpoints (the `serde` feature): a [`Variable`] serializes by value, with what makes it
//! the same variable again after loading, so an optimizer loaded beside it finds its state.
//!
//! A variable's identity ([`VariableId`](crate::VariableId)) is a counter of this process,
//! meaningless in another one. What a checkpoint records instead is the variable's
//! *origin*: a number drawn once per process and the variable's id in it, or, for a
//! variable that was itself loaded, the origin it was loaded with (so saving again keeps
//! it). A loaded variable is a new variable (a fresh id, constructed in the order it is
//! read); an optimizer state saved for the origin is bound to the variable of that origin
//! the first time the variable's gradient is applied.

use crate::variable::{Inner, Variable};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// Where a variable comes from: a number drawn once per process, and the variable's id in
/// that process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct VariableOrigin {
    session: u64,
    id: u64,
}

/// This process's number: random (std's per-process hash keys), drawn on first use.
fn session() -> u64 {
    static SESSION: OnceLock<u64> = OnceLock::new();
    *SESSION.get_or_init(|| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        h.finish()
    })
}

impl<T> Inner<T> {
    /// The origin a checkpoint records for this variable.
    pub(crate) fn origin(&self) -> VariableOrigin {
        self.origin.get().copied().unwrap_or(VariableOrigin {
            session: session(),
            id: self.id.0,
        })
    }
}

#[derive(Serialize)]
#[serde(rename = "Variable")]
struct VariableOut<'a, T> {
    value: &'a T,
    trainable: bool,
    name: Option<String>,
    origin: VariableOrigin,
}

#[derive(Deserialize)]
#[serde(rename = "Variable")]
struct VariableIn<T> {
    value: T,
    trainable: bool,
    name: Option<String>,
    origin: VariableOrigin,
}

/// A variable serializes by value: its current value, whether it is trainable, its name,
/// and its origin (what binds optimizer state to it again after loading).
///
/// ```
/// use autodiff_runtime::Variable;
/// let w = Variable::new(vec![1.5_f64, -2.0]).with_name("w");
/// let text = serde_json::to_string(&w).unwrap();
/// let loaded: Variable<Vec<f64>> = serde_json::from_str(&text).unwrap();
/// assert_eq!(loaded.get(), vec![1.5, -2.0]);
/// assert_eq!(loaded.name().as_deref(), Some("w"));
/// assert!(loaded.is_trainable());
/// assert_ne!(loaded.id(), w.id()); // a new variable with the same value
/// ```
impl<T: Serialize + Send + Sync + 'static> Serialize for Variable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = self.snapshot();
        VariableOut {
            value: &*value,
            trainable: self.is_trainable(),
            name: self.name(),
            origin: self.inner.origin(),
        }
        .serialize(serializer)
    }
}

/// A new variable holding the value read, trainable or not, named as it was, carrying the
/// saved variable's origin: an optimizer saved with it finds its state for it again.
///
/// ```
/// use autodiff_runtime::optim::Sgd;
/// use autodiff_runtime::{implicit_gradients, Variable};
/// use autodiff_runtime::implicit::test_support::scaled; // w · x, differentiable
///
/// let frozen = Variable::non_trainable(0.25_f64);
/// let text = serde_json::to_string(&frozen).unwrap();
/// let loaded: Variable<f64> = serde_json::from_str(&text).unwrap();
/// assert_eq!(loaded.get(), 0.25);
/// assert!(!loaded.is_trainable());
///
/// // A variable and its optimizer (with momentum) saved after one step and loaded take
/// // the same second step as the originals.
/// let w = Variable::new(1.0_f64);
/// let mut sgd = Sgd::new(0.1).momentum(0.9);
/// sgd.apply_gradients(&implicit_gradients(|x: f64| scaled(&w, x))(2.0));
/// let text = serde_json::to_string(&(&w, &sgd)).unwrap();
/// let (w2, mut sgd2): (Variable<f64>, Sgd) = serde_json::from_str(&text).unwrap();
/// sgd.apply_gradients(&implicit_gradients(|x: f64| scaled(&w, x))(2.0));
/// sgd2.apply_gradients(&implicit_gradients(|x: f64| scaled(&w2, x))(2.0));
/// assert_eq!(w2.get(), w.get()); // 1 − 0.1·2 − 0.1·(0.9·2 + 2)
/// ```
impl<'de, T: Deserialize<'de> + Send + Sync + 'static> Deserialize<'de> for Variable<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = VariableIn::<T>::deserialize(deserializer)?;
        let variable = Variable::make(saved.value, saved.trainable);
        let _ = variable.inner.origin.set(saved.origin);
        Ok(match saved.name {
            Some(name) => variable.with_name(&name),
            None => variable,
        })
    }
}
