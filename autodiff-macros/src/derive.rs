//! `#[derive(Differentiable)]`: a struct's tangent, synthesized field by field.
//!
//! For `struct Mlp { w: Array2<f64>, b: Array1<f64>, #[no_grad] act: Activation }` it
//! writes `struct MlpTangent { pub w: Array2<f64>, pub b: Array1<f64>, pub act: NoTangent }`
//! (the same field names, so generated reverse sweeps accumulate `d.w` for a read of
//! `m.w`), and the runtime's traits: `Differentiable` (zero tangent), `Accumulate` and
//! `Reset` for the tangent, `Parameter` (what optimizers update) and `TangentValue` (what
//! the implicit mode stores).

use crate::diag::Errors;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

fn is_no_grad(field: &syn::Field) -> bool {
    field.attrs.iter().any(|a| a.path().is_ident("no_grad"))
}

/// Field types that are certainly not differentiable: integers, `bool`, `char`, strings.
fn constant_type(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => constant_type(&r.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let name = p.path.segments.last()?.ident.to_string();
            crate::rules::is_constant_type_name(&name).then_some(name)
        }
        _ => None,
    }
}

/// `struct Params<T> { w: Vec<T>, b: T }` as users write it, bounds on the impls rather than
/// the struct: a type parameter with no bound of its own that a differentiable field's type
/// names is the float type, and the generated items take it as `T: Real` (as serde's derive
/// adds `T: Serialize`). One with bounds, or named only by `#[no_grad]` fields, is left as
/// it is.
fn float_bounds(item: &mut syn::DeriveInput) {
    let syn::Data::Struct(s) = &item.data else {
        return;
    };
    fn names(ts: TokenStream, id: &syn::Ident) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == *id,
            proc_macro2::TokenTree::Group(g) => names(g.stream(), id),
            _ => false,
        })
    }
    let mentions = |ty: &syn::Type, id: &syn::Ident| names(ty.to_token_stream(), id);
    let bounded_in_where: Vec<String> = item
        .generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) => Some(t.bounded_ty.to_token_stream().to_string()),
            _ => None,
        })
        .collect();
    let floats: Vec<syn::Ident> = item
        .generics
        .type_params()
        .filter(|t| t.bounds.is_empty() && !bounded_in_where.contains(&t.ident.to_string()))
        .filter(|t| {
            s.fields
                .iter()
                .any(|f| !is_no_grad(f) && mentions(&f.ty, &t.ident))
        })
        .map(|t| t.ident.clone())
        .collect();
    for t in floats {
        item.generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#t: ::autodiff::__private::Real));
    }
}

pub fn derive(input: TokenStream) -> TokenStream {
    let mut item: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    float_bounds(&mut item);
    let mut errors = Errors::default();
    let fields = match &item.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(n) => n.named.iter().collect::<Vec<_>>(),
            syn::Fields::Unit => Vec::new(),
            syn::Fields::Unnamed(u) => {
                errors.push_spanned(u, crate::diag::DERIVE_UNNAMED_FIELDS);
                Vec::new()
            }
        },
        syn::Data::Enum(e) => {
            errors.push(e.enum_token.span, crate::diag::DERIVE_ON_ENUM);
            Vec::new()
        }
        syn::Data::Union(u) => {
            errors.push(
                u.union_token.span,
                "`#[derive(Differentiable)]` is for structs, not unions",
            );
            Vec::new()
        }
    };
    for f in &fields {
        if is_no_grad(f) {
            continue;
        }
        if let Some(name) = constant_type(&f.ty) {
            let field = f.ident.as_ref().expect("named");
            errors.push(
                f.ty.span(),
                crate::diag::derive_constant_field(&field.to_string(), &name),
            );
        }
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }
    let rt = quote!(::autodiff::__private);
    let name = &item.ident;
    let vis = &item.vis;
    let tangent = format_ident!("{}Tangent", name);
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    // (no `field: Differentiable` bounds: with one, rustc would read a field's tangent
    // from the bound rather than the impl, and `<Array1<F> as Differentiable>::Tangent`
    // would stay opaque in a struct generic over its float)
    let bounds: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let names: Vec<&syn::Ident> = fields
        .iter()
        .map(|f| f.ident.as_ref().expect("named"))
        .collect();
    let grad: Vec<bool> = fields.iter().map(|f| !is_no_grad(f)).collect();
    let mut tangent_fields = Vec::new();
    let mut zero = Vec::new();
    let mut check = Vec::new();
    let mut accumulate = Vec::new();
    let mut lazy = Vec::new();
    let mut complete = Vec::new();
    let mut reset = Vec::new();
    let mut take = Vec::new();
    let mut count = Vec::new();
    let mut update = Vec::new();
    let mut visit = Vec::new();
    let mut scale_param = Vec::new();
    let mut scale_value = Vec::new();
    for (f, (n, g)) in fields.iter().zip(names.iter().zip(&grad)) {
        let ty = &f.ty;
        if *g {
            tangent_fields.push(quote! {
                #[doc = concat!("The gradient of `", stringify!(#n), "`.")]
                pub #n: <#ty as #rt::Differentiable>::Tangent
            });
            zero.push(quote!(#n: #rt::Differentiable::zero_tangent(&self.#n)));
            check.push(quote! {
                #rt::Differentiable::check_tangent(
                    &self.#n,
                    &tangent.#n,
                    &at.field(::core::stringify!(#n)),
                );
            });
            lazy.push(quote!(#n: #rt::Differentiable::lazy_zero_tangent(&self.#n)));
            complete
                .push(quote!(#rt::Differentiable::complete_tangent(&self.#n, &mut tangent.#n);));
            accumulate.push(quote!(#rt::Accumulate::accumulate(&mut self.#n, contribution.#n);));
            reset.push(quote!(#rt::Reset::reset(&mut self.#n);));
            take.push(quote!(#n: #rt::Reset::take_reset(&mut self.#n)));
            count.push(quote!(+ #rt::implicit::Parameter::num_elements(&self.#n)));
            update.push(quote! {
                let n = #rt::implicit::Parameter::num_elements(&self.#n);
                #rt::implicit::Parameter::update_elements(
                    &mut self.#n,
                    &grad.#n,
                    &mut |k, v, g| f(offset + k, v, g),
                );
                offset += n;
            });
            visit.push(quote! {
                let mut seen = 0usize;
                <#ty as #rt::implicit::Parameter>::visit_gradient(&grad.#n, &mut |k, g| {
                    seen = seen.max(k + 1);
                    f(offset + k, g);
                });
                offset += seen;
            });
            scale_param.push(
                quote!(<#ty as #rt::implicit::Parameter>::scale_gradient(&mut grad.#n, factor);),
            );
            scale_value.push(quote!(#rt::implicit::TangentValue::scale(&mut self.#n, factor);));
        } else {
            tangent_fields.push(quote! {
                #[doc = concat!("`", stringify!(#n), "` is `#[no_grad]`: no gradient.")]
                pub #n: #rt::NoTangent
            });
            zero.push(quote!(#n: #rt::NoTangent));
            lazy.push(quote!(#n: #rt::NoTangent));
            take.push(quote!(#n: #rt::NoTangent));
        }
    }
    let param_bounds: Vec<TokenStream> = fields
        .iter()
        .zip(&grad)
        .filter(|(_, g)| **g)
        .map(|(f, _)| {
            let ty = &f.ty;
            quote_spanned!(ty.span()=> #ty: #rt::implicit::Parameter)
        })
        .collect();
    let tangent_value_bounds: Vec<TokenStream> = fields
        .iter()
        .zip(&grad)
        .filter(|(_, g)| **g)
        .map(|(f, _)| {
            let ty = &f.ty;
            quote_spanned! {ty.span()=>
                <#ty as #rt::Differentiable>::Tangent: #rt::implicit::TangentValue
            }
        })
        .collect();
    let generics = &item.generics;
    let feature_fields: Vec<crate::derive_features::Field<'_>> = fields
        .iter()
        .zip(names.iter().zip(&grad))
        .map(|(f, (n, g))| crate::derive_features::Field {
            name: n,
            ty: &f.ty,
            grad: *g,
        })
        .collect();
    let feature_attributes = crate::derive_features::tangent_attributes(&feature_fields, generics);
    let feature_items =
        crate::derive_features::tangent_items(&feature_fields, &tangent, generics, &bounds);
    let dual_fields: Vec<crate::derive_dual::Field<'_>> = fields
        .iter()
        .zip(names.iter().zip(&grad))
        .map(|(f, (n, g))| crate::derive_dual::Field {
            name: n,
            ty: &f.ty,
            grad: *g,
        })
        .collect();
    let dual_items = crate::derive_dual::dual_items(name, &tangent, generics, &dual_fields);
    let default_item =
        crate::derive_features::default_item(&feature_fields, &tangent, generics, &bounds);
    let doc = format!(
        "The tangent (gradient) of [`{name}`]: one field per field of `{name}`, `NoTangent` \
         for the `#[no_grad]` ones."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        #feature_attributes
        #vis struct #tangent #generics where #(#bounds,)* {
            #(#tangent_fields,)*
        }

        #feature_items

        #dual_items

        #default_item

        impl #impl_generics #rt::Differentiable for #name #ty_generics where #(#bounds,)* {
            type Tangent = #tangent #ty_generics;
            fn zero_tangent(&self) -> Self::Tangent {
                #tangent { #(#zero,)* }
            }
            fn lazy_zero_tangent(&self) -> Self::Tangent {
                #tangent { #(#lazy,)* }
            }
            fn complete_tangent(&self, tangent: &mut Self::Tangent) {
                let _ = tangent;
                #(#complete)*
            }
            #[track_caller]
            fn check_tangent(
                &self,
                tangent: &Self::Tangent,
                at: &#rt::forward::TangentPath<'_>,
            ) {
                let _ = (tangent, at);
                #(#check)*
            }
        }

        // (`jvp!` lends a zero tangent to a parameter it was given none for)
        impl #impl_generics #rt::forward::FloatValue for #name #ty_generics where #(#bounds,)* {}

        impl #impl_generics #rt::forward::ArgTangent for #name #ty_generics where #(#bounds,)* {
            type Zero = #rt::forward::Owned<#tangent #ty_generics>;
            fn zero_arg(&self) -> Self::Zero {
                #rt::forward::Owned(#rt::Differentiable::zero_tangent(self))
            }
        }

        impl #impl_generics #rt::Accumulate for #tangent #ty_generics where #(#bounds,)* {
            fn accumulate(&mut self, contribution: Self) {
                let _ = &contribution;
                #(#accumulate)*
            }
        }

        impl #impl_generics #rt::Reset for #tangent #ty_generics where #(#bounds,)* {
            fn reset(&mut self) {
                #(#reset)*
            }
            fn take_reset(&mut self) -> Self {
                #tangent { #(#take,)* }
            }
        }

        impl #impl_generics #rt::implicit::Parameter for #name #ty_generics
        where
            #(#bounds,)*
            #(#param_bounds,)*
            Self: ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            fn num_elements(&self) -> usize {
                0 #(#count)*
            }
            fn update_elements(
                &mut self,
                grad: &Self::Tangent,
                f: &mut dyn FnMut(usize, f64, f64) -> f64,
            ) {
                let mut offset = 0usize;
                let _ = (&grad, &mut *f);
                #(#update)*
                let _ = offset;
            }
            fn visit_gradient(grad: &Self::Tangent, f: &mut dyn FnMut(usize, f64)) {
                let mut offset = 0usize;
                let _ = (&grad, &mut *f);
                #(#visit)*
                let _ = offset;
            }
            fn scale_gradient(grad: &mut Self::Tangent, factor: f64) {
                let _ = (&grad, factor);
                #(#scale_param)*
            }
        }

        impl #impl_generics #rt::implicit::TangentValue for #tangent #ty_generics
        where
            #(#bounds,)*
            #(#tangent_value_bounds,)*
            Self: ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            fn scale(&mut self, factor: f64) {
                let _ = factor;
                #(#scale_value)*
            }
        }
    }
}
