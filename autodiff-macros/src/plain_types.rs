//! Parameters of the user's types: one error, at the parameter, for a type that is not
//! `Differentiable`.
//!
//! A parameter whose type is a plain path (`p: &Params`, `c: Coefficients`) is a type the
//! macro cannot see: a struct with `#[derive(Differentiable)]` or one without. Its tangent is
//! named in every companion, so a type that is not `Differentiable` would fail that bound at
//! every place. Instead, for such a function: every token the macro writes is placed at the
//! type (in the macro's own context), each generated body starts with a guard naming the
//! tangent, and the helpers' generic entry points assume the bound (checked where a helper
//! is used, not where defined). rustc reports identical failures at one place once, and
//! within a body a later failure of the same bound at the same place not at all: one error,
//! at the parameter. A `Differentiable` type meets every bound and nothing changes.

use crate::companions::rt;
use crate::signature::Signature;
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};

/// What a function with differentiable parameters of plain-path types puts in its
/// companions and its prologue.
pub(crate) struct PlainGuard {
    /// The first such type's place (with the macro's context).
    pub span: Span,
    /// A statement naming the tangent of every such type, at its place
    /// (`let _: PhantomData<<Data as Differentiable>::Tangent>;`).
    pub guard: TokenStream,
    /// `for<'w> Data: Differentiable` for every such type: assumed by the helpers' generic
    /// entry points (not checked where they are defined, so their bounds naming the tangent
    /// report nothing there), checked where a helper uses them.
    pub bounds: Vec<TokenStream>,
}

/// The guard of a function with differentiable parameters of plain-path types, if it has.
pub(crate) fn plain_guard(sig: &Signature) -> Option<PlainGuard> {
    let rt = rt();
    let mut first = None;
    let mut guard = TokenStream::new();
    let mut bounds = Vec::new();
    for p in sig.params.iter().filter(|p| p.differentiable) {
        let mut ty = &p.ty;
        while let syn::Type::Reference(r) = ty {
            ty = &r.elem;
        }
        let syn::Type::Path(path) = ty else { continue };
        let plain = path.qself.is_none()
            && (path.path.segments.iter()).all(|s| s.arguments.is_none() && s.ident != "Self")
            && !(path.path.get_ident()).is_some_and(|i| {
                sig.type_params.contains(i) || crate::rules::is_float_type_name(&i.to_string())
            });
        if !plain {
            continue;
        }
        // (the macro's own context at the type's place, as every token of the companions)
        let span = Span::call_site().located_at(syn::spanned::Spanned::span(ty));
        first.get_or_insert(span);
        let ty = relocated(ty.to_token_stream(), span);
        guard.extend(quote_spanned! {span=>
            let _: ::core::marker::PhantomData<<#ty as #rt::Differentiable>::Tangent>;
        });
        bounds.push(quote_spanned! {span=>
            for<'__autodiff_w> #ty: #rt::Differentiable
        });
    }
    first.map(|span| PlainGuard {
        span,
        guard,
        bounds,
    })
}

impl PlainGuard {
    /// The companions' `impl` items with the macro's tokens at the type and the guard (and
    /// the entry points' bounds) in place.
    pub(crate) fn apply(&self, items: TokenStream) -> TokenStream {
        self.guarded(self.at_type(items))
    }

    /// `stream` with every token the macro wrote (at its call site) moved to the type, the
    /// tokens of the user's code left where they are.
    ///
    /// Spans have no equality on stable Rust; their debug form names the context and the
    /// location (`#6 bytes(143..160)`), and the location is compared (the macro's
    /// mixed-site names are at the call site too, in another context, which they keep).
    /// Were the form to change, nothing would move: the code is the same, only a bad
    /// parameter type would be reported at more places.
    pub(crate) fn at_type(&self, stream: TokenStream) -> TokenStream {
        let location = |span: Span| {
            let d = format!("{span:?}");
            match d.split_once(' ') {
                Some((_, b)) => b.to_string(),
                None => d,
            }
        };
        let site = location(Span::call_site());
        respan(stream, &|s| {
            (location(s) == site).then(|| s.located_at(self.span))
        })
    }

    /// `items` with the guard first in every function's body, and the bounds on the
    /// helpers' entry points (those generic over the selection `__S` or a refused helper's
    /// result `__R`). A scan of the tokens, not a parse (a parse doubled the macro's time on
    /// such functions): an item starts with `fn name` (not a function-pointer type
    /// `fn(f64)`), and its body is the brace group at the top level that ends it (not a
    /// const generic argument's block, `SVector<f32, { N }>`, which `>` or `,` follows).
    fn guarded(&self, items: TokenStream) -> TokenStream {
        let (guard, bounds) = (&self.guard, &self.bounds);
        let trees: Vec<TokenTree> = items.into_iter().collect();
        let ends_item = |next: Option<&TokenTree>| match next {
            None => true,
            Some(TokenTree::Punct(p)) => p.as_char() == '#',
            Some(TokenTree::Ident(i)) => {
                ["pub", "fn", "const", "unsafe", "async", "extern", "type"]
                    .iter()
                    .any(|w| i == w)
            }
            _ => false,
        };
        let mut out: Vec<TokenTree> = Vec::new();
        let (mut in_fn, mut entry, mut has_where) = (false, false, false);
        for (k, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(i)
                    if i == "fn" && matches!(trees.get(k + 1), Some(TokenTree::Ident(_))) =>
                {
                    (in_fn, entry, has_where) = (true, false, false);
                }
                TokenTree::Ident(i) if in_fn && (i == "__S" || i == "__R") => entry = true,
                TokenTree::Ident(i) if in_fn && i == "where" => has_where = true,
                TokenTree::Group(b)
                    if in_fn
                        && b.delimiter() == Delimiter::Brace
                        && ends_item(trees.get(k + 1)) =>
                {
                    if entry && !bounds.is_empty() {
                        // (after a `,`, or a `where` with no predicate yet, nothing to add)
                        let comma = match out.last() {
                            Some(TokenTree::Punct(p)) => p.as_char() == ',',
                            Some(TokenTree::Ident(i)) => i == "where",
                            _ => false,
                        };
                        let head = match (has_where, comma) {
                            (false, _) => quote!(where),
                            (true, false) => quote!(,),
                            (true, true) => quote!(),
                        };
                        out.extend(quote!(#head #(#bounds),*));
                    }
                    let stream = b.stream();
                    let mut body = Group::new(Delimiter::Brace, quote!(#guard #stream));
                    body.set_span(b.span());
                    out.push(TokenTree::Group(body));
                    in_fn = false;
                    continue;
                }
                _ => {}
            }
            out.push(tree.clone());
        }
        out.into_iter().collect()
    }
}

/// Every token of `stream` with `span`'s context and location.
pub(crate) fn relocated(stream: TokenStream, span: Span) -> TokenStream {
    respan(stream, &|_| Some(span))
}

/// `stream` with each token's span replaced where `to` gives one (groups and their tokens
/// alike).
fn respan(stream: TokenStream, to: &dyn Fn(Span) -> Option<Span>) -> TokenStream {
    stream
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), to));
                group.set_span(to(g.span()).unwrap_or(g.span()));
                TokenTree::Group(group)
            }
            mut t => {
                if let Some(s) = to(t.span()) {
                    t.set_span(s);
                }
                t
            }
        })
        .collect()
}
