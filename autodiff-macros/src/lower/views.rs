//! `&mut` views of a buffer bound to names, read as what they are: ranges of the buffer.
//!
//! `let (h, c) = buf.split_at_mut(k);` and `let h = &mut buf[a..b];` make views the body
//! then indexes, measures and hands to helpers. The lowering knows buffers (`let mut`
//! locals, `&mut` parameters) and ranges of them, not views: before lowering, each view is
//! replaced by the range of the buffer it is, with its bounds taken where the view was
//! made — `h[i]` becomes `buf[start + i]`, `&h[a..b]` `&buf[start + a..start + b]`,
//! `h.len()` `(end - start)`, and `h` handed to a function `&mut buf[start..end]`, marked as
//! handed on as it is (the callee's signature decides whether it reads or writes it, see
//! `again::Lent`). While a view lives, Rust lets nothing else reach the buffer, so the
//! rewritten body computes exactly what the original does.
//!
//! A view used in any other way (iterated, a method other than `len`, moved, captured by a
//! closure, named again in a nested pattern) is left as it is: the lowering then refuses a
//! differentiable call handed it, naming the view (`diag::mut_view_passed`).

use proc_macro2::Span;
use quote::quote_spanned;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The range a view handed to a function as it is stands for: `&mut buf[a..b]` inside
/// `views::handed_on(…)` (the identity, so the call is still the user's where it is
/// emitted as written).
pub(crate) fn handed_on(e: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::Call(c) = e else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    (names.ends_with(&["views".to_string(), "handed_on".to_string()]) && c.args.len() == 1)
        .then(|| &c.args[0])
}

/// The body with the views it can read as ranges replaced (see the module).
pub(crate) fn rewrite(body: &syn::Block) -> syn::Block {
    let mut body = body.clone();
    super::slice_methods::rewrite(&mut body);
    let mut next = 0;
    rewrite_block(&mut body, &mut next);
    body
}

/// A view: the buffer's name and the names of the bounds kept where it was made.
#[derive(Clone)]
struct View {
    name: String,
    buffer: syn::Ident,
    start: syn::Ident,
    end: syn::Ident,
}

fn rewrite_block(block: &mut syn::Block, next: &mut usize) {
    let mut i = 0;
    while i < block.stmts.len() {
        // nested blocks first (their own views)
        NestedBlocks { next }.visit_stmt_mut(&mut block.stmts[i]);
        if let syn::Stmt::Expr(syn::Expr::ForLoop(f), semi) = &block.stmts[i] {
            let semi = *semi;
            if let Some(e) = chunks_loop(f, next).or_else(|| super::element_loops::rewrite(f, next))
            {
                block.stmts[i] = syn::Stmt::Expr(e, semi);
            }
        }
        if let Some((views, bounds)) = views_made(&block.stmts[i], next) {
            let rest = &block.stmts[i + 1..];
            // (a view's buffer named again by a new binding would be another buffer)
            let buffers_kept = views.iter().all(|v| !binds(rest, &v.buffer.to_string()));
            if buffers_kept && views.iter().all(|v| only_ranged_uses(rest, &v.name)) {
                let mut rest: Vec<syn::Stmt> = rest.to_vec();
                for v in &views {
                    let mut r = Replace { view: v };
                    rest.iter_mut().for_each(|s| r.visit_stmt_mut(s));
                }
                let n = bounds.len();
                block.stmts.splice(i.., bounds.into_iter().chain(rest));
                i += n;
                continue;
            }
        }
        i += 1;
    }
}

/// `for c in buf.chunks_mut(k) { … }` (or `chunks_exact_mut`) whose body uses `c` as a
/// range: a loop over the chunks' indices, each chunk a range of the buffer.
fn chunks_loop(f: &syn::ExprForLoop, next: &mut usize) -> Option<syn::Expr> {
    let syn::Pat::Ident(pi) = &*f.pat else {
        return None;
    };
    if pi.by_ref.is_some() || pi.subpat.is_some() {
        return None;
    }
    let syn::Expr::MethodCall(m) = strip(&f.expr) else {
        return None;
    };
    let exact = match m.method.to_string().as_str() {
        "chunks_mut" => false,
        "chunks_exact_mut" => true,
        _ => return None,
    };
    let (Some(buffer), 1) = (buffer_name(&m.receiver), m.args.len()) else {
        return None;
    };
    let name = pi.ident.to_string();
    if !only_ranged_uses(&f.body.stmts, &name) || binds(&f.body.stmts, &buffer.to_string()) {
        return None;
    }
    let span = f.expr.span();
    let mut bound = |what: &str| {
        *next += 1;
        syn::Ident::new(&format!("__autodiff_view{next}_{what}"), Span::call_site())
    };
    let (size, len, j, start, end) = (
        bound("size"),
        bound("len"),
        bound("chunk"),
        bound("start"),
        bound("end"),
    );
    let k = &m.args[0];
    // (the path written out, spanned at the user's code: a failing check is located there)
    let count = if exact {
        quote_spanned!(span=> ::autodiff::__private::views::exact_chunks(#len, #size))
    } else {
        quote_spanned!(span=> ::autodiff::__private::views::chunks(#len, #size))
    };
    let view = View {
        name,
        buffer: buffer.clone(),
        start: start.clone(),
        end: end.clone(),
    };
    let mut body = f.body.clone();
    let mut r = Replace { view: &view };
    body.stmts.iter_mut().for_each(|s| r.visit_stmt_mut(s));
    let label = &f.label;
    let stmts = &body.stmts;
    Some(syn::parse_quote_spanned! {span=>
        {
            let #size: usize = #k;
            let #len: usize = #buffer.len();
            #label for #j in 0..#count {
                let #start: usize = #j * #size;
                let #end: usize = ::core::cmp::min(#start + #size, #len);
                #(#stmts)*
            }
        }
    })
}

/// Visits the blocks nested in a statement (a view made inside one lives there).
struct NestedBlocks<'a> {
    next: &'a mut usize,
}

impl VisitMut for NestedBlocks<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        rewrite_block(b, self.next);
    }
    // (a closure's body is not differentiable code of this function's)
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The views a `let` makes of a buffer (`let (h, c) = buf.split_at_mut(k);`, `let h = &mut
/// buf[a..b];`, `let h = &mut buf[..];`), and the statements keeping their bounds.
fn views_made(stmt: &syn::Stmt, next: &mut usize) -> Option<(Vec<View>, Vec<syn::Stmt>)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let span = init.expr.span();
    let mut bound = |what: &str| {
        *next += 1;
        syn::Ident::new(&format!("__autodiff_view{next}_{what}"), Span::call_site())
    };
    let plain = |p: &syn::Pat| match p {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            Some(pi.ident.to_string())
        }
        _ => None,
    };
    match (&local.pat, strip(&init.expr)) {
        // `let (h, c) = buf.split_at_mut(k);`
        // (`let (l, r) = buf[a..b].split_at_mut(k);`: a view of a view, rewritten)
        (syn::Pat::Tuple(t), syn::Expr::MethodCall(m))
            if m.method == "split_at_mut" && m.args.len() == 1 && t.elems.len() == 2 =>
        {
            let (buffer, from, to) = match strip(&m.receiver) {
                syn::Expr::Index(ix) => {
                    let syn::Expr::Range(r) = strip(&ix.index) else {
                        return None;
                    };
                    let (Some(a), Some(b), syn::RangeLimits::HalfOpen(_)) =
                        (&r.start, &r.end, &r.limits)
                    else {
                        return None;
                    };
                    (
                        buffer_name(&ix.expr)?,
                        quote_spanned!(span=> #a),
                        quote_spanned!(span=> #b),
                    )
                }
                receiver => {
                    let b = buffer_name(receiver)?;
                    (
                        b.clone(),
                        quote_spanned!(span=> 0),
                        quote_spanned!(span=> #b.len()),
                    )
                }
            };
            let (h, c) = (plain(&t.elems[0])?, plain(&t.elems[1])?);
            let k = &m.args[0];
            let (zero, mid, len) = (bound("start"), bound("mid"), bound("len"));
            let stmts = vec![
                syn::parse_quote_spanned!(span=> let #zero: usize = #from;),
                syn::parse_quote_spanned!(span=> let #len: usize = #to;),
                // (the range's bounds check, where the receiver is one)
                syn::parse_quote_spanned!(span=> ::autodiff::__private::views::check_range(#zero, #len, #buffer.len());),
                syn::parse_quote_spanned!(span=> let #mid: usize = #zero + (#k);),
                // (the check of `split_at_mut` itself)
                syn::parse_quote_spanned!(span=> ::autodiff::__private::views::check_split(#mid - #zero, #len - #zero);),
            ];
            let views = vec![
                View {
                    name: h,
                    buffer: buffer.clone(),
                    start: zero,
                    end: mid.clone(),
                },
                View {
                    name: c,
                    buffer,
                    start: mid,
                    end: len,
                },
            ];
            Some((views, stmts))
        }
        // `let h = &mut buf[a..b];`, `let h = &mut buf[..];`
        (pat, syn::Expr::Reference(r)) if r.mutability.is_some() => {
            let name = plain(pat)?;
            let syn::Expr::Index(ix) = strip(&r.expr) else {
                return None;
            };
            let syn::Expr::Range(range) = strip(&ix.index) else {
                return None;
            };
            let buffer = buffer_name(&ix.expr)?;
            let (start, end) = (bound("start"), bound("end"));
            let a = range
                .start
                .as_deref()
                .map_or(quote_spanned!(span=> 0), |a| quote_spanned!(span=> #a));
            let b = match (&range.end, &range.limits) {
                (Some(b), syn::RangeLimits::Closed(_)) => quote_spanned!(span=> #b + 1),
                (Some(b), _) => quote_spanned!(span=> #b),
                (None, _) => quote_spanned!(span=> #buffer.len()),
            };
            let stmts = vec![
                syn::parse_quote_spanned!(span=> let #start: usize = #a;),
                syn::parse_quote_spanned!(span=> let #end: usize = #b;),
                // (the bounds check of the view itself)
                syn::parse_quote_spanned!(span=> ::autodiff::__private::views::check_range(#start, #end, #buffer.len());),
            ];
            Some((
                vec![View {
                    name,
                    buffer,
                    start,
                    end,
                }],
                stmts,
            ))
        }
        _ => None,
    }
}

/// Whether a closure's body or a macro's input (which the rewrites leave as they are)
/// names `name`.
pub(super) fn opaque_use(e: &syn::Expr, name: &str) -> bool {
    fn names(tokens: proc_macro2::TokenStream, name: &str) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == name,
            proc_macro2::TokenTree::Group(g) => names(g.stream(), name),
            _ => false,
        })
    }
    match e {
        syn::Expr::Closure(c) => names(quote::ToTokens::to_token_stream(&c.body), name),
        syn::Expr::Macro(m) => names(m.mac.tokens.clone(), name),
        _ => false,
    }
}

pub(super) fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// The buffer a view is made of: a plain name.
fn buffer_name(e: &syn::Expr) -> Option<syn::Ident> {
    match strip(e) {
        syn::Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
            p.path.get_ident().cloned()
        }
        _ => None,
    }
}

pub(super) fn is_name(e: &syn::Expr, name: &str) -> bool {
    matches!(strip(e), syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// Whether a pattern in `stmts` (a `let`, a closure's or a loop's, a `match` arm's) binds
/// `name`: after it the name is another value, which a rewrite naming it would read.
pub(super) fn binds(stmts: &[syn::Stmt], name: &str) -> bool {
    struct Binds<'a> {
        name: &'a str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.found |= p.ident == self.name;
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut b = Binds { name, found: false };
    stmts.iter().for_each(|s| b.visit_stmt(s));
    b.found
}

/// Whether every use of `name` in `stmts` is one the rewrite reads as a range: indexed,
/// sliced, `.len()`, or handed to a function as it is; and nothing binds the name again.
fn only_ranged_uses(stmts: &[syn::Stmt], name: &str) -> bool {
    let mut check = Uses {
        name,
        ok: true,
        used: false,
    };
    stmts.iter().for_each(|s| check.visit_stmt(s));
    check.ok && check.used
}

struct Uses<'a> {
    name: &'a str,
    ok: bool,
    used: bool,
}

impl Uses<'_> {
    /// A call's arguments: the view handed on as it is, or uses inside them.
    fn arguments(&mut self, args: &Punctuated<syn::Expr, syn::Token![,]>) {
        for a in args {
            if is_name(a, self.name) {
                self.used = true;
            } else {
                self.visit_expr(a);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        // `let (l, r) = view.split_at_mut(k);`: views of the view (rewritten in turn)
        if let (syn::Pat::Tuple(_), Some(init)) = (&local.pat, &local.init) {
            if let syn::Expr::MethodCall(m) = strip(&init.expr) {
                if m.method == "split_at_mut" && is_name(&m.receiver, self.name) {
                    self.used = true;
                    self.visit_pat(&local.pat);
                    m.args.iter().for_each(|a| self.visit_expr(a));
                    return;
                }
            }
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        match e {
            syn::Expr::Index(ix) if is_name(&ix.expr, self.name) => {
                self.used = true;
                self.visit_expr(&ix.index);
            }
            syn::Expr::MethodCall(m) if is_name(&m.receiver, self.name) => {
                self.used = true;
                if m.method != "len" || !m.args.is_empty() {
                    self.ok = false;
                }
            }
            syn::Expr::Call(c) => {
                self.visit_expr(&c.func);
                self.arguments(&c.args);
            }
            syn::Expr::MethodCall(m) => {
                self.visit_expr(&m.receiver);
                self.arguments(&m.args);
            }
            syn::Expr::Path(p) if p.path.is_ident(self.name) => {
                // any other use: moved, reborrowed, compared, returned…
                self.used = true;
                self.ok = false;
            }
            syn::Expr::Closure(_) | syn::Expr::Macro(_) => {
                if opaque_use(e, self.name) {
                    self.used = true;
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

/// Replaces a view's uses by ranges of its buffer.
struct Replace<'a> {
    view: &'a View,
}

impl Replace<'_> {
    fn range(&self, span: Span) -> syn::Expr {
        let View {
            buffer, start, end, ..
        } = self.view;
        let rt = crate::companions::rt();
        syn::parse_quote_spanned!(span=> #rt::views::handed_on(&mut #buffer[#start..#end]))
    }
}

impl Replace<'_> {
    /// A call's arguments: the view handed on as it is becomes its range.
    fn arguments(&mut self, args: &mut Punctuated<syn::Expr, syn::Token![,]>) {
        for a in args.iter_mut() {
            if is_name(a, &self.view.name) {
                *a = self.range(a.span());
            } else {
                self.visit_expr_mut(a);
            }
        }
    }
}

impl VisitMut for Replace<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let View {
            name,
            buffer,
            start,
            end,
        } = self.view;
        let span = e.span();
        match e {
            syn::Expr::Index(ix) if is_name(&ix.expr, name) => {
                self.visit_expr_mut(&mut ix.index);
                *ix.expr = syn::parse_quote_spanned!(span=> #buffer);
                let index = &ix.index;
                let new_index: syn::Expr = match strip(index) {
                    syn::Expr::Range(r) => {
                        let a = r.start.as_deref().map_or(
                            quote_spanned!(span=> #start),
                            |a| quote_spanned!(span=> #start + (#a)),
                        );
                        match (&r.end, &r.limits) {
                            (Some(b), syn::RangeLimits::Closed(_)) => {
                                syn::parse_quote_spanned!(span=> #a..=#start + (#b))
                            }
                            (Some(b), _) => syn::parse_quote_spanned!(span=> #a..#start + (#b)),
                            (None, _) => syn::parse_quote_spanned!(span=> #a..#end),
                        }
                    }
                    i => syn::parse_quote_spanned!(span=> #start + (#i)),
                };
                *ix.index = new_index;
            }
            syn::Expr::MethodCall(m)
                if is_name(&m.receiver, name) && m.method == "split_at_mut" =>
            {
                m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                *m.receiver = syn::parse_quote_spanned!(span=> #buffer[#start..#end]);
            }
            syn::Expr::MethodCall(m) if is_name(&m.receiver, name) => {
                *e = syn::parse_quote_spanned!(span=> (#end - #start));
            }
            syn::Expr::Call(c) => {
                self.visit_expr_mut(&mut c.func);
                self.arguments(&mut c.args);
            }
            syn::Expr::MethodCall(m) => {
                self.visit_expr_mut(&mut m.receiver);
                self.arguments(&mut m.args);
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(body: syn::Block) -> String {
        quote::ToTokens::to_token_stream(&rewrite(&body)).to_string()
    }

    /// A view whose buffer's name is bound again before the view's last use is left as it
    /// is: the rewrite would write into the new binding.
    #[test]
    fn a_buffer_named_again_keeps_its_views() {
        let shadowed: syn::Block = syn::parse_quote!({
            let h = &mut buf[0..2];
            let buf = vec![0.0; 3];
            h[0] = buf[1];
        });
        assert!(rewritten(shadowed).contains("let h"));
        let kept: syn::Block = syn::parse_quote!({
            let h = &mut buf[0..2];
            h[0] = 1.0;
        });
        assert!(!rewritten(kept).contains("let h"));
        let chunks: syn::Block = syn::parse_quote!({
            for c in buf.chunks_mut(2) {
                let buf = 1.0;
                c[0] = buf;
            }
        });
        assert!(rewritten(chunks).contains("chunks_mut"));
    }
}
