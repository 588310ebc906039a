//! Expressions: paths, operators, fields, indexing and assignment.

use super::*;

impl Lowering<'_> {
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
                            Some(Binding::Closure(k)) => {
                                return match &self.closures[k].value {
                                    Some(v) => v.clone(),
                                    None => self.unsupported(e, diag::CLOSURE_NOT_CALLED),
                                };
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
                let reference = self.inactive(
                    quote!(::autodiff::__private::__autodiff_source_handle!(#place)),
                    e.span(),
                );
                let Value::Var(r) = reference else {
                    unreachable!("a variable")
                };
                let v = self.new_var(true);
                self.push(v, None, Rhs::Source(r), e.span());
                return Value::Var(v);
            }
            syn::Expr::Unsafe(u) => {
                return self.unsupported(&u.unsafe_token, diag::UNSAFE_BLOCK);
            }
            _ => {}
        }
        if !self.references_active(e) && !expr_may_exit(e) {
            let v = self.verbatim(e);
            if let (syn::Expr::Struct(_), Value::Var(v)) = (e, &v) {
                // a struct written here (`let m = Model { scale: 1.5 };`): of a struct
                // type, so its methods called with differentiable values are those of an
                // `impl` (annotated, or refused with that message), not std's
                self.made_values.insert(*v);
            }
            return v;
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
            syn::Expr::Call(c) => match vec_literal_items(c) {
                // `vec![a, b, c]` (see `vec_literals`): a local `Vec` holding the elements
                Some(a) => {
                    let items = a.elems.iter().map(|x| self.operand_of(x)).collect();
                    self.literal_cell(e, node_key(a), items, true)
                }
                None => self.call(e, c),
            },
            syn::Expr::Cast(c) => {
                let float_target = match &*c.ty {
                    syn::Type::Path(p) => p.path.get_ident().is_some_and(|i| {
                        let name = i.to_string();
                        prims::is_float_type_name(&name) || self.type_params.contains(&name)
                    }),
                    _ => false,
                };
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
                    Value::Tuple(items) if (index.index as usize) < items.len() => {
                        items[index.index as usize].clone()
                    }
                    v if !self.is_active(&v) => {
                        // an inactive value (or one already reported as an error)
                        let base = v.tokens();
                        self.inactive(quote!(#base.#index), e.span())
                    }
                    Value::Var(base) => {
                        let field = self.new_var(true);
                        self.push(
                            field,
                            None,
                            Rhs::Field {
                                base,
                                index: index.index,
                            },
                            e.span(),
                        );
                        Value::Var(field)
                    }
                    _ => self.unsupported(e, diag::FIELD_OF_VALUE),
                },
                syn::Member::Named(_) => match self.expr(&f.base) {
                    v if !self.is_active(&v) => {
                        let base = v.tokens();
                        let member = &f.member;
                        self.inactive(quote!(#base.#member), e.span())
                    }
                    Value::Var(base) => {
                        let field = self.new_var(true);
                        self.push(
                            field,
                            None,
                            Rhs::Member {
                                base,
                                member: f.member.clone(),
                            },
                            e.span(),
                        );
                        Value::Var(field)
                    }
                    _ => self.unsupported(e, diag::FIELD_OF_VALUE),
                },
            },
            syn::Expr::Block(b) if b.label.is_none() => {
                self.scopes.push(HashMap::new());
                let v = self.block_contents(&b.block.stmts, false);
                self.scopes.pop();
                v
            }
            syn::Expr::Block(b) => self.labeled_block(b),
            syn::Expr::Index(ix) => self.index(e, ix),
            syn::Expr::Assign(a) => self.assign(&a.left, &a.right, None, e),
            syn::Expr::If(i) => self.if_expr(i),
            syn::Expr::Match(m) => self.match_expr(m),
            syn::Expr::Try(t) => self.try_expr(t),
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
            // (`vec![a, b, c]` was rewritten before lowering, see `vec_literals`)
            syn::Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                self.unsupported(&m.mac, diag::ACTIVE_VEC_REPEAT)
            }
            // (a truth, text or `()`: read as written, like a comparison)
            syn::Expr::Macro(m) if prims::is_value_free_macro(&m.mac) => self.verbatim(e),
            syn::Expr::Macro(m) => self.unsupported(&m.mac, diag::MACRO_INVOCATION),
            syn::Expr::Closure(_) => self.unsupported(e, diag::CLOSURE_EXPRESSION),
            syn::Expr::Reference(r) => self.expr(&r.expr),
            syn::Expr::Array(a) => {
                let items = a.elems.iter().map(|x| self.operand_of(x)).collect();
                self.literal_cell(e, node_key(a), items, false)
            }
            syn::Expr::Repeat(r) => self.array_repeat(e, r),
            syn::Expr::Struct(s) => self.struct_literal(e, s),
            _ => self.unsupported(e, diag::UNSUPPORTED_EXPRESSION),
        }
    }

    /// A comparison: kept as written, except that a local `let mut` binding compared with
    /// another or with a literal reads the cell's snapshot. The branch it decides then
    /// depends on a value the reverse sweep already has (`if y > 0.5 { y -= … }` saves
    /// `y` once, and the reverse sweep compares again), not on a `bool` saved apart.
    pub(super) fn comparison(&mut self, e: &syn::Expr, b: &syn::ExprBinary) -> Value {
        let side = |l: &Self, x: &syn::Expr| -> Option<Option<CellId>> {
            match x {
                syn::Expr::Lit(_) => Some(None),
                syn::Expr::Path(p) if p.qself.is_none() => {
                    match l.lookup(&p.path.get_ident()?.to_string())? {
                        Binding::Cell(c) => Some(Some(*c)),
                        Binding::Value(Value::Var(_)) => Some(None),
                        Binding::Value(_) | Binding::Closure(_) => None,
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

    pub(super) fn binary(&mut self, e: &syn::Expr, b: &syn::ExprBinary) -> Value {
        use syn::BinOp::*;
        let (rule, compound): (&'static Rule, bool) = match b.op {
            Add(_) => (&rules::ADD, false),
            Sub(_) => (&rules::SUB, false),
            Mul(_) => (&rules::MUL, false),
            Div(_) => (&rules::DIV, false),
            Rem(_) => (&rules::REM, false),
            AddAssign(_) => (&rules::ADD, true),
            SubAssign(_) => (&rules::SUB, true),
            MulAssign(_) => (&rules::MUL, true),
            DivAssign(_) => (&rules::DIV, true),
            RemAssign(_) => (&rules::REM, true),
            // Comparisons and logic: a `bool`, no derivative.
            Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) | Ne(_) => return self.comparison(e, b),
            _ => return self.verbatim(e),
        };
        if compound {
            let op: syn::BinOp = match b.op {
                AddAssign(_) => syn::parse_quote!(+),
                SubAssign(_) => syn::parse_quote!(-),
                MulAssign(_) => syn::parse_quote!(*),
                DivAssign(_) => syn::parse_quote!(/),
                _ => syn::parse_quote!(%),
            };
            return self.assign(&b.left, &b.right, Some((rule, op)), e);
        }
        let l = self.operand_of(&b.left);
        let r = self.operand_of(&b.right);
        if let Some(v) = self.struct_operator(e, b, &l, &r) {
            return v;
        }
        // (an integer literal on either side makes it integer arithmetic, which Rust never
        // mixes with floats: `s.steps + 1` of a struct's counter)
        let integer = integer_literal(&b.left) || integer_literal(&b.right);
        if integer || !self.operand_active(&l) && !self.operand_active(&r) {
            // constants on both sides (an integer computed from a cast, …): as written
            let (lt, rt, op) = (l.tokens(), r.tokens(), &b.op);
            return self.inactive(quote_spanned!(e.span()=> #lt #op #rt), e.span());
        }
        if std::ptr::eq(rule, &rules::REM)
            && (self.operand_maybe_array(&l) || self.operand_maybe_array(&r))
        {
            return self.unsupported(&b.op, diag::REM_OF_ARRAYS);
        }
        self.prim(Prim::Binary { rule, op: b.op }, vec![l, r], e.span())
    }

    /// The cell or variable a place expression (`x`, `v`) names.
    pub(super) fn place(&mut self, base: &syn::Expr) -> Option<Place> {
        let syn::Expr::Path(p) = base else {
            return None;
        };
        let id = p.path.get_ident()?;
        match self.lookup(&id.to_string())? {
            Binding::Cell(c) => Some(Place::Cell(*c)),
            Binding::Value(Value::Var(v)) => Some(Place::Var(*v)),
            // a row a loop over rows is bound to (`for row in m.iter()`, `|r| r.iter()…`):
            // a reference to an element that is itself a sequence, borrowed (or copied when
            // it is an array) and read through
            Binding::Value(Value::Ref(inner)) => match **inner {
                Value::Var(v) => {
                    self.vars[v.0].maybe_array = true;
                    self.rows.insert(v);
                    Some(Place::Var(v))
                }
                _ => None,
            },
            Binding::Value(_) | Binding::Closure(_) => None,
        }
    }

    pub(super) fn place_active(&self, p: Place) -> bool {
        match p {
            Place::Var(v) => self.vars[v.0].active,
            Place::Cell(c) => self.cells[c.0].active,
        }
    }

    pub(super) fn index(&mut self, e: &syn::Expr, ix: &syn::ExprIndex) -> Value {
        let place = match self.place(&ix.expr) {
            Some(place) => place,
            // a constant or static table (`COEFFS[k]`): a constant (its index is an
            // integer, with no derivative, however it was computed)
            None if matches!(&*ix.expr, syn::Expr::Path(p) if p
                .path
                .get_ident()
                .is_none_or(|id| self.lookup(&id.to_string()).is_none())) =>
            {
                return self.verbatim(e);
            }
            // `m[i][j]`, `f(x)[k]`, `a.shape()[1]`: an element of the value the expression
            // makes
            None => match self.expr_for_index(&ix.expr).deref() {
                Value::Var(v) if matches!(&*ix.expr, syn::Expr::Index(_)) => {
                    // a row (`m[i]` of `m[i][j]`): borrowed, or copied when it is `Copy`
                    // (an array), whatever its type; its elements are scalars
                    self.vars[v.0].maybe_array = true;
                    self.rows.insert(v);
                    Place::Var(v)
                }
                Value::Var(v) => Place::Var(v),
                _ => return self.unsupported(&ix.expr, diag::INDEX_UNNAMED),
            },
        };
        if let syn::Expr::Range(r) = &*ix.index {
            return self.sub_slice(e, place, r);
        }
        if self.value_references_active(&ix.index) && !matches!(&*ix.index, syn::Expr::Cast(_)) {
            self.errors.push_spanned(&ix.index, diag::ACTIVE_INDEX);
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
        if matches!(place, Place::Cell(c) if self.struct_cells.contains(&c))
            || self.local_struct_vec(place)
        {
            // a struct pushed onto a local `Vec`: borrowed
            self.vars[v.0].maybe_array = true;
            self.vars[v.0].struct_element = true;
        }
        if let Place::Var(p) = place {
            if self.vec_rows.contains(&p) {
                // a row that is a `Vec`: borrowed, its elements read through it
                self.vars[v.0].maybe_array = true;
            }
            if self.rows.contains(&p) {
                // an element of a row (`m[i][j]`): a scalar
                self.vars[v.0].maybe_array = false;
            }
        }
        if let Some(k) = key {
            self.element_reads.insert(k, v);
        }
        Value::Var(v)
    }

    /// `left = right`, or `left op= right` when `compound` is given.
    pub(super) fn assign(
        &mut self,
        left: &syn::Expr,
        right: &syn::Expr,
        compound: Option<(&'static Rule, syn::BinOp)>,
        e: &syn::Expr,
    ) -> Value {
        let write_error = diag::WRITE_TARGET;
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
                self.record_extent(cell, &value, e.span());
                let after = value.clone();
                self.write_cell(cell, value);
                self.record_extent(cell, &after, e.span());
            }
            syn::Expr::Index(ix) => {
                if let syn::Expr::Index(row) = &*ix.expr {
                    // `m[i][j] = v`: the row copied out, written, and written back
                    match self.nested_place(row) {
                        None => return self.unsupported(left, write_error),
                        // deeper than `h[i][j]` in a `Vec` of `Vec`s
                        Some(c)
                            if self.vec_cells.contains(&c)
                                && !matches!(&*row.expr, syn::Expr::Path(_)) =>
                        {
                            return self.unsupported(left, diag::NESTED_VEC);
                        }
                        Some(_) => {}
                    }
                    let value = self.operand_of(right);
                    self.write_nested(ix, value, compound, e);
                    return Value::Tuple(Vec::new());
                }
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
            syn::Expr::Field(f) => {
                if self.member_write(f, right, compound, e).is_none() {
                    return self.unsupported(left, write_error);
                }
            }
            _ => return self.unsupported(left, write_error),
        }
        Value::Tuple(Vec::new())
    }

    /// A local `Vec` of structs bound without `mut` (`let ps: Vec<P> = ….collect();`), not
    /// a parameter: its elements are borrowed when read, as the cell's it was read from.
    pub(super) fn local_struct_vec(&self, place: Place) -> bool {
        matches!(place, Place::Var(p)
            if p.0 >= self.param_names.len() && self.struct_vec_values.contains(&p))
    }

    /// `p.x = v` (also `+=` …) of a `let mut` struct, `ps[i].x = v` of an element of a
    /// local `Vec` of structs: the struct with the member replaced (`Prim::SetMembers`)
    /// written back whole.
    fn member_write(
        &mut self,
        f: &syn::ExprField,
        right: &syn::Expr,
        compound: Option<(&'static Rule, syn::BinOp)>,
        e: &syn::Expr,
    ) -> Option<()> {
        let span = e.span();
        // the struct and where it is written back
        enum Target {
            Cell(CellId),
            Element(CellId, Operand),
        }
        let target = match &*f.base {
            syn::Expr::Path(_) => match self.place(&f.base) {
                // (a tuple's component, `acc.0 += x`, as a struct's member)
                Some(Place::Cell(c))
                    if self.struct_valued_cells.contains(&c)
                        || matches!(f.member, syn::Member::Unnamed(_)) =>
                {
                    Target::Cell(c)
                }
                _ => return None,
            },
            syn::Expr::Index(ix) if !matches!(&*ix.index, syn::Expr::Range(_)) => {
                match self.place(&ix.expr) {
                    Some(Place::Cell(c)) if self.struct_cells.contains(&c) => {
                        Target::Element(c, self.operand_of(&ix.index))
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let mut value = self.operand_of(right);
        if let Some((rule, op)) = compound {
            let old = self.operand_of(&syn::Expr::Field(f.clone()));
            let v = self.prim(Prim::Binary { rule, op }, vec![old, value], span);
            value = self.operand(v, span);
        }
        let base = self.operand_of(&f.base);
        let members = vec![f.member.clone()];
        let new = self.prim(Prim::SetMembers { members }, vec![value, base], span);
        if let Value::Var(v) = new {
            self.vars[v.0].maybe_array = true;
            self.vars[v.0].owned_struct = true;
            self.made_values.insert(v);
        }
        let new = self.operand(new, span);
        match target {
            Target::Cell(cell) => self.write_cell(cell, new),
            Target::Element(cell, index) => {
                if self.operand_active(&new) {
                    self.found_active_cells
                        .insert(active_key(self.cell_keys[cell.0]));
                }
                self.snapshots.remove(&cell);
                self.block.stmts.push(Stmt::WriteIndex {
                    cell,
                    index,
                    value: new,
                });
            }
        }
        Some(())
    }

    /// `&x[a..b]` (and `x[a..]`, `x[..b]`, `x[..]`, `x[a..=b]`): a borrowed sub-slice whose
    /// adjoint is the same range of `x`'s.
    /// A sub-slice of a `let mut` buffer is one of its snapshot (whose adjoint is the
    /// buffer's); a loop that does not write the buffer takes that snapshot once, before it
    /// (`lower::invariant`).
    fn sub_slice(&mut self, e: &syn::Expr, place: Place, r: &syn::ExprRange) -> Value {
        let place = match place {
            Place::Cell(cell) => Place::Var(self.read_cell(cell, e.span())),
            p @ Place::Var(_) => p,
        };
        let range = self.slice_range(r);
        let v = self.new_var(self.place_active(place));
        self.push(v, None, Rhs::SubSlice { place, range }, e.span());
        Value::Var(v)
    }

    /// The bounds of a sub-slice's range (integers: a bound computed from a differentiable
    /// value is an error at its span).
    pub(super) fn slice_range(&mut self, r: &syn::ExprRange) -> crate::ir::SliceRange {
        for bound in r.start.iter().chain(r.end.iter()) {
            if self.value_references_active(bound) {
                self.errors.push_spanned(bound, diag::ACTIVE_INDEX);
            }
        }
        let start = r.start.as_deref().map(|b| self.operand_of(b));
        let end = r.end.as_deref().map(|b| self.operand_of(b));
        crate::ir::SliceRange {
            start,
            end,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            element: false,
        }
    }

    /// `[a, b, c]` (or `vec![a, b, c]`: `vec`) with differentiable elements: a local array
    /// (a cell) holding the elements, each written at its index, so the adjoint of element
    /// `k` goes to the value written there. The first write (the literal itself, with the
    /// elements as computed) gives the array its type and carries no adjoint.
    pub(super) fn literal_cell(
        &mut self,
        e: &syn::Expr,
        key: usize,
        items: Vec<Operand>,
        vec: bool,
    ) -> Value {
        if vec
            && items.iter().any(|i| match i {
                Operand::Var(v) => self.sequences.contains(v) && self.operand_active(i),
                _ => false,
            })
        {
            return self.unsupported(e, diag::VEC_OF_ROWS);
        }
        let cell = self.new_cell(None, key);
        let tokens = items.iter().map(Operand::tokens);
        let literal: syn::Expr = if vec {
            syn::parse_quote_spanned!(e.span()=> ::std::vec![#(#tokens),*])
        } else {
            syn::parse_quote_spanned!(e.span()=> [#(#tokens),*])
        };
        self.write_cell(cell, Operand::Inline(literal));
        for (k, item) in items.into_iter().enumerate() {
            if !self.operand_active(&item) {
                continue;
            }
            self.found_active_cells
                .insert(active_key(self.cell_keys[cell.0]));
            self.snapshots.remove(&cell);
            self.block.stmts.push(Stmt::WriteIndex {
                cell,
                index: Operand::Inline(syn::parse_quote!(#k)),
                value: item,
            });
        }
        let v = self.read_cell(cell, e.span());
        if vec {
            // (a `Vec`, whatever its elements: `vec![r0, r1]` of it is refused above)
            self.vars[v.0].maybe_array = true;
            self.sequences.insert(v);
        }
        Value::Var(v)
    }

    /// `[x; N]` with a differentiable `x`: for a literal length, the array `[x, x, …]`.
    fn array_repeat(&mut self, e: &syn::Expr, r: &syn::ExprRepeat) -> Value {
        let n = match &*r.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse::<usize>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n <= 64 => {
                let item = self.operand_of(&r.expr);
                self.literal_cell(e, node_key(r), vec![item; n], false)
            }
            _ => self.unsupported(e, diag::ACTIVE_REPEAT),
        }
    }

    /// The local array (cell) a nested element place `m[i]…` is in, if it is one.
    fn nested_place(&mut self, ix: &syn::ExprIndex) -> Option<CellId> {
        match &*ix.expr {
            syn::Expr::Index(inner) => self.nested_place(inner),
            base => match self.place(base)? {
                Place::Cell(c) => Some(c),
                Place::Var(_) => None,
            },
        }
    }

    /// `place[index] = value` (or `op=`) where `place` is itself an element (`m[i]`) of a
    /// local array of arrays: the row is copied into a cell of its own, its element
    /// written, and the row written back; the adjoints follow the same copies.
    fn write_nested(
        &mut self,
        ix: &syn::ExprIndex,
        value: Operand,
        compound: Option<(&'static Rule, syn::BinOp)>,
        e: &syn::Expr,
    ) {
        match &*ix.expr {
            syn::Expr::Index(row_ix) => {
                let row = match self.owned_row(row_ix, e) {
                    Some(row) => row,
                    None => self.operand_of(&syn::Expr::Index(row_ix.clone())),
                };
                let cell = self.new_cell(None, node_key(ix));
                self.write_cell(cell, row);
                let index = self.operand_of(&ix.index);
                let mut value = value;
                if let Some((rule, op)) = compound {
                    let old = self.new_var(self.cells[cell.0].active);
                    let rhs = Rhs::ReadIndex {
                        place: Place::Cell(cell),
                        index: index.clone(),
                    };
                    self.push(old, None, rhs, e.span());
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
                let new_row = Operand::Var(self.read_cell(cell, e.span()));
                self.write_nested(row_ix, new_row, None, e);
            }
            base => {
                let Some(Place::Cell(cell)) = self.place(base) else {
                    self.errors.push_spanned(ix, diag::WRITE_TARGET);
                    return;
                };
                let index = self.operand_of(&ix.index);
                if self.operand_active(&value) {
                    self.found_active_cells
                        .insert(active_key(self.cell_keys[cell.0]));
                }
                self.snapshots.remove(&cell);
                self.block
                    .stmts
                    .push(Stmt::WriteIndex { cell, index, value });
            }
        }
    }

    /// The value of `base` in `base[j]`: a row of a local `Vec` of `Vec`s cannot be
    /// copied out (reported); anything else is lowered as usual.
    fn expr_for_index(&mut self, base: &syn::Expr) -> Value {
        if let syn::Expr::Index(row) = base {
            if let Some(Operand::Var(v)) = self.owned_row(row, base) {
                return Value::Var(v);
            }
            if let Some(c) = self.nested_place(row) {
                if self.vec_cells.contains(&c) {
                    return self.unsupported(base, diag::NESTED_VEC);
                }
            }
        }
        self.expr(base)
    }

    /// `h[i]` of a local `Vec` of `Vec`s (`vec![vec![…]; n]`): the row borrowed, then cloned
    /// (its elements are read from the copy, which is written back after a write), so no
    /// borrow of the buffer outlives the statement.
    fn owned_row(&mut self, row: &syn::ExprIndex, e: &syn::Expr) -> Option<Operand> {
        let Some(Place::Cell(cell)) = self.place(&row.expr) else {
            return None;
        };
        if !self.vec_cells.contains(&cell) || matches!(&*row.index, syn::Expr::Range(_)) {
            return None;
        }
        let index = self.operand_of(&row.index);
        let active = self.cells[cell.0].active;
        let borrowed = self.new_var(active);
        let place = Place::Cell(cell);
        self.push(borrowed, None, Rhs::ReadIndex { place, index }, e.span());
        self.vars[borrowed.0].maybe_array = true;
        let owned = self.new_var(active);
        self.push(owned, None, Rhs::Copy(Operand::Var(borrowed)), e.span());
        self.vars[owned.0].maybe_array = true;
        self.rows.insert(owned);
        Some(Operand::Var(owned))
    }
}

/// The path `vec![a, b, c]` is rewritten to before lowering (see [`vec_literals`]).
const VEC_LITERAL: [&str; 4] = ["autodiff", "__private", "ops", "vec_literal"];

/// `vec![a, b, c]` — a list, not `vec![x; n]` — rewritten before lowering as the call
/// `::autodiff::__private::ops::vec_literal([a, b, c])` (the runtime's, which makes the same
/// `Vec`), whose array the lowering reads as it reads an array literal: its elements are
/// then expressions of the body, lowered like any other, where a macro's tokens are
/// opaque. Nested literals (`vec![vec![…], …]`, `vec![[…], …]`) are left as written.
pub(super) fn vec_literals(block: &syn::Block) -> syn::Block {
    struct Rewrite;
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            let syn::Expr::Macro(m) = &*e else { return };
            let Some(items) = crate::sources::vec_list(&m.mac) else {
                return;
            };
            // (a source read, `__autodiff_source_read!(w)`, is an element like any other)
            let nested = items.iter().any(|x| match x {
                syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
                syn::Expr::Array(_) | syn::Expr::Repeat(_) => true,
                _ => false,
            });
            if items.is_empty() || nested {
                return;
            }
            let span = m.mac.path.span();
            let items = items.iter();
            *e = syn::parse_quote_spanned!(span=> ::autodiff::__private::ops::vec_literal([#(#items),*]));
        }
    }
    let mut out = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewrite, &mut out);
    out
}

/// The array of a call [`vec_literals`] wrote.
fn vec_literal_items(c: &syn::ExprCall) -> Option<&syn::ExprArray> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs = &p.path.segments;
    let ours = p.qself.is_none()
        && p.path.leading_colon.is_some()
        && segs.len() == VEC_LITERAL.len()
        && segs.iter().zip(VEC_LITERAL).all(|(s, n)| s.ident == n);
    match (ours, c.args.first()) {
        (true, Some(syn::Expr::Array(a))) if c.args.len() == 1 => Some(a),
        _ => None,
    }
}

/// The ends of a sequence named by a path or field, read as what they are: before lowering,
/// `x.first().unwrap()` becomes `&x[0]`, `x.last().unwrap()` `&x[x.len() - 1]` (also with
/// `.expect(…)`, and as values with `.copied()`/`.cloned()` before it), and
/// `x.split_first().unwrap()` / `x.split_last().unwrap()` the pair of the end and the rest
/// (`(&x[0], &x[1..])`) — forms the lowering knows, whose adjoints are the same element and
/// sub-slice of `x`'s. An empty sequence panics in the derivative as `unwrap` does in the
/// function, at the same line. Taken checked — `x.last().copied().unwrap_or(d)`, `if let
/// Some((head, rest)) = x.split_first() { … } else { … }`, and the same of `x.get(i)` — they
/// become the branch on `!x.is_empty()` (`i < x.len()`) they stand for.
pub(super) fn sequence_ends(block: &syn::Block) -> syn::Block {
    struct Rewrite;
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_local_mut(&mut self, local: &mut syn::Local) {
            // `let y: [T; 3] = core::array::from_fn(|i| …);`: the length from the type
            if let (syn::Pat::Type(pt), Some(init)) = (&local.pat, &mut local.init) {
                if let syn::Type::Array(a) = &*pt.ty {
                    if let Some(new) = array_from_fn(&init.expr, Some(&a.len)) {
                        *init.expr = new;
                    }
                }
            }
            syn::visit_mut::visit_local_mut(self, local);
        }
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            if let Some(new) = array_from_fn(e, None) {
                *e = new;
            }
            syn::visit_mut::visit_expr_mut(self, e);
            if let Some(new) = iterated_end(e) {
                *e = new;
            }
            if let Some(new) = sequence_end(e) {
                *e = new;
            }
        }
    }
    let mut out = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewrite, &mut out);
    out
}

/// `x.iter().next()` is `x.first()`; `x.iter().last()`, `x.iter().next_back()` and
/// `x.iter().rev().next()` are `x.last()`; `x.iter().rev().last()` (`.next_back()`) is
/// `x.first()` (then read as [`sequence_ends`] reads them).
fn iterated_end(e: &syn::Expr) -> Option<syn::Expr> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    if !m.args.is_empty() {
        return None;
    }
    let syn::Expr::MethodCall(inner) = &*m.receiver else {
        return None;
    };
    if !inner.args.is_empty() {
        return None;
    }
    let span = m.method.span();
    let (x, end) = match (
        inner.method.to_string().as_str(),
        m.method.to_string().as_str(),
    ) {
        ("iter", "next") => (&inner.receiver, "first"),
        ("iter", "last" | "next_back") => (&inner.receiver, "last"),
        ("rev", outer @ ("next" | "last" | "next_back")) => match &*inner.receiver {
            syn::Expr::MethodCall(it) if it.method == "iter" && it.args.is_empty() => {
                (&it.receiver, if outer == "next" { "last" } else { "first" })
            }
            _ => return None,
        },
        _ => return None,
    };
    let end = syn::Ident::new(end, span);
    Some(syn::parse_quote_spanned!(span=> #x.#end()))
}

/// An expression that may be evaluated twice to the same value, reading nothing it
/// writes: names, literals, fields, `len()` and arithmetic of these (an index).
fn plain_index(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Field(f) => plain_index(&f.base),
        syn::Expr::Paren(p) => plain_index(&p.expr),
        syn::Expr::Cast(c) => plain_index(&c.expr),
        syn::Expr::Binary(b) => {
            super::arithmetic(&b.op) && plain_index(&b.left) && plain_index(&b.right)
        }
        syn::Expr::MethodCall(m) => {
            m.method == "len" && m.args.is_empty() && plain_index(&m.receiver)
        }
        _ => false,
    }
}

/// `e` without a last `.copied()`/`.cloned()`, and whether it had one (its items are then
/// values).
fn uncopied(e: &syn::Expr) -> (&syn::Expr, bool) {
    match e {
        syn::Expr::MethodCall(c)
            if (c.method == "copied" || c.method == "cloned") && c.args.is_empty() =>
        {
            (&c.receiver, true)
        }
        other => (other, false),
    }
}

/// An element of a named sequence taken checked, as an `Option`: `seq.get(i)` of a plain
/// index, `seq.first()`, `seq.last()`, `seq.split_first()`, `seq.split_last()`.
struct Checked {
    /// Whether it is there: `(i) < seq.len()`, `!seq.is_empty()`.
    present: TokenStream,
    /// The element as the `Option` holds it (`&seq[i]`; the pair `(&seq[0], &seq[1..])`).
    by_ref: TokenStream,
    /// The element by value (`seq[i]`, after `.copied()`), if it is one element.
    by_value: Option<TokenStream>,
}

fn checked_element(e: &syn::Expr) -> Option<Checked> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    let seq = &*m.receiver;
    // (named, so reading it twice reads the same sequence)
    if !matches!(seq, syn::Expr::Path(_) | syn::Expr::Field(_)) || m.turbofish.is_some() {
        return None;
    }
    let span = m.method.span();
    let nonempty = quote_spanned!(span=> !#seq.is_empty());
    let last = quote_spanned!(span=> (#seq.len() - 1));
    let one = |present: TokenStream, i: TokenStream| Checked {
        present,
        by_ref: quote_spanned!(span=> &#seq[#i]),
        by_value: Some(quote_spanned!(span=> #seq[#i])),
    };
    let pair = |by_ref: TokenStream| Checked {
        present: nonempty.clone(),
        by_ref,
        by_value: None,
    };
    match (m.method.to_string().as_str(), m.args.len()) {
        ("get", 1) => {
            let i = &m.args[0];
            (plain_index(i) && !matches!(i, syn::Expr::Range(_)))
                .then(|| one(quote_spanned!(span=> (#i) < #seq.len()), quote!((#i))))
        }
        ("first", 0) => Some(one(nonempty.clone(), quote!(0))),
        ("last", 0) => Some(one(nonempty.clone(), last)),
        ("split_first", 0) => Some(pair(quote_spanned!(span=> (&#seq[0], &#seq[1..])))),
        ("split_last", 0) => Some(pair(quote_spanned!(span=> (&#seq[#last], &#seq[..#last])))),
        _ => None,
    }
}

/// `if let Some(v) = x.get(i) { … } else { … }` (also `Some(&v)`, over `.copied()`, and
/// of `first()`, `last()`, `split_first()`, `split_last()`): `if i < x.len() { let v =
/// &x[i]; … } else { … }`.
fn checked_get_branch(e: &syn::Expr) -> Option<syn::Expr> {
    let syn::Expr::If(branch) = e else {
        return None;
    };
    let syn::Expr::Let(binding) = &*branch.cond else {
        return None;
    };
    let syn::Pat::TupleStruct(some) = &*binding.pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 {
        return None;
    }
    let (source, by_value) = uncopied(&binding.expr);
    let c = checked_element(source)?;
    if !irrefutable(&some.elems[0]) {
        return None;
    }
    let span = binding.expr.span();
    let (pat, element) = match (&some.elems[0], by_value, &c.by_value) {
        (syn::Pat::Reference(r), false, Some(v)) => (&*r.pat, v.clone()),
        (p, false, _) => (p, c.by_ref.clone()),
        (p, true, Some(v)) => (p, v.clone()),
        (_, true, None) => return None,
    };
    let then = &branch.then_branch.stmts;
    let else_branch = branch.else_branch.as_ref().map(|(_, e)| quote!(else #e));
    let present = &c.present;
    Some(syn::parse_quote_spanned! {span=>
        if #present {
            let #pat = #element;
            #(#then)*
        } #else_branch
    })
}

/// A pattern that matches every value of its type: names, `_`, references and tuples of
/// these (what a `let` takes).
fn irrefutable(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(i) => i.subpat.is_none(),
        syn::Pat::Wild(_) => true,
        syn::Pat::Reference(r) => irrefutable(&r.pat),
        syn::Pat::Paren(p) => irrefutable(&p.pat),
        syn::Pat::Tuple(t) => t.elems.iter().all(irrefutable),
        _ => false,
    }
}

/// One rewrite of [`sequence_ends`].
fn sequence_end(e: &syn::Expr) -> Option<syn::Expr> {
    if let Some(branch) = checked_get_branch(e) {
        return Some(branch);
    }
    let syn::Expr::MethodCall(unwrap) = e else {
        return None;
    };
    // `x.iter().copied().reduce(f).unwrap_or(d)` (also `.unwrap()`, `.expect(…)`)
    if let Some(e) = reduced(unwrap) {
        return Some(e);
    }
    // `x.get(i).copied().unwrap_or(d)`, `x.get(i).unwrap_or(&d)`, `x.last().copied()
    // .unwrap_or(d)`
    if unwrap.method == "unwrap_or" && unwrap.args.len() == 1 {
        let (source, by_value) = uncopied(&unwrap.receiver);
        let c = checked_element(source)?;
        let (present, v) = (&c.present, c.by_value.as_ref()?);
        let span = unwrap.method.span();
        let default = &unwrap.args[0];
        return Some(match (by_value, default) {
            (true, d) => syn::parse_quote_spanned!(span=> if #present { #v } else { #d }),
            (false, syn::Expr::Reference(r)) if r.mutability.is_none() => {
                let d = &r.expr;
                syn::parse_quote_spanned!(span=> &(if #present { #v } else { #d }))
            }
            _ => return None,
        });
    }
    let unwraps = (unwrap.method == "unwrap" && unwrap.args.is_empty())
        || (unwrap.method == "expect" && unwrap.args.len() == 1);
    if !unwraps {
        return None;
    }
    // `x.iter().enumerate().max_by(…).unwrap()` (the index and a reference to the
    // element), and the same mapped (`.map(|(i, _)| i).unwrap()`)
    if let syn::Expr::MethodCall(end) = &*unwrap.receiver {
        if let Some(pair) = extreme_index_by(end) {
            return Some(pair);
        }
        if end.method == "map" && end.args.len() == 1 {
            if let (syn::Expr::MethodCall(inner), syn::Expr::Closure(c)) =
                (&*end.receiver, &end.args[0])
            {
                if let (Some(pair), [pat]) = (
                    extreme_index_by(inner),
                    &c.inputs.iter().collect::<Vec<_>>()[..],
                ) {
                    let body = &c.body;
                    let span = unwrap.method.span();
                    return Some(syn::parse_quote_spanned!(span=> {
                        let #pat = #pair;
                        #body
                    }));
                }
            }
        }
    }
    let (end, by_value) = uncopied(&unwrap.receiver);
    let syn::Expr::MethodCall(end) = end else {
        return None;
    };
    if let Some(extreme) = extreme_by(end) {
        let span = unwrap.method.span();
        return Some(if by_value {
            extreme
        } else {
            syn::parse_quote_spanned!(span=> &(#extreme))
        });
    }
    if !end.args.is_empty() || end.turbofish.is_some() {
        return None;
    }
    // (named, so reading it twice reads the same sequence)
    let seq = &*end.receiver;
    if !matches!(seq, syn::Expr::Path(_) | syn::Expr::Field(_)) {
        return None;
    }
    let span = unwrap.method.span();
    let last = quote_spanned!(span=> (#seq.len() - 1));
    let element = match end.method.to_string().as_str() {
        "first" => quote_spanned!(span=> #seq[0]),
        "last" => quote_spanned!(span=> #seq[#last]),
        "split_first" if !by_value => {
            return Some(syn::parse_quote_spanned!(span=> (&#seq[0], &#seq[1..])));
        }
        "split_last" if !by_value => {
            return Some(syn::parse_quote_spanned!(span=> (&#seq[#last], &#seq[..#last])));
        }
        _ => return None,
    };
    Some(if by_value {
        syn::parse_quote_spanned!(span=> #element)
    } else {
        syn::parse_quote_spanned!(span=> &#element)
    })
}

impl Lowering<'_> {
    /// `Point { x: a, y: b }` of differentiable values: a value of a derived
    /// `Differentiable` struct made of them (see `Prim::Struct`). `..base` is refused: its
    /// members are not written here.
    fn struct_literal(&mut self, e: &syn::Expr, s: &syn::ExprStruct) -> Value {
        if let Some(rest) = &s.rest {
            return self.unsupported(rest, diag::STRUCT_UPDATE);
        }
        if s.qself.is_some() {
            return self.unsupported(e, diag::UNSUPPORTED_EXPRESSION);
        }
        let members = s.fields.iter().map(|f| f.member.clone()).collect();
        let args = s.fields.iter().map(|f| self.operand_of(&f.expr)).collect();
        let path = Some(Box::new(s.path.clone()));
        let v = self.prim(Prim::Struct { path, members }, args, e.span());
        if let Value::Var(v) = v {
            self.vars[v.0].maybe_array = true;
            self.vars[v.0].owned_struct = true;
            self.made_values.insert(v);
        }
        v
    }
}

/// An integer literal (`1`, `2usize`, `-3`; not `1f64`).
fn integer_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => !matches!(i.suffix(), "f32" | "f64"),
        syn::Expr::Paren(p) => integer_literal(&p.expr),
        syn::Expr::Group(g) => integer_literal(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => integer_literal(&u.expr),
        _ => false,
    }
}

impl Lowering<'_> {
    /// Whether `e` is a path that names a unit struct (`Square`): one identifier in
    /// `CamelCase` that no local binds (a constant is `SCREAMING_CASE`).
    pub(super) fn unit_struct(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = e else {
            return false;
        };
        p.qself.is_none()
            && p.path.get_ident().is_some_and(|i| {
                let name = i.to_string();
                name.starts_with(|c: char| c.is_ascii_uppercase())
                    && name.chars().any(|c| c.is_ascii_lowercase())
                    && self.lookup(&name).is_none()
            })
    }

    /// Whether `e` names a value known to be of a user's struct type (through `(…)` and
    /// `&`): a parameter of such a type (`Lowering::struct_params`), or a local holding a
    /// struct literal's or a struct operator's value (`VarInfo::owned_struct`).
    pub(super) fn names_struct(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Paren(p) => self.names_struct(&p.expr),
            syn::Expr::Reference(r) => self.names_struct(&r.expr),
            syn::Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                let name = i.to_string();
                match self.lookup(&name) {
                    Some(Binding::Value(Value::Var(v))) => {
                        self.vars[v.0].owned_struct || self.struct_params.contains(&name)
                    }
                    Some(Binding::Value(_)) => self.struct_params.contains(&name),
                    Some(Binding::Cell(c)) => self.struct_valued_cells.contains(c),
                    _ => false,
                }
            }),
            _ => false,
        }
    }

    /// Whether `o` (the operand lowered from `e`) is known to be of a user's struct type.
    fn struct_operand(&self, e: &syn::Expr, o: &Operand) -> bool {
        self.names_struct(e)
            || matches!(o, Operand::Var(v) | Operand::Ref(v) if self.vars[v.0].owned_struct)
    }

    /// `a - b`, `a * k`, … of values of a user's struct (`impl Sub for V3` in an annotated
    /// `impl`): the trait's method, called as `a.sub(b)` through the impl's companions — a
    /// struct has no primitive arithmetic. A struct on the right only (`k * a`, `impl
    /// Mul<V3> for f64`) is refused: a float has no companions to call.
    fn struct_operator(
        &mut self,
        e: &syn::Expr,
        b: &syn::ExprBinary,
        l: &Operand,
        r: &Operand,
    ) -> Option<Value> {
        let method = match b.op {
            syn::BinOp::Add(_) => "add",
            syn::BinOp::Sub(_) => "sub",
            syn::BinOp::Mul(_) => "mul",
            syn::BinOp::Div(_) => "div",
            _ => return None,
        };
        let (left, right) = (
            self.struct_operand(&b.left, l),
            self.struct_operand(&b.right, r),
        );
        if !left {
            if right {
                return Some(self.unsupported(&b.op, diag::STRUCT_ON_THE_RIGHT));
            }
            return None;
        }
        let method = syn::Ident::new(method, b.op.span());
        let func = crate::companions::method_form(&method, None);
        let v = self.new_var(true);
        self.push(
            v,
            None,
            Rhs::Call {
                func,
                args: vec![l.clone(), r.clone()],
            },
            e.span(),
        );
        self.vars[v.0].maybe_array = true;
        self.vars[v.0].owned_struct = true;
        self.made_values.insert(v);
        Some(Value::Var(v))
    }
}

/// `x.iter().max_by(|a, b| a.partial_cmp(b).unwrap())` (also `total_cmp`, `min_by`, over
/// `.copied()`/`.cloned()`) of a named sequence: the fold it is, from the first element —
/// `x[1..].iter().copied().fold(x[0], |m, v| if v >= m { v } else { m })`, the last of equal
/// maxima as `max_by` returns it (`min_by` the first of equal minima, `v < m`). The value is
/// the one `max_by` finds, and its gradient goes to that element.
/// `x.iter().copied().reduce(f)` (or `.cloned()`) of a named sequence, unwrapped: the fold
/// of `x[1..]` from `x[0]` (`unwrap_or(d)`: `d` for an empty `x`; `unwrap()`/`expect(m)`:
/// their panic for an empty `x`).
fn reduced(unwrap: &syn::ExprMethodCall) -> Option<syn::Expr> {
    let syn::Expr::MethodCall(reduce) = &*unwrap.receiver else {
        return None;
    };
    if reduce.method != "reduce" || reduce.args.len() != 1 {
        return None;
    }
    let syn::Expr::MethodCall(copied) = &*reduce.receiver else {
        return None;
    };
    if !(copied.method == "copied" || copied.method == "cloned") || !copied.args.is_empty() {
        return None;
    }
    let syn::Expr::MethodCall(iter) = &*copied.receiver else {
        return None;
    };
    let seq = &*iter.receiver;
    if iter.method != "iter" || !iter.args.is_empty() {
        return None;
    }
    if !matches!(seq, syn::Expr::Path(_) | syn::Expr::Field(_)) {
        return None;
    }
    let f = &reduce.args[0];
    let span = unwrap.method.span();
    let fold = quote_spanned!(span=> #seq[1..].iter().copied().fold(#seq[0], #f));
    match (unwrap.method.to_string().as_str(), unwrap.args.len()) {
        ("unwrap_or", 1) => {
            let d = &unwrap.args[0];
            Some(syn::parse_quote_spanned!(span=> if #seq.is_empty() { #d } else { #fold }))
        }
        ("unwrap", 0) => Some(syn::parse_quote_spanned!(span=> {
            if #seq.is_empty() {
                ::core::panic!("called `Option::unwrap()` on a `None` value");
            }
            #fold
        })),
        ("expect", 1) => {
            let message = &unwrap.args[0];
            Some(syn::parse_quote_spanned!(span=> {
                if #seq.is_empty() {
                    ::core::panic!("{}", #message);
                }
                #fold
            }))
        }
        _ => None,
    }
}

/// `core::array::from_fn(|i| body)` (also `std::array::from_fn`, `array::from_fn`, a bare
/// `from_fn`) of a length written as a number — by the `let`'s type (`len`) or the call's
/// turbofish (`from_fn::<_, 3, _>`) — is the array literal of the body at each index,
/// `[{ let i = 0usize; body }, …]`, which the lowering reads element by element (up to 64
/// elements; longer arrays, and lengths named by a constant, stay calls).
fn array_from_fn(e: &syn::Expr, len: Option<&syn::Expr>) -> Option<syn::Expr> {
    let syn::Expr::Call(call) = e else {
        return None;
    };
    let syn::Expr::Path(p) = &*call.func else {
        return None;
    };
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let named = matches!(
        segments.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["core" | "std", "array", "from_fn"] | ["array", "from_fn"] | ["from_fn"]
    );
    let [syn::Expr::Closure(c)] = call.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !named || c.inputs.len() != 1 {
        return None;
    }
    let number = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<usize>().ok(),
        _ => None,
    };
    let turbofish = p.path.segments.last().and_then(|s| match &s.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Const(e) => number(e),
            syn::GenericArgument::Type(syn::Type::Path(t)) => t
                .path
                .get_ident()
                .and_then(|i| i.to_string().parse::<usize>().ok()),
            _ => None,
        }),
        _ => None,
    });
    let n = turbofish.or_else(|| len.and_then(number))?;
    if n > 64 {
        return None;
    }
    let (pat, body) = (&c.inputs[0], &c.body);
    let span = call.span();
    let items = (0..n).map(|k| -> syn::Expr {
        let k = syn::LitInt::new(&format!("{k}usize"), span);
        syn::parse_quote_spanned!(span=> { let #pat = #k; #body })
    });
    Some(syn::parse_quote_spanned!(span=> [#(#items),*]))
}

/// `….max_by(cmp)` / `min_by(cmp)` whose `cmp` orders its two items by value
/// (`a.partial_cmp(b).unwrap()`, `.expect(…)`, `a.total_cmp(b)`): whether it is `max_by`,
/// and whether the items are `enumerate()` pairs compared by their element (`a.1` with
/// `b.1`, or parameters `(_, a), (_, b)`).
fn ordering(m: &syn::ExprMethodCall) -> Option<(bool, bool)> {
    let max = match m.method.to_string().as_str() {
        "max_by" => true,
        "min_by" => false,
        _ => return None,
    };
    let [syn::Expr::Closure(c)] = m.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    // each parameter: a name, or `(_, name)` (a pair destructured)
    let param = |p: &syn::Pat| -> Option<(String, bool)> {
        let p = match p {
            syn::Pat::Type(t) => &*t.pat,
            other => other,
        };
        match p {
            syn::Pat::Ident(i) => Some((i.ident.to_string(), false)),
            syn::Pat::Tuple(t) if t.elems.len() == 2 => match (&t.elems[0], &t.elems[1]) {
                (syn::Pat::Wild(_), syn::Pat::Ident(i)) => Some((i.ident.to_string(), true)),
                _ => None,
            },
            _ => None,
        }
    };
    let params: Vec<(String, bool)> = c.inputs.iter().map(param).collect::<Option<_>>()?;
    let [a, b] = &params[..] else {
        return None;
    };
    let mut body = &*c.body;
    if let syn::Expr::MethodCall(u) = body {
        if (u.method == "unwrap" && u.args.is_empty())
            || (u.method == "expect" && u.args.len() == 1)
        {
            body = &u.receiver;
        }
    }
    let syn::Expr::MethodCall(cmp) = body else {
        return None;
    };
    // what a side reads of its parameter: the item (`false`) or a pair's element (`true`)
    let reads = |e: &syn::Expr, (name, destructured): &(String, bool)| -> Option<bool> {
        let e = match e {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        match e {
            syn::Expr::Path(p) if p.path.is_ident(name) => Some(*destructured),
            syn::Expr::Field(f) if !destructured => {
                let second = matches!(&f.member, syn::Member::Unnamed(i) if i.index == 1)
                    && matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident(name));
                second.then_some(true)
            }
            _ => None,
        }
    };
    if !(cmp.method == "partial_cmp" || cmp.method == "total_cmp") || cmp.args.len() != 1 {
        return None;
    }
    let pairs = reads(&cmp.receiver, a)?;
    (reads(&cmp.args[0], b)? == pairs).then_some((max, pairs))
}

/// `x.iter()` of a named sequence, or `x.iter().copied()` / `.cloned()` (then `true`).
fn named_iter(e: &syn::Expr) -> Option<(&syn::Expr, bool)> {
    let (iter, by_value) = match e {
        syn::Expr::MethodCall(c)
            if (c.method == "copied" || c.method == "cloned") && c.args.is_empty() =>
        {
            (&*c.receiver, true)
        }
        other => (other, false),
    };
    let syn::Expr::MethodCall(iter) = iter else {
        return None;
    };
    if iter.method != "iter" || !iter.args.is_empty() {
        return None;
    }
    let seq = &*iter.receiver;
    matches!(seq, syn::Expr::Path(_) | syn::Expr::Field(_)).then_some((seq, by_value))
}

/// `x.iter().enumerate().max_by(|a, b| a.1.partial_cmp(b.1).unwrap())` (see [`ordering`]
/// for the comparisons, and the items `.copied()` before `enumerate`): the index of the
/// extreme element and a reference to it (the element), found by a loop of comparisons
/// (which carry no derivative), as `max_by` finds them (the last of equal maxima, the first
/// of minima).
fn extreme_index_by(m: &syn::ExprMethodCall) -> Option<syn::Expr> {
    let (max, true) = ordering(m)? else {
        return None;
    };
    let syn::Expr::MethodCall(enumerate) = &*m.receiver else {
        return None;
    };
    if enumerate.method != "enumerate" || !enumerate.args.is_empty() {
        return None;
    }
    let (seq, by_value) = named_iter(&enumerate.receiver)?;
    let span = m.method.span();
    let (best, k) = (
        syn::Ident::new("__autodiff_best", proc_macro2::Span::mixed_site()),
        syn::Ident::new("__autodiff_k", proc_macro2::Span::mixed_site()),
    );
    let keep: syn::Expr = if max {
        syn::parse_quote!(#seq[#k] >= #seq[#best])
    } else {
        syn::parse_quote!(#seq[#k] < #seq[#best])
    };
    let element: syn::Expr = if by_value {
        syn::parse_quote!(#seq[#best])
    } else {
        syn::parse_quote!(&#seq[#best])
    };
    Some(syn::parse_quote_spanned! {span=> {
        let mut #best = 0usize;
        for #k in 1..#seq.len() {
            if #keep {
                #best = #k;
            }
        }
        (#best, #element)
    }})
}

/// `x.iter().max_by(|a, b| a.partial_cmp(b).unwrap())` (see [`ordering`]; the items
/// `.copied()` or not): the fold from `x[0]` keeping the extreme element as `max_by` does.
fn extreme_by(m: &syn::ExprMethodCall) -> Option<syn::Expr> {
    let (max, false) = ordering(m)? else {
        return None;
    };
    let (seq, _) = named_iter(&m.receiver)?;
    let span = m.method.span();
    let (acc, item) = (
        syn::Ident::new("__autodiff_extreme", proc_macro2::Span::mixed_site()),
        syn::Ident::new("__autodiff_item", proc_macro2::Span::mixed_site()),
    );
    let keep: syn::Expr = if max {
        syn::parse_quote!(#item >= #acc)
    } else {
        syn::parse_quote!(#item < #acc)
    };
    Some(syn::parse_quote_spanned! {span=>
        #seq[1..].iter().copied().fold(#seq[0], |#acc, #item| if #keep { #item } else { #acc })
    })
}
