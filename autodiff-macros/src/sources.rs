//! The source pre-pass: marks the reads differentiable code makes of values it did not
//! receive as differentiable parameters — captured names and fields of constant
//! parameters (`w1 * x`, `self.w * x`) — as `__autodiff_source_read!(place)`.
//!
//! A proc macro cannot know whether `w1` is a `Variable`, an `f64` or a `usize`; the marker
//! lets the compiler decide (see the runtime's `source` module): a variable is read as its
//! snapshot value and its gradient is deposited by the reverse sweep; anything else passes
//! through unchanged. The same marked body is the primal (so `w1 * x1` compiles with a
//! `Variable`) and the input of the lowering (which treats each marker as an active read).
//!
//! Only reads in *float positions* are marked — operands of arithmetic, of float methods
//! and of calls, elements of array literals, and float casts — so integers used as
//! bounds, indices or in comparisons stay as written. A variable anywhere else is not a
//! number and does not compile: never a silently missing gradient.

use crate::rules as prims;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::HashSet;
use syn::visit_mut::{self, VisitMut};

/// The last segment of the marker's path.
pub const MARKER: &str = "__autodiff_source_read";

/// Marks the source reads of `block`. `locals` are the names bound by the function itself
/// (parameters; every pattern binding of the body is added); `differentiable` are the
/// parameters with gradients, whose fields are not sources.
pub fn mark(block: &mut syn::Block, mut locals: HashSet<String>, differentiable: HashSet<String>) {
    let params = locals.clone();
    let mut names = Bindings(&mut locals);
    names.visit_block_mut(block);
    Marker {
        locals: &locals,
        params: &params,
        differentiable: &differentiable,
    }
    .visit_block_mut(block);
}

/// The elements of `vec![a, b, c]` (a list: not `vec![x; n]`, not another macro).
pub fn vec_list(
    mac: &syn::Macro,
) -> Option<syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>> {
    if !mac.path.is_ident("vec") {
        return None;
    }
    mac.parse_body_with(syn::punctuated::Punctuated::parse_terminated)
        .ok()
}

/// If `e` is a marker, the place it reads.
pub fn marked_place(e: &syn::Expr) -> Option<syn::Expr> {
    let syn::Expr::Macro(m) = e else { return None };
    if m.mac
        .path
        .segments
        .last()
        .is_some_and(|s| s.ident == MARKER)
    {
        syn::parse2(m.mac.tokens.clone()).ok()
    } else {
        None
    }
}

/// Whether `e` contains a marker (outside closures).
pub fn contains_marker(e: &syn::Expr) -> bool {
    struct Find(bool);
    impl syn::visit::Visit<'_> for Find {
        fn visit_macro(&mut self, m: &syn::Macro) {
            if m.path.segments.last().is_some_and(|s| s.ident == MARKER) {
                self.0 = true;
            }
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

struct Bindings<'a>(&'a mut HashSet<String>);

impl VisitMut for Bindings<'_> {
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        visit_mut::visit_pat_ident_mut(self, p);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

struct Marker<'a> {
    locals: &'a HashSet<String>,
    /// The parameters (the other locals are the body's own bindings).
    params: &'a HashSet<String>,
    differentiable: &'a HashSet<String>,
}

impl Marker<'_> {
    /// Whether `e` is a read to mark: a free lowercase name, or a field chain whose root is
    /// not a differentiable parameter.
    fn is_source(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) => {
                    let name = id.to_string();
                    let lower = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                    lower && !self.locals.contains(&name) && name != "self"
                }
                None => false,
            },
            syn::Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => {
                let mut root = &*f.base;
                while let syn::Expr::Field(inner) = root {
                    root = &inner.base;
                }
                // a field of a constant parameter or of a captured value, not of the
                // body's own bindings (`layer.w` for `layer` in `m.layers.iter()`)
                match root {
                    syn::Expr::Path(p) => p.path.get_ident().is_some_and(|id| {
                        let name = id.to_string();
                        !self.differentiable.contains(&name)
                            && (self.params.contains(&name) || !self.locals.contains(&name))
                    }),
                    _ => false,
                }
            }
            syn::Expr::Paren(p) => self.is_source(&p.expr),
            // `*w` for a captured `Arc<Variable<_>>` or reference
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.is_source(&u.expr),
            _ => false,
        }
    }

    fn mark_operand(&self, e: &mut syn::Expr) {
        // `&b`: the read is `b`'s, borrowed
        if let syn::Expr::Reference(r) = e {
            if r.mutability.is_none() {
                self.mark_operand(&mut r.expr);
            }
            return;
        }
        if self.is_source(e) {
            let place = std::mem::replace(e, syn::Expr::Verbatim(TokenStream::new()));
            *e = syn::parse_quote!(::autodiff::__private::__autodiff_source_read!(#place));
        }
    }
}

fn is_arithmetic(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_)
    )
}

impl VisitMut for Marker<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // Children first, so a marked read is never visited again.
        visit_mut::visit_expr_mut(self, e);
        match e {
            syn::Expr::Binary(b) if is_arithmetic(&b.op) => {
                self.mark_operand(&mut b.left);
                self.mark_operand(&mut b.right);
            }
            syn::Expr::Binary(b) if is_compound(&b.op) => self.mark_operand(&mut b.right),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                self.mark_operand(&mut u.expr)
            }
            syn::Expr::MethodCall(m) if prims::is_array_method(&m.method.to_string()) => {
                self.mark_operand(&mut m.receiver);
                if m.method == "dot" {
                    m.args.iter_mut().for_each(|a| self.mark_operand(a));
                }
            }
            syn::Expr::MethodCall(m) if prims::method_rule(&m.method.to_string()).is_some() => {
                self.mark_operand(&mut m.receiver);
                m.args.iter_mut().for_each(|a| self.mark_operand(a));
            }
            syn::Expr::Call(c) => {
                let stop = match &*c.func {
                    syn::Expr::Path(p) => p
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "stop_gradient"),
                    _ => false,
                };
                if !stop {
                    c.args.iter_mut().for_each(|a| self.mark_operand(a));
                }
            }
            // the elements of an array literal (`f(&[w, y])`): an array of floats
            syn::Expr::Array(a) => a.elems.iter_mut().for_each(|x| self.mark_operand(x)),
            // and of a `vec![w * k, w]` (its elements visited as expressions, written back)
            syn::Expr::Macro(m) => {
                if let Some(mut items) = vec_list(&m.mac) {
                    for x in items.iter_mut() {
                        self.visit_expr_mut(x);
                        self.mark_operand(x);
                    }
                    m.mac.tokens = items.to_token_stream();
                }
            }
            syn::Expr::Cast(c) => {
                let float = match &*c.ty {
                    syn::Type::Path(p) => p
                        .path
                        .get_ident()
                        .is_some_and(|i| prims::is_float_type_name(&i.to_string())),
                    _ => false,
                };
                if float {
                    self.mark_operand(&mut c.expr);
                }
            }
            _ => {}
        }
        // `break 'l ::autodiff::…` would read as `break 'l: …` (a labelled loop) to a
        // parser of tokens: a marked read leading a labelled break's value is parenthesised
        if let syn::Expr::Break(b) = e {
            if let (Some(_), Some(value)) = (&b.label, &mut b.expr) {
                let leads_with_path = matches!(
                    value.to_token_stream().into_iter().next(),
                    Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ':'
                );
                if leads_with_path {
                    let inner =
                        std::mem::replace(&mut **value, syn::Expr::Verbatim(TokenStream::new()));
                    **value = syn::parse_quote!((#inner));
                }
            }
        }
    }

    /// A closure's body reads captured variables like the code around it
    /// (`data.iter().map(|d| w * d)`: the lowering inlines it where it is consumed).
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.visit_expr_mut(&mut c.body);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
    /// A local closure (`let g = |v| w * v;`) is inlined where it is called: its body
    /// reads captured variables like the code around it.
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if let Some(init) = &mut local.init {
            let mut e = &mut *init.expr;
            while let syn::Expr::Paren(p) = e {
                e = &mut *p.expr;
            }
            if let syn::Expr::Closure(c) = e {
                self.visit_expr_mut(&mut c.body);
                return;
            }
        }
        visit_mut::visit_local_mut(self, local);
    }
}

/// The tokens of a read through the runtime's dispatch (`handle` holds the place's
/// `__autodiff_source_handle!`).
pub fn read_tokens(handle: &TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use ::autodiff::__private::source::{ReadCopy as _, ReadRef as _, ReadSource as _};
        (&&&::autodiff::__private::source::Probe(&#handle)).read()
    }}
}

/// The tokens depositing `gradient` for the read through `handle`.
pub fn deposit_tokens(handle: &TokenStream, gradient: &TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use ::autodiff::__private::source::{ReadCopy as _, ReadRef as _, ReadSource as _};
        (&&&::autodiff::__private::source::Probe(&#handle)).deposit(#gradient)
    }}
}
