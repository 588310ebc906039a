//! Loops over `&mut` elements of a buffer, read as index loops.
//!
//! `for v in buf.iter_mut() { *v *= a; }` (also `for v in &mut buf`,
//! `buf.iter_mut().enumerate()`, and `buf.iter_mut().zip(x)` / `x.iter().zip(buf.iter_mut())`
//! with `x` a slice, `x.iter()` or `&x`) is the index loop it stands for: `for i in
//! 0..buf.len() { buf[i] *= a; }`, each `*v` the element `buf[i]` (`p.x` of an element that
//! is a struct, `ps[i].x`; and each use of a shared
//! element `xi` of the zipped slice `x[i]`), the zip's length the shorter of the two. The
//! lowering knows buffers and their elements, not references to elements. Only loops whose
//! body uses a mutable element through `*v` and nothing else (not handed on, captured by a
//! closure, named in a macro or bound again) are rewritten; others are left as they are.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use super::views::{is_name, strip};

/// One side of the loop: the element's name and the sequence it belongs to.
struct Source {
    element: String,
    sequence: syn::Ident,
    exclusive: bool,
}

/// The index loop a loop over `&mut` elements stands for (see the module), or `None`.
pub(crate) fn rewrite(f: &syn::ExprForLoop, next: &mut usize) -> Option<syn::Expr> {
    let span = f.expr.span();
    let (sources, index) = sources(&f.pat, strip(&f.expr))?;
    if !sources.iter().any(|s| s.exclusive) {
        return None;
    }
    if sources
        .iter()
        .any(|s| !only_element_uses(&f.body.stmts, &s.element, s.exclusive))
    {
        return None;
    }
    // (a sequence or the index named again inside the body would be another value there)
    let rebound = |n: &str| super::views::binds(&f.body.stmts, n);
    if sources.iter().any(|s| rebound(&s.sequence.to_string()))
        || index.as_ref().is_some_and(|i| rebound(&i.to_string()))
    {
        return None;
    }
    let index = index.unwrap_or_else(|| {
        *next += 1;
        syn::Ident::new(&format!("__autodiff_element{next}"), Span::call_site())
    });
    let mut body = f.body.clone();
    for s in &sources {
        let mut r = Replace {
            source: s,
            index: &index,
        };
        body.stmts.iter_mut().for_each(|st| r.visit_stmt_mut(st));
    }
    let lens: Vec<syn::Expr> = sources
        .iter()
        .map(|s| {
            let q = &s.sequence;
            syn::parse_quote_spanned!(span=> #q.len())
        })
        .collect();
    let len: syn::Expr = match lens.as_slice() {
        [one] => one.clone(),
        [a, b] => syn::parse_quote_spanned!(span=> ::core::cmp::min(#a, #b)),
        _ => return None,
    };
    let label = &f.label;
    let stmts = &body.stmts;
    Some(syn::parse_quote_spanned! {span=>
        #label for #index in 0..#len {
            #(#stmts)*
        }
    })
}

fn plain(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(pi)
            if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
        {
            Some(pi.ident.to_string())
        }
        _ => None,
    }
}

/// A sequence's name: `buf`, or `*buf` of a `&mut` parameter.
fn name_of(e: &syn::Expr) -> Option<syn::Ident> {
    match strip(e) {
        syn::Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
            p.path.get_ident().cloned()
        }
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => name_of(&u.expr),
        _ => None,
    }
}

/// A sequence iterated: `(name, exclusive)` for `b.iter_mut()` and `&mut b` (exclusive),
/// `x.iter()`, `&x` and `x` (shared).
fn sequence(e: &syn::Expr) -> Option<(syn::Ident, bool)> {
    match strip(e) {
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter_mut" => {
            Some((name_of(&m.receiver)?, true))
        }
        syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter" => {
            Some((name_of(&m.receiver)?, false))
        }
        syn::Expr::Reference(r) => Some((name_of(&r.expr)?, r.mutability.is_some())),
        e => Some((name_of(e)?, false)),
    }
}

/// The loop's sources and, with `enumerate`, the index the user names.
fn sources(pat: &syn::Pat, e: &syn::Expr) -> Option<(Vec<Source>, Option<syn::Ident>)> {
    let source = |name: String, (sequence, exclusive): (syn::Ident, bool)| Source {
        element: name,
        sequence,
        exclusive,
    };
    match e {
        syn::Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
            let syn::Pat::Tuple(t) = pat else {
                return None;
            };
            let [i, v] = [t.elems.first()?, t.elems.get(1)?];
            if t.elems.len() != 2 {
                return None;
            }
            let (_, index) = (plain(i)?, pat_ident(i)?);
            let (elements, None) = sources(v, strip(&m.receiver))? else {
                return None;
            };
            Some((elements, Some(index)))
        }
        syn::Expr::MethodCall(m) if m.method == "zip" && m.args.len() == 1 => {
            let syn::Pat::Tuple(t) = pat else {
                return None;
            };
            if t.elems.len() != 2 {
                return None;
            }
            let (sa, sb) = (sequence(&m.receiver)?, sequence(&m.args[0])?);
            let a = source(element(&t.elems[0], sa.1)?, sa);
            let b = source(element(&t.elems[1], sb.1)?, sb);
            Some((vec![a, b], None))
        }
        e => {
            let s = sequence(e)?;
            // (a loop over a shared sequence alone is the lowering's own)
            if !s.1 {
                return None;
            }
            Some((vec![source(plain(pat)?, s)], None))
        }
    }
}

/// An element's name in a zip's pattern: `v`, or `&x` for an element of a shared sequence
/// (`for (&x, o) in xs.iter().zip(out.iter_mut())`: `x` is then the element's value, which
/// the element of the sequence at the index stands for as well).
fn element(p: &syn::Pat, exclusive: bool) -> Option<String> {
    match p {
        syn::Pat::Reference(r) if r.mutability.is_none() && !exclusive => plain(&r.pat),
        p => plain(p),
    }
}

fn pat_ident(p: &syn::Pat) -> Option<syn::Ident> {
    match p {
        syn::Pat::Ident(pi) => Some(pi.ident.clone()),
        _ => None,
    }
}

/// Whether the body uses the element `name` only through `*name` (an exclusive element) or
/// also by value (a shared one), and never binds the name again.
fn only_element_uses(stmts: &[syn::Stmt], name: &str, exclusive: bool) -> bool {
    let mut check = Uses {
        name,
        exclusive,
        ok: true,
    };
    stmts.iter().for_each(|s| check.visit_stmt(s));
    check.ok
}

struct Uses<'a> {
    name: &'a str,
    exclusive: bool,
    ok: bool,
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        match e {
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && is_name(&u.expr, self.name) => {}
            // `v.sin()`: a method of the element, through auto-deref
            syn::Expr::MethodCall(m) if is_name(&m.receiver, self.name) => {
                m.args.iter().for_each(|a| self.visit_expr(a));
            }
            // `p.x`: a field of an element that is a struct
            syn::Expr::Field(f) if is_name(&f.base, self.name) => {}
            syn::Expr::Path(p) if p.path.is_ident(self.name) => {
                if self.exclusive {
                    self.ok = false;
                }
            }
            syn::Expr::Closure(_) | syn::Expr::Macro(_) => {
                if super::views::opaque_use(e, self.name) {
                    self.ok = false;
                }
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if p.ident == self.name {
            self.ok = false;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Replaces an element's uses by the sequence's element at the loop's index.
struct Replace<'a> {
    source: &'a Source,
    index: &'a syn::Ident,
}

impl VisitMut for Replace<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let (name, q, i) = (&self.source.element, &self.source.sequence, self.index);
        let span = e.span();
        match e {
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && is_name(&u.expr, name) =>
            {
                *e = syn::parse_quote_spanned!(span=> #q[#i]);
            }
            syn::Expr::MethodCall(m) if is_name(&m.receiver, name) => {
                m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                *m.receiver = syn::parse_quote_spanned!(span=> #q[#i]);
            }
            syn::Expr::Field(f) if is_name(&f.base, name) => {
                *f.base = syn::parse_quote_spanned!(span=> #q[#i]);
            }
            syn::Expr::Path(p) if p.path.is_ident(name) => {
                *e = syn::parse_quote_spanned!(span=> (#q[#i]));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(f: syn::ExprForLoop) -> Option<String> {
        rewrite(&f, &mut 0).map(|e| quote::ToTokens::to_token_stream(&e).to_string())
    }

    /// A loop whose body binds the sequence's or the index's name again is left as it is:
    /// the rewrite would index with the new binding.
    #[test]
    fn names_bound_again_in_the_body_keep_the_loop() {
        let plain: syn::ExprForLoop = syn::parse_quote!(for (i, v) in b.iter_mut().enumerate() {
            *v *= i as f64;
        });
        assert!(rewritten(plain).is_some());
        let index: syn::ExprForLoop = syn::parse_quote!(for (i, v) in b.iter_mut().enumerate() {
            let i = 0;
            *v *= i as f64;
        });
        assert!(rewritten(index).is_none());
        let sequence: syn::ExprForLoop = syn::parse_quote!(for v in b.iter_mut() {
            let b = [1.0];
            *v *= b[0];
        });
        assert!(rewritten(sequence).is_none());
    }
}
