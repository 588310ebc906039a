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
//! `return`), its item indexes a sequence (so it is an integer), and its body is
//! straight-line: `let`s of operators, float methods, casts, calls that lend no buffer,
//! reads of elements, fields, cells and constants (no branches, inner loops or element
//! writes), and writes of scalar differentiable cells. The statements that read such a cell, and those that
//! depend on them, are **carried**: they run in the second loop, in their order, with
//! the writes; the others run in the first. What the carried statements read from the
//! first loop is kept per strip, value and tangent (a differentiable scalar, so `Copy`
//! and `Default`). The iterations left over after the last whole strip run as the loop
//! always did.

use crate::ir::{Block, Body, CellId, LoopHead, Operand, Place, Prim, Rhs, Stmt, VarId};
use std::collections::HashSet;

/// The number of iterations of a strip: long enough for the terms' loop to vectorise,
/// short enough for its arrays to stay in registers or the first-level cache (16 and 32
/// measured alike, 8 not: a table in BENCHMARKS.md).
pub(super) const STRIP: usize = 16;

/// How a loop's tangent sweep is strip-mined.
pub(super) struct Strips {
    /// The loop's item.
    pub item: VarId,
    /// The body's statements that run in the second loop, by position.
    pub carried: HashSet<usize>,
    /// The variables the first loop computes and the second reads, in the order they are
    /// defined.
    pub kept: Vec<VarId>,
}

/// The variables a right-hand side reads (operands, and names in code kept as written).
fn reads(rhs: &Rhs) -> Vec<VarId> {
    let mut out = Vec::new();
    let mut operand = |o: &Operand| {
        if let Some(v) = o.var() {
            out.push(v);
        }
    };
    match rhs {
        Rhs::Copy(o) => operand(o),
        Rhs::Prim(_, args) | Rhs::Call { args, .. } => args.iter().for_each(&mut operand),
        Rhs::Field { base, .. } | Rhs::Member { base, .. } => out.push(*base),
        Rhs::ReadIndex { place, index } => {
            operand(index);
            if let Place::Var(v) = place {
                out.push(*v);
            }
        }
        Rhs::Inactive(ts) => out.extend(VarId::mentioned_in(ts)),
        _ => {}
    }
    out
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
        start: Some(_),
        ..
    } = head
    else {
        return None;
    };
    if flow.is_some() {
        return None;
    }
    let written: HashSet<CellId> = lbody
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::WriteCell { cell, .. } => Some(*cell),
            _ => None,
        })
        .collect();
    if written.is_empty() {
        return None;
    }
    for c in &written {
        let info = &body.cells[c.0];
        if !info.active || info.maybe_array || info.bound_to.is_some() {
            return None;
        }
    }
    let mut carried = HashSet::new();
    let mut carried_vars = HashSet::new();
    let mut defined = HashSet::new();
    let mut indexes = false;
    let mut terms = false;
    for (k, stmt) in lbody.stmts.iter().enumerate() {
        match stmt {
            Stmt::Let { dst, rhs, .. } => {
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
                    _ => return None,
                }
                if let Rhs::ReadIndex {
                    index: Operand::Var(i),
                    ..
                } = rhs
                {
                    indexes |= i == item;
                }
                let read_cells = cells_read(rhs);
                let reads_written = read_cells.iter().any(|c| written.contains(c));
                if reads_written && !matches!(rhs, Rhs::ReadCell(_)) {
                    // (a written cell read otherwise than by a snapshot)
                    return None;
                }
                defined.insert(*dst);
                if reads_written || reads(rhs).iter().any(|v| carried_vars.contains(v)) {
                    if !scalar(body, *dst) {
                        return None;
                    }
                    carried.insert(k);
                    carried_vars.insert(*dst);
                } else if body.is_active(*dst) {
                    terms = true;
                }
            }
            Stmt::WriteCell { .. } => {
                carried.insert(k);
            }
            _ => return None,
        }
    }
    if !indexes || !terms {
        return None;
    }
    // what the carried statements read of the first loop's values
    let mut kept = Vec::new();
    let mut seen = HashSet::new();
    for (k, stmt) in lbody.stmts.iter().enumerate() {
        if !carried.contains(&k) {
            continue;
        }
        let used = match stmt {
            Stmt::Let { rhs, .. } => reads(rhs),
            Stmt::WriteCell { value, .. } => value.var().into_iter().collect(),
            _ => Vec::new(),
        };
        for v in used {
            if v == *item || carried_vars.contains(&v) || !defined.contains(&v) {
                continue;
            }
            if !scalar(body, v) {
                return None;
            }
            if seen.insert(v) {
                kept.push(v);
            }
        }
    }
    Some(Strips {
        item: *item,
        carried,
        kept,
    })
}
