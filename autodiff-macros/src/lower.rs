//! Lowering: a function body (syn's AST) to the IR, in A-normal form.
//!
//! Activity is decided here, as values are built: a value is *active* when it depends on
//! a differentiable parameter through operations with a derivative. Expressions whose
//! result is inactive (constants, comparisons, integer arithmetic, piecewise-constant
//! methods, `stop_gradient`) are kept as written, renamed. Every construct the macro cannot
//! differentiate is reported at its span, and lowering goes on so all errors come at once.

use crate::diag::Errors;
use crate::ir::{Block, Body, Operand, Prim, Rhs, Stmt, Value, VarId, VarInfo};
use crate::prims;
use crate::rename;
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashMap;
use syn::spanned::Spanned;

pub struct Lowering<'a> {
    vars: Vec<VarInfo>,
    scopes: Vec<HashMap<String, Value>>,
    block: Block,
    items: Vec<syn::Item>,
    type_params: Vec<String>,
    errors: &'a mut Errors,
}

const HELP_CALL: &str = "mark it `#[differentiable]`, give it a custom rule with `#[differentiable(vjp = …)]`, or wrap the value in `stop_gradient(…)` if no gradient should flow through it";

/// Lowers `body`; the parameters of `sig` are variables `0..n`, active when differentiable.
pub fn lower(sig: &Signature, generics: &syn::Generics, body: &syn::Block, errors: &mut Errors) -> Body {
    let mut l = Lowering {
        vars: Vec::new(),
        scopes: vec![HashMap::new()],
        block: Block::default(),
        items: Vec::new(),
        type_params: generics.type_params().map(|t| t.ident.to_string()).collect(),
        errors,
    };
    for p in &sig.params {
        let v = l.new_var(p.differentiable);
        l.bind(&p.name, Value::Var(v));
    }
    let output = l.block_contents(&body.stmts, true);
    Body { vars: l.vars, items: l.items, block: l.block, output }
}

fn is_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_literal(&u.expr),
        syn::Expr::Paren(p) => is_literal(&p.expr),
        _ => false,
    }
}

impl Lowering<'_> {
    fn new_var(&mut self, active: bool) -> VarId {
        self.vars.push(VarInfo { active });
        VarId(self.vars.len() - 1)
    }

    fn bind(&mut self, name: &str, value: Value) {
        self.scopes.last_mut().expect("scope").insert(name.to_string(), value);
    }

    fn lookup(&self, name: &str) -> Option<&Value> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn is_active(&self, v: &Value) -> bool {
        let mut vars = Vec::new();
        v.vars(&mut vars);
        vars.iter().any(|v| self.vars[v.0].active)
    }

    fn push(&mut self, dst: VarId, ty: Option<Box<syn::Type>>, rhs: Rhs, span: Span) {
        self.block.stmts.push(Stmt::Let { dst, ty, rhs, span });
    }

    /// A fresh inactive variable holding `tokens`.
    fn inactive(&mut self, tokens: TokenStream, span: Span) -> Value {
        let v = self.new_var(false);
        self.push(v, None, Rhs::Inactive(tokens), span);
        Value::Var(v)
    }

    fn renamer(&self) -> impl Fn(&str) -> Option<TokenStream> + '_ {
        move |name| self.lookup(name).map(Value::tokens)
    }

    /// Whether `e` mentions a local whose value is active.
    fn references_active(&self, e: &syn::Expr) -> bool {
        rename::free_names(e, &self.renamer())
            .iter()
            .any(|n| self.lookup(n).is_some_and(|v| self.is_active(v)))
    }

    /// `e`, whose value carries no derivative, kept as written with locals renamed.
    fn verbatim(&mut self, e: &syn::Expr) -> Value {
        if is_literal(e) {
            return Value::Inline(e.clone());
        }
        let mut e2 = e.clone();
        rename::rename_expr(&mut e2, &self.renamer());
        self.inactive(e2.to_token_stream(), e.span())
    }

    fn operand(&mut self, v: Value, span: Span) -> Operand {
        match v {
            Value::Var(v) => Operand::Var(v),
            Value::Inline(e) => Operand::Inline(e),
            Value::Tuple(_) => {
                self.errors.push(span, "a tuple cannot be used as an operand here; take its fields (`t.0`) or destructure it with `let (a, b) = …`");
                Operand::Inline(syn::parse_quote!(()))
            }
        }
    }

    fn prim(&mut self, prim: Prim, args: Vec<Operand>, span: Span) -> Value {
        let active = args.iter().any(|a| a.var().is_some_and(|v| self.vars[v.0].active));
        let v = self.new_var(active);
        self.push(v, None, Rhs::Prim(prim, args), span);
        Value::Var(v)
    }

    fn unsupported(&mut self, e: &dyn ToTokens, what: &str) -> Value {
        self.errors.push_spanned(e, what);
        Value::Inline(syn::parse_quote!(()))
    }

    /// Lowers the statements of a block in the current scope; the value of its tail.
    fn block_contents(&mut self, stmts: &[syn::Stmt], is_body: bool) -> Value {
        let mut tail = Value::Tuple(Vec::new());
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            match stmt {
                syn::Stmt::Local(local) => self.local(local),
                syn::Stmt::Item(item) => {
                    if is_body {
                        self.items.push(item.clone());
                    } else {
                        self.errors.push_spanned(item, "items inside nested blocks of a differentiable function are not supported; declare them at the top of the function body");
                    }
                }
                syn::Stmt::Expr(syn::Expr::Return(r), _) if last && is_body => {
                    tail = match &r.expr {
                        Some(e) => self.expr(e),
                        None => Value::Tuple(Vec::new()),
                    };
                }
                syn::Stmt::Expr(e, None) if last => tail = self.expr(e),
                syn::Stmt::Expr(e, _) => self.effect(e),
                syn::Stmt::Macro(m) => {
                    let e = syn::Expr::Macro(syn::ExprMacro { attrs: m.attrs.clone(), mac: m.mac.clone() });
                    self.effect(&e);
                }
            }
        }
        tail
    }

    /// A statement evaluated for its effect (`println!(…);`, `assert!(…);`).
    fn effect(&mut self, e: &syn::Expr) {
        if let syn::Expr::Return(_) = e {
            self.unsupported(e, "early `return` in differentiable code is not supported yet; restructure the function so the value is returned at its end");
            return;
        }
        if self.references_active(e) && !matches!(e, syn::Expr::Macro(_)) {
            self.expr(e);
            return;
        }
        let mut e2 = e.clone();
        rename::rename_expr(&mut e2, &self.renamer());
        self.block.stmts.push(Stmt::Effect(quote!(#e2;)));
    }

    fn local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            self.errors.push_spanned(local, "a `let` without a value is not supported in differentiable code; initialise the variable where it is declared");
            return;
        };
        if let Some((_, d)) = &init.diverge {
            self.errors.push_spanned(d, "`let … else` is not supported in differentiable code yet");
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(pt.ty.clone())),
            p => (p, None),
        };
        let value = self.expr(&init.expr);
        self.bind_pattern(pat, value, ty, init.expr.span());
    }

    fn bind_pattern(&mut self, pat: &syn::Pat, value: Value, ty: Option<Box<syn::Type>>, span: Span) {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let value = match (ty, value) {
                    (Some(ty), Value::Inline(e)) => {
                        let v = self.new_var(false);
                        self.push(v, Some(ty), Rhs::Inactive(e.to_token_stream()), span);
                        Value::Var(v)
                    }
                    (Some(ty), Value::Var(src)) => {
                        let v = self.new_var(self.vars[src.0].active);
                        self.push(v, Some(ty), Rhs::Copy(Operand::Var(src)), span);
                        Value::Var(v)
                    }
                    (_, value) => value,
                };
                self.bind(&pi.ident.to_string(), value);
            }
            syn::Pat::Wild(_) => {}
            syn::Pat::Paren(p) => self.bind_pattern(&p.pat, value, ty, span),
            syn::Pat::Tuple(pt) => {
                let elem_tys: Vec<Option<Box<syn::Type>>> = match ty.as_deref() {
                    Some(syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => tt.elems.iter().map(|t| Some(Box::new(t.clone()))).collect(),
                    _ => vec![None; pt.elems.len()],
                };
                match value {
                    Value::Tuple(items) if items.len() == pt.elems.len() => {
                        for ((p, item), ty) in pt.elems.iter().zip(items).zip(elem_tys) {
                            self.bind_pattern(p, item, ty, span);
                        }
                    }
                    Value::Var(v) if !self.vars[v.0].active => {
                        for (k, (p, ty)) in pt.elems.iter().zip(elem_tys).enumerate() {
                            let index = syn::Index::from(k);
                            let id = v.ident();
                            let field = self.inactive(quote!(#id.#index), span);
                            self.bind_pattern(p, field, ty, span);
                        }
                    }
                    _ => {
                        self.errors.push_spanned(pat, "destructuring this value is not supported yet in differentiable code; bind it to a name and take its fields with `.0`, `.1`, …");
                    }
                }
            }
            other => {
                self.errors.push_spanned(other, "this pattern is not supported in differentiable code; bind the value to a plain name");
            }
        }
    }

    pub fn expr(&mut self, e: &syn::Expr) -> Value {
        match e {
            syn::Expr::Lit(_) => return Value::Inline(e.clone()),
            syn::Expr::Paren(p) => return self.expr(&p.expr),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Path(p) => {
                if p.qself.is_none() {
                    if let Some(id) = p.path.get_ident() {
                        if let Some(v) = self.lookup(&id.to_string()) {
                            return v.clone();
                        }
                    }
                }
                // A constant or static: inactive, written inline.
                return Value::Inline(e.clone());
            }
            syn::Expr::Unsafe(u) => {
                return self.unsupported(&u.unsafe_token, "`unsafe` blocks cannot be differentiated: the reverse sweep could not uphold their safety contract; move the unsafe code into a function with a custom rule (`#[differentiable(vjp = …)]`)");
            }
            _ => {}
        }
        if !self.references_active(e) {
            return self.verbatim(e);
        }
        match e {
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    let x = self.expr(&u.expr);
                    let x = self.operand(x, u.expr.span());
                    self.prim(Prim::Neg, vec![x], e.span())
                }
                syn::UnOp::Not(_) => self.verbatim(e),
                _ => self.unsupported(e, "dereferencing is not supported in differentiable code yet; use the value directly"),
            },
            syn::Expr::Binary(b) => self.binary(e, b),
            syn::Expr::MethodCall(m) => self.method_call(e, m),
            syn::Expr::Call(c) => self.call(e, c),
            syn::Expr::Cast(c) => {
                let float_target = matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|i| prims::is_float_type_name(&i.to_string()) || self.type_params.contains(&i.to_string())));
                if !float_target {
                    // A cast to an integer type: piecewise constant, zero derivative.
                    return self.verbatim(e);
                }
                let x = self.expr(&c.expr);
                let x = self.operand(x, c.expr.span());
                self.prim(Prim::Cast { ty: c.ty.clone() }, vec![x], e.span())
            }
            syn::Expr::Tuple(t) => Value::Tuple(t.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(index) => match self.expr(&f.base) {
                    Value::Tuple(items) if (index.index as usize) < items.len() => items[index.index as usize].clone(),
                    _ => self.unsupported(e, "taking a field of this value is not supported in differentiable code yet"),
                },
                syn::Member::Named(_) => self.unsupported(e, "reading a struct field in differentiable code is not supported yet"),
            },
            syn::Expr::Block(b) if b.label.is_none() => {
                self.scopes.push(HashMap::new());
                let v = self.block_contents(&b.block.stmts, false);
                self.scopes.pop();
                v
            }
            syn::Expr::Return(_) => self.unsupported(e, "early `return` in differentiable code is not supported yet; restructure the function so the value is returned at its end"),
            syn::Expr::Assign(_) => self.unsupported(e, "assignment in differentiable code is not supported yet; bind a new value with `let` instead"),
            syn::Expr::If(_) | syn::Expr::Match(_) => self.unsupported(e, "branches on or around differentiable values are not supported yet"),
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => self.unsupported(e, "loops over differentiable values are not supported yet"),
            syn::Expr::Index(_) => self.unsupported(e, "indexing in differentiable code is not supported yet"),
            syn::Expr::Macro(m) => self.unsupported(&m.mac, "a macro invocation cannot be differentiated; compute the value outside the macro, or wrap it in `stop_gradient(…)`"),
            syn::Expr::Closure(_) => self.unsupported(e, "closures capturing differentiable values are not supported in differentiable code yet"),
            syn::Expr::Reference(_) => self.unsupported(e, "references to differentiable values are not supported yet; pass the value itself"),
            _ => self.unsupported(e, "this expression is not supported in differentiable code"),
        }
    }

    fn binary(&mut self, e: &syn::Expr, b: &syn::ExprBinary) -> Value {
        use syn::BinOp::*;
        let rule = match b.op {
            Add(_) => "add",
            Sub(_) => "sub",
            Mul(_) => "mul",
            Div(_) => "div",
            Rem(_) => "rem",
            AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) => {
                return self.unsupported(e, "compound assignment in differentiable code is not supported yet; bind a new value with `let` instead");
            }
            // Comparisons and logic: a `bool`, no derivative.
            _ => return self.verbatim(e),
        };
        let l = self.expr(&b.left);
        let l = self.operand(l, b.left.span());
        let r = self.expr(&b.right);
        let r = self.operand(r, b.right.span());
        self.prim(Prim::Binary { rule, op: b.op }, vec![l, r], e.span())
    }

    fn method_call(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Value {
        let name = m.method.to_string();
        if prims::is_piecewise_constant(&name) {
            return self.verbatim(e);
        }
        let recv = self.expr(&m.receiver);
        if name == "clone" && m.args.is_empty() {
            let x = self.operand(recv, m.receiver.span());
            let active = x.var().is_some_and(|v| self.vars[v.0].active);
            let v = self.new_var(active);
            self.push(v, None, Rhs::Copy(x), e.span());
            return Value::Var(v);
        }
        let mut args = vec![self.operand(recv, m.receiver.span())];
        for a in &m.args {
            let v = self.expr(a);
            args.push(self.operand(v, a.span()));
        }
        self.method_prim(e, &m.method, None, args)
    }

    fn method_prim(&mut self, e: &syn::Expr, method: &syn::Ident, callee: Option<syn::ExprPath>, args: Vec<Operand>) -> Value {
        let name = method.to_string();
        match prims::method_arity(&name) {
            Some((rule, arity)) if arity == args.len() => {
                self.prim(Prim::Method { rule, method: method.clone(), callee }, args, e.span())
            }
            Some((_, arity)) => self.unsupported(e, &format!("`{name}` takes {} argument(s) here", arity - 1)),
            None => {
                self.errors.push(
                    method.span(),
                    format!("cannot differentiate through the method `{name}`: it is not a differentiable primitive; {HELP_CALL}"),
                );
                Value::Inline(syn::parse_quote!(()))
            }
        }
    }

    fn call(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Value {
        let syn::Expr::Path(func) = &*c.func else {
            return self.unsupported(&c.func, &format!("cannot differentiate a call of this expression; call a named function. To call a differentiable function: {HELP_CALL}"));
        };
        let last = func.path.segments.last().map(|s| s.ident.clone());
        let Some(last) = last else { return self.verbatim(e) };
        if last == "stop_gradient" && c.args.len() == 1 {
            return self.verbatim(e);
        }
        if let Some(id) = func.path.get_ident() {
            if self.lookup(&id.to_string()).is_some() {
                return self.unsupported(&c.func, "calling a local closure with differentiable values is not supported; make it a `#[differentiable]` function");
            }
        }
        // `f64::sin(x)`, `T::powi(x, 2)`, `Float::max(a, b)`: the path form of a method.
        let path_form = func.qself.is_some() || {
            let segs = &func.path.segments;
            segs.len() >= 2 && {
                let owner = segs[segs.len() - 2].ident.to_string();
                prims::is_float_type_name(&owner) || owner == "Float" || owner == "Real" || self.type_params.contains(&owner)
            }
        };
        let name = last.to_string();
        if path_form && prims::is_piecewise_constant(&name) {
            return self.verbatim(e);
        }
        let mut args = Vec::new();
        for a in &c.args {
            let v = self.expr(a);
            args.push(self.operand(v, a.span()));
        }
        if path_form {
            let segs = &func.path.segments;
            if name == "from" && args.len() == 1 && func.qself.is_none() {
                let owner = &segs[segs.len() - 2].ident;
                let ty: syn::Type = syn::parse_quote!(#owner);
                let x = args.remove(0);
                return self.prim(Prim::Cast { ty: Box::new(ty) }, vec![x], e.span());
            }
            return self.method_prim(e, &last, Some(func.clone()), args);
        }
        let active = args.iter().any(|a| a.var().is_some_and(|v| self.vars[v.0].active));
        let v = self.new_var(active);
        if active {
            self.push(v, None, Rhs::Call { func: func.clone(), args }, e.span());
        } else {
            let arg_tokens = args.iter().map(Operand::tokens);
            let span = e.span();
            self.push(v, None, Rhs::Inactive(quote_spanned!(span=> #func(#(#arg_tokens),*))), span);
        }
        Value::Var(v)
    }
}
