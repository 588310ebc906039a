//! Emission of a fused derivative (see the module's documentation for the plan).

use crate::emit::*;
use crate::ir::{Block, Body, CellId, LoopHead, Operand, RegionId, Stmt, Value, VarId};
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashSet;

/// The body of the seeded derivative, `(inputs…, cotangent) -> (value, gradients)`, when
/// the body has a loop to fuse (see `fuse`): the forward sweep up to the loop, the reverse
/// of what follows the loop (which needs no value computed after it), the loop with each
/// iteration's reverse at its end, the rest of the forward sweep, then the reverse of what
/// precedes the loop.
pub fn seeded_body(sig: &Signature, body: &Body) -> Option<TokenStream> {
    seeded_with(sig, body, None)
}

/// [`seeded_body`], with the slice parameters `split` taken apart, on the float type given
/// (see `fuse::split`): `None` where the split sweep meets a form it does not write.
pub(crate) fn seeded_with(
    sig: &Signature,
    body: &Body,
    split: Option<(&HashSet<VarId>, TokenStream)>,
) -> Option<TokenStream> {
    let plan = crate::fuse::plan(body)?;
    let rt = rt();
    let stmts = &body.block.stmts;
    let Stmt::Loop {
        head,
        body: lbody,
        count,
        flow,
    } = &stmts[plan.index]
    else {
        return None;
    };
    let mut e = new_emitter(sig, body);
    if let Some((params, float)) = split {
        e.split = params.clone();
        e.split_float = float;
        e.slice_params.retain(|p| !params.contains(p));
    }
    // A buffer the iteration makes again (`let mut v = vec![0.0; n]` in the body): its
    // adjoint, started before the loop, does not have the buffer's length yet, so its
    // element rules grow it as needed.
    fn assigned(block: &Block, out: &mut HashSet<CellId>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::WriteCell { cell, .. } => {
                    out.insert(*cell);
                }
                Stmt::If { then, els, .. } => {
                    assigned(then, out);
                    assigned(els, out);
                }
                Stmt::Loop { body, .. } => assigned(body, out),
                _ => {}
            }
        }
    }
    assigned(lbody, &mut e.grown);
    // The iteration's own values are in scope for its reverse: neither saved nor computed
    // again (floats only: they are `Copy`).
    let item = match head {
        LoopHead::For { item, .. } => {
            e.reverse_bound.insert(*item);
            Some(*item)
        }
        LoopHead::Infinite => None,
    };
    for stmt in &lbody.stmts {
        if let Stmt::Let { dst, .. } = stmt {
            if body.is_active(*dst) && !body.vars[dst.0].maybe_array {
                e.reverse_bound.insert(*dst);
            }
        }
    }
    for (p, offsets) in plan.carried {
        let c = Carried {
            offsets,
            region: lbody.region,
            here: e.fresh("__here"),
            carry: e.fresh("__carry"),
            at: e.fresh("__at"),
            hot: e.fresh("__hot"),
            carry_assigned: None,
            here_assigned: None,
        };
        e.carried.insert(p, c);
    }
    let pre = e.start_region(RegionId::BODY);
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let mut after_rev = TokenStream::new();
    e.seed(&mut after_rev, &body.output, quote!(#dy));
    for stmt in stmts[plan.index + 1..].iter().rev() {
        e.rev_stmt(&mut after_rev, stmt);
    }
    e.invariant = plan.accumulators;
    let iteration_rev = e.rev_block(lbody, None);
    e.invariant.clear();
    let mut before_rev = TokenStream::new();
    for stmt in stmts[..plan.index].iter().rev() {
        e.rev_stmt(&mut before_rev, stmt);
    }
    let mut zeros = TokenStream::new();
    for v in &pre {
        zeros.extend(e.zero_adjoint(*v));
    }
    // Carried registers: declared before the loop, taken over at each iteration's start,
    // element `i` stored once at its end (the slice's adjoint is still zero there: nothing
    // else reaches it before or during the loop), the last `i + 1` after the loop.
    let mut regs = TokenStream::new();
    let mut start = TokenStream::new();
    let mut end = TokenStream::new();
    let mut flush = TokenStream::new();
    // A cell made afresh in the iteration (`let mut v = vec![0.0; n];` in the loop's body):
    // its adjoint, zero here, takes the shape of the iteration's value (it was made from
    // the value the cell is declared with, before the loop).
    for c in &plan.fresh {
        if e.moved.values().any(|m| m == c) {
            continue;
        }
        let (c, d) = (c.ident(), c.adjoint());
        start.extend(quote! {{
            #[allow(unused_imports)]
            use #rt::ops::{FitAny as _, FitVec as _};
            (&mut #rt::ops::Fit(&mut #d, &#c)).fit();
        }});
    }
    let mut carried: Vec<(&VarId, &Carried)> = e.carried.iter().collect();
    carried.sort_by_key(|(p, _)| **p);
    let item = item.map(VarId::ident);
    for (p, c) in carried {
        let (d, here, carry, at, hot) = (p.adjoint(), &c.here, &c.carry, &c.at, &c.hot);
        // (a split parameter's adjoint holds the tangents, its registers dual numbers)
        let split = e.split.contains(p);
        let store = |i: TokenStream, value: &syn::Ident| match split {
            true => quote!(#rt::dual::split::store(&mut #d, #i, #value);),
            false => quote!(#d[#i] = #value;),
        };
        let zero = match split {
            true => {
                let t = &e.split_float;
                quote!(<#t as #rt::dual::split::Joined>::joined_zero())
            }
            false => quote!(#rt::ops::element_zero(&#d)),
        };
        let stored = store(quote!(#item), here);
        end.extend(quote! {
            if #hot { #stored }
        });
        // (a read of `i + 1` whose value has no derivative contributes nothing)
        if c.carry_assigned.is_none() {
            start.extend(quote! {
                let mut #here = #zero;
                let mut #hot = false;
            });
            continue;
        }
        regs.extend(quote! {
            let mut #carry = #zero;
            let mut #at = ::core::option::Option::None;
        });
        let reset = (c.carry_assigned == Some(false)).then(|| quote!(#carry = #zero;));
        start.extend(quote! {
            let mut #here = #carry;
            let mut #hot = #at.take().is_some();
            #reset
        });
        let flushed = store(quote!(__k), carry);
        flush.extend(quote! {
            if let ::core::option::Option::Some(__k) = #at { #flushed }
        });
    }
    let fused = quote!({ #start #iteration_rev #end });
    let declarations = e.declarations();
    let (cell_adjoints, _) = e.cell_adjoints(None);
    // (each cell declared before the first statement naming it, see `emit::Declared`; the
    // rest before the reverse sweep's cell adjoints, which read them)
    let mut declared = crate::emit::Declared::new(e.cell_declarations());
    e.fwd_stmts(&stmts[..plan.index], &mut declared);
    let before = declared.finish();
    let fused_loop = e.fwd_loop(head, lbody, *count, *flow, Some(fused));
    let mut after = TokenStream::new();
    for stmt in &stmts[plan.index + 1..] {
        e.fwd_stmt(&mut after, stmt);
    }
    let grads_value = e.gradients(sig);
    let output = match &body.output {
        Value::Var(v) => e.kept(&Operand::Var(*v)),
        other => other.tokens(),
    };
    if e.split_refused.get() {
        return None;
    }
    let items = &body.items;
    Some(quote! {
        #(#items)*
        #declarations
        #before
        #cell_adjoints
        #zeros
        #after_rev
        #regs
        #fused_loop
        #flush
        #after
        #before_rev
        (#output, #grads_value)
    })
}
