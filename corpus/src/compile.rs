//! Building: runs cargo on a scratch crate, reads the compiler's JSON diagnostics, and
//! attributes each error to the unit (module file) it points at. [`converge`] rebuilds
//! without the failing units until the rest builds, so one error never hides another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The first error of a unit.
#[derive(Clone, Debug)]
pub struct Diag {
    /// `error[E0599]: no method named …` (the first line of the message).
    pub message: String,
    /// The line of the error in the unit's file (0 when unknown).
    pub line: usize,
    /// The source line the error points at, trimmed.
    pub source_line: String,
    /// The whole message as rustc renders it.
    pub rendered: String,
}

/// Cargo command to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `cargo check`
    Check,
    /// `cargo build`
    Build,
}

/// The outcome of one cargo run: success, errors by unit, errors attributed to no unit.
struct Run {
    ok: bool,
    by_unit: BTreeMap<String, Diag>,
    loose: Vec<String>,
}

/// The unit (file stem under `src/`) a span belongs to, following macro expansions outward.
fn span_unit(span: &Value) -> Option<(String, usize)> {
    let file = span["file_name"].as_str().unwrap_or_default();
    if let Some(stem) = file
        .strip_prefix("src/")
        .and_then(|f| f.strip_suffix(".rs"))
    {
        if stem != "main" && stem != "support" {
            return Some((
                stem.to_string(),
                span["line_start"].as_u64().unwrap_or(0) as usize,
            ));
        }
    }
    span.get("expansion").and_then(|e| span_unit(&e["span"]))
}

fn run(dir: &Path, target: &Path, mode: Mode) -> Run {
    let sub = match mode {
        Mode::Check => "check",
        Mode::Build => "build",
    };
    let out = Command::new("cargo")
        .args([sub, "--quiet", "--message-format=json"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            return Run {
                ok: false,
                by_unit: BTreeMap::new(),
                loose: vec![format!("cargo: {e}")],
            }
        }
    };
    let mut by_unit = BTreeMap::new();
    let mut loose = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-message" || v["message"]["level"] != "error" {
            continue;
        }
        let msg = &v["message"];
        let rendered = msg["rendered"].as_str().unwrap_or_default().to_string();
        let first = rendered.lines().next().unwrap_or_default().to_string();
        let spans = msg["spans"].as_array().cloned().unwrap_or_default();
        let unit = spans
            .iter()
            .filter(|s| s["is_primary"] == Value::Bool(true))
            .chain(spans.iter())
            .find_map(span_unit);
        match unit {
            Some((u, line)) => {
                let file = dir.join("src").join(format!("{u}.rs"));
                let source_line = std::fs::read_to_string(file)
                    .ok()
                    .and_then(|t| {
                        t.lines()
                            .nth(line.saturating_sub(1))
                            .map(|l| l.trim().to_string())
                    })
                    .unwrap_or_default();
                by_unit.entry(u).or_insert(Diag {
                    message: first,
                    line,
                    source_line,
                    rendered,
                });
            }
            None if !first.starts_with("error: aborting")
                && !first.contains("could not compile") =>
            {
                loose.push(rendered)
            }
            None => {}
        }
    }
    if !out.status.success() && by_unit.is_empty() && loose.is_empty() {
        loose.push(
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    Run {
        ok: out.status.success(),
        by_unit,
        loose,
    }
}

/// Builds the crate in `dir` with the units `units`, written by `write`, dropping the units
/// that fail until the rest builds. Returns the first error of every dropped unit.
pub fn converge(
    dir: &Path,
    target: &Path,
    mode: Mode,
    units: &BTreeSet<String>,
    write: &dyn Fn(&BTreeSet<String>) -> std::io::Result<()>,
) -> Result<BTreeMap<String, Diag>, String> {
    let mut live = units.clone();
    let mut failed = BTreeMap::new();
    for _round in 0..50 {
        write(&live).map_err(|e| e.to_string())?;
        let r = run(dir, target, mode);
        if r.ok {
            return Ok(failed);
        }
        let mut dropped = false;
        for (u, d) in r.by_unit {
            if live.remove(&u) {
                failed.insert(u, d);
                dropped = true;
            }
        }
        if !dropped {
            // Errors that name no unit: find the units that cause them one at a time.
            if live.is_empty() {
                return Err(format!(
                    "the scratch crate does not build without any function:\n{}",
                    r.loose.join("\n")
                ));
            }
            let alone = isolate(dir, target, mode, &live, write)?;
            if alone.is_empty() {
                return Err(format!(
                    "errors attributed to no function:\n{}",
                    r.loose.join("\n")
                ));
            }
            for (u, d) in alone {
                live.remove(&u);
                failed.insert(u, d);
            }
        }
    }
    Err("no convergence after 50 rounds".into())
}

/// Builds each unit alone; the units that fail, with the first loose error as their diagnostic.
fn isolate(
    dir: &Path,
    target: &Path,
    mode: Mode,
    live: &BTreeSet<String>,
    write: &dyn Fn(&BTreeSet<String>) -> std::io::Result<()>,
) -> Result<BTreeMap<String, Diag>, String> {
    let mut failed = BTreeMap::new();
    for u in live {
        write(&BTreeSet::from([u.clone()])).map_err(|e| e.to_string())?;
        let r = run(dir, target, mode);
        if !r.ok {
            let d = r.by_unit.into_values().next().unwrap_or_else(|| {
                let rendered = r.loose.join("\n");
                Diag {
                    message: rendered.lines().next().unwrap_or_default().to_string(),
                    line: 0,
                    source_line: String::new(),
                    rendered,
                }
            });
            failed.insert(u.clone(), d);
        }
    }
    Ok(failed)
}
