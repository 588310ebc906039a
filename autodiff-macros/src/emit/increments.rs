//! In-place increments of a buffer's element: `out[j] += t` (also `out[j] = out[j] + t`,
//! `out[j] = t + out[j]`, `out[j] -= t`).
//!
//! Lowered, it reads the element (`a = out[j]`), adds (`v = a + t`) and writes it back
//! (`out[j] = v`). The general reverse takes the element's adjoint out (zeroing it), hands
//! it to `v`, to `a` through the addition, and adds `a`'s back into the element: the adjoint
//! passes through unchanged. So the reverse of such a write reads the element's adjoint and
//! hands it to `t` only: one load instead of a load, two stores and an addition per
//! iteration, which lets a triangular product's reverse loop (GMM's `Q·(x − μ)`) run like
//! its forward one. Only when `a` and `v` are used nowhere else and nothing between the
//! read and the write mentions the buffer.

use super::hoist::{mentions_block, mentions_stmt};
use crate::ir::{Block, Body, CellId, Operand, Place, Prim, Rhs, Stmt, VarId};
use std::collections::HashSet;

/// The increments of `body`: the values written back (`v`), and the reads (`a`) whose
/// adjoint the reverse neither takes nor adds back. Not in a `Vec` built by `push`
/// (`grown`), whose element writes take their adjoints (a grown `Vec`'s adjoint may be
/// shorter than the `Vec`, `ops::grown_index_take_d0`): there the read's adjoint is the
/// element's, added back as any read's.
pub(crate) fn increments(body: &Body, grown: &HashSet<CellId>) -> (HashSet<VarId>, HashSet<VarId>) {
    let mut found = (HashSet::new(), HashSet::new());
    walk(body, &body.block, grown, &mut found);
    found
}

fn walk(
    body: &Body,
    block: &Block,
    grown: &HashSet<CellId>,
    found: &mut (HashSet<VarId>, HashSet<VarId>),
) {
    for (k, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::WriteIndex {
                cell,
                index,
                value: Operand::Var(v),
            } if !grown.contains(cell) => {
                if let Some(a) = increment(body, block, k, *cell, index, *v) {
                    found.0.insert(*v);
                    found.1.insert(a);
                }
            }
            Stmt::If { then, els, .. } => {
                walk(body, then, grown, found);
                walk(body, els, grown, found);
            }
            Stmt::Loop { body: b, .. } => walk(body, b, grown, found),
            _ => {}
        }
    }
}

/// The read `a` of `out[j] = v` at position `k` of `block`, when `v = a ± t` is an increment.
fn increment(
    body: &Body,
    block: &Block,
    k: usize,
    cell: CellId,
    index: &Operand,
    v: VarId,
) -> Option<VarId> {
    let position = |x: VarId| {
        block.stmts[..k]
            .iter()
            .position(|s| matches!(s, Stmt::Let { dst, .. } if *dst == x))
    };
    let pv = position(v)?;
    let Stmt::Let {
        rhs: Rhs::Prim(Prim::Binary { rule, .. }, args),
        ..
    } = &block.stmts[pv]
    else {
        return None;
    };
    let candidates: &[usize] = match rule.name {
        "add" => &[0, 1],
        "sub" => &[0],
        _ => return None,
    };
    let index_tokens = index.tokens().to_string();
    for &side in candidates {
        let Some(Operand::Var(a)) = args.get(side) else {
            continue;
        };
        let Some(pa) = position(*a) else { continue };
        let Stmt::Let {
            rhs:
                Rhs::ReadIndex {
                    place: Place::Cell(c),
                    index: read_at,
                },
            ..
        } = &block.stmts[pa]
        else {
            continue;
        };
        let scalar = !body.vars[a.0].maybe_array && !body.vars[v.0].maybe_array;
        if *c != cell || read_at.tokens().to_string() != index_tokens || !scalar {
            continue;
        }
        // `a` read only by the addition, `v` only by the write, the buffer untouched between
        if mentions_block(&body.block, Place::Var(*a)) != 1
            || mentions_block(&body.block, Place::Var(v)) != 1
            || args
                .iter()
                .filter(|o| matches!(o, Operand::Var(x) if x == a))
                .count()
                != 1
        {
            continue;
        }
        let between = &block.stmts[pa + 1..k];
        if between
            .iter()
            .any(|s| mentions_stmt(s, Place::Cell(cell)) > 0)
        {
            continue;
        }
        return Some(*a);
    }
    None
}
