//! `#[differentiable]` on an `impl` block: every method of it is differentiable (a method
//! without a differentiable parameter, or without a result, is kept as written). A trait
//! cannot gain items, so the companions of every method — of a trait impl or an inherent
//! one — go into an inherent `impl` of the same type beside the block:
//!
//! ```text
//! #[differentiable]
//! impl Continuous<f64, f64> for StudentsT { fn pdf(&self, x: f64) -> f64 { … } }
//! ```
//!
//! becomes the trait impl as written (each method answering the implicit helpers) and
//! `impl StudentsT { fn __autodiff_pdf_vjp(&self, x: f64) … }`, which `StudentsT::pdf` in
//! the helpers, `self.pdf(x)`, `dist.pdf(x)` and `<StudentsT as Continuous<..>>::pdf(…)` in
//! differentiable code reach. The generics of the `impl` that its self type names stay on
//! the companions' `impl`; the others (`impl<F: Float> Easing<F> for Back`) become generics
//! of each companion.

use crate::companions::Place;
use crate::diag::Errors;
use crate::expand::{parse_args, strip_markers, try_expand, Args, Expanded, ImplContext};
use crate::signature::Signature;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

pub fn impl_block(args: TokenStream, mut block: syn::ItemImpl) -> TokenStream {
    let mut errors = Errors::default();
    let outer = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            errors.push_error(e);
            Args::default()
        }
    };
    let place = if block.trait_.is_some() {
        Place::TraitImpl
    } else {
        Place::Method
    };
    let kept = kept_generics(&block);
    let generics = block.generics.clone();
    let captures = generics
        .params
        .iter()
        .filter(|p| kept.contains(&param_ident(p)))
        .map(|p| match p {
            syn::GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
            other => param_ident(other).to_token_stream(),
        })
        .collect();
    let context = ImplContext {
        generics: &generics,
        kept: &kept,
        captures,
        place,
    };
    let mut companions = TokenStream::new();
    // the methods with a receiver reached through the gate of calls in method form
    let mut gated: Vec<TokenStream> = Vec::new();
    // those of them differentiable with respect to the receiver
    let mut wrt_self: Vec<TokenStream> = Vec::new();
    for item in &mut block.items {
        let syn::ImplItem::Fn(method) = item else {
            continue;
        };
        // `#[differentiable(…)]` on a method of the block: its own arguments.
        let mut inner = None;
        let mut kept_attrs = Vec::new();
        for attr in std::mem::take(&mut method.attrs) {
            if attr.path().is_ident("differentiable") {
                let tokens = match &attr.meta {
                    syn::Meta::List(list) => list.tokens.clone(),
                    _ => TokenStream::new(),
                };
                match parse_args(tokens) {
                    Ok(a) => inner = Some(a),
                    Err(e) => errors.push_error(e),
                }
            } else {
                kept_attrs.push(attr);
            }
        }
        method.attrs = kept_attrs;
        crate::signature::ungroup_method_types(method);
        // (an inherent method's signature is its own: `impl Trait` parameters named as the
        // type parameters they are, as a free function's; a trait's method keeps its trait's)
        if matches!(place, Place::Method) {
            crate::signature::name_impl_trait_parameters(&mut method.sig);
        }
        let original_sig = method.sig.clone();
        strip_markers(&mut method.sig);
        let explicit = inner.is_some();
        // (the block's `self` is for its methods with a receiver; an associated function
        // of the block, `fn new(x: T) -> Self`, is differentiated as any function is)
        let without_self;
        let args = match &inner {
            Some(a) => a,
            None if outer.wrt_self && original_sig.receiver().is_none() => {
                without_self = outer.without_self();
                &without_self
            }
            None => &outer,
        };
        if let Some(at) = args.second_order {
            errors.push(
                at,
                "`second_order` is for free functions written with `f64`; a method has `hvp!` \
                 and `hessian!` when it is generic over its float type (`fn f<T: Float>(&self, \
                 x: &[T]) -> T`)",
            );
            continue;
        }
        if !explicit && !worth_differentiating(&original_sig, &context, args) {
            continue;
        }
        let func = syn::ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        match try_expand(args, func, &original_sig, Some(&context)) {
            Ok(Expanded {
                func,
                companions: c,
                ..
            }) => {
                method.block = *func.block;
                companions.extend(c);
                // (every method: a call in method form and a path call `Type::method(…)`
                // both pass the gate)
                gated.push(crate::companions::method_id(&original_sig.ident));
                if original_sig.receiver().is_some() && args.wrt_self {
                    wrt_self.push(crate::companions::method_id(&original_sig.ident));
                }
            }
            Err(e) => errors.extend(e),
        }
    }
    let errors = errors.to_compile_errors();
    if companions.is_empty() {
        return quote!(#errors #block);
    }
    let header = companions_generics(&block.generics, &kept);
    let (impl_generics, _, where_clause) = header.split_for_impl();
    let self_ty = &block.self_ty;
    let allow = crate::companions::lint_allows();
    quote! {
        #errors
        #block

        #allow
        impl #impl_generics #self_ty #where_clause {
            #companions
        }

        #(
            #allow
            impl #impl_generics ::autodiff::__private::methods::Annotated<#gated>
                for #self_ty #where_clause
            {
                type Target = Self;
                #[inline(always)]
                fn target(&self) -> &Self {
                    self
                }
            }
        )*

        #(
            #allow
            impl #impl_generics ::autodiff::__private::methods::AnnotatedFn<#gated>
                for #self_ty #where_clause
            {
                type Never = ::core::convert::Infallible;
            }
        )*

        #(
            #allow
            impl #impl_generics ::autodiff::__private::methods::SelfDifferentiable<#wrt_self>
                for #self_ty #where_clause
            {
            }
        )*
    }
}

/// Whether a method of an annotated block gets a derivative: it has a result (or writes a
/// `&mut` parameter) and a differentiable parameter. A method that fails to parse is tried,
/// so its errors are reported.
fn worth_differentiating(sig: &syn::Signature, cx: &ImplContext, args: &Args) -> bool {
    let mut parsed = sig.clone();
    parsed.generics = merge_generics(cx.generics, &sig.generics);
    let mut scratch = Errors::default();
    match Signature::parse(&parsed, &mut scratch) {
        Some(s) => args.wrt_self || s.params.iter().any(|p| p.differentiable),
        None => !matches!(sig.output, syn::ReturnType::Default),
    }
}

/// The names of the `impl`'s generic parameters that its self type names: they stay on the
/// companions' `impl` (the others would be unconstrained there).
fn kept_generics(block: &syn::ItemImpl) -> Vec<syn::Ident> {
    let self_ty = block.self_ty.to_token_stream();
    block
        .generics
        .params
        .iter()
        .map(param_ident)
        .filter(|id| mentions(&self_ty, id))
        .collect()
}

fn param_ident(p: &syn::GenericParam) -> syn::Ident {
    match p {
        syn::GenericParam::Type(t) => t.ident.clone(),
        syn::GenericParam::Const(c) => c.ident.clone(),
        syn::GenericParam::Lifetime(l) => l.lifetime.ident.clone(),
    }
}

/// Whether the tokens name `id` (a type, const or lifetime parameter).
pub(crate) fn mentions(tokens: &TokenStream, id: &syn::Ident) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == *id,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), id),
        _ => false,
    })
}

/// The `impl`'s generics and a method's, as one list (lifetimes first) and one `where`
/// clause: what the method's signature is read with.
pub(crate) fn merge_generics(outer: &syn::Generics, inner: &syn::Generics) -> syn::Generics {
    let mut merged = inner.clone();
    let (lifetimes, others): (Vec<_>, Vec<_>) = outer
        .params
        .iter()
        .chain(inner.params.iter())
        .cloned()
        .partition(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    merged.params = lifetimes.into_iter().chain(others).collect();
    if let Some(wc) = &outer.where_clause {
        let preds = wc.predicates.clone();
        merged.make_where_clause().predicates.extend(preds);
    }
    if merged.params.is_empty() {
        merged.lt_token = None;
        merged.gt_token = None;
    } else {
        merged.lt_token.get_or_insert_with(Default::default);
        merged.gt_token.get_or_insert_with(Default::default);
    }
    merged
}

/// Removes from a method's signature the generics that stay on the companions' `impl`
/// (and the `where` predicates about them only, `T: Real` included: the `impl` gets them
/// through [`companions_generics`]).
pub(crate) fn drop_impl_generics(sig: &mut Signature, cx: &ImplContext) {
    for generics in [&mut sig.generics, &mut sig.generics_named] {
        generics.params = generics
            .params
            .iter()
            .filter(|p| !cx.kept.contains(&param_ident(p)))
            .cloned()
            .collect();
        if let Some(wc) = &mut generics.where_clause {
            wc.predicates = wc
                .predicates
                .iter()
                .filter(|p| !only_about(p, cx.kept))
                .cloned()
                .collect();
        }
        if generics.params.is_empty() {
            generics.lt_token = None;
            generics.gt_token = None;
        }
    }
}

/// Whether a `where` predicate bounds a kept parameter itself (`T: Float`, `'a: 'b`).
fn only_about(pred: &syn::WherePredicate, kept: &[syn::Ident]) -> bool {
    match pred {
        syn::WherePredicate::Type(t) => {
            let bounded = t.bounded_ty.to_token_stream();
            kept.iter().any(|k| mentions(&bounded, k))
        }
        syn::WherePredicate::Lifetime(l) => kept.contains(&l.lifetime.ident),
        _ => false,
    }
}

/// The companions' `impl` generics: the kept parameters with their bounds, the `impl`'s
/// `where` predicates about them, and `Real` for each float type among them.
fn companions_generics(outer: &syn::Generics, kept: &[syn::Ident]) -> syn::Generics {
    let mut header = outer.clone();
    header.params = outer
        .params
        .iter()
        .filter(|p| kept.contains(&param_ident(p)))
        .cloned()
        .collect();
    if let Some(wc) = &mut header.where_clause {
        wc.predicates = wc
            .predicates
            .iter()
            .filter(|p| only_about(p, kept))
            .cloned()
            .collect();
    }
    let floats: Vec<syn::Ident> = crate::signature::float_type_params(outer, None)
        .into_iter()
        .filter(|f| kept.contains(f))
        .collect();
    for f in floats {
        header
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#f: ::autodiff::__private::Real));
    }
    if header.params.is_empty() {
        header.lt_token = None;
        header.gt_token = None;
    }
    header
}
