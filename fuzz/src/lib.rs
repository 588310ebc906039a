//! A random-program differential tester for `#[differentiable]`.
//!
//! [`generate`] writes the source of a module of random, well-formed differentiable Rust
//! functions `p0`, `p1`, …, each in a `program!` invocation that also names its checker:
//! the harness ([`HARNESS`], `tests/random_programs/harness.rs`) compares the generated
//! gradient (`gradients_function!`) with `autodiff::check::finite_difference` and the
//! value of `value_and_gradients_function!` with the primal, bit for bit.
//!
//! The functions mix the constructs the README lists as supported: arithmetic, float
//! methods on safe domains, `let` and shadowing, `let mut` accumulators, `if`/`else` on
//! constant and on differentiable conditions, `for`/`while`/`loop` (with `break` on a
//! differentiable condition and an iteration cap), slices, local buffers, iterator
//! reductions, calls between generated functions, early `return` and `match` on integers.
//! Values are kept bounded (squashing with `tanh`/`sin`, safe divisors, exponentials of
//! bounded arguments) so that finite differences are accurate.
//!
//! `tests/random_programs/programs.rs` of the `autodiff` package is
//! `generate(TEST_SEED, TEST_COUNT)`; the binary (`src/main.rs`) runs many more programs in throwaway cargo projects and
//! minimizes failures.
#![forbid(unsafe_code)]
// `*self.rng.pick(&[..])` picks a `&str` out of a slice of them; without the `*` the
// element type is inferred as `str`, so clippy's auto-deref suggestion does not apply.
#![allow(clippy::explicit_auto_deref)]

mod arrays;
mod reductions;

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The seed of the checked-in `tests/random_programs/programs.rs`.
pub const TEST_SEED: u64 = 300;
/// How many functions the checked-in test file holds.
pub const TEST_COUNT: usize = 200;
/// The command that rewrites the checked-in test file (run from the workspace root).
pub const REGENERATE: &str =
    "cargo run -p autodiff-fuzz --release -- --emit tests/random_programs/programs.rs";

// ---------------------------------------------------------------------------------------
// A seeded PRNG
// ---------------------------------------------------------------------------------------

/// xorshift64* (Vigna), seeded through one round of splitmix64 so that nearby seeds give
/// unrelated streams.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed` (any value, including 0).
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng {
            state: if z == 0 { 0x2545_F491_4F6C_DD1D } else { z },
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An index drawn with the given (non-negative, not all zero) weights.
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut r = self.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return i;
            }
            r -= w;
        }
        weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
    }
}

// ---------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------

/// A float expression, printed with the parentheses Rust's precedence needs.
#[derive(Clone, Debug)]
enum Expr {
    /// A float literal: its type is inferred (`{float}`).
    Lit(f64),
    /// A literal with its type written out: `0.5_f64`.
    TLit(f64),
    /// A variable, an index, a reduction: anything that binds tighter than a method call.
    Atom(String),
    /// `*v` for an iterator's `&f64`.
    Deref(String),
    /// `i as f64`.
    Cast(String),
    Neg(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Method(Box<Expr>, &'static str, Vec<Expr>),
    Call(String, Vec<Expr>),
}

use Expr::{Atom, Bin, Call, Cast, Deref, Lit, Method, Neg, TLit};

fn bin(op: char, l: Expr, r: Expr) -> Expr {
    Bin(op, Box::new(l), Box::new(r))
}

fn method(recv: Expr, name: &'static str, args: Vec<Expr>) -> Expr {
    // `(0.5 * 0.25).sin()` does not compile: a method needs a receiver of known type.
    Method(Box::new(typed(recv)), name, args)
}

/// Whether the type of `e` is known to be `f64` (not only `{float}`) where it is written.
fn is_typed(e: &Expr) -> bool {
    match e {
        Lit(_) => false,
        Neg(x) => is_typed(x),
        Bin(_, l, r) => is_typed(l) || is_typed(r),
        _ => true,
    }
}

/// `e` with its leftmost literal typed if its type would otherwise be unknown.
fn typed(e: Expr) -> Expr {
    if is_typed(&e) {
        return e;
    }
    match e {
        Lit(v) => TLit(v),
        Neg(x) => Neg(Box::new(typed(*x))),
        Bin(op, l, r) => Bin(op, Box::new(typed(*l)), r),
        e => e,
    }
}

fn lit(v: f64) -> String {
    format!("{v:?}")
}

impl Expr {
    fn prec(&self) -> u8 {
        match self {
            Lit(v) | TLit(v) if *v < 0.0 => 4,
            Lit(_) | TLit(_) | Atom(_) | Method(..) | Call(..) => 5,
            Deref(_) | Neg(_) => 4,
            Cast(_) => 3,
            Bin('+' | '-', ..) => 1,
            Bin(..) => 2,
        }
    }

    fn paren(&self, needed: bool) -> String {
        if needed {
            format!("({})", self.render())
        } else {
            self.render()
        }
    }

    fn render(&self) -> String {
        match self {
            Lit(v) => lit(*v),
            TLit(v) => format!("{}_f64", lit(*v)),
            Atom(s) => s.clone(),
            Deref(s) => format!("*{s}"),
            Cast(s) => format!("{s} as f64"),
            Neg(e) => format!("-{}", e.paren(e.prec() < 5)),
            Bin(op, l, r) => {
                let p = self.prec();
                format!("{} {op} {}", l.paren(l.prec() < p), r.paren(r.prec() <= p))
            }
            Method(recv, name, args) => {
                let args: Vec<String> = args.iter().map(Expr::render).collect();
                format!(
                    "{}.{name}({})",
                    recv.paren(recv.prec() < 5),
                    args.join(", ")
                )
            }
            Call(f, args) => {
                let args: Vec<String> = args.iter().map(Expr::render).collect();
                format!("{f}({})", args.join(", "))
            }
        }
    }

    /// Rendered as the left operand of a comparison (`i as f64 < x` would parse as generics).
    fn render_cmp(&self) -> String {
        let text = self.render();
        if text.contains(" as ") {
            format!("({text})")
        } else {
            text
        }
    }
}

// ---------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------

/// A parameter of a generated function.
#[derive(Clone, Debug)]
pub enum Param {
    /// `a: f64`
    Scalar(String),
    /// `xs: &[f64]`, checked with a slice of `len` elements.
    Slice(String, usize),
    /// `n: usize`, constant, checked with `value`.
    Count(String, usize),
    /// `x: &Array2<f64>`, checked with an `n × n` matrix.
    Matrix(String, usize),
    /// `v: &Array1<f64>`, checked with a vector of `n` elements.
    Vector(String, usize),
}

/// A statement of a generated body. Every statement has an id, so the minimizer can
/// delete it; `essential` ones (loop counters, the `break` that ends a `loop`) are never
/// deleted, so every reduced program still terminates.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Unique within its function.
    pub id: u32,
    /// Never deleted by the minimizer.
    pub essential: bool,
    /// The code.
    pub node: Node,
}

/// The code of a statement.
#[derive(Clone, Debug)]
pub enum Node {
    /// One line, e.g. `let t0 = a * b;`.
    Line(String),
    /// Headers each opening a block (`if c {`, `} else {`, `0 => {`), with the block's
    /// statements, then the closing line (`}` or `};`).
    Compound(Vec<(String, Vec<Stmt>)>, String),
}

/// A generated function `p{index}`.
#[derive(Clone, Debug)]
pub struct Func {
    /// The function is `p{index}`; it calls only functions with a smaller index.
    pub index: usize,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// Its statements.
    pub body: Vec<Stmt>,
    /// The final expression.
    pub ret: String,
    /// Seeds the points its checker evaluates at.
    pub point_seed: u64,
    /// A rough bound on |result|, for callers.
    mag: f64,
    /// A rough count of the operations one call runs, for callers.
    cost: f64,
}

impl Func {
    /// `p{index}`.
    pub fn name(&self) -> String {
        format!("p{}", self.index)
    }

    /// The functions this one calls (by index), read off its source.
    pub fn callees(&self) -> BTreeSet<usize> {
        let mut calls = called_functions(&self.render_source());
        calls.remove(&self.index);
        calls
    }

    /// Whether other generated functions may call it: scalar arguments only.
    fn callable(&self) -> bool {
        self.params
            .iter()
            .all(|p| matches!(p, Param::Scalar(_) | Param::Count(..)))
    }

    /// The ids of the statements the minimizer may delete, outermost first.
    pub fn deletable(&self) -> Vec<u32> {
        fn walk(stmts: &[Stmt], out: &mut Vec<u32>) {
            for s in stmts {
                if !s.essential {
                    out.push(s.id);
                }
                if let Node::Compound(parts, _) = &s.node {
                    for (_, body) in parts {
                        walk(body, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// The same function without the statements in `ids` (and everything inside them).
    pub fn without(&self, ids: &BTreeSet<u32>) -> Func {
        fn filter(stmts: &[Stmt], ids: &BTreeSet<u32>) -> Vec<Stmt> {
            stmts
                .iter()
                .filter(|s| !ids.contains(&s.id))
                .map(|s| Stmt {
                    id: s.id,
                    essential: s.essential,
                    node: match &s.node {
                        Node::Line(l) => Node::Line(l.clone()),
                        Node::Compound(parts, foot) => Node::Compound(
                            parts
                                .iter()
                                .map(|(h, b)| (h.clone(), filter(b, ids)))
                                .collect(),
                            foot.clone(),
                        ),
                    },
                })
                .collect()
        }
        Func {
            body: filter(&self.body, ids),
            ..self.clone()
        }
    }

    /// Simpler versions of `let` lines for the minimizer: `(statement id, new line)` with
    /// the value replaced by a parameter.
    pub fn simpler_lets(&self) -> Vec<(u32, String)> {
        let Some(Param::Scalar(p)) = self.params.iter().find(|p| matches!(p, Param::Scalar(_)))
        else {
            return Vec::new();
        };
        let mut out = Vec::new();
        fn walk(stmts: &[Stmt], p: &str, out: &mut Vec<(u32, String)>) {
            for s in stmts {
                match &s.node {
                    Node::Line(l) if l.starts_with("let ") && !l.contains("vec![") => {
                        if let Some((head, value)) = l.split_once(" = ") {
                            if value != format!("{p};") && !head.contains('(') {
                                out.push((s.id, format!("{head} = {p};")));
                            }
                        }
                    }
                    Node::Compound(parts, _) => {
                        for (_, body) in parts {
                            walk(body, p, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        walk(&self.body, p, &mut out);
        out
    }

    /// The same function with the line `id` replaced by `text`.
    pub fn with_line(&self, id: u32, text: &str) -> Func {
        fn walk(stmts: &mut [Stmt], id: u32, text: &str) {
            for s in stmts {
                if s.id == id {
                    s.node = Node::Line(text.to_string());
                } else if let Node::Compound(parts, _) = &mut s.node {
                    for (_, body) in parts {
                        walk(body, id, text);
                    }
                }
            }
        }
        let mut f = self.clone();
        walk(&mut f.body, id, text);
        f
    }

    /// The same function returning `ret` instead.
    pub fn with_ret(&self, ret: &str) -> Func {
        Func {
            ret: ret.to_string(),
            ..self.clone()
        }
    }

    /// Simpler final expressions for the minimizer: a parameter or a top-level local.
    pub fn simpler_returns(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Scalar(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        for s in &self.body {
            if let Node::Line(l) = &s.node {
                let rest = l.strip_prefix("let ").map(|r| r.trim_start_matches("mut "));
                if let Some(name) = rest.and_then(|r| r.split([' ', ':']).next()) {
                    if name.starts_with(['t', 'a', 'r']) && !out.contains(&name.to_string()) {
                        out.push(name.to_string());
                    }
                }
            }
        }
        out.retain(|r| *r != self.ret);
        out
    }

    /// The function as plain Rust, without `#[differentiable]`.
    pub fn render_plain(&self) -> String {
        self.render_source()
            .trim_start_matches("#[differentiable]\n")
            .to_string()
    }

    /// The function as it appears in the module, attribute included.
    pub fn render_source(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar(n) => format!("{n}: f64"),
                Param::Slice(n, _) => format!("{n}: &[f64]"),
                Param::Count(n, _) => format!("{n}: usize"),
                Param::Matrix(n, _) => format!("{n}: &Array2<f64>"),
                Param::Vector(n, _) => format!("{n}: &Array1<f64>"),
            })
            .collect();
        let mut out = format!(
            "#[differentiable]\nfn {}({}) -> f64 {{\n",
            self.name(),
            params.join(", ")
        );
        render_stmts(&mut out, &self.body, 1);
        let _ = writeln!(out, "    {}\n}}", self.ret);
        out
    }

    /// The number of `f64` inputs (scalars and slice elements).
    pub fn dim(&self) -> usize {
        self.params
            .iter()
            .map(|p| match p {
                Param::Scalar(_) => 1,
                Param::Slice(_, len) | Param::Vector(_, len) => *len,
                Param::Matrix(_, n) => n * n,
                Param::Count(..) => 0,
            })
            .sum()
    }

    /// The arguments of a call at the point `p` (a `&[f64]` of `dim()` inputs).
    fn call_args(&self) -> String {
        let mut offset = 0;
        let args: Vec<String> = self
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar(_) => {
                    offset += 1;
                    format!("p[{}]", offset - 1)
                }
                Param::Slice(_, len) => {
                    offset += len;
                    format!("&p[{}..{}]", offset - len, offset)
                }
                Param::Count(_, value) => value.to_string(),
                Param::Matrix(_, n) => {
                    offset += n * n;
                    format!(
                        "&Array2::from_shape_vec(({n}, {n}), p[{}..{}].to_vec()).unwrap()",
                        offset - n * n,
                        offset
                    )
                }
                Param::Vector(_, n) => {
                    offset += n;
                    format!("&Array1::from(p[{}..{}].to_vec())", offset - n, offset)
                }
            })
            .collect();
        args.join(", ")
    }

    /// The function with its checker `check_p{index}`, as a `program!` invocation (the
    /// macro of the harness).
    fn render_program(&self) -> String {
        let mut out = String::from("program! {\n");
        for line in self.render_source().lines() {
            let _ = writeln!(out, "    {line}");
        }
        let callees: Vec<String> = self.callees().iter().map(|j| format!("p{j}")).collect();
        let _ = writeln!(
            out,
            "    check_{name}(seed = {seed:#018x}, inputs = {dim}, calls = [{calls}], at = |p| ({args}));\n}}",
            name = self.name(),
            seed = self.point_seed,
            dim = self.dim(),
            calls = callees.join(", "),
            args = self.call_args(),
        );
        out
    }
}

fn render_stmts(out: &mut String, stmts: &[Stmt], depth: usize) {
    let indent = "    ".repeat(depth);
    for s in stmts {
        match &s.node {
            Node::Line(l) => {
                let _ = writeln!(out, "{indent}{l}");
            }
            Node::Compound(parts, foot) => {
                for (head, body) in parts {
                    let _ = writeln!(out, "{indent}{head}");
                    render_stmts(out, body, depth + 1);
                }
                let _ = writeln!(out, "{indent}{foot}");
            }
        }
    }
}

/// The indices `j` of the calls `p{j}(` in `source`.
pub fn called_functions(source: &str) -> BTreeSet<usize> {
    let bytes = source.as_bytes();
    let mut out = BTreeSet::new();
    for (i, _) in source.match_indices('p') {
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
            continue;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 && bytes.get(i + 1 + digits) == Some(&b'(') {
            if let Ok(j) = source[i + 1..i + 1 + digits].parse() {
                out.insert(j);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------

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

    fn leaf(&mut self) -> (Expr, f64) {
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

    fn reduction(&mut self, name: &str, len: usize, mag: f64) -> (Expr, f64) {
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

    fn call(&mut self, j: usize) -> (Expr, f64) {
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
    fn expr(&mut self, depth: u32) -> (Expr, f64) {
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
    fn bounded(&mut self, depth: u32, limit: f64) -> (Expr, f64) {
        let (e, m) = self.expr(depth);
        self.squash(e, m, limit)
    }

    /// A condition on integers: the same branch for every input of the function.
    fn constant_condition(&mut self) -> Option<String> {
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
    fn active_condition(&mut self) -> String {
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

    fn condition(&mut self, active: f64) -> String {
        if self.rng.chance(active) {
            return self.active_condition();
        }
        match self.constant_condition() {
            Some(c) => c,
            None => self.active_condition(),
        }
    }

    /// Statements using up to `budget` statements (nested ones count).
    fn block(&mut self, budget: usize) -> Vec<Stmt> {
        let mut left = budget;
        let mut out = Vec::new();
        while left > 0 {
            out.extend(self.stmt(&mut left));
        }
        out
    }

    /// A nested block in a scope of its own.
    fn scoped(&mut self, budget: usize, bindings: Vec<Binding>) -> Vec<Stmt> {
        self.scopes.push(bindings);
        let body = self.block(budget);
        self.scopes.pop();
        body
    }

    fn take_sub(&mut self, left: &mut usize, max: usize) -> usize {
        let sub = self.rng.range(1, max.min(*left).max(1));
        *left = left.saturating_sub(sub);
        sub
    }

    /// An update of a mutable value; `in_loop` keeps its growth per iteration bounded.
    fn update(&mut self) -> Option<Stmt> {
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
            self.rng.below(8)
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

    fn is_typed_var(&self, name: &str) -> bool {
        self.visible()
            .iter()
            .any(|b| b.name == name && matches!(b.kind, Kind::F { typed: true, .. }))
    }

    fn set_typed(&mut self, name: &str) {
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
    fn write_index(&mut self, len: usize) -> String {
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
    fn ensure_accumulator(&mut self) -> Option<Stmt> {
        if !self.mutable_floats().is_empty() {
            return None;
        }
        Some(self.new_accumulator())
    }

    /// `let mut acc = …;`, often with a bare literal (`0.0`) as in hand-written code.
    fn new_accumulator(&mut self) -> Stmt {
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
    fn loop_body(&mut self, budget: usize, bindings: Vec<Binding>) -> Vec<Stmt> {
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

    fn stmt(&mut self, left: &mut usize) -> Vec<Stmt> {
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

    fn loop_var(&self) -> &'static str {
        ["i", "j", "l", "m"][self.loops.len().min(3)]
    }

    fn for_loop(&mut self, left: &mut usize) -> Vec<Stmt> {
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

    fn while_loop(&mut self, left: &mut usize) -> Vec<Stmt> {
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

    fn loop_with_break(&mut self, left: &mut usize) -> Vec<Stmt> {
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

    fn buffer(&mut self) -> Vec<Stmt> {
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

    fn matching(&mut self, left: &mut usize) -> Vec<Stmt> {
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
    fn final_expr(&mut self) -> (String, f64) {
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

fn gen_function(rng: &mut Rng, index: usize, previous: &[Func]) -> Func {
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
            Param::Matrix(..) | Param::Vector(..) => {
                unreachable!("scalar functions take no arrays")
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
    };
    let budget = g.rng.range(3, 11);
    let body = g.block(budget);
    let (ret, ret_mag) = g.final_expr();
    let mag = g.ret_mag.max(ret_mag);
    let cost = g.cost;
    Func {
        index,
        params,
        body,
        ret,
        point_seed,
        mag,
        cost,
    }
}

/// The functions of `generate(seed, count)`.
pub fn generate_functions(seed: u64, count: usize) -> Vec<Func> {
    let mut rng = Rng::new(seed);
    let mut funcs: Vec<Func> = Vec::with_capacity(count);
    for index in 0..count {
        // one function in eight is an array program, one in eight a reduction loop
        let f = if rng.chance(0.125) {
            arrays::gen_array_function(&mut rng, index)
        } else if rng.chance(1.0 / 7.0) {
            reductions::gen_reduction_function(&mut rng, index)
        } else {
            gen_function(&mut rng, index, &funcs)
        };
        funcs.push(f);
    }
    funcs
}

// ---------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------

/// Source text with, for each function, the lines (1-based, inclusive) its definition and
/// checker occupy: compiler errors are mapped back to functions with them.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    /// The source.
    pub text: String,
    /// `(function index, first line, last line)`.
    pub spans: Vec<(usize, usize, usize)>,
}

impl Rendered {
    /// The function whose definition or checker holds `line`.
    pub fn function_at(&self, line: usize) -> Option<usize> {
        self.spans
            .iter()
            .find(|(_, a, b)| (*a..=*b).contains(&line))
            .map(|s| s.0)
    }

    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn line_count(&self) -> usize {
        self.text.matches('\n').count()
    }
}

/// The harness of the checked-in test (`tests/random_programs/harness.rs`, with the
/// `program!` macro and the checker): the soak's throwaway projects compile this same file
/// as their module `harness`, next to the generated module (`#[macro_use] mod harness;`
/// first, so the macro is in scope).
pub const HARNESS: &str = include_str!("../../tests/random_programs/harness.rs");

/// What a module of generated functions imports.
const IMPORTS: &str = "use autodiff::ndarray::{Array1, Array2, Axis};\nuse autodiff::prelude::*;\n";

/// The items of a module holding `funcs`, after its imports: the functions `checked`
/// accepts as `program!` invocations (with their checkers), the others plain.
pub fn render_module_body(funcs: &[Func], checked: impl Fn(usize) -> bool) -> Rendered {
    let mut r = Rendered::default();
    r.push(IMPORTS);
    for f in funcs {
        r.push("\n");
        let first = r.line_count() + 1;
        if checked(f.index) {
            r.push(&f.render_program());
        } else {
            r.push(&f.render_source());
        }
        let last = r.line_count();
        r.spans.push((f.index, first, last));
    }
    r
}

/// Lints generated code trips by design, applied to the generated module: the code is
/// written for coverage, not style (unused bindings and `mut`s, `a - a`, `x[i]` in
/// `for i in 0..x.len()`, `i % 2 == 0`, redundant branches and parentheses).
/// `unknown_lints` first: older clippy versions do not know every name.
pub const ALLOWED_LINTS: &str = "unknown_lints, unused_variables, unused_mut, unused_assignments, unused_parens, unreachable_code, dead_code, non_snake_case, clippy::assign_op_pattern, clippy::collapsible_else_if, clippy::collapsible_if, clippy::double_comparisons, double_negations, clippy::eq_op, clippy::erasing_op, clippy::explicit_counter_loop, clippy::identity_op, clippy::if_same_then_else, clippy::ifs_same_cond, clippy::impossible_comparisons, clippy::int_plus_one, clippy::let_and_return, clippy::manual_is_multiple_of, clippy::manual_memcpy, clippy::manual_range_contains, clippy::manual_slice_fill, clippy::match_single_binding, clippy::modulo_one, clippy::needless_range_loop, clippy::needless_return, clippy::neg_multiply, clippy::never_loop, clippy::no_effect, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::precedence, clippy::redundant_comparisons, clippy::redundant_locals, clippy::self_assignment, clippy::single_match, clippy::unnecessary_cast, clippy::unnecessary_operation, clippy::useless_vec, clippy::while_immutable_condition";

/// The module `programs` of the test (what [`generate`] returns): `funcs`, each with its
/// checker, under a header that says the file is generated and how to regenerate it.
pub fn render_test_file(seed: u64, funcs: &[Func]) -> Rendered {
    let body = render_module_body(funcs, |_| true);
    let mut head = format!(
        r#"// @generated by `autodiff-fuzz` (`generate({seed}, {count})`): do not edit. Regenerate with
// `{REGENERATE}`
// (a unit test of `autodiff-fuzz` fails while this file is not the generator's output).

//! {count} random differentiable functions, each with its checker: `program!` (in
//! `harness.rs`) turns `check_p<k>(…)` into a test comparing the function's gradient with
//! finite differences.

// Generated code is written for coverage, not style: unused bindings and `mut`s, `a - a`,
// `x[i]` in `for i in 0..x.len()`, `i % 2 == 0`, redundant branches and parentheses are
// expected. (`unknown_lints`: older clippy versions do not know every name.)
#![allow({ALLOWED_LINTS})]

"#,
        count = funcs.len(),
    );
    let offset = head.matches('\n').count();
    head.push_str(&body.text);
    Rendered {
        text: head,
        spans: body
            .spans
            .iter()
            .map(|(f, a, b)| (*f, a + offset, b + offset))
            .collect(),
    }
}

/// The source of a module with `count` random differentiable functions `p0`, `p1`, …,
/// each with its checker `check_p{k}` (`tests/random_programs/programs.rs` of the
/// `autodiff` package, compiled with [`HARNESS`]). The same `seed` always gives the same
/// text.
pub fn generate(seed: u64, count: usize) -> String {
    render_test_file(seed, &generate_functions(seed, count)).text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_test_file_is_the_generators_output() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/random_programs/programs.rs"
        );
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        let generated = generate(TEST_SEED, TEST_COUNT);
        assert!(
            checked_in == generated,
            "tests/random_programs/programs.rs is not `generate({TEST_SEED}, {TEST_COUNT})`: regenerate it with `{REGENERATE}` (from the workspace root)"
        );
    }

    #[test]
    fn generation_is_deterministic_and_seed_dependent() {
        assert_eq!(generate(7, 20), generate(7, 20));
        assert_ne!(generate(7, 20), generate(8, 20));
    }

    #[test]
    fn calls_only_go_to_earlier_scalar_functions() {
        let funcs = generate_functions(3, 300);
        for f in &funcs {
            for j in f.callees() {
                assert!(j < f.index, "p{} calls p{j}", f.index);
                assert!(funcs[j].callable());
            }
        }
    }

    #[test]
    fn deleting_statements_keeps_essential_ones() {
        let funcs = generate_functions(5, 50);
        for f in &funcs {
            let all: BTreeSet<u32> = f.deletable().into_iter().collect();
            let reduced = f.without(&all);
            assert!(reduced.deletable().is_empty());
            assert!(reduced.render_source().contains(&f.ret));
        }
    }

    #[test]
    fn expressions_get_the_parentheses_they_need() {
        let e = bin('-', Atom("a".into()), bin('-', Atom("b".into()), Lit(1.0)));
        assert_eq!(e.render(), "a - (b - 1.0)");
        let e = method(bin('*', Lit(2.0), Atom("a".into())), "sin", vec![]);
        assert_eq!(e.render(), "(2.0 * a).sin()");
        let e = Neg(Box::new(Lit(-0.5)));
        assert_eq!(e.render(), "-(-0.5)");
        assert_eq!(Cast("i".into()).render_cmp(), "(i as f64)");
    }

    #[test]
    fn called_functions_reads_whole_names() {
        let calls = called_functions("p1(a) + p12(b) + xp3(c) + gradients_function!(p4)");
        assert_eq!(calls.into_iter().collect::<Vec<_>>(), vec![1, 12]);
    }
}
