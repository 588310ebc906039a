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
//! at that position is then of the parameter's own gradient type.

use crate::companions::{call, is_method_form, rt};
use crate::ir::{Body, Operand, Rhs, Stmt, Value, VarId};
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The body of `__seeded` for a function that only calls another (see the module), or
/// `None`.
pub fn tail_body(sig: &Signature, body: &Body) -> Option<TokenStream> {
    if !body.items.is_empty() {
        return None;
    }
    // constants first (`self.k`, `T::from(100.0).unwrap()`), then the call
    let Some((
        Stmt::Let {
            dst,
            rhs: Rhs::Call { func, args },
            span,
            ..
        },
        before,
    )) = body.block.stmts.split_last()
    else {
        return None;
    };
    if !before
        .iter()
        .all(|s| matches!(s, Stmt::Let { dst, .. } if !body.is_active(*dst)))
    {
        return None;
    }
    if !matches!(&body.output, Value::Var(v) if v == dst) || is_method_form(func) {
        return None;
    }
    // each differentiable parameter: the one position it is handed at
    let mut positions = Vec::with_capacity(sig.params.len());
    for (k, p) in sig.params.iter().enumerate() {
        if !p.differentiable {
            positions.push(None);
            continue;
        }
        let scalar = crate::signature::is_float(&p.ty)
            || matches!(&p.ty, syn::Type::Path(t) if t.qself.is_none()
                && sig.type_params.iter().any(|f| t.path.is_ident(f)));
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
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let value = format_ident!("__value", span = Span::mixed_site());
    let gradients = format_ident!("__gradients", span = Span::mixed_site());
    let mut operands: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
    operands.push(quote!(#dy));
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
    let mut constants = TokenStream::new();
    let e = crate::emit::new_emitter(sig, body);
    for stmt in before {
        e.fwd_stmt(&mut constants, stmt);
    }
    Some(quote! {
        #constants
        #lengths
        let (#value, #gradients) = #seeded;
        (#value, (#(#own,)*))
    })
}
