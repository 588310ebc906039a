//! The slices a range loop's reverse reads through parts of one loop's length.
//!
//! The reverse of `for j in i + 1..d { out[j] += ltri[l] * xc[i]; l += 1; }` reads
//! `ltri[l]` and `out`'s adjoint at `j` and adds into `ltri`'s adjoint at `l`, each access
//! checked against its slice's length: the compiler cannot tell that `l`, a counter
//! undone step by step, stays in range, and the checks, a third of the loop's
//! instructions, keep it from running like its forward (GMM's reverse at d = 64 spent
//! most of its time there). Every such index is, in iteration `k` of the loop, a base
//! fixed before the loop plus `k` plus a constant: the loop's item (`j`, from `start`),
//! `j ± c`, or the read of a counter stepped by one once per iteration (its value before
//! the loop, plus `k`, plus one if read after the step). So each slice indexed only there
//! is read through the runtime's `saved::Part` — its elements
//! from the lowest index any iteration reads to the highest, borrowed once before the
//! loop — and the loop counts `k` down from the trip count: every index is then `k` plus
//! a constant within a part of the loop's length, which the compiler checks once. The
//! forward sweep has read the same elements (each access is a statement of the loop's
//! own body, run in every iteration), so the parts are in range; a loop that runs no
//! iteration takes none. Only loops a counter indexes are read so (see [`plan`]).

use super::hoist::mentions_block;
use super::Emitter;
use crate::ir::{Block, CellId, Operand, Place, Rhs, Stmt, VarId};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What an index counts from: the loop's item, or a counter's value before the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Family {
    Item,
    Counter(CellId),
}

/// A place read through a part: its family and the lowest and highest offsets an
/// iteration reads it at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    pub(crate) family: Family,
    pub(crate) min: i64,
    pub(crate) max: i64,
}

/// The places the reverse of the loop whose body is `block` and item `item` reads
/// through parts, with their families; empty when there are none.
pub(crate) fn plan(e: &Emitter<'_>, block: &Block, item: VarId) -> Vec<(Place, Segment)> {
    // the indices: variables that are, in iteration `k`, a family's base plus `k` plus a
    // constant
    let steps = counter_steps(e, block);
    if steps.is_empty() {
        // (only loops a counter indexes, below)
        return Vec::new();
    }
    let mut index = item_indices(block, item);
    for (position, stmt) in block.stmts.iter().enumerate() {
        if let Stmt::Let {
            dst,
            rhs: Rhs::ReadCell(c),
            ..
        } = stmt
        {
            if let (true, Some(&step_at)) = (e.counter_reads.contains_key(dst), steps.get(c)) {
                index.insert(*dst, (Family::Counter(*c), i64::from(step_at < position)));
            }
        }
    }
    let out = spans(e, block, &index);
    // Only where a counter indexes: of an index that is the loop's item the compiler
    // checks the bound cheaply in each iteration, and a short loop read through parts
    // (taken at each entry, the loop then vectorised) ran slower than as it was (GMM at
    // d = 10, 15 %); of a counter's it knows nothing.
    if out.iter().all(|(_, s)| s.family == Family::Item) {
        return Vec::new();
    }
    out
}

/// The loop's item and the variables that are the item plus a constant (`let j = i + 1`),
/// each with its offset.
pub(crate) fn item_indices(block: &Block, item: VarId) -> HashMap<VarId, (Family, i64)> {
    let mut index = HashMap::from([(item, (Family::Item, 0))]);
    for stmt in &block.stmts {
        if let Stmt::Let {
            dst,
            rhs: Rhs::Inactive(ts),
            ..
        } = stmt
        {
            if let Some(offset) = item_offset(ts, item) {
                index.insert(*dst, (Family::Item, offset));
            }
        }
    }
    index
}

/// The slices (slice parameters, and the cells of [`eligible_cells`]) that the body's own
/// statements index, as floats, only at the variables of `index` (a family's base plus the
/// iteration plus a constant), and nowhere else in the loop: the segment each spans.
pub(crate) fn spans(
    e: &Emitter<'_>,
    block: &Block,
    index: &HashMap<VarId, (Family, i64)>,
) -> Vec<(Place, Segment)> {
    // the accesses, statements of the body itself at those indices, by place: the
    // segment they span (none once one is at another index or of another family) and
    // how many there are
    let mut found: BTreeMap<String, (Place, Option<Segment>, usize)> = BTreeMap::new();
    let mut note = |place: Place, at: Option<(Family, i64)>| {
        let (_, segment, accesses) = found.entry(format!("{place:?}")).or_insert((
            place,
            at.map(|(family, o)| Segment {
                family,
                min: o,
                max: o,
            }),
            0,
        ));
        *accesses += 1;
        *segment = match (*segment, at) {
            (Some(s), Some((family, o))) if s.family == family => Some(Segment {
                family,
                min: s.min.min(o),
                max: s.max.max(o),
            }),
            _ => None,
        };
    };
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                dst,
                rhs:
                    Rhs::ReadIndex {
                        place,
                        index: Operand::Var(v),
                    },
                ..
            } if !e.body.vars[dst.0].maybe_array => note(*place, index.get(v).copied()),
            Stmt::WriteIndex {
                cell,
                index: Operand::Var(v),
                ..
            } => note(Place::Cell(*cell), index.get(v).copied()),
            _ => {}
        }
    }
    let eligible = eligible_cells(e);
    found
        .into_values()
        .filter_map(|(place, segment, accesses)| {
            let segment = segment?;
            let ok = match place {
                Place::Var(p) => e.slice_params.contains(&p),
                Place::Cell(c) => eligible.contains(&c),
            };
            // indexed there and nowhere else in the loop
            (ok && mentions_block(block, place) == accesses).then_some((place, segment))
        })
        .collect()
}

/// The counters stepped by one exactly once in each iteration, by a statement of the
/// body itself (at its position), and nowhere in the blocks nested in it.
fn counter_steps(e: &Emitter<'_>, block: &Block) -> HashMap<CellId, usize> {
    let mut top: HashMap<CellId, Vec<usize>> = HashMap::new();
    let mut nested: HashSet<CellId> = HashSet::new();
    for (position, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::Effect(ts) => {
                if let Some(c) = unit_step(e, ts) {
                    top.entry(c).or_default().push(position);
                }
            }
            Stmt::If { then, els, .. } => {
                nested_steps(e, then, &mut nested);
                nested_steps(e, els, &mut nested);
            }
            Stmt::Loop { body, .. } => nested_steps(e, body, &mut nested),
            _ => {}
        }
    }
    top.into_iter()
        .filter(|(c, at)| at.len() == 1 && !nested.contains(c))
        .map(|(c, at)| (c, at[0]))
        .collect()
}

fn nested_steps(e: &Emitter<'_>, block: &Block, out: &mut HashSet<CellId>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Effect(ts) if e.counter_undo.contains_key(&ts.to_string()) => {
                out.extend(CellId::mentioned_in(ts));
            }
            Stmt::If { then, els, .. } => {
                nested_steps(e, then, out);
                nested_steps(e, els, out);
            }
            Stmt::Loop { body, .. } => nested_steps(e, body, out),
            _ => {}
        }
    }
}

/// The counter a statement steps, when it is a counter's `c += 1;` (undone by `c -= 1;`).
fn unit_step(e: &Emitter<'_>, ts: &TokenStream) -> Option<CellId> {
    e.counter_undo.get(&ts.to_string())?;
    let (c, undo) = super::counter_step(ts)?;
    let id = c.ident();
    (undo.to_string() == quote!(#id -= 1;).to_string()).then_some(c)
}

/// `item`, `item + c`, `c + item` or `item - c` (`c` an integer literal): the offset.
pub(crate) fn item_offset(ts: &TokenStream, item: VarId) -> Option<i64> {
    let mut expr: syn::Expr = syn::parse2(ts.clone()).ok()?;
    while let syn::Expr::Paren(p) = expr {
        expr = *p.expr;
    }
    let is_item = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| *i == item.ident()));
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(k),
            ..
        }) if matches!(k.suffix(), "" | "usize") => k.base10_parse::<i64>().ok(),
        _ => None,
    };
    if is_item(&expr) {
        return Some(0);
    }
    let syn::Expr::Binary(b) = &expr else {
        return None;
    };
    match b.op {
        syn::BinOp::Add(_) if is_item(&b.left) => literal(&b.right),
        syn::BinOp::Add(_) if is_item(&b.right) => literal(&b.left),
        syn::BinOp::Sub(_) if is_item(&b.left) => literal(&b.right).map(|k| -k),
        _ => None,
    }
}

/// The cells a part can be taken of: made once by `vec![…]`, an array literal or
/// `to_vec()` (a slice's type), never grown, resized or written whole again, and no
/// `&mut` parameter's; their adjoints have their lengths.
pub(crate) fn eligible_cells(e: &Emitter<'_>) -> HashSet<CellId> {
    fn walk(block: &Block, writes: &mut HashMap<CellId, Vec<Option<VarId>>>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::WriteCell { cell, value } => {
                    writes.entry(*cell).or_default().push(match value {
                        Operand::Var(v) => Some(*v),
                        _ => None,
                    })
                }
                Stmt::Grow { cell, .. } | Stmt::Extent { cell, .. } => {
                    writes.entry(*cell).or_default().push(None)
                }
                Stmt::If { then, els, .. } => {
                    walk(then, writes);
                    walk(els, writes);
                }
                Stmt::Loop { body, .. } => walk(body, writes),
                _ => {}
            }
        }
    }
    let mut writes = HashMap::new();
    walk(&e.body.block, &mut writes);
    (writes.iter())
        .filter(|(c, w)| {
            !e.grown.contains(c)
                && matches!(w[..], [Some(v)] if slice_made(e.defs.get(&v).copied()))
                && e.body.cells[c.0].bound_to.is_none()
        })
        .map(|(c, _)| *c)
        // a `&mut` slice parameter's cell, never written whole: the parameter itself
        .chain((e.body.cells.iter().enumerate()).filter_map(|(c, info)| {
            let p = info.bound_to?;
            (e.slice_params.contains(&p) && !writes.contains_key(&CellId(c))).then_some(CellId(c))
        }))
        .collect()
}

/// Whether a value is made as a `Vec` or an array for certain.
fn slice_made(rhs: Option<&Rhs>) -> bool {
    match rhs {
        Some(Rhs::Inactive(ts)) => {
            let Ok(expr) = syn::parse2::<syn::Expr>(ts.clone()) else {
                return false;
            };
            match expr {
                syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
                syn::Expr::Repeat(_) | syn::Expr::Array(_) => true,
                _ => false,
            }
        }
        Some(Rhs::Owned { method, .. }) => method == "to_vec",
        _ => false,
    }
}

/// The parameters a part can be taken of: slices and `Vec`s (`&[T]`, `&Vec<T>`, `Vec<T>`,
/// `&mut [T]` through its cell, arrays), indexed by position.
pub(crate) fn slice_params(sig: &crate::signature::Signature) -> HashSet<VarId> {
    fn slice_like(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => slice_like(&r.elem),
            syn::Type::Slice(_) | syn::Type::Array(_) => true,
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Vec" && p.qself.is_none()),
            syn::Type::Paren(p) => slice_like(&p.elem),
            _ => false,
        }
    }
    (sig.params.iter().enumerate())
        .filter(|(_, p)| slice_like(&p.ty) && !p.by_ref && !p.scalar_out())
        .map(|(i, _)| VarId(i))
        .collect()
}

/// The statements binding the parts before the loop (inside `if n != 0`), given the
/// loop's `start` and trip count `n`, and those pinning each counter at the top of
/// iteration `k`; only for the places `body` (the loop's reverse) names.
pub(crate) fn bind(
    e: &mut Emitter<'_>,
    plan: &[(Place, Segment)],
    start: &TokenStream,
    n: &syn::Ident,
    k: &syn::Ident,
    body: &TokenStream,
) -> Option<(TokenStream, TokenStream)> {
    let rt = crate::emit::rt();
    let mut before = TokenStream::new();
    let mut pins = TokenStream::new();
    let mut bases: HashMap<Family, syn::Ident> = HashMap::new();
    let mut any = false;
    for (place, s) in plan {
        let (primal, adjoint) = match place {
            Place::Var(p) => (p.ident(), p.adjoint()),
            Place::Cell(c) => (c.ident(), c.adjoint()),
        };
        let active = match place {
            Place::Var(p) => e.body.is_active(*p),
            Place::Cell(c) => e.body.cells[c.0].active,
        };
        let read = crate::impls::mentions(body, &primal);
        let added = active && crate::impls::mentions(body, &adjoint);
        if !read && !added {
            continue;
        }
        any = true;
        let base = bases.entry(s.family).or_insert_with(|| {
            let b = e.fresh("__base");
            let value = match s.family {
                Family::Item => start.clone(),
                Family::Counter(c) => {
                    let id = c.ident();
                    pins.extend(quote!(#id = #b + #k + 1;));
                    quote!(#id - #n)
                }
            };
            before.extend(quote!(let #b: usize = #value;));
            b
        });
        let lo = offset(base, s.min);
        let hi = offset(base, s.max);
        let hi = quote!((#hi + #n));
        if read {
            before.extend(quote!(let #primal = #rt::saved::Part::new(&#primal[..], #lo, #hi);));
        }
        if added {
            before.extend(quote! {
                let mut #adjoint = #rt::saved::PartMut::new(
                    #rt::saved::Split::split(&mut #adjoint, #lo, #hi),
                    #lo,
                );
            });
        }
    }
    any.then_some((before, pins))
}

/// `base + o` (`base − |o|` for a negative `o`), as `usize` arithmetic.
pub(crate) fn offset(base: &impl quote::ToTokens, o: i64) -> TokenStream {
    let k = proc_macro2::Literal::usize_unsuffixed(o.unsigned_abs() as usize);
    match o {
        0 => quote!(#base),
        o if o > 0 => quote!((#base + #k)),
        _ => quote!((#base - #k)),
    }
}
