//! Compound statements: `for`, `while` and `loop` (with a `break` on a differentiable
//! condition and an iteration cap), local buffers, `match` on integers, and the final
//! expression.

use super::*;

impl FnGen<'_> {
    pub(super) fn loop_var(&self) -> &'static str {
        ["i", "j", "l", "m"][self.loops.len().min(3)]
    }

    pub(super) fn for_loop(&mut self, left: &mut usize) -> Vec<Stmt> {
        let mut out: Vec<Stmt> = self.ensure_accumulator().into_iter().collect();
        let room = MAX_TRIPS / self.trips;
        let i = self.loop_var().to_string();
        let slices: Vec<_> = self
            .slices(false)
            .into_iter()
            .filter(|s| s.1 <= room)
            .collect();
        let ints: Vec<_> = self
            .visible()
            .into_iter()
            .filter(|b| b.name == "n" && matches!(b.kind, Kind::Int { bound } if bound <= room + 1))
            .collect();
        let k = self.rng.range(1, room.min(4));
        let mut bindings = Vec::new();
        let mut frozen = None;
        let int = |name: &str, bound: usize| Binding {
            name: name.to_string(),
            kind: Kind::Int { bound },
        };
        let (head, trips) = match self.rng.below(9) {
            0 | 1 if !slices.is_empty() => {
                let (s, len, _) = self.rng.pick(&slices).clone();
                bindings.push(int(&i, len));
                (format!("for {i} in 0..{s}.len() {{"), len)
            }
            2 if !ints.is_empty() => {
                let Kind::Int { bound } = ints[0].kind else {
                    unreachable!()
                };
                bindings.push(int(&i, bound - 1));
                (format!("for {i} in 0..n {{"), bound - 1)
            }
            3 if !slices.is_empty() => {
                let (s, len, mag) = self.rng.pick(&slices).clone();
                let q = self.fresh("q");
                // The loop borrows the buffer: no writes to it inside.
                frozen = Some(s.clone());
                if self.rng.chance(0.5) {
                    bindings.push(int(&i, len));
                    bindings.push(Binding {
                        name: q.clone(),
                        kind: Kind::F {
                            mutable: false,
                            mag,
                            by_ref: true,
                            typed: true,
                        },
                    });
                    (format!("for ({i}, {q}) in {s}.iter().enumerate() {{"), len)
                } else {
                    bindings.push(Binding {
                        name: q.clone(),
                        kind: Kind::F {
                            mutable: false,
                            mag,
                            by_ref: true,
                            typed: true,
                        },
                    });
                    (format!("for {q} in {s}.iter() {{"), len)
                }
            }
            4 => {
                bindings.push(int(&i, k));
                (format!("for {i} in (0..{k}).rev() {{"), k)
            }
            5 if k >= 2 => {
                bindings.push(int(&i, 2 * k));
                (format!("for {i} in (0..{}).step_by(2) {{", 2 * k), k)
            }
            6 => {
                bindings.push(int(&i, k + 1));
                (format!("for {i} in 1..={k} {{"), k)
            }
            _ => {
                bindings.push(int(&i, k));
                (format!("for {i} in 0..{k} {{"), k)
            }
        };
        let trips = trips.max(1);
        self.inflate_mutables(self.trips * trips);
        let frozen_before = self.frozen.len();
        self.frozen.extend(frozen);
        let saved = self.trips;
        self.trips *= trips;
        self.loops.push(LoopKind::For);
        let sub = self.take_sub(left, 4);
        let body = self.loop_body(sub, bindings);
        self.frozen.truncate(frozen_before);
        self.loops.pop();
        self.trips = saved;
        out.push(self.compound(vec![(head, body)], "}"));
        out
    }

    pub(super) fn while_loop(&mut self, left: &mut usize) -> Vec<Stmt> {
        let mut out: Vec<Stmt> = self.ensure_accumulator().into_iter().collect();
        let room = MAX_TRIPS / self.trips;
        let k = self.rng.range(1, room.min(4));
        let w = self.fresh("w");
        out.push(self.line(format!("let mut {w} = 0;")));
        let cond = if self.rng.chance(0.3) {
            format!("{w} < {k} && ({})", self.active_condition())
        } else {
            format!("{w} < {k}")
        };
        self.inflate_mutables(self.trips * k);
        let saved = self.trips;
        self.trips *= k;
        self.loops.push(LoopKind::Other);
        let sub = self.take_sub(left, 4);
        let mut body = self.loop_body(
            sub,
            vec![Binding {
                name: w.clone(),
                kind: Kind::Int { bound: k },
            }],
        );
        body.push(self.essential(format!("{w} += 1;")));
        self.loops.pop();
        self.trips = saved;
        out.push(self.compound(vec![(format!("while {cond} {{"), body)], "}"));
        out
    }

    pub(super) fn loop_with_break(&mut self, left: &mut usize) -> Vec<Stmt> {
        let mut out: Vec<Stmt> = self.ensure_accumulator().into_iter().collect();
        let room = MAX_TRIPS / self.trips;
        let cap = self.rng.range(2, room.clamp(2, 6));
        let k = self.fresh("k");
        out.push(self.line(format!("let mut {k} = 0;")));
        self.inflate_mutables(self.trips * cap);
        let saved = self.trips;
        self.trips *= cap;
        self.loops.push(LoopKind::Other);
        let sub = self.take_sub(left, 4);
        // The body sees the counter as an integer below the cap.
        self.scopes.push(vec![Binding {
            name: k.clone(),
            kind: Kind::Int { bound: cap },
        }]);
        let mut body = self.block(sub);
        if let Some(u) = self.update() {
            body.push(u);
        }
        body.push(self.essential(format!("{k} += 1;")));
        // After the increment the counter may equal the cap.
        for b in self.scopes.last_mut().unwrap().iter_mut() {
            if b.name == k {
                b.kind = Kind::Int { bound: cap + 1 };
            }
        }
        let cond = self.active_condition();
        let with_value = self.rng.chance(0.35);
        let result = if with_value {
            let (e, m) = self.expr(2);
            Some((e, m))
        } else {
            None
        };
        self.scopes.pop();
        self.loops.pop();
        self.trips = saved;
        match result {
            Some((e, m)) => {
                body.push(self.essential(format!(
                    "if ({cond}) || {k} >= {cap} {{ break {}; }}",
                    e.render()
                )));
                let name = self.fresh("r");
                let ty = annotation(!is_typed(&e));
                let mut s = self.compound(vec![(format!("let {name}{ty} = loop {{"), body)], "};");
                s.essential = false;
                out.push(s);
                self.bind(
                    name,
                    Kind::F {
                        mutable: false,
                        mag: m,
                        by_ref: false,
                        typed: true,
                    },
                );
            }
            None => {
                body.push(self.essential(format!("if ({cond}) || {k} >= {cap} {{ break; }}")));
                out.push(self.compound(vec![("loop {".to_string(), body)], "}"));
            }
        }
        out
    }

    pub(super) fn buffer(&mut self) -> Vec<Stmt> {
        let v = self.fresh("v");
        let params = self.visible();
        let n = params
            .iter()
            .find(|b| b.name == "n" && matches!(b.kind, Kind::Int { .. }));
        let slices = self.slices(false);
        let (len_text, len) = match self.rng.below(3) {
            0 if n.is_some() => {
                let Kind::Int { bound } = n.unwrap().kind else {
                    unreachable!()
                };
                ("n".to_string(), bound - 1)
            }
            1 if !slices.is_empty() => {
                let (s, len, _) = self.rng.pick(&slices).clone();
                (format!("{s}.len()"), len)
            }
            _ => {
                let len = self.rng.range(2, 4);
                (len.to_string(), len)
            }
        };
        // Filled in a loop over its indices, which gives the elements their type; else
        // typed where it is declared.
        let i = self.loop_var().to_string();
        let fill_trips = len.max(1);
        let filled = self.trips * fill_trips <= MAX_TRIPS;
        let zero = if filled { "0.0" } else { "0.0_f64" };
        let mut out = vec![self.line(format!("let mut {v} = vec![{zero}; {len_text}];"))];
        let mut mag = 0.0;
        if filled {
            let saved = self.trips;
            self.trips *= fill_trips;
            self.loops.push(LoopKind::For);
            self.scopes.push(vec![Binding {
                name: i.clone(),
                kind: Kind::Int { bound: len },
            }]);
            let (e, m) = self.bounded(2, READ_LIMIT);
            mag = m;
            let mut body = vec![self.line(format!("{v}[{i}] = {};", typed(e).render()))];
            if len >= 2 && self.rng.chance(0.3) {
                let (e, m) = self.bounded(1, 1.0);
                mag += m;
                let carry = self.line(format!("{v}[{i}] += {v}[{i} - 1] * {};", e.render()));
                body.push(self.compound(vec![(format!("if {i} > 0 {{"), vec![carry])], "}"));
                mag *= len as f64;
            }
            self.scopes.pop();
            self.loops.pop();
            self.trips = saved;
            out.push(self.compound(vec![(format!("for {i} in 0..{v}.len() {{"), body)], "}"));
        }
        self.bind(
            v,
            Kind::Slice {
                len,
                buffer: true,
                mag,
            },
        );
        out
    }

    pub(super) fn matching(&mut self, left: &mut usize) -> Vec<Stmt> {
        let ints = self.ints();
        let mut out: Vec<Stmt> = Vec::new();
        let (scrutinee, bound) = if ints.is_empty() {
            // An integer computed from a differentiable value carries no derivative.
            let (e, _) = self.bounded(1, 2.0);
            let int = format!("({} * 2.0) as usize % 3", method(e, "abs", vec![]).render());
            if self.rng.chance(0.5) {
                (int, 3)
            } else {
                let k = self.fresh("k");
                out.push(self.line(format!("let {k} = {int};")));
                (k, 3)
            }
        } else {
            let (i, bound) = self.rng.pick(&ints).clone();
            if self.rng.chance(0.5) {
                (format!("{i} % 3"), 3)
            } else {
                (i, bound.max(2))
            }
        };
        let pats: Vec<String> = if bound >= 3 && self.rng.chance(0.3) {
            vec!["0 | 1".into(), "_".into()]
        } else if bound >= 3 {
            vec!["0".into(), "1".into(), "_".into()]
        } else {
            vec!["0".into(), "_".into()]
        };
        if self.rng.chance(0.4) {
            // as an expression
            let mut any_typed = false;
            let arms: Vec<String> = pats
                .iter()
                .map(|p| {
                    let (e, _) = self.bounded(2, READ_LIMIT);
                    any_typed |= is_typed(&e);
                    format!("{p} => {}", e.render())
                })
                .collect();
            let name = self.fresh("t");
            let ty = annotation(!any_typed);
            out.push(self.line(format!(
                "let {name}{ty} = match {scrutinee} {{ {} }};",
                arms.join(", ")
            )));
            self.bind(
                name,
                Kind::F {
                    mutable: false,
                    mag: READ_LIMIT,
                    by_ref: false,
                    typed: true,
                },
            );
            return out;
        }
        out.extend(self.ensure_accumulator());
        let mut arms = Vec::new();
        for p in pats {
            let sub = self.take_sub(left, 2);
            let mut body = self.scoped(sub, vec![]);
            if body.is_empty() {
                if let Some(u) = self.update() {
                    body.push(u);
                }
            }
            arms.push(self.compound(vec![(format!("{p} => {{"), body)], "}"));
        }
        out.push(self.compound(vec![(format!("match {scrutinee} {{"), arms)], "}"));
        out
    }

    /// The final expression: every live local and some parameters contribute.
    pub(super) fn final_expr(&mut self) -> (String, f64) {
        let floats: Vec<_> = self.floats().into_iter().filter(|f| !f.2).collect();
        let mut terms: Vec<Expr> = Vec::new();
        let mut mag = 0.0;
        for (i, (name, m, _)) in floats.iter().enumerate() {
            let local = self.scopes[1].iter().any(|b| &b.name == name);
            let p = if local { 0.85 } else { 0.35 };
            if self.rng.chance(p) || (terms.is_empty() && i + 1 == floats.len()) {
                let (r, rm) = self.read(name, *m, false);
                let term = match self.rng.below(4) {
                    0 => {
                        let c = self.small_lit();
                        mag += c * rm;
                        bin('*', Lit(c), r)
                    }
                    1 => {
                        mag += 1.0;
                        method(r, *self.rng.pick(&["sin", "tanh", "cos"]), vec![])
                    }
                    _ => {
                        mag += rm;
                        r
                    }
                };
                terms.push(term);
            }
        }
        let mut e = terms.remove(0);
        for t in terms {
            let op = if self.rng.chance(0.7) { '+' } else { '-' };
            e = bin(op, e, t);
        }
        if self.rng.chance(0.2) {
            let (s, sm) = self.leaf();
            e = bin('+', e, bin('*', Lit(0.5), s));
            mag += sm;
        }
        (e.render(), mag)
    }
}
