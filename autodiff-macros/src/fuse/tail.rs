//! A function whose body is one call of another differentiable function, its result the
//! function's (`fn rosenbrock(x: &[f64]) -> f64 { rosenbrock_ab(x, 1.0, 100.0) }`, the
//! way published code gives a general function its usual constants): with the output's
//! cotangent known up front, the whole derivative is the callee's for that cotangent. The
//! function's `__seeded` hands its arguments and the cotangent to the callee's `__seeded`
//! — the callee's fused sweep where it has one (`fuse`), its forward sweep and pullback
//! otherwise (`runtime::entry`'s `Entries{n}::__seeded`, or its own) — and passes on the
//! gradients of the callee's parameters its own were handed to. Without it the call went
//! through the callee's pullback, whose forward sweep keeps a tape: 3.4× the fused
//! callee's time for argmin's Rosenbrock (n = 10⁴).
//!
//! It applies when every differentiable parameter is a float, or a float slice or `Vec`
//! read (not written), handed to the call as it is, once, and every other argument is
//! constant (statements before the call may compute such constants); the callee's gradient
//! at that position is then of the parameter's own gradient type. The call's result may be
//! negated, scaled or shifted by constants before it is returned (`-log_likelihood(…)`,
//! `0.5 * sum_of_squares(…)`, `loss(…) / n as f64`): the callee's cotangent is then the
//! output's taken back through those steps first, by the rules the pullback runs.

use crate::companions::{call, is_method_form, rt};
use crate::ir::{Body, Operand, Prim, Rhs, Stmt, Value, VarId};
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The body of `__seeded` for a function that only calls another (see the module), or
/// `None`.
pub fn tail_body(sig: &Signature, body: &Body) -> Option<TokenStream> {
    if !body.items.is_empty() {
        return None;
    }
    // constants first (`self.k`, `T::from(100.0).unwrap()`), then the call, then what
    // scales or shifts its result by constants
    let stmts = &body.block.stmts;
    let at = stmts.iter().position(|s| {
        matches!(
            s,
            Stmt::Let {
                rhs: Rhs::Call { .. },
                ..
            }
        )
    })?;
    let Stmt::Let {
        dst,
        rhs: Rhs::Call { func, args },
        span,
        ..
    } = &stmts[at]
    else {
        return None;
    };
    let (before, after) = (&stmts[..at], &stmts[at + 1..]);
    if !before
        .iter()
        .all(|s| matches!(s, Stmt::Let { dst, .. } if !body.is_active(*dst)))
        || is_method_form(func)
    {
        return None;
    }
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let (seed, hoisted, scaling) = after_the_call(body, *dst, after, quote!(#dy))?;
    // each differentiable parameter: the one position it is handed at
    let mut positions = Vec::with_capacity(sig.params.len());
    for (k, p) in sig.params.iter().enumerate() {
        if !p.differentiable {
            positions.push(None);
            continue;
        }
        let scalar = crate::signature::is_float_of(&p.ty, &sig.type_params);
        if p.in_out || p.mutable || !(scalar || p.shadow.is_some()) {
            return None;
        }
        let mut at = args
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a, Operand::Var(v) if v.0 == k));
        let (Some((j, _)), None) = (at.next(), at.next()) else {
            return None;
        };
        positions.push(Some(j));
    }
    // every other argument constant
    let constant = |a: &Operand| match a {
        Operand::Inline(_) => true,
        Operand::Var(v) | Operand::Ref(v) => !body.is_active(*v),
        Operand::MutRef { .. } => false,
    };
    let handed = |j: usize| positions.contains(&Some(j));
    if !(args.iter().enumerate()).all(|(j, a)| handed(j) || constant(a)) {
        return None;
    }
    let rt = rt();
    let gradients = format_ident!("__gradients", span = Span::mixed_site());
    let mut operands: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
    operands.push(seed);
    let seeded = call(func, Some("seeded"), &operands, *span);
    // (a callee keeping a position constant, `#[no_grad]`, returns no gradient there: the
    // parameter's is zero, of its length)
    let mut lengths = TokenStream::new();
    let own: Vec<TokenStream> = (positions.iter().enumerate())
        .map(|(k, p)| match p {
            Some(j) if sig.params[k].shadow.is_some() => {
                let (j, v) = (syn::Index::from(*j), VarId(k).ident());
                let len = format_ident!("__len{}", k, span = Span::mixed_site());
                lengths.extend(quote!(let #len = #v.len();));
                quote!(#rt::entry::handed_sequence(#len, #gradients.#j))
            }
            Some(j) => {
                let j = syn::Index::from(*j);
                quote!(#rt::entry::handed_scalar(#gradients.#j))
            }
            None => quote!(#rt::NoTangent),
        })
        .collect();
    let e = crate::emit::new_emitter(sig, body);
    let (mut constants, mut scaled) = (TokenStream::new(), TokenStream::new());
    for stmt in before.iter().chain(hoisted) {
        e.fwd_stmt(&mut constants, stmt);
    }
    for stmt in scaling {
        e.fwd_stmt(&mut scaled, stmt);
    }
    let (called, value) = (dst.ident(), body.output.tokens());
    Some(quote! {
        #constants
        #lengths
        let (#called, #gradients) = #seeded;
        #scaled
        (#value, (#(#own,)*))
    })
}

/// What follows the call, when it only scales or shifts the call's result by constants
/// (`-r`, `0.5 * r`, `r / n as f64`, `r + c`, each the previous one's result, the last the
/// output): the call's cotangent from the output's `dy`, by the reverse of each step with
/// the rules the pullback runs (`ops::mul_d0`…, which read the constants only); the
/// statements computing constants from constants (`n as f64`), to run before the call; and
/// the steps, to run after it.
fn after_the_call<'a>(
    body: &Body,
    call: VarId,
    after: &'a [Stmt],
    dy: TokenStream,
) -> Option<(TokenStream, Vec<&'a Stmt>, Vec<&'a Stmt>)> {
    let rt = rt();
    let mut chain = vec![call];
    let (mut constants, mut scaling) = (Vec::new(), Vec::new());
    let mut steps = Vec::new();
    for stmt in after {
        let Stmt::Let { dst, rhs, .. } = stmt else {
            return None;
        };
        let constant = |o: &Operand| match o {
            Operand::Var(v) => !body.is_active(*v) && !chain.contains(v),
            other => other.is_literal(),
        };
        // (a constant computed after the call runs before it: operators, casts and reads
        // of constants, which no call can observe)
        let hoisted = !body.is_active(*dst)
            && match rhs {
                Rhs::Prim(_, args) => args.iter().all(constant),
                Rhs::Inactive(tokens) => {
                    calls_nothing(tokens.clone())
                        && !rhs.vars_read().iter().any(|v| chain.contains(v))
                }
                _ => false,
            };
        if hoisted {
            constants.push(stmt);
            continue;
        }
        let Rhs::Prim(prim, args) = rhs else {
            return None;
        };
        let last = *chain.last()?;
        let is_last = |o: &Operand| matches!(o, Operand::Var(v) if *v == last);
        // (the rule, and the constant it reads)
        let step = match (prim, args.as_slice()) {
            (Prim::Neg, [a]) if is_last(a) => (quote!(#rt::ops::neg_d0), None),
            (Prim::Binary { op, .. }, [a, b]) => {
                // (a constant expression is evaluated for the cotangent and for the value:
                // a literal, or a variable)
                let (first, other) = match (is_last(a), is_last(b)) {
                    (true, false) if constant(b) => (true, b),
                    (false, true) if constant(a) => (false, a),
                    _ => return None,
                };
                let c = Some(other.tokens());
                match (op, first) {
                    (syn::BinOp::Add(_), true) => (quote!(#rt::ops::add_d0), None),
                    (syn::BinOp::Add(_), false) => (quote!(#rt::ops::add_d1), None),
                    (syn::BinOp::Sub(_), true) => (quote!(#rt::ops::sub_d0), None),
                    (syn::BinOp::Sub(_), false) => (quote!(#rt::ops::sub_d1), None),
                    (syn::BinOp::Mul(_), true) => (quote!(#rt::ops::mul_d0), c),
                    (syn::BinOp::Mul(_), false) => (quote!(#rt::ops::mul_d1), c),
                    (syn::BinOp::Div(_), true) => (quote!(#rt::ops::div_d0), c),
                    _ => return None,
                }
            }
            _ => return None,
        };
        steps.push(step);
        scaling.push(stmt);
        chain.push(*dst);
    }
    if !matches!(&body.output, Value::Var(v) if Some(v) == chain.last()) {
        return None;
    }
    // the last step's reverse first
    let seed = steps.iter().rev().fold(dy, |dy, (rule, c)| match c {
        Some(c) => quote!(#rule(&#c, &#dy)),
        None => quote!(#rule(&#dy)),
    });
    Some((seed, constants, scaling))
}

/// Whether code kept as written calls nothing: no call (a parenthesis after a name or a
/// turbofish), no method call or field (`.`) but a length (`.len()`), no macro (`!`).
fn calls_nothing(tokens: TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        let ok = match &tokens[i] {
            TokenTree::Group(g) => {
                let called = g.delimiter() == Delimiter::Parenthesis
                    && match i.checked_sub(1).map(|p| &tokens[p]) {
                        Some(TokenTree::Ident(_)) => true,
                        Some(TokenTree::Punct(p)) => p.as_char() == '>',
                        _ => false,
                    };
                !called && calls_nothing(g.stream())
            }
            TokenTree::Punct(p) if p.as_char() == '.' => {
                let length = matches!(tokens.get(i + 1), Some(TokenTree::Ident(m)) if m == "len")
                    && matches!(tokens.get(i + 2), Some(TokenTree::Group(g))
                        if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
                // (past the name and its empty parentheses)
                i += 2 * usize::from(length);
                length
            }
            TokenTree::Punct(p) => !matches!(p.as_char(), '!' | ';'),
            _ => true,
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}
