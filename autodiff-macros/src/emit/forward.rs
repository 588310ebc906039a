//! The forward sweep: each definition's right-hand side, saves of the values the reverse
//! sweep reads (an `Option` slot in a branch, a typed stack in a loop), loops, and the
//! declarations of cells and slots.

use super::*;

/// `vec![x; n]` of a float literal `x`: the same `Vec` in a buffer of the runtime's pool
/// (`pool::filled(x, n, || vec![x; n])`), which the pullback that keeps it gives back where
/// it ends (see `give_backs`). A helper called in a loop keeps each call's buffers from the
/// forward sweep to the reverse, more allocations alive at once than the system allocator
/// serves quickly.
pub(crate) fn pooled_vec(ts: &TokenStream) -> Option<TokenStream> {
    let mut tokens = ts.clone().into_iter();
    match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Ident(v)), Some(TokenTree::Punct(b)))
            if v == "vec" && b.as_char() == '!' => {}
        _ => return None,
    }
    let syn::Expr::Macro(m) = syn::parse2::<syn::Expr>(ts.clone()).ok()? else {
        return None;
    };
    let (x, n) = crate::lower::float_repeat(&m.mac)?;
    // (`n` is evaluated again where the pool has no buffer: only an expression without
    // effects)
    if !super::pure_cheap(&n.to_token_stream()) {
        return None;
    }
    let rt = rt();
    // (the `vec!` as written makes the buffer where the pool has none: the same
    // allocation as before, and Clippy sees the `vec!` it lints used as a `Vec`)
    let span = syn::spanned::Spanned::span(&m.mac.path);
    Some(quote::quote_spanned!(span=> #rt::pool::filled(#x, #n, || #ts)))
}

/// The expression a variable's definition evaluates (the forward sweep's right-hand side).
/// `maybe_array`: the value may be an array (operators go through the runtime, by reference).
/// `rhs` as an expression; `body` says which cells are `&mut` parameters, whose snapshot is
/// an owned copy of what they point to.
pub(crate) fn rhs_tokens(rhs: &Rhs, span: Span, maybe_array: bool, body: &Body) -> TokenStream {
    let rt = rt();
    match rhs {
        Rhs::Copy(o) if maybe_array => {
            // method syntax: `r.clone()` of a reference `&Array` clones the array
            let o = o.tokens();
            quote!(#o.clone())
        }
        Rhs::Copy(o) => o.tokens(),
        Rhs::Owned { of, method } => {
            let o = of.tokens();
            quote::quote_spanned!(span=> #o.#method())
        }
        Rhs::Inactive(ts) => pooled_vec(ts).unwrap_or_else(|| ts.clone()),
        Rhs::ReadCell(c) if body.cells[c.0].bound_to.is_some() => {
            let c = c.ident();
            quote!(::std::borrow::ToOwned::to_owned(&*#c))
        }
        Rhs::ReadCell(c) => {
            let c = c.ident();
            quote!(::core::clone::Clone::clone(&#c))
        }
        Rhs::ReadIndex { place, index } if maybe_array => {
            // an element that may be a struct or an array: copied if `Copy`, else borrowed
            let p = Emitter::place_tokens(*place);
            let i = index.tokens();
            quote!(#rt::__autodiff_project!(#p[#i]))
        }
        Rhs::SubSlice { place, range } => {
            let p = Emitter::place_tokens(*place);
            let r = range.tokens();
            quote::quote_spanned!(span=> &#p[#r])
        }
        Rhs::ReadIndex { place, index } => {
            let p = Emitter::place_tokens(*place);
            let i = index.tokens();
            quote!(#p[#i])
        }
        Rhs::Prim(prim, args) => {
            let mut a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
            // (an array wrapped in `Some`/`Ok` may still be read by the reverse sweep)
            let wraps_array = maybe_array
                && prim
                    .rule()
                    .is_some_and(|r| std::ptr::eq(r, &crate::rules::WRAP));
            if prim
                .rule()
                .is_some_and(|r| std::ptr::eq(r, &crate::rules::WRAP_LIKE))
            {
                // (the `Option`/`Result` that says how to wrap, lent)
                let o = &a[1];
                a[1] = quote!(&#o);
            }
            if prim.rule().is_some_and(crate::rules::moves_receiver) || wraps_array {
                let o = &a[0];
                a[0] = quote!(::core::clone::Clone::clone(&#o));
            }
            match prim {
                Prim::Binary { rule, .. } if maybe_array => {
                    // a float literal takes the other operand's element type
                    let literal = Operand::is_literal;
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
                    let f = format_ident!("{}", rule.name);
                    quote::quote_spanned!(span=> #rt::ops::tensor::#f(&#l, &#r))
                }
                Prim::Neg if maybe_array => {
                    let x = &a[0];
                    quote::quote_spanned!(span=> #rt::ops::tensor::neg(&#x))
                }
                Prim::Method {
                    method,
                    rule,
                    qualified,
                    ..
                } if (maybe_array || *qualified) && !crate::rules::is_option_rule(rule) => {
                    // the runtime's elementwise function: no method call on a type the
                    // compiler may not know yet (`Variable::new(1.5)` is a `{float}`)
                    quote::quote_spanned!(span=> #rt::ops::tensor::#method(#(&#a),*))
                }
                Prim::Tensor { rule, .. } if rule.form == crate::rules::Form::Join => {
                    let f = format_ident!("{}", rule.name);
                    let (axis, parts) = (&a[0], &a[1..]);
                    quote::quote_spanned! {span=>
                        #rt::ops::tensor::#f(&#axis, &[#(#rt::ops::tensor::view(&#parts)),*])
                    }
                }
                Prim::Tensor { rule, fwd_args } => {
                    let f = format_ident!("{}", rule.name);
                    // (a shared reference parameter as it is: see `VarInfo::shared_ref`)
                    let a = (args.iter().zip(&a).take(*fwd_args)).map(|(o, t)| match o {
                        Operand::Var(v) if body.vars[v.0].shared_ref => t.clone(),
                        _ => quote!(&#t),
                    });
                    quote::quote_spanned!(span=> #rt::ops::tensor::#f(#(#a),*))
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
                // (each member a copy: the operands may be read again)
                Prim::Struct {
                    path: Some(path),
                    members,
                } => quote::quote_spanned!(span=> #path {
                    #(#members: ::core::clone::Clone::clone(&#a)),*
                }),
                Prim::Struct { path: None, .. } => quote::quote_spanned!(span=> (
                    #(::core::clone::Clone::clone(&#a),)*
                )),
                Prim::SetMembers { members } => {
                    // (the base owned, whether it is a value or a borrowed element)
                    let (base, values) = a.split_last().expect("a base");
                    quote::quote_spanned!(span=> {
                        #[allow(unused_imports)]
                        use #rt::saved::{OwnRef as _, OwnVal as _};
                        let mut __autodiff_s = (&#rt::saved::Own(&#base)).own();
                        #(__autodiff_s.#members = ::core::clone::Clone::clone(&#values);)*
                        __autodiff_s
                    })
                }
                Prim::Cast { ty } => {
                    let x = &a[0];
                    let is_float_name = matches!(&**ty, syn::Type::Path(p)
                        if p.path.get_ident().is_some_and(|i| i == "f32" || i == "f64"));
                    if is_float_name {
                        quote::quote_spanned!(span=> #x as #ty)
                    } else {
                        // a type parameter, which `as` cannot name
                        quote::quote_spanned!(span=> #rt::ops::cast_to::<#ty, _>(#x))
                    }
                }
            }
        }
        Rhs::Call { func, args } => {
            let a: Vec<TokenStream> = args.iter().map(Operand::tokens).collect();
            crate::companions::call(func, None, &a, span)
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

impl Emitter<'_> {
    /// Whether `rhs` reads an element of a split parameter (see `Emitter::split`).
    pub(crate) fn split_read(&self, rhs: &Rhs) -> bool {
        matches!(rhs, Rhs::ReadIndex { place: Place::Var(p), .. } if self.split.contains(p))
    }

    /// [`rhs_tokens`], an element of a split parameter read with its tangent.
    pub(crate) fn rhs(&self, rhs: &Rhs, span: Span, maybe_array: bool) -> TokenStream {
        match rhs {
            Rhs::ReadIndex {
                place: Place::Var(p),
                index,
            } if self.split.contains(p) => {
                if maybe_array {
                    self.split_refused.set(true);
                }
                let rt = rt();
                let (v, t, i) = (p.ident(), super::tangent::tangent_var(*p), index.tokens());
                let float = &self.split_float;
                quote!(#rt::dual::split::join::<#float>(#v, #t, #i))
            }
            Rhs::Inactive(ts) if !self.split.is_empty() => {
                let ts = crate::fuse::split::joined_reads(ts, &self.split, &self.split_float);
                pooled_vec(&ts).unwrap_or(ts)
            }
            _ => rhs_tokens(rhs, span, maybe_array, self.body),
        }
    }
}

impl Emitter<'_> {
    /// Whether `o` is a user's struct held by value (`VarInfo::owned_struct`).
    pub(crate) fn owned_struct(&self, o: &Operand) -> bool {
        matches!(o, Operand::Var(v) if self.body.vars[v.0].owned_struct)
    }

    /// Whether the forward sweep saves `v` for the reverse sweep (on its region's tape).
    pub(crate) fn is_saved(&self, v: VarId) -> bool {
        self.body.region_of(v) != RegionId::BODY
            && self.used.contains(&v)
            && !self.recomputed.contains(&v)
            && !self.reverse_bound.contains(&v)
    }

    /// The values and pullbacks a region saves, in the order of its tape's tuples.
    pub(crate) fn taped(&self, region: RegionId) -> (Vec<VarId>, Vec<VarId>) {
        if let Some(restored) = self.tapes.get(&region) {
            return restored.clone();
        }
        let values = (self.used.iter().copied())
            .filter(|v| self.body.region_of(*v) == region && self.is_saved(*v))
            .collect();
        let pullbacks = (self.used_pullbacks.iter().copied())
            .filter(|v| self.body.region_of(*v) == region && region != RegionId::BODY)
            .collect();
        (values, pullbacks)
    }

    /// At `v`'s definition: a copy of it for the tape, which the end of its region saves
    /// (so the value is taken where it is defined, whatever the region does with it later).
    pub(crate) fn save(&self, v: VarId) -> TokenStream {
        if !self.on_tape(v) || self.moves_to_tape(v) {
            return TokenStream::new();
        }
        let (id, k) = (v.ident(), v.taped());
        quote!(let #k = ::core::clone::Clone::clone(&#id);)
    }

    /// Whether the tape takes `v` itself at the end of its region rather than a copy made
    /// at its definition: a snapshot of a buffer (`main_term` handed as `&main_term`) that
    /// the forward sweep only lends to calls whose pullbacks keep no borrow of it (they
    /// are handed it again), so it is unchanged and free at the region's end.
    ///
    /// Also a copy of a buffer handed `&mut` to a call, made for the call's pullback to be
    /// handed again (`Lent::keep`), which nothing in the forward sweep reads.
    fn moves_to_tape(&self, v: VarId) -> bool {
        // (counted once for every variable: asked of each snapshot, one walk of the body
        // per question made a long body's expansion quadratic)
        let moves = || {
            self.tape_moves.get_or_init(|| super::TapeMoves {
                mentions: super::hoist::var_mentions(&self.body.block),
                lent: super::hoist::lent_counts(&self.body.block, &self.rehanded),
            })
        };
        let count = |m: &HashMap<VarId, usize>| m.get(&v).copied().unwrap_or(0);
        match self.defs.get(&v) {
            Some(Rhs::ReadCell(_)) => {
                let m = moves();
                count(&m.mentions) == count(&m.lent)
            }
            Some(Rhs::Inactive(_)) => self.keeps.contains(&v) && count(&moves().mentions) == 0,
            _ => false,
        }
    }

    /// Whether `v` is kept on its region's tape for the reverse sweep.
    fn on_tape(&self, v: VarId) -> bool {
        self.is_saved(v) && self.taped(self.body.region_of(v)).0.contains(&v)
    }

    /// As [`Emitter::save`], for a loop's item: owned (an item borrowed from a constant
    /// sequence keeps its referent, so the pullback holds no borrow of the argument).
    pub(crate) fn save_item(&self, v: VarId) -> TokenStream {
        if !self.on_tape(v) {
            return TokenStream::new();
        }
        let (id, k) = (v.ident(), v.taped());
        quote! {
            let #k = {
                #[allow(unused_imports)]
                use ::autodiff::__private::saved::{OwnRef as _, OwnVal as _};
                (&::autodiff::__private::saved::Own(&#id)).own()
            };
        }
    }

    /// The tuple of every value and pullback the reverse sweep of `region` restores.
    fn saved_items(&self, region: RegionId) -> TokenStream {
        let (values, pullbacks) = self.taped(region);
        let items = (values.iter())
            .map(|v| {
                if self.moves_to_tape(*v) {
                    v.ident()
                } else {
                    v.taped()
                }
            })
            .chain(pullbacks.iter().map(|v| v.pullback()));
        quote!((#(#items,)*))
    }

    /// At the end of a region: one tuple of every value and pullback its reverse sweep
    /// restores, pushed on the region's stack (in a loop) or stored in its slot (in a
    /// branch). One stack per region rather than per value: one allocation and one
    /// capacity check per iteration however many values it saves.
    pub(crate) fn save_region(&self, region: RegionId) -> TokenStream {
        let (values, pullbacks) = self.taped(region);
        if values.is_empty() && pullbacks.is_empty() {
            return TokenStream::new();
        }
        let items = self.saved_items(region);
        let tape = self.slot(region);
        if self.body.regions[region.0].in_loop {
            quote!(#tape.push(#items);)
        } else if let Some(arm) = self.shared_slot(region) {
            let rt = rt();
            let arm = if arm { quote!(Else) } else { quote!(Then) };
            quote!(#tape = #rt::saved::Arm::#arm(#items);)
        } else {
            quote!(#tape = ::core::option::Option::Some(#items);)
        }
    }

    /// The stack or slot a region saves its values in: a branch of an `if` outside loops
    /// uses the `then` branch's, shared with the other branch.
    pub(crate) fn slot(&self, region: RegionId) -> syn::Ident {
        match self.arms.get(&region) {
            Some((then, _)) => then.tape(),
            None => region.tape(),
        }
    }

    /// Whether both branches of the `if` whose branch `region` is save values, in one
    /// `saved::Arm` slot (otherwise the one that saves has the slot, an `Option`, to
    /// itself); and whether `region` is the `else`. Known once the reverse sweep is written.
    pub(crate) fn shared_slot(&self, region: RegionId) -> Option<bool> {
        let (then, arm) = *self.arms.get(&region)?;
        let other = self
            .arms
            .iter()
            .find(|(r, (t, _))| *t == then && **r != region)?;
        let saves = |r: RegionId| {
            let (values, pullbacks) = self.taped(r);
            !values.is_empty() || !pullbacks.is_empty()
        };
        (saves(region) && saves(*other.0)).then_some(arm)
    }

    pub(crate) fn place_tokens(place: Place) -> TokenStream {
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

    pub(crate) fn fwd_block(&self, block: &Block) -> TokenStream {
        let mut out = self.fwd_block_unsaved(block);
        out.extend(self.save_region(block.region));
        out
    }

    /// [`Self::fwd_block`] without saving the region's values (see [`Self::saved_items`]).
    fn fwd_block_unsaved(&self, block: &Block) -> TokenStream {
        let mut out = TokenStream::new();
        for stmt in &block.stmts {
            self.fwd_stmt(&mut out, stmt);
        }
        out
    }

    /// The function's top-level block, as [`Self::fwd_block`] writes it, with each cell
    /// declared just before the first statement that names it.
    pub(crate) fn fwd_top_block(
        &self,
        block: &Block,
        declared: &mut super::Declared,
    ) -> TokenStream {
        self.fwd_stmts(&block.stmts, declared);
        declared.push(self.save_region(block.region));
        declared.finish()
    }

    /// Top-level statements, one at a time into `declared` (see [`super::Declared`]).
    pub(crate) fn fwd_stmts(&self, stmts: &[Stmt], declared: &mut super::Declared) {
        for stmt in stmts {
            let mut one = TokenStream::new();
            self.fwd_stmt(&mut one, stmt);
            declared.push(one);
        }
    }

    pub(crate) fn fwd_stmt(&self, out: &mut TokenStream, stmt: &Stmt) {
        match stmt {
            Stmt::Effect(ts) => out.extend(ts.clone()),
            Stmt::Let { dst, ty, rhs, span } => {
                if self.keeps.contains(dst) && !self.used.contains(dst) {
                    return;
                }
                let v = dst.ident();
                let ty = ty.as_ref().map(|t| quote!(: #t));
                let span = *span;
                if let Rhs::Call { func, args } = rhs {
                    if self.used_pullbacks.contains(dst) {
                        // A differentiable `Vec` (array, …) handed over by value: the
                        // callee gets a copy (`Emitter::handed_copy`).
                        let a: Vec<TokenStream> = args
                            .iter()
                            .map(|o| match o {
                                Operand::Var(v)
                                    if self.body.is_active(*v) && self.handed_copy(*v) =>
                                {
                                    let t = o.tokens();
                                    quote::quote!(::core::clone::Clone::clone(&#t))
                                }
                                _ => o.tokens(),
                            })
                            .collect();
                        let pb = dst.pullback();
                        let form = if self.rehanded.contains(dst) {
                            "vjp_reborrow"
                        } else {
                            "vjp_into"
                        };
                        let vjp = crate::companions::call(func, Some(form), &a, span);
                        // (the call carries the user's span, the `let` the attribute's: an
                        // editor maps the user's tokens to the call only)
                        out.extend(quote::quote!(let (#v, #pb) = #vjp;));
                        out.extend(self.save(*dst));
                        return;
                    }
                }
                let value = match self.moved.get(dst) {
                    // the cell's last mention: the snapshot is the cell itself
                    Some(c) => c.ident().to_token_stream(),
                    None if self.owned_read(*dst) && !self.split_read(rhs) => {
                        let Rhs::ReadIndex { place, index } = rhs else {
                            unreachable!("an element read")
                        };
                        let (p, i) = (Emitter::place_tokens(*place), index.tokens());
                        let rt = crate::companions::rt();
                        quote::quote!({
                            #[allow(unused_imports)]
                            use #rt::saved::{OwnRef as _, OwnVal as _};
                            (&#rt::saved::Own(&#p[#i])).own()
                        })
                    }
                    None => self.rhs(rhs, span, self.body.vars[dst.0].maybe_array),
                };
                out.extend(quote::quote!(let #v #ty = #value;));
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
            Stmt::Extent { .. } => {}
            Stmt::Grow { cell, value, .. } => {
                // (a struct's a copy of the element the write after writes, as it may have no
                // `Default`; anything else's, a default that costs nothing)
                let c = cell.ident();
                let element = if self.owned_struct(value) {
                    let v = value.tokens();
                    quote!(::core::clone::Clone::clone(&#v))
                } else {
                    quote!(::core::default::Default::default())
                };
                out.extend(quote!(#c.push(#element);));
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
    pub(crate) fn fwd_loop(
        &self,
        head: &LoopHead,
        body: &Block,
        count: VarId,
        flow: Option<CellId>,
        fused: Option<TokenStream>,
    ) -> TokenStream {
        let n = format_ident!("__n{}", count.0, span = Span::mixed_site());
        // (the body once: the tape's push appended for a `for` or `loop`, or its tuple
        // returned to `extend`)
        let unsaved = self.fwd_block_unsaved(body);
        let mut b = unsaved.clone();
        b.extend(self.save_region(body.region));
        let check = flow.map(|f: CellId| {
            let f = f.ident();
            quote!(if #f == 1u8 { break; } #f = 0u8;)
        });
        let looped = match head {
            LoopHead::For { item, iter, .. } => {
                let id = item.ident();
                let save = self.save_item(*item);
                // The tape of this loop's values is reserved from the trip count.
                let (values, pullbacks) = self.taped(body.region);
                let saved: Vec<syn::Ident> = if values.is_empty() && pullbacks.is_empty() {
                    Vec::new()
                } else {
                    vec![body.region.tape()]
                };
                if saved.is_empty() || fused.is_some() {
                    // (parenthesised: a struct literal cannot begin a `for` head)
                    let iter = crate::emit::for_head(iter);
                    quote!(for #id in #iter { #save #b #n += 1; #fused #check })
                } else if flow.is_none() {
                    // A loop run to its end collects its tape with `extend`: a range's values
                    // are written without a capacity check per iteration, and with no call
                    // in the loop (`push`'s growth) the loop's floats stay in registers.
                    let items = self.saved_items(body.region);
                    let tape = &saved[0];
                    quote! {
                        #tape.extend(::core::iter::Iterator::map(
                            ::core::iter::IntoIterator::into_iter(#iter),
                            |#id| { #save #unsaved #n += 1; #items },
                        ));
                    }
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
    pub(crate) fn kept(&self, o: &Operand) -> TokenStream {
        match o {
            Operand::Var(v) if self.body.vars[v.0].maybe_array && self.used.contains(v) => {
                let id = v.ident();
                quote!(::core::clone::Clone::clone(&#id))
            }
            _ => o.tokens(),
        }
    }

    /// The cells' declarations, each with the cell's name, for [`super::Declared`] to place
    /// before the first statement that names the cell.
    pub(crate) fn cell_declarations(&self) -> Vec<(String, super::Declaration)> {
        let mut out = Vec::new();
        for (i, cell) in self.body.cells.iter().enumerate() {
            let c = CellId(i).ident();
            if let Some(p) = cell.bound_to {
                // a `&mut` parameter: the cell is the reference
                let p = p.ident();
                let tokens = if cell.bound_scalar {
                    quote!(let mut #c = ::core::array::from_mut(#p);)
                } else {
                    quote!(let mut #c = #p;)
                };
                out.push((c.to_string(), super::Declaration { tokens, head: None }));
                continue;
            }
            let decl = super::Declaration::cell(&c, cell.ty.as_deref(), cell.init.as_ref());
            out.push((c.to_string(), decl));
        }
        out
    }

    /// Declarations at the top of the forward sweep: the save slots (the cells are declared
    /// where they are first named, see [`super::Declared`]).
    pub(crate) fn declarations(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for region in 1..self.body.regions.len() {
            let region = RegionId(region);
            let (values, pullbacks) = self.taped(region);
            if values.is_empty() && pullbacks.is_empty() {
                continue;
            }
            let tape = self.slot(region);
            if self.body.regions[region.0].in_loop {
                out.extend(quote!(let mut #tape = ::std::vec::Vec::new();));
            } else if let Some(arm) = self.shared_slot(region) {
                // one slot for both branches, declared once
                if !arm {
                    let rt = rt();
                    out.extend(quote!(let mut #tape = #rt::saved::Arm::Empty;));
                }
            } else {
                out.extend(quote!(let mut #tape = ::core::option::Option::None;));
            }
        }
        out
    }
}
