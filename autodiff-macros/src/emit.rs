//! Emission: the forward sweep, the reverse sweep, and the companion items that the helper
//! macros reach.
//!
//! For `fn f(params) -> R` the attribute emits, beside `f` itself (unchanged):
//!
//! * `__autodiff_f_vjp(params) -> (R, pullback)`: the forward sweep, returning the value
//!   and a closure holding the reverse sweep; the pullback maps a cotangent of `R` to the
//!   gradients of *every* parameter, `NoTangent` for constants. Calls from other
//!   differentiable code go through it.
//! * `__autodiff_f_vjp_selected`: the same, with the gradients of the differentiable
//!   parameters only (bare when there is one), which is what `vjp!(f)` returns.
//! * `__autodiff_f_gradients_function(selection)` and
//!   `__autodiff_f_value_and_gradients_function(selection)`: closures taking `f`'s own
//!   arguments, behind `gradients_function!` and `value_and_gradients_function!`.
//! * `__autodiff_f_SIGNATURE`: the parameters' names and activity, which the helpers
//!   check `params = [...]` against at compile time.
//! * `__autodiff_f_all()`: the selection of every differentiable parameter.

use crate::ir::{Body, Operand, Prim, Rhs, Stmt, Value, VarId};
use crate::signature::{companion, tangent_type, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::collections::HashSet;

const RT: fn() -> TokenStream = || quote!(::autodiff::__private);

/// The path of a companion item of the function `func` names: `a::b::f` → `a::b::__autodiff_f_<what>`,
/// with any turbofish moved along.
pub fn companion_path(func: &syn::ExprPath, what: &str) -> syn::ExprPath {
    let mut path = func.clone();
    if let Some(last) = path.path.segments.last_mut() {
        last.ident = companion(&last.ident, what);
    }
    path
}

/// Which active variables reach the output (only those get adjoints).
fn useful_vars(body: &Body) -> HashSet<VarId> {
    let mut useful = HashSet::new();
    let mut out = Vec::new();
    body.output.vars(&mut out);
    useful.extend(out.into_iter().filter(|v| body.is_active(*v)));
    for stmt in body.block.stmts.iter().rev() {
        if let Stmt::Let { dst, rhs, .. } = stmt {
            if !useful.contains(dst) {
                continue;
            }
            let operands: Vec<&Operand> = match rhs {
                Rhs::Copy(o) => vec![o],
                Rhs::Prim(_, args) | Rhs::Call { args, .. } => args.iter().collect(),
                Rhs::Inactive(_) => vec![],
            };
            for o in operands {
                if let Some(v) = o.var() {
                    if body.is_active(v) {
                        useful.insert(v);
                    }
                }
            }
        }
    }
    useful
}

fn forward(body: &Body, useful: &HashSet<VarId>) -> TokenStream {
    let mut out = TokenStream::new();
    for stmt in &body.block.stmts {
        match stmt {
            Stmt::Effect(ts) => out.extend(ts.clone()),
            Stmt::Let { dst, ty, rhs, span } => {
                let v = dst.ident();
                let ty = ty.as_ref().map(|t| quote!(: #t));
                let span = *span;
                let tokens = match rhs {
                    Rhs::Copy(o) => {
                        let o = o.tokens();
                        quote_spanned!(span=> let #v #ty = #o;)
                    }
                    Rhs::Inactive(ts) => quote_spanned!(span=> let #v #ty = #ts;),
                    Rhs::Prim(prim, args) => {
                        let a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
                        let value = match prim {
                            Prim::Binary { op, .. } => {
                                let (l, r) = (&a[0], &a[1]);
                                quote_spanned!(span=> #l #op #r)
                            }
                            Prim::Neg => {
                                let x = &a[0];
                                quote_spanned!(span=> -#x)
                            }
                            Prim::Method { method, callee: None, .. } => {
                                let (recv, rest) = (&a[0], &a[1..]);
                                quote_spanned!(span=> #recv.#method(#(#rest),*))
                            }
                            Prim::Method { callee: Some(path), .. } => quote_spanned!(span=> #path(#(#a),*)),
                            Prim::Cast { ty } => {
                                let x = &a[0];
                                quote_spanned!(span=> #x as #ty)
                            }
                        };
                        quote_spanned!(span=> let #v #ty = #value;)
                    }
                    Rhs::Call { func, args } => {
                        let a = args.iter().map(Operand::tokens);
                        if useful.contains(dst) {
                            let pb = dst.pullback();
                            let vjp = companion_path(func, "vjp");
                            quote_spanned!(span=> let (#v, #pb) = #vjp(#(#a),*);)
                        } else {
                            quote_spanned!(span=> let #v #ty = #func(#(#a),*);)
                        }
                    }
                };
                out.extend(tokens);
            }
        }
    }
    out
}

/// The reverse sweep, emitted statement by statement in reverse order. An adjoint is
/// declared by its first contribution (so no adjoint is zero-filled and then added to)
/// and accumulated in place after that.
struct Reverse<'a> {
    body: &'a Body,
    useful: &'a HashSet<VarId>,
    initialized: HashSet<VarId>,
    out: TokenStream,
    fresh: usize,
}

impl Reverse<'_> {
    /// Adds `contribution` to the adjoint of `target`. `typed` contributions (from calls
    /// and casts) may not have the adjoint's type (`NoTangent` for a callee's constant
    /// parameter), so a first one starts from a zero adjoint instead of becoming it.
    fn contribute(&mut self, target: VarId, contribution: TokenStream, typed: bool) {
        let rt = RT();
        let d = target.adjoint();
        if self.initialized.insert(target) {
            if typed {
                let v = target.ident();
                self.out.extend(quote! {
                    let mut #d = #rt::zero_tangent(&#v);
                    #rt::Accumulate::accumulate(&mut #d, #contribution);
                });
            } else {
                self.out.extend(quote!(let mut #d = #contribution;));
            }
        } else {
            self.out.extend(quote!(#rt::Accumulate::accumulate(&mut #d, #contribution);));
        }
    }

    fn active_var(&self, o: &Operand) -> Option<VarId> {
        o.var().filter(|v| self.body.is_active(*v))
    }

    fn seed(&mut self, value: &Value, cotangent: TokenStream) {
        match value {
            Value::Var(v) if self.body.is_active(*v) => self.contribute(*v, quote!(#cotangent), false),
            Value::Var(_) | Value::Inline(_) => self.out.extend(quote!(let _ = #cotangent;)),
            Value::Tuple(items) => {
                let fresh: Vec<syn::Ident> = items
                    .iter()
                    .map(|_| {
                        self.fresh += 1;
                        format_ident!("__dy{}", self.fresh, span = Span::mixed_site())
                    })
                    .collect();
                self.out.extend(quote!(let (#(#fresh,)*) = #cotangent;));
                for (item, name) in items.iter().zip(fresh) {
                    self.seed(item, quote!(#name));
                }
            }
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let Stmt::Let { dst, rhs, .. } = stmt else { return };
        if !self.useful.contains(dst) || !self.initialized.contains(dst) {
            return;
        }
        let rt = RT();
        let (y, dy) = (dst.ident(), dst.adjoint());
        match rhs {
            Rhs::Inactive(_) => {}
            Rhs::Copy(o) => {
                if let Some(u) = self.active_var(o) {
                    self.contribute(u, quote!(#rt::ops::identity_d0(&#dy)), false);
                }
            }
            Rhs::Prim(prim, args) => {
                let a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
                for (k, arg) in args.iter().enumerate() {
                    let Some(u) = self.active_var(arg) else { continue };
                    let (rule, typed) = match prim {
                        Prim::Binary { rule, .. } => (format_ident!("{}_d{}", rule, k), false),
                        Prim::Neg => (format_ident!("neg_d0"), false),
                        Prim::Method { rule, .. } => {
                            if crate::prims::constant_operand(rule, k) {
                                continue;
                            }
                            (format_ident!("{}_d{}", rule, k), false)
                        }
                        Prim::Cast { .. } => {
                            self.contribute(u, quote!(#rt::ops::cast_d0(&#dy)), true);
                            continue;
                        }
                    };
                    self.contribute(u, quote!(#rt::ops::#rule(#(&#a,)* &#y, &#dy)), typed);
                }
            }
            Rhs::Call { args, .. } => {
                let pb = dst.pullback();
                let g = format_ident!("__g{}", dst.0, span = Span::mixed_site());
                self.out.extend(quote!(let #g = #pb(#dy);));
                for (k, arg) in args.iter().enumerate() {
                    if let Some(u) = self.active_var(arg) {
                        let index = syn::Index::from(k);
                        self.contribute(u, quote!(#g.#index), true);
                    }
                }
            }
        }
    }
}

/// The body of `__autodiff_f_vjp`: forward sweep, then `(value, move |cotangent| reverse)`.
pub fn vjp_body(sig: &Signature, body: &Body) -> TokenStream {
    let rt = RT();
    let useful = useful_vars(body);
    let items = &body.items;
    let fwd = forward(body, &useful);
    let mut rev = Reverse { body, useful: &useful, initialized: HashSet::new(), out: TokenStream::new(), fresh: 0 };
    let dy = format_ident!("__dy", span = Span::mixed_site());
    rev.seed(&body.output, quote!(#dy));
    for stmt in body.block.stmts.iter().rev() {
        rev.stmt(stmt);
    }
    let grads = sig.params.iter().enumerate().map(|(i, p)| {
        let v = VarId(i);
        if !p.differentiable {
            quote!(#rt::NoTangent)
        } else if rev.initialized.contains(&v) {
            let d = v.adjoint();
            quote!(#d)
        } else {
            let id = v.ident();
            quote!(#rt::zero_tangent(&#id))
        }
    });
    let reverse = rev.out;
    let output = body.output.tokens();
    let out_tangent = tangent_type(&sig.output);
    quote! {
        #(#items)*
        #fwd
        (#output, move |#dy: #out_tangent| {
            #reverse
            (#(#grads,)*)
        })
    }
}
