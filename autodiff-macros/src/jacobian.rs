//! `jacobian!` and its companions.
//!
//! The Jacobian is filled by reverse mode, one row per output element: the function's
//! `__vjp` runs once per row and its pullback gets the unit cotangent of that element, the
//! selected parameter's gradient being the row. Reverse mode covers every construct the
//! attribute differentiates (forward mode does not yet: views, custom rules), the output's
//! length is known after the first sweep, and the gradient of a slice or `Vec` comes back
//! owned. Chosen by shape: when the selected parameter has fewer
//! elements `n` than the output `m` (known after that first sweep) and forward mode serves
//! the function (`__FORWARD`), the Jacobian is filled by forward mode instead, one column
//! per parameter element: `__jvp` with the unit tangent of that element (a zero tangent
//! from the same probes `__jvp_opts` uses, one element set to one, lent from the closure's
//! local), the output's tangent being the column: `n` tangent sweeps instead of `m`
//! forward-and-reverse sweeps. (For a free function with parameters of concrete float
//! types, slices, `Vec`s, arrays and ndarray arrays; others keep reverse mode.)
//! Beside the others, a function gets:
//!
//! * `__JACOBIAN`: `None`, or why `jacobian!` cannot serve the function (an output that is
//!   not a float, `Vec`, array or `Array1`; a parameter that cannot be passed again).
//!   `jacobian!(f)` without `params` needs exactly one differentiable parameter: the
//!   runtime counts them, and finds it, in `__SIGNATURE` (`select::check_one_parameter`).
//! * `__jacobian_function(selection)`: the closure, generic over the selection
//!   (`select::Sel1<K>`, or `jacobian::Refused` when a reason is reported, so the reason is
//!   the only error). Its bounds are on the selection, so a function `jacobian!` never
//!   reaches costs their type check only.

use crate::companions::{companion, companion_path, lint_allows_if, rt};
use crate::helpers::HelperInput;
use crate::ir::VarId;
use crate::signature::{is_float_of, tangent_type, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The output kinds `jacobian!` takes rows of: a float, `Vec<F>`, `[F; M]`, `Array1<F>`.
fn rows_output(ty: &syn::Type, floats: &[syn::Ident]) -> bool {
    match ty {
        syn::Type::Paren(p) => rows_output(&p.elem, floats),
        syn::Type::Group(g) => rows_output(&g.elem, floats),
        syn::Type::Array(a) => is_float_of(&a.elem, floats),
        syn::Type::Path(p) if p.qself.is_none() => {
            if is_float_of(ty, floats) {
                return true;
            }
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                return false;
            };
            let elem = a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            });
            (last.ident == "Vec" || last.ident == "Array1")
                && a.args.len() == 1
                && elem.is_some_and(|e| is_float_of(e, floats))
        }
        _ => false,
    }
}

fn contains(ty: &syn::Type, word: &str) -> bool {
    fn any(ts: TokenStream, word: &str) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i.to_string().contains(word),
            proc_macro2::TokenTree::Group(g) => any(g.stream(), word),
            _ => false,
        })
    }
    any(ty.to_token_stream(), word)
}

fn borrows(ty: &syn::Type) -> bool {
    fn any(ts: TokenStream) -> bool {
        ts.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Punct(p) => p.as_char() == '&' || p.as_char() == '\'',
            proc_macro2::TokenTree::Ident(i) => i.to_string().contains("View"),
            proc_macro2::TokenTree::Group(g) => any(g.stream()),
            proc_macro2::TokenTree::Literal(_) => false,
        })
    }
    any(ty.to_token_stream())
}

fn exclusive(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_some() || exclusive(&r.elem),
        _ => contains(ty, "ViewMut") || ty.to_token_stream().to_string().contains("& mut"),
    }
}

/// Why `jacobian!` cannot serve the function at all, whatever is selected.
fn refusal(sig: &Signature) -> Option<String> {
    let name = &sig.ident;
    let floats = crate::signature::float_type_params(&sig.generics, Some(&sig.output));
    if !rows_output(&sig.output, &floats) {
        let out = sig.output.to_token_stream().to_string();
        return Some(format!(
            "`{name}` returns `{out}`: `jacobian!` needs a function returning a float or a \
             `Vec`, array or `Array1` of floats (one row per element)"
        ));
    }
    for p in &sig.params {
        if exclusive(&p.ty) {
            return Some(format!(
                "`{name}`'s parameter `{}` is borrowed mutably: `jacobian!` runs the function \
                 once per row and cannot hand it the same buffer again",
                p.label
            ));
        }
    }
    None
}

/// The `jacobian!` companions of a function (see the module's documentation).
/// `runtime`: `__jacobian_function` is the runtime's (see `runtime::entry`), only the
/// constants are written.
pub fn companions(
    sig: &Signature,
    vis: &syn::Visibility,
    forward_sweep: bool,
    runtime: bool,
) -> TokenStream {
    let rt = rt();
    let m = sig.is_method;
    let allow = lint_allows_if(m);
    let ident = &sig.ident;
    let name = ident.to_string();
    let reason_c = companion(ident, "JACOBIAN", m);
    let function = companion(ident, "jacobian_function", m);
    let vjp = companion(ident, "vjp", m);
    let turbofish = crate::companions::type_and_const_args(&sig.generics);

    let reason = refusal(sig);
    let own = match &reason {
        Some(r) => quote!(::core::option::Option::Some(#r)),
        None => quote!(::core::option::Option::None),
    };

    let vars: Vec<syn::Ident> = (0..sig.params.len()).map(|i| VarId(i).ident()).collect();
    let tys: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty).collect();
    let output = &sig.output;
    let out_tangent = tangent_type(output);
    let tangents = sig.param_tangents();
    let options = quote!((#(::core::option::Option<#tangents>,)*));
    let generics_s = crate::companions::generics_with(quote!(__S), &sig.generics);
    let where_preds = sig.generics.where_clause.as_ref().map(|w| &w.predicates);
    let jac = quote!(#rt::jacobian::JacobianFor<#options, #output, #out_tangent>);

    // each row's arguments: a shared reference (or a view) is copied, anything else cloned
    // through a bound on the selection, checked where `jacobian!` is used
    let mut again_bounds = Vec::new();
    let again: Vec<TokenStream> = sig
        .params
        .iter()
        .zip(&vars)
        .map(|(p, v)| {
            if is_float_of(&p.ty, &[]) {
                quote!(#v)
            } else if borrows(&p.ty) {
                quote!(::core::clone::Clone::clone(&#v))
            } else {
                let ty = &p.ty;
                again_bounds.push(quote!(__S: #rt::jacobian::Again<#ty>,));
                quote!(<__S as #rt::jacobian::Again<#ty>>::again(&#v))
            }
        })
        .collect();
    let gs: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__g{}", i, span = Span::mixed_site()))
        .collect();
    let somes = quote!((#(::core::option::Option::Some(#gs),)*));
    let value = format_ident!("__value", span = Span::mixed_site());
    let pullback = format_ident!("__pullback", span = Span::mixed_site());

    let columns = if forward_sweep && reason.is_none() {
        forward_columns(sig, &vars, &again, &value)
    } else {
        TokenStream::new()
    };
    let cotangent = format_ident!("__c", span = Span::mixed_site());
    let body = match &reason {
        Some(r) => quote!(::core::unreachable!(#r)),
        None => quote! {
                let (#value, #pullback) = Self::#vjp #turbofish(#(#again),*);
                #columns
                #rt::jacobian::by_rows::<__S, #options, #output, #out_tangent>(
                    &#value,
                    #name,
                    move |#cotangent| {
                        let (#(#gs,)*) = #pullback(#cotangent);
                        #somes
                    },
                    |#cotangent| {
                        let (_, #pullback) = Self::#vjp #turbofish(#(#again),*);
                        let (#(#gs,)*) = #pullback(#cotangent);
                        #somes
                    },
                )
        },
    };

    let constants = quote! {
        #allow
        #vis const #reason_c: ::core::option::Option<&'static str> = #own;
    };
    if runtime {
        // (`None`: the default of the runtime's `Entries{n}`)
        return if reason.is_some() {
            constants
        } else {
            TokenStream::new()
        };
    }
    quote! {
        #constants

        #allow
        #vis fn #function #generics_s(_selection: __S)
            -> impl ::core::ops::Fn(#(#tys),*)
                -> #rt::ndarray::Array2<<__S as #jac>::Elem>
        where
            __S: #jac,
            #(#again_bounds)*
            #where_preds
        {
            move |#(#vars: #tys),*| {
                #body
            }
        }
    }
}

/// A type whose zero tangent the forward probes make and [`Unit`] can make a unit one: a
/// float, or a slice, `Vec`, array or ndarray array (owned, borrowed or a view) of floats.
///
/// [`Unit`]: ../../autodiff_runtime/forward/trait.Unit.html
fn forward_columns_type(ty: &syn::Type) -> bool {
    let float = |t: &syn::Type| is_float_of(t, &[]);
    let first_arg_float = |p: &syn::TypePath| {
        p.path
            .segments
            .last()
            .is_some_and(|last| match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .first()
                    .is_some_and(|g| matches!(g, syn::GenericArgument::Type(t) if float(t))),
                _ => false,
            })
    };
    match ty {
        syn::Type::Paren(p) => forward_columns_type(&p.elem),
        syn::Type::Group(g) => forward_columns_type(&g.elem),
        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            syn::Type::Slice(s) => float(&s.elem),
            e => forward_columns_type(e),
        },
        syn::Type::Array(a) => float(&a.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            if float(ty) {
                return true;
            }
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            (name == "Vec" || (name.starts_with("Array") && !name.contains("Mut")))
                && first_arg_float(p)
        }
        _ => false,
    }
}

/// The forward fill of the Jacobian's columns (see the module's documentation): for the
/// selected parameter, if it has fewer elements than the output (`__value`'s rows) and
/// forward mode serves the function, `n` tangent sweeps and a `return` of the matrix;
/// nothing for a function whose parameter types the forward fill does not take.
fn forward_columns(
    sig: &Signature,
    vars: &[syn::Ident],
    again: &[TokenStream],
    value: &syn::Ident,
) -> TokenStream {
    let diff = sig.differentiable_positions();
    // (a float output has one row: a column per element would never be fewer sweeps)
    let eligible = !sig.is_method
        && !is_float_of(&sig.output, &[])
        && sig.generics.type_params().next().is_none()
        && diff
            .iter()
            .all(|&i| forward_columns_type(&sig.params[i].ty));
    if !eligible {
        return TokenStream::new();
    }
    let rt = rt();
    let m = sig.is_method;
    let forward_c = companion(&sig.ident, "FORWARD", m);
    let jvp = companion(&sig.ident, "jvp", m);
    let turbofish = crate::companions::type_and_const_args(&sig.generics);
    let options = {
        let tangents = sig.param_tangents();
        quote!((#(::core::option::Option<#tangents>,)*))
    };
    let output = &sig.output;
    let out_tangent = tangent_type(output);
    let jac = quote!(#rt::jacobian::JacobianFor<#options, #output, #out_tangent>);
    let tvars: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| crate::emit::tangent_var(VarId(i)))
        .collect();
    let zeros: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__z{}", i, span = Span::mixed_site()))
        .collect();
    let unit = format_ident!("__unit", span = Span::mixed_site());
    let (rows, columns) = (
        format_ident!("__m", span = Span::mixed_site()),
        format_ident!("__columns", span = Span::mixed_site()),
    );
    // (the parameters' types are known: a float's zero is written, any other's asked of
    // its `ArgTangent`, with no probing)
    let zero_of = |i: usize| {
        let (ty, v) = (&sig.params[i].ty, &vars[i]);
        if is_float_of(ty, &[]) {
            quote!((0.0 as #ty))
        } else {
            quote!(#rt::forward::ArgTangent::zero_arg(&#v))
        }
    };
    let arms = diff.iter().map(|&k| {
        let unit_zero = zero_of(k);
        let other_zeros = diff
            .iter()
            .filter(|&&i| i != k && !is_float_of(&sig.params[i].ty, &[]))
            .map(|&i| {
                let (z, zero) = (&zeros[i], zero_of(i));
                quote!(let #z = #zero;)
            });
        let lends = (0..sig.params.len()).map(|i| {
            let tv = &tvars[i];
            let p = &sig.params[i];
            if !p.differentiable {
                return quote!(let #tv = #rt::NoTangent;);
            }
            if is_float_of(&p.ty, &[]) {
                let ty = &p.ty;
                return if i == k {
                    quote!(let #tv: #ty = *#unit;)
                } else {
                    quote!(let #tv = 0.0 as #ty;)
                };
            }
            let local_ty = crate::forward::anonymous_lifetimes(&p.ty);
            let source = if i == k {
                quote!(#unit)
            } else {
                let z = &zeros[i];
                quote!(&#z)
            };
            quote!(let #tv: #local_ty = #rt::forward::lend(#source);)
        });
        quote! {
            #k => {
                #(#other_zeros)*
                let #columns = #rt::jacobian::by_columns::<__S, #options, #output, #out_tangent, _>(
                    #rows,
                    #unit_zero,
                    |#unit| {
                        #(#lends)*
                        Self::#jvp #turbofish(#(#again,)* #(#tvars),*).1
                    },
                );
                if let ::core::option::Option::Some(#columns) = #columns {
                    return #columns;
                }
            }
        }
    });
    quote! {
        if Self::#forward_c.is_none() {
            let #rows = <__S as #jac>::rows(&#value);
            match <__S as #jac>::SELECTED {
                #(#arms)*
                _ => {}
            }
        }
    }
}

/// `jacobian!(f)` and `jacobian!(f, params = ["x"])`.
pub fn helper(input: HelperInput) -> syn::Result<TokenStream> {
    let rt = rt();
    let span = input
        .func
        .path
        .segments
        .last()
        .map_or(Span::call_site(), |s| s.ident.span());
    let target = companion_path(&input.func, "jacobian_function");
    let entries = crate::helpers::runtime_entries();
    let Some((params_span, refs)) = input.params else {
        let reason = companion_path(&input.func, "JACOBIAN");
        let signature = companion_path(&input.func, "SIGNATURE");
        let check = quote::quote_spanned! {span=>
            const _: () = #rt::select::check_one_parameter(#reason, &#signature);
        };
        return Ok(quote! {{
            #entries
            #check
            #target(<#rt::jacobian::Choice<
                { #rt::select::first_differentiable(&#signature) },
                { #reason.is_none() && #rt::select::differentiable_count(&#signature) == 1 },
            > as #rt::jacobian::Pick>::Sel::default())
        }});
    };
    if refs.len() != 1 {
        return Err(syn::Error::new(
            params_span,
            "`jacobian!` takes exactly one selected parameter (`params = [\"x\"]`): \
             the Jacobian is a matrix of one output by one parameter",
        ));
    }
    let reason = companion_path(&input.func, "JACOBIAN");
    let check = quote::quote_spanned! {span=>
        const _: () = #rt::jacobian::check_supported(#reason);
    };
    let (consts, keys) = crate::helpers::selection_consts(&input.func, &refs)?;
    let key = &keys[0];
    Ok(quote! {{
        #entries
        #check
        #consts
        #target(<#rt::jacobian::Choice<#key, { #reason.is_none() }>
            as #rt::jacobian::Pick>::Sel::default())
    }})
}
