//! Control flow: `if`, `match`, the loops (`for`, `while`, `loop`), reductions over
//! iterators, `break`, `continue` and `return`.

use super::*;

pub(super) fn may_exit(node: &dyn Fn(&mut ExitFinder)) -> bool {
    let mut f = ExitFinder {
        depth: 0,
        found: false,
    };
    node(&mut f);
    f.found
}

pub(super) struct ExitFinder {
    depth: usize,
    found: bool,
}

impl<'ast> syn::visit::Visit<'ast> for ExitFinder {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        match e {
            // (`?` returns early too)
            syn::Expr::Return(_) | syn::Expr::Try(_) => self.found = true,
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

pub(super) fn expr_may_exit(e: &syn::Expr) -> bool {
    may_exit(&|f| syn::visit::Visit::visit_expr(f, e))
}

pub(super) fn stmt_may_exit(s: &syn::Stmt) -> bool {
    may_exit(&|f| syn::visit::Visit::visit_stmt(f, s))
}

/// One sequence of an iteration the lowering turns into an indexed loop: `base` (a slice,
/// `Vec` or array named by a parameter, a local or a field), the range of it (`x[a..b]`),
/// and the adapters applied to it, in order (`.skip(n)`, `.take(n)`, `.rev()`).
pub(super) struct Source {
    pub base: syn::Expr,
    pub lo: Option<syn::Expr>,
    pub hi: Option<syn::Expr>,
    pub ops: Vec<SourceOp>,
}

pub(super) enum SourceOp {
    Skip(syn::Expr),
    Take(syn::Expr),
    Rev,
}

/// The forms of iteration over a differentiable sequence the lowering turns into indexed
/// loops: one source (`x.iter()`, `x`, `&x[1..n - 1]`, `x.iter().rev().skip(1)`), or two
/// zipped (`x.iter().zip(x.iter().skip(1))`), optionally `.enumerate()`d last.
pub(super) struct Chain {
    pub sources: Vec<Source>,
    pub enumerate: bool,
}

/// Whether `e` is an iterator over a sequence (`x.iter()`, `….map(…)`, `….zip(…)`, …), as
/// opposed to an array whose `sum()` is ndarray's.
pub(super) fn is_iterator_chain(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "iter"
                | "into_iter"
                | "copied"
                | "cloned"
                | "zip"
                | "enumerate"
                | "map"
                | "rev"
                | "skip"
                | "take"
                | "windows"
                | "chunks"
                | "chunks_exact"
        ),
        syn::Expr::Paren(p) => is_iterator_chain(&p.expr),
        _ => false,
    }
}

pub(super) fn strip_copied(e: &syn::Expr) -> &syn::Expr {
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

/// The sequence a source iterates and its range: `x`, `x[a..b]` (also `a..`, `..b`, `..`).
fn source_base(e: &syn::Expr) -> Option<Source> {
    match e {
        syn::Expr::Paren(p) => source_base(&p.expr),
        syn::Expr::Reference(r) if r.mutability.is_none() => source_base(&r.expr),
        syn::Expr::Path(_) | syn::Expr::Field(_) => Some(Source {
            base: e.clone(),
            lo: None,
            hi: None,
            ops: Vec::new(),
        }),
        syn::Expr::Index(ix) => match &*ix.index {
            syn::Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
                let mut s = source_base(&ix.expr)?;
                if s.lo.is_some() || s.hi.is_some() || !s.ops.is_empty() {
                    return None;
                }
                s.lo = r.start.as_deref().cloned();
                s.hi = r.end.as_deref().cloned();
                Some(s)
            }
            _ => None,
        },
        _ => None,
    }
}

/// One source with its adapters (`x.iter().skip(1)`, `x[1..].iter().rev()`, `&x`, `x`).
fn source(e: &syn::Expr) -> Option<Source> {
    match strip_copied(e) {
        syn::Expr::MethodCall(m) => {
            let name = m.method.to_string();
            match (name.as_str(), m.args.len()) {
                ("iter" | "into_iter", 0) => source_base(&m.receiver),
                ("rev", 0) => {
                    let mut s = source(&m.receiver)?;
                    s.ops.push(SourceOp::Rev);
                    Some(s)
                }
                ("skip", 1) => {
                    let mut s = source(&m.receiver)?;
                    s.ops.push(SourceOp::Skip(m.args[0].clone()));
                    Some(s)
                }
                ("take", 1) => {
                    let mut s = source(&m.receiver)?;
                    s.ops.push(SourceOp::Take(m.args[0].clone()));
                    Some(s)
                }
                _ => None,
            }
        }
        syn::Expr::Reference(_) | syn::Expr::Path(_) => source_base(strip_copied(e)),
        _ => None,
    }
}

/// `x.windows(n)`, `x.chunks(n)`, `x.chunks_exact(n)`.
#[derive(Clone, Copy)]
pub(super) enum Windows {
    Sliding,
    Chunks,
    ChunksExact,
}

/// The sequence, kind and size of `x.windows(n)` (also `chunks`, `chunks_exact`).
fn windowed(e: &syn::Expr) -> Option<(&syn::Expr, Windows, &syn::Expr)> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    let kind = match m.method.to_string().as_str() {
        "windows" => Windows::Sliding,
        "chunks" => Windows::Chunks,
        "chunks_exact" => Windows::ChunksExact,
        _ => return None,
    };
    (m.args.len() == 1).then(|| (&*m.receiver, kind, &m.args[0]))
}

/// The chain an iteration over differentiable sequences is, when it is one the lowering
/// turns into an indexed loop.
pub(super) fn chain_iter(e: &syn::Expr) -> Option<Chain> {
    if let syn::Expr::MethodCall(m) = strip_copied(e) {
        if m.method == "enumerate" && m.args.is_empty() {
            let mut c = chain_iter(&m.receiver)?;
            if c.enumerate {
                return None;
            }
            c.enumerate = true;
            return Some(c);
        }
        if m.method == "zip" && m.args.len() == 1 {
            let a = source(&m.receiver)?;
            let b = source(&m.args[0])?;
            return Some(Chain {
                sources: vec![a, b],
                enumerate: false,
            });
        }
    }
    Some(Chain {
        sources: vec![source(e)?],
        enumerate: false,
    })
}

impl Lowering<'_> {
    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) -> Value {
        if let syn::Expr::Let(l) = &*i.cond {
            return self.if_let(i, l);
        }
        let discard = std::mem::replace(&mut self.discard, false);
        let cond = self.operand_of(&i.cond);
        self.discard = discard;
        // (a branch that panics or returns has no value of its own: the other decides)
        let then_diverges = block_diverges(&i.then_branch.stmts);
        let else_diverges = i
            .else_branch
            .as_ref()
            .is_some_and(|(_, e)| expr_diverges(e));
        let has_value = !discard
            && i.else_branch.as_ref().is_some_and(|(_, e)| {
                matches!(i.then_branch.stmts.last(), Some(syn::Stmt::Expr(_, None)))
                    || then_diverges && !is_block_without_value(e)
            });
        let whole = syn::Expr::If(i.clone());
        let result = has_value.then(|| self.result_slot(value_shape(&whole), node_key(i)));
        self.start_results_as_ok(result.as_ref(), &whole);
        let then = self.nested(false, |l| {
            let v = l.block_contents(&i.then_branch.stmts, false);
            if let Some(slot) = result.as_ref().filter(|_| !then_diverges) {
                l.write_slot(slot, v, i.then_branch.span());
            }
        });
        let els = self.nested(false, |l| {
            if let Some((_, e)) = &i.else_branch {
                let v = l.expr(e);
                if let Some(slot) = result.as_ref().filter(|_| !else_diverges) {
                    l.write_slot(slot, v, e.span());
                }
            }
        });
        self.push_if(cond, then, els);
        match result {
            Some(slot) => self.read_slot(&slot, i.span()),
            None => Value::Tuple(Vec::new()),
        }
    }

    /// The cells a branching expression's value goes to: one, or one per component when
    /// its arms are tuples (`let (r, b) = if … { (…) } else { (…) };`). The component
    /// cells are keyed from the expression's key and their position.
    /// A branch whose value is a `Result` (an arm ends in `Ok(…)` or `Err(…)`) or an
    /// `Option`/`Result` made by `o.map(…)`: its cell starts as `ops::placeholder()`
    /// (`Ok(default)`, as a `Result` has no `Default`), overwritten by every arm.
    fn start_results_as_ok(&mut self, slot: Option<&Slot>, whole: &syn::Expr) {
        let Some(Slot::Cell(c)) = slot else {
            return;
        };
        let mut tails = Vec::new();
        branch_tails(whole, &mut tails);
        let result = tails.iter().any(|t| {
            matches!(t, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| i == "Ok" || i == "Err")
                    || p.path.segments.last().is_some_and(|s| s.ident == "wrap_like")))
        });
        if result {
            self.cells[c.0].init = Some(placeholder());
        }
    }

    pub(super) fn result_slot(&mut self, shape: Shape, key: usize) -> Slot {
        match shape {
            Shape::Leaf => Slot::Cell(self.new_cell(None, key)),
            Shape::Tuple(items) => Slot::Tuple(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(k, s)| self.result_slot(s, component_key(key, k)))
                    .collect(),
            ),
        }
    }

    /// Writes an arm's value to the result: a tuple component by component (a variable
    /// holding a tuple, the result of a call, by its projections).
    pub(super) fn write_slot(&mut self, slot: &Slot, value: Value, span: Span) {
        match slot {
            Slot::Cell(cell) => {
                let o = self.operand(value, span);
                self.write_cell(*cell, o);
            }
            Slot::Tuple(slots) => {
                if matches!(&value, Value::Tuple(items) if items.len() != slots.len()) {
                    self.errors.push(span, diag::DESTRUCTURING);
                    return;
                }
                for (k, s) in slots.iter().enumerate() {
                    match self.component(&value, k, span) {
                        Some(item) => self.write_slot(s, item, span),
                        None => self.errors.push(span, diag::DESTRUCTURING),
                    }
                }
            }
        }
    }

    /// The value a result holds after the branch.
    pub(super) fn read_slot(&mut self, slot: &Slot, span: Span) -> Value {
        match slot {
            Slot::Cell(cell) => Value::Var(self.read_cell(*cell, span)),
            Slot::Tuple(slots) => {
                Value::Tuple(slots.iter().map(|s| self.read_slot(s, span)).collect())
            }
        }
    }

    /// `match` on an inactive scrutinee: a chain of `if`s, each testing one arm's pattern
    /// (and guard) with `match s { pat if guard => true, _ => false }`.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> Value {
        // The scrutinee's value decides: `(x * 2.0) as usize % 3` mentions `x` but is an
        // integer, with no derivative.
        if self.references_active(&m.expr) {
            if let Some(v) = self.option_match(&m.expr, &m.arms) {
                return v;
            }
        }
        let discard = std::mem::replace(&mut self.discard, false);
        let scrutinee = self.expr(&m.expr);
        self.discard = discard;
        if self.is_active(&scrutinee) {
            return self.unsupported(&m.expr, diag::MATCH_ON_DIFFERENTIABLE);
        }
        let s = scrutinee.tokens();
        let has_value = !discard
            && m.arms
                .iter()
                .all(|a| !is_block_without_value(&a.body) || expr_diverges(&a.body))
            && !m.arms.iter().all(|a| expr_diverges(&a.body));
        let whole = syn::Expr::Match(m.clone());
        let result = has_value.then(|| self.result_slot(value_shape(&whole), node_key(m)));
        self.start_results_as_ok(result.as_ref(), &whole);
        self.match_arms(&m.arms, &s, result.as_ref());
        match result {
            Some(slot) => self.read_slot(&slot, m.span()),
            None => Value::Tuple(Vec::new()),
        }
    }

    pub(super) fn match_arms(&mut self, arms: &[syn::Arm], s: &TokenStream, result: Option<&Slot>) {
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
            if let Some(slot) = result.filter(|_| !expr_diverges(&arm.body)) {
                l.write_slot(slot, v, arm.body.span());
            }
        });
        let els = self.nested(false, |l| l.match_arms(rest, s, result));
        self.push_if(cond, then, els);
    }

    /// Lowers a loop whose body `body` fills. For a `for` loop, `iter` is the iterator and
    /// `body` returns the variable it binds each item to (made inside the body's region).
    pub(super) fn lower_loop(
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

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Value {
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
    pub(super) fn iter_loop(
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
            && chain_iter(iter_expr).is_some_and(|c| {
                c.sources.iter().all(|s| {
                    self.place(&s.base).is_some()
                        && !matches!(&s.base, syn::Expr::Path(p) if p.path.get_ident()
                            .is_some_and(|i| self.opaque_params.contains(&i.to_string())))
                })
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
        if let Some((base, kind, n)) = windowed(iter_expr) {
            return self.windows_loop(label, iter_expr, base, kind, n, pat, body);
        }
        let Some(chain) = chain_iter(iter_expr) else {
            return self.unsupported(iter_expr, diag::UNSUPPORTED_ITERATOR);
        };
        let mut resolved = Vec::new();
        for src in &chain.sources {
            let p = &src.base;
            match self.place(p) {
                Some(place) => resolved.push(place),
                // a field (`m.layers`): the sequence the projection reads
                None if matches!(p, syn::Expr::Field(_)) => match self.expr(p) {
                    Value::Var(v) => resolved.push(Place::Var(v)),
                    _ => return self.unsupported(p, diag::ITERATE_NAMED_OR_FIELD),
                },
                None => return self.unsupported(p, diag::ITERATE_NAMED),
            }
        }
        // each source's range `lo..hi` and direction, after its adapters (inactive
        // `usize`s computed once before the loop)
        let span = iter_expr.span();
        let mut ranges = Vec::new();
        for (src, place) in chain.sources.iter().zip(&resolved) {
            let id = match place {
                Place::Var(v) => v.ident(),
                Place::Cell(c) => c.ident(),
            };
            let len = quote!(#id.len());
            let mut lo = match &src.lo {
                Some(e) => {
                    let e = self.renamed(e);
                    quote!(((#e) as usize))
                }
                None => quote!(0usize),
            };
            let mut hi = match &src.hi {
                Some(e) => {
                    let e = self.renamed(e);
                    quote!(((#e) as usize))
                }
                None => len.clone(),
            };
            let mut forward = true;
            for op in &src.ops {
                match (op, forward) {
                    (SourceOp::Rev, _) => forward = !forward,
                    (SourceOp::Skip(n), true) => {
                        let n = self.renamed(n);
                        lo = quote!(::core::cmp::min(#lo + ((#n) as usize), #hi));
                    }
                    (SourceOp::Skip(n), false) => {
                        let n = self.renamed(n);
                        hi = quote!(::core::cmp::max(#hi.saturating_sub((#n) as usize), #lo));
                    }
                    (SourceOp::Take(n), true) => {
                        let n = self.renamed(n);
                        hi = quote!(::core::cmp::min(#hi, #lo + ((#n) as usize)));
                    }
                    (SourceOp::Take(n), false) => {
                        let n = self.renamed(n);
                        lo = quote!(::core::cmp::max(#lo, #hi.saturating_sub((#n) as usize)));
                    }
                }
            }
            // the plain case reads `x[k]`
            let plain = src.lo.is_none() && src.hi.is_none() && src.ops.is_empty();
            let (lo, hi) = if plain {
                (None, None)
            } else {
                let lo_v = self.inactive(lo, span);
                let hi_v = self.inactive(hi, span);
                (
                    Some(self.operand(lo_v, span).tokens()),
                    Some(self.operand(hi_v, span).tokens()),
                )
            };
            ranges.push((len, lo, hi, forward));
        }
        let counts: Vec<TokenStream> = ranges
            .iter()
            .map(|(len, lo, hi, _)| match (lo, hi) {
                (Some(lo), Some(hi)) => quote!(#hi.saturating_sub(#lo)),
                _ => len.clone(),
            })
            .collect();
        let iter = match &counts[..] {
            [a, b] => quote!(0..::core::cmp::min(#a, #b)),
            [a] => quote!(0..#a),
            _ => unreachable!("one or two sources"),
        };
        let iter = (iter, Some(Operand::Inline(syn::parse_quote!(0usize))));
        let enumerate = chain.enumerate;
        self.lower_loop(label, Some(iter), |l| {
            let k = l.new_var(false);
            let mut elems = Vec::new();
            for (place, (_, lo, hi, forward)) in resolved.iter().zip(&ranges) {
                let index = match (lo, hi, forward) {
                    (Some(lo), _, true) => {
                        let kk = k.ident();
                        let i = l.inactive(quote!(#lo + #kk), span);
                        l.operand(i, span)
                    }
                    (_, Some(hi), false) => {
                        let kk = k.ident();
                        let i = l.inactive(quote!(#hi - 1 - #kk), span);
                        l.operand(i, span)
                    }
                    _ => Operand::Var(k),
                };
                let v = l.new_var(l.place_active(*place));
                l.push(
                    v,
                    None,
                    Rhs::ReadIndex {
                        place: *place,
                        index,
                    },
                    span,
                );
                elems.push(Value::Ref(Box::new(Value::Var(v))));
            }
            let value = if enumerate {
                let item = if elems.len() == 2 {
                    Value::Tuple(elems)
                } else {
                    elems.remove(0)
                };
                Value::Tuple(vec![Value::Var(k), item])
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

    /// `for w in x.windows(n)` (also `chunks(n)`, `chunks_exact(n)`) over a differentiable
    /// sequence: a loop over the sub-slices, each one `&x[a..b]` (its adjoint the same
    /// sub-slice of `x`'s).
    #[allow(clippy::too_many_arguments)]
    fn windows_loop(
        &mut self,
        label: Option<String>,
        iter_expr: &syn::Expr,
        base: &syn::Expr,
        kind: Windows,
        n: &syn::Expr,
        pat: &syn::Pat,
        body: impl FnOnce(&mut Self),
    ) -> Value {
        let span = iter_expr.span();
        if self.value_references_active(n) {
            self.errors.push_spanned(n, diag::ACTIVE_INDEX);
        }
        let place = match self.place(base) {
            Some(p @ Place::Var(_)) => p,
            Some(Place::Cell(_)) => return self.unsupported(iter_expr, diag::SUB_SLICE_OF_CELL),
            None => return self.unsupported(base, diag::ITERATE_NAMED),
        };
        let Place::Var(x) = place else {
            unreachable!("a variable")
        };
        let x = x.ident();
        let n = self.renamed(n);
        let size = self.inactive(quote!(((#n) as usize)), span);
        let size = self.operand(size, span).tokens();
        let count = match kind {
            Windows::Sliding => quote!((#x.len() + 1).saturating_sub(#size)),
            Windows::Chunks => quote!(#x.len().div_ceil(#size)),
            Windows::ChunksExact => quote!(#x.len() / #size),
        };
        let iter = (
            quote!(0..#count),
            Some(Operand::Inline(syn::parse_quote!(0usize))),
        );
        self.lower_loop(label, Some(iter), |l| {
            let k = l.new_var(false);
            let kk = k.ident();
            let (start, end) = match kind {
                Windows::Sliding => (quote!(#kk), quote!(#kk + #size)),
                Windows::Chunks => (
                    quote!(#kk * #size),
                    quote!(::core::cmp::min(#kk * #size + #size, #x.len())),
                ),
                Windows::ChunksExact => (quote!(#kk * #size), quote!(#kk * #size + #size)),
            };
            let start = l.inactive(start, span);
            let start = l.operand(start, span);
            let end = l.inactive(end, span);
            let end = l.operand(end, span);
            let range = crate::ir::SliceRange {
                start: Some(start),
                end: Some(end),
                inclusive: false,
            };
            let v = l.new_var(l.place_active(place));
            l.push(v, None, Rhs::SubSlice { place, range }, span);
            l.bind_pattern(pat, Value::Var(v), None, pat.span());
            body(l);
            Some(k)
        })
    }

    /// The closure a `map`/`fold` argument is: a closure, or a path of a function
    /// (`.map(f64::sin)`, `.fold(f64::NEG_INFINITY, f64::max)`, `.map(square)`) or of a
    /// local closure, as a closure of `arity` parameters calling it.
    pub(super) fn closure_of(&self, x: &syn::Expr, arity: usize) -> Option<syn::ExprClosure> {
        match x {
            syn::Expr::Closure(c) => Some(c.clone()),
            syn::Expr::Path(p) if p.qself.is_none() => {
                let args = |n: usize| -> Vec<syn::Ident> {
                    (0..n)
                        .map(|i| quote::format_ident!("__autodiff_arg{}", i))
                        .collect()
                };
                // a local closure by name (`.map(scale)`): a closure calling it, so it is
                // inlined with the bindings of its definition
                if let Some(id) = p.path.get_ident() {
                    match self.lookup(&id.to_string()) {
                        Some(Binding::Closure(k)) => {
                            let a = args(self.closures[*k].closure.inputs.len());
                            return Some(
                                syn::parse_quote_spanned!(x.span()=> |#(#a),*| #id(#(#a),*)),
                            );
                        }
                        Some(_) => return None,
                        None => {}
                    }
                }
                let a = args(arity);
                Some(syn::parse_quote_spanned!(x.span()=> |#(#a),*| #p(#(#a),*)))
            }
            _ => None,
        }
    }

    /// `….map(f).map(g)`: the source and the closures, in the order they apply.
    fn peel_maps(&self, mut x: &syn::Expr) -> Option<(syn::Expr, Vec<syn::ExprClosure>)> {
        let mut maps = Vec::new();
        while let syn::Expr::MethodCall(inner) = x {
            if inner.method != "map" || inner.args.len() != 1 {
                break;
            }
            maps.push(self.closure_of(&inner.args[0], 1)?);
            x = &inner.receiver;
        }
        maps.reverse();
        Some((x.clone(), maps))
    }

    /// `….sum()`, `….product()`, `….map(|v| …).sum()`, `….fold(init, |acc, v| …)`: a
    /// loop with an accumulator cell, starting where the standard library starts
    /// (`-0.0` for a float sum, `1.0` for a product) so the value is bit for bit the same.
    pub(super) fn reduction(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let name = m.method.to_string();
        type Accumulation = Option<(&'static Rule, syn::BinOp)>;
        let peel = |x: &syn::Expr| self.peel_maps(x);
        let closure_of = |x: &syn::Expr, arity: usize| self.closure_of(x, arity);
        let (src, init, op, maps, fold): (
            syn::Expr,
            syn::Expr,
            Accumulation,
            Vec<syn::ExprClosure>,
            Option<syn::ExprClosure>,
        ) = match (name.as_str(), m.args.len()) {
            ("sum" | "product", 0) if is_iterator_chain(&m.receiver) => {
                let (src, maps) = peel(&m.receiver)?;
                if name == "sum" {
                    (
                        src,
                        syn::parse_quote!(-0.0),
                        Some((&rules::ADD, syn::parse_quote!(+))),
                        maps,
                        None,
                    )
                } else {
                    (
                        src,
                        syn::parse_quote!(1.0),
                        Some((&rules::MUL, syn::parse_quote!(*))),
                        maps,
                        None,
                    )
                }
            }
            ("fold", 2) => {
                let (src, maps) = peel(&m.receiver)?;
                (
                    src,
                    m.args[0].clone(),
                    None,
                    maps,
                    Some(closure_of(&m.args[1], 2)?),
                )
            }
            _ => return None,
        };
        if maps.iter().any(|c| c.inputs.len() != 1)
            || fold.as_ref().is_some_and(|c| c.inputs.len() != 2)
        {
            return None;
        }
        let init = match (&self.float_type, fold.is_none()) {
            // generic code: the start is of the function's float type (`T + {float}` does
            // not type-check)
            (Some(t), true) => {
                let v = self.inactive(
                    quote!(<#t as ::autodiff::__private::Real>::from_f64_rounded(#init)),
                    e.span(),
                );
                self.operand(v, e.span())
            }
            _ => self.operand_of(&init),
        };
        let acc = self.new_cell(None, node_key(m));
        self.write_cell(acc, init);
        let item_pat: syn::Pat = match (maps.first(), &fold) {
            (Some(c), _) => c.inputs[0].clone(),
            (_, Some(c)) => c.inputs[1].clone(),
            _ => syn::parse_quote!(__autodiff_item),
        };
        let body_active = maps.iter().any(|c| self.references_active(&c.body))
            || fold
                .as_ref()
                .is_some_and(|c| self.references_active(&c.body))
            || self.cells[acc.0].active;
        self.iter_loop(None, &src, &item_pat, body_active, |l| {
            // the item through the maps
            let mut mapped = None;
            for (k, c) in maps.iter().enumerate() {
                if k > 0 {
                    let v = mapped.take().expect("the previous map's value");
                    l.bind_pattern(&c.inputs[0], v, None, c.span());
                }
                mapped = Some(l.value_of(&c.body));
            }
            let value = match (&fold, op) {
                (Some(c), _) => {
                    let old = l.read_cell(acc, c.span());
                    l.bind_pattern(&c.inputs[0], Value::Var(old), None, c.span());
                    if let Some(v) = mapped {
                        l.bind_pattern(&c.inputs[1], v, None, c.span());
                    }
                    let v = l.value_of(&c.body);
                    l.operand(v, c.body.span())
                }
                (None, Some((rule, op))) => {
                    let item = match mapped {
                        Some(v) => v,
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

    /// `x.iter().map(|v| …).collect()` (also over `.enumerate()`/`.zip(…)` items, and into
    /// a `Vec` named by a turbofish): a `Vec` of as many zeros as the chain has items,
    /// then a loop writing the mapped value of item `k` at `k` — so each element carries
    /// the gradient of the value it was made of.
    pub(super) fn collected(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        if m.method != "collect" || !m.args.is_empty() || !self.references_active(&m.receiver) {
            return None;
        }
        // only into a `Vec` (or where the target is left to inference)
        if let Some(t) = &m.turbofish {
            let vec = t.args.len() == 1
                && matches!(&t.args[0], syn::GenericArgument::Type(syn::Type::Path(p))
                    if p.path.segments.last().is_some_and(|s| s.ident == "Vec"));
            if !vec {
                return None;
            }
        }
        let (src, maps) = self.peel_maps(&m.receiver)?;
        if maps.is_empty() || maps.iter().any(|c| c.inputs.len() != 1) {
            return None;
        }
        let chain = chain_iter(&src)?;
        if !is_iterator_chain(&src) {
            return None;
        }
        let span = e.span();
        let counted = self.renamed(&src).to_token_stream();
        let zeros = self.inactive(
            quote_spanned!(span=> (#counted)
                .map(|_| ::autodiff::__private::ops::real_zero())
                .collect::<::std::vec::Vec<_>>()),
            span,
        );
        let zeros = self.operand(zeros, span);
        let out = self.new_cell(None, node_key(m));
        self.write_cell(out, zeros);
        // the position each item is written at: the chain's own `.enumerate()` index
        // where it has one (the first closure's pattern is then `(i, x)`), else one added
        let item = &maps[0].inputs[0];
        let (looped, pat, index_pat): (syn::Expr, syn::Pat, Option<syn::Pat>) = if chain.enumerate {
            let syn::Pat::Tuple(t) = strip_pat_type(item) else {
                return None;
            };
            if t.elems.len() != 2 {
                return None;
            }
            let x = &t.elems[1];
            (
                src.clone(),
                syn::parse_quote_spanned!(span=> (__autodiff_k, #x)),
                Some(t.elems[0].clone()),
            )
        } else {
            (
                syn::parse_quote_spanned!(span=> #src.enumerate()),
                syn::parse_quote_spanned!(span=> (__autodiff_k, #item)),
                None,
            )
        };
        let body_active = maps.iter().any(|c| self.references_active(&c.body));
        self.iter_loop(None, &looped, &pat, body_active, |l| {
            if let Some(p) = &index_pat {
                let k = l.expr(&syn::parse_quote!(__autodiff_k));
                l.bind_pattern(p, k, None, span);
            }
            let mut mapped = None;
            for c in &maps {
                // (the first closure's pattern is the loop's)
                if let Some(v) = mapped.take() {
                    l.bind_pattern(&c.inputs[0], v, None, c.span());
                }
                mapped = Some(l.value_of(&c.body));
            }
            let v = mapped.expect("at least one map");
            let value = l.operand(v, span);
            let index = l.operand_of(&syn::parse_quote!(__autodiff_k));
            if l.operand_active(&value) {
                l.found_active_cells.insert(active_key(l.cell_keys[out.0]));
            }
            l.snapshots.remove(&out);
            l.block.stmts.push(Stmt::WriteIndex {
                cell: out,
                index,
                value,
            });
        });
        Some(Value::Var(self.read_cell(out, span)))
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) -> Value {
        if let syn::Expr::Let(l) = &*w.cond {
            return self.unsupported(l, diag::WHILE_LET);
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
    pub(super) fn target_loop(
        &mut self,
        label: Option<&syn::Lifetime>,
        span: &dyn ToTokens,
    ) -> Option<usize> {
        let found = match label {
            None => self.loops.len().checked_sub(1),
            Some(l) => self
                .loops
                .iter()
                .rposition(|c| c.label.as_deref() == Some(&l.ident.to_string())),
        };
        if found.is_none() {
            self.errors.push_spanned(span, diag::BREAK_OUTSIDE_LOOP);
        }
        found
    }

    pub(super) fn break_expr(&mut self, b: &syn::ExprBreak) -> Value {
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

    pub(super) fn continue_expr(&mut self, c: &syn::ExprContinue) -> Value {
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

    pub(super) fn return_expr(&mut self, r: &syn::ExprReturn) -> Value {
        let value = match &r.expr {
            Some(e) => {
                let discard = std::mem::replace(&mut self.discard, false);
                let v = self.expr(e);
                self.discard = discard;
                v
            }
            None => Value::Inline(syn::parse_quote!(())),
        };
        let (flag, out) = match self.ret.clone() {
            Some(cells) => cells,
            None => {
                // the return flag, and the returned value (one per function: key 2; a
                // tuple's components keyed from it)
                let shape = self.output_shape.clone();
                let cells = (self.flag_cell(), self.result_slot(shape, 2));
                if let (true, Slot::Cell(c)) = (self.output_is_result, &cells.1) {
                    self.cells[c.0].init = Some(placeholder());
                }
                self.ret = Some(cells.clone());
                cells
            }
        };
        self.write_slot(&out, value, r.span());
        self.write_flag(flag, syn::parse_quote!(true));
        for k in 0..self.loops.len() {
            self.loops[k].flow_used = true;
            let flow = self.loops[k].flow;
            self.write_flag(flow, syn::parse_quote!(1u8));
        }
        Value::Tuple(Vec::new())
    }
}

/// What an `Option`/`Result` cell starts as (see `start_results_as_ok`).
fn placeholder() -> TokenStream {
    quote!(::autodiff::__private::ops::placeholder())
}

/// A closure parameter's pattern without its type (`|(i, x): (usize, f64)|`).
fn strip_pat_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => strip_pat_type(&t.pat),
        syn::Pat::Paren(q) => strip_pat_type(&q.pat),
        _ => p,
    }
}

pub(super) fn collect_pattern_idents(pat: &syn::Pat, out: &mut Vec<syn::Ident>) {
    struct Names<'b>(&'b mut Vec<syn::Ident>);
    impl syn::visit::Visit<'_> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
            // (a name starting with a capital, `None`, `MAX`, is a unit variant or a
            // constant, as rustc reads it in a pattern, not a binding)
            let constant = p.subpat.is_none()
                && p.by_ref.is_none()
                && p.mutability.is_none()
                && p.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase());
            if !constant {
                self.0.push(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Names(out), pat);
}

/// Whether `e` is a block that ends with a statement (its value is `()`).
fn is_block_without_value(e: &syn::Expr) -> bool {
    let syn::Expr::Block(b) = e else {
        return false;
    };
    b.block
        .stmts
        .last()
        .is_none_or(|s| !matches!(s, syn::Stmt::Expr(_, None)))
}

/// Whether a block never finishes with a value: its last statement panics (`panic!`,
/// `unreachable!`, `unimplemented!`, `todo!`) or leaves (`return`, `break`, `continue`).
fn block_diverges(stmts: &[syn::Stmt]) -> bool {
    match stmts.last() {
        Some(syn::Stmt::Macro(m)) => is_diverging_macro(&m.mac),
        Some(syn::Stmt::Expr(e, _)) => expr_diverges(e),
        _ => false,
    }
}

fn expr_diverges(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Macro(m) => is_diverging_macro(&m.mac),
        syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => true,
        syn::Expr::Block(b) if b.label.is_none() => block_diverges(&b.block.stmts),
        _ => false,
    }
}

fn is_diverging_macro(m: &syn::Macro) -> bool {
    m.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "panic" | "unreachable" | "unimplemented" | "todo"
        )
    })
}

/// The syntactic shape of an expression's value: a tuple (with the shapes of its
/// components) when it is written as one, directly or as the tail of a block or of any arm
/// of an `if` or `match`; one value otherwise.
#[derive(Clone, Debug)]
pub(super) enum Shape {
    Leaf,
    Tuple(Vec<Shape>),
}

/// Where a branching expression's value goes (see [`Lowering::result_slot`]).
#[derive(Clone, Debug)]
pub(super) enum Slot {
    Cell(CellId),
    Tuple(Vec<Slot>),
}

pub(super) fn value_shape(e: &syn::Expr) -> Shape {
    fn tail(stmts: &[syn::Stmt]) -> Option<&syn::Expr> {
        match stmts.last() {
            Some(syn::Stmt::Expr(e, None)) => Some(e),
            _ => None,
        }
    }
    let tuple = |s: Shape| matches!(s, Shape::Tuple(_)).then_some(s);
    let found = match e {
        syn::Expr::Tuple(t) if !t.elems.is_empty() => {
            return Shape::Tuple(t.elems.iter().map(value_shape).collect())
        }
        syn::Expr::Paren(p) => return value_shape(&p.expr),
        syn::Expr::Group(g) => return value_shape(&g.expr),
        syn::Expr::Block(b) => tail(&b.block.stmts).map(value_shape),
        syn::Expr::If(i) => tail(&i.then_branch.stmts)
            .map(value_shape)
            .and_then(tuple)
            .or_else(|| i.else_branch.as_ref().map(|(_, e)| value_shape(e))),
        syn::Expr::Match(m) => m
            .arms
            .iter()
            .map(|a| value_shape(&a.body))
            .find(|s| matches!(s, Shape::Tuple(_))),
        _ => None,
    };
    found.unwrap_or(Shape::Leaf)
}

/// The shape of a value of type `ty`: a tuple type's, component by component.
pub(super) fn type_shape(ty: &syn::Type) -> Shape {
    match ty {
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            Shape::Tuple(t.elems.iter().map(type_shape).collect())
        }
        syn::Type::Paren(p) => type_shape(&p.elem),
        syn::Type::Group(g) => type_shape(&g.elem),
        _ => Shape::Leaf,
    }
}

/// The key of component `k` of a tuple-valued result keyed `key` (see `active_key`):
/// above every syntax node's address and below the flag cells' keys.
fn component_key(key: usize, k: usize) -> usize {
    const BASE: usize = 1 << (usize::BITS - 4);
    BASE | (key.wrapping_mul(31).wrapping_add(k + 1) & (BASE / 2 - 1))
}

/// The expressions an `if`/`match`/block evaluates to, through nested branches.
fn branch_tails<'e>(e: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) {
    match e {
        syn::Expr::If(i) => {
            block_tail(&i.then_branch, out);
            if let Some((_, els)) = &i.else_branch {
                branch_tails(els, out);
            }
        }
        syn::Expr::Match(m) => m.arms.iter().for_each(|a| branch_tails(&a.body, out)),
        syn::Expr::Block(b) => block_tail(&b.block, out),
        syn::Expr::Paren(p) => branch_tails(&p.expr, out),
        other => out.push(other),
    }
}

fn block_tail<'e>(b: &'e syn::Block, out: &mut Vec<&'e syn::Expr>) {
    if let Some(syn::Stmt::Expr(e, None)) = b.stmts.last() {
        branch_tails(e, out);
    }
}
