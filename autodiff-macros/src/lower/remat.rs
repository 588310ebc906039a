//! Buffers filled element by element from the parameters, computed again where they are
//! read.
//!
//! `let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i] - mean[i]; }` followed by
//! reads `xc[j]` only: the derivative would keep the buffer from its forward sweep to its
//! reverse (its adjoint too), one per call — GMM's helper, called 25 000 times a gradient,
//! kept 25 000 of them, and the gradient spent a fifth of its time bringing them back from
//! memory. Each element is cheap to compute again from what the pullback is handed again
//! anyway, so before lowering each read `xc[j]` becomes `(x[j] - mean[j])`, preceded in
//! its statement's block by the check the read made (`saved::checked_index(j, d)`: the
//! same panic, with Rust's message, at the user's line), and the buffer and its loop
//! become the check the loop made of the slices it read (`saved::covers`). The reads then
//! compute the same values from the same operands — the forward sweep's values are the
//! function's, bit for bit — and their adjoints go to `x` and `mean` where they are read.
//!
//! Only where this is certain: the buffer made by `vec![float literal; n]` and filled by the
//! statement right after it, `for i in 0..n { buf[i] = value; }` (the same `n`, a
//! parameter, a name bound once and not `mut`, or a parameter's `len()`); `value` is `+ - *
//! /` and negation of literals, parameters (not `mut`, not `&mut`) and parameters indexed
//! at `i`, at most two slices and three operators (computed again at each read, a larger
//! value would cost more than the buffer saves); no name of those is bound anywhere in the
//! body; the buffer is named nowhere after but in reads `buf[j]` (`j` a name, an integer,
//! or a name plus or minus an integer), each in a place its statement always evaluates (not
//! the right of `&&`, a match arm's expression, a `while` condition, nor a statement that
//! may leave before it, by `?`, `return`, `break` or a macro, or that changes the index),
//! not written, borrowed, measured or handed on, and not in a macro. Anything else is left
//! as written.

use crate::signature::Signature;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The body with each buffer of the module's form read as its elements' values.
pub(super) fn rewrite(sig: &Signature, body: &syn::Block) -> syn::Block {
    let mut body = body.clone();
    // (one buffer at a time: each rewrite changes the body the next is found in)
    for _ in 0..16 {
        match find(sig, &body) {
            Some(next) => body = next,
            None => break,
        }
    }
    body
}

/// A buffer of the module's form, as found.
struct Buffer {
    name: String,
    item: String,
    value: syn::Expr,
    len: syn::Expr,
    /// The slices `value` indexes at the item, in the order it reads them.
    read: Vec<syn::Expr>,
    span: Span,
}

/// The body with the first buffer of the module's form rewritten, if there is one.
fn find(sig: &Signature, body: &syn::Block) -> Option<syn::Block> {
    let params: HashSet<String> = (sig.params.iter())
        .filter(|p| {
            !p.in_out
                && !p.mutable
                && !matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_some())
        })
        .map(|p| p.name.clone())
        .collect();
    let mut bindings = Bindings::default();
    bindings.visit_block(body);
    for at in 0..body.stmts.len().saturating_sub(1) {
        let Some((name, len)) = made(&body.stmts[at]) else {
            continue;
        };
        let Some((item, value, span)) = filled(&body.stmts[at + 1], &name, &len) else {
            continue;
        };
        if bindings.count(&name) != 1 || !stable_len(&len, &params, &bindings) {
            continue;
        }
        let mut read = Vec::new();
        if !elementwise(&value, &item, &params, &bindings, &mut read)
            || read.is_empty()
            || read.len() > MAX_READS
            || operators(&value) > MAX_OPERATORS
        {
            continue;
        }
        let buffer = Buffer {
            name,
            item,
            value,
            len,
            read,
            span,
        };
        if let Some(rewritten) = rewritten(body, at, &buffer) {
            return Some(rewritten);
        }
    }
    None
}

/// At most this many slices read and operators applied per element: computed again at
/// each read, a larger value would cost more than keeping the buffer saves (each read
/// would load every slice again, and its adjoint go to each).
const MAX_READS: usize = 2;
const MAX_OPERATORS: usize = 3;

/// The binary and unary operators of an element's value.
fn operators(e: &syn::Expr) -> usize {
    match e {
        syn::Expr::Binary(b) => 1 + operators(&b.left) + operators(&b.right),
        syn::Expr::Unary(u) => 1 + operators(&u.expr),
        syn::Expr::Paren(p) => operators(&p.expr),
        _ => 0,
    }
}

/// `let mut NAME = vec![float literal; LEN];` (a type written or not): the name and `LEN`.
fn made(stmt: &syn::Stmt) -> Option<(String, syn::Expr)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let pat = match &local.pat {
        syn::Pat::Type(t) => &*t.pat,
        p => p,
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let syn::Expr::Macro(m) = &*init.expr else {
        return None;
    };
    // (a float buffer: its elements' arithmetic cannot panic, so computing them only where
    // they are read drops no panic the loop would have made)
    let (_, len) = super::float_repeat(&m.mac)?;
    Some((p.ident.to_string(), len))
}

/// `for ITEM in 0..LEN { NAME[ITEM] = value; }`: the item, the value and the loop's span.
fn filled(stmt: &syn::Stmt, name: &str, len: &syn::Expr) -> Option<(String, syn::Expr, Span)> {
    let syn::Stmt::Expr(syn::Expr::ForLoop(f), _) = stmt else {
        return None;
    };
    if f.label.is_some() || !f.attrs.is_empty() {
        return None;
    }
    let syn::Pat::Ident(item) = &*f.pat else {
        return None;
    };
    if item.mutability.is_some() || item.by_ref.is_some() || item.subpat.is_some() {
        return None;
    }
    let syn::Expr::Range(r) = &*f.expr else {
        return None;
    };
    let from_zero = matches!(r.start.as_deref(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(z), .. })) if z.base10_digits() == "0");
    let to_len = r
        .end
        .as_deref()
        .is_some_and(|e| e.to_token_stream().to_string() == len.to_token_stream().to_string());
    if !from_zero || !to_len || !matches!(r.limits, syn::RangeLimits::HalfOpen(_)) {
        return None;
    }
    let [syn::Stmt::Expr(syn::Expr::Assign(a), Some(_))] = &f.body.stmts[..] else {
        return None;
    };
    let syn::Expr::Index(target) = &*a.left else {
        return None;
    };
    let item = item.ident.to_string();
    if !is_name(&target.expr, name) || !is_name(&target.index, &item) {
        return None;
    }
    Some((item, (*a.right).clone(), f.span()))
}

/// Whether `e` is the path `name`.
fn is_name(e: &syn::Expr, name: &str) -> bool {
    matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| i == name))
}

/// A buffer's length the same wherever it is read: a parameter's `len()`, a parameter,
/// or a name bound once, not `mut`.
fn stable_len(len: &syn::Expr, params: &HashSet<String>, bindings: &Bindings) -> bool {
    match len {
        syn::Expr::MethodCall(m) => {
            m.method == "len"
                && m.args.is_empty()
                && m.turbofish.is_none()
                && param_name(&m.receiver, params, bindings).is_some()
        }
        syn::Expr::Path(p) => {
            p.qself.is_none()
                && p.path.get_ident().is_some_and(|i| {
                    let i = i.to_string();
                    (params.contains(&i) && bindings.count(&i) == 0)
                        || (bindings.count(&i) == 1 && !bindings.mutable.contains(&i))
                })
        }
        _ => false,
    }
}

/// The parameter `e` names, if it is a parameter no pattern of the body binds again.
fn param_name(e: &syn::Expr, params: &HashSet<String>, bindings: &Bindings) -> Option<String> {
    let syn::Expr::Path(p) = e else {
        return None;
    };
    let name = p.path.get_ident()?.to_string();
    (p.qself.is_none() && params.contains(&name) && bindings.count(&name) == 0).then_some(name)
}

/// Whether `value` is arithmetic of literals, parameters and parameters indexed at the
/// item (those pushed on `read` in reading order).
fn elementwise(
    value: &syn::Expr,
    item: &str,
    params: &HashSet<String>,
    bindings: &Bindings,
    read: &mut Vec<syn::Expr>,
) -> bool {
    match value {
        syn::Expr::Binary(b) => {
            matches!(
                b.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) && elementwise(&b.left, item, params, bindings, read)
                && elementwise(&b.right, item, params, bindings, read)
        }
        syn::Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_)) && elementwise(&u.expr, item, params, bindings, read)
        }
        syn::Expr::Paren(p) => elementwise(&p.expr, item, params, bindings, read),
        syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
        syn::Expr::Path(_) => param_name(value, params, bindings).is_some(),
        syn::Expr::Index(ix) => {
            let ok = param_name(&ix.expr, params, bindings).is_some() && is_name(&ix.index, item);
            if ok {
                read.push((*ix.expr).clone());
            }
            ok
        }
        _ => false,
    }
}

/// The names patterns of the body bind, with how often, and those bound `mut`.
#[derive(Default)]
struct Bindings {
    count: HashMap<String, usize>,
    mutable: HashSet<String>,
}

impl Bindings {
    fn count(&self, name: &str) -> usize {
        self.count.get(name).copied().unwrap_or(0)
    }
}

impl<'a> Visit<'a> for Bindings {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        let name = p.ident.to_string();
        *self.count.entry(name.clone()).or_default() += 1;
        if p.mutability.is_some() {
            self.mutable.insert(name);
        }
        syn::visit::visit_pat_ident(self, p);
    }
}

/// How many times `name` is written anywhere in `ts`, macros included.
fn mentions(ts: TokenStream, name: &str) -> usize {
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) => usize::from(i == name),
            TokenTree::Group(g) => mentions(g.stream(), name),
            _ => 0,
        })
        .sum()
}

/// The body with the buffer made at `at` rewritten, or `None` where a mention of it is
/// not a read the module allows.
fn rewritten(body: &syn::Block, at: usize, buffer: &Buffer) -> Option<syn::Block> {
    let mut body = body.clone();
    let before = mentions(body.to_token_stream(), &buffer.name);
    // the buffer and its loop: the check the loop made
    // (the lengths bound to names first: a statement that names a slice parameter makes
    // the pullback keep it, see `emit::borrowing_vars`)
    let (rt, len, span) = (crate::companions::rt(), &buffer.len, buffer.span);
    let names: Vec<syn::Ident> = (0..buffer.read.len())
        .map(|k| quote::format_ident!("__autodiff_{}_len{}", buffer.name, k))
        .collect();
    let reads = &buffer.read;
    let check = quote_spanned! {span=>
        #(let #names = #reads.len();)*
        #rt::saved::covers(#len, [#(#names),*]);
    };
    let check = syn::parse2::<syn::Block>(quote::quote!({ #check }))
        .ok()?
        .stmts;
    body.stmts.splice(at..at + 2, check);
    let mut reads = Reads {
        buffer,
        conditional: false,
        checks: Vec::new(),
        statement: None,
        done: 0,
        refused: false,
    };
    reads.visit_block_mut(&mut body);
    // every mention accounted for: the `let`, the write in the loop, the reads
    (!reads.refused && before == reads.done + 2).then_some(body)
}

/// Rewrites the buffer's reads (see the module), each with its check.
struct Reads<'a> {
    buffer: &'a Buffer,
    /// Inside a part of its statement that may not run (see the module).
    conditional: bool,
    /// The checks the reads of the statement being rewritten need, before it.
    checks: Vec<syn::Stmt>,
    /// The statement being rewritten, as written.
    statement: Option<TokenStream>,
    done: usize,
    refused: bool,
}

/// Whether a statement may leave before its end: `?`, `return`, `break`, `continue` or
/// `.await` anywhere in it but a closure's body.
struct Exits(bool);

impl<'a> Visit<'a> for Exits {
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        match e {
            syn::Expr::Try(_)
            | syn::Expr::Return(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_)
            | syn::Expr::Await(_)
            | syn::Expr::Yield(_) => self.0 = true,
            syn::Expr::Closure(_) => {}
            e => syn::visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, _: &'a syn::Macro) {
        // (a macro may hide any of them)
        self.0 = true;
    }
}

/// Whether `ts` may change the variable `name`: `mut name` (borrowed `&mut`) or `name`
/// assigned (`=`, `+=`, …), at any depth.
fn changes(ts: TokenStream, name: &str) -> bool {
    let tts: Vec<TokenTree> = ts.into_iter().collect();
    tts.iter().enumerate().any(|(at, tt)| match tt {
        TokenTree::Group(g) => changes(g.stream(), name),
        TokenTree::Ident(i) if i == name => {
            let after_mut = at > 0 && matches!(&tts[at - 1], TokenTree::Ident(m) if m == "mut");
            let punct = |k: usize| match tts.get(at + k) {
                Some(TokenTree::Punct(p)) => Some((p.as_char(), p.spacing())),
                _ => None,
            };
            let assigned = match (punct(1), punct(2), punct(3)) {
                (Some(('=', proc_macro2::Spacing::Alone)), _, _) => true,
                (Some((c, proc_macro2::Spacing::Joint)), Some(('=', _)), _) => {
                    "+-*/%^&|".contains(c)
                }
                (Some((c, proc_macro2::Spacing::Joint)), Some((d, _)), Some(('=', _))) => {
                    matches!(c, '<' | '>') && c == d
                }
                _ => false,
            };
            after_mut || assigned
        }
        _ => false,
    })
}

impl Reads<'_> {
    /// `NAME[j]` with `j` a name, an integer, or a name plus or minus an integer: `j`.
    fn read<'e>(&self, e: &'e syn::Expr) -> Option<&'e syn::Expr> {
        let syn::Expr::Index(ix) = e else {
            return None;
        };
        if !is_name(&ix.expr, &self.buffer.name) {
            return None;
        }
        fn simple(e: &syn::Expr) -> bool {
            match e {
                syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(_),
                    ..
                }) => true,
                syn::Expr::Paren(p) => simple(&p.expr),
                syn::Expr::Binary(b) => {
                    matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_))
                        && matches!(&*b.left, syn::Expr::Path(_))
                        && matches!(
                            &*b.right,
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Int(_),
                                ..
                            })
                        )
                }
                _ => false,
            }
        }
        simple(&ix.index).then_some(&*ix.index)
    }

    fn refuse(&mut self) {
        self.refused = true;
    }

    /// Visits `e` as a part of its statement that may not run.
    fn visit_conditional(&mut self, e: &mut syn::Expr) {
        let was = std::mem::replace(&mut self.conditional, true);
        self.visit_expr_mut(e);
        self.conditional = was;
    }

    /// Visits `e`, a block of statements of its own where it is one.
    fn visit_branch(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Block(b) if b.label.is_none() => self.visit_block_mut(&mut b.block),
            e => self.visit_conditional(e),
        }
    }
}

impl VisitMut for Reads<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let was = (
            std::mem::take(&mut self.checks),
            self.conditional,
            self.statement.take(),
        );
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            // a statement that may leave before a read (`?`, `return`, `break`): its reads
            // may not run, and their checks would
            let mut exits = Exits(false);
            exits.visit_stmt(&stmt);
            self.conditional = exits.0;
            self.statement = Some(stmt.to_token_stream());
            self.visit_stmt_mut(&mut stmt);
            stmts.append(&mut self.checks);
            stmts.push(stmt);
        }
        block.stmts = stmts;
        (self.checks, self.conditional, self.statement) = was;
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let Some(index) = self.read(e).cloned() {
            let index = &index;
            // (a statement that changes the index before the read would have the check
            // see another value)
            let changed = (self.statement.as_ref()).is_some_and(|st| {
                (index.to_token_stream().into_iter()).any(
                    |t| matches!(t, TokenTree::Ident(i) if changes(st.clone(), &i.to_string())),
                )
            });
            if self.conditional || changed {
                return self.refuse();
            }
            let (rt, len) = (crate::companions::rt(), &self.buffer.len);
            let span = e.span();
            let check = quote_spanned!(span=> #rt::saved::checked_index(#index, #len););
            let mut value = self.buffer.value.clone();
            Substitute {
                item: &self.buffer.item,
                by: index,
            }
            .visit_expr_mut(&mut value);
            match syn::parse2::<syn::Stmt>(check) {
                Ok(check) => self.checks.push(check),
                Err(_) => return self.refuse(),
            }
            *e = syn::parse_quote_spanned!(span=> (#value));
            self.done += 1;
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_expr_assign_mut(&mut self, a: &mut syn::ExprAssign) {
        if self.read(&a.left).is_some() {
            return self.refuse();
        }
        syn::visit_mut::visit_expr_assign_mut(self, a);
    }

    fn visit_expr_binary_mut(&mut self, b: &mut syn::ExprBinary) {
        use syn::BinOp::*;
        match b.op {
            And(_) | Or(_) => {
                self.visit_expr_mut(&mut b.left);
                self.visit_conditional(&mut b.right);
            }
            AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_)
            | BitXorAssign(_) | BitAndAssign(_) | BitOrAssign(_) | ShlAssign(_) | ShrAssign(_)
                if self.read(&b.left).is_some() =>
            {
                self.refuse()
            }
            _ => syn::visit_mut::visit_expr_binary_mut(self, b),
        }
    }

    fn visit_expr_reference_mut(&mut self, r: &mut syn::ExprReference) {
        if self.read(&r.expr).is_some() {
            return self.refuse();
        }
        syn::visit_mut::visit_expr_reference_mut(self, r);
    }

    fn visit_expr_if_mut(&mut self, i: &mut syn::ExprIf) {
        self.visit_expr_mut(&mut i.cond);
        self.visit_block_mut(&mut i.then_branch);
        if let Some((_, els)) = &mut i.else_branch {
            self.visit_branch(els);
        }
    }

    fn visit_expr_match_mut(&mut self, m: &mut syn::ExprMatch) {
        self.visit_expr_mut(&mut m.expr);
        for arm in &mut m.arms {
            if let Some((_, guard)) = &mut arm.guard {
                self.visit_conditional(guard);
            }
            self.visit_branch(&mut arm.body);
        }
    }

    fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
        self.visit_conditional(&mut w.cond);
        self.visit_block_mut(&mut w.body);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.visit_branch(&mut c.body);
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_branch(diverge);
            }
        }
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        // a mention that is not a read of an element (handed on, measured, iterated)
        if p.qself.is_none() && p.path.get_ident().is_some_and(|i| *i == self.buffer.name) {
            self.refuse();
        }
    }
}

/// Replaces the item by the read's index in a copy of the element's value.
struct Substitute<'a> {
    item: &'a str,
    by: &'a syn::Expr,
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if is_name(e, self.item) {
            let by = self.by;
            *e = syn::parse_quote!((#by));
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(params: &str) -> Signature {
        let f: syn::ItemFn = syn::parse_str(&format!("fn f({params}) -> f64 {{ 0.0 }}")).unwrap();
        let mut errors = crate::diag::Errors::default();
        Signature::parse(&f.sig, &mut errors).unwrap()
    }

    fn run(params: &str, body: &str) -> String {
        let body: syn::Block = syn::parse_str(body).unwrap();
        rewrite(&sig(params), &body).to_token_stream().to_string()
    }

    const PARAMS: &str = "q: &[f64], x: &[f64], mean: &[f64]";

    #[test]
    fn reads_become_values_with_their_checks() {
        let out = run(
            PARAMS,
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i] - mean[i]; }
               let mut s = 0.0; for j in 0..d { s += q[j] * xc[j]; } s + xc[d - 1] }",
        );
        assert!(!out.contains("vec !") && !out.contains("xc ["), "{out}");
        assert!(
            out.contains("let __autodiff_xc_len1 = mean . len () ;"),
            "{out}"
        );
        assert!(
            out.contains("covers (d , [__autodiff_xc_len0 , __autodiff_xc_len1])"),
            "{out}"
        );
        assert!(out.contains("checked_index (j , d) ;"), "{out}");
        assert!(out.contains("q [j] * (x [(j)] - mean [(j)])"), "{out}");
        assert!(out.contains("checked_index (d - 1 , d)"), "{out}");
    }

    #[test]
    fn anything_else_is_left_as_written() {
        let cases = [
            // written after the loop, borrowed, measured, read in a macro
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } xc[0] = 1.0; xc[1] }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } f(&xc) }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } xc.len() as f64 }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } println!(\"{}\", xc[0]); xc[1] }",
            // a read that may not run
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } if d > 3 && xc[0] > 0.0 { 1.0 } else { 0.0 } }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } match d { 0 => xc[0], _ => 0.0 } }",
            // a loop not over the whole buffer, a value not elementwise, a parameter bound again
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 1..d { xc[i] = x[i]; } xc[0] }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i].exp(); } xc[0] }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i + 1]; } xc[0] }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } let x = 2.0; xc[0] * x }",
            // an element too costly to compute again at each read
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i] * mean[i] + q[i]; } xc[0] }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = (x[i] - 1.0) * (x[i] + 2.0) / 3.0; } xc[0] }",
            // a statement that may leave before its read, or changes the index first
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } let t = f(d)? + xc[2]; t }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } let mut k = 0; let t = g(&mut k) + xc[k]; t }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } let mut k = 0; let t = { k = 3; 1.0 } + xc[k]; t }",
            // a buffer of integers (whose arithmetic may overflow where no read reaches)
            "{ let d = x.len(); let mut xc = vec![0; d]; for i in 0..d { xc[i] = x[i] * 2; } xc[0] as f64 }",
            // a length that may change, a buffer named twice
            "{ let mut d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } d = 1; xc[d] }",
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = x[i]; } let xc = 1.0; xc }",
        ];
        for case in cases {
            let out = run(PARAMS, case);
            assert!(out.contains("vec !"), "rewritten: {case}\n{out}");
        }
    }

    #[test]
    fn reads_in_blocks_get_their_checks_there() {
        let out = run(
            PARAMS,
            "{ let d = x.len(); let mut xc = vec![0.0; d]; for i in 0..d { xc[i] = 2.0 * x[i]; }
               let mut s = 0.0; for i in 0..d { for j in i + 1..d { if j > 2 { s += xc[i] * xc[j]; } } } s }",
        );
        assert!(!out.contains("vec !") && !out.contains("xc ["), "{out}");
        assert!(out.contains("checked_index (i , d) ;"), "{out}");
        assert!(out.contains("checked_index (j , d) ;"), "{out}");
    }
}
