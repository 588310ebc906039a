//! `#[differentiable]`: parse → check → lower → emit.

use crate::companions::{companion, companions, type_and_const_args, Place, Pullback};
use crate::diag::Errors;
use crate::emit::{reborrow_body, vjp_body, vjp_into_body};
use crate::fuse::{seeded_body, tail_body};
use crate::lower::lower;
use crate::signature::{tangent_type, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The attribute's arguments: nothing; `vjp = path` for a custom rule, `jvp = path` for its
/// forward rule; `self` for a method differentiable with respect to its receiver;
/// `recursive` for a function in a cycle of calls (see [`Signature::rerun_calls`]).
#[derive(Default)]
pub(crate) struct Args {
    pub custom_vjp: Option<syn::ExprPath>,
    pub custom_jvp: Option<syn::ExprPath>,
    pub wrt_self: bool,
    pub recursive: bool,
    /// `second_order` (where it is written): a copy generic over the float type serves
    /// `hvp!` and `hessian!`.
    pub second_order: Option<Span>,
    /// The copy, once written (see [`crate::second_order`]).
    pub copy: Option<crate::second_order::Copy>,
}

impl Args {
    /// The same arguments without `self`: an `impl` block's, for its associated functions
    /// (`self` is for the methods with a receiver). Before any copy is written.
    pub(crate) fn without_self(&self) -> Args {
        Args {
            custom_vjp: self.custom_vjp.clone(),
            custom_jvp: self.custom_jvp.clone(),
            wrt_self: false,
            recursive: self.recursive,
            second_order: self.second_order,
            copy: None,
        }
    }
}

pub(crate) fn parse_args(args: TokenStream) -> syn::Result<Args> {
    let mut out = Args::default();
    if args.is_empty() {
        return Ok(out);
    }
    let parser = |input: syn::parse::ParseStream| -> syn::Result<Args> {
        while !input.is_empty() {
            if input.peek(syn::Token![self]) {
                input.parse::<syn::Token![self]>()?;
                out.wrt_self = true;
            } else {
                let key: syn::Ident = input.parse()?;
                match key.to_string().as_str() {
                    "recursive" => out.recursive = true,
                    "second_order" => out.second_order = Some(key.span()),
                    "vjp" | "jvp" => {
                        input.parse::<syn::Token![=]>()?;
                        let rule = Some(input.parse()?);
                        if key == "vjp" {
                            out.custom_vjp = rule;
                        } else {
                            out.custom_jvp = rule;
                        }
                    }
                    _ => {
                        return Err(syn::Error::new(
                            key.span(),
                            crate::diag::unknown_attribute_argument(&key),
                        ))
                    }
                }
            }
            if !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
            }
        }
        Ok(out)
    };
    syn::parse::Parser::parse2(parser, args)
}

/// `#[differentiable]` on a function: the function as written and its companions, or —
/// when anything cannot be differentiated — the function as written (without the
/// attribute's own markers) and every error at its span, so one mistake neither cascades
/// into follow-on errors nor leaves editors without the function. On an `impl` block:
/// every method of it (see [`impl_block`]).
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e_impl = match syn::parse2::<syn::ItemImpl>(item.clone()) {
                Ok(block) => return crate::impls::impl_block(args, block),
                Err(e_impl) => e_impl,
            };
            // A function or `impl` that does not parse: a body being typed, in an editor
            // (the compiler itself parses an item before its attribute runs). The item as
            // written, so completion and hover keep working inside it, and the parser's
            // error where it stopped.
            let unread = match leading_keyword(&item) {
                Some("fn") => Some((e, "function")),
                Some(_) => Some((e_impl, "`impl` block")),
                None => None,
            };
            if let Some((e, what)) = unread {
                let err = syn::Error::new(
                    e.span(),
                    format!("`#[differentiable]` could not read this {what}: {e}"),
                )
                .to_compile_error();
                return quote!(#err #item);
            }
            let err = syn::Error::new(
                Span::call_site(),
                "`#[differentiable]` applies to functions (`fn name(x: f64) -> f64 { … }`) \
                 and `impl` blocks",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    crate::signature::ungroup_types(&mut func);
    crate::signature::name_impl_trait_parameters(&mut func.sig);
    let original_sig = func.sig.clone();
    strip_markers(&mut func.sig);
    let mut args = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            let mut errors = Errors::default();
            errors.push_error(e);
            return fallback(&func, &errors);
        }
    };
    // `second_order`: the generic copy; a function generic over its float type: the name
    // copies call it by
    let copy_tokens = match args.second_order {
        Some(at) => match crate::second_order::expand_copy(&args, &func, &original_sig, at) {
            Ok((copy, tokens)) => {
                args.copy = Some(copy);
                tokens
            }
            Err(errors) => return fallback(&func, &errors),
        },
        None => crate::second_order::alias(&func).unwrap_or_default(),
    };
    match try_expand(&args, func.clone(), &original_sig, None) {
        Ok(Expanded {
            func, companions, ..
        }) => quote! {
            #func
            #companions
            #copy_tokens
        },
        Err(errors) => fallback(&func, &errors),
    }
}

/// `fn` or `impl`, whichever comes first among the tokens before the item's body
/// (attributes, visibility and qualifiers first).
fn leading_keyword(item: &TokenStream) -> Option<&'static str> {
    use proc_macro2::{Delimiter, TokenTree};
    item.clone()
        .into_iter()
        .take_while(|t| !matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
        .find_map(|t| match &t {
            TokenTree::Ident(i) if i == "fn" => Some("fn"),
            TokenTree::Ident(i) if i == "impl" => Some("impl"),
            _ => None,
        })
}

/// The signature as written keeps `#[no_grad]`, read by this attribute only; the primal
/// must not see the marker.
pub(crate) fn strip_markers(sig: &mut syn::Signature) {
    for input in sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| !a.path().is_ident("no_grad"));
        }
    }
}

/// The function as written, and the errors.
fn fallback(func: &syn::ItemFn, errors: &Errors) -> TokenStream {
    let errors = errors.to_compile_errors();
    quote!(#errors #func)
}

/// A differentiable function: the primal (as written, answering the implicit helpers when
/// it is an entry point) and its companions.
pub(crate) struct Expanded {
    pub func: syn::ItemFn,
    pub companions: TokenStream,
    /// Whether the function has a fused gradient (`__seeded`).
    pub fused: bool,
    /// The parameters its split sweep (`__seeded_split`, `fuse::split`) takes apart.
    pub split: Option<Vec<usize>>,
}

/// What a method of an annotated `impl` block brings from the block: the generics of the
/// `impl` (which the signature's float type parameters may be), and which of them stay on
/// the `impl` that holds the companions (those the self type names).
pub(crate) struct ImplContext<'a> {
    pub generics: &'a syn::Generics,
    pub kept: &'a [syn::Ident],
    /// The kept generics as a `use<…>` list names them (`'a`, `T`).
    pub captures: Vec<TokenStream>,
    pub place: Place,
}

pub(crate) fn try_expand(
    args: &Args,
    mut func: syn::ItemFn,
    original_sig: &syn::Signature,
    context: Option<&ImplContext>,
) -> Result<Expanded, Errors> {
    let mut errors = Errors::default();
    let mut parsed_sig = original_sig.clone();
    if let Some(cx) = context {
        parsed_sig.generics = crate::impls::merge_generics(cx.generics, &original_sig.generics);
    }
    let Some(mut sig) = Signature::parse(&parsed_sig, &mut errors) else {
        return Err(errors);
    };
    sig.rerun_calls = args.recursive;
    // The companions are named at the attribute, not at the function's name: an editor
    // maps a token to every token of the expansion with its span, and hovering the name
    // would otherwise list the companion struct and each of its items beside the function.
    sig.ident.set_span(Span::call_site());
    crate::signature::bind_parameter_patterns(&mut func);
    crate::signature::matched_enums_are_constants(&mut sig, &func.block);
    if args.wrt_self {
        match sig.params.iter_mut().find(|p| p.name == "self") {
            Some(p) => p.differentiable = true,
            None => errors.push(
                Span::call_site(),
                "`#[differentiable(self)]` is for methods with a `self` receiver",
            ),
        }
    }
    // An associated function without `self` that mentions `Self` lives in an `impl`: its
    // companions are siblings there too (a companion struct cannot go in an `impl`).
    if !sig.is_method && (context.is_some() || mentions_self(&func)) {
        sig.is_method = true;
    }
    // Reads of captured names and constant parameters' fields go through the runtime's
    // source dispatch, in the primal and in the derivative alike.
    let locals = sig.params.iter().map(|p| p.name.clone()).collect();
    let differentiable = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| p.name.clone())
        .collect();
    if args.custom_vjp.is_none() {
        crate::sources::mark(&mut func.block, locals, differentiable);
    }
    let mut sweep = None;
    let mut split = None;
    let mut reads_no_variable = false;
    let (vjp_fn_body, seeded) = match &args.custom_vjp {
        Some(rule) => (Pullback::Custom(custom_rule_body(&sig, rule)), None),
        None => {
            let body = lower(&sig, &sig.generics, &func.block, &mut errors);
            sig.inline_sweeps = crate::companions::small_enough_to_inline(&body);
            reads_no_variable = !sig.is_method && reads_no_variable_ir(&sig, &body);
            sweep = Some(crate::emit::jvp_body(&sig, &body));
            (
                match reborrow_body(&sig, &body) {
                    Some((reborrow, false)) => Pullback::Reborrow(reborrow),
                    Some((reborrow, true)) => Pullback::Both {
                        into: vjp_into_body(&sig, &body),
                        reborrow,
                    },
                    None => Pullback::Generated(vjp_into_body(&sig, &body)),
                },
                // (a function writing through `&mut` parameters has no fused form)
                (!sig.has_in_out())
                    .then(|| {
                        let fused = seeded_body(&sig, &body);
                        // (`hvp!`'s split sweep, of a loop fused here)
                        split = fused
                            .as_ref()
                            .and_then(|_| crate::fuse::split_body(&sig, &body));
                        fused.or_else(|| tail_body(&sig, &body))
                    })
                    .flatten(),
            )
        }
    };
    if let Some(rule) = &args.custom_jvp {
        sweep = Some(crate::forward::custom_rule_sweep(&sig, rule));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // The `impl`'s own generics are the `impl`'s, not the companions'.
    if let Some(cx) = context {
        crate::impls::drop_impl_generics(&mut sig, cx);
    }
    // `__vjp` (and `vjp!`'s and `jacobian!`'s entry points) the runtime's, through the
    // function's `Sig` impl (see `runtime::entry`)
    let runtime_vjp = args.custom_vjp.is_none() && crate::companions::entry_kinds(&sig).is_some();
    // (a `const fn` can read no variable and call no function that does: it answers no
    // request, and stays callable in constants)
    // (nor one with a parameter of a converted type, `T: Into<f64>`: its derivative takes
    // integers only there, see `converted_type_params`)
    if sig.answers_requests() && func.sig.constness.is_none() && sig.converted.is_empty() {
        // An entry point answers the implicit helpers and the tape (one thread-local read).
        let vjp = companion(&sig.ident, "vjp", sig.is_method);
        let ident = &sig.ident;
        let owner = if sig.is_method {
            quote!(Self::)
        } else if runtime_vjp {
            let entries = format_ident!("Entries{}", sig.params.len());
            quote!(<#ident as ::autodiff::__private::entry::#entries>::)
        } else {
            quote!(#ident::)
        };
        let turbofish = type_and_const_args(&sig.generics);
        let names = param_idents(&sig, func.sig.inputs.iter().filter_map(typed_pat));
        let prologue: syn::Stmt = if reads_no_variable {
            // A function that can read no variable answers by running as written: its
            // derivative would deposit nothing, and it is not compiled for the request.
            syn::parse_quote! {
                if ::autodiff::__private::implicit::requested() {
                    return ::autodiff::__private::implicit::answer_plain(
                        || #ident #turbofish(#(#names),*)
                    );
                }
            }
        } else {
            syn::parse_quote! {
                if ::autodiff::__private::implicit::requested() {
                    return ::autodiff::__private::implicit::answer(
                        || #owner #vjp #turbofish(#(#names),*)
                    );
                }
            }
        };
        // (a parameter of a type the macro cannot see is differentiable: the guard and the
        // prologue at the type, so that a type that is not is one error there; see
        // `plain_types`)
        let guarded = crate::plain_types::plain_guard(&sig).and_then(|g| {
            let (guard, prologue) = (&g.guard, g.at_type(quote!(#prologue)));
            syn::parse2::<syn::Block>(quote!({ #guard #prologue })).ok()
        });
        match guarded {
            Some(block) => {
                func.block.stmts.splice(0..0, block.stmts);
            }
            None => func.block.stmts.insert(0, prologue),
        }
    }
    let place = match context {
        Some(cx) => cx.place,
        None if sig.is_method => Place::Method,
        None => Place::Free,
    };
    let vis = match place {
        // a trait's methods are as visible as the trait: their companions are public
        Place::TraitImpl => syn::parse_quote!(pub),
        _ => func.vis.clone(),
    };
    let outer: Vec<TokenStream> = context.map(|cx| cx.captures.clone()).unwrap_or_default();
    let custom = args.custom_vjp.is_some();
    // (a function with a hand-written forward rule, or whose own tangent sweep has no
    // refusal: `jacobian!` may fill its columns by forward mode, its callees permitting)
    let forward_sweep = sweep.as_ref().is_some_and(|s| s.refusal.is_none());
    let (mut forward, forward_impl) = crate::forward::companions(&sig, &outer, &vis, sweep);
    let fused = seeded.is_some();
    let (second, split) = crate::hessian::companions(
        &sig,
        &outer,
        &vis,
        custom,
        fused,
        args.copy.as_ref(),
        split.as_ref(),
    );
    forward.extend(second);
    forward.extend(crate::jacobian::companions(
        &sig,
        &vis,
        forward_sweep,
        runtime_vjp,
    ));
    let companions = companions(
        &sig,
        place,
        &outer,
        &vis,
        vjp_fn_body,
        seeded,
        (forward, forward_impl),
    );
    Ok(Expanded {
        func,
        companions,
        fused,
        split,
    })
}

/// `differentiable_closure!(|x: f64| …)`: an ordinary closure that also answers the
/// implicit helpers and the tape, its derivative generated inline.
pub fn closure(input: TokenStream) -> TokenStream {
    let mut closure: syn::ExprClosure = match syn::parse2(input.clone()) {
        Ok(c) => c,
        Err(e) => {
            let err =
                syn::Error::new(e.span(), crate::diag::CLOSURE_MACRO_INPUT).to_compile_error();
            return err;
        }
    };
    let mut errors = Errors::default();
    let sig = Signature::for_closure(&closure, &mut errors);
    let mut block: syn::Block = match &*closure.body {
        syn::Expr::Block(b) if b.label.is_none() => b.block.clone(),
        other => expr_block(other),
    };
    let locals = sig.params.iter().map(|p| p.name.clone()).collect();
    let differentiable = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| p.name.clone())
        .collect();
    crate::sources::mark(&mut block, locals, differentiable);
    let body = lower(&sig, &sig.generics, &block, &mut errors);
    if !errors.is_empty() {
        let errs = errors.to_compile_errors();
        return quote!({ #errs #input });
    }
    let vjp = vjp_body(&sig, &body);
    let names = param_idents(&sig, closure.inputs.iter());
    let bind = names.iter().enumerate().map(|(i, name)| {
        let v = crate::ir::VarId(i).ident();
        quote!(let #v = #name;)
    });
    let stmts = &block.stmts;
    *closure.body = syn::parse_quote!({
        if ::autodiff::__private::implicit::requested() {
            return ::autodiff::__private::implicit::answer(|| {
                #(#bind)*
                #vjp
            });
        }
        #(#stmts)*
    });
    quote!(#closure)
}

/// Whether a free function can read no `Variable`, so no implicit request or tape needs
/// its derivative: every parameter is of a plain numeric type (a float, an integer, a
/// `bool`, and slices, arrays, `Vec`s, tuples and ndarray arrays of them, borrowed or not),
/// and its body reads no captured name or constant parameter's field through the source
/// dispatch and calls no other differentiable function (which could). Anything else keeps
/// the derivative's answer.
fn reads_no_variable_ir(sig: &Signature, body: &crate::ir::Body) -> bool {
    sig.params.iter().all(|p| plain_type(&p.ty))
        && crate::ir::definitions(&body.block)
            .values()
            .all(|rhs| !matches!(rhs, crate::ir::Rhs::Call { .. } | crate::ir::Rhs::Source(_)))
}

/// A float, an integer, a `bool`, or a slice, array, `Vec`, tuple or ndarray array of
/// them, borrowed or not.
fn plain_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => plain_type(&r.elem),
        syn::Type::Paren(p) => plain_type(&p.elem),
        syn::Type::Group(g) => plain_type(&g.elem),
        syn::Type::Slice(s) => plain_type(&s.elem),
        syn::Type::Array(a) => plain_type(&a.elem),
        syn::Type::Tuple(t) => t.elems.iter().all(plain_type),
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(i) = p.path.get_ident() {
                let name = i.to_string();
                return crate::rules::is_float_type_name(&name)
                    || crate::rules::is_constant_type_name(&name);
            }
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            let container = name == "Vec"
                || name.strip_prefix("Array").is_some_and(|rest| {
                    let rest = rest
                        .strip_prefix("ViewMut")
                        .or_else(|| rest.strip_prefix("View"))
                        .unwrap_or(rest);
                    rest.is_empty() || rest == "D" || rest.parse::<u8>().is_ok_and(|d| d <= 6)
                });
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return false;
            };
            container
                && args.args.iter().all(|a| match a {
                    syn::GenericArgument::Type(t) => plain_type(t),
                    syn::GenericArgument::Lifetime(_) => true,
                    _ => false,
                })
        }
        _ => false,
    }
}

/// The parameters' names as the body sees them: each parameter's own identifier where it
/// is one (its span keeps its hygiene: a function a `macro_rules!` writes from names its
/// caller gives reads them with the caller's), else one made from the name.
fn param_idents<'a>(sig: &Signature, pats: impl Iterator<Item = &'a syn::Pat>) -> Vec<syn::Ident> {
    let mut pats = pats;
    sig.params
        .iter()
        .map(|p| match pats.next() {
            Some(syn::Pat::Ident(pi)) if pi.ident == p.name.as_str() => pi.ident.clone(),
            Some(syn::Pat::Type(pt)) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.ident == p.name.as_str() => pi.ident.clone(),
                _ => name_ident(&p.name),
            },
            _ => name_ident(&p.name),
        })
        .collect()
}

/// A typed parameter's pattern (not the receiver).
fn typed_pat(arg: &syn::FnArg) -> Option<&syn::Pat> {
    match arg {
        syn::FnArg::Typed(pt) => Some(&pt.pat),
        syn::FnArg::Receiver(_) => None,
    }
}

/// A parameter's name as an identifier (a raw one, `r#fn`, included).
fn name_ident(name: &str) -> syn::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, Span::call_site()),
        None => syn::Ident::new(name, Span::call_site()),
    }
}

/// A closure's body `e` as a block `{ e }` that reads back as written: in parentheses
/// where a statement would end early (`{ match … {} ^= y }` would read as two statements).
pub fn expr_block(e: &syn::Expr) -> syn::Block {
    syn::parse2(quote!({ #e })).unwrap_or_else(|_| syn::parse_quote!({ (#e) }))
}

/// `#[differentiable(vjp = rule)]`: `rule` has the function's parameters and returns
/// `(value, pullback)`, the pullback giving the gradients of the differentiable parameters
/// (bare when there is one), as `vjp!` does. The generated `__vjp` adapts it.
fn custom_rule_body(sig: &Signature, rule: &syn::ExprPath) -> TokenStream {
    let rt = quote!(::autodiff::__private);
    let vars: Vec<syn::Ident> = (0..sig.params.len())
        .map(|i| crate::ir::VarId(i).ident())
        .collect();
    let positions = sig.differentiable_positions();
    let gnames: Vec<syn::Ident> = positions
        .iter()
        .map(|i| format_ident!("__g{}", i, span = Span::mixed_site()))
        .collect();
    let pattern = if gnames.len() == 1 {
        quote!(#(#gnames)*)
    } else {
        quote!((#(#gnames,)*))
    };
    let all = (0..sig.params.len()).map(|i| match positions.iter().position(|p| *p == i) {
        Some(k) => {
            let g = &gnames[k];
            quote!(#g)
        }
        None => quote!(#rt::NoTangent),
    });
    let selected = sig.selected_tangents();
    let out_tangent = tangent_type(&sig.output);
    let output = &sig.output;
    quote! {
        let (__value, __pullback): (#output, _) = #rule(#(#vars),*);
        (__value, move |__dy: #out_tangent| {
            let #pattern: #selected = __pullback(__dy);
            (#(#all,)*)
        })
    }
}

/// Whether `Self` appears in the function (its signature or body).
fn mentions_self(func: &syn::ItemFn) -> bool {
    fn scan(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(id) => id == "Self",
            proc_macro2::TokenTree::Group(g) => scan(g.stream()),
            _ => false,
        })
    }
    scan(quote!(#func))
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// A body being typed (what an editor expands while the user types): the function as
    /// written, so completion inside it keeps working, and one error saying where the
    /// parser stopped — not the message for an attribute on something else.
    #[test]
    fn a_half_typed_function_is_kept_with_the_parsers_error() {
        let item = quote! {
            pub fn loss(x: &[f64], w: f64) -> f64 {
                let y = x.
            }
        };
        let out = super::differentiable(quote!(), item.clone()).to_string();
        assert!(out.contains("could not read this function"), "{out}");
        assert!(
            out.contains(&item.to_string()),
            "the function as written: {out}"
        );
        assert!(!out.contains("applies to functions"), "{out}");
        assert_eq!(out.matches("compile_error").count(), 1, "{out}");

        let block = quote! {
            impl Model {
                fn loss(&self, x: f64) -> f64 { self.w * }
            }
        };
        let out = super::differentiable(quote!(), block.clone()).to_string();
        assert!(out.contains("could not read this `impl` block"), "{out}");
        assert!(
            out.contains(&block.to_string()),
            "the block as written: {out}"
        );
    }
}
