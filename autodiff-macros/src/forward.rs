//! Forward mode's companions and `jvp!`.
//!
//! Beside the reverse-mode companions, a function gets:
//!
//! * `__jvp(params…, tangents…) -> (value, tangent)`: the tangent sweep (`emit/tangent.rs`),
//!   one tangent argument per parameter — of the parameter's own type when it is
//!   differentiable (a slice's tangent is a slice), `NoTangent` for a constant. Callers in
//!   differentiable code reach it with their arguments' tangents (zeros for constants).
//! * `__FORWARD`: `None`, or why forward mode cannot differentiate the function yet (its
//!   own reason or a callee's); `jvp!` turns a reason into a compile error where it is used.
//!   It is `__forward_at(CALL_DEPTH)`, a `const fn` that looks a bounded number of calls
//!   down, so functions calling each other make no cycle of constants (a reason deeper than
//!   that is the panic of the callee's `__jvp`, at run time).
//! * `__jvp_opts(params…, slots)`: the tangents `jvp!` was given in their slots (a tuple of
//!   `Option`s, one per parameter), zeros for the others, each tangent's shape checked
//!   against its parameter's, then `__jvp`. Written once per function.
//! * `__jvp_function()` and `__jvp_selK(selection)`: the closures `jvp!(f)` and
//!   `jvp!(f, params = [...])` return, taking the function's arguments then the tangents of
//!   the differentiable (or the selected) parameters; each is one line handing them to
//!   `__jvp_opts`, the selection placing its tangents through the runtime's `ScatterK`.
//!
//! Every one is `#[inline]` or generic, so a function `jvp!` never reaches costs its type
//! check only, never code generation.

use crate::companions::{companion, companion_path, lint_allows_if, rt};
use crate::emit::TangentSweep;
use crate::helpers::HelperInput;
use crate::ir::VarId;
use crate::signature::{is_float, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;

/// The most parameters `params = [...]` selects.
pub const MAX_SELECTED: usize = 8;

/// Why a function with a hand-written `vjp` rule has no forward mode.
pub fn custom_rule_refusal(sig: &Signature) -> String {
    format!(
        "`{}` has a hand-written `vjp` rule and no `jvp` rule: forward mode needs \
         `#[differentiable(vjp = .., jvp = ..)]`",
        sig.ident
    )
}

/// The tangent sweep of a function with a hand-written forward rule
/// (`#[differentiable(jvp = rule)]`): `rule` takes the function's parameters, then the
/// tangent of each differentiable parameter (of the parameter's type), and returns
/// `(value, tangent)`.
pub fn custom_rule_sweep(sig: &Signature, rule: &syn::ExprPath) -> TangentSweep {
    let vars = (0..sig.params.len()).map(|i| VarId(i).ident());
    let tvars = sig
        .differentiable_positions()
        .into_iter()
        .map(|i| crate::emit::tangent_var(VarId(i)));
    let output = &sig.output;
    TangentSweep {
        body: quote! {
            let (__value, __tangent): (#output, #output) = #rule(#(#vars,)* #(#tvars),*);
            (__value, __tangent)
        },
        refusal: None,
        callees: Vec::new(),
    }
}

/// `ty` with every lifetime `'_`, for a local binding of a tangent that may borrow a
/// local zero.
pub(crate) fn anonymous_lifetimes(ty: &syn::Type) -> syn::Type {
    struct Anon;
    impl VisitMut for Anon {
        fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
            *lt = syn::Lifetime::new("'_", lt.span());
        }
    }
    let mut ty = ty.clone();
    Anon.visit_type_mut(&mut ty);
    ty
}

/// A sequence of sequences: `&[Vec<f64>]`, `Vec<Vec<f64>>`, `[[f64; 3]; 3]`.
fn nested_sequence(ty: &syn::Type) -> bool {
    use crate::signature::sequence_element;
    sequence_element(ty).and_then(sequence_element).is_some()
}

/// The type of a parameter's tangent argument: the parameter's own, or a derived struct's
/// tangent (`&Params` → `&<Params as Differentiable>::Tangent`).
fn tangent_arg_type(ty: &syn::Type, type_params: &[syn::Ident]) -> syn::Type {
    let rt = rt();
    if let Some(elem) = crate::emit::optional_float(ty, type_params) {
        return elem.clone();
    }
    if let Some(elem) = crate::emit::struct_sequence_type(ty, type_params) {
        // the same sequence of the structs' tangents
        struct Retype<'a>(&'a syn::Type, syn::Type);
        impl VisitMut for Retype<'_> {
            fn visit_type_mut(&mut self, t: &mut syn::Type) {
                if t == self.0 {
                    *t = self.1.clone();
                    return;
                }
                syn::visit_mut::visit_type_mut(self, t);
            }
        }
        let e = in_macro_context(elem);
        let mut out = ty.clone();
        Retype(
            elem,
            syn::parse_quote!(<#e as #rt::Differentiable>::Tangent),
        )
        .visit_type_mut(&mut out);
        return out;
    }
    if !crate::emit::struct_param_type(ty, type_params) {
        return ty.clone();
    }
    match ty {
        syn::Type::Reference(r) => {
            let mut r = r.clone();
            let elem = in_macro_context(&r.elem);
            r.elem = Box::new(syn::parse_quote!(<#elem as #rt::Differentiable>::Tangent));
            syn::Type::Reference(r)
        }
        ty => {
            let ty = in_macro_context(ty);
            syn::parse_quote!(<#ty as #rt::Differentiable>::Tangent)
        }
    }
}

/// A copy of the user's type in the macro's context at its place, as every type the
/// companions name (so that a type that is not `Differentiable` fails at one place once:
/// see `plain_types`).
fn in_macro_context(ty: &syn::Type) -> TokenStream {
    let span = Span::call_site().located_at(syn::spanned::Spanned::span(ty));
    crate::plain_types::relocated(ty.to_token_stream(), span)
}

/// Whether a tangent of a parameter of this type has a shape to check (a slice, a `Vec`, an
/// array).
fn has_shape(p: &crate::signature::Param) -> bool {
    p.shadow.is_some() || p.ty.to_token_stream().to_string().contains("Array")
}

/// The forward-mode companions of a function (see the module's documentation), and the
/// `__jvp` of its `runtime::entry::Forward{n}` impl when it has one. `sweep` is `None` for a
/// function with a hand-written rule (refused).
pub fn companions(
    sig: &Signature,
    outer: &[TokenStream],
    vis: &syn::Visibility,
    sweep: Option<TangentSweep>,
) -> (TokenStream, TokenStream) {
    let rt = rt();
    let allow = lint_allows_if(sig.is_method);
    let m = sig.is_method;
    let ident = &sig.ident;
    let name = ident.to_string();
    let jvp = companion(ident, "jvp", m);
    let forward = companion(ident, "FORWARD", m);
    let forward_at = companion(ident, "forward_at", m);
    let jvp_function = companion(ident, "jvp_function", m);
    let vars: Vec<syn::Ident> = (0..sig.params.len()).map(|i| VarId(i).ident()).collect();
    let tvars: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| crate::emit::tangent_var(VarId(i)))
        .collect();
    let tys_named: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty_named).collect();
    let tys: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty).collect();
    let ttys: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| {
            if p.differentiable {
                tangent_arg_type(&p.ty, &sig.type_params).to_token_stream()
            } else {
                quote!(#rt::NoTangent)
            }
        })
        .collect();
    // A constant parameter's tangent is anything: a caller hands the zero of its argument
    // (a float's is a float), `jvp!` hands `NoTangent`; neither is read.
    let jvp_ttys: Vec<TokenStream> = sig
        .params
        .iter()
        .zip(&ttys)
        .map(|(p, t)| {
            if p.differentiable {
                t.clone()
            } else {
                quote!(impl ::core::marker::Sized)
            }
        })
        .collect();
    let output = &sig.output;
    let output_tangent = crate::signature::output_tangent_type(output, &sig.generics);
    let (gen_named, _, where_named) = sig.generics_named.split_for_impl();
    let turbofish = crate::companions::type_and_const_args(&sig.generics);

    let (reason, body, callees) = match sweep {
        Some(s) => (s.refusal, s.body, s.callees),
        None => (
            Some(custom_rule_refusal(sig)),
            TokenStream::new(),
            Vec::new(),
        ),
    };
    let body = match &reason {
        // (reached by a caller's tangent sweep only through a method call, whose callee's
        // reasons no constant collects: `jvp!` refuses the rest where it is written)
        Some(r) => quote!(::core::panic!("{}", #r)),
        None => body,
    };
    let own = match &reason {
        Some(r) => quote!(::core::option::Option::Some(#r)),
        None => quote!(::core::option::Option::None),
    };
    let callee_reasons = callees
        .iter()
        .filter(|f| {
            // a call of the function itself adds nothing
            let segs = &f.path.segments;
            let own = match segs.len() {
                1 => segs[0].ident == *ident,
                2 => segs[0].ident == "Self" && segs[1].ident == *ident,
                _ => false,
            };
            !(f.qself.is_none() && own)
        })
        // `Type::f(…)` with no type arguments on `Type`: if `Type` is generic, only the
        // call's arguments infer them, and `__forward_at` has none — the callee's reason,
        // if any, is its `__jvp`'s panic at run time (as one deeper than the depth is)
        .filter(|f| {
            let bare_owner =
                crate::companions::type_owner(f).is_some_and(|o| o.arguments.is_empty());
            // nor one whose path names the function's generics (`Smooth::<T>::step(x)`):
            // `__forward_at` is not generic
            let mut path = syn::ExprPath::clone(f);
            if let Some(last) = path.path.segments.last_mut() {
                last.arguments = syn::PathArguments::None;
            }
            let names_generics =
                crate::derive_features::mentions(path.to_token_stream(), &sig.type_params);
            !bare_owner && !names_generics
        })
        .map(|f| {
            let p = companion_path(f, "forward_at");
            let span = syn::spanned::Spanned::span(f);
            match crate::companions::unannotated_fallback(f, "forward_at", 1, span) {
                fallback if fallback.is_empty() => quote!(#p(depth - 1)),
                fallback => quote!({ #fallback #p(depth - 1) }),
            }
        })
        .fold(Vec::<TokenStream>::new(), |mut v, p| {
            // (each callee once: the walk below is not memoised)
            if !v.iter().any(|q| q.to_string() == p.to_string()) {
                v.push(p);
            }
            v
        });

    // (a method's `__jvp` takes its receiver as `self`, as its reverse companions do)
    let (decls, bind_receiver) = crate::companions::receiver_decls(sig, &vars, &tys_named);

    // The closures users get: arguments, then tangents; zeros for the others.
    let diff: Vec<usize> = sig.differentiable_positions();
    // the tangents' types, from which the runtime names the tuple of `Option`al tangents
    let slots_ty = {
        let t = sig.params.iter().map(|p| {
            if p.differentiable {
                tangent_arg_type(&p.ty_named, &sig.type_params).to_token_stream()
            } else {
                quote!(#rt::NoTangent)
            }
        });
        quote!((#(#t,)*))
    };
    let o = format_ident!("__o", span = Span::mixed_site());
    let complete = {
        let probes = sig
            .params
            .iter()
            .any(|p| p.differentiable && !is_float(&p.ty));
        let mut out = if probes {
            quote! {
                #[allow(unused_imports)]
                use #rt::forward::{ArgZero as _, NoZero as _, ScalarZero as _};
            }
        } else {
            TokenStream::new()
        };
        for i in 0..sig.params.len() {
            let (v, tv) = (&vars[i], &tvars[i]);
            let index = syn::Index::from(i);
            if !sig.params[i].differentiable {
                out.extend(quote!(let #tv = #rt::NoTangent;));
                continue;
            }
            let local_ty =
                anonymous_lifetimes(&tangent_arg_type(&sig.params[i].ty, &sig.type_params));
            if is_float(&sig.params[i].ty) {
                out.extend(quote!(let #tv: #local_ty = #o.#index.unwrap_or(0.0);));
                continue;
            }
            let z = format_ident!("__z{}", i, span = Span::mixed_site());
            if sig.params[i].in_out {
                // a `&mut` parameter: a zero buffer of its shape, lent `&mut`
                let pname = &sig.params[i].name;
                // (a float written through, `x: &mut f64`, has no shape to check)
                let check = (!sig.params[i].scalar_out())
                    .then(|| quote!(#rt::forward::check_shape(&*#v, &*#tv, #name, #pname);));
                out.extend(quote! {
                    let mut #z = #o.#index.is_none()
                        .then(|| #rt::Differentiable::zero_tangent(&*#v));
                    let #tv: #local_ty = match #o.#index {
                        ::core::option::Option::Some(t) => t,
                        ::core::option::Option::None => #z.as_mut().expect("a zero tangent"),
                    };
                    #check
                });
                continue;
            }
            let nested = nested_sequence(&sig.params[i].ty)
                || crate::emit::struct_sequence_type(&sig.params[i].ty, &sig.type_params).is_some();
            if nested || crate::emit::struct_param_type(&sig.params[i].ty, &sig.type_params) {
                // (named through the trait, so that a type without it fails the one bound
                // the function's other companions fail, at the parameter: see `plain_types`)
                let pname = &sig.params[i].name;
                let (inner, holder, v_ref, tv_ref) = match &sig.params[i].ty {
                    syn::Type::Reference(r) => {
                        (&*r.elem, quote!(Borrowed), quote!(#v), quote!(#tv))
                    }
                    ty => (ty, quote!(Owned), quote!(&#v), quote!(&#tv)),
                };
                let inner = in_macro_context(inner);
                out.extend(quote! {
                    let #z = #o.#index.is_none().then(|| {
                        #rt::forward::#holder(<#inner as #rt::Differentiable>::zero_tangent(#v_ref))
                    });
                    let #tv: #local_ty = #o.#index.unwrap_or_else(|| #rt::forward::lend_zero(&#z));
                });
                out.extend(if nested {
                    // (a slice of rows: its rows' tangents lent as a slice too)
                    quote!(#rt::forward::check_rows(#v_ref, #tv_ref, #name, #pname);)
                } else {
                    quote! {
                        <#inner as #rt::Differentiable>::check_tangent(
                            #v_ref,
                            #tv_ref,
                            &#rt::forward::TangentPath::root(#name, #pname),
                        );
                    }
                });
                continue;
            }
            out.extend(quote! {
                let #z = #o.#index.is_none().then(|| (&&&#rt::forward::Probe(&#v)).zero());
                let #tv: #local_ty = #o.#index.unwrap_or_else(|| #rt::forward::lend_zero(&#z));
            });
            if has_shape(&sig.params[i]) {
                let pname = &sig.params[i].name;
                out.extend(quote!(#rt::forward::check_shape(&#v, &#tv, #name, #pname);));
            }
        }
        out
    };
    let owner = quote!(Self::);
    // (a refused function is never reached: `jvp!` stops at its reason)
    let (complete, call_core) = match &reason {
        Some(r) => (TokenStream::new(), quote!(::core::unreachable!(#r))),
        None => (
            complete,
            quote!(#owner #jvp #turbofish(#(#vars,)* #(#tvars),*)),
        ),
    };
    let jvp_opts = companion(ident, "jvp_opts", m);
    let captures = crate::companions::precise_captures(sig, outer);
    let selecting = crate::companions::selecting(sig, outer, false);
    let (sel_generics, caps) = (&selecting.generics, &selecting.captures);
    let sel_preds = &selecting.preds;
    // `jvp!(f)`: every differentiable parameter's tangent, in order
    let all_tangents: Vec<&syn::Ident> = diff.iter().map(|i| &tvars[*i]).collect();
    let all_tys: Vec<syn::Type> = diff
        .iter()
        .map(|i| tangent_arg_type(tys[*i], &sig.type_params))
        .collect();
    let all_opts = sig.params.iter().zip(&tvars).map(|(p, tv)| {
        if p.differentiable {
            quote!(::core::option::Option::Some(#tv))
        } else {
            quote!(::core::option::Option::None)
        }
    });
    // A function of float and float-slice parameters (and constants): its tangent sweep is
    // its `runtime::entry::Forward{n}` impl's `__jvp` (a function with constants: that calls
    // its own, which takes anything for their tangents), and `jvp!`'s closures the runtime's
    // (`JvpEntries{n}`), but for `jvp!(f)`'s of a function with constants, which takes the
    // differentiable parameters' tangents only
    let runtime = crate::companions::entry_kinds(sig);
    let n = sig.params.len();
    let jvp_opts_path = match &runtime {
        Some(_) => {
            let entries = format_ident!("JvpEntries{}", n);
            quote!(<Self as #rt::entry::#entries>::jvp_opts)
        }
        None => quote!(#owner #jvp_opts #turbofish),
    };
    let fill_all = match &reason {
        // (reached by a caller's tangent sweep only through a method call, whose callee's
        // reasons no constant collects: `jvp!` refuses the rest where it is written)
        Some(r) => quote!(::core::panic!("{}", #r)),
        None => quote!(#jvp_opts_path(#(#vars,)* (#(#all_opts,)*))),
    };
    // The reason of the function or of a callee at most `depth` calls down: a walk bounded
    // by depth, so that functions calling each other (mutual recursion) make no cycle of
    // constants; a reason deeper than that is the panic of the callee's `__jvp`. (Without
    // callees, the function's own reason at every depth.)
    let reasons = if callee_reasons.is_empty() {
        quote!(#own)
    } else {
        quote! {
            if depth == 0 {
                return #own;
            }
            #rt::forward::first_reason(&[#own, #(#callee_reasons),*])
        }
    };
    let depth = if callee_reasons.is_empty() {
        quote!(_)
    } else {
        quote!(depth)
    };
    let forward_value = if callee_reasons.is_empty() {
        own.clone()
    } else {
        quote!(#owner #forward_at(#rt::forward::CALL_DEPTH))
    };
    let reason_ty = quote!(::core::option::Option<&'static str>);
    let inline = crate::companions::sweep_inline(sig);
    let own_jvp_item = quote! {
        #inline
        #allow
        #vis fn #jvp #gen_named (#(#decls,)* #(#tvars: #jvp_ttys),*)
            -> (#output, #output_tangent)
            #where_named
        {
            #bind_receiver
            #body
        }
    };
    let (own_jvp, own_jvp_opts, impl_jvp) = match &runtime {
        Some(k) => {
            let (args, tangents) = crate::companions::entry_decls(sig, false);
            let body = if k.constants {
                quote!(Self::#jvp(#(#vars,)* #(#tvars),*))
            } else {
                body
            };
            let item = quote! {
                #inline
                fn #jvp<'a, 't>(#(#args,)* #(#tangents),*) -> (#output, #output_tangent) {
                    #body
                }
            };
            if k.constants {
                (own_jvp_item, quote!(), item)
            } else {
                (quote!(), quote!(), item)
            }
        }
        None => (
            own_jvp_item,
            // the tangents `jvp!` was given in their slots: zeros for the others, shapes
            // checked (a mismatch panics at the closure's call in the function's expansion:
            // closures cannot be `#[track_caller]`)
            quote! {
                #[inline]
                #[track_caller]
                #allow
                #vis fn #jvp_opts #gen_named (
                    #(#vars: #tys_named,)*
                    #o: <#slots_ty as #rt::forward::Slots>::Opts,
                ) -> (#output, #output_tangent)
                    #where_named
                {
                    #complete
                    #call_core
                }
            },
            quote!(),
        ),
    };
    let mut items = quote! {
        #allow
        #vis const #forward: #reason_ty = #forward_value;

        #allow
        #vis const fn #forward_at(#depth: u32) -> #reason_ty {
            #reasons
        }

        #own_jvp

        #own_jvp_opts
    };
    if runtime.as_ref().is_some_and(|k| !k.constants) {
        return (items, impl_jvp);
    }
    items.extend(quote! {
        #[inline]
        #allow
        #vis fn #jvp_function #gen_named ()
            -> impl ::core::ops::Fn(#(#tys,)* #(#all_tys),*) -> (#output, #output_tangent) + #captures
            #where_named
        {
            move |#(#vars,)* #(#all_tangents),*| {
                #fill_all
            }
        }
    });
    if runtime.is_some() {
        return (items, impl_jvp);
    }
    // `jvp!(f, params = [...])`: one closure per number of selected tangents
    for k in 1..=diff.len().min(MAX_SELECTED) {
        let f = companion(ident, &format!("jvp_sel{k}"), m);
        let scatter = format_ident!("Scatter{}", k);
        let assoc: Vec<syn::Ident> = (0..k).map(|j| format_ident!("I{}", j)).collect();
        let sel: Vec<syn::Ident> = (0..k)
            .map(|j| format_ident!("__sel{}", j, span = Span::mixed_site()))
            .collect();
        let fill = match &reason {
            // (reached by a caller's tangent sweep only through a method call, whose callee's
            // reasons no constant collects: `jvp!` refuses the rest where it is written)
            Some(r) => quote!(::core::panic!("{}", #r)),
            None => quote!(#owner #jvp_opts #turbofish(#(#vars,)* __S::scatter(#(#sel),*))),
        };
        items.extend(quote! {
            #[inline]
            #allow
            #vis fn #f #sel_generics (_selection: __S)
                -> impl ::core::ops::Fn(#(#tys,)* #(__S::#assoc),*) -> (#output, #output_tangent) + #caps
            where
                __S: #rt::forward::#scatter<#slots_ty>,
                #(#sel_preds,)*
            {
                move |#(#vars,)* #(#sel),*| {
                    #fill
                }
            }
        });
    }
    (items, impl_jvp)
}

/// `jvp!(f)` and `jvp!(f, params = [...])`.
pub fn jvp(input: HelperInput) -> syn::Result<TokenStream> {
    let rt = rt();
    let forward = companion_path(&input.func, "FORWARD");
    let span = input
        .func
        .path
        .segments
        .last()
        .map_or(Span::call_site(), |s| s.ident.span());
    let name = crate::helpers::called_name(&input.func);
    let check = quote::quote_spanned! {span=>
        const _: () = #rt::forward::check_supported(#forward, #name);
    };
    let entries = crate::helpers::runtime_entries();
    let Some((span, refs)) = input.params else {
        let target = companion_path(&input.func, "jvp_function");
        return Ok(quote!({ #check #entries #target() }));
    };
    if refs.is_empty() {
        return Err(syn::Error::new(span, crate::diag::PARAMS_EMPTY));
    }
    if refs.len() > MAX_SELECTED {
        return Err(syn::Error::new(span, crate::diag::PARAMS_TOO_MANY));
    }
    let (consts, keys) = crate::helpers::selection_consts(&input.func, &refs)?;
    let target = companion_path(&input.func, &format!("jvp_sel{}", keys.len()));
    let sel = format_ident!("Sel{}", keys.len());
    Ok(quote! {{
        #check
        #consts
        #entries
        #target(#rt::select::#sel::<#(#keys),*>)
    }})
}
