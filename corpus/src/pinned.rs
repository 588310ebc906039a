//! The pinned crates: read from the runner's own manifest through `cargo metadata`, which also
//! says where cargo keeps each crate's sources and what each crate depends on.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The runner's own tools among its dependencies; every other dependency is measured.
const TOOLS: [&str; 5] = ["syn", "proc-macro2", "quote", "prettyplease", "serde_json"];

/// A measured crate.
#[derive(Clone, Debug)]
pub struct Pinned {
    /// Package name.
    pub name: String,
    /// Exact version.
    pub version: String,
    /// The directory of its sources in cargo's registry cache.
    pub src_dir: PathBuf,
    /// Its Rust edition.
    pub edition: String,
    /// Its line in a scratch crate's `[dependencies]` (same features as the runner's).
    pub dep_line: String,
    /// Lines for its own normal dependencies, so that copied `use` items resolve.
    pub dep_lines: Vec<String>,
}

fn dep_line(dep: &Value, name_override: Option<&str>) -> String {
    let name = dep["name"].as_str().unwrap_or_default();
    let key = dep["rename"].as_str().or(name_override).unwrap_or(name);
    let features: Vec<String> = dep["features"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(|v| v.as_str())
                .map(|s| format!("\"{s}\""))
                .collect()
        })
        .unwrap_or_default();
    let mut line = format!(
        "{key} = {{ package = \"{name}\", version = \"{}\"",
        dep["req"].as_str().unwrap_or("*")
    );
    if dep["uses_default_features"] == Value::Bool(false) {
        line.push_str(", default-features = false");
    }
    if !features.is_empty() {
        line.push_str(&format!(", features = [{}]", features.join(", ")));
    }
    line.push_str(" }");
    line
}

/// The pinned crates of the manifest at `manifest`, in the manifest's order.
pub fn pinned(manifest: &Path) -> Result<Vec<Pinned>, String> {
    let out = Command::new("cargo")
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let packages = meta["packages"].as_array().ok_or("no packages")?;
    let root = packages
        .iter()
        .find(|p| p["name"] == "autodiff-corpus")
        .ok_or("the runner's package is not in the metadata")?;
    let mut result = Vec::new();
    for dep in root["dependencies"].as_array().into_iter().flatten() {
        let name = dep["name"].as_str().unwrap_or_default();
        if TOOLS.contains(&name) || dep["kind"] != Value::Null {
            continue;
        }
        let req = dep["req"].as_str().unwrap_or_default();
        let version = req.trim_start_matches('=').to_string();
        let pkg = packages
            .iter()
            .find(|p| p["name"] == name && p["version"] == version.as_str())
            .ok_or_else(|| format!("{name} {version} is not in the metadata"))?;
        let manifest_path = PathBuf::from(pkg["manifest_path"].as_str().unwrap_or_default());
        let src_dir = manifest_path
            .parent()
            .ok_or("manifest without directory")?
            .to_path_buf();
        let dep_lines = pkg["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"] == Value::Null && d["optional"] == Value::Bool(false))
            .map(|d| dep_line(d, None))
            .collect();
        result.push(Pinned {
            name: name.to_string(),
            version,
            src_dir,
            edition: pkg["edition"].as_str().unwrap_or("2021").to_string(),
            dep_line: dep_line(dep, Some(&name.replace('-', "_"))),
            dep_lines,
        });
    }
    Ok(result)
}
