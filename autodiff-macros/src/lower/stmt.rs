//! Statements and patterns: a block's statements in order, `let` bindings, destructuring,
//! statements kept for their effect, and the guards after a statement that may exit.

use super::*;

impl Lowering<'_> {
    /// Lowers the statements of a block in the current scope; the value of its tail.
    pub(super) fn block_contents(&mut self, stmts: &[syn::Stmt], is_body: bool) -> Value {
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            match stmt {
                syn::Stmt::Local(local) => self.local(local),
                syn::Stmt::Item(item) => {
                    if is_body {
                        self.items.push(item.clone());
                    } else {
                        self.errors.push_spanned(item, diag::NESTED_ITEM);
                    }
                }
                // `return e;` ending the body: its value is the body's.
                syn::Stmt::Expr(syn::Expr::Return(r), _)
                    if last && is_body && self.loops.is_empty() =>
                {
                    let value = match &r.expr {
                        Some(e) => self.expr(e),
                        None => Value::Tuple(Vec::new()),
                    };
                    return self.finish_body(value, is_body, r.span());
                }
                syn::Stmt::Expr(e, None) if last => {
                    let value = self.expr(e);
                    return self.finish_body(value, is_body, e.span());
                }
                syn::Stmt::Expr(e, _) => self.effect(e),
                syn::Stmt::Macro(m) => {
                    let e = syn::Expr::Macro(syn::ExprMacro {
                        attrs: m.attrs.clone(),
                        mac: m.mac.clone(),
                    });
                    self.effect(&e);
                }
            }
            if !last && stmt_may_exit(stmt) {
                let Some(guard) = self.guard() else { continue };
                let rest = &stmts[i + 1..];
                let has_value = matches!(rest.last(), Some(syn::Stmt::Expr(_, None)));
                let result = if has_value && !is_body {
                    let shape = match rest.last() {
                        Some(syn::Stmt::Expr(e, None)) => control::value_shape(e),
                        _ => control::Shape::Leaf,
                    };
                    Some(self.result_slot(shape, node_key(stmt)))
                } else {
                    None
                };
                let then = self.nested(false, |l| {
                    let v = l.block_contents(rest, is_body);
                    if let Some(slot) = &result {
                        l.write_slot(slot, v, Span::call_site());
                    }
                });
                let els = self.nested(false, |_| {});
                self.push_if(guard, then, els);
                return match result {
                    Some(slot) => self.read_slot(&slot, Span::call_site()),
                    None => Value::Tuple(Vec::new()),
                };
            }
        }
        self.finish_body(Value::Tuple(Vec::new()), is_body, Span::call_site())
    }

    /// At the end of the function body, with early returns: the value goes to the
    /// return cell.
    pub(super) fn finish_body(&mut self, value: Value, is_body: bool, span: Span) -> Value {
        if is_body {
            if let Some((_, out)) = self.ret.clone() {
                self.write_slot(&out, value, span);
                return Value::Tuple(Vec::new());
            }
        }
        value
    }

    /// A statement evaluated for its effect (`println!(…);`, `acc += x;`).
    pub(super) fn effect(&mut self, e: &syn::Expr) {
        if (self.references_active(e) || expr_may_exit(e)) && !matches!(e, syn::Expr::Macro(_)) {
            let outer = std::mem::replace(&mut self.discard, true);
            self.expr(e);
            self.discard = outer;
            return;
        }
        let e2 = self.renamed(e);
        let ts = quote!(#e2;);
        self.forget_snapshots_in(&ts);
        self.block.stmts.push(Stmt::Effect(ts));
    }

    pub(super) fn local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            // `let r: f64;` assigned later (in each branch, or in a loop): a cell, like a
            // `let mut` local with no value yet (Rust checks it is assigned before use)
            let (pat, ty) = match &local.pat {
                syn::Pat::Type(pt) => (&*pt.pat, Some(pt.ty.clone())),
                p => (p, None),
            };
            match pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let cell = self.new_cell(ty, node_key(pi));
                    self.bind(&pi.ident.to_string(), Binding::Cell(cell));
                }
                _ => self.errors.push_spanned(local, diag::LET_WITHOUT_VALUE),
            }
            return;
        };
        if let Some((_, d)) = &init.diverge {
            self.errors.push_spanned(d, diag::LET_ELSE);
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(pt.ty.clone())),
            p => (p, None),
        };
        // A local holding a reference to a scalar (`let mut best: &T = &val[0];`, `let
        // first = &v[0];`) holds the scalar, read as a reference again where the user's
        // syntax is kept (see `seen_through`).
        let by_reference = matches!(&*init.expr, syn::Expr::Reference(r) if r.mutability.is_none());
        let written = ty.clone();
        let (ty, seen_through) = match (pat, ty) {
            (syn::Pat::Ident(_), Some(t)) => match self.seen_through(&t) {
                Some(inner) => (Some(inner), true),
                None => (Some(t), false),
            },
            (syn::Pat::Ident(_), None) => (None, by_reference),
            (_, t) => (t, false),
        };
        if let (syn::Pat::Ident(pi), Some(c)) = (pat, closure_of(&init.expr)) {
            if pi.by_ref.is_none() && pi.subpat.is_none() {
                self.local_closure(&pi.ident, c, ty);
                return;
            }
        }
        let discard = std::mem::replace(&mut self.discard, false);
        let value = self.expr(&init.expr);
        self.discard = discard;
        let scalar = matches!(&value, Value::Var(v) if !self.vars[v.0].maybe_array);
        match pat {
            syn::Pat::Ident(pi) if seen_through && scalar && pi.mutability.is_none() => {
                // (bound as the reference it is, as a loop's item over `iter()`)
                let value = Value::Ref(Box::new(value));
                self.bind_pattern(pat, value, None, init.expr.span());
            }
            syn::Pat::Ident(pi) if seen_through && scalar => {
                self.bind_pattern(pat, value, ty, init.expr.span());
                if let Some(Binding::Cell(c)) = self.lookup(&pi.ident.to_string()) {
                    self.ref_cells.insert(*c);
                }
            }
            _ if seen_through => self.bind_pattern(pat, value, written, init.expr.span()),
            _ => self.bind_pattern(pat, value, ty, init.expr.span()),
        }
        let view = self.mut_view_of_buffer(&init.expr);
        let mut names = HashSet::new();
        crate::rename::pattern_names(pat, &mut names);
        for name in names {
            match &view {
                Some(v) => self.mut_views.insert(name, v.clone()),
                None => self.mut_views.remove(&name),
            };
        }
        if let (syn::Pat::Ident(pi), true) = (pat, constant_array(&init.expr)) {
            if let Some(Binding::Cell(c)) = self.lookup(&pi.ident.to_string()).cloned() {
                let e = &init.expr;
                self.cells[c.0].init = Some(quote!(#e));
                self.cells[c.0].init_fits_tangent = true;
            }
        }
        if let (syn::Pat::Ident(pi), syn::Expr::Macro(m)) = (pat, &*init.expr) {
            let mut tokens = m.mac.tokens.clone().into_iter();
            let nested_vec = matches!(
                (tokens.next(), tokens.next()),
                (Some(proc_macro2::TokenTree::Ident(v)), Some(proc_macro2::TokenTree::Punct(b)))
                    if v == "vec" && b.as_char() == '!'
            );
            if m.mac.path.is_ident("vec") && nested_vec {
                if let Some(Binding::Cell(c)) = self.lookup(&pi.ident.to_string()).cloned() {
                    self.vec_cells.insert(c);
                }
            }
        }
    }

    /// `let sq = |v: f64| v * v;`: remembered with the bindings it sees, and inlined at
    /// each call (`sq(a)`), so its body is differentiated where it runs. One that reads no
    /// active value is also kept as written, for uses other than calls.
    fn local_closure(
        &mut self,
        name: &syn::Ident,
        c: &syn::ExprClosure,
        ty: Option<Box<syn::Type>>,
    ) {
        let body: syn::Expr = (*c.body).clone();
        let active = self.references_active(&body);
        // (the lowering's own closures, `__autodiff_map` of `for y in it.map(f)`, are only
        // called: written out, an untyped one would not infer its parameter's type)
        let value = if active || name.to_string().starts_with("__autodiff_") {
            None
        } else {
            let e = syn::Expr::Closure(c.clone());
            let value = self.verbatim(&e);
            Some(match (ty, value) {
                (Some(ty), Value::Var(src)) => {
                    let v = self.new_var(false);
                    self.push(v, Some(ty), Rhs::Copy(Operand::Var(src)), c.span());
                    Value::Var(v)
                }
                (_, value) => value,
            })
        };
        let mut scopes = self.scopes.clone();
        // A `move` closure has its own copies of the `let mut` locals it reads, made here.
        if c.capture.is_some() {
            let names = rename::free_names(&body, &self.bound_names());
            for n in names {
                if let Some(Binding::Cell(cell)) = self.lookup(&n).cloned() {
                    let v = self.read_cell(cell, c.span());
                    scopes
                        .last_mut()
                        .expect("scope")
                        .insert(n, Binding::Value(Value::Var(v)));
                }
            }
        }
        self.closures.push(LocalClosure {
            name: name.clone(),
            closure: self
                .synth
                .get("local_closure", syn::Expr::Closure(c.clone())),
            scopes,
            active,
            value,
        });
        let k = self.closures.len() - 1;
        self.bind(&name.to_string(), Binding::Closure(k));
    }

    /// A call of a local closure: its arguments lowered here, its body lowered with the
    /// bindings of its definition and its parameters bound to the arguments.
    pub(super) fn inline_closure(
        &mut self,
        e: &syn::Expr,
        k: usize,
        call: &syn::ExprCall,
    ) -> Value {
        let kept = self.closures[k].closure.clone();
        let syn::Expr::Closure(c) = &*kept else {
            return self.unsupported(e, diag::CLOSURE_ARITY);
        };
        if c.inputs.len() != call.args.len() {
            return self.unsupported(e, diag::CLOSURE_ARITY);
        }
        if expr_may_exit(&c.body) || contains_try(&c.body) {
            return self.unsupported(e, diag::CLOSURE_EXITS);
        }
        if self.inlining >= 16 {
            return self.unsupported(e, diag::CLOSURE_NESTING);
        }
        let args: Vec<Value> = call.args.iter().map(|a| self.expr(a)).collect();
        let scopes = std::mem::replace(&mut self.scopes, self.closures[k].scopes.clone());
        self.scopes.push(HashMap::new());
        self.inlining += 1;
        for (input, value) in c.inputs.iter().zip(args) {
            let (pat, ty) = match input {
                // `|v: &f64|` over the items of a sequence: the value itself
                syn::Pat::Type(pt) if matches!(&*pt.ty, syn::Type::Reference(_)) => {
                    (&*pt.pat, None)
                }
                syn::Pat::Type(pt) => (&*pt.pat, Some(pt.ty.clone())),
                p => (p, None),
            };
            self.bind_pattern(pat, value, ty, call.span());
        }
        let discard = std::mem::replace(&mut self.discard, false);
        let result = self.expr(&c.body);
        self.discard = discard;
        self.inlining -= 1;
        self.scopes = scopes;
        result
    }

    /// A local's type as the lowering holds its value: a reference to a scalar
    /// (`let mut best: &T = &val[0];`, then `best = v` for items `v` of `val.iter()`) is
    /// the scalar, which the lowering reads through references anyway.
    /// The cell holds the scalar; where the user's own syntax is kept (a comparison with
    /// another reference, `v > best`) it is read as a reference again (`renamer`).
    fn seen_through(&self, ty: &syn::Type) -> Option<Box<syn::Type>> {
        let syn::Type::Reference(r) = ty else {
            return None;
        };
        let syn::Type::Path(p) = &*r.elem else {
            return None;
        };
        let scalar = r.mutability.is_none()
            && p.qself.is_none()
            && p.path.get_ident().is_some_and(|i| {
                let name = i.to_string();
                prims::is_float_type_name(&name) || self.type_params.contains(&name)
            });
        scalar.then(|| r.elem.clone())
    }

    pub(super) fn bind_pattern(
        &mut self,
        pat: &syn::Pat,
        value: Value,
        ty: Option<Box<syn::Type>>,
        span: Span,
    ) {
        match pat {
            // a closure's typed parameter (`|v: T| …`)
            syn::Pat::Type(pt) if ty.is_none() => {
                self.bind_pattern(&pt.pat, value, Some(pt.ty.clone()), span)
            }
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if pi.mutability.is_some() {
                    let cell = self.new_cell(ty, node_key(pi));
                    if matches!(&value, Value::Var(v) if self.vars[v.0].owned_struct) {
                        self.struct_valued_cells.insert(cell);
                    }
                    if matches!(&value, Value::Var(v) if self.struct_vec_values.contains(v)) {
                        self.struct_cells.insert(cell);
                    }
                    let o = self.operand(value, span);
                    self.write_cell(cell, o);
                    self.bind(&pi.ident.to_string(), Binding::Cell(cell));
                    return;
                }
                let value = match (ty, value) {
                    (Some(ty), Value::Inline(e)) => {
                        let v = self.new_var(false);
                        self.push(v, Some(ty), Rhs::Inactive(e.to_token_stream()), span);
                        Value::Var(v)
                    }
                    (Some(ty), Value::Var(src)) => {
                        let v = self.new_var(self.vars[src.0].active);
                        self.push(v, Some(ty), Rhs::Copy(Operand::Var(src)), span);
                        if self.struct_vec_values.contains(&src) {
                            self.struct_vec_values.insert(v);
                        }
                        Value::Var(v)
                    }
                    (_, value) => value,
                };
                self.bind(&pi.ident.to_string(), Binding::Value(value));
            }
            syn::Pat::Wild(_) => {}
            syn::Pat::Paren(p) => self.bind_pattern(&p.pat, value, ty, span),
            syn::Pat::Reference(r) => self.bind_pattern(&r.pat, value.deref(), ty, span),
            syn::Pat::Tuple(pt) => {
                let elem_tys: Vec<Option<Box<syn::Type>>> = match ty.as_deref() {
                    Some(syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                        tt.elems.iter().map(|t| Some(Box::new(t.clone()))).collect()
                    }
                    _ => vec![None; pt.elems.len()],
                };
                if pt.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) {
                    self.errors.push_spanned(pat, diag::TUPLE_REST_PATTERN);
                    return;
                }
                if let Value::Tuple(items) = &value {
                    if items.len() != pt.elems.len() {
                        self.errors.push_spanned(pat, diag::DESTRUCTURING);
                        return;
                    }
                }
                for (k, (p, ty)) in pt.elems.iter().zip(elem_tys).enumerate() {
                    let Some(item) = self.component(&value, k, span) else {
                        self.errors.push_spanned(pat, diag::DESTRUCTURING);
                        return;
                    };
                    self.bind_pattern(p, item, ty, span);
                }
            }
            // `let [x1, x2] = *param;`, `let [first, .., last] = v;`: reads of the elements
            syn::Pat::Slice(ps) => {
                let elem_ty = match ty.as_deref() {
                    Some(syn::Type::Array(a)) => Some(a.elem.clone()),
                    _ => None,
                };
                let rest = ps.elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
                let n = ps.elems.len();
                for (k, p) in ps.elems.iter().enumerate() {
                    if Some(k) == rest {
                        continue;
                    }
                    if let syn::Pat::Ident(pi) = p {
                        if pi.subpat.is_some() {
                            self.errors.push_spanned(p, diag::SUB_ARRAY_PATTERN);
                            continue;
                        }
                    }
                    let index = match rest {
                        // after `..`: counted from the end
                        Some(r) if k > r => Position::FromEnd(n - k),
                        _ => Position::Start(k),
                    };
                    let Some(item) = self.element(&value, index, span) else {
                        self.errors.push_spanned(pat, diag::DESTRUCTURING);
                        return;
                    };
                    self.bind_pattern(p, item, elem_ty.clone(), span);
                }
            }
            other => {
                self.errors.push_spanned(other, diag::UNSUPPORTED_PATTERN);
            }
        }
    }
}

/// The closure `e` is (through parentheses).
fn closure_of(e: &syn::Expr) -> Option<&syn::ExprClosure> {
    match e {
        syn::Expr::Closure(c) => Some(c),
        syn::Expr::Paren(p) => closure_of(&p.expr),
        _ => None,
    }
}

/// Whether `e` uses `?` outside nested closures and items.
fn contains_try(e: &syn::Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_expr(&mut f, e);
    f.0
}

/// Whether `e` is an array of constants (`[0.0; N]`, `[[0.0; N]; M]`, `[1.0, -2.0]`,
/// `[T::zero(); N]`): a local array initialised with it is declared with it too (a
/// const-generic length has no `Default`), evaluating it a second time at no cost.
fn constant_array(e: &syn::Expr) -> bool {
    fn constant(e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Lit(_) => true,
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => constant(&u.expr),
            syn::Expr::Paren(p) => constant(&p.expr),
            // a constant (`ZERO`, `f64::EPSILON`), not a local
            syn::Expr::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| !s.ident.to_string().starts_with(|c: char| c.is_lowercase())),
            // `T::zero()`, `T::from(0.5).unwrap()`: associated functions of a type
            syn::Expr::Call(c) => {
                matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.len() >= 2)
                    && c.args.iter().all(constant)
            }
            syn::Expr::MethodCall(m) => {
                matches!(m.method.to_string().as_str(), "unwrap" | "expect")
                    && m.args.iter().all(|a| matches!(a, syn::Expr::Lit(_)))
                    && constant(&m.receiver)
            }
            other => constant_array(other),
        }
    }
    match e {
        syn::Expr::Repeat(r) => {
            constant(&r.expr) && matches!(&*r.len, syn::Expr::Lit(_) | syn::Expr::Path(_))
        }
        syn::Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(constant),
        syn::Expr::Paren(p) => constant_array(&p.expr),
        _ => false,
    }
}

/// Where an element of an array pattern is: counted from the start, or from the end
/// (after `..`).
#[derive(Clone, Copy)]
pub(super) enum Position {
    Start(usize),
    FromEnd(usize),
}

impl Lowering<'_> {
    /// Component `k` of a tuple-valued value: the item itself for a tuple the lowering
    /// built, a projection (`.k`) of a variable (the result of a call, of a branch), or of
    /// a constant.
    pub(super) fn component(&mut self, value: &Value, k: usize, span: Span) -> Option<Value> {
        match value {
            Value::Tuple(items) => items.get(k).cloned(),
            Value::Ref(inner) => self.component(inner, k, span),
            Value::Var(v) if !self.vars[v.0].active => {
                let (id, index) = (v.ident(), syn::Index::from(k));
                Some(self.inactive(quote!(#id.#index), span))
            }
            Value::Var(v) => {
                let field = self.new_var(true);
                let rhs = Rhs::Field {
                    base: *v,
                    index: k as u32,
                };
                self.push(field, None, rhs, span);
                Some(Value::Var(field))
            }
            Value::Inline(e) => {
                let index = syn::Index::from(k);
                Some(Value::Inline(syn::parse_quote!((#e).#index)))
            }
        }
    }

    /// An element of an array-valued value (`let [a, b] = p;`): a read at a constant index,
    /// whose adjoint goes to the same element of the array's.
    pub(super) fn element(&mut self, value: &Value, at: Position, span: Span) -> Option<Value> {
        let v = match value {
            Value::Ref(inner) => return self.element(inner, at, span),
            Value::Tuple(_) => return None,
            Value::Inline(e) => {
                let index = match at {
                    Position::Start(k) => quote!(#k),
                    Position::FromEnd(m) => quote!((#e).len() - #m),
                };
                return Some(self.inactive(quote!((#e)[#index]), span));
            }
            Value::Var(v) => *v,
        };
        let id = v.ident();
        let index = match at {
            Position::Start(k) => Operand::Inline(syn::parse_quote!(#k)),
            Position::FromEnd(m) => {
                let i = self.inactive(quote!(#id.len() - #m), span);
                self.operand(i, span)
            }
        };
        if !self.vars[v.0].active {
            let i = index.tokens();
            return Some(self.inactive(quote!(#id[#i]), span));
        }
        let e = self.new_var(true);
        self.push(
            e,
            None,
            Rhs::ReadIndex {
                place: Place::Var(v),
                index,
            },
            span,
        );
        Some(Value::Var(e))
    }
}
