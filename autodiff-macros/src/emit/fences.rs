//! Which element reads keep their adjoint updates fenced.
//!
//! The reverse of `y = v[i]` adds `dy` into element `i` of `v`'s adjoint. When one
//! iteration reads the same slice at two indices (`x[i]` and `x[i + 1]`), LLVM merges the
//! two scalar updates into one 16-byte access, and the next iteration's overlapping load
//! then stalls on store-to-load forwarding (Rosenbrock's gradient measured 2.5× slower):
//! those updates go through `ops::index_d0`, whose compiler fence keeps them apart. An
//! update of a slice read at one index per iteration (`ltri[l]`, `xc[i]` in a triangular
//! product) has no neighbour to merge with: it goes through `ops::index_one_d0`, without
//! the fence, so LLVM may keep the element in a register across the loop or vectorise it.

use crate::ir::{Block, Body, Operand, Place, Rhs, Stmt};
use std::collections::{HashMap, HashSet};

/// The places (as `Place`'s debug form) that one iteration of some loop, or the body
/// outside loops, reads at two or more distinct indices.
pub(crate) fn fenced_places(body: &Body) -> HashSet<String> {
    let mut fenced = HashSet::new();
    unit(&body.block, &mut fenced);
    fenced
}

/// One unit: a block and the `if` arms nested in it; a nested loop is a unit of its own.
fn unit(block: &Block, fenced: &mut HashSet<String>) {
    let mut reads: HashMap<String, HashSet<String>> = HashMap::new();
    collect(block, &mut reads, fenced);
    for (place, indices) in reads {
        if indices.len() > 1 {
            fenced.insert(place);
        }
    }
}

fn collect(
    block: &Block,
    reads: &mut HashMap<String, HashSet<String>>,
    fenced: &mut HashSet<String>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                rhs: Rhs::ReadIndex { place, index },
                ..
            } => {
                reads
                    .entry(key(place))
                    .or_default()
                    .insert(index_key(index));
            }
            Stmt::If { then, els, .. } => {
                collect(then, reads, fenced);
                collect(els, reads, fenced);
            }
            Stmt::Loop { body, .. } => unit(body, fenced),
            _ => {}
        }
    }
}

/// The key of a place.
pub(crate) fn key(place: &Place) -> String {
    format!("{place:?}")
}

fn index_key(index: &Operand) -> String {
    index.tokens().to_string()
}
