//! Element adjoints kept in a register across a loop.
//!
//! `y = v[i]` inside `for j in …`, with `i` fixed for the whole loop (an enclosing loop's
//! item, or a parameter): each iteration's reverse adds into the same element `i` of `v`'s
//! adjoint, through memory LLVM cannot keep in a register (the adjoint may alias the other
//! buffers the loop writes). The reverse sweep instead takes that element out before the
//! loop, adds each iteration's contribution to a local, and puts the sum back after it,
//! as a hand-written adjoint does (`d_x[i] += Σ_j …`): a triangular product's reverse
//! (GMM's `Q·(x − μ)`) measured 1.5–2× faster. Only when nothing else in the loop mentions
//! `v` (so no other update of the element, or read of its adjoint, can happen in between).

use crate::ir::{Block, CellId, LoopHead, Operand, Place, Rhs, Stmt, VarId};

/// The reads of `body` (a loop's body) whose element adjoint can be kept in a local:
/// `(dst, place, index)` for each `let dst = place[index]` directly in the body whose
/// index is in `stable` (fixed across the loop) and whose place nothing else in the body
/// mentions.
pub(crate) fn hoistable(body: &Block, stable: &[VarId]) -> Vec<(VarId, Place, VarId)> {
    let mut defined = Vec::new();
    defined_in(body, &mut defined);
    let mut out = Vec::new();
    for stmt in &body.stmts {
        let Stmt::Let {
            dst,
            rhs:
                Rhs::ReadIndex {
                    place,
                    index: Operand::Var(i),
                },
            ..
        } = stmt
        else {
            continue;
        };
        if !stable.contains(i) {
            continue;
        }
        if let Place::Var(v) = place {
            if defined.contains(v) {
                continue;
            }
        }
        if mentions_block(body, *place) == 1 {
            out.push((*dst, *place, *i));
        }
    }
    out
}

fn defined_in(block: &Block, out: &mut Vec<VarId>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { dst, .. } => out.push(*dst),
            Stmt::If { then, els, .. } => {
                defined_in(then, out);
                defined_in(els, out);
            }
            Stmt::Loop {
                head, body, count, ..
            } => {
                if let LoopHead::For { item, .. } = head {
                    out.push(*item);
                }
                out.push(*count);
                defined_in(body, out);
            }
            _ => {}
        }
    }
}

/// How many times `place` is mentioned in `block`, nested blocks included.
pub(crate) fn mentions_block(block: &Block, place: Place) -> usize {
    block.stmts.iter().map(|s| mentions_stmt(s, place)).sum()
}

pub(crate) fn mentions_stmt(stmt: &Stmt, place: Place) -> usize {
    let mut n = 0;
    visit_stmt(stmt, matches!(place, Place::Var(_)), &mut |p| {
        n += usize::from(same(p, place))
    });
    n
}

/// How many times each variable is mentioned in `block`, nested blocks included, counted
/// in one walk: [`mentions_block`] for every variable at once (for a question asked of
/// many variables, which one walk per variable made quadratic in a long body).
pub(crate) fn var_mentions(block: &Block) -> std::collections::HashMap<VarId, usize> {
    let mut out = std::collections::HashMap::new();
    for stmt in &block.stmts {
        visit_stmt(stmt, true, &mut |p| {
            if let Place::Var(v) = p {
                *out.entry(v).or_default() += 1;
            }
        });
    }
    out
}

/// The snapshots of cells (`let __vN = __cK.clone()`) among `block`'s own statements (run
/// once: not in a loop or a branch) after which nothing in `block` mentions their cell
/// again: the forward sweep may move the cell into the snapshot instead of copying it.
pub(crate) fn last_snapshots(block: &Block) -> std::collections::HashMap<VarId, CellId> {
    let mut later = std::collections::HashSet::new();
    let mut out = std::collections::HashMap::new();
    for stmt in block.stmts.iter().rev() {
        if let Stmt::Let {
            dst,
            rhs: Rhs::ReadCell(c),
            ..
        } = stmt
        {
            if !later.contains(c) {
                out.insert(*dst, *c);
            }
        }
        visit_stmt(stmt, false, &mut |p| {
            if let Place::Cell(c) = p {
                later.insert(c);
            }
        });
    }
    out
}

/// The cells something may hold a borrow of beyond the statement that makes it (so none
/// may move): a sub-slice or an element that may be borrowed (`&buf[a..b]`, an array's
/// row) kept in a variable, or the cell lent `&mut` to a call.
pub(crate) fn borrowed_cells(body: &crate::ir::Body) -> std::collections::HashSet<CellId> {
    fn walk(body: &crate::ir::Body, block: &Block, out: &mut std::collections::HashSet<CellId>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { dst, rhs, .. } => match rhs {
                    Rhs::SubSlice {
                        place: Place::Cell(c),
                        ..
                    } => {
                        out.insert(*c);
                    }
                    Rhs::ReadIndex {
                        place: Place::Cell(c),
                        ..
                    } if body.vars[dst.0].maybe_array => {
                        out.insert(*c);
                    }
                    Rhs::Call { args, .. } | Rhs::Prim(_, args) => {
                        for a in args {
                            if let Operand::MutRef { cell, .. } = a {
                                out.insert(*cell);
                            }
                        }
                    }
                    _ => {}
                },
                Stmt::If { then, els, .. } => {
                    walk(body, then, out);
                    walk(body, els, out);
                }
                Stmt::Loop { body: b, .. } => walk(body, b, out),
                _ => {}
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    walk(body, &body.block, &mut out);
    out
}

/// The variables some statement of `block` may take by value (an operand, code kept as
/// tokens, a field's base): those not only lent (`f(&v)`) or indexed (`v[i]`, `&v[a..b]`).
pub(crate) fn taken_by_value(block: &Block) -> std::collections::HashSet<VarId> {
    fn walk(block: &Block, out: &mut std::collections::HashSet<VarId>) {
        for stmt in &block.stmts {
            let operand = |o: &Operand, out: &mut std::collections::HashSet<VarId>| match o {
                Operand::Ref(_) => {}
                _ => visit_operand(o, true, &mut |p| {
                    if let Place::Var(v) = p {
                        out.insert(v);
                    }
                }),
            };
            match stmt {
                Stmt::Let { rhs, .. } => match rhs {
                    Rhs::ReadIndex { index, .. } => operand(index, out),
                    Rhs::SubSlice { range, .. } => range.operands().for_each(|o| operand(o, out)),
                    Rhs::ReadCell(_) => {}
                    Rhs::Copy(o) | Rhs::Owned { of: o, .. } => operand(o, out),
                    Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                        args.iter().for_each(|a| operand(a, out))
                    }
                    Rhs::Field { base, .. } | Rhs::Member { base, .. } | Rhs::Source(base) => {
                        out.insert(*base);
                    }
                    Rhs::Inactive(ts) => out.extend(VarId::mentioned_in(ts)),
                },
                Stmt::If { cond, then, els } => {
                    operand(cond, out);
                    walk(then, out);
                    walk(els, out);
                }
                Stmt::Loop { head, body, .. } => {
                    if let LoopHead::For { iter, start, .. } = head {
                        out.extend(VarId::mentioned_in(iter));
                        if let Some(s) = start {
                            operand(s, out);
                        }
                    }
                    walk(body, out);
                }
                other => visit_stmt(other, true, &mut |p| {
                    if let Place::Var(v) = p {
                        out.insert(v);
                    }
                }),
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    walk(block, &mut out);
    out
}

/// Every mention of a variable or a cell in `stmt`, nested blocks included, handed to `f`
/// (in code kept as tokens, the variables' when `vars`, else the cells').
fn visit_stmt(stmt: &Stmt, vars: bool, f: &mut dyn FnMut(Place)) {
    match stmt {
        Stmt::Let { rhs, .. } => match rhs {
            Rhs::Copy(o) | Rhs::Owned { of: o, .. } => visit_operand(o, vars, f),
            Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                args.iter().for_each(|a| visit_operand(a, vars, f))
            }
            Rhs::ReadCell(c) => f(Place::Cell(*c)),
            Rhs::ReadIndex { place, index } => {
                f(*place);
                visit_operand(index, vars, f);
            }
            Rhs::SubSlice { place, range } => {
                f(*place);
                range.operands().for_each(|o| visit_operand(o, vars, f));
            }
            Rhs::Field { base, .. } | Rhs::Member { base, .. } | Rhs::Source(base) => {
                f(Place::Var(*base))
            }
            Rhs::Inactive(ts) => visit_tokens(ts, vars, f),
        },
        Stmt::WriteCell { cell, value } => {
            f(Place::Cell(*cell));
            visit_operand(value, vars, f);
        }
        Stmt::WriteIndex { cell, index, value } => {
            f(Place::Cell(*cell));
            visit_operand(index, vars, f);
            visit_operand(value, vars, f);
        }
        Stmt::Extent { cell, extent } => {
            f(Place::Cell(*cell));
            visit_operand(extent, vars, f);
        }
        Stmt::Grow { cell, len, value } => {
            f(Place::Cell(*cell));
            visit_operand(len, vars, f);
            visit_operand(value, vars, f);
        }
        Stmt::Effect(ts) => visit_tokens(ts, vars, f),
        Stmt::If { cond, then, els } => {
            visit_operand(cond, vars, f);
            for s in then.stmts.iter().chain(&els.stmts) {
                visit_stmt(s, vars, f);
            }
        }
        Stmt::Loop { head, body, .. } => {
            if let LoopHead::For { iter, start, .. } = head {
                visit_tokens(iter, vars, f);
                if let Some(s) = start {
                    visit_operand(s, vars, f);
                }
            }
            for s in &body.stmts {
                visit_stmt(s, vars, f);
            }
        }
    }
}

/// Whether `o` mentions `place`.
pub(crate) fn operand_mentions(o: &Operand, place: Place) -> bool {
    let mut n = 0;
    visit_operand(o, matches!(place, Place::Var(_)), &mut |p| {
        n += usize::from(same(p, place))
    });
    n > 0
}

fn visit_operand(o: &Operand, vars: bool, f: &mut dyn FnMut(Place)) {
    match o {
        Operand::Var(v) | Operand::Ref(v) => f(Place::Var(*v)),
        Operand::MutRef { cell, .. } => {
            f(Place::Cell(*cell));
            o.range_operands().for_each(|b| visit_operand(b, vars, f));
        }
        Operand::Inline(e) => visit_tokens(&quote::ToTokens::to_token_stream(e), vars, f),
    }
}

fn visit_tokens(ts: &proc_macro2::TokenStream, vars: bool, f: &mut dyn FnMut(Place)) {
    if vars {
        VarId::mentioned_in(ts)
            .into_iter()
            .for_each(|v| f(Place::Var(v)));
    } else {
        CellId::mentioned_in(ts)
            .into_iter()
            .for_each(|c| f(Place::Cell(c)));
    }
}

fn same(a: Place, b: Place) -> bool {
    match (a, b) {
        (Place::Var(x), Place::Var(y)) => x == y,
        (Place::Cell(x), Place::Cell(y)) => x == y,
        _ => false,
    }
}

/// For every variable, how many times it is passed by reference (`f(&v)`) to a call in
/// `block` (nested blocks included) whose variable is in `calls`.
pub(crate) fn lent_counts(
    block: &Block,
    calls: &std::collections::HashSet<VarId>,
) -> std::collections::HashMap<VarId, usize> {
    fn walk(
        block: &Block,
        calls: &std::collections::HashSet<VarId>,
        out: &mut std::collections::HashMap<VarId, usize>,
    ) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    dst,
                    rhs: Rhs::Call { args, .. },
                    ..
                } if calls.contains(dst) => {
                    for a in args {
                        if let Operand::Ref(u) = a {
                            *out.entry(*u).or_default() += 1;
                        }
                    }
                }
                Stmt::If { then, els, .. } => {
                    walk(then, calls, out);
                    walk(els, calls, out);
                }
                Stmt::Loop { body, .. } => walk(body, calls, out),
                _ => {}
            }
        }
    }
    let mut out = std::collections::HashMap::new();
    walk(block, calls, &mut out);
    out
}
