//! What `#[derive(Differentiable)]` adds to a struct's tangent when the facade's optional
//! features are on (this crate's features of the same names; off, nothing is written):
//!
//! - `rayon`: `Add`, `AddAssign` (through the tangent's `Accumulate`) and `Sum` (from the
//!   tangent's `Default`, which every build has: [`default_item`]), so gradients of the
//!   shards of a batch add.
//! - `serde`: serde's `Serialize` and `Deserialize`, through the facade's re-export.
//!
//! Each impl is bounded by what it needs of the fields' tangents, so a field whose tangent
//! is not `Default` or `Serialize` (a `[f64; 40]`) leaves the struct's tangent without that
//! impl and does not stop the struct from compiling (see `tangent_bounds`).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// A field of the derived struct: its name, type, and whether it is differentiable.
pub struct Field<'a> {
    pub name: &'a syn::Ident,
    pub ty: &'a syn::Type,
    pub grad: bool,
}

/// Whether `tokens` name one of `params` (the struct's type and const parameters; a
/// function's generics).
pub(crate) fn mentions<P>(tokens: TokenStream, params: &[P]) -> bool
where
    proc_macro2::Ident: PartialEq<P>,
{
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => params.iter().any(|p| i == *p),
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), params),
        _ => false,
    })
}

/// `<ty as Differentiable>::Tangent: bound` for every differentiable field. A field type
/// that names none of the struct's parameters gets `for<'__autodiff>` in front (a bound on
/// a concrete type that does not hold is an error, not a condition, without it); a generic
/// one stays plain (the compiler does not use a higher-ranked bound on a projection of a
/// type parameter).
fn tangent_bounds(
    fields: &[Field<'_>],
    generics: &syn::Generics,
    bound: &TokenStream,
) -> Vec<TokenStream> {
    let rt = quote!(::autodiff::__private);
    let params: Vec<String> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    fields
        .iter()
        .filter(|f| f.grad)
        .map(|f| {
            let ty = f.ty;
            if mentions(ty.to_token_stream(), &params) {
                quote!(<#ty as #rt::Differentiable>::Tangent: #bound)
            } else {
                quote!(for<'__autodiff> <#ty as #rt::Differentiable>::Tangent: #bound)
            }
        })
        .collect()
}

/// Attributes for the tangent struct's declaration (serde's derives).
pub fn tangent_attributes(fields: &[Field<'_>], generics: &syn::Generics) -> TokenStream {
    if !cfg!(feature = "serde") {
        return TokenStream::new();
    }
    let serde = quote!(::autodiff::__private::serde);
    let join = |bounds: Vec<TokenStream>| {
        bounds
            .iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ser = join(tangent_bounds(fields, generics, &quote!(#serde::Serialize)));
    let de = join(tangent_bounds(
        fields,
        generics,
        &quote!(#serde::Deserialize<'de>),
    ));
    let krate = serde.to_token_stream().to_string().replace(' ', "");
    quote! {
        #[derive(#serde::Serialize, #serde::Deserialize)]
        #[serde(crate = #krate, bound(serialize = #ser, deserialize = #de))]
    }
}

/// `Default` of the tangent, on with every feature: every field's default (`0.0`, an empty
/// `Vec` or array, `NoTangent`), a zero that takes the shape of what is added to it — what a
/// `Vec` of the struct built by `push` grows its adjoint with (`ops::grown_index_d0`), and
/// what `Sum` starts from. Bounded like the others (a field whose tangent has no `Default`
/// leaves the tangent without it).
pub fn default_item(
    fields: &[Field<'_>],
    tangent: &syn::Ident,
    generics: &syn::Generics,
    bounds: &[TokenStream],
) -> TokenStream {
    let rt = quote!(::autodiff::__private);
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let default_bounds = tangent_bounds(fields, generics, &quote!(::core::default::Default));
    let defaults = fields.iter().map(|f| {
        let n = f.name;
        if f.grad {
            quote!(#n: ::core::default::Default::default())
        } else {
            quote!(#n: #rt::NoTangent)
        }
    });
    let doc_default = format!(
        "An empty `{tangent}`: every field's default (`0.0`, an empty `Vec` or array), a zero \
         that takes the shape of what is added to it."
    );
    quote! {
        #[doc = #doc_default]
        impl #impl_generics ::core::default::Default for #tangent #ty_generics
        where
            #(#bounds,)*
            #(#default_bounds,)*
        {
            fn default() -> Self {
                #tangent { #(#defaults,)* }
            }
        }

    }
}

/// Items beside the tangent struct (`Add`, `AddAssign`, `Sum`; `Default` is
/// [`default_item`]'s).
pub fn tangent_items(
    fields: &[Field<'_>],
    tangent: &syn::Ident,
    generics: &syn::Generics,
    bounds: &[TokenStream],
) -> TokenStream {
    if !cfg!(feature = "rayon") {
        return TokenStream::new();
    }
    let rt = quote!(::autodiff::__private);
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let default_bounds = tangent_bounds(fields, generics, &quote!(::core::default::Default));
    quote! {
        /// `a += b`: adds field by field (`Accumulate`).
        impl #impl_generics ::core::ops::AddAssign for #tangent #ty_generics where #(#bounds,)* {
            fn add_assign(&mut self, rhs: Self) {
                #rt::Accumulate::accumulate(self, rhs);
            }
        }

        /// `a + b`: adds field by field (`Accumulate`).
        impl #impl_generics ::core::ops::Add for #tangent #ty_generics where #(#bounds,)* {
            type Output = Self;
            fn add(mut self, rhs: Self) -> Self {
                #rt::Accumulate::accumulate(&mut self, rhs);
                self
            }
        }

        /// The sum of many tangents, added left to right from the empty one.
        impl #impl_generics ::core::iter::Sum for #tangent #ty_generics
        where
            #(#bounds,)*
            #(#default_bounds,)*
        {
            fn sum<I: ::core::iter::Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(<Self as ::core::default::Default>::default(), |mut sum, t| {
                    #rt::Accumulate::accumulate(&mut sum, t);
                    sum
                })
            }
        }
    }
}
