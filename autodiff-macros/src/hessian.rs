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
//! * `__hvp_opts(params…, vectors)`: the products of every differentiable parameter, for
//!   the vectors given in their slots (a tuple of `Option`s; zero for the others).
//! * `__hvp_function()` and `__hessian_function()`: the closures the helpers return;
//!   `__hvp_selK(selection)` and `__hessian_sel1(selection)` those of `params = [...]`.
//!
//! All are generic (the float type), so a function the helpers never reach costs their
//! type check only.

use crate::companions::{companion, companion_path, lint_allows_if, rt};
use crate::forward::MAX_SELECTED;
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
    /// `&mut [T]`: the buffer's initial values are the variables (the dual copy the
    /// gradient runs on is written, the caller's buffer is not)
    BorrowedMut,
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

/// An owned ndarray array of `T`: `Array<T, D>`, `Array1<T>` … `Array6<T>`, `ArrayD<T>`.
fn is_ndarray_of(ty: &syn::Type, t: &syn::Ident) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    let owned = name == "Array"
        || name == "ArrayD"
        || (name.len() == 6
            && name.starts_with("Array")
            && name.ends_with(['1', '2', '3', '4', '5', '6']));
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return false;
    };
    owned
        && (1..=2).contains(&a.args.len())
        && (name == "Array") == (a.args.len() == 2)
        && matches!(&a.args[0], syn::GenericArgument::Type(e) if is_ident(e, t))
}

/// A struct generic over `T` alone (`Mlp<T>`; not a `Vec` or an ndarray array): served
/// through the impls `#[derive(Differentiable)]` writes for such a struct.
fn is_struct_of(ty: &syn::Type, t: &syn::Ident) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return false;
    };
    p.qself.is_none()
        && !is_vec_of(ty, t)
        && !is_ndarray_of(ty, t)
        && a.args.len() == 1
        && matches!(&a.args[0], syn::GenericArgument::Type(e) if is_ident(e, t))
}

/// The type behind references, parentheses and groups.
fn behind_references(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Paren(p) => behind_references(&p.elem),
        syn::Type::Group(g) => behind_references(&g.elem),
        syn::Type::Reference(r) => behind_references(&r.elem),
        _ => ty,
    }
}

/// A fixed-size array of `T`: `[T; N]`.
fn is_fixed_array_of(ty: &syn::Type, t: &syn::Ident) -> bool {
    matches!(ty, syn::Type::Array(a) if is_ident(&a.elem, t))
}

fn kind(ty: &syn::Type, t: &syn::Ident) -> Option<Kind> {
    match ty {
        syn::Type::Paren(p) => kind(&p.elem, t),
        syn::Type::Group(g) => kind(&g.elem, t),
        _ if is_ident(ty, t) => Some(Kind::Scalar),
        _ if is_vec_of(ty, t)
            || is_fixed_array_of(ty, t)
            || is_ndarray_of(ty, t)
            || is_struct_of(ty, t) =>
        {
            Some(Kind::Owned)
        }
        syn::Type::Reference(r) if r.mutability.is_some() => match &*r.elem {
            syn::Type::Slice(s) if is_ident(&s.elem, t) => Some(Kind::BorrowedMut),
            _ => None,
        },
        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            syn::Type::Slice(s) if is_ident(&s.elem, t) => Some(Kind::Borrowed),
            e if is_vec_of(e, t)
                || is_fixed_array_of(e, t)
                || is_ndarray_of(e, t)
                || is_struct_of(e, t) =>
            {
                Some(Kind::Borrowed)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The type of the product for a parameter of type `ty` (one `kind` serves): the float
/// for a float, a `Vec` for a slice or `Vec`, the array's own type for a fixed-size or
/// ndarray array, the tangent (gradient) type of a derived struct.
fn out_type(ty: &syn::Type, t: &syn::Ident) -> TokenStream {
    let ty = behind_references(ty);
    let rt = rt();
    match ty {
        _ if is_ident(ty, t) => quote!(#t),
        _ if is_fixed_array_of(ty, t) || is_ndarray_of(ty, t) => ty.to_token_stream(),
        _ if is_struct_of(ty, t) => quote!(<#ty as #rt::Differentiable>::Tangent),
        _ => quote!(::std::vec::Vec<#t>),
    }
}

fn mentions(ty: &syn::Type, t: &syn::Ident) -> bool {
    crate::derive_dual::mentions(ty.to_token_stream(), t)
}

/// What `hvp!` runs for a function: the float type, the kinds of its differentiable
/// parameters, and — for a function written with `f64` (`#[differentiable(second_order)]`)
/// — its generic copy and the kinds of its constants made of `f64`, which the copy takes
/// as dual numbers too.
struct Support {
    t: syn::Ident,
    kinds: Vec<Option<Kind>>,
    /// The copy, whether it is fused, and the parameters its split sweep takes apart.
    copy: Option<(syn::Ident, bool, Option<Vec<usize>>)>,
    constants: Vec<Option<Kind>>,
}

/// Why `hvp!` cannot serve a function.
enum Refused {
    /// Not generic over its float type (see [`not_generic`]); the runtime's `Defaults{n}`
    /// says so itself for a function with `runtime::entry` impls.
    NotGeneric,
    Because(String),
}

/// Why `hvp!` cannot serve the function, or what it runs (see [`Support`]).
fn support(
    sig: &Signature,
    custom: bool,
    copy: Option<&crate::second_order::Copy>,
) -> Result<Support, Refused> {
    let name = &sig.ident;
    if custom {
        return Err(Refused::Because(format!(
            "`{name}` has a hand-written `vjp` rule: `hvp!` and `hessian!` differentiate \
             generated gradients only"
        )));
    }
    // (a method's gradient runs on dual numbers as a function's does, its receiver a
    // constant of the `impl`'s type, which holds no float of the method's type parameter)
    if sig.is_method && sig.params.first().is_some_and(|p| p.differentiable) {
        return Err(Refused::Because(format!(
            "`{name}` is a method with a differentiable receiver (`#[differentiable(self)]`): \
             `hvp!` and `hessian!` serve methods whose receiver is a constant (yet); take the \
             parameters as an argument (`fn {name}<T: Float>(&self, p: &[T]) -> T`)"
        )));
    }
    let floats = crate::signature::float_type_params(&sig.generics, Some(&sig.output));
    let types = sig.generics.type_params().count();
    let (t, copy) = match (floats.as_slice(), copy) {
        ([t], _) => (t.clone(), None),
        (
            [],
            Some(crate::second_order::Copy::Ready {
                ident,
                fused,
                split,
            }),
        ) => (
            format_ident!("f64", span = Span::call_site()),
            Some((ident.clone(), *fused, split.clone())),
        ),
        ([], Some(crate::second_order::Copy::Failed(reason))) => {
            return Err(Refused::Because(reason.clone()))
        }
        _ => return Err(Refused::NotGeneric),
    };
    if types != usize::from(copy.is_none()) {
        return Err(Refused::Because(format!(
            "`{name}` has type parameters besides its float type `{t}`: `hvp!` and \
             `hessian!` do not serve it (yet)"
        )));
    }
    if !is_ident(&sig.output, &t) {
        return Err(Refused::Because(format!(
            "`{name}` does not return its float type `{t}`: `hvp!` and `hessian!` need a \
             scalar output"
        )));
    }
    let mut kinds = Vec::new();
    let mut constants = Vec::new();
    for p in &sig.params {
        if !p.differentiable {
            kinds.push(None);
            if !mentions(&p.ty, &t) {
                constants.push(None);
                continue;
            }
            match kind(&p.ty, &t) {
                // (run on dual numbers, a constant made of the float type is one too)
                Some(k) => constants.push(Some(k)),
                _ => {
                    return Err(Refused::Because(format!(
                        "`{name}`'s constant parameter `{}` has a type made of `{t}`: `hvp!` \
                         and `hessian!` do not serve it (yet)",
                        p.name
                    )))
                }
            }
            continue;
        }
        constants.push(None);
        match kind(&p.ty, &t) {
            Some(k) => kinds.push(Some(k)),
            None => {
                return Err(Refused::Because(format!(
                    "`{name}`'s parameter `{}`: `hvp!` and `hessian!` serve parameters `{t}`, \
                     `&[{t}]`, `&mut [{t}]`, `Vec<{t}>`, `[{t}; N]`, ndarray's `Array<{t}, D>` and \
                     structs generic over `{t}` with `#[derive(Differentiable)]` (by value or \
                     reference) (yet)",
                    p.name
                )))
            }
        }
    }
    if !kinds.iter().any(Option::is_some) {
        return Err(Refused::Because(format!(
            "`{name}` has no differentiable parameter"
        )));
    }
    Ok(Support {
        t,
        kinds,
        copy,
        constants,
    })
}

/// A closure companion of a function the helpers refuse: its type only, for the call to
/// type-check while the reason is reported — a `fn` pointer (no opaque type to check)
/// taking the function's arguments then `extra`, returning `!` (which becomes whatever
/// the caller's code expects of the result, so the reason is the one error). `selection`:
/// it takes the selection `__S`, and `extra` names type parameters (the selected vectors'
/// types, inferred from the call).
fn refused_closure(
    sig: &Signature,
    vis: &syn::Visibility,
    name: &syn::Ident,
    selection: bool,
    extra: &[TokenStream],
) -> TokenStream {
    let allow = lint_allows_if(sig.is_method);
    let mut g = sig.generics_named.clone();
    let mut added: Vec<syn::GenericParam> = Vec::new();
    if selection {
        added.push(syn::parse_quote!(__S));
        added.extend(extra.iter().map(|t| syn::parse_quote!(#t)));
    }
    g.params.extend(added);
    let (generics, _, where_named) = g.split_for_impl();
    let tys = sig.params.iter().map(|p| &p.ty_named);
    let arg = if selection {
        quote!(_selection: __S)
    } else {
        quote!()
    };
    quote! {
        #allow
        #vis fn #name #generics (#arg) -> fn(#(#tys,)* #(#extra),*) -> ! #where_named {
            ::core::unreachable!()
        }
    }
}

/// `__HESSIAN` (`reason`, an `Option`) and `__hessian_function` of a function `hessian!`
/// cannot serve.
fn refused_hessian(sig: &Signature, vis: &syn::Visibility, reason: TokenStream) -> TokenStream {
    let allow = lint_allows_if(sig.is_method);
    let hessian_c = companion(&sig.ident, "HESSIAN", sig.is_method);
    let hessian_function = companion(&sig.ident, "hessian_function", sig.is_method);
    let closure = refused_closure(sig, vis, &hessian_function, false, &[]);
    quote! {
        #allow
        #vis const #hessian_c: ::core::option::Option<&'static str> = #reason;
        #closure
    }
}

/// Why `hvp!` and `hessian!` refuse a function not generic over its float type (the
/// runtime's `forward::NOT_GENERIC`, which the defaults of its `FirstOrder{n}` traits say).
fn not_generic(sig: &Signature) -> String {
    let name = &sig.ident;
    if sig.is_method {
        return format!(
            "`{name}` is a method not generic over its float type: `hvp!` and `hessian!` run \
             its gradient on dual numbers, so write it `fn {name}<T: Float>(&self, …) -> T` with \
             `T` a type parameter of the method itself (one of the `impl`'s is not served yet)"
        );
    }
    format!(
        "`{name}` is not generic over its float type: `hvp!` and `hessian!` run its gradient \
         on dual numbers, so mark it `#[differentiable(second_order)]` (a copy generic over \
         the float type is written for them), or write it `fn {name}<T: Float>(…) -> T` with \
         `T` for its float type"
    )
}

/// Every bound of the float type `t` required of `Dual<t>` too (`None` without bounds):
/// the companions then type-check whatever the bounds, and a bound `Dual` does not meet is
/// an error where `hvp!` is used, not where the function is defined.
fn dual_bound(sig: &Signature, t: &syn::Ident) -> Option<TokenStream> {
    let rt = rt();
    let mut bounds: Vec<&syn::TypeParamBound> = Vec::new();
    if let Some(tp) = sig.generics_named.type_params().find(|p| p.ident == *t) {
        bounds.extend(tp.bounds.iter());
    }
    if let Some(w) = &sig.generics_named.where_clause {
        for p in &w.predicates {
            if let syn::WherePredicate::Type(pt) = p {
                // (a bound under `for<'a>` is left out: it names its own lifetime, and
                // of the float type itself — `&'a T: Mul<T>` — which `Dual<T>` does not
                // have to meet for the float type's)
                if is_ident(&pt.bounded_ty, t) && pt.lifetimes.is_none() {
                    bounds.extend(pt.bounds.iter());
                }
            }
        }
    }
    (!bounds.is_empty()).then(|| quote!(#rt::dual::Dual<#t>: #(#bounds)+*))
}

/// The function's `where` clause plus `extra`.
fn where_with(sig: &Signature, extra: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let mut preds: Vec<TokenStream> = Vec::new();
    if let Some(w) = &sig.generics_named.where_clause {
        preds.extend(w.predicates.iter().map(ToTokens::to_token_stream));
    }
    preds.extend(extra);
    quote!(where #(#preds),*)
}

/// The function's `where` clause plus [`dual_bound`] and `extra`.
fn dual_where(sig: &Signature, t: &syn::Ident, extra: &[TokenStream]) -> TokenStream {
    where_with(
        sig,
        dual_bound(sig, t).into_iter().chain(extra.iter().cloned()),
    )
}

/// What the companions need of a parameter of a type generic over the float type that the
/// macro cannot see (`&Mlp<T>`, or an alias such as `Matrix3<T>`): its `HvpArg` (the
/// impls `#[derive(Differentiable)]` writes), as a bound, so a type without it costs one
/// error where `hvp!` is used, never where the function is defined.
fn opaque_bounds(
    sig: &Signature,
    t: &syn::Ident,
    kinds: &[Option<Kind>],
    constants: &[Option<Kind>],
) -> Vec<TokenStream> {
    let rt = rt();
    let dual = quote!(#rt::dual::Dual<#t>);
    let mut out = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let Some(k) = kinds[i].or(constants[i]) else {
            continue;
        };
        let base = behind_references(&p.ty_named);
        if !is_struct_of(base, t) {
            continue;
        }
        // (a reference for any lifetime: the closures take theirs for any)
        let ty = if k == Kind::Borrowed {
            quote!(for<'__autodiff_b> &'__autodiff_b #base)
        } else {
            quote!(#base)
        };
        let dual_ty = crate::derive_dual::dual_of(base.to_token_stream(), t, &dual);
        // (a constant's product is never taken; naming its tangent would need the type to
        // have one where the function is defined: `#[no_grad] cfg: &Config<T>`)
        let product = kinds[i].map(|_| {
            quote! {
                Out = <#base as #rt::Differentiable>::Tangent,
                Hessian = #rt::ndarray::Array2<#t>,
            }
        });
        out.push(quote! {
            #ty: #rt::dual::HvpArg<
                Duals = #dual_ty,
                Owned = #base,
                #product
            >
        });
    }
    out
}

/// The tuple of the vectors' types `params = [...]` places (`runtime::forward::Slots`): a
/// differentiable parameter's own type, `NoTangent` for a constant.
fn slots_type(sig: &Signature) -> TokenStream {
    let rt = rt();
    let t = sig.params.iter().map(|p| {
        if p.differentiable {
            p.ty_named.to_token_stream()
        } else {
            quote!(#rt::NoTangent)
        }
    });
    quote!((#(#t,)*))
}

/// `__hvp_selK` for `k` selected vectors (`hvp!(f, params = [...])`) and
/// `__hessian_sel1` (`hessian!(f, params = [...])`) of a function the helpers refuse (see
/// [`refused_closure`]).
fn refused_selecting(sig: &Signature, vis: &syn::Visibility) -> TokenStream {
    let m = sig.is_method;
    let mut out = TokenStream::new();
    let most = sig.differentiable_positions().len().clamp(1, MAX_SELECTED);
    for k in 1..=most {
        let f = companion(&sig.ident, &format!("hvp_sel{k}"), m);
        let vectors: Vec<TokenStream> = (0..k)
            .map(|j| format_ident!("__I{}", j).to_token_stream())
            .collect();
        out.extend(refused_closure(sig, vis, &f, true, &vectors));
    }
    let f = companion(&sig.ident, "hessian_sel1", m);
    out.extend(refused_closure(sig, vis, &f, true, &[]));
    out
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
    copy: Option<&crate::second_order::Copy>,
    split: Option<&crate::fuse::SplitSweep>,
) -> (TokenStream, Option<Vec<usize>>) {
    let rt = rt();
    let m = sig.is_method;
    let allow = lint_allows_if(m);
    let ident = &sig.ident;
    let hvp_c = companion(ident, "HVP", m);
    let hessian_c = companion(ident, "HESSIAN", m);
    let hvp_function = companion(ident, "hvp_function", m);
    let hessian_function = companion(ident, "hessian_function", m);
    let vjp = companion(ident, "vjp", m);
    let (gen_named, _, _) = sig.generics_named.split_for_impl();
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

    let support = match support(sig, custom, copy) {
        Ok(s) => s,
        // (a function of float and float-slice parameters: the runtime's `Defaults{n}` says
        // so, with closures of its own)
        Err(Refused::NotGeneric)
            if crate::companions::entry_kinds(sig).is_some_and(|k| !k.constants) =>
        {
            return (TokenStream::new(), None);
        }
        Err(refused) => {
            let reason = match refused {
                Refused::NotGeneric => not_generic(sig),
                Refused::Because(reason) => reason,
            };
            // refused: the closures' types only, for the call to type-check while the
            // reason is reported
            let refused_hessian = refused_hessian(sig, vis, quote!(Self::#hvp_c));
            let refused_selecting = refused_selecting(sig, vis);
            let vectors: Vec<TokenStream> =
                dtys_named.iter().map(|t| t.to_token_stream()).collect();
            let refused_hvp = refused_closure(sig, vis, &hvp_function, false, &vectors);
            return (
                quote! {
                    #allow
                    #vis const #hvp_c: ::core::option::Option<&'static str> =
                        ::core::option::Option::Some(#reason);
                    #refused_hvp
                    #refused_hessian
                    #refused_selecting
                },
                None,
            );
        }
    };

    let Support {
        t,
        kinds,
        copy,
        constants,
    } = support;
    let name = ident.to_string();
    let n = sig.params.len();
    let ovars: Vec<syn::Ident> = (0..n)
        .map(|i| format_ident!("__o{}", i, span = Span::mixed_site()))
        .collect();
    let checks = diff
        .iter()
        // (a derived struct's fields are checked by its `HvpArg`, naming the field)
        .filter(|&&i| {
            kinds[i] != Some(Kind::Scalar)
                && !is_struct_of(behind_references(&sig.params[i].ty), &t)
        })
        .map(|&i| {
            let (v, o, p) = (&vars[i], &ovars[i], &sig.params[i].name);
            quote! {
                if let ::core::option::Option::Some(__h) = &#o {
                    #rt::forward::check_shape(&#v, __h, #name, #p);
                }
            }
        });
    let duals: Vec<syn::Ident> = (0..n)
        .map(|i| format_ident!("__d{}", i, span = Span::mixed_site()))
        .collect();
    let fused = copy.as_ref().map_or(fused, |(_, f, _)| *f);
    // the split sweep (`fuse::split`, of a fused loop): the function's own, emitted here, or
    // its copy's; each parameter it takes apart a slice of the float type
    let positions: Option<&[usize]> = match &copy {
        Some((_, _, p)) => p.as_deref(),
        None => split
            .filter(|s| s.float == t)
            .map(|s| s.positions.as_slice()),
    }
    .filter(|p| p.iter().all(|&i| kinds[i] == Some(Kind::Borrowed)));
    let split = split.filter(|_| copy.is_none() && positions.is_some());
    let split_at = |i: usize| positions.is_some_and(|p| p.contains(&i));
    let tvars: Vec<syn::Ident> = (0..n).map(|i| crate::emit::tangent_var(VarId(i))).collect();
    let make_duals = (0..n).filter_map(|i| {
        let (v, o, d) = (&vars[i], &ovars[i], &duals[i]);
        if split_at(i) {
            let tv = &tvars[i];
            Some(quote!(let #tv = #rt::dual::split::vector(#o, #v.len());))
        } else if kinds[i].is_some() {
            let m = (kinds[i] == Some(Kind::BorrowedMut)).then(|| quote!(mut));
            Some(quote!(let #m #d = #rt::dual::HvpArg::duals(&#v, #o.as_ref());))
        } else {
            // a constant made of `f64`, which the generic copy takes as dual numbers
            constants[i].map(
                |_| quote!(let #d = #rt::dual::HvpArg::duals(&#v, ::core::option::Option::None);),
            )
        }
    });
    let args = (0..n).map(|i| match kinds[i].or(constants[i]) {
        _ if split_at(i) => {
            let (v, tv) = (&vars[i], &tvars[i]);
            quote!(#v, &#tv)
        }
        None => vars[i].to_token_stream(),
        Some(Kind::Borrowed) => {
            let d = &duals[i];
            quote!(&#d)
        }
        Some(Kind::BorrowedMut) => {
            let d = &duals[i];
            quote!(&mut #d)
        }
        Some(_) => duals[i].to_token_stream(),
    });
    // the gradient run on dual numbers: the function's own, or its generic copy's
    let (owner, dual_args): (TokenStream, Vec<TokenStream>) = match &copy {
        Some((c, _, _)) => (quote!(#c::), vec![quote!(#rt::dual::Dual<#t>)]),
        None => (
            quote!(Self::),
            sig.generics
                .params
                .iter()
                .filter_map(|p| match p {
                    syn::GenericParam::Type(_) => Some(quote!(#rt::dual::Dual<#t>)),
                    syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
                    syn::GenericParam::Lifetime(_) => None,
                })
                .collect(),
        ),
    };
    let gs: Vec<syn::Ident> = (0..n)
        .map(|i| format_ident!("__g{}", i, span = Span::mixed_site()))
        .collect();
    let out_of = |i: usize| out_type(&sig.params[i].ty_named, &t);
    let some = quote!(::core::option::Option::Some);
    let none = quote!(::core::option::Option::None);
    // one `Option` per parameter (`NoTangent` for a constant), what a selection picks from
    let optional = |ty: Option<TokenStream>| match ty {
        Some(ty) => quote!(::core::option::Option<#ty>),
        None => quote!(::core::option::Option<#rt::NoTangent>),
    };
    let outs_ty = {
        let each = (0..n).map(|i| optional(kinds[i].map(|_| out_of(i))));
        quote!((#(#each,)*))
    };
    let outs: Vec<TokenStream> = diff.iter().map(|&i| out_of(i)).collect();
    let parts = (0..n).map(|i| match kinds[i] {
        // (the split sweep's gradient is the product)
        Some(_) if split_at(i) => {
            let g = &gs[i];
            quote!(#some(#g))
        }
        Some(_) => {
            let (g, ty) = (&gs[i], &sig.params[i].ty_named);
            quote!(#some(<#ty as #rt::dual::HvpArg>::product(#g)))
        }
        None => none.clone(),
    });
    let taken: Vec<TokenStream> = diff
        .iter()
        .map(|&i| {
            let i = syn::Index::from(i);
            quote!(::core::option::Option::unwrap(__r.#i))
        })
        .collect();
    let (out_ty, result) = if diff.len() == 1 {
        (outs[0].clone(), taken[0].clone())
    } else {
        (quote!((#(#outs,)*)), quote!((#(#taken,)*)))
    };
    let args: Vec<TokenStream> = args.collect();
    // the dual arguments lent to the sweep, given back for the next product
    let recycled: Vec<TokenStream> = (0..n)
        .filter(|&i| {
            !split_at(i)
                && matches!(
                    kinds[i].or(constants[i]),
                    Some(Kind::Borrowed | Kind::BorrowedMut)
                )
        })
        .map(|i| {
            let d = &duals[i];
            let ty = &sig.params[i].ty_named;
            quote!(<#ty as #rt::dual::HvpArg>::recycle(#d);)
        })
        .collect();
    let seeded_split = companion(ident, "seeded_split", m);
    let sweep = if positions.is_some() {
        quote! {
            let (_, (#(#gs,)*)) =
                #owner #seeded_split::<#(#dual_args),*>(#(#args,)* #rt::dual::seed());
        }
    } else if fused {
        let seeded = companion(ident, "seeded", m);
        quote! {
            let (_, (#(#gs,)*)) = #owner #seeded::<#(#dual_args),*>(#(#args,)* #rt::dual::seed());
        }
    } else {
        quote! {
            let (_, __pullback) = #owner #vjp::<#(#dual_args),*>(#(#args),*);
            let (#(#gs,)*) = __pullback(#rt::dual::seed());
        }
    };
    let turbofish = crate::companions::type_and_const_args(&sig.generics);
    let opaque = opaque_bounds(sig, &t, &kinds, &constants);
    let where_hvp = dual_where(sig, &t, &opaque);
    let slots_ty = slots_type(sig);
    let hvp_opts = companion(ident, "hvp_opts", m);
    let o = format_ident!("__o", span = Span::mixed_site());
    // `hvp!(f)`: every differentiable parameter's vector
    let all_slots = (0..n).map(|i| match kinds[i] {
        Some(_) => {
            let h = &hvars[i];
            quote!(#some(#h))
        }
        None => none.clone(),
    });

    // the split sweep itself: `__seeded`'s signature, each split parameter an argument and
    // its vector of the dual number's parts, its gradient their tangents
    let split_item = split.map(|s| {
        let part = quote!(<#t as #rt::dual::split::Joined>::Part);
        let (decls, bind_receiver) = crate::companions::receiver_decls(sig, &vars, &tys_named);
        let decls = decls.into_iter().enumerate().map(|(i, d)| {
            if split_at(i) {
                let (v, tv) = (&vars[i], &tvars[i]);
                quote!(#v: &[#part], #tv: &[#part])
            } else {
                d
            }
        });
        let all = sig.param_tangents();
        let tangents = (0..n).map(|i| {
            if split_at(i) {
                quote!(::std::vec::Vec<#part>)
            } else {
                all[i].clone()
            }
        });
        let output = &sig.output;
        let out_tangent = crate::signature::tangent_type(output);
        let dy = format_ident!("__dy", span = Span::mixed_site());
        let where_split = where_with(sig, [quote!(#t: #rt::dual::split::Joined)]);
        let body = &s.body;
        quote! {
            #[inline]
            #allow
            #vis fn #seeded_split #gen_named (#(#decls,)* #dy: #out_tangent)
                -> (#output, (#(#tangents,)*))
                #where_split
            {
                #bind_receiver
                #body
            }
        }
    });

    let mut items = quote! {
        #split_item

        #allow
        #vis const #hvp_c: ::core::option::Option<&'static str> = ::core::option::Option::None;

        // the vectors `hvp!` was given in their slots (zero for the others), each checked
        // against its parameter's shape; the products of every differentiable parameter
        #[inline]
        #[track_caller]
        #allow
        #vis fn #hvp_opts #gen_named (
            #(#vars: #tys_named,)*
            #o: <#slots_ty as #rt::forward::Slots>::Opts,
        ) -> #outs_ty
            #where_hvp
        {
            let (#(#ovars,)*) = #o;
            #(#checks)*
            #(#make_duals)*
            #sweep
            #(#recycled)*
            (#(#parts,)*)
        }

        #[inline]
        #allow
        #vis fn #hvp_function #gen_named ()
            -> impl ::core::ops::Fn(#(#tys,)* #(#dtys),*) -> #out_ty + #captures
            #where_hvp
        {
            move |#(#vars,)* #(#dh),*| {
                let __r = Self::#hvp_opts #turbofish(#(#vars,)* (#(#all_slots,)*));
                #result
            }
        }
    };

    // `hvp!(f, params = [...])`: one closure per number of selected vectors
    let selecting = crate::companions::selecting(sig, outer, false);
    let (sel_generics, caps) = (&selecting.generics, &selecting.captures);
    let mut sel_preds = selecting.preds.clone();
    sel_preds.extend(dual_bound(sig, &t));
    sel_preds.extend(opaque.iter().cloned());
    let select = quote!(#rt::select::Select);
    for k in 1..=diff.len().min(MAX_SELECTED) {
        let f = companion(ident, &format!("hvp_sel{k}"), m);
        let scatter = format_ident!("Scatter{}", k);
        let assoc = (0..k).map(|j| format_ident!("I{}", j));
        let sel: Vec<syn::Ident> = (0..k)
            .map(|j| format_ident!("__sel{}", j, span = Span::mixed_site()))
            .collect();
        items.extend(quote! {
            #[inline]
            #allow
            #vis fn #f #sel_generics (_selection: __S)
                -> impl ::core::ops::Fn(#(#tys,)* #(__S::#assoc),*)
                    -> <__S as #select<#outs_ty>>::Output + #caps
            where
                __S: #rt::forward::#scatter<#slots_ty> + #select<#outs_ty>,
                #(#sel_preds,)*
            {
                move |#(#vars,)* #(#sel),*| {
                    <__S as #select<#outs_ty>>::select(Self::#hvp_opts #turbofish(
                        #(#vars,)*
                        <__S as #rt::forward::#scatter<#slots_ty>>::scatter(#(#sel),*),
                    ))
                }
            }
        });
    }

    // `hessian!`: the Hessian of a parameter, one column per unit vector
    let e = format_ident!("__e", span = Span::mixed_site());
    let hess_of = |k: Kind| match k {
        Kind::Scalar => quote!(#t),
        _ => quote!(#rt::ndarray::Array2<#t>),
    };
    let hessian_of = |k: usize| {
        let vk = &vars[k];
        // (a `&mut` buffer: a copy of its values for each column, so the closure only reads
        // the buffer, as the Hessian's own walk over it does)
        let cloned = vars.iter().zip(&sig.params).map(|(v, p)| {
            if p.in_out {
                quote!(&mut ::std::vec::Vec::from(&*#v)[..])
            } else {
                quote!(::core::clone::Clone::clone(&#v))
            }
        });
        let e_arg = match kinds[k] {
            Some(Kind::Borrowed) => quote!(&#e),
            Some(Kind::BorrowedMut) => quote!(&mut #e),
            _ => quote!(#e),
        };
        let slots = (0..n).map(|i| {
            if i == k {
                quote!(#some(#e_arg))
            } else {
                none.clone()
            }
        });
        let index = syn::Index::from(k);
        let binding = match kinds[k] {
            Some(Kind::BorrowedMut) => quote!(mut #e),
            _ => quote!(#e),
        };
        quote! {
            #rt::dual::HvpArg::hessian(&#vk, |#binding| {
                ::core::option::Option::unwrap(
                    Self::#hvp_opts #turbofish(#(#cloned,)* (#(#slots,)*)).#index
                )
            })
        }
    };
    let struct_param = |k: usize| is_struct_of(behind_references(&sig.params[k].ty), &t);
    let lone = match diff.as_slice() {
        [k] if struct_param(*k) => Err(format!(
            "`{name}`'s parameter `{}` is a struct: `hessian!` forms the Hessian of a float, \
             slice, `Vec` or array parameter; use `hvp!` for products with vectors of the \
             struct's shape",
            sig.params[*k].name
        )),
        [k] => Ok(*k),
        _ => Err(format!(
            "`{name}` has {} differentiable parameters: `hessian!` needs exactly one, or \
             `params = [\"…\"]` selecting one",
            diff.len()
        )),
    };
    if let Ok(k) = lone {
        let k = &k;
        // (the block of the one differentiable parameter: `__hessian_sel1` selecting it)
        let hess_ty = hess_of(kinds[*k].unwrap());
        let hessian_sel1 = companion(ident, "hessian_sel1", m);
        let others = sig.generics.params.iter().filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        });
        let turbofish_sel = quote!(::<_, #(#others),*>);
        items.extend(quote! {
            #allow
            #vis const #hessian_c: ::core::option::Option<&'static str> =
                ::core::option::Option::None;

            #[inline]
            #allow
            #vis fn #hessian_function #gen_named ()
                -> impl ::core::ops::Fn(#(#tys),*) -> #hess_ty + #captures
                #where_hvp
            {
                Self::#hessian_sel1 #turbofish_sel(#rt::select::Sel1::<#k>)
            }
        });
    } else if let Err(reason) = lone {
        let reason = quote!(::core::option::Option::Some(#reason));
        items.extend(refused_hessian(sig, vis, reason));
    }
    // `hessian!(f, params = ["x"])`: the block of the selected parameter
    let hess_outs_ty = {
        let each = kinds.iter().map(|k| optional(k.map(hess_of)));
        quote!((#(#each,)*))
    };
    let arms = diff.iter().map(|&k| {
        let index = syn::Index::from(k);
        let hessian = hessian_of(k);
        quote!(#k => __outs.#index = #some(#hessian),)
    });
    let hessian_sel1 = companion(ident, "hessian_sel1", m);
    items.extend(quote! {
        #[inline]
        #allow
        #vis fn #hessian_sel1 #sel_generics (_selection: __S)
            -> impl ::core::ops::Fn(#(#tys),*) -> <__S as #select<#hess_outs_ty>>::Output + #caps
        where
            __S: #select<#hess_outs_ty> + #rt::select::Single,
            #(#sel_preds,)*
        {
            move |#(#vars),*| {
                let mut __outs: #hess_outs_ty = ::core::default::Default::default();
                match <__S as #rt::select::Single>::INDEX {
                    #(#arms)*
                    _ => {}
                }
                <__S as #select<#hess_outs_ty>>::select(__outs)
            }
        }
    });
    let used = split.map(|s| s.positions.clone());
    (items, used)
}

/// `hvp!(f)`, `hessian!(f)` and their forms with `params = [...]`.
pub fn helper(input: HelperInput, hessian: bool) -> syn::Result<TokenStream> {
    let rt = rt();
    let what = if hessian { "hessian!" } else { "hvp!" };
    let span = input
        .func
        .path
        .segments
        .last()
        .map_or(Span::call_site(), |s| s.ident.span());
    // (with a selection, `hessian!` needs of the function what `hvp!` does)
    let reason = if hessian && input.params.is_none() {
        "HESSIAN"
    } else {
        "HVP"
    };
    let reason = companion_path(&input.func, reason);
    let name = crate::helpers::called_name(&input.func);
    let entries = crate::helpers::runtime_entries();
    let check = quote::quote_spanned! {span=>
        #entries
        const _: () = #rt::dual::check_supported(#reason, #name);
    };
    let Some((params_span, refs)) = input.params else {
        let target = companion_path(
            &input.func,
            if hessian {
                "hessian_function"
            } else {
                "hvp_function"
            },
        );
        return Ok(quote!({ #check #target() }));
    };
    if refs.is_empty() {
        return Err(syn::Error::new(params_span, crate::diag::PARAMS_EMPTY));
    }
    if refs.len() > MAX_SELECTED {
        return Err(syn::Error::new(params_span, crate::diag::PARAMS_TOO_MANY));
    }
    if hessian && refs.len() != 1 {
        return Err(syn::Error::new(
            params_span,
            format!(
                "`{what}` needs exactly one selected parameter: the Hessian of one parameter \
                 (a float, slice or `Vec`); for products with several, use \
                 `hvp!(f, params = [...])`"
            ),
        ));
    }
    let (consts, keys) = crate::helpers::selection_consts(&input.func, &refs)?;
    let (target, sel) = if hessian {
        ("hessian_sel1".to_string(), format_ident!("Sel1"))
    } else {
        (
            format!("hvp_sel{}", keys.len()),
            format_ident!("Sel{}", keys.len()),
        )
    };
    let target = companion_path(&input.func, &target);
    Ok(quote! {{
        #check
        #consts
        #target(#rt::select::#sel::<#(#keys),*>)
    }})
}
