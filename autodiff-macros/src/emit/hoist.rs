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
    let cell = |c: &CellId| usize::from(matches!(place, Place::Cell(p) if p == *c));
    match stmt {
        Stmt::Let { rhs, .. } => mentions_rhs(rhs, place),
        Stmt::WriteCell { cell: c, value } => cell(c) + mentions_operand(value, place),
        Stmt::WriteIndex {
            cell: c,
            index,
            value,
        } => cell(c) + mentions_operand(index, place) + mentions_operand(value, place),
        Stmt::Grow { cell: c } => cell(c),
        Stmt::Effect(ts) => mentions_tokens(ts, place),
        Stmt::If { cond, then, els } => {
            mentions_operand(cond, place) + mentions_block(then, place) + mentions_block(els, place)
        }
        Stmt::Loop { head, body, .. } => {
            let head = match head {
                LoopHead::For { iter, start, .. } => {
                    mentions_tokens(iter, place)
                        + start.as_ref().map_or(0, |s| mentions_operand(s, place))
                }
                LoopHead::Infinite => 0,
            };
            head + mentions_block(body, place)
        }
    }
}

fn mentions_rhs(rhs: &Rhs, place: Place) -> usize {
    let at = |p: &Place| usize::from(same(*p, place));
    match rhs {
        Rhs::Copy(o) | Rhs::Owned { of: o, .. } => mentions_operand(o, place),
        Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
            args.iter().map(|a| mentions_operand(a, place)).sum()
        }
        Rhs::ReadCell(c) => usize::from(matches!(place, Place::Cell(p) if p == *c)),
        Rhs::ReadIndex { place: p, index } => at(p) + mentions_operand(index, place),
        Rhs::SubSlice { place: p, range } => {
            at(p)
                + range
                    .operands()
                    .map(|o| mentions_operand(o, place))
                    .sum::<usize>()
        }
        Rhs::Field { base, .. } | Rhs::Member { base, .. } | Rhs::Source(base) => {
            usize::from(matches!(place, Place::Var(v) if v == *base))
        }
        Rhs::Inactive(ts) => mentions_tokens(ts, place),
    }
}

fn mentions_operand(o: &Operand, place: Place) -> usize {
    match (o, place) {
        (Operand::Var(v) | Operand::Ref(v), Place::Var(p)) => usize::from(*v == p),
        (Operand::MutRef { cell, .. }, _) => {
            usize::from(matches!(place, Place::Cell(c) if *cell == c))
                + o.range_operands()
                    .map(|b| mentions_operand(b, place))
                    .sum::<usize>()
        }
        (Operand::Inline(e), _) => mentions_tokens(&quote::ToTokens::to_token_stream(e), place),
        _ => 0,
    }
}

fn mentions_tokens(ts: &proc_macro2::TokenStream, place: Place) -> usize {
    match place {
        Place::Var(v) => VarId::mentioned_in(ts).iter().filter(|u| **u == v).count(),
        Place::Cell(c) => CellId::mentioned_in(ts).iter().filter(|d| **d == c).count(),
    }
}

fn same(a: Place, b: Place) -> bool {
    match (a, b) {
        (Place::Var(x), Place::Var(y)) => x == y,
        (Place::Cell(x), Place::Cell(y)) => x == y,
        _ => false,
    }
}

/// How many times each variable is mentioned in `block`, nested blocks included, counted
/// in one walk: [`mentions_block`] for every variable at once (for a question asked of
/// many variables, which one walk per variable made quadratic in a long body).
pub(crate) fn var_mentions(block: &Block) -> std::collections::HashMap<VarId, usize> {
    fn operand(o: &Operand, out: &mut std::collections::HashMap<VarId, usize>) {
        match o {
            Operand::Var(v) | Operand::Ref(v) => *out.entry(*v).or_default() += 1,
            Operand::MutRef { .. } => o.range_operands().for_each(|b| operand(b, out)),
            Operand::Inline(e) => tokens(&quote::ToTokens::to_token_stream(e), out),
        }
    }
    fn tokens(ts: &proc_macro2::TokenStream, out: &mut std::collections::HashMap<VarId, usize>) {
        for v in VarId::mentioned_in(ts) {
            *out.entry(v).or_default() += 1;
        }
    }
    fn walk(block: &Block, out: &mut std::collections::HashMap<VarId, usize>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { rhs, .. } => match rhs {
                    Rhs::Copy(o) | Rhs::Owned { of: o, .. } => operand(o, out),
                    Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                        args.iter().for_each(|a| operand(a, out))
                    }
                    Rhs::ReadCell(_) => {}
                    Rhs::ReadIndex { place: p, index } => {
                        if let Place::Var(v) = p {
                            *out.entry(*v).or_default() += 1;
                        }
                        operand(index, out);
                    }
                    Rhs::SubSlice { place: p, range } => {
                        if let Place::Var(v) = p {
                            *out.entry(*v).or_default() += 1;
                        }
                        range.operands().for_each(|o| operand(o, out));
                    }
                    Rhs::Field { base, .. } | Rhs::Member { base, .. } | Rhs::Source(base) => {
                        *out.entry(*base).or_default() += 1
                    }
                    Rhs::Inactive(ts) => tokens(ts, out),
                },
                Stmt::WriteCell { value, .. } => operand(value, out),
                Stmt::WriteIndex { index, value, .. } => {
                    operand(index, out);
                    operand(value, out);
                }
                Stmt::Grow { .. } => {}
                Stmt::Effect(ts) => tokens(ts, out),
                Stmt::If { cond, then, els } => {
                    operand(cond, out);
                    walk(then, out);
                    walk(els, out);
                }
                Stmt::Loop { head, body, .. } => {
                    if let LoopHead::For { iter, start, .. } = head {
                        tokens(iter, out);
                        if let Some(s) = start {
                            operand(s, out);
                        }
                    }
                    walk(body, out);
                }
            }
        }
    }
    let mut out = std::collections::HashMap::new();
    walk(block, &mut out);
    out
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
