//! Second order, forward over reverse: `hvp!` and `hessian!`.
//!
//! A function generic over its float type (`fn f<T: Float>(…)`) has its Hessian-vector
//! product from its own gradient: `__vjp` run on `runtime::dual::Dual<T>` numbers whose
//! tangents are the vector returns gradients whose tangents are `H·v` (every operation of
//! `Dual` computes its tangent with the rule the reverse sweep uses for its adjoint). So the
//! companions here are a few lines per function and need no second transformation of the
//! body. Beside the others, a function gets:
//!
//! * `__HVP` and `__HESSIAN`: `None`, or why `hvp!` (`hessian!`) cannot serve the function;
//!   the helper turns a reason into a compile error where it is used.
//! * `__hvp(params…, vectors…)`: the product, one vector per differentiable parameter.
//! * `__hvp_function()` and `__hessian_function()`: the closures the helpers return.
//!
//! All are generic (the float type), so a function the helpers never reach costs their
//! type check only.

use crate::companions::{companion, companion_path, lint_allows, rt};
use crate::helpers::HelperInput;
use crate::ir::VarId;
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// How a differentiable parameter is passed, for the parameter kinds `hvp!` serves.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `T`
    Scalar,
    /// `&[T]` or `&Vec<T>`
    Borrowed,
    /// `Vec<T>`
    Owned,
}

fn is_ident(ty: &syn::Type, t: &syn::Ident) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(t))
}

/// `Vec<T>`
fn is_vec_of(ty: &syn::Type, t: &syn::Ident) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    if last.ident != "Vec" {
        return false;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return false;
    };
    a.args.len() == 1 && matches!(&a.args[0], syn::GenericArgument::Type(e) if is_ident(e, t))
}

fn kind(ty: &syn::Type, t: &syn::Ident) -> Option<Kind> {
    match ty {
        syn::Type::Paren(p) => kind(&p.elem, t),
        syn::Type::Group(g) => kind(&g.elem, t),
        _ if is_ident(ty, t) => Some(Kind::Scalar),
        _ if is_vec_of(ty, t) => Some(Kind::Owned),
        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            syn::Type::Slice(s) if is_ident(&s.elem, t) => Some(Kind::Borrowed),
            e if is_vec_of(e, t) => Some(Kind::Borrowed),
            _ => None,
        },
        _ => None,
    }
}

fn mentions(ty: &syn::Type, t: &syn::Ident) -> bool {
    fn any(ts: TokenStream, t: &syn::Ident) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == *t,
            proc_macro2::TokenTree::Group(g) => any(g.stream(), t),
            _ => false,
        })
    }
    any(ty.to_token_stream(), t)
}

/// Why `hvp!` cannot serve the function, or the float type parameter and the kinds of its
/// differentiable parameters.
fn support(sig: &Signature, custom: bool) -> Result<(syn::Ident, Vec<Option<Kind>>), String> {
    let name = &sig.ident;
    if custom {
        return Err(format!(
            "`{name}` has a hand-written `vjp` rule: `hvp!` and `hessian!` differentiate \
             generated gradients only"
        ));
    }
    if sig.is_method {
        return Err(format!(
            "`{name}` is a method: `hvp!` and `hessian!` serve free functions only (yet)"
        ));
    }
    let floats = crate::signature::float_type_params(&sig.generics, Some(&sig.output));
    let types = sig.generics.type_params().count();
    let [t] = floats.as_slice() else {
        return Err(format!(
            "`{name}` is not generic over its float type: `hvp!` and `hessian!` run its \
             gradient on dual numbers, so write it `fn {name}<T: Float>(…) -> T` with `T` \
             for `f64`"
        ));
    };
    if types != 1 {
        return Err(format!(
            "`{name}` has type parameters besides its float type `{t}`: `hvp!` and \
             `hessian!` do not serve it (yet)"
        ));
    }
    if !is_ident(&sig.output, t) {
        return Err(format!(
            "`{name}` does not return its float type `{t}`: `hvp!` and `hessian!` need a \
             scalar output"
        ));
    }
    let mut kinds = Vec::new();
    for p in &sig.params {
        if !p.differentiable {
            if mentions(&p.ty, t) {
                return Err(format!(
                    "`{name}`'s constant parameter `{}` has a type made of `{t}`: `hvp!` and \
                     `hessian!` do not serve it (yet)",
                    p.name
                ));
            }
            kinds.push(None);
            continue;
        }
        match kind(&p.ty, t) {
            Some(k) => kinds.push(Some(k)),
            None => {
                return Err(format!(
                    "`{name}`'s parameter `{}`: `hvp!` and `hessian!` serve parameters `{t}`, \
                     `&[{t}]`, `&Vec<{t}>` and `Vec<{t}>` (yet)",
                    p.name
                ))
            }
        }
    }
    if !kinds.iter().any(Option::is_some) {
        return Err(format!("`{name}` has no differentiable parameter"));
    }
    Ok((t.clone(), kinds))
}

/// The function's generics plus `__R` (a refused helper's result, inferred where it is
/// used), and the matching `use<…>`.
fn refused_generics(sig: &Signature, outer: &[TokenStream]) -> (TokenStream, TokenStream) {
    let mut g = sig.generics_named.clone();
    g.params.push(syn::parse_quote!(__R));
    let (gen_r, _, _) = g.split_for_impl();
    let lifetimes = sig.generics_named.lifetimes().map(|l| &l.lifetime);
    let others = sig.generics_named.params.iter().filter_map(|p| match p {
        syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
        syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
        syn::GenericParam::Lifetime(_) => None,
    });
    // (the generics of an annotated `impl` the companions live in come first)
    let is_lifetime = |t: &TokenStream| t.to_string().starts_with('\'');
    let (outer_lifetimes, outer_others): (Vec<TokenStream>, Vec<TokenStream>) =
        outer.iter().cloned().partition(is_lifetime);
    (
        gen_r.to_token_stream(),
        quote!(use<#(#outer_lifetimes,)* #(#lifetimes,)* #(#outer_others,)* #(#others,)* __R>),
    )
}

/// `__HESSIAN` (`reason`, an `Option`) and `__hessian_function` of a function `hessian!`
/// cannot serve.
fn refused_hessian(
    sig: &Signature,
    outer: &[TokenStream],
    vis: &syn::Visibility,
    reason: TokenStream,
) -> TokenStream {
    let m = sig.is_method;
    let allow = if m { lint_allows() } else { quote!() };
    let hessian_c = companion(&sig.ident, "HESSIAN", m);
    let hessian_function = companion(&sig.ident, "hessian_function", m);
    let (gen_r, caps) = refused_generics(sig, outer);
    let (_, _, where_named) = sig.generics_named.split_for_impl();
    let vars: Vec<syn::Ident> = (0..sig.params.len()).map(|i| VarId(i).ident()).collect();
    let tys = sig.params.iter().map(|p| &p.ty);
    quote! {
        #[doc(hidden)]
        #allow
        #vis const #hessian_c: ::core::option::Option<&'static str> = #reason;
        #[doc(hidden)]
        #allow
        #vis fn #hessian_function #gen_r ()
            -> impl ::core::ops::Fn(#(#tys),*) -> __R + #caps
            #where_named
        {
            move |#(#vars),*| ::core::unreachable!()
        }
    }
}

/// The function's `where` clause, plus every bound of the float type `t` required of
/// `Dual<t>` too: the companions then type-check whatever the bounds, and a bound `Dual`
/// does not meet is an error where `hvp!` is used, not where the function is defined.
fn dual_where(sig: &Signature, t: &syn::Ident) -> TokenStream {
    let rt = rt();
    let mut bounds: Vec<&syn::TypeParamBound> = Vec::new();
    if let Some(tp) = sig.generics_named.type_params().find(|p| p.ident == *t) {
        bounds.extend(tp.bounds.iter());
    }
    let mut preds: Vec<TokenStream> = Vec::new();
    if let Some(w) = &sig.generics_named.where_clause {
        for p in &w.predicates {
            preds.push(p.to_token_stream());
            if let syn::WherePredicate::Type(pt) = p {
                if is_ident(&pt.bounded_ty, t) {
                    bounds.extend(pt.bounds.iter());
                }
            }
        }
    }
    if !bounds.is_empty() {
        preds.push(quote!(#rt::dual::Dual<#t>: #(#bounds)+*));
    }
    quote!(where #(#preds),*)
}

/// The `hvp!`/`hessian!` companions of a function (see the module's documentation).
/// `custom`: the function has a hand-written rule; `fused`: it has `__seeded` (value and
/// gradients in one fused pass), which the product then runs on dual numbers.
pub fn companions(
    sig: &Signature,
    outer: &[TokenStream],
    vis: &syn::Visibility,
    custom: bool,
    fused: bool,
) -> TokenStream {
    let rt = rt();
    let m = sig.is_method;
    let allow = if m { lint_allows() } else { quote!() };
    let ident = &sig.ident;
    let hvp_c = companion(ident, "HVP", m);
    let hessian_c = companion(ident, "HESSIAN", m);
    let hvp_fn = companion(ident, "hvp", m);
    let hvp_function = companion(ident, "hvp_function", m);
    let hessian_function = companion(ident, "hessian_function", m);
    let vjp = companion(ident, "vjp", m);
    let (gen_named, _, where_named) = sig.generics_named.split_for_impl();
    let captures = crate::companions::precise_captures(sig, outer);
    let vars: Vec<syn::Ident> = (0..sig.params.len()).map(|i| VarId(i).ident()).collect();
    let hvars: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__h{}", i, span = Span::mixed_site()))
        .collect();
    let diff: Vec<usize> = sig.differentiable_positions();
    let tys: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty).collect();
    let tys_named: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty_named).collect();
    let dtys: Vec<&syn::Type> = diff.iter().map(|i| tys[*i]).collect();
    let dtys_named: Vec<&syn::Type> = diff.iter().map(|i| tys_named[*i]).collect();
    let dh: Vec<&syn::Ident> = diff.iter().map(|i| &hvars[*i]).collect();

    let (t, kinds) = match support(sig, custom) {
        Ok(s) => s,
        Err(reason) => {
            // refused: the closures' types only, for the call to type-check while the
            // reason is reported
            let (gen_r, caps) = refused_generics(sig, outer);
            let refused_hessian = refused_hessian(sig, outer, vis, quote!(Self::#hvp_c));
            return quote! {
                #[doc(hidden)]
                #allow
                #vis const #hvp_c: ::core::option::Option<&'static str> =
                    ::core::option::Option::Some(#reason);
                #[doc(hidden)]
                #allow
                #vis fn #hvp_function #gen_r ()
                    -> impl ::core::ops::Fn(#(#tys,)* #(#dtys),*) -> __R + #caps
                    #where_named
                {
                    move |#(#vars,)* #(#dh),*| ::core::unreachable!()
                }
                #refused_hessian
            };
        }
    };

    let name = ident.to_string();
    let checks = diff
        .iter()
        .filter(|&&i| kinds[i] != Some(Kind::Scalar))
        .map(|&i| {
            let (v, h, p) = (&vars[i], &hvars[i], &sig.params[i].name);
            quote!(#rt::forward::check_shape(&#v, &#h, #name, #p);)
        });
    let duals: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__d{}", i, span = Span::mixed_site()))
        .collect();
    let make_duals = diff.iter().map(|&i| {
        let (v, h, d) = (&vars[i], &hvars[i], &duals[i]);
        quote!(let #d = #rt::dual::HvpArg::duals(&#v, &#h);)
    });
    let args = (0..sig.params.len()).map(|i| match kinds[i] {
        None => vars[i].to_token_stream(),
        Some(Kind::Borrowed) => {
            let d = &duals[i];
            quote!(&#d)
        }
        Some(_) => duals[i].to_token_stream(),
    });
    let dual_args = sig.generics.params.iter().filter_map(|p| match p {
        syn::GenericParam::Type(_) => Some(quote!(#rt::dual::Dual<#t>)),
        syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
        syn::GenericParam::Lifetime(_) => None,
    });
    let gs: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__g{}", i, span = Span::mixed_site()))
        .collect();
    let out_of = |k: Kind| match k {
        Kind::Scalar => quote!(#t),
        _ => quote!(::std::vec::Vec<#t>),
    };
    let outs: Vec<TokenStream> = diff.iter().map(|&i| out_of(kinds[i].unwrap())).collect();
    let parts: Vec<TokenStream> = diff
        .iter()
        .map(|&i| {
            let g = &gs[i];
            quote!(#rt::dual::tangent_part(#g))
        })
        .collect();
    let (out_ty, result) = if diff.len() == 1 {
        (outs[0].clone(), parts[0].clone())
    } else {
        (quote!((#(#outs,)*)), quote!((#(#parts,)*)))
    };
    let dual_args: Vec<TokenStream> = dual_args.collect();
    let args: Vec<TokenStream> = args.collect();
    let sweep = if fused {
        let seeded = companion(ident, "seeded", m);
        quote! {
            let (_, (#(#gs,)*)) = Self::#seeded::<#(#dual_args),*>(#(#args,)* #rt::dual::seed());
        }
    } else {
        quote! {
            let (_, __pullback) = Self::#vjp::<#(#dual_args),*>(#(#args),*);
            let (#(#gs,)*) = __pullback(#rt::dual::seed());
        }
    };
    let turbofish = crate::companions::type_and_const_args(&sig.generics);
    let where_hvp = dual_where(sig, &t);

    let mut items = quote! {
        #[doc(hidden)]
        #allow
        #vis const #hvp_c: ::core::option::Option<&'static str> = ::core::option::Option::None;

        #[doc(hidden)]
        #[inline]
        #[track_caller]
        #allow
        #vis fn #hvp_fn #gen_named (#(#vars: #tys_named,)* #(#dh: #dtys_named),*) -> #out_ty
            #where_hvp
        {
            #(#checks)*
            #(#make_duals)*
            #sweep
            #result
        }

        #[doc(hidden)]
        #[inline]
        #allow
        #vis fn #hvp_function #gen_named ()
            -> impl ::core::ops::Fn(#(#tys,)* #(#dtys),*) -> #out_ty + #captures
            #where_hvp
        {
            move |#(#vars,)* #(#dh),*| Self::#hvp_fn #turbofish(#(#vars,)* #(#dh),*)
        }
    };
    if let [k] = diff.as_slice() {
        let k = *k;
        let hess_ty = match kinds[k] {
            Some(Kind::Scalar) => quote!(#t),
            _ => quote!(#rt::ndarray::Array2<#t>),
        };
        let vk = &vars[k];
        let e = format_ident!("__e", span = Span::mixed_site());
        let cloned = vars
            .iter()
            .map(|v| quote!(::core::clone::Clone::clone(&#v)));
        let e_arg = match kinds[k] {
            Some(Kind::Borrowed) => quote!(&#e),
            _ => quote!(#e),
        };
        items.extend(quote! {
            #[doc(hidden)]
            #allow
            #vis const #hessian_c: ::core::option::Option<&'static str> =
                ::core::option::Option::None;

            #[doc(hidden)]
            #[inline]
            #allow
            #vis fn #hessian_function #gen_named ()
                -> impl ::core::ops::Fn(#(#tys),*) -> #hess_ty + #captures
                #where_hvp
            {
                move |#(#vars),*| {
                    #rt::dual::HvpArg::hessian(&#vk, |#e| {
                        Self::#hvp_fn #turbofish(#(#cloned,)* #e_arg)
                    })
                }
            }
        });
    } else {
        let reason = format!(
            "`{name}` has {} differentiable parameters: `hessian!` needs exactly one",
            diff.len()
        );
        let reason = quote!(::core::option::Option::Some(#reason));
        items.extend(refused_hessian(sig, outer, vis, reason));
    }
    items
}

/// `hvp!(f)` and `hessian!(f)`.
pub fn helper(input: HelperInput, hessian: bool) -> syn::Result<TokenStream> {
    let rt = rt();
    let (what, reason, target) = if hessian {
        ("hessian!", "HESSIAN", "hessian_function")
    } else {
        ("hvp!", "HVP", "hvp_function")
    };
    if let Some((span, _)) = input.params {
        return Err(syn::Error::new(
            span,
            format!(
                "`{what}` takes no `params = [...]` yet: it serves every differentiable parameter"
            ),
        ));
    }
    let reason = companion_path(&input.func, reason);
    let span = input
        .func
        .path
        .segments
        .last()
        .map_or(Span::call_site(), |s| s.ident.span());
    let check = quote::quote_spanned! {span=>
        const _: () = #rt::dual::check_supported(#reason);
    };
    let target = companion_path(&input.func, target);
    Ok(quote!({ #check #target() }))
}
