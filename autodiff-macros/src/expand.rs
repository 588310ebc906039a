//! `#[differentiable]`: parse → check → lower → emit.

use crate::diag::Errors;
use crate::emit::vjp_body;
use crate::fuse::seeded_body;
use crate::lower::lower;
use crate::signature::{companion, tangent_type, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The attribute's arguments: nothing; `vjp = path` for a custom rule; `self` for a
/// method differentiable with respect to its receiver.
struct Args {
    custom_vjp: Option<syn::ExprPath>,
    wrt_self: bool,
}

fn parse_args(args: TokenStream) -> syn::Result<Args> {
    let mut out = Args {
        custom_vjp: None,
        wrt_self: false,
    };
    if args.is_empty() {
        return Ok(out);
    }
    let parser = |input: syn::parse::ParseStream| -> syn::Result<Args> {
        while !input.is_empty() {
            if input.peek(syn::Token![self]) {
                input.parse::<syn::Token![self]>()?;
                out.wrt_self = true;
            } else {
                let key: syn::Ident = input.parse()?;
                if key != "vjp" {
                    return Err(syn::Error::new(key.span(), format!("unknown argument `{key}`; `#[differentiable]` takes `vjp = path_to_rule` (a custom rule) and `self` (a method differentiable with respect to its receiver)")));
                }
                input.parse::<syn::Token![=]>()?;
                out.custom_vjp = Some(input.parse()?);
            }
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(out)
    };
    syn::parse::Parser::parse2(parser, args)
}

pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "`#[differentiable]` applies to functions (`fn name(x: f64) -> f64 { … }`)",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    // `#[no_grad]` is read by this attribute only; the primal must not see it.
    for input in func.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| !a.path().is_ident("no_grad"));
        }
    }
    let args = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            let err = e.to_compile_error();
            return quote!(#err #func);
        }
    };
    let mut errors = Errors::default();
    let original_sig = {
        let item: syn::ItemFn = syn::parse2(item).expect("parsed above");
        item.sig
    };
    let Some(mut sig) = Signature::parse(&original_sig, &mut errors) else {
        let errs = errors.to_compile_errors();
        return quote!(#errs #func);
    };
    if args.wrt_self {
        match sig.params.iter_mut().find(|p| p.name == "self") {
            Some(p) => p.differentiable = true,
            None => errors.push(
                Span::call_site(),
                "`#[differentiable(self)]` is for methods with a `self` receiver",
            ),
        }
    }
    // An associated function without `self` that mentions `Self` lives in an `impl`: its
    // companions are siblings there too (a companion struct cannot go in an `impl`).
    if !sig.is_method && mentions_self(&func) {
        sig.is_method = true;
    }
    let original = func.clone();
    // Reads of captured names and constant parameters' fields go through the runtime's
    // source dispatch, in the primal and in the derivative alike.
    let locals = sig.params.iter().map(|p| p.name.clone()).collect();
    let differentiable = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| p.name.clone())
        .collect();
    if args.custom_vjp.is_none() {
        crate::sources::mark(&mut func.block, locals, differentiable);
    }
    let (vjp_fn_body, seeded) = match &args.custom_vjp {
        Some(rule) => (custom_rule_body(&sig, rule), None),
        None => {
            let body = lower(&sig, &sig.generics, &func.block, &mut errors);
            (vjp_body(&sig, &body), seeded_body(&sig, &body))
        }
    };
    if !errors.is_empty() {
        let errs = errors.to_compile_errors();
        return quote!(#errs #original);
    }
    if sig.answers_requests() {
        // An entry point answers the implicit helpers and the tape (one thread-local read).
        let vjp = companion(&sig.ident, "vjp", sig.is_method);
        let ident = &sig.ident;
        let owner = if sig.is_method {
            quote!(Self::)
        } else {
            quote!(#ident::)
        };
        let turbofish = type_and_const_args(&sig.generics);
        let names: Vec<syn::Ident> = sig
            .params
            .iter()
            .map(|p| syn::Ident::new(&p.name, proc_macro2::Span::call_site()))
            .collect();
        let prologue: syn::Stmt = syn::parse_quote! {
            if ::autodiff::__private::implicit::requested() {
                return ::autodiff::__private::implicit::answer(|| #owner #vjp #turbofish(#(#names),*));
            }
        };
        func.block.stmts.insert(0, prologue);
    }
    let companions = companions(&sig, &func.vis, vjp_fn_body, seeded);
    quote! {
        #func
        #companions
    }
}

/// `differentiable_closure!(|x: f64| …)`: an ordinary closure that also answers the
/// implicit helpers and the tape, its derivative generated inline.
pub fn closure(input: TokenStream) -> TokenStream {
    let mut closure: syn::ExprClosure = match syn::parse2(input.clone()) {
        Ok(c) => c,
        Err(e) => {
            let err = syn::Error::new(e.span(), "`differentiable_closure!` takes a closure: `differentiable_closure!(|x: f64| w * x)`").to_compile_error();
            return err;
        }
    };
    let mut errors = Errors::default();
    let sig = Signature::for_closure(&closure, &mut errors);
    let mut block: syn::Block = match &*closure.body {
        syn::Expr::Block(b) if b.label.is_none() => b.block.clone(),
        other => syn::parse_quote!({ #other }),
    };
    let locals = sig.params.iter().map(|p| p.name.clone()).collect();
    let differentiable = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| p.name.clone())
        .collect();
    crate::sources::mark(&mut block, locals, differentiable);
    let body = lower(&sig, &sig.generics, &block, &mut errors);
    if !errors.is_empty() {
        let errs = errors.to_compile_errors();
        return quote!({ #errs #input });
    }
    let vjp = vjp_body(&sig, &body);
    let bind = sig.params.iter().enumerate().map(|(i, p)| {
        let v = crate::ir::VarId(i).ident();
        let name = syn::Ident::new(&p.name, proc_macro2::Span::call_site());
        quote!(let #v = #name;)
    });
    let stmts = &block.stmts;
    *closure.body = syn::parse_quote!({
        if ::autodiff::__private::implicit::requested() {
            return ::autodiff::__private::implicit::answer(|| {
                #(#bind)*
                #vjp
            });
        }
        #(#stmts)*
    });
    quote!(#closure)
}

/// `#[differentiable(vjp = rule)]`: `rule` has the function's parameters and returns
/// `(value, pullback)`, the pullback giving the gradients of the differentiable parameters
/// (bare when there is one), as `vjp!` does. The generated `__vjp` adapts it.
fn custom_rule_body(sig: &Signature, rule: &syn::ExprPath) -> TokenStream {
    let rt = quote!(::autodiff::__private);
    let vars: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| crate::ir::VarId(i).ident())
        .collect();
    let positions = sig.differentiable_positions();
    let gnames: Vec<syn::Ident> = positions
        .iter()
        .map(|i| format_ident!("__g{}", i, span = Span::mixed_site()))
        .collect();
    let pattern = if gnames.len() == 1 {
        quote!(#(#gnames)*)
    } else {
        quote!((#(#gnames,)*))
    };
    let all = (0..sig.params.len()).map(|i| match positions.iter().position(|p| *p == i) {
        Some(k) => {
            let g = &gnames[k];
            quote!(#g)
        }
        None => quote!(#rt::NoTangent),
    });
    let selected = sig.selected_tangents();
    let out_tangent = tangent_type(&sig.output);
    let output = &sig.output;
    quote! {
        let (__value, __pullback): (#output, _) = #rule(#(#vars),*);
        (__value, move |__dy: #out_tangent| {
            let #pattern: #selected = __pullback(__dy);
            (#(#all,)*)
        })
    }
}

fn type_and_const_args(generics: &syn::Generics) -> TokenStream {
    let args: Vec<TokenStream> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    if args.is_empty() {
        quote!()
    } else {
        quote!(::<#(#args),*>)
    }
}

fn companions(
    sig: &Signature,
    vis: &syn::Visibility,
    vjp_fn_body: TokenStream,
    seeded_fn_body: Option<TokenStream>,
) -> TokenStream {
    let rt = quote!(::autodiff::__private);
    let ident = &sig.ident;
    let name = ident.to_string();
    let m = sig.is_method;
    let vjp = companion(ident, "vjp", m);
    let vjp_selected = companion(ident, "vjp_selected", m);
    let seeded = companion(ident, "seeded", m);
    let gradients = companion(ident, "gradients_function", m);
    let value_and_gradients = companion(ident, "value_and_gradients_function", m);
    let signature = companion(ident, "SIGNATURE", m);
    let all = companion(ident, "all", m);

    let vars: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| crate::ir::VarId(i).ident())
        .collect();
    let tys_named: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty_named).collect();
    let tys: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty).collect();
    let output = &sig.output;
    let out_tangent = tangent_type(output);
    let tangents = sig.param_tangents();
    let selected = sig.selected_tangents();
    let captures = sig.precise_captures();
    let turbofish = type_and_const_args(&sig.generics);
    let turbofish_with_selection = {
        let args: Vec<TokenStream> = std::iter::once(quote!(__S))
            .chain(sig.generics.params.iter().filter_map(|p| match p {
                syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
                syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
                syn::GenericParam::Lifetime(_) => None,
            }))
            .collect();
        quote!(::<#(#args),*>)
    };
    // Companions are associated items (of the method's `impl`, or of the function's
    // companion struct), reached through `Self::`; the primal is `Self::m` for a method.
    let owner = quote!(Self::);
    let primal_owner = if sig.is_method {
        quote!(Self::)
    } else {
        quote!()
    };

    let (gen_named, _, where_named) = sig.generics_named.split_for_impl();
    let gen_params = &sig.generics.params;
    let where_preds = sig.generics.where_clause.as_ref().map(|w| &w.predicates);

    let positions = sig.differentiable_positions();
    let gnames: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__g{}", i, span = Span::mixed_site()))
        .collect();
    let chosen: Vec<&syn::Ident> = positions.iter().map(|i| &gnames[*i]).collect();
    let selected_value = if chosen.len() == 1 {
        quote!(#(#chosen)*)
    } else {
        quote!((#(#chosen,)*))
    };
    let options = quote!((#(::core::option::Option<#tangents>,)*));

    let params_info = sig.params.iter().map(|p| {
        let (n, d) = (&p.name, p.differentiable);
        quote!(#rt::select::Param { name: #n, differentiable: #d })
    });
    let (all_selection, all_value) = if positions.is_empty() || positions.len() > 8 {
        (
            quote!(#rt::select::NoSelection),
            quote!(#rt::select::NoSelection),
        )
    } else {
        let sel = format_ident!("Sel{}", positions.len());
        (
            quote!(#rt::select::#sel<#(#positions),*>),
            quote!(#rt::select::#sel::<#(#positions),*>),
        )
    };

    // With the cotangent known up front, a reduction loop runs its reverse inside the
    // forward loop (see `fuse`); otherwise the helpers call the pullback.
    let seed = quote!(<__S as #rt::select::ScalarOutputFor<#output>>::seed());
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let (value_and_gradients_call, seeded_item) = match seeded_fn_body {
        Some(body) => (
            quote!(let (__value, (#(#gnames,)*)) = #owner #seeded #turbofish(#(#vars,)* #seed);),
            quote! {
                #[doc(hidden)]
                #[inline]
                #[allow(dead_code, non_snake_case, unused_mut, unused_variables, unused_parens, unused_assignments, clippy::all, clippy::pedantic)]
                #vis fn #seeded #gen_named (#(#vars: #tys_named,)* #dy: #out_tangent)
                    -> (#output, (#(#tangents,)*))
                    #where_named
                {
                    let _ = #primal_owner #ident #turbofish;
                    #body
                }
            },
        ),
        None => (
            quote! {
                let (__value, __pullback) = #owner #vjp #turbofish(#(#vars),*);
                let (#(#gnames,)*) = __pullback(#seed);
            },
            quote!(),
        ),
    };
    let items = quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #signature: #rt::select::Signature = #rt::select::Signature {
            function: #name,
            params: &[#(#params_info),*],
        };

        #[doc(hidden)]
        #[allow(dead_code, non_snake_case)]
        #vis const fn #all() -> #all_selection {
            #all_value
        }

        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, unused_mut, unused_variables, unused_parens, clippy::all, clippy::pedantic)]
        #vis fn #vjp #gen_named (#(#vars: #tys_named),*)
            -> (#output, impl ::core::ops::FnOnce(#out_tangent) -> (#(#tangents,)*) + #captures)
            #where_named
        {
            // The primal counts as used wherever its derivative is.
            let _ = #primal_owner #ident #turbofish;
            #vjp_fn_body
        }

        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, clippy::all)]
        #vis fn #vjp_selected #gen_named (#(#vars: #tys_named),*)
            -> (#output, impl ::core::ops::FnOnce(#out_tangent) -> #selected + #captures)
            #where_named
        {
            let (__value, __pullback) = #owner #vjp #turbofish(#(#vars),*);
            (__value, move |__dy: #out_tangent| {
                let (#(#gnames,)*) = __pullback(__dy);
                #selected_value
            })
        }

        #[doc(hidden)]
        #[allow(dead_code, non_snake_case, clippy::all)]
        #vis fn #gradients<__S, #gen_params>(_selection: __S)
            -> impl ::core::ops::Fn(#(#tys),*) -> <__S as #rt::select::Select<#options>>::Output
        where
            __S: #rt::select::Select<#options>,
            __S: #rt::select::ScalarOutputFor<#output>,
            #where_preds
        {
            // The value comes for free in reverse mode: this is the value-and-gradients
            // closure without the value.
            let __value_and_gradients = #owner #value_and_gradients #turbofish_with_selection(_selection);
            move |#(#vars: #tys),*| __value_and_gradients(#(#vars),*).1
        }

        #[doc(hidden)]
        #[allow(dead_code, non_snake_case, clippy::all)]
        #vis fn #value_and_gradients<__S, #gen_params>(_selection: __S)
            -> impl ::core::ops::Fn(#(#tys),*) -> (#output, <__S as #rt::select::Select<#options>>::Output)
        where
            __S: #rt::select::Select<#options>,
            __S: #rt::select::ScalarOutputFor<#output>,
            #where_preds
        {
            move |#(#vars: #tys),*| {
                #value_and_gradients_call
                (__value, <__S as #rt::select::Select<#options>>::select((#(::core::option::Option::Some(#gnames),)*)))
            }
        }

        #seeded_item
    };
    if sig.is_method {
        return items;
    }
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #[allow(non_upper_case_globals)]
        impl #ident {
            #items
        }
    }
}

/// Whether `Self` appears in the function (its signature or body).
fn mentions_self(func: &syn::ItemFn) -> bool {
    fn scan(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => id == "Self",
            proc_macro2::TokenTree::Group(g) => scan(g.stream()),
            _ => false,
        })
    }
    scan(quote!(#func))
}
