//! `gradients_function!`, `value_and_gradients_function!`, `accumulate_gradients!` and `vjp!`.
//!
//! They see only the tokens `f` (and `params = [...]`), so they reach the companions the
//! attribute generated next to `f`, and check the `params` list against `f`'s signature
//! in a constant evaluated at compile time: an unknown or constant parameter is a compile
//! error at the offending name, listing the differentiable parameters.

use crate::emit::companion_path;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};

pub enum ParamRef {
    Name(syn::LitStr),
    Position(syn::LitInt),
}

pub struct HelperInput {
    pub func: syn::ExprPath,
    pub params: Option<(Span, Vec<ParamRef>)>,
}

impl Parse for HelperInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let func: syn::ExprPath = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), crate::diag::HELPER_EXPECTS_PATH))?;
        let mut params = None;
        if input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
            if !input.is_empty() {
                let key: syn::Ident = input.parse()?;
                if key != "params" {
                    return Err(syn::Error::new(
                        key.span(),
                        crate::diag::unknown_helper_argument(&key),
                    ));
                }
                input.parse::<syn::Token![=]>()?;
                let content;
                let bracket = syn::bracketed!(content in input);
                let lits = content.parse_terminated(syn::Lit::parse, syn::Token![,])?;
                let mut refs = Vec::new();
                for lit in lits {
                    match lit {
                        syn::Lit::Str(s) => refs.push(ParamRef::Name(s)),
                        syn::Lit::Int(i) => refs.push(ParamRef::Position(i)),
                        other => return Err(syn::Error::new(
                            other.span(),
                            "a parameter is named by a string (`\"w1\"`) or by its position (`0`)",
                        )),
                    }
                }
                params = Some((bracket.span.join(), refs));
                if input.peek(syn::Token![,]) {
                    input.parse::<syn::Token![,]>()?;
                }
            }
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens; expected `f` or `f, params = [...]`"));
        }
        Ok(HelperInput { func, params })
    }
}

/// `gradients_function!` (`with_value = false`) and `value_and_gradients_function!`.
pub fn gradients_function(input: HelperInput, with_value: bool) -> syn::Result<TokenStream> {
    let what = if with_value {
        "value_and_gradients_function"
    } else {
        "gradients_function"
    };
    selected_helper(input, what)
}

/// `accumulate_gradients!`: the closure adding the gradients into the caller's buffers.
pub fn accumulate_gradients(input: HelperInput) -> syn::Result<TokenStream> {
    selected_helper(input, "accumulate_gradients")
}

/// The name the helper's function is called by (its path's last segment), for the
/// runtime's messages.
pub fn called_name(func: &syn::ExprPath) -> String {
    func.path
        .segments
        .last()
        .map_or_else(String::new, |s| s.ident.unraw().to_string())
}

/// The runtime's entry-point traits brought into scope (`runtime::entry::traits`): a
/// function whose sweeps and entry points the runtime's traits carry has them through these;
/// one with its own finds those first.
pub fn runtime_entries() -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use ::autodiff::__private::entry::traits::*;
    }
}

/// The companion `what` of the function, called with the selection `params = [...]`
/// makes (every differentiable parameter without it).
fn selected_helper(input: HelperInput, what: &str) -> syn::Result<TokenStream> {
    let rt = quote!(::autodiff::__private);
    let target = companion_path(&input.func, what);
    let entries = runtime_entries();
    let Some((span, refs)) = input.params else {
        let all = companion_path(&input.func, "all");
        return Ok(quote!({
            #entries
            #target(#all())
        }));
    };
    if refs.is_empty() {
        return Err(syn::Error::new(span, crate::diag::PARAMS_EMPTY));
    }
    if refs.len() > 8 {
        return Err(syn::Error::new(span, crate::diag::PARAMS_TOO_MANY));
    }
    let (checks, keys) = selection_consts(&input.func, &refs)?;
    let sel = format_ident!("Sel{}", keys.len());
    Ok(quote! {{
        #checks
        #entries
        #target(#rt::select::#sel::<#(#keys),*>)
    }})
}

/// The constants a `params = [...]` list becomes: each entry's position, checked against
/// `func`'s signature at compile time (an unknown or constant parameter is an error at the
/// entry), and the checks that no parameter is selected twice.
pub fn selection_consts(
    func: &syn::ExprPath,
    refs: &[ParamRef],
) -> syn::Result<(TokenStream, Vec<syn::Ident>)> {
    let signature = companion_path(func, "SIGNATURE");
    let mut consts = Vec::new();
    let mut keys = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let k = format_ident!("__AUTODIFF_K{}", i, span = Span::mixed_site());
        let (key, lit_span) = match r {
            ParamRef::Name(s) => (s.value(), s.span()),
            ParamRef::Position(p) => (p.base10_digits().to_string(), p.span()),
        };
        if seen.contains(&key) {
            return Err(syn::Error::new(
                lit_span,
                format!("`{key}` is selected twice in `params`"),
            ));
        }
        seen.push(key);
        let signature_spanned = respan(&signature, lit_span);
        let lookup = match r {
            ParamRef::Name(s) => {
                quote_spanned! {lit_span=>
                    ::autodiff::__private::select::lookup_name(&#signature_spanned, #s)
                }
            }
            ParamRef::Position(p) => {
                quote_spanned! {lit_span=>
                    ::autodiff::__private::select::lookup_position(&#signature_spanned, #p)
                }
            }
        };
        // (the panic in the constant's own initializer: the error is the message alone)
        consts.push(quote_spanned! {lit_span=>
            const #k: usize = {
                let __lookup = #lookup;
                match __lookup.index() {
                    ::core::option::Option::Some(k) => k,
                    ::core::option::Option::None => ::core::panic!("{}", __lookup.message()),
                }
            };
        });
        keys.push(k);
    }
    // A name and a position may still denote the same parameter.
    let mut distinct = Vec::new();
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            let (a, b) = (&keys[i], &keys[j]);
            let message = "the same parameter is selected twice in `params`";
            distinct.push(quote!(
                const _: () = ::core::assert!(#a != #b, #message);
            ));
        }
    }
    Ok((quote!(#(#consts)* #(#distinct)*), keys))
}

/// `vjp!(f)`: the function returning `(value, pullback)`.
pub fn vjp(input: HelperInput) -> syn::Result<TokenStream> {
    if let Some((span, _)) = input.params {
        return Err(syn::Error::new(span, crate::diag::VJP_TAKES_NO_PARAMS));
    }
    let target = companion_path(&input.func, "vjp_selected");
    let entries = runtime_entries();
    Ok(quote!({
        #entries
        #target
    }))
}

/// `path` with every token carrying `span`, so an error about the expression it is part
/// of points at the user's `params` entry.
fn respan(path: &syn::ExprPath, span: Span) -> TokenStream {
    quote::ToTokens::to_token_stream(path)
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}
