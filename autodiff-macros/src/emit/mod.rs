//! Emission: the forward sweep, the reverse sweep, and their glue.
//!
//! The reverse sweep is generated first, recording every variable it reads; the forward
//! sweep then saves exactly those of them that are defined inside a branch (in an
//! `Option` slot) or a loop (on a typed stack), and the reverse sweep of each region starts
//! by restoring them. Values at the top level of the body are simply captured by the
//! pullback closure. Adjoints are declared by their first contribution when the order is
//! static, and zero-initialised at the start of their region otherwise (a variable used in
//! a nested region, a slice read by index, a cell).

use crate::ir::{
    Block, Body, CellId, LoopHead, Operand, Place, Prim, RegionId, Rhs, Stmt, Value, VarId,
};

mod accumulate;
mod fences;
mod forward;
mod hoist;
mod increments;
mod preaccumulate;
mod reverse;
mod segments;
mod strips;
mod tangent;

pub(crate) use tangent::{
    jvp_body, optional_float, struct_param_type, struct_sequence_type, tangent_var, TangentSweep,
};

/// How many times `stmt` mentions the variable `v`, nested blocks included.
pub(crate) fn mentions(stmt: &Stmt, v: VarId) -> usize {
    hoist::mentions_stmt(stmt, Place::Var(v))
}

/// Whether the operand `o` mentions the variable `v`.
pub(crate) fn mentions_operand(o: &Operand, v: VarId) -> bool {
    hoist::operand_mentions(o, Place::Var(v))
}

use crate::signature::{tangent_type, Signature};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use std::collections::{BTreeSet, HashMap, HashSet};

pub(crate) use crate::companions::{companion_path, rt};

/// Variables whose adjoint receives contributions from a region other than their own, or
/// by index: they are zero-initialised at the start of their region's reverse sweep.
pub(crate) fn preinitialized(body: &Body) -> HashSet<VarId> {
    pub(crate) fn walk(body: &Body, block: &Block, out: &mut HashSet<VarId>) {
        let use_var = |v: VarId, out: &mut HashSet<VarId>| {
            if body.is_active(v) && body.region_of(v) != block.region {
                out.insert(v);
            }
        };
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { rhs, .. } => match rhs {
                    Rhs::Copy(o) | Rhs::Owned { of: o, .. } => {
                        o.var().into_iter().for_each(|v| use_var(v, out))
                    }
                    Rhs::Prim(_, args) | Rhs::Call { args, .. } => args
                        .iter()
                        .filter_map(Operand::var)
                        .for_each(|v| use_var(v, out)),
                    Rhs::ReadIndex {
                        place: Place::Var(v),
                        ..
                    } => {
                        if body.is_active(*v) {
                            out.insert(*v);
                        }
                    }
                    Rhs::Field { base, .. }
                    | Rhs::Member { base, .. }
                    | Rhs::SubSlice {
                        place: Place::Var(base),
                        ..
                    } => {
                        if body.is_active(*base) {
                            out.insert(*base);
                        }
                    }
                    Rhs::SubSlice { .. }
                    | Rhs::ReadIndex { .. }
                    | Rhs::ReadCell(_)
                    | Rhs::Inactive(_)
                    | Rhs::Source(_) => {}
                },
                Stmt::WriteCell { value, .. } | Stmt::WriteIndex { value, .. } => {
                    value.var().into_iter().for_each(|v| use_var(v, out))
                }
                Stmt::Effect(_) | Stmt::Grow { .. } | Stmt::Extent { .. } => {}
                Stmt::If { then, els, .. } => {
                    walk(body, then, out);
                    walk(body, els, out);
                }
                Stmt::Loop { body: b, .. } => walk(body, b, out),
            }
        }
    }
    let mut out = HashSet::new();
    walk(body, &body.block, &mut out);
    out
}

/// Reads of a cell's element (`__cN[i]`) after which nothing writes the cell: the value
/// read is the cell's final value, which the pullback closure owns, so the reverse sweep
/// reads the element again instead of the forward sweep saving it (`xcentered[i]` read in
/// a loop after the loop that filled it). Anything that may write the cell counts: an
/// assignment, a loan `&mut`, any mention in code kept as written. A write inside a loop
/// that also encloses the read comes after it too (the next iteration). A `&mut`
/// parameter's cell is never read back: the pullback does not own what it points to.
pub(crate) fn frozen_reads(body: &Body) -> HashSet<VarId> {
    #[derive(Default)]
    struct Walk {
        pos: usize,
        loops: Vec<usize>,
        next_loop: usize,
        /// per cell: (position, enclosing loops) of each write
        writes: HashMap<CellId, Vec<(usize, Vec<usize>)>>,
        reads: Vec<(VarId, CellId, usize, Vec<usize>)>,
    }
    impl Walk {
        fn write(&mut self, c: CellId) {
            let at = (self.pos, self.loops.clone());
            self.writes.entry(c).or_default().push(at);
        }
        fn mentions(&mut self, ts: &TokenStream) {
            for c in CellId::mentioned_in(ts) {
                self.write(c);
            }
        }
        fn operand(&mut self, o: &Operand) {
            match o {
                Operand::Inline(e) => self.mentions(&quote!(#e)),
                Operand::MutRef { cell, .. } => {
                    o.range_operands().for_each(|b| self.operand(b));
                    self.write(*cell)
                }
                Operand::Var(_) | Operand::Ref(_) => {}
            }
        }
        fn block(&mut self, block: &Block) {
            for stmt in &block.stmts {
                self.pos += 1;
                match stmt {
                    Stmt::Let { dst, rhs, .. } => match rhs {
                        Rhs::ReadIndex {
                            place: Place::Cell(c),
                            index,
                        } => {
                            self.operand(index);
                            let at = (*dst, *c, self.pos, self.loops.clone());
                            self.reads.push(at);
                        }
                        Rhs::Inactive(ts) => self.mentions(ts),
                        Rhs::Copy(o) | Rhs::Owned { of: o, .. } => self.operand(o),
                        Rhs::Prim(_, args) | Rhs::Call { args, .. } => {
                            args.iter().for_each(|a| self.operand(a))
                        }
                        Rhs::ReadIndex { index, .. } => self.operand(index),
                        Rhs::SubSlice { range, .. } => {
                            range.operands().for_each(|o| self.operand(o))
                        }
                        Rhs::ReadCell(_)
                        | Rhs::Field { .. }
                        | Rhs::Member { .. }
                        | Rhs::Source(_) => {}
                    },
                    Stmt::WriteCell { cell, value } => {
                        self.operand(value);
                        self.write(*cell);
                    }
                    Stmt::WriteIndex { cell, index, value } => {
                        self.operand(index);
                        self.operand(value);
                        self.write(*cell);
                    }
                    Stmt::Grow { cell, len, value } => {
                        self.operand(len);
                        self.operand(value);
                        self.write(*cell);
                    }
                    Stmt::Extent { extent, .. } => self.operand(extent),
                    Stmt::Effect(ts) => self.mentions(ts),
                    Stmt::If { cond, then, els } => {
                        self.operand(cond);
                        self.block(then);
                        self.block(els);
                    }
                    Stmt::Loop { head, body, .. } => {
                        self.next_loop += 1;
                        self.loops.push(self.next_loop);
                        if let LoopHead::For { iter, start, .. } = head {
                            self.mentions(iter);
                            if let Some(s) = start {
                                self.operand(s);
                            }
                        }
                        self.block(body);
                        self.loops.pop();
                    }
                }
            }
        }
    }
    let mut w = Walk::default();
    w.block(&body.block);
    let Walk { writes, reads, .. } = w;
    reads
        .into_iter()
        .filter(|(_, c, pos, loops)| {
            body.cells[c.0].bound_to.is_none()
                && writes.get(c).is_none_or(|ws| {
                    ws.iter()
                        .all(|(at, around)| at < pos && !around.iter().any(|l| loops.contains(l)))
                })
        })
        .map(|(v, ..)| v)
        .collect()
}

/// What decides which values the forward sweep moves onto its tape rather than copying
/// (see `Emitter::moves_to_tape`), counted in one walk of the body each.
pub(crate) struct TapeMoves {
    /// How many times each variable is mentioned in the body.
    pub(crate) mentions: HashMap<VarId, usize>,
    /// How many times each is lent to calls in [`Emitter::rehanded`].
    pub(crate) lent: HashMap<VarId, usize>,
}

pub(crate) struct Emitter<'a> {
    pub(crate) body: &'a Body,
    /// The branches of an `if` outside loops: the region whose slot they share and whether
    /// the branch is the `else` (see `arm_pairs`).
    pub(crate) arms: HashMap<RegionId, (RegionId, bool)>,
    /// The function's own name, and whether it is a method: a call of itself (recursion)
    /// runs its own derivative again in the reverse sweep instead of keeping a pullback
    /// (whose type would contain itself).
    pub(crate) own: (syn::Ident, bool),
    /// Every call runs its derivative again in the reverse sweep (`recursive`).
    pub(crate) rerun_calls: bool,
    pub(crate) preinit: HashSet<VarId>,
    /// Variables the reverse sweep reads.
    pub(crate) used: BTreeSet<VarId>,
    /// Calls whose pullback the reverse sweep runs.
    pub(crate) used_pullbacks: BTreeSet<VarId>,
    pub(crate) initialized: HashSet<VarId>,
    /// Variables the reverse sweep recomputes from others instead of restoring.
    pub(crate) recomputed: HashSet<VarId>,
    /// Loop items the reverse sweep's own loop header binds.
    pub(crate) reverse_bound: HashSet<VarId>,
    pub(crate) defs: HashMap<VarId, &'a Rhs>,
    /// Per parameter, whether a value of its type handed to a callee by value needs a
    /// copy and can have one: not `Copy` for certain, and `Clone` for certain (a `Vec`, an
    /// array, an ndarray array, a tuple of these). A struct of the user's may be neither.
    pub(crate) copied_params: Vec<bool>,
    pub(crate) fresh: usize,
    /// Slices whose adjoint elements a fused loop carries in registers (see `fuse`).
    pub(crate) carried: HashMap<VarId, Carried>,
    /// Parameters whose fields the body reads (struct parameters): their gradient starts
    /// as a lazy zero, each field taking its first contribution by move, and is completed
    /// (fields nothing reached become zeros) when returned.
    pub(crate) lazy: HashSet<VarId>,
    /// While the reverse of a fused loop's iteration is generated: its accumulators, whose
    /// adjoint the iteration reads without taking (it is the same in every iteration).
    pub(crate) invariant: HashSet<CellId>,
    /// Scalar adjoints kept with their sign pending: the variable holds the negation of
    /// the adjoint. A subtraction's right operand (`a - b*c`) then costs no negation: the
    /// rules downstream are linear in the cotangent (and rounding is symmetric in sign),
    /// so the sign travels to where the contribution is added, which subtracts instead.
    pub(crate) negated: HashSet<VarId>,
    /// Parameters whose adjoint is their caller's buffer (see `shadow`): the pullback takes
    /// it as an argument, adds into it, and returns no gradient for it.
    pub(crate) shadows: HashSet<VarId>,
    /// Parameters that are shared references (`x: &[f64]`): what they point to outlives
    /// the pullback, so a callee's pullback may keep a borrow of it.
    pub(crate) ref_params: HashSet<VarId>,
    /// What the reverse sweep restores from each region's tape (values, then pullbacks):
    /// the forward sweep saves exactly these.
    pub(crate) tapes: HashMap<RegionId, (Vec<VarId>, Vec<VarId>)>,
    /// Reads of cell elements the reverse sweep can read again (see [`frozen_reads`]).
    pub(crate) frozen: HashSet<VarId>,
    /// Local `Vec`s that grow by `push`: their adjoints' lengths may lag behind the
    /// `Vec`'s (a `Vec` made again in each iteration), so their element rules grow them.
    pub(crate) grown: HashSet<CellId>,
    /// Inactive loop items and the values taken from them (see `ir::inactive_items`).
    pub(crate) const_items: HashSet<VarId>,
    /// In `__vjp_reborrow`'s body: the variables that may borrow a re-borrowed parameter
    /// (see [`reborrow_body`]); a call handed one goes through its callee's
    /// `__vjp_reborrow`.
    pub(crate) rehand: Option<HashSet<VarId>>,
    /// In `__vjp_reborrow`'s body: a call hands the callee a parameter again or lends a
    /// buffer, so the body differs from `__vjp_into`'s (which keeps those borrows).
    pub(crate) rehand_differs: bool,
    /// ... and one such call is of a method.
    pub(crate) rehand_method: bool,
    /// Calls whose pullback comes from the callee's `__vjp_reborrow` (handed its arguments
    /// again at reverse time).
    pub(crate) rehanded: HashSet<VarId>,
    /// Once the reverse sweep is written (and [`Emitter::rehanded`] final): see
    /// [`TapeMoves`].
    pub(crate) tape_moves: std::cell::OnceCell<TapeMoves>,
    /// What calls keep of a `&mut` parameter handed on as it is (see `Operand::MutRef`):
    /// emitted only where the reverse sweep hands it again.
    pub(crate) keeps: HashSet<VarId>,
    /// Integer counters (see [`counters`]): the statement undoing each increment, by the
    /// increment's tokens, and the reads computed from the counter.
    pub(crate) counter_undo: HashMap<String, TokenStream>,
    pub(crate) counter_reads: HashMap<VarId, TokenStream>,
    /// Snapshots of a cell handed by reference to the call right after them and used
    /// nowhere else (see [`handed_on`]): the callee adds into the cell's adjoint.
    pub(crate) handed_on: HashMap<VarId, CellId>,
    /// Snapshots that take their cell itself rather than a copy (see
    /// [`hoist::last_snapshots`]): the cell is mentioned nowhere after them, in the forward
    /// sweep or the reverse one, whose adjoint of the cell is shaped after the snapshot.
    pub(crate) moved: HashMap<VarId, CellId>,
    /// The forward sweep's buffers taken from the runtime's pool (`vec![x; n]` of a float
    /// literal) and the cells holding only those (see [`pooled`]).
    pub(crate) pooled: (HashSet<VarId>, HashSet<CellId>),
    /// Places some iteration reads at several indices: their element adjoints are updated
    /// through the fenced rule (see `fences`).
    pub(crate) fenced: HashSet<String>,
    /// The number of parameters (the first variables), and the items of the range loops
    /// whose reverse is being generated, innermost last: indices fixed across an inner
    /// loop (see `hoist`).
    pub(crate) params: usize,
    /// Parameters of a slice's type, which a loop's reverse may read through a part (see
    /// `segments`).
    pub(crate) slice_params: HashSet<VarId>,
    pub(crate) loop_items: Vec<VarId>,
    /// Element reads whose adjoint the reverse of their loop adds into a local (see
    /// `hoist`), by the variable read.
    pub(crate) hoisted: HashMap<VarId, syn::Ident>,
    /// In-place increments (see `increments`): the values written back, whose write's
    /// reverse reads the element's adjoint without taking it, and the reads they add to,
    /// which get no contribution.
    pub(crate) increment_values: HashSet<VarId>,
    pub(crate) increment_reads: HashSet<VarId>,
    /// Cells' updates from their own value read more than once, by root (see
    /// `preaccumulate`).
    pub(crate) preaccumulated: HashMap<VarId, preaccumulate::Tree>,
    /// Slice parameters taken apart (`fuse::split_body`, `hvp!`'s split sweep): read as
    /// `split::join(x, tangent, i)`, their adjoints plain floats holding the tangents.
    pub(crate) split: HashSet<VarId>,
    /// The float type the split sweep runs on (the dual number type).
    pub(crate) split_float: TokenStream,
    /// A split parameter reached a form the split sweep does not write: the sweep is not
    /// emitted.
    pub(crate) split_refused: std::cell::Cell<bool>,
}

/// The registers of a carried slice adjoint in a fused loop: `here` collects element `i`
/// (starting from what the previous iteration left for it), `carry` element `i + 1`, `at`
/// remembers that index, `hot` whether element `i` received anything.
pub(crate) struct Carried {
    pub(crate) offsets: HashMap<VarId, u8>,
    pub(crate) region: RegionId,
    pub(crate) here: syn::Ident,
    pub(crate) carry: syn::Ident,
    pub(crate) at: syn::Ident,
    pub(crate) hot: syn::Ident,
    /// Whether the first contribution to `carry` in an iteration assigns it (it is
    /// unconditional); otherwise the iteration starts it from zero.
    pub(crate) carry_assigned: Option<bool>,
    /// The same for `here`, when nothing is carried into it (no `i + 1` reads).
    pub(crate) here_assigned: Option<bool>,
}

impl Carried {
    pub(crate) fn carries(&self) -> bool {
        self.offsets.values().any(|o| *o == 1)
    }
}

/// Whether an inactive expression is pure and cheap enough to evaluate again in the
/// reverse sweep: integer arithmetic on variables and literals, `len()`, no calls, no macros.
pub(crate) fn pure_cheap(tokens: &TokenStream) -> bool {
    let tts: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
    tts.iter().enumerate().all(|(k, tt)| match tt {
        proc_macro2::TokenTree::Literal(_) => true,
        proc_macro2::TokenTree::Ident(id) => {
            let name = id.to_string();
            let next = tts.get(k + 1);
            let prev = k.checked_sub(1).and_then(|p| tts.get(p));
            let call = next.is_some_and(
                |n| matches!(n, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis),
            );
            let dot = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '.');
            // (a method's or field's name, not the start of a range's end: `0..__c0.len()`
            // names the cell `__c0`, whose length may change)
            let after_dot = dot(prev) && !dot(k.checked_sub(2).and_then(|q| tts.get(q)));
            let after_as = matches!(prev, Some(proc_macro2::TokenTree::Ident(p)) if p == "as");
            // Only the IR's own variables: a user name (a captured variable, a constant)
            // would be captured again by the reverse sweep's closure. A cell (`__cN`)
            // changes over time: its value now is not its value then.
            let variable = name
                .strip_prefix("__v")
                .is_some_and(|n| n.parse::<usize>().is_ok());
            if call {
                return after_dot && name == "len";
            }
            variable || after_dot || after_as || name == "as" || name == "true" || name == "false"
        }
        proc_macro2::TokenTree::Punct(p) => "+-*/%.<>=!&|^".contains(p.as_char()),
        TokenTree::Group(g) => g.delimiter() != Delimiter::Brace && pure_cheap(&g.stream()),
    })
}

/// Whether an inactive expression is cheap and pure beyond what [`pure_cheap`] reads from
/// its tokens: arithmetic and casts whose leaves are literals, the float type's constants
/// (`<T as FloatConst>::PI()`, see `lower::is_literal`), conversions to the float type
/// parameter of such leaves (`T::from(i).unwrap()`, see `lower::float_conversion`), or
/// [`pure_cheap`] expressions. Its value is the same wherever it is evaluated, so the reverse
/// sweep evaluates it again rather than keeping one copy per iteration of a loop.
fn cheap_expr(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Binary(b) => {
            crate::lower::arithmetic(&b.op) && cheap_expr(&b.left) && cheap_expr(&b.right)
        }
        syn::Expr::Paren(p) => cheap_expr(&p.expr),
        syn::Expr::Group(g) => cheap_expr(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => cheap_expr(&u.expr),
        syn::Expr::Cast(c) => cheap_expr(&c.expr),
        _ => match crate::lower::float_conversion(e) {
            Some((_, x)) => cheap_expr(x),
            None => crate::lower::is_literal(e) || pure_cheap(&e.to_token_stream()),
        },
    }
}

impl Emitter<'_> {
    /// Whether `v` borrows another value and so is recomputed by the reverse sweep, never
    /// kept (a view of an array, a field of a struct, an element that may be either).
    pub(crate) fn borrows(&self, v: VarId) -> bool {
        self.defs.get(&v).is_some_and(|rhs| match rhs {
            Rhs::Prim(Prim::Tensor { rule, .. }, _) if rule.is_view() => true,
            Rhs::Member { .. } | Rhs::SubSlice { .. } => true,
            // (an element of a local buffer written after the read is copied out and kept:
            // evaluated again, it would read the element written later, see `owned_read`)
            Rhs::ReadIndex { .. } => self.body.vars[v.0].maybe_array && !self.owned_read(v),
            _ => false,
        })
    }

    /// Whether `v` reads an element that may be a struct or an array (borrowed, when not
    /// `Copy`, see `rhs_tokens`) from a local buffer written after the read: the forward
    /// sweep copies it out (`saved::Own`) and the reverse sweep is handed the copy.
    pub(crate) fn owned_read(&self, v: VarId) -> bool {
        matches!(
            self.defs.get(&v),
            Some(Rhs::ReadIndex {
                place: Place::Cell(_),
                ..
            })
        ) && self.body.vars[v.0].maybe_array
            && !self.frozen.contains(&v)
    }

    /// Whether the reverse sweep can evaluate `v`'s definition again instead of saving `v`.
    pub(crate) fn recomputable(&self, v: VarId) -> bool {
        match self.defs.get(&v) {
            Some(Rhs::Copy(_))
            | Some(Rhs::ReadIndex {
                place: Place::Var(_),
                ..
            }) => true,
            Some(Rhs::ReadIndex {
                place: Place::Cell(_),
                ..
            }) if self.frozen.contains(&v) => true,
            Some(Rhs::Prim(Prim::Binary { .. } | Prim::Neg | Prim::Cast { .. }, _)) => true,
            Some(Rhs::Field { .. }) => true,
            Some(_) if self.borrows(v) => true,
            Some(Rhs::Inactive(ts)) => {
                pure_cheap(ts) || syn::parse2(ts.clone()).is_ok_and(|e| cheap_expr(&e))
            }
            Some(Rhs::ReadCell(_)) => self.counter_reads.contains_key(&v),
            _ => false,
        }
    }

    /// How the reverse sweep computes `v` again (see [`Emitter::recomputable`]).
    pub(crate) fn recompute_tokens(&self, v: VarId) -> TokenStream {
        if let Some(read) = self.counter_reads.get(&v) {
            return read.clone();
        }
        self.rhs(
            self.defs[&v],
            Span::call_site(),
            self.body.vars[v.0].maybe_array,
        )
    }

    pub(crate) fn rhs_operands(&self, v: VarId) -> Vec<VarId> {
        self.defs
            .get(&v)
            .map_or_else(Vec::new, |rhs| rhs.operand_vars())
    }

    pub(crate) fn fresh(&mut self, prefix: &str) -> syn::Ident {
        self.fresh += 1;
        format_ident!("{}{}", prefix, self.fresh, span = Span::mixed_site())
    }

    pub(crate) fn var(&mut self, v: VarId) -> TokenStream {
        self.used.insert(v);
        let id = v.ident();
        quote!(#id)
    }

    pub(crate) fn operand(&mut self, o: &Operand) -> TokenStream {
        if let Some(v) = o.var() {
            self.used.insert(v);
        }
        o.tokens()
    }

    pub(crate) fn active_var(&self, o: &Operand) -> Option<VarId> {
        o.var().filter(|v| self.body.is_active(*v))
    }

    pub(crate) fn place_adjoint(&mut self, place: Place) -> Option<TokenStream> {
        match place {
            Place::Var(v) if self.body.is_active(v) => Some(self.var_adjoint(v)),
            Place::Cell(c) if self.body.cells[c.0].active => {
                let d = c.adjoint();
                Some(quote!(#d))
            }
            _ => None,
        }
    }
}

impl Emitter<'_> {
    /// The adjoint of `v` as a place to add into: `__dN`, or for a sub-slice `&x[a..b]` the
    /// same range of `x`'s adjoint (`v` has no adjoint of its own).
    pub(crate) fn var_adjoint(&mut self, v: VarId) -> TokenStream {
        let rt = rt();
        if let Some(Rhs::SubSlice { place, range }) = self.defs.get(&v).copied() {
            range.operands().for_each(|o| {
                self.operand(o);
            });
            let range = range.tokens();
            let parent = self.place_adjoint(*place).unwrap_or_else(|| quote!(()));
            return quote!(#rt::shadow::sink_range(&mut #parent, #range));
        }
        let d = v.adjoint();
        quote!(#d)
    }

    /// The adjoint holding element `index` of `place`, and its index there: an element of a
    /// sub-slice `&x[a..b]` is element `a + index` of `x`'s adjoint (the forward sweep has
    /// already checked it is in range), so no shadow of the range is made per element.
    pub(crate) fn element_adjoint(
        &mut self,
        place: Place,
        index: TokenStream,
    ) -> Option<(TokenStream, TokenStream)> {
        if let Place::Var(v) = place {
            if let Some(Rhs::SubSlice { place, range }) = self.defs.get(&v).copied() {
                if !self.body.is_active(v) {
                    return None;
                }
                let index = match &range.start {
                    Some(start) => {
                        let start = self.operand(start);
                        quote!((#start + #index))
                    }
                    None => index,
                };
                return self.element_adjoint(*place, index);
            }
        }
        self.place_adjoint(place).map(|adj| (adj, index))
    }

    /// Whether `v` is a sub-slice (its adjoint is a range of another's).
    pub(crate) fn is_sub_slice(&self, v: VarId) -> bool {
        matches!(self.defs.get(&v), Some(Rhs::SubSlice { .. }))
    }

    /// The variable whose adjoint `v`'s adjoint is part of (itself, or the slice a
    /// sub-slice was taken from).
    pub(crate) fn adjoint_root(&self, v: VarId) -> VarId {
        match self.defs.get(&v) {
            Some(Rhs::SubSlice {
                place: Place::Var(p),
                ..
            }) => self.adjoint_root(*p),
            _ => v,
        }
    }

    /// As [`Emitter::adjoint_root`], and through a constant sub-slice of a parameter
    /// (`&data[a..b]` of a `#[no_grad]` slice, kept as written): the parameter.
    pub(crate) fn param_root(&self, v: VarId) -> VarId {
        let root = self.adjoint_root(v);
        let Some(Rhs::Inactive(ts)) = self.defs.get(&root) else {
            return root;
        };
        let mut tts: Vec<TokenTree> = ts.clone().into_iter().collect();
        while let [TokenTree::Group(g)] = &tts[..] {
            if g.delimiter() != Delimiter::Parenthesis {
                break;
            }
            tts = g.stream().into_iter().collect();
        }
        match &tts[..] {
            [TokenTree::Punct(amp), TokenTree::Ident(base), TokenTree::Group(g)]
                if amp.as_char() == '&' && g.delimiter() == Delimiter::Bracket =>
            {
                match VarId::mentioned_in(&quote!(#base))[..] {
                    [p] => self.param_root(p),
                    _ => root,
                }
            }
            _ => root,
        }
    }

    /// Whether a call passes a reference to a value the forward sweep owns (`f(&local)`):
    /// the callee's pullback cannot keep that borrow inside the caller's pullback, which
    /// owns the value, so the reverse sweep runs the callee's derivative again there. A
    /// reference into a parameter's data (`f(&x[a..b])` with `x: &[f64]`) can be kept.
    /// Whether `func` names the function itself (`f`, or `Self::f` in a method).
    /// With `#[differentiable(recursive)]`, every call: the pullback then holds no other
    /// function's, which breaks a cycle of mutually recursive functions' pullback types.
    pub(crate) fn is_recursive(&self, func: &syn::ExprPath) -> bool {
        if self.rerun_calls {
            return true;
        }
        let (own, is_method) = &self.own;
        let segs = &func.path.segments;
        func.qself.is_none()
            && match (func.path.get_ident(), segs.len()) {
                (Some(id), _) => !is_method && id == own,
                (None, 2) => *is_method && segs[0].ident == "Self" && segs[1].ident == *own,
                _ => false,
            }
    }

    pub(crate) fn borrows_owned(&self, args: &[Operand]) -> bool {
        self.borrows_any(args) || self.borrows_local(args)
    }

    /// In `__vjp_reborrow`'s body: whether a call is handed a value that may borrow what a
    /// re-borrowed parameter points to.
    pub(crate) fn borrows_any(&self, args: &[Operand]) -> bool {
        if let Some(b) = &self.rehand {
            // (`__vjp_reborrow`: nothing the parameters point to may be kept either)
            return args.iter().any(|a| match a {
                Operand::Ref(_) => true,
                Operand::Var(v) => b.contains(v),
                Operand::Inline(e) => {
                    let ts = quote!(#e);
                    may_borrow(&ts) || VarId::mentioned_in(&ts).iter().any(|u| b.contains(u))
                }
                Operand::MutRef { .. } => false,
            });
        }
        false
    }

    /// Whether a call is handed a reference to a value the forward sweep owns: `&local`,
    /// or a slice of one (`for c in buf.chunks(k) { f(c) }` with `buf` a local buffer).
    pub(crate) fn borrows_local(&self, args: &[Operand]) -> bool {
        args.iter().any(|a| match a {
            Operand::Ref(v) => !self.ref_params.contains(&self.param_root(*v)),
            Operand::Var(v) => {
                let root = self.param_root(*v);
                root != *v && !self.ref_params.contains(&root)
            }
            _ => false,
        })
    }
}

/// The two branches of each `if` outside loops, each mapped to the `then` branch's region
/// and whether it is the `else` branch: whichever ran saves its values in one slot
/// (`saved::Arm`), which holds one branch's tuple, not both.
fn arm_pairs(body: &Body) -> HashMap<RegionId, (RegionId, bool)> {
    fn walk(
        block: &Block,
        blocks: &mut HashMap<RegionId, usize>,
        ifs: &mut Vec<(RegionId, RegionId)>,
    ) {
        *blocks.entry(block.region).or_default() += 1;
        for stmt in &block.stmts {
            match stmt {
                Stmt::If { then, els, .. } => {
                    ifs.push((then.region, els.region));
                    walk(then, blocks, ifs);
                    walk(els, blocks, ifs);
                }
                Stmt::Loop { body, .. } => walk(body, blocks, ifs),
                _ => {}
            }
        }
    }
    let (mut blocks, mut ifs) = (HashMap::new(), Vec::new());
    walk(&body.block, &mut blocks, &mut ifs);
    let mut out = HashMap::new();
    for (then, els) in ifs {
        let alone = |r: RegionId| {
            r != RegionId::BODY && blocks.get(&r) == Some(&1) && !body.regions[r.0].in_loop
        };
        if then != els && alone(then) && alone(els) {
            out.insert(then, (then, false));
            out.insert(els, (then, true));
        }
    }
    out
}

/// Whether a parameter's type needs a copy when handed over by value and is `Clone` for
/// certain: a `Vec`, an array, an ndarray array, a tuple of these — not a float or a type
/// parameter (`Copy`), a reference, or a plain path (a struct of the user's, which may not
/// be `Clone`).
fn cloned_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Paren(p) => cloned_type(&p.elem),
        syn::Type::Array(_) => true,
        syn::Type::Tuple(t) => t.elems.iter().any(cloned_type),
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| {
            let n = s.ident.to_string();
            n == "Vec" || n.starts_with("Array")
        }),
        _ => false,
    }
}

impl Emitter<'_> {
    /// Whether a differentiable value handed to a callee by value gets a copy: the reverse
    /// sweep still needs it (its adjoint's shape, its gradient's completion) after the call
    /// has consumed it. Copies made by the user's code (`to_vec`, `clone`, `Vec::from`)
    /// and results of calls (floats, `Vec`s, arrays, `Option`s and `Result`s of them) are
    /// `Clone`; parameters are copied by their types ([`cloned_type`]); values computed by
    /// primitives are floats.
    pub(crate) fn handed_copy(&self, v: VarId) -> bool {
        match self.defs.get(&v) {
            Some(Rhs::Owned { .. } | Rhs::Call { .. }) => true,
            Some(_) => false,
            None => self.copied_params.get(v.0).copied().unwrap_or(false),
        }
    }
}

/// `x`'s value, owned: its referent when it is a reference (an item of a constant sequence
/// read as a rule's coefficient), a clone otherwise.
pub(crate) fn owned(x: TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use ::autodiff::__private::saved::{OwnRef as _, OwnVal as _};
        (&::autodiff::__private::saved::Own(&#x)).own()
    }}
}

pub(crate) fn new_emitter<'a>(sig: &Signature, body: &'a Body) -> Emitter<'a> {
    let sig_params = sig.params.len();
    let mut e = Emitter {
        body,
        own: (sig.ident.clone(), sig.is_method),
        rerun_calls: sig.rerun_calls,
        preinit: preinitialized(body),
        used: BTreeSet::new(),
        used_pullbacks: BTreeSet::new(),
        initialized: HashSet::new(),
        recomputed: HashSet::new(),
        reverse_bound: HashSet::new(),
        defs: crate::ir::definitions(&body.block),
        copied_params: sig.params.iter().map(|p| cloned_type(&p.ty)).collect(),
        fresh: 0,
        carried: HashMap::new(),
        lazy: HashSet::new(),
        invariant: HashSet::new(),
        negated: HashSet::new(),
        shadows: HashSet::new(),
        ref_params: HashSet::new(),
        tapes: HashMap::new(),
        frozen: frozen_reads(body),
        grown: grown_cells(&body.block),
        const_items: crate::ir::inactive_items(body),
        rehand: None,
        rehand_differs: false,
        rehand_method: false,
        rehanded: HashSet::new(),
        tape_moves: std::cell::OnceCell::new(),
        keeps: HashSet::new(),
        pooled: pooled(body, sig_params),
        counter_undo: HashMap::new(),
        counter_reads: HashMap::new(),
        handed_on: HashMap::new(),
        moved: HashMap::new(),
        arms: arm_pairs(body),
        fenced: fences::fenced_places(body),
        params: sig_params,
        slice_params: segments::slice_params(sig),
        loop_items: Vec::new(),
        hoisted: HashMap::new(),
        increment_values: HashSet::new(),
        increment_reads: HashSet::new(),
        preaccumulated: preaccumulate::trees(body),
        split: HashSet::new(),
        split_float: TokenStream::new(),
        split_refused: std::cell::Cell::new(false),
    };
    (e.increment_values, e.increment_reads) = increments::increments(body, &e.grown);
    e.keeps = (e.defs.values())
        .filter_map(|rhs| match rhs {
            Rhs::Call { args, .. } => Some(args),
            _ => None,
        })
        .flatten()
        .filter_map(|a| match a {
            Operand::MutRef { keep, .. } => *keep,
            _ => None,
        })
        .collect();
    e.lazy = lazily_zeroed(sig_params, body, &e.defs);
    e.ref_params = (sig.params.iter().enumerate())
        .filter(|(_, p)| matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_none()))
        .map(|(i, _)| VarId(i))
        .collect();
    e
}

/// Parameters read through their fields and never by index: see `Emitter::lazy`.
pub(crate) fn lazily_zeroed(
    params: usize,
    body: &Body,
    defs: &HashMap<VarId, &Rhs>,
) -> HashSet<VarId> {
    let (mut bases, mut indexed) = (HashSet::new(), HashSet::new());
    for rhs in defs.values() {
        match rhs {
            Rhs::Member { base, .. } => {
                bases.insert(*base);
            }
            Rhs::ReadIndex {
                place: Place::Var(p),
                ..
            } => {
                indexed.insert(*p);
            }
            _ => {}
        }
    }
    bases
        .into_iter()
        .filter(|v| v.0 < params && !indexed.contains(v) && body.is_active(*v))
        .collect()
}

/// The body of `__vjp`: forward sweep, then `(value, move |cotangent| reverse)`.
pub fn vjp_body(sig: &Signature, body: &Body) -> TokenStream {
    pullback_body(sig, body, false)
}

/// The body of `__vjp_into`: forward sweep, then `(value, move |cotangent, sinks…| reverse)`,
/// the reverse adding the gradients of slice parameters into the sinks (their callers'
/// buffers) and returning the others'.
pub fn vjp_into_body(sig: &Signature, body: &Body) -> TokenStream {
    pullback_body(sig, body, true)
}

/// The types of the sinks `__vjp_into`'s pullback takes, one per parameter.
pub fn sink_types(sig: &Signature) -> Vec<TokenStream> {
    let rt = rt();
    sig.params
        .iter()
        .map(|p| match &p.shadow {
            Some(elem) => quote!(#rt::shadow::SliceShadow<'_, #elem>),
            None => quote!(#rt::shadow::Ignored),
        })
        .collect()
}

fn pullback_body(sig: &Signature, body: &Body, shadows: bool) -> TokenStream {
    let mut e = new_emitter(sig, body);
    pullback_tokens(&mut e, sig, body, shadows, quote!())
}

fn pullback_tokens(
    e: &mut Emitter<'_>,
    sig: &Signature,
    body: &Body,
    shadows: bool,
    again: TokenStream,
) -> TokenStream {
    (e.counter_undo, e.counter_reads) = counters(body);
    e.handed_on = handed_on(body);
    let mut sinks = Vec::new();
    if shadows {
        for ((i, p), ty) in sig.params.iter().enumerate().zip(sink_types(sig)) {
            let v = VarId(i);
            let bound = body.cells.iter().position(|c| c.bound_to == Some(v));
            if let Some(c) = bound {
                // in-out: the shadow is the cell's adjoint, the adjoint of the final value
                // coming in and of the initial value going out
                e.shadows.insert(v);
                let d = CellId(c).adjoint();
                sinks.push(quote!(mut #d: #ty));
            } else if p.shadow.is_some() && body.is_active(v) {
                e.shadows.insert(v);
                e.initialized.insert(v);
                let d = v.adjoint();
                sinks.push(quote!(mut #d: #ty));
            } else {
                // (its type the returned closure's, from the signature: an `Ignored`, or a
                // shadow this sweep never writes)
                sinks.push(quote!(_));
            }
        }
    }
    // Parameters read by index, or from a nested region, are zero-initialised up front.
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let reverse = e.rev_block(&body.block, Some((&body.output, quote!(#dy))));
    let grads_value = e.gradients(sig);
    let reverse_tokens = quote!(#reverse #grads_value);
    // (a snapshot after which its cell is dead, in both sweeps and in the output: the cell
    // moves into it)
    e.moved = movable_snapshots(body, &CellId::mentioned_in(&reverse_tokens));
    let (cell_adjoints, lent_storage) = e.cell_adjoints(Some(&reverse_tokens));
    let declarations = e.declarations();
    let forward = e.fwd_top_block(&body.block, &mut Declared::new(e.cell_declarations()));
    let items = &body.items;
    let output = match &body.output {
        Value::Var(v) => e.kept(&Operand::Var(*v)),
        other => other.tokens(),
    };
    let inline = crate::companions::pullback_inline(sig);
    let dy_type = match &sig.output {
        syn::Type::Infer(_) => quote!(),
        ty => {
            let t = tangent_type(ty);
            quote!(: #t)
        }
    };
    let closure_body = match give_backs(
        &e.pooled,
        &e.moved,
        &lent_storage,
        (&cell_adjoints, &reverse),
        &grads_value,
    ) {
        Some(gives) => {
            let grads = format_ident!("__grads", span = Span::mixed_site());
            quote! {
                #cell_adjoints
                #reverse
                let #grads = { #grads_value };
                #gives
                #grads
            }
        }
        None => quote!(#cell_adjoints #reverse #grads_value),
    };
    quote! {
        #(#items)*
        #declarations
        #forward
        (#output, #inline move |#dy #dy_type, #(#sinks,)* #again| {
            #closure_body
        })
    }
}

/// The forward sweep's buffers taken from the runtime's pool (top-level `vec![x; n]` of a
/// float literal, see `forward::pooled_vec`) and the cells every value written to which is
/// one of them (and that never grow): buffers a pullback can give back for the next
/// derivative to take. A buffer given back that no `filled` takes again would only sit in
/// the pool, so nothing else is.
fn pooled(body: &Body, params: usize) -> (HashSet<VarId>, HashSet<CellId>) {
    let vars: HashSet<VarId> = (body.block.stmts.iter())
        .filter_map(|stmt| match stmt {
            Stmt::Let {
                dst,
                rhs: Rhs::Inactive(ts),
                ..
            } if dst.0 >= params && forward::pooled_vec(ts).is_some() => Some(*dst),
            _ => None,
        })
        .collect();
    if vars.is_empty() {
        return (vars, HashSet::new());
    }
    fn walk(block: &Block, pooled: &HashSet<VarId>, writes: &mut HashMap<CellId, bool>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::WriteCell { cell, value } => {
                    let ok = matches!(value, Operand::Var(v) if pooled.contains(v));
                    *writes.entry(*cell).or_insert(true) &= ok;
                }
                Stmt::Grow { cell, .. } => {
                    writes.insert(*cell, false);
                }
                Stmt::If { then, els, .. } => {
                    walk(then, pooled, writes);
                    walk(els, pooled, writes);
                }
                Stmt::Loop { body, .. } => walk(body, pooled, writes),
                _ => {}
            }
        }
    }
    let mut writes = HashMap::new();
    walk(&body.block, &vars, &mut writes);
    let cells = (writes.into_iter())
        .filter(|(c, ok)| *ok && body.cells[c.0].bound_to.is_none())
        .map(|(c, _)| c)
        .collect();
    (vars, cells)
}

/// Where a pullback ends, its float buffers given back to the runtime's pool
/// (`pool::Give(v).give()`): those of the forward sweep's buffers it owns that came from
/// the pool, each only read or written in place by the sweep (`&v`, `v[i]`, `v.len()`,
/// `v = …`) and not part of the gradients it returns. The next derivative of the thread
/// takes them again (`pool::filled`) instead of the system allocator. So are the adjoints of
/// those buffers, which the pullback makes from the pool (`adjoint_zero` of a small buffer of
/// floats): the system allocator zeroes each in `calloc`, which its per-thread cache does not
/// serve.
fn give_backs(
    pooled: &(HashSet<VarId>, HashSet<CellId>),
    moved: &HashMap<VarId, CellId>,
    lent_storage: &HashSet<CellId>,
    (cell_adjoints, reverse): (&TokenStream, &TokenStream),
    grads: &TokenStream,
) -> Option<TokenStream> {
    let captured = &quote!(#cell_adjoints #reverse);
    let (pooled, cells) = pooled;
    if pooled.is_empty() {
        return None;
    }
    let mut names: Vec<syn::Ident> = pooled.iter().map(|v| v.ident()).collect();
    names.extend(cells.iter().map(|c| c.ident()));
    names.extend(
        (moved.iter())
            .filter(|(_, c)| cells.contains(c))
            .map(|(v, _)| v.ident()),
    );
    names.sort_by_key(|n| n.to_string());
    let mut uses = HashMap::new();
    borrowing_uses(captured, &mut uses);
    // (a name the pullback binds again, `let __v3 = &__v2[..n];`, is its own, not a capture)
    let mut bound = HashSet::new();
    let_bound(captured, &mut bound);
    let mut returned = HashMap::new();
    borrowing_uses(grads, &mut returned);
    let mut names: Vec<syn::Ident> = names
        .into_iter()
        .filter(|n| {
            let name = n.to_string();
            uses.get(&name) == Some(&true)
                && !returned.contains_key(&name)
                && !bound.contains(&name)
        })
        .collect();
    // the adjoints that took over a pooled cell's storage (`Reuse(__c0).adjoint()`, see
    // `cell_adjoints`), bound where the pullback starts
    let mut adjoint_uses = HashMap::new();
    borrowing_uses(reverse, &mut adjoint_uses);
    // and those made where it starts (`adjoint_zero(&__c0)`, which takes a small buffer of
    // floats from the pool): a helper called in a loop gives back what its pullback took
    let mut made = HashSet::new();
    let_bound(cell_adjoints, &mut made);
    // (only a small one, which came from the pool: `pool::GiveSmall`)
    let mut cells: Vec<&CellId> = cells.iter().collect();
    cells.sort();
    let mut small = Vec::new();
    for c in cells {
        let d = c.adjoint();
        let name = d.to_string();
        if adjoint_uses.get(&name) == Some(&false) || returned.contains_key(&name) {
            continue;
        }
        if lent_storage.contains(c) {
            names.push(d);
        } else if made.contains(&name) {
            small.push(d);
        }
    }
    let rt = rt();
    let gives: Vec<TokenStream> = (names.iter())
        .map(|n| quote!(#rt::pool::Give(#n).give();))
        .chain(
            small
                .iter()
                .map(|n| quote!(#rt::pool::GiveSmall(#n).give();)),
        )
        .collect();
    if gives.is_empty() {
        return None;
    }
    Some(quote! {
        {
            #[allow(unused_imports)]
            use #rt::pool::{GiveAny as _, GiveVec as _};
            #(#gives)*
        }
    })
}

/// The names `ts` binds with `let` (in any pattern) or `for`.
fn let_bound(ts: &TokenStream, out: &mut HashSet<String>) {
    fn pattern(ts: &TokenStream, out: &mut HashSet<String>) {
        for tt in ts.clone() {
            match tt {
                TokenTree::Ident(id) => {
                    out.insert(id.to_string());
                }
                TokenTree::Group(g) => pattern(&g.stream(), out),
                _ => {}
            }
        }
    }
    let mut binding = false;
    for tt in ts.clone() {
        match &tt {
            TokenTree::Ident(id) if id == "let" || id == "for" => binding = true,
            TokenTree::Punct(p) if binding && (p.as_char() == '=' || p.as_char() == ':') => {
                binding = false
            }
            TokenTree::Ident(id) if binding && id == "in" => binding = false,
            TokenTree::Ident(_) if binding => pattern(&quote!(#tt), out),
            TokenTree::Group(g) if binding => pattern(&g.stream(), out),
            TokenTree::Group(g) => let_bound(&g.stream(), out),
            _ => {}
        }
    }
}

/// Each IR name (`__v…`, `__c…`, `__dc…`) `ts` mentions, and whether every mention only
/// borrows it or writes it in place: `&x`, `&mut x`, `x[…]`, `x.len()`, `x = …`, `x += …`.
fn borrowing_uses(ts: &TokenStream, out: &mut HashMap<String, bool>) {
    let tts: Vec<TokenTree> = ts.clone().into_iter().collect();
    for (k, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => borrowing_uses(&g.stream(), out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if !(name.starts_with("__v") || name.starts_with("__c") || name.starts_with("__dc"))
                {
                    continue;
                }
                let punct = |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
                let before = k.checked_sub(1).and_then(|j| tts.get(j));
                let before2 = k.checked_sub(2).and_then(|j| tts.get(j));
                let after = tts.get(k + 1);
                let after2 = tts.get(k + 2);
                let lent = punct(before, '&') && !punct(before2, '&')
                    || matches!(before, Some(TokenTree::Ident(m)) if m == "mut")
                        && punct(before2, '&');
                let indexed = matches!(after, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket);
                let len =
                    punct(after, '.') && matches!(after2, Some(TokenTree::Ident(m)) if m == "len");
                let assigned = match after {
                    Some(TokenTree::Punct(p)) if p.as_char() == '=' => !punct(after2, '='),
                    Some(TokenTree::Punct(p)) if "+-*/".contains(p.as_char()) => {
                        p.spacing() == proc_macro2::Spacing::Joint && punct(after2, '=')
                    }
                    _ => false,
                };
                let ok = (lent || indexed || len || assigned) && !punct(before, '.');
                let entry = out.entry(name).or_insert(true);
                *entry &= ok;
            }
            _ => {}
        }
    }
}

/// What a `__vjp_reborrow` pullback is handed again at each parameter's position (see the
/// runtime's `again`): a shared reference whose lifetime the signature elides is re-borrowed
/// (`Ref`), and the pullback keeps no borrow of it; an exclusive reference is never handed
/// again (`Skip`); anything else comes again by value (`Val`), for a derivative that runs
/// its forward sweep again.
pub(crate) enum Again {
    Ref(syn::Type),
    Val(syn::Type),
    /// A value of a type with a lifetime the signature elides (a view, `ArrayView1<'_,
    /// f64>`): handed again by value, with its lifetime the pullback's own, so the pullback
    /// keeps no borrow of what it views (it runs the forward sweep again).
    View(syn::Type),
    Skip,
}

/// Each parameter's [`Again`], and the lifetimes the `__vjp_reborrow` pullback does not
/// capture (those of the re-borrowed references). A pullback that never runs the forward
/// sweep again (`reads_only`) takes nothing but the references.
pub(crate) fn rehanding(sig: &Signature, reads_only: bool) -> (Vec<Again>, Vec<syn::Lifetime>) {
    let output = sig.output.to_token_stream().to_string();
    let mut dropped = Vec::new();
    let again = sig
        .params
        .iter()
        .map(|p| match &p.ty_named {
            syn::Type::Reference(r) if r.mutability.is_some() => Again::Skip,
            syn::Type::Reference(r) => match &r.lifetime {
                Some(l)
                    if l.ident.to_string().starts_with("__autodiff_l")
                        && !output.contains(&l.ident.to_string()) =>
                {
                    dropped.push(l.clone());
                    Again::Ref((*r.elem).clone())
                }
                _ if reads_only => Again::Skip,
                _ => Again::Val(p.ty_named.clone()),
            },
            _ if reads_only => Again::Skip,
            ty => match elided_lifetime(ty, &output) {
                Some(l) => {
                    dropped.push(l);
                    // (its one lifetime: every lifetime `'_`)
                    Again::View(crate::forward::anonymous_lifetimes(ty))
                }
                None => Again::Val(ty.clone()),
            },
        })
        .collect();
    (again, dropped)
}

/// The one lifetime a by-value type's arguments name that the signature elided (one the
/// output does not name): `'__autodiff_l0` of `ArrayView1<'__autodiff_l0, f64>`.
fn elided_lifetime(ty: &syn::Type, output: &str) -> Option<syn::Lifetime> {
    struct Collect(Vec<syn::Lifetime>);
    impl syn::visit::Visit<'_> for Collect {
        fn visit_lifetime(&mut self, l: &syn::Lifetime) {
            if !self.0.contains(l) {
                self.0.push(l.clone());
            }
        }
    }
    let mut found = Collect(Vec::new());
    syn::visit::Visit::visit_type(&mut found, ty);
    match &found.0[..] {
        [l] if l.ident.to_string().starts_with("__autodiff_l")
            && !output.contains(&l.ident.to_string()) =>
        {
            Some(l.clone())
        }
        _ => None,
    }
}

/// The types of the positions `__vjp_reborrow`'s pullback takes after the sinks.
pub(crate) fn again_types(again: &[Again]) -> Vec<TokenStream> {
    let rt = rt();
    again
        .iter()
        .map(|a| match a {
            Again::Ref(t) => quote!(#rt::again::Ref<'_, #t>),
            Again::Val(t) | Again::View(t) => quote!(#rt::again::Val<#t>),
            Again::Skip => quote!(#rt::again::Skip),
        })
        .collect()
}

/// Whether an inactive expression may hold a borrow of what it mentions (a reference, a
/// range of a slice, an iterator or a view): conservatively, by its tokens.
fn may_borrow(ts: &TokenStream) -> bool {
    const BORROWING: &[&str] = &[
        "iter",
        "iter_mut",
        "as_slice",
        "as_ref",
        "as_deref",
        "chunks",
        "chunks_exact",
        "windows",
        "split_at",
        "split_first",
        "split_last",
        "first",
        "last",
        "get",
        "borrow",
        "deref",
        "view",
        "row",
        "column",
        "diag",
        "slice",
        "axis_iter",
        "outer_iter",
        "lanes",
        "rows",
        "columns",
        "as_str",
        "lines",
        "split",
        "into_iter",
        "zip",
        "map",
        "by_ref",
    ];
    let tts: Vec<TokenTree> = ts.clone().into_iter().collect();
    tts.iter().enumerate().any(|(k, tt)| match tt {
        TokenTree::Punct(p) if p.as_char() == '&' => !matches!(
            (tts.get(k + 1), k.checked_sub(1).and_then(|j| tts.get(j))),
            (Some(TokenTree::Punct(q)), _) | (_, Some(TokenTree::Punct(q))) if q.as_char() == '&'
        ),
        TokenTree::Punct(p) if p.as_char() == '.' => matches!(
            tts.get(k + 1),
            Some(TokenTree::Punct(q)) if q.as_char() == '.'
        ),
        TokenTree::Ident(id) => BORROWING.contains(&id.to_string().as_str()),
        TokenTree::Group(g) => may_borrow(&g.stream()),
        _ => false,
    })
}

/// The variables that may borrow what a re-borrowed parameter points to (the parameters
/// themselves included): a reverse sweep that keeps none of them keeps no such borrow.
/// `None` when the body keeps code as written that reads one of them (it may bind a name
/// holding a borrow), or reads a captured variable.
fn borrowing_vars(
    body: &Body,
    defs: &HashMap<VarId, &Rhs>,
    rehanded: &[VarId],
) -> Option<HashSet<VarId>> {
    let mut b: HashSet<VarId> = rehanded.iter().copied().collect();
    loop {
        let before = b.len();
        for (v, rhs) in defs {
            if b.contains(v) {
                continue;
            }
            let from_b = |o: &Operand| o.var().is_some_and(|u| b.contains(&u));
            let borrowing = match rhs {
                Rhs::SubSlice { .. } | Rhs::Member { .. } => true,
                Rhs::Prim(Prim::Tensor { rule, .. }, _) if rule.is_view() => true,
                Rhs::ReadIndex { .. } => body.vars[v.0].maybe_array,
                Rhs::Copy(o) => from_b(o),
                // (`r.clone()` of a reference is the reference; `to_vec` owns its copy)
                Rhs::Owned { of, method } if method == "clone" => from_b(of),
                Rhs::Inactive(ts) => {
                    VarId::mentioned_in(ts).iter().any(|u| b.contains(u)) && may_borrow(ts)
                }
                Rhs::Source(_) => return None,
                _ => false,
            };
            if borrowing {
                b.insert(*v);
            }
        }
        if b.len() == before {
            break;
        }
    }
    fn effects(block: &Block, b: &HashSet<VarId>) -> bool {
        block.stmts.iter().any(|s| match s {
            Stmt::Effect(ts) => VarId::mentioned_in(ts).iter().any(|u| b.contains(u)),
            Stmt::WriteCell { value, .. } => value.var().is_some_and(|u| b.contains(&u)),
            Stmt::If { then, els, .. } => effects(then, b) || effects(els, b),
            Stmt::Loop { body, head, .. } => {
                effects(body, b)
                    || matches!(head, LoopHead::For { iter, .. }
                        if VarId::mentioned_in(iter).iter().any(|u| b.contains(u)) && may_borrow(iter))
            }
            _ => false,
        })
    }
    let cells = body.cells.iter().any(|c| {
        c.init
            .as_ref()
            .is_some_and(|i| VarId::mentioned_in(i).iter().any(|u| b.contains(u)) && may_borrow(i))
    });
    (!effects(&body.block, &b) && !cells).then_some(b)
}

/// The body of `__vjp_reborrow`: as `__vjp_into`'s, but the pullback keeps no borrow of the
/// parameters [`rehanding`] re-borrows: it is handed them again, after the sinks. A call in
/// the body that may borrow them goes through its callee's `__vjp_reborrow` too. `None`
/// when that cannot be shown from the body (the companion then runs the forward sweep
/// again at reverse time); with it, whether it differs from `__vjp_into`'s (a call hands
/// a callee parameters again or lends it a buffer).
pub fn reborrow_body(sig: &Signature, body: &Body) -> Option<(TokenStream, bool)> {
    let (again, _) = rehanding(sig, true);
    // (a view handed again: the forward sweep runs again at reverse time)
    if again.iter().any(|a| matches!(a, Again::View(_))) {
        return None;
    }
    let rehanded: Vec<VarId> = (again.iter().enumerate())
        .filter(|(_, a)| matches!(a, Again::Ref(_)))
        .map(|(i, _)| VarId(i))
        .collect();
    if rehanded.is_empty() {
        // (nothing to hand again: `__vjp_into`'s pullback already borrows nothing)
        return None;
    }
    let defs = crate::ir::definitions(&body.block);
    let borrowing = borrowing_vars(body, &defs, &rehanded)?;
    let rt = rt();
    let patterns: Vec<TokenStream> = (again.iter().enumerate())
        .map(|(i, a)| match a {
            Again::Ref(_) => {
                let v = VarId(i).ident();
                quote!(#rt::again::Ref(#v))
            }
            _ => quote!(_),
        })
        .collect();
    let types = again_types(&again);
    let mut e = new_emitter(sig, body);
    e.rehand = Some(borrowing);
    let out = pullback_tokens(&mut e, sig, body, true, quote!(#(#patterns: #types),*));
    let borrowing = e.rehand.take().unwrap_or_default();
    let kept = e.used.iter().any(|v| {
        borrowing.contains(v)
            && !rehanded.contains(v)
            && !e.recomputed.contains(v)
            && !e.reverse_bound.contains(v)
    });
    (!kept && !e.rehand_method).then_some((out, e.rehand_differs))
}

/// An integer counter's increment (`l += 1;`, `l -= 2;`): the cell and the statement
/// undoing it.
pub(crate) fn counter_step(ts: &TokenStream) -> Option<(CellId, TokenStream)> {
    let stmt: syn::Stmt = syn::parse2(ts.clone()).ok()?;
    let syn::Stmt::Expr(syn::Expr::Binary(b), Some(_)) = stmt else {
        return None;
    };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(k),
        ..
    }) = &*b.right
    else {
        return None;
    };
    let syn::Expr::Path(p) = &*b.left else {
        return None;
    };
    let id = p.path.get_ident()?;
    let cell = match CellId::mentioned_in(&quote!(#id))[..] {
        [c] if id.to_string().starts_with("__c") => c,
        _ => return None,
    };
    let undo = match b.op {
        syn::BinOp::AddAssign(_) => quote!(#id -= #k;),
        syn::BinOp::SubAssign(_) => quote!(#id += #k;),
        _ => return None,
    };
    Some((cell, undo))
}

/// Integer counters (`let mut l = 0; … l += 1;` inside loops) whose reads the reverse sweep
/// computes instead of saving: the pullback owns the counter's final value and undoes each
/// increment where the reverse sweep passes it, so that at any statement the counter holds
/// what it held there in the forward sweep. A counter is an inactive cell assigned once, at
/// the top level of the body, and otherwise only incremented by integer literals; a read
/// is computed from the counter when every increment after it in its region (up to the
/// region's end, whose value the counter holds when the region's reverse starts) is a
/// statement of the region itself. Returns the undo statements by effect, and per read
/// its expression.
pub(crate) fn counters(body: &Body) -> (HashMap<String, TokenStream>, HashMap<VarId, TokenStream>) {
    // every mention of every cell, classified
    #[derive(Default)]
    struct Uses {
        assigned_at_top: usize,
        other_write: bool,
        steps: Vec<TokenStream>,
    }
    fn walk(block: &Block, top: bool, uses: &mut HashMap<CellId, Uses>) {
        let other = |ts: &TokenStream, uses: &mut HashMap<CellId, Uses>| {
            for c in CellId::mentioned_in(ts) {
                uses.entry(c).or_default().other_write = true;
            }
        };
        for stmt in &block.stmts {
            match stmt {
                Stmt::Effect(ts) => match counter_step(ts) {
                    Some((c, _)) => uses.entry(c).or_default().steps.push(ts.clone()),
                    None => other(ts, uses),
                },
                Stmt::WriteCell { cell, value } => {
                    let u = uses.entry(*cell).or_default();
                    if top && matches!(value, Operand::Inline(_)) {
                        u.assigned_at_top += 1;
                    } else {
                        u.other_write = true;
                    }
                    other(&value.tokens(), uses);
                }
                Stmt::WriteIndex { cell, index, value } => {
                    uses.entry(*cell).or_default().other_write = true;
                    other(&index.tokens(), uses);
                    other(&value.tokens(), uses);
                }
                Stmt::Extent { extent, .. } => other(&extent.tokens(), uses),
                Stmt::Grow { cell, len, value } => {
                    uses.entry(*cell).or_default().other_write = true;
                    other(&len.tokens(), uses);
                    other(&value.tokens(), uses);
                }
                Stmt::Let { rhs, .. } => {
                    let ops: Vec<&Operand> = match rhs {
                        Rhs::Copy(o) | Rhs::Owned { of: o, .. } => vec![o],
                        Rhs::Prim(_, a) | Rhs::Call { args: a, .. } => a.iter().collect(),
                        Rhs::ReadIndex { index, .. } => vec![index],
                        Rhs::SubSlice { range, .. } => range.operands().collect(),
                        Rhs::Inactive(ts) => {
                            other(ts, uses);
                            vec![]
                        }
                        _ => vec![],
                    };
                    for o in ops {
                        match o {
                            Operand::MutRef { cell, .. } => {
                                uses.entry(*cell).or_default().other_write = true;
                                for b in o.range_operands() {
                                    other(&b.tokens(), uses);
                                }
                            }
                            o => other(&o.tokens(), uses),
                        }
                    }
                    if let Rhs::ReadIndex {
                        place: Place::Cell(c),
                        ..
                    }
                    | Rhs::SubSlice {
                        place: Place::Cell(c),
                        ..
                    } = rhs
                    {
                        uses.entry(*c).or_default().other_write = true;
                    }
                }
                Stmt::If { cond, then, els } => {
                    other(&cond.tokens(), uses);
                    walk(then, false, uses);
                    walk(els, false, uses);
                }
                Stmt::Loop { head, body, .. } => {
                    if let LoopHead::For { iter, start, .. } = head {
                        other(iter, uses);
                        if let Some(s) = start {
                            other(&s.tokens(), uses);
                        }
                    }
                    walk(body, false, uses);
                }
            }
        }
    }
    let mut uses = HashMap::new();
    walk(&body.block, true, &mut uses);
    let counters: HashSet<CellId> = uses
        .iter()
        .filter(|(c, u)| {
            // (a name of a nested body's cell, in a closure's code, is none of these)
            let Some(info) = body.cells.get(c.0) else {
                return false;
            };
            !info.active
                && !info.maybe_array
                && info.bound_to.is_none()
                && u.assigned_at_top == 1
                && !u.other_write
                && !u.steps.is_empty()
        })
        .map(|(c, _)| *c)
        .collect();
    let mut undo = HashMap::new();
    for c in &counters {
        for ts in &uses[c].steps {
            if let Some((_, u)) = counter_step(ts) {
                undo.insert(ts.to_string(), u);
            }
        }
    }
    // Reads: the increments after each in its region.
    fn writes_nested(block: &Block, c: CellId, undo: &HashMap<String, TokenStream>) -> bool {
        block.stmts.iter().any(|s| match s {
            Stmt::Effect(ts) => {
                undo.contains_key(&ts.to_string()) && CellId::mentioned_in(ts).contains(&c)
            }
            Stmt::If { then, els, .. } => {
                writes_nested(then, c, undo) || writes_nested(els, c, undo)
            }
            Stmt::Loop { body, .. } => writes_nested(body, c, undo),
            _ => false,
        })
    }
    fn reads(
        block: &Block,
        counters: &HashSet<CellId>,
        undo: &HashMap<String, TokenStream>,
        out: &mut HashMap<VarId, TokenStream>,
    ) {
        for (k, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Let {
                    dst,
                    rhs: Rhs::ReadCell(c),
                    ..
                } if counters.contains(c) && block.region != RegionId::BODY => {
                    let id = c.ident();
                    let mut expr = quote!(#id);
                    let mut ok = true;
                    for later in &block.stmts[k + 1..] {
                        match later {
                            Stmt::Effect(ts) if CellId::mentioned_in(ts).contains(c) => {
                                match counter_step(ts) {
                                    Some((_, u)) => {
                                        // `l -= 1;` → `l - 1`
                                        let u: Vec<TokenTree> = u.into_iter().collect();
                                        let op = match &u[1] {
                                            TokenTree::Punct(p) => p.as_char(),
                                            _ => '-',
                                        };
                                        let op = proc_macro2::Punct::new(
                                            op,
                                            proc_macro2::Spacing::Alone,
                                        );
                                        let lit = &u[3];
                                        expr = quote!((#expr #op #lit));
                                    }
                                    None => ok = false,
                                }
                            }
                            Stmt::If { then, els, .. } => {
                                ok &=
                                    !writes_nested(then, *c, undo) && !writes_nested(els, *c, undo)
                            }
                            Stmt::Loop { body, .. } => ok &= !writes_nested(body, *c, undo),
                            _ => {}
                        }
                    }
                    if ok {
                        out.insert(*dst, expr);
                    }
                }
                Stmt::If { then, els, .. } => {
                    reads(then, counters, undo, out);
                    reads(els, counters, undo, out);
                }
                Stmt::Loop { body, .. } => reads(body, counters, undo, out),
                _ => {}
            }
        }
    }
    let mut out = HashMap::new();
    reads(&body.block, &counters, &undo, &mut out);
    (undo, out)
}

/// The snapshots of cells that may take the cell itself (see [`Emitter::moved`]): the
/// last mention of their cell in the forward sweep ([`hoist::last_snapshots`]), of a cell
/// that is no `&mut` parameter, that nothing keeps a borrow of, that the reverse sweep does
/// not `read` and the output does not name, and only lent or indexed afterwards (a
/// snapshot taken by value elsewhere could not shape the cell's adjoint).
pub(crate) fn movable_snapshots(body: &Body, read: &[CellId]) -> HashMap<VarId, CellId> {
    let output = match &body.output {
        Value::Var(v) => v.ident().to_token_stream(),
        other => other.tokens(),
    };
    let (output_cells, output_vars) = (CellId::mentioned_in(&output), VarId::mentioned_in(&output));
    let borrowed = hoist::borrowed_cells(body);
    let taken = hoist::taken_by_value(&body.block);
    hoist::last_snapshots(&body.block)
        .into_iter()
        .filter(|(v, c)| {
            body.cells[c.0].bound_to.is_none()
                && !taken.contains(v)
                && !read.contains(c)
                && !output_vars.contains(v)
                && !output_cells.contains(c)
                && !borrowed.contains(c)
        })
        .collect()
}

/// Snapshots of an active cell (`let __vN = __cK.clone()`) handed by reference to the call
/// that comes right after them (`f(&buf)`), and used nowhere else: the snapshot's adjoint
/// would only be added into the cell's when the reverse sweep reaches the snapshot, with
/// nothing in between, so the callee adds into the cell's adjoint directly (no zeroed
/// adjoint of the snapshot, no second pass).
pub(crate) fn handed_on(body: &Body) -> HashMap<VarId, CellId> {
    fn uses(block: &Block, n: &mut HashMap<VarId, usize>) {
        let op = |o: &Operand, n: &mut HashMap<VarId, usize>| {
            if let Some(v) = o.var() {
                *n.entry(v).or_default() += 1;
            }
            for b in o.range_operands() {
                for v in VarId::mentioned_in(&b.tokens()) {
                    *n.entry(v).or_default() += 2;
                }
            }
            if let Operand::Inline(e) = o {
                for v in VarId::mentioned_in(&quote!(#e)) {
                    *n.entry(v).or_default() += 2;
                }
            }
        };
        let ts = |t: &TokenStream, n: &mut HashMap<VarId, usize>| {
            for v in VarId::mentioned_in(t) {
                *n.entry(v).or_default() += 2;
            }
        };
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { rhs, .. } => match rhs {
                    Rhs::Copy(o) | Rhs::Owned { of: o, .. } => op(o, n),
                    Rhs::Prim(_, a) | Rhs::Call { args: a, .. } => a.iter().for_each(|o| op(o, n)),
                    Rhs::ReadIndex { place, index } => {
                        op(index, n);
                        if let Place::Var(v) = place {
                            *n.entry(*v).or_default() += 2;
                        }
                    }
                    Rhs::SubSlice { place, range } => {
                        range.operands().for_each(|o| op(o, n));
                        if let Place::Var(v) = place {
                            *n.entry(*v).or_default() += 2;
                        }
                    }
                    Rhs::Field { base, .. } | Rhs::Member { base, .. } => {
                        *n.entry(*base).or_default() += 2;
                    }
                    Rhs::Inactive(t) => ts(t, n),
                    Rhs::Source(v) => *n.entry(*v).or_default() += 2,
                    Rhs::ReadCell(_) => {}
                },
                Stmt::WriteCell { value, .. } => op(value, n),
                Stmt::WriteIndex { index, value, .. } => {
                    op(index, n);
                    op(value, n);
                }
                Stmt::Effect(t) => ts(t, n),
                Stmt::Grow { len, value, .. } => {
                    op(len, n);
                    op(value, n);
                }
                Stmt::Extent { extent, .. } => op(extent, n),
                Stmt::If { cond, then, els } => {
                    op(cond, n);
                    uses(then, n);
                    uses(els, n);
                }
                Stmt::Loop { head, body, .. } => {
                    if let LoopHead::For { iter, start, .. } = head {
                        ts(iter, n);
                        if let Some(s) = start {
                            op(s, n);
                        }
                    }
                    uses(body, n);
                }
            }
        }
    }
    fn find(
        body: &Body,
        block: &Block,
        n: &HashMap<VarId, usize>,
        out: &mut HashMap<VarId, CellId>,
    ) {
        for (k, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Let {
                    dst,
                    rhs: Rhs::ReadCell(c),
                    ..
                } if body.is_active(*dst)
                    && body
                        .cells
                        .get(c.0)
                        .is_some_and(|i| i.active && i.bound_to.is_none())
                    && n.get(dst) == Some(&1) =>
                {
                    let next = block.stmts.get(k + 1);
                    if let Some(Stmt::Let {
                        rhs: Rhs::Call { args, .. },
                        ..
                    }) = next
                    {
                        let handed = args
                            .iter()
                            .any(|a| matches!(a, Operand::Ref(v) if v == dst));
                        let lent = args.iter().any(|a| a.lent_cell() == Some(*c));
                        if handed && !lent {
                            out.insert(*dst, *c);
                        }
                    }
                }
                Stmt::If { then, els, .. } => {
                    find(body, then, n, out);
                    find(body, els, n, out);
                }
                Stmt::Loop { body: b, .. } => find(body, b, n, out),
                _ => {}
            }
        }
    }
    let mut n = HashMap::new();
    uses(&body.block, &mut n);
    for v in VarId::mentioned_in(&body.output.tokens()) {
        *n.entry(v).or_default() += 2;
    }
    let mut out = HashMap::new();
    find(body, &body.block, &n, &mut out);
    out
}

/// Statements of a function's top level with the cells' declarations placed just before
/// the first statement that names each (the rest after the last statement), rather than
/// all at the top, and merged with that statement where it is the cell's first write
/// (`let mut __c0 = 0.0;`): a cell whose type is not written is otherwise declared with
/// `Default::default()`, and while its first write is far below, the compiler carries that
/// unresolved `Default` obligation past every statement in between — quadratic type
/// checking in a function with many cells (a 2 000-line function took 12 s). The values
/// are the same: no statement names a cell before its declaration.
pub(crate) struct Declared {
    /// Declarations not yet placed, by the cell's name.
    pending: HashMap<String, Declaration>,
    /// The declarations' order, for those no statement names.
    order: Vec<String>,
    out: TokenStream,
}

/// A cell's declaration, and, where it starts from `Default::default()`, what precedes the
/// value (`let mut __c0: T =`), to take the cell's first write as its value instead.
pub(crate) struct Declaration {
    pub(crate) tokens: TokenStream,
    pub(crate) head: Option<TokenStream>,
}

impl Declaration {
    /// `let mut cell: ty = init;`, or from `Default::default()` without `init`.
    pub(crate) fn cell(
        cell: &syn::Ident,
        ty: Option<&syn::Type>,
        init: Option<&TokenStream>,
    ) -> Declaration {
        let ty = ty.map(|t| quote!(: #t));
        match init {
            Some(init) => Declaration {
                tokens: quote!(let mut #cell #ty = #init;),
                head: None,
            },
            None => Declaration {
                tokens: quote!(let mut #cell #ty = ::core::default::Default::default();),
                head: Some(quote!(let mut #cell #ty =)),
            },
        }
    }
}

impl Declared {
    pub(crate) fn new(declarations: Vec<(String, Declaration)>) -> Declared {
        let mut d = Declared {
            pending: HashMap::new(),
            order: Vec::new(),
            out: TokenStream::new(),
        };
        d.extend(declarations);
        d
    }

    /// Adds more declarations (a tangent sweep's cells beside the primal's).
    pub(crate) fn extend(&mut self, declarations: Vec<(String, Declaration)>) {
        for (name, decl) in declarations {
            self.order.push(name.clone());
            self.pending.insert(name, decl);
        }
    }

    /// Appends top-level statements, each after the declarations of the cells it names.
    pub(crate) fn push(&mut self, stmts: TokenStream) {
        if self.pending.is_empty() {
            self.out.extend(stmts);
            return;
        }
        // one at a time, as far as a `;` at the top level tells them apart (a block
        // statement stays with the one after it, whose cells are then declared before both)
        let mut one = Vec::new();
        for tt in stmts {
            let end = matches!(&tt, TokenTree::Punct(p) if p.as_char() == ';');
            one.push(tt);
            if end {
                self.push_one(std::mem::take(&mut one));
            }
        }
        if !one.is_empty() {
            self.push_one(one);
        }
    }

    fn push_one(&mut self, tokens: Vec<TokenTree>) {
        /// The pending cells `tokens` name, in order, once each.
        fn names(
            tokens: impl IntoIterator<Item = TokenTree>,
            pending: &HashMap<String, Declaration>,
            out: &mut Vec<String>,
        ) {
            for tt in tokens {
                match tt {
                    TokenTree::Ident(i) => {
                        let name = i.to_string();
                        if name.starts_with("__")
                            && pending.contains_key(&name)
                            && !out.contains(&name)
                        {
                            out.push(name);
                        }
                    }
                    TokenTree::Group(g) => names(g.stream(), pending, out),
                    _ => {}
                }
            }
        }
        // `cell = value;`, the value not naming the cell: the cell's first write
        let mut named = Vec::new();
        let first_write = match tokens.as_slice() {
            [TokenTree::Ident(cell), TokenTree::Punct(eq), rest @ .., TokenTree::Punct(semi)]
                if eq.as_char() == '='
                    && eq.spacing() == proc_macro2::Spacing::Alone
                    && semi.as_char() == ';'
                    && !rest.is_empty() =>
            {
                names(rest.iter().cloned(), &self.pending, &mut named);
                let name = cell.to_string();
                (!named.contains(&name)
                    && self.pending.get(&name).is_some_and(|d| d.head.is_some()))
                .then(|| (name, rest.iter().cloned().collect::<TokenStream>()))
            }
            _ => None,
        };
        if first_write.is_none() {
            named.clear();
            names(tokens.iter().cloned(), &self.pending, &mut named);
        }
        for name in &named {
            if let Some(decl) = self.pending.remove(name) {
                self.out.extend(decl.tokens);
            }
        }
        match first_write {
            Some((cell, value)) => {
                let head = self.pending.remove(&cell).and_then(|d| d.head);
                self.out.extend(quote!(#head #value;));
            }
            None => self.out.extend(tokens),
        }
    }

    /// The statements, then the declarations no statement named.
    pub(crate) fn finish(&mut self) -> TokenStream {
        let mut out = std::mem::take(&mut self.out);
        for name in std::mem::take(&mut self.order) {
            if let Some(decl) = self.pending.remove(&name) {
                out.extend(decl.tokens);
            }
        }
        out
    }
}

/// The cells some `Stmt::Grow` grows (`v.push(x)`).
fn grown_cells(block: &Block) -> HashSet<CellId> {
    fn walk(block: &Block, out: &mut HashSet<CellId>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Grow { cell, .. } => {
                    out.insert(*cell);
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
    let mut out = HashSet::new();
    walk(block, &mut out);
    out
}

/// A `for` loop's iterator as its head takes it: parenthesised when it has braces at its
/// top level (`Line { w, b }.0`), which would otherwise be read as the loop's body.
pub(crate) fn for_head(iter: &TokenStream) -> TokenStream {
    let braces = iter.clone().into_iter().any(|t| {
        matches!(&t, proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace)
    });
    if braces {
        quote!((#iter))
    } else {
        iter.clone()
    }
}

#[cfg(test)]
mod declared_tests {
    use super::{Declaration, Declared};
    use quote::{format_ident, quote};

    fn declared() -> Declared {
        let cells = ["__c0", "__c1", "__c2", "__c3"].map(|c| {
            let id = format_ident!("{}", c);
            (c.to_string(), Declaration::cell(&id, None, None))
        });
        Declared::new(cells.into())
    }

    #[test]
    fn a_first_write_becomes_the_declaration_and_others_go_before_their_first_use() {
        let mut d = declared();
        d.push(quote!(let __v0 = 1.0; __c1 = (0.0); __c0 = __c1 + __v0;));
        d.push(quote!(for i in 0..3 {
            __c2 = __c2 + 1.0;
        }));
        let out = d.finish().to_string();
        let expected = quote! {
            let __v0 = 1.0;
            let mut __c1 = (0.0);
            let mut __c0 = __c1 + __v0;
            let mut __c2 = ::core::default::Default::default();
            for i in 0..3 { __c2 = __c2 + 1.0; }
            let mut __c3 = ::core::default::Default::default();
        };
        assert_eq!(out, expected.to_string());
    }

    #[test]
    fn a_write_that_reads_the_cell_or_is_not_the_first_naming_keeps_the_default() {
        let mut d = declared();
        d.push(quote!(__c0 = __c0 + 1.0; __c1[0] = 2.0;));
        let out = d.finish().to_string();
        let expected = quote! {
            let mut __c0 = ::core::default::Default::default();
            __c0 = __c0 + 1.0;
            let mut __c1 = ::core::default::Default::default();
            __c1[0] = 2.0;
            let mut __c2 = ::core::default::Default::default();
            let mut __c3 = ::core::default::Default::default();
        };
        assert_eq!(out, expected.to_string());
    }
}
