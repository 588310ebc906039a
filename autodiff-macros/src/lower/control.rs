//! Control flow: `if`, `match`, the loops (`for`, `while`, `loop`; iteration over
//! sequences is in `iterators`), `break`, `continue` and `return`.

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

impl Lowering<'_> {
    /// A branch's or loop's condition: a `bool`, never differentiated. One that invokes a
    /// macro (`if prec::ulps_eq!(a, 0.0) { … }`, `approx_eq!`, `matches!`) is kept as written
    /// (its names renamed), a value the sweeps compute and keep like any constant, rather
    /// than refused as a macro reading differentiable values.
    pub(super) fn condition(&mut self, cond: &syn::Expr) -> Operand {
        struct Macros(bool);
        impl<'ast> syn::visit::Visit<'ast> for Macros {
            fn visit_expr_macro(&mut self, _: &'ast syn::ExprMacro) {
                self.0 = true;
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        let mut found = Macros(false);
        syn::visit::Visit::visit_expr(&mut found, cond);
        if !found.0 || expr_may_exit(cond) {
            return self.operand_of(cond);
        }
        let renamed = self.renamed(cond);
        let tokens = quote!(#renamed);
        self.forget_snapshots_in(&tokens);
        let v = self.inactive(tokens, cond.span());
        self.operand(v, cond.span())
    }

    pub(super) fn if_expr(&mut self, i: &syn::ExprIf) -> Value {
        if let syn::Expr::Let(l) = &*i.cond {
            return self.if_let(i, l);
        }
        let discard = std::mem::replace(&mut self.discard, false);
        let cond = self.condition(&i.cond);
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
        self.start_as_placeholder(result.as_ref(), &whole);
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
    fn start_as_placeholder(&mut self, slot: Option<&Slot>, whole: &syn::Expr) {
        let Some(Slot::Cell(c)) = slot else {
            return;
        };
        let mut tails = Vec::new();
        branch_tails(whole, &mut tails);
        let result = tails.iter().any(|t| {
            matches!(t, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| i == "Ok" || i == "Err")
                    || p.path.segments.last().is_some_and(|s| s.ident == "wrap_like"
                        || s.ident == "residual")))
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
        self.start_as_placeholder(result.as_ref(), &whole);
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

    /// A labeled block, `'a: { …; tail }`: a loop that runs once and leaves with its tail
    /// (`break 'a tail`), so that a `break 'a v` inside leaves it early with `v`, as a
    /// loop's `break` does.
    pub(super) fn labeled_block(&mut self, b: &syn::ExprBlock) -> Value {
        let label = b.label.clone();
        // (built, not parsed: the tail may be any expression)
        let leave = |value: Option<syn::Expr>| {
            syn::Stmt::Expr(
                syn::Expr::Break(syn::ExprBreak {
                    attrs: Vec::new(),
                    break_token: Default::default(),
                    label: label.as_ref().map(|l| l.name.clone()),
                    expr: value.map(Box::new),
                }),
                Some(Default::default()),
            )
        };
        let mut stmts = b.block.stmts.clone();
        match stmts.pop() {
            Some(syn::Stmt::Expr(tail, None)) if !expr_diverges(&tail) => {
                stmts.push(leave(Some(tail)));
            }
            Some(last) => {
                let diverges = block_diverges(std::slice::from_ref(&last));
                stmts.push(last);
                if !diverges {
                    stmts.push(leave(None));
                }
            }
            None => stmts.push(leave(None)),
        }
        let looped = syn::ExprLoop {
            attrs: Vec::new(),
            label,
            loop_token: Default::default(),
            body: syn::Block {
                brace_token: b.block.brace_token,
                stmts,
            },
        };
        let looped = self.synth.get("labeled_block", syn::Expr::Loop(looped));
        self.expr(&looped)
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Value {
        // `for x in (it)` (as the lowering's own loops write a struct literal's method
        // call): the loop over `it`
        if let syn::Expr::Paren(p) = &*f.expr {
            let mut bare = f.clone();
            bare.expr = p.expr.clone();
            let bare = self.synth.get("for_paren", syn::Expr::ForLoop(bare));
            return self.expr(&bare);
        }
        if let Some(block) = adapted_loop(f) {
            let block = self.synth.get("adapted_loop", block);
            return self.expr(&block);
        }
        let label = f.label.as_ref().map(|l| l.name.ident.to_string());
        let body: syn::Expr = syn::Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: f.body.clone(),
        });
        let body_active = self.references_active(&body);
        // `for c in buf.chunks_mut(k)`: each item is a `&mut` view of the buffer
        let view = self.mut_view_of_buffer(&f.expr);
        let mut names = HashSet::new();
        crate::rename::pattern_names(&f.pat, &mut names);
        for name in names {
            match &view {
                Some(v) => self.mut_views.insert(name, v.clone()),
                None => self.mut_views.remove(&name),
            };
        }
        if super::iterators::chained(&f.expr).is_some()
            && super::iterators::breaks_out(&f.body, label.as_deref())
        {
            return self.unsupported(&f.expr, diag::CHAIN_BREAK);
        }
        self.iter_loop(label, &f.expr, &f.pat, body_active, |l| {
            l.block_contents(&f.body.stmts, false);
        })
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) -> Value {
        let label = w.label.as_ref().map(|l| l.name.ident.to_string());
        self.lower_loop(label, None, |l| {
            let cond = l.condition(&w.cond);
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

/// What an `Option`/`Result` cell starts as (see `start_as_placeholder`).
pub(super) fn placeholder() -> TokenStream {
    quote!(::autodiff::__private::ops::placeholder())
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
        // (`(break)`, as `match`'s arms are written out, see `options::on_presence`)
        syn::Expr::Paren(p) => expr_diverges(&p.expr),
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
pub(super) fn component_key(key: usize, k: usize) -> usize {
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

/// A `for` loop over an adapter the lowering does not walk itself, written as a loop over
/// the adapter's own iterator:
/// `for y in it.map(|x| …) { body }`: the closure bound as a local one, called on each item
/// (`for x in (it) { let y = map(x); body }`; parenthesised, since a `for` head would not
/// parse a struct literal's method call). (Reductions peel their maps themselves.)
fn adapted_loop(f: &syn::ExprForLoop) -> Option<syn::Expr> {
    let syn::Expr::MethodCall(m) = &*f.expr else {
        return None;
    };
    let span = m.method.span();
    let (it, label, pat, body) = (&m.receiver, &f.label, &f.pat, &f.body);
    match (
        m.method.to_string().as_str(),
        &m.args.iter().collect::<Vec<_>>()[..],
    ) {
        ("map", [syn::Expr::Closure(c)]) if c.inputs.len() == 1 && c.asyncness.is_none() => {
            let map = syn::Ident::new("__autodiff_map", span);
            let item = syn::Ident::new("__autodiff_mapped", span);
            Some(syn::parse_quote_spanned! {span=>
                {
                    let #map = #c;
                    #label for #item in (#it) {
                        let #pat = #map(#item);
                        #body
                    }
                }
            })
        }
        _ => None,
    }
}

/// Forms written as others, before lowering (the body is rewritten once, so its nodes keep
/// their addresses): `while let p = e { body }` as `loop { if let p = e { body } else {
/// break } }`, and a destructuring assignment `(a, b.0, _) = e;` as `{ let (p0, p1, _) =
/// e; a = p0; b.0 = p1; }` (nested tuples in turn).
pub(super) fn desugared(block: &syn::Block) -> syn::Block {
    struct Rewrite;
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_block_mut(&mut self, b: &mut syn::Block) {
            next_loops(b);
            syn::visit_mut::visit_block_mut(self, b);
        }
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            match e {
                syn::Expr::While(w) if matches!(&*w.cond, syn::Expr::Let(_)) => {
                    let (label, cond, body) = (&w.label, &w.cond, &w.body);
                    let span = cond.span();
                    *e = syn::parse_quote_spanned! {span=>
                        #label loop {
                            if #cond #body else {
                                break;
                            }
                        }
                    };
                }
                syn::Expr::Assign(a) if matches!(&*a.left, syn::Expr::Tuple(_)) => {
                    let syn::Expr::Tuple(t) = &*a.left else {
                        unreachable!("a tuple on the left")
                    };
                    let span = a.left.span();
                    let mut names = Vec::new();
                    let mut writes = Vec::new();
                    for (i, place) in t.elems.iter().enumerate() {
                        if matches!(place, syn::Expr::Infer(_)) {
                            names.push(quote::quote_spanned!(span=> _));
                            continue;
                        }
                        let part = quote::format_ident!("__autodiff_part{}", i, span = span);
                        names.push(quote::quote!(#part));
                        writes.push(quote::quote_spanned!(span=> #place = #part;));
                    }
                    let right = &a.right;
                    // (a left side that is no place, `(for … {}, a) = …`, stays as written:
                    // the lowering reports it)
                    if let Ok(new) = syn::parse2(quote::quote_spanned! {span=>
                        {
                            let (#(#names,)*) = #right;
                            #(#writes)*
                        }
                    }) {
                        *e = new;
                    }
                }
                _ => {}
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut out = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewrite, &mut out);
    out
}

/// `let mut it = chain; … while let Some(p) = it.next() { body }`, the iterator named
/// nowhere else in the block (nor in the body): `for p in chain { body }` in the loop's
/// place, which the lowering walks as any `for` loop (an iterator's `next` is not a form it
/// knows). The `let` is dropped; what lies between them cannot have used the iterator.
fn next_loops(b: &mut syn::Block) {
    fn mentions(ts: proc_macro2::TokenStream, name: &syn::Ident) -> usize {
        ts.into_iter()
            .map(|t| match t {
                proc_macro2::TokenTree::Ident(i) => usize::from(&i == name),
                proc_macro2::TokenTree::Group(g) => mentions(g.stream(), name),
                _ => 0,
            })
            .sum()
    }
    let mut k = 0;
    while k < b.stmts.len() {
        let found = (|| {
            let syn::Stmt::Local(local) = &b.stmts[k] else {
                return None;
            };
            let syn::Pat::Ident(pi) = &local.pat else {
                return None;
            };
            if pi.mutability.is_none() || pi.by_ref.is_some() || pi.subpat.is_some() {
                return None;
            }
            let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
            let name = &pi.ident;
            let total: usize = (b.stmts.iter())
                .map(|s| mentions(quote::quote!(#s), name))
                .sum();
            // the loop: a statement `while let Some(p) = name.next() { … }`
            let at = (k + 1..b.stmts.len()).find(|&j| {
                let syn::Stmt::Expr(syn::Expr::While(w), _) = &b.stmts[j] else {
                    return false;
                };
                let syn::Expr::Let(l) = &*w.cond else {
                    return false;
                };
                let next = matches!(&*l.expr, syn::Expr::MethodCall(m)
                    if m.method == "next" && m.args.is_empty()
                        && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(name)));
                let some = matches!(&*l.pat, syn::Pat::TupleStruct(t)
                    if t.path.is_ident("Some") && t.elems.len() == 1);
                next && some
            })?;
            // (named by the `let` and the loop's `next` only)
            (total == 2).then(|| (at, (*init.expr).clone()))
        })();
        if let Some((at, chain)) = found {
            let syn::Stmt::Expr(syn::Expr::While(w), semi) = &b.stmts[at] else {
                unreachable!("the loop found")
            };
            let syn::Expr::Let(l) = &*w.cond else {
                unreachable!("a `while let`")
            };
            let syn::Pat::TupleStruct(t) = &*l.pat else {
                unreachable!("`Some(p)`")
            };
            let (label, pat, body) = (&w.label, &t.elems[0], &w.body);
            let span = w.while_token.span;
            if let Ok(for_loop) = syn::parse2::<syn::Expr>(quote::quote_spanned! {span=>
                #label for #pat in (#chain) #body
            }) {
                b.stmts[at] = syn::Stmt::Expr(for_loop, *semi);
                b.stmts.remove(k);
                continue;
            }
        }
        k += 1;
    }
}
