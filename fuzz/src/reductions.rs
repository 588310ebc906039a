//! Random reduction loops, the shape the value-and-gradients helpers fuse: a loop over a
//! slice accumulating into a sum that is returned, with stencil reads (`xs[i]`,
//! `xs[i + 1]`, sometimes `xs[i - 1]` or a guarded neighbour), values computed before the
//! loop, branches that accumulate or not, `if` expressions, inner accumulating loops,
//! `continue`/`break`, a second accumulator, several updates per iteration — and, now and
//! then, a loop that must not be fused (a value carried from one iteration to the next, a
//! nonlinear use of the sum after the loop), which must come out right through the
//! two-sweep fallback.

use super::{Func, Node, Param, Rng, Stmt};

struct ReductionGen<'a> {
    rng: &'a mut Rng,
    next_id: u32,
    counter: usize,
    /// Scalar names in scope.
    names: Vec<String>,
    /// Element reads allowed in the loop (`xs[i]`, `xs[i + 1]`, …).
    reads: Vec<String>,
}

impl ReductionGen<'_> {
    fn line(&mut self, text: String) -> Stmt {
        self.next_id += 1;
        Stmt {
            id: self.next_id,
            essential: false,
            node: Node::Line(text),
        }
    }

    fn compound(&mut self, blocks: Vec<(String, Vec<Stmt>)>, close: &str) -> Stmt {
        self.next_id += 1;
        Stmt {
            id: self.next_id,
            essential: false,
            node: Node::Compound(blocks, close.to_string()),
        }
    }

    fn fresh(&mut self) -> String {
        self.counter += 1;
        format!("t{}", self.counter)
    }

    fn atom(&mut self) -> String {
        let k = self.rng.below(10);
        if k < 5 && !self.reads.is_empty() {
            let reads = self.reads.clone();
            self.rng.pick(&reads).clone()
        } else if k < 9 {
            let names = self.names.clone();
            self.rng.pick(&names).clone()
        } else {
            format!("{:.2}_f64", self.rng.unit() * 2.0 - 1.0)
        }
    }

    /// A scalar expression of moderate size (|·| of a few units).
    fn expr(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(0.25) {
            return self.atom();
        }
        let a = self.expr(depth - 1);
        match self.rng.below(9) {
            0 => format!("{a} + {}", self.expr(depth - 1)),
            1 => format!("{a} - {}", self.expr(depth - 1)),
            2 => format!("({a}) * ({})", self.expr(depth - 1)),
            3 => format!("({a}).sin()"),
            4 => format!("({a}).tanh()"),
            5 => format!("(({a}) * 0.5).exp()"),
            6 => format!("({a}).cos() * {}", self.atom()),
            7 => format!("(1.0 + ({a}) * ({a})).ln()"),
            _ => format!("({a}).mul_add(0.5, {})", self.atom()),
        }
    }

    /// A squashed value, safe to accumulate many times.
    fn term(&mut self) -> String {
        let e = self.expr(3);
        format!("({e}).tanh()")
    }

    fn cond(&mut self) -> String {
        let e = self.expr(2);
        let op = self.rng.pick(&[">", "<"]).to_string();
        format!("{e} {op} {:.2}", self.rng.unit() - 0.5)
    }

    /// An update of the accumulator `acc`.
    fn update(&mut self, acc: &str) -> Stmt {
        let t = self.term();
        match self.rng.below(4) {
            0 => self.line(format!("{acc} -= {t};")),
            1 => {
                let u = self.term();
                self.line(format!("{acc} = {acc} + {t} - {u};"))
            }
            _ => self.line(format!("{acc} += {t};")),
        }
    }

    /// The statements of one iteration.
    fn body(&mut self, budget: usize, depth: usize, out: &mut Vec<Stmt>) {
        for _ in 0..budget {
            match self.rng.below(if depth == 0 { 6 } else { 9 }) {
                0 | 1 => {
                    let t = self.fresh();
                    let e = self.term();
                    out.push(self.line(format!("let {t} = {e} * 1.5;")));
                    self.names.push(t);
                }
                2 | 3 => out.push(self.update("acc")),
                4 => {
                    let t = self.fresh();
                    let (c, a, b) = (self.cond(), self.term(), self.expr(1));
                    out.push(self.line(format!("let {t} = if {c} {{ {a} }} else {{ {b} }};")));
                    self.names.push(t);
                }
                5 => out.push(self.update("extra")),
                6 => {
                    let c = self.cond();
                    let mut then = Vec::new();
                    let mut els = Vec::new();
                    let scope = self.names.len();
                    let n = self.rng.range(1, 2);
                    self.body(n, depth - 1, &mut then);
                    self.names.truncate(scope);
                    if self.rng.chance(0.5) {
                        self.body(1, depth - 1, &mut els);
                        self.names.truncate(scope);
                    }
                    let blocks = if els.is_empty() {
                        vec![(format!("if {c} {{"), then)]
                    } else {
                        vec![(format!("if {c} {{"), then), ("} else {".into(), els)]
                    };
                    out.push(self.compound(blocks, "}"));
                }
                7 => {
                    let t = self.fresh();
                    out.push(self.line(format!("let mut {t} = 0.0;")));
                    let e = self.expr(2);
                    let inner = vec![self.line(format!("{t} += ({e} * (j as f64 + 0.5)).sin();"))];
                    out.push(self.compound(vec![("for j in 0..2 {".into(), inner)], "}"));
                    self.names.push(t);
                }
                _ => {
                    let c = self.cond();
                    let exit = if self.rng.chance(0.7) {
                        "continue;"
                    } else {
                        "break;"
                    };
                    let stmt = vec![self.line(exit.into())];
                    out.push(self.compound(vec![(format!("if {c} {{"), stmt)], "}"));
                }
            }
        }
    }
}

/// A random reduction function `p{index}(a: f64, xs: &[f64])`.
pub(crate) fn gen_reduction_function(rng: &mut Rng, index: usize) -> Func {
    let len = rng.range(4, 6);
    let point_seed = rng.next_u64();
    let mut g = ReductionGen {
        rng,
        next_id: 0,
        counter: 0,
        names: vec!["a".into()],
        reads: Vec::new(),
    };
    let mut body = Vec::new();
    // values computed before the loop
    for _ in 0..g.rng.range(0, 2) {
        let t = g.fresh();
        let e = format!("({} + xs[{}]).tanh()", g.expr(2), g.rng.below(len));
        body.push(g.line(format!("let {t} = {e};")));
        g.names.push(t);
    }
    body.push(g.line("let mut acc = 0.0;".into()));
    body.push(g.line("let mut extra = 0.0;".into()));
    let carried = g.rng.chance(0.15);
    if carried {
        body.push(g.line("let mut carried = 0.5;".into()));
    }
    // the loop's range and the element reads it allows
    let (header, reads, guard) = match g.rng.below(4) {
        0 => (
            "for i in 0..xs.len() - 1 {",
            vec!["xs[i]", "xs[i + 1]"],
            None,
        ),
        1 => ("for i in 1..xs.len() {", vec!["xs[i]", "xs[i - 1]"], None),
        2 => (
            "for i in 0..xs.len() {",
            vec!["xs[i]"],
            Some("if i + 1 < xs.len() {"),
        ),
        _ => ("for i in 0..xs.len() {", vec!["xs[i]"], None),
    };
    g.reads = reads.into_iter().map(String::from).collect();
    let scope = g.names.len();
    let mut iteration = Vec::new();
    let budget = g.rng.range(2, 5);
    g.body(budget, 2, &mut iteration);
    if let Some(guard) = guard {
        let inner_scope = g.names.len();
        let saved = std::mem::replace(&mut g.reads, vec!["xs[i]".into(), "xs[i + 1]".into()]);
        let mut inner = Vec::new();
        let n = g.rng.range(1, 2);
        g.body(n, 1, &mut inner);
        inner.push(g.update("acc"));
        g.reads = saved;
        g.names.truncate(inner_scope);
        let stmt = g.compound(vec![(guard.to_string(), inner)], "}");
        iteration.push(stmt);
    }
    iteration.push(g.update("acc"));
    if carried {
        let t = g.term();
        iteration.push(g.line(format!("carried = carried * 0.5 + {t};")));
        iteration.push(g.line("acc += carried;".into()));
    }
    g.names.truncate(scope);
    body.push(g.compound(vec![(header.to_string(), iteration)], "}"));
    let ret = match g.rng.below(6) {
        0 => "acc.sin()".to_string(),
        1 => {
            body.push(g.line("let r = acc;".into()));
            "r".to_string()
        }
        _ => "acc".to_string(),
    };
    Func {
        index,
        params: vec![Param::Scalar("a".into()), Param::Slice("xs".into(), len)],
        body,
        ret,
        point_seed,
        mag: 20.0,
        cost: 60.0,
        helpers: Vec::new(),
        selected: Vec::new(),
        features: Default::default(),
        calls_second_order: false,
    }
}
