//! `autodiff-corpus`: measures `#[differentiable]` on the float functions of published crates.
//!
//! For each pinned crate (the runner's own dependencies, see `Cargo.toml`): extract the
//! candidate functions from cargo's copy of its sources ([`extract`]), write scratch crates
//! under `target/` ([`scaffold`]), build them, dropping what fails ([`compile`]), check values
//! and gradients ([`check`]), and report ([`report`]).
//!
//! ```text
//! cargo run --release --manifest-path corpus/Cargo.toml                 # all crates, writes CORPUS.md
//! cargo run --release --manifest-path corpus/Cargo.toml -- --crate NAME # one crate, prints only
//! ```
//!
//! Exits non-zero when a gradient or value is wrong or the macro panics; a function that does
//! not compile is a measurement, not a failure.
#![forbid(unsafe_code)]

mod check;
mod compile;
mod extract;
mod imports;
mod parse;
mod pinned;
mod program;
mod report;
mod resolve;
mod scaffold;
mod signature;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use compile::{converge, Mode};
use extract::{Candidate, Skipped};
use report::Row;
use scaffold::Scratch;

/// Command-line options.
struct Options {
    crates: Vec<String>,
    out: Option<PathBuf>,
}

fn options(repo: &Path) -> Result<Options, String> {
    let mut crates = Vec::new();
    let mut out = None;
    let mut explicit_out = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--crate" => crates.push(args.next().ok_or("--crate needs a name")?),
            "--out" => {
                out = Some(PathBuf::from(args.next().ok_or("--out needs a path")?));
                explicit_out = true;
            }
            "-h" | "--help" => {
                println!("usage: autodiff-corpus [--crate NAME]... [--out FILE]\n\nWithout --crate, measures every pinned crate and writes CORPUS.md at the repository root.");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if crates.is_empty() && !explicit_out {
        out = Some(repo.join("CORPUS.md"));
    }
    Ok(Options { crates, out })
}

fn unit_id(stem: &str) -> Option<usize> {
    stem.get(1..)?.parse().ok()
}

/// Measures one crate: rows for its candidates, and what was skipped.
fn measure(
    krate: &pinned::Pinned,
    corpus_dir: &Path,
    repo: &Path,
) -> Result<(Vec<Row>, Vec<Skipped>), String> {
    let started = Instant::now();
    let (cands, mut skipped) = extract::extract(krate);
    eprintln!(
        "{} {}: {} candidates, {} skipped by signature",
        krate.name,
        krate.version,
        cands.len(),
        skipped.len()
    );
    let target = corpus_dir.join("target/scratch-target");
    let scratch = Scratch::new(
        &corpus_dir.join("target/scratch"),
        repo,
        krate,
        &corpus_dir.join("Cargo.lock"),
    )
    .map_err(|e| e.to_string())?;

    // 1. Plain copies and probes of the originals.
    let mut units = BTreeSet::new();
    for (id, c) in cands.iter().enumerate() {
        units.insert(format!("p{id}"));
        if c.public_path.is_some() {
            units.insert(format!("r{id}"));
        }
    }
    let failed = converge(&scratch.plain_dir, &target, Mode::Check, &units, &|u| {
        scratch.write_plain(&cands, u)
    })?;
    let mut original: Vec<bool> = cands.iter().map(|c| c.public_path.is_some()).collect();
    let mut ids: BTreeSet<usize> = (0..cands.len()).collect();
    for (unit, d) in &failed {
        let Some(id) = unit_id(unit) else { continue };
        if unit.starts_with('r') {
            original[id] = false;
        } else if ids.remove(&id) {
            let c: &Candidate = &cands[id];
            skipped.push(Skipped {
                krate: c.krate.clone(),
                name: c.name.clone(),
                file: c.file.clone(),
                line: c.line,
                reason: format!(
                    "does not build outside its crate without the attribute: {}",
                    d.message
                ),
            });
        }
    }
    eprintln!(
        "{}: {} build outside their crate ({:.0} s)",
        krate.name,
        ids.len(),
        started.elapsed().as_secs_f64()
    );

    // 2. Annotated copies: check until the rest passes, then build (errors after type checking).
    let units: BTreeSet<String> = ids.iter().map(|id| format!("m{id}")).collect();
    let write = |u: &BTreeSet<String>| {
        let ids: BTreeSet<usize> = u.iter().filter_map(|s| unit_id(s)).collect();
        scratch.write_ad(&cands, &ids, &original)
    };
    let mut failed = converge(&scratch.ad_dir, &target, Mode::Check, &units, &write)?;
    let live: BTreeSet<String> = units
        .iter()
        .filter(|u| !failed.contains_key(*u))
        .cloned()
        .collect();
    failed.extend(converge(
        &scratch.ad_dir,
        &target,
        Mode::Build,
        &live,
        &write,
    )?);
    eprintln!(
        "{}: {} compile annotated ({:.0} s)",
        krate.name,
        ids.len() - failed.len(),
        started.elapsed().as_secs_f64()
    );

    // 3. Checks.
    let binary = scaffold::ad_binary(&target, &krate.name);
    let rows = ids
        .iter()
        .map(|&id| {
            let c = &cands[id];
            match failed.get(&format!("m{id}")) {
                Some(d) => Row::new(c, Some(d.clone()), None),
                None => Row::new(c, None, Some(check::check(&binary, id))),
            }
        })
        .collect();
    eprintln!(
        "{}: done ({:.0} s)",
        krate.name,
        started.elapsed().as_secs_f64()
    );
    Ok((rows, skipped))
}

fn main() {
    let started = Instant::now();
    let corpus_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let repo = corpus_dir
        .parent()
        .expect("corpus/ lives in the repository")
        .to_path_buf();
    let opts = options(&repo).unwrap_or_else(|e| {
        eprintln!("autodiff-corpus: {e}");
        std::process::exit(2);
    });
    let all = pinned::pinned(&corpus_dir.join("Cargo.toml")).unwrap_or_else(|e| {
        eprintln!("autodiff-corpus: {e}");
        std::process::exit(2);
    });
    for name in &opts.crates {
        if !all.iter().any(|p| &p.name == name) {
            let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
            eprintln!(
                "autodiff-corpus: `{name}` is not pinned; pinned: {}",
                names.join(", ")
            );
            std::process::exit(2);
        }
    }
    let chosen: Vec<&pinned::Pinned> = all
        .iter()
        .filter(|p| opts.crates.is_empty() || opts.crates.contains(&p.name))
        .collect();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for krate in &chosen {
        match measure(krate, &corpus_dir, &repo) {
            Ok((r, s)) => {
                rows.extend(r);
                skipped.extend(s);
            }
            Err(e) => {
                eprintln!("autodiff-corpus: {}: {e}", krate.name);
                std::process::exit(2);
            }
        }
    }
    report::print(&rows, skipped.len());
    let seconds = started.elapsed().as_secs_f64();
    println!("run time: {seconds:.0} s");
    if let Some(out) = &opts.out {
        let meta = report::Meta {
            crates: chosen
                .iter()
                .map(|p| (p.name.clone(), p.version.clone()))
                .collect(),
            seconds,
        };
        if let Err(e) = std::fs::write(out, report::markdown(&rows, &skipped, &meta)) {
            eprintln!("autodiff-corpus: writing {}: {e}", out.display());
            std::process::exit(2);
        }
        println!("wrote {}", out.display());
    }
    let wrong = rows.iter().filter(|r| r.wrong()).count();
    let panics = rows.iter().filter(|r| r.panicked()).count();
    if wrong > 0 || panics > 0 {
        eprintln!("autodiff-corpus: {wrong} wrong gradients or values, {panics} macro panics");
        std::process::exit(1);
    }
}
