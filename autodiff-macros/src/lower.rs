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

use crate::diag::Errors;
use crate::ir::{
    Block, Body, CellId, CellInfo, LoopHead, Operand, Place, Prim, RegionId, RegionInfo, Rhs, Stmt,
    Value, VarId, VarInfo,
};
use crate::prims;
use crate::rename;
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;

#[derive(Clone, Debug)]
enum Binding {
    Value(Value),
    Cell(CellId),
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
    block: Block,
    items: Vec<syn::Item>,
    type_params: Vec<String>,
    errors: &'a mut Errors,
    assumed_active_cells: &'a HashSet<usize>,
    found_active_cells: HashSet<usize>,
    /// Each cell's key (see [`active_key`]).
    cell_keys: Vec<usize>,
    /// Keys for flag cells, counting down from the top (never an address).
    next_flag_key: usize,
    loops: Vec<LoopCtx>,
    /// The early-return flag and value cells, made at the first `return`.
    ret: Option<(CellId, CellId)>,
    /// The snapshot of each cell read since its last write in the current block: reading
    /// it again reuses the snapshot (one value saved, not two).
    snapshots: HashMap<CellId, VarId>,
    /// Reads of an immutable slice at an index variable, in the current block: reading
    /// `x[i]` again reuses the first read (one load, one gradient accumulation).
    element_reads: HashMap<(VarId, VarId), VarId>,
    /// Whether the expression being lowered is in statement position (its value, if any,
    /// is dropped): an `if` or `match` there needs no result cell.
    discard: bool,
}

const HELP_CALL: &str = "mark it `#[differentiable]`, give it a custom rule with `#[differentiable(vjp = …)]`, or wrap the value in `stop_gradient(…)` if no gradient should flow through it";

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
    let mut assumed = HashSet::new();
    let mut union = HashSet::new();
    for _ in 0..12 {
        let mut pass_errors = Errors::default();
        let (ir, found) = lower_pass(sig, generics, body, &mut pass_errors, &assumed);

        if found == assumed {
            errors.extend(pass_errors);
            return ir;
        }
        union.extend(found.iter().copied());
        assumed = found;
    }
    loop {
        let mut pass_errors = Errors::default();
        let (ir, found) = lower_pass(sig, generics, body, &mut pass_errors, &union);
        if found.is_subset(&union) {
            errors.extend(pass_errors);
            return ir;
        }
        union.extend(found);
    }
}

fn lower_pass(
    sig: &Signature,
    generics: &syn::Generics,
    body: &syn::Block,
    errors: &mut Errors,
    assumed: &HashSet<usize>,
) -> (Body, HashSet<usize>) {
    let mut l = Lowering {
        vars: Vec::new(),
        cells: Vec::new(),
        regions: vec![RegionInfo { in_loop: false }],
        scopes: vec![HashMap::new()],
        block: Block {
            region: RegionId::BODY,
            stmts: Vec::new(),
        },
        items: Vec::new(),
        type_params: generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect(),
        errors,
        assumed_active_cells: assumed,
        found_active_cells: HashSet::new(),
        cell_keys: Vec::new(),
        next_flag_key: usize::MAX >> 2,
        loops: Vec::new(),
        ret: None,
        snapshots: HashMap::new(),
        element_reads: HashMap::new(),
        discard: false,
    };
    for p in &sig.params {
        let v = l.new_var(p.differentiable);
        l.vars[v.0].general = general_type(&p.ty, &l.type_params);
        let value = if p.by_ref {
            Value::Ref(Box::new(Value::Var(v)))
        } else {
            Value::Var(v)
        };
        l.bind(&p.name, Binding::Value(value));
    }
    let mut output = l.block_contents(&body.stmts, true);
    if let Some((_, value)) = l.ret {
        let out = l.read_cell(value, Span::call_site());
        output = Value::Var(out);
    }
    let found = std::mem::take(&mut l.found_active_cells);
    let ir = Body {
        vars: l.vars,
        cells: l.cells,
        regions: l.regions,
        items: l.items,
        block: l.block,
        output,
    };
    (ir, found)
}

/// The fixpoint's sets hold `key << 1` for an active cell and `key << 1 | 1` for a cell
/// that may hold an array. A cell's key is the address of the syntax node that makes it
/// (the same node in every pass, whatever the numbering), or a unique number for flag
/// cells that never hold a differentiable value.
fn active_key(key: usize) -> usize {
    key << 1
}

fn general_key(key: usize) -> usize {
    (key << 1) | 1
}

fn node_key<T>(node: &T) -> usize {
    node as *const T as usize
}

/// Whether a value of this type may be an array (or of a type the macro does not know):
/// everything but float scalars, sequences of them, and constants' types.
fn general_type(ty: &syn::Type, type_params: &[String]) -> bool {
    match ty {
        syn::Type::Reference(r) => general_type(&r.elem, type_params),
        syn::Type::Paren(p) => general_type(&p.elem, type_params),
        syn::Type::Group(g) => general_type(&g.elem, type_params),
        // an untyped closure parameter: taken to be a scalar
        syn::Type::Slice(_) | syn::Type::Array(_) | syn::Type::Infer(_) => false,
        syn::Type::Tuple(t) => t.elems.iter().any(|e| general_type(e, type_params)),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return true;
            };
            let name = last.ident.to_string();
            !(prims::is_float_type_name(&name)
                || prims::is_constant_type_name(&name)
                || name == "Vec"
                || (p.path.segments.len() == 1 && type_params.contains(&name)))
        }
        _ => true,
    }
}

fn is_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_literal(&u.expr),
        syn::Expr::Paren(p) => is_literal(&p.expr),
        _ => false,
    }
}

/// Whether `node` may leave the enclosing block early: a `return`, or a `break`/`continue`
/// that is not caught by a loop inside `node`. Closures are not looked into.
fn may_exit(node: &dyn Fn(&mut ExitFinder)) -> bool {
    let mut f = ExitFinder {
        depth: 0,
        found: false,
    };
    node(&mut f);
    f.found
}

struct ExitFinder {
    depth: usize,
    found: bool,
}

impl<'ast> syn::visit::Visit<'ast> for ExitFinder {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        match e {
            syn::Expr::Return(_) => self.found = true,
            syn::Expr::Break(b) if self.depth == 0 || b.label.is_some() => self.found = true,
            syn::Expr::Continue(c) if self.depth == 0 || c.label.is_some() => self.found = true,
            syn::Expr::Closure(_) => {}
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
                self.depth += 1;
                syn::visit::visit_expr(self, e);
                self.depth -= 1;
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn expr_may_exit(e: &syn::Expr) -> bool {
    may_exit(&|f| syn::visit::Visit::visit_expr(f, e))
}

fn stmt_may_exit(s: &syn::Stmt) -> bool {
    may_exit(&|f| syn::visit::Visit::visit_stmt(f, s))
}

/// The forms of iteration over a differentiable slice the lowering turns into indexed
/// loops: `x.iter()`, `x.iter().enumerate()`, `x.iter().zip(y.iter())`, and `for v in x`.
enum SliceIter {
    Plain(syn::Expr),
    Enumerate(syn::Expr),
    Zip(syn::Expr, syn::Expr),
}

/// Whether `e` is an iterator over a sequence (`x.iter()`, `….map(…)`, `….zip(…)`, …), as
/// opposed to an array whose `sum()` is ndarray's.
fn is_iterator_chain(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "iter" | "into_iter" | "copied" | "cloned" | "zip" | "enumerate" | "map" | "rev"
        ),
        syn::Expr::Paren(p) => is_iterator_chain(&p.expr),
        _ => false,
    }
}

fn strip_copied(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::MethodCall(m)
            if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() =>
        {
            strip_copied(&m.receiver)
        }
        syn::Expr::Paren(p) => strip_copied(&p.expr),
        _ => e,
    }
}

fn iter_base(e: &syn::Expr) -> Option<&syn::Expr> {
    match strip_copied(e) {
        syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => Some(&m.receiver),
        syn::Expr::Reference(r) if r.mutability.is_none() => Some(&r.expr),
        _ => None,
    }
}

fn slice_iter(e: &syn::Expr) -> Option<SliceIter> {
    if let syn::Expr::MethodCall(m) = strip_copied(e) {
        if m.method == "enumerate" && m.args.is_empty() {
            return iter_base(&m.receiver).map(|b| SliceIter::Enumerate(b.clone()));
        }
        if m.method == "zip" && m.args.len() == 1 {
            let a = iter_base(&m.receiver)?;
            let b = iter_base(&m.args[0]).or(match &m.args[0] {
                syn::Expr::Path(_) => Some(&m.args[0]),
                _ => None,
            })?;
            return Some(SliceIter::Zip(a.clone(), b.clone()));
        }
    }
    if let Some(b) = iter_base(e) {
        return Some(SliceIter::Plain(b.clone()));
    }
    if let syn::Expr::Path(_) = e {
        return Some(SliceIter::Plain(e.clone()));
    }
    None
}

impl Lowering<'_> {
    fn new_var(&mut self, active: bool) -> VarId {
        self.vars.push(VarInfo {
            active,
            region: self.block.region,
            general: false,
        });
        VarId(self.vars.len() - 1)
    }

    fn new_cell(&mut self, ty: Option<Box<syn::Type>>, key: usize) -> CellId {
        let id = CellId(self.cells.len());
        self.cell_keys.push(key);
        let active = self.assumed_active_cells.contains(&active_key(key));
        let general = self.assumed_active_cells.contains(&general_key(key))
            || ty
                .as_deref()
                .is_some_and(|t| general_type(t, &self.type_params));
        self.cells.push(CellInfo {
            active,
            general,
            ty,
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
        }
    }

    fn operand_active(&self, o: &Operand) -> bool {
        o.var().is_some_and(|v| self.vars[v.0].active)
    }

    fn operand_general(&self, o: &Operand) -> bool {
        o.var().is_some_and(|v| self.vars[v.0].general)
    }

    /// Whether a value defined by `rhs` may be an array (see [`VarInfo::general`]).
    fn rhs_general(&self, rhs: &Rhs) -> bool {
        match rhs {
            Rhs::Copy(o) => self.operand_general(o),
            Rhs::Prim(Prim::Cast { .. }, _) => false,
            // an element of a sequence the macro cannot see (`m.layers[i]`) may be anything
            Rhs::ReadIndex { place, .. } => match place {
                Place::Var(v) => self.vars[v.0].general,
                Place::Cell(_) => false,
            },
            Rhs::Prim(Prim::Tensor { rule, .. }, _) => {
                !matches!(*rule, "sum" | "mean" | "product" | "var" | "std")
            }
            Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                args.iter().any(|a| self.operand_general(a))
            }
            Rhs::ReadCell(c) => self.cells[c.0].general,
            Rhs::Field { base, .. } => self.vars[base.0].general,
            Rhs::Member { .. } | Rhs::Source(_) => true,
            Rhs::Inactive(ts) => self.mentions_general(ts),
        }
    }

    /// Whether code kept as written mentions a variable or cell that may be an array.
    fn mentions_general(&self, ts: &TokenStream) -> bool {
        VarId::mentioned_in(ts)
            .into_iter()
            .any(|v| self.vars.get(v.0).is_some_and(|v| v.general))
            || CellId::mentioned_in(ts)
                .into_iter()
                .any(|c| self.cells.get(c.0).is_some_and(|c| c.general))
    }

    fn push(&mut self, dst: VarId, ty: Option<Box<syn::Type>>, rhs: Rhs, span: Span) {
        if let Rhs::Inactive(ts) = &rhs {
            self.forget_snapshots_in(ts);
        }
        self.vars[dst.0].general = match &ty {
            Some(t) => general_type(t, &self.type_params),
            None => self.rhs_general(&rhs),
        };
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
        v
    }

    fn write_cell(&mut self, cell: CellId, value: Operand) {
        self.snapshots.remove(&cell);
        if self.operand_active(&value) {
            self.found_active_cells
                .insert(active_key(self.cell_keys[cell.0]));
        }
        if self.operand_general(&value) {
            self.found_active_cells
                .insert(general_key(self.cell_keys[cell.0]));
        }
        self.block.stmts.push(Stmt::WriteCell { cell, value });
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
                Binding::Cell(c) => {
                    let id = c.ident();
                    quote!(#id)
                }
            })
        }
    }

    /// Whether `e` mentions a local whose value is active, or reads a source.
    fn references_active(&self, e: &syn::Expr) -> bool {
        crate::sources::contains_marker(e)
            || rename::free_names(e, &self.renamer())
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
            Value::Tuple(_) | Value::Ref(_) => {
                self.errors.push(span, "a tuple cannot be used as an operand here; take its fields (`t.0`) or destructure it with `let (a, b) = …`");
                Operand::Inline(syn::parse_quote!(()))
            }
        }
    }

    fn operand_of(&mut self, e: &syn::Expr) -> Operand {
        // An operand's value is needed, whatever the context.
        let discard = std::mem::replace(&mut self.discard, false);
        let v = self.expr(e);
        self.discard = discard;
        self.operand(v, e.span())
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
        let (flag, _) = self.ret?;
        let flag = flag.ident();
        let v = self.inactive(quote!(!#flag), Span::call_site());
        Some(self.operand(v, Span::call_site()))
    }

    /// Lowers the statements of a block in the current scope; the value of its tail.
    fn block_contents(&mut self, stmts: &[syn::Stmt], is_body: bool) -> Value {
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            match stmt {
                syn::Stmt::Local(local) => self.local(local),
                syn::Stmt::Item(item) => {
                    if is_body {
                        self.items.push(item.clone());
                    } else {
                        self.errors.push_spanned(item, "items inside nested blocks of a differentiable function are not supported; declare them at the top of the function body");
                    }
                }
                // `return e;` ending the body: its value is the body's.
                syn::Stmt::Expr(syn::Expr::Return(r), _)
                    if last && is_body && self.loops.is_empty() =>
                {
                    let value = match &r.expr {
                        Some(e) => self.expr(e),
                        None => Value::Tuple(Vec::new()),
                    };
                    return self.finish_body(value, is_body, r.span());
                }
                syn::Stmt::Expr(e, None) if last => {
                    let value = self.expr(e);
                    return self.finish_body(value, is_body, e.span());
                }
                syn::Stmt::Expr(e, _) => self.effect(e),
                syn::Stmt::Macro(m) => {
                    let e = syn::Expr::Macro(syn::ExprMacro {
                        attrs: m.attrs.clone(),
                        mac: m.mac.clone(),
                    });
                    self.effect(&e);
                }
            }
            if !last && stmt_may_exit(stmt) {
                let Some(guard) = self.guard() else { continue };
                let rest = &stmts[i + 1..];
                let has_value = matches!(rest.last(), Some(syn::Stmt::Expr(_, None)));
                let result = if has_value && !is_body {
                    Some(self.new_cell(None, node_key(stmt)))
                } else {
                    None
                };
                let then = self.nested(false, |l| {
                    let v = l.block_contents(rest, is_body);
                    if let Some(cell) = result {
                        let o = l.operand(v, Span::call_site());
                        l.write_cell(cell, o);
                    }
                });
                let els = self.nested(false, |_| {});
                self.push_if(guard, then, els);
                return match result {
                    Some(cell) => Value::Var(self.read_cell(cell, Span::call_site())),
                    None => Value::Tuple(Vec::new()),
                };
            }
        }
        self.finish_body(Value::Tuple(Vec::new()), is_body, Span::call_site())
    }

    /// At the end of the function body, with early returns: the value goes to the
    /// return cell.
    fn finish_body(&mut self, value: Value, is_body: bool, span: Span) -> Value {
        if is_body {
            if let Some((_, out)) = self.ret {
                let o = self.operand(value, span);
                self.write_cell(out, o);
                return Value::Tuple(Vec::new());
            }
        }
        value
    }

    /// A statement evaluated for its effect (`println!(…);`, `acc += x;`).
    fn effect(&mut self, e: &syn::Expr) {
        if (self.references_active(e) || expr_may_exit(e)) && !matches!(e, syn::Expr::Macro(_)) {
            let outer = std::mem::replace(&mut self.discard, true);
            self.expr(e);
            self.discard = outer;
            return;
        }
        let e2 = self.renamed(e);
        let ts = quote!(#e2;);
        self.forget_snapshots_in(&ts);
        self.block.stmts.push(Stmt::Effect(ts));
    }

    fn local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            self.errors.push_spanned(local, "a `let` without a value is not supported in differentiable code; initialise the variable where it is declared");
            return;
        };
        if let Some((_, d)) = &init.diverge {
            self.errors.push_spanned(
                d,
                "`let … else` is not supported in differentiable code yet",
            );
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(pt.ty.clone())),
            p => (p, None),
        };
        let discard = std::mem::replace(&mut self.discard, false);
        let value = self.expr(&init.expr);
        self.discard = discard;
        self.bind_pattern(pat, value, ty, init.expr.span());
    }

    fn bind_pattern(
        &mut self,
        pat: &syn::Pat,
        value: Value,
        ty: Option<Box<syn::Type>>,
        span: Span,
    ) {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if pi.mutability.is_some() {
                    let cell = self.new_cell(ty, node_key(pi));
                    let o = self.operand(value, span);
                    self.write_cell(cell, o);
                    self.bind(&pi.ident.to_string(), Binding::Cell(cell));
                    return;
                }
                let value = match (ty, value) {
                    (Some(ty), Value::Inline(e)) => {
                        let v = self.new_var(false);
                        self.push(v, Some(ty), Rhs::Inactive(e.to_token_stream()), span);
                        Value::Var(v)
                    }
                    (Some(ty), Value::Var(src)) => {
                        let v = self.new_var(self.vars[src.0].active);
                        self.push(v, Some(ty), Rhs::Copy(Operand::Var(src)), span);
                        Value::Var(v)
                    }
                    (_, value) => value,
                };
                self.bind(&pi.ident.to_string(), Binding::Value(value));
            }
            syn::Pat::Wild(_) => {}
            syn::Pat::Paren(p) => self.bind_pattern(&p.pat, value, ty, span),
            syn::Pat::Reference(r) => self.bind_pattern(&r.pat, value.deref(), ty, span),
            syn::Pat::Tuple(pt) => {
                let elem_tys: Vec<Option<Box<syn::Type>>> = match ty.as_deref() {
                    Some(syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                        tt.elems.iter().map(|t| Some(Box::new(t.clone()))).collect()
                    }
                    _ => vec![None; pt.elems.len()],
                };
                match value {
                    Value::Tuple(items) if items.len() == pt.elems.len() => {
                        for ((p, item), ty) in pt.elems.iter().zip(items).zip(elem_tys) {
                            self.bind_pattern(p, item, ty, span);
                        }
                    }
                    Value::Var(v) if !self.vars[v.0].active => {
                        for (k, (p, ty)) in pt.elems.iter().zip(elem_tys).enumerate() {
                            let index = syn::Index::from(k);
                            let id = v.ident();
                            let field = self.inactive(quote!(#id.#index), span);
                            self.bind_pattern(p, field, ty, span);
                        }
                    }
                    Value::Var(v) => {
                        // A tuple returned by a differentiable call: project its components.
                        for (k, (p, ty)) in pt.elems.iter().zip(elem_tys).enumerate() {
                            let field = self.new_var(true);
                            self.push(
                                field,
                                None,
                                Rhs::Field {
                                    base: v,
                                    index: k as u32,
                                },
                                span,
                            );
                            self.bind_pattern(p, Value::Var(field), ty, span);
                        }
                    }
                    _ => {
                        self.errors.push_spanned(pat, "destructuring this value is not supported yet in differentiable code; bind it to a name and take its fields with `.0`, `.1`, …");
                    }
                }
            }
            other => {
                self.errors.push_spanned(other, "this pattern is not supported in differentiable code; bind the value to a plain name");
            }
        }
    }

    pub fn expr(&mut self, e: &syn::Expr) -> Value {
        match e {
            syn::Expr::Lit(_) => return Value::Inline(e.clone()),
            syn::Expr::Paren(p) => return self.expr(&p.expr),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Path(p) => {
                if p.qself.is_none() {
                    if let Some(id) = p.path.get_ident() {
                        match self.lookup(&id.to_string()).cloned() {
                            Some(Binding::Value(v)) => return v.deref(),
                            Some(Binding::Cell(c)) => {
                                return Value::Var(self.read_cell(c, e.span()))
                            }
                            None => {}
                        }
                    }
                }
                // A constant or static: inactive, written inline.
                return Value::Inline(e.clone());
            }
            syn::Expr::Macro(_) if crate::sources::marked_place(e).is_some() => {
                let place = crate::sources::marked_place(e).expect("a marked place");
                let place = self.renamed(&place);
                let reference = self.inactive(quote!(&(#place)), e.span());
                let Value::Var(r) = reference else {
                    unreachable!("a variable")
                };
                let v = self.new_var(true);
                self.push(v, None, Rhs::Source(r), e.span());
                return Value::Var(v);
            }
            syn::Expr::Unsafe(u) => {
                return self.unsupported(&u.unsafe_token, "`unsafe` blocks cannot be differentiated: the reverse sweep could not uphold their safety contract; move the unsafe code into a function with a custom rule (`#[differentiable(vjp = …)]`)");
            }
            _ => {}
        }
        if !self.references_active(e) && !expr_may_exit(e) {
            return self.verbatim(e);
        }
        match e {
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    let x = self.operand_of(&u.expr);
                    self.prim(Prim::Neg, vec![x], e.span())
                }
                syn::UnOp::Not(_) => self.verbatim(e),
                // `*v` for an element of a slice being iterated: the element itself.
                _ => self.expr(&u.expr),
            },
            syn::Expr::Binary(b) => self.binary(e, b),
            syn::Expr::MethodCall(m) => self.method_call(e, m),
            syn::Expr::Call(c) => self.call(e, c),
            syn::Expr::Cast(c) => {
                let float_target = matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|i| prims::is_float_type_name(&i.to_string()) || self.type_params.contains(&i.to_string())));
                if !float_target {
                    // A cast to an integer type: piecewise constant, zero derivative.
                    return self.verbatim(e);
                }
                let x = self.operand_of(&c.expr);
                self.prim(Prim::Cast { ty: c.ty.clone() }, vec![x], e.span())
            }
            syn::Expr::Tuple(t) => Value::Tuple(t.elems.iter().map(|x| self.expr(x)).collect()),
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(index) => match self.expr(&f.base) {
                    Value::Tuple(items) if (index.index as usize) < items.len() => items[index.index as usize].clone(),
                    v if !self.is_active(&v) => {
                        // an inactive value (or one already reported as an error)
                        let base = v.tokens();
                        self.inactive(quote!(#base.#index), e.span())
                    }
                    Value::Var(base) => {
                        let field = self.new_var(true);
                        self.push(field, None, Rhs::Field { base, index: index.index }, e.span());
                        Value::Var(field)
                    }
                    _ => self.unsupported(e, "taking a field of this value is not supported in differentiable code yet"),
                },
                syn::Member::Named(_) => match self.expr(&f.base) {
                    v if !self.is_active(&v) => {
                        let base = v.tokens();
                        let member = &f.member;
                        self.inactive(quote!(#base.#member), e.span())
                    }
                    Value::Var(base) => {
                        let field = self.new_var(true);
                        self.push(field, None, Rhs::Member { base, member: f.member.clone() }, e.span());
                        Value::Var(field)
                    }
                    _ => self.unsupported(e, "taking a field of this value is not supported in differentiable code yet"),
                },
            },
            syn::Expr::Block(b) if b.label.is_none() => {
                self.scopes.push(HashMap::new());
                let v = self.block_contents(&b.block.stmts, false);
                self.scopes.pop();
                v
            }
            syn::Expr::Index(ix) => self.index(e, ix),
            syn::Expr::Assign(a) => self.assign(&a.left, &a.right, None, e),
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::Match(m) => self.match_expr(m),
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::While(w) => self.while_loop(w),
            syn::Expr::Loop(l) => {
                let label = l.label.as_ref().map(|l| l.name.ident.to_string());
                self.lower_loop(label, None, |this| {
                    this.block_contents(&l.body.stmts, false);
                    None
                })
            }
            syn::Expr::Break(b) => self.break_expr(b),
            syn::Expr::Continue(c) => self.continue_expr(c),
            syn::Expr::Return(r) => self.return_expr(r),
            syn::Expr::Macro(m) => self.unsupported(&m.mac, "a macro invocation cannot be differentiated; compute the value outside the macro, or wrap it in `stop_gradient(…)`"),
            syn::Expr::Closure(_) => self.unsupported(e, "closures capturing differentiable values are not supported in differentiable code yet"),
            syn::Expr::Reference(r) => self.expr(&r.expr),
            _ => self.unsupported(e, "this expression is not supported in differentiable code"),
        }
    }

    /// A comparison: kept as written, except that a local `let mut` binding compared with
    /// another or with a literal reads the cell's snapshot. The branch it decides then
    /// depends on a value the reverse sweep already has (`if y > 0.5 { y -= … }` saves
    /// `y` once, and the reverse sweep compares again), not on a `bool` saved apart.
    fn comparison(&mut self, e: &syn::Expr, b: &syn::ExprBinary) -> Value {
        let side = |l: &Self, x: &syn::Expr| -> Option<Option<CellId>> {
            match x {
                syn::Expr::Lit(_) => Some(None),
                syn::Expr::Path(p) if p.qself.is_none() => {
                    match l.lookup(&p.path.get_ident()?.to_string())? {
                        Binding::Cell(c) => Some(Some(*c)),
                        Binding::Value(Value::Var(_)) => Some(None),
                        Binding::Value(_) => None,
                    }
                }
                _ => None,
            }
        };
        let (Some(l), Some(r)) = (side(self, &b.left), side(self, &b.right)) else {
            return self.verbatim(e);
        };
        if l.is_none() && r.is_none() {
            return self.verbatim(e);
        }
        let token = |l: &mut Self, x: &syn::Expr, cell: Option<CellId>| match cell {
            Some(c) => {
                let v = l.read_cell(c, x.span()).ident();
                quote!(#v)
            }
            None => l.renamed(x).to_token_stream(),
        };
        let lt = token(self, &b.left, l);
        let rt = token(self, &b.right, r);
        let op = &b.op;
        self.inactive(quote_spanned!(e.span()=> #lt #op #rt), e.span())
    }

    fn binary(&mut self, e: &syn::Expr, b: &syn::ExprBinary) -> Value {
        use syn::BinOp::*;
        let (rule, compound) = match b.op {
            Add(_) => ("add", false),
            Sub(_) => ("sub", false),
            Mul(_) => ("mul", false),
            Div(_) => ("div", false),
            Rem(_) => ("rem", false),
            AddAssign(_) => ("add", true),
            SubAssign(_) => ("sub", true),
            MulAssign(_) => ("mul", true),
            DivAssign(_) => ("div", true),
            RemAssign(_) => ("rem", true),
            // Comparisons and logic: a `bool`, no derivative.
            Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) | Ne(_) => return self.comparison(e, b),
            _ => return self.verbatim(e),
        };
        if compound {
            let op: syn::BinOp = match rule {
                "add" => syn::parse_quote!(+),
                "sub" => syn::parse_quote!(-),
                "mul" => syn::parse_quote!(*),
                "div" => syn::parse_quote!(/),
                _ => syn::parse_quote!(%),
            };
            return self.assign(&b.left, &b.right, Some((rule, op)), e);
        }
        let l = self.operand_of(&b.left);
        let r = self.operand_of(&b.right);
        if !self.operand_active(&l) && !self.operand_active(&r) {
            // constants on both sides (an integer computed from a cast, …): as written
            let (lt, rt, op) = (l.tokens(), r.tokens(), &b.op);
            return self.inactive(quote_spanned!(e.span()=> #lt #op #rt), e.span());
        }
        if rule == "rem" && (self.operand_general(&l) || self.operand_general(&r)) {
            return self.unsupported(
                &b.op,
                "`%` of arrays cannot be differentiated; apply it to scalars (`x.mapv(|v| v % m)`)",
            );
        }
        self.prim(Prim::Binary { rule, op: b.op }, vec![l, r], e.span())
    }

    /// The cell or variable a place expression (`x`, `v`) names.
    fn place(&mut self, base: &syn::Expr) -> Option<Place> {
        let syn::Expr::Path(p) = base else {
            return None;
        };
        let id = p.path.get_ident()?;
        match self.lookup(&id.to_string())? {
            Binding::Cell(c) => Some(Place::Cell(*c)),
            Binding::Value(Value::Var(v)) => Some(Place::Var(*v)),
            Binding::Value(_) => None,
        }
    }

    fn place_active(&self, p: Place) -> bool {
        match p {
            Place::Var(v) => self.vars[v.0].active,
            Place::Cell(c) => self.cells[c.0].active,
        }
    }

    fn index(&mut self, e: &syn::Expr, ix: &syn::ExprIndex) -> Value {
        let Some(place) = self.place(&ix.expr) else {
            return self.unsupported(&ix.expr, "indexing is supported on a slice, `Vec` or array named by a parameter or local variable; bind this value to a name first");
        };
        if self.value_references_active(&ix.index) && !matches!(&*ix.index, syn::Expr::Cast(_)) {
            self.errors.push_spanned(
                &ix.index,
                "an index must not depend on differentiable values; compute it from integers",
            );
        }
        let index = self.operand_of(&ix.index);
        let key = match (place, &index) {
            (Place::Var(p), Operand::Var(i)) => Some((p, *i)),
            _ => None,
        };
        if let Some(v) = key.and_then(|k| self.element_reads.get(&k)) {
            return Value::Var(*v);
        }
        let v = self.new_var(self.place_active(place));
        self.push(v, None, Rhs::ReadIndex { place, index }, e.span());
        if let Some(k) = key {
            self.element_reads.insert(k, v);
        }
        Value::Var(v)
    }

    /// `left = right`, or `left op= right` when `compound` is given.
    fn assign(
        &mut self,
        left: &syn::Expr,
        right: &syn::Expr,
        compound: Option<(&'static str, syn::BinOp)>,
        e: &syn::Expr,
    ) -> Value {
        let write_error = "only local variables declared with `let mut` (and their elements) can be assigned in differentiable code; writing through a `&mut` parameter, a static or a field would hide the write from the reverse sweep — return the new value instead";
        match left {
            syn::Expr::Path(_) => {
                let Some(Place::Cell(cell)) = self.place(left) else {
                    return self.unsupported(left, write_error);
                };
                let mut value = self.operand_of(right);
                if let Some((rule, op)) = compound {
                    let old = Operand::Var(self.read_cell(cell, e.span()));
                    let v = self.prim(Prim::Binary { rule, op }, vec![old, value], e.span());
                    value = self.operand(v, e.span());
                }
                self.write_cell(cell, value);
            }
            syn::Expr::Index(ix) => {
                let Some(Place::Cell(cell)) = self.place(&ix.expr) else {
                    return self.unsupported(left, write_error);
                };
                let index = self.operand_of(&ix.index);
                let mut value = self.operand_of(right);
                if let Some((rule, op)) = compound {
                    let old = self.new_var(self.cells[cell.0].active);
                    self.push(
                        old,
                        None,
                        Rhs::ReadIndex {
                            place: Place::Cell(cell),
                            index: index.clone(),
                        },
                        e.span(),
                    );
                    let v = self.prim(
                        Prim::Binary { rule, op },
                        vec![Operand::Var(old), value],
                        e.span(),
                    );
                    value = self.operand(v, e.span());
                }
                if self.operand_active(&value) {
                    self.found_active_cells
                        .insert(active_key(self.cell_keys[cell.0]));
                }
                self.snapshots.remove(&cell);
                self.block
                    .stmts
                    .push(Stmt::WriteIndex { cell, index, value });
            }
            _ => return self.unsupported(left, write_error),
        }
        Value::Tuple(Vec::new())
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Value {
        if let syn::Expr::Let(l) = &*i.cond {
            return self.unsupported(l, "`if let` on differentiable values is not supported yet; use `match` on an inactive value or an `if` on a `bool`");
        }
        let discard = std::mem::replace(&mut self.discard, false);
        let cond = self.operand_of(&i.cond);
        self.discard = discard;
        let has_value = !discard
            && i.else_branch.is_some()
            && matches!(i.then_branch.stmts.last(), Some(syn::Stmt::Expr(_, None)));
        let result = has_value.then(|| self.new_cell(None, node_key(i)));
        let then = self.nested(false, |l| {
            let v = l.block_contents(&i.then_branch.stmts, false);
            if let Some(cell) = result {
                let o = l.operand(v, i.then_branch.span());
                l.write_cell(cell, o);
            }
        });
        let els = self.nested(false, |l| {
            if let Some((_, e)) = &i.else_branch {
                let v = l.expr(e);
                if let Some(cell) = result {
                    let o = l.operand(v, e.span());
                    l.write_cell(cell, o);
                }
            }
        });
        self.push_if(cond, then, els);
        match result {
            Some(cell) => Value::Var(self.read_cell(cell, i.span())),
            None => Value::Tuple(Vec::new()),
        }
    }

    /// `match` on an inactive scrutinee: a chain of `if`s, each testing one arm's pattern
    /// (and guard) with `match s { pat if guard => true, _ => false }`.
    fn match_expr(&mut self, m: &syn::ExprMatch) -> Value {
        // The scrutinee's value decides: `(x * 2.0) as usize % 3` mentions `x` but is an
        // integer, with no derivative.
        let discard = std::mem::replace(&mut self.discard, false);
        let scrutinee = self.expr(&m.expr);
        self.discard = discard;
        if self.is_active(&scrutinee) {
            return self.unsupported(&m.expr, "`match` on a differentiable value is not supported; match on an integer, `bool` or enum, or compare with `if`");
        }
        let s = scrutinee.tokens();
        let has_value = !discard
            && m.arms.iter().all(|a| !matches!(&*a.body, syn::Expr::Block(b) if b.block.stmts.last().is_none_or(|s| !matches!(s, syn::Stmt::Expr(_, None)))));
        let result = has_value.then(|| self.new_cell(None, node_key(m)));
        self.match_arms(&m.arms, &s, result);
        match result {
            Some(cell) => Value::Var(self.read_cell(cell, m.span())),
            None => Value::Tuple(Vec::new()),
        }
    }

    fn match_arms(&mut self, arms: &[syn::Arm], s: &TokenStream, result: Option<CellId>) {
        let Some((arm, rest)) = arms.split_first() else {
            self.block.stmts.push(Stmt::Effect(
                quote!(::core::unreachable!("no arm of a `match` in differentiable code matched");),
            ));
            return;
        };
        let pat = &arm.pat;
        let guard = arm.guard.as_ref().map(|(_, g)| {
            let g = self.renamed(g);
            quote!(if #g)
        });
        let cond = self.inactive(
            quote!(match #s { #pat #guard => true, _ => false }),
            arm.pat.span(),
        );
        let cond = self.operand(cond, arm.pat.span());
        let mut names = Vec::new();
        collect_pattern_idents(pat, &mut names);
        let then = self.nested(false, |l| {
            if !names.is_empty() {
                let bound = l.inactive(
                    quote!(match #s { #pat => (#(#names,)*), _ => ::core::unreachable!() }),
                    arm.pat.span(),
                );
                let Value::Var(b) = bound else { unreachable!() };
                for (k, n) in names.iter().enumerate() {
                    let index = syn::Index::from(k);
                    let id = b.ident();
                    let field = l.inactive(quote!(#id.#index), n.span());
                    l.bind(&n.to_string(), Binding::Value(field));
                }
            }
            let v = l.expr(&arm.body);
            if let Some(cell) = result {
                let o = l.operand(v, arm.body.span());
                l.write_cell(cell, o);
            }
        });
        let els = self.nested(false, |l| l.match_arms(rest, s, result));
        self.push_if(cond, then, els);
    }

    /// Lowers a loop whose body `body` fills. For a `for` loop, `iter` is the iterator and
    /// `body` returns the variable it binds each item to (made inside the body's region).
    fn lower_loop(
        &mut self,
        label: Option<String>,
        iter: Option<(TokenStream, Option<Operand>)>,
        body: impl FnOnce(&mut Self) -> Option<VarId>,
    ) -> Value {
        let flow = self.flag_cell();
        self.write_flag(flow, syn::parse_quote!(0u8));
        self.loops.push(LoopCtx {
            label,
            flow,
            flow_used: iter.is_none(),
            value: None,
        });
        let mut item = None;
        // A loop body's value is dropped.
        let outer = std::mem::replace(&mut self.discard, true);
        let block = self.nested(true, |l| item = body(l));
        self.discard = outer;
        let ctx = self.loops.pop().expect("loop context");
        let head = match (iter, item) {
            (Some((iter, start)), Some(item)) => LoopHead::For { item, iter, start },
            _ => LoopHead::Infinite,
        };
        let count = self.new_var(false);
        self.block.stmts.push(Stmt::Loop {
            head,
            body: block,
            count,
            flow: ctx.flow_used.then_some(ctx.flow),
        });
        match ctx.value {
            Some(cell) => Value::Var(self.read_cell(cell, Span::call_site())),
            None => Value::Tuple(Vec::new()),
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Value {
        let label = f.label.as_ref().map(|l| l.name.ident.to_string());
        let body: syn::Expr = syn::Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: f.body.clone(),
        });
        let body_active = self.references_active(&body);
        self.iter_loop(label, &f.expr, &f.pat, body_active, |l| {
            l.block_contents(&f.body.stmts, false);
        })
    }

    /// A loop over `iter`, binding each item to `pat` and lowering `body` for it. An
    /// inactive iterator (`0..n`, `(0..n).rev()`, anything over constants) is used as
    /// written; over a differentiable slice, `x.iter()`, `x.iter().enumerate()`,
    /// `x.iter().zip(y.iter())` and `x` become loops over indices reading the elements.
    fn iter_loop(
        &mut self,
        label: Option<String>,
        iter_expr: &syn::Expr,
        pat: &syn::Pat,
        body_active: bool,
        body: impl FnOnce(&mut Self),
    ) -> Value {
        // An inactive sequence iterated by reference (`data.iter()`, also `.enumerate()`,
        // `.zip(…)`) whose items may meet differentiable values in the body: read its
        // elements by index as values, so arithmetic with them differentiates
        // (`data.iter().map(|x| x * w).sum()`). (Cells are keyed by the syntax that makes
        // them, so this choice may depend on activity without confusing the fixpoint.)
        let indexed = body_active
            && !self.references_active(iter_expr)
            && matches!(strip_copied(iter_expr), syn::Expr::MethodCall(_))
            && slice_iter(iter_expr).is_some_and(|it| {
                let places: Vec<&syn::Expr> = match &it {
                    SliceIter::Plain(a) | SliceIter::Enumerate(a) => vec![a],
                    SliceIter::Zip(a, b) => vec![a, b],
                };
                places.iter().all(|p| self.place(p).is_some())
            });
        if !self.references_active(iter_expr) && !indexed {
            let iter = match iter_expr {
                syn::Expr::Range(r)
                    if matches!(r.limits, syn::RangeLimits::HalfOpen(_))
                        && r.start.is_some()
                        && r.end.is_some() =>
                {
                    let start = self.operand_of(r.start.as_deref().expect("start"));
                    let end = self.operand_of(r.end.as_deref().expect("end"));
                    let (s, e) = (start.tokens(), end.tokens());
                    (quote!(#s..#e), Some(start))
                }
                other => (self.renamed(other).to_token_stream(), None),
            };
            return self.lower_loop(label, Some(iter), |l| {
                let item = l.new_var(false);
                l.bind_pattern(pat, Value::Var(item), None, pat.span());
                body(l);
                Some(item)
            });
        }
        let Some(it) = slice_iter(iter_expr) else {
            return self.unsupported(iter_expr, "this iterator is not supported over differentiable values; iterate over a range of indices (`for i in 0..x.len()`) or `x.iter()`, `x.iter().enumerate()`, `x.iter().zip(y.iter())`");
        };
        let (places, enumerate) = match &it {
            SliceIter::Plain(a) => (vec![a], false),
            SliceIter::Enumerate(a) => (vec![a], true),
            SliceIter::Zip(a, b) => (vec![a, b], false),
        };
        let mut resolved = Vec::new();
        for p in places {
            match self.place(p) {
                Some(place) => resolved.push(place),
                // a field (`m.layers`): the sequence the projection reads
                None if matches!(p, syn::Expr::Field(_)) => match self.expr(p) {
                    Value::Var(v) => resolved.push(Place::Var(v)),
                    _ => return self.unsupported(p, "iterate over a slice, `Vec` or array named by a parameter, a local variable or a field"),
                },
                None => return self.unsupported(
                    p,
                    "iterate over a slice, `Vec` or array named by a parameter or local variable",
                ),
            }
        }
        let len = |p: &Place| match p {
            Place::Var(v) => {
                let id = v.ident();
                quote!(#id.len())
            }
            Place::Cell(c) => {
                let id = c.ident();
                quote!(#id.len())
            }
        };
        let iter = if resolved.len() == 2 {
            let (a, b) = (len(&resolved[0]), len(&resolved[1]));
            quote!(0..::core::cmp::min(#a, #b))
        } else {
            let a = len(&resolved[0]);
            quote!(0..#a)
        };
        let iter = (iter, Some(Operand::Inline(syn::parse_quote!(0usize))));
        self.lower_loop(label, Some(iter), |l| {
            let k = l.new_var(false);
            let mut elems = Vec::new();
            for place in &resolved {
                let v = l.new_var(l.place_active(*place));
                l.push(
                    v,
                    None,
                    Rhs::ReadIndex {
                        place: *place,
                        index: Operand::Var(k),
                    },
                    iter_expr.span(),
                );

                elems.push(Value::Ref(Box::new(Value::Var(v))));
            }
            let value = if enumerate {
                Value::Tuple(vec![Value::Var(k), elems.remove(0)])
            } else if elems.len() == 2 {
                Value::Tuple(elems)
            } else {
                elems.remove(0)
            };
            l.bind_pattern(pat, value, None, pat.span());
            body(l);
            Some(k)
        })
    }

    /// `….sum()`, `….product()`, `….map(|v| …).sum()`, `….fold(init, |acc, v| …)`: a
    /// loop with an accumulator cell, starting where the standard library starts
    /// (`-0.0` for a float sum, `1.0` for a product) so the value is bit for bit the same.
    fn reduction(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let name = m.method.to_string();
        let closure_of = |x: &syn::Expr| match x {
            syn::Expr::Closure(c) => Some(c.clone()),
            _ => None,
        };
        type Accumulation = Option<(&'static str, syn::BinOp)>;
        #[allow(clippy::type_complexity)]
        let (src, init, op, map, fold): (
            &syn::Expr,
            syn::Expr,
            Accumulation,
            Option<syn::ExprClosure>,
            Option<syn::ExprClosure>,
        ) = match (name.as_str(), m.args.len()) {
            ("sum" | "product", 0) if is_iterator_chain(&m.receiver) => {
                let (src, map) = match &*m.receiver {
                    syn::Expr::MethodCall(inner)
                        if inner.method == "map" && inner.args.len() == 1 =>
                    {
                        (&*inner.receiver, Some(closure_of(&inner.args[0])?))
                    }
                    other => (other, None),
                };
                if name == "sum" {
                    (
                        src,
                        syn::parse_quote!(-0.0),
                        Some(("add", syn::parse_quote!(+))),
                        map,
                        None,
                    )
                } else {
                    (
                        src,
                        syn::parse_quote!(1.0),
                        Some(("mul", syn::parse_quote!(*))),
                        map,
                        None,
                    )
                }
            }
            ("fold", 2) => (
                &*m.receiver,
                m.args[0].clone(),
                None,
                None,
                Some(closure_of(&m.args[1])?),
            ),
            _ => return None,
        };
        if map.as_ref().is_some_and(|c| c.inputs.len() != 1)
            || fold.as_ref().is_some_and(|c| c.inputs.len() != 2)
        {
            return None;
        }
        let init = self.operand_of(&init);
        let acc = self.new_cell(None, node_key(m));
        self.write_cell(acc, init);
        let item_pat: syn::Pat = match (&map, &fold) {
            (Some(c), _) => c.inputs[0].clone(),
            (_, Some(c)) => c.inputs[1].clone(),
            _ => syn::parse_quote!(__autodiff_item),
        };
        let closure_body = map.as_ref().or(fold.as_ref()).map(|c| &*c.body);
        let body_active =
            closure_body.is_some_and(|b| self.references_active(b)) || self.cells[acc.0].active;
        self.iter_loop(None, src, &item_pat, body_active, |l| {
            let value = match (&map, &fold, op) {
                (_, Some(c), _) => {
                    let old = l.read_cell(acc, c.span());
                    l.bind_pattern(&c.inputs[0], Value::Var(old), None, c.span());
                    let v = l.expr(&c.body);
                    l.operand(v, c.body.span())
                }
                (map, None, Some((rule, op))) => {
                    let item = match map {
                        Some(c) => l.expr(&c.body),
                        None => l.expr(&syn::parse_quote!(__autodiff_item)),
                    };
                    let item = l.operand(item, e.span());
                    let old = Operand::Var(l.read_cell(acc, e.span()));
                    let v = l.prim(Prim::Binary { rule, op }, vec![old, item], e.span());
                    l.operand(v, e.span())
                }
                _ => unreachable!("a reduction is a fold or has an operator"),
            };
            l.write_cell(acc, value);
        });
        Some(Value::Var(self.read_cell(acc, e.span())))
    }

    fn while_loop(&mut self, w: &syn::ExprWhile) -> Value {
        if let syn::Expr::Let(l) = &*w.cond {
            return self.unsupported(l, "`while let` is not supported in differentiable code; use `loop` with `match` and `break`");
        }
        let label = w.label.as_ref().map(|l| l.name.ident.to_string());
        self.lower_loop(label, None, |l| {
            let cond = l.operand_of(&w.cond);
            let then = l.nested(false, |l| {
                l.block_contents(&w.body.stmts, false);
            });
            let flow = l.loops.last().expect("loop").flow;
            let els = l.nested(false, |l| l.write_flag(flow, syn::parse_quote!(1u8)));
            l.push_if(cond, then, els);
            None
        })
    }

    /// The index in `self.loops` of the loop a `break`/`continue` targets.
    fn target_loop(&mut self, label: Option<&syn::Lifetime>, span: &dyn ToTokens) -> Option<usize> {
        let found = match label {
            None => self.loops.len().checked_sub(1),
            Some(l) => self
                .loops
                .iter()
                .rposition(|c| c.label.as_deref() == Some(&l.ident.to_string())),
        };
        if found.is_none() {
            self.errors.push_spanned(
                span,
                "`break`/`continue` outside a loop of the differentiable function",
            );
        }
        found
    }

    fn break_expr(&mut self, b: &syn::ExprBreak) -> Value {
        let Some(target) = self.target_loop(b.label.as_ref(), b) else {
            return Value::Tuple(Vec::new());
        };
        if let Some(e) = &b.expr {
            let v = self.operand_of(e);
            let cell = match self.loops[target].value {
                Some(c) => c,
                None => {
                    let c = self.new_cell(None, node_key(b));
                    self.loops[target].value = Some(c);
                    c
                }
            };
            self.write_cell(cell, v);
        }
        for k in target..self.loops.len() {
            self.loops[k].flow_used = true;
            let flow = self.loops[k].flow;
            self.write_flag(flow, syn::parse_quote!(1u8));
        }
        Value::Tuple(Vec::new())
    }

    fn continue_expr(&mut self, c: &syn::ExprContinue) -> Value {
        let Some(target) = self.target_loop(c.label.as_ref(), c) else {
            return Value::Tuple(Vec::new());
        };
        for k in target..self.loops.len() {
            self.loops[k].flow_used = true;
            let flow = self.loops[k].flow;
            let code: syn::Expr = if k == target {
                syn::parse_quote!(2u8)
            } else {
                syn::parse_quote!(1u8)
            };
            self.write_flag(flow, code);
        }
        Value::Tuple(Vec::new())
    }

    fn return_expr(&mut self, r: &syn::ExprReturn) -> Value {
        let value = match &r.expr {
            Some(e) => self.operand_of(e),
            None => Operand::Inline(syn::parse_quote!(())),
        };
        let (flag, out) = match self.ret {
            Some(cells) => cells,
            None => {
                // the return flag, and the returned value (one per function: key 2)
                let cells = (self.flag_cell(), self.new_cell(None, 2));
                self.ret = Some(cells);
                cells
            }
        };
        self.write_cell(out, value);
        self.write_flag(flag, syn::parse_quote!(true));
        for k in 0..self.loops.len() {
            self.loops[k].flow_used = true;
            let flow = self.loops[k].flow;
            self.write_flag(flow, syn::parse_quote!(1u8));
        }
        Value::Tuple(Vec::new())
    }

    fn method_call(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Value {
        let name = m.method.to_string();
        if prims::is_piecewise_constant(&name) {
            return self.verbatim(e);
        }
        if let Some(v) = self.reduction(e, m) {
            return v;
        }
        if let Some(v) = self.array_method(e, m) {
            return v;
        }
        // `h.mapv_inplace(f)` on a local array: `h = h.mapv(f)`
        if name == "mapv_inplace" && m.args.len() == 1 {
            if let Some(Place::Cell(_)) = self.place(&m.receiver) {
                let (recv, f) = (&m.receiver, &m.args[0]);
                let value: syn::Expr = syn::parse_quote_spanned!(e.span()=> #recv.mapv(#f));
                return self.assign(recv, &value, None, e);
            }
        }
        let recv = self.expr(&m.receiver);
        if name == "clone" && m.args.is_empty() {
            let x = self.operand(recv, m.receiver.span());
            let active = self.operand_active(&x);
            let v = self.new_var(active);
            self.push(v, None, Rhs::Copy(x), e.span());
            return Value::Var(v);
        }
        let mut args = vec![self.operand(recv, m.receiver.span())];
        for a in &m.args {
            args.push(self.operand_of(a));
        }
        let on_self = matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self"));
        if on_self && prims::method_arity(&name).is_none() {
            // `self.helper(x)`: a sibling differentiable method, through `Self::helper`.
            let method = &m.method;
            let turbofish = &m.turbofish;
            let func: syn::ExprPath =
                syn::parse_quote_spanned!(method.span()=> Self::#method #turbofish);
            let active = args.iter().any(|a| self.operand_active(a));
            let v = self.new_var(active);
            self.push(v, None, Rhs::Call { func, args }, e.span());
            return Value::Var(v);
        }
        self.method_prim(e, &m.method, None, args)
    }

    /// ndarray's methods: `dot`, `t`, `view`, `to_owned`, `sum`, `mean().unwrap()`,
    /// `sum_axis`, `mean_axis(…).unwrap()`, `mapv(f64::tanh)`.
    fn array_method(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let name = m.method.to_string();
        if matches!((name.as_str(), m.args.len()), ("unwrap", 0) | ("expect", 1)) {
            if let syn::Expr::Call(c) = &*m.receiver {
                if let Some(v) = self.join(e, c) {
                    return Some(v);
                }
            }
        }
        let (rule, recv, args, view): (&'static str, &syn::Expr, Vec<&syn::Expr>, bool) = match (
            name.as_str(),
            m.args.len(),
        ) {
            ("unwrap", 0) | ("expect", 1) => match &*m.receiver {
                syn::Expr::MethodCall(inner) if inner.method == "mean" && inner.args.is_empty() => {
                    ("mean", &*inner.receiver, vec![], false)
                }
                syn::Expr::MethodCall(inner)
                    if inner.method == "mean_axis" && inner.args.len() == 1 =>
                {
                    ("mean_axis", &*inner.receiver, vec![&inner.args[0]], false)
                }
                syn::Expr::MethodCall(inner)
                    if (inner.method == "to_shape" || inner.method == "into_shape_with_order")
                        && inner.args.len() == 1 =>
                {
                    ("reshape", &*inner.receiver, vec![&inner.args[0]], false)
                }
                syn::Expr::MethodCall(inner)
                    if inner.method == "broadcast" && inner.args.len() == 1 =>
                {
                    ("broadcast", &*inner.receiver, vec![&inner.args[0]], false)
                }
                _ => return None,
            },
            ("mean" | "mean_axis", _) => {
                self.errors.push(m.method.span(), format!("`{name}` returns an `Option` (`None` for an empty array): write `.{name}(…).unwrap()` (or `.expect(…)`) directly after it"));
                return Some(Value::Inline(syn::parse_quote!(())));
            }
            ("dot", 1) => ("dot", &*m.receiver, vec![&m.args[0]], false),
            ("t", 0) => ("t", &*m.receiver, vec![], true),
            ("view", 0) => ("view", &*m.receiver, vec![], true),
            ("to_owned" | "into_owned", 0) => ("to_owned", &*m.receiver, vec![], false),
            ("sum", 0) => ("sum", &*m.receiver, vec![], false),
            ("sum_axis", 1) => ("sum_axis", &*m.receiver, vec![&m.args[0]], false),
            ("slice", 1) => ("slice", &*m.receiver, vec![&m.args[0]], true),
            ("insert_axis", 1) => ("insert_axis", &*m.receiver, vec![&m.args[0]], true),
            ("reversed_axes", 0) => ("t", &*m.receiver, vec![], true),
            ("permuted_axes", 1) => ("permuted_axes", &*m.receiver, vec![&m.args[0]], true),
            ("product", 0) => ("product", &*m.receiver, vec![], false),
            ("var", 1) => ("var", &*m.receiver, vec![&m.args[0]], false),
            ("std", 1) => ("std", &*m.receiver, vec![&m.args[0]], false),
            ("row", 1) => ("row", &*m.receiver, vec![&m.args[0]], true),
            ("column", 1) => ("column", &*m.receiver, vec![&m.args[0]], true),
            ("index_axis", 2) => (
                "index_axis",
                &*m.receiver,
                vec![&m.args[0], &m.args[1]],
                true,
            ),
            ("select", 2) => ("select", &*m.receiver, vec![&m.args[0], &m.args[1]], false),
            ("mapv" | "map", 1) => return Some(self.mapv(e, m)),
            _ => return None,
        };
        let mut operands = vec![self.operand_of(recv)];
        for a in args {
            operands.push(self.operand_of(a));
        }
        if rule != "dot" && operands[1..].iter().any(|o| self.operand_active(o)) {
            self.errors.push_spanned(&m.args, format!("the arguments of `{name}` (axes, indices, slices) must not depend on differentiable values"));
        }
        let fwd_args = operands.len();
        Some(self.prim(
            Prim::Tensor {
                rule,
                fwd_args,
                view,
            },
            operands,
            e.span(),
        ))
    }

    /// `concatenate(axis, &[a.view(), b.view(), …])` and `stack(…)` (before their `unwrap`).
    fn join(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Option<Value> {
        let syn::Expr::Path(func) = &*c.func else {
            return None;
        };
        let last = func.path.segments.last()?.ident.to_string();
        let rule = match last.as_str() {
            "concatenate" => "concatenate",
            "stack" => "stack",
            _ => return None,
        };
        if c.args.len() != 2 {
            return None;
        }
        let syn::Expr::Reference(r) = &c.args[1] else {
            return None;
        };
        let syn::Expr::Array(parts) = &*r.expr else {
            return None;
        };
        let mut operands = vec![self.operand_of(&c.args[0])];
        if self.operand_active(&operands[0]) {
            self.errors.push_spanned(
                &c.args[0],
                format!("the axis of `{rule}` must not depend on differentiable values"),
            );
        }
        for p in &parts.elems {
            operands.push(self.operand_of(p));
        }
        let fwd_args = operands.len();
        Some(self.prim(
            Prim::Tensor {
                rule,
                fwd_args,
                view: false,
            },
            operands,
            e.span(),
        ))
    }

    /// `x.mapv(f)` with `f` a float method's path (`f64::tanh`) or a closure of one
    /// argument written with float methods and arithmetic.
    fn mapv(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Value {
        let x = self.operand_of(&m.receiver);
        let f = &m.args[0];
        let rule: TokenStream = match f {
            syn::Expr::Path(p) => {
                let name = p
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                if prims::is_piecewise_constant(&name) {
                    quote!(|_x, _y, _g| 0.0)
                } else {
                    match prims::method_arity(&name) {
                        Some((rule, 1)) => {
                            let reads = prims::rule_reads(rule, 0, 1);
                            let args = reads.iter().map(|r| {
                                if *r == 0 {
                                    quote!(&__x,)
                                } else {
                                    quote!(&__y,)
                                }
                            });
                            let d = quote::format_ident!("{}_d0", rule);
                            quote!(|__x, __y, __g| ::autodiff::__private::ops::#d(#(#args)* &__g))
                        }
                        _ => {
                            self.errors.push_spanned(f, format!("cannot differentiate `mapv` of `{}`: a one-argument float method (`f64::tanh`) or a closure is expected", quote!(#f)));
                            return Value::Inline(syn::parse_quote!(()));
                        }
                    }
                }
            }
            syn::Expr::Closure(c) if c.inputs.len() == 1 => {
                let captured: Vec<String> = rename::free_names(f, &self.renamer())
                    .into_iter()
                    .filter(|n| self.lookup(n).is_some())
                    .collect();
                if let Some(name) = captured.first() {
                    self.errors.push_spanned(f, format!("a `mapv` closure may use only its argument, literals and constants, not the local `{name}`; use array arithmetic (`x.mapv(f) * {name}`) for the rest"));
                    return Value::Inline(syn::parse_quote!(()));
                }
                // The closure's own reverse sweep, run at each element.
                let mut errors = Errors::default();
                let mut sig = Signature::for_closure(c, &mut errors);
                // `map`'s closure receives `&x`
                sig.params[0].by_ref = m.method == "map";
                let block: syn::Block = match &*c.body {
                    syn::Expr::Block(b) if b.label.is_none() => b.block.clone(),
                    other => syn::parse_quote!({ #other }),
                };
                let body = lower(&sig, &sig.generics, &block, &mut errors);
                if !errors.is_empty() {
                    self.errors.extend(errors);
                    return Value::Inline(syn::parse_quote!(()));
                }
                let vjp = crate::emit::vjp_body(&sig, &body);
                let v0 = VarId(0).ident();
                quote!(|__x, _y, __g| { let #v0 = __x; let (_, __pb) = { #vjp }; (__pb(__g)).0 })
            }
            _ => {
                self.errors.push_spanned(f, "cannot differentiate `mapv` of this expression: pass a float method's path (`f64::tanh`) or a closure");
                return Value::Inline(syn::parse_quote!(()));
            }
        };
        let f = self.renamed(f);
        let operands = vec![
            x,
            Operand::Inline(f),
            Operand::Inline(syn::parse_quote!(#rule)),
        ];
        // `map` runs the user's closure (on `&x`) forward; both share `mapv`'s rule
        let rule = if m.method == "map" { "map" } else { "mapv" };
        self.prim(
            Prim::Tensor {
                rule,
                fwd_args: 2,
                view: false,
            },
            operands,
            e.span(),
        )
    }

    fn method_prim(
        &mut self,
        e: &syn::Expr,
        method: &syn::Ident,
        callee: Option<syn::ExprPath>,
        args: Vec<Operand>,
    ) -> Value {
        let name = method.to_string();
        match prims::method_arity(&name) {
            Some((rule, arity)) if arity == args.len() => self.prim(
                Prim::Method {
                    rule,
                    method: method.clone(),
                    callee,
                },
                args,
                e.span(),
            ),
            Some((_, arity)) => {
                self.unsupported(e, &format!("`{name}` takes {} argument(s) here", arity - 1))
            }
            None => {
                self.errors.push(method.span(), format!("cannot differentiate through the method `{name}`: it is not a differentiable primitive; {HELP_CALL}"));
                Value::Inline(syn::parse_quote!(()))
            }
        }
    }

    fn call(&mut self, e: &syn::Expr, c: &syn::ExprCall) -> Value {
        let syn::Expr::Path(func) = &*c.func else {
            return self.unsupported(&c.func, &format!("cannot differentiate a call of this expression; call a named function. To call a differentiable function: {HELP_CALL}"));
        };
        let Some(last) = func.path.segments.last().map(|s| s.ident.clone()) else {
            return self.verbatim(e);
        };
        if last == "stop_gradient" && c.args.len() == 1 {
            return self.verbatim(e);
        }
        if let Some(id) = func.path.get_ident() {
            if self.lookup(&id.to_string()).is_some() {
                return self.unsupported(&c.func, "calling a local closure with differentiable values is not supported; make it a `#[differentiable]` function");
            }
        }
        // `f64::sin(x)`, `T::powi(x, 2)`, `Float::max(a, b)`: the path form of a method.
        let segs = &func.path.segments;
        let path_form = func.qself.is_some()
            || segs.len() >= 2 && {
                let owner = segs[segs.len() - 2].ident.to_string();
                prims::is_float_type_name(&owner)
                    || owner == "Float"
                    || owner == "Real"
                    || self.type_params.contains(&owner)
            };
        let name = last.to_string();
        if path_form && prims::is_piecewise_constant(&name) {
            return self.verbatim(e);
        }
        let mut args = Vec::new();
        for a in &c.args {
            let arg = self.operand_of(a);
            // `f(&x)`: the callee takes a reference (and `x` may be an array)
            let arg = match (a, arg) {
                (syn::Expr::Reference(r), Operand::Var(v))
                    if r.mutability.is_none() && !path_form =>
                {
                    Operand::Ref(v)
                }
                (_, arg) => arg,
            };
            args.push(arg);
        }
        if path_form {
            if name == "from" && args.len() == 1 && func.qself.is_none() {
                let owner = &segs[segs.len() - 2].ident;
                let ty: syn::Type = syn::parse_quote!(#owner);
                let x = args.remove(0);
                return self.prim(Prim::Cast { ty: Box::new(ty) }, vec![x], e.span());
            }
            return self.method_prim(e, &last, Some(func.clone()), args);
        }
        let active = args.iter().any(|a| self.operand_active(a));
        let v = self.new_var(active);
        if active {
            self.push(
                v,
                None,
                Rhs::Call {
                    func: func.clone(),
                    args,
                },
                e.span(),
            );
        } else {
            let arg_tokens = args.iter().map(Operand::tokens);
            let span = e.span();
            self.push(
                v,
                None,
                Rhs::Inactive(quote_spanned!(span=> #func(#(#arg_tokens),*))),
                span,
            );
        }
        Value::Var(v)
    }
}

fn collect_pattern_idents(pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
    struct Names<'b>(&'b mut Vec<syn::Ident>);
    impl syn::visit::Visit<'_> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Names(out), pat);
}

/// The cells a block may write: by assignment, and any a piece of code kept as written
/// mentions (`k += 1` in an inactive statement).
fn cells_written(block: &Block, out: &mut HashSet<CellId>) {
    let mentioned =
        |ts: &TokenStream, out: &mut HashSet<CellId>| out.extend(CellId::mentioned_in(ts));
    for stmt in &block.stmts {
        match stmt {
            Stmt::WriteCell { cell, .. } | Stmt::WriteIndex { cell, .. } => {
                out.insert(*cell);
            }
            Stmt::Let {
                rhs: Rhs::Inactive(ts),
                ..
            }
            | Stmt::Effect(ts) => mentioned(ts, out),
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
