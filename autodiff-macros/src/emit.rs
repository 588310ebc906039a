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
use crate::signature::{companion, tangent_type, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeSet, HashMap, HashSet};

fn rt() -> TokenStream {
    quote!(::autodiff::__private)
}

/// The path of a companion item of the function `func` names. A path whose owner is a
/// type (`Type::method`, `Self::method`: an uppercase or `Self` segment, or a qualified
/// self) names a method: `Type::__autodiff_method_<what>`. Any other path (`f`, `module::f`)
/// names a free function: `module::f::__<what>`, the turbofish moved along.
pub fn companion_path(func: &syn::ExprPath, what: &str) -> syn::ExprPath {
    let mut path = func.clone();
    let segments = &path.path.segments;
    let is_method = path.qself.is_some()
        || (segments.len() >= 2 && {
            let owner = segments[segments.len() - 2].ident.to_string();
            owner == "Self" || owner.starts_with(|c: char| c.is_ascii_uppercase())
        });
    if is_method {
        if let Some(last) = path.path.segments.last_mut() {
            last.ident = companion(&last.ident, what, true);
        }
        return path;
    }
    let Some(last) = path.path.segments.last_mut() else {
        return path;
    };
    let arguments = std::mem::replace(&mut last.arguments, syn::PathArguments::None);
    let ident = companion(&last.ident, what, false);
    path.path
        .segments
        .push(syn::PathSegment { ident, arguments });
    path
}

/// Variables whose adjoint receives contributions from a region other than their own, or
/// by index: they are zero-initialised at the start of their region's reverse sweep.
fn preinitialized(body: &Body) -> HashSet<VarId> {
    fn walk(body: &Body, block: &Block, out: &mut HashSet<VarId>) {
        let use_var = |v: VarId, out: &mut HashSet<VarId>| {
            if body.is_active(v) && body.region_of(v) != block.region {
                out.insert(v);
            }
        };
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { rhs, .. } => match rhs {
                    Rhs::Copy(o) => o.var().into_iter().for_each(|v| use_var(v, out)),
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
                    Rhs::Field { base, .. } | Rhs::Member { base, .. } => {
                        if body.is_active(*base) {
                            out.insert(*base);
                        }
                    }
                    Rhs::ReadIndex { .. }
                    | Rhs::ReadCell(_)
                    | Rhs::Inactive(_)
                    | Rhs::Source(_) => {}
                },
                Stmt::WriteCell { value, .. } | Stmt::WriteIndex { value, .. } => {
                    value.var().into_iter().for_each(|v| use_var(v, out))
                }
                Stmt::Effect(_) => {}
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

struct Emitter<'a> {
    body: &'a Body,
    preinit: HashSet<VarId>,
    /// Variables the reverse sweep reads.
    used: BTreeSet<VarId>,
    /// Calls whose pullback the reverse sweep runs.
    used_pullbacks: BTreeSet<VarId>,
    initialized: HashSet<VarId>,
    /// Variables the reverse sweep recomputes from others instead of restoring.
    recomputed: HashSet<VarId>,
    /// Loop items the reverse sweep's own loop header binds.
    reverse_bound: HashSet<VarId>,
    defs: HashMap<VarId, &'a Rhs>,
    fresh: usize,
    /// Slices whose adjoint elements a fused loop carries in registers (see `fuse`).
    carried: HashMap<VarId, Carried>,
    /// Parameters whose fields the body reads (struct parameters): their gradient starts
    /// as a lazy zero, each field taking its first contribution by move, and is completed
    /// (fields nothing reached become zeros) when returned.
    lazy: HashSet<VarId>,
    /// While the reverse of a fused loop's iteration is generated: its accumulators, whose
    /// adjoint the iteration reads without taking (it is the same in every iteration).
    invariant: HashSet<CellId>,
    /// Scalar adjoints kept with their sign pending: the variable holds the negation of
    /// the adjoint. A subtraction's right operand (`a - b*c`) then costs no negation: the
    /// rules downstream are linear in the cotangent (and rounding is symmetric in sign),
    /// so the sign travels to where the contribution is added, which subtracts instead.
    negated: HashSet<VarId>,
}

/// The registers of a carried slice adjoint in a fused loop: `here` collects element `i`
/// (starting from what the previous iteration left for it), `carry` element `i + 1`, `at`
/// remembers that index, `hot` whether element `i` received anything.
struct Carried {
    offsets: HashMap<VarId, u8>,
    region: RegionId,
    here: syn::Ident,
    carry: syn::Ident,
    at: syn::Ident,
    hot: syn::Ident,
    /// Whether the first contribution to `carry` in an iteration assigns it (it is
    /// unconditional); otherwise the iteration starts it from zero.
    carry_assigned: Option<bool>,
    /// The same for `here`, when nothing is carried into it (no `i + 1` reads).
    here_assigned: Option<bool>,
}

impl Carried {
    fn carries(&self) -> bool {
        self.offsets.values().any(|o| *o == 1)
    }
}

/// Whether an inactive expression is pure and cheap enough to evaluate again in the
/// reverse sweep: integer arithmetic on variables and literals, `len()`, no calls, no macros.
fn pure_cheap(tokens: &TokenStream) -> bool {
    let tts: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
    tts.iter().enumerate().all(|(k, tt)| match tt {
        proc_macro2::TokenTree::Literal(_) => true,
        proc_macro2::TokenTree::Ident(id) => {
            let name = id.to_string();
            let next = tts.get(k + 1);
            let prev = k.checked_sub(1).and_then(|p| tts.get(p));
            let call = matches!(next, Some(proc_macro2::TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
            let after_dot = matches!(prev, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '.');
            let after_as = matches!(prev, Some(proc_macro2::TokenTree::Ident(p)) if p == "as");
            // Only the IR's own variables: a user name (a captured variable, a constant)
            // would be captured again by the reverse sweep's closure. A cell (`__cN`)
            // changes over time: its value now is not its value then.
            let variable = name.strip_prefix("__v").is_some_and(|n| n.parse::<usize>().is_ok());
            if call {
                return after_dot && name == "len";
            }
            variable || after_dot || after_as || name == "as" || name == "true" || name == "false"
        }
        proc_macro2::TokenTree::Punct(p) => "+-*/%.<>=!&|^".contains(p.as_char()),
        proc_macro2::TokenTree::Group(g) => g.delimiter() != proc_macro2::Delimiter::Brace && pure_cheap(&g.stream()),
    })
}

/// The expression a variable's definition evaluates (the forward sweep's right-hand side).
/// `general`: the value may be an array (operators go through the runtime, by reference).
fn rhs_tokens(rhs: &Rhs, span: Span, general: bool) -> TokenStream {
    let rt = rt();
    match rhs {
        Rhs::Copy(o) if general => {
            // method syntax: `r.clone()` of a reference `&Array` clones the array
            let o = o.tokens();
            quote!(#o.clone())
        }
        Rhs::Copy(o) => o.tokens(),
        Rhs::Inactive(ts) => ts.clone(),
        Rhs::ReadCell(c) => {
            let c = c.ident();
            quote!(::core::clone::Clone::clone(&#c))
        }
        Rhs::ReadIndex { place, index } if general => {
            // an element that may be a struct or an array: copied if `Copy`, else borrowed
            let p = Emitter::place_tokens(*place);
            let i = index.tokens();
            quote!(#rt::__autodiff_project!(#p[#i]))
        }
        Rhs::ReadIndex { place, index } => {
            let p = Emitter::place_tokens(*place);
            let i = index.tokens();
            quote!(#p[#i])
        }
        Rhs::Prim(prim, args) => {
            let a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
            match prim {
                Prim::Binary { rule, .. } if general => {
                    // a float literal takes the other operand's element type
                    let literal = |o: &Operand| matches!(o, Operand::Inline(syn::Expr::Lit(_)));
                    let (l, r) = match (literal(&args[0]), literal(&args[1])) {
                        (true, false) => {
                            let (x, other) = (&a[0], &a[1]);
                            (quote!(#rt::ops::tensor::elem_of(&#other, #x)), a[1].clone())
                        }
                        (false, true) => {
                            let (other, x) = (&a[0], &a[1]);
                            (a[0].clone(), quote!(#rt::ops::tensor::elem_of(&#other, #x)))
                        }
                        _ => (a[0].clone(), a[1].clone()),
                    };
                    let (l, r) = (&l, &r);
                    let f = format_ident!("{}", rule);
                    quote::quote_spanned!(span=> #rt::ops::tensor::#f(&#l, &#r))
                }
                Prim::Neg if general => {
                    let x = &a[0];
                    quote::quote_spanned!(span=> #rt::ops::tensor::neg(&#x))
                }
                Prim::Method { method, .. } if general => {
                    // the runtime's elementwise function: no method call on a type the
                    // compiler may not know yet (`Variable::new(1.5)` is a `{float}`)
                    quote::quote_spanned!(span=> #rt::ops::tensor::#method(#(&#a),*))
                }
                Prim::Tensor {
                    rule: rule @ ("concatenate" | "stack"),
                    ..
                } => {
                    let f = format_ident!("{}", rule);
                    let (axis, parts) = (&a[0], &a[1..]);
                    quote::quote_spanned!(span=> #rt::ops::tensor::#f(&#axis, &[#(#rt::ops::tensor::view(&#parts)),*]))
                }
                Prim::Tensor { rule, fwd_args, .. } => {
                    let f = format_ident!("{}", rule);
                    let a = &a[..*fwd_args];
                    quote::quote_spanned!(span=> #rt::ops::tensor::#f(#(&#a),*))
                }
                Prim::Binary { op, .. } => {
                    let (l, r) = (&a[0], &a[1]);
                    quote::quote_spanned!(span=> #l #op #r)
                }
                Prim::Neg => {
                    let x = &a[0];
                    quote::quote_spanned!(span=> -#x)
                }
                Prim::Method {
                    method,
                    callee: None,
                    ..
                } => {
                    let (recv, rest) = (&a[0], &a[1..]);
                    quote::quote_spanned!(span=> #recv.#method(#(#rest),*))
                }
                Prim::Method {
                    callee: Some(path), ..
                } => quote::quote_spanned!(span=> #path(#(#a),*)),
                Prim::Cast { ty } => {
                    let x = &a[0];
                    quote::quote_spanned!(span=> #x as #ty)
                }
            }
        }
        Rhs::Call { func, args } => {
            let a = args.iter().map(Operand::tokens);
            quote::quote_spanned!(span=> #func(#(#a),*))
        }
        Rhs::Field { base, index } => {
            let (b, i) = (base.ident(), syn::Index::from(*index as usize));
            quote!(::core::clone::Clone::clone(&#b.#i))
        }
        Rhs::Source(r) => {
            let id = r.ident();
            crate::sources::read_tokens(&quote!(#id))
        }
        Rhs::Member { base, member } => {
            let b = base.ident();
            quote!(#rt::__autodiff_project!(#b.#member))
        }
    }
}

/// Whether a call passes a variable by reference (`f(&x)`).
fn borrows_arguments(args: &[Operand]) -> bool {
    args.iter().any(|a| matches!(a, Operand::Ref(_)))
}

impl Emitter<'_> {
    /// Whether `v` borrows another value and so is recomputed by the reverse sweep, never
    /// kept (a view of an array, a field of a struct, an element that may be either).
    fn borrows(&self, v: VarId) -> bool {
        self.defs.get(&v).is_some_and(|rhs| match rhs {
            Rhs::Prim(Prim::Tensor { view: true, .. }, _) | Rhs::Member { .. } => true,
            Rhs::ReadIndex { .. } => self.body.vars[v.0].general,
            _ => false,
        })
    }

    /// Whether the reverse sweep can evaluate `v`'s definition again instead of saving `v`.
    fn recomputable(&self, v: VarId) -> bool {
        match self.defs.get(&v) {
            Some(Rhs::Copy(_))
            | Some(Rhs::ReadIndex {
                place: Place::Var(_),
                ..
            }) => true,
            Some(Rhs::Prim(Prim::Binary { .. } | Prim::Neg | Prim::Cast { .. }, _)) => true,
            Some(Rhs::Field { .. }) => true,
            Some(_) if self.borrows(v) => true,
            Some(Rhs::Inactive(ts)) => pure_cheap(ts),
            _ => false,
        }
    }

    fn rhs_operands(&self, v: VarId) -> Vec<VarId> {
        match self.defs.get(&v) {
            Some(Rhs::Copy(o)) => o.var().into_iter().collect(),
            Some(Rhs::Field { base, .. } | Rhs::Member { base, .. }) => vec![*base],
            Some(Rhs::Prim(_, args)) => args.iter().filter_map(Operand::var).collect(),
            Some(Rhs::ReadIndex { place, index }) => {
                let mut out: Vec<VarId> = index.var().into_iter().collect();
                if let Place::Var(p) = place {
                    out.push(*p);
                }
                out
            }
            Some(Rhs::Inactive(ts)) => VarId::mentioned_in(ts),
            _ => Vec::new(),
        }
    }

    fn fresh(&mut self, prefix: &str) -> syn::Ident {
        self.fresh += 1;
        format_ident!("{}{}", prefix, self.fresh, span = Span::mixed_site())
    }

    fn var(&mut self, v: VarId) -> TokenStream {
        self.used.insert(v);
        let id = v.ident();
        quote!(#id)
    }

    fn operand(&mut self, o: &Operand) -> TokenStream {
        if let Some(v) = o.var() {
            self.used.insert(v);
        }
        o.tokens()
    }

    fn active_var(&self, o: &Operand) -> Option<VarId> {
        o.var().filter(|v| self.body.is_active(*v))
    }

    fn place_adjoint(&self, place: Place) -> Option<TokenStream> {
        match place {
            Place::Var(v) if self.body.is_active(v) => {
                let d = v.adjoint();
                Some(quote!(#d))
            }
            Place::Cell(c) if self.body.cells[c.0].active => {
                let d = c.adjoint();
                Some(quote!(#d))
            }
            _ => None,
        }
    }

    /// Adds `contribution` to the adjoint of `target`. `typed` contributions (from calls
    /// and casts) may not have the adjoint's type (`NoTangent` for a callee's constant
    /// parameter), so a first one starts from a zero adjoint instead of becoming it.
    fn contribute(
        &mut self,
        out: &mut TokenStream,
        target: VarId,
        contribution: TokenStream,
        typed: bool,
    ) {
        self.contribute_signed(out, target, contribution, typed, false);
    }

    /// [`contribute`](Self::contribute) of the negation of `contribution` when `negated`.
    fn contribute_signed(
        &mut self,
        out: &mut TokenStream,
        target: VarId,
        contribution: TokenStream,
        typed: bool,
        negated: bool,
    ) {
        let rt = rt();
        let d = target.adjoint();
        let general = self.body.vars[target.0].general;
        let contribution = if negated && (typed || general) {
            quote!(#rt::ops::sub_d1(&#contribution))
        } else {
            contribution
        };
        let negated = negated && !typed && !general;
        if self.initialized.insert(target) {
            if typed {
                let v = self.var(target);
                out.extend(quote! {
                    let mut #d = #rt::adjoint_zero(&#v);
                    #rt::Accumulate::accumulate(&mut #d, #contribution);
                });
            } else {
                out.extend(quote!(let mut #d = #contribution;));
                if negated {
                    self.negated.insert(target);
                }
            }
        } else if negated != self.negated.contains(&target) {
            out.extend(quote!(#rt::ops::accumulate_negated(&mut #d, #contribution);));
        } else {
            out.extend(quote!(#rt::Accumulate::accumulate(&mut #d, #contribution);));
        }
    }

    fn seed(&mut self, out: &mut TokenStream, value: &Value, cotangent: TokenStream) {
        match value {
            Value::Var(v) if self.body.is_active(*v) => self.contribute(out, *v, cotangent, false),
            Value::Var(_) | Value::Inline(_) => out.extend(quote!(let _ = #cotangent;)),
            Value::Tuple(items) => {
                let names: Vec<syn::Ident> = items.iter().map(|_| self.fresh("__dy")).collect();
                out.extend(quote!(let (#(#names,)*) = #cotangent;));
                for (item, name) in items.iter().zip(names) {
                    self.seed(out, item, quote!(#name));
                }
            }
            Value::Ref(inner) => self.seed(out, inner, cotangent),
        }
    }

    /// The variables of `region` whose adjoints are zero-initialised when its reverse sweep
    /// starts (in order), marked initialised: contributions to them accumulate.
    fn start_region(&mut self, region: RegionId) -> Vec<VarId> {
        let mut pre: Vec<VarId> = self
            .preinit
            .iter()
            .copied()
            .filter(|v| self.body.region_of(*v) == region)
            .collect();
        pre.sort();
        self.initialized.extend(pre.iter().copied());
        pre
    }

    /// The reverse sweep of a block (a whole region); `seed` starts the body's.
    fn rev_block(&mut self, block: &Block, seed: Option<(&Value, TokenStream)>) -> TokenStream {
        let pre = self.start_region(block.region);
        let mut body = TokenStream::new();
        if let Some((value, cotangent)) = seed {
            self.seed(&mut body, value, cotangent);
        }
        for stmt in block.stmts.iter().rev() {
            self.rev_stmt(&mut body, stmt);
        }
        if body.is_empty() {
            return body;
        }
        let rt = rt();
        let mut prefix = TokenStream::new();
        if block.region == RegionId::BODY {
            // Views and fields borrow the values they come from, which the pullback closure
            // owns: it evaluates them again rather than capturing them.
            let mut needed: BTreeSet<VarId> = BTreeSet::new();
            let mut stack: Vec<VarId> = self
                .used
                .iter()
                .copied()
                .filter(|v| self.body.region_of(*v) == RegionId::BODY && self.borrows(*v))
                .collect();
            while let Some(v) = stack.pop() {
                if !needed.insert(v) {
                    continue;
                }
                self.recomputed.insert(v);
                for u in self.rhs_operands(v) {
                    self.used.insert(u);
                    if self.borrows(u) {
                        stack.push(u);
                    }
                }
            }
            for v in &needed {
                let id = v.ident();
                let value =
                    rhs_tokens(self.defs[v], Span::call_site(), self.body.vars[v.0].general);
                prefix.extend(quote!(let #id = #value;));
            }
        }
        for v in &pre {
            prefix.extend(self.zero_adjoint(*v));
        }
        if block.region != RegionId::BODY {
            let in_loop = self.body.regions[block.region.0].in_loop;
            let restore = if in_loop {
                quote!(#rt::saved::pop)
            } else {
                quote!(#rt::saved::take)
            };
            // Close the set of values this region's reverse needs under recomputation:
            // a recomputed value needs its own operands.
            let mut needed: BTreeSet<VarId> = self
                .used
                .iter()
                .copied()
                .filter(|v| {
                    self.body.region_of(*v) == block.region && !self.reverse_bound.contains(v)
                })
                .collect();
            let mut stack: Vec<VarId> = needed.iter().copied().collect();
            while let Some(v) = stack.pop() {
                if !self.recomputable(v) {
                    continue;
                }
                self.recomputed.insert(v);
                for u in self.rhs_operands(v) {
                    self.used.insert(u);
                    if self.body.region_of(u) == block.region
                        && !self.reverse_bound.contains(&u)
                        && needed.insert(u)
                    {
                        stack.push(u);
                    }
                }
            }
            let mut restores = TokenStream::new();
            for v in &needed {
                let id = v.ident();
                if self.recomputed.contains(v) {
                    let value =
                        rhs_tokens(self.defs[v], Span::call_site(), self.body.vars[v.0].general);
                    restores.extend(quote!(let #id = #value;));
                } else {
                    let slot = v.slot();
                    restores.extend(quote!(let #id = #restore(&mut #slot);));
                }
            }
            for v in self
                .used_pullbacks
                .iter()
                .filter(|v| self.body.region_of(**v) == block.region)
            {
                let (id, slot) = (v.pullback(), v.pullback_slot());
                restores.extend(quote!(let #id = #restore(&mut #slot);));
            }
            prefix = quote!(#restores #prefix);
        }
        quote!(#prefix #body)
    }

    fn rev_stmt(&mut self, out: &mut TokenStream, stmt: &Stmt) {
        let rt = rt();
        match stmt {
            Stmt::Effect(_) => {}
            Stmt::Let { dst, rhs, .. } => {
                if !self.body.is_active(*dst) || !self.initialized.contains(dst) {
                    return;
                }
                let dy = dst.adjoint();
                let signed_rule = !self.body.vars[dst.0].general
                    && matches!(
                        rhs,
                        Rhs::Prim(Prim::Binary { .. } | Prim::Neg | Prim::Method { .. }, _)
                    );
                let negated = self.negated.contains(dst);
                if negated && !signed_rule {
                    // the adjoint's sign is applied before anything but a scalar rule reads it
                    out.extend(quote!(let mut #dy = #rt::ops::sub_d1(&#dy);));
                    self.negated.remove(dst);
                }
                let negated = negated && signed_rule;
                match rhs {
                    Rhs::Inactive(_) => {}
                    Rhs::Copy(o) => {
                        if let Some(u) = self.active_var(o) {
                            self.contribute(out, u, quote!(#rt::ops::identity_d0(&#dy)), false);
                        }
                    }
                    Rhs::ReadCell(c) if self.invariant.contains(c) => {}
                    Rhs::ReadCell(c) => {
                        let dc = c.adjoint();
                        out.extend(quote!(#rt::Accumulate::accumulate(&mut #dc, #rt::ops::identity_d0(&#dy));));
                    }
                    Rhs::Field { base, index } => {
                        let (db, i) = (base.adjoint(), syn::Index::from(*index as usize));
                        out.extend(quote!(#rt::Accumulate::accumulate(&mut #db.#i, #rt::ops::identity_d0(&#dy));));
                    }
                    Rhs::Member { base, member } => {
                        // the field's adjoint is complete here: moved, not copied
                        let db = base.adjoint();
                        out.extend(quote!(#rt::Accumulate::accumulate(&mut #db.#member, #dy);));
                    }
                    Rhs::Source(r) => {
                        let reference = self.var(*r);
                        out.extend(crate::sources::deposit_tokens(&reference, &quote!(#dy)));
                        out.extend(quote!(;));
                    }
                    Rhs::ReadIndex { place, index } => {
                        if let Some(adj) = self.place_adjoint(*place) {
                            let i = self.operand(index);
                            if let Some(tokens) =
                                self.carried_contribution(*place, index, *dst, &dy)
                            {
                                out.extend(tokens);
                            } else if self.body.vars[dst.0].general {
                                // the element's adjoint is complete here: moved
                                out.extend(
                                    quote!(#rt::Accumulate::accumulate(&mut #adj[#i], #dy);),
                                );
                            } else {
                                out.extend(quote!(#rt::ops::index_d0(&mut #adj, #i, &#dy);));
                            }
                        }
                    }
                    Rhs::Prim(prim, args) => {
                        let general = self.body.vars[dst.0].general;
                        let tensor = general || matches!(prim, Prim::Tensor { .. });
                        // The last rule to read `dy` may take it by value (its buffer is
                        // reused). For `+`/`-` that is the left operand's, which usually has the
                        // result's shape (`x.dot(&w) + &b`), while the other is reduced.
                        let mut order: Vec<usize> = (0..args.len()).collect();
                        if tensor
                            && matches!(
                                prim,
                                Prim::Binary {
                                    rule: "add" | "sub",
                                    ..
                                }
                            )
                        {
                            order.reverse();
                        }
                        let last = order
                            .iter()
                            .rev()
                            .map(|&k| (k, &args[k]))
                            .find(|(k, a)| {
                                self.active_var(a).is_some()
                                    && !matches!(prim, Prim::Cast { .. })
                                    && !matches!(prim, Prim::Method { rule, .. } if crate::prims::constant_operand(rule, *k))
                            })
                            .map(|(k, _)| k);
                        for k in order {
                            let arg = &args[k];
                            let Some(u) = self.active_var(arg) else {
                                continue;
                            };
                            let rule = match prim {
                                Prim::Binary { rule, .. }
                                | Prim::Method { rule, .. }
                                | Prim::Tensor { rule, .. } => *rule,
                                Prim::Neg => "neg",
                                Prim::Cast { .. } => {
                                    let d = u.adjoint();
                                    if self.initialized.insert(u) {
                                        let v = self.var(u);
                                        out.extend(quote!(let mut #d = #rt::adjoint_zero(&#v);));
                                    }
                                    out.extend(quote!(#rt::ops::cast_accumulate(&mut #d, &#dy);));
                                    continue;
                                }
                            };
                            if crate::prims::constant_operand(rule, k) {
                                continue;
                            }
                            if matches!(
                                prim,
                                Prim::Tensor {
                                    rule: "concatenate" | "stack",
                                    ..
                                }
                            ) {
                                let ops: Vec<TokenStream> =
                                    args.iter().map(|a| self.operand(a)).collect();
                                let (axis, parts) = (&ops[0], &ops[1..]);
                                let f = format_ident!("{}_d", rule);
                                let part = k - 1;
                                self.contribute(
                                    out,
                                    u,
                                    quote!(#rt::ops::tensor::#f(&#axis, &[#(#rt::ops::tensor::view(&#parts)),*], #part, &#dy)),
                                    false,
                                );
                                continue;
                            }
                            let reads = if tensor {
                                crate::prims::tensor_rule_reads(rule, k, args.len())
                            } else {
                                crate::prims::rule_reads(rule, k, args.len())
                            };
                            let reads: Vec<TokenStream> = reads
                                .into_iter()
                                .map(|i| {
                                    if i == args.len() {
                                        self.var(*dst)
                                    } else {
                                        self.operand(&args[i])
                                    }
                                })
                                .collect();
                            let name = format_ident!("{}_d{}", rule, k);
                            let path = if tensor {
                                quote!(#rt::ops::tensor::#name)
                            } else {
                                quote!(#rt::ops::#name)
                            };
                            let dy_arg = if tensor
                                && Some(k) == last
                                && crate::prims::tensor_rule_takes_owned(rule)
                            {
                                quote!(#dy)
                            } else {
                                quote!(&#dy)
                            };
                            // `−dy` (a subtraction's right operand, a negation): the sign is
                            // left pending rather than computed
                            if !tensor && matches!((rule, k), ("sub", 1) | ("neg", 0)) {
                                self.contribute_signed(
                                    out,
                                    u,
                                    quote!(#rt::ops::add_d0(&#dy)),
                                    false,
                                    !negated,
                                );
                                continue;
                            }
                            self.contribute_signed(
                                out,
                                u,
                                quote!(#path(#(&#reads,)* #dy_arg)),
                                false,
                                negated,
                            );
                        }
                    }
                    Rhs::Call { func, args } => {
                        let g = self.fresh("__g");
                        if borrows_arguments(args) {
                            // The callee's pullback would borrow values the pullback closure
                            // owns: its reverse runs the callee's vjp again, here.
                            let a: Vec<TokenStream> =
                                args.iter().map(|a| self.operand(a)).collect();
                            let vjp = companion_path(func, "vjp");
                            out.extend(
                                quote!(let #g = { let (_, __pb) = #vjp(#(#a),*); __pb(#dy) };),
                            );
                        } else {
                            self.used_pullbacks.insert(*dst);
                            let pb = dst.pullback();
                            out.extend(quote!(let #g = #pb(#dy);));
                        }
                        for (k, arg) in args.iter().enumerate() {
                            if let Some(u) = self.active_var(arg) {
                                let index = syn::Index::from(k);
                                self.contribute(out, u, quote!(#g.#index), true);
                            }
                        }
                    }
                }
            }
            Stmt::WriteCell { cell, value } => {
                if !self.body.cells[cell.0].active {
                    return;
                }
                let dc = cell.adjoint();
                match self.active_var(value) {
                    Some(u) if self.invariant.contains(cell) => {
                        self.contribute(out, u, quote!(::core::clone::Clone::clone(&#dc)), false);
                    }
                    Some(u) => {
                        let t = self.fresh("__t");
                        out.extend(quote!(let #t = #rt::ops::take_d0(&mut #dc);));
                        self.contribute(out, u, quote!(#t), false);
                    }
                    None => out.extend(quote!(#rt::ops::reset_d0(&mut #dc);)),
                }
            }
            Stmt::WriteIndex { cell, index, value } => {
                if !self.body.cells[cell.0].active {
                    return;
                }
                let dc = cell.adjoint();
                let i = self.operand(index);
                match self.active_var(value) {
                    Some(u) => {
                        let t = self.fresh("__t");
                        out.extend(quote!(let #t = #rt::ops::index_take_d0(&mut #dc, #i);));
                        self.contribute(out, u, quote!(#t), false);
                    }
                    None => out.extend(quote!(let _ = #rt::ops::index_take_d0(&mut #dc, #i);)),
                }
            }
            Stmt::If { cond, then, els } => {
                let then = self.rev_block(then, None);
                let els = self.rev_block(els, None);
                if then.is_empty() && els.is_empty() {
                    return;
                }
                let c = self.operand(cond);
                out.extend(quote!(if #c { #then } else { #els }));
            }
            Stmt::Loop {
                head, body, count, ..
            } => {
                let range = match head {
                    LoopHead::For {
                        item,
                        start: Some(start),
                        ..
                    } => {
                        self.reverse_bound.insert(*item);
                        Some((*item, start))
                    }
                    _ => None,
                };
                let b = self.rev_block(body, None);
                if b.is_empty() {
                    return;
                }
                let n = self.var(*count);
                match range {
                    Some((item, start)) => {
                        let (id, start) = (item.ident(), self.operand(start));
                        out.extend(quote!(for #id in #rt::saved::range_back(#start, #n) { #b }));
                    }
                    None => out.extend(quote!(for _ in 0..#n { #b })),
                }
            }
        }
    }

    /// A contribution to an element of a carried slice adjoint, into its registers.
    fn carried_contribution(
        &mut self,
        place: Place,
        index: &Operand,
        dst: VarId,
        dy: &syn::Ident,
    ) -> Option<TokenStream> {
        let rt = rt();
        let (Place::Var(p), Operand::Var(iv)) = (place, index) else {
            return None;
        };
        let top = self.body.region_of(dst);
        let c = self.carried.get_mut(&p)?;
        let (here, carry, at, hot) = (&c.here, &c.carry, &c.at, &c.hot);
        let ivt = iv.ident();
        Some(match c.offsets.get(iv)? {
            0 if !c.carries() && c.here_assigned.is_none() && top == c.region => {
                c.here_assigned = Some(true);
                quote! {
                    #here = #dy;
                    #hot = true;
                }
            }
            0 => {
                c.here_assigned.get_or_insert(false);
                quote! {
                    #rt::Accumulate::accumulate(&mut #here, #dy);
                    #hot = true;
                }
            }
            _ => {
                if c.carry_assigned.is_none() {
                    c.carry_assigned = Some(top == c.region);
                    if top == c.region {
                        return Some(quote! {
                            #carry = #dy;
                            #at = ::core::option::Option::Some(#ivt);
                        });
                    }
                }
                quote! {
                    #rt::Accumulate::accumulate(&mut #carry, #dy);
                    #at = ::core::option::Option::Some(#ivt);
                }
            }
        })
    }

    fn save(&self, v: VarId) -> TokenStream {
        let region = self.body.region_of(v);
        if region == RegionId::BODY
            || !self.used.contains(&v)
            || self.recomputed.contains(&v)
            || self.reverse_bound.contains(&v)
        {
            return TokenStream::new();
        }
        let (id, slot) = (v.ident(), v.slot());
        if self.body.regions[region.0].in_loop {
            quote!(#slot.push(::core::clone::Clone::clone(&#id));)
        } else {
            quote!(#slot = ::core::option::Option::Some(::core::clone::Clone::clone(&#id));)
        }
    }

    fn save_pullback(&self, v: VarId) -> TokenStream {
        let region = self.body.region_of(v);
        if region == RegionId::BODY || !self.used_pullbacks.contains(&v) {
            return TokenStream::new();
        }
        let (id, slot) = (v.pullback(), v.pullback_slot());
        if self.body.regions[region.0].in_loop {
            quote!(#slot.push(#id);)
        } else {
            quote!(#slot = ::core::option::Option::Some(#id);)
        }
    }

    fn place_tokens(place: Place) -> TokenStream {
        match place {
            Place::Var(v) => {
                let id = v.ident();
                quote!(#id)
            }
            Place::Cell(c) => {
                let id = c.ident();
                quote!(#id)
            }
        }
    }

    fn fwd_block(&self, block: &Block) -> TokenStream {
        let mut out = TokenStream::new();
        for stmt in &block.stmts {
            self.fwd_stmt(&mut out, stmt);
        }
        out
    }

    fn fwd_stmt(&self, out: &mut TokenStream, stmt: &Stmt) {
        match stmt {
            Stmt::Effect(ts) => out.extend(ts.clone()),
            Stmt::Let { dst, ty, rhs, span } => {
                let v = dst.ident();
                let ty = ty.as_ref().map(|t| quote!(: #t));
                let span = *span;
                if let Rhs::Call { func, args } = rhs {
                    if self.used_pullbacks.contains(dst) {
                        let a = args.iter().map(Operand::tokens);
                        let pb = dst.pullback();
                        let vjp = companion_path(func, "vjp");
                        out.extend(quote::quote_spanned!(span=> let (#v, #pb) = #vjp(#(#a),*);));
                        out.extend(self.save(*dst));
                        out.extend(self.save_pullback(*dst));
                        return;
                    }
                }
                let value = rhs_tokens(rhs, span, self.body.vars[dst.0].general);
                out.extend(quote::quote_spanned!(span=> let #v #ty = #value;));
                out.extend(self.save(*dst));
            }
            Stmt::WriteCell { cell, value } => {
                let c = cell.ident();
                let v = self.kept(value);
                out.extend(quote!(#c = #v;));
            }
            Stmt::WriteIndex { cell, index, value } => {
                let (c, i, v) = (cell.ident(), index.tokens(), value.tokens());
                out.extend(quote!(#c[#i] = #v;));
            }
            Stmt::If { cond, then, els } => {
                let c = cond.tokens();
                let (t, e) = (self.fwd_block(then), self.fwd_block(els));
                out.extend(quote!(if #c { #t } else { #e }));
            }
            Stmt::Loop {
                head,
                body,
                count,
                flow,
            } => out.extend(self.fwd_loop(head, body, *count, *flow, None)),
        }
    }

    /// The forward sweep of a loop; `fused` is the reverse of an iteration, run at its end.
    fn fwd_loop(
        &self,
        head: &LoopHead,
        body: &Block,
        count: VarId,
        flow: Option<CellId>,
        fused: Option<TokenStream>,
    ) -> TokenStream {
        let n = format_ident!("__n{}", count.0, span = Span::mixed_site());
        let b = self.fwd_block(body);
        let check = flow.map(|f: CellId| {
            let f = f.ident();
            quote!(if #f == 1u8 { break; } #f = 0u8;)
        });
        let looped = match head {
            LoopHead::For { item, iter, .. } => {
                let id = item.ident();
                let save = self.save(*item);
                // Stacks of this loop's values are reserved from the trip count.
                let saved: Vec<syn::Ident> = self
                    .used
                    .iter()
                    .filter(|v| {
                        self.body.region_of(**v) == body.region
                            && !self.recomputed.contains(v)
                            && !self.reverse_bound.contains(v)
                    })
                    .map(|v| v.slot())
                    .chain(
                        self.used_pullbacks
                            .iter()
                            .filter(|v| self.body.region_of(**v) == body.region)
                            .map(|v| v.pullback_slot()),
                    )
                    .collect();
                if saved.is_empty() || fused.is_some() {
                    quote!(for #id in #iter { #save #b #n += 1; #fused #check })
                } else {
                    let it = format_ident!("__it{}", count.0, span = Span::mixed_site());
                    quote! {
                        let #it = ::core::iter::IntoIterator::into_iter(#iter);
                        let __hint = ::core::iter::Iterator::size_hint(&#it).0;
                        #(#saved.reserve(__hint);)*
                        for #id in #it { #save #b #n += 1; #check }
                    }
                }
            }
            LoopHead::Infinite => quote!(loop { #b #n += 1; #fused #check }),
        };
        let (c, save_count) = (count.ident(), self.save(count));
        quote!(let mut #n = 0usize; #looped let #c = #n; #save_count)
    }

    /// An operand the forward sweep hands over (to a cell, as the result): an array the
    /// reverse sweep still reads is cloned rather than moved.
    fn kept(&self, o: &Operand) -> TokenStream {
        match o {
            Operand::Var(v) if self.body.vars[v.0].general && self.used.contains(v) => {
                let id = v.ident();
                quote!(::core::clone::Clone::clone(&#id))
            }
            _ => o.tokens(),
        }
    }

    /// Declarations at the top of the forward sweep: cells and save slots.
    fn declarations(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, cell) in self.body.cells.iter().enumerate() {
            let c = CellId(i).ident();
            let ty = cell.ty.as_ref().map(|t| quote!(: #t));
            out.extend(quote!(let mut #c #ty = ::core::default::Default::default();));
        }
        let slots = self
            .used
            .iter()
            .map(|v| (*v, v.slot()))
            .chain(self.used_pullbacks.iter().map(|v| (*v, v.pullback_slot())));
        for (v, slot) in slots {
            let region = self.body.region_of(v);
            if region == RegionId::BODY
                || (slot == v.slot()
                    && (self.recomputed.contains(&v) || self.reverse_bound.contains(&v)))
            {
                continue;
            }
            if self.body.regions[region.0].in_loop {
                out.extend(quote!(let mut #slot = ::std::vec::Vec::new();));
            } else {
                out.extend(quote!(let mut #slot = ::core::option::Option::None;));
            }
        }
        out
    }
}

impl Emitter<'_> {
    /// The parameters' gradients, at the end of the reverse sweep. With no parameter, the
    /// pullback returns `()` by ending with a statement.
    fn gradients(&self, sig: &Signature) -> TokenStream {
        let rt = rt();
        let grads: Vec<TokenStream> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let v = VarId(i);
                if !p.differentiable {
                    quote!(#rt::NoTangent)
                } else if self.initialized.contains(&v) {
                    let (d, id) = (v.adjoint(), v.ident());
                    let d = if self.negated.contains(&v) {
                        quote!(#rt::ops::sub_d1(&#d))
                    } else if self.lazy.contains(&v) {
                        quote!(#rt::complete_tangent(&#id, #d))
                    } else {
                        quote!(#d)
                    };
                    // adjoints start from −0.0: a zero gradient leaves as 0.0
                    quote!(#rt::finish_tangent(&#id, #d))
                } else {
                    let id = v.ident();
                    quote!(#rt::zero_tangent(&#id))
                }
            })
            .collect();
        if grads.is_empty() {
            quote!()
        } else {
            quote!((#(#grads,)*))
        }
    }

    /// `let mut <adjoint> = <zero>;` for a variable whose adjoint is zero-initialised.
    fn zero_adjoint(&mut self, v: VarId) -> TokenStream {
        let rt = rt();
        let d = v.adjoint();
        let value = self.var(v);
        if self.lazy.contains(&v) {
            quote!(let mut #d = #rt::lazy_zero_tangent(&#value);)
        } else {
            quote!(let mut #d = #rt::adjoint_zero(&#value);)
        }
    }

    /// Adjoints of cells, zero before their reverse sweep.
    fn cell_adjoints(&self) -> TokenStream {
        let rt = rt();
        let mut out = TokenStream::new();
        for (i, cell) in self.body.cells.iter().enumerate() {
            if cell.active {
                let (c, d) = (CellId(i).ident(), CellId(i).adjoint());
                out.extend(quote!(let mut #d = #rt::adjoint_zero(&#c);));
            }
        }
        out
    }
}

fn new_emitter(sig_params: usize, body: &Body) -> Emitter<'_> {
    let mut e = Emitter {
        body,
        preinit: preinitialized(body),
        used: BTreeSet::new(),
        used_pullbacks: BTreeSet::new(),
        initialized: HashSet::new(),
        recomputed: HashSet::new(),
        reverse_bound: HashSet::new(),
        defs: crate::ir::definitions(&body.block),
        fresh: 0,
        carried: HashMap::new(),
        lazy: HashSet::new(),
        invariant: HashSet::new(),
        negated: HashSet::new(),
    };
    e.lazy = lazily_zeroed(sig_params, body, &e.defs);
    e
}

/// Parameters read through their fields and never by index: see `Emitter::lazy`.
fn lazily_zeroed(params: usize, body: &Body, defs: &HashMap<VarId, &Rhs>) -> HashSet<VarId> {
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

/// The body of the seeded derivative, `(inputs…, cotangent) -> (value, gradients)`, when
/// the body has a loop to fuse (see `fuse`): the forward sweep up to the loop, the reverse
/// of what follows the loop (which needs no value computed after it), the loop with each
/// iteration's reverse at its end, the rest of the forward sweep, then the reverse of what
/// precedes the loop.
pub fn seeded_body(sig: &Signature, body: &Body) -> Option<TokenStream> {
    let plan = crate::fuse::plan(body)?;
    let rt = rt();
    let stmts = &body.block.stmts;
    let Stmt::Loop {
        head,
        body: lbody,
        count,
        flow,
    } = &stmts[plan.index]
    else {
        return None;
    };
    let mut e = new_emitter(sig.params.len(), body);
    // The iteration's own values are in scope for its reverse: neither saved nor computed
    // again (floats only: they are `Copy`).
    let item = match head {
        LoopHead::For { item, .. } => {
            e.reverse_bound.insert(*item);
            Some(*item)
        }
        LoopHead::Infinite => None,
    };
    for stmt in &lbody.stmts {
        if let Stmt::Let { dst, .. } = stmt {
            if body.is_active(*dst) && !body.vars[dst.0].general {
                e.reverse_bound.insert(*dst);
            }
        }
    }
    for (p, offsets) in plan.carried {
        let c = Carried {
            offsets,
            region: lbody.region,
            here: e.fresh("__here"),
            carry: e.fresh("__carry"),
            at: e.fresh("__at"),
            hot: e.fresh("__hot"),
            carry_assigned: None,
            here_assigned: None,
        };
        e.carried.insert(p, c);
    }
    let pre = e.start_region(RegionId::BODY);
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let mut after_rev = TokenStream::new();
    e.seed(&mut after_rev, &body.output, quote!(#dy));
    for stmt in stmts[plan.index + 1..].iter().rev() {
        e.rev_stmt(&mut after_rev, stmt);
    }
    e.invariant = plan.accumulators;
    let iteration_rev = e.rev_block(lbody, None);
    e.invariant.clear();
    let mut before_rev = TokenStream::new();
    for stmt in stmts[..plan.index].iter().rev() {
        e.rev_stmt(&mut before_rev, stmt);
    }
    let mut zeros = TokenStream::new();
    for v in &pre {
        zeros.extend(e.zero_adjoint(*v));
    }
    // Carried registers: declared before the loop, taken over at each iteration's start,
    // element `i` stored once at its end (the slice's adjoint is still zero there: nothing
    // else reaches it before or during the loop), the last `i + 1` after the loop.
    let mut regs = TokenStream::new();
    let mut start = TokenStream::new();
    let mut end = TokenStream::new();
    let mut flush = TokenStream::new();
    let mut carried: Vec<(&VarId, &Carried)> = e.carried.iter().collect();
    carried.sort_by_key(|(p, _)| **p);
    let item = item.map(VarId::ident);
    for (p, c) in carried {
        let (d, here, carry, at, hot) = (p.adjoint(), &c.here, &c.carry, &c.at, &c.hot);
        end.extend(quote! {
            if #hot { #d[#item] = #here; }
        });
        // (a read of `i + 1` whose value has no derivative contributes nothing)
        if c.carry_assigned.is_none() {
            start.extend(quote! {
                let mut #here = #rt::ops::element_zero(&#d);
                let mut #hot = false;
            });
            continue;
        }
        regs.extend(quote! {
            let mut #carry = #rt::ops::element_zero(&#d);
            let mut #at = ::core::option::Option::None;
        });
        let reset = (c.carry_assigned == Some(false))
            .then(|| quote!(#carry = #rt::ops::element_zero(&#d);));
        start.extend(quote! {
            let mut #here = #carry;
            let mut #hot = #at.take().is_some();
            #reset
        });
        flush.extend(quote! {
            if let ::core::option::Option::Some(__k) = #at { #d[__k] = #carry; }
        });
    }
    let fused = quote!({ #start #iteration_rev #end });
    let declarations = e.declarations();
    let cell_adjoints = e.cell_adjoints();
    let mut before = TokenStream::new();
    for stmt in &stmts[..plan.index] {
        e.fwd_stmt(&mut before, stmt);
    }
    let fused_loop = e.fwd_loop(head, lbody, *count, *flow, Some(fused));
    let mut after = TokenStream::new();
    for stmt in &stmts[plan.index + 1..] {
        e.fwd_stmt(&mut after, stmt);
    }
    let grads_value = e.gradients(sig);
    let output = match &body.output {
        Value::Var(v) => e.kept(&Operand::Var(*v)),
        other => other.tokens(),
    };
    let items = &body.items;
    Some(quote! {
        #(#items)*
        #declarations
        #before
        #cell_adjoints
        #zeros
        #after_rev
        #regs
        #fused_loop
        #flush
        #after
        #before_rev
        (#output, #grads_value)
    })
}

/// The body of `__autodiff_f_vjp`: forward sweep, then `(value, move |cotangent| reverse)`.
pub fn vjp_body(sig: &Signature, body: &Body) -> TokenStream {
    let mut e = new_emitter(sig.params.len(), body);
    // Parameters read by index, or from a nested region, are zero-initialised up front.
    let dy = format_ident!("__dy", span = Span::mixed_site());
    let reverse = e.rev_block(&body.block, Some((&body.output, quote!(#dy))));
    let cell_adjoints = e.cell_adjoints();
    let grads_value = e.gradients(sig);
    let declarations = e.declarations();
    let forward = e.fwd_block(&body.block);
    let items = &body.items;
    let output = match &body.output {
        Value::Var(v) => e.kept(&Operand::Var(*v)),
        other => other.tokens(),
    };
    let dy_type = match &sig.output {
        syn::Type::Infer(_) => quote!(),
        ty => {
            let t = tangent_type(ty);
            quote!(: #t)
        }
    };
    quote! {
        #(#items)*
        #declarations
        #forward
        (#output, move |#dy #dy_type| {
            #cell_adjoints
            #reverse
            #grads_value
        })
    }
}
