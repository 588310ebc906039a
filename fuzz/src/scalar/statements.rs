//! Statements: blocks within a budget, `let`s and updates of accumulators and buffers,
//! branches, early returns, and the choice among them.

use super::*;

impl FnGen<'_> {
    /// Statements using up to `budget` statements (nested ones count).
    pub(super) fn block(&mut self, budget: usize) -> Vec<Stmt> {
        let mut left = budget;
        let mut out = Vec::new();
        while left > 0 {
            out.extend(self.stmt(&mut left));
        }
        out
    }

    /// A nested block in a scope of its own.
    pub(super) fn scoped(&mut self, budget: usize, bindings: Vec<Binding>) -> Vec<Stmt> {
        self.scopes.push(bindings);
        let body = self.block(budget);
        self.scopes.pop();
        body
    }

    pub(super) fn take_sub(&mut self, left: &mut usize, max: usize) -> usize {
        let sub = self.rng.range(1, max.min(*left).max(1));
        *left = left.saturating_sub(sub);
        sub
    }

    /// An update of a mutable value; `in_loop` keeps its growth per iteration bounded.
    pub(super) fn update(&mut self) -> Option<Stmt> {
        let targets = self.mutable_floats();
        let buffers = self.slices(true);
        let use_buffer = !buffers.is_empty() && (targets.is_empty() || self.rng.chance(0.25));
        if use_buffer {
            let (name, len, mag) = self.rng.pick(&buffers).clone();
            let index = self.write_index(len);
            let (e, m) = self.bounded(2, 1.5);
            let op = *self.rng.pick(&["=", "+=", "-="]);
            let new = if op == "=" { mag.max(m) } else { mag + m };
            self.set_mag(&name, new);
            return Some(self.line(format!("{name}[{index}] {op} {};", e.render())));
        }
        if targets.is_empty() {
            return None;
        }
        let name = self.rng.pick(&targets).clone();
        let mag = self.mag_of(&name);
        let in_loop = !self.loops.is_empty();
        let typed_target = self.is_typed_var(&name);
        let form = if typed_target {
            self.rng.below(9)
        } else {
            // The first update gives the accumulator its type; it must not read it.
            *self.rng.pick(&[0, 1, 2, 3, 7])
        };
        let (text, new) = match form {
            0..=2 => {
                let (e, m) = self.bounded(2, 1.5);
                let e = typed(e);
                let op = if self.rng.chance(0.7) { "+=" } else { "-=" };
                (format!("{name} {op} {};", e.render()), mag + m)
            }
            3 => {
                let (e, _) = self.expr(1);
                let factor = match self.rng.below(4) {
                    0 => method(e, "tanh", vec![]),
                    1 => method(e, "cos", vec![]),
                    2 => bin('+', Lit(0.5), bin('*', Lit(0.4), method(e, "sin", vec![]))),
                    _ if in_loop => {
                        bin('+', Lit(0.8), bin('*', Lit(0.2), method(e, "sin", vec![])))
                    }
                    _ => bin('+', Lit(1.0), method(e, "tanh", vec![])),
                };
                (format!("{name} *= {};", factor.render()), mag * 2.0)
            }
            4 => {
                let (e, _) = self.expr(1);
                let divisor = if self.rng.chance(0.5) {
                    bin('+', Lit(1.0), method(e, "powi", vec![Atom("2".into())]))
                } else {
                    bin('+', Lit(2.0), method(e, "cos", vec![]))
                };
                (format!("{name} /= {};", divisor.paren(true)), mag)
            }
            5 => {
                // acc = f(acc, …), squashed
                let (r, _) = self.read(&name, mag, false);
                let (e, _) = self.bounded(1, 2.0);
                let inner = bin(*self.rng.pick(&['+', '*', '-']), r, e);
                let f = *self.rng.pick(&["tanh", "sin", "atan"]);
                (
                    format!("{name} = {};", method(inner, f, vec![]).render()),
                    1.6,
                )
            }
            8 => {
                // an update from the value read twice (its adjoint's partials are
                // combined before the cotangent meets them): relaxation, logistic growth
                let (e, _) = self.expr(1);
                let e = method(e, "tanh", vec![]).render();
                self.features
                    .insert("a local updated from its value read twice (preaccumulated)");
                if self.rng.chance(0.5) {
                    (format!("{name} -= 0.25 * {name} * {e};"), mag * 1.25)
                } else {
                    (
                        format!("{name} += 0.1 * {e} * (1.0 - {name});"),
                        mag + 0.1 * (1.0 + mag),
                    )
                }
            }
            _ => {
                let (e, m) = self.bounded(2, 3.0);
                (format!("{name} = {};", typed(e).render()), m)
            }
        };
        let new = new.max(mag);
        self.set_mag(&name, new);
        self.set_typed(&name);
        Some(self.line(text))
    }

    pub(super) fn is_typed_var(&self, name: &str) -> bool {
        self.visible()
            .iter()
            .any(|b| b.name == name && matches!(b.kind, Kind::F { typed: true, .. }))
    }

    pub(super) fn set_typed(&mut self, name: &str) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(b) = scope.iter_mut().rev().find(|b| b.name == name) {
                if let Kind::F { typed, .. } = &mut b.kind {
                    *typed = true;
                }
                return;
            }
        }
    }

    /// An index for a write into a local buffer of `len` elements: `v[i % v.len()] = …`
    /// does not compile (the index borrows `v` while `index_mut` does), so no `.len()`.
    pub(super) fn write_index(&mut self, len: usize) -> String {
        let ints = self.ints();
        if ints.is_empty() || self.rng.chance(0.2) {
            return self.rng.below(len).to_string();
        }
        let (i, bound) = self.rng.pick(&ints).clone();
        if bound <= len {
            match self.rng.below(4) {
                0 => format!("{} - {i}", len - 1),
                _ => i,
            }
        } else if self.rng.chance(0.5) {
            format!("{i} % {len}")
        } else {
            format!("({i} + 1) % {len}")
        }
    }

    /// Makes sure a mutable accumulator exists; returns its declaration if one was made.
    pub(super) fn ensure_accumulator(&mut self) -> Option<Stmt> {
        if !self.mutable_floats().is_empty() {
            return None;
        }
        Some(self.new_accumulator())
    }

    /// `let mut acc = …;`, often with a bare literal (`0.0`) as in hand-written code.
    pub(super) fn new_accumulator(&mut self) -> Stmt {
        let name = self.fresh("acc");
        let (text, mag, typed_init) = if self.rng.chance(0.45) {
            (lit(*self.rng.pick(&[0.0, 1.0, 0.5])), 1.0, false)
        } else {
            let (e, m) = self.bounded(2, READ_LIMIT);
            (typed(e).render(), m, true)
        };
        let s = self.line(format!("let mut {name} = {text};"));
        self.bind(
            name,
            Kind::F {
                mutable: true,
                mag,
                by_ref: false,
                typed: typed_init,
            },
        );
        s
    }

    /// A loop body: statements, then at least one update of an outer value.
    pub(super) fn loop_body(&mut self, budget: usize, bindings: Vec<Binding>) -> Vec<Stmt> {
        self.scopes.push(bindings);
        let mut body = self.block(budget);
        let updates = body
            .iter()
            .any(|s| matches!(&s.node, Node::Line(l) if l.contains("+=") || l.contains("-=") || l.contains("*=") || (l.contains(" = ") && !l.starts_with("let"))));
        if !updates || self.rng.chance(0.3) {
            if let Some(u) = self.update() {
                body.push(u);
            }
        }
        self.scopes.pop();
        body
    }

    pub(super) fn stmt(&mut self, left: &mut usize) -> Vec<Stmt> {
        *left -= 1;
        self.cost += self.trips as f64;
        let depth = self.scopes.len();
        let can_loop = self.loops.len() < 3 && self.trips * 2 <= MAX_TRIPS;
        let has_mut = !self.mutable_floats().is_empty() || !self.slices(true).is_empty();
        let in_for = self.loops.last() == Some(&LoopKind::For);
        let weights = [
            4.0,                                            // 0 let
            1.5,                                            // 1 shadowing let
            if has_mut { 1.5 } else { 3.0 },                // 2 let mut
            if has_mut { 4.0 } else { 0.0 },                // 3 update
            if self.ints().is_empty() { 0.3 } else { 1.5 }, // 4 if on a constant condition
            2.0,                                            // 5 if on an active condition
            1.0,                                            // 6 let = if … else …
            if can_loop { 3.0 } else { 0.0 },               // 7 for
            if can_loop { 0.8 } else { 0.0 },               // 8 while
            if can_loop { 0.8 } else { 0.0 },               // 9 loop with break
            if depth <= 3 { 0.8 } else { 0.0 },             // 10 local buffer
            1.0,                                            // 11 match
            if depth <= 4 { 0.5 } else { 0.0 },             // 12 early return
            0.5,                                            // 13 let flag = comparison
            if in_for { 0.4 } else { 0.0 },                 // 14 continue
            0.3,                                            // 15 block expression
            0.4,                                            // 16 local closure
            0.4,                                            // 17 Option
            if depth <= 3 { 0.3 } else { 0.0 },             // 18 Vec built by push
            if self.slices(false).is_empty() {
                0.0
            } else {
                0.8
            }, // 19 collect (six forms)
            if self.slices(false).is_empty() {
                0.0
            } else {
                1.2
            }, // 20 iterator chain
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let name = self.fresh("t");
                let depth = self.rng.range(1, 3) as u32;
                let (e, m) = self.expr(depth);
                let ty = annotation(self.rng.chance(0.15) || !is_typed(&e));
                let s = self.line(format!("let {name}{ty} = {};", e.render()));
                self.bind(
                    name,
                    Kind::F {
                        mutable: false,
                        mag: m,
                        by_ref: false,
                        typed: true,
                    },
                );
                vec![s]
            }
            1 => {
                let floats: Vec<_> = self.floats().into_iter().filter(|f| !f.2).collect();
                let (name, mag, _) = self.rng.pick(&floats).clone();
                let (r, _) = self.read(&name, mag, false);
                let (e, m) = self.expr(1);
                let op = *self.rng.pick(&['+', '*', '-']);
                let (value, vm) = self.squash(bin(op, r, e), READ_LIMIT * m.max(1.0), EXPR_LIMIT);
                let s = self.line(format!("let {name} = {};", value.render()));
                self.bind(
                    name,
                    Kind::F {
                        mutable: false,
                        mag: vm,
                        by_ref: false,
                        typed: true,
                    },
                );
                vec![s]
            }
            2 => {
                let floats: Vec<_> = self.floats().into_iter().filter(|f| !f.2).collect();
                if self.rng.chance(0.2) {
                    // `let mut a = a;`: a parameter made mutable
                    let (name, mag, _) = self.rng.pick(&floats).clone();
                    let s = self.line(format!("let mut {name} = {name};"));
                    self.bind(
                        name,
                        Kind::F {
                            mutable: true,
                            mag,
                            by_ref: false,
                            typed: true,
                        },
                    );
                    vec![s]
                } else {
                    vec![self.new_accumulator()]
                }
            }
            3 => self.update().into_iter().collect(),
            4 | 5 => {
                let active = if self.rng.weighted(&weights[4..6]) == 0 {
                    0.0
                } else {
                    1.0
                };
                let mut out: Vec<Stmt> = self.ensure_accumulator().into_iter().collect();
                let mut parts = Vec::new();
                let cond = self.condition(active);
                let sub = self.take_sub(left, 4);
                parts.push((format!("if {cond} {{"), self.scoped(sub, vec![])));
                if self.rng.chance(0.25) {
                    let cond = self.condition(active);
                    let sub = self.take_sub(left, 3);
                    parts.push((format!("}} else if {cond} {{"), self.scoped(sub, vec![])));
                }
                if self.rng.chance(0.6) {
                    let sub = self.take_sub(left, 3);
                    parts.push(("} else {".to_string(), self.scoped(sub, vec![])));
                }
                out.push(self.compound(parts, "}"));
                out
            }
            6 => {
                let cond = self.condition(0.7);
                let (a, ma) = self.expr(2);
                let (b, mb) = self.expr(2);
                let name = self.fresh("t");
                let ty = annotation(!is_typed(&a) && !is_typed(&b));
                let s = self.line(format!(
                    "let {name}{ty} = if {cond} {{ {} }} else {{ {} }};",
                    a.render(),
                    b.render()
                ));
                self.bind(
                    name,
                    Kind::F {
                        mutable: false,
                        mag: ma.max(mb),
                        by_ref: false,
                        typed: true,
                    },
                );
                vec![s]
            }
            7 => self.for_loop(left),
            8 => self.while_loop(left),
            9 => self.loop_with_break(left),
            10 => self.buffer(),
            11 => self.matching(left),
            12 => {
                let cond = self.condition(0.8);
                let (e, m) = self.expr(2);
                self.ret_mag = self.ret_mag.max(m);
                let sub = self.take_sub(left, 1);
                let mut body = if sub > 0 && self.rng.chance(0.3) {
                    self.scoped(1, vec![])
                } else {
                    Vec::new()
                };
                let r = self.line(format!("return {};", e.render()));
                body.push(r);
                vec![self.compound(vec![(format!("if {cond} {{"), body)], "}")]
            }
            13 => {
                let name = self.fresh("flag");
                let (l, _) = self.expr(1);
                let c = lit(self.threshold());
                let s = self.line(format!("let {name} = {} > {c};", l.render_cmp()));
                self.bind(name, Kind::Bool);
                vec![s]
            }
            14 => {
                let cond = self.condition(0.4);
                let cont = self.line("continue;".to_string());
                vec![self.compound(vec![(format!("if {cond} {{"), vec![cont])], "}")]
            }
            16 => self.closure_stmt(),
            17 => self.option_stmt(),
            18 => self.push_stmt(),
            19 => self.collect_stmt(),
            20 => self.chain_stmt(),
            _ => {
                let inner = self.fresh("u");
                let name = self.fresh("t");
                let (e, m) = self.bounded(2, READ_LIMIT);
                self.scopes.push(vec![Binding {
                    name: inner.clone(),
                    kind: Kind::F {
                        mutable: false,
                        mag: m,
                        by_ref: false,
                        typed: true,
                    },
                }]);
                let (f, mf) = self.expr(2);
                self.scopes.pop();
                let ty = annotation(!is_typed(&f));
                let s = self.line(format!(
                    "let {name}{ty} = {{ let {inner} = {}; {} }};",
                    typed(e).render(),
                    f.render()
                ));
                self.bind(
                    name,
                    Kind::F {
                        mutable: false,
                        mag: mf,
                        by_ref: false,
                        typed: true,
                    },
                );
                vec![s]
            }
        }
    }

    /// A float `name` bound to a finished value of magnitude `mag`.
    fn bind_float(&mut self, name: String, mag: f64) {
        self.bind(
            name,
            Kind::F {
                mutable: false,
                mag,
                by_ref: false,
                typed: true,
            },
        );
    }

    /// An expression of a fresh float `inner` (of magnitude `m`) and what is visible; with
    /// its magnitude.
    fn expr_of(&mut self, inner: &str, m: f64) -> (Expr, f64) {
        self.scopes.push(vec![Binding {
            name: inner.to_string(),
            kind: Kind::F {
                mutable: false,
                mag: m,
                by_ref: false,
                typed: true,
            },
        }]);
        let (f, mf) = self.expr(2);
        self.scopes.pop();
        (f, mf)
    }

    /// `let c = |u: f64| …; let t = c(e1) + c(e2);` (the closure may read outer values).
    pub(super) fn closure_stmt(&mut self) -> Vec<Stmt> {
        let (c, inner, name) = (self.fresh("c"), self.fresh("u"), self.fresh("t"));
        let (e1, m1) = self.bounded(2, READ_LIMIT);
        let (e2, m2) = self.bounded(1, READ_LIMIT);
        let (f, mf) = self.expr_of(&inner, m1.max(m2));
        let def = self.line(format!("let {c} = |{inner}: f64| {};", typed(f).render()));
        let call = self.line(format!(
            "let {name}: f64 = {c}({}) - 0.5 * {c}({});",
            typed(e1).render(),
            typed(e2).render()
        ));
        self.bind_float(name, 1.5 * mf);
        self.features.insert("local closure called");
        vec![def, call]
    }

    /// `let o = if … { Some(e) } else { None };` then a `match` or an `if let` on it.
    pub(super) fn option_stmt(&mut self) -> Vec<Stmt> {
        let (o, inner, name) = (self.fresh("o"), self.fresh("u"), self.fresh("t"));
        let cond = self.condition(0.6);
        let (e, m) = self.bounded(2, READ_LIMIT);
        let def = self.line(format!(
            "let {o}: Option<f64> = if {cond} {{ Some({}) }} else {{ None }};",
            typed(e).render()
        ));
        let (f, mf) = self.expr_of(&inner, m);
        let (g, mg) = self.bounded(1, READ_LIMIT);
        let use_it = if self.rng.chance(0.5) {
            self.features
                .insert("Option: if/else of Some/None, then match");
            format!(
                "let {name}: f64 = match {o} {{ Some({inner}) => {}, None => {} }};",
                typed(f).render(),
                typed(g).render()
            )
        } else {
            self.features.insert("Option: if let Some(v)");
            format!(
                "let {name}: f64 = if let Some({inner}) = {o} {{ {} }} else {{ {} }};",
                typed(f).render(),
                typed(g).render()
            )
        };
        let use_it = self.line(use_it);
        self.bind_float(name, mf.max(mg));
        vec![def, use_it]
    }

    /// `let mut v = Vec::new(); v.push(e1); v.push(e2); let t = v[0] * 0.5 + v[1];`
    pub(super) fn push_stmt(&mut self) -> Vec<Stmt> {
        let (v, name) = (self.fresh("v"), self.fresh("t"));
        let (e1, m1) = self.bounded(2, READ_LIMIT);
        let (e2, m2) = self.bounded(2, READ_LIMIT);
        let stmts = vec![
            self.line(format!("let mut {v}: Vec<f64> = Vec::new();")),
            self.line(format!("{v}.push({});", typed(e1).render())),
            self.line(format!("{v}.push({});", typed(e2).render())),
            self.line(format!("let {name} = {v}[0] * 0.5 + {v}[1];")),
        ];
        self.bind_float(name, 0.5 * m1 + m2);
        self.features.insert("Vec built by push");
        stmts
    }

    /// `let t = { let v: Vec<f64> = xs.iter().map(|u| …).collect(); v[0] + v[LEN - 1] };`
    pub(super) fn collect_stmt(&mut self) -> Vec<Stmt> {
        let slices = self.slices(false);
        let (xs, len, mag) = self.rng.pick(&slices).clone();
        let (v, inner, name) = (self.fresh("v"), self.fresh("u"), self.fresh("t"));
        // the items are references
        let (f, mf) = self.expr_of(&inner, mag);
        let f = typed(f).render();
        let last = len - 1;
        let (text, m, feature) = match self.rng.below(6) {
            0 => (
                format!(
                    "{{ let {v}: Vec<f64> = {xs}.iter().map(|&{inner}| {f}).collect(); \
                     {v}[0] + {v}[{last}] }}"
                ),
                2.0 * mf,
                "iter().map(..).collect() of a slice",
            ),
            1 => (
                format!(
                    "{{ let {v}: Vec<(f64, f64)> = {xs}.iter().map(|&{inner}| ({f}, {inner} * 0.5)).collect(); \
                     {v}[0].0 * {v}[{last}].1 + {v}[0].1 }}"
                ),
                mf * mag + mag,
                "collect() of pairs",
            ),
            2 => (
                format!(
                    "{{ let {v}: Vec<f64> = {xs}.iter().scan(0.0, |acc, &{inner}| {{ *acc = *acc * 0.5 + {f}; Some(*acc) }}).collect(); \
                     {v}[{last}] }}"
                ),
                2.0 * mf,
                "collect() of a scan",
            ),
            3 => (
                format!(
                    "{{ let {v}: [f64; {len}] = core::array::from_fn(|k| {{ let {inner} = {xs}[k]; {f} }}); \
                     {v}[0] * 0.5 + {v}[{last}] }}"
                ),
                1.5 * mf,
                "core::array::from_fn",
            ),
            4 => (
                format!(
                    "{{ let ({inner}, {v}) = {xs}.iter().enumerate().max_by(|a, b| a.1.partial_cmp(b.1).unwrap()).unwrap(); \
                     *{v} * (0.5 + {inner} as f64 * 0.25) }}"
                ),
                mag * (0.5 + len as f64 * 0.25),
                "argmax pair: enumerate().max_by(..)",
            ),
            _ => (
                format!(
                    "{{ let mut {v} = &{xs}[0]; for {inner} in {xs}.iter() {{ if {inner} < {v} {{ {v} = {inner}; }} }} \
                     *{v} * 0.5 + {v}.abs() }}"
                ),
                1.5 * mag,
                "a local holding a reference to an element",
            ),
        };
        let s = self.line(format!("let {name}: f64 = {text};"));
        self.bind_float(name, m);
        self.features.insert(feature);
        vec![s]
    }

    /// A sum over an iterator chain: reversed and skipped, zipped with itself shifted,
    /// taken, or a sub-slice.
    pub(super) fn chain_stmt(&mut self) -> Vec<Stmt> {
        let slices = self.slices(false);
        let (xs, len, mag) = self.rng.pick(&slices).clone();
        let (inner, other, name) = (self.fresh("u"), self.fresh("w"), self.fresh("t"));
        let (f, mf) = self.expr_of(&inner, mag);
        let f = typed(f).render();
        let (text, feature) = match self.rng.below(4) {
            0 => (
                format!("{xs}.iter().rev().skip(1).map(|&{inner}| {f}).sum()"),
                "iterator chain: rev().skip(k)",
            ),
            1 => (
                format!(
                    "{xs}.iter().zip({xs}.iter().skip(1)).map(|(&{inner}, &{other})| {f} * (0.5 * {other})).sum()"
                ),
                "iterator chain: zip with skip(1)",
            ),
            2 => (
                format!("{xs}.iter().take(2).map(|&{inner}| {f}).fold(0.0, |s, v| s * 0.5 + v)"),
                "iterator chain: take(k), fold",
            ),
            _ => (
                format!("{xs}[1..{len}].iter().map(|{inner}| {{ let {inner} = *{inner}; {f} }}).sum()"),
                "iterator chain: sub-slice",
            ),
        };
        let s = self.line(format!("let {name}: f64 = {text};"));
        self.bind_float(name, len as f64 * mf * mag.max(1.0));
        self.features.insert(feature);
        vec![s]
    }
}
