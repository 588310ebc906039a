//! The split sweep `hvp!` runs: the fused gradient on dual numbers, its slice parameters
//! taken apart.
//!
//! `hvp!` of a function generic over its float type runs the fused gradient (`__seeded`)
//! on `Dual<T>`: each slice parameter is copied into a buffer of dual numbers (the argument
//! and the vector interleaved), the gradient is a buffer of dual numbers zeroed first, and
//! its tangents are copied out into the product. Four passes over memory around the one
//! that computes, which at 10⁵ elements and more cost more than the sweep itself.
//!
//! A slice parameter the body only indexes (element reads `x[i]`, in conditions and
//! constants kept as written too, and `x.len()`) needs
//! none of them: the split sweep `__seeded_split` takes the argument and the vector as they
//! are and reads element `i` as `Dual::new(x[i], v[i])`; its adjoint is a buffer of plain
//! floats receiving the tangents of the element's adjoints — the product itself — as the
//! dual gradient's tangents receive them, in the same order: the same bits, with one pass
//! over the argument, the vector and the product.
//!
//! Only reads at the body's top level, in its branches and in the fused loop are taken
//! apart (the reverse of another loop may read a slice through parts, see
//! `emit::segments`); a parameter mentioned any other way (passed to a call, sliced,
//! iterated, copied) keeps the dual buffer, and a function with no parameter to take apart
//! has no split sweep.

use crate::ir::{Block, Body, LoopHead, Operand, Rhs, Stmt, VarId};
use crate::signature::Signature;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::HashSet;

/// The split sweep of a function: its body (the statements of `__seeded_split`), the
/// positions of the parameters taken apart and their element type (the float type).
pub struct SplitSweep {
    pub body: TokenStream,
    pub positions: Vec<usize>,
    pub float: syn::Ident,
}

/// The element type of a parameter `&[X]` with `X` a type parameter of the function.
fn slice_of_type_param(sig: &Signature, ty: &syn::Type) -> Option<syn::Ident> {
    let syn::Type::Reference(r) = ty else {
        return None;
    };
    if r.mutability.is_some() {
        return None;
    }
    let syn::Type::Slice(s) = &*r.elem else {
        return None;
    };
    let syn::Type::Path(p) = &*s.elem else {
        return None;
    };
    let id = p.path.get_ident()?;
    (p.qself.is_none() && sig.generics.type_params().any(|t| t.ident == *id)).then(|| id.clone())
}

/// Whether every mention of `v` in `ts` reads its length (`v.len()`, `v.is_empty()`),
/// or — `elements` — one of its elements (`v[i]`, no range).
fn mentions_ok(ts: &TokenStream, v: VarId, elements: bool) -> bool {
    let name = v.ident().to_string();
    let tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    tokens.iter().enumerate().all(|(k, tt)| match tt {
        TokenTree::Ident(id) if *id == name => {
            let length = matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.')
                && matches!(tokens.get(k + 2), Some(TokenTree::Ident(m)) if m == "len" || m == "is_empty")
                && matches!(tokens.get(k + 3), Some(TokenTree::Group(g))
                    if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
            let element = elements
                && matches!(tokens.get(k + 1), Some(TokenTree::Group(g))
                    if g.delimiter() == Delimiter::Bracket && !has_range(&g.stream()));
            length || element
        }
        TokenTree::Group(g) => mentions_ok(&g.stream(), v, elements),
        _ => true,
    })
}

/// Whether the tokens of an index may hold a range (`..`, in parentheses too).
fn has_range(ts: &TokenStream) -> bool {
    let tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    tokens.windows(2).any(|w| {
        matches!((&w[0], &w[1]), (TokenTree::Punct(a), TokenTree::Punct(b))
            if a.as_char() == '.' && b.as_char() == '.')
    }) || tokens.iter().any(|t| {
        matches!(t, TokenTree::Group(g)
            if matches!(g.delimiter(), Delimiter::Parenthesis | Delimiter::None)
                && has_range(&g.stream()))
    })
}

fn lengths_only(ts: &TokenStream, v: VarId) -> bool {
    mentions_ok(ts, v, false)
}

/// Code kept as written (a constant's expression, a condition) with each element read of a
/// split parameter `x[i]` as `split::join::<T>(x, tangent, i)` (see `Emitter::split`).
pub(crate) fn joined_reads(
    ts: &TokenStream,
    split: &HashSet<VarId>,
    float: &TokenStream,
) -> TokenStream {
    let rt = crate::companions::rt();
    let tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    let mut out = TokenStream::new();
    let mut k = 0;
    while k < tokens.len() {
        match &tokens[k] {
            TokenTree::Ident(id) => {
                let var = split.iter().find(|v| *id == v.ident());
                match (var, tokens.get(k + 1)) {
                    (Some(v), Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Bracket => {
                        let (x, t) = (v.ident(), crate::emit::tangent_var(*v));
                        let i = joined_reads(&g.stream(), split, float);
                        out.extend(quote::quote!(#rt::dual::split::join::<#float>(#x, #t, #i)));
                        k += 2;
                        continue;
                    }
                    _ => out.extend(std::iter::once(tokens[k].clone())),
                }
            }
            TokenTree::Group(g) => {
                let mut group =
                    proc_macro2::Group::new(g.delimiter(), joined_reads(&g.stream(), split, float));
                group.set_span(g.span());
                out.extend(std::iter::once(TokenTree::Group(group)));
            }
            other => out.extend(std::iter::once(other.clone())),
        }
        k += 1;
    }
    out
}

/// Whether the operand mentions `v` at most for its length.
fn operand_ok(o: &Operand, v: VarId) -> bool {
    match o {
        Operand::Inline(e) => lengths_only(&quote::ToTokens::to_token_stream(e), v),
        _ => !crate::emit::mentions_operand(o, v),
    }
}

/// Whether `block` mentions `v` only in the forms the split sweep writes: element reads
/// (outside loops other than the fused one, `elements` false there) and lengths.
fn block_ok(block: &Block, body: &Body, v: VarId, elements: bool, fused: Option<usize>) -> bool {
    block.stmts.iter().enumerate().all(|(k, stmt)| match stmt {
        Stmt::Let { dst, rhs, .. } => match rhs {
            Rhs::ReadIndex {
                place: crate::ir::Place::Var(p),
                index,
            } if *p == v => elements && !body.vars[dst.0].maybe_array && operand_ok(index, v),
            // (a constant's expression or a condition may read elements: `xs[i] > 0.0`)
            Rhs::Inactive(ts) => mentions_ok(ts, v, true),
            _ => crate::emit::mentions(stmt, v) == 0,
        },
        Stmt::Effect(ts) => lengths_only(ts, v),
        Stmt::If { cond, then, els } => {
            operand_ok(cond, v)
                && block_ok(then, body, v, elements, None)
                && block_ok(els, body, v, elements, None)
        }
        Stmt::Loop {
            head, body: lbody, ..
        } => {
            let head_ok = match head {
                LoopHead::For { iter, start, .. } => {
                    lengths_only(iter, v) && start.as_ref().is_none_or(|s| operand_ok(s, v))
                }
                LoopHead::Infinite => true,
            };
            head_ok && block_ok(lbody, body, v, elements && fused == Some(k), None)
        }
        _ => crate::emit::mentions(stmt, v) == 0,
    })
}

/// The split sweep of a function with a fused gradient (see the module's documentation),
/// or `None`: no parameter to take apart, or a form the split sweep does not write.
pub fn split_body(sig: &Signature, body: &Body) -> Option<SplitSweep> {
    // (most functions have no slice of a type parameter: no plan to make again)
    if !sig
        .params
        .iter()
        .any(|p| slice_of_type_param(sig, &p.ty).is_some())
    {
        return None;
    }
    let plan = crate::fuse::plan(body)?;
    let mut float: Option<syn::Ident> = None;
    let mut params = HashSet::new();
    let mut positions = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        if !p.differentiable || p.in_out || p.mutable {
            continue;
        }
        let Some(t) = slice_of_type_param(sig, &p.ty) else {
            continue;
        };
        if float.as_ref().is_some_and(|f| *f != t) {
            continue;
        }
        let v = VarId(i);
        if !body.is_active(v) || !block_ok(&body.block, body, v, true, Some(plan.index)) {
            continue;
        }
        float = Some(t);
        params.insert(v);
        positions.push(i);
    }
    let float = float?;
    let tokens = quote::quote!(#float);
    let body = crate::fuse::emit::seeded_with(sig, body, Some((&params, tokens)))?;
    Some(SplitSweep {
        body,
        positions,
        float,
    })
}
