//! Imports: a module's `use` declarations as absolute one-leaf paths ([`Leaf`]), with private
//! items of the crate marked for copying and paths through private modules redirected to
//! public re-exports.

use std::collections::BTreeSet;

use crate::parse::{is_test_cfg, item_name, item_public, Module};
use crate::pinned::Pinned;

/// One leaf of a module's `use` declarations, with its path made absolute.
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    /// The name it binds, or `*`.
    pub(crate) name: String,
    /// Its text as an absolute `use` of the published crate (empty for an item of a private
    /// module brought in by a glob: it can only be copied).
    pub(crate) text: String,
    /// The module index and item name it imports when that item is private to the crate.
    pub(crate) private: Option<(usize, String)>,
    /// The module (index) the declaration is written in and its path as written, bound name
    /// included (for a glob: the module's path), to resolve it inside the crate.
    pub(crate) origin: Option<(usize, Vec<String>)>,
}

/// The leaves of a use tree: (path, bound name or `*`, rename).
pub(crate) fn walk(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, String, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut pre = prefix;
            pre.push(p.ident.to_string());
            walk(&p.tree, pre, out);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                let last = prefix.last().cloned().unwrap_or_default();
                out.push((prefix, last, None));
            } else {
                let mut p = prefix;
                p.push(name.clone());
                out.push((p, name, None));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix;
            if r.ident != "self" {
                p.push(r.ident.to_string());
            }
            out.push((p, r.rename.to_string(), Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix, "*".into(), None)),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix.clone(), out)),
    }
}

/// Where a `pub use` of a public module re-exports the item `name` (a path under the crate).
pub(crate) fn public_reexport(name: &str, modules: &[Module]) -> Option<Vec<String>> {
    for md in modules.iter().filter(|md| md.public) {
        for item in &md.items {
            let syn::Item::Use(u) = item else { continue };
            if !matches!(u.vis, syn::Visibility::Public(_)) {
                continue;
            }
            let mut raw = Vec::new();
            walk(&u.tree, Vec::new(), &mut raw);
            for (path, bound, _) in raw {
                let found = if bound == "*" {
                    // A glob of a module of the crate, matched by its last segment.
                    path.last().is_some_and(|last| {
                        modules.iter().any(|t| {
                            t.path.last() == Some(last)
                                && t.items
                                    .iter()
                                    .any(|i| item_name(i).as_deref() == Some(name))
                        })
                    })
                } else {
                    bound == name
                };
                if found {
                    return Some(md.path.iter().cloned().chain([name.to_string()]).collect());
                }
            }
        }
    }
    None
}

/// The leaves of a module without its globs of private modules (no cycles).
pub(crate) fn use_leaves_flat(krate: &Pinned, m: &Module, modules: &[Module]) -> Vec<Leaf> {
    use_leaves_depth(krate, m, modules, false)
}

pub(crate) fn use_leaves(krate: &Pinned, m: &Module, modules: &[Module]) -> Vec<Leaf> {
    use_leaves_depth(krate, m, modules, true)
}

pub(crate) fn use_leaves_depth(
    krate: &Pinned,
    m: &Module,
    modules: &[Module],
    expand: bool,
) -> Vec<Leaf> {
    let lib = krate.name.replace('-', "_");
    // Edition 2015: a `use` path starts at the crate's root.
    let edition2015 = krate.edition == "2015";
    let root_children = modules
        .first()
        .map(|r| r.children.clone())
        .unwrap_or_default();
    let externs: BTreeSet<String> = modules
        .first()
        .into_iter()
        .flat_map(|r| &r.items)
        .filter_map(|i| match i {
            syn::Item::ExternCrate(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect();
    let here = modules.iter().position(|x| std::ptr::eq(x, m));
    let mut leaves = Vec::new();
    for item in &m.items {
        let syn::Item::Use(u) = item else { continue };
        if is_test_cfg(&u.attrs) {
            continue;
        }
        let mut raw = Vec::new();
        walk(&u.tree, Vec::new(), &mut raw);
        for (path, name, rename) in raw {
            let Some(first) = path.first() else { continue };
            let raw_path = path.clone();
            let abs: Vec<String> = match first.as_str() {
                "crate" => std::iter::once(lib.clone())
                    .chain(path[1..].iter().cloned())
                    .collect(),
                "self" => std::iter::once(lib.clone())
                    .chain(m.path.iter().cloned())
                    .chain(path[1..].iter().cloned())
                    .collect(),
                "super" => {
                    let mut base = m.path.clone();
                    let mut rest = &path[..];
                    while rest.first().map(String::as_str) == Some("super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    std::iter::once(lib.clone())
                        .chain(base)
                        .chain(rest.iter().cloned())
                        .collect()
                }
                f if edition2015 && root_children.contains(f) => std::iter::once(lib.clone())
                    .chain(path.iter().cloned())
                    .collect(),
                f if m.children.contains(f)
                    || m.items.iter().any(|i| item_name(i).as_deref() == Some(f)) =>
                {
                    std::iter::once(lib.clone())
                        .chain(m.path.iter().cloned())
                        .chain(path.iter().cloned())
                        .collect()
                }
                _ => path.clone(),
            };
            // `crate::alloc::…` after `extern crate alloc;` at the root.
            let abs = if abs.first() == Some(&lib) && abs.len() > 1 && externs.contains(&abs[1]) {
                abs[1..].to_vec()
            } else {
                abs
            };
            // An item private to the crate is copied rather than imported.
            let private = (abs.first() == Some(&lib) && name != "*")
                .then(|| {
                    let (md, last) = (&abs[1..abs.len() - 1], abs.last()?);
                    let idx = modules.iter().position(|x| x.path[..] == *md)?;
                    let item = modules[idx]
                        .items
                        .iter()
                        .find(|i| item_name(i).as_deref() == Some(last.as_str()))?;
                    let copyable = matches!(
                        item,
                        syn::Item::Fn(_)
                            | syn::Item::Const(_)
                            | syn::Item::Static(_)
                            | syn::Item::Macro(_)
                    );
                    (copyable && (!modules[idx].public || !item_public(item)))
                        .then(|| (idx, last.clone()))
                })
                .flatten();
            // A path through a private module of the crate cannot be followed from outside:
            // the item is looked for among the re-exports of public modules (else at the root).
            let through_private = abs.first() == Some(&lib)
                && (1..abs.len()).any(|k| {
                    modules
                        .iter()
                        .any(|md| md.path[..] == abs[1..=k] && !md.public)
                });
            // A glob of a private module: its imports, and its items to copy where used.
            if through_private && name == "*" && !expand {
                continue;
            }
            if through_private && name == "*" {
                if let Some(idx) = modules.iter().position(|md| md.path[..] == abs[1..]) {
                    if idx
                        != modules
                            .iter()
                            .position(|md| std::ptr::eq(md, m))
                            .unwrap_or(usize::MAX)
                    {
                        let inner = use_leaves_flat(krate, &modules[idx], modules);
                        leaves.extend(inner);
                        for item in &modules[idx].items {
                            let copyable = matches!(
                                item,
                                syn::Item::Fn(_)
                                    | syn::Item::Const(_)
                                    | syn::Item::Static(_)
                                    | syn::Item::Macro(_)
                            );
                            if let (true, Some(n)) = (copyable, item_name(item)) {
                                leaves.push(Leaf {
                                    name: n.clone(),
                                    text: String::new(),
                                    private: Some((idx, n)),
                                    origin: None,
                                });
                            }
                        }
                        continue;
                    }
                }
            }
            let abs = if through_private {
                let last = abs.last().cloned().unwrap_or_default();
                match public_reexport(&last, modules) {
                    _ if name == "*" => vec![lib.clone()],
                    Some(p) => std::iter::once(lib.clone()).chain(p).collect(),
                    None => vec![lib.clone(), last],
                }
            } else {
                abs
            };
            let joined = abs.join("::");
            let text = match (name.as_str(), rename) {
                ("*", _) => format!("use ::{joined}::*;"),
                (_, Some(r)) => format!("use ::{joined} as {r};"),
                _ => format!("use ::{joined};"),
            };
            leaves.push(Leaf {
                name,
                text,
                private,
                origin: here.map(|h| (h, raw_path)),
            });
        }
    }
    leaves
}
