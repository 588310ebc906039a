//! ndarray's methods: `dot`, `t`, reductions, slicing, `mapv`, `concatenate`/`stack`.

use super::*;

impl Lowering<'_> {
    /// ndarray's methods: `dot`, `t`, `view`, `to_owned`, `sum`, `mean().unwrap()`,
    /// `sum_axis`, `mean_axis(…).unwrap()`, `mapv(f64::tanh)`.
    pub(super) fn array_method(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let name = m.method.to_string();
        if matches!((name.as_str(), m.args.len()), ("unwrap", 0) | ("expect", 1)) {
            if let syn::Expr::Call(c) = &*m.receiver {
                if let Some(v) = self.join(e, c) {
                    return Some(v);
                }
            }
        }
        let (rule, recv, args): (&'static Rule, &syn::Expr, Vec<&syn::Expr>) =
            match (name.as_str(), m.args.len()) {
                ("unwrap", 0) | ("expect", 1) => match &*m.receiver {
                    syn::Expr::MethodCall(inner)
                        if inner.method == "mean" && inner.args.is_empty() =>
                    {
                        (&rules::MEAN, &*inner.receiver, vec![])
                    }
                    syn::Expr::MethodCall(inner)
                        if inner.method == "mean_axis" && inner.args.len() == 1 =>
                    {
                        (&rules::MEAN_AXIS, &*inner.receiver, vec![&inner.args[0]])
                    }
                    syn::Expr::MethodCall(inner)
                        if (inner.method == "to_shape"
                            || inner.method == "into_shape_with_order")
                            && inner.args.len() == 1 =>
                    {
                        (&rules::RESHAPE, &*inner.receiver, vec![&inner.args[0]])
                    }
                    syn::Expr::MethodCall(inner)
                        if inner.method == "broadcast" && inner.args.len() == 1 =>
                    {
                        (&rules::BROADCAST, &*inner.receiver, vec![&inner.args[0]])
                    }
                    _ => return None,
                },
                ("mean" | "mean_axis", _) => {
                    self.errors
                        .push(m.method.span(), diag::option_needs_unwrap(&name));
                    return Some(Value::Inline(syn::parse_quote!(())));
                }
                ("dot", 1) => (&rules::DOT, &*m.receiver, vec![&m.args[0]]),
                ("t", 0) => (&rules::T, &*m.receiver, vec![]),
                ("view", 0) => (&rules::VIEW, &*m.receiver, vec![]),
                ("to_owned" | "into_owned", 0) => (&rules::TO_OWNED, &*m.receiver, vec![]),
                ("sum", 0) => (&rules::SUM, &*m.receiver, vec![]),
                ("sum_axis", 1) => (&rules::SUM_AXIS, &*m.receiver, vec![&m.args[0]]),
                ("slice", 1) => (&rules::SLICE, &*m.receiver, vec![&m.args[0]]),
                ("insert_axis", 1) => (&rules::INSERT_AXIS, &*m.receiver, vec![&m.args[0]]),
                ("reversed_axes", 0) => (&rules::T, &*m.receiver, vec![]),
                ("permuted_axes", 1) => (&rules::PERMUTED_AXES, &*m.receiver, vec![&m.args[0]]),
                ("product", 0) => (&rules::PRODUCT, &*m.receiver, vec![]),
                ("var", 1) => (&rules::VAR, &*m.receiver, vec![&m.args[0]]),
                ("std", 1) => (&rules::STD, &*m.receiver, vec![&m.args[0]]),
                ("row", 1) => (&rules::ROW, &*m.receiver, vec![&m.args[0]]),
                ("column", 1) => (&rules::COLUMN, &*m.receiver, vec![&m.args[0]]),
                ("diag", 0) => (&rules::DIAG, &*m.receiver, vec![]),
                ("index_axis", 2) => (
                    &rules::INDEX_AXIS,
                    &*m.receiver,
                    vec![&m.args[0], &m.args[1]],
                ),
                ("select", 2) => (&rules::SELECT, &*m.receiver, vec![&m.args[0], &m.args[1]]),
                ("norm", 0) => (&rules::NORM, &*m.receiver, vec![]),
                ("norm_squared", 0) => (&rules::NORM_SQUARED, &*m.receiver, vec![]),
                ("normalize", 0) => (&rules::NORMALIZE, &*m.receiver, vec![]),
                ("transpose", 0) => (&rules::TRANSPOSE, &*m.receiver, vec![]),
                ("cross", 1) => (&rules::CROSS, &*m.receiver, vec![&m.args[0]]),
                ("mapv" | "map", 1) => return Some(self.mapv(e, m)),
                _ => return None,
            };
        let mut operands = vec![self.operand_of(recv)];
        for a in args {
            operands.push(self.operand_of(a));
        }
        let constant = (1..operands.len())
            .any(|k| rule.constant_operand(k) && self.operand_active(&operands[k]));
        if constant {
            self.errors
                .push_spanned(&m.args, diag::active_array_arguments(&name));
        }
        let fwd_args = operands.len();
        Some(self.prim(Prim::Tensor { rule, fwd_args }, operands, e.span()))
    }

    /// `concatenate(axis, &[a.view(), b.view(), …])` and `stack(…)` (before their `unwrap`).
    pub(super) fn join(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Option<Value> {
        let syn::Expr::Path(func) = &*c.func else {
            return None;
        };
        let last = func.path.segments.last()?.ident.to_string();
        let rule: &'static Rule = match last.as_str() {
            "concatenate" => &rules::CONCATENATE,
            "stack" => &rules::STACK,
            _ => return None,
        };
        if c.args.len() != 2 {
            return None;
        }
        let syn::Expr::Reference(r) = &c.args[1] else {
            return None;
        };
        let syn::Expr::Array(parts) = &*r.expr else {
            return None;
        };
        let mut operands = vec![self.operand_of(&c.args[0])];
        if self.operand_active(&operands[0]) {
            self.errors
                .push_spanned(&c.args[0], diag::active_axis(&last));
        }
        for p in &parts.elems {
            operands.push(self.operand_of(p));
        }
        let fwd_args = operands.len();
        Some(self.prim(Prim::Tensor { rule, fwd_args }, operands, e.span()))
    }

    /// `x.mapv(f)` with `f` a float method's path (`f64::tanh`) or a closure of one
    /// argument written with float methods and arithmetic.
    pub(super) fn mapv(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Value {
        let x = self.operand_of(&m.receiver);
        let f = &m.args[0];
        let rule: TokenStream = match f {
            syn::Expr::Path(p) => {
                let name = p
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                if prims::is_piecewise_constant(&name) {
                    quote!(|_x, _y, _g| 0.0)
                } else {
                    match rules::method_rule(&name) {
                        Some(rule) if rule.arity() == 1 => {
                            let args = rule.reads(0, false).iter().map(|r| match r {
                                rules::Read::Output => quote!(&__y,),
                                rules::Read::Operand(_) => quote!(&__x,),
                            });
                            let d = quote::format_ident!("{}_d0", rule.name);
                            quote!(|__x, __y, __g| ::autodiff::__private::ops::#d(#(#args)* &__g))
                        }
                        _ => {
                            self.errors
                                .push_spanned(f, diag::mapv_of_path(&quote!(#f).to_string()));
                            return Value::Inline(syn::parse_quote!(()));
                        }
                    }
                }
            }
            syn::Expr::Closure(c) if c.inputs.len() == 1 => {
                let captured: Vec<String> = rename::free_names(f, &self.bound_names())
                    .into_iter()
                    .filter(|n| self.lookup(n).is_some())
                    .collect();
                if let Some(name) = captured.first() {
                    // `x.mapv(|v| (v - m).exp())`: elementwise arithmetic and float methods
                    // of the argument and captured values, which are the same arithmetic on
                    // the whole array (`(x - m).exp()`, each element as the closure
                    // computes it): lowered so, the captured values differentiable too
                    let param = closure_param(c).filter(|p| {
                        // (the argument read: `|v| m` is no array)
                        crate::derive_dual::mentions(c.body.to_token_stream(), p)
                    });
                    let whole = match &x {
                        Operand::Var(v) => Some(Value::Var(*v)),
                        Operand::Inline(e) => Some(Value::Inline(e.clone())),
                        _ => None,
                    };
                    let elementwise = m.method == "mapv" && elementwise(&c.body);
                    if let (Some(param), Some(whole), true) = (param, whole, elementwise) {
                        self.scopes.push(std::collections::HashMap::new());
                        self.bind(&param.to_string(), Binding::Value(whole));
                        let out = self.value_of(&c.body);
                        self.scopes.pop();
                        return out;
                    }
                    self.errors.push_spanned(f, diag::mapv_capture(name));
                    return Value::Inline(syn::parse_quote!(()));
                }
                // The closure's own reverse sweep, run at each element.
                let mut errors = Errors::default();
                let mut sig = Signature::for_closure(c, &mut errors);
                // `map`'s closure receives `&x`
                sig.params[0].by_ref = m.method == "map";
                let block: syn::Block = match &*c.body {
                    syn::Expr::Block(b) if b.label.is_none() => b.block.clone(),
                    other => crate::expand::expr_block(other),
                };
                let body = lower(&sig, &sig.generics, &block, &mut errors);
                if !errors.is_empty() {
                    self.errors.extend(errors);
                    return Value::Inline(syn::parse_quote!(()));
                }
                let vjp = crate::emit::vjp_body(&sig, &body);
                let v0 = VarId(0).ident();
                quote!(|__x, _y, __g| { let #v0 = __x; let (_, __pb) = { #vjp }; (__pb(__g)).0 })
            }
            _ => {
                self.errors.push_spanned(f, diag::MAPV_EXPRESSION);
                return Value::Inline(syn::parse_quote!(()));
            }
        };
        let f = self.renamed(f);
        let operands = vec![
            x,
            Operand::Inline(f),
            Operand::Inline(syn::parse_quote!(#rule)),
        ];
        // `map` runs the user's closure (on `&x`) forward; both share `mapv`'s rule
        let rule: &'static Rule = if m.method == "map" {
            &rules::MAP
        } else {
            &rules::MAPV
        };
        let fwd_args = rule.forward_operands.unwrap_or(operands.len());
        self.prim(Prim::Tensor { rule, fwd_args }, operands, e.span())
    }
}

/// The name a closure's one parameter binds (`|v|`, `|v: f64|`).
fn closure_param(c: &syn::ExprClosure) -> Option<&syn::Ident> {
    let pat = match c.inputs.first()? {
        syn::Pat::Type(t) => &*t.pat,
        p => p,
    };
    match pat {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Some(&i.ident),
        _ => None,
    }
}

/// Whether a `mapv` closure's body is elementwise arithmetic: names, literals, `+ - * /`,
/// negation, parentheses and the float methods an array has elementwise (`exp`, `ln`,
/// `sin`, …, `powi` of an integer literal), so that computing it on the whole array
/// computes each element as the closure does.
fn elementwise(e: &syn::Expr) -> bool {
    const METHODS: &[&str] = &[
        "exp", "ln", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sqrt", "abs", "exp2", "log2",
        "log10", "ln_1p", "exp_m1", "recip", "atan", "asin", "acos",
    ];
    match e {
        syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => elementwise(&p.expr),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && elementwise(&u.expr),
        syn::Expr::Binary(b) => {
            matches!(
                b.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) && elementwise(&b.left)
                && elementwise(&b.right)
        }
        syn::Expr::MethodCall(m) => {
            let name = m.method.to_string();
            let unary = METHODS.contains(&name.as_str()) && m.args.is_empty();
            let powi =
                name == "powi" && m.args.len() == 1 && matches!(&m.args[0], syn::Expr::Lit(_));
            m.turbofish.is_none() && (unary || powi) && elementwise(&m.receiver)
        }
        _ => false,
    }
}

/// Whether `ty` (through references) is an ndarray array of two or more dimensions by its
/// name: `Array2`…`Array6`, `ArrayD`, their views, `ArcArray2`, or `Array<_, Ix2>`.
fn multi_dimensional(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => multi_dimensional(&r.elem),
        syn::Type::Paren(p) => multi_dimensional(&p.elem),
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            let numbered = ["Array", "ArrayView", "ArrayViewMut", "ArcArray", "CowArray"]
                .iter()
                .any(|base| {
                    name.strip_prefix(base)
                        .is_some_and(|rest| matches!(rest, "2" | "3" | "4" | "5" | "6" | "D"))
                });
            let by_dimension = matches!(name.as_str(), "Array" | "ArrayView" | "ArrayBase")
                && matches!(&last.arguments, syn::PathArguments::AngleBracketed(a)
                if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(syn::Type::Path(d))
                    if d.path.segments.last().is_some_and(|s| {
                        matches!(s.ident.to_string().as_str(), "Ix2" | "Ix3" | "Ix4" | "Ix5" | "Ix6" | "IxDyn")
                    }))));
            numbered || by_dimension
        }
        _ => false,
    }
}

/// `a.iter()` and `a.fold(init, f)` of a parameter that is an array of two or more
/// dimensions: over the elements of `a.to_shape(a.len()).unwrap()` (its elements in the
/// logical order `iter()` visits them), which the lowering reads by index like any
/// sequence (and whose adjoint goes back to `a`'s shape).
pub(super) fn flat_iterations(body: &syn::Block, sig: &Signature) -> syn::Block {
    struct Rewrite(Vec<String>);
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            let syn::Expr::MethodCall(m) = e else {
                return;
            };
            let syn::Expr::Path(p) = &*m.receiver else {
                return;
            };
            let Some(name) = p.path.get_ident() else {
                return;
            };
            if !self.0.contains(&name.to_string()) || m.turbofish.is_some() {
                return;
            }
            let span = m.method.span();
            let flat = quote_spanned!(span=> #name.to_shape(#name.len()).unwrap());
            match (m.method.to_string().as_str(), m.args.len()) {
                ("iter", 0) => *e = syn::parse_quote_spanned!(span=> #flat.iter()),
                ("fold", 2) => {
                    let (init, f) = (&m.args[0], &m.args[1]);
                    *e = syn::parse_quote_spanned!(span=> #flat.iter().fold(#init, #f));
                }
                _ => {}
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let names = sig
        .params
        .iter()
        .filter(|p| multi_dimensional(&p.ty))
        .map(|p| p.name.clone())
        .collect();
    let mut out = body.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewrite(names), &mut out);
    out
}
