//! What `#[derive(Differentiable)]` adds to a struct generic over its float type
//! (`struct Mlp<T: Real> { w: Array2<T>, b: Array1<T> }`, one type parameter, no lifetime or
//! const parameter) so that `hvp!` serves parameters of it: the runtime's `dual::HvpArg` for
//! the struct and a reference to it — the struct over dual numbers (`Mlp<Dual<T>>`) whose
//! tangents are a vector of the struct's shape, each array-like field's checked against the
//! parameter's, and the product out of its dual gradient (a `MlpTangent<T>`, by
//! `dual::TangentPart`, which a struct holding this one also takes its field's with).
//!
//! Every impl is bounded by what it needs of the fields (`Array2<T>: HvpArg<Duals =
//! Array2<Dual<T>>>`, …), so a field `hvp!` cannot take leaves the struct without them and
//! does not stop it from compiling.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// A field of the derived struct: its name, type, and whether it is differentiable.
pub struct Field<'a> {
    pub name: &'a syn::Ident,
    pub ty: &'a syn::Type,
    pub grad: bool,
}

/// `tokens` with every `t` replaced by `dual` (`Dual<t>`).
pub(crate) fn dual_of(tokens: TokenStream, t: &syn::Ident, dual: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) if i == *t => out.extend(dual.clone()),
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), dual_of(g.stream(), t, dual));
                n.set_span(g.span());
                out.extend([TokenTree::Group(n)]);
            }
            tt => out.extend([tt]),
        }
    }
    out
}

/// Whether `tokens` name `t`.
pub(crate) fn mentions(tokens: TokenStream, t: &syn::Ident) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == *t,
        TokenTree::Group(g) => mentions(g.stream(), t),
        _ => false,
    })
}

/// Bounds of the float parameter that dual numbers meet too (by the last segment of the
/// trait's path).
const DUAL_MEETS: &[&str] = &[
    "Float",
    "Real",
    "LinalgScalar",
    "ScalarOperand",
    "FloatConst",
    "Copy",
    "Clone",
    "Debug",
    "Display",
    "Default",
    "Send",
    "Sync",
    "PartialEq",
    "PartialOrd",
];

/// The struct's one type parameter, when it has exactly that (no lifetime or const
/// parameter, no `where` clause) and its bounds are ones dual numbers meet.
fn float_param(generics: &syn::Generics) -> Option<&syn::Ident> {
    if generics.where_clause.is_some() || generics.params.len() != 1 {
        return None;
    }
    let syn::GenericParam::Type(t) = generics.params.first()? else {
        return None;
    };
    let met = t.bounds.iter().all(|b| match b {
        syn::TypeParamBound::Trait(tb) => {
            matches!(tb.modifier, syn::TraitBoundModifier::None)
                && tb.path.segments.last().is_some_and(|s| {
                    s.arguments.is_none() && DUAL_MEETS.contains(&s.ident.to_string().as_str())
                })
        }
        syn::TypeParamBound::Lifetime(l) => l.ident == "static",
        _ => false,
    });
    met.then_some(&t.ident)
}

/// The impls (see the module's documentation), or nothing for a struct they do not fit.
pub fn dual_items(
    name: &syn::Ident,
    tangent: &syn::Ident,
    generics: &syn::Generics,
    fields: &[Field<'_>],
) -> TokenStream {
    let Some(t) = float_param(generics) else {
        return TokenStream::new();
    };
    let rt = quote!(::autodiff::__private);
    let dual = quote!(#rt::dual::Dual<#t>);
    let struct_name = name.to_string();
    let mut arg_bounds = Vec::new();
    let mut part_bounds = Vec::new();
    let mut make = Vec::new();
    let mut parts = Vec::new();
    for f in fields {
        let (n, ty) = (f.name, f.ty);
        let field_name = n.to_string();
        let generic = mentions(ty.to_token_stream(), t);
        let dual_ty = dual_of(ty.to_token_stream(), t, &dual);
        if generic {
            arg_bounds.push(quote!(#ty: #rt::dual::HvpArg<Duals = #dual_ty>));
        }
        if f.grad {
            // (an array-like field checked here; a nested struct checks its own fields)
            let check = if !array_like(ty) {
                quote!()
            } else {
                arg_bounds.push(quote!(#ty: #rt::forward::Shape));
                quote! {
                    if let ::core::option::Option::Some(v) = v {
                        #rt::forward::check_field_shape(&self.#n, &v.#n, #struct_name, #field_name);
                    }
                }
            };
            make.push(quote! {
                #n: {
                    #check
                    #rt::dual::HvpArg::duals(&self.#n, v.map(|v| &v.#n))
                }
            });
            part_bounds.push(quote! {
                <#dual_ty as #rt::Differentiable>::Tangent:
                    #rt::dual::TangentPart<Out = <#ty as #rt::Differentiable>::Tangent>
            });
            parts.push(quote!(#n: #rt::dual::TangentPart::tangent_part(self.#n)));
        } else {
            make.push(if generic {
                quote!(#n: #rt::dual::HvpArg::duals(&self.#n, ::core::option::Option::None))
            } else {
                quote!(#n: ::core::clone::Clone::clone(&self.#n))
            });
            parts.push(quote!(#n: #rt::NoTangent));
        }
    }
    let refuse = format!(
        "autodiff: `hessian!` of a `{struct_name}` parameter: the Hessian of a struct is not \
         formed; use `hvp!` (products with vectors of the struct's shape)"
    );
    quote! {
        impl<#t: #rt::Real> #rt::dual::HvpArg for #name<#t>
        where
            #(#arg_bounds,)*
            #(#part_bounds,)*
            #name<#dual>: #rt::Differentiable<Tangent = #tangent<#dual>>,
        {
            type Duals = #name<#dual>;
            type Owned = Self;
            type Out = #tangent<#t>;
            type Hessian = #rt::ndarray::Array2<#t>;
            fn duals(&self, v: ::core::option::Option<&Self>) -> #name<#dual> {
                #name { #(#make,)* }
            }
            fn hessian(
                &self,
                _hvp: impl FnMut(Self) -> #tangent<#t>,
            ) -> #rt::ndarray::Array2<#t> {
                ::core::panic!(#refuse)
            }
            fn product(g: #tangent<#dual>) -> #tangent<#t> {
                #rt::dual::TangentPart::tangent_part(g)
            }
        }

        impl<'__autodiff_a, #t: #rt::Real> #rt::dual::HvpArg for &'__autodiff_a #name<#t>
        where
            #(#arg_bounds,)*
            #(#part_bounds,)*
            #name<#dual>: #rt::Differentiable<Tangent = #tangent<#dual>>,
        {
            type Duals = #name<#dual>;
            type Owned = #name<#t>;
            type Out = #tangent<#t>;
            type Hessian = #rt::ndarray::Array2<#t>;
            fn duals(&self, v: ::core::option::Option<&Self>) -> #name<#dual> {
                #rt::dual::HvpArg::duals(*self, v.map(|v| *v))
            }
            fn hessian(
                &self,
                _hvp: impl FnMut(#name<#t>) -> #tangent<#t>,
            ) -> #rt::ndarray::Array2<#t> {
                ::core::panic!(#refuse)
            }
            fn product(g: #tangent<#dual>) -> #tangent<#t> {
                #rt::dual::TangentPart::tangent_part(g)
            }
        }

        // (also what a struct holding this one takes its field's product with)
        impl<#t: #rt::Real> #rt::dual::TangentPart for #tangent<#dual>
        where
            #(#part_bounds,)*
        {
            type Out = #tangent<#t>;
            fn tangent_part(self) -> #tangent<#t> {
                #tangent { #(#parts,)* }
            }
        }
    }
}

/// A field type whose shape a vector's field is checked against: a slice, an array, a `Vec`
/// or an ndarray array (a float has none, a nested struct checks its own fields).
fn array_like(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Paren(p) => array_like(&p.elem),
        syn::Type::Reference(r) => array_like(&r.elem),
        syn::Type::Array(_) | syn::Type::Slice(_) => true,
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name == "Vec" || (name.starts_with("Array") && !name.starts_with("ArrayView"))
        }),
        _ => false,
    }
}
