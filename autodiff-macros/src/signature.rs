//! What the attribute reads from a function's signature: its parameters and which of them
//! are differentiable, its generics, its output, and the names of the generated items.

use crate::diag::Errors;
use crate::rules as prims;
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;

/// One parameter of the differentiable function.
pub struct Param {
    /// The name users give in `params = ["…"]`; for a parameter written as a pattern
    /// (`[x, y]: [f64; 2]`), the name [`bind_parameter_patterns`] gives it.
    pub name: String,
    /// How messages name the parameter: its name, or its pattern as written.
    pub label: String,
    pub ty: syn::Type,
    /// The type with every elided lifetime named (for the generated `__vjp` signature).
    pub ty_named: syn::Type,
    pub differentiable: bool,
    /// The body sees the parameter through a reference (`map`'s `|v| …` gets `&x`): it
    /// is differentiated as the value, and code kept as written reads `&value`.
    pub by_ref: bool,
    /// For a differentiable float slice or `Vec` (`&[f64]`, `&Vec<T>`, `Vec<f64>`), its
    /// element type: the derivative adds the parameter's gradient into its caller's
    /// buffer (a shadow) rather than returning it.
    pub shadow: Option<syn::Type>,
    /// A `&mut` float slice or `Vec` (an in-out parameter): the body reads and writes it,
    /// and its shadow carries the adjoint of its final value in and of its initial value
    /// out.
    pub in_out: bool,
    /// Declared `mut` and taken by value (`fn gamma(mut z: f64)`): the body assigns it
    /// like a `let mut` local.
    pub mutable: bool,
}

impl Param {
    /// A float written through (`x: &mut f64`): an in-out parameter the body sees as a
    /// one-element array (`*x` is `x[0]`), bound with `core::array::from_mut`.
    pub fn scalar_out(&self) -> bool {
        let syn::Type::Reference(r) = &self.ty else {
            return false;
        };
        self.in_out && sequence_element(&r.elem).is_none()
    }
}

/// The name a parameter written as a pattern gets (see [`bind_parameter_patterns`]).
fn pattern_parameter_name(position: usize) -> syn::Ident {
    quote::format_ident!("__autodiff_arg{}", position)
}

/// A pattern as the user wrote it, for messages.
fn pattern_label(pat: &syn::Pat) -> String {
    let text = pat.to_token_stream().to_string();
    text.replace(" ,", ",")
        .replace("[ ", "[")
        .replace(" ]", "]")
}

/// Whether a parameter pattern destructures by value (tuples, arrays, `_`, references to
/// these): what a `let` in the body can bind the same way.
fn binds_by_value(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(pi) => pi.by_ref.is_none() && pi.subpat.is_none(),
        syn::Pat::Wild(_) | syn::Pat::Rest(_) => true,
        syn::Pat::Tuple(t) => t.elems.iter().all(binds_by_value),
        syn::Pat::Slice(s) => s.elems.iter().all(binds_by_value),
        syn::Pat::Paren(p) => binds_by_value(&p.pat),
        syn::Pat::Reference(r) => binds_by_value(&r.pat),
        _ => false,
    }
}

/// Parameters written as patterns (`fn f([x, y]: [f64; 2])`, `(a, b): (f64, f64)`) become
/// names, `__autodiff_argN`, bound to the pattern by the body's first statements: the
/// function means what it meant, and the body destructures them like any `let`.
pub fn bind_parameter_patterns(func: &mut syn::ItemFn) {
    let mut lets: Vec<syn::Stmt> = Vec::new();
    for (i, input) in func.sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(pt) = input else {
            continue;
        };
        let plain =
            matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none());
        if plain || !binds_by_value(&pt.pat) {
            continue;
        }
        let name = pattern_parameter_name(i);
        let pat = std::mem::replace(&mut *pt.pat, syn::parse_quote!(#name));
        lets.push(syn::parse_quote!(let #pat = #name;));
    }
    if !lets.is_empty() {
        lets.append(&mut func.block.stmts);
        func.block.stmts = lets;
    }
}

/// Parameters the body `match`es against enum variants (`match kind { Kind::P => …, … }`)
/// are constants: their type is an enum, which has no derivative (`#[derive(Differentiable)]`
/// makes structs of floats differentiable, not enums), whatever the macro could tell from
/// the type's name alone.
pub fn matched_enums_are_constants(sig: &mut Signature, body: &syn::Block) {
    struct Matched(Vec<String>);
    impl syn::visit::Visit<'_> for Matched {
        fn visit_expr_match(&mut self, m: &syn::ExprMatch) {
            let mut scrutinee = &*m.expr;
            while let syn::Expr::Paren(p) = scrutinee {
                scrutinee = &p.expr;
            }
            if let syn::Expr::Path(p) = scrutinee {
                if let Some(id) = p.path.get_ident() {
                    if m.arms.iter().any(|a| is_variant_pattern(&a.pat)) {
                        self.0.push(id.to_string());
                    }
                }
            }
            syn::visit::visit_expr_match(self, m);
        }
    }
    /// `Kind::P`, `Kind::Q(..)`, `Self::R { .. }` (alternatives included): a variant
    /// named by its enum, not `Some`/`None`/`Ok`/`Err`.
    fn is_variant_pattern(p: &syn::Pat) -> bool {
        let qualified = |path: &syn::Path| path.segments.len() >= 2;
        match p {
            syn::Pat::Path(pp) => qualified(&pp.path),
            syn::Pat::TupleStruct(t) => qualified(&t.path),
            syn::Pat::Struct(s) => qualified(&s.path) && s.path.segments[0].ident == "Self",
            syn::Pat::Or(o) => o.cases.iter().any(is_variant_pattern),
            syn::Pat::Paren(q) => is_variant_pattern(&q.pat),
            _ => false,
        }
    }
    let mut found = Matched(Vec::new());
    syn::visit::Visit::visit_block(&mut found, body);
    for p in &mut sig.params {
        if p.differentiable && p.shadow.is_none() && found.0.contains(&p.name) {
            p.differentiable = false;
        }
    }
}

/// Whether a type mentions `impl Trait` (which the companions' signatures cannot repeat).
fn contains_impl_trait(ty: &syn::Type) -> bool {
    struct Find(bool);
    impl syn::visit::Visit<'_> for Find {
        fn visit_type_impl_trait(&mut self, _: &syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_type(&mut f, ty);
    f.0
}

/// A function signature as the generated code needs it.
pub struct Signature {
    pub ident: syn::Ident,
    pub params: Vec<Param>,
    pub output: syn::Type,
    /// The user's generics, plus `T: Real` for every float type parameter.
    pub generics: syn::Generics,
    /// As `generics`, plus a named lifetime for every lifetime the parameters elide.
    pub generics_named: syn::Generics,
    /// Whether the function is a method (has a `self` receiver): its companions are then
    /// associated functions reached through `Self::`.
    pub is_method: bool,
    /// `#[differentiable(recursive)]`: every call of a differentiable function runs its
    /// derivative again in the reverse sweep instead of keeping its pullback, so that the
    /// function's pullback holds no other function's (mutual recursion).
    pub rerun_calls: bool,
    /// The body is small enough for its sweeps to be inlined into every caller's in
    /// optimised builds (see `companions::sweep_inline`).
    pub inline_sweeps: bool,
    /// Every type parameter in scope (an `impl`'s too, which `drop_impl_generics` moves
    /// off `generics`): a parameter of such a type is no struct.
    pub type_params: Vec<syn::Ident>,
    /// The type parameters converted to or from a float (`T: Into<f64>`), which the
    /// companions require to be integers (see [`converted_type_params`]).
    pub converted: Vec<syn::Ident>,
}

fn bounds_mention_float(
    bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
) -> bool {
    bounds.iter().filter_map(bound_name).any(|name| {
        matches!(
            name.as_str(),
            // num-traits' and this crate's float traits, and the arithmetic
            // operators generic vector code bounds its scalar with
            // (`T: Copy + Add<T, Output = T> + Mul<T, Output = T>`)
            "Float" | "Real" | "Add" | "Sub" | "Mul" | "Div" | "Neg"
        )
    })
}

/// Type parameters that stand for float types (bounded by `Float` or `Real`, or by an
/// arithmetic operator, in the parameter list or the `where` clause). The derivative is
/// generated for float types only: its companions require `T: Real`, the function as
/// written keeps its own bounds.
///
/// A type parameter the result is made of (`fn row<T: Copy>(m: Matrix3<T>, i: usize) ->
/// Vector3<T>`) is a float type too, unless a bound says it cannot be one (`Eq`, `Ord`,
/// `Hash`, an integer or iterator trait): a differentiable result is made of floats.
pub(crate) fn float_type_params(
    generics: &syn::Generics,
    output: Option<&syn::Type>,
) -> Vec<syn::Ident> {
    let mut out = Vec::new();
    for tp in generics.type_params() {
        let bounds = bounds_of(generics, tp);
        let is_float = bounds.iter().any(|b| bounds_mention_float(b));
        let compatible = bounds.iter().all(|b| bounds_float_compatible(b));
        let in_output = output.is_some_and(|t| mentions_ident(t, &tp.ident));
        if is_float || (in_output && compatible) {
            out.push(tp.ident.clone());
        }
    }
    out
}

/// A type parameter's bounds: those written with it (`<T: Float>`) and those of the
/// `where` clause's predicates on it.
fn bounds_of<'g>(
    generics: &'g syn::Generics,
    tp: &'g syn::TypeParam,
) -> Vec<&'g syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>> {
    let mut out = vec![&tp.bounds];
    for pred in generics.where_clause.iter().flat_map(|wc| &wc.predicates) {
        if let syn::WherePredicate::Type(pt) = pred {
            if matches!(&pt.bounded_ty, syn::Type::Path(p) if p.path.is_ident(&tp.ident)) {
                out.push(&pt.bounds);
            }
        }
    }
    out
}

/// Type parameters that are not float types but are bounded by a conversion to or from
/// one (`T: Into<f64>`, `U: AsPrimitive<f32>`, `V: ToPrimitive`): constants to the derivative, which a float
/// handed to them would silently leave out of the gradient. The companions require them to
/// be integers or `bool` (`runtime::ConstantNumber`), so such a call does not compile.
pub(crate) fn converted_type_params(
    generics: &syn::Generics,
    floats: &[syn::Ident],
) -> Vec<syn::Ident> {
    fn mentions_float_type(
        bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
    ) -> bool {
        // (`<f64>`: a float type as the first argument)
        let floaty = |args: &syn::PathArguments| match args {
            syn::PathArguments::AngleBracketed(a) => matches!(a.args.first(),
                Some(syn::GenericArgument::Type(syn::Type::Path(p)))
                    if p.path.get_ident().is_some_and(|i| prims::is_float_type_name(&i.to_string()))),
            _ => false,
        };
        // a conversion to or from a float (not a closure or an iterator of floats)
        bounds.iter().any(|b| match b {
            syn::TypeParamBound::Trait(t) => {
                t.path
                    .segments
                    .last()
                    .is_some_and(|s| match s.ident.to_string().as_str() {
                        "ToPrimitive" | "NumCast" => true,
                        "Into" | "From" | "TryInto" | "TryFrom" | "AsPrimitive" => {
                            floaty(&s.arguments)
                        }
                        _ => false,
                    })
            }
            _ => false,
        })
    }
    let mut out = Vec::new();
    for tp in generics.type_params() {
        if floats.contains(&tp.ident) {
            continue;
        }
        if bounds_of(generics, tp)
            .iter()
            .any(|b| mentions_float_type(b))
        {
            out.push(tp.ident.clone());
        }
    }
    out
}

/// Whether every bound is one a float type satisfies (marker and formatting traits, the
/// comparison traits floats have, num-traits' numeric traits, operators).
fn bounds_float_compatible(
    bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
) -> bool {
    bounds.iter().all(bound_float_compatible)
}

/// Whether a float type satisfies the bound (see [`bounds_float_compatible`]).
fn bound_float_compatible(b: &syn::TypeParamBound) -> bool {
    match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "Copy"
                    | "Clone"
                    | "Debug"
                    | "Display"
                    | "Default"
                    | "PartialEq"
                    | "PartialOrd"
                    | "Send"
                    | "Sync"
                    | "Sized"
                    | "Zero"
                    | "One"
                    | "Num"
                    | "NumCast"
                    | "FromPrimitive"
                    | "ToPrimitive"
                    | "Signed"
                    | "Sum"
                    | "Product"
                    | "Float"
                    | "Real"
                    | "FloatConst"
                    | "Add"
                    | "Sub"
                    | "Mul"
                    | "Div"
                    | "Neg"
                    | "Rem"
                    | "AddAssign"
                    | "SubAssign"
                    | "MulAssign"
                    | "DivAssign"
            )
        }),
        syn::TypeParamBound::Lifetime(_) => true,
        _ => false,
    }
}

/// A type parameter the result is made of that is not taken for a float type because of a
/// bound the attribute does not know (`T: cauchy::Scalar`, another crate's numeric trait,
/// which may stand for complex numbers too), rather than one that says it is no float
/// (`Ord`, `Hash`, an integer or iterator trait): the bound's span and the parameter. Such a
/// function's result cannot be differentiated as written, and the compiler's errors about
/// it name only generated code.
fn unknown_result_bound(
    generics: &syn::Generics,
    floats: &[syn::Ident],
    output: &syn::Type,
) -> Option<(Span, syn::Ident)> {
    const NOT_FLOAT: &[&str] = &[
        "Eq",
        "Ord",
        "Hash",
        "Integer",
        "PrimInt",
        "Unsigned",
        "Iterator",
        "IntoIterator",
        "DoubleEndedIterator",
        "ExactSizeIterator",
        "Fn",
        "FnMut",
        "FnOnce",
        "Into",
        "From",
        "TryInto",
        "TryFrom",
        "AsRef",
        "AsMut",
        "Borrow",
        "ToString",
        "AsPrimitive",
    ];
    for tp in generics.type_params() {
        if floats.contains(&tp.ident) || !made_of(output, &tp.ident) {
            continue;
        }
        let bounds: Vec<&syn::TypeParamBound> =
            bounds_of(generics, tp).into_iter().flatten().collect();
        if bounds
            .iter()
            .any(|b| bound_name(b).is_some_and(|n| NOT_FLOAT.contains(&n.as_str())))
        {
            continue;
        }
        if let Some(b) = bounds.iter().find(|b| !bound_float_compatible(b)) {
            return Some((syn::spanned::Spanned::span(b), tp.ident.clone()));
        }
    }
    None
}

/// The name a trait bound is written with (`Float` of `num_traits::Float`).
fn bound_name(b: &syn::TypeParamBound) -> Option<String> {
    match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether a value of type `ty` is made of values of the type named `ident`: `T`, or an
/// element of a tuple, array, slice, `Vec`, `Option`, `Box` or `Result`'s value of it — not
/// an argument of another type (`D` of `Array<T, D>`).
fn made_of(ty: &syn::Type, ident: &syn::Ident) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            if p.path.is_ident(ident) {
                return true;
            }
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let containers = ["Vec", "Option", "Box", "Result"];
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a)
                    if containers.contains(&last.ident.to_string().as_str()) =>
                {
                    matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if made_of(t, ident))
                }
                _ => false,
            }
        }
        syn::Type::Tuple(t) => t.elems.iter().any(|e| made_of(e, ident)),
        syn::Type::Array(a) => made_of(&a.elem, ident),
        syn::Type::Slice(s) => made_of(&s.elem, ident),
        syn::Type::Reference(r) => made_of(&r.elem, ident),
        syn::Type::Paren(p) => made_of(&p.elem, ident),
        _ => false,
    }
}

/// Whether `ty` mentions the type named `ident`.
fn mentions_ident(ty: &syn::Type, ident: &syn::Ident) -> bool {
    struct Find<'a>(&'a syn::Ident, bool);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if p.is_ident(self.0) {
                self.1 = true;
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut f = Find(ident, false);
    syn::visit::Visit::visit_type(&mut f, ty);
    f.1
}

/// Whether a parameter of this type gets a gradient. A proc macro has no type
/// information, so this reads the type's syntax: integer, `bool`, `char` and string types
/// (and references to them), function and `impl`/`dyn` types, and type parameters that
/// are not float types are constants; everything else must implement `Differentiable`.
fn is_differentiable_type(ty: &syn::Type, generics: &syn::Generics, floats: &[syn::Ident]) -> bool {
    match ty {
        syn::Type::Reference(r) => is_differentiable_type(&r.elem, generics, floats),
        syn::Type::Paren(p) => is_differentiable_type(&p.elem, generics, floats),
        syn::Type::Group(g) => is_differentiable_type(&g.elem, generics, floats),
        syn::Type::BareFn(_)
        | syn::Type::ImplTrait(_)
        | syn::Type::TraitObject(_)
        | syn::Type::Never(_) => false,
        syn::Type::Tuple(t) => {
            !t.elems.is_empty()
                && t.elems
                    .iter()
                    .all(|e| is_differentiable_type(e, generics, floats))
        }
        // a sequence of constants (`&[usize]`, `[bool; 3]`) is a constant
        syn::Type::Slice(s) => is_differentiable_type(&s.elem, generics, floats),
        syn::Type::Array(a) => is_differentiable_type(&a.elem, generics, floats),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            if prims::is_constant_type_name(&name) {
                return false;
            }
            if p.path.segments.len() == 1 && generics.type_params().any(|tp| tp.ident == last.ident)
            {
                return floats.contains(&last.ident);
            }
            // (an optional constant, `Option<bool>`, is a constant)
            let option_of = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) if name == "Option" && a.args.len() == 1 => {
                    match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => Some(t),
                        _ => None,
                    }
                }
                _ => None,
            };
            match vec_element(ty).or(option_of) {
                Some(elem) => is_differentiable_type(elem, generics, floats),
                None => true,
            }
        }
        _ => true,
    }
}

/// The element type of a float slice or `Vec` parameter (`&[f64]`, `&Vec<T>`, `Vec<f32>`,
/// with `T` a float type parameter), through shared references.
fn shadow_element(ty: &syn::Type, floats: &[syn::Ident]) -> Option<syn::Type> {
    let is_float = |t: &syn::Type| match t {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| prims::is_float_type_name(&i.to_string()) || floats.contains(i)),
        _ => false,
    };
    let elem = match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) => Some(&*s.elem),
            // a fixed-size array written through (`&mut [f64; 3]`): its shadow is a slice
            syn::Type::Array(a) if r.mutability.is_some() => Some(&*a.elem),
            // a float written through (`x: &mut f64`): the body sees a one-element array
            // (`*x` is `x[0]`, see `scalar_out_parameters`), its shadow a one-element slice
            elem if r.mutability.is_some() && is_float(elem) => Some(elem),
            other => vec_element(other),
        },
        other => vec_element(other),
    }?;
    is_float(elem).then(|| elem.clone())
}

/// The element type of a slice, `Vec` or fixed-size array type, behind references,
/// parentheses and groups: `f64` of `&[f64]`, `Vec<f64>` of `Vec<Vec<f64>>`.
pub(crate) fn sequence_element(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Reference(r) => sequence_element(&r.elem),
        syn::Type::Paren(p) => sequence_element(&p.elem),
        syn::Type::Group(g) => sequence_element(&g.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        syn::Type::Array(a) => Some(&a.elem),
        other => vec_element(other),
    }
}

/// `E` of `Vec<E>`.
pub(crate) fn vec_element(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// ndarray's views carry a lifetime users usually elide (`ArrayView1<f64>`): gives it one.
fn add_view_lifetime(seg: &mut syn::PathSegment, mut lifetime: impl FnMut() -> syn::Lifetime) {
    let name = seg.ident.to_string();
    if !(name.starts_with("ArrayView") || name == "CowArray") {
        return;
    }
    if let syn::PathArguments::AngleBracketed(args) = &mut seg.arguments {
        let has_lifetime = args
            .args
            .iter()
            .any(|a| matches!(a, syn::GenericArgument::Lifetime(_)));
        if !has_lifetime {
            args.args
                .insert(0, syn::GenericArgument::Lifetime(lifetime()));
        }
    }
}

/// Names every elided lifetime (`&T`, `'_`) in a type `'__autodiff_lN`.
struct NameLifetimes {
    named: Vec<syn::Lifetime>,
}

impl NameLifetimes {
    fn fresh(&mut self) -> syn::Lifetime {
        let lt = syn::Lifetime::new(
            &format!("'__autodiff_l{}", self.named.len()),
            Span::call_site(),
        );
        self.named.push(lt.clone());
        lt
    }
}

impl VisitMut for NameLifetimes {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(self.fresh());
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
    fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
        if lt.ident == "_" {
            *lt = self.fresh();
        }
    }
    fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
        add_view_lifetime(seg, || self.fresh());
        syn::visit_mut::visit_path_segment_mut(self, seg);
    }
}

/// The name of the lifetime [`shared_lifetime`] adds.
pub(crate) const SHARED_LIFETIME: &str = "__autodiff_all";

/// Gives the companions a lifetime that every borrowed parameter's outlives
/// (`'__autodiff_all`), where two or more are borrowed (not `&mut`): a local borrowing
/// either of two parameters (`let (a, b) = if … { (y, x) } else { (x, y) };`) has a
/// lifetime shorter than both, which the pullback captures, and an opaque type can only
/// capture a lifetime it names.
fn shared_lifetime(generics: &mut syn::Generics, params: &[Param]) {
    let exclusive: Vec<&syn::Lifetime> = params
        .iter()
        .filter_map(|p| match &p.ty_named {
            syn::Type::Reference(r) if r.mutability.is_some() => r.lifetime.as_ref(),
            _ => None,
        })
        .collect();
    let shared: Vec<syn::Lifetime> = generics
        .lifetimes()
        .map(|l| l.lifetime.clone())
        .filter(|l| !exclusive.contains(&l))
        .collect();
    if shared.len() < 2 {
        return;
    }
    let all = syn::Lifetime::new(&format!("'{SHARED_LIFETIME}"), Span::call_site());
    for param in generics.params.iter_mut() {
        if let syn::GenericParam::Lifetime(l) = param {
            if shared.contains(&l.lifetime) {
                l.bounds.push(all.clone());
            }
        }
    }
    let position = generics.lifetimes().count();
    generics.params.insert(
        position,
        syn::GenericParam::Lifetime(syn::LifetimeParam::new(all)),
    );
}

/// The type with references removed and every lifetime made `'static`, used to name the
/// tangent type (`&'a [f64]` → `[f64]`, whose tangent is `Vec<f64>`).
pub fn tangent_key(ty: &syn::Type) -> syn::Type {
    struct Strip;
    impl VisitMut for Strip {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            while let syn::Type::Reference(r) = ty {
                *ty = (*r.elem).clone();
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
        fn visit_lifetime_mut(&mut self, lt: &mut syn::Lifetime) {
            *lt = syn::Lifetime::new("'static", lt.span());
        }
        fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
            add_view_lifetime(seg, || syn::Lifetime::new("'static", Span::call_site()));
            syn::visit_mut::visit_path_segment_mut(self, seg);
        }
    }
    let mut ty = ty.clone();
    Strip.visit_type_mut(&mut ty);
    ty
}

/// Whether the type is written `f64` or `f32` (its zero tangent is `0.0`, its tangent
/// itself).
pub fn is_float(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| prims::is_float_type_name(&i.to_string())))
}

/// Whether the type is a float: `f32`, `f64` or one of the float type parameters `floats`.
pub fn is_float_of(ty: &syn::Type, floats: &[syn::Ident]) -> bool {
    is_float(ty)
        || matches!(ty, syn::Type::Path(p) if p.qself.is_none()
            && floats.iter().any(|t| p.path.is_ident(t)))
}

/// The tangent type of a value of type `ty`.
pub fn tangent_type(ty: &syn::Type) -> TokenStream {
    let key = tangent_key(ty);
    // (written out where the runtime's impls make it plain — a float is its own tangent, a
    // slice's or `Vec`'s is a `Vec`, an array's the array — so the compiler has no
    // projection to normalise at each of the many places the companions name it)
    match &key {
        t if is_float(t) => return quote!(#t),
        syn::Type::Array(a) if is_float(&a.elem) => return quote!(#a),
        syn::Type::Slice(s) if is_float(&s.elem) => {
            let e = &s.elem;
            return quote!(::std::vec::Vec<#e>);
        }
        _ => {}
    }
    let span = proc_macro2::Span::call_site().located_at(syn::spanned::Spanned::span(&key));
    let key = crate::plain_types::relocated(key.to_token_stream(), span);
    quote::quote_spanned!(span=> <#key as ::autodiff::__private::Differentiable>::Tangent)
}

impl Signature {
    pub fn parse(sig: &syn::Signature, errors: &mut Errors) -> Option<Signature> {
        if let Some(a) = &sig.asyncness {
            errors.push(
                a.span,
                "`#[differentiable]` cannot differentiate an `async fn`",
            );
        }
        if let Some(u) = &sig.unsafety {
            errors.push(u.span, crate::diag::UNSAFE_FN);
        }
        if let Some(v) = &sig.variadic {
            errors.push_spanned(
                v,
                "`#[differentiable]` cannot differentiate a variadic function",
            );
        }
        let name = sig.ident.to_string();
        if prims::is_float_type_name(&name) || prims::is_constant_type_name(&name) {
            errors.push(sig.ident.span(), crate::diag::named_like_a_primitive(&name));
        }
        let out_ty = match &sig.output {
            syn::ReturnType::Type(_, t) => Some(&**t),
            syn::ReturnType::Default => None,
        };
        let floats = float_type_params(&sig.generics, out_ty);
        if let Some((bound, tp)) =
            out_ty.and_then(|t| unknown_result_bound(&sig.generics, &floats, t))
        {
            errors.push(bound, crate::diag::unknown_result_bound(&tp));
            return None;
        }
        let mut namer = NameLifetimes { named: Vec::new() };
        let mut params = Vec::new();
        let mut is_method = false;
        for (i, input) in sig.inputs.iter().enumerate() {
            match input {
                syn::FnArg::Receiver(r) => {
                    // The receiver is a constant for now: its fields are read as constants.
                    // (A differentiable receiver needs its type's tangent, which comes with
                    // `#[derive(Differentiable)]`.)
                    let ty = (*r.ty).clone();
                    let mut ty_named = ty.clone();
                    namer.visit_type_mut(&mut ty_named);
                    params.push(Param {
                        name: "self".to_string(),
                        label: "self".to_string(),
                        ty,
                        ty_named,
                        differentiable: false,
                        by_ref: false,
                        shadow: None,
                        in_out: false,
                        mutable: false,
                    });
                    is_method = true;
                }
                syn::FnArg::Typed(pt) => {
                    let no_grad = pt.attrs.iter().any(|a| a.path().is_ident("no_grad"));
                    let (name, label) = match &*pt.pat {
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            (pi.ident.to_string(), pi.ident.to_string())
                        }
                        other if binds_by_value(other) => {
                            (pattern_parameter_name(i).to_string(), pattern_label(other))
                        }
                        other => {
                            errors.push_spanned(other, crate::diag::PARAMETER_PATTERN);
                            (format!("_{i}"), format!("_{i}"))
                        }
                    };
                    let ty = (*pt.ty).clone();
                    if contains_impl_trait(&ty) {
                        errors.push_spanned(&*pt.ty, crate::diag::IMPL_TRAIT_PARAMETER);
                    }
                    let mut ty_named = ty.clone();
                    namer.visit_type_mut(&mut ty_named);
                    let differentiable =
                        !no_grad && is_differentiable_type(&ty, &sig.generics, &floats);
                    let shadow = differentiable
                        .then(|| shadow_element(&ty, &floats))
                        .flatten();
                    let in_out = shadow.is_some()
                        && matches!(&ty, syn::Type::Reference(r) if r.mutability.is_some());
                    let mutable = !in_out
                        && matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.mutability.is_some());
                    params.push(Param {
                        name,
                        label,
                        ty,
                        ty_named,
                        differentiable,
                        by_ref: false,
                        shadow,
                        in_out,
                        mutable,
                    });
                }
            }
        }
        // A function that writes its results through `&mut` parameters may return nothing.
        let output = match &sig.output {
            // (a reference to constants, `&'static str`, is a constant result)
            syn::ReturnType::Type(_, ty)
                if matches!(&**ty, syn::Type::Reference(r)
                    if is_differentiable_type(&r.elem, &sig.generics, &floats)) =>
            {
                errors.push(
                    syn::spanned::Spanned::span(&**ty),
                    crate::diag::BORROWED_RESULT,
                );
                return None;
            }
            syn::ReturnType::Type(_, ty) => (**ty).clone(),
            syn::ReturnType::Default if params.iter().any(|p| p.in_out) => syn::parse_quote!(()),
            syn::ReturnType::Default => {
                // (a `&mut` of a struct is the output the author meant)
                let written = params.iter().find(|p| {
                    !p.in_out && matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_some())
                });
                match written {
                    Some(p)
                        if sequence_element(&p.ty).is_some_and(|e| !is_float_of(e, &floats)) =>
                    {
                        errors.push_spanned(
                            &p.ty,
                            crate::diag::sequence_of_unknown_written_through(&p.label),
                        )
                    }
                    // (a constant sequence written, `#[no_grad] buf: &mut [f64]`: no output)
                    Some(p) if sequence_element(&p.ty).is_some() => {
                        errors.push(sig.ident.span(), crate::diag::MISSING_RETURN_TYPE)
                    }
                    Some(p) => {
                        errors.push_spanned(&p.ty, crate::diag::struct_written_through(&p.label))
                    }
                    None => errors.push(sig.ident.span(), crate::diag::MISSING_RETURN_TYPE),
                }
                return None;
            }
        };
        let mut generics = sig.generics.clone();
        if !floats.is_empty() {
            let wc = generics.make_where_clause();
            for f in &floats {
                wc.predicates
                    .push(syn::parse_quote!(#f: ::autodiff::__private::Real));
            }
        }
        let converted = converted_type_params(&sig.generics, &floats);
        if !converted.is_empty() {
            let wc = generics.make_where_clause();
            for t in &converted {
                wc.predicates
                    .push(syn::parse_quote!(#t: ::autodiff::__private::ConstantNumber));
            }
        }
        let mut generics_named = generics.clone();
        for lt in namer.named.iter().rev() {
            generics_named.params.insert(
                0,
                syn::GenericParam::Lifetime(syn::LifetimeParam::new(lt.clone())),
            );
        }
        shared_lifetime(&mut generics_named, &params);
        let type_params = generics.type_params().map(|t| t.ident.clone()).collect();
        Some(Signature {
            ident: sig.ident.clone(),
            params,
            output,
            generics,
            generics_named,
            is_method,
            rerun_calls: false,
            inline_sweeps: false,
            type_params,
            converted,
        })
    }

    /// Whether the function answers implicit requests itself: its output is `f32` or `f64`
    /// (its gradient is seeded with one) and it is not generic over the float type (its
    /// primal only knows `T: Float`, its derivative needs `T: Real`; called from a
    /// differentiable closure or function it goes straight to its derivative anyway).
    pub fn answers_requests(&self) -> bool {
        float_type_params(&self.generics, Some(&self.output)).is_empty()
            && match &self.output {
                syn::Type::Path(p) if p.qself.is_none() => p
                    .path
                    .get_ident()
                    .is_some_and(|i| prims::is_float_type_name(&i.to_string())),
                _ => false,
            }
    }

    /// A signature for a closure's parameters (`|x: f64, n: usize|`); untyped parameters
    /// are differentiable.
    pub fn for_closure(closure: &syn::ExprClosure, errors: &mut Errors) -> Signature {
        let mut params = Vec::new();
        for (i, input) in closure.inputs.iter().enumerate() {
            let (pat, ty) = match input {
                syn::Pat::Type(pt) => (&*pt.pat, Some((*pt.ty).clone())),
                other => (other, None),
            };
            let name = match pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    pi.ident.to_string()
                }
                other => {
                    errors.push_spanned(other, crate::diag::CLOSURE_PARAMETER_PATTERN);
                    format!("_{i}")
                }
            };
            let differentiable = ty
                .as_ref()
                .is_none_or(|t| is_differentiable_type(t, &syn::Generics::default(), &[]));
            let ty = ty.unwrap_or(syn::Type::Infer(syn::TypeInfer {
                underscore_token: Default::default(),
            }));
            params.push(Param {
                label: name.clone(),
                name,
                ty: ty.clone(),
                ty_named: ty,
                differentiable,
                by_ref: false,
                shadow: None,
                in_out: false,
                mutable: matches!(pat, syn::Pat::Ident(pi) if pi.mutability.is_some()),
            });
        }
        let output = match &closure.output {
            syn::ReturnType::Type(_, ty) => (**ty).clone(),
            syn::ReturnType::Default => syn::Type::Infer(syn::TypeInfer {
                underscore_token: Default::default(),
            }),
        };
        Signature {
            ident: syn::Ident::new("closure", proc_macro2::Span::call_site()),
            params,
            output,
            generics: syn::Generics::default(),
            generics_named: syn::Generics::default(),
            is_method: false,
            rerun_calls: false,
            inline_sweeps: false,
            type_params: Vec::new(),
            converted: Vec::new(),
        }
    }

    pub fn differentiable_positions(&self) -> Vec<usize> {
        (0..self.params.len())
            .filter(|&i| self.params[i].differentiable)
            .collect()
    }

    /// The tangent types of every parameter, `NoTangent` for constants.
    pub fn param_tangents(&self) -> Vec<TokenStream> {
        self.params
            .iter()
            .map(|p| {
                if p.differentiable {
                    tangent_type(&p.ty)
                } else {
                    quote!(::autodiff::__private::NoTangent)
                }
            })
            .collect()
    }

    /// What a user-facing pullback returns: the bare gradient of the one differentiable
    /// parameter, or a tuple of them in signature order.
    pub fn selected_tangents(&self) -> TokenStream {
        let all = self.param_tangents();
        let chosen: Vec<_> = self
            .differentiable_positions()
            .into_iter()
            .map(|i| all[i].clone())
            .collect();
        if chosen.len() == 1 {
            chosen[0].clone()
        } else {
            quote!((#(#chosen,)*))
        }
    }

    /// `use<…>` naming every generic of `generics_named`, for the opaque pullback type.
    ///
    /// The lifetimes of `&mut` parameters are left out: a pullback never keeps the
    /// exclusive borrow (its shadow comes with the cotangent), so the caller may use the
    /// buffer again as soon as the call returns.
    pub fn precise_captures(&self) -> TokenStream {
        let mut exclusive = Vec::new();
        for p in self.params.iter().filter(|p| p.in_out) {
            if let syn::Type::Reference(r) = &p.ty_named {
                exclusive.extend(r.lifetime.clone());
            }
        }
        let names = self.generics_named.params.iter().filter_map(|p| match p {
            syn::GenericParam::Lifetime(l) if exclusive.contains(&l.lifetime) => None,
            syn::GenericParam::Lifetime(l) => Some(l.lifetime.to_token_stream()),
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
        });
        quote!(use<#(#names),*>)
    }

    /// Whether a parameter is written through (`&mut`).
    pub fn has_in_out(&self) -> bool {
        self.params.iter().any(|p| p.in_out)
    }
}

/// The type of an output's tangent as forward mode returns it: the output's own type,
/// except that an `Option<T>` or `Result<T, E>` has `T`'s (the value carries the
/// derivative, `None` and the error path none).
pub fn output_tangent_type(ty: &syn::Type, generics: &syn::Generics) -> syn::Type {
    let projected = || syn::parse_quote!(<#ty as ::autodiff::__private::Differentiable>::Tangent);
    match ty {
        syn::Type::Paren(p) => output_tangent_type(&p.elem, generics),
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            let elems = t.elems.iter().map(|e| output_tangent_type(e, generics));
            syn::parse_quote!((#(#elems,)*))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return ty.clone();
            };
            if last.ident == "Option" || last.ident == "Result" {
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(inner)) = a.args.first() {
                        return output_tangent_type(inner, generics);
                    }
                }
            }
            // nalgebra's points (a vector's tangent) and unit quaternions (a quaternion)
            let name = last.ident.to_string();
            let args = !matches!(last.arguments, syn::PathArguments::None);
            if args && (name.starts_with("Point") || name == "OPoint" || name.starts_with("Unit")) {
                return projected();
            }
            // a derived struct (`State`, `Params<T>`, `Self`): its `…Tangent`; floats,
            // integers, `Vec`s, ndarray's and nalgebra's arrays and type parameters are their
            // own tangents (the forward mode's reading of parameters, `emit::struct_param_type`)
            let type_params: Vec<syn::Ident> =
                generics.type_params().map(|t| t.ident.clone()).collect();
            if !prims::is_constant_type_name(&name)
                && crate::emit::struct_param_type(ty, &type_params)
            {
                projected()
            } else {
                ty.clone()
            }
        }
        _ => ty.clone(),
    }
}

/// `impl Trait` in a parameter's type (`f: impl Fn(usize) -> f64`, `it: &mut impl
/// Iterator<Item = f64>`) named as the type parameter it is (`__AutodiffImpl0: Fn(usize) ->
/// f64`), which the companions can then name, call and forward as any generic parameter.
/// The function means what it meant; only a caller's turbofish, which could not name the
/// `impl Trait` parameters, would now have to.
pub(crate) fn name_impl_trait_parameters(sig: &mut syn::Signature) {
    struct Name<'a> {
        generics: &'a mut Vec<syn::GenericParam>,
    }
    impl syn::visit_mut::VisitMut for Name<'_> {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            syn::visit_mut::visit_type_mut(self, ty);
            if let syn::Type::ImplTrait(t) = ty {
                let name = quote::format_ident!("__AutodiffImpl{}", self.generics.len());
                let bounds = &t.bounds;
                self.generics.push(syn::parse_quote!(#name: #bounds));
                *ty = syn::parse_quote!(#name);
            }
        }
    }
    let mut named = Vec::new();
    for input in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pt) = input {
            if contains_impl_trait(&pt.ty) {
                syn::visit_mut::VisitMut::visit_type_mut(
                    &mut Name {
                        generics: &mut named,
                    },
                    &mut pt.ty,
                );
            }
        }
    }
    sig.generics.params.extend(named);
}

/// Takes away the invisible groups a `macro_rules!` puts around a type it was handed
/// (`$t:ty`), so that the type reads as written: `&[$t]` with `$t` = `f64` is a slice of
/// `f64` to every test of a type (a trait object or `impl` type keeps parentheses, which
/// group it alike).
struct Ungroup;

impl syn::visit_mut::VisitMut for Ungroup {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        while let syn::Type::Group(g) = ty {
            let elem = (*g.elem).clone();
            *ty = match elem {
                syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => {
                    syn::Type::Paren(syn::TypeParen {
                        paren_token: Default::default(),
                        elem: Box::new(elem),
                    })
                }
                other => other,
            };
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The function without the invisible groups around its types, in its signature and its
/// body (`let s: $t`, `x as $t`, `Vec<$t>`; see [`Ungroup`]), before anything reads it.
pub fn ungroup_types(func: &mut syn::ItemFn) {
    syn::visit_mut::VisitMut::visit_item_fn_mut(&mut Ungroup, func);
}

/// [`ungroup_types`] for a method of an annotated `impl` block.
pub fn ungroup_method_types(method: &mut syn::ImplItemFn) {
    syn::visit_mut::VisitMut::visit_impl_item_fn_mut(&mut Ungroup, method);
}
