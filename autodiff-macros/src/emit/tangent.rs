//! The tangent sweep (forward mode): one pass over the IR computing each value and, right
//! after it, its tangent (`__tvN` for the variable `__vN`, `__tcN` for the cell `__cN`).
//! No tape: a tangent reads only values defined before it, so loops and branches are the
//! primal's own, run once.
//!
//! Formulas stay in the runtime. A scalar rule `ops::<name>_d<k>(reads…, &dy)` is linear in
//! `dy` (it is `dy · ∂y/∂x_k`), so the tangent of `y` is `Σ_k ops::<name>_d<k>(reads…, &t_k)`
//! over the operands that have a tangent. Values that may be arrays go through
//! `ops::tensor`: a linear operation's tangent is the operation applied to the tangent
//! (`sum`, `t`, `slice`, `sum_axis`…), a product's is built from the forward operations
//! (`dot(ta, b) + dot(a, tb)`), and an elementwise method's is its elementwise rule applied
//! to the tangent (which keeps the operand's shape). What is not covered yet is refused:
//! the function gets a `__jvp` that is never reached, and a reason that `jvp!` reports as
//! a compile error where it is used.

use super::*;
use crate::rules::{Form, Read, Rule};

/// The result of the tangent transformation: the body of `__jvp`, or why there is none.
pub(crate) struct TangentSweep {
    pub(crate) body: TokenStream,
    /// Why forward mode cannot differentiate the function (yet).
    pub(crate) refusal: Option<String>,
    /// The differentiable functions the body calls with tangents (their refusals are the
    /// caller's).
    pub(crate) callees: Vec<syn::ExprPath>,
}

pub(crate) fn tangent_var(v: VarId) -> syn::Ident {
    format_ident!("__tv{}", v.0, span = Span::mixed_site())
}

fn tangent_cell(c: CellId) -> syn::Ident {
    format_ident!("__tc{}", c.0, span = Span::mixed_site())
}

struct Tangents<'a> {
    body: &'a Body,
    primal: Emitter<'a>,
    refusal: Option<String>,
    callees: Vec<syn::ExprPath>,
    function: String,
    /// The function has parameters of plain-path types (see `plain_types`): its calls are
    /// written in the macro's context, so that a type that is not `Differentiable` fails
    /// at the parameter once, not again at each call handing it on.
    plain: bool,
    /// Variables whose tangent is also bound scaled (`__stvN` holds ṫ/s for the scale
    /// `s` = ±1 or ±2), which the scalar rules after read with the scale carried (see
    /// [`Tangents::signed_rule_tangent`]).
    scaled: std::collections::HashMap<VarId, Scale>,
}

/// A tangent's exact scale, carried rather than computed: `−` and `2·` (see
/// `Tangents::signed_rule_tangent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scale {
    negated: bool,
    doubled: bool,
}

impl Scale {
    const ONE: Scale = Scale {
        negated: false,
        doubled: false,
    };

    /// The same scale without its sign.
    fn unsigned(self) -> Scale {
        Scale {
            negated: false,
            ..self
        }
    }

    /// `t` (of this scale) as the tangent itself.
    fn apply(self, t: &TokenStream) -> TokenStream {
        let rt = rt();
        let t = match self.doubled {
            true => quote!({
                let __autodiff_half = #t;
                #rt::ops::add_d0(&__autodiff_half) + __autodiff_half
            }),
            false => t.clone(),
        };
        match self.negated {
            true => quote!(#rt::ops::neg_d0(&#t)),
            false => t,
        }
    }
}

/// The name of a tangent bound scaled (`__stvN`, see `Tangents::scaled`).
fn scaled_tangent_var(v: VarId) -> syn::Ident {
    quote::format_ident!("__stv{}", v.0)
}

/// The body of `__jvp(params…, tangents…) -> (value, tangent)`.
pub(crate) fn jvp_body(sig: &Signature, body: &Body) -> TangentSweep {
    // (a cell's last snapshot takes the cell, and its tangent's the tangent cell)
    let mut primal = new_emitter(sig, body);
    primal.moved = super::movable_snapshots(body, &[]);
    let mut t = Tangents {
        body,
        primal,
        refusal: None,
        callees: Vec::new(),
        function: sig.ident.to_string(),
        plain: crate::plain_types::plain_guard(sig).is_some(),
        scaled: std::collections::HashMap::new(),
    };
    for p in &sig.params {
        // (a `&mut` parameter's tangent is a `&mut` buffer the sweep writes as the
        // function writes the parameter)
        let written = matches!(&p.ty, syn::Type::Reference(r)
            if r.mutability.is_some() && own_tangent_type(&r.elem, &sig.type_params));
        if p.in_out && !written {
            t.refuse(format!("the `&mut` parameter `{}`", p.name));
        }
        if p.differentiable && !p.in_out && !forward_param_type(&p.ty, &sig.type_params) {
            t.refuse(format!(
                "the parameter `{}`, whose type has no tangent argument yet (floats, float \
                 slices, `Vec`s and arrays, and ndarray arrays have)",
                p.name
            ));
        }
    }
    // A slice parameter's tangent resliced to the parameter's length (checked equal by
    // `__jvp_opts`, equal at every call of a tangent sweep): its length is then the
    // parameter's, so the bounds checks the compiler removes for `x[i]` go for `tx[i]` too.
    let mut reslice = TokenStream::new();
    for (i, p) in sig.params.iter().enumerate() {
        let slice = matches!(&p.ty, syn::Type::Reference(r)
            if r.mutability.is_none() && matches!(&*r.elem, syn::Type::Slice(_)));
        if p.differentiable && slice && !p.in_out {
            let (v, tv) = (VarId(i).ident(), tangent_var(VarId(i)));
            reslice.extend(quote!(let #tv = &#tv[..#v.len()];));
        }
    }
    let declarations = t.primal.declarations();
    let mut cells = Vec::new();
    for (i, cell) in body.cells.iter().enumerate() {
        if !cell.active {
            continue;
        }
        let tc = tangent_cell(CellId(i));
        if let Some(p) = cell.bound_to {
            // a `&mut` parameter: the cell is the reference, its tangent the tangent's
            let tp = tangent_var(p);
            let tokens = if cell.bound_scalar {
                quote!(let mut #tc = ::core::array::from_mut(#tp);)
            } else {
                quote!(let mut #tc = #tp;)
            };
            cells.push((tc.to_string(), super::Declaration { tokens, head: None }));
            continue;
        }
        // a local array of a const-generic length has no `Default`: its tangent starts
        // from the same constant array, or the same placeholder, overwritten where the cell
        // is first written
        let array_init = cell.init.as_ref().filter(|_| cell.init_fits_tangent);
        // (a type naming a user's struct, `Vec<Particle>`: its tangent's type)
        let tangent_ty: Option<syn::Type> = cell.ty.as_deref().map(|ty| {
            if mentions_struct(ty, &sig.type_params) {
                syn::parse_quote!(<#ty as ::autodiff::__private::Differentiable>::Tangent)
            } else {
                ty.clone()
            }
        });
        let decl = super::Declaration::cell(&tc, tangent_ty.as_ref(), array_init);
        cells.push((tc.to_string(), decl));
    }
    let mut declared = super::Declared::new(t.primal.cell_declarations());
    declared.extend(cells);
    let sweep = t.top_block(&body.block, &mut declared);
    let items = &body.items;
    let y = format_ident!("__y", span = Span::mixed_site());
    let output = body.output.tokens();
    let out_ty = match &sig.output {
        syn::Type::Infer(_) => quote!(),
        ty => quote!(: #ty),
    };
    let tangent_ty = match &sig.output {
        syn::Type::Infer(_) => quote!(),
        ty => {
            let t = crate::signature::output_tangent_type(ty, &sig.generics);
            quote!(: #t)
        }
    };
    let tangent = t.value_tangent(&body.output, &quote!(#y));
    let ty = format_ident!("__ty", span = Span::mixed_site());
    // (an active variable's value and tangent are returned as they are: the signature
    // types them; anything else is named first, its tangent shaped after it)
    let tail = match &body.output {
        Value::Var(v) if t.body.is_active(*v) => quote!((#output, #tangent)),
        _ => quote! {
            let #y #out_ty = #output;
            let #ty #tangent_ty = #tangent;
            (#y, #ty)
        },
    };
    let body = quote! {
        #(#items)*
        #reslice
        #declarations
        #sweep
        #tail
    };
    TangentSweep {
        body,
        refusal: t.refusal.map(|r| {
            format!(
                "`{}` cannot be differentiated in forward mode yet: {r}",
                t.function
            )
        }),
        callees: t.callees,
    }
}

/// Type names taken for nalgebra's (points, quaternions, transforms: forward mode does not
/// take them yet) or for other containers, which a parameter of a derived struct is not
/// (besides ndarray's `Array…` and nalgebra's matrices, [`nalgebra_matrix`]'s names).
const NOT_STRUCTS: &[&str] = &[
    "Vec",
    "Option",
    "Result",
    "Box",
    "Rc",
    "Arc",
    "String",
    "HashMap",
    "BTreeMap",
    "Point",
    "OPoint",
    "Point2",
    "Point3",
    "Point4",
    "Quaternion",
    "UnitQuaternion",
    "Unit",
    "Rotation",
    "Rotation2",
    "Rotation3",
    "Isometry",
    "Isometry2",
    "Isometry3",
    "Translation",
    "Translation2",
    "Translation3",
];

/// A parameter of a type the macro takes for a derived struct's (`p: &Params`, `m: Mlp<T>`):
/// its tangent argument is the struct's tangent (`&ParamsTangent`), each field read from it
/// as the field is from the parameter.
pub(crate) fn struct_param_type(ty: &syn::Type, type_params: &[syn::Ident]) -> bool {
    let ty = match ty {
        syn::Type::Reference(r) if r.mutability.is_none() => &*r.elem,
        syn::Type::Paren(p) => &*p.elem,
        ty => ty,
    };
    let syn::Type::Path(p) = ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    let generic = p.path.segments.len() == 1 && type_params.contains(&last.ident);
    let known = crate::rules::is_float_type_name(&name)
        || name.starts_with("Array")
        || MATRIX_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
        || NALGEBRA_MATRICES.contains(&name.as_str())
        // (nalgebra's `Point3<f64>` has arguments; a user's `struct Point` has none)
        || (NOT_STRUCTS.contains(&name.as_str())
            && (name == "String" || !matches!(last.arguments, syn::PathArguments::None)));
    p.qself.is_none() && !generic && !known
}

/// Whether `ty` names a user's struct anywhere in it (`Vec<Particle>`, `(f64, State)`): its
/// tangent is not written as the type itself.
fn mentions_struct(ty: &syn::Type, type_params: &[syn::Ident]) -> bool {
    match ty {
        syn::Type::Reference(r) => mentions_struct(&r.elem, type_params),
        syn::Type::Paren(p) => mentions_struct(&p.elem, type_params),
        syn::Type::Array(a) => mentions_struct(&a.elem, type_params),
        syn::Type::Slice(s) => mentions_struct(&s.elem, type_params),
        syn::Type::Tuple(t) => t.elems.iter().any(|e| mentions_struct(e, type_params)),
        syn::Type::Path(p) => {
            let constant = p
                .path
                .segments
                .last()
                .is_some_and(|s| crate::rules::is_constant_type_name(&s.ident.to_string()));
            let own = !constant && struct_param_type(ty, type_params);
            let in_arguments = |s: &syn::PathSegment| {
                match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|g| {
                    matches!(g, syn::GenericArgument::Type(t) if mentions_struct(t, type_params))
                }),
                _ => false,
            }
            };
            own || p.path.segments.iter().any(in_arguments)
        }
        _ => false,
    }
}

/// Whether a differentiable parameter of this type takes a tangent argument: of its own
/// type for floats (and float type parameters), float slices, `Vec`s and fixed-size arrays,
/// ndarray arrays and views, and shared references to these; the struct's tangent for a
/// derived struct (see [`struct_param_type`]).
fn forward_param_type(ty: &syn::Type, type_params: &[syn::Ident]) -> bool {
    struct_param_type(ty, type_params)
        || own_tangent_type(ty, type_params)
        || struct_sequence_type(ty, type_params).is_some()
        || optional_float(ty, type_params).is_some()
}

/// The float of an optional float parameter (`xbar: Option<f64>`, `Option<T>`), whose
/// tangent is the float's (`None`'s is zero), as `Differentiable` has it.
pub(crate) fn optional_float<'t>(
    ty: &'t syn::Type,
    type_params: &[syn::Ident],
) -> Option<&'t syn::Type> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    let (true, true, Some(syn::GenericArgument::Type(elem))) = (
        p.qself.is_none() && last.ident == "Option",
        a.args.len() == 1,
        a.args.first(),
    ) else {
        return None;
    };
    let float = matches!(elem, syn::Type::Path(e) if e.qself.is_none()
    && e.path.get_ident().is_some_and(|i| {
        crate::rules::is_float_type_name(&i.to_string()) || type_params.contains(i)
    }));
    float.then_some(elem)
}

/// The element type of a sequence of derived structs (`&[Point]`, `Vec<Point>`, `[Point;
/// 3]`), whose tangent is the sequence of the structs' tangents.
pub(crate) fn struct_sequence_type<'t>(
    ty: &'t syn::Type,
    type_params: &[syn::Ident],
) -> Option<&'t syn::Type> {
    if matches!(ty, syn::Type::Reference(r) if r.mutability.is_some()) {
        return None;
    }
    let elem = crate::signature::sequence_element(ty)?;
    (matches!(elem, syn::Type::Path(_)) && struct_param_type(elem, type_params)).then_some(elem)
}

fn own_tangent_type(ty: &syn::Type, type_params: &[syn::Ident]) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none() && own_tangent_type(&r.elem, type_params),
        syn::Type::Paren(p) => own_tangent_type(&p.elem, type_params),
        syn::Type::Slice(s) => own_tangent_type(&s.elem, type_params),
        syn::Type::Array(a) => own_tangent_type(&a.elem, type_params),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            if name == "Vec" {
                return match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => a.args.iter().all(|g| match g {
                        syn::GenericArgument::Type(t) => own_tangent_type(t, type_params),
                        _ => true,
                    }),
                    _ => false,
                };
            }
            // floats, a float type parameter, ndarray's arrays, nalgebra's matrices and
            // vectors (a point's tangent is a vector, a unit quaternion's a quaternion)
            p.path.segments.len() == 1
                && (crate::rules::is_float_type_name(&name) || type_params.contains(&last.ident))
                || name.starts_with("Array")
                || (nalgebra_matrix(&name) && of_float(&last.arguments))
        }
        _ => false,
    }
}

/// Whether a type's arguments name `f32` or `f64` (`Vector3<f64>`, `SMatrix<f32, 2, 3>`):
/// nalgebra's types of a concrete float, not an alias of the same name over a type
/// parameter (`type Matrix3<T> = [[T; 3]; 3]`, as vecmath writes them).
fn of_float(arguments: &syn::PathArguments) -> bool {
    let syn::PathArguments::AngleBracketed(a) = arguments else {
        return false;
    };
    a.args.iter().any(|g| {
        matches!(g, syn::GenericArgument::Type(syn::Type::Path(p))
            if p.path.get_ident().is_some_and(|i| i == "f32" || i == "f64"))
    })
}

/// nalgebra's matrix and vector types (their own tangents): `Matrix3`, `Vector3`,
/// `RowVector2`, `DMatrix`, `SVector`, `OMatrix`, … — not views (`MatrixView…`).
fn nalgebra_matrix(name: &str) -> bool {
    (MATRIX_PREFIXES.iter()).any(|p| name.starts_with(p) && !name.contains("View"))
        || NALGEBRA_MATRICES.contains(&name)
}

/// The prefixes of nalgebra's matrix and vector aliases (`Matrix3x4`, `Vector3`,
/// `RowVector2`, their views).
const MATRIX_PREFIXES: &[&str] = &["Matrix", "Vector", "RowVector"];

/// nalgebra's generic matrix and vector types.
const NALGEBRA_MATRICES: &[&str] = &[
    "SMatrix",
    "DMatrix",
    "SVector",
    "DVector",
    "OMatrix",
    "OVector",
    "RowSVector",
    "RowDVector",
];

impl Tangents<'_> {
    fn refuse(&mut self, what: impl Into<String>) {
        if self.refusal.is_none() {
            self.refusal = Some(what.into());
        }
    }

    fn active(&self, o: &Operand) -> Option<VarId> {
        o.var().filter(|v| self.body.is_active(*v))
    }

    /// The tangent of an active operand, as the operand is written (`x`, `&x`).
    fn operand_tangent(&self, o: &Operand) -> Option<TokenStream> {
        match o {
            Operand::Var(v) if self.body.is_active(*v) => {
                let t = tangent_var(*v);
                Some(quote!(#t))
            }
            Operand::Ref(v) if self.body.is_active(*v) => {
                let t = tangent_var(*v);
                Some(quote!((&#t)))
            }
            _ => None,
        }
    }

    fn block(&mut self, block: &Block) -> TokenStream {
        let mut out = TokenStream::new();
        for stmt in &block.stmts {
            self.stmt(&mut out, stmt);
        }
        out
    }

    /// The top-level block, each cell declared before the first statement naming it.
    fn top_block(&mut self, block: &Block, declared: &mut super::Declared) -> TokenStream {
        for stmt in &block.stmts {
            let mut one = TokenStream::new();
            self.stmt(&mut one, stmt);
            declared.push(one);
        }
        declared.finish()
    }

    fn stmt(&mut self, out: &mut TokenStream, stmt: &Stmt) {
        let rt = rt();
        match stmt {
            Stmt::Effect(_) => self.primal.fwd_stmt(out, stmt),
            Stmt::Let { dst, rhs, span, .. } => {
                if let Rhs::Call { func, args } = rhs {
                    if self.body.is_active(*dst) {
                        self.call(out, *dst, func, args, *span);
                        return;
                    }
                }
                let mut primal = TokenStream::new();
                self.primal.fwd_stmt(&mut primal, stmt);
                out.extend(unchecked_queries(primal));
                if self.body.is_active(*dst) {
                    let tv = tangent_var(*dst);
                    match self.signed_rule_tangent(*dst, rhs) {
                        Some((t, scale)) if scale != Scale::ONE => {
                            // bound scaled for the scalar rules after, and as it is for
                            // every other use (an unused binding costs nothing)
                            let stv = scaled_tangent_var(*dst);
                            let t_itself = scale.apply(&stv.to_token_stream());
                            out.extend(quote! {
                                let #stv = #t;
                                let #tv = #t_itself;
                            });
                            self.scaled.insert(*dst, scale);
                        }
                        Some((t, _)) => out.extend(quote!(let #tv = #t;)),
                        None => {
                            let t = self.rhs_tangent(*dst, rhs);
                            out.extend(quote!(let #tv = #t;));
                        }
                    }
                }
            }
            Stmt::WriteCell { cell, value } => {
                self.primal.fwd_stmt(out, stmt);
                if !self.body.cells[cell.0].active {
                    return;
                }
                let (c, tc) = (cell.ident(), tangent_cell(*cell));
                let t = match self.operand_tangent(value) {
                    Some(t) => t,
                    None => quote!(#rt::zero_tangent(&#c)),
                };
                out.extend(quote!(#tc = #t;));
            }
            Stmt::WriteIndex { cell, index, value } => {
                self.primal.fwd_stmt(out, stmt);
                if !self.body.cells[cell.0].active {
                    return;
                }
                let (c, tc, i) = (cell.ident(), tangent_cell(*cell), index.tokens());
                let t = match self.operand_tangent(value) {
                    Some(t) => t,
                    None => quote!(#rt::zero_tangent(&#c[#i])),
                };
                out.extend(quote!(#tc[#i] = #t;));
            }
            Stmt::Extent { .. } => {}
            Stmt::Grow { cell, value, .. } => {
                self.primal.fwd_stmt(out, stmt);
                if self.body.cells[cell.0].active {
                    let tc = tangent_cell(*cell);
                    let element = if self.primal.owned_struct(value) {
                        let v = value.tokens();
                        quote!(#rt::zero_tangent(&#v))
                    } else {
                        quote!(::core::default::Default::default())
                    };
                    out.extend(quote!(#tc.push(#element);));
                }
            }
            Stmt::If { cond, then, els } => {
                let c = cond.tokens();
                let (t, e) = (self.block(then), self.block(els));
                out.extend(quote!(if #c { #t } else { #e }));
            }
            Stmt::Loop {
                head,
                body,
                count,
                flow,
            } => {
                let n = format_ident!("__n{}", count.0, span = Span::mixed_site());
                let b = self.block(body);
                if let Some(strips) = super::strips::plan(self.body, head, body, *flow) {
                    let looped = self.strip_mined(body, &strips, &b, &n);
                    let c = count.ident();
                    out.extend(quote!(let mut #n = 0usize; #looped let #c = #n;));
                    return;
                }
                let check = flow.map(|f: CellId| {
                    let f = f.ident();
                    quote!(if #f == 1u8 { break; } #f = 0u8;)
                });
                let looped = match head {
                    LoopHead::For { item, iter, .. } => {
                        let id = item.ident();
                        // (parenthesised: a struct literal cannot begin a `for` head)
                        let iter = crate::emit::for_head(iter);
                        quote!(for #id in #iter { #b #n += 1; #check })
                    }
                    LoopHead::Infinite => quote!(loop { #b #n += 1; #check }),
                };
                let c = count.ident();
                out.extend(quote!(let mut #n = 0usize; #looped let #c = #n;));
            }
        }
    }

    /// A loop run in strips (see `strips`): per strip, the body's statements that are not
    /// carried, for every iteration of the strip, keeping what the carried ones read, then
    /// the carried ones, iteration after iteration; the iterations after the last whole
    /// strip run the body `b` as it is. `n` counts the iterations.
    fn strip_mined(
        &mut self,
        body: &Block,
        strips: &super::strips::Strips,
        b: &TokenStream,
        n: &syn::Ident,
    ) -> TokenStream {
        let s = proc_macro2::Literal::usize_unsuffixed(super::strips::STRIP);
        let site = Span::mixed_site();
        let (range, end, at, first, k) = (
            format_ident!("__strip_range", span = site),
            format_ident!("__strip_end", span = site),
            format_ident!("__strip_at", span = site),
            format_ident!("__strip_first", span = site),
            format_ident!("__strip_k", span = site),
        );
        let item = strips.item.ident();
        let (mut terms, mut chains) = (TokenStream::new(), TokenStream::new());
        for (i, stmt) in body.stmts.iter().enumerate() {
            if strips.carried.contains(&i) {
                self.stmt(&mut chains, stmt);
            } else {
                self.stmt(&mut terms, stmt);
                // (a value kept for the second loop is read there as its tangent itself,
                // the one binding the second loop has)
                if let Stmt::Let { dst, .. } = stmt {
                    if strips.kept.contains(dst) {
                        self.scaled.remove(dst);
                    }
                }
            }
        }
        // (a value kept beside its tangent: the second loop adds both with one load, and
        // on two lanes with one instruction)
        let (mut arrays, mut keep, mut unkeep) =
            (TokenStream::new(), TokenStream::new(), TokenStream::new());
        let rt = rt();
        for v in &strips.kept {
            let (id, tv) = (v.ident(), tangent_var(*v));
            let a = format_ident!("__strip_v{}", v.0, span = site);
            arrays.extend(quote!(
                let mut #a: [(_, _); #s] = [::core::default::Default::default(); #s];
            ));
            // (a tangent bound scaled is kept as the tangent itself, made in the loop the
            // compiler vectorises; the second loop only adds it)
            keep.extend(quote!(#a[#k] = (#id, #tv);));
            unkeep.extend(quote!(let (#id, #tv) = #a[#k];));
        }
        // the slices the strip reads at its items, through parts of the strip's length
        let mut parts = TokenStream::new();
        let stripped = quote!(#terms #chains);
        for (place, lo, hi) in super::strips::parts(&self.primal, body, strips.item) {
            let (lo, hi) = (
                super::segments::offset(&at, lo),
                super::segments::offset(&at, hi + super::strips::STRIP as i64),
            );
            let names = match place {
                Place::Var(p) => [p.ident(), tangent_var(p)],
                Place::Cell(c) => [c.ident(), tangent_cell(c)],
            };
            for id in names {
                if crate::impls::mentions(&stripped, &id) {
                    parts.extend(quote!(let #id = #rt::saved::Part::new(&#id[..], #lo, #hi);));
                }
            }
        }
        let iter = crate::emit::for_head(&strips.iter);
        quote!({
            let #range = #iter;
            let #end = #range.end;
            let mut #at = #range.start;
            while #end > #at && #end - #at >= #s {
                #arrays
                #parts
                let #first = #at;
                for #k in 0..#s {
                    let #item = #at;
                    #at += 1;
                    #terms
                    #keep
                }
                #at = #first;
                for #k in 0..#s {
                    let #item = #at;
                    #at += 1;
                    #unkeep
                    #chains
                }
                #n += #s;
            }
            for #item in #at..#end { #b #n += 1; }
        })
    }

    /// A call of a differentiable function whose result depends on the inputs: its
    /// `__jvp`, with a zero tangent for each argument that does not.
    fn call(
        &mut self,
        out: &mut TokenStream,
        dst: VarId,
        func: &syn::ExprPath,
        args: &[Operand],
        span: Span,
    ) {
        let rt = rt();
        // Ranges of one buffer lent to one call (`f(a, b)` of `split_at_mut`'s halves) are
        // split from the buffer before the call; their tangents are split from its tangent
        // the same way.
        let mut parts: Vec<(CellId, Vec<(usize, TokenStream)>)> = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if let Operand::MutRef {
                cell,
                range: Some(r),
                alias: Some(_),
                ..
            } = a
            {
                match parts.iter_mut().find(|(c, _)| c == cell) {
                    Some((_, ks)) => ks.push((k, r.bounds(Operand::tokens))),
                    None => parts.push((*cell, vec![(k, r.bounds(Operand::tokens))])),
                }
            }
        }
        let mut part_tangents: Vec<(usize, syn::Ident)> = Vec::new();
        for (cell, ks) in &parts {
            if !self.body.cells[cell.0].active {
                continue;
            }
            let tc = tangent_cell(*cell);
            let names: Vec<syn::Ident> = (ks.iter())
                .map(|(k, _)| format_ident!("__tpart{}_{}", dst.0, k, span = Span::mixed_site()))
                .collect();
            let bounds = ks.iter().map(|(_, b)| b);
            out.extend(quote! {
                let [#(#names),*] = #rt::views::disjoint(&mut #tc[..], [#(#bounds),*]);
            });
            part_tangents.extend(ks.iter().map(|(k, _)| *k).zip(names));
        }
        let mut tangents = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if let Operand::MutRef {
                cell,
                reborrow,
                range,
                alias,
                ..
            } = a
            {
                // a buffer without a tangent (nothing differentiable reaches it): a zero one
                if !self.body.cells[cell.0].active {
                    let (c, z) = (cell.ident(), format_ident!("__tzero{}_{}", dst.0, k));
                    let of = match range {
                        Some(r) => {
                            let r = r.index_tokens();
                            quote!(&#c[#r])
                        }
                        None => quote!(&*#c),
                    };
                    out.extend(quote!(let mut #z = #rt::zero_tangent(#of);));
                    tangents.push(quote!((&mut #z)));
                    continue;
                }
                // the buffer's tangent, lent as the buffer is (the same range of it)
                if alias.is_some() {
                    match part_tangents.iter().find(|(j, _)| *j == k) {
                        Some((_, name)) => tangents.push(quote!(#name)),
                        None => self.refuse("a call lending two views of one `&mut` buffer"),
                    }
                    continue;
                }
                let tc = tangent_cell(*cell);
                tangents.push(match range {
                    Some(r) => {
                        let r = r.index_tokens();
                        quote!((&mut #tc[#r]))
                    }
                    None if *reborrow => quote!((&mut *#tc)),
                    None => quote!((&mut #tc)),
                });
                continue;
            }
            tangents.push(match self.operand_tangent(a) {
                // (a value handed by value whose tangent is no scalar — a struct's, read
                // again after the call, `a * k` then `m.dot(&a)`: a copy)
                Some(t) if self.primal.owned_struct(a) => {
                    quote!(::core::clone::Clone::clone(&#t))
                }
                // (an element of a `Vec` of structs, read in place: an owned copy)
                Some(t) if matches!(a, Operand::Var(v) if self.body.vars[v.0].struct_element) => {
                    quote!({
                        #[allow(unused_imports)]
                        use #rt::saved::{OwnRef as _, OwnVal as _};
                        (&#rt::saved::Own(&#t)).own()
                    })
                }
                Some(t) => t,
                // (a literal `None` has no type to probe: an optional float's tangent is
                // the float's zero, its type the callee's parameter's)
                None if a.is_none_literal() => quote!(#rt::ops::real_zero()),
                None => {
                    let a = a.tokens();
                    quote! {
                        #rt::forward::lend(&{
                            #[allow(unused_imports)]
                            use #rt::forward::{ArgZero as _, NoZero as _, ScalarZero as _};
                            (&&&#rt::forward::Probe(&#a)).zero()
                        })
                    }
                }
            });
        }
        let (v, tv) = (dst.ident(), tangent_var(dst));
        let span = if self.plain { Span::call_site() } else { span };
        let mut a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
        a.extend(tangents);
        let call = crate::companions::call(func, Some("jvp"), &a, span);
        out.extend(quote::quote_spanned!(span=> let (#v, #tv) = #call;));
        // (a method's own reasons are out of reach of the constant that collects the
        // callees': its receiver's type is known only to the compiler, and its `__jvp`
        // panics with its reason if it has one)
        if crate::companions::is_method_form(func) {
            return;
        }
        // (a function declared inside the body is out of reach of the constant that
        // collects the callees' reasons)
        let local = self.body.items.iter().any(|item| match item {
            syn::Item::Fn(f) => func.path.is_ident(&f.sig.ident),
            _ => false,
        });
        if !local {
            // (a loop run in strips emits its body twice)
            if !self.callees.contains(func) {
                self.callees.push(func.clone());
            }
        }
    }

    /// The tangent of a `Value` (the output).
    fn value_tangent(&self, value: &Value, primal: &TokenStream) -> TokenStream {
        let rt = rt();
        match value {
            Value::Var(v) if self.body.is_active(*v) => {
                let t = tangent_var(*v);
                quote!(#t)
            }
            Value::Tuple(items) => {
                let items = items.iter().enumerate().map(|(k, item)| {
                    let i = syn::Index::from(k);
                    self.value_tangent(item, &quote!(#primal.#i))
                });
                quote!((#(#items,)*))
            }
            Value::Ref(inner) => self.value_tangent(inner, primal),
            _ => quote!(#rt::zero_tangent(&#primal)),
        }
    }

    fn rhs_tangent(&mut self, dst: VarId, rhs: &Rhs) -> TokenStream {
        let rt = rt();
        let maybe_array = self.body.vars[dst.0].maybe_array;
        let clone = |t: TokenStream| quote!(::core::clone::Clone::clone(&#t));
        let zero = {
            let v = dst.ident();
            quote!(#rt::zero_tangent(&#v))
        };
        match rhs {
            Rhs::Copy(o) => match self.operand_tangent(o) {
                // method syntax, as the primal: `r.clone()` of a `&Array` is an array
                Some(t) if maybe_array => quote!(#t.clone()),
                Some(t) => t,
                None => zero,
            },
            Rhs::Owned { of, method } => match self.operand_tangent(of) {
                Some(t) => quote!(#t.#method()),
                None => zero,
            },
            Rhs::Inactive(_) => zero,
            Rhs::ReadCell(c) if self.body.cells[c.0].bound_to.is_some() => {
                let tc = tangent_cell(*c);
                quote!(::std::borrow::ToOwned::to_owned(&*#tc))
            }
            Rhs::ReadCell(c) if self.primal.moved.contains_key(&dst) => {
                tangent_cell(*c).to_token_stream()
            }
            Rhs::ReadCell(c) => {
                let tc = tangent_cell(*c);
                clone(quote!(#tc))
            }
            Rhs::ReadIndex { place, index } => {
                let Some(p) = self.place_tangent(*place) else {
                    return zero;
                };
                let i = index.tokens();
                if maybe_array {
                    quote!(#rt::__autodiff_project!(#p[#i]))
                } else {
                    quote!(#p[#i])
                }
            }
            Rhs::SubSlice { place, range } => {
                let Some(p) = self.place_tangent(*place) else {
                    return zero;
                };
                let r = range.tokens();
                quote!(&#p[#r])
            }
            Rhs::Field { base, index } => {
                if !self.body.is_active(*base) {
                    return zero;
                }
                let (b, i) = (tangent_var(*base), syn::Index::from(*index as usize));
                clone(quote!(#b.#i))
            }
            Rhs::Member { base, member } => {
                if !self.body.is_active(*base) {
                    return zero;
                }
                // (a `#[no_grad]` field's tangent is `NoTangent`: the zero of its value)
                let (b, v) = (tangent_var(*base), dst.ident());
                quote!({
                    #[allow(unused_imports)]
                    use #rt::forward::{MemberNone as _, MemberTangent as _, MemberZero as _};
                    (&&&#rt::forward::Member(&#v, #rt::__autodiff_project!(#b.#member))).tangent()
                })
            }
            // a captured value or a field of a constant parameter: constant here (a
            // variable's gradient is the implicit mode's, which has no forward mode)
            Rhs::Source(_) => zero,
            Rhs::Call { .. } => zero,
            Rhs::Prim(prim, args) => self.prim_tangent(dst, prim, args, maybe_array),
        }
    }

    /// The tangent of a scalar rule of arithmetic (`+ - * /`, negation) whose result is a
    /// float, with exact scales of the operands' tangents carried rather than computed:
    /// `(tokens, scale)`, the tokens being ṫ/scale. A negation (`c − u`, `−u`) flips the
    /// sign; a square (`u * u`, and `c·u·u`, see [`Tangents::square`]) is
    /// doubled rather than summed twice; `* /` by a value keep both (`(−2t)·b = −2(t·b)`,
    /// exactly: rounding is symmetric, and doubling exact); a sum adds or subtracts each
    /// term by its sign, from the left as before (`a + (−b) = a − b`, `(−a) + (−b) =
    /// −(a + b)`), and of two doubled terms is doubled (`2a − 2b = 2(a − b)`, exactly). So
    /// `(1 − x)²`'s tangent is `−2·((1 − x)·ẋ)`, its negation and doubling left to the sum
    /// that reads it: the same bits, fewer operations (only a sum that overflows where its
    /// halves do not can differ: then this one is finite). `None` for any other
    /// right-hand side, and where no scale is carried (the rules' own terms then).
    fn signed_rule_tangent(&self, dst: VarId, rhs: &Rhs) -> Option<(TokenStream, Scale)> {
        let Rhs::Prim(prim, args) = rhs else {
            return None;
        };
        let rule = prim.rule()?;
        let name = rule.name;
        if !matches!(name, "add" | "sub" | "mul" | "div" | "neg")
            || self.body.vars[dst.0].maybe_array
            || matches!(prim, Prim::Tensor { .. })
        {
            return None;
        }
        let rt = rt();
        if let Some(square) = self.square(name, args) {
            return Some(square);
        }
        let flips = matches!(name, "sub" | "neg");
        let carried = args.iter().any(|a| match a {
            Operand::Var(v) => self.scaled.contains_key(v),
            _ => false,
        });
        let mut acc: Option<(TokenStream, Scale)> = None;
        for (k, arg) in args.iter().enumerate() {
            if rule.constant_operand(k) {
                continue;
            }
            let Some(v) = self.active(arg) else {
                continue;
            };
            // (a reference operand is read as it is written)
            let Operand::Var(_) = arg else {
                return None;
            };
            let (stored, mut scale) = self.scaled_operand(v);
            let term = match (name, k) {
                // a negation: the sign flips, the term passes the tangent on
                ("sub", 1) | ("neg", 0) => {
                    scale.negated = !scale.negated;
                    quote!(#rt::ops::sub_d0(&#stored))
                }
                _ => {
                    let reads = self.reads(rule, k, false, dst, args);
                    let f = format_ident!("{}_d{}", name, k);
                    quote!(#rt::ops::#f(#(&#reads,)* &#stored))
                }
            };
            acc = Some(match acc {
                None => (term, scale),
                Some((a, s)) => {
                    // (of a doubled and a single term, the doubled one doubled here; the
                    // signs stay carried)
                    let undouble = |t: TokenStream, s: Scale| match s.doubled {
                        true => (
                            s.unsigned().apply(&t),
                            Scale {
                                doubled: false,
                                ..s
                            },
                        ),
                        false => (t, s),
                    };
                    let ((a, s), (term, scale)) = if s.doubled == scale.doubled {
                        ((a, s), (term, scale))
                    } else {
                        (undouble(a, s), undouble(term, scale))
                    };
                    let doubled = s.doubled;
                    let (t, negated) = match (s.negated, scale.negated) {
                        // a + t, a − t
                        (false, false) => (quote!(#a + #term), false),
                        (false, true) => (quote!(#a + #rt::ops::neg_d0(&#term)), false),
                        // −a + t = t − a; −a − t = −(a + t)
                        (true, false) => (quote!(#term + #rt::ops::neg_d0(&(#a))), false),
                        (true, true) => (quote!(#a + #term), true),
                    };
                    (t, Scale { negated, doubled })
                }
            });
        }
        let (t, scale) = acc?;
        if !(carried || (flips && scale.negated)) {
            return None;
        }
        Some((quote!((#t)), scale))
    }

    /// An operand's tangent as the scalar rules read it: its scaled binding and scale, or
    /// the tangent itself.
    fn scaled_operand(&self, v: VarId) -> (TokenStream, Scale) {
        match self.scaled.get(&v) {
            Some(scale) => (scaled_tangent_var(v).to_token_stream(), *scale),
            None => (tangent_var(v).to_token_stream(), Scale::ONE),
        }
    }

    /// `u · u`, and `q · u` (or `u · q`) where `q = c · u` (or `u · c`) for a constant `c`,
    /// as in `100.0 * b * b`: the tangent `u̇·u + u·u̇` is `2·(u·u̇)`, the same bits; `q̇·u +
    /// q·u̇` is `c·u̇·u + q·u̇`, that is `2·(q·u̇)`, equal to rounding (`u·(c·u̇)` against
    /// `(c·u)·u̇`: a tangent has no bits of the function's own to keep, as the value has;
    /// `q̇` is left unused where nothing else reads it). Doubled, as a scale.
    fn square(&self, name: &str, args: &[Operand]) -> Option<(TokenStream, Scale)> {
        if name != "mul" || args.len() != 2 {
            return None;
        }
        let (Operand::Var(a), Operand::Var(b)) = (&args[0], &args[1]) else {
            return None;
        };
        let (a, b) = (*a, *b);
        if !self.body.is_active(a) || !self.body.is_active(b) {
            return None;
        }
        // which operand is the multiple, and of what
        let multiple_of = |q: VarId| -> Option<VarId> {
            let Some(Rhs::Prim(prim, qargs)) = self.primal.defs.get(&q).copied() else {
                return None;
            };
            if prim.rule().map(|r| r.name) != Some("mul")
                || self.body.vars[q.0].maybe_array
                || qargs.len() != 2
            {
                return None;
            }
            match (&qargs[0], &qargs[1]) {
                (Operand::Var(r), c) | (c, Operand::Var(r))
                    if self.body.is_active(*r) && self.active(c).is_none() =>
                {
                    Some(*r)
                }
                _ => None,
            }
        };
        let (q, r) = if a == b {
            (a, a)
        } else if multiple_of(a) == Some(b) {
            (a, b)
        } else if multiple_of(b) == Some(a) {
            (b, a)
        } else {
            return None;
        };
        // (a tangent already doubled is read as it is)
        let (stored, negated) = match self.scaled_operand(r) {
            (_, Scale { doubled: true, .. }) => (tangent_var(r).to_token_stream(), false),
            (t, s) => (t, s.negated),
        };
        let rt = rt();
        let q = q.ident();
        Some((
            quote!(#rt::ops::mul_d1(&#q, &#stored)),
            Scale {
                negated,
                doubled: true,
            },
        ))
    }

    fn place_tangent(&self, place: Place) -> Option<TokenStream> {
        match place {
            Place::Var(v) if self.body.is_active(v) => {
                let t = tangent_var(v);
                Some(quote!(#t))
            }
            Place::Cell(c) if self.body.cells[c.0].active => {
                let t = tangent_cell(c);
                Some(quote!(#t))
            }
            _ => None,
        }
    }

    fn prim_tangent(
        &mut self,
        dst: VarId,
        prim: &Prim,
        args: &[Operand],
        maybe_array: bool,
    ) -> TokenStream {
        let rt = rt();
        let zero = {
            let v = dst.ident();
            quote!(#rt::zero_tangent(&#v))
        };
        let Some(rule) = prim.rule() else {
            // a struct literal: its zero with the members of tangent
            if let Prim::Struct { members, .. } = prim {
                let v = dst.ident();
                let t = quote::format_ident!("__autodiff_tangent");
                let set = members.iter().zip(args).filter_map(|(m, a)| {
                    let ta = self.operand_tangent(a)?;
                    Some(quote!(#t.#m = #ta;))
                });
                return quote!({
                    let mut #t = #rt::zero_tangent(&#v);
                    #(#set)*
                    #t
                });
            }
            if let Prim::SetMembers { members } = prim {
                let (base, values) = args.split_last().expect("a base");
                let t = quote::format_ident!("__autodiff_tangent");
                let start = match self.operand_tangent(base) {
                    Some(tb) => quote!({
                        #[allow(unused_imports)]
                        use #rt::saved::{OwnRef as _, OwnVal as _};
                        (&#rt::saved::Own(&#tb)).own()
                    }),
                    None => zero,
                };
                let set = members
                    .iter()
                    .zip(values)
                    .map(|(m, a)| match self.operand_tangent(a) {
                        Some(ta) => quote!(#t.#m = #ta;),
                        None => quote!(#rt::Reset::reset_adjoint(&mut #t.#m);),
                    });
                return quote!({
                    let mut #t = #start;
                    #(#set)*
                    #t
                });
            }
            // a cast between float types
            let Prim::Cast { ty } = prim else {
                return zero;
            };
            let is_float_name = matches!(&**ty, syn::Type::Path(p)
                if p.path.get_ident().is_some_and(|i| i == "f32" || i == "f64"));
            return match self.operand_tangent(&args[0]) {
                Some(t) if is_float_name => quote!((#t as #ty)),
                // a type parameter, which `as` cannot name
                Some(t) => quote!(#rt::ops::cast_to::<#ty, _>(#t)),
                None => zero,
            };
        };
        let active: Vec<usize> = (0..args.len())
            .filter(|k| self.active(&args[*k]).is_some() && !rule.constant_operand(*k))
            .collect();
        if active.is_empty() {
            return zero;
        }
        let tensor = (maybe_array && !prim.rule().is_some_and(crate::rules::is_option_rule))
            || matches!(prim, Prim::Tensor { .. });
        if !tensor {
            // Σ_k ops::<name>_d<k>(reads…, &t_k): each scalar rule is linear in its last
            // argument
            let terms = active.iter().map(|&k| {
                let reads = self.reads(rule, k, false, dst, args);
                let t = self.operand_tangent(&args[k]).expect("an active operand");
                // `x.sin()`'s tangent from `x.cos()` computed before the rule's test of the
                // tangent (the same bits): next to the value's `x.sin()`, the compiler makes
                // the two one `sin_cos` call. Written as the value's call is: a method call,
                // or the runtime's function where the receiver's type may not be known yet;
                // a path call, `f64::sin(x)`, keeps the rule reading `x`.
                if let (
                    Some(sibling),
                    [x],
                    Prim::Method {
                        callee: None,
                        qualified,
                        ..
                    },
                ) = (&rule.sibling, &reads[..], prim)
                {
                    let (f, m) = (
                        format_ident!("{}", sibling.rule),
                        format_ident!("{}", sibling.method),
                    );
                    let s = match qualified {
                        false => quote!((#x).#m()),
                        true => quote!(#rt::ops::tensor::#m(&#x)),
                    };
                    return quote!(#rt::ops::#f(&#s, &#t));
                }
                let f = format_ident!("{}_d{}", rule.name, k);
                quote!(#rt::ops::#f(#(&#reads,)* &#t))
            });
            return quote!((#(#terms)+*));
        }
        self.tensor_tangent(dst, prim, rule, args, &active)
    }

    fn reads(
        &self,
        rule: &Rule,
        k: usize,
        tensor: bool,
        dst: VarId,
        args: &[Operand],
    ) -> Vec<TokenStream> {
        rule.reads(k, tensor)
            .iter()
            .map(|r| match r {
                Read::Output => {
                    let y = dst.ident();
                    quote!(#y)
                }
                Read::Operand(i) => match &args[*i] {
                    // (an item of a constant sequence, `&f64` from `COEF.iter()`: its value)
                    Operand::Var(v) if self.primal.const_items.contains(v) => {
                        crate::emit::owned(v.ident().to_token_stream())
                    }
                    other => other.tokens(),
                },
            })
            .collect()
    }

    fn tensor_tangent(
        &mut self,
        dst: VarId,
        prim: &Prim,
        rule: &'static Rule,
        args: &[Operand],
        active: &[usize],
    ) -> TokenStream {
        let rt = rt();
        let ts = quote!(#rt::ops::tensor);
        let a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
        let t = |k: usize| self.operand_tangent(&args[k]).expect("an active operand");
        let y = dst.ident();
        let both = active.len() == 2;
        let only = active[0];
        // a literal operand is a scalar of the other operand's element type
        let operand_like = |k: usize, like: &TokenStream| match &args[k] {
            o if o.is_literal() => {
                let x = &a[k];
                quote!(#ts::elem_of(&#like, #x))
            }
            _ => a[k].clone(),
        };
        // the zero an inactive operand contributes, for its shape (it may broadcast)
        let zero_of = |k: usize| match &args[k] {
            Operand::Inline(_) => None,
            _ => {
                let x = &a[k];
                Some(quote!(#ts::zeros_like(&#x)))
            }
        };
        match (prim, rule.name) {
            (Prim::Binary { .. }, "add" | "sub") => {
                let f = format_ident!("{}", rule.name);
                if both {
                    let (t0, t1) = (t(0), t(1));
                    return quote!(#ts::#f(&#t0, &#t1));
                }
                let tk = t(only);
                let other = 1 - only;
                match (zero_of(other), only) {
                    (Some(z), 0) => quote!(#ts::#f(&#tk, &#z)),
                    (Some(z), _) => quote!(#ts::#f(&#z, &#tk)),
                    (None, 0) => quote!(::core::clone::Clone::clone(&#tk)),
                    (None, _) if rule.name == "add" => quote!(::core::clone::Clone::clone(&#tk)),
                    (None, _) => quote!(#ts::neg(&#tk)),
                }
            }
            (Prim::Binary { .. }, "mul") | (Prim::Tensor { .. }, "dot" | "cross") => {
                let f = format_ident!("{}", rule.name);
                let (t0, t1) = if both {
                    (Some(t(0)), Some(t(1)))
                } else if only == 0 {
                    (Some(t(0)), None)
                } else {
                    (None, Some(t(1)))
                };
                let left = t0.map(|t0| {
                    let b = operand_like(1, &t0);
                    quote!(#ts::#f(&#t0, &#b))
                });
                let right = t1.map(|t1| {
                    let a0 = operand_like(0, &t1);
                    quote!(#ts::#f(&#a0, &#t1))
                });
                match (left, right) {
                    (Some(l), Some(r)) => quote!(#ts::add(&#l, &#r)),
                    (Some(l), None) => l,
                    (None, Some(r)) => r,
                    (None, None) => unreachable!("an active operand"),
                }
            }
            (Prim::Binary { .. }, "div") => {
                let b = operand_like(1, &quote!(#y));
                match (both, only) {
                    (true, _) => {
                        let (t0, t1) = (t(0), t(1));
                        quote!(#ts::div(&#ts::sub(&#t0, &#ts::mul(&#y, &#t1)), &#b))
                    }
                    (false, 0) => {
                        let t0 = t(0);
                        quote!(#ts::div(&#t0, &#b))
                    }
                    (false, _) => {
                        let t1 = t(1);
                        quote!(#ts::neg(&#ts::div(&#ts::mul(&#y, &#t1), &#b)))
                    }
                }
            }
            (Prim::Neg, _) => {
                let t0 = t(0);
                quote!(#ts::neg(&#t0))
            }
            (Prim::Method { .. }, _) => {
                if active != [0] {
                    self.refuse(format!(
                        "`{}` on arrays with a differentiable argument other than the receiver",
                        rule.name
                    ));
                    return quote!(#rt::zero_tangent(&#y));
                }
                let reads = self.reads(rule, 0, true, dst, args);
                let t0 = t(0);
                let f = format_ident!("{}_d0", rule.name);
                quote!(#ts::#f(#(&#reads,)* &#t0))
            }
            (Prim::Tensor { .. }, "mapv" | "map") => {
                let f = format_ident!("{}_d0", rule.name);
                let (x, rule_fn, t0) = (&a[0], &a[2], t(0));
                quote!(#ts::#f(&#x, &#y, &#rule_fn, &#t0))
            }
            // the norms (`⟨x, t⟩ / y`, `2 ⟨x, t⟩`; `normalize`'s Jacobian is symmetric, its
            // tangent the rule its gradient has) and the reductions to a scalar whose
            // tangent is not the reduction of the operand's
            (
                Prim::Tensor { .. },
                "norm" | "norm_squared" | "normalize" | "product" | "var" | "std",
            ) if active == [0] => {
                let (x, t0) = (&a[0], t(0));
                match rule.name {
                    "norm" => quote!(#ts::norm_t(&#x, &#y, &#t0)),
                    "norm_squared" => quote!(#ts::norm_squared_t(&#x, &#t0)),
                    "product" => quote!(#ts::product_t(&#x, &#t0)),
                    "var" => {
                        let ddof = &a[1];
                        quote!(#ts::var_t(&#x, &#ddof, &#t0))
                    }
                    "std" => {
                        let ddof = &a[1];
                        quote!(#ts::std_t(&#x, &#ddof, &#y, &#t0))
                    }
                    _ => quote!(#ts::normalize_d0(&#x, &#y, &#t0)),
                }
            }
            // joins are linear in their parts: the join of the parts' tangents (a constant
            // part's a zero of its shape)
            (Prim::Tensor { .. }, "concatenate" | "stack") => {
                let axis = &a[0];
                let parts: Vec<TokenStream> = (1..args.len())
                    .map(|k| match active.contains(&k) {
                        true => t(k),
                        false => {
                            let x = &a[k];
                            quote!(#ts::zeros_like(&#x))
                        }
                    })
                    .collect();
                let f = format_ident!("{}", rule.name);
                quote!(#ts::#f(&#axis, &[#(#ts::view(&#parts)),*]))
            }
            (Prim::Tensor { fwd_args, .. }, name) if linear(name) => {
                // a linear operation of its first operand: the same operation of its tangent
                let t0 = t(0);
                let f = format_ident!("{}", name);
                let rest = &a[1..*fwd_args];
                quote!(#ts::#f(&#t0, #(&#rest),*))
            }
            _ => {
                let what = match rule.form {
                    Form::Join => format!("`{}` of arrays", rule.name),
                    _ => format!("the array operation `{}`", rule.name),
                };
                self.refuse(what);
                quote!(#rt::zero_tangent(&#y))
            }
        }
    }
}

/// The primal's constant queries (`x.len()`, a method without a rule) unchecked, their
/// marker types renamed: the reverse sweep's copy of the same code reports a method that
/// needs a rule, once and by its own name.
fn unchecked_queries(tokens: TokenStream) -> TokenStream {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let query = tts
        .iter()
        .any(|tt| matches!(tt, TokenTree::Ident(id) if id == "constant_query"));
    // the markers a query block declares (`struct sin_cos;`)
    let markers: Vec<String> = tts
        .windows(2)
        .filter_map(|w| match (&w[0], &w[1]) {
            (TokenTree::Ident(s), TokenTree::Ident(m)) if query && s == "struct" => {
                Some(m.to_string())
            }
            _ => None,
        })
        .collect();
    // (a marker is named after `struct` and first in the turbofish, never as the method)
    let marker_at: Vec<bool> = (0..tts.len())
        .map(|k| {
            k > 0
                && match &tts[k - 1] {
                    TokenTree::Ident(s) => s == "struct",
                    TokenTree::Punct(p) => p.as_char() == '<',
                    _ => false,
                }
        })
        .collect();
    tts.into_iter()
        .zip(marker_at)
        .map(|(tt, marker_at)| match tt {
            TokenTree::Ident(id) if id == "constant_query" => {
                TokenTree::Ident(syn::Ident::new("unchecked_query", id.span()))
            }
            TokenTree::Ident(id) if marker_at && markers.contains(&id.to_string()) => {
                TokenTree::Ident(format_ident!("__unchecked_{}", id, span = id.span()))
            }
            TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), unchecked_queries(g.stream()));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            other => other,
        })
        .collect()
}

/// Array operations that are linear in their first operand (the others are constants:
/// axes, indices, shapes).
fn linear(name: &str) -> bool {
    matches!(
        name,
        "t" | "transpose"
            | "view"
            | "to_owned"
            | "sum"
            | "mean"
            | "sum_axis"
            | "mean_axis"
            | "slice"
            | "row"
            | "column"
            | "diag"
            | "index_axis"
            | "select"
            | "insert_axis"
            | "permuted_axes"
            | "reshape"
            | "broadcast"
    )
}
