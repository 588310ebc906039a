//! The slice methods that write a buffer, read as the loops they are.
//!
//! `dst.copy_from_slice(src)`, `dst.fill(v)`, `dst.swap(i, j)` and `dst.reverse()` (with
//! `dst` a buffer's name or a range of one, `buf[a..b]`) are statements that write
//! elements: before lowering, each becomes the element writes it makes — `for i in
//! 0..src.len() { dst[a + i] = src[i]; }` after the length check `copy_from_slice` does (its
//! message, at the user's span), `for i in a..b { dst[i] = v; }`, the three writes of a
//! swap, and the swaps of a reversal — which the lowering differentiates as any other.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::views::strip;

/// The body with every such statement replaced (in nested blocks too).
pub(crate) fn rewrite(body: &mut syn::Block) {
    let mut next = 0;
    Statements { next: &mut next }.visit_block_mut(body);
}

struct Statements<'a> {
    next: &'a mut usize,
}

impl VisitMut for Statements<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        for stmt in &mut b.stmts {
            self.visit_stmt_mut(stmt);
            if let syn::Stmt::Expr(syn::Expr::MethodCall(m), Some(_)) = stmt {
                if let Some(e) = statement(m, self.next) {
                    *stmt = syn::Stmt::Expr(e, None);
                }
            }
        }
    }
    // (a closure's body or a nested item is not this function's differentiable code)
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The buffer a method writes and the bounds of the range written (`None`: its end).
fn destination(e: &syn::Expr) -> Option<(syn::Ident, Option<syn::Expr>, Option<syn::Expr>)> {
    let name = |e: &syn::Expr| match strip(e) {
        syn::Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
            p.path.get_ident().cloned()
        }
        _ => None,
    };
    match strip(e) {
        syn::Expr::Index(ix) => {
            let syn::Expr::Range(r) = strip(&ix.index) else {
                return None;
            };
            let end = match (&r.end, &r.limits) {
                (Some(b), syn::RangeLimits::Closed(_)) => Some(syn::parse_quote!((#b) + 1)),
                (Some(b), _) => Some((**b).clone()),
                (None, _) => None,
            };
            Some((name(&ix.expr)?, r.start.as_deref().cloned(), end))
        }
        e => Some((name(e)?, None, None)),
    }
}

fn statement(m: &syn::ExprMethodCall, next: &mut usize) -> Option<syn::Expr> {
    let method = m.method.to_string();
    let (buffer, start, end) = destination(&m.receiver)?;
    let span = m.span();
    let mut fresh = |what: &str| {
        *next += 1;
        syn::Ident::new(&format!("__autodiff_slice{next}_{what}"), Span::call_site())
    };
    let start = start.unwrap_or_else(|| syn::parse_quote!(0));
    let end = end.unwrap_or_else(|| syn::parse_quote_spanned!(span=> #buffer.len()));
    // `a..b` of the buffer, checked as `&buf[a..b]` checks it
    let checked = |a: &syn::Ident, b: &syn::Ident| {
        quote::quote_spanned! {span=>
            let #a: usize = #start;
            let #b: usize = #end;
            ::autodiff::__private::views::check_range(#a, #b, #buffer.len());
        }
    };
    match (method.as_str(), m.args.len()) {
        ("copy_from_slice", 1) => {
            let src = &m.args[0];
            let (s, a, b, i) = (fresh("src"), fresh("start"), fresh("end"), fresh("i"));
            Some(syn::parse_quote_spanned! {span=>
                {
                    let #s = #src;
                    let #a: usize = #start;
                    let #b: usize = #end;
                    ::autodiff::__private::views::check_copy(#s.len(), #a, #b, #buffer.len());
                    for #i in 0..#s.len() {
                        #buffer[#a + #i] = #s[#i];
                    }
                }
            })
        }
        ("fill", 1) => {
            let value = &m.args[0];
            let (v, a, b, i) = (fresh("value"), fresh("start"), fresh("end"), fresh("i"));
            let range = checked(&a, &b);
            Some(syn::parse_quote_spanned! {span=>
                {
                    let #v = #value;
                    #range
                    for #i in #a..#b {
                        #buffer[#i] = #v;
                    }
                }
            })
        }
        // (a swap within a range checks the indices against the range: not rewritten)
        ("swap", 2) if !matches!(strip(&m.receiver), syn::Expr::Index(_)) => {
            let (x, y) = (&m.args[0], &m.args[1]);
            let (a, i, j, t) = (fresh("start"), fresh("i"), fresh("j"), fresh("t"));
            Some(syn::parse_quote_spanned! {span=>
                {
                    let #a: usize = #start;
                    let #i: usize = #a + (#x);
                    let #j: usize = #a + (#y);
                    let #t = #buffer[#i];
                    #buffer[#i] = #buffer[#j];
                    #buffer[#j] = #t;
                }
            })
        }
        // the gather of the order a sort of the primal values puts the elements in (the
        // order is a constant: comparisons have no derivative)
        ("sort_by" | "sort_unstable_by", 1) => {
            let compare = &m.args[0];
            let (a, b, order, old, k) = (
                fresh("start"),
                fresh("end"),
                fresh("order"),
                fresh("old"),
                fresh("k"),
            );
            let range = checked(&a, &b);
            Some(syn::parse_quote_spanned! {span=>
                {
                    #range
                    let #order = ::autodiff::stop_gradient(
                        ::autodiff::__private::views::sorted_order(&#buffer[#a..#b], #compare)
                    );
                    let #old = #buffer[#a..#b].to_vec();
                    for #k in 0..#b - #a {
                        #buffer[#a + #k] = #old[#order[#k]];
                    }
                }
            })
        }
        ("reverse", 0) => {
            let (a, b, i, j, t) = (
                fresh("start"),
                fresh("end"),
                fresh("i"),
                fresh("j"),
                fresh("t"),
            );
            let range = checked(&a, &b);
            Some(syn::parse_quote_spanned! {span=>
                {
                    #range
                    for #i in 0..(#b - #a) / 2 {
                        let #j = #b - 1 - #i;
                        let #t = #buffer[#a + #i];
                        #buffer[#a + #i] = #buffer[#j];
                        #buffer[#j] = #t;
                    }
                }
            })
        }
        _ => None,
    }
}
