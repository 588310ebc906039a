//! Lowering: a function body (syn's AST) to the IR, in A-normal form.
//!
//! Activity is decided here, as values are built: a value is *active* when it depends on
//! a differentiable parameter through operations with a derivative. Expressions whose
//! result is inactive (constants, comparisons, integer arithmetic, piecewise-constant
//! methods, `stop_gradient`) are kept as written, renamed. Whether a cell (a `let mut`
//! binding) is active depends on every write to it, including later ones in a loop, so the
//! body is lowered until the set of active cells stops growing (a fixpoint; each pass is
//! cheap). Every construct the macro cannot differentiate is reported at its span, and
//! lowering goes on so all errors come at once.
//!
//! Control flow: `if` and `match` become [`Stmt::If`] chains on inactive conditions; `for`,
//! `while` and `loop` become [`Stmt::Loop`]. `break`, `continue` and `return` write flag
//! cells, and the statements after one that may exit are guarded by the flags, so every
//! region runs straight through and its reverse replays exactly what ran.

use crate::diag::{self, Errors};
use crate::ir::{
    Block, Body, CellId, CellInfo, LoopHead, Operand, Place, Prim, RegionId, RegionInfo, Rhs, Stmt,
    Value, VarId, VarInfo,
};
use crate::rename;
use crate::rules;
use crate::rules::{self as prims, Rule};
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;

#[derive(Clone, Debug)]
enum Binding {
    Value(Value),
    Cell(CellId),
    /// A local closure (`let sq = |v: f64| v * v;`), inlined where it is called.
    Closure(usize),
}

/// A local closure: its definition and the bindings it sees (those at its definition).
struct LocalClosure {
    name: syn::Ident,
    /// The closure (an `Expr::Closure`), kept across passes (`Synth`): its body is lowered
    /// at each call, and cells are keyed by the address of the syntax that makes them.
    closure: std::rc::Rc<syn::Expr>,
    scopes: Vec<HashMap<String, Binding>>,
    /// Whether its body reads an active value.
    active: bool,
    /// The closure itself as a value, when it captures no active value (it can then also
    /// be used as written: passed on, called with constants).
    value: Option<Value>,
}

struct LoopCtx {
    label: Option<String>,
    flow: CellId,
    flow_used: bool,
    value: Option<CellId>,
}

pub struct Lowering<'a> {
    vars: Vec<VarInfo>,
    cells: Vec<CellInfo>,
    regions: Vec<RegionInfo>,
    scopes: Vec<HashMap<String, Binding>>,
    closures: Vec<LocalClosure>,
    /// How deep inlined closure bodies are nested (a bound on runaway expansion).
    inlining: usize,
    block: Block,
    items: Vec<syn::Item>,
    type_params: Vec<String>,
    /// The function's float type parameter, when it has exactly one (`T` of
    /// `fn f<T: Float>`): the type of the constants the lowering introduces.
    float_type: Option<syn::Ident>,
    /// The function's parameters' names (`self` included).
    param_names: HashSet<String>,
    /// Parameters that are fixed-size arrays of a literal length (`p: &[T; 2]`): their
    /// `map(|x| …)` is the array of the closure's values.
    /// The array parameters of literal length: their lengths and element types.
    array_lens: HashMap<String, (usize, syn::Type)>,
    /// The parameters whose type is a number or a container of numbers (a float, a type
    /// parameter, a slice, `Vec`, array or ndarray array): a method of theirs without a
    /// derivative rule is a query, not a method of an annotated `impl`.
    numeric_params: HashSet<String>,
    /// The differentiable parameters whose type the macro takes for a derived struct's
    /// (`a: V3`, `s: &State`, see `emit::struct_param_type`).
    struct_params: HashSet<String>,
    /// Values known to be sequences (a `vec![…]`, a copy by `to_vec`, a sub-slice, a
    /// sequence parameter), which `vec![…]` of them cannot hold yet.
    sequences: HashSet<VarId>,
    errors: &'a mut Errors,
    assumed_active_cells: &'a HashSet<usize>,
    /// Syntax the lowering writes in place of the user's, kept across passes.
    synth: &'a Synth,
    found_active_cells: HashSet<usize>,
    /// Each cell's key (see [`active_key`]).
    cell_keys: Vec<usize>,
    /// Keys for flag cells, counting down from the top (never an address).
    next_flag_key: usize,
    loops: Vec<LoopCtx>,
    /// The early-return flag and value cells, made at the first `return`.
    ret: Option<(CellId, control::Slot)>,
    /// The shape of the function's result (a tuple type's components get a return cell
    /// each).
    output_shape: control::Shape,
    /// The function returns a `Result`: the returned value's cell starts as `Ok(default)`
    /// (a `Result` has no `Default`), overwritten before it is read.
    output_is_result: bool,
    /// The snapshot of each cell read since its last write in the current block: reading
    /// it again reuses the snapshot (one value saved, not two).
    snapshots: HashMap<CellId, VarId>,
    /// Reads of an immutable slice at an index variable, in the current block: reading
    /// `x[i]` again reuses the first read (one load, one gradient accumulation).
    element_reads: HashMap<(VarId, VarId), VarId>,
    /// Local buffers made by `vec![vec![…]; n]`: their rows are `Vec`s, which a nested
    /// read or write (`m[i][j]`) cannot copy out.
    vec_cells: HashSet<CellId>,
    /// Names bound to `&mut` views of a `let mut` buffer (`let (h, c) =
    /// buf.split_at_mut(k);`), with the buffer's name and the method: the writes a callee
    /// makes through one are out of the reverse sweep's sight.
    mut_views: HashMap<String, (String, String)>,
    /// Parameters whose elements are `Vec`s or slices (`&[Vec<f64>]`, `Vec<Vec<f64>>`): an
    /// element read borrows the row.
    vec_rows: HashSet<VarId>,
    /// Parameters of a type that cannot be indexed: a type parameter that is not a float
    /// type (`coefficients: I` with `I: IntoIterator<Item = f64>`) or `impl Trait`.
    opaque_params: HashSet<String>,
    /// How many `o.map(…)` of an `Option`/`Result` were lowered (their names).
    next_mapped: usize,
    /// Rows read by element (`m[i]` of `m[i][j]`, and copies of rows of local `Vec`s of
    /// `Vec`s, see `owned_row`): their elements are scalars.
    rows: HashSet<VarId>,
    /// Values of calls of differentiable functions and methods and of struct literals: a
    /// local holding one may be of a user's type, whose methods may be those of an
    /// annotated `impl` (`let b = a.scale(k); b.plus(a)`, see `method_form_call`).
    made_values: HashSet<VarId>,
    /// Local `Vec`s a struct value was pushed onto: their elements are borrowed when read
    /// (`for p in &pts`, `pts[0].x`), not copied.
    struct_cells: HashSet<CellId>,
    /// Cells of locals declared as references to a scalar (`let mut best: &T = &v[0];`):
    /// they hold the scalar, and are read as a reference where the user's syntax is kept.
    ref_cells: HashSet<CellId>,
    /// `let mut` cells made from a struct value (`let mut p = Particle { … }`): their
    /// methods and operators are the annotated `impl`'s, as a struct local's are.
    struct_valued_cells: HashSet<CellId>,
    /// Values read from a `struct_cells` `Vec`: a `let mut` bound to one is one too.
    struct_vec_values: HashSet<VarId>,
    /// Whether the expression being lowered is in statement position (its value, if any,
    /// is dropped): an `if` or `match` there needs no result cell.
    discard: bool,
    /// The parts of buffers split for calls handed several ranges of one (see
    /// `split_disjoint_ranges`), numbered.
    next_part: usize,
}

/// Lowers `body`; the parameters of `sig` are variables `0..n`, active when differentiable.
pub fn lower(
    sig: &Signature,
    generics: &syn::Generics,
    body: &syn::Block,
    errors: &mut Errors,
) -> Body {
    // Cells are numbered in the order lowering makes them, and a pass may lower an
    // expression differently once more cells are active (structurally rather than as
    // written), which renumbers later cells. So iterate A ← F(A) — the cells found written
    // with active values when A is assumed, in that pass's own numbering — to an exact
    // fixpoint; from the empty set it grows monotonically while the numbering is stable. If
    // it does not settle, the union of everything found is a safe over-approximation
    // (an extra active cell costs work, never a gradient).
    // `&mut` views bound to names, read as ranges of their buffers (see `views`)
    let body = &remat::rewrite(sig, &scalar_out_parameters(sig, body));
    let body = &views::rewrite(&iterators::effects_as_loops(&expr::vec_literals(
        &expr::sequence_ends(&ndarray::flat_iterations(
            &control::desugared(&qualify_float_constants(body, generics)),
            sig,
        )),
    )));
    let synth = Synth::default();
    let mut assumed = HashSet::new();
    let mut union = HashSet::new();
    for _ in 0..12 {
        let mut pass_errors = Errors::default();
        let (ir, found) = lower_pass(sig, generics, body, &mut pass_errors, &assumed, &synth);

        if found == assumed {
            errors.extend(pass_errors);
            return ir;
        }
        union.extend(found.iter().copied());
        assumed = found;
    }
    // (the union grows while the numbering settles; a pass whose syntax is made anew each
    // time, which `Synth` exists to prevent, would keep it growing: refused rather than
    // looping or guessing)
    for _ in 0..24 {
        let mut pass_errors = Errors::default();
        let (ir, found) = lower_pass(sig, generics, body, &mut pass_errors, &union, &synth);
        if found.is_subset(&union) {
            errors.extend(pass_errors);
            return ir;
        }
        union.extend(found);
    }
    let mut pass_errors = Errors::default();
    let (ir, _) = lower_pass(sig, generics, body, &mut pass_errors, &union, &synth);
    errors.extend(pass_errors);
    errors.push(Span::call_site(), diag::ACTIVITY_UNSETTLED);
    ir
}

/// The body as the lowering sees it for `x: &mut f64` parameters: `*x` is `x[0]` (the
/// parameter's cell is the one-element array `core::array::from_mut(x)`).
fn scalar_out_parameters(sig: &Signature, body: &syn::Block) -> syn::Block {
    struct Deref(Vec<String>);
    impl syn::visit_mut::VisitMut for Deref {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            let named = |e: &syn::Expr| {
                matches!(e, syn::Expr::Path(p)
                    if p.path.get_ident().is_some_and(|i| self.0.contains(&i.to_string())))
            };
            match e {
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && named(&u.expr) => {
                    let x = &u.expr;
                    *e = syn::parse_quote_spanned!(u.span()=> #x[0]);
                    return;
                }
                // (a method called through the reference, `x.abs()`)
                syn::Expr::MethodCall(m) if named(&m.receiver) => {
                    let x = &m.receiver;
                    *m.receiver = syn::parse_quote_spanned!(x.span()=> #x[0]);
                }
                _ => {}
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
        // (a macro's arguments, when they are expressions: `relative_eq!(*x, x_new)`)
        fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
            use syn::punctuated::Punctuated;
            let Ok(mut args) =
                m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
            else {
                return;
            };
            for a in args.iter_mut() {
                self.visit_expr_mut(a);
            }
            m.tokens = args.to_token_stream();
        }
    }
    let names: Vec<String> = sig
        .params
        .iter()
        .filter(|p| p.scalar_out())
        .map(|p| p.name.clone())
        .collect();
    let mut out = body.clone();
    if !names.is_empty() {
        syn::visit_mut::VisitMut::visit_block_mut(&mut Deref(names), &mut out);
    }
    out
}

/// `T::one()`, `T::epsilon()`, `T::PI()` of the float type parameter written with their
/// trait (`<T as num_traits::One>::one()`): the derivative's bound `T: Real` brings
/// num-traits' traits in scope, and a function whose own bounds name another trait with the
/// same name (`T: traits::One`, as vector-math crates write) would otherwise be ambiguous.
/// The values are the same for every float type.
fn qualify_float_constants(body: &syn::Block, generics: &syn::Generics) -> syn::Block {
    struct Qualify(Vec<String>);
    impl syn::visit_mut::VisitMut for Qualify {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            syn::visit_mut::visit_expr_call_mut(self, c);
            let syn::Expr::Path(p) = &*c.func else {
                return;
            };
            let segs = &p.path.segments;
            if !c.args.is_empty()
                || p.qself.is_some()
                || segs.len() != 2
                || !self.0.contains(&segs[0].ident.to_string())
                || !segs.iter().all(|s| s.arguments.is_none())
            {
                return;
            }
            let name = &segs[1].ident;
            let Some(owner) = float_constant_name(&name.to_string()) else {
                return;
            };
            let t = &segs[0].ident;
            let owner = syn::Ident::new(owner, name.span());
            *c.func = syn::parse_quote!(<#t as ::autodiff::__private::num_traits::#owner>::#name);
        }
    }
    let floats = crate::signature::float_type_params(generics, None);
    let mut out = body.clone();
    if !floats.is_empty() {
        let names = floats.iter().map(ToString::to_string).collect();
        syn::visit_mut::VisitMut::visit_block_mut(&mut Qualify(names), &mut out);
    }
    out
}

fn lower_pass(
    sig: &Signature,
    generics: &syn::Generics,
    body: &syn::Block,
    errors: &mut Errors,
    assumed: &HashSet<usize>,
    synth: &Synth,
) -> (Body, HashSet<usize>) {
    let mut l = Lowering {
        vars: Vec::new(),
        cells: Vec::new(),
        regions: vec![RegionInfo { in_loop: false }],
        scopes: vec![HashMap::new()],
        closures: Vec::new(),
        inlining: 0,
        block: Block {
            region: RegionId::BODY,
            stmts: Vec::new(),
        },
        items: Vec::new(),
        type_params: generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect(),
        param_names: sig.params.iter().map(|p| p.name.clone()).collect(),
        array_lens: sig
            .params
            .iter()
            .filter_map(|p| Some((p.name.clone(), literal_array_len(&p.ty)?)))
            .collect(),
        numeric_params: sig
            .params
            .iter()
            .filter(|p| numeric_type(&p.ty, &generics_names(generics)))
            .map(|p| p.name.clone())
            .collect(),
        struct_params: sig
            .params
            .iter()
            .filter(|p| p.differentiable && struct_type(&p.ty, generics))
            .map(|p| p.name.clone())
            .collect(),
        sequences: HashSet::new(),
        float_type: {
            let floats = crate::signature::float_type_params(generics, None);
            (floats.len() == 1).then(|| floats[0].clone())
        },
        errors,
        assumed_active_cells: assumed,
        synth,
        found_active_cells: HashSet::new(),
        cell_keys: Vec::new(),
        next_flag_key: usize::MAX >> 2,
        loops: Vec::new(),
        ret: None,
        output_shape: control::type_shape(&sig.output),
        output_is_result: matches!(&sig.output, syn::Type::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "Result")),
        snapshots: HashMap::new(),
        element_reads: HashMap::new(),
        vec_cells: HashSet::new(),
        mut_views: HashMap::new(),
        vec_rows: HashSet::new(),
        next_mapped: 0,
        opaque_params: opaque_params(sig, generics),
        rows: HashSet::new(),
        made_values: HashSet::new(),
        struct_cells: HashSet::new(),
        ref_cells: HashSet::new(),
        struct_valued_cells: HashSet::new(),
        struct_vec_values: HashSet::new(),
        discard: false,
        next_part: 0,
    };
    for p in &sig.params {
        let v = l.new_var(p.differentiable);
        l.vars[v.0].maybe_array = maybe_array_type(&p.ty, &l.type_params);
        l.vars[v.0].shared_ref = matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_none());
        l.vars[v.0].owned_struct = p.differentiable
            && !matches!(&p.ty, syn::Type::Reference(_))
            && struct_type(&p.ty, generics);
        if sequence_type(&p.ty) {
            l.sequences.insert(v);
        }
        if crate::emit::struct_sequence_type(&p.ty, &sig.type_params).is_some() {
            l.struct_vec_values.insert(v);
        }
        if rows_are_sequences(&p.ty, &l.type_params) {
            l.vec_rows.insert(v);
        }
        if p.in_out {
            // written through: a cell that is the reference itself, always differentiable
            // (keyed like a flag: a key no syntax node has)
            l.next_flag_key -= 1;
            let c = l.new_cell(None, l.next_flag_key);
            l.cells[c.0].active = true;
            l.cells[c.0].bound_to = Some(v);
            l.cells[c.0].bound_scalar = p.scalar_out();
            l.bind(&p.name, Binding::Cell(c));
            continue;
        }
        if p.mutable && !p.by_ref {
            // `mut z: f64`: a cell the body assigns, like a `let mut` local, starting as
            // the argument (keyed like a flag, as above)
            l.next_flag_key -= 1;
            let c = l.new_cell(None, l.next_flag_key);
            l.write_cell(c, Operand::Var(v));
            l.bind(&p.name, Binding::Cell(c));
            continue;
        }
        let value = if p.by_ref {
            Value::Ref(Box::new(Value::Var(v)))
        } else {
            Value::Var(v)
        };
        l.bind(&p.name, Binding::Value(value));
    }
    let mut output = l.block_contents(&body.stmts, true);
    if let Some((_, value)) = l.ret.clone() {
        output = l.read_slot(&value, Span::call_site());
    }
    // A function with const generic parameters may keep an array `[T; N]` of a
    // const-generic length in a cell first written inside a loop (the row of `out[i][j] =
    // …`): its cells start as the runtime's placeholder, as such an array has no `Default`.
    if generics.const_params().next().is_some() {
        for cell in l.cells.iter_mut() {
            if cell.init.is_none() && cell.bound_to.is_none() {
                cell.init = Some(control::placeholder());
                cell.init_fits_tangent = true;
            }
        }
    }
    let mut found = std::mem::take(&mut l.found_active_cells);
    let mut indexed = HashSet::new();
    indexed_cells(&l.block, &mut indexed);
    found.extend(indexed.iter().map(|c| indexed_key(l.cell_keys[c.0])));
    invariant::hoist_snapshots(&mut l.block, &mut l.vars);
    let ir = Body {
        vars: l.vars,
        cells: l.cells,
        regions: l.regions,
        items: l.items.into_iter().map(differentiable_nested_fn).collect(),
        block: l.block,
        output,
    };
    (ir, found)
}

/// A function declared inside the body, as the generated sweeps declare it: with
/// `#[differentiable]` when its signature names a float (`fn sq(t: f64) -> f64`), so that
/// a call of it differentiates through its own derivative (in the function as written it
/// stays as it is).
fn differentiable_nested_fn(item: syn::Item) -> syn::Item {
    let syn::Item::Fn(mut f) = item else {
        return item;
    };
    let annotated = f.attrs.iter().any(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "differentiable")
    });
    fn names_float(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "f64" || i == "f32",
            proc_macro2::TokenTree::Group(g) => names_float(g.stream()),
            _ => false,
        })
    }
    let sig = &f.sig;
    let floats = names_float(quote!(#sig));
    if !annotated && floats && sig.generics.params.is_empty() {
        f.attrs
            .push(syn::parse_quote!(#[::autodiff::differentiable]));
    }
    syn::Item::Fn(f)
}

/// The fixpoint's sets hold `key << 2` for an active cell, `key << 2 | 1` for a cell that
/// may hold an array and `key << 2 | 2` for one read by index ([`indexed_key`]). A cell's key is the address of the syntax node that makes it
/// (the same node in every pass, whatever the numbering), or a unique number for flag
/// cells that never hold a differentiable value.
fn active_key(key: usize) -> usize {
    key << 2
}

fn maybe_array_key(key: usize) -> usize {
    (key << 2) | 1
}

/// The fixpoint's key of a cell read or written by index or by range somewhere (a `Vec`
/// whose extent [`Stmt::Extent`] records where it is assigned).
fn indexed_key(key: usize) -> usize {
    (key << 2) | 2
}

/// The cells `block` reads or writes by index or by range.
fn indexed_cells(block: &Block, out: &mut HashSet<CellId>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                rhs:
                    Rhs::ReadIndex {
                        place: Place::Cell(c),
                        ..
                    }
                    | Rhs::SubSlice {
                        place: Place::Cell(c),
                        ..
                    },
                ..
            }
            | Stmt::WriteIndex { cell: c, .. } => {
                out.insert(*c);
            }
            Stmt::If { then, els, .. } => {
                indexed_cells(then, out);
                indexed_cells(els, out);
            }
            Stmt::Loop { body, .. } => indexed_cells(body, out),
            _ => {}
        }
    }
}

/// A slice, `Vec` or fixed-size array type, behind references.
fn sequence_type(ty: &syn::Type) -> bool {
    crate::signature::sequence_element(ty).is_some()
}

fn node_key<T>(node: &T) -> usize {
    node as *const T as usize
}

/// Syntax the lowering writes in place of the user's (`v.retain(…)` as its loop, `p.map(f)`
/// of an array as its elements), kept across the fixpoint's passes: cells are keyed by the
/// address of the syntax that makes them ([`node_key`]), which must be the same in every
/// pass. Kept by what it is (its kind and its text), not by the address of the node it
/// was made for: a node the lowering itself made and dropped may have the address of
/// another site's in the next pass (two `scan`s whose sources were copies once shared one
/// state). Sites that make the same text share it, as they would share the same code.
#[derive(Default)]
struct Synth {
    exprs: std::cell::RefCell<HashMap<(&'static str, String), std::rc::Rc<syn::Expr>>>,
    closures: std::cell::RefCell<HashMap<String, std::rc::Rc<syn::ExprClosure>>>,
}

impl LocalClosure {
    fn closure(&self) -> &syn::ExprClosure {
        match &*self.closure {
            syn::Expr::Closure(c) => c,
            _ => unreachable!("a local closure is kept as a closure"),
        }
    }
}

impl Synth {
    /// The syntax `made` (by `what`), as made in an earlier pass.
    fn get(&self, what: &'static str, made: syn::Expr) -> std::rc::Rc<syn::Expr> {
        let text = made.to_token_stream().to_string();
        let mut map = self.exprs.borrow_mut();
        map.entry((what, text))
            .or_insert_with(|| std::rc::Rc::new(made))
            .clone()
    }

    /// A closure a chain applies (`map`'s, `fold`'s), as made in an earlier pass.
    fn closure(&self, made: syn::ExprClosure) -> std::rc::Rc<syn::ExprClosure> {
        let text = made.to_token_stream().to_string();
        let mut map = self.closures.borrow_mut();
        map.entry(text)
            .or_insert_with(|| std::rc::Rc::new(made))
            .clone()
    }
}

/// Whether a value of this type may be an array (or of a type the macro does not know):
/// everything but float scalars, sequences of them, and constants' types.
fn maybe_array_type(ty: &syn::Type, type_params: &[String]) -> bool {
    match ty {
        syn::Type::Reference(r) => maybe_array_type(&r.elem, type_params),
        syn::Type::Paren(p) => maybe_array_type(&p.elem, type_params),
        syn::Type::Group(g) => maybe_array_type(&g.elem, type_params),
        // an untyped closure parameter: taken to be a scalar
        syn::Type::Slice(_) | syn::Type::Array(_) | syn::Type::Infer(_) => false,
        syn::Type::Tuple(t) => t.elems.iter().any(|e| maybe_array_type(e, type_params)),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return true;
            };
            let name = last.ident.to_string();
            // `Option<T>`, `Result<T, E>`: as `T`
            if name == "Option" || name == "Result" {
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        return maybe_array_type(t, type_params);
                    }
                }
            }
            !(prims::is_float_type_name(&name)
                || prims::is_constant_type_name(&name)
                || name == "Vec"
                || (p.path.segments.len() == 1 && type_params.contains(&name))
                || is_array_alias(&name, &last.arguments, type_params))
        }
        _ => true,
    }
}

/// A generic type over float type parameters only that is not one of ndarray's
/// (`Vector3<T>`, `Matrix3<T>`): in generic vector-math code, an alias of a fixed-size
/// array, whose elements are scalars or rows (ndarray's arrays are `Array…`, `ArcArray…`,
/// `CowArray`). With a concrete float (`Vector3<f64>`, `Matrix3<f32>`) the type may as well
/// be nalgebra's, whose values have operators: it may be an array, as `Vec3` is.
fn is_array_alias(name: &str, args: &syn::PathArguments, type_params: &[String]) -> bool {
    let syn::PathArguments::AngleBracketed(args) = args else {
        return false;
    };
    let float = |t: &syn::Type| match t {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| type_params.contains(&i.to_string())),
        _ => false,
    };
    let wrapper = matches!(
        name,
        "Option" | "Result" | "Box" | "Rc" | "Arc" | "Cow" | "Cell" | "RefCell" | "Complex"
    );
    let ndarray =
        name.starts_with("Array") || name.starts_with("ArcArray") || name.starts_with("CowArray");
    !(wrapper || ndarray || args.args.is_empty())
        && args.args.iter().all(|a| match a {
            syn::GenericArgument::Type(t) => float(t),
            _ => false,
        })
}

/// Whether the elements of a sequence of this type are themselves `Vec`s or slices
/// (`&[Vec<f64>]`, `Vec<Vec<f64>>`, `&[&[f64]]`), not `Copy` rows.
/// A sequence whose elements are sequences or structs (`&[Vec<f64>]`, `&[Point]`): an
/// element read borrows the element, which is not `Copy`.
fn rows_are_sequences(ty: &syn::Type, type_params: &[String]) -> bool {
    let Some(mut elem) = crate::signature::sequence_element(ty) else {
        return false;
    };
    loop {
        elem = match elem {
            syn::Type::Reference(r) => &r.elem,
            syn::Type::Paren(p) => &p.elem,
            syn::Type::Group(g) => &g.elem,
            _ => break,
        };
    }
    let strukt = match elem {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && !type_params.contains(&name)
                && name != "Vec"
        }),
        _ => false,
    };
    matches!(elem, syn::Type::Slice(_)) || crate::signature::vec_element(elem).is_some() || strukt
}

/// `vec![x; n]` of a float literal `x` (or its negation): `x` and `n`. A buffer of floats
/// made so is what the pool serves (`emit::forward::pooled_vec`) and what the rewrite of
/// buffers computed again where read starts from (`remat`).
pub(crate) fn float_repeat(m: &syn::Macro) -> Option<(syn::Expr, syn::Expr)> {
    if !m.path.is_ident("vec") {
        return None;
    }
    let (x, n) = m
        .parse_body_with(|input: syn::parse::ParseStream| {
            let x: syn::Expr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            let n: syn::Expr = input.parse()?;
            Ok((x, n))
        })
        .ok()?;
    let float =
        |e: &syn::Expr| matches!(e, syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)));
    let literal = match &x {
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => float(&u.expr),
        e => float(e),
    };
    literal.then_some((x, n))
}

pub(crate) fn is_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_literal(&u.expr),
        syn::Expr::Paren(p) => is_literal(&p.expr),
        // a float constant converted to a type parameter (`<T as Real>::from_f64_rounded(2.0)`,
        // how the copy `second_order` writes a literal): a scalar constant as the literal is
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return false;
            };
            let last = p.path.segments.last().map(|s| s.ident.to_string());
            match (c.args.len(), last.as_deref()) {
                (1, Some("from_f64_rounded")) => p.qself.is_some(),
                // a constant of the float type parameter as `qualify_float_constants`
                // writes it (`<T as num_traits::One>::one()`, `<T as FloatConst>::PI()`):
                // the same value wherever it is evaluated, so the reverse sweep evaluates
                // it again rather than keeping one copy per iteration of a loop
                (0, Some(name)) => {
                    p.qself.is_some()
                        && p.path.segments.iter().any(|s| s.ident == "num_traits")
                        && float_constant_name(name).is_some()
                }
                _ => false,
            }
        }
        // a literal converted to the float type parameter, `T::from(2.0).unwrap()`
        // (num-traits' `NumCast`, `FromPrimitive`): a constant as the literal is
        syn::Expr::MethodCall(_) => float_conversion(e).is_some_and(|(_, a)| {
            matches!(a, syn::Expr::Lit(_) | syn::Expr::Unary(_)) && is_literal(a)
        }),
        _ => false,
    }
}

/// `(owner, x)` when `e` converts `x` to a float type with num-traits as generic code
/// writes it: `T::from(x).unwrap()`, `T::from_f64(x).expect("…")` (`NumCast`,
/// `FromPrimitive`: `owner` is `T`), `num_traits::cast(x).unwrap()` (`owner` is
/// `num_traits`) — a pure conversion, whose result depends only on `x`.
pub(crate) fn float_conversion(e: &syn::Expr) -> Option<(&syn::Ident, &syn::Expr)> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    // (`expect`'s message a literal or a constant: nothing to evaluate twice)
    let unwrapped = match (m.method.to_string().as_str(), m.args.first()) {
        ("unwrap", None) => true,
        ("expect", Some(syn::Expr::Lit(_) | syn::Expr::Path(_))) => m.args.len() == 1,
        _ => false,
    };
    let syn::Expr::Call(c) = &*m.receiver else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs = &p.path.segments;
    if !unwrapped
        || p.qself.is_some()
        || segs.len() != 2
        || c.args.len() != 1
        || segs.iter().any(|s| !s.arguments.is_none())
    {
        return None;
    }
    let (owner, conversion) = (&segs[0].ident, segs[1].ident.to_string());
    let converts = owner == "num_traits" && conversion == "cast"
        || matches!(
            conversion.as_str(),
            "from"
                | "from_f64"
                | "from_f32"
                | "from_usize"
                | "from_isize"
                | "from_i32"
                | "from_i64"
                | "from_u32"
                | "from_u64"
        );
    converts.then_some((owner, &c.args[0]))
}

/// The num-traits trait owning a constant of a float type (`one` → `One`, `PI` →
/// `FloatConst`), for the names [`qualify_float_constants`] writes with their trait.
fn float_constant_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "one" => "One",
        "zero" => "Zero",
        "nan" | "infinity" | "neg_infinity" | "neg_zero" | "min_value" | "min_positive_value"
        | "max_value" | "epsilon" => "Float",
        "PI" | "E" | "TAU" | "SQRT_2" | "LN_2" | "LN_10" | "LOG2_E" | "LOG10_E" | "LOG2_10"
        | "LOG10_2" | "FRAC_1_PI" | "FRAC_2_PI" | "FRAC_2_SQRT_PI" | "FRAC_1_SQRT_2"
        | "FRAC_PI_2" | "FRAC_PI_3" | "FRAC_PI_4" | "FRAC_PI_6" | "FRAC_PI_8" => "FloatConst",
        _ => return None,
    })
}

/// Whether `node` may leave the enclosing block early: a `return`, or a `break`/`continue`
/// that is not caught by a loop inside `node`. Closures are not looked into.
/// Parameters of a type that cannot be indexed: a type parameter that is not a float
/// type (`coefficients: I` with `I: IntoIterator<Item = f64>`) or `impl Trait`.
fn opaque_params(sig: &Signature, generics: &syn::Generics) -> HashSet<String> {
    let floats: Vec<String> = crate::signature::float_type_params(generics, None)
        .iter()
        .map(|t| t.to_string())
        .collect();
    let opaque = |ty: &syn::Type| {
        let mut t = ty;
        while let syn::Type::Reference(r) = t {
            t = &r.elem;
        }
        match t {
            syn::Type::ImplTrait(_) => true,
            syn::Type::Path(tp) => tp.path.get_ident().is_some_and(|i| {
                let i = i.to_string();
                !floats.contains(&i) && generics.type_params().any(|g| g.ident == i)
            }),
            _ => false,
        }
    };
    sig.params
        .iter()
        .filter(|p| opaque(&p.ty))
        .map(|p| p.name.clone())
        .collect()
}

mod calls;
mod control;
mod element_loops;
mod expr;
mod invariant;
mod iterators;
mod ndarray;
mod options;
mod remat;
mod slice_methods;
mod stmt;
mod views;

use control::{expr_may_exit, stmt_may_exit};

impl Lowering<'_> {
    fn new_var(&mut self, active: bool) -> VarId {
        self.vars.push(VarInfo {
            active,
            region: self.block.region,
            maybe_array: false,
            shared_ref: false,
            owned_struct: false,
            struct_element: false,
        });
        VarId(self.vars.len() - 1)
    }

    fn new_cell(&mut self, ty: Option<Box<syn::Type>>, key: usize) -> CellId {
        let id = CellId(self.cells.len());
        self.cell_keys.push(key);
        let active = self.assumed_active_cells.contains(&active_key(key));
        let maybe_array = self.assumed_active_cells.contains(&maybe_array_key(key))
            || ty
                .as_deref()
                .is_some_and(|t| maybe_array_type(t, &self.type_params));
        self.cells.push(CellInfo {
            active,
            maybe_array,
            ty,
            bound_to: None,
            bound_scalar: false,
            init: None,
            init_fits_tangent: false,
        });
        id
    }

    /// A cell for a control-flow flag (never a differentiable value).
    fn flag_cell(&mut self) -> CellId {
        self.next_flag_key -= 1;
        let key = self.next_flag_key;
        self.new_cell(None, key)
    }

    fn in_loop(&self) -> bool {
        self.regions[self.block.region.0].in_loop
    }

    /// Runs `f` with a fresh block in a new region; returns the block.
    fn nested(&mut self, in_loop: bool, f: impl FnOnce(&mut Self)) -> Block {
        self.regions.push(RegionInfo {
            in_loop: in_loop || self.in_loop(),
        });
        let region = RegionId(self.regions.len() - 1);
        let outer = std::mem::replace(
            &mut self.block,
            Block {
                region,
                stmts: Vec::new(),
            },
        );
        self.scopes.push(HashMap::new());
        // A loop body sees a new value each iteration; an arm of a branch starts with the
        // cells as they are (a snapshot taken before it is still theirs). After a nested
        // region any cell may have been written.
        let outer_snapshots = self.snapshots.clone();
        if in_loop {
            self.snapshots.clear();
        }
        let element_reads = std::mem::take(&mut self.element_reads);
        f(self);
        self.snapshots = outer_snapshots;
        if in_loop {
            let mut written = HashSet::new();
            cells_written(&self.block, &mut written);
            self.snapshots.retain(|c, _| !written.contains(c));
        }
        self.element_reads = element_reads;
        self.scopes.pop();
        std::mem::replace(&mut self.block, outer)
    }

    /// Pushes a branch. Both arms started from the snapshots taken before it; after it,
    /// those of cells either arm may write are gone.
    fn push_if(&mut self, cond: Operand, then: Block, els: Block) {
        let mut written = HashSet::new();
        cells_written(&then, &mut written);
        cells_written(&els, &mut written);
        self.snapshots.retain(|c, _| !written.contains(c));
        self.block.stmts.push(Stmt::If { cond, then, els });
    }

    fn bind(&mut self, name: &str, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(name.to_string(), binding);
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn is_active(&self, v: &Value) -> bool {
        let mut vars = Vec::new();
        v.vars(&mut vars);
        vars.iter().any(|v| self.vars[v.0].active)
    }

    fn binding_active(&self, b: &Binding) -> bool {
        match b {
            Binding::Value(v) => self.is_active(v),
            Binding::Cell(c) => self.cells[c.0].active,
            Binding::Closure(k) => self.closures[*k].active,
        }
    }

    fn operand_active(&self, o: &Operand) -> bool {
        o.var().is_some_and(|v| self.vars[v.0].active)
    }

    fn operand_maybe_array(&self, o: &Operand) -> bool {
        o.var().is_some_and(|v| self.vars[v.0].maybe_array)
    }

    /// Whether a value defined by `rhs` may be an array (see [`VarInfo::maybe_array`]).
    fn rhs_maybe_array(&self, rhs: &Rhs) -> bool {
        match rhs {
            Rhs::Copy(o) => self.operand_maybe_array(o),
            Rhs::Owned { of, method } if method == "clone" => self.operand_maybe_array(of),
            Rhs::Owned { .. } => false,
            Rhs::Prim(Prim::Cast { .. }, _) => false,
            // an element of a sequence the macro cannot see (`m.layers[i]`) may be anything
            Rhs::ReadIndex { place, .. } => match place {
                Place::Var(v) => self.vars[v.0].maybe_array,
                Place::Cell(_) => false,
            },
            Rhs::Prim(Prim::Tensor { rule, .. }, _) => {
                !matches!(rule.form, rules::Form::Array { scalar: true, .. })
            }
            Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                args.iter().any(|a| self.operand_maybe_array(a))
            }
            Rhs::SubSlice { .. } => false,
            Rhs::ReadCell(c) => self.cells[c.0].maybe_array,
            Rhs::Field { base, .. } => self.vars[base.0].maybe_array,
            Rhs::Member { .. } | Rhs::Source(_) => true,
            Rhs::Inactive(ts) => self.mentions_maybe_array(ts),
        }
    }

    /// Whether code kept as written mentions a variable or cell that may be an array.
    fn mentions_maybe_array(&self, ts: &TokenStream) -> bool {
        VarId::mentioned_in(ts)
            .into_iter()
            .any(|v| self.vars.get(v.0).is_some_and(|v| v.maybe_array))
            || CellId::mentioned_in(ts)
                .into_iter()
                .any(|c| self.cells.get(c.0).is_some_and(|c| c.maybe_array))
    }

    fn push(&mut self, dst: VarId, ty: Option<Box<syn::Type>>, rhs: Rhs, span: Span) {
        if let Rhs::Inactive(ts) = &rhs {
            self.forget_snapshots_in(ts);
        }
        self.vars[dst.0].maybe_array = match &ty {
            Some(t) => maybe_array_type(t, &self.type_params),
            None => self.rhs_maybe_array(&rhs),
        };
        if matches!(rhs, Rhs::SubSlice { .. } | Rhs::Owned { .. }) {
            self.sequences.insert(dst);
        }
        match &rhs {
            // a sub-slice of rows (of `Vec`s, slices or structs) has such rows too
            Rhs::SubSlice {
                place: Place::Var(p),
                ..
            } if self.vec_rows.contains(p) => {
                self.vec_rows.insert(dst);
            }
            // a row, borrowed (a `Vec`, a struct: not `Copy`)
            Rhs::ReadIndex {
                place: Place::Var(p),
                ..
            } if ty.is_none() && self.vec_rows.contains(p) => {
                self.vars[dst.0].maybe_array = true;
            }
            _ => {}
        }
        self.block.stmts.push(Stmt::Let { dst, ty, rhs, span });
    }

    /// Code kept as written may assign the cells it mentions (`k += 1`): their snapshots
    /// are stale after it.
    fn forget_snapshots_in(&mut self, tokens: &TokenStream) {
        for c in CellId::mentioned_in(tokens) {
            self.snapshots.remove(&c);
        }
    }

    /// A fresh inactive variable holding `tokens`.
    fn inactive(&mut self, tokens: TokenStream, span: Span) -> Value {
        let v = self.new_var(false);
        self.push(v, None, Rhs::Inactive(tokens), span);
        Value::Var(v)
    }

    fn read_cell(&mut self, cell: CellId, span: Span) -> VarId {
        if let Some(v) = self.snapshots.get(&cell) {
            return *v;
        }
        let v = self.new_var(self.cells[cell.0].active);
        self.push(v, None, Rhs::ReadCell(cell), span);
        self.snapshots.insert(cell, v);
        // (a struct cell's value is a struct held by value, as the literal it was made of)
        self.vars[v.0].owned_struct |= self.struct_valued_cells.contains(&cell);
        if self.struct_cells.contains(&cell) {
            self.struct_vec_values.insert(v);
        }
        v
    }

    fn write_cell(&mut self, cell: CellId, value: Operand) {
        self.snapshots.remove(&cell);
        if self.operand_active(&value) {
            self.found_active_cells
                .insert(active_key(self.cell_keys[cell.0]));
        }
        if self.operand_maybe_array(&value) {
            self.found_active_cells
                .insert(maybe_array_key(self.cell_keys[cell.0]));
        }
        self.block.stmts.push(Stmt::WriteCell { cell, value });
    }

    /// Before `cell = value` of a cell read by index (a `Vec` local reassigned through
    /// layers of different widths): the extent of the cell's value then, which the reverse
    /// sweep gives the adjoint back (see [`Stmt::Extent`]). Not for a `&mut` parameter's
    /// cell (its length is the caller's) nor where no gradient flows.
    ///
    /// Also after the write: the extent of the value written, which the adjoint is given
    /// before the write's reverse takes it (reads by index grow an adjoint only as far as
    /// they reach, see `ops::grown_index_d0`).
    fn record_extent(&mut self, cell: CellId, value: &Operand, span: Span) {
        let info = &self.cells[cell.0];
        let indexed = self
            .assumed_active_cells
            .contains(&indexed_key(self.cell_keys[cell.0]));
        let active = info.active || self.operand_active(value);
        if !indexed || !active || info.bound_to.is_some() {
            return;
        }
        let rt = crate::emit::rt();
        let c = cell.ident();
        let extent = self.inactive(
            quote!({
                #[allow(unused_imports)]
                use #rt::ops::{ExtentAny as _, ExtentVec as _};
                (&#rt::ops::Extent(&#c)).extent()
            }),
            span,
        );
        let extent = self.operand(extent, span);
        self.block.stmts.push(Stmt::Extent { cell, extent });
    }

    fn write_flag(&mut self, cell: CellId, value: syn::Expr) {
        self.snapshots.remove(&cell);
        self.block.stmts.push(Stmt::WriteCell {
            cell,
            value: Operand::Inline(value),
        });
    }

    fn renamer(&self) -> impl Fn(&str) -> Option<TokenStream> + '_ {
        move |name| {
            self.lookup(name).map(|b| match b {
                Binding::Value(v) => v.tokens(),
                Binding::Cell(c) if self.ref_cells.contains(c) => {
                    let id = c.ident();
                    quote!((&#id))
                }
                Binding::Cell(c) => {
                    let id = c.ident();
                    quote!(#id)
                }
                // (one that reads active values is never kept as written: its name, so
                // that it counts as a name the expression reads)
                Binding::Closure(k) => match &self.closures[*k].value {
                    Some(v) => v.tokens(),
                    None => self.closures[*k].name.to_token_stream(),
                },
            })
        }
    }

    /// Whether a name is bound, for [`rename::free_names`], which needs no replacement's
    /// tokens (building them was most of its time).
    fn bound_names(&self) -> impl Fn(&str) -> Option<TokenStream> + '_ {
        move |name| self.lookup(name).map(|_| TokenStream::new())
    }

    /// Whether `e` mentions a local whose value is active, or reads a source.
    fn references_active(&self, e: &syn::Expr) -> bool {
        crate::sources::contains_marker(e)
            || rename::free_names(e, &self.bound_names())
                .iter()
                .any(|n| self.lookup(n).is_some_and(|b| self.binding_active(b)))
    }

    /// Whether the value of `e` depends on active values: like [`Self::references_active`],
    /// but a sequence's length (`xs.len()`, an array's `nrows()`…) is a constant.
    fn value_references_active(&self, e: &syn::Expr) -> bool {
        struct Lengths;
        impl syn::visit_mut::VisitMut for Lengths {
            fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
                if let syn::Expr::MethodCall(m) = e {
                    let name = m.method.to_string();
                    if m.args.is_empty()
                        && matches!(
                            name.as_str(),
                            "len" | "is_empty" | "nrows" | "ncols" | "ndim"
                        )
                    {
                        *e = syn::parse_quote!(0usize);
                        return;
                    }
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        let mut e2 = e.clone();
        syn::visit_mut::VisitMut::visit_expr_mut(&mut Lengths, &mut e2);
        self.references_active(&e2)
    }

    fn renamed(&self, e: &syn::Expr) -> syn::Expr {
        let mut e2 = e.clone();
        rename::rename_expr(&mut e2, &self.renamer());
        e2
    }

    /// `e`, whose value carries no derivative, kept as written with locals renamed.
    fn verbatim(&mut self, e: &syn::Expr) -> Value {
        if is_literal(e) {
            return Value::Inline(e.clone());
        }
        let e2 = self.renamed(e);
        self.inactive(e2.to_token_stream(), e.span())
    }

    fn operand(&mut self, v: Value, span: Span) -> Operand {
        match v.deref() {
            Value::Var(v) => Operand::Var(v),
            Value::Inline(e) => Operand::Inline(e),
            Value::Tuple(items) if items.is_empty() => Operand::Inline(syn::parse_quote!(())),
            // a tuple of differentiable values held as a value (`let mut acc = (a, 0.0);`,
            // `best = (i as f64 * a, x);`); not one with a constant of a type the macro
            // cannot see (an index, a flag), whose arithmetic is not the floats'
            Value::Tuple(items) if items.iter().all(|i| self.tuple_member(i)) => {
                let members = (0..items.len()).map(syn::Member::from).collect();
                let args = items.into_iter().map(|i| self.operand(i, span)).collect();
                let v = self.prim(
                    Prim::Struct {
                        path: None,
                        members,
                    },
                    args,
                    span,
                );
                if let Value::Var(v) = v {
                    self.vars[v.0].maybe_array = true;
                    self.vars[v.0].owned_struct = true;
                }
                self.operand(v, span)
            }
            Value::Tuple(_) | Value::Ref(_) => {
                self.errors.push(span, diag::TUPLE_OPERAND);
                Operand::Inline(syn::parse_quote!(()))
            }
        }
    }

    /// A member of a tuple held as a value: a differentiable variable, or a constant of the
    /// float type (`0.5`, `T::zero()`, `f64::MAX`).
    fn tuple_member(&self, v: &Value) -> bool {
        let float_constant = |ts: TokenStream| {
            // (`-1.0`, `<T as Zero>::zero()`)
            let mut tokens = ts.into_iter().skip_while(|t| {
                matches!(t, proc_macro2::TokenTree::Punct(p) if matches!(p.as_char(), '-' | '<'))
            });
            match tokens.next() {
                Some(proc_macro2::TokenTree::Ident(i)) => {
                    i == "f32" || i == "f64" || self.float_type.as_ref() == Some(&i)
                }
                Some(proc_macro2::TokenTree::Literal(l)) => {
                    syn::parse_str::<syn::LitFloat>(&l.to_string()).is_ok()
                }
                Some(proc_macro2::TokenTree::Group(g)) => {
                    g.delimiter() == proc_macro2::Delimiter::Parenthesis && {
                        let inner = g.stream();
                        syn::parse2::<syn::LitFloat>(inner).is_ok()
                    }
                }
                _ => false,
            }
        };
        let constant = |ts: TokenStream| {
            float_constant(ts.clone())
                || syn::parse2::<syn::Expr>(ts).is_ok_and(|e| self.float_expr(&e))
        };
        match v {
            Value::Var(v) if self.vars[v.0].active => true,
            Value::Var(v) => self.block.stmts.iter().rev().any(|s| {
                matches!(s, Stmt::Let { dst, rhs: Rhs::Inactive(ts), .. }
                    if dst == v && constant(ts.clone()))
            }),
            Value::Inline(e) => constant(e.to_token_stream()),
            _ => false,
        }
    }

    /// Whether a constant expression is of a float type by its form: a float literal, a
    /// cast to a float type, a path or call through one (`f64::MAX`, `T::zero()`,
    /// `<T as Real>::from_f64_rounded(1.5)`), arithmetic with such an operand (Rust has no
    /// mixed arithmetic), a float method of one (`(n as f64).cos().sqrt()`).
    fn float_expr(&self, e: &syn::Expr) -> bool {
        let float_name = |i: &syn::Ident| {
            prims::is_float_type_name(&i.to_string()) || self.float_type.as_ref() == Some(i)
        };
        let float_type = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.path.get_ident().is_some_and(float_name));
        let float_path = |p: &syn::ExprPath| {
            p.qself.as_ref().is_some_and(|q| float_type(&q.ty))
                || (p.path.segments.len() >= 2
                    && p.path
                        .segments
                        .iter()
                        .rev()
                        .skip(1)
                        .any(|s| float_name(&s.ident)))
        };
        match e {
            syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_)),
            syn::Expr::Paren(p) => self.float_expr(&p.expr),
            syn::Expr::Group(g) => self.float_expr(&g.expr),
            syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && self.float_expr(&u.expr),
            syn::Expr::Binary(b) => {
                arithmetic(&b.op) && (self.float_expr(&b.left) || self.float_expr(&b.right))
            }
            syn::Expr::Cast(c) => float_type(&c.ty),
            syn::Expr::Path(p) => float_path(p),
            syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p) if float_path(p)),
            syn::Expr::MethodCall(m) => {
                crate::rules::method_rule(&m.method.to_string()).is_some()
                    && self.float_expr(&m.receiver)
            }
            _ => false,
        }
    }

    fn operand_of(&mut self, e: &syn::Expr) -> Operand {
        // An operand's value is needed, whatever the context.
        let discard = std::mem::replace(&mut self.discard, false);
        let v = self.expr(e);
        self.discard = discard;
        self.operand(v, e.span())
    }

    /// The value of `e`, needed whatever the context (a closure's body in a loop).
    fn value_of(&mut self, e: &syn::Expr) -> Value {
        let discard = std::mem::replace(&mut self.discard, false);
        let v = self.expr(e);
        self.discard = discard;
        v
    }

    fn prim(&mut self, prim: Prim, args: Vec<Operand>, span: Span) -> Value {
        let active = args.iter().any(|a| self.operand_active(a));
        let v = self.new_var(active);
        self.push(v, None, Rhs::Prim(prim, args), span);
        Value::Var(v)
    }

    fn unsupported(&mut self, e: &dyn ToTokens, what: &str) -> Value {
        self.errors.push_spanned(e, what);
        Value::Inline(syn::parse_quote!(()))
    }

    /// The condition under which execution goes on after a statement that may exit: no
    /// `break`/`continue` in the innermost loop, no `return` outside loops.
    fn guard(&mut self) -> Option<Operand> {
        if let Some(ctx) = self.loops.last() {
            let flow = ctx.flow.ident();
            let v = self.inactive(quote!(#flow == 0u8), Span::call_site());
            return Some(self.operand(v, Span::call_site()));
        }
        let flag = self.ret.as_ref()?.0;
        let flag = flag.ident();
        let v = self.inactive(quote!(!#flag), Span::call_site());
        Some(self.operand(v, Span::call_site()))
    }
}

/// The cells a block may write: by assignment, and any a piece of code kept as written
/// mentions (`k += 1` in an inactive statement).
fn cells_written(block: &Block, out: &mut HashSet<CellId>) {
    let mentioned =
        |ts: &TokenStream, out: &mut HashSet<CellId>| out.extend(CellId::mentioned_in(ts));
    for stmt in &block.stmts {
        match stmt {
            Stmt::WriteCell { cell, .. }
            | Stmt::WriteIndex { cell, .. }
            | Stmt::Grow { cell, .. }
            | Stmt::Extent { cell, .. } => {
                out.insert(*cell);
            }
            Stmt::Let {
                rhs: Rhs::Inactive(ts),
                ..
            }
            | Stmt::Effect(ts) => mentioned(ts, out),
            Stmt::Let {
                rhs: Rhs::Call { args, .. },
                ..
            } => out.extend(args.iter().filter_map(Operand::lent_cell)),
            Stmt::Let { .. } => {}
            Stmt::If { then, els, .. } => {
                cells_written(then, out);
                cells_written(els, out);
            }
            Stmt::Loop { head, body, .. } => {
                if let LoopHead::For { iter, .. } = head {
                    mentioned(iter, out);
                }
                cells_written(body, out);
            }
        }
    }
}

fn generics_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect()
}

/// A float, a type parameter, or a slice, `Vec`, array or ndarray array (of anything),
/// through references and tuples.
/// Whether a parameter of this type is one of a derived struct's (`V3`, `&State`,
/// `Params<T>`): the forward mode's reading, `emit::struct_param_type`.
fn struct_type(ty: &syn::Type, generics: &syn::Generics) -> bool {
    let type_params: Vec<syn::Ident> = generics.type_params().map(|t| t.ident.clone()).collect();
    crate::emit::struct_param_type(ty, &type_params)
}

fn numeric_type(ty: &syn::Type, type_params: &[String]) -> bool {
    match ty {
        syn::Type::Reference(r) => numeric_type(&r.elem, type_params),
        syn::Type::Paren(p) => numeric_type(&p.elem, type_params),
        syn::Type::Group(g) => numeric_type(&g.elem, type_params),
        syn::Type::Slice(_) | syn::Type::Array(_) => true,
        syn::Type::Tuple(t) => {
            !t.elems.is_empty() && t.elems.iter().all(|e| numeric_type(e, type_params))
        }
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            rules::is_float_type_name(&name)
                || rules::is_constant_type_name(&name)
                || type_params.contains(&name)
                || name == "Vec"
                || name.starts_with("Array")
        }),
        _ => false,
    }
}

/// The length of a fixed-size array type written with a literal (`[f64; 3]`, `&[T; 2]`).
/// The length (at most 64, written as a literal) and the element type of an array type.
fn literal_array_len(ty: &syn::Type) -> Option<(usize, syn::Type)> {
    match ty {
        syn::Type::Reference(r) => literal_array_len(&r.elem),
        syn::Type::Paren(p) => literal_array_len(&p.elem),
        syn::Type::Array(a) => match &a.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n
                .base10_parse()
                .ok()
                .filter(|n| *n <= 64)
                .map(|n| (n, (*a.elem).clone())),
            _ => None,
        },
        _ => None,
    }
}

/// `+`, `-`, `*`, `/`, `%`.
pub(crate) fn arithmetic(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Add(_)
            | syn::BinOp::Sub(_)
            | syn::BinOp::Mul(_)
            | syn::BinOp::Div(_)
            | syn::BinOp::Rem(_)
    )
}
