//! `#[differentiable(second_order)]`: `hvp!` and `hessian!` of a function written with
//! concrete `f64`.
//!
//! Second order runs a function's generated gradient on dual numbers (see `hessian.rs`),
//! which needs the function generic over its float type. For a function written with `f64`
//! the attribute, when asked, writes a copy of it generic over `__F` — every `f64` of its
//! types (and casts) written `__F`, each float literal and `f64` constant (`f64::EPSILON`,
//! `std::f64::consts::PI`, a `const`/`static` named in capitals) converted to `__F` — and
//! differentiates the copy as it does generic code; its calls of the crate's functions call
//! their copies (a generic function answers to its copy's name through a `use` alias, see
//! [`alias`]). The function's `hvp!` and `hessian!` run the copy's gradient on
//! `Dual<f64>`. It is asked for, not automatic: the copy is a second function to
//! type-check, and what the copy cannot follow (a call of a helper written with `f64` and
//! not marked, `x as f32` of a float) fails in the copy only.

use crate::diag::Errors;
use crate::expand::{strip_markers, try_expand, Args, Expanded};
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The name of a function's generic copy.
pub fn copy_ident(name: &syn::Ident) -> syn::Ident {
    format_ident!("__autodiff_so_{}", name, span = name.span())
}

/// Whether the function is one a copy serves: a free function without type parameters
/// whose result is `f64`, an `Option` or `Result` of it, or nothing (helpers, which marked
/// callers' copies call).
pub fn applies(func: &syn::ItemFn) -> bool {
    let no_types = func
        .sig
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    let returns_f64 = match &func.sig.output {
        syn::ReturnType::Type(_, t) => is_f64_or_wrapped(t),
        syn::ReturnType::Default => true,
    };
    no_types && returns_f64 && func.sig.receiver().is_none()
}

/// `f64`, `Option<f64>`, `Result<f64, E>` or `[f64; N]`.
fn is_f64_or_wrapped(ty: &syn::Type) -> bool {
    if let syn::Type::Array(a) = ty {
        return matches!(&*a.elem, syn::Type::Path(t) if t.path.is_ident("f64"));
    }
    let syn::Type::Path(p) = ty else {
        return false;
    };
    if p.path.is_ident("f64") {
        return true;
    }
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    let first = args.args.first();
    matches!(last.ident.to_string().as_str(), "Option" | "Result")
        && matches!(first, Some(syn::GenericArgument::Type(syn::Type::Path(t))) if t.path.is_ident("f64"))
}

/// The generic copy of `func` (its signature as written, `#[no_grad]` markers kept).
pub fn generic_copy(func: &syn::ItemFn) -> syn::ItemFn {
    let mut copy = func.clone();
    copy.attrs = vec![syn::parse_quote!(#[doc(hidden)])];
    copy.sig.ident = copy_ident(&func.sig.ident);
    copy.sig
        .generics
        .params
        .push(syn::parse_quote!(__F: ::autodiff::__private::Real
            + ::core::ops::AddAssign
            + ::core::ops::SubAssign
            + ::core::ops::MulAssign
            + ::core::ops::DivAssign
            + ::core::ops::RemAssign
            + ::autodiff::__private::ndarray::ScalarOperand
            + ::autodiff::num_traits::FromPrimitive));
    // what code written for `f64` does with floats that a type parameter must be told:
    // operators on references, sums and products of iterators
    let ops = ["Add", "Sub", "Mul", "Div", "Rem"].map(|o| format_ident!("{}", o));
    let predicates: [syn::WherePredicate; 3] = [
        syn::parse_quote!(for<'__autodiff_r> &'__autodiff_r __F:
            #(::core::ops::#ops<__F, Output = __F>
                + ::core::ops::#ops<&'__autodiff_r __F, Output = __F>)+*),
        syn::parse_quote!(for<'__autodiff_r> __F:
            #(::core::ops::#ops<&'__autodiff_r __F, Output = __F>)+*
            + ::core::iter::Sum<&'__autodiff_r __F>
            + ::core::iter::Product<&'__autodiff_r __F>),
        syn::parse_quote!(__F: ::core::iter::Sum + ::core::iter::Product),
    ];
    copy.sig
        .generics
        .make_where_clause()
        .predicates
        .extend(predicates);
    let mut locals = Locals::default();
    locals.visit_signature(&func.sig);
    locals.visit_block(&func.block);
    let mut retype = Retype {
        locals: locals.names,
    };
    retype.visit_signature_mut(&mut copy.sig);
    retype.visit_block_mut(&mut copy.block);
    copy
}

struct Retype {
    /// Every name the function binds (parameters, `let`s, closures' and loops' patterns):
    /// a call of one (a local closure) is not a call of another function.
    locals: std::collections::HashSet<String>,
}

/// The names a function binds, wherever they are in scope.
#[derive(Default)]
struct Locals {
    names: std::collections::HashSet<String>,
}

impl<'ast> syn::visit::Visit<'ast> for Locals {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// The name of a function's copy, or of the function itself when it is generic over its
/// float type (`#[differentiable]` then names it so, see [`alias`]).
fn callee_copy(path: &mut syn::Path, locals: &std::collections::HashSet<String>) {
    let segs = &path.segments;
    let Some(last) = segs.last() else { return };
    let snake = |name: &str| {
        name.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    // (`crate`, `self`, `super` and module names are all in snake case)
    let module_path = segs
        .iter()
        .rev()
        .skip(1)
        .all(|s| snake(&s.ident.to_string()));
    let first = segs[0].ident.to_string();
    let foreign = path.leading_colon.is_some()
        || matches!(first.as_str(), "std" | "core" | "alloc" | "autodiff");
    let name = last.ident.to_string();
    let function_name = snake(&name);
    let kept = matches!(name.as_str(), "stop_gradient" | "drop")
        || (segs.len() == 1 && locals.contains(&name));
    if module_path && !foreign && function_name && !kept && last.arguments.is_empty() {
        if let Some(last) = path.segments.last_mut() {
            last.ident = copy_ident(&last.ident);
        }
    }
}

/// `use f as __autodiff_so_f;` for a free function generic over its float type (`None`
/// for another): a copy's calls of `f` reach it by the copy's name.
pub fn alias(func: &syn::ItemFn) -> Option<TokenStream> {
    let output = match &func.sig.output {
        syn::ReturnType::Type(_, t) => Some(&**t),
        syn::ReturnType::Default => None,
    };
    let floats = crate::signature::float_type_params(&func.sig.generics, output);
    if floats.is_empty() || func.sig.receiver().is_some() {
        return None;
    }
    let (vis, ident) = (&func.vis, &func.sig.ident);
    let copy = copy_ident(ident);
    Some(quote! {
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #ident as #copy;
    })
}

/// `#[differentiable(second_order)]` (written at `at`) on `func`, whose signature as written
/// (with its `#[no_grad]` markers) is `original_sig`: what the function's `hvp!` and
/// `hessian!` run, and the copy's expansion; or the error of a function the marker is not
/// for.
pub(crate) fn expand_copy(
    args: &Args,
    func: &syn::ItemFn,
    original_sig: &syn::Signature,
    at: Span,
) -> Result<(Copy, TokenStream), Errors> {
    let mut as_written = func.clone();
    as_written.sig = original_sig.clone();
    if !applies(&as_written) {
        let mut errors = Errors::default();
        errors.push(
            at,
            "`second_order` is for a free function written with `f64` and returning `f64` \
             (or an `Option` or `Result` of it, a `[f64; N]` array, or nothing: helpers of \
             marked functions); a function generic over its float type (`fn f<T: Float>`) \
             has `hvp!` and `hessian!` without it",
        );
        return Err(errors);
    }
    let copy = generic_copy(&as_written);
    let copy_sig = copy.sig.clone();
    let mut copy_func = copy;
    strip_markers(&mut copy_func.sig);
    let copy_args = Args {
        recursive: args.recursive,
        ..Args::default()
    };
    let ident = copy_func.sig.ident.clone();
    Ok(match try_expand(&copy_args, copy_func, &copy_sig, None) {
        Ok(Expanded {
            mut func,
            companions,
            fused,
            split,
        }) => (
            Copy::Ready {
                ident,
                fused,
                split,
            },
            {
                let mut lefts = ScalarLefts::of(&as_written);
                lefts.visit_block_mut(&mut func.block);
                quote! {
                    #[allow(dead_code, non_snake_case, unused, clippy::all, clippy::pedantic)]
                    #func
                    #companions
                }
            },
        ),
        Err(errors) => (
            Copy::Failed(format!(
                "`{}` written generic over its float type cannot be differentiated: {}",
                func.sig.ident,
                errors.first_message().unwrap_or_default()
            )),
            TokenStream::new(),
        ),
    })
}

/// A scalar on the left of `+ - * /` in the copy's body, written `ScalarLeft(s)` (see the
/// runtime's `ops::tensor::ScalarLeft`): `s * &a` of a float and an ndarray array, which
/// ndarray has for `f64` but not for a type parameter. A scalar is what the copy shows to be
/// one: a float literal or `f64` constant (converted), a name bound once with type `f64` (a
/// parameter, `let s: f64`) or to a scalar, an element (`x[i]`), a sum (`a.sum()`,
/// `a.mean().unwrap()`) or a dot product, a cast to the float type, and negations, float
/// methods and arithmetic of these. (A dot product or an element may be an array or an
/// integer: `ScalarLeft` of one forwards to its own operators.) Only the copy's own body is
/// rewritten, which must compile though `hvp!` never runs it; the code the macro
/// differentiates writes its operators through `ops::tensor`.
struct ScalarLefts {
    scalars: std::collections::HashSet<String>,
    /// The names bound once in the function.
    once: std::collections::HashSet<String>,
}

impl ScalarLefts {
    /// The names bound once in `func` (as written), with type `f64`.
    fn of(func: &syn::ItemFn) -> Self {
        #[derive(Default)]
        struct Names {
            typed: std::collections::HashSet<String>,
            bound: std::collections::HashMap<String, usize>,
        }
        impl<'ast> Visit<'ast> for Names {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                *self.bound.entry(p.ident.to_string()).or_default() += 1;
                syn::visit::visit_pat_ident(self, p);
            }
            fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
                let float = matches!(&*p.ty, syn::Type::Path(t) if t.path.is_ident("f64"));
                if let (true, syn::Pat::Ident(i)) = (float, &*p.pat) {
                    self.typed.insert(i.ident.to_string());
                }
                syn::visit::visit_pat_type(self, p);
            }
        }
        let mut names = Names::default();
        names.visit_signature(&func.sig);
        names.visit_block(&func.block);
        let once: std::collections::HashSet<String> = (names.bound.iter())
            .filter(|(_, n)| **n == 1)
            .map(|(name, _)| name.clone())
            .collect();
        let scalars = names.typed.intersection(&once).cloned().collect();
        ScalarLefts { scalars, once }
    }

    /// `let t = e;` of a scalar `e`, bound once: `t` is a scalar from here on.
    fn learn(&mut self, local: &syn::Local) {
        let (syn::Pat::Ident(i), Some(init)) = (&local.pat, &local.init) else {
            return;
        };
        let name = i.ident.to_string();
        if self.once.contains(&name) && self.scalar(&init.expr) {
            self.scalars.insert(name);
        }
    }

    fn scalar(&self, e: &syn::Expr) -> bool {
        const FLOAT_METHODS: &[&str] = &[
            "abs", "exp", "exp2", "ln", "log", "log2", "log10", "sqrt", "cbrt", "powi", "powf",
            "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "atan2", "recip",
            "max", "min", "clamp", "hypot", "ln_1p", "exp_m1", "signum", "floor", "ceil", "round",
            "trunc",
        ];
        let arithmetic = |op: &syn::BinOp| {
            matches!(
                op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            )
        };
        match e {
            syn::Expr::Paren(p) => self.scalar(&p.expr),
            syn::Expr::Group(g) => self.scalar(&g.expr),
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.scalars.contains(&i.to_string())),
            // a converted literal or constant, `<__F as Real>::from_f64_rounded(…)`
            syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "from_f64_rounded")),
            syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && self.scalar(&u.expr),
            // an element (`x[i]`, `m[[i, j]]`), not a range of elements
            syn::Expr::Index(i) => !matches!(&*i.index, syn::Expr::Range(_)),
            syn::Expr::MethodCall(m) => {
                let method = m.method.to_string();
                // a reduction to a scalar (`a.sum()`, `a.mean().unwrap()`), or a product
                // that is one unless it is an array (`u.dot(&v)`, whose operators are then
                // its own)
                let reduction = method == "dot"
                    || m.args.is_empty()
                        && (method == "sum"
                            || method == "unwrap"
                                && matches!(&*m.receiver, syn::Expr::MethodCall(r)
                                if r.method == "mean" && r.args.is_empty()));
                // a cast, `__F::from((e)).unwrap()`
                let cast = method == "unwrap"
                    && matches!(&*m.receiver, syn::Expr::Call(c) if matches!(&*c.func,
                        syn::Expr::Path(p) if p.path.segments.len() == 2
                            && p.path.segments[0].ident == "__F"
                            && p.path.segments[1].ident == "from"));
                cast || reduction
                    || (FLOAT_METHODS.contains(&method.as_str()) && self.scalar(&m.receiver))
            }
            syn::Expr::Binary(b) => {
                arithmetic(&b.op) && self.scalar(&b.left) && self.scalar(&b.right)
            }
            _ => false,
        }
    }
}

impl VisitMut for ScalarLefts {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        self.learn(local);
        syn::visit_mut::visit_local_mut(self, local);
    }

    fn visit_expr_binary_mut(&mut self, b: &mut syn::ExprBinary) {
        let wrap = matches!(
            b.op,
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
        ) && self.scalar(&b.left);
        syn::visit_mut::visit_expr_binary_mut(self, b);
        if wrap {
            let left = &b.left;
            // (in parentheses: after `break 'l` a path's `::` would read as a label's `:`)
            *b.left = syn::parse_quote!((::autodiff::__private::ops::tensor::ScalarLeft(#left)));
        }
    }
}

fn float_type() -> syn::Ident {
    format_ident!("__F", span = Span::call_site())
}

/// `<__F as Real>::from_f64_rounded(value)`.
fn converted(value: TokenStream) -> syn::Expr {
    let f = float_type();
    syn::parse_quote!((<#f as ::autodiff::__private::Real>::from_f64_rounded(#value)))
}

/// A literal of type `f64`: `2.0`, `2.0f64`, `2f64`.
fn is_f64_literal(lit: &syn::Lit) -> bool {
    match lit {
        syn::Lit::Float(f) => matches!(f.suffix(), "" | "f64"),
        syn::Lit::Int(i) => i.suffix() == "f64",
        _ => false,
    }
}

/// `a += b` → `a = a + (b)`: the right side first, as for `f64` (a type parameter's
/// `AddAssign` would borrow `a` before `b` reads it). Built, not parsed: the expression is
/// the user's, whatever it is.
fn expanded_compound(retype: &mut Retype, b: &mut syn::ExprBinary, op: syn::BinOp) -> syn::Expr {
    retype.visit_expr_mut(&mut b.left);
    retype.visit_expr_mut(&mut b.right);
    let right = syn::Expr::Paren(syn::ExprParen {
        attrs: Vec::new(),
        paren_token: Default::default(),
        expr: b.right.clone(),
    });
    let sum = syn::Expr::Binary(syn::ExprBinary {
        attrs: Vec::new(),
        left: b.left.clone(),
        op,
        right: Box::new(right),
    });
    syn::Expr::Assign(syn::ExprAssign {
        attrs: b.attrs.clone(),
        left: b.left.clone(),
        eq_token: Default::default(),
        right: Box::new(sum),
    })
}

/// The operator of a compound assignment (`+` for `+=`).
fn compound(op: &syn::BinOp) -> Option<syn::BinOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => syn::BinOp::Add(Default::default()),
        syn::BinOp::SubAssign(_) => syn::BinOp::Sub(Default::default()),
        syn::BinOp::MulAssign(_) => syn::BinOp::Mul(Default::default()),
        syn::BinOp::DivAssign(_) => syn::BinOp::Div(Default::default()),
        syn::BinOp::RemAssign(_) => syn::BinOp::Rem(Default::default()),
        _ => return None,
    })
}

/// A constant's name, by Rust's convention (`COEF`, `HALF_LOG_2PI`).
fn is_constant_name(i: &syn::Ident) -> bool {
    let s = i.to_string();
    s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

impl VisitMut for Retype {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() && p.path.is_ident("f64") {
                let f = float_type();
                *ty = syn::parse_quote!(#f);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if matches!(e, syn::Expr::Lit(l) if is_f64_literal(&l.lit)) {
            *e = converted(e.to_token_stream());
            return;
        }
        if let syn::Expr::Binary(b) = e {
            if let Some(op) = compound(&b.op) {
                *e = expanded_compound(self, b, op);
                return;
            }
        }
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segs = &mut p.path.segments;
                let names_f64 = segs.iter().any(|s| s.ident == "f64");
                let constant = segs.last().is_some_and(|s| is_constant_name(&s.ident));
                if segs.len() == 2 && segs[0].ident == "f64" && !constant {
                    // `f64::tanh` as a value (`a.mapv(f64::tanh)`): the float type's own
                    segs[0].ident = float_type();
                } else if names_f64 && segs.len() >= 2 {
                    // `f64::EPSILON`, `std::f64::consts::PI`: the `f64` value, converted
                    *e = converted(e.to_token_stream());
                } else if constant {
                    // a `const` or `static` (of floats, integers, arrays of these, …)
                    let value = e.to_token_stream();
                    let f = float_type();
                    *e = syn::parse_quote!(::autodiff::__private::dual::lift::<#f, _>(#value));
                }
                return;
            }
            syn::Expr::Call(c) => {
                if let syn::Expr::Path(p) = &mut *c.func {
                    let segs = &mut p.path.segments;
                    if segs.len() == 2 && segs[0].ident == "f64" {
                        // `f64::sqrt(x)`: the float type's own function
                        segs[0].ident = float_type();
                    } else if p.qself.is_none() {
                        // a function of the crate: its copy (its own, a callee's, or the
                        // callee itself when generic)
                        callee_copy(&mut p.path, &self.locals);
                    }
                    syn::visit_mut::visit_path_mut(self, &mut p.path);
                } else {
                    self.visit_expr_mut(&mut c.func);
                }
                for a in c.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
                return;
            }
            syn::Expr::Macro(m) => {
                m.mac.tokens = retype_tokens(m.mac.tokens.clone());
                return;
            }
            syn::Expr::Cast(c) => {
                self.visit_expr_mut(&mut c.expr);
                let inner = &c.expr;
                let target = match &*c.ty {
                    syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
                    _ => None,
                };
                match target {
                    // `e as f64`: a conversion the differentiation follows (a cast of a
                    // float, or of an integer, to the float type)
                    Some(t) if t == "f64" => {
                        let f = float_type();
                        *e = syn::parse_quote!(#f::from((#inner)).unwrap());
                    }
                    // `e as usize`: `e` may be a float, which `as` cannot convert now
                    Some(t) if crate::rules::is_integer_type_name(&t.to_string()) => {
                        // (piecewise constant: its derivative is zero, as the cast's)
                        *e = syn::parse_quote!(
                            ::autodiff::__private::dual::cast_int::<#t, _>(
                                ::autodiff::stop_gradient((#inner))
                            )
                        );
                    }
                    _ => self.visit_type_mut(&mut c.ty),
                }
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_mut(&mut self, p: &mut syn::Pat) {
        // (a literal or range in a pattern stays as written; a type in it does not)
        if let syn::Pat::Type(pt) = p {
            self.visit_pat_mut(&mut pt.pat);
            self.visit_type_mut(&mut pt.ty);
            return;
        }
        if matches!(p, syn::Pat::Range(_) | syn::Pat::Lit(_)) {
            return;
        }
        syn::visit_mut::visit_pat_mut(self, p);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = retype_tokens(m.tokens.clone());
    }
}

/// A macro's tokens (`vec![0.0; n]`): float literals converted, `f64` written `__F`.
fn retype_tokens(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), retype_tokens(g.stream()));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            TokenTree::Ident(i) if i == "f64" => TokenTree::Ident(float_type()),
            TokenTree::Literal(l)
                if syn::parse2::<syn::Lit>(TokenTree::Literal(l.clone()).into())
                    .is_ok_and(|lit| is_f64_literal(&lit)) =>
            {
                let e = converted(TokenTree::Literal(l).into());
                TokenTree::Group(Group::new(Delimiter::None, e.to_token_stream()))
            }
            other => other,
        })
        .collect()
}

/// What the function's `hvp!` and `hessian!` run: its copy (`fused`: the copy has a fused
/// gradient), or why the copy cannot be differentiated.
pub enum Copy {
    Ready {
        ident: syn::Ident,
        fused: bool,
        /// The parameters the copy's split sweep takes apart (`fuse::split`).
        split: Option<Vec<usize>>,
    },
    Failed(String),
}
