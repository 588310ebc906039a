//! Companions: the items generated beside a differentiable function, which the helpers
//! (`gradients_function!`, `vjp!`, …) and differentiable callers reach by name — their
//! names, the path to the runtime, and the one lint allow-list of all generated code.

use crate::signature::{tangent_type, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;

/// The runtime, as generated code names it: the facade's hidden re-export, never a path
/// the user must import. Its tokens are made where it is interpolated (`#rt`), not where
/// it is named: most statements an emitter writes name it in one branch of several.
pub fn rt() -> Rt {
    Rt
}

/// The path `::autodiff::__private`, written where interpolated (see [`rt`]).
#[derive(Clone, Copy)]
pub struct Rt;

impl ToTokens for Rt {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::autodiff::__private));
    }
}

/// The lints generated items allow, each for a reason:
///
/// * `unused` (`dead_code`, `unused_mut`, `unused_variables`, `unused_parens`,
///   `unused_assignments`, …): a companion no helper or caller uses (most functions use one
///   or two); the sweeps are generated uniformly (every cell is `mut`, every operand
///   parenthesised, a saved value may go unread on some path);
/// * `nonstandard_style`: companions are named after the function
///   (`__autodiff_Model_forward_vjp`, the struct `loss {}` that carries a free function's
///   companions, its `__SIGNATURE`);
/// * `clippy::all`, `clippy::pedantic`: generated code follows the IR, not style.
pub fn lint_allows() -> TokenStream {
    quote!(#[allow(unused, nonstandard_style, clippy::all, clippy::pedantic)])
}

/// The attributes of each generated companion: a method's (siblings in its `impl`, which
/// the companion struct's own attributes do not cover) are hidden from the documentation
/// and allow [`lint_allows`]; a free function's need none (its struct carries both).
pub fn lint_allows_if(method: bool) -> TokenStream {
    if method {
        let allows = lint_allows();
        quote!(#[doc(hidden)] #allows)
    } else {
        TokenStream::new()
    }
}

/// The name of a generated companion item. A free function `f` gets a struct `f` (in the
/// type namespace, beside the function in the value namespace, so `use m::f;` imports
/// both) whose associated items are `__<what>`; a method `m` gets sibling associated items
/// `__autodiff_<m>_<what>` in its `impl`.
pub fn companion(ident: &syn::Ident, what: &str, is_method: bool) -> syn::Ident {
    if is_method {
        format_ident!("__autodiff_{}_{}", ident, what, span = ident.span())
    } else {
        format_ident!("__{}", what, span = ident.span())
    }
}

/// The path of a companion item of the function `func` names. A path whose owner is a
/// type (`Type::method`, `Self::method`: an uppercase or `Self` segment, or a qualified
/// self) names a method: `Type::__autodiff_method_<what>`. Any other path (`f`, `module::f`)
/// names a free function: `module::f::__<what>`, the turbofish moved along.
pub fn companion_path(func: &syn::ExprPath, what: &str) -> syn::ExprPath {
    let mut path = func.clone();
    // `<Type as Trait>::method`: the companions of a trait impl's methods are inherent
    // items of `Type` (a trait cannot gain items), so `<Type>::__autodiff_method_<what>`.
    if let Some(q) = &mut path.qself {
        if q.position > 0 {
            let keep: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> = path
                .path
                .segments
                .iter()
                .skip(q.position)
                .cloned()
                .collect();
            path.path.segments = keep;
            path.path.leading_colon = Some(Default::default());
            q.position = 0;
            q.as_token = None;
        }
    }
    let segments = &path.path.segments;
    let is_method = path.qself.is_some()
        || (segments.len() >= 2 && {
            let owner = segments[segments.len() - 2].ident.to_string();
            owner == "Self" || owner.starts_with(|c: char| c.is_ascii_uppercase())
        });
    if is_method {
        if let Some(last) = path.path.segments.last_mut() {
            last.ident = companion(&last.ident, what, true);
            last.arguments = companion_arguments(std::mem::take(&mut last.arguments), what);
        }
        return path;
    }
    let Some(last) = path.path.segments.last_mut() else {
        return path;
    };
    let arguments = std::mem::replace(&mut last.arguments, syn::PathArguments::None);
    let arguments = companion_arguments(arguments, what);
    let ident = companion(&last.ident, what, false);
    path.path
        .segments
        .push(syn::PathSegment { ident, arguments });
    path
}

/// The first segment of the path a call in method form is carried as in the IR:
/// `recv.method(args)` whose receiver's type is not known (`dist.cdf(x)`) is
/// `__autodiff_method_form::method(recv, args)`, and [`call`] writes it back as a method
/// call (the companions of a method take its receiver as `self`).
const METHOD_FORM: &str = "__autodiff_method_form";

/// The IR's callee for `recv.method::<A>(…)` in method form (see [`call`]).
pub fn method_form(
    method: &syn::Ident,
    turbofish: Option<&syn::AngleBracketedGenericArguments>,
) -> syn::ExprPath {
    let marker = syn::Ident::new(METHOD_FORM, Span::mixed_site());
    match turbofish {
        Some(t) => syn::parse_quote_spanned!(method.span()=> #marker::#method::#t),
        None => syn::parse_quote_spanned!(method.span()=> #marker::#method),
    }
}

/// A call of `func` (`what` = `None`) or of its companion `what`, with the operands `args`
/// (a receiver first): `path(args…)`, or `(recv).method(rest…)` for a call in method form.
/// `use<…>` of a companion returning `impl Trait`: the function's own captures, with the
/// generics of an annotated `impl` it lives in (`outer`) first, lifetimes before types.
pub fn precise_captures(sig: &Signature, outer: &[TokenStream]) -> TokenStream {
    if outer.is_empty() {
        return sig.precise_captures();
    }
    let own = sig.precise_captures();
    let own: Vec<TokenStream> = match syn::parse2::<syn::PreciseCapture>(own) {
        Ok(c) => c.params.iter().map(ToTokens::to_token_stream).collect(),
        Err(_) => Vec::new(),
    };
    let is_lifetime = |t: &TokenStream| t.to_string().starts_with('\'');
    let (lifetimes, others): (Vec<TokenStream>, Vec<TokenStream>) =
        outer.iter().chain(&own).cloned().partition(is_lifetime);
    quote!(use<#(#lifetimes,)* #(#others),*>)
}

/// The generics of a companion that takes a selection `__S` and returns a closure
/// (`jvp!`'s and `hvp!`'s with `params = [...]`).
pub struct Selecting {
    /// `<lifetimes, __S, type and const parameters>` (then `__R` for a refused helper's
    /// result, inferred where it is used).
    pub generics: TokenStream,
    /// The closure's `use<…>`: the lifetimes, `__S`, the others (those of an annotated
    /// `impl` the companions live in first).
    pub captures: TokenStream,
    /// The `where` predicates: every type parameter outlives the named lifetimes (the
    /// tangents' types name them), then the function's own.
    pub preds: Vec<TokenStream>,
}

/// See [`Selecting`]; `result`: add `__R`.
pub fn selecting(sig: &Signature, outer: &[TokenStream], result: bool) -> Selecting {
    let g = &sig.generics_named;
    let r = if result { quote!(__R,) } else { quote!() };
    let is_lifetime = |t: &TokenStream| t.to_string().starts_with('\'');
    let (outer_lifetimes, outer_others): (Vec<TokenStream>, Vec<TokenStream>) =
        outer.iter().cloned().partition(is_lifetime);
    let lifetimes: Vec<&syn::Lifetime> = g.lifetimes().map(|l| &l.lifetime).collect();
    let others: Vec<TokenStream> = g
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let captures =
        quote!(use<#(#outer_lifetimes,)* #(#lifetimes,)* #(#outer_others,)* __S, #(#others,)* #r>);
    let generics = {
        let lifetimes = g.lifetimes();
        let others = g
            .params
            .iter()
            .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
        quote!(<#(#lifetimes,)* __S, #(#others,)* #r>)
    };
    let mut preds: Vec<TokenStream> = g
        .type_params()
        .flat_map(|t| {
            g.lifetimes().map(move |l| {
                let (t, l) = (&t.ident, &l.lifetime);
                quote!(#t: #l)
            })
        })
        .collect();
    if let Some(w) = &g.where_clause {
        preds.extend(w.predicates.iter().map(ToTokens::to_token_stream));
    }
    Selecting {
        generics,
        captures,
        preds,
    }
}

/// Whether `func` is the marker path of a method-form call (`dist.pdf(x)`, see
/// [`method_form`]).
/// The parameters of a companion as declared (`__v1: f64`) and the statement that binds its
/// receiver: a method's companions take its receiver as `self` (so `recv.__autodiff_m_vjp_into(…)`
/// and `recv.__autodiff_m_jvp(…)` reach them whatever the receiver's type is written as),
/// bound to the first variable like any parameter.
pub(crate) fn receiver_decls(
    sig: &Signature,
    vars: &[syn::Ident],
    tys: &[&syn::Type],
) -> (Vec<TokenStream>, TokenStream) {
    let receiver = sig.is_method && sig.params.first().is_some_and(|p| p.name == "self");
    let decls = (vars.iter().zip(tys).enumerate())
        .map(|(i, (v, t))| match receiver && i == 0 {
            true => quote!(self: #t),
            false => quote!(#v: #t),
        })
        .collect();
    let bind = match receiver {
        true => {
            let v = &vars[0];
            quote!(let #v = self;)
        }
        false => quote!(),
    };
    (decls, bind)
}

/// The number naming `method` for [`call`]'s gate and the `impl`'s `Annotated` (the
/// runtime computes it from the name, at both ends alike).
pub(crate) fn method_id(method: &syn::Ident) -> TokenStream {
    let name = method.unraw().to_string();
    quote!({ ::autodiff::__private::methods::method_id(#name) })
}

pub fn is_method_form(func: &syn::ExprPath) -> bool {
    let segments = &func.path.segments;
    func.qself.is_none() && segments.len() == 2 && segments[0].ident == METHOD_FORM
}

pub fn call(
    func: &syn::ExprPath,
    what: Option<&str>,
    args: &[TokenStream],
    span: Span,
) -> TokenStream {
    let segments = &func.path.segments;
    if is_method_form(func) {
        let last = &segments[1];
        let method = match what {
            Some(what) => companion(&last.ident, what, true),
            None => last.ident.clone(),
        };
        let turbofish = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => quote!(::#a),
            _ => quote!(),
        };
        let (recv, rest) = args
            .split_first()
            .expect("a method-form call has a receiver");
        if what.is_none() {
            return quote::quote_spanned!(span=> (#recv).#method #turbofish(#(#rest),*));
        }
        // through the gate (`runtime::methods`): a method of an `impl` without the
        // attribute is one error at the call, saying so, however many sweeps call it
        let id = method_id(&last.ident);
        return quote::quote_spanned! {span=> {
            #[allow(unused_imports)]
            use ::autodiff::__private::methods::Gate as _;
            (#recv).__autodiff_gate::<#id>().#method #turbofish(#(#rest),*)
        }};
    }
    match what {
        // (a function whose sweeps are its `runtime::entry` impls: found by the traits)
        Some(what @ ("vjp_into" | "vjp_reborrow" | "jvp" | "seeded")) => {
            let path = companion_path(func, what);
            let fallback = unannotated_fallback(func, what, args.len(), span);
            quote::quote_spanned!(span=> {
                #[allow(unused_imports)]
                use ::autodiff::__private::entry::traits::*;
                #fallback
                #path(#(#args),*)
            })
        }
        Some(what) => {
            let path = companion_path(func, what);
            let fallback = unannotated_fallback(func, what, args.len(), span);
            if fallback.is_empty() {
                quote::quote_spanned!(span=> #path(#(#args),*))
            } else {
                quote::quote_spanned!(span=> { #fallback #path(#(#args),*) })
            }
        }
        None => quote::quote_spanned!(span=> #func(#(#args),*)),
    }
}

/// The owner segment of `Type::function` (an unqualified path whose second-to-last segment
/// is `CamelCase` and not `Self`): the call of an associated function of another type.
pub fn type_owner(func: &syn::ExprPath) -> Option<&syn::PathSegment> {
    let segments = &func.path.segments;
    let owner = segments.iter().rev().nth(1)?;
    let of_a_type = func.qself.is_none()
        && owner.ident != "Self"
        && owner
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase());
    of_a_type.then_some(owner)
}

/// For a call `Type::function(…)` of an associated function (not `Self::…`, not a
/// qualified path): a trait in the call's block that gives every type an item of the
/// companion's name, found only where `Type`'s `impl` has none (inherent items come first),
/// and then requiring the runtime's `methods::Annotated` of the function: an associated
/// function of an `impl` without `#[differentiable]` is an error saying so, at the call,
/// not a missing `__autodiff_*` item. Nothing for other calls.
pub fn unannotated_fallback(
    func: &syn::ExprPath,
    what: &str,
    arity: usize,
    span: Span,
) -> TokenStream {
    if type_owner(func).is_none() {
        return TokenStream::new();
    }
    let Some(last) = func.path.segments.last().map(|s| &s.ident) else {
        return TokenStream::new();
    };
    let name = companion(last, what, true);
    let id = method_id(last);
    let params: Vec<syn::Ident> = (0..arity)
        .map(|i| format_ident!("__A{}", i, span = span))
        .collect();
    let gate = quote::quote_spanned!(span=> ::autodiff::__private::methods::AnnotatedFn<#id>);
    quote::quote_spanned! {span=>
        #[allow(non_camel_case_types, dead_code)]
        trait __autodiff_unannotated {
            fn #name<#(#params),*>(#(_: #params),*) -> <Self as #gate>::Never
            where
                Self: #gate;
        }
        #[allow(dead_code)]
        impl<__T: ?::core::marker::Sized> __autodiff_unannotated for __T {
            fn #name<#(#params),*>(#(_: #params),*) -> <Self as #gate>::Never
            where
                Self: #gate,
            {
                ::core::unreachable!()
            }
        }
    }
}

/// The user's turbofish (`f::<f64>`) as the companion `what` takes it: the selection
/// helpers have the selection's type first (inferred), the constants none.
fn companion_arguments(arguments: syn::PathArguments, what: &str) -> syn::PathArguments {
    let syn::PathArguments::AngleBracketed(mut args) = arguments else {
        return arguments;
    };
    match what {
        "all" | "SIGNATURE" | "FORWARD" | "forward_at" | "HVP" | "HESSIAN" => {
            syn::PathArguments::None
        }
        "JACOBIAN" => syn::PathArguments::None,
        "gradients_function" | "value_and_gradients_function" | "jacobian_function" => {
            args.args.insert(0, syn::parse_quote!(_));
            syn::PathArguments::AngleBracketed(args)
        }
        w if w.starts_with("jvp_sel") || w.starts_with("hvp_sel") || w == "hessian_sel1" => {
            args.args.insert(0, syn::parse_quote!(_));
            syn::PathArguments::AngleBracketed(args)
        }
        _ => syn::PathArguments::AngleBracketed(args),
    }
}

pub fn type_and_const_args(generics: &syn::Generics) -> TokenStream {
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

/// Where the reverse sweep is written: a generated function's lives in `__vjp_into` (its
/// slice parameters' gradients added into its callers' buffers) and `__vjp` allocates
/// those buffers; a custom rule's lives in `__vjp` (the rule returns every gradient) and
/// `__vjp_into` adds them into the buffers it is handed.
///
/// Where the emitter can show a generated function's pullback keeps no borrow of its
/// shared-reference parameters, the reverse sweep lives in `__vjp_reborrow` instead
/// (`Reborrow`), and `__vjp_into` hands it those parameters again; every other function's
/// `__vjp_reborrow` runs the derivative again at reverse time, from the arguments it is
/// handed again.
pub enum Pullback {
    /// `__vjp_into`'s body; `__vjp_reborrow` runs it again at reverse time.
    Generated(TokenStream),
    /// `__vjp_reborrow`'s body, which `__vjp_into` calls, handing the references again.
    Reborrow(TokenStream),
    /// Both bodies: `__vjp_reborrow`'s hands its callees some of the parameters again, where
    /// `__vjp_into`'s pullback keeps those borrows (cheaper than saving what hands them).
    Both {
        into: TokenStream,
        reborrow: TokenStream,
    },
    Custom(TokenStream),
}

/// Where a function's companions go.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A free function's: associated items of a struct named after it.
    Free,
    /// A method's: siblings in its `impl` (or in an inherent `impl` beside it).
    Method,
    /// A trait impl's method's: an inherent `impl` of the type beside the trait impl.
    TraitImpl,
}

/// The most variables a body may have for its sweeps to be inlined into every caller's.
///
/// A pullback not inlined is a closure its caller's pullback holds and moves into the call
/// (a copy of everything it saved), and whose shadows reach it through memory; inlined, the
/// caller's and the callee's sweeps are optimised as one. Bundle adjustment's reprojection
/// error (five helpers deep, each a few dozen variables) ran 1.6× faster with its sweeps
/// inlined. A larger body keeps `#[inline]`, for the optimiser to weigh.
const INLINE_VARIABLES: usize = 400;

/// Whether `body` is small enough for its sweeps to be inlined into every caller's.
pub fn small_enough_to_inline(body: &crate::ir::Body) -> bool {
    body.vars.len() <= INLINE_VARIABLES
}

/// The inlining attributes of a sweep's function: `#[inline(always)]` in optimised builds
/// for a small body (debug builds keep `#[inline]`: they are not optimised, and inlining
/// would only cost them compile time), `#[inline]` otherwise. (`#[inline]` in every build:
/// a function with it is compiled only where it is called, so a sweep no caller reaches
/// costs no code generation.)
pub fn sweep_inline(sig: &Signature) -> TokenStream {
    if sig.inline_sweeps {
        quote! {
            #[cfg_attr(not(debug_assertions), inline(always))]
            #[cfg_attr(debug_assertions, inline)]
        }
    } else {
        quote!(#[inline])
    }
}

/// The inlining attribute of a small body's pullback closure (see [`sweep_inline`]).
pub fn pullback_inline(sig: &Signature) -> TokenStream {
    if sig.inline_sweeps {
        quote!(#[cfg_attr(not(debug_assertions), inline(always))])
    } else {
        quote!()
    }
}

/// The companions of the function `sig` describes. `outer` names the generics of the
/// `impl` holding them (which their opaque pullback types capture too).
pub fn companions(
    sig: &Signature,
    place: Place,
    outer: &[TokenStream],
    vis: &syn::Visibility,
    pullback: Pullback,
    seeded_fn_body: Option<TokenStream>,
    (forward_items, forward_impl): (TokenStream, TokenStream),
) -> TokenStream {
    let rt = rt();
    let inline = sweep_inline(sig);
    let pullback_inline = pullback_inline(sig);
    // A free function's companions are associated items of its struct: the allow-list on
    // the struct and its `impl` covers them. A method's are siblings in the user's `impl`.
    let all_lints = lint_allows();
    let allow = lint_allows_if(sig.is_method);
    let ident = &sig.ident;
    let name = ident.to_string();
    let m = sig.is_method;
    let vjp = companion(ident, "vjp", m);
    let vjp_into = companion(ident, "vjp_into", m);
    let vjp_reborrow = companion(ident, "vjp_reborrow", m);
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
    let (decls, bind_receiver) = receiver_decls(sig, &vars, &tys_named);
    let tys: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty).collect();
    let output = &sig.output;
    let out_tangent = tangent_type(output);
    let tangents = sig.param_tangents();
    let selected = sig.selected_tangents();
    let captures = precise_captures(sig, outer);
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
    // A free function of float and float-slice parameters (and constants): the runtime's
    // entry points (`runtime::entry`), compiled only where a helper is used, and its reverse
    // sweep its `Reverse{n}` impl's `__vjp_into` (a hand-written rule's: its own).
    let any_kinds = entry_kinds(sig);
    let generated = !matches!(pullback, Pullback::Custom(_));
    let in_trait = any_kinds.is_some() && generated;
    let into_path = if in_trait {
        let reverse = format_ident!("Reverse{}", sig.params.len());
        quote!(<Self as #rt::entry::#reverse>::#vjp_into)
    } else {
        quote!(#owner #vjp_into #turbofish)
    };
    let primal_owner = if sig.is_method {
        quote!(Self::)
    } else {
        quote!()
    };
    // The primal counts as used wherever its derivative is (a trait's method is never
    // unused, and `Self::m` would not name it from the companions' inherent `impl`).
    let mention_primal = if place == Place::TraitImpl {
        quote!()
    } else {
        quote!(let _ = #primal_owner #ident #turbofish;)
    };

    let (gen_named, _, where_named) = sig.generics_named.split_for_impl();
    let generics_s = generics_with(quote!(__S), &sig.generics);
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

    let labels = sig.params.iter().map(|p| &p.label);
    let constants = (0..sig.params.len())
        .filter(|i| !sig.params[*i].differentiable)
        .map(proc_macro2::Literal::usize_unsuffixed);
    let (all_selection, all_value) = if positions.is_empty() || positions.len() > 8 {
        (
            quote!(#rt::select::NoSelection),
            quote!(#rt::select::NoSelection),
        )
    } else {
        let sel = format_ident!("Sel{}", positions.len());
        let positions = positions
            .iter()
            .map(|p| proc_macro2::Literal::usize_unsuffixed(*p));
        (
            quote!(#rt::select::#sel<#(#positions),*>),
            quote!(#rt::select::#sel),
        )
    };

    // The two pullbacks, one written in terms of the other.
    let sinks = crate::emit::sink_types(sig);
    let shadowed: Vec<bool> = sig.params.iter().map(|p| p.shadow.is_some()).collect();
    let into_tangents: Vec<TokenStream> = tangents
        .iter()
        .zip(&shadowed)
        .map(|(t, s)| {
            if *s {
                quote!(#rt::NoTangent)
            } else {
                t.clone()
            }
        })
        .collect();
    let buffers: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__b{}", i, span = Span::mixed_site()))
        .collect();
    let (again, dropped) = crate::emit::rehanding(
        sig,
        matches!(pullback, Pullback::Reborrow(_) | Pullback::Both { .. }),
    );
    let again_types = crate::emit::again_types(&again);
    let reborrow_captures = {
        let all = precise_captures(sig, outer);
        match syn::parse2::<syn::PreciseCapture>(all.clone()) {
            Ok(c) => {
                // (nor the lifetime they all outlive, which would hold them as long)
                let kept = c.params.iter().filter(|p| match p {
                    syn::CapturedParam::Lifetime(l) => {
                        !dropped.contains(l)
                            && (dropped.is_empty() || l.ident != crate::signature::SHARED_LIFETIME)
                    }
                    _ => true,
                });
                quote!(use<#(#kept),*>)
            }
            Err(_) => all,
        }
    };
    let mut reborrow_fn_body = None;
    let pullback = match pullback {
        Pullback::Reborrow(body) => {
            // `__vjp_into`: the pullback of `__vjp_reborrow`, handed the references again
            reborrow_fn_body = Some(body);
            let sink_names: Vec<syn::Ident> = (0..sig.params.len())
                .map(|i| format_ident!("__s{}", i, span = Span::mixed_site()))
                .collect();
            let agains = again.iter().zip(&vars).map(|(a, v)| match a {
                crate::emit::Again::Ref(_) => quote!(#rt::again::Ref(#v)),
                _ => quote!(#rt::again::Skip),
            });
            Ok(quote! {
                let (__value, __pullback) = #owner #vjp_reborrow #turbofish(#(#vars),*);
                (__value, #[inline(always)] move |__dy: #out_tangent, #(#sink_names: #sinks),*| {
                    __pullback(__dy, #(#sink_names,)* #(#agains),*)
                })
            })
        }
        Pullback::Both { into, reborrow } => {
            reborrow_fn_body = Some(reborrow);
            Ok(into)
        }
        Pullback::Generated(body) => Ok(body),
        Pullback::Custom(body) => Err(body),
    };
    // (`Ok`: a generated reverse sweep in `__vjp_into`; `Err`: a custom rule's)
    let (vjp_fn_body, vjp_into_fn_body, direct) = match pullback {
        Ok(body) => {
            // the outermost caller: each slice parameter's adjoint allocated once
            let allocate = vars
                .iter()
                .zip(&buffers)
                .zip(&shadowed)
                .filter(|(_, s)| **s)
                .map(|((v, b), _)| quote!(let mut #b = #rt::adjoint_zero(&#v);));
            let sink_args = buffers.iter().zip(&shadowed).map(|(b, s)| {
                if *s {
                    quote!(#rt::shadow::sink(&mut #b))
                } else {
                    quote!(#rt::shadow::no_sink())
                }
            });
            let results = gnames
                .iter()
                .zip(&buffers)
                .zip(&shadowed)
                .map(|((g, b), s)| if *s { quote!(#b) } else { quote!(#g) })
                .collect::<Vec<_>>();
            // `value_and_gradients_function!`: the same, with the pullback called at once
            // (no closure around it to move the callee's pullback into), and buffers only
            // for the selected parameters (the others' sinks take nothing); a `&mut` one
            // always has its buffer, which carries adjoints between the other parameters
            let picks = |i: usize| {
                if sig.params[i].in_out {
                    quote!(true)
                } else {
                    quote!(<__S as #rt::select::Select<#options>>::picks(#i))
                }
            };
            let allocate_picked = (0..vars.len()).filter(|i| shadowed[*i]).map(|i| {
                let (v, b, p) = (&vars[i], &buffers[i], picks(i));
                quote! {
                    let mut #b = if #p {
                        #rt::adjoint_zero(&#v)
                    } else {
                        ::core::default::Default::default()
                    };
                }
            });
            let sink_picked = (0..vars.len()).map(|i| {
                let (b, p) = (&buffers[i], picks(i));
                if shadowed[i] {
                    quote!(if #p { #rt::shadow::sink(&mut #b) } else { #rt::shadow::no_sink() })
                } else {
                    quote!(#rt::shadow::no_sink())
                }
            });
            // (a shadowed parameter's gradient is its buffer)
            let buffers_as_gradients = shadowed
                .iter()
                .any(|s| *s)
                .then(|| quote!(let (#(#gnames,)*) = (#(#results,)*);));
            let direct = quote! {
                #(#allocate_picked)*
                let (__value, __pullback) = #into_path(#(#vars),*);
                let (#(#gnames,)*) = __pullback(
                    <__S as #rt::select::ScalarOutputFor<#output>>::seed(),
                    #(#sink_picked),*
                );
                #buffers_as_gradients
            };
            let wrapper = quote! {
                #(#allocate)*
                let (__value, __pullback) = #into_path(#(#vars),*);
                (__value, move |__dy: #out_tangent| {
                    let (#(#gnames,)*) = __pullback(__dy, #(#sink_args),*);
                    (#(#results,)*)
                })
            };
            (wrapper, body, Some(direct))
        }
        Err(body) => {
            let params = buffers
                .iter()
                .zip(&sinks)
                .zip(&shadowed)
                .map(|((b, t), s)| {
                    if *s {
                        quote!(mut #b: #t)
                    } else {
                        quote!(_: #t)
                    }
                });
            let adds = gnames
                .iter()
                .zip(&buffers)
                .zip(&shadowed)
                .filter(|(_, s)| **s)
                .map(|((g, b), _)| quote!(#rt::Accumulate::accumulate(&mut #b, #g);));
            let results = gnames.iter().zip(&shadowed).map(|(g, s)| {
                if *s {
                    quote!(#rt::NoTangent)
                } else {
                    quote!(#g)
                }
            });
            let adapter = quote! {
                let (__value, __pullback) = #owner #vjp #turbofish(#(#vars),*);
                (__value, move |__dy: #out_tangent, #(#params),*| {
                    let (#(#gnames,)*) = __pullback(__dy);
                    #(#adds)*
                    (#(#results,)*)
                })
            };
            (body, adapter, None)
        }
    };

    // `__vjp_reborrow` where the emitter could not write one that keeps no borrow: the
    // value now, the derivative's forward sweep again at reverse time from the arguments
    // handed again (a buffer the function writes, from a copy of its initial value). A
    // function without shared references has nothing to hand again: its `__vjp_into`
    // pullback serves; so it does for one with another exclusive reference (which keeps
    // its borrows).
    // (a function of values only whose sweeps are its `runtime::entry` impls: the default
    // `__vjp_reborrow` of `Entries{n}`, which is this)
    let by_value = sig
        .params
        .iter()
        .all(|p| !matches!(p.ty, syn::Type::Reference(_)));
    let default_reborrow = in_trait && by_value && reborrow_fn_body.is_none();
    let reborrow_fn_body = reborrow_fn_body.unwrap_or_else(|| {
        let in_out = |i: usize| sig.params[i].in_out;
        let rerun = again
            .iter()
            .enumerate()
            .all(|(i, a)| !matches!(a, crate::emit::Again::Skip) || in_out(i));
        let sink_names: Vec<syn::Ident> = (0..sig.params.len())
            .map(|i| format_ident!("__s{}", i, span = Span::mixed_site()))
            .collect();
        let refs = (again.iter())
            .any(|a| matches!(a, crate::emit::Again::Ref(_) | crate::emit::Again::View(_)));
        if !rerun || !refs {
            return quote! {
                let (__value, __pullback) = #into_path(#(#vars),*);
                (__value, #[inline(always)] move |__dy: #out_tangent, #(#sink_names: #sinks,)* #(_: #again_types),*| {
                    __pullback(__dy, #(#sink_names),*)
                })
            };
        }
        let initial: Vec<syn::Ident> = (0..sig.params.len())
            .map(|i| format_ident!("__i{}", i, span = Span::mixed_site()))
            .collect();
        let copies = (0..sig.params.len()).filter(|i| in_out(*i)).map(|i| {
            let (c, v) = (&initial[i], &vars[i]);
            quote!(let mut #c = ::std::borrow::ToOwned::to_owned(&*#v);)
        });
        let patterns = again.iter().enumerate().map(|(i, a)| {
            let v = &vars[i];
            match a {
                crate::emit::Again::Ref(_) => quote!(#rt::again::Ref(#v)),
                crate::emit::Again::Val(_) | crate::emit::Again::View(_) => {
                    quote!(#rt::again::Val(#v))
                }
                crate::emit::Again::Skip => quote!(_),
            }
        });
        let rerun_args = (0..sig.params.len()).map(|i| {
            if in_out(i) {
                let c = &initial[i];
                quote!(&mut #c)
            } else {
                let v = &vars[i];
                quote!(#v)
            }
        });
        let value = if place == Place::TraitImpl {
            quote!(#into_path(#(#vars),*).0)
        } else {
            quote!(#primal_owner #ident #turbofish(#(#vars),*))
        };
        quote! {
            #(#copies)*
            let __value = #value;
            (__value, #pullback_inline move |__dy: #out_tangent, #(#sink_names: #sinks,)* #(#patterns: #again_types),*| {
                let (_, __pullback) = #into_path(#(#rerun_args),*);
                __pullback(__dy, #(#sink_names),*)
            })
        }
    });

    // `accumulate_gradients!`: the gradients added into buffers the caller owns. A slice
    // parameter's buffer is the sink itself (nothing allocated, the callees add in place);
    // an in-out (`&mut`) slice's starts from zero in a buffer of its own (its shadow
    // carries the adjoint of the final value in, and the reverse sweep passes its
    // contributions on through it, so it is needed even when not selected), added to the
    // caller's after; any other
    // parameter's gradient comes back as a value and is added.
    let accumulate = companion(ident, "accumulate_gradients", m);
    let buffer_types: Vec<TokenStream> = sig
        .params
        .iter()
        .zip(&tangents)
        .map(|(p, t)| match &p.shadow {
            // (`x: &mut f64`: its gradient is a float)
            Some(elem) if p.scalar_out() => quote!(#elem),
            Some(elem) => quote!([#elem]),
            None => t.clone(),
        })
        .collect();
    let buffer_options = quote!((#(::core::option::Option<&'__autodiff_g mut #buffer_types>,)*));
    let buffer_options_here = quote!((#(::core::option::Option<&mut #buffer_types>,)*));
    let starts: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__t{}", i, span = Span::mixed_site()))
        .collect();
    let in_out_starts = sig
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.in_out)
        .map(|(i, _)| {
            let (t, v) = (&starts[i], &vars[i]);
            quote!(let mut #t = #rt::adjoint_zero(&*#v);)
        });
    let buffer_sinks = sig.params.iter().enumerate().map(|(i, p)| {
        let (t, b) = (&starts[i], &buffers[i]);
        if p.in_out {
            quote!(#rt::shadow::sink(&mut #t))
        } else if p.shadow.is_some() {
            let (v, label) = (&vars[i], &p.label);
            quote!(match #b {
                ::core::option::Option::Some(b) => {
                    #rt::shadow::caller_buffer(#name, #label, &*#v, b)
                }
                ::core::option::Option::None => #rt::shadow::no_sink(),
            })
        } else {
            quote!(#rt::shadow::no_sink())
        }
    });
    let sink_names: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__k{}", i, span = Span::mixed_site()))
        .collect();
    let buffer_adds = sig
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.differentiable)
        .map(|(i, p)| {
            let (t, b, g, label) = (&starts[i], &buffers[i], &gnames[i], &p.label);
            if p.scalar_out() {
                quote! {
                    if let ::core::option::Option::Some(b) = #b {
                        #rt::Accumulate::accumulate(b, #t);
                    }
                }
            } else if p.in_out {
                quote! {
                    if let ::core::option::Option::Some(b) = #b {
                        let mut b: #rt::shadow::SliceShadow<'_, _> =
                            #rt::shadow::caller_buffer(#name, #label, &#t, b);
                        #rt::Accumulate::accumulate(&mut b, #t);
                    }
                }
            } else if p.shadow.is_some() {
                quote!(let _ = #g;)
            } else {
                quote! {
                    if let ::core::option::Option::Some(b) = #b {
                        #rt::Accumulate::accumulate(b, #g);
                    }
                }
            }
        });

    // With the cotangent known up front, a reduction loop runs its reverse inside the
    // forward loop (see `fuse`); otherwise the helpers call the pullback.
    let seed = quote!(<__S as #rt::select::ScalarOutputFor<#output>>::seed());
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let seeded_fn = |body: TokenStream| {
        quote! {
            #[inline]
            #allow
            #vis fn #seeded #gen_named (#(#decls,)* #dy: #out_tangent)
                -> (#output, (#(#tangents,)*))
                #where_named
            {
                #bind_receiver
                #body
            }
        }
    };
    let (value_and_gradients_call, seeded_item) = match seeded_fn_body {
        Some(body) => (
            quote!(let (__value, (#(#gnames,)*)) = #owner #seeded #turbofish(#(#vars,)* #seed);),
            seeded_fn(quote!(#mention_primal #body)),
        ),
        None => (
            direct.unwrap_or_else(|| {
                quote! {
                    let (__value, __pullback) = #owner #vjp #turbofish(#(#vars),*);
                    let (#(#gnames,)*) = __pullback(#seed);
                }
            }),
            // (a function whose sweeps are `runtime::entry` impls has this from
            // `Entries{n}`; any other, its own: a function whose body is one call of it
            // hands the call on to it, `fuse::tail`)
            match in_trait {
                true => quote!(),
                false => seeded_fn(quote! {
                    let (__value, __pullback) = #owner #vjp #turbofish(#(#vars),*);
                    (__value, __pullback(#dy))
                }),
            },
        ),
    };
    // A free function of float and float-slice parameters: the runtime's entry points
    // (`runtime::entry`), compiled only where a helper is used; any other: its own.
    // (`__vjp` and `vjp!`'s `__vjp_selected` too; a fused function keeps its own gradient
    // entry points, which run its fused sweep)
    let kinds = any_kinds.as_ref().filter(|_| generated);
    let runtime_entries = kinds.is_some() && seeded_item.is_empty();
    // (a function with constants keeps its own: `vjp!`'s pullback returns the
    // differentiable parameters' gradients only)
    let own_vjp = if kinds.is_some_and(|k| !k.constants) {
        quote!()
    } else {
        quote! {
            #[inline]
            #allow
            #vis fn #vjp #gen_named (#(#decls),*)
                -> (#output, impl ::core::ops::FnOnce(#out_tangent) -> (#(#tangents,)*) + #captures)
                #where_named
            {
                #bind_receiver
                #mention_primal
                #vjp_fn_body
            }

            #[inline]
            #allow
            #vis fn #vjp_selected #gen_named (#(#decls),*)
                -> (#output, impl ::core::ops::FnOnce(#out_tangent) -> #selected + #captures)
                #where_named
            {
                #bind_receiver
                let (__value, __pullback) = #owner #vjp #turbofish(#(#vars),*);
                (__value, move |__dy: #out_tangent| {
                    let (#(#gnames,)*) = __pullback(__dy);
                    #selected_value
                })
            }
        }
    };
    let entries = if runtime_entries {
        quote!()
    } else {
        quote! {
            #allow
            #vis fn #gradients #generics_s(_selection: __S)
                -> impl ::core::ops::Fn(#(#tys),*) -> <__S as #rt::select::Select<#options>>::Output
            where
                __S: #rt::select::Select<#options>,
                __S: #rt::select::ScalarOutputFor<#output>,
                #where_preds
            {
                // The value comes for free in reverse mode: this is the value-and-gradients
                // closure without the value.
                let __value_and_gradients =
                    #owner #value_and_gradients #turbofish_with_selection(_selection);
                move |#(#vars: #tys),*| __value_and_gradients(#(#vars),*).1
            }

            #allow
            #vis fn #value_and_gradients #generics_s(_selection: __S)
                -> impl ::core::ops::Fn(#(#tys),*)
                    -> (#output, <__S as #rt::select::Select<#options>>::Output)
            where
                __S: #rt::select::Select<#options>,
                __S: #rt::select::ScalarOutputFor<#output>,
                #where_preds
            {
                move |#(#vars: #tys),*| {
                    #value_and_gradients_call
                    (__value, <__S as #rt::select::Select<#options>>::select(
                        (#(::core::option::Option::Some(#gnames),)*)
                    ))
                }
            }

            #allow
            #vis fn #accumulate #generics_s(_selection: __S)
                -> impl for<'__autodiff_g> ::core::ops::Fn(
                    #(#tys,)*
                    <__S as #rt::select::Scatter<#buffer_options>>::Input,
                ) -> #output
            where
                __S: for<'__autodiff_g> #rt::select::Scatter<#buffer_options>,
                __S: #rt::select::ScalarOutputFor<#output>,
                #where_preds
            {
                move |#(#vars: #tys,)* __buffers| {
                    let (#(#buffers,)*) =
                        <__S as #rt::select::Scatter<#buffer_options_here>>::scatter(__buffers);
                    #(#in_out_starts)*
                    // (the sinks first: an argument taken by value moves into the call)
                    #(let #sink_names = #buffer_sinks;)*
                    let (__value, __pullback) = #into_path(#(#vars),*);
                    let (#(#gnames,)*) = __pullback(#seed, #(#sink_names),*);
                    #(#buffer_adds)*
                    __value
                }
            }
        }
    };
    let (own_vjp_into, impl_vjp_into) = if in_trait {
        let (decls, _) = entry_decls(sig, true);
        // (as `Reverse{n}` declares them: `'all` outlived by every argument's)
        let lifetimes =
            (0..sig.params.len()).map(|i| syn::Lifetime::new(&format!("'a{i}"), Span::call_site()));
        let item = quote! {
            #inline
            fn #vjp_into<#(#lifetimes: 'all,)* 'all>(#(#decls),*)
                -> (
                    #output,
                    impl ::core::ops::FnOnce(#out_tangent, #(#sinks),*) -> (#(#into_tangents,)*)
                )
            {
                #mention_primal
                #vjp_into_fn_body
            }
        };
        (quote!(), item)
    } else {
        let item = quote! {
            #inline
            #allow
            #vis fn #vjp_into #gen_named (#(#decls),*)
                -> (
                    #output,
                    impl ::core::ops::FnOnce(#out_tangent, #(#sinks),*) -> (#(#into_tangents,)*)
                        + #captures
                )
                #where_named
            {
                #bind_receiver
                #mention_primal
                #vjp_into_fn_body
            }
        };
        (item, quote!())
    };
    let own_reborrow = if default_reborrow {
        quote!()
    } else {
        quote! {
            #inline
            #allow
            #vis fn #vjp_reborrow #gen_named (#(#decls),*)
                -> (
                    #output,
                    impl ::core::ops::FnOnce(#out_tangent, #(#sinks,)* #(#again_types),*)
                        -> (#(#into_tangents,)*)
                        + #reborrow_captures
                )
                #where_named
            {
                #bind_receiver
                #reborrow_fn_body
            }
        }
    };
    let entry_impl =
        (any_kinds.as_ref()).map(|k| entry_impls(sig, &k.kinds, impl_vjp_into, forward_impl));
    // (a function with `runtime::entry` impls: its `Defaults{n}`, but for the selection
    // of a function with constants)
    let own_signature = match &any_kinds {
        Some(_) => quote!(),
        None => quote! {
            #allow
            #vis const #signature: #rt::select::Signature =
                #rt::select::Signature::new(#name, &[#(#labels),*], &[#(#constants),*]);
        },
    };
    let own_all = match &any_kinds {
        Some(k) if !k.constants => quote!(),
        _ => quote! {
            #allow
            #vis const fn #all() -> #all_selection {
                #all_value
            }
        },
    };
    // (a method's receiver as its callers through `self` check it: see `lower::calls`)
    let own_receiver = match sig.params.iter().find(|p| p.name == "self") {
        Some(p) if sig.is_method => {
            let receiver = companion(ident, "RECEIVER", true);
            let kind = if p.differentiable {
                quote!(DifferentiableReceiver)
            } else {
                quote!(ConstantReceiver)
            };
            quote! {
                #allow
                #vis const #receiver: #rt::methods::#kind = #rt::methods::#kind;
            }
        }
        _ => quote!(),
    };
    let items = quote! {
        #own_signature

        #own_receiver

        #own_all

        #own_vjp

        #own_vjp_into

        #own_reborrow

        #entries

        #seeded_item

        #forward_items
    };
    // (a parameter of a type the macro cannot see is differentiable: see `plain_types`)
    let items = match crate::plain_types::plain_guard(sig) {
        Some(g) => g.apply(items),
        None => items,
    };
    if sig.is_method {
        return items;
    }
    quote! {
        #[doc(hidden)]
        #all_lints
        #vis struct #ident {}

        #all_lints
        impl #ident {
            #items
        }

        #entry_impl
    }
}

/// The parameters' kinds of a function whose helpers' entry points the runtime writes
/// (see `runtime::entry`).
pub struct EntryKinds {
    /// Each parameter's `runtime::entry` kind.
    pub kinds: Vec<TokenStream>,
    /// Whether a parameter gets no gradient (`Constant`, `ConstantSlice`): the closures
    /// taking every parameter's tangent (`jvp!(f)`) or returning only the differentiable
    /// ones' gradients (`vjp!(f)`) are then the function's own.
    pub constants: bool,
}

/// The kinds of the parameters of a function whose helpers' entry points the runtime
/// writes: a free function, not generic, of one to eight parameters, each a differentiable
/// float taken by value or shared float slice (`Scalar`, `Slice`), or a constant — a
/// primitive taken by value or a shared slice of one (`Constant`, `ConstantSlice`) — with
/// a float output and a differentiable parameter. `None` for any other function (which
/// keeps entry points of its own).
pub fn entry_kinds(sig: &Signature) -> Option<EntryKinds> {
    let rt = rt();
    let n = sig.params.len();
    if sig.is_method
        || !(1..=8).contains(&n)
        || !sig.generics.params.is_empty()
        || sig.generics.where_clause.is_some()
        || float_name(&sig.output).is_none()
        || !sig.params.iter().any(|p| p.differentiable)
    {
        return None;
    }
    let mut kinds = Vec::new();
    for p in &sig.params {
        if p.in_out || p.by_ref {
            return None;
        }
        let slice_elem = match &p.ty {
            syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
                syn::Type::Slice(s) => Some(&*s.elem),
                _ => return None,
            },
            _ => None,
        };
        let kind = match (p.differentiable, slice_elem) {
            (true, Some(e)) if p.shadow.is_some() => {
                let e = float_name(e)?;
                quote!(#rt::entry::Slice<#e>)
            }
            (true, None) if p.shadow.is_none() => {
                let t = float_name(&p.ty)?;
                quote!(#rt::entry::Scalar<#t>)
            }
            (false, Some(e)) => {
                let e = primitive_name(e)?;
                quote!(#rt::entry::ConstantSlice<#e>)
            }
            (false, None) => {
                let t = primitive_name(&p.ty)?;
                quote!(#rt::entry::Constant<#t>)
            }
            _ => return None,
        };
        kinds.push(kind);
    }
    let constants = sig.params.iter().any(|p| !p.differentiable);
    Some(EntryKinds { kinds, constants })
}

/// The parameters of a function with [`entry_kinds`] as its `runtime::entry` impls declare
/// them (`__v0: f64`, `__v1: SliceArg<'a, f64>`), and their tangents (`__tv1:
/// SliceSlot<'t, f64>`; `NoTangent` for a constant): a slice's lifetime the trait method's
/// (`own_lifetimes`: each parameter's its own, `'a0`, `'a1`, … as `Reverse{n}`'s are).
pub fn entry_decls(sig: &Signature, own_lifetimes: bool) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let rt = rt();
    let mut args = Vec::new();
    let mut tangents = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let (v, tv) = (
            crate::ir::VarId(i).ident(),
            crate::emit::tangent_var(crate::ir::VarId(i)),
        );
        let elem = match &p.ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => Some(&*s.elem),
                _ => None,
            },
            _ => None,
        };
        let ty = &p.ty;
        let a = if own_lifetimes {
            syn::Lifetime::new(&format!("'a{i}"), Span::call_site())
        } else {
            syn::Lifetime::new("'a", Span::call_site())
        };
        match (elem, p.differentiable) {
            (Some(e), true) => {
                args.push(quote!(#v: #rt::entry::SliceArg<#a, #e>));
                tangents.push(quote!(#tv: #rt::entry::SliceSlot<'t, #e>));
            }
            (Some(e), false) => {
                args.push(quote!(#v: #rt::entry::ConstantSliceArg<#a, #e>));
                tangents.push(quote!(#tv: #rt::NoTangent));
            }
            (None, true) => {
                args.push(quote!(#v: #ty));
                tangents.push(quote!(#tv: #ty));
            }
            (None, false) => {
                args.push(quote!(#v: #ty));
                tangents.push(quote!(#tv: #rt::NoTangent));
            }
        }
    }
    (args, tangents)
}

/// A primitive type (a float, an integer or `bool`) written by its name.
fn primitive_name(ty: &syn::Type) -> Option<syn::Ident> {
    type_named(ty, |n| {
        crate::rules::is_float_type_name(n) || crate::rules::is_integer_type_name(n) || n == "bool"
    })
}

/// The `runtime::entry` impls of a function with [`entry_kinds`]: `Sig{n}` (its output,
/// its parameters' kinds and names), `Reverse{n}` with its reverse sweep `reverse` (none
/// for a hand-written rule's, which keeps its own) and `Forward{n}` with its tangent sweep
/// `forward`.
fn entry_impls(
    sig: &Signature,
    kinds: &[TokenStream],
    reverse: TokenStream,
    forward: TokenStream,
) -> TokenStream {
    let rt = rt();
    let n = kinds.len();
    let ident = &sig.ident;
    let output = &sig.output;
    let ks: Vec<syn::Ident> = (0..n).map(|i| format_ident!("K{}", i)).collect();
    let name = ident.to_string();
    let labels = sig.params.iter().map(|p| &p.label);
    let (sig_trait, forward_trait) = (format_ident!("Sig{}", n), format_ident!("Forward{}", n));
    let len = proc_macro2::Literal::usize_unsuffixed(n);
    let allow = lint_allows();
    let mut out = quote! {
        impl #rt::entry::#sig_trait for #ident {
            type Out = #output;
            #(type #ks = #kinds;)*
            const NAME: &'static str = #name;
            const PARAMS: [&'static str; #len] = [#(#labels),*];
        }
        #allow
        impl #rt::entry::#forward_trait for #ident {
            #forward
        }
    };
    if !reverse.is_empty() {
        let reverse_trait = format_ident!("Reverse{}", n);
        out.extend(quote! {
            #allow
            impl #rt::entry::#reverse_trait for #ident {
                #reverse
            }
        });
    }
    out
}

/// `f32` or `f64`, when `ty` is written so.
fn float_name(ty: &syn::Type) -> Option<syn::Ident> {
    type_named(ty, crate::rules::is_float_type_name)
}

/// The name `ty` is written as, when it is one identifier that `named` accepts.
fn type_named(ty: &syn::Type, named: impl Fn(&str) -> bool) -> Option<syn::Ident> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?;
            named(&id.to_string()).then(|| id.clone())
        }
        _ => None,
    }
}

/// A companion's generics: the function's lifetimes, then `extra` (a type parameter of the
/// companion's own, the selection `__S`), then the function's other parameters — Rust
/// requires lifetimes first (`fn f<'a>(x: &'a [f64])`).
pub fn generics_with(extra: TokenStream, generics: &syn::Generics) -> TokenStream {
    let lifetimes =
        (generics.params.iter()).filter(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    let others = (generics.params.iter()).filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
    quote!(<#(#lifetimes,)* #extra #(, #others)*>)
}
