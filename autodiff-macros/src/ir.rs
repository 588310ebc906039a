//! The body IR: a function body in A-normal form, with nested regions for control flow.
//!
//! * A **variable** (`__vN`) is defined once per execution of its region and never
//!   changes (SSA within a region). Every intermediate result is one.
//! * A **cell** (`__cN`) is a user's `let mut` binding (and the flags, loop values and
//!   early-return value the lowering introduces). Cells are declared at the top of the
//!   forward sweep; reading one makes a variable (a snapshot), writing one is a statement.
//!   Their adjoints live for the whole reverse sweep and are reset when the reverse sweep
//!   passes a write, so an overwritten value never has to be saved: the values rules need
//!   are the snapshots (Tapenade's rule, by construction).
//! * A **region** is the function body, an arm of an `if`, or a loop body. A variable
//!   defined in a nested region and needed by the reverse sweep is saved by the forward
//!   sweep (an `Option` slot in a branch, a typed stack in a loop) and restored at the
//!   start of its region's reverse.

use crate::rules::{self, Rule};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// A variable of the IR, emitted as `__vN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub usize);

macro_rules! hygienic_names {
    ($ty:ident { $($method:ident => $fmt:literal),* $(,)? }) => {
        impl $ty {
            $(
                pub fn $method(self) -> syn::Ident {
                    format_ident!($fmt, self.0, span = Span::mixed_site())
                }
            )*
        }
    };
}

hygienic_names!(VarId {
    ident => "__v{}",
    adjoint => "__d{}",
    pullback => "__pb{}",
    taped => "__k{}",
});

/// The numbers of the IR names with `prefix` (`__v`, `__c`) that code kept as written
/// mentions, at any depth, in order.
fn mentioned(ts: &TokenStream, prefix: &str, out: &mut Vec<usize>) {
    for tt in ts.clone() {
        match tt {
            proc_macro2::TokenTree::Ident(id) => {
                if let Some(n) = id
                    .to_string()
                    .strip_prefix(prefix)
                    .and_then(|n| n.parse().ok())
                {
                    out.push(n);
                }
            }
            proc_macro2::TokenTree::Group(g) => mentioned(&g.stream(), prefix, out),
            _ => {}
        }
    }
}

impl VarId {
    /// The variables code kept as written mentions (by their `__vN` names).
    pub fn mentioned_in(ts: &TokenStream) -> Vec<VarId> {
        let mut out = Vec::new();
        mentioned(ts, "__v", &mut out);
        out.into_iter().map(VarId).collect()
    }
}

/// A mutable cell of the IR, emitted as `__cN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellId(pub usize);

hygienic_names!(CellId {
    ident => "__c{}",
    adjoint => "__dc{}",
});

impl CellId {
    /// The cells code kept as written mentions (by their `__cN` names).
    pub fn mentioned_in(ts: &TokenStream) -> Vec<CellId> {
        let mut out = Vec::new();
        mentioned(ts, "__c", &mut out);
        out.into_iter().map(CellId).collect()
    }
}

/// A region (the body, an arm, a loop body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegionId(pub usize);

impl RegionId {
    pub const BODY: RegionId = RegionId(0);

    /// The stack (in a loop) or `Option` slot (in a branch) the forward sweep saves the
    /// region's values in, one tuple per execution of the region.
    pub fn tape(self) -> syn::Ident {
        format_ident!("__sr{}", self.0, span = Span::mixed_site())
    }
}

/// What the IR knows of a variable.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Whether the variable depends on a differentiable input (and so gets an adjoint).
    pub active: bool,
    pub region: RegionId,
    /// Whether the value may be an array (or a value of unknown type): operations on it
    /// go through the runtime's tensor functions, which borrow their operands. Scalars
    /// (floats, slice elements, literals, casts) keep plain operators.
    pub maybe_array: bool,
    /// Whether the value is a shared reference the function was given (a parameter `x:
    /// &Array1<f64>`): a runtime function borrowing it takes the reference itself, not a
    /// borrow of the local that holds it, so a view of it (`x.view()`, `x.row(i)`) lives as
    /// long as the array it views and can be handed to a callee.
    pub shared_ref: bool,
    /// Whether the value is a user's struct held by value (a parameter `a: V3`, a struct
    /// literal, an operator's result): handed by value to a callee, its tangent (never
    /// `Copy`) is handed a copy, as it may be read again.
    pub owned_struct: bool,
    /// An element of a local `Vec` of structs read in place (borrowed where the element
    /// is no `Copy`): handed by value to a callee, its tangent is handed an owned copy.
    pub struct_element: bool,
}

#[derive(Clone, Debug)]
pub struct CellInfo {
    pub active: bool,
    /// Whether a value written to the cell may be an array (see [`VarInfo::maybe_array`]).
    pub maybe_array: bool,
    pub ty: Option<Box<syn::Type>>,
    /// The parameter a `&mut` parameter's cell is bound to: the cell is the exclusive
    /// reference itself, written through, and its adjoint is the caller's shadow.
    pub bound_to: Option<VarId>,
    /// Whether that parameter is a float written through (`x: &mut f64`): the cell is the
    /// one-element array `core::array::from_mut(x)` (the body's `*x` reads `x[0]`).
    pub bound_scalar: bool,
    /// A constant the cell is declared with instead of `Default::default()` (a local
    /// array `[0.0; N]` of a const-generic length, which has no `Default`; an `Option`'s
    /// `None`).
    pub init: Option<TokenStream>,
    /// Whether `init` is of the cell's tangent type too (an array of floats, the
    /// placeholder of a function with const generic parameters), so that the tangent
    /// sweep declares the cell's tangent with it; not an `Option`/`Result` placeholder.
    pub init_fits_tangent: bool,
}

#[derive(Clone, Debug)]
pub struct RegionInfo {
    /// Whether the region is inside a loop (its saved values go on a stack).
    pub in_loop: bool,
}

/// An operand: a variable, or an inactive expression (a literal or a path to a constant)
/// written inline.
#[derive(Clone, Debug)]
pub enum Operand {
    Var(VarId),
    Inline(syn::Expr),
    /// A variable passed by reference (`f(&x)` as the user wrote it).
    Ref(VarId),
    /// A buffer lent to a callee that writes it (`f(&mut buf)`, or a `&mut` parameter
    /// passed on, `reborrow`).
    MutRef {
        cell: CellId,
        reborrow: bool,
        /// `f(&mut buf[a..b])`: the range of the buffer lent (its adjoint's same range is
        /// the callee's shadow).
        range: Option<Box<SliceRange>>,
        /// A `&mut` parameter handed on as it is (`helper(y)`): the callee may read it
        /// (`&[f64]`) or write it (`&mut [f64]`), which only its signature tells. The
        /// variable keeps what a reading callee's pullback is handed again (a copy taken
        /// here, see `again::Lent`); the call goes through the callee's `__vjp_reborrow`.
        keep: Option<VarId>,
        /// One of several ranges of the buffer lent to one call (the views `split_at_mut`
        /// made): the name of its part of the buffer, split before the call
        /// (`views::disjoint`), which the call is handed.
        alias: Option<syn::Ident>,
    },
}

impl Operand {
    /// The expression written inline, out of its parentheses.
    fn bare(&self) -> Option<&syn::Expr> {
        let Operand::Inline(e) = self else {
            return None;
        };
        let mut e: &syn::Expr = e;
        while let syn::Expr::Paren(syn::ExprParen { expr, .. })
        | syn::Expr::Group(syn::ExprGroup { expr, .. }) = e
        {
            e = expr;
        }
        Some(e)
    }

    /// A number written out (`2.0`, `-0.5`, `(1e-3)`): its type is the other operand's
    /// element type, which a tensor operation must name (`elem_of`), or the float the
    /// literal leaves to inference stays unknown where a method is chosen by its type.
    pub fn is_literal(&self) -> bool {
        match self.bare() {
            Some(syn::Expr::Unary(u)) if matches!(u.op, syn::UnOp::Neg(_)) => {
                matches!(&*u.expr, syn::Expr::Lit(_))
            }
            Some(syn::Expr::Lit(_)) => true,
            _ => false,
        }
    }

    /// A literal `None` (an argument left out).
    pub fn is_none_literal(&self) -> bool {
        matches!(self.bare(), Some(syn::Expr::Path(p))
            if p.qself.is_none() && p.path.is_ident("None"))
    }

    pub fn tokens(&self) -> TokenStream {
        match self {
            Operand::Var(v) => {
                let id = v.ident();
                quote!(#id)
            }
            Operand::Inline(e) => quote!((#e)),
            Operand::Ref(v) => {
                let id = v.ident();
                quote!((&#id))
            }
            Operand::MutRef { alias: Some(a), .. } => quote!(#a),
            Operand::MutRef {
                cell,
                reborrow,
                range,
                ..
            } => {
                let id = cell.ident();
                match range {
                    Some(r) => {
                        let r = r.index_tokens();
                        quote!((&mut #id[#r]))
                    }
                    None if *reborrow => quote!((&mut *#id)),
                    None => quote!((&mut #id)),
                }
            }
        }
    }
    pub fn var(&self) -> Option<VarId> {
        match self {
            Operand::Var(v) | Operand::Ref(v) => Some(*v),
            Operand::Inline(_) | Operand::MutRef { .. } => None,
        }
    }
    /// The bounds of the range of a buffer lent `&mut buf[a..b]` (none for other operands).
    pub fn range_operands(&self) -> impl Iterator<Item = &Operand> {
        let range = match self {
            Operand::MutRef { range: Some(r), .. } => Some(r.operands()),
            _ => None,
        };
        range.into_iter().flatten()
    }
    /// The buffer a callee writes, for an operand lent `&mut`.
    pub fn lent_cell(&self) -> Option<CellId> {
        match self {
            Operand::MutRef { cell, .. } => Some(*cell),
            _ => None,
        }
    }
}

/// A value as the lowering sees it: a variable, an inline constant, or a tuple of values
/// (tuples are structural: `let (a, b) = (x, y)` costs nothing).
#[derive(Clone, Debug)]
pub enum Value {
    Var(VarId),
    Inline(syn::Expr),
    Tuple(Vec<Value>),
    /// An element of a slice being iterated, which the user's code sees through a
    /// reference (`for v in x.iter()`): differentiated as the element itself, written as
    /// `&element` in code kept as written (so `*v` means what it meant).
    Ref(Box<Value>),
}

impl Value {
    pub fn tokens(&self) -> TokenStream {
        match self {
            Value::Var(v) => {
                let id = v.ident();
                quote!(#id)
            }
            Value::Inline(e) => quote!((#e)),
            Value::Tuple(items) => {
                let items = items.iter().map(Value::tokens);
                quote!((#(#items,)*))
            }
            Value::Ref(inner) => {
                let inner = inner.tokens();
                quote!((&#inner))
            }
        }
    }
    pub fn vars(&self, out: &mut Vec<VarId>) {
        match self {
            Value::Var(v) => out.push(*v),
            Value::Inline(_) => {}
            Value::Tuple(items) => items.iter().for_each(|i| i.vars(out)),
            Value::Ref(inner) => inner.vars(out),
        }
    }
    /// The value itself, through any `Ref`.
    pub fn deref(self) -> Value {
        match self {
            Value::Ref(inner) => inner.deref(),
            other => other,
        }
    }
}

/// A primitive whose derivative rule lives in the runtime (`ops::<rule>_d<k>`); its row of
/// the table ([`crate::rules`]) says what each rule reads.
#[derive(Clone, Debug)]
pub enum Prim {
    /// A binary operator: [`rules::ADD`], `SUB`, `MUL`, `DIV` or `REM`.
    Binary { rule: &'static Rule, op: syn::BinOp },
    /// Unary minus ([`rules::NEG`]).
    Neg,
    /// A float method, `x.sin()` or `f64::sin(x)`; `callee` is the user's path in path form.
    /// `qualified`: computed by the runtime's function of the same name, not by a method
    /// call, in a function generic over its float type (whose own bounds may name a trait
    /// with a method of the same name as num-traits', `T: Sqrt`, ambiguous with the `T: Real`
    /// the derivative adds).
    Method {
        rule: &'static Rule,
        method: syn::Ident,
        callee: Option<syn::ExprPath>,
        qualified: bool,
    },
    /// `x as f32` / `x as f64`.
    Cast { ty: Box<syn::Type> },
    /// A struct literal, `Point { x: a, y: b }` (a derived `Differentiable` struct), or a
    /// tuple (`(a, b)` held as a value, `path` `None`, members `0`, `1`, …): one operand per
    /// member, in order; the adjoint of operand `k` is member `k` of the result's tangent,
    /// its tangent member `k` of the result's.
    Struct {
        path: Option<Box<syn::Path>>,
        members: Vec<syn::Member>,
    },
    /// A struct value with some members replaced: one operand per member, then the base
    /// (`p.x = v` of a `let mut` struct, `ps[i].x += v` of an element of a local `Vec` of
    /// structs). The adjoint of member operand `k` is member `k` of the result's; the
    /// base's is the result's with those members zero.
    SetMembers { members: Vec<syn::Member> },
    /// An array operation (`dot`, `t`, `sum`, `mean`, `sum_axis`, `mapv`, …): forward
    /// `ops::tensor::<rule>(&operands…)` on the first `fwd_args` operands (the others feed
    /// the rule only), reverse `ops::tensor::<rule>_d<k>`.
    Tensor {
        rule: &'static Rule,
        fwd_args: usize,
    },
}

impl Prim {
    /// The primitive's row of the table (`None` for a cast).
    pub fn rule(&self) -> Option<&'static Rule> {
        match self {
            Prim::Binary { rule, .. } | Prim::Method { rule, .. } | Prim::Tensor { rule, .. } => {
                Some(rule)
            }
            Prim::Neg => Some(&rules::NEG),
            Prim::Cast { .. } | Prim::Struct { .. } | Prim::SetMembers { .. } => None,
        }
    }
}

/// What an indexed read or write addresses: a variable (a slice parameter) or a cell (a
/// local buffer).
#[derive(Clone, Copy, Debug)]
pub enum Place {
    Var(VarId),
    Cell(CellId),
}

/// The right-hand side of a variable's definition.
#[derive(Clone, Debug)]
pub enum Rhs {
    /// `let y = x;`
    Copy(Operand),
    /// A primitive with its operands (receiver first for methods).
    Prim(Prim, Vec<Operand>),
    /// A call of another differentiable function, through its generated pullback.
    Call {
        func: syn::ExprPath,
        args: Vec<Operand>,
    },
    /// A snapshot of a cell.
    ReadCell(CellId),
    /// A copy made by the method the user wrote (`x.to_vec()`, `Vec::from(x)`,
    /// `x.clone()`): its gradient is the copy's.
    Owned { of: Operand, method: syn::Ident },
    /// `place[index]`.
    ReadIndex { place: Place, index: Operand },
    /// `&place[start..end]` (also `..=` and open ends): a sub-slice, borrowed; its adjoint
    /// is the same range of the place's adjoint.
    SubSlice { place: Place, range: SliceRange },
    /// `base.index`: a component of a tuple-valued variable (the result of a call).
    Field { base: VarId, index: u32 },
    /// `base.field` of a differentiable struct: a copy of a `Copy` field, a reference to
    /// any other; its gradient goes to the same field of the base's tangent.
    Member { base: VarId, member: syn::Member },
    /// A read through the runtime's source dispatch of the value the variable holds a
    /// reference to (a captured name or a field of a constant parameter): a `Variable`'s
    /// snapshot, whose gradient the reverse sweep deposits, or a plain value.
    Source(VarId),
    /// An expression that is constant with respect to the inputs (zero derivative),
    /// emitted as written with the user's names replaced by the IR's variables.
    Inactive(TokenStream),
}

impl Rhs {
    /// The variables the right-hand side reads as operands (a place, an index, a range's
    /// bounds, names in code kept as written); a call's arguments are not among them (see
    /// [`Rhs::vars_read`]).
    pub fn operand_vars(&self) -> Vec<VarId> {
        let place_var = |place: &Place| match place {
            Place::Var(p) => Some(*p),
            Place::Cell(_) => None,
        };
        match self {
            Rhs::Copy(o) | Rhs::Owned { of: o, .. } => o.var().into_iter().collect(),
            Rhs::Field { base, .. } | Rhs::Member { base, .. } => vec![*base],
            Rhs::Prim(_, args) => args.iter().filter_map(Operand::var).collect(),
            Rhs::ReadIndex { place, index } => {
                index.var().into_iter().chain(place_var(place)).collect()
            }
            Rhs::SubSlice { place, range } => range
                .operands()
                .filter_map(Operand::var)
                .chain(place_var(place))
                .collect(),
            Rhs::Inactive(ts) => VarId::mentioned_in(ts),
            Rhs::Call { .. } | Rhs::ReadCell(_) | Rhs::Source(_) => Vec::new(),
        }
    }

    /// Every variable the right-hand side reads: its operands and a call's arguments.
    pub fn vars_read(&self) -> Vec<VarId> {
        match self {
            Rhs::Call { args, .. } => args.iter().filter_map(Operand::var).collect(),
            other => other.operand_vars(),
        }
    }
}

/// The bounds of a sub-slice: integer operands, kept rather than the range itself (a
/// `Range` is not `Copy`), so the reverse sweep can name the same range again.
#[derive(Clone, Debug)]
pub struct SliceRange {
    pub start: Option<Operand>,
    pub end: Option<Operand>,
    pub inclusive: bool,
    /// One element lent `&mut buf[i]` (to an `x: &mut f64` parameter), as the range
    /// `i..=i`: the callee is handed the element, and its shadow is the range's.
    pub element: bool,
}

impl SliceRange {
    /// `start..end` as written with the IR's operands.
    pub fn tokens(&self) -> TokenStream {
        let start = self.start.as_ref().map(Operand::tokens);
        let end = self.end.as_ref().map(Operand::tokens);
        if self.inclusive {
            quote!(#start..=#end)
        } else {
            quote!(#start..#end)
        }
    }
    /// What indexes the buffer where it is lent: the range, or the element's index.
    pub fn index_tokens(&self) -> TokenStream {
        match (&self.start, self.element) {
            (Some(i), true) => i.tokens(),
            _ => self.tokens(),
        }
    }
    /// `(start, Some(end))`, `(start, None)` open at the end, as `views::disjoint` takes
    /// them; `operand` writes each bound.
    pub fn bounds(&self, mut operand: impl FnMut(&Operand) -> TokenStream) -> TokenStream {
        let start = self.start.as_ref().map_or(quote!(0usize), &mut operand);
        let end = match &self.end {
            Some(e) if self.inclusive => {
                let e = operand(e);
                quote!(::core::option::Option::Some(#e + 1))
            }
            Some(e) => {
                let e = operand(e);
                quote!(::core::option::Option::Some(#e))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!((#start, #end))
    }
    /// The operands (bounds) the range reads.
    pub fn operands(&self) -> impl Iterator<Item = &Operand> {
        self.start.iter().chain(self.end.iter())
    }
}

/// How a loop runs.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // a compile-time IR: size does not matter
pub enum LoopHead {
    /// `for __vN in iter`, where `item` (a variable of the body's region) is `__vN`.
    /// `start` is set when `iter` is `start..end`: the reverse sweep then walks the range
    /// backwards instead of saving every item.
    For {
        item: VarId,
        iter: TokenStream,
        start: Option<Operand>,
    },
    /// `loop` (and `while`, whose condition is the body's first test).
    Infinite,
}

/// A statement of the IR.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let __vN[: ty] = rhs;`
    Let {
        dst: VarId,
        ty: Option<Box<syn::Type>>,
        rhs: Rhs,
        span: Span,
    },
    /// `__cN = value;`
    WriteCell { cell: CellId, value: Operand },
    /// `__cN[index] = value;`
    WriteIndex {
        cell: CellId,
        index: Operand,
        value: Operand,
    },
    /// `__cN.push(Default::default());`: a local `Vec` grows by one element, which a
    /// `WriteIndex` at its old length then writes (`v.push(x)`). The reverse sweep reads
    /// and writes the adjoint of a grown `Vec` through rules that grow it as needed
    /// (`ops::grown_index_d0`): a `Vec` made again in each iteration has had other lengths;
    /// the reverse of the growth shrinks the adjoint back to `len`, the length before it.
    /// `value` is the element pushed (the `WriteIndex` after writes it again): the growth
    /// pushes a copy of it, so an element type without `Default` (a user's struct) can grow.
    Grow {
        cell: CellId,
        len: Operand,
        value: Operand,
    },
    /// The extent of the cell's value (a `Vec`'s length, `Option<usize>`), recorded before
    /// and after a `WriteCell` that may change it (`h = dense(&w, &h)` through layers of
    /// different widths). Nothing in the forward sweep; in the reverse the adjoint is given
    /// this extent, zeros appended or dropped (`ops::Refit`): after the write's reverse has
    /// left it the zero of the value written, the extent the reads before the write see;
    /// before, the extent of the value written (reads by index grow an adjoint only as far
    /// as they reach).
    Extent { cell: CellId, extent: Operand },
    /// A statement evaluated for its effect only (`println!(…);`), emitted as written.
    Effect(TokenStream),
    /// `if cond { then } else { els }` on an inactive `bool`.
    If {
        cond: Operand,
        then: Block,
        els: Block,
    },
    /// A loop; `count` is defined after it, as the number of iterations run; `flow` is
    /// the cell `break` (1) and `continue` (2) write, checked at the end of each iteration.
    Loop {
        head: LoopHead,
        body: Block,
        count: VarId,
        flow: Option<CellId>,
    },
}

/// A sequence of statements forming (part of) a region.
#[derive(Clone, Debug)]
pub struct Block {
    pub region: RegionId,
    pub stmts: Vec<Stmt>,
}

/// A function body in IR form.
#[derive(Clone, Debug)]
pub struct Body {
    pub vars: Vec<VarInfo>,
    pub cells: Vec<CellInfo>,
    pub regions: Vec<RegionInfo>,
    /// Items declared inside the body (`use`, `const`, nested functions), kept as written.
    pub items: Vec<syn::Item>,
    pub block: Block,
    pub output: Value,
}

/// Every variable's definition in `block` and the blocks nested in it.
pub fn definitions(block: &Block) -> std::collections::HashMap<VarId, &Rhs> {
    fn walk<'a>(block: &'a Block, out: &mut std::collections::HashMap<VarId, &'a Rhs>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { dst, rhs, .. } => {
                    out.insert(*dst, rhs);
                }
                Stmt::If { then, els, .. } => {
                    walk(then, out);
                    walk(els, out);
                }
                Stmt::Loop { body, .. } => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = std::collections::HashMap::new();
    walk(block, &mut out);
    out
}

/// The items of the `for` loops in `block` and the blocks nested in it.
pub fn loop_items(block: &Block) -> std::collections::HashSet<VarId> {
    fn walk(block: &Block, out: &mut std::collections::HashSet<VarId>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::If { then, els, .. } => {
                    walk(then, out);
                    walk(els, out);
                }
                Stmt::Loop { head, body, .. } => {
                    if let LoopHead::For { item, .. } = head {
                        out.insert(*item);
                    }
                    walk(body, out);
                }
                _ => {}
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    walk(block, &mut out);
    out
}

/// The inactive items of `for` loops (`for c in COEF.iter()`) and the inactive values
/// taken from them (`(k, c)` of `COEF.iter().enumerate()`): their types are unknown to the
/// macro, and may be references (`&f64`), which a rule reading one as a coefficient reads
/// through (`saved::Own`).
pub fn inactive_items(body: &Body) -> std::collections::HashSet<VarId> {
    let mut set: std::collections::HashSet<VarId> = loop_items(&body.block)
        .into_iter()
        .filter(|v| !body.is_active(*v))
        .collect();
    if set.is_empty() {
        return set;
    }
    let defs = definitions(&body.block);
    loop {
        let before = set.len();
        for (v, rhs) in &defs {
            if body.is_active(*v) || set.contains(v) {
                continue;
            }
            let from_item = match rhs {
                Rhs::Field { base, .. } => set.contains(base),
                Rhs::Copy(Operand::Var(u)) => set.contains(u),
                Rhs::Inactive(ts) => {
                    let mentioned = VarId::mentioned_in(ts);
                    !mentioned.is_empty() && mentioned.iter().all(|u| set.contains(u))
                }
                _ => false,
            };
            if from_item {
                set.insert(*v);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

impl Body {
    pub fn is_active(&self, v: VarId) -> bool {
        self.vars[v.0].active
    }
    pub fn region_of(&self, v: VarId) -> RegionId {
        self.vars[v.0].region
    }
}
