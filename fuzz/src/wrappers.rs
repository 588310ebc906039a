//! Random wrappers: a function whose body is one call of an earlier function, its
//! parameters the callee's (some left out for constants, the rest in another order), its
//! result returned as it is or negated, scaled or shifted — the way published code gives a
//! general function its usual constants, or an optimiser its negative log-likelihood.
//! Their gradients hand the call on to the callee's (`fuse::tail` in the macro crate): the
//! callee's fused sweep for a reduction loop, its forward sweep and pullback otherwise.

use crate::program::{Func, Param};
use crate::rng::Rng;
use std::collections::BTreeSet;

/// The earlier functions a wrapper may call: parameters of floats, float slices and counts
/// only, at least one float or slice.
fn wrappable(f: &Func) -> bool {
    f.params
        .iter()
        .all(|p| matches!(p, Param::Scalar(_) | Param::Slice(..) | Param::Count(..)))
        && f.params
            .iter()
            .any(|p| matches!(p, Param::Scalar(_) | Param::Slice(..)))
}

/// A wrapper `p{index}` of one of `previous`, or `None` when none can be wrapped.
pub(crate) fn gen_wrapper(rng: &mut Rng, index: usize, previous: &[Func]) -> Option<Func> {
    let candidates: Vec<&Func> = previous.iter().filter(|f| wrappable(f)).collect();
    if candidates.is_empty() {
        return None;
    }
    let callee = *rng.pick(&candidates);
    // each float parameter: the wrapper's own, or a constant (one at least stays)
    let mut args = Vec::new();
    let mut params = Vec::new();
    let mut constants = 0;
    for p in &callee.params {
        match p {
            Param::Scalar(_) if rng.chance(0.3) => {
                let c = [0.75, -0.5, 1.25, 0.3][rng.below(4)];
                args.push(format!("{c:?}"));
                constants += 1;
            }
            Param::Count(_, value) if rng.chance(0.5) => {
                args.push(value.to_string());
            }
            other => {
                args.push(other.name().to_string());
                params.push(other.clone());
            }
        }
    }
    if !params
        .iter()
        .any(|p| matches!(p, Param::Scalar(_) | Param::Slice(..)))
    {
        return None;
    }
    // the wrapper's parameters in another order
    for i in (1..params.len()).rev() {
        let j = rng.below(i + 1);
        params.swap(i, j);
    }
    let mut features = BTreeSet::new();
    features.insert("wrapper: one call handed on");
    if constants > 0 {
        features.insert("wrapper: constants for some parameters");
    }
    // the result as it is, or negated, scaled, shifted
    let call = format!("p{}({})", callee.index, args.join(", "));
    let ret = match rng.below(6) {
        0 => format!("-{call}"),
        1 => format!("0.5 * {call}"),
        2 => format!("{call} / 3.0 + 0.25"),
        _ => call,
    };
    if !ret.starts_with('p') {
        features.insert("wrapper: its result negated, scaled or shifted");
    }
    Some(Func {
        index,
        params,
        body: Vec::new(),
        ret,
        point_seed: rng.next_u64(),
        mag: callee.mag,
        cost: callee.cost,
        helpers: Vec::new(),
        selected: Vec::new(),
        features,
        calls_second_order: false,
    })
}
