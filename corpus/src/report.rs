//! Reporting: one row per measured function, the error categories of the macro's open work,
//! totals, and the Markdown written to `CORPUS.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::check::Verdict;
use crate::compile::Diag;
use crate::extract::{Candidate, Skipped, UnitKind};

/// What became of one measured function.
#[derive(Clone, Debug)]
pub struct Row {
    /// The crate.
    pub krate: String,
    /// The item, e.g. `gamma` or `<Normal as Continuous<f64, f64>>::pdf`.
    pub item: String,
    /// `src/gamma.rs:42`
    pub place: String,
    /// The first error when the annotated copy does not compile.
    pub error: Option<Diag>,
    /// The check's verdict when it compiles.
    pub verdict: Option<Verdict>,
    /// The category of the error.
    pub category: Option<&'static str>,
}

impl Row {
    /// A row for a candidate.
    pub fn new(c: &Candidate, error: Option<Diag>, verdict: Option<Verdict>) -> Self {
        let category = error.as_ref().map(|d| categorize(c, d));
        Row {
            krate: c.krate.clone(),
            item: c.name.clone(),
            place: format!("{}:{}", c.file, c.line),
            error,
            verdict,
            category,
        }
    }
    /// The macro panicked on this function.
    pub fn panicked(&self) -> bool {
        self.category == Some(PANIC)
    }
    /// The annotated copy compiles.
    pub fn compiles(&self) -> bool {
        self.error.is_none()
    }
    /// The check found a wrong value or gradient.
    pub fn wrong(&self) -> bool {
        matches!(self.verdict, Some(Verdict::Wrong(_)))
    }
    /// Value and gradient checked and correct.
    pub fn correct(&self) -> bool {
        matches!(
            self.verdict,
            Some(Verdict::Correct { .. } | Verdict::Program { .. })
        )
    }
}

const PANIC: &str = "macro panic";

/// The categories: those of the open issue in its order, then the others met in the corpus.
pub const CATEGORIES: [&str; 23] = [
    PANIC,
    "from_f64 ambiguity",
    "destructuring",
    "iterator chains",
    "closures",
    "recursion",
    "trait impl methods",
    "Option/Result",
    "queries",
    "plain-struct parameter",
    "consts/statics",
    "call outside the module",
    "method that is not a primitive",
    "writes outside `let mut` locals",
    "`let` without a value",
    "gradient helper (`gradients_function!`/`vjp!`)",
    "array literals",
    "nested indexing",
    "generic bounds other than `Float`",
    "type error in generated code",
    "borrowed result",
    "float into a converted parameter",
    "other",
];

fn has(s: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| s.contains(n))
}

/// Classifies an error by its message (first line), then by the source line it points at.
pub fn categorize(c: &Candidate, d: &Diag) -> &'static str {
    let all = d.rendered.to_lowercase();
    let msg = d.message.to_lowercase();
    let line = d.source_line.as_str();
    if all.contains("proc macro panicked") || all.contains("proc-macro derive panicked") {
        return PANIC;
    }
    // (before the checks by word: the message speaks of "the result")
    if msg.contains("cannot tell whether") {
        return "generic bounds other than `Float`";
    }
    if msg.contains("e0034") {
        return "from_f64 ambiguity";
    }
    if msg.contains("e0720") || msg.contains("recursi") {
        return "recursion";
    }
    if line.contains("gradients_function!") || line.contains("vjp!(") {
        return "gradient helper (`gradients_function!`/`vjp!`)";
    }
    if has(&msg, &["destructur", "pattern"]) {
        return "destructuring";
    }
    if msg.contains("deep in a local `vec` of `vec`s") {
        return "nested indexing";
    }
    if msg.contains("without a value") {
        return "`let` without a value";
    }
    if msg.contains("cannot return a reference") {
        return "borrowed result";
    }
    if msg.contains("handed to a parameter that `#[differentiable]` treats as a constant") {
        return "float into a converted parameter";
    }
    if msg.contains("only local variables declared with `let mut`") {
        return "writes outside `let mut` locals";
    }
    if msg.contains("`impl trait` parameters") {
        return "`impl Trait` parameter";
    }
    if msg.contains("closure") {
        return "closures";
    }
    const ITER: [&str; 16] = [
        "iterator",
        "method `iter`",
        "method `into_iter`",
        "method `map`",
        "method `fold`",
        "method `sum`",
        "method `zip`",
        "method `rev`",
        "method `windows`",
        "method `copied`",
        "method `product`",
        "method `enumerate`",
        "method `skip`",
        "method `max_by`",
        "method `min_by`",
        "method `take`",
    ];
    if has(&msg, &ITER) {
        return "iterator chains";
    }
    // ("… this method: it has no derivative rule, and its result …" names no `Result`)
    if has(
        &msg,
        &[
            "cannot differentiate through the method",
            "cannot differentiate through this method",
        ],
    ) {
        return "method that is not a primitive";
    }
    if has(&msg, &["option", "result", "`?`", "unwrap", "`expect`"]) {
        return "Option/Result";
    }
    if has(
        &msg,
        &[
            "method `len`",
            "method `nrows`",
            "method `ncols`",
            "method `is_empty`",
            "method `count`",
            "method `shape`",
        ],
    ) {
        return "queries";
    }
    if has(
        &msg,
        &[
            "cannot differentiate through the function",
            "cannot differentiate through this function",
            "e0433",
            "e0425",
            "not a differentiable function",
        ],
    ) {
        return "call outside the module";
    }
    if has(&msg, &["const", "static"]) || has(line, &["consts::"]) {
        return "consts/statics";
    }
    if has(
        line,
        &[
            ".iter()",
            ".map(",
            ".fold(",
            ".sum()",
            ".sum::<",
            ".zip(",
            ".windows(",
            ".product(",
        ],
    ) {
        return "iterator chains";
    }
    if line.contains('|') && !line.contains("||") {
        return "closures";
    }
    if has(
        line,
        &["?;", "?)", ".unwrap(", ".expect(", "Some(", "Ok(", "Err("],
    ) {
        return "Option/Result";
    }
    if msg.contains("is not a differentiable type")
        || !c.structs.is_empty() && has(&msg, &["struct", "self", "`differentiable`"])
    {
        return "plain-struct parameter";
    }
    if msg.contains("indexing is supported on") {
        // A coefficient table (`COEFFS[i]`) or an element of an element (`m[0][1]`).
        let table = line
            .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .any(|w| {
                w.len() > 1
                    && w.chars()
                        .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_')
            });
        return if table {
            "consts/statics"
        } else {
            "nested indexing"
        };
    }
    if msg.contains("this expression is not supported") && line.starts_with('[') {
        return "array literals";
    }
    if msg.contains("e0277") && msg.contains(": real` is not satisfied") {
        return "generic bounds other than `Float`";
    }
    if matches!(c.unit, UnitKind::TraitImpl(_)) {
        return "trait impl methods";
    }
    if has(
        &msg,
        &[
            "e0308", "e0277", "e0599", "e0061", "e0282", "e0369", "e0614", "e0608",
        ],
    ) {
        return "type error in generated code";
    }
    "other"
}

fn cell(s: &str) -> String {
    let s = s.replace('|', "\\|").replace('\n', " ");
    let s: String = s.chars().take(150).collect();
    s.trim().to_string()
}

/// Totals of a set of rows.
#[derive(Default)]
struct Totals {
    extracted: usize,
    compiles: usize,
    correct: usize,
    wrong: usize,
    untested: usize,
    panics: usize,
}

fn totals<'a>(rows: impl Iterator<Item = &'a Row>) -> Totals {
    let mut t = Totals::default();
    for r in rows {
        t.extracted += 1;
        t.compiles += usize::from(r.compiles());
        t.correct += usize::from(r.correct());
        t.wrong += usize::from(r.wrong());
        t.untested += usize::from(matches!(r.verdict, Some(Verdict::Untested(_))));
        t.panics += usize::from(r.panicked());
    }
    t
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "–".into()
    } else {
        format!("{:.0} %", 100.0 * a as f64 / b as f64)
    }
}

/// The crates measured with their versions, for the report's header.
pub struct Meta {
    /// (crate, version)
    pub crates: Vec<(String, String)>,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
}

/// The whole report as Markdown.
pub fn markdown(rows: &[Row], skipped: &[Skipped], meta: &Meta) -> String {
    let mut out = String::new();
    let all = totals(rows.iter());
    writeln!(out, "# Corpus: `#[differentiable]` on published code\n").ok();
    writeln!(
        out,
        "Every free function, inherent method and trait-impl method of the crates below whose parameters and \
result are floats (or float `Vec`s, slices, arrays and tuples of these; integer, `bool` and plain-struct \
parameters are constants) is copied from cargo's registry cache into a scratch crate with `#[differentiable]` \
added and nothing else changed (helpers of its module annotated too; the functions, constants and statics it \
reaches in other modules of the crate are copied along in the same module layout, functions with float parameters \
annotated, and only `use` declarations and paths through the module tree (`super::…`, `crate::…`) are pointed at the copies; a top-level module that names nothing else of \
its crate, such as one defining the crate's macros, is copied whole as its file is), built against this \
repository, and checked: its value against the published function (or a plain copy when the original is \
private), its gradient (`gradients_function!`, or `vjp!` for non-scalar results) against central finite \
differences at random points where two step sizes agree. Functions whose plain copy does not build outside \
their crate are listed as skipped. Produced by `cargo run --release --manifest-path corpus/Cargo.toml` ({:.0} s).\n\n\
One function is checked against another truth, said in its row: statrs `inv_digamma` starts from `exp(x)` \
and bisects with steps `i * signum(…)`, whose derivative is zero, so the derivative of the program as written \
is `exp(x)` — what the macro returns, and what any automatic differentiation returns — while finite \
differences see the slope of the function the bisection approximates. Its gradient is compared, to rounding, \
with that program derivative derived by hand from the published source (`corpus/src/program.rs`); a user who \
wants the approximated function's derivative gives it a rule (`#[differentiable(vjp = …)]`, the implicit \
function theorem: `1 / trigamma(y)`).\n",
        meta.seconds
    )
    .ok();
    writeln!(out, "## Totals\n").ok();
    writeln!(
        out,
        "| crate | version | extracted | compile | correct | wrong | untested | macro panics |"
    )
    .ok();
    writeln!(
        out,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    .ok();
    for (k, v) in &meta.crates {
        let t = totals(rows.iter().filter(|r| &r.krate == k));
        writeln!(
            out,
            "| {k} | {v} | {} | {} ({}) | {} | {} | {} | {} |",
            t.extracted,
            t.compiles,
            pct(t.compiles, t.extracted),
            t.correct,
            t.wrong,
            t.untested,
            t.panics
        )
        .ok();
    }
    writeln!(
        out,
        "| **all** | | **{}** | **{} ({})** | **{}** | **{}** | **{}** | **{}** |\n",
        all.extracted,
        all.compiles,
        pct(all.compiles, all.extracted),
        all.correct,
        all.wrong,
        all.untested,
        all.panics
    )
    .ok();
    writeln!(out, "## Why functions do not compile\n").ok();
    writeln!(out, "| category | functions |").ok();
    writeln!(out, "| --- | ---: |").ok();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        if let Some(c) = r.category {
            *counts.entry(c).or_default() += 1;
        }
    }
    let mut ordered: Vec<(&str, usize)> = counts.into_iter().collect();
    ordered.sort_by_key(|&(c, n)| {
        (
            std::cmp::Reverse(n),
            CATEGORIES.iter().position(|x| *x == c),
        )
    });
    for (c, n) in ordered {
        writeln!(out, "| {c} | {n} |").ok();
    }
    writeln!(out, "\n## Functions\n").ok();
    writeln!(
        out,
        "| crate | item | place | compiles | gradient | category | first error |"
    )
    .ok();
    writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |").ok();
    for r in rows {
        let gradient = match &r.verdict {
            None => "–".to_string(),
            Some(Verdict::Correct { points }) => format!("correct ({points} pts)"),
            Some(Verdict::Program { points }) => format!(
                "correct ({points} pts) against the program's own derivative: {}",
                cell(crate::program::why(&r.krate, &r.item).unwrap_or(""))
            ),
            Some(Verdict::Wrong(d)) => format!("**WRONG**: {}", cell(d)),
            Some(Verdict::Untested(d)) => format!("untested: {}", cell(d)),
        };
        let error = r
            .error
            .as_ref()
            .map(|d| {
                if d.source_line.is_empty() {
                    cell(&d.message)
                } else {
                    format!(
                        "{} — line {}: `{}`",
                        cell(&d.message),
                        d.line,
                        cell(&d.source_line).replace('`', "'")
                    )
                }
            })
            .unwrap_or_default();
        writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} | {} |",
            r.krate,
            cell(&r.item),
            r.place,
            if r.compiles() { "yes" } else { "no" },
            gradient,
            r.category.unwrap_or(""),
            error
        )
        .ok();
    }
    writeln!(out, "\n## Skipped ({})\n", skipped.len()).ok();
    writeln!(out, "Not counted above: signatures outside the measured kinds, and functions whose plain copy does not build outside their crate.\n").ok();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for s in skipped {
        *reasons.entry(reason_class(&s.reason)).or_default() += 1;
    }
    writeln!(out, "| reason | items |\n| --- | ---: |").ok();
    for (r, n) in &reasons {
        writeln!(out, "| {} | {n} |", cell(r)).ok();
    }
    writeln!(out, "\n<details><summary>Every skipped item</summary>\n").ok();
    writeln!(
        out,
        "| crate | item | place | reason |\n| --- | --- | --- | --- |"
    )
    .ok();
    for s in skipped {
        writeln!(
            out,
            "| {} | `{}` | {}:{} | {} |",
            s.krate,
            cell(&s.name),
            s.file,
            s.line,
            cell(&s.reason)
        )
        .ok();
    }
    writeln!(out, "\n</details>").ok();
    out
}

/// The reason of a skip without its details, for the summary.
fn reason_class(r: &str) -> String {
    let r = r.split(": ").next().unwrap_or(r);
    // Names between backquotes vary from item to item: keep the shape of the reason.
    r.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { "`…`" } else { part })
        .collect::<String>()
        .trim()
        .to_string()
}

/// One line per function for the terminal, then the totals.
pub fn print(rows: &[Row], skipped: usize) {
    for r in rows {
        let status = match (&r.error, &r.verdict) {
            (Some(d), _) => format!("ERROR [{}] {}", r.category.unwrap_or(""), d.message),
            (None, Some(Verdict::Correct { points })) => format!("correct ({points} points)"),
            (None, Some(Verdict::Program { points })) => {
                format!("correct ({points} points) against the program's own derivative")
            }
            (None, Some(Verdict::Wrong(d))) => format!("WRONG {d}"),
            (None, Some(Verdict::Untested(d))) => format!("untested: {d}"),
            (None, None) => "compiles".into(),
        };
        println!("{:<22} {:<50} {status}", r.krate, r.item);
    }
    let t = totals(rows.iter());
    println!(
        "\n{} extracted ({} skipped): {} compile ({}), {} correct, {} wrong, {} untested, {} macro panics",
        t.extracted,
        skipped,
        t.compiles,
        pct(t.compiles, t.extracted),
        t.correct,
        t.wrong,
        t.untested,
        t.panics
    );
    // The guarantees as a test summary: a checked function passes, a wrong one or a macro
    // panic fails, the rest (not compiling, no smooth point) is skipped.
    let failed = t.wrong + t.panics;
    println!(
        "corpus: {} passed, {failed} failed, {} skipped",
        t.correct,
        t.extracted - t.correct - failed
    );
}
