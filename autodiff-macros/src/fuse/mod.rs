//! Fusion: when the output's cotangent is known before the forward sweep starts (the
//! value-and-gradients helpers, whose seed is 1), the reverse work of a reduction loop can
//! run inside the forward loop, each iteration's reverse right after its forward part,
//! instead of in a second loop walking the iterations backwards.
//!
//! That is only sound when no iteration's reverse needs an adjoint produced by the reverse
//! of a later one. Within the loop, the adjoints that cross iterations are those of cells:
//! a loop qualifies when every differentiable cell it writes is either
//!
//! * an **accumulator** (`sum += term`): read once and written once per iteration, the
//!   value read reaching the value written only through additions (and the left side of
//!   subtractions), so its adjoint is the same in every iteration — the adjoint it has
//!   after the loop; or
//! * **not live into an iteration** (written before it is read, in every iteration) and
//!   not read after the loop, so its adjoint is zero at both ends of every iteration (a
//!   `Vec`'s is given the iteration's length where the iteration's reverse starts: it was
//!   made before the loop, from the value the cell is declared with).
//!
//! Adjoints of values defined before the loop only receive additions from it, in another
//! order (which can change the last bits of a sum of three or more contributions). The
//! adjoint of the accumulators after the loop must be known when the loop starts: the
//! statements after the loop may only read cells, copy values and compute constants.
//!
//! A slice read only at the loop's item and the item plus one (`x[i]`, `x[i + 1]`, a
//! stencil) has its adjoint elements **carried**: contributions to element `i + 1` wait in
//! a register for the next iteration, and each element is stored once, when complete.

use crate::ir::{Block, Body, CellId, LoopHead, Operand, Place, Rhs, Stmt, Value, VarId};
use proc_macro2::TokenStream;
use std::collections::{HashMap, HashSet};

/// The fused loop and its carried slices.
pub struct Plan {
    /// The loop's position among the body's top-level statements.
    pub index: usize,
    /// Slices whose adjoint elements are carried: for each, the index variables and their
    /// offset from the loop's item (0 or 1).
    pub carried: Vec<(VarId, HashMap<VarId, u8>)>,
    /// The loop's accumulators: their adjoint is the same in every iteration, so the
    /// iteration's reverse reads it and leaves it as it is.
    pub accumulators: HashSet<CellId>,
    /// The cells made afresh in every iteration (written before they are read, not read
    /// after the loop): their adjoint is zero at both ends of every iteration, and has the
    /// shape of the iteration's value, not the one the cell was declared with.
    pub fresh: Vec<CellId>,
}

/// What a block does: operand uses of variables (differentiable data flow), mentions in
/// code kept as written, indexed reads of variables, and cell accesses.
#[derive(Default)]
struct Uses {
    operand: HashMap<VarId, usize>,
    mentioned: HashSet<VarId>,
    /// `(place, index, destination)` of every indexed read of a variable.
    indexed: Vec<(VarId, Operand, VarId)>,
    cell_reads: HashSet<CellId>,
    cell_writes: HashSet<CellId>,
}

impl Uses {
    fn operand(&mut self, o: &Operand) {
        if let Some(v) = o.var() {
            *self.operand.entry(v).or_default() += 1;
        }
        for b in o.range_operands() {
            self.operand(b);
        }
        if let Some(c) = o.lent_cell() {
            // written and read by the callee
            self.cell_writes.insert(c);
            self.cell_reads.insert(c);
        }
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { dst, rhs, .. } => match rhs {
                Rhs::Copy(o) | Rhs::Owned { of: o, .. } => self.operand(o),
                Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                    args.iter().for_each(|a| self.operand(a))
                }
                Rhs::ReadCell(c) => {
                    self.cell_reads.insert(*c);
                }
                Rhs::ReadIndex { place, index } => {
                    self.operand(index);
                    match place {
                        Place::Var(p) => self.indexed.push((*p, index.clone(), *dst)),
                        Place::Cell(c) => {
                            self.cell_reads.insert(*c);
                        }
                    }
                }
                Rhs::SubSlice { place, range } => {
                    range.operands().for_each(|o| self.operand(o));
                    match place {
                        Place::Var(p) => self.operand(&Operand::Var(*p)),
                        Place::Cell(c) => {
                            self.cell_reads.insert(*c);
                        }
                    }
                }
                Rhs::Field { base, .. } | Rhs::Member { base, .. } | Rhs::Source(base) => {
                    self.operand(&Operand::Var(*base))
                }
                Rhs::Inactive(ts) => self.mention(ts),
            },
            Stmt::WriteCell { cell, value } => {
                self.operand(value);
                self.cell_writes.insert(*cell);
            }
            Stmt::WriteIndex { cell, index, value } => {
                self.operand(index);
                self.operand(value);
                self.cell_writes.insert(*cell);
                self.cell_reads.insert(*cell);
            }
            Stmt::Effect(ts) => self.mention(ts),
            Stmt::Extent { cell, extent } => {
                self.operand(extent);
                self.cell_writes.insert(*cell);
                self.cell_reads.insert(*cell);
            }
            Stmt::Grow { cell, len, value } => {
                self.operand(len);
                self.operand(value);
                self.cell_writes.insert(*cell);
                self.cell_reads.insert(*cell);
            }
            Stmt::If { cond, then, els } => {
                self.operand(cond);
                self.block(then);
                self.block(els);
            }
            Stmt::Loop { head, body, .. } => {
                if let LoopHead::For { iter, start, .. } = head {
                    self.mention(iter);
                    if let Some(s) = start {
                        self.operand(s);
                    }
                }
                self.block(body);
            }
        }
    }

    fn mention(&mut self, ts: &TokenStream) {
        self.mentioned.extend(VarId::mentioned_in(ts));
    }
}

fn uses_of(stmts: &[Stmt]) -> Uses {
    let mut u = Uses::default();
    stmts.iter().for_each(|s| u.stmt(s));
    u
}

/// Whether `c` is written before it is read on every path through `stmts`, as far as a
/// read could tell (`Some(true)`: written first; `Some(false)`: may be read first;
/// `None`: not touched on some path).
fn written_first(stmts: &[Stmt], c: CellId) -> Option<bool> {
    for stmt in stmts {
        let u = uses_of(std::slice::from_ref(stmt));
        match stmt {
            // the value written was computed (and its reads checked) before
            Stmt::WriteCell { cell, .. } if *cell == c => return Some(true),
            Stmt::If { then, els, .. } => {
                match (written_first(&then.stmts, c), written_first(&els.stmts, c)) {
                    (Some(false), _) | (_, Some(false)) => return Some(false),
                    (Some(true), Some(true)) => return Some(true),
                    _ => {}
                }
            }
            Stmt::Loop { body, .. } => {
                if written_first(&body.stmts, c) == Some(false) {
                    return Some(false);
                }
            }
            _ => {
                if u.cell_reads.contains(&c) {
                    return Some(false);
                }
            }
        }
    }
    None
}

/// Whether `c` is an accumulator of the loop body `stmts` (see the module's comment): every
/// access is an update `c = c + …` (a read, additions, a write, in one block), at any depth.
fn accumulator(stmts: &[Stmt], c: CellId, all: &Uses) -> bool {
    let touches = |s: &Stmt| {
        let u = uses_of(std::slice::from_ref(s));
        u.cell_reads.contains(&c) || u.cell_writes.contains(&c)
    };
    let mut k = 0;
    while k < stmts.len() {
        match &stmts[k] {
            Stmt::If { then, els, .. } => {
                if !accumulator(&then.stmts, c, all) || !accumulator(&els.stmts, c, all) {
                    return false;
                }
            }
            Stmt::Loop { body, .. } => {
                if !accumulator(&body.stmts, c, all) {
                    return false;
                }
            }
            Stmt::Let {
                dst: r,
                rhs: Rhs::ReadCell(read),
                ..
            } if *read == c => {
                let Some(q) = (k + 1..stmts.len()).find(|&q| touches(&stmts[q])) else {
                    return false;
                };
                let Stmt::WriteCell {
                    cell,
                    value: Operand::Var(s),
                } = &stmts[q]
                else {
                    return false;
                };
                if *cell != c || !update_chain(&stmts[k..q], *r, *s, all) {
                    return false;
                }
                k = q;
            }
            other => {
                if touches(other) {
                    return false;
                }
            }
        }
        k += 1;
    }
    true
}

/// Whether the value `r` read from a cell reaches `s` (written back) through additions,
/// the left side of subtractions and copies only, each value used once.
fn update_chain(stmts: &[Stmt], r: VarId, s: VarId, all: &Uses) -> bool {
    let count = |v: VarId| {
        all.operand.get(&v).copied().unwrap_or(0) + usize::from(all.mentioned.contains(&v))
    };
    let mut cur = r;
    while cur != s {
        if count(cur) != 1 {
            return false;
        }
        let next = stmts.iter().find_map(|st| match st {
            Stmt::Let { dst, rhs, .. } => match rhs {
                Rhs::Copy(Operand::Var(v)) if *v == cur => Some(*dst),
                Rhs::Prim(crate::ir::Prim::Binary { rule, .. }, args) => {
                    let is = |k: usize| matches!(&args[k], Operand::Var(v) if *v == cur);
                    // the value read reaches exactly one operand, whose cotangent is `dy`
                    let reached: Vec<usize> = (0..args.len()).filter(|k| is(*k)).collect();
                    let ok = matches!(reached[..], [k] if rule.passes.contains(&k));
                    ok.then_some(*dst)
                }
                _ => None,
            },
            _ => None,
        });
        match next {
            Some(n) => cur = n,
            None => return false,
        }
    }
    count(s) == 1
}

/// Whether an inactive index is the loop's item plus one.
fn is_item_plus_one(ts: &TokenStream, item: VarId) -> bool {
    let text: String = ts
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let text = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(&text);
    let item = item.ident().to_string();
    text == format!("{item}+1") || text == format!("{item}+1usize")
}

/// The fusion plan of a body, if its last top-level loop qualifies.
pub fn plan(body: &Body) -> Option<Plan> {
    let stmts = &body.block.stmts;
    let index = stmts.iter().rposition(|s| matches!(s, Stmt::Loop { .. }))?;
    let Stmt::Loop {
        head, body: lbody, ..
    } = &stmts[index]
    else {
        return None;
    };
    let post = &stmts[index + 1..];
    let post_ok = post.iter().all(|s| match s {
        Stmt::Let { rhs, .. } => {
            matches!(rhs, Rhs::Copy(_) | Rhs::ReadCell(_) | Rhs::Inactive(_))
        }
        Stmt::Effect(_) => true,
        _ => false,
    });
    if !post_ok {
        return None;
    }
    let mut all = uses_of(stmts);
    let mut out = Vec::new();
    body.output.vars(&mut out);
    for v in out {
        *all.operand.entry(v).or_default() += 1;
    }
    let in_loop = uses_of(&lbody.stmts);
    let after = uses_of(post);
    let mut accumulators = HashSet::new();
    let mut fresh = Vec::new();
    for c in &in_loop.cell_writes {
        let info = &body.cells[c.0];
        if !info.active {
            continue;
        }
        if info.maybe_array {
            return None;
        }
        let fresh_each_time =
            written_first(&lbody.stmts, *c) == Some(true) && !after.cell_reads.contains(c);
        if !fresh_each_time {
            if !accumulator(&lbody.stmts, *c, &all) {
                return None;
            }
            accumulators.insert(*c);
        } else {
            fresh.push(*c);
        }
    }
    fresh.sort();
    // Carried slices: a ranged loop's item and item + 1 only.
    let mut carried = Vec::new();
    if let LoopHead::For {
        item,
        start: Some(_),
        ..
    } = head
    {
        let defs = crate::ir::definitions(lbody);
        let mut places: Vec<VarId> = in_loop.indexed.iter().map(|(p, _, _)| *p).collect();
        places.sort();
        places.dedup();
        for p in places {
            if !body.is_active(p)
                || body.region_of(p) != crate::ir::RegionId::BODY
                || in_loop.operand.contains_key(&p)
                || after.operand.contains_key(&p)
                || after.mentioned.contains(&p)
                || matches!(&body.output, Value::Var(v) if *v == p)
            {
                continue;
            }
            let mut offsets = HashMap::new();
            let all_stencil =
                in_loop
                    .indexed
                    .iter()
                    .filter(|(q, _, _)| *q == p)
                    .all(|(_, index, dst)| {
                        let Operand::Var(iv) = index else {
                            return false;
                        };
                        if body.vars[dst.0].maybe_array {
                            return false;
                        }
                        let offset = if iv == item {
                            0
                        } else if defs.get(iv).is_some_and(
                            |d| matches!(d, Rhs::Inactive(ts) if is_item_plus_one(ts, *item)),
                        ) {
                            1
                        } else {
                            return false;
                        };
                        offsets.insert(*iv, offset);
                        true
                    });
            if all_stencil {
                carried.push((p, offsets));
            }
        }
    }
    Some(Plan {
        index,
        carried,
        accumulators,
        fresh,
    })
}
pub mod emit;
pub mod split;
pub mod tail;
pub use emit::seeded_body;
pub use split::{split_body, SplitSweep};
pub use tail::tail_body;
