//! `Option` and `Result` around differentiable values: `Some(x)`/`Ok(x)`, `unwrap()`,
//! `expect(..)`, `?`, `if let Some(v) = …` and `match` on `Some`/`None`/`Ok`/`Err`. The
//! value carries the gradient and the other path none (the runtime's `Option<T>` and
//! `Result<T, E>` have `T`'s tangent), so wrapping and unwrapping are primitives that pass
//! the cotangent through, and the rest is written as `if`s on whether the value is there.

use super::*;

/// What an arm's or an `if let`'s pattern asks of an `Option`/`Result`.
enum Shape<'p> {
    /// `Some(p)` / `Ok(p)`: the value is there; `p` binds it.
    Value(&'p syn::Pat),
    /// `None` / `Err(p)`: it is not; `p` (of `Err`) binds the error.
    Residual(Option<&'p syn::Pat>),
    /// `_` or a plain name: anything.
    Any,
}

/// Whether a pattern matches every value (a name, `_`, a tuple or reference of these): the
/// patterns the value of `Some(p)`/`Ok(p)`/`Err(p)` may be bound with (`Err(1 | 2)` tests
/// the error, which the `if` on whether the value is there cannot).
fn irrefutable(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(i) => i.subpat.is_none(),
        syn::Pat::Wild(_) => true,
        syn::Pat::Tuple(t) => t.elems.iter().all(irrefutable),
        syn::Pat::Reference(r) => irrefutable(&r.pat),
        syn::Pat::Paren(p) => irrefutable(&p.pat),
        syn::Pat::Type(t) => irrefutable(&t.pat),
        _ => false,
    }
}

/// `let p = <the error of __autodiff_option>;` (a `Result` known to hold one), with no
/// gradient.
fn bind_error(p: &syn::Pat) -> syn::Stmt {
    syn::parse_quote! {
        let #p = match ::autodiff::stop_gradient(::core::clone::Clone::clone(&__autodiff_option)) {
            ::core::result::Result::Err(e) => e,
            _ => ::core::unreachable!(),
        };
    }
}

fn shape(pat: &syn::Pat) -> Option<Shape<'_>> {
    let variant = |path: &syn::Path| path.segments.last().map(|s| s.ident.to_string());
    match pat {
        syn::Pat::TupleStruct(t) if t.elems.len() == 1 && !irrefutable(&t.elems[0]) => None,
        syn::Pat::TupleStruct(t) if t.elems.len() == 1 => match variant(&t.path)?.as_str() {
            "Some" | "Ok" => Some(Shape::Value(&t.elems[0])),
            "Err" => Some(Shape::Residual(Some(&t.elems[0]))),
            _ => None,
        },
        syn::Pat::Ident(i) if i.ident == "None" && i.subpat.is_none() => {
            Some(Shape::Residual(None))
        }
        syn::Pat::Path(p) if variant(&p.path).as_deref() == Some("None") => {
            Some(Shape::Residual(None))
        }
        syn::Pat::Wild(_) => Some(Shape::Any),
        syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() => Some(Shape::Any),
        _ => None,
    }
}

impl Lowering<'_> {
    /// `Some(x)`, `Ok(x)` of a differentiable `x`; `Err(..)` (the error path carries no
    /// gradient); the runtime's helpers of the forms below.
    pub(super) fn option_call(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Option<Value> {
        let syn::Expr::Path(func) = &*c.func else {
            return None;
        };
        let segs = &func.path.segments;
        let last = segs.last()?.ident.to_string();
        if segs.iter().any(|s| s.ident == "__private") {
            return match last.as_str() {
                "is_residual" | "residual" => Some(self.verbatim(e)),
                "wrap_like" if c.args.len() == 2 => {
                    let y = self.operand_of(&c.args[0]);
                    let o = self.operand_of(&c.args[1]);
                    Some(self.prim(
                        Prim::Method {
                            rule: &rules::WRAP_LIKE,
                            method: syn::Ident::new("wrap_like", Span::call_site()),
                            callee: Some(func.clone()),
                            qualified: false,
                        },
                        vec![y, o],
                        e.span(),
                    ))
                }
                "try_value" if c.args.len() == 1 => {
                    let x = self.operand_of(&c.args[0]);
                    Some(self.prim(
                        Prim::Method {
                            rule: &rules::TRY_VALUE,
                            method: syn::Ident::new("try_value", Span::call_site()),
                            callee: Some(func.clone()),
                            qualified: false,
                        },
                        vec![x],
                        e.span(),
                    ))
                }
                _ => None,
            };
        }
        if func.qself.is_some() || segs.len() != 1 || self.lookup(&last).is_some() {
            return None;
        }
        match last.as_str() {
            "Err" => Some(self.verbatim(e)),
            "Some" | "Ok" if c.args.len() == 1 && self.references_active(&c.args[0]) => {
                let x = self.operand_of(&c.args[0]);
                Some(self.prim(
                    Prim::Method {
                        rule: &rules::WRAP,
                        method: segs[0].ident.clone(),
                        callee: Some(func.clone()),
                        qualified: false,
                    },
                    vec![x],
                    e.span(),
                ))
            }
            _ => None,
        }
    }

    /// `o.unwrap()`, `o.expect(message)` of an `Option`/`Result` of a differentiable value
    /// (primitives passing the cotangent through); `unwrap_or`, `unwrap_or_else`,
    /// `unwrap_or_default`, `and_then`, `ok_or`, `ok_or_else` and `ok()` (ifs on whether
    /// the value is there, see [`Lowering::on_presence`]).
    pub(super) fn option_method(
        &mut self,
        e: &syn::Expr,
        m: &syn::ExprMethodCall,
    ) -> Option<Value> {
        if !self.references_active(&m.receiver) {
            return None;
        }
        let span = m.method.span();
        let value = quote_spanned!(span=> ::autodiff::__private::ops::try_value(__autodiff_option));
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        // (what the `if` gives without a value, and with one; user expressions in
        // parentheses: `{ … } + 1.0` first in a block would be a block statement)
        let (missing, present) = match (m.method.to_string().as_str(), &args[..]) {
            ("unwrap_or", [d]) => (quote!((#d)), value),
            ("unwrap_or_default", []) => (quote!(::core::default::Default::default()), value),
            // `|| d` (an `Option`), `|e| d` (a `Result`: `e` is the error)
            ("unwrap_or_else", [syn::Expr::Closure(c)]) if c.inputs.is_empty() => {
                let d = &c.body;
                (quote!((#d)), value)
            }
            ("unwrap_or_else", [syn::Expr::Closure(c)])
                if c.inputs.len() == 1 && irrefutable(&c.inputs[0]) =>
            {
                let (bind, d) = (bind_error(&c.inputs[0]), &c.body);
                (quote!({ #bind (#d) }), value)
            }
            ("and_then", [f]) => {
                let closure = self.closure_of(f, 1)?;
                if closure.inputs.len() != 1 || !irrefutable(&closure.inputs[0]) {
                    return None;
                }
                let (p, b) = (&closure.inputs[0], &closure.body);
                (
                    quote!(::autodiff::__private::ops::residual(
                        ::core::clone::Clone::clone(&__autodiff_option)
                    )),
                    quote!({ let #p = #value; (#b) }),
                )
            }
            // (the prelude's `Ok`/`Err`/`Some`/`None`, which the wrapping primitives
            // recognise)
            ("ok_or", [d]) => (quote!(Err(#d)), quote!(Ok(#value))),
            ("ok_or_else", [syn::Expr::Closure(c)]) if c.inputs.is_empty() => {
                let d = &c.body;
                (quote!(Err(#d)), quote!(Ok(#value)))
            }
            ("ok", []) => (quote!(None), quote!(Some(#value))),
            _ => return self.option_primitive(e, m),
        };
        Some(self.on_presence(&m.receiver, span, missing, present))
    }

    /// `{ let __autodiff_option = o; if is_residual(&__autodiff_option) { missing } else {
    /// present } }`, lowered: the forms `Option`/`Result` code takes in differentiable code.
    fn on_presence(
        &mut self,
        o: &syn::Expr,
        span: Span,
        missing: TokenStream,
        present: TokenStream,
    ) -> Value {
        let desugared: syn::Expr = syn::parse_quote_spanned! {span=>
            {
                let __autodiff_option = #o;
                if ::autodiff::__private::ops::is_residual(&__autodiff_option) {
                    #missing
                } else {
                    #present
                }
            }
        };
        let desugared = self.synth.get("on_presence", desugared);
        self.expr(&desugared)
    }

    /// `o.unwrap()`, `o.expect(message)`: primitives passing the cotangent through.
    fn option_primitive(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let rule = match (m.method.to_string().as_str(), m.args.len()) {
            ("unwrap", 0) => &rules::UNWRAP,
            ("expect", 1) => &rules::EXPECT,
            _ => return None,
        };
        let recv = self.operand_of(&m.receiver);
        let mut args = vec![recv];
        for a in &m.args {
            args.push(self.operand_of(a));
        }
        Some(self.prim(
            Prim::Method {
                rule,
                method: m.method.clone(),
                callee: None,
                qualified: false,
            },
            args,
            e.span(),
        ))
    }

    /// `o.map(|v| …)` of a differentiable `Option`/`Result` (a value that is not an
    /// array, where `map` is ndarray's, nor an iterator): an `if` on whether the value is
    /// there, the closure's body inlined on it and wrapped as `o` is.
    pub(super) fn option_map(&mut self, m: &syn::ExprMethodCall) -> Option<Value> {
        if m.method != "map"
            || m.args.len() != 1
            || !self.references_active(&m.receiver)
            || iterators::is_iterator_chain(&m.receiver)
        {
            return None;
        }
        // a name of a value that may be an array: ndarray's `map`
        if let syn::Expr::Path(p) = &*m.receiver {
            if let Some(Binding::Value(Value::Var(v))) =
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
            {
                if self.vars[v.0].maybe_array {
                    return None;
                }
            }
        }
        let closure = self.closure_of(&m.args[0], 1)?;
        if closure.inputs.len() != 1 {
            return None;
        }
        let recv = self.value_of(&m.receiver);
        let array = matches!(recv.clone().deref(), Value::Var(v) if self.vars[v.0].maybe_array);
        self.next_mapped += 1;
        let id = quote::format_ident!("__autodiff_mapped{}", self.next_mapped);
        self.bind(&id.to_string(), Binding::Value(recv));
        let span = m.method.span();
        if array {
            // ndarray's `map`, on the value lowered once
            let mut again = m.clone();
            again.receiver = Box::new(syn::parse_quote_spanned!(span=> #id));
            return Some(self.value_of(&syn::Expr::MethodCall(again)));
        }
        let (pat, body) = (&closure.inputs[0], &closure.body);
        let present = quote_spanned! {span=>
            let #pat = ::autodiff::__private::ops::try_value(__autodiff_option);
            ::autodiff::__private::ops::wrap_like(#body, __autodiff_option)
        };
        let missing = quote_spanned! {span=>
            ::autodiff::__private::ops::residual(::core::clone::Clone::clone(&__autodiff_option))
        };
        let o: syn::Expr = syn::parse_quote_spanned!(span=> #id);
        Some(self.on_presence(&o, span, missing, present))
    }

    /// `o?` of a differentiable `Option`/`Result`: return early with `None` or the error,
    /// else its value.
    pub(super) fn try_expr(&mut self, t: &syn::ExprTry) -> Value {
        let o = &t.expr;
        let span = t.question_token.span;
        let desugared: syn::Expr = syn::parse_quote_spanned! {span=>
            {
                let __autodiff_try = #o;
                if ::autodiff::__private::ops::is_residual(&__autodiff_try) {
                    return ::autodiff::__private::ops::residual(
                        ::core::clone::Clone::clone(&__autodiff_try),
                    );
                }
                ::autodiff::__private::ops::try_value(__autodiff_try)
            }
        };
        let desugared = self.synth.get("try", desugared);
        self.expr(&desugared)
    }

    /// `if let Some(v) = o { … } else { … }` (and `Ok(v)`, `None`, `Err(e)`): on a
    /// differentiable `o`, an `if` on whether its value is there; on anything else, the
    /// `match` it means.
    pub(super) fn if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet) -> Value {
        let (pat, scrutinee) = (&*l.pat, &*l.expr);
        let then = &i.then_branch;
        let els: syn::Expr = match &i.else_branch {
            Some((_, e)) => (**e).clone(),
            None => syn::parse_quote!({}),
        };
        if !self.references_active(scrutinee) {
            let m: syn::Expr = syn::parse_quote_spanned! {i.if_token.span=>
                match #scrutinee { #pat => #then, _ => #els }
            };
            let m = self.synth.get("if_let", m);
            return self.expr(&m);
        }
        let arms: Vec<syn::Arm> = vec![
            syn::parse_quote!(#pat => #then),
            syn::parse_quote!(_ => #els),
        ];
        match self.option_match(scrutinee, &arms) {
            Some(v) => v,
            None => self.unsupported(l, diag::IF_LET),
        }
    }

    /// A `match` on a differentiable `Option`/`Result` whose arms are `Some(p)`/`Ok(p)`,
    /// `None`/`Err(p)` and `_` (no guards): `None` when it is not one.
    pub(super) fn option_match(
        &mut self,
        scrutinee: &syn::Expr,
        arms: &[syn::Arm],
    ) -> Option<Value> {
        let shapes: Vec<Shape> = arms
            .iter()
            .map(|a| {
                if a.guard.is_some() {
                    None
                } else {
                    shape(&a.pat)
                }
            })
            .collect::<Option<_>>()?;
        if !shapes.iter().any(|s| !matches!(s, Shape::Any)) {
            return None;
        }
        // the first arm for each case
        let value_arm = shapes
            .iter()
            .position(|s| !matches!(s, Shape::Residual(_)))?;
        let residual_arm = shapes.iter().position(|s| !matches!(s, Shape::Value(_)))?;
        let body = |k: usize| {
            let b = &arms[k].body;
            let bind: Option<syn::Stmt> = match &shapes[k] {
                Shape::Value(p) => Some(syn::parse_quote! {
                    let #p = ::autodiff::__private::ops::try_value(__autodiff_option);
                }),
                Shape::Residual(Some(p)) => Some(bind_error(p)),
                Shape::Residual(None) => None,
                Shape::Any => match &arms[k].pat {
                    syn::Pat::Ident(i) => {
                        let name = &i.ident;
                        Some(
                            syn::parse_quote!(let #name = ::core::clone::Clone::clone(&__autodiff_option);),
                        )
                    }
                    _ => None,
                },
            };
            // (parenthesised: `{ … } + 1.0` first in a block would be a block statement)
            quote!(#bind (#b))
        };
        let (v, r) = (body(value_arm), body(residual_arm));
        Some(self.on_presence(scrutinee, scrutinee.span(), r, v))
    }
}
