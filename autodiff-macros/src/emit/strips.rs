//! Strip-mined tangent loops.
//!
//! A reduction loop's tangent sweep (`sum += term(x[i])`, and its tangent `tsum +=
//! tterm`) carries two chains of additions from one iteration to the next, and computes
//! each iteration's terms, value and tangent, in between. The chains bound the loop by
//! their latency, the terms by their throughput, and the compiler, which may not reorder
//! the additions, vectorises neither: on Rosenbrock the tangent loop cost 2.6× the
//! primal. Strip-mined, each strip of [`STRIP`] iterations first computes the terms of
//! all its iterations (no value crosses iterations there, so that loop vectorises) into
//! arrays, then runs the chains over the arrays in the iterations' order: the same
//! operations on the same values in the same order, so the same bits, at about 1.5× the
//! primal.
//!
//! A loop qualifies when it runs a range start to end (no `break`, `continue` or
//! `return`), its item indexes a sequence (so it is an integer), and its body is made of
//! `let`s of operators, float methods, casts, calls that lend no buffer, reads of
//! elements, fields, cells and constants, writes of cells, and branches of those (no inner
//! loops or element writes). The cells an iteration reads before writing them are its
//! sums: scalar differentiable cells. The statements that read a sum, and those that
//! depend on them, are **carried**: they run in the second loop, in their order, with the
//! writes of the sums; the others run in the first, and a cell they write (an `if`
//! expression's value) is neither written nor read by the carried ones. A branch that
//! updates a sum (`if z > 0.0 { s += z * z }`) leaves the loop whole: its work would stay
//! in the second loop, as a branch the compiler no longer turns into selects (measured 40 %
//! slower than the loop whole). What the carried statements read of the first loop's
//! values is kept per strip: value and tangent of a differentiable scalar (`Copy` and
//! `Default`), each value beside its tangent (one load for both in the second loop, and on
//! two lanes one addition). The slice parameters and the local buffers the body reads at
//! the item plus a constant are read through parts of the strip's length (see [`parts`]).
//! The iterations left over after the last whole strip run as the loop always did.

use crate::ir::{Block, Body, CellId, LoopHead, Operand, Place, Prim, Rhs, Stmt, VarId};
use std::collections::HashSet;

/// The number of iterations of a strip: long enough for the terms' loop to vectorise,
/// short enough for its arrays to stay in registers or the first-level cache (16 and 32
/// measured alike, 8 not: a table in BENCHMARKS.md).
pub(super) const STRIP: usize = 16;

/// How a loop's tangent sweep is strip-mined.
pub(super) struct Strips {
    /// The loop's item, and the range it runs (`start..end`).
    pub item: VarId,
    pub iter: proc_macro2::TokenStream,
    /// The body's statements that run in the second loop, by position.
    pub carried: HashSet<usize>,
    /// The variables the first loop computes and the second reads, in the order they are
    /// defined.
    pub kept: Vec<VarId>,
}

/// The cells a right-hand side reads.
fn cells_read(rhs: &Rhs) -> Vec<CellId> {
    match rhs {
        Rhs::ReadCell(c) => vec![*c],
        Rhs::ReadIndex {
            place: Place::Cell(c),
            ..
        } => vec![*c],
        Rhs::Inactive(ts) => CellId::mentioned_in(ts),
        _ => Vec::new(),
    }
}

/// Whether the variable is a differentiable scalar: kept in an array of its values and
/// one of its tangents.
fn scalar(body: &Body, v: VarId) -> bool {
    let info = &body.vars[v.0];
    info.active
        && !info.maybe_array
        && !info.owned_struct
        && !info.struct_element
        && !info.shared_ref
}

/// What the classification of a loop body's statements has found so far.
#[derive(Default)]
struct Walk {
    /// Cells live into an iteration (read before the iteration writes them): the sums.
    live_in: HashSet<CellId>,
    /// Variables the carried statements define.
    carried_vars: HashSet<VarId>,
    /// Cells the carried statements write, and those the others write.
    written_carried: HashSet<CellId>,
    written_terms: HashSet<CellId>,
    /// Cells read by carried statements.
    read_carried: HashSet<CellId>,
    /// Variables the carried statements read.
    used: Vec<VarId>,
    /// Whether the item indexes a sequence, and whether a term has a tangent.
    indexes: bool,
    terms: bool,
}

/// Whether every statement of the block is one strips can run; records the cells each
/// path writes before reading them (`defined`) and those read before written (`live_in`).
fn straight(
    block: &Block,
    item: VarId,
    written: &HashSet<CellId>,
    defined: &mut HashSet<CellId>,
    w: &mut Walk,
) -> bool {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { rhs, .. } => {
                match rhs {
                    Rhs::Copy(_) | Rhs::ReadCell(_) | Rhs::ReadIndex { .. } | Rhs::Inactive(_) => {}
                    Rhs::Prim(
                        Prim::Binary { .. } | Prim::Neg | Prim::Method { .. } | Prim::Cast { .. },
                        _,
                    )
                    | Rhs::Field { .. }
                    | Rhs::Member { .. } => {}
                    // (a call lending no buffer: its value and tangent, like an operator's)
                    Rhs::Call { args, .. } if args.iter().all(|a| a.lent_cell().is_none()) => {}
                    _ => return false,
                }
                if let Rhs::ReadIndex {
                    index: Operand::Var(i),
                    ..
                } = rhs
                {
                    w.indexes |= *i == item;
                }
                for c in cells_read(rhs) {
                    if written.contains(&c) && !defined.contains(&c) {
                        w.live_in.insert(c);
                    }
                }
            }
            Stmt::WriteCell { cell, .. } => {
                defined.insert(*cell);
            }
            Stmt::If { then, els, .. } => {
                let (mut t, mut e) = (defined.clone(), defined.clone());
                if !straight(then, item, written, &mut t, w)
                    || !straight(els, item, written, &mut e, w)
                {
                    return false;
                }
                *defined = t.intersection(&e).copied().collect();
            }
            _ => return false,
        }
    }
    true
}

/// The statement (not a branch) as carried: the variable it defines, the cell it writes
/// or reads, the variables it reads.
fn carry(stmt: &Stmt, w: &mut Walk) {
    match stmt {
        Stmt::Let { dst, rhs, .. } => {
            w.carried_vars.insert(*dst);
            w.read_carried.extend(cells_read(rhs));
            w.used.extend(rhs.vars_read());
        }
        Stmt::WriteCell { cell, value } => {
            w.written_carried.insert(*cell);
            w.used.extend(value.var());
        }
        _ => {}
    }
}

/// Whether the statement depends on what the carried statements compute: a sum's
/// snapshot, a carried value, a cell they write.
fn depends(stmt: &Stmt, w: &Walk) -> bool {
    match stmt {
        Stmt::Let { rhs, .. } => {
            cells_read(rhs)
                .iter()
                .any(|c| w.live_in.contains(c) || w.written_carried.contains(c))
                || rhs.vars_read().iter().any(|v| w.carried_vars.contains(v))
        }
        Stmt::WriteCell { cell, value } => {
            w.live_in.contains(cell) || value.var().is_some_and(|v| w.carried_vars.contains(&v))
        }
        Stmt::If { cond, then, els } => {
            cond.var().is_some_and(|v| w.carried_vars.contains(&v))
                || then.stmts.iter().chain(&els.stmts).any(|s| depends(s, w))
        }
        _ => false,
    }
}

/// The cells the statement writes (in its branches too).
fn cells_written(stmt: &Stmt, out: &mut HashSet<CellId>) {
    match stmt {
        Stmt::WriteCell { cell, .. } => {
            out.insert(*cell);
        }
        Stmt::If { then, els, .. } => {
            for s in then.stmts.iter().chain(&els.stmts) {
                cells_written(s, out);
            }
        }
        _ => {}
    }
}

/// Whether the block defines a differentiable value (a term with a tangent).
fn has_tangent(body: &Body, block: &Block) -> bool {
    block.stmts.iter().any(|s| match s {
        Stmt::Let { dst, .. } => body.is_active(*dst),
        Stmt::If { then, els, .. } => has_tangent(body, then) || has_tangent(body, els),
        _ => false,
    })
}

/// The strips of the loop, when its tangent sweep is worth strip-mining (see the module's
/// documentation).
pub(super) fn plan(
    body: &Body,
    head: &LoopHead,
    lbody: &Block,
    flow: Option<CellId>,
) -> Option<Strips> {
    let LoopHead::For {
        item,
        iter,
        start: Some(_),
    } = head
    else {
        return None;
    };
    if flow.is_some() {
        return None;
    }
    let mut written = HashSet::new();
    for s in &lbody.stmts {
        cells_written(s, &mut written);
    }
    let mut w = Walk::default();
    if !straight(lbody, *item, &written, &mut HashSet::new(), &mut w) {
        return None;
    }
    // the sums: scalar differentiable cells
    if w.live_in.is_empty() || !w.indexes {
        return None;
    }
    for c in &w.live_in {
        let info = &body.cells[c.0];
        if !info.active || info.maybe_array || info.bound_to.is_some() {
            return None;
        }
    }
    // statements in order: carried when they depend on a carried one (a branch wholly)
    let mut carried = HashSet::new();
    let mut defined = HashSet::new();
    for (k, stmt) in lbody.stmts.iter().enumerate() {
        if depends(stmt, &w) {
            // (a branch updating a sum would keep its work in the second loop, where the
            // compiler no longer turns it into selects: measured slower than the loop
            // whole)
            if matches!(stmt, Stmt::If { .. }) {
                return None;
            }
            carried.insert(k);
            carry(stmt, &mut w);
        } else {
            cells_written(stmt, &mut w.written_terms);
            match stmt {
                Stmt::Let { dst, .. } => {
                    defined.insert(*dst);
                    w.terms |= body.is_active(*dst);
                }
                Stmt::If { then, els, .. } => {
                    w.terms |= has_tangent(body, then) || has_tangent(body, els);
                }
                _ => {}
            }
        }
    }
    // a cell both loops write, or one the first writes and the second reads, would be
    // seen out of order
    if !w.terms
        || w.written_carried
            .iter()
            .any(|c| w.written_terms.contains(c))
        || w.read_carried.iter().any(|c| w.written_terms.contains(c))
    {
        return None;
    }
    // what the carried statements read of the first loop's values: differentiable
    // scalars, kept with their tangents
    let mut kept = Vec::new();
    let mut seen = HashSet::new();
    for v in std::mem::take(&mut w.used) {
        if v == *item || !defined.contains(&v) || !seen.insert(v) {
            continue;
        }
        if !scalar(body, v) {
            return None;
        }
        kept.push(v);
    }
    Some(Strips {
        item: *item,
        iter: iter.clone(),
        carried,
        kept,
    })
}

/// The slices a strip reads through parts: slice parameters, and local buffers made once
/// as a `Vec` or an array, each read, as a float, only by statements of the loop's body
/// itself (run in every iteration) at the item plus a constant (`segments::spans`); with
/// the lowest and the highest constant. Taken once per strip (elements
/// `at + lowest .. at + STRIP + highest`), such a part lets the compiler check the strip's
/// reads once rather than each one (on Rosenbrock, the checks kept the strip's terms from
/// vectorising whole). Every element of the part is one an iteration of the strip reads,
/// so a part out of range is a read the loop would have made out of range.
pub(super) fn parts(e: &super::Emitter<'_>, block: &Block, item: VarId) -> Vec<(Place, i64, i64)> {
    let index = super::segments::item_indices(block, item);
    (super::segments::spans(e, block, &index).into_iter())
        .map(|(place, s)| (place, s.min, s.max))
        .collect()
}
