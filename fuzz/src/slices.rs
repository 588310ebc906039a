//! Random slice programs: a function over a slice `xs` (and scalars, sometimes a fixed
//! array `w: [f64; 3]` and an `ys: &mut [f64]`) written as C and C++ users write numeric
//! code — small helpers taking `&[f64]` called with the whole slice and with sub-slices of
//! every range form (`&xs[a..b]`, `&xs[a..]`, `&xs[..b]`, `&xs[..]`, `&xs[a..=b]`), local
//! sub-slices read by index, `&mut [f64]` helpers (an in-place update reading the old
//! values, an accumulation `y[i] += …`, one passing its buffer on to both, with or without
//! a return value) called on `let mut` local buffers and on the caller's own `&mut`
//! parameter, fixed-size `[f64; N]` locals (literals, destructured, and helper results)
//! and parameters.
//!
//! Every range's bounds are chosen for the known lengths, so no index is ever out of range.

use std::collections::BTreeSet;

use super::{Func, Node, Param, Rng, Stmt};

/// Also generate a `let mut` buffer or an array passed as the `&[f64]` of a call that also
/// takes a `&mut` buffer (which compiles since the callee's pullback is handed its
/// references again at reverse time: `__vjp_reborrow`).
const PENDING: bool = true;

/// What a helper does.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// `fn h(v: &[f64], s: f64) -> f64`
    Read,
    /// `fn h(v: &[f64], s: f64) -> [f64; 3]`
    ArrayOut,
    /// `fn h(y: &mut [f64], s: f64)`, in place, reading the old values.
    InPlace,
    /// `fn h(s: f64, x: &[f64], y: &mut [f64])`, `y[i] += …`.
    Accumulate,
    /// `fn h(y: &mut [f64], x: &[f64], s: f64)`: calls an in-place and an accumulating
    /// helper with `y`, and the latter with a sub-slice of `x`.
    PassOn,
    /// `fn h(v: &[f64], s: f64) -> Option<f64>` (or `Result<f64, String>`), `None` (an
    /// `Err`) below a threshold, with `?`.
    Try,
    /// `fn h(v: &[f64], s: f64, k: usize) -> f64`, calling itself with `k - 1`.
    Recursive,
    /// `fn h(a: &mut [f64], b: &mut [f64], s: f64)`: two buffers written together (the
    /// halves of a `split_at_mut`).
    TwoMut,
    /// `fn h(v: &[f64], s: f64) -> PnHkPair<f64>`: a derived `Differentiable` struct made by
    /// a struct literal (its definition written after the helper).
    StructOut,
    /// `fn h(x: &mut f64, v: &[f64], s: f64) -> bool` (or no result): a float written
    /// through, read first.
    ScalarOut,
}

#[derive(Clone, Debug)]
struct Helper {
    name: String,
    kind: Kind,
    /// `-> f64` (the `&mut` helpers; the others always return).
    returns: bool,
    /// The shortest slice argument it accepts.
    min_len: usize,
    /// A [`Kind::Try`] helper returning `Result<f64, String>` rather than `Option<f64>`.
    result: bool,
}

struct SliceGen<'a> {
    rng: &'a mut Rng,
    index: usize,
    next_id: u32,
    counter: usize,
    helpers: Vec<Helper>,
    sources: Vec<String>,
    features: BTreeSet<&'static str>,
    /// Scalars in scope (bounded by a few units).
    scalars: Vec<String>,
    /// Immutable slices in scope: parameters and local sub-slices, with their lengths.
    slices: Vec<(String, usize)>,
    /// `let mut` local buffers, with their lengths.
    buffers: Vec<(String, usize)>,
    /// Fixed arrays in scope (`[f64; 3]`).
    arrays: Vec<String>,
    /// The caller's own `&mut` parameter and its length.
    mut_param: Option<(String, usize)>,
    /// Terms the result sums.
    terms: Vec<String>,
    /// A nested reader's inner helper is being written.
    nesting: bool,
}

const FEATURES: &[&str] = &[
    "slice helper: whole slice",
    "slice helper: &x[a..b]",
    "slice helper: &x[a..]",
    "slice helper: &x[..b]",
    "slice helper: &x[..]",
    "slice helper: &x[a..=b]",
    "slice helper: local sub-slice",
    "slice helper: nested (sub-slice of a helper's parameter)",
    "slice helper: a `let mut` buffer",
    "slice helper: a `let mut` buffer, its last mention",
    "local sub-slice read by index",
    "triangular loop read through a counter",
    "slices chosen by a branch",
    "a borrowed slice swapped and reassigned",
    "&mut helper: in place",
    "&mut helper: accumulate",
    "&mut helper: passes its buffer on",
    "&mut helper: no return type",
    "&mut helper: on a local buffer",
    "&mut helper: on the caller's &mut parameter",
    "&mut parameter of the checked function",
    "[f64; N] local",
    "[f64; N] parameter",
    "[f64; N] returned by a helper",
    "&[f64; N] passed as &[f64]",
    "params = [...] subset",
    "array literal",
    "array destructuring",
    "local closure called",
    "Option: if/else of Some/None, then match",
    "Option: if let Some(v)",
    "Vec built by push",
    "iter().map(..).collect() of a slice",
    "iterator chain: rev().skip(k)",
    "iterator chain: zip with skip(1)",
    "iterator chain: take(k), fold",
    "local buffer: for_each through iter_mut",
    "local buffer: map(..).count() through iter_mut",
    "iterator chain: sub-slice",
    "Option: `?` in a helper returning Option, matched by the caller",
    "Result: `?` in a helper returning Result, matched by the caller",
    "recursion: a helper calling itself",
    "recursion: two helpers calling each other, one `recursive`",
    "`let mut` buffer as `&[f64]` next to `&mut`",
    "slice helper: sub-slice of a `let mut` buffer",
    "&mut helper: on a range of a local buffer (`&mut b[r]`)",
    "&mut helper: on a range of the caller's &mut parameter",
    "slice helper: sub-slice of the caller's &mut parameter",
    "slice helper: the caller's &mut parameter as it is",
    "&mut views: split_at_mut of a local buffer",
    "local buffer: a copy by to_vec",
    "local buffer: a copy by to_vec, then push",
    "vec! literal of differentiable values",
    "constant local Vec handed to a helper",
    "local buffer: iter_mut loop",
    "local buffer: copy_from_slice",
    "local buffer: fill",
    "&mut views: split_at_mut of the caller's &mut parameter",
    "&mut views: both halves of a split to one helper",
    "&mut views: the halves of a split to helpers, one each",
    "`&[f64; N]` as `&[f64]` next to `&mut`",
    "struct literal of a derived struct (a helper's result and a local)",
    "#[differentiable(second_order)]: hvp! checked",
    "checked read by get, with a default",
    "fold into a tuple",
    "local buffer: reversed in place",
    "iterator chain: filter, step_by",
    "sorted copy (sort_by)",
    "a local `Vec` read by index, then assigned another length",
    "a local `Vec` iterated, then assigned another length",
    "iterator chain: take_while, scan",
    "`for` over `map`, `sin_cos`",
    "`retain` of a local `Vec`",
    "`truncate` of a local `Vec`",
    "a `Vec` made in a loop, then shortened, read by index",
    "a tuple held as a value, destructuring assignment",
    "&mut f64 helper: a local",
    "&mut f64 helper: an element of a local buffer",
    "fields of derived structs written in place (a collected `Vec`, a local)",
    "a local updated from its value read twice (preaccumulated)",
    "collect() of pairs",
    "collect() of a scan",
    "core::array::from_fn",
    "argmax pair: enumerate().max_by(..)",
    "a local holding a reference to an element",
    "a buffer filled element by element, computed again where read",
    "wrapper: one call handed on",
    "wrapper: constants for some parameters",
    "wrapper: its result negated, scaled or shifted",
];

/// The constructs the slice programs (and the `params` selections) exercise, each with how
/// many of `funcs` use it.
pub fn feature_counts(funcs: &[Func]) -> Vec<(&'static str, usize)> {
    FEATURES
        .iter()
        .map(|&f| (f, funcs.iter().filter(|g| g.features.contains(f)).count()))
        .collect()
}

impl SliceGen<'_> {
    fn line(&mut self, text: String) -> Stmt {
        self.next_id += 1;
        Stmt {
            id: self.next_id,
            essential: false,
            node: Node::Line(text),
        }
    }

    fn compound(&mut self, head: String, body: Vec<Stmt>) -> Stmt {
        self.next_id += 1;
        Stmt {
            id: self.next_id,
            essential: false,
            node: Node::Compound(vec![(head, body)], "}".into()),
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn coef(&mut self) -> &'static str {
        *self
            .rng
            .pick(&["0.5", "0.25", "0.75", "0.3", "1.5", "-0.5", "0.6"])
    }

    /// A scalar argument, bounded by about 2: a parameter (|·| ≤ 1.25 at the checked
    /// points) or a squashed local. (A local such as a reader's sum, up to 10 or so, scaling
    /// the argument of a `cos` that is iterated, makes finite differences with the
    /// checker's step inaccurate to 1e-5.)
    fn scalar(&mut self) -> String {
        let names = self.scalars.clone();
        let s = self.rng.pick(&names).clone();
        let s = if s.starts_with('t') {
            format!("{s}.tanh()")
        } else {
            s
        };
        if self.rng.chance(0.25) {
            format!("{s} * {}", self.coef())
        } else {
            s
        }
    }

    /// A helper of `kind`, written (with the helpers it calls) into `sources`.
    fn helper(&mut self, kind: Kind) -> Helper {
        // the newest of its kind: a nested reader is created after the one it calls
        if let Some(h) = self.helpers.iter().rev().find(|h| h.kind == kind) {
            return h.clone();
        }
        // named once the helpers it calls are
        let name = "HELPER";
        let (c1, c2) = (self.coef(), self.coef());
        let f = *self.rng.pick(&["tanh", "sin", "cos"]);
        let mut returns = true;
        let mut result = false;
        let (text, min_len) = match kind {
            // a nested reader calls a plain one
            Kind::Read => match self.rng.below(if self.nesting { 2 } else { 3 }) {
                0 => (
                    format!(
                        "fn {name}(v: &[f64], s: f64) -> f64 {{\n    let mut acc = 0.0;\n    for i in 0..v.len() {{\n        acc += (v[i] * s + {c1}).{f}();\n    }}\n    acc * {c2} + v[0] * v[v.len() - 1]\n}}"
                    ),
                    1,
                ),
                1 => (
                    format!(
                        "fn {name}(v: &[f64], s: f64) -> f64 {{\n    (v[0] * s).{f}() + v[1] * v[v.len() - 1] * {c1}\n}}"
                    ),
                    2,
                ),
                _ => {
                    // nested: a sub-slice of its own parameter, read locally and passed on
                    self.nesting = true;
                    let inner = self.helper(Kind::Read);
                    self.nesting = false;
                    self.features
                        .insert("slice helper: nested (sub-slice of a helper's parameter)");
                    let m = inner.min_len.max(2);
                    (
                        format!(
                            "fn {name}(v: &[f64], s: f64) -> f64 {{\n    let head = &v[..2];\n    let t = head[0] * head[1] * {c1};\n    t + {inner}(&v[1..], s * {c2}) + {inner}(v, s).{f}()\n}}",
                            inner = inner.name
                        ),
                        m + 1,
                    )
                }
            },
            Kind::Try => {
                self.features
                    .insert("Option: `?` in a helper returning Option, matched by the caller");
                result = self.rng.chance(0.5);
                let (ty, some, none) = if result {
                    self.features
                        .insert("Result: `?` in a helper returning Result, matched by the caller");
                    ("Result<f64, String>", "Ok", "Err(format!(\"{s} is too small\"))")
                } else {
                    ("Option<f64>", "Some", "None")
                };
                (
                    format!(
                        "fn {name}(v: &[f64], s: f64) -> {ty} {{\n    let head = if v[0] * s > -0.4 {{ {some}((v[0] * s).{f}()) }} else {{ {none} }};\n    let h = head?;\n    {some}(h * {c1} + v[v.len() - 1] * {c2})\n}}"
                    ),
                    1,
                )
            }
            Kind::Recursive if self.rng.chance(0.5) => {
                // two helpers calling each other, the second marked `recursive` (its reverse
                // sweep runs the first's derivative again instead of keeping its pullback)
                self.features
                    .insert("recursion: two helpers calling each other, one `recursive`");
                (
                    format!(
                        "fn {name}(v: &[f64], s: f64, k: usize) -> f64 {{\n    if k == 0 {{\n        (v[0] * s).{f}()\n    }} else {{\n        v[k % v.len()] * {c1} + {name}_b(v, s * {c2}, k - 1).{f}()\n    }}\n}}\n\n#[differentiable(recursive)]\nfn {name}_b(v: &[f64], s: f64, k: usize) -> f64 {{\n    if k == 0 {{\n        v[v.len() - 1] * s\n    }} else {{\n        {name}(v, s + {c1}, k - 1) * v[0]\n    }}\n}}"
                    ),
                    1,
                )
            }
            Kind::Recursive => {
                self.features.insert("recursion: a helper calling itself");
                (
                    format!(
                        "fn {name}(v: &[f64], s: f64, k: usize) -> f64 {{\n    if k == 0 {{\n        (v[0] * s).{f}()\n    }} else {{\n        v[k % v.len()] * {c1} + {name}(v, s * {c2}, k - 1).{f}()\n    }}\n}}"
                    ),
                    1,
                )
            }
            Kind::StructOut => (
                format!(
                    "fn {name}(v: &[f64], s: f64) -> PAIRTYPE<f64> {{\n    let a = (v[0] * s).{f}();\n    PAIRTYPE {{ a, b: v[v.len() - 1] * {c1} + s * a }}\n}}\n\n#[derive(Clone, Debug, autodiff::Differentiable)]\npub struct PAIRTYPE<T: autodiff::Real> {{\n    pub a: T,\n    pub b: T,\n}}"
                ),
                1,
            ),
            Kind::ArrayOut => (
                format!(
                    "fn {name}(v: &[f64], s: f64) -> [f64; 3] {{\n    let mut r = [0.0_f64; 3];\n    r[0] = (v[0] * s).{f}();\n    r[1] = v[1] * {c1};\n    r[2] = (v[v.len() - 1] + s).tanh();\n    r\n}}"
                ),
                2,
            ),
            Kind::InPlace => {
                returns = self.rng.chance(0.4);
                let body = if self.rng.chance(0.5) {
                    format!(
                        "    for i in (1..y.len()).rev() {{\n        y[i] = (y[i] * s + y[i - 1] * {c1}).tanh();\n    }}\n    y[0] = (y[0] * {c2} + s).sin();\n"
                    )
                } else {
                    format!(
                        "    for i in 0..y.len() {{\n        y[i] = y[i] * {c1} + (y[i] * s).{f}() * 0.25;\n    }}\n"
                    )
                };
                let ret = if returns {
                    "    y[0] * y[y.len() - 1]\n".to_string()
                } else {
                    String::new()
                };
                let sig = if returns { " -> f64" } else { "" };
                (
                    format!("fn {name}(y: &mut [f64], s: f64){sig} {{\n{body}{ret}}}"),
                    1,
                )
            }
            Kind::ScalarOut => {
                returns = self.rng.chance(0.5);
                let (sig, ret) = if returns {
                    (" -> bool", "    old.abs() < x.abs()\n")
                } else {
                    ("", "")
                };
                (
                    format!(
                        "fn {name}(x: &mut f64, v: &[f64], s: f64){sig} {{\n    let old = *x;\n    *x = (*x * s).{f}() * {c1} + v[0] * old;\n    *x += v[v.len() - 1] * {c2};\n{ret}}}"
                    ),
                    1,
                )
            }
            Kind::TwoMut => (
                format!(
                    "fn {name}(a: &mut [f64], b: &mut [f64], s: f64) {{\n    for i in 0..a.len().min(b.len()) {{\n        b[i] = b[i] * {c1} + (a[i] * s).{f}();\n        a[i] = (b[i] * {c2}).tanh() + a[i] * 0.5;\n    }}\n}}"
                ),
                1,
            ),
            Kind::Accumulate => {
                returns = self.rng.chance(0.3);
                let op = *self.rng.pick(&["+=", "+=", "-="]);
                let ret = if returns {
                    format!("    y[0] * {c2}\n")
                } else {
                    String::new()
                };
                let sig = if returns { " -> f64" } else { "" };
                (
                    format!(
                        "fn {name}(s: f64, x: &[f64], y: &mut [f64]){sig} {{\n    for i in 0..y.len() {{\n        y[i] {op} (s * x[i % x.len()]).{f}() * {c1};\n    }}\n{ret}}}"
                    ),
                    1,
                )
            }
            Kind::PassOn => {
                let (ip, acc) = (self.helper(Kind::InPlace), self.helper(Kind::Accumulate));
                returns = self.rng.chance(0.4);
                let call = |h: &Helper, args: String| {
                    if h.returns {
                        format!("    let _ = {}({args});\n", h.name)
                    } else {
                        format!("    {}({args});\n", h.name)
                    }
                };
                let mut body = call(&ip, "y, s".into());
                body.push_str(&call(&acc, format!("s * {c1}, &x[1..], y")));
                let (sig, ret) = if returns {
                    (" -> f64", "    y[y.len() - 1] + x[0]\n")
                } else {
                    ("", "")
                };
                (
                    format!("fn {name}(y: &mut [f64], x: &[f64], s: f64){sig} {{\n{body}{ret}}}"),
                    2,
                )
            }
        };
        let name = format!("p{}_h{}", self.index, self.helpers.len());
        let pair = format!("P{}H{}Pair", self.index, self.helpers.len());
        let text = text.replace("HELPER", &name).replace("PAIRTYPE", &pair);
        let h = Helper {
            name,
            kind,
            returns,
            min_len,
            result,
        };
        self.sources.push(format!("#[differentiable]\n{text}"));
        self.helpers.push(h.clone());
        h
    }

    /// A sub-slice range of a slice of `len` elements, at least `min` long.
    fn range(&mut self, len: usize, min: usize) -> (String, usize, &'static str) {
        loop {
            let a = self.rng.below(len);
            let b = self.rng.range(a, len);
            match self.rng.below(5) {
                0 if b - a >= min => return (format!("{a}..{b}"), b - a, "&x[a..b]"),
                1 if len - a >= min => return (format!("{a}.."), len - a, "&x[a..]"),
                2 if b >= min => return (format!("..{b}"), b, "&x[..b]"),
                3 => return ("..".into(), len, "&x[..]"),
                4 if b < len && b + 1 - a >= min => {
                    return (format!("{a}..={b}"), b + 1 - a, "&x[a..=b]")
                }
                _ => {}
            }
        }
    }

    /// A slice argument of at least `min` elements for a `&[f64]` parameter: a parameter
    /// or local sub-slice as it is, a sub-slice of one, a local buffer, an array; in a
    /// call whose `&mut` argument is `exclude` (empty for none).
    fn slice_arg(&mut self, min: usize, exclude: &str) -> String {
        let slices: Vec<(String, usize)> = self
            .slices
            .iter()
            .filter(|(_, l)| *l >= min)
            .cloned()
            .collect();
        let choice = self.rng.below(10);
        let reading = exclude.is_empty() || PENDING;
        // choice 0: a `let mut` buffer as it is; 8: a sub-slice of one
        if (choice == 0 || choice == 8) && reading && !self.buffers.is_empty() {
            let (b, len) = self.rng.pick(&self.buffers.clone()).clone();
            // (not the buffer lent `&mut`, whole or a range of it)
            let lent = exclude
                .strip_prefix("&mut ")
                .map(|t| t.split('[').next().unwrap_or(t));
            if len >= min && lent != Some(b.as_str()) {
                if !exclude.is_empty() {
                    self.features
                        .insert("`let mut` buffer as `&[f64]` next to `&mut`");
                }
                if choice == 8 {
                    let (r, _, _) = self.range(len, min.max(1));
                    self.features
                        .insert("slice helper: sub-slice of a `let mut` buffer");
                    return format!("&{b}[{r}]");
                }
                self.features.insert("slice helper: a `let mut` buffer");
                return format!("&{b}");
            }
        }
        // choice 7: the caller's `&mut` parameter as it is, or a sub-slice of it, read (not
        // in a call that lends it)
        if let (7, Some((ys, len))) = (choice, self.mut_param.clone()) {
            let lent = exclude
                .strip_prefix("&mut ")
                .unwrap_or(exclude)
                .split('[')
                .next()
                .unwrap_or("");
            if len >= min.max(1) && lent != ys && self.rng.chance(0.3) {
                self.features
                    .insert("slice helper: the caller's &mut parameter as it is");
                return ys;
            }
            if len >= min.max(1) && lent != ys {
                let (r, _, _) = self.range(len, min.max(1));
                self.features
                    .insert("slice helper: sub-slice of the caller's &mut parameter");
                return format!("&{ys}[{r}]");
            }
        }
        if choice == 1 && reading && !self.arrays.is_empty() && min <= 3 {
            self.features.insert("&[f64; N] passed as &[f64]");
            if !exclude.is_empty() {
                self.features
                    .insert("`&[f64; N]` as `&[f64]` next to `&mut`");
            }
            return format!("&{}", self.rng.pick(&self.arrays.clone()));
        }
        let (s, len) = self.rng.pick(&slices).clone();
        let local = !s.starts_with('x');
        if self.rng.chance(0.35) {
            if local {
                self.features.insert("slice helper: local sub-slice");
            } else {
                self.features.insert("slice helper: whole slice");
            }
            return s;
        }
        let (r, _, form) = self.range(len, min);
        self.features.insert(match form {
            "&x[a..b]" => "slice helper: &x[a..b]",
            "&x[a..]" => "slice helper: &x[a..]",
            "&x[..b]" => "slice helper: &x[..b]",
            "&x[..]" => "slice helper: &x[..]",
            _ => "slice helper: &x[a..=b]",
        });
        format!("&{s}[{r}]")
    }

    /// `let (h, c) = buf.split_at_mut(k);` of a buffer of `len` elements (a `let mut` one or
    /// the `&mut` parameter): the halves handed to helpers as they are, both to one or one
    /// each, then read.
    fn split_views(&mut self, buf: &str, len: usize, out: &mut Vec<Stmt>) {
        // (the split buffer cannot be read while its halves live)
        let mut_param = self.mut_param.take_if(|(ys, _)| ys == buf);
        let k = self.rng.range(1, len - 1);
        let (h, c) = (self.fresh("h"), self.fresh("c"));
        out.push(self.line(format!("let ({h}, {c}) = {buf}.split_at_mut({k});")));
        if self.rng.chance(0.5) {
            let two = self.helper(Kind::TwoMut);
            let s = self.scalar();
            out.push(self.line(format!("{}({h}, {c}, {s});", two.name)));
        } else {
            let kinds = [Kind::InPlace, Kind::Accumulate, Kind::PassOn];
            for (view, n) in [(&h, k), (&c, len - k)] {
                let kind = *self.rng.pick(&kinds);
                let helper = self.helper(kind);
                if n >= helper.min_len {
                    self.mut_call(&helper, view, out);
                }
            }
            self.features
                .insert("&mut views: the halves of a split to helpers, one each");
        }
        let t = self.fresh("t");
        let m = self.coef();
        out.push(self.line(format!(
            "let {t} = {c}[0] * {m} + {h}[{h}.len() - 1] + {c}.len() as f64 * 0.1;"
        )));
        self.terms.push(t.clone());
        self.scalars.push(t);
        if mut_param.is_some() {
            self.mut_param = mut_param;
        }
    }

    /// Calls a `&mut` helper `h` on `target` (`&mut buf` or the `&mut` parameter).
    fn mut_call(&mut self, h: &Helper, target: &str, out: &mut Vec<Stmt>) {
        let s = self.scalar();
        let args = match h.kind {
            Kind::InPlace => format!("{target}, {s}"),
            Kind::Accumulate => {
                let x = self.slice_arg(1, target);
                format!("{s}, {x}, {target}")
            }
            _ => {
                let x = self.slice_arg(2, target);
                format!("{target}, {x}, {s}")
            }
        };
        let call = format!("{}({args})", h.name);
        if h.returns && self.rng.chance(0.7) {
            let t = self.fresh("t");
            out.push(self.line(format!("let {t} = {call}.tanh();")));
            self.terms.push(t.clone());
            self.scalars.push(t);
        } else if !h.returns && self.rng.chance(0.25) {
            let n = self.rng.range(2, 3);
            let body = vec![self.line(format!("{call};"))];
            out.push(self.compound(format!("for _ in 0..{n} {{"), body));
        } else if h.returns {
            out.push(self.line(format!("let _ = {call};")));
        } else {
            out.push(self.line(format!("{call};")));
        }
    }

    /// Passes the caller's own `&mut` parameter on to a `&mut` helper, and reads it.
    fn use_mut_param(&mut self, out: &mut Vec<Stmt>) {
        let Some((ys, len)) = self.mut_param.clone() else {
            return;
        };
        let kinds = [Kind::InPlace, Kind::Accumulate, Kind::PassOn];
        let kind = *self.rng.pick(&kinds);
        let h = self.helper(kind);
        if len >= 3 && self.rng.chance(0.3) {
            let (r, _, _) = self.range(len, 2);
            self.mut_call(&h, &format!("&mut {ys}[{r}]"), out);
            self.features
                .insert("&mut helper: on a range of the caller's &mut parameter");
        } else if len >= 2 && self.rng.chance(0.25) {
            self.split_views(&ys, len, out);
            self.features
                .insert("&mut views: split_at_mut of the caller's &mut parameter");
        } else {
            self.mut_call(&h, &ys, out);
        }
        self.features
            .insert("&mut helper: on the caller's &mut parameter");
        let t = self.fresh("t");
        let i = self.rng.below(len);
        let k = self.coef();
        out.push(self.line(format!("let {t} = {ys}[{i}] * {k};")));
        self.terms.push(t.clone());
        self.scalars.push(t);
    }

    /// A triangular product read through a running counter (GMM's `Q·x`): a copy of `s`
    /// (`l` elements) read at the counter, a local buffer written at the inner loop's
    /// index and read at the outer's, and a sum kept across the inner loop. The counter
    /// starts at 0 or 1, as the names drawn so far say.
    fn triangle(&mut self, s: &str, l: usize, c: &str, k: &str, out: &mut Vec<Stmt>) {
        let start = self.counter % 2;
        // the largest `m` whose triangle of `m (m − 1) / 2` reads fits after `start`
        let mut m = 2;
        while start + (m + 1) * m / 2 <= l {
            m += 1;
        }
        let (w, q, cn, a) = (
            self.fresh("w"),
            self.fresh("q"),
            self.fresh("cn"),
            self.fresh("a"),
        );
        out.push(self.line(format!("let mut {w} = {s}.to_vec();")));
        out.push(self.line(format!("let mut {q} = vec![0.5; {m}];")));
        out.push(self.line(format!("let mut {cn} = {start};")));
        out.push(self.line(format!("let mut {a} = 0.0;")));
        let inner = vec![
            self.line(format!("{q}[j] += {w}[{cn}] * ({q}[i] * {k} + {c});")),
            self.line(format!("{a} += {w}[{cn}] * {q}[j];")),
            self.line(format!("{cn} += 1;")),
        ];
        let inner = self.compound(format!("for j in i + 1..{m} {{"), inner);
        let mut outer = vec![inner];
        if self.counter.is_multiple_of(2) {
            // the copy written in place too, at the counter, after its reads
            outer.push(self.line(format!("{w}[{cn} - 1] *= 0.5;")));
        }
        out.push(self.compound(format!("for i in 0..{m} {{"), outer));
        self.features
            .insert("triangular loop read through a counter");
        self.terms.push(format!("({a} + {q}[{}])", m - 1));
    }

    fn statement(&mut self, out: &mut Vec<Stmt>) {
        match self.rng.below(9) {
            // a local sub-slice, read by index
            0 | 1 => {
                let (x, len) = self.rng.pick(&self.slices.clone()).clone();
                let (r, l, _) = self.range(len, 2);
                let s = self.fresh("s");
                out.push(self.line(format!("let {s} = &{x}[{r}];")));
                let t = self.fresh("t");
                let (i, j) = (self.rng.below(l), self.rng.below(l));
                let c = self.scalar();
                let k = self.coef();
                out.push(self.line(format!(
                    "let {t} = ({s}[{i}] * {c} + {s}[{j}]).sin() + {s}[{s}.len() - 1] * {k};"
                )));
                self.features.insert("local sub-slice read by index");
                self.terms.push(t.clone());
                self.scalars.push(t);
                if (self.counter / 5).is_multiple_of(3) {
                    self.triangle(&s, l, &c, k, out);
                }
                if (self.counter / 7).is_multiple_of(3) {
                    // two slices, the order chosen by a branch: locals borrowing either
                    // (the other slice decided by the names drawn so far, as below)
                    let slices = self.slices.clone();
                    let (y, ylen) = &slices[self.counter % slices.len()];
                    let m = l.min(*ylen);
                    let (ca, cb, u) = (self.fresh("ca"), self.fresh("cb"), self.fresh("u"));
                    if (self.counter / 2 + self.counter / 17).is_multiple_of(2) {
                        out.push(self.line(format!(
                            "let ({ca}, {cb}): (&[f64], &[f64]) = if {s}[{i}] > {c} {{ ({s}, &{y}[..{m}]) }} else {{ (&{y}[..{m}], {s}) }};"
                        )));
                    } else {
                        // the same choice by reassigning a borrowed slice (its length may
                        // change: `{s}` and the prefix differ when `m < l`)
                        out.push(self.line(format!("let mut {ca}: &[f64] = {s};")));
                        out.push(self.line(format!("let mut {cb}: &[f64] = &{y}[..{m}];")));
                        out.push(self.line(format!(
                            "if {s}[{i}] <= {c} {{ std::mem::swap(&mut {ca}, &mut {cb}); {cb} = &{cb}[..{m}]; }}"
                        )));
                        self.features
                            .insert("a borrowed slice swapped and reassigned");
                    }
                    out.push(self.line(format!(
                        "let {u} = {ca}[{}] * {cb}[{}] + ({ca}[{}] * {k}).sin();",
                        i % m,
                        j % m,
                        m - 1
                    )));
                    self.features.insert("slices chosen by a branch");
                    self.terms.push(u);
                }
                // (decided by the names drawn so far: the random stream stays as it was)
                match self.counter % 4 {
                    0 => {
                        // checked reads, one index possibly past the end
                        let g = self.fresh("g");
                        let (i, j) = (self.counter % (l + 2), (self.counter / 4) % (l + 1));
                        out.push(self.line(format!(
                            "let {g} = {s}.get({i}).copied().unwrap_or({c}) + if let Some(&v) = {s}.get({j}) {{ v * {k} }} else {{ {c} * {c} }};"
                        )));
                        self.features.insert("checked read by get, with a default");
                        self.terms.push(g);
                    }
                    1 if (self.counter / 5).is_multiple_of(2) => {
                        // a fold into a pair
                        let (p, q) = (self.fresh("p"), self.fresh("q"));
                        out.push(self.line(format!(
                            "let ({p}, {q}) = {s}.iter().fold((0.0, {c}), |(p, q), &v| (p + v * {k}, (q + v).sin()));"
                        )));
                        self.features.insert("fold into a tuple");
                        self.terms.push(p);
                        self.terms.push(q);
                    }
                    1 => {
                        // the same pair held in a tuple written member by member, a best
                        // pair replaced whole, and a swap by destructuring assignment
                        let (acc, best, p, q) = (
                            self.fresh("acc"),
                            self.fresh("best"),
                            self.fresh("p"),
                            self.fresh("q"),
                        );
                        out.push(self.line(format!("let mut {acc} = (0.0, {c});")));
                        out.push(self.line(format!("let mut {best} = (-1.0, 0.0);")));
                        out.push(self.line(format!(
                            "for &v in {s}.iter() {{ {acc}.0 += v * {k}; {acc}.1 = ({acc}.1 + v).sin(); if v > {best}.0 {{ {best} = (v, {acc}.1 * {k}); }} }}"
                        )));
                        out.push(self.line(format!("let (mut {p}, mut {q}) = {acc};")));
                        out.push(self.line(format!("({p}, {q}) = ({q} * {k}, {p} + {best}.1);")));
                        self.features
                            .insert("a tuple held as a value, destructuring assignment");
                        self.terms.push(p);
                        self.terms.push(q);
                    }
                    2 => {
                        // a filtered sum and a strided one
                        let f = self.fresh("f");
                        out.push(self.line(format!(
                            "let {f} = {s}.iter().filter(|v| **v > {c} * {k}).map(|v| v * v).sum::<f64>() + {s}.iter().step_by(2).map(|v| v * {k}).sum::<f64>();"
                        )));
                        self.features.insert("iterator chain: filter, step_by");
                        self.terms.push(f);
                        if (self.counter / 3).is_multiple_of(2) {
                            // a prefix taken while it holds, running states by `scan`
                            let tw = self.fresh("tw");
                            out.push(self.line(format!(
                                "let {tw} = {s}.iter().take_while(|v| **v < {c} + 1.0).map(|v| v.sin()).sum::<f64>() + {s}.iter().scan({k}, |acc, &v| {{ *acc = *acc * 0.5 + v; if *acc > 4.0 {{ None }} else {{ Some(*acc) }} }}).map(|c| c * c).sum::<f64>();"
                            )));
                            self.features.insert("iterator chain: take_while, scan");
                            self.terms.push(tw);
                        } else {
                            // a `for` loop over mapped items, `sin_cos`
                            let fm = self.fresh("fm");
                            out.push(self.line(format!("let mut {fm} = 0.0;")));
                            out.push(self.line(format!(
                                "for t in {s}.iter().map(|v| v * {k}) {{ let (sn, cs) = t.sin_cos(); {fm} += sn * cs + t; }}"
                            )));
                            self.features.insert("`for` over `map`, `sin_cos`");
                            self.terms.push(fm);
                        }
                    }
                    _ => {
                        // the median of a sorted copy
                        let (m, md) = (self.fresh("m"), self.fresh("md"));
                        out.push(self.line(format!("let mut {m} = {s}.to_vec();")));
                        out.push(
                            self.line(format!("{m}.sort_by(|a, b| a.partial_cmp(b).unwrap());")),
                        );
                        out.push(self.line(format!("let {md} = {m}[{}] * {k};", l / 2)));
                        self.features.insert("sorted copy (sort_by)");
                        if (self.counter / 4).is_multiple_of(2) {
                            // iterated with a branch, read by index, then assigned a value
                            // one shorter (a new one, or itself truncated)
                            let (it, kept) = (self.fresh("it"), self.fresh("kept"));
                            out.push(self.line(format!("let mut {it} = 0.0;")));
                            out.push(self.line(format!(
                                "for (i, v) in {m}.iter().enumerate() {{ if *v > {c} {{ {it} += v * {m}[i] * {k}; }} }}"
                            )));
                            self.features
                                .insert("a local `Vec` iterated, then assigned another length");
                            self.terms.push(it);
                            out.push(self.line(format!("let mut {kept} = {m}.clone();")));
                            out.push(self.line(format!("{kept}.retain(|v| *v > {c} * {k});")));
                            let ks = self.fresh("ks");
                            out.push(self.line(format!(
                                "let {ks} = {kept}.iter().map(|v| v * v).sum::<f64>();"
                            )));
                            self.features.insert("`retain` of a local `Vec`");
                            self.terms.push(ks);
                            let m2 = self.fresh("md");
                            if (self.counter / 8).is_multiple_of(2) {
                                out.push(self.line(format!(
                                    "{m} = {s}[..{}].iter().map(|v| v * {k}).collect();",
                                    l - 1
                                )));
                            } else {
                                out.push(self.line(format!("{m}.truncate({});", l - 1)));
                                self.features.insert("`truncate` of a local `Vec`");
                            }
                            out.push(
                                self.line(format!("let {m2} = {m}[{}] * {md} + {m}[0];", l - 2)),
                            );
                            self.features.insert(
                                "a local `Vec` read by index, then assigned another length",
                            );
                            self.terms.push(m2);
                        } else {
                            // a `Vec` made in each iteration of a loop, then shortened by
                            // `pop`, `truncate` or a shorter copy of itself, read by index
                            let (sh, w) = (self.fresh("sh"), self.fresh("w"));
                            out.push(self.line(format!("let mut {sh} = 0.0;")));
                            let shorten = match (self.counter / 8) % 3 {
                                0 => {
                                    format!("let last = {w}.pop().unwrap(); {sh} += last * {w}[j];")
                                }
                                1 => format!("{w}.truncate({}); {sh} += {w}[j] * {k};", l - 1),
                                _ => format!(
                                    "{w} = {w}[..{}].to_vec(); {sh} += {w}[j] * {w}[0];",
                                    l - 1
                                ),
                            };
                            out.push(self.line(format!(
                                "for j in 0..{} {{ let mut {w} = {s}.to_vec(); {w}[j] *= {c}; {shorten} {sh} += {w}[{}]; }}",
                                l - 1,
                                l - 2
                            )));
                            self.features
                                .insert("a `Vec` made in a loop, then shortened, read by index");
                            self.terms.push(sh);
                        }
                        self.terms.push(md);
                    }
                }
                self.slices.push((s, l));
            }
            // a helper returning an `Option`, matched
            2 if self.rng.chance(0.3) => {
                let h = self.helper(Kind::Try);
                let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                let t = self.fresh("t");
                let k = self.coef();
                let (some, none) = if h.result {
                    ("Ok", "Err(_)")
                } else {
                    ("Some", "None")
                };
                out.push(self.line(format!(
                    "let {t} = match {}({x}, {s}) {{ {some}(v) => v, {none} => {s} * {k} }};",
                    h.name
                )));
                self.terms.push(t.clone());
                self.scalars.push(t);
            }
            // a recursive helper
            3 if self.rng.chance(0.3) => {
                let h = self.helper(Kind::Recursive);
                let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                let t = self.fresh("t");
                let depth = self.rng.range(1, 3);
                out.push(self.line(format!("let {t} = {}({x}, {s}, {depth});", h.name)));
                self.terms.push(t.clone());
                self.scalars.push(t);
            }
            // a float written through by a helper, a local or an element of a buffer
            // (decided by the names drawn so far: the random stream stays as it was)
            2 | 3 if self.counter % 3 == 2 => {
                let h = self.helper(Kind::ScalarOut);
                let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                let t = self.fresh("t");
                let call = |target: &str| {
                    if h.returns {
                        format!("let _ = {}({target}, {x}, {s});", h.name)
                    } else {
                        format!("{}({target}, {x}, {s});", h.name)
                    }
                };
                if self.counter.is_multiple_of(2) {
                    // a copy of a parameter, one element written through
                    let (p, len) = self.slices[0].clone();
                    let (b, i) = (self.fresh("e"), self.counter % len);
                    out.push(self.line(format!("let mut {b} = {p}.to_vec();")));
                    out.push(self.line(call(&format!("&mut {b}[{i}]"))));
                    out.push(self.line(format!("let {t} = {b}[{i}] * {s} + {b}[0];")));
                    self.features
                        .insert("&mut f64 helper: an element of a local buffer");
                } else {
                    let k = self.coef();
                    out.push(self.line(format!("let mut {t} = {s} * {k};")));
                    out.push(self.line(call(&format!("&mut {t}"))));
                    self.features.insert("&mut f64 helper: a local");
                }
                self.terms.push(t.clone());
                self.scalars.push(t);
            }
            // a call of a reading helper
            2 | 3 => {
                let h = self.helper(Kind::Read);
                let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                let t = self.fresh("t");
                out.push(self.line(format!("let {t} = {}({x}, {s});", h.name)));
                self.terms.push(t.clone());
                self.scalars.push(t);
            }
            // a local buffer, updated by `&mut` helpers
            4 | 5 => {
                let b = self.fresh("buf");
                let (x, xlen) = self.slices[0].clone();
                let len = self.rng.range(2, 4);
                if self.rng.chance(0.2) {
                    // a copy of a range of the parameter
                    let off = self.rng.below(xlen - len + 1);
                    out.push(
                        self.line(format!("let mut {b} = {x}[{off}..{}].to_vec();", off + len)),
                    );
                    self.features.insert("local buffer: a copy by to_vec");
                    // (decided by the names drawn so far: the random stream stays as it was)
                    if self.counter.is_multiple_of(3) {
                        // one element more than `len`, which the helpers below never reach
                        let last = self.scalars.last().cloned().unwrap_or_else(|| "1.0".into());
                        out.push(self.line(format!("{b}.push(({last}).cos() * {x}[{off}]);")));
                        self.features
                            .insert("local buffer: a copy by to_vec, then push");
                    }
                    if self.counter % 5 == 1 {
                        // a constant `Vec` the next reading helpers may be handed
                        let c = self.fresh("c");
                        out.push(self.line(format!("let {c} = vec![0.5, -1.25, 2.0, 0.75];")));
                        let h = self.helper(Kind::Read);
                        if h.min_len <= 4 {
                            let (t, s) = (self.fresh("t"), self.scalar());
                            out.push(self.line(format!("let {t} = {}(&{c}, {s});", h.name)));
                            self.terms.push(t.clone());
                            self.scalars.push(t);
                            self.features
                                .insert("constant local Vec handed to a helper");
                        }
                    }
                } else if self.rng.chance(0.5) {
                    let fill = self.coef();
                    out.push(self.line(format!("let mut {b} = vec![{fill}; {len}];")));
                } else {
                    out.push(self.line(format!("let mut {b} = vec![0.0; {len}];")));
                    let off = self.rng.below(xlen - len + 1);
                    let s = self.scalar();
                    let init = vec![self.line(format!("{b}[i] = {x}[i + {off}] * {s};"))];
                    out.push(self.compound(format!("for i in 0..{len} {{"), init));
                }
                if self.counter % 4 == 2 {
                    out.push(self.line(format!("{b}.reverse();")));
                    self.features.insert("local buffer: reversed in place");
                }
                let kinds = [Kind::InPlace, Kind::Accumulate, Kind::PassOn];
                for _ in 0..self.rng.range(1, 3) {
                    let kind = *self.rng.pick(&kinds);
                    let h = self.helper(kind);
                    if len >= 3 && self.rng.chance(0.3) {
                        let (r, _, _) = self.range(len, 2);
                        self.mut_call(&h, &format!("&mut {b}[{r}]"), out);
                        self.features
                            .insert("&mut helper: on a range of a local buffer (`&mut b[r]`)");
                    } else {
                        self.mut_call(&h, &format!("&mut {b}"), out);
                    }
                    self.features.insert("&mut helper: on a local buffer");
                }
                if self.rng.chance(0.3) {
                    // its elements updated in place, alone or zipped with the parameter
                    let s = self.scalar();
                    let f = *self.rng.pick(&["sin", "tanh", "cos"]);
                    let (v, i, xi) = (self.fresh("v"), self.fresh("i"), self.fresh("xi"));
                    let (head, body) = match self.rng.below(7) {
                        5 => {
                            out.push(self.line(format!(
                                "{b}.iter_mut().for_each(|{v}| *{v} = (*{v} * {s}).{f}());"
                            )));
                            self.features
                                .insert("local buffer: for_each through iter_mut");
                            (String::new(), String::new())
                        }
                        6 => {
                            out.push(self.line(format!(
                                "{b}.iter_mut().zip({x}.iter()).map(|({v}, {xi})| *{v} = *{v} * {s} + {xi}.{f}()).count();"
                            )));
                            self.features
                                .insert("local buffer: map(..).count() through iter_mut");
                            (String::new(), String::new())
                        }
                        3 => {
                            let k = self.rng.range(1, len);
                            let off = self.rng.below(xlen - k + 1);
                            // (to `len`: a buffer copied by `to_vec` may have one more)
                            out.push(self.line(format!(
                                "{b}[{}..{len}].copy_from_slice(&{x}[{off}..{}]);",
                                len - k,
                                off + k
                            )));
                            self.features.insert("local buffer: copy_from_slice");
                            (String::new(), String::new())
                        }
                        4 => {
                            out.push(self.line(format!("{b}[1..].fill({s});")));
                            self.features.insert("local buffer: fill");
                            (String::new(), String::new())
                        }
                        0 => (
                            format!("for {v} in {b}.iter_mut() {{"),
                            format!("*{v} = (*{v} * {s}).{f}();"),
                        ),
                        1 => (
                            format!("for ({i}, {v}) in {b}.iter_mut().enumerate() {{"),
                            format!("*{v} += {s} * 0.1 * {i} as f64;"),
                        ),
                        _ => (
                            format!("for ({v}, {xi}) in {b}.iter_mut().zip({x}.iter()) {{"),
                            format!("*{v} = *{v} * {s} + {xi}.{f}();"),
                        ),
                    };
                    if !head.is_empty() {
                        let inner = vec![self.line(body)];
                        out.push(self.compound(head, inner));
                        self.features.insert("local buffer: iter_mut loop");
                    }
                }
                if len >= 2 && self.rng.chance(0.3) {
                    self.split_views(&b, len, out);
                    self.features
                        .insert("&mut views: split_at_mut of a local buffer");
                }
                let t = self.fresh("t");
                let k = self.coef();
                out.push(self.line(format!("let {t} = {b}[0] + {b}[{}] * {k};", len - 1)));
                self.terms.push(t.clone());
                self.scalars.push(t);
                self.buffers.push((b, len));
            }
            // a struct made by a helper and by a literal, read by its members (decided by the
            // names drawn so far: the programs generated before it are kept where it does
            // not apply)
            6 if self.counter.is_multiple_of(3) => {
                let h = self.helper(Kind::StructOut);
                let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                let (p, q, t) = (self.fresh("p"), self.fresh("q"), self.fresh("t"));
                let (a, k) = (self.scalar(), self.coef());
                out.push(self.line(format!("let {p} = {}({x}, {s});", h.name)));
                let pair = h.name.replace('p', "P").replace("_h", "H") + "Pair";
                out.push(self.line(format!(
                    "let {q} = {pair} {{ a: {p}.b * {k}, b: ({a}).sin() + {p}.a }};"
                )));
                out.push(self.line(format!("let {t} = {q}.a * {q}.b + {p}.a;")));
                self.features
                    .insert("struct literal of a derived struct (a helper's result and a local)");
                self.terms.push(t.clone());
                self.scalars.push(t);
                if self.counter.is_multiple_of(2) {
                    // a `Vec` of them collected, fields written in place in loops, elements
                    // replaced; a `let mut` one's field written
                    let (v, m, u) = (self.fresh("ps"), self.fresh("m"), self.fresh("t"));
                    let k2 = self.coef();
                    let seq = x.trim_start_matches('&');
                    out.push(self.line(format!(
                        "let mut {v}: Vec<{pair}<f64>> = {seq}.iter().map(|&e| {pair} {{ a: e, b: e * {k} }}).collect();"
                    )));
                    out.push(self.line(format!(
                        "for _ in 0..2 {{ for i in 0..{v}.len() {{ {v}[i].a += {v}[i].b * {k}; {v}[i].b = ({v}[i].a * {s}).sin(); }} }}"
                    )));
                    out.push(self.line(format!("for e in {v}.iter_mut() {{ e.a *= {k2}; }}")));
                    out.push(self.line(format!(
                        "{v}[0] = {pair} {{ a: {v}[0].b, b: {v}[0].a * {k2} }};"
                    )));
                    out.push(self.line(format!("let mut {m} = {pair} {{ a: {a}, b: {p}.b }};")));
                    out.push(self.line(format!("{m}.a += {m}.b * {k};")));
                    out.push(self.line(format!(
                        "let {u} = {v}[0].a + {v}[{v}.len() - 1].b * {m}.a;"
                    )));
                    self.features.insert(
                        "fields of derived structs written in place (a collected `Vec`, a local)",
                    );
                    self.terms.push(u);
                }
            }
            // a fixed array
            6 => {
                let arr = self.fresh("arr");
                if self.rng.chance(0.5) {
                    let h = self.helper(Kind::ArrayOut);
                    let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                    out.push(self.line(format!("let {arr} = {}({x}, {s});", h.name)));
                } else {
                    let (a, b) = (self.scalar(), self.scalar());
                    let (x, len) = self.slices[0].clone();
                    let i = self.rng.below(len);
                    let k = self.coef();
                    // (decided by the names drawn so far, not by the random stream: the
                    // programs generated before array literals were kept as they were)
                    if self.counter.is_multiple_of(2) {
                        // (a `Vec` now and then, read as the array is; not an array after)
                        let vec = self.counter % 8 == 6;
                        if vec {
                            out.push(self.line(format!(
                                "let {arr} = vec![{a}, {x}[{i}] * {k}, ({b}).sin()];"
                            )));
                            self.features
                                .insert("vec! literal of differentiable values");
                        } else {
                            out.push(self.line(format!(
                                "let {arr}: [f64; 3] = [{a}, {x}[{i}] * {k}, ({b}).sin()];"
                            )));
                            self.features.insert("array literal");
                            self.features.insert("[f64; N] local");
                        }
                        let t = self.fresh("t");
                        if self.counter % 4 < 2 {
                            let (e0, e1, e2) = (self.fresh("e"), self.fresh("e"), self.fresh("e"));
                            out.push(self.line(format!("let [{e0}, {e1}, {e2}] = {arr};")));
                            out.push(
                                self.line(format!("let {t} = {e0} * {e2} + {arr}[1] * {e1};")),
                            );
                            self.features.insert("array destructuring");
                        } else {
                            out.push(self.line(format!("let {t} = {arr}[0] * {arr}[2];")));
                        }
                        self.terms.push(t.clone());
                        self.scalars.push(t);
                        if !vec {
                            self.arrays.push(arr);
                        }
                        // the draws of the other branch, so later programs stay as they were
                        let _ = (self.coef(), self.rng.below(3), self.rng.chance(0.5));
                        let _ = (self.rng.below(3), self.rng.below(3));
                        return;
                    }
                    // a constant array, written by index
                    let fill = self.coef();
                    out.push(self.line(format!("let mut {arr} = [{fill}_f64; 3];")));
                    let i0 = self.rng.below(3);
                    out.push(self.line(format!("{arr}[{i0}] = {a};")));
                    out.push(self.line(format!("{arr}[{}] = {x}[{i}] * {k};", (i0 + 1) % 3)));
                    if self.rng.chance(0.5) {
                        out.push(self.line(format!("{arr}[{}] = ({b}).sin();", (i0 + 2) % 3)));
                    }
                }
                self.features.insert("[f64; N] local");
                let t = self.fresh("t");
                let (i, j) = (self.rng.below(3), self.rng.below(3));
                out.push(self.line(format!("let {t} = {arr}[{i}] * {arr}[{j}];")));
                self.terms.push(t.clone());
                self.scalars.push(t);
                self.arrays.push(arr);
            }
            // the caller's own `&mut` parameter, passed on
            _ => {
                if self.mut_param.is_some() {
                    self.use_mut_param(out);
                } else {
                    let h = self.helper(Kind::Read);
                    let (x, s) = (self.slice_arg(h.min_len, ""), self.scalar());
                    let t = self.fresh("t");
                    out.push(self.line(format!("let {t} = {}({x}, {s}).sin();", h.name)));
                    self.terms.push(t.clone());
                    self.scalars.push(t);
                }
            }
        }
    }
}

/// A random slice program `p{index}` with its helpers `p{index}_h{k}`.
pub(crate) fn gen_slice_function(rng: &mut Rng, index: usize) -> Func {
    let len = rng.range(6, 8);
    let point_seed = rng.next_u64();
    let mut params = vec![Param::Scalar("a".into()), Param::Slice("xs".into(), len)];
    if rng.chance(0.5) {
        params.push(Param::Scalar("b".into()));
    }
    let array = rng.chance(0.35);
    if array {
        params.push(Param::Array("w".into(), 3));
    }
    let mut_param = rng.chance(0.25);
    if mut_param {
        params.push(Param::MutSlice("ys".into(), 3));
    }
    for i in (1..params.len()).rev() {
        let j = rng.below(i + 1);
        params.swap(i, j);
    }
    let mut scalars: Vec<String> = params
        .iter()
        .filter(|p| matches!(p, Param::Scalar(_)))
        .map(|p| p.name().to_string())
        .collect();
    if array {
        scalars.push("w[0]".into());
        scalars.push("w[2]".into());
    }
    let mut g = SliceGen {
        rng,
        index,
        next_id: 0,
        counter: 0,
        helpers: Vec::new(),
        sources: Vec::new(),
        features: BTreeSet::new(),
        scalars,
        slices: vec![("xs".into(), len)],
        buffers: Vec::new(),
        arrays: if array { vec!["w".into()] } else { Vec::new() },
        mut_param: mut_param.then(|| ("ys".to_string(), 3)),
        terms: Vec::new(),
        nesting: false,
    };
    if array {
        g.features.insert("[f64; N] parameter");
    }
    if mut_param {
        g.features.insert("&mut parameter of the checked function");
    }
    let mut body = Vec::new();
    for _ in 0..g.rng.range(3, 7) {
        g.statement(&mut body);
    }
    if !g
        .features
        .contains("&mut helper: on the caller's &mut parameter")
    {
        g.use_mut_param(&mut body);
    }
    // A `let mut` buffer handed to a reading helper as its last mention (the forward sweep
    // moves it into the call instead of copying it). Decided by the names drawn so far and
    // the helpers already written, not by the random stream: the programs generated before
    // this form were kept as they were where it does not apply.
    if g.counter.is_multiple_of(2) {
        let last = g.buffers.last().cloned();
        let reader = last.as_ref().and_then(|(_, len)| {
            (g.helpers.iter())
                .find(|h| matches!(h.kind, Kind::Read) && h.min_len <= *len)
                .map(|h| h.name.clone())
        });
        if let (Some((b, _)), Some(name)) = (last, reader) {
            let t = g.fresh("t");
            body.push(g.line(format!("let {t} = {name}(&{b}, a);")));
            g.terms.push(t);
            g.features
                .insert("slice helper: a `let mut` buffer, its last mention");
        }
    }
    // A buffer filled element by element from the parameters and only read after (GMM's
    // centred vector), which the derivative computes again where it is read (the macro's
    // `lower::remat`): read at literal indices and in a loop over the slice. Decided by the
    // names drawn so far, as above.
    if g.counter % 3 == 1 {
        let (e, s, t) = (g.fresh("e"), g.fresh("s"), g.fresh("t"));
        let (i, j) = (g.counter % len, (g.counter / 3) % len);
        body.push(g.line(format!("let mut {e} = vec![0.0; xs.len()];")));
        body.push(g.line(format!(
            "for i in 0..xs.len() {{ {e}[i] = xs[i] * 0.5 - 0.25; }}"
        )));
        body.push(g.line(format!("let mut {s} = 0.0;")));
        body.push(g.line(format!("for k in 0..xs.len() {{ {s} += {e}[k] * xs[k]; }}")));
        body.push(g.line(format!("let {t} = {e}[{i}] * {e}[{j}] + {s};")));
        g.terms.push(t);
        g.features
            .insert("a buffer filled element by element, computed again where read");
    }
    let mut parts: Vec<String> = g.terms.iter().rev().take(5).cloned().collect();
    if let Some((ys, len)) = &g.mut_param {
        parts.push(format!("{ys}[{}]", len - 1));
    }
    if array {
        parts.push("w[1] * 0.5".into());
    }
    parts.push("a * 0.3".into());
    let ret = parts.join(" + ");
    for h in &g.helpers {
        match h.kind {
            Kind::InPlace => g.features.insert("&mut helper: in place"),
            Kind::Accumulate => g.features.insert("&mut helper: accumulate"),
            Kind::PassOn => g.features.insert("&mut helper: passes its buffer on"),
            Kind::ArrayOut => g.features.insert("[f64; N] returned by a helper"),
            Kind::TwoMut => g
                .features
                .insert("&mut views: both halves of a split to one helper"),
            Kind::Read | Kind::Try | Kind::Recursive | Kind::StructOut | Kind::ScalarOut => false,
        };
        if matches!(h.kind, Kind::InPlace | Kind::Accumulate | Kind::PassOn) && !h.returns {
            g.features.insert("&mut helper: no return type");
        }
    }
    Func {
        index,
        params,
        body,
        ret,
        point_seed,
        mag: 10.0,
        cost: 100.0,
        helpers: g.sources,
        selected: Vec::new(),
        features: g.features,
        calls_second_order: false,
    }
}

/// The seed-derived `params = [...]` selection of about one function in six with two or
/// more differentiable parameters: a proper, non-empty subset in random order.
pub(crate) fn select_params(f: &mut Func) {
    let mut rng = Rng::new(f.point_seed ^ 0x5e1e_c7ed_0000_0001);
    let differentiable: Vec<usize> = (0..f.params.len())
        .filter(|&k| !matches!(f.params[k], Param::Count(..)))
        .collect();
    if differentiable.len() < 2 || !rng.chance(1.0 / 6.0) {
        return;
    }
    let mut chosen = differentiable;
    for i in (1..chosen.len()).rev() {
        let j = rng.below(i + 1);
        chosen.swap(i, j);
    }
    let k = rng.range(1, chosen.len() - 1);
    chosen.truncate(k);
    f.selected = chosen;
    f.features.insert("params = [...] subset");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate_functions, TEST_COUNT, TEST_SEED};

    #[test]
    fn every_range_is_in_bounds_and_long_enough() {
        let mut rng = Rng::new(11);
        let mut g = SliceGen {
            rng: &mut rng,
            index: 0,
            next_id: 0,
            counter: 0,
            helpers: Vec::new(),
            sources: Vec::new(),
            features: BTreeSet::new(),
            scalars: vec!["a".into()],
            slices: Vec::new(),
            buffers: Vec::new(),
            arrays: Vec::new(),
            mut_param: None,
            terms: Vec::new(),
            nesting: false,
        };
        let mut forms = BTreeSet::new();
        for _ in 0..2000 {
            let len = g.rng.range(2, 8);
            let min = g.rng.range(1, len.min(3));
            let (r, l, form) = g.range(len, min);
            forms.insert(form);
            let (a, rest) = r.split_once("..").unwrap();
            let a: usize = if a.is_empty() { 0 } else { a.parse().unwrap() };
            let b: usize = match rest {
                "" => len,
                _ if rest.starts_with('=') => rest[1..].parse::<usize>().unwrap() + 1,
                _ => rest.parse().unwrap(),
            };
            assert!(a <= b && b <= len, "{r} of {len}");
            assert_eq!(b - a, l, "{r}");
            assert!(l >= min, "{r} of {len}: shorter than {min}");
        }
        assert_eq!(forms.len(), 5, "{forms:?}");
    }

    #[test]
    fn the_checked_in_programs_use_every_construct() {
        let funcs = generate_functions(TEST_SEED, TEST_COUNT);
        for (feature, n) in feature_counts(&funcs) {
            assert!(
                n > 0 || (feature.starts_with("pending") && !PENDING),
                "no checked-in program uses {feature}"
            );
        }
    }

    #[test]
    fn selected_inputs_follow_the_selection_order() {
        let f = Func {
            index: 0,
            params: vec![
                Param::Scalar("a".into()),
                Param::Slice("xs".into(), 3),
                Param::Count("n".into(), 2),
                Param::Array("w".into(), 2),
            ],
            body: Vec::new(),
            ret: "a".into(),
            point_seed: 1,
            mag: 1.0,
            cost: 1.0,
            helpers: Vec::new(),
            selected: vec![3, 0],
            features: BTreeSet::new(),
            calls_second_order: false,
        };
        assert_eq!(f.selected_inputs(), vec![4, 5, 0]);
        assert!(f
            .render_program()
            .contains(r#"params = ["w", "a"] at [4, 5, 0]"#));
    }
}
