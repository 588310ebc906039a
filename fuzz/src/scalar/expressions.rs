//! Expressions over the bindings in scope: leaves (reads, indexing, literals), iterator
//! reductions, calls of earlier functions, operators and float methods on safe domains,
//! and the conditions of branches and loops.

use super::*;

impl FnGen<'_> {
    pub(super) fn leaf(&mut self) -> (Expr, f64) {
        let floats = self.floats();
        let slices = self.slices(false);
        let ints = self.ints();
        let callables: Vec<usize> = self
            .previous
            .iter()
            .filter(|f| f.callable() && f.cost * self.trips as f64 <= MAX_CALL_COST)
            .map(|f| f.index)
            .collect();
        let weights = [
            if floats.is_empty() { 0.0 } else { 7.0 },
            1.0,
            if slices.is_empty() { 0.0 } else { 3.0 },
            if ints.is_empty() { 0.0 } else { 0.8 },
            if slices.is_empty() { 0.0 } else { 1.2 },
            if callables.is_empty() || self.calls >= 2 {
                0.0
            } else {
                0.5
            },
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let (name, mag, by_ref) = self.rng.pick(&floats).clone();
                self.read(&name, mag, by_ref)
            }
            1 => {
                let v = self.small_lit();
                (Lit(v), v)
            }
            2 => {
                let (name, len, mag) = self.rng.pick(&slices).clone();
                let index = self.index(&name, len);
                self.squash(Atom(format!("{name}[{index}]")), mag, READ_LIMIT)
            }
            3 => {
                let (name, bound) = self.rng.pick(&ints).clone();
                (Cast(name), bound as f64)
            }
            4 => {
                let (name, len, mag) = self.rng.pick(&slices).clone();
                self.reduction(&name, len, mag)
            }
            _ => {
                // Prefer recent functions: the call graph stays local.
                let start = callables.len().saturating_sub(12);
                let j = *self.rng.pick(&callables[start..]);
                self.call(j)
            }
        }
    }

    pub(super) fn reduction(&mut self, name: &str, len: usize, mag: f64) -> (Expr, f64) {
        let m = mag.min(READ_LIMIT);
        let s = nice_scale(READ_LIMIT / mag);
        let v = if s < 1.0 {
            format!("(q * {})", lit(s))
        } else {
            "q".to_string()
        };
        let (text, bound) = match self.rng.below(7) {
            0 if s >= 1.0 => (format!("{name}.iter().sum::<f64>()"), len as f64 * mag),
            1 => (
                format!("{name}.iter().map(|q| {v} * {v}).sum::<f64>()"),
                len as f64 * m * m,
            ),
            2 => {
                let c = self.small_lit();
                (
                    format!(
                        "{name}.iter().map(|q| ({v} * {}).sin()).sum::<f64>()",
                        lit(c)
                    ),
                    len as f64,
                )
            }
            3 => {
                // The closure captures a differentiable value.
                let floats: Vec<_> = self.floats().into_iter().filter(|f| !f.2).collect();
                if floats.is_empty() {
                    (
                        format!("{name}.iter().map(|q| {v}.tanh()).sum::<f64>()"),
                        len as f64,
                    )
                } else {
                    let (other, omag, _) = self.rng.pick(&floats).clone();
                    let (o, om) = self.read(&other, omag, false);
                    (
                        format!(
                            "{name}.iter().map(|q| {v} * {}).sum::<f64>()",
                            o.paren(o.prec() < 5)
                        ),
                        len as f64 * m * om,
                    )
                }
            }
            4 => (
                format!("{name}.iter().map(|q| {v}.cos()).product::<f64>()"),
                1.0,
            ),
            5 => (
                format!("{name}.iter().fold(0.0, |acc, q| acc * 0.5 + {v}.sin())"),
                2.0,
            ),
            _ => (
                format!("{name}.iter().enumerate().map(|(k, q)| {v} * k as f64).sum::<f64>()"),
                (len * len) as f64 * m,
            ),
        };
        self.squash(Atom(text), bound, EXPR_LIMIT)
    }

    pub(super) fn call(&mut self, j: usize) -> (Expr, f64) {
        let callee = self.previous[j].clone();
        self.calls += 1;
        self.cost += callee.cost * self.trips as f64;
        let args: Vec<Expr> = callee
            .params
            .iter()
            .map(|p| match p {
                Param::Count(_, value) => Atom(value.to_string()),
                _ => {
                    let (e, m) = self.expr(1);
                    self.squash(e, m, 2.0).0
                }
            })
            .collect();
        let e = Call(callee.name(), args);
        self.squash(e, callee.mag, READ_LIMIT)
    }

    /// An expression with at most `depth` levels of operators.
    pub(super) fn expr(&mut self, depth: u32) -> (Expr, f64) {
        if depth == 0 || self.rng.chance(0.2) {
            return self.leaf();
        }
        let d = depth - 1;
        let weights = [
            3.0, // + -
            2.5, // *
            1.0, // scale by a constant
            1.2, // safe division
            2.5, // sin cos tanh atan
            0.6, // exp of a bounded value
            1.0, // ln, sqrt of a positive value
            0.8, // powi
            1.6, // two operands: hypot atan2 max min mul_add
            0.4, // powf, log
            0.5, // negation
            0.3, // abs clamp
            0.6, // recip, asinh, sinh/cosh of bounded values, inverse trig of bounded values
        ];
        let (e, m) = match self.rng.weighted(&weights) {
            0 => {
                let (l, ml) = self.expr(d);
                let (r, mr) = self.expr(d);
                let op = if self.rng.chance(0.5) { '+' } else { '-' };
                (bin(op, l, r), ml + mr)
            }
            1 => {
                let (l, ml) = self.expr(d);
                let (r, mr) = self.expr(d);
                (bin('*', l, r), ml * mr)
            }
            2 => {
                let (x, mx) = self.expr(d);
                let c = self.small_lit();
                if self.rng.chance(0.5) {
                    (bin('*', Lit(c), x), c * mx)
                } else {
                    (bin('*', x, Lit(c)), c * mx)
                }
            }
            3 => {
                let (l, ml) = self.expr(d);
                let (r, _) = self.expr(d.min(1));
                let divisor = match self.rng.below(4) {
                    0 if matches!(r, Atom(_)) => bin('+', Lit(1.0), bin('*', r.clone(), r)),
                    0 | 1 => bin('+', Lit(1.0), method(r, "powi", vec![Atom("2".into())])),
                    2 => bin('+', Lit(2.0), method(r, "cos", vec![])),
                    _ => bin('+', Lit(1.5), method(r, "tanh", vec![])),
                };
                (bin('/', l, divisor), 2.0 * ml)
            }
            4 => {
                let (x, _) = self.expr(d);
                let name = *self.rng.pick(&["sin", "cos", "tanh", "atan"]);
                if self.rng.chance(0.2) {
                    (Call(format!("f64::{name}"), vec![x]), 1.6)
                } else {
                    (method(x, name, vec![]), 1.6)
                }
            }
            5 => {
                let (x, _) = self.expr(d);
                let inner = *self.rng.pick(&["tanh", "sin", "cos"]);
                let outer = *self.rng.pick(&["exp", "exp", "exp_m1", "exp2"]);
                (method(method(x, inner, vec![]), outer, vec![]), 2.8)
            }
            6 => {
                let (x, mx) = self.expr(d);
                match self.rng.below(5) {
                    0 => (
                        method(
                            bin('+', Lit(1.0), method(x, "powi", vec![Atom("2".into())])),
                            "ln",
                            vec![],
                        ),
                        (1.0 + mx * mx).ln(),
                    ),
                    1 => (
                        method(
                            bin('+', Lit(1.0), method(x, "powi", vec![Atom("2".into())])),
                            "sqrt",
                            vec![],
                        ),
                        1.0 + mx,
                    ),
                    2 => (
                        method(
                            bin('+', Lit(2.0), method(x, "sin", vec![])),
                            *self.rng.pick(&["ln", "sqrt", "log2", "log10", "cbrt"]),
                            vec![],
                        ),
                        2.0,
                    ),
                    3 => (
                        method(method(x, "powi", vec![Atom("2".into())]), "ln_1p", vec![]),
                        (1.0 + mx * mx).ln(),
                    ),
                    _ => (
                        method(bin('+', Lit(1.5), method(x, "cos", vec![])), "sqrt", vec![]),
                        1.6,
                    ),
                }
            }
            7 => {
                let (x, mx) = self.expr(d);
                let (x, mx) = self.squash(x, mx, 2.5);
                if self.rng.chance(0.15) {
                    let base = bin('+', Lit(2.0), method(x, "cos", vec![]));
                    (method(base, "powi", vec![Atom("-2".into())]), 1.0)
                } else {
                    let k = self.rng.range(2, 3) as i32;
                    (method(x, "powi", vec![Atom(k.to_string())]), mx.powi(k))
                }
            }
            8 => {
                let (l, ml) = self.expr(d);
                let (r, mr) = self.expr(d);
                match self.rng.below(7) {
                    0 => (method(l, "hypot", vec![r]), ml + mr),
                    1 => (
                        method(
                            l,
                            "atan2",
                            vec![bin('+', Lit(1.5), method(r, "cos", vec![]))],
                        ),
                        1.6,
                    ),
                    2 => (method(l, "max", vec![r]), ml.max(mr)),
                    3 => (method(l, "min", vec![r]), ml.max(mr)),
                    4 => (
                        Call(
                            format!("f64::{}", self.rng.pick(&["max", "min"])),
                            vec![l, r],
                        ),
                        ml.max(mr),
                    ),
                    _ => {
                        let (c, mc) = self.expr(d.min(1));
                        (method(l, "mul_add", vec![r, c]), ml * mr + mc)
                    }
                }
            }
            9 => {
                let (l, _) = self.expr(d);
                let (r, _) = self.expr(d);
                let base = bin('+', Lit(1.5), method(l, "sin", vec![]));
                if self.rng.chance(0.6) {
                    (method(base, "powf", vec![method(r, "tanh", vec![])]), 2.5)
                } else {
                    (
                        method(
                            base,
                            "log",
                            vec![bin('+', Lit(2.5), method(r, "cos", vec![]))],
                        ),
                        2.0,
                    )
                }
            }
            10 => {
                let (x, mx) = self.expr(d);
                (Neg(Box::new(x)), mx)
            }
            11 => {
                let (x, mx) = self.expr(d);
                if self.rng.chance(0.5) {
                    (method(x, "abs", vec![]), mx)
                } else {
                    (method(x, "clamp", vec![Lit(-0.75), Lit(0.75)]), 0.75)
                }
            }
            _ => {
                let (x, mx) = self.expr(d);
                match self.rng.below(6) {
                    0 => (
                        method(
                            bin('+', Lit(2.0), method(x, "cos", vec![])),
                            "recip",
                            vec![],
                        ),
                        1.0,
                    ),
                    1 => (method(x, "asinh", vec![]), (mx + 1.0).ln() + 1.0),
                    2 => (
                        method(
                            method(x, "tanh", vec![]),
                            *self.rng.pick(&["sinh", "cosh"]),
                            vec![],
                        ),
                        1.6,
                    ),
                    3 => (
                        method(
                            bin('*', Lit(0.5), method(x, "tanh", vec![])),
                            *self.rng.pick(&["asin", "acos", "atanh"]),
                            vec![],
                        ),
                        1.6,
                    ),
                    4 => (
                        method(
                            bin('+', Lit(1.0), method(x, "powi", vec![Atom("2".into())])),
                            "cbrt",
                            vec![],
                        ),
                        1.0 + mx,
                    ),
                    _ => (method(x, "to_radians", vec![]), mx * 0.02),
                }
            }
        };
        self.squash(e, m, EXPR_LIMIT)
    }

    /// A bounded expression for an increment, a factor or a call argument.
    pub(super) fn bounded(&mut self, depth: u32, limit: f64) -> (Expr, f64) {
        let (e, m) = self.expr(depth);
        self.squash(e, m, limit)
    }

    /// A condition on integers: the same branch for every input of the function.
    pub(super) fn constant_condition(&mut self) -> Option<String> {
        let ints = self.ints();
        if ints.is_empty() {
            return None;
        }
        let (i, bound) = self.rng.pick(&ints).clone();
        let c = self.rng.below(bound.max(2));
        Some(match self.rng.below(6) {
            0 => format!("{i} % 2 == 0"),
            1 => format!("{i} % 3 == 1"),
            2 => format!("{i} > {c}"),
            3 => format!("{i} < {}", c.max(1)),
            4 if ints.len() > 1 => {
                let (j, _) = self.rng.pick(&ints).clone();
                format!("{i} + {j} < {}", bound)
            }
            _ => format!("{i} == {c}"),
        })
    }

    /// A condition on differentiable values: which branch runs depends on the input.
    pub(super) fn active_condition(&mut self) -> String {
        let bools = self.bools();
        if !bools.is_empty() && self.rng.chance(0.3) {
            let b = self.rng.pick(&bools).clone();
            return if self.rng.chance(0.3) {
                format!("!{b}")
            } else {
                b
            };
        }
        let (l, _) = self.expr(1);
        let first = match self.rng.below(3) {
            0 => {
                let (r, _) = self.leaf();
                format!("{} > {}", l.render_cmp(), r.render())
            }
            1 => format!("{} < {}", l.render_cmp(), lit(self.threshold())),
            _ => format!("{} > {}", l.render_cmp(), lit(self.threshold())),
        };
        if self.rng.chance(0.15) {
            let (r, _) = self.leaf();
            let op = if self.rng.chance(0.5) { "&&" } else { "||" };
            format!(
                "{first} {op} {} < {}",
                r.render_cmp(),
                lit(self.threshold())
            )
        } else {
            first
        }
    }

    pub(super) fn condition(&mut self, active: f64) -> String {
        if self.rng.chance(active) {
            return self.active_condition();
        }
        match self.constant_condition() {
            Some(c) => c,
            None => self.active_condition(),
        }
    }
}
