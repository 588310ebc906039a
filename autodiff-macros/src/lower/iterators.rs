//! Iteration over differentiable sequences: `for` loops over iterator chains (`x.iter()`,
//! sub-slices, `.zip`, `.rev`, `.skip`, `.take`, `.enumerate`, `.windows`/`.chunks`) turned
//! into indexed loops, and the reductions and collections written on them (`.sum()`,
//! `.product()`, `.fold(…)`, `.map(…).collect()`).

use super::control::component_key;
use super::*;
use std::rc::Rc;

/// One sequence of an iteration the lowering turns into an indexed loop: `base` (a slice,
/// `Vec` or array named by a parameter, a local or a field), the range of it (`x[a..b]`),
/// and the adapters applied to it, in order (`.skip(n)`, `.take(n)`, `.rev()`).
pub(super) struct Source {
    pub base: syn::Expr,
    pub lo: Option<syn::Expr>,
    pub hi: Option<syn::Expr>,
    pub ops: Vec<SourceOp>,
    /// Whether its items are copies (`x.iter().copied()`, `.cloned()`): bound as values,
    /// not as references (`v >= m` compares two floats).
    pub copied: bool,
}

#[derive(Clone)]
pub(super) enum SourceOp {
    Skip(syn::Expr),
    Take(syn::Expr),
    Rev,
    /// `.step_by(n)`, only as a source's last adapter.
    StepBy(syn::Expr),
}

/// The forms of iteration over a differentiable sequence the lowering turns into indexed
/// loops: one source (`x.iter()`, `x`, `&x[1..n - 1]`, `x.iter().rev().skip(1)`), or two
/// zipped (`x.iter().zip(x.iter().skip(1))`), optionally `.enumerate()`d, then
/// `.skip(n)`/`.take(n)` of the pairs (`x.iter().enumerate().skip(1)`: the index counts
/// from the skipped items, `skipped` adds them back).
pub(super) struct Chain {
    pub sources: Vec<Source>,
    pub enumerate: bool,
    pub skipped: Vec<syn::Expr>,
    /// `.filter(|v| …)` and `.take_while(|v| …)` of the items, in order: the loop's body
    /// runs where every one holds, and the loop ends where a `take_while`'s does not.
    pub filters: Vec<Filter>,
}

/// A test of a chain's items (see [`Chain::filters`]).
#[derive(Clone)]
pub(super) struct Filter {
    pub closure: syn::ExprClosure,
    /// `take_while`: the first item that fails it ends the loop.
    pub stops: bool,
}

/// Whether `e` is an iterator over a sequence (`x.iter()`, `….map(…)`, `….zip(…)`, …), as
/// opposed to an array whose `sum()` is ndarray's.
pub(super) fn is_iterator_chain(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "step_by"
                | "iter"
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
                | "filter"
                | "take_while"
                | "scan"
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
        // (a call's result, `f(x).iter()`, and an array's elements in one row,
        // `a.to_shape(a.len()).unwrap().iter()`: lowered once before the loop, as a local)
        syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Call(_) => Some(Source {
            base: e.clone(),
            lo: None,
            hi: None,
            ops: Vec::new(),
            copied: false,
        }),
        syn::Expr::MethodCall(m) if flattened(m) => Some(Source {
            base: e.clone(),
            lo: None,
            hi: None,
            ops: Vec::new(),
            copied: false,
        }),
        syn::Expr::Index(ix) => match &*ix.index {
            syn::Expr::Range(r) => {
                let mut s = source_base(&ix.expr)?;
                if s.lo.is_some() || s.hi.is_some() || !s.ops.is_empty() {
                    return None;
                }
                s.lo = r.start.as_deref().cloned();
                s.hi = match (&r.end, &r.limits) {
                    (end, syn::RangeLimits::HalfOpen(_)) => end.as_deref().cloned(),
                    // `x[a..=b]`: up to `b + 1`
                    (Some(b), syn::RangeLimits::Closed(_)) => Some(syn::parse_quote!((#b) + 1)),
                    (None, syn::RangeLimits::Closed(_)) => return None,
                };
                Some(s)
            }
            _ => None,
        },
        _ => None,
    }
}

/// `a.to_shape(n).unwrap()` (see `ndarray::flat_iterations`).
fn flattened(m: &syn::ExprMethodCall) -> bool {
    m.method == "unwrap"
        && m.args.is_empty()
        && matches!(&*m.receiver, syn::Expr::MethodCall(s) if s.method == "to_shape")
}

/// One source with its adapters (`x.iter().skip(1)`, `x[1..].iter().rev()`, `&x`, `x`).
fn source(e: &syn::Expr) -> Option<Source> {
    let copied = !std::ptr::eq(strip_copied(e), e);
    let mut s = source_uncopied(e)?;
    s.copied |= copied;
    Some(s)
}

fn source_uncopied(e: &syn::Expr) -> Option<Source> {
    match strip_copied(e) {
        syn::Expr::MethodCall(m) => {
            let name = m.method.to_string();
            match (name.as_str(), m.args.len()) {
                ("iter" | "into_iter", 0) => source_base(&m.receiver),
                ("rev", 0) => {
                    let mut s = stepless(source(&m.receiver)?)?;
                    s.ops.push(SourceOp::Rev);
                    Some(s)
                }
                ("skip", 1) => {
                    let mut s = stepless(source(&m.receiver)?)?;
                    s.ops.push(SourceOp::Skip(m.args[0].clone()));
                    Some(s)
                }
                ("take", 1) => {
                    let mut s = stepless(source(&m.receiver)?)?;
                    s.ops.push(SourceOp::Take(m.args[0].clone()));
                    Some(s)
                }
                ("step_by", 1) => {
                    let mut s = stepless(source(&m.receiver)?)?;
                    s.ops.push(SourceOp::StepBy(m.args[0].clone()));
                    Some(s)
                }
                _ => None,
            }
        }
        syn::Expr::Reference(_) | syn::Expr::Path(_) => source_base(strip_copied(e)),
        _ => None,
    }
}

/// `s` if it has no `.step_by(n)` (an adapter after one is not read).
fn stepless(s: Source) -> Option<Source> {
    (!s.ops.iter().any(|op| matches!(op, SourceOp::StepBy(_)))).then_some(s)
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
        // (an adapter after a filter counts the items it kept: not read)
        if (m.method == "filter" || m.method == "take_while") && m.args.len() == 1 {
            let syn::Expr::Closure(f) = &m.args[0] else {
                return None;
            };
            if f.inputs.len() != 1 || !std::ptr::eq(strip_copied(e), e) {
                return None;
            }
            let mut c = chain_iter(&m.receiver)?;
            c.filters.push(Filter {
                closure: f.clone(),
                stops: m.method == "take_while",
            });
            return Some(c);
        }
        if m.method == "enumerate" && m.args.is_empty() {
            let mut c = unfiltered(chain_iter(&m.receiver)?)?;
            if c.enumerate {
                return None;
            }
            c.enumerate = true;
            return Some(c);
        }
        if m.method == "zip" && m.args.len() == 1 {
            // (a zip of zips, `x.iter().zip(y).zip(z)`: items `((a, b), c)`)
            let mut c = unfiltered(chain_iter(&m.receiver)?)?;
            if c.enumerate {
                return None;
            }
            c.sources.push(source(&m.args[0])?);
            return Some(c);
        }
        // `.skip(n)`/`.take(n)` of enumerated or zipped items: the same on every source
        // (one source alone keeps them as its own adapters, below)
        let op = match m.method.to_string().as_str() {
            "skip" if m.args.len() == 1 => Some(SourceOp::Skip(m.args[0].clone())),
            "take" if m.args.len() == 1 => Some(SourceOp::Take(m.args[0].clone())),
            _ => None,
        };
        if let Some(op) = op {
            if let Some(mut c) = chain_iter(&m.receiver).and_then(unfiltered) {
                if c.enumerate || c.sources.len() >= 2 {
                    for s in &mut c.sources {
                        s.ops.push(op.clone());
                    }
                    if let (true, SourceOp::Skip(n)) = (c.enumerate, &op) {
                        c.skipped.push(n.clone());
                    }
                    return Some(c);
                }
            }
        }
    }
    Some(Chain {
        sources: vec![source(e)?],
        enumerate: false,
        skipped: Vec::new(),
        filters: Vec::new(),
    })
}

/// `c` if it has no filter.
fn unfiltered(c: Chain) -> Option<Chain> {
    c.filters.is_empty().then_some(c)
}

impl Lowering<'_> {
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
        mut body: impl FnMut(&mut Self),
    ) -> Value {
        self.iter_loop_dyn(label, iter_expr, pat, body_active, &mut body)
    }

    fn iter_loop_dyn(
        &mut self,
        label: Option<String>,
        iter_expr: &syn::Expr,
        pat: &syn::Pat,
        body_active: bool,
        body: &mut dyn FnMut(&mut Self),
    ) -> Value {
        // `a.chain(b)`: a loop over each part, with the same body
        if let Some((first, second)) = chained(iter_expr) {
            self.iter_loop_dyn(label.clone(), &first, pat, body_active, body);
            return self.iter_loop_dyn(label, &second, pat, body_active, body);
        }
        // `it.scan(init, |acc, x| …)`: the state a local cell, the closure (bound as a local
        // one) writing it for `*acc`; a loop over `it` whose items are the closure's values,
        // ending where it gives `None`
        if let Some((it, prelude)) = scanned(iter_expr) {
            let prelude = self.synth.get("scan", prelude);
            if let syn::Expr::Block(b) = &*prelude {
                for stmt in &b.block.stmts {
                    if let syn::Stmt::Local(local) = stmt {
                        self.local(local);
                    }
                }
            }
            let span = iter_expr.span();
            let item: syn::Pat = syn::parse_quote_spanned!(span=> __autodiff_scanned);
            let next = self.synth.get(
                "scan_next",
                syn::parse_quote_spanned! {span=>
                    match __autodiff_scan_step(__autodiff_scanned) {
                        ::core::option::Option::Some(__autodiff_v) => __autodiff_v,
                        ::core::option::Option::None => break,
                    }
                },
            );
            let it = self.synth.get("scan_source", it);
            return self.iter_loop_dyn(label, &it, &item, true, &mut |l| {
                let v = l.value_of(&next);
                // (the rest where the step gave a value: `None` left the loop)
                let Some(guard) = l.guard() else {
                    return;
                };
                let then = l.nested(false, |l| {
                    l.bind_pattern(pat, v, None, span);
                    body(l);
                });
                let els = l.nested(false, |_| {});
                l.push_if(guard, then, els);
            });
        }
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
        // (a range's bounds are integers, constants whatever they are computed from:
        // `0..m.nrows()`, `(1..=x.len() - 1).rev()`)
        if (integer_range(iter_expr) || !self.references_active(iter_expr)) && !indexed {
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
            // (`out.iter_mut()` zipped into a chain that is not a loop's own: say so there)
            if let Some((span, Some(method))) = super::calls::mutation_in(iter_expr) {
                self.errors
                    .push(span, diag::method_mutates_in_call(&method));
                return Value::Tuple(Vec::new());
            }
            return self.unsupported(iter_expr, diag::UNSUPPORTED_ITERATOR);
        };
        let mut resolved = Vec::new();
        for src in &chain.sources {
            let p = &src.base;
            match self.place(p) {
                Some(place) => resolved.push(place),
                // a field (`m.layers`): the sequence the projection reads
                // a constant field (`self.w` of a constant receiver): borrowed, not moved
                None if matches!(p, syn::Expr::Field(_)) && !self.references_active(p) => {
                    let field = self.renamed(p);
                    match self.inactive(quote!(&(#field)), p.span()) {
                        Value::Var(v) => resolved.push(Place::Var(v)),
                        _ => return self.unsupported(p, diag::ITERATE_NAMED_OR_FIELD),
                    }
                }
                None if matches!(p, syn::Expr::Field(_) | syn::Expr::Call(_))
                    || matches!(p, syn::Expr::MethodCall(m) if flattened(m)) =>
                {
                    match self.expr(p) {
                        Value::Var(v) => resolved.push(Place::Var(v)),
                        _ => return self.unsupported(p, diag::ITERATE_NAMED_OR_FIELD),
                    }
                }
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
            let mut step = None;
            for op in &src.ops {
                match (op, forward) {
                    (SourceOp::Rev, _) => forward = !forward,
                    (SourceOp::StepBy(n), _) => {
                        let n = self.renamed(n);
                        let v = self.inactive(
                            quote!({
                                let step = (#n) as usize;
                                assert!(step != 0, "assertion failed: step != 0");
                                step
                            }),
                            span,
                        );
                        step = Some(self.operand(v, span).tokens());
                    }
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
            // `x.iter().skip(1)` reads `x[k + 1]`: in any iteration the skip is less than
            // the length (the count is zero otherwise), so the clamped start is the literal
            let skip_only = match (src.lo.is_none() && src.hi.is_none(), src.ops.as_slice()) {
                (true, [SourceOp::Skip(syn::Expr::Lit(l))])
                    if matches!(l.lit, syn::Lit::Int(_)) =>
                {
                    Some(l.to_token_stream())
                }
                _ => None,
            };
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
            ranges.push((len, lo, hi, forward, step, skip_only));
        }
        let counts: Vec<TokenStream> = ranges
            .iter()
            .map(|(len, lo, hi, _, step, _)| match (lo, hi, step) {
                (Some(lo), Some(hi), Some(step)) => {
                    quote!(#hi.saturating_sub(#lo).div_ceil(#step))
                }
                (Some(lo), Some(hi), None) => quote!(#hi.saturating_sub(#lo)),
                _ => len.clone(),
            })
            .collect();
        let count = counts
            .iter()
            .skip(1)
            .fold(counts[0].clone(), |a, b| quote!(::core::cmp::min(#a, #b)));
        let iter = quote!(0..#count);
        let iter = (iter, Some(Operand::Inline(syn::parse_quote!(0usize))));
        let enumerate = chain.enumerate;
        let copies: Vec<bool> = chain.sources.iter().map(|s| s.copied).collect();
        // (the elements of a field's sequence, `self.layers`, may be a user's structs: their
        // methods are the annotated `impl`'s, as those of a value a call made)
        let of_field: Vec<bool> = chain
            .sources
            .iter()
            .map(|s| matches!(&s.base, syn::Expr::Field(_)))
            .collect();
        let skipped: Vec<syn::Expr> = chain.skipped.iter().map(|n| self.renamed(n)).collect();
        let filters = chain.filters.clone();
        self.lower_loop(label, Some(iter), |l| {
            let k = l.new_var(false);
            let mut elems = Vec::new();
            for (((place, (_, lo, hi, forward, step, skip)), copied), of_field) in
                resolved.iter().zip(&ranges).zip(&copies).zip(&of_field)
            {
                let copied = *copied;
                let kk = k.ident();
                let offset = match step {
                    Some(step) => quote!(#kk * #step),
                    None => quote!(#kk),
                };
                let index = match (skip, lo, hi, forward) {
                    (Some(skip), ..) => Some(quote!(#kk + #skip)),
                    (None, Some(lo), _, true) => Some(quote!(#lo + #offset)),
                    (None, _, Some(hi), false) => Some(quote!(#hi - 1 - #offset)),
                    _ => None,
                };
                let index = match index {
                    Some(i) => {
                        let i = l.inactive(i, span);
                        l.operand(i, span)
                    }
                    None => Operand::Var(k),
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
                if matches!(place, Place::Cell(c) if l.struct_cells.contains(c))
                    || l.local_struct_vec(*place)
                {
                    // (a struct pushed onto a local `Vec`: borrowed)
                    l.vars[v.0].maybe_array = true;
                    l.vars[v.0].struct_element = true;
                }
                if *of_field || l.vars[v.0].struct_element {
                    l.made_values.insert(v);
                }
                elems.push(if copied {
                    Value::Var(v)
                } else {
                    Value::Ref(Box::new(Value::Var(v)))
                });
            }
            // zipped items nest to the left: `((a, b), c)`
            let mut elems = elems.into_iter();
            let first = elems.next().expect("a source");
            let item = elems.fold(first, |a, b| Value::Tuple(vec![a, b]));
            let value = if enumerate {
                let index = if skipped.is_empty() {
                    Value::Var(k)
                } else {
                    // (the items skipped after `.enumerate()` still counted)
                    let kk = k.ident();
                    l.inactive(quote!(#kk #(+ ((#skipped) as usize))*), span)
                };
                Value::Tuple(vec![index, item])
            } else {
                item
            };
            l.filtered(&filters, value, pat, body);
            Some(k)
        })
    }

    /// The body of a loop over `item` under its chain's filters: each filter's closure
    /// handed `&item`, the rest (the next filters, then `pat` bound to the item and the
    /// body) lowered in the branch where it holds.
    fn filtered(
        &mut self,
        filters: &[Filter],
        item: Value,
        pat: &syn::Pat,
        body: impl FnOnce(&mut Self),
    ) {
        let Some((Filter { closure: f, stops }, rest)) = filters.split_first() else {
            self.bind_pattern(pat, item, None, pat.span());
            body(self);
            return;
        };
        // (the filter's parameter is its own: a scope of its own, left before the body)
        self.scopes.push(HashMap::new());
        self.bind_pattern(
            &f.inputs[0],
            Value::Ref(Box::new(item.clone())),
            None,
            f.span(),
        );
        let cond = self.condition(&f.body);
        self.scopes.pop();
        let kept = self.nested(false, |l| l.filtered(rest, item, pat, body));
        let span = f.span();
        let skipped = self.nested(false, |l| {
            if *stops {
                // (`take_while`: the loop ends at the first item that fails)
                let b: syn::ExprBreak = syn::parse_quote_spanned!(span=> break);
                l.break_expr(&b);
            }
        });
        self.push_if(cond, kept, skipped);
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
            // a `let mut` buffer: its snapshot (see `sub_slice`)
            Some(Place::Cell(cell)) => Place::Var(self.read_cell(cell, span)),
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
                element: false,
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
    /// (kept across passes, `Synth`: its body is lowered where it runs, and cells are keyed
    /// by the address of the syntax that makes them)
    pub(super) fn closure_of(&self, x: &syn::Expr, arity: usize) -> Option<Rc<syn::ExprClosure>> {
        let c = self.closure_made(x, arity)?;
        Some(self.synth.closure(c))
    }

    fn closure_made(&self, x: &syn::Expr, arity: usize) -> Option<syn::ExprClosure> {
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
                            let a = args(self.closures[*k].closure().inputs.len());
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
    fn peel_maps<'e>(
        &self,
        mut x: &'e syn::Expr,
    ) -> Option<(&'e syn::Expr, Vec<Rc<syn::ExprClosure>>)> {
        let mut maps = Vec::new();
        while let syn::Expr::MethodCall(inner) = x {
            if inner.method != "map" || inner.args.len() != 1 {
                break;
            }
            maps.push(self.closure_of(&inner.args[0], 1)?);
            x = &inner.receiver;
        }
        maps.reverse();
        // (the source itself, not a copy: syntax the lowering reads is keyed by its address,
        // which must be the same in every pass of the fixpoint and distinct between sites)
        Some((x, maps))
    }

    /// The loop's item through the closures of `….map(f).map(g)`, in a loop's body: each
    /// closure's value bound to the next one's parameter (the first's is the loop's
    /// pattern); `None` without a map.
    fn through_maps(&mut self, maps: &[Rc<syn::ExprClosure>]) -> Option<Value> {
        let mut mapped = None;
        for c in maps {
            if let Some(v) = mapped.take() {
                self.bind_pattern(&c.inputs[0], v, None, c.span());
            }
            mapped = Some(self.value_of(&c.body));
        }
        mapped
    }

    /// `….sum()`, `….product()`, `….map(|v| …).sum()`, `….fold(init, |acc, v| …)`: a
    /// loop with an accumulator cell, starting where the standard library starts
    /// (`-0.0` for a float sum, `1.0` for a product) so the value is bit for bit the same.
    pub(super) fn reduction(&mut self, e: &syn::Expr, m: &syn::ExprMethodCall) -> Option<Value> {
        let name = m.method.to_string();
        type Accumulation = Option<(&'static Rule, syn::BinOp)>;
        type Reduction<'e> = (
            &'e syn::Expr,
            syn::Expr,
            Accumulation,
            Vec<Rc<syn::ExprClosure>>,
            Option<Rc<syn::ExprClosure>>,
        );
        let closure_of = |x: &syn::Expr, arity: usize| self.closure_of(x, arity);
        let (src, init, op, maps, fold): Reduction<'_> = match (name.as_str(), m.args.len()) {
            ("sum" | "product", 0) if is_iterator_chain(&m.receiver) => {
                let (src, maps) = self.peel_maps(&m.receiver)?;
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
                let (src, maps) = self.peel_maps(&m.receiver)?;
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
        // `fold((0.0, 0.0), |(s, s2), v| (s + v, s2 + v * v))`: one accumulator per member
        let members: Option<Vec<syn::Expr>> = match (&init, &fold) {
            (syn::Expr::Tuple(t), Some(_)) if !t.elems.is_empty() => {
                Some(t.elems.iter().cloned().collect())
            }
            _ => None,
        };
        let mut accs = Vec::new();
        for (k, start) in members.iter().flatten().enumerate() {
            let start = self.operand_of(start);
            let cell = self.new_cell(None, component_key(node_key(m), k));
            self.write_cell(cell, start);
            accs.push(cell);
        }
        let init = match (&self.float_type, fold.is_none()) {
            _ if members.is_some() => None,
            // generic code: the start is of the function's float type (`T + {float}` does
            // not type-check)
            (Some(t), true) => {
                let v = self.inactive(
                    quote!(<#t as ::autodiff::__private::Real>::from_f64_rounded(#init)),
                    e.span(),
                );
                Some(self.operand(v, e.span()))
            }
            _ => Some(self.operand_of(&init)),
        };
        if let Some(init) = init {
            let acc = self.new_cell(None, node_key(m));
            self.write_cell(acc, init);
            accs.push(acc);
        }
        let acc = *accs.first()?;
        let item_pat: syn::Pat = match (maps.first(), &fold) {
            (Some(c), _) => c.inputs[0].clone(),
            (_, Some(c)) => c.inputs[1].clone(),
            _ => syn::parse_quote!(__autodiff_item),
        };
        let body_active = maps.iter().any(|c| self.references_active(&c.body))
            || fold
                .as_ref()
                .is_some_and(|c| self.references_active(&c.body))
            || accs.iter().any(|a| self.cells[a.0].active);
        self.iter_loop(None, src, &item_pat, body_active, |l| {
            let mapped = l.through_maps(&maps);
            let value = match (&fold, op) {
                (Some(c), _) if members.is_some() => {
                    let old = accs
                        .iter()
                        .map(|&a| Value::Var(l.read_cell(a, c.span())))
                        .collect();
                    l.bind_pattern(&c.inputs[0], Value::Tuple(old), None, c.span());
                    if let Some(v) = mapped {
                        l.bind_pattern(&c.inputs[1], v, None, c.span());
                    }
                    let v = l.value_of(&c.body);
                    for (k, &a) in accs.iter().enumerate() {
                        let Some(member) = l.component(&v, k, c.body.span()) else {
                            l.errors.push_spanned(&c.body, diag::DESTRUCTURING);
                            return;
                        };
                        let member = l.operand(member, c.body.span());
                        l.write_cell(a, member);
                    }
                    return;
                }
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
        if members.is_some() {
            let members = accs
                .iter()
                .map(|&a| Value::Var(self.read_cell(a, e.span())))
                .collect();
            return Some(Value::Tuple(members));
        }
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
        let (src, mut maps) = self.peel_maps(&m.receiver)?;
        if maps.iter().any(|c| c.inputs.len() != 1) {
            return None;
        }
        // `it.scan(init, |acc, x| …)` (mapped or not): its items are known one at a time,
        // so the `Vec` grows by `push` in a loop over it
        if scanned(src).is_some() {
            let span = e.span();
            let (out, item) = (
                syn::Ident::new("__autodiff_collected", proc_macro2::Span::mixed_site()),
                syn::Ident::new("__autodiff_item", proc_macro2::Span::mixed_site()),
            );
            let mut value: syn::Expr = syn::parse_quote!(#item);
            let mut binds: Vec<syn::Stmt> = Vec::new();
            for c in &maps {
                let (pat, body) = (&c.inputs[0], &c.body);
                binds.push(syn::parse_quote!(let #pat = #value;));
                binds.push(syn::parse_quote!(let #item = #body;));
                value = syn::parse_quote!(#item);
            }
            let looped: syn::Expr = syn::parse_quote_spanned! {span=> {
                let mut #out = ::std::vec::Vec::new();
                for #item in (#src) {
                    #(#binds)*
                    #out.push(#value);
                }
                #out
            }};
            let looped = self.synth.get("collect_scan", looped);
            return Some(self.expr(&looped));
        }
        let chain = chain_iter(src)?;
        // `x.iter().rev().copied().collect()`: the items themselves, one sequence's values
        if maps.is_empty() {
            let copied = matches!(&src, syn::Expr::MethodCall(c)
                if (c.method == "copied" || c.method == "cloned") && c.args.is_empty());
            if !copied || chain.enumerate || chain.sources.len() != 1 {
                return None;
            }
            let item = syn::parse_quote_spanned!(e.span()=> |__autodiff_item| *__autodiff_item);
            maps.push(self.synth.closure(item));
        }
        // (items are written at the enumerate index: none may be skipped before them)
        if !is_iterator_chain(src) || !chain.skipped.is_empty() {
            return None;
        }
        let span = e.span();
        let counted = self.renamed(src).to_token_stream();
        // (a `Vec` of structs, `.map(|&x| P { x, v: 0.0 })`, grows by each one as `push`
        // grows it: a struct has no zero to start from)
        let structs = maps.last().is_some_and(|c| {
            matches!(
                block_value(&c.body),
                syn::Expr::Struct(_) | syn::Expr::Tuple(_)
            )
        });
        let zeros = if structs {
            self.inactive(
                quote_spanned!(span=> ::std::vec::Vec::with_capacity((#counted).count())),
                span,
            )
        } else {
            self.inactive(
                quote_spanned!(span=> (#counted)
                    .map(|_| ::autodiff::__private::ops::real_zero())
                    .collect::<::std::vec::Vec<_>>()),
                span,
            )
        };
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
            // (a typed closure parameter, `|v: f64|`, without its type: a tuple pattern's
            // elements have none)
            let item = strip_pat_type(item);
            (
                syn::parse_quote_spanned!(span=> #src.enumerate()),
                syn::parse_quote_spanned!(span=> (__autodiff_k, #item)),
                None,
            )
        };
        let body_active = maps.iter().any(|c| self.references_active(&c.body));
        // (kept, as syntax the lowering writes is: its address keys what it makes)
        let looped = self.synth.get("collected_source", looped);
        self.iter_loop(None, &looped, &pat, body_active, |l| {
            if let Some(p) = &index_pat {
                let k = l.expr(&syn::parse_quote!(__autodiff_k));
                l.bind_pattern(p, k, None, span);
            }
            let v = l.through_maps(&maps).expect("at least one map");
            let value = l.operand(v, span);
            let index = l.operand_of(&syn::parse_quote!(__autodiff_k));
            if l.operand_active(&value) {
                l.found_active_cells.insert(active_key(l.cell_keys[out.0]));
            }
            l.snapshots.remove(&out);
            if structs {
                l.struct_cells.insert(out);
                l.block.stmts.push(Stmt::Grow {
                    cell: out,
                    len: index.clone(),
                    value: value.clone(),
                });
            }
            l.block.stmts.push(Stmt::WriteIndex {
                cell: out,
                index,
                value,
            });
        });
        Some(Value::Var(self.read_cell(out, span)))
    }
}

/// The two parts of `a.chain(b)`, as iterators each, with the element-wise adapters after
/// it applied to both (`a.chain(b).map(f)`: `a.map(f)` and `b.map(f)`; `.rev()` reverses the
/// order of the parts too).
pub(super) fn chained(e: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
    let syn::Expr::MethodCall(m) = e else {
        return match e {
            syn::Expr::Paren(p) => chained(&p.expr),
            _ => None,
        };
    };
    let method = m.method.to_string();
    if method == "chain" && m.args.len() == 1 && is_iterator_chain(&m.receiver) {
        let b = &m.args[0];
        // (`x.iter().chain(y)` of a slice `y`, or `&v`: its items by reference)
        let b: syn::Expr = match b {
            syn::Expr::Path(_) | syn::Expr::Field(_) => {
                syn::parse_quote_spanned!(b.span()=> #b.iter())
            }
            syn::Expr::Reference(r) if r.mutability.is_none() => {
                let x = &r.expr;
                syn::parse_quote_spanned!(b.span()=> #x.iter())
            }
            other => other.clone(),
        };
        return Some(((*m.receiver).clone(), b));
    }
    let elementwise = matches!(method.as_str(), "map" | "filter" | "copied" | "cloned");
    if !(elementwise || method == "rev") {
        return None;
    }
    let (a, b) = chained(&m.receiver)?;
    let with = |r: syn::Expr| {
        let mut m = m.clone();
        m.receiver = Box::new(r);
        syn::Expr::MethodCall(m)
    };
    Some(if method == "rev" {
        (with(b), with(a))
    } else {
        (with(a), with(b))
    })
}

/// Whether `body` breaks out of the loop labelled `label` (an unlabelled `break` outside
/// nested loops and closures, or `break 'label`).
pub(super) fn breaks_out(body: &syn::Block, label: Option<&str>) -> bool {
    struct Find<'a> {
        label: Option<&'a str>,
        depth: usize,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            let ours = match &b.label {
                Some(l) => self.label == Some(l.ident.to_string().as_str()),
                None => self.depth == 0,
            };
            self.found |= ours;
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            self.depth += 1;
            syn::visit::visit_expr_for_loop(self, f);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
            self.depth += 1;
            syn::visit::visit_expr_while(self, w);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
            self.depth += 1;
            syn::visit::visit_expr_loop(self, l);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut f = Find {
        label,
        depth: 0,
        found: false,
    };
    syn::visit::Visit::visit_block(&mut f, body);
    f.found
}

/// The value a closure's body ends in (through blocks).
fn block_value(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => block_value(tail),
            _ => e,
        },
        syn::Expr::Paren(p) => block_value(&p.expr),
        _ => e,
    }
}

/// A closure parameter's pattern without its type (`|(i, x): (usize, f64)|`).
fn strip_pat_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => strip_pat_type(&t.pat),
        syn::Pat::Paren(q) => strip_pat_type(&q.pat),
        _ => p,
    }
}

/// Whether `e` yields integers from a range: `a..b` or `a..=b`, in parentheses, through
/// `rev()`, `step_by(k)`, `skip(k)` and `take(k)`.
fn integer_range(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Paren(p) => integer_range(&p.expr),
        syn::Expr::Range(r) => r.start.is_some() && r.end.is_some(),
        syn::Expr::MethodCall(m) => {
            ["rev", "step_by", "skip", "take"]
                .iter()
                .any(|n| m.method == n)
                && integer_range(&m.receiver)
        }
        _ => false,
    }
}

/// `v.extend_from_slice(s)` (also `v.extend(s.iter())`, `.copied()`, `.cloned()`, and
/// `v.extend(&s)`; of an array literal, `&[a, b]`, its pushes) on a `Vec` named by a local:
/// the loop of pushes it is,
/// `for e in s.iter() { v.push(*e); }`, whose reverse the lowering knows (each push's
/// element adjoint moves to the element it copied, and the growth is undone).
fn extend_as_pushes(m: &syn::ExprMethodCall) -> Option<syn::Expr> {
    if m.args.len() != 1
        || !matches!(&*m.receiver, syn::Expr::Path(p) if p.path.get_ident().is_some())
    {
        return None;
    }
    let arg = &m.args[0];
    let by_reference = match m.method.to_string().as_str() {
        "extend_from_slice" => true,
        "extend" => match arg {
            syn::Expr::Reference(r) if r.mutability.is_none() => true,
            syn::Expr::MethodCall(c) if c.args.is_empty() && c.method == "iter" => true,
            syn::Expr::MethodCall(c)
                if c.args.is_empty()
                    && (c.method == "copied" || c.method == "cloned")
                    && matches!(&*c.receiver, syn::Expr::MethodCall(i)
                        if i.method == "iter" && i.args.is_empty()) =>
            {
                false
            }
            _ => return None,
        },
        _ => return None,
    };
    let span = m.method.span();
    let v = &m.receiver;
    // `v.extend_from_slice(&[a, b])`: each pushed
    if let syn::Expr::Reference(r) = arg {
        if let syn::Expr::Array(a) = &*r.expr {
            let items = a.elems.iter();
            return Some(syn::parse_quote_spanned!(span=> { #(#v.push(#items);)* }));
        }
    }
    let e = syn::Ident::new("__autodiff_extended", proc_macro2::Span::mixed_site());
    let iter: syn::Expr = match (m.method == "extend_from_slice", arg) {
        (true, _) | (false, syn::Expr::Reference(_)) => {
            syn::parse_quote_spanned!(span=> (#arg).iter())
        }
        _ => arg.clone(),
    };
    let item: syn::Expr = if by_reference {
        syn::parse_quote!(*#e)
    } else {
        syn::parse_quote!(#e)
    };
    Some(syn::Expr::ForLoop(syn::ExprForLoop {
        attrs: Vec::new(),
        label: None,
        for_token: Default::default(),
        pat: Box::new(syn::parse_quote!(#e)),
        in_token: Default::default(),
        expr: Box::new(iter),
        body: syn::parse_quote_spanned!(span=> { #v.push(#item); }),
    }))
}

/// Iterators consumed for their closures' effects, rewritten as the `for` loops they are
/// before lowering (and before [`super::views::rewrite`], which reads `iter_mut` loops):
/// `it.for_each(|p| body)` is `for p in it { body; }`, and `it.map(|p| body).count()` with a
/// `body` that writes (`*o = …` through `out.iter_mut()`) is the same loop counting its
/// iterations. A closure that returns early or uses `?` (which would leave the function
/// from a loop, [`super::control::expr_may_exit`]) is left as written.
pub(super) fn effects_as_loops(block: &syn::Block) -> syn::Block {
    // (only a call that is a statement of its own: a loop is no operand — `….for_each(…)
    // as T` would not read back — and its value, `()`, is what the statement discards)
    struct Rewrite;
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
            syn::visit_mut::visit_stmt_mut(self, stmt);
            if let syn::Stmt::Expr(e @ syn::Expr::MethodCall(_), _) = stmt {
                if let syn::Expr::MethodCall(m) = &*e {
                    if let Some(looped) = as_loop(m) {
                        *e = looped;
                    }
                }
            }
        }
    }
    let mut out = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewrite, &mut out);
    out
}

fn as_loop(m: &syn::ExprMethodCall) -> Option<syn::Expr> {
    if let Some(pushes) = extend_as_pushes(m) {
        return Some(pushes);
    }
    let (iter, closure, counted) = match m.method.to_string().as_str() {
        "for_each" if m.args.len() == 1 => (&*m.receiver, &m.args[0], false),
        "count" if m.args.is_empty() => match &*m.receiver {
            syn::Expr::MethodCall(inner)
                if inner.method == "map"
                    && inner.args.len() == 1
                    && matches!(&inner.args[0], syn::Expr::Closure(c)
                        if super::calls::mutation_in(&c.body).is_some()) =>
            {
                (&*inner.receiver, &inner.args[0], true)
            }
            _ => return None,
        },
        _ => return None,
    };
    let syn::Expr::Closure(c) = closure else {
        return None;
    };
    if c.inputs.len() != 1 || super::control::expr_may_exit(&c.body) {
        return None;
    }
    let pat = match &c.inputs[0] {
        syn::Pat::Type(t) => (*t.pat).clone(),
        p => p.clone(),
    };
    // (built, not quoted and parsed again: the iterator may be any expression, a struct
    // literal's method call included, which a `for` head would not parse)
    let mut stmts = vec![syn::Stmt::Expr((*c.body).clone(), Some(Default::default()))];
    let n = syn::Ident::new("__autodiff_count", proc_macro2::Span::mixed_site());
    if counted {
        stmts.push(syn::parse_quote!(#n += 1;));
    }
    let looped = syn::Expr::ForLoop(syn::ExprForLoop {
        attrs: Vec::new(),
        label: None,
        for_token: Default::default(),
        pat: Box::new(pat),
        in_token: Default::default(),
        expr: Box::new(iter.clone()),
        body: syn::Block {
            brace_token: Default::default(),
            stmts,
        },
    });
    if !counted {
        return Some(looped);
    }
    Some(syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: syn::Block {
            brace_token: Default::default(),
            stmts: vec![
                syn::parse_quote!(let mut #n = 0usize;),
                syn::Stmt::Expr(looped, None),
                syn::Stmt::Expr(syn::parse_quote!(#n), None),
            ],
        },
    }))
}

/// `it.scan(init, |acc, x| body)`: `it`, and the statements that make its state and step,
/// `{ let mut __autodiff_scan = init; let __autodiff_scan_step = |x| body'; }` (`body'` reading
/// and writing `__autodiff_scan` for `acc` and `*acc`).
fn scanned(e: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    let (true, [init, syn::Expr::Closure(c)]) =
        (m.method == "scan", &m.args.iter().collect::<Vec<_>>()[..])
    else {
        return None;
    };
    if c.inputs.len() != 2 || c.asyncness.is_some() {
        return None;
    }
    let acc = match &c.inputs[0] {
        syn::Pat::Ident(p) => p.ident.clone(),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => p.ident.clone(),
            _ => return None,
        },
        _ => return None,
    };
    let span = m.method.span();
    let state = syn::Ident::new("__autodiff_scan", span);
    // (`acc` renamed where it is the state's: not where a closure, a `let`, a `match` arm
    // or a loop of the step binds a name of its own the same, see `rename`; then `*acc`,
    // now `*state`, is the state itself)
    let mut step = (*c.body).clone();
    let name = acc.to_string();
    let renamed = state.to_token_stream();
    crate::rename::rename_expr(&mut step, &|n| (n == name).then(|| renamed.clone()));
    syn::visit_mut::VisitMut::visit_expr_mut(&mut StateReads(state.to_string()), &mut step);
    let x = &c.inputs[1];
    let prelude = syn::parse_quote_spanned! {span=>
        {
            let mut #state = #init;
            let __autodiff_scan_step = |#x| #step;
        }
    };
    Some(((*m.receiver).clone(), prelude))
}

/// A `scan` step renamed (see [`scanned`]): `*state` read and written as `state`, the local
/// holding the state.
struct StateReads(String);

impl syn::visit_mut::VisitMut for StateReads {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Unary(u) = e {
            if matches!(u.op, syn::UnOp::Deref(_)) && u.expr.to_token_stream().to_string() == self.0
            {
                *e = (*u.expr).clone();
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
