//! A generated function as data: its parameters and statements (each with an id, so the
//! minimizer can delete it), the edits the minimizer makes, and its source text, plain or
//! inside a `program!` invocation with its checker.

use std::collections::BTreeSet;
use std::fmt::Write as _;

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
    /// `w: [f64; N]`, a fixed-size array by value.
    Array(String, usize),
    /// `ys: &mut [f64]`, checked with a fresh copy of `len` elements per call (its
    /// gradient is that of the buffer's initial value).
    MutSlice(String, usize),
}

impl Param {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        match self {
            Param::Scalar(n)
            | Param::Slice(n, _)
            | Param::Count(n, _)
            | Param::Matrix(n, _)
            | Param::Vector(n, _)
            | Param::Array(n, _)
            | Param::MutSlice(n, _) => n,
        }
    }

    /// How many numbers of a checker's point it takes (0 for a constant).
    pub fn inputs(&self) -> usize {
        match self {
            Param::Scalar(_) => 1,
            Param::Slice(_, len)
            | Param::Vector(_, len)
            | Param::Array(_, len)
            | Param::MutSlice(_, len) => *len,
            Param::Matrix(_, n) => n * n,
            Param::Count(..) => 0,
        }
    }
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
    pub(crate) mag: f64,
    /// A rough count of the operations one call runs, for callers.
    pub(crate) cost: f64,
    /// Differentiable helper functions it calls (`p{index}_h{k}`, whole items, attribute
    /// included), written before it.
    pub helpers: Vec<String>,
    /// The differentiable parameters its checker selects with `params = [...]` (indices
    /// into `params`, in the order named), or empty for all of them.
    pub selected: Vec<usize>,
    /// The constructs it exercises, for the generator's statistics.
    pub features: BTreeSet<&'static str>,
    /// Every function it calls is marked `second_order` (see [`Func::second_order`]), so
    /// it may be too.
    pub calls_second_order: bool,
}

impl Func {
    /// `p{index}`.
    pub fn name(&self) -> String {
        format!("p{}", self.index)
    }

    /// The functions this one calls (by index), read off its source.
    pub fn callees(&self) -> BTreeSet<usize> {
        let mut calls = called_functions(&self.render_source_as("#[differentiable]"));
        calls.remove(&self.index);
        calls
    }

    /// Whether other generated functions may call it: scalar arguments only.
    pub(crate) fn callable(&self) -> bool {
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

    /// The function (and its helpers) as plain Rust, without `#[differentiable]`.
    pub fn render_plain(&self) -> String {
        self.render_source()
            .replace("#[differentiable]\n", "")
            .replace("#[differentiable(recursive)]\n", "")
            .replace("#[differentiable(second_order)]\n", "")
            .replace("#[differentiable(second_order, recursive)]\n", "")
    }

    /// Whether it is marked `#[differentiable(second_order)]` and its checker checks
    /// `hvp!`: a function of `f64` scalars, slices (`&mut` too), fixed-size arrays and
    /// ndarray arrays (and counts) that calls no other function or only functions marked
    /// so too (its copy calls theirs), whose helpers return `f64` (or an `Option` or
    /// `Result` of it, a `[f64; N]`) or nothing (they are marked too), with at most 8 differentiable parameters (its checker compares the
    /// rows of the selected parameters when it selects some).
    pub fn second_order(&self) -> bool {
        let differentiable = self
            .params
            .iter()
            .filter(|p| !matches!(p, Param::Count(..)))
            .count();
        self.helpers
            .iter()
            .all(|h| second_order_helper(h).is_some())
            && (1..=8).contains(&differentiable)
            && (self.calls_second_order || self.callees().is_empty())
    }

    /// Its helpers, each followed by a blank line (marked `second_order` when the function
    /// is: `marked`).
    fn render_helpers(&self, marked: bool) -> String {
        (self.helpers.iter())
            .map(|h| match second_order_helper(h).filter(|_| marked) {
                Some(h) => format!("{h}\n"),
                None => format!("{h}\n"),
            })
            .collect()
    }

    /// The function as it appears in the module, attribute included.
    pub fn render_source(&self) -> String {
        self.render_source_as(self.attribute())
    }

    /// Its attribute.
    fn attribute(&self) -> &'static str {
        if self.second_order() {
            "#[differentiable(second_order)]"
        } else {
            "#[differentiable]"
        }
    }

    /// The function and its helpers with `attribute` on the function.
    fn render_source_as(&self, attribute: &str) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar(n) => format!("{n}: f64"),
                Param::Slice(n, _) => format!("{n}: &[f64]"),
                Param::Count(n, _) => format!("{n}: usize"),
                Param::Matrix(n, _) => format!("{n}: &Array2<f64>"),
                Param::Vector(n, _) => format!("{n}: &Array1<f64>"),
                Param::Array(n, len) => format!("{n}: [f64; {len}]"),
                Param::MutSlice(n, _) => format!("{n}: &mut [f64]"),
            })
            .collect();
        let mut out = self.render_helpers(attribute.contains("second_order"));
        let _ = write!(
            out,
            "{attribute}\nfn {}({}) -> f64 {{\n",
            self.name(),
            params.join(", ")
        );
        render_stmts(&mut out, &self.body, 1);
        let _ = writeln!(out, "    {}\n}}", self.ret);
        out
    }

    /// The number of `f64` inputs (scalars and slice elements).
    pub fn dim(&self) -> usize {
        self.params.iter().map(Param::inputs).sum()
    }

    /// The positions in a checker's point of the selected parameters' inputs, in the
    /// order `selected` names them (the order of the gradients).
    pub fn selected_inputs(&self) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut offset = 0;
        for p in &self.params {
            starts.push(offset);
            offset += p.inputs();
        }
        self.selected
            .iter()
            .flat_map(|&k| starts[k]..starts[k] + self.params[k].inputs())
            .collect()
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
                Param::Array(_, n) => {
                    offset += n;
                    format!(
                        "<[f64; {n}]>::try_from(&p[{}..{}]).unwrap()",
                        offset - n,
                        offset
                    )
                }
                Param::MutSlice(_, n) => {
                    offset += n;
                    format!("&mut p[{}..{}].to_vec()", offset - n, offset)
                }
            })
            .collect();
        args.join(", ")
    }

    /// The function with its checker `check_p{index}`, as a `program!` invocation (the
    /// macro of the harness).
    pub(crate) fn render_program(&self) -> String {
        let mut out = self.render_helpers(self.second_order());
        out.push_str("program! {\n");
        let own = Func {
            helpers: Vec::new(),
            ..self.clone()
        };
        for line in own.render_source_as(self.attribute()).lines() {
            let _ = writeln!(out, "    {line}");
        }
        let callees: Vec<String> = self.callees().iter().map(|j| format!("p{j}")).collect();
        let selection = if self.selected.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = self
                .selected
                .iter()
                .map(|&k| format!("{:?}", self.params[k].name()))
                .collect();
            let inputs: Vec<String> = self
                .selected_inputs()
                .iter()
                .map(|i| i.to_string())
                .collect();
            format!(
                ",\n        params = [{}] at [{}]",
                names.join(", "),
                inputs.join(", ")
            )
        };
        let _ = writeln!(
            out,
            "    check_{name}(seed = {seed:#018x}, inputs = {dim}, calls = [{calls}], at = |p| ({args}){selection});\n}}",
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

/// A helper's source with every function of it marked `second_order`, if each returns `f64`,
/// an `Option` or `Result` of it, a `[f64; N]` array, or nothing (what the marker serves).
fn second_order_helper(h: &str) -> Option<String> {
    for line in h.lines().filter(|l| l.starts_with("fn ")) {
        let head = line.trim_end().trim_end_matches('{').trim_end();
        if let Some((_, ret)) = head.rsplit_once(") -> ") {
            let array = ret.trim().starts_with("[f64; ") && ret.trim().ends_with(']');
            if !array && !matches!(ret.trim(), "f64" | "Option<f64>" | "Result<f64, String>") {
                return None;
            }
        }
    }
    Some(
        h.replace("#[differentiable]\n", "#[differentiable(second_order)]\n")
            .replace(
                "#[differentiable(recursive)]\n",
                "#[differentiable(second_order, recursive)]\n",
            ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn called_functions_reads_whole_names() {
        let calls = called_functions("p1(a) + p12(b) + xp3(c) + gradients_function!(p4)");
        assert_eq!(calls.into_iter().collect::<Vec<_>>(), vec![1, 12]);
    }
}
