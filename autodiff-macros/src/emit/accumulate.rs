//! Adjoint accumulation: first contributions declare an adjoint, later ones add into it
//! (with a pending sign where a subtraction left one); seeds; the registers of carried
//! slice adjoints; the gradients the pullback returns.

use super::*;

impl Emitter<'_> {
    /// Adds `contribution` to the adjoint of `target`. `typed` contributions (from calls
    /// and casts) may not have the adjoint's type (`NoTangent` for a callee's constant
    /// parameter), so a first one starts from a zero adjoint instead of becoming it.
    pub(crate) fn contribute(
        &mut self,
        out: &mut TokenStream,
        target: VarId,
        contribution: TokenStream,
        typed: bool,
    ) {
        self.contribute_signed(out, target, contribution, typed, false);
    }

    /// [`contribute`](Self::contribute) of the negation of `contribution` when `negated`.
    pub(crate) fn contribute_signed(
        &mut self,
        out: &mut TokenStream,
        target: VarId,
        contribution: TokenStream,
        typed: bool,
        negated: bool,
    ) {
        let rt = rt();
        if self.is_sub_slice(target) {
            // a range of another slice's adjoint: added into in place
            let d = self.var_adjoint(target);
            let contribution = if negated {
                quote!(#rt::ops::sub_d1(&#contribution))
            } else {
                contribution
            };
            out.extend(quote!(#rt::Accumulate::accumulate(&mut #d, #contribution);));
            return;
        }
        let d = target.adjoint();
        let maybe_array = self.body.vars[target.0].maybe_array;
        let contribution = if negated && (typed || maybe_array) {
            quote!(#rt::ops::sub_d1(&#contribution))
        } else {
            contribution
        };
        let negated = negated && !typed && !maybe_array;
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

    pub(crate) fn seed(&mut self, out: &mut TokenStream, value: &Value, cotangent: TokenStream) {
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
    /// A contribution to an element of a carried slice adjoint, into its registers.
    pub(crate) fn carried_contribution(
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
}

impl Emitter<'_> {
    /// The parameters' gradients, at the end of the reverse sweep. With no parameter, the
    /// pullback returns `()` by ending with a statement.
    pub(crate) fn gradients(&self, sig: &Signature) -> TokenStream {
        let rt = rt();
        let grads: Vec<TokenStream> = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let v = VarId(i);
                if !p.differentiable || self.shadows.contains(&v) {
                    quote!(#rt::NoTangent)
                } else if self.split.contains(&v) {
                    // (the tangents, as the dual gradient's are: nothing to finish)
                    if self.negated.contains(&v) || self.lazy.contains(&v) {
                        self.split_refused.set(true);
                    }
                    if self.initialized.contains(&v) {
                        v.adjoint().to_token_stream()
                    } else {
                        self.split_zeros(v)
                    }
                } else if self.initialized.contains(&v) {
                    let (d, id) = (v.adjoint(), v.ident());
                    let d = if self.negated.contains(&v) {
                        quote!(#rt::ops::sub_d1(&#d))
                    } else if self.lazy.contains(&v) {
                        quote!(#rt::complete_tangent(&#id, #d))
                    } else {
                        quote!(#d)
                    };
                    // adjoints start from −0.0: a zero gradient leaves as 0.0 (of a float
                    // written as one, without naming the parameter, which the pullback
                    // would otherwise keep for its type alone)
                    if crate::signature::is_float(&p.ty) {
                        quote!((#d + 0.0))
                    } else {
                        quote!(#rt::finish_tangent(&#id, #d))
                    }
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

    /// The zero gradient of a split parameter (see `Emitter::split`): its tangents.
    fn split_zeros(&self, v: VarId) -> TokenStream {
        let (rt, id, t) = (rt(), v.ident(), &self.split_float);
        quote!(#rt::dual::split::zeros::<#t>(#id.len()))
    }

    /// `let mut <adjoint> = <zero>;` for a variable whose adjoint is zero-initialised.
    pub(crate) fn zero_adjoint(&mut self, v: VarId) -> TokenStream {
        let rt = rt();
        let d = v.adjoint();
        let value = self.var(v);
        if self.split.contains(&v) {
            if self.lazy.contains(&v) {
                self.split_refused.set(true);
            }
            let zeros = self.split_zeros(v);
            return quote!(let mut #d = #zeros;);
        }
        if self.lazy.contains(&v) {
            quote!(let mut #d = #rt::lazy_zero_tangent(&#value);)
        } else {
            quote!(let mut #d = #rt::adjoint_zero(&#value);)
        }
    }

    /// Adjoints of cells, zero before their reverse sweep.
    /// The zero adjoints of the active local cells, at the start of the reverse sweep.
    /// With `reverse` (the sweep, in a pullback that owns the cells): a cell the sweep never
    /// reads lends its storage to its adjoint (see the runtime's `reuse`); those cells are
    /// returned beside the tokens.
    pub(crate) fn cell_adjoints(
        &self,
        reverse: Option<&TokenStream>,
    ) -> (TokenStream, HashSet<CellId>) {
        let rt = rt();
        let mut read: HashSet<CellId> = reverse
            .map(|r| CellId::mentioned_in(r).into_iter().collect())
            .unwrap_or_default();
        // (a value of the forward sweep the reverse names that borrows an element of a
        // cell, `adjoint_zero(&v)` of a read nothing else needs: the cell is read too)
        for v in reverse.map(VarId::mentioned_in).unwrap_or_default() {
            let mut at = v;
            loop {
                match self.defs.get(&at) {
                    Some(Rhs::Member { base, .. }) => at = *base,
                    Some(Rhs::ReadIndex {
                        place: Place::Cell(c),
                        ..
                    }) if self.borrows(at) => {
                        read.insert(*c);
                        break;
                    }
                    _ => break,
                }
            }
        }
        let read_vars: HashSet<VarId> = match reverse {
            Some(r) if !self.moved.is_empty() => VarId::mentioned_in(r).into_iter().collect(),
            _ => HashSet::new(),
        };
        let mut out = TokenStream::new();
        let mut lent = HashSet::new();
        for (i, cell) in self.body.cells.iter().enumerate() {
            // a `&mut` parameter's adjoint is the caller's shadow, handed to the pullback
            if cell.active && cell.bound_to.is_none() {
                let (c, d) = (CellId(i).ident(), CellId(i).adjoint());
                // (a cell moved into its last snapshot: the adjoint shaped after that, in its
                // storage when the sweep does not read it)
                let snapshot = (self.moved.iter()).find_map(|(v, k)| (k.0 == i).then_some(*v));
                let (c, unread) = match snapshot {
                    Some(v) => (v.ident(), !read_vars.contains(&v)),
                    None => (c, !read.contains(&CellId(i))),
                };
                if snapshot.is_some() && !unread {
                    out.extend(quote!(let mut #d = #rt::adjoint_zero(&#c);));
                    continue;
                }
                if reverse.is_some() && unread {
                    lent.insert(CellId(i));
                    out.extend(quote! {
                        let mut #d = {
                            #[allow(unused_imports)]
                            use #rt::reuse::{ReuseAny as _, ReuseVec as _};
                            #rt::reuse::Reuse(#c).adjoint()
                        };
                    });
                } else {
                    out.extend(quote!(let mut #d = #rt::adjoint_zero(&#c);));
                }
            }
        }
        (out, lent)
    }
}
