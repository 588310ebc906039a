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
        let (rule, recv, args, view): (&'static str, &syn::Expr, Vec<&syn::Expr>, bool) = match (
            name.as_str(),
            m.args.len(),
        ) {
            ("unwrap", 0) | ("expect", 1) => match &*m.receiver {
                syn::Expr::MethodCall(inner) if inner.method == "mean" && inner.args.is_empty() => {
                    ("mean", &*inner.receiver, vec![], false)
                }
                syn::Expr::MethodCall(inner)
                    if inner.method == "mean_axis" && inner.args.len() == 1 =>
                {
                    ("mean_axis", &*inner.receiver, vec![&inner.args[0]], false)
                }
                syn::Expr::MethodCall(inner)
                    if (inner.method == "to_shape" || inner.method == "into_shape_with_order")
                        && inner.args.len() == 1 =>
                {
                    ("reshape", &*inner.receiver, vec![&inner.args[0]], false)
                }
                syn::Expr::MethodCall(inner)
                    if inner.method == "broadcast" && inner.args.len() == 1 =>
                {
                    ("broadcast", &*inner.receiver, vec![&inner.args[0]], false)
                }
                _ => return None,
            },
            ("mean" | "mean_axis", _) => {
                self.errors.push(m.method.span(), format!("`{name}` returns an `Option` (`None` for an empty array): write `.{name}(…).unwrap()` (or `.expect(…)`) directly after it"));
                return Some(Value::Inline(syn::parse_quote!(())));
            }
            ("dot", 1) => ("dot", &*m.receiver, vec![&m.args[0]], false),
            ("t", 0) => ("t", &*m.receiver, vec![], true),
            ("view", 0) => ("view", &*m.receiver, vec![], true),
            ("to_owned" | "into_owned", 0) => ("to_owned", &*m.receiver, vec![], false),
            ("sum", 0) => ("sum", &*m.receiver, vec![], false),
            ("sum_axis", 1) => ("sum_axis", &*m.receiver, vec![&m.args[0]], false),
            ("slice", 1) => ("slice", &*m.receiver, vec![&m.args[0]], true),
            ("insert_axis", 1) => ("insert_axis", &*m.receiver, vec![&m.args[0]], true),
            ("reversed_axes", 0) => ("t", &*m.receiver, vec![], true),
            ("permuted_axes", 1) => ("permuted_axes", &*m.receiver, vec![&m.args[0]], true),
            ("product", 0) => ("product", &*m.receiver, vec![], false),
            ("var", 1) => ("var", &*m.receiver, vec![&m.args[0]], false),
            ("std", 1) => ("std", &*m.receiver, vec![&m.args[0]], false),
            ("row", 1) => ("row", &*m.receiver, vec![&m.args[0]], true),
            ("column", 1) => ("column", &*m.receiver, vec![&m.args[0]], true),
            ("index_axis", 2) => (
                "index_axis",
                &*m.receiver,
                vec![&m.args[0], &m.args[1]],
                true,
            ),
            ("select", 2) => ("select", &*m.receiver, vec![&m.args[0], &m.args[1]], false),
            ("mapv" | "map", 1) => return Some(self.mapv(e, m)),
            _ => return None,
        };
        let mut operands = vec![self.operand_of(recv)];
        for a in args {
            operands.push(self.operand_of(a));
        }
        if rule != "dot" && operands[1..].iter().any(|o| self.operand_active(o)) {
            self.errors.push_spanned(&m.args, format!("the arguments of `{name}` (axes, indices, slices) must not depend on differentiable values"));
        }
        let fwd_args = operands.len();
        Some(self.prim(
            Prim::Tensor {
                rule,
                fwd_args,
                view,
            },
            operands,
            e.span(),
        ))
    }

    /// `concatenate(axis, &[a.view(), b.view(), …])` and `stack(…)` (before their `unwrap`).
    pub(super) fn join(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Option<Value> {
        let syn::Expr::Path(func) = &*c.func else {
            return None;
        };
        let last = func.path.segments.last()?.ident.to_string();
        let rule = match last.as_str() {
            "concatenate" => "concatenate",
            "stack" => "stack",
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
            self.errors.push_spanned(
                &c.args[0],
                format!("the axis of `{rule}` must not depend on differentiable values"),
            );
        }
        for p in &parts.elems {
            operands.push(self.operand_of(p));
        }
        let fwd_args = operands.len();
        Some(self.prim(
            Prim::Tensor {
                rule,
                fwd_args,
                view: false,
            },
            operands,
            e.span(),
        ))
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
                    match prims::method_arity(&name) {
                        Some((rule, 1)) => {
                            let reads = prims::rule_reads(rule, 0, 1);
                            let args = reads.iter().map(|r| {
                                if *r == 0 {
                                    quote!(&__x,)
                                } else {
                                    quote!(&__y,)
                                }
                            });
                            let d = quote::format_ident!("{}_d0", rule);
                            quote!(|__x, __y, __g| ::autodiff::__private::ops::#d(#(#args)* &__g))
                        }
                        _ => {
                            self.errors.push_spanned(f, format!("cannot differentiate `mapv` of `{}`: a one-argument float method (`f64::tanh`) or a closure is expected", quote!(#f)));
                            return Value::Inline(syn::parse_quote!(()));
                        }
                    }
                }
            }
            syn::Expr::Closure(c) if c.inputs.len() == 1 => {
                let captured: Vec<String> = rename::free_names(f, &self.renamer())
                    .into_iter()
                    .filter(|n| self.lookup(n).is_some())
                    .collect();
                if let Some(name) = captured.first() {
                    self.errors.push_spanned(f, format!("a `mapv` closure may use only its argument, literals and constants, not the local `{name}`; use array arithmetic (`x.mapv(f) * {name}`) for the rest"));
                    return Value::Inline(syn::parse_quote!(()));
                }
                // The closure's own reverse sweep, run at each element.
                let mut errors = Errors::default();
                let mut sig = Signature::for_closure(c, &mut errors);
                // `map`'s closure receives `&x`
                sig.params[0].by_ref = m.method == "map";
                let block: syn::Block = match &*c.body {
                    syn::Expr::Block(b) if b.label.is_none() => b.block.clone(),
                    other => syn::parse_quote!({ #other }),
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
                self.errors.push_spanned(f, "cannot differentiate `mapv` of this expression: pass a float method's path (`f64::tanh`) or a closure");
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
        let rule = if m.method == "map" { "map" } else { "mapv" };
        self.prim(
            Prim::Tensor {
                rule,
                fwd_args: 2,
                view: false,
            },
            operands,
            e.span(),
        )
    }
}
