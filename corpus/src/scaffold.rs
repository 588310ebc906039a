//! Scaffolding: writes the scratch crates (under the runner's `target/`, never in tracked
//! files). Each measured function gets one module file, so that a compiler error is attributed
//! to the function by the file it points at.
//!
//! - The *plain* crate (`<crate>-plain`) holds, for function `N`, `p{N}.rs`: the function and
//!   what it needs from its module without the attribute, and a call of it as the checks make
//!   it; and `r{N}.rs`: a reference to the published function by its public path. It shows
//!   which functions build outside their crate at all, and which originals are reachable.
//! - The *annotated* crate (`<crate>-ad`) holds `m{N}.rs`: the same items as written with
//!   `#[differentiable]` added, a plain copy in `mod plain` when the original is not reachable,
//!   and the `check` that compares values and gradients (`support.rs`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::extract::{Candidate, Float, Kind, Pass, UnitKind};
use crate::pinned::Pinned;

/// The checking code every scratch crate includes.
const SUPPORT: &str = include_str!("../harness/support.rs");

/// Where the scratch crates of one pinned crate live.
pub struct Scratch {
    /// `target/scratch/<crate>-plain`
    pub plain_dir: PathBuf,
    /// `target/scratch/<crate>-ad`
    pub ad_dir: PathBuf,
}

fn package_name(krate: &str, phase: &str) -> String {
    format!("corpus-{}-{phase}", krate.replace('_', "-"))
}

/// The binary of the annotated scratch crate, once built.
pub fn ad_binary(target_dir: &Path, krate: &str) -> PathBuf {
    target_dir.join("debug").join(package_name(krate, "ad"))
}

impl Scratch {
    /// Creates (or reuses) the two scratch crates of `krate` under `root`.
    pub fn new(root: &Path, repo: &Path, krate: &Pinned, lock: &Path) -> std::io::Result<Self> {
        let s = Scratch {
            plain_dir: root.join(format!("{}-plain", krate.name)),
            ad_dir: root.join(format!("{}-ad", krate.name)),
        };
        for (dir, phase) in [(&s.plain_dir, "plain"), (&s.ad_dir, "ad")] {
            std::fs::create_dir_all(dir.join("src"))?;
            let facade = pathdiff(repo, dir);
            let mut manifest = format!(
                "# Written by autodiff-corpus; not part of the repository.\n[workspace]\n\n[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"{}\"\npublish = false\n\n[dependencies]\nautodiff = {{ path = \"{facade}\" }}\n{}\n",
                package_name(&krate.name, phase),
                if krate.edition == "2015" { "2021" } else { &krate.edition },
                krate.dep_line
            );
            for line in &krate.dep_lines {
                if !line.starts_with("autodiff ") {
                    manifest.push_str(line);
                    manifest.push('\n');
                }
            }
            write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
            if !dir.join("Cargo.lock").exists() {
                std::fs::copy(lock, dir.join("Cargo.lock"))?;
            }
            write_if_changed(&dir.join("src/support.rs"), SUPPORT)?;
        }
        Ok(s)
    }

    /// Writes the plain crate with the given units (`p{N}`, `r{N}` file stems).
    pub fn write_plain(
        &self,
        cands: &[Candidate],
        units: &BTreeSet<String>,
    ) -> std::io::Result<()> {
        let mut main = String::from("#![allow(warnings)]\nextern crate alloc;\nmod support;\n");
        for (id, c) in cands.iter().enumerate() {
            let (p, r) = (format!("p{id}"), format!("r{id}"));
            if units.contains(&p) {
                writeln!(main, "mod {p};").ok();
                write_if_changed(
                    &self.plain_dir.join(format!("src/{p}.rs")),
                    &plain_module(c),
                )?;
            }
            if units.contains(&r) {
                writeln!(main, "mod {r};").ok();
                let path = c.public_path.as_deref().unwrap_or("missing");
                let text = format!(
                    "pub fn probe() {{\n    let _ = ::{path}{};\n}}\n",
                    turbofish(c)
                );
                write_if_changed(&self.plain_dir.join(format!("src/{r}.rs")), &text)?;
            }
        }
        let ids: BTreeSet<usize> = (0..cands.len())
            .filter(|id| units.contains(&format!("p{id}")))
            .collect();
        write_support(&self.plain_dir, cands, &ids, &mut main, false)?;
        main.push_str("fn main() {}\n");
        write_if_changed(&self.plain_dir.join("src/main.rs"), &main)
    }

    /// Writes the annotated crate with the given functions; `original[N]` says whether function
    /// `N`'s published original is reachable (else a plain copy is the reference).
    pub fn write_ad(
        &self,
        cands: &[Candidate],
        ids: &BTreeSet<usize>,
        original: &[bool],
    ) -> std::io::Result<()> {
        let mut main = String::from("#![allow(warnings)]\nextern crate alloc;\nmod support;\n");
        let mut arms = String::new();
        for &id in ids {
            writeln!(main, "mod m{id};").ok();
            writeln!(arms, "        {id} => m{id}::check(seed),").ok();
            write_if_changed(
                &self.ad_dir.join(format!("src/m{id}.rs")),
                &ad_module(&cands[id], original[id]),
            )?;
        }
        write_support(&self.ad_dir, cands, ids, &mut main, true)?;
        write!(
            main,
            "\nfn main() {{\n    let id: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).expect(\"function id\");\n    let seed = 20_261_203 ^ (id as u64).wrapping_mul(0x9E37_79B9);\n    let out = match id {{\n{arms}        _ => \"untested\\t0\\tunknown id\".to_string(),\n    }};\n    println!(\"CORPUS-RESULT\\t{{out}}\");\n}}\n"
        )
        .ok();
        write_if_changed(&self.ad_dir.join("src/main.rs"), &main)
    }
}

/// The support modules the given functions' copies name, each at the crate root as its
/// file is (`mod prec;`): `crate::prec::…` in a copy means what it meant in the crate. In
/// the annotated crate (`annotate`), the module's float functions carry the attribute.
fn write_support(
    dir: &Path,
    cands: &[Candidate],
    ids: &BTreeSet<usize>,
    main: &mut String,
    annotate: bool,
) -> std::io::Result<()> {
    let mut done = BTreeSet::new();
    for &id in ids {
        for (name, text) in &cands[id].support {
            // (the harness's own root modules keep their names)
            if name == "support" || name.starts_with('m') && name[1..].parse::<usize>().is_ok() {
                continue;
            }
            if done.insert(name.clone()) {
                writeln!(main, "#[allow(warnings)]\nmod {name};").ok();
                let text = match annotate {
                    true => crate::extract::annotate_support(text),
                    false => text.clone(),
                };
                write_if_changed(&dir.join(format!("src/{name}.rs")), &text)?;
            }
        }
    }
    Ok(())
}

/// Writes only when the content differs, so that cargo's fingerprints stay valid.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

/// A relative path from `dir` to `repo` (both absolute; `dir` inside `repo`).
fn pathdiff(repo: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(repo).unwrap_or(dir);
    let ups = rel.components().count();
    if ups == 0 {
        ".".into()
    } else {
        vec![".."; ups].join("/")
    }
}

fn turbofish(c: &Candidate) -> &str {
    // The function's own type and const parameters are named; those of the impl are inferred.
    if matches!(c.unit, UnitKind::Free | UnitKind::Inherent(_)) && !impl_generic(c) {
        &c.turbofish
    } else {
        ""
    }
}

fn impl_generic(c: &Candidate) -> bool {
    // The annotated text of a method starts with its impl's header; a generic impl says `impl<`.
    !matches!(c.unit, UnitKind::Free) && c.annotated.contains("impl<")
}

/// The owned Rust type holding an argument of kind `k`.
fn owned(k: &Kind, c: &Candidate) -> String {
    match k {
        Kind::Float(Float::F64) => "f64".into(),
        Kind::Float(Float::F32) => "f32".into(),
        Kind::Int(t) => t.clone(),
        Kind::Bool => "bool".into(),
        Kind::Vec(e) => format!("Vec<{}>", owned(e, c)),
        Kind::Optional(e) => format!("Option<{}>", owned(e, c)),
        Kind::Array(e, n) => format!("[{}; {n}]", owned(e, c)),
        Kind::Tuple(ks) => format!(
            "({})",
            ks.iter().map(|k| owned(k, c) + ",").collect::<String>()
        ),
        Kind::Struct(s) => {
            let fields = &c.structs[s].fields;
            format!(
                "({})",
                fields
                    .iter()
                    .map(|(_, k)| owned(k, c) + ",")
                    .collect::<String>()
            )
        }
    }
}

/// The argument kinds held by the checks: the receiver's fields first, then the parameters.
fn slots(c: &Candidate) -> Vec<(Pass, Kind)> {
    let mut v = Vec::new();
    if let (Some(pass), UnitKind::Inherent(s) | UnitKind::TraitImpl(s)) = (c.receiver, &c.unit) {
        v.push((pass, Kind::Struct(s.clone())));
    }
    v.extend(c.params.iter().map(|p| (p.pass, p.kind.clone())));
    v
}

/// The argument list of a call, reading the held arguments `a`; `prefix` names the copy.
fn call_args(c: &Candidate, prefix: &str) -> String {
    slots(c)
        .iter()
        .enumerate()
        .map(|(i, (pass, kind))| {
            let value = match kind {
                Kind::Struct(s) => format!("{prefix}__corpus_new_{s}(a.{i}.clone())"),
                _ => format!("a.{i}.clone()"),
            };
            match (pass, kind) {
                (Pass::Ref, Kind::Struct(_)) => format!("&{value}"),
                (Pass::Ref, _) => format!("&a.{i}"),
                // (a copy lent to each call: the drawn value is where every call starts)
                (Pass::Mut, _) => format!("&mut a.{i}.clone()"),
                (Pass::Value, _) => value,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The path of the function in a copy (`prefix` is `""` or `plain::`).
fn fn_path(c: &Candidate, prefix: &str) -> String {
    match &c.unit {
        UnitKind::Free => format!("{prefix}{}{}", c.fn_name, turbofish(c)),
        UnitKind::Inherent(s) | UnitKind::TraitImpl(s) => {
            format!("{prefix}{s}::{}{}", c.fn_name, turbofish(c))
        }
    }
}

fn constructors(c: &Candidate, vis: &str) -> String {
    let mut out = String::new();
    for (name, s) in &c.structs {
        let ty = owned(&Kind::Struct(name.clone()), c);
        let body = if s.tuple {
            format!(
                "{name}({})",
                (0..s.fields.len())
                    .map(|i| format!("v.{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            format!(
                "{name} {{ {} }}",
                s.fields
                    .iter()
                    .enumerate()
                    .map(|(i, (f, _))| format!("{f}: v.{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        writeln!(
            out,
            "{vis}fn __corpus_new_{name}(v: {ty}) -> {name} {{\n    {body}\n}}"
        )
        .ok();
    }
    out
}

/// `p{N}.rs`: the plain copy, its constructors, and a call as the checks make it.
fn plain_module(c: &Candidate) -> String {
    let args_ty = args_type(c);
    format!(
        "//! {krate} {file}:{line} `{name}`, without the attribute.\n{uses}\n\n{plain}\n{ctors}\npub(crate) fn touch(a: &{args_ty}) -> Vec<f64> {{\n    crate::support::Flat::flat(&{path}({args}))\n}}\n",
        krate = c.krate,
        file = c.file,
        line = c.line,
        name = c.name,
        uses = c.uses.join("\n"),
        plain = c.plain,
        ctors = constructors(c, "pub(crate) "),
        path = fn_path(c, ""),
        args = call_args(c, ""),
    )
}

fn args_type(c: &Candidate) -> String {
    format!(
        "({})",
        slots(c)
            .iter()
            .map(|(_, k)| owned(k, c) + ",")
            .collect::<String>()
    )
}

fn plain_traits(c: &Candidate) -> Vec<String> {
    syn::parse_file(&c.plain)
        .map(|f| {
            f.items
                .iter()
                .filter_map(|i| match i {
                    syn::Item::Trait(t) => Some(t.ident.to_string()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `m{N}.rs`: the annotated copy and its check.
fn ad_module(c: &Candidate, original: bool) -> String {
    let slots = slots(c);
    let args_ty = args_type(c);
    let args = call_args(c, "");
    let path = fn_path(c, "");
    let reference = if original && matches!(c.unit, UnitKind::Free) {
        format!(
            "::{}{}({})",
            c.public_path.as_deref().unwrap_or_default(),
            turbofish(c),
            args
        )
    } else {
        format!("{}({})", fn_path(c, "plain::"), call_args(c, "plain::"))
    };
    let gradient = if matches!(c.output, Kind::Float(_)) {
        format!("let g = gradients_function!({path})({args});\n            let _ = cot;\n            Flat::flat(&g)")
    } else {
        format!("let (v, pullback) = vjp!({path})({args});\n            let c = Flat::unflat_like(&v, cot);\n            Flat::flat(&pullback(c))")
    };
    let mut get = String::new();
    let mut set = String::new();
    for (i, (_, k)) in slots.iter().enumerate() {
        if k.differentiable() {
            writeln!(get, "            v.extend(Flat::flat(&a.{i}));").ok();
            writeln!(set, "            Flat::set_flat(&mut a.{i}, &mut it);").ok();
        }
    }
    let single = slots.iter().any(|(_, k)| k.differentiable() && k.single()) || c.output.single();
    let plain_mod = if original && matches!(c.unit, UnitKind::Free) {
        String::new()
    } else {
        let traits: String = plain_traits(c)
            .iter()
            .map(|t| format!("#[allow(unused_imports)]\nuse self::plain::{t} as _;\n"))
            .collect();
        format!(
            "\n/// The reference: the same items without the attribute.\nmod plain {{\n{}\n\n{}\n{}}}\n{traits}",
            c.uses.join("\n"),
            c.plain,
            constructors(c, "pub(crate) ")
        )
    };
    format!(
        r#"//! {krate} {file}:{line} `{name}`, as written, with `#[differentiable]` added.
use autodiff::prelude::*;
{uses}

{annotated}

{ctors}{plain_mod}
/// Compares the annotated copy with the reference and with finite differences.
pub(crate) fn check(seed: u64) -> String {{
    use crate::support::{{Flat, Sample}};
    type A = {args_ty};
    crate::support::check::<A>(
        &crate::support::Spec {{
            sample: &|rng, ctx| Sample::sample(rng, ctx),
            primal: &|a: &A| Flat::flat(&{path}({args})),
            reference: &|a: &A| Flat::flat(&{reference}),
            gradient: &|a: &A, cot: &[f64]| {{
            {gradient}
            }},
            get: &|a: &A| {{
            let mut v: Vec<f64> = Vec::new();
{get}            v
            }},
            set: &|a: &mut A, x: &[f64]| {{
            let mut it = x.iter().copied();
{set}            }},
            single: {single},
            program: {program},
        }},
        seed,
    )
}}
"#,
        krate = c.krate,
        file = c.file,
        line = c.line,
        name = c.name,
        uses = c.uses.join("\n"),
        annotated = c.annotated,
        ctors = constructors(c, ""),
        program = crate::program::expression(&c.krate, &c.name)
            .map_or("None".to_string(), |e| format!("Some(&|a: &A| {e})")),
    )
}
