//! The generator of scalar functions: `f64` parameters (and a slice, a count), with the
//! statements of `scalar/statements.rs`, the expressions and conditions of
//! `scalar/expressions.rs` and the loops, buffers and `match`es of `scalar/control.rs`.
//! It tracks every binding in scope with a rough bound on its magnitude, so that values
//! stay moderate and finite differences accurate.

mod control;
mod expressions;
mod statements;

use std::collections::BTreeSet;

use crate::expr::{bin, is_typed, lit, method, typed, Atom, Call, Cast, Deref, Expr, Lit, Neg};
use crate::{Func, Node, Param, Rng, Stmt};

#[derive(Clone, Debug)]
enum Kind {
    /// An `f64`: `mag` bounds its absolute value (roughly); `by_ref` for an iterator's `&f64`.
    F {
        mutable: bool,
        mag: f64,
        by_ref: bool,
        /// `false` for `let mut acc = 0.0;` until an `f64` is added to it: until then its
        /// type is an inference variable and `acc.sin()` would not compile.
        typed: bool,
    },
    /// A `usize` whose value is below `bound`.
    Int { bound: usize },
    /// A `bool` (a comparison of differentiable values).
    Bool,
    /// A slice parameter or a local buffer of `len` elements.
    Slice { len: usize, buffer: bool, mag: f64 },
}

#[derive(Clone, Debug)]
struct Binding {
    name: String,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq)]
enum LoopKind {
    For,
    Other,
}

/// `: f64` where the type of a `let` would otherwise be left to inference.
fn annotation(needed: bool) -> &'static str {
    if needed {
        ": f64"
    } else {
        ""
    }
}

/// Values of `|x|` above which a read is scaled (and squashed) first.
const READ_LIMIT: f64 = 3.0;
/// Expressions with a larger bound are scaled and squashed.
const EXPR_LIMIT: f64 = 40.0;
/// The most iterations of nested loops.
const MAX_TRIPS: usize = 16;
/// The most operations a call may cost (callee cost × enclosing trips).
const MAX_CALL_COST: f64 = 600.0;

struct FnGen<'a> {
    rng: &'a mut Rng,
    previous: &'a [Func],
    scopes: Vec<Vec<Binding>>,
    /// Buffers an enclosing `for … in v.iter()` borrows: not written.
    frozen: Vec<String>,
    next_id: u32,
    counter: usize,
    trips: usize,
    loops: Vec<LoopKind>,
    calls: usize,
    cost: f64,
    ret_mag: f64,
    /// The constructs of [`crate::slices::FEATURES`] this function uses.
    features: BTreeSet<&'static str>,
}

fn nice_scale(target: f64) -> f64 {
    const SCALES: [f64; 13] = [
        1.0, 0.5, 0.25, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 5e-4, 2e-4, 1e-4,
    ];
    SCALES
        .iter()
        .copied()
        .find(|s| *s <= target)
        .unwrap_or(1e-4)
}

impl FnGen<'_> {
    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn line(&mut self, text: String) -> Stmt {
        Stmt {
            id: self.id(),
            essential: false,
            node: Node::Line(text),
        }
    }

    fn essential(&mut self, text: String) -> Stmt {
        Stmt {
            id: self.id(),
            essential: true,
            node: Node::Line(text),
        }
    }

    fn compound(&mut self, parts: Vec<(String, Vec<Stmt>)>, foot: &str) -> Stmt {
        Stmt {
            id: self.id(),
            essential: false,
            node: Node::Compound(parts, foot.to_string()),
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter - 1)
    }

    fn bind(&mut self, name: String, kind: Kind) {
        self.scopes.last_mut().unwrap().push(Binding { name, kind });
    }

    /// The bindings in scope, innermost first, shadowed ones left out.
    fn visible(&self) -> Vec<Binding> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for scope in self.scopes.iter().rev() {
            for b in scope.iter().rev() {
                if seen.insert(b.name.clone()) {
                    out.push(b.clone());
                }
            }
        }
        out
    }

    fn floats(&self) -> Vec<(String, f64, bool)> {
        self.visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::F {
                    mag,
                    by_ref,
                    typed: true,
                    ..
                } => Some((b.name, mag, by_ref)),
                _ => None,
            })
            .collect()
    }

    fn mutable_floats(&self) -> Vec<String> {
        self.visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::F { mutable: true, .. } => Some(b.name),
                _ => None,
            })
            .collect()
    }

    fn ints(&self) -> Vec<(String, usize)> {
        self.visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Int { bound } => Some((b.name, bound)),
                _ => None,
            })
            .collect()
    }

    fn slices(&self, buffers_only: bool) -> Vec<(String, usize, f64)> {
        self.visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Slice { len, buffer, mag }
                    if !buffers_only || (buffer && !self.frozen.contains(&b.name)) =>
                {
                    Some((b.name, len, mag))
                }
                _ => None,
            })
            .collect()
    }

    fn bools(&self) -> Vec<String> {
        self.visible()
            .into_iter()
            .filter(|b| matches!(b.kind, Kind::Bool))
            .map(|b| b.name)
            .collect()
    }

    fn set_mag(&mut self, name: &str, new: f64) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(b) = scope.iter_mut().rev().find(|b| b.name == name) {
                match &mut b.kind {
                    Kind::F { mag, .. } | Kind::Slice { mag, .. } => *mag = new.min(1e12),
                    _ => {}
                }
                return;
            }
        }
    }

    fn mag_of(&self, name: &str) -> f64 {
        for b in self.visible() {
            if b.name == name {
                if let Kind::F { mag, .. } | Kind::Slice { mag, .. } = b.kind {
                    return mag;
                }
            }
        }
        1.0
    }

    /// Every mutable value may change on each of `trips` iterations: raise its bound.
    fn inflate_mutables(&mut self, trips: usize) {
        for scope in &mut self.scopes {
            for b in scope.iter_mut() {
                match &mut b.kind {
                    Kind::F {
                        mutable: true, mag, ..
                    }
                    | Kind::Slice {
                        buffer: true, mag, ..
                    } => *mag = (*mag + 3.0 * trips as f64).min(1e12),
                    _ => {}
                }
            }
        }
    }

    fn small_lit(&mut self) -> f64 {
        *self.rng.pick(&[
            0.5, 0.25, 0.75, 1.5, 2.0, 0.1, 0.3, 1.25, 0.6, 0.9, 1.0, 0.2,
        ])
    }

    fn threshold(&mut self) -> f64 {
        *self
            .rng
            .pick(&[0.3, -0.2, 0.0, 0.5, -0.4, 0.1, 0.25, -0.1, 0.7])
    }

    /// A value bounded by `limit`: `e` itself, or `e` scaled down and squashed.
    fn squash(&mut self, e: Expr, mag: f64, limit: f64) -> (Expr, f64) {
        if mag <= limit {
            return (e, mag);
        }
        let scaled = bin('*', e, Lit(nice_scale(limit / mag)));
        match self.rng.below(4) {
            0 => (method(scaled, "tanh", vec![]), 1.0),
            1 => (method(scaled, "sin", vec![]), 1.0),
            2 => (method(scaled, "atan", vec![]), 1.6),
            _ => (scaled, limit),
        }
    }

    fn read(&mut self, name: &str, mag: f64, by_ref: bool) -> (Expr, f64) {
        let e = if by_ref {
            Deref(name.to_string())
        } else {
            Atom(name.to_string())
        };
        self.squash(e, mag, READ_LIMIT)
    }

    /// An index into a slice of `len` elements.
    fn index(&mut self, slice: &str, len: usize) -> String {
        let ints = self.ints();
        if ints.is_empty() || self.rng.chance(0.25) {
            return self.rng.below(len).to_string();
        }
        let (i, bound) = self.rng.pick(&ints).clone();
        if bound <= len {
            match self.rng.below(4) {
                0 => format!("{slice}.len() - 1 - {i}"),
                _ => i,
            }
        } else if self.rng.chance(0.5) {
            format!("{i} % {slice}.len()")
        } else {
            format!("({i} + 1) % {len}")
        }
    }
}

pub(crate) fn gen_function(rng: &mut Rng, index: usize, previous: &[Func]) -> Func {
    let mut params = Vec::new();
    let scalars = rng.weighted(&[3.0, 4.0, 2.0, 1.0]) + 1;
    for name in ["a", "b", "c", "d"].iter().take(scalars) {
        params.push(Param::Scalar(name.to_string()));
    }
    if rng.chance(0.35) {
        params.push(Param::Slice("xs".into(), rng.range(3, 4)));
    }
    if rng.chance(0.3) {
        params.push(Param::Count("n".into(), rng.range(1, 3)));
    }
    // Shuffle: parameter order must not matter.
    for i in (1..params.len()).rev() {
        let j = rng.below(i + 1);
        params.swap(i, j);
    }
    let bindings = params
        .iter()
        .map(|p| match p {
            Param::Scalar(n) => Binding {
                name: n.clone(),
                kind: Kind::F {
                    mutable: false,
                    mag: 1.5,
                    by_ref: false,
                    typed: true,
                },
            },
            Param::Slice(n, len) => Binding {
                name: n.clone(),
                kind: Kind::Slice {
                    len: *len,
                    buffer: false,
                    mag: 1.5,
                },
            },
            Param::Count(n, value) => Binding {
                name: n.clone(),
                kind: Kind::Int { bound: value + 1 },
            },
            Param::Matrix(..) | Param::Vector(..) | Param::Array(..) | Param::MutSlice(..) => {
                unreachable!("scalar functions take no arrays and no `&mut`")
            }
        })
        .collect();
    let point_seed = rng.next_u64();
    let mut g = FnGen {
        rng,
        previous,
        scopes: vec![bindings, vec![]],
        frozen: Vec::new(),
        next_id: 0,
        counter: 0,
        trips: 1,
        loops: Vec::new(),
        calls: 0,
        cost: 1.0,
        ret_mag: 0.0,
        features: BTreeSet::new(),
    };
    let budget = g.rng.range(3, 11);
    let body = g.block(budget);
    let (ret, ret_mag) = g.final_expr();
    let mag = g.ret_mag.max(ret_mag);
    let cost = g.cost;
    let features = std::mem::take(&mut g.features);
    Func {
        index,
        params,
        body,
        ret,
        point_seed,
        mag,
        cost,
        helpers: Vec::new(),
        selected: Vec::new(),
        features,
        calls_second_order: false,
    }
}
