//! Optimizer state in a checkpoint (the `serde` feature): the schedule, the step count and
//! every state buffer, so training resumed from a checkpoint takes exactly the steps it
//! would have taken without stopping.
//!
//! Explicit parameters (`step`) have one buffer. A variable's buffer (`apply_gradients`) is
//! saved under the variable's origin (see `crate::persist`) and, after loading, bound to
//! the variable of that origin the first time its gradient is applied.

use super::{Core, Key};
use crate::implicit::VariableRef;
use crate::persist::VariableOrigin;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;

#[derive(Serialize)]
#[serde(rename = "OptimizerState")]
struct CoreOut<'a, S> {
    schedule: &'a S,
    step: u64,
    explicit: Option<&'a Vec<f64>>,
    variables: Vec<(VariableOrigin, &'a Vec<f64>)>,
}

#[derive(Deserialize)]
#[serde(rename = "OptimizerState")]
struct CoreIn<S> {
    schedule: S,
    step: u64,
    explicit: Option<Vec<f64>>,
    variables: Vec<(VariableOrigin, Vec<f64>)>,
}

impl<S> Core<S> {
    /// Records the origin of a variable seen for the first time, and gives it the state
    /// loaded for that origin, if any.
    pub(super) fn bind(&mut self, variable: &VariableRef) {
        let id = variable.id();
        if self.origins.contains_key(&id) {
            return;
        }
        let origin = variable.origin();
        self.origins.insert(id, origin);
        if let Some(state) = self.loaded.remove(&origin) {
            self.state.insert(Key::Variable(id), state);
        }
    }
}

impl<S: Serialize> Serialize for Core<S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        let mut variables: Vec<(VariableOrigin, &Vec<f64>)> = self
            .state
            .iter()
            .filter_map(|(key, state)| match key {
                // Every variable with state was bound (`bind`) when it got it.
                Key::Variable(id) => self.origins.get(id).map(|o| (*o, state)),
                Key::Explicit => None,
            })
            .chain(self.loaded.iter().map(|(o, state)| (*o, state)))
            .collect();
        // Sorted, so one training state always writes the same checkpoint.
        variables.sort_by_key(|(origin, _)| *origin);
        CoreOut {
            schedule: &self.schedule,
            step: self.step,
            explicit: self.state.get(&Key::Explicit),
            variables,
        }
        .serialize(serializer)
    }
}

impl<'de, S: Deserialize<'de>> Deserialize<'de> for Core<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = CoreIn::<S>::deserialize(deserializer)?;
        let mut state = HashMap::new();
        if let Some(explicit) = saved.explicit {
            state.insert(Key::Explicit, explicit);
        }
        Ok(Core {
            schedule: saved.schedule,
            step: saved.step,
            state,
            origins: HashMap::new(),
            loaded: saved.variables.into_iter().collect(),
        })
    }
}
