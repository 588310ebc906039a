//! The reverse sweep: regions walked backwards, each starting by restoring (or
//! recomputing) the values its rules read, each statement contributing to the adjoints of
//! its operands through the runtime's rules.

use super::fences::key as fences_key;
use super::*;
use crate::rules::{Form, Read};
use std::collections::HashSet;

impl Emitter<'_> {
    /// starts (in order), marked initialised: contributions to them accumulate.
    pub(crate) fn start_region(&mut self, region: RegionId) -> Vec<VarId> {
        let mut pre: Vec<VarId> = self
            .preinit
            .iter()
            .copied()
            .filter(|v| self.body.region_of(*v) == region && !self.shadows.contains(v))
            // a sub-slice's adjoint is a range of its slice's: it has none of its own
            .filter(|v| !self.is_sub_slice(*v))
            .collect();
        pre.sort();
        self.initialized.extend(pre.iter().copied());
        pre
    }

    /// For a rule with a sibling (`sin` of `x`, see `Rule::sibling`): the sibling rule and
    /// the output of the sibling method (`x.cos()`) when the body computes it from the
    /// same variable in the same region as `dst`, where the reverse sweep has it.
    fn sibling_output(
        &self,
        rule: &crate::rules::Rule,
        dst: VarId,
        arg: &Operand,
    ) -> Option<(syn::Ident, VarId)> {
        let sibling = rule.sibling.as_ref()?;
        let x = match arg {
            Operand::Var(x) => *x,
            _ => return None,
        };
        let region = self.body.region_of(dst);
        // the first of them, should the body compute it twice
        let found = self.defs.iter().filter_map(|(v, rhs)| match rhs {
            Rhs::Prim(Prim::Method { rule: r, .. }, a)
                if r.name == sibling.method
                    && matches!(a.as_slice(), [Operand::Var(y)] if *y == x)
                    && self.body.region_of(*v) == region
                    && !self.body.vars[v.0].maybe_array =>
            {
                Some(*v)
            }
            _ => None,
        });
        Some((format_ident!("{}", sibling.rule), found.min()?))
    }

    /// Whether `v`, of the body's region, is an element of another value of the body's
    /// region at a constant index (`__v0[(1)]`), the other value being read by the reverse
    /// sweep anyway: the pullback reads the element again from it instead of keeping it.
    fn reread_in_body(&self, v: VarId) -> bool {
        let Some(Rhs::ReadIndex {
            place: Place::Var(p),
            index: Operand::Inline(index),
        }) = self.defs.get(&v).copied()
        else {
            return false;
        };
        let index = index.to_token_stream();
        // a parameter whose gradient is returned is named by the closure for it
        let returned_parameter =
            !self.defs.contains_key(p) && self.body.vars[p.0].active && !self.shadows.contains(p);
        !self.body.vars[v.0].maybe_array
            && (self.used.contains(p) || returned_parameter)
            && self.body.region_of(*p) == RegionId::BODY
            && !self.borrows(*p)
            && pure_cheap(&index)
            && VarId::mentioned_in(&index).is_empty()
    }

    /// The reverse sweep of a block (a whole region); `seed` starts the body's.
    pub(crate) fn rev_block(
        &mut self,
        block: &Block,
        seed: Option<(&Value, TokenStream)>,
    ) -> TokenStream {
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
            // (an adjoint started from the value's zero names the value: `adjoint_zero(&v)`)
            for v in &pre {
                if self.borrows(*v) {
                    self.used.insert(*v);
                }
            }
            // So is an element read at a constant index of a value the closure owns anyway
            // (`a[1]` of an array parameter `a` the reverse sweep reads): one copy of the
            // array rather than one of each element.
            let mut stack: Vec<VarId> = self
                .used
                .iter()
                .copied()
                .filter(|v| {
                    self.body.region_of(*v) == RegionId::BODY
                        && (self.borrows(*v) || self.reread_in_body(*v))
                })
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
                let value = self.rhs(
                    self.defs[v],
                    Span::call_site(),
                    self.body.vars[v.0].maybe_array,
                );
                prefix.extend(quote!(let #id = #value;));
            }
        }
        for v in &pre {
            prefix.extend(self.zero_adjoint(*v));
        }
        if block.region != RegionId::BODY {
            let in_loop = self.body.regions[block.region.0].in_loop;
            // (a branch of an `if`: from the slot it may share with the other branch,
            // `saved::Arm` or `Option`, decided once both reverse sweeps are written)
            let restore = if in_loop {
                quote!(#rt::saved::pop)
            } else {
                match self.arms.get(&block.region) {
                    Some((_, false)) => quote!(#rt::saved::take_then),
                    Some((_, true)) => quote!(#rt::saved::take_else),
                    None => quote!(#rt::saved::take),
                }
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
            // The region's tape first (one tuple per execution), then what is recomputed
            // from it, in definition order.
            let (values, pullbacks) = self.taped(block.region);
            let mut restores = TokenStream::new();
            if !values.is_empty() || !pullbacks.is_empty() {
                let tape = self.slot(block.region);
                let names = (values.iter().map(|v| v.ident()))
                    .chain(pullbacks.iter().map(|v| v.pullback()));
                restores.extend(quote!(let (#(#names,)*) = #restore(&mut #tape);));
                self.tapes.insert(block.region, (values, pullbacks));
            }
            for v in needed.iter().filter(|v| self.recomputed.contains(*v)) {
                let id = v.ident();
                let value = self.recompute_tokens(*v);
                restores.extend(quote!(let #id = #value;));
            }
            prefix = quote!(#restores #prefix);
        }
        quote!(#prefix #body)
    }

    /// What rule `k` of `prim` (defining `dst` from `args`) reads, as tokens.
    fn rule_reads(
        &mut self,
        rule: &crate::rules::Rule,
        prim: &Prim,
        dst: VarId,
        args: &[Operand],
        k: usize,
        tensor: bool,
    ) -> Vec<TokenStream> {
        let rt = rt();
        let dy = dst.adjoint();
        rule.reads(k, tensor)
            .iter()
            .map(|r| match r {
                Read::Output => self.var(dst),
                // a float literal beside an array takes the array's element type, which
                // the cotangent has too (`&u / 1.25` with `u` of `f32`s)
                Read::Operand(i)
                    if tensor && matches!(prim, Prim::Binary { .. }) && args[*i].is_literal() =>
                {
                    let x = self.operand(&args[*i]);
                    quote!(#rt::ops::tensor::elem_of(&#dy, #x))
                }
                Read::Operand(i) => match &args[*i] {
                    Operand::Var(v) if self.const_items.contains(v) => {
                        crate::emit::owned(self.operand(&args[*i]))
                    }
                    other => self.operand(other),
                },
            })
            .collect()
    }

    /// Scalar rule `k` of `prim` (defining `dst` from `args`) applied to the cotangent
    /// `dy` (see `preaccumulate`).
    pub(crate) fn scalar_rule(
        &mut self,
        rule: &crate::rules::Rule,
        prim: &Prim,
        dst: VarId,
        args: &[Operand],
        k: usize,
        dy: &TokenStream,
    ) -> TokenStream {
        let rt = rt();
        if let Some((name, s)) = self.sibling_output(rule, dst, &args[k]) {
            let s = self.var(s);
            return quote!(#rt::ops::#name(&#s, &#dy));
        }
        let reads = self.rule_reads(rule, prim, dst, args, k, false);
        let name = format_ident!("{}_d{}", rule.name, k);
        quote!(#rt::ops::#name(#(&#reads,)* &#dy))
    }

    pub(crate) fn rev_stmt(&mut self, out: &mut TokenStream, stmt: &Stmt) {
        let rt = rt();
        match stmt {
            Stmt::Effect(ts) => {
                // an integer counter's increment, undone (see `counters`)
                if let Some(undo) = self.counter_undo.get(&ts.to_string()) {
                    out.extend(undo.clone());
                }
            }
            Stmt::Let { dst, rhs, .. } => {
                // a call writing a differentiable buffer runs its reverse even when its
                // result's adjoint is zero: the buffer's adjoint goes through it
                let writes = match rhs {
                    Rhs::Call { args, .. } => args
                        .iter()
                        .filter_map(Operand::lent_cell)
                        .any(|c| self.body.cells[c.0].active),
                    _ => false,
                };
                if writes && self.initialized.insert(*dst) {
                    let (d, v) = (dst.adjoint(), self.var(*dst));
                    out.extend(quote!(let mut #d = #rt::adjoint_zero(&#v);));
                }
                if !self.body.is_active(*dst) || !self.initialized.contains(dst) {
                    return;
                }
                let dy = dst.adjoint();
                let signed_rule = !self.body.vars[dst.0].maybe_array
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
                if let Some(tree) = self.preaccumulated(*dst) {
                    self.preaccumulate(out, &tree, negated);
                    return;
                }
                match rhs {
                    Rhs::Inactive(_) | Rhs::SubSlice { .. } => {}
                    Rhs::Copy(o) | Rhs::Owned { of: o, .. } => {
                        if let Some(u) = self.active_var(o) {
                            self.contribute(out, u, quote!(#rt::ops::identity_d0(&#dy)), false);
                        }
                    }
                    Rhs::ReadCell(c) if self.invariant.contains(c) => {}
                    Rhs::ReadCell(c) => {
                        let dc = c.adjoint();
                        let d = quote!(#rt::ops::identity_d0(&#dy));
                        // (a `Vec` local whose length changes where it is assigned: its
                        // adjoint, taken there, takes the value read before it whole; the
                        // output's, the caller's cotangent, is checked as it is)
                        let output = fn_output_mentions(&self.body.output, *dst);
                        if output {
                            out.extend(quote!(#rt::Accumulate::accumulate(&mut #dc, #d);));
                        } else {
                            out.extend(quote!(#rt::Accumulate::accumulate_read(&mut #dc, #d);));
                        }
                    }
                    Rhs::Field { base, index } => {
                        let (db, i) = (base.adjoint(), syn::Index::from(*index as usize));
                        let d = quote!(#rt::ops::identity_d0(&#dy));
                        out.extend(quote!(#rt::Accumulate::accumulate(&mut #db.#i, #d);));
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
                    Rhs::ReadIndex {
                        place: Place::Var(p),
                        index,
                    } if self.split.contains(p) => {
                        // (the tangent of the cotangent into the plain gradient, or into a
                        // carried register, which holds dual numbers)
                        let i = self.operand(index);
                        if self.hoisted.contains_key(dst) || self.body.vars[dst.0].maybe_array {
                            self.split_refused.set(true);
                        }
                        if let Some(tokens) =
                            self.carried_contribution(Place::Var(*p), index, *dst, &dy)
                        {
                            out.extend(tokens);
                        } else {
                            let adj = p.adjoint();
                            out.extend(quote!(#rt::dual::split::add_d0(&mut #adj, #i, &#dy);));
                        }
                    }
                    Rhs::ReadIndex { .. } if self.hoisted.contains_key(dst) => {
                        let acc = &self.hoisted[dst];
                        out.extend(quote!(
                            #rt::Accumulate::accumulate(&mut #acc, ::core::clone::Clone::clone(&#dy));
                        ));
                    }
                    Rhs::ReadIndex { place, index } => {
                        let i = self.operand(index);
                        let grown = match place {
                            Place::Cell(c) if self.grown.contains(c) => Some(*c),
                            _ => None,
                        };
                        if let Some(c) = grown {
                            if self.body.cells[c.0].active {
                                let dc = c.adjoint();
                                out.extend(quote!(#rt::ops::grown_index_d0(&mut #dc, #i, &#dy);));
                            }
                        } else if let Some((adj, i)) = self.element_adjoint(*place, i) {
                            if let Some(tokens) =
                                self.carried_contribution(*place, index, *dst, &dy)
                            {
                                out.extend(tokens);
                            } else if self.body.vars[dst.0].maybe_array {
                                // the element's adjoint is complete here: moved
                                out.extend(
                                    quote!(#rt::Accumulate::accumulate(&mut #adj[#i], #dy);),
                                );
                            } else if self.fenced.contains(&fences_key(place)) {
                                out.extend(quote!(#rt::ops::index_d0(&mut #adj, #i, &#dy);));
                            } else {
                                out.extend(quote!(#rt::ops::index_one_d0(&mut #adj, #i, &#dy);));
                            }
                        }
                    }
                    Rhs::Prim(prim, args) => {
                        let maybe_array = self.body.vars[dst.0].maybe_array;
                        let tensor = (maybe_array
                            && !prim.rule().is_some_and(crate::rules::is_option_rule))
                            || matches!(prim, Prim::Tensor { .. });
                        // The last rule to read `dy` may take it by value (its buffer is
                        // reused). For `+`/`-` that is the left operand's, which usually has the
                        // result's shape (`x.dot(&w) + &b`), while the other is reduced.
                        let mut order: Vec<usize> = (0..args.len()).collect();
                        if tensor && prim.rule().is_some_and(|r| r.owned_by_left) {
                            order.reverse();
                        }
                        let last = order
                            .iter()
                            .rev()
                            .map(|&k| (k, &args[k]))
                            .find(|(k, a)| {
                                self.active_var(a).is_some()
                                    && !matches!(
                                        prim,
                                        Prim::Cast { .. }
                                            | Prim::Struct { .. }
                                            | Prim::SetMembers { .. }
                                    )
                                    && !prim.rule().is_some_and(|r| r.constant_operand(*k))
                            })
                            .map(|(k, _)| k);
                        for k in order {
                            let arg = &args[k];
                            let Some(u) = self.active_var(arg) else {
                                continue;
                            };
                            if self.increment_reads.contains(&u) {
                                continue; // its adjoint stays in the element (see `increments`)
                            }
                            let rule = match prim.rule() {
                                Some(rule) => rule,
                                None if matches!(prim, Prim::SetMembers { .. }) => {
                                    let Prim::SetMembers { members } = prim else {
                                        unreachable!("a struct with members replaced")
                                    };
                                    let d = match members.get(k) {
                                        Some(m) => quote!(::core::clone::Clone::clone(&#dy.#m)),
                                        // the base: the result's adjoint but the members
                                        None => quote!({
                                            let mut __autodiff_d = ::core::clone::Clone::clone(&#dy);
                                            #(#rt::Reset::reset_adjoint(&mut __autodiff_d.#members);)*
                                            __autodiff_d
                                        }),
                                    };
                                    self.contribute(out, u, d, false);
                                    continue;
                                }
                                None if matches!(prim, Prim::Struct { .. }) => {
                                    let Prim::Struct { members, .. } = prim else {
                                        unreachable!("a struct literal")
                                    };
                                    let m = &members[k];
                                    self.contribute(
                                        out,
                                        u,
                                        quote!(::core::clone::Clone::clone(&#dy.#m)),
                                        false,
                                    );
                                    continue;
                                }
                                None => {
                                    let d = u.adjoint();
                                    if self.initialized.insert(u) {
                                        let v = self.var(u);
                                        out.extend(quote!(let mut #d = #rt::adjoint_zero(&#v);));
                                    }
                                    out.extend(quote!(#rt::ops::cast_accumulate(&mut #d, &#dy);));
                                    continue;
                                }
                            };
                            if rule.constant_operand(k) {
                                continue;
                            }
                            if rule.form == Form::Join {
                                // (the axis, an integer, takes no adjoint)
                                let Some(part) = k.checked_sub(1) else {
                                    continue;
                                };
                                let ops: Vec<TokenStream> =
                                    args.iter().map(|a| self.operand(a)).collect();
                                let (axis, parts) = (&ops[0], &ops[1..]);
                                let f = format_ident!("{}_d", rule.name);
                                self.contribute(
                                    out,
                                    u,
                                    quote! {
                                        #rt::ops::tensor::#f(
                                            &#axis,
                                            &[#(#rt::ops::tensor::view(&#parts)),*],
                                            #part,
                                            &#dy,
                                        )
                                    },
                                    false,
                                );
                                continue;
                            }
                            // `x.sin()` beside `x.cos()` in the same region: the rule
                            // reads the other's output, kept anyway, not `x` (no call)
                            if let Some((name, s)) = (!tensor)
                                .then(|| self.sibling_output(rule, *dst, &args[k]))
                                .flatten()
                            {
                                let s = self.var(s);
                                self.contribute_signed(
                                    out,
                                    u,
                                    quote!(#rt::ops::#name(&#s, &#dy)),
                                    false,
                                    negated,
                                );
                                continue;
                            }
                            let reads = self.rule_reads(rule, prim, *dst, args, k, tensor);
                            let name = format_ident!("{}_d{}", rule.name, k);
                            let path = if tensor {
                                quote!(#rt::ops::tensor::#name)
                            } else {
                                quote!(#rt::ops::#name)
                            };
                            let dy_arg = if tensor && Some(k) == last && rule.owned_cotangent {
                                quote!(#dy)
                            } else {
                                quote!(&#dy)
                            };
                            // `−dy` (a subtraction's right operand, a negation): the sign is
                            // left pending rather than computed
                            if !tensor && rule.negates == Some(k) {
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
                        // The callee adds the gradients of its slice parameters into the
                        // adjoints handed to it (sinks), and returns the others.
                        // An adjoint lent twice (a variable passed twice, two sub-slices of
                        // one slice) cannot be: the second lends a zeroed buffer, added into
                        // the adjoint after the call.
                        let mut sinks = Vec::new();
                        let mut lent = HashSet::new();
                        let mut lent_again = Vec::new();
                        // several ranges of one buffer (split before the call): their
                        // sinks are the same ranges of its adjoint, split alike
                        let mut parts: HashMap<CellId, (Vec<syn::Ident>, Vec<TokenStream>)> =
                            HashMap::new();
                        for arg in args {
                            if let Operand::MutRef {
                                cell,
                                range: Some(r),
                                alias: Some(_),
                                ..
                            } = arg
                            {
                                if self.body.cells[cell.0].active {
                                    let s = self.fresh("__part");
                                    let b = r.bounds(|o| self.operand(o));
                                    let entry = parts.entry(*cell).or_default();
                                    entry.0.push(s);
                                    entry.1.push(b);
                                }
                            }
                        }
                        let mut order: Vec<&CellId> = parts.keys().collect();
                        order.sort_by_key(|c| c.0);
                        for c in order {
                            let (names, bounds) = &parts[c];
                            let d = c.adjoint();
                            out.extend(quote! {
                                let [#(mut #names),*] =
                                    #rt::shadow::disjoint_sinks(&mut #d, [#(#bounds),*]);
                            });
                        }
                        // sub-slices of one slice handed together (`f(&p[..n], &p[n..])`):
                        // the same ranges of its adjoint, split apart where they do not
                        // overlap (the runtime's `RangeSinks`), not a zeroed buffer each
                        let mut ranged: HashMap<usize, TokenStream> = HashMap::new();
                        let mut range_finish = TokenStream::new();
                        {
                            // (each slice variable, and its sub-slices' argument positions
                            // and bounds)
                            let mut groups: Vec<(VarId, Vec<(usize, TokenStream)>)> = Vec::new();
                            for (k, arg) in args.iter().enumerate() {
                                let Some(u) = self.active_var(arg) else {
                                    continue;
                                };
                                // (of a slice variable, not of a local buffer's cell or of
                                // another sub-slice)
                                let Some(Rhs::SubSlice {
                                    place: Place::Var(p),
                                    range,
                                }) = self.defs.get(&u).copied()
                                else {
                                    continue;
                                };
                                let p = *p;
                                if !self.body.is_active(p) || self.is_sub_slice(p) {
                                    continue;
                                }
                                let bounds = range.bounds(|o| self.operand(o));
                                match groups.iter_mut().find(|g| g.0 == p) {
                                    Some(g) => g.1.push((k, bounds)),
                                    None => groups.push((p, vec![(k, bounds)])),
                                }
                            }
                            for (p, members) in groups {
                                // (not when the slice itself is handed too: its adjoint is
                                // lent to it)
                                let whole = args.iter().enumerate().any(|(k, a)| {
                                    !members.iter().any(|m| m.0 == k)
                                        && self
                                            .active_var(a)
                                            .is_some_and(|u| self.adjoint_root(u) == p)
                                });
                                if members.len() < 2 || whole {
                                    continue;
                                }
                                lent.insert(p);
                                let Some(parent) = self.place_adjoint(Place::Var(p)) else {
                                    continue;
                                };
                                let rs = self.fresh("__ranges");
                                let names: Vec<syn::Ident> =
                                    members.iter().map(|_| self.fresh("__range")).collect();
                                let bounds = members.iter().map(|m| &m.1);
                                out.extend(quote! {
                                    let mut #rs =
                                        #rt::shadow::RangeSinks::new(&mut #parent, [#(#bounds),*]);
                                    let [#(mut #names),*] = #rs.sinks();
                                });
                                for ((k, _), name) in members.iter().zip(&names) {
                                    ranged.insert(*k, quote!(#rt::shadow::sink(&mut #name)));
                                }
                                range_finish.extend(quote!(#rs.finish();));
                            }
                        }
                        let mut next_part: HashMap<CellId, usize> = HashMap::new();
                        for (k, arg) in args.iter().enumerate() {
                            if let Some(sink) = ranged.remove(&k) {
                                sinks.push(sink);
                                continue;
                            }
                            if let Some(c) = arg.lent_cell() {
                                let d = c.adjoint();
                                let bounds: Vec<Operand> = arg.range_operands().cloned().collect();
                                bounds.iter().for_each(|b| {
                                    self.operand(b);
                                });
                                sinks.push(match arg {
                                    _ if !self.body.cells[c.0].active => {
                                        quote!(#rt::shadow::no_sink())
                                    }
                                    Operand::MutRef { alias: Some(_), .. } => {
                                        let k = next_part.entry(c).or_default();
                                        let s = &parts[&c].0[*k];
                                        *k += 1;
                                        quote!(#rt::shadow::sink(&mut #s))
                                    }
                                    Operand::MutRef { range: Some(r), .. } => {
                                        let r = r.tokens();
                                        quote!(#rt::shadow::sink(
                                            &mut #rt::shadow::sink_range(&mut #d, #r)
                                        ))
                                    }
                                    _ => quote!(#rt::shadow::sink(&mut #d)),
                                });
                                continue;
                            }
                            sinks.push(match self.active_var(arg) {
                                Some(u) if !lent.insert(self.adjoint_root(u)) => {
                                    let t = self.fresh("__lent");
                                    let v = self.var(u);
                                    out.extend(quote!(let mut #t = #rt::adjoint_zero(&#v);));
                                    lent_again.push((u, t.clone()));
                                    quote!(#rt::shadow::sink(&mut #t))
                                }
                                Some(u) if self.is_sub_slice(u) => {
                                    let d = self.var_adjoint(u);
                                    quote!(#rt::shadow::sink(&mut #d))
                                }
                                Some(u) if self.handed_on.contains_key(&u) => {
                                    let dc = self.handed_on[&u].adjoint();
                                    // (the local's adjoint as the value read needs it: of
                                    // its length, which an assignment may have changed)
                                    let v = self.var(u);
                                    out.extend(quote! {{
                                        #[allow(unused_imports)]
                                        use #rt::ops::{FitAny as _, FitVec as _};
                                        (&mut #rt::ops::Fit(&mut #dc, &#v)).fit();
                                    }});
                                    quote!(#rt::shadow::sink(&mut #dc))
                                }
                                Some(u) => {
                                    let d = u.adjoint();
                                    if self.initialized.insert(u) {
                                        let v = self.var(u);
                                        out.extend(quote!(let mut #d = #rt::adjoint_zero(&#v);));
                                    }
                                    quote!(#rt::shadow::sink(&mut #d))
                                }
                                None => quote!(#rt::shadow::no_sink()),
                            });
                        }
                        if self.is_recursive(func) && !writes {
                            // A call of the function itself: its pullback's type would
                            // contain itself, so the reverse sweep runs its vjp again, here.
                            // (never for a call writing a buffer: running it again writes it
                            // again)
                            let a: Vec<TokenStream> =
                                args.iter().map(|a| self.operand(a)).collect();
                            let vjp = crate::companions::call(
                                func,
                                Some("vjp_into"),
                                &a,
                                Span::call_site(),
                            );
                            out.extend(quote! {
                                let #g = {
                                    let (_, __pb) = #vjp;
                                    __pb(#dy, #(#sinks),*)
                                };
                            });
                        } else if self.borrows_owned(args) || args.iter().any(kept_lend) {
                            // The callee's pullback would borrow values the pullback closure
                            // owns: it comes from the callee's `__vjp_reborrow`, which keeps
                            // no borrow of them, and is handed them again here. In
                            // `__vjp_reborrow`'s own body that holds for the parameters handed
                            // again too, and for a callee writing a buffer (its pullback takes
                            // the buffer's shadow, never the buffer): so a helper with a `&mut`
                            // parameter handed a local buffer, nested in another, runs its
                            // forward sweep once. (`__vjp_into` then keeps a body of its own,
                            // whose pullback keeps those borrows instead of saving them.)
                            if self.rehand.is_some()
                                && (!self.borrows_local(args)
                                    || args.iter().any(|a| a.lent_cell().is_some()))
                            {
                                self.rehand_differs = true;
                                // (a method of an annotated `impl` keeps the single body: a
                                // method that is not annotated is then one error, not two)
                                if crate::companions::is_method_form(func) {
                                    self.rehand_method = true;
                                }
                            }
                            let again: Vec<TokenStream> = args
                                .iter()
                                .map(|a| match a {
                                    Operand::MutRef { keep: Some(k), .. } => {
                                        let k = self.operand(&Operand::Var(*k));
                                        quote!(#rt::again::lent(&#k))
                                    }
                                    Operand::MutRef { .. } => quote!(#rt::again::Skip),
                                    Operand::Var(v) if self.body.vars[v.0].maybe_array => {
                                        let t = self.operand(a);
                                        quote!(#rt::again::again(::core::clone::Clone::clone(&#t)))
                                    }
                                    // `&x` of a captured name a closure reads by reference
                                    // (see the runtime's `again::Strip`)
                                    Operand::Ref(v)
                                        if matches!(self.defs.get(v), Some(Rhs::Source(_))) =>
                                    {
                                        let t = self.operand(a);
                                        quote!(#rt::again::again({
                                            #[allow(unused_imports)]
                                            use #rt::again::{StripOne as _, StripTwo as _};
                                            (&&#rt::again::Strip(#t)).strip()
                                        }))
                                    }
                                    _ => {
                                        let t = self.operand(a);
                                        quote!(#rt::again::again(#t))
                                    }
                                })
                                .collect();
                            self.used_pullbacks.insert(*dst);
                            self.rehanded.insert(*dst);
                            let pb = dst.pullback();
                            out.extend(quote!(let #g = #pb(#dy, #(#sinks,)* #(#again),*);));
                        } else {
                            self.used_pullbacks.insert(*dst);
                            let pb = dst.pullback();
                            out.extend(quote!(let #g = #pb(#dy, #(#sinks),*);));
                        }
                        out.extend(range_finish);
                        for (u, t) in lent_again {
                            self.contribute(out, u, quote!(#t), true);
                        }
                        for (k, arg) in args.iter().enumerate() {
                            if let Some(u) = self.active_var(arg) {
                                let index = syn::Index::from(k);
                                if let Some(c) = self.handed_on.get(&u) {
                                    let dc = c.adjoint();
                                    out.extend(quote! {
                                        #rt::Accumulate::accumulate(&mut #dc, #g.#index);
                                    });
                                    continue;
                                }
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
                let take = if self.grown.contains(cell) {
                    quote!(#rt::ops::grown_index_take_d0)
                } else {
                    quote!(#rt::ops::index_take_d0)
                };
                match self.active_var(value) {
                    Some(u) if self.increment_values.contains(&u) => {
                        // an in-place increment: the element's adjoint passes through
                        let t = self.fresh("__t");
                        out.extend(quote!(let #t = ::core::clone::Clone::clone(&#dc[#i]);));
                        self.contribute(out, u, quote!(#t), false);
                    }
                    Some(u) => {
                        let t = self.fresh("__t");
                        out.extend(quote!(let #t = #take(&mut #dc, #i);));
                        self.contribute(out, u, quote!(#t), false);
                    }
                    None => out.extend(quote!(let _ = #take(&mut #dc, #i);)),
                }
            }
            // The element's adjoint was taken by the write that follows the growth (the
            // element rules of a grown `Vec` tolerate an adjoint of another length); the
            // adjoint shrinks back to the length before the push, so that the value the
            // `Vec` started from (`let mut v = x.to_vec();`) gets an adjoint of its length.
            // (the write after it has just left the adjoint zero)
            Stmt::Extent { cell, extent } => {
                if self.body.cells[cell.0].active {
                    let (dc, extent) = (cell.adjoint(), self.operand(extent));
                    out.extend(quote! {{
                        #[allow(unused_imports)]
                        use #rt::ops::{RefitAny as _, RefitVec as _};
                        (&mut #rt::ops::Refit(&mut #dc, #extent)).refit();
                    }});
                }
            }
            Stmt::Grow { cell, len, .. } => {
                if self.body.cells[cell.0].active {
                    let (dc, len) = (cell.adjoint(), self.operand(len));
                    out.extend(quote!(#rt::ops::grown_shrink_d0(&mut #dc, #len);));
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
                head,
                body,
                count,
                flow,
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
                // element adjoints fixed across the loop, kept in locals (see `hoist`)
                let (mut before, mut after) = (TokenStream::new(), TokenStream::new());
                let mut hoisted = Vec::new();
                if self.carried.is_empty() {
                    let stable: Vec<VarId> = (self.loop_items.iter().copied())
                        .chain((0..self.params).map(VarId))
                        .collect();
                    for (dst, place, index) in super::hoist::hoistable(body, &stable) {
                        let grown = matches!(place, Place::Cell(c) if self.grown.contains(&c));
                        if !self.body.is_active(dst) || self.body.vars[dst.0].maybe_array || grown {
                            continue;
                        }
                        let i = self.var(index);
                        let Some((adj, i)) = self.element_adjoint(place, i) else {
                            continue;
                        };
                        let acc = self.fresh("__acc");
                        before
                            .extend(quote!(let mut #acc = #rt::ops::index_take_d0(&mut #adj, #i);));
                        after.extend(quote!(#rt::ops::index_one_d0(&mut #adj, #i, &#acc);));
                        self.hoisted.insert(dst, acc);
                        hoisted.push(dst);
                    }
                }
                if let Some((item, _)) = range {
                    self.loop_items.push(item);
                }
                let b = self.rev_block(body, None);
                if range.is_some() {
                    self.loop_items.pop();
                }
                for dst in hoisted {
                    self.hoisted.remove(&dst);
                }
                if b.is_empty() {
                    return;
                }
                // A range walked to its end: its trip count is the range's length,
                // computed again from its bounds rather than saved.
                let walked = match head {
                    LoopHead::For {
                        iter,
                        start: Some(_),
                        ..
                    } if flow.is_none() && pure_cheap(iter) => Some(iter),
                    _ => None,
                };
                let n = match walked {
                    Some(iter) => {
                        for u in VarId::mentioned_in(iter) {
                            self.used.insert(u);
                        }
                        quote!(::core::iter::Iterator::size_hint(&(#iter)).0)
                    }
                    None => self.var(*count),
                };
                out.extend(before);
                match range {
                    Some((item, start)) => {
                        let (id, start) = (item.ident(), self.operand(start));
                        // slices read through parts of the loop's length (see `segments`)
                        let plan = if walked.is_some() && self.carried.is_empty() {
                            super::segments::plan(self, body, item)
                        } else {
                            Vec::new()
                        };
                        let bound = if plan.is_empty() {
                            None
                        } else {
                            let (count, k) = (self.fresh("__n"), self.fresh("__k"));
                            super::segments::bind(self, &plan, &start, &count, &k, &b)
                                .map(|(parts, pins)| (parts, pins, count, k))
                        };
                        match bound {
                            Some((parts, pins, count, k)) => out.extend(quote! {
                                let #count: usize = #n;
                                if #count != 0 {
                                    #parts
                                    for #k in (0..#count).rev() {
                                        let #id = #rt::saved::RangeIndex::offset(#start, #k);
                                        #pins
                                        #b
                                    }
                                }
                            }),
                            None => out.extend(
                                quote!(for #id in #rt::saved::range_back(#start, #n) { #b }),
                            ),
                        }
                    }
                    None => out.extend(quote!(for _ in 0..#n { #b })),
                }
                out.extend(after);
            }
        }
    }
}

/// A `&mut` parameter handed on as it is, with what a reading callee is handed again.
fn kept_lend(a: &Operand) -> bool {
    matches!(a, Operand::MutRef { keep: Some(_), .. })
}

/// Whether the function's output is, or holds, `v`.
fn fn_output_mentions(output: &Value, v: VarId) -> bool {
    match output {
        Value::Var(o) => *o == v,
        Value::Tuple(items) => items.iter().any(|i| fn_output_mentions(i, v)),
        Value::Ref(inner) => fn_output_mentions(inner, v),
        Value::Inline(_) => false,
    }
}
