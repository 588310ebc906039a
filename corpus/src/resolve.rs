//! Helper resolution across modules: the paths a copied item names (`erf::erfc(x)` after
//! `use crate::function::erf;`, `sign(a, b)` after `use crate::utils::sign;`, `super::f`,
//! `crate::a::b::f`, re-exports and globs followed) are resolved to the items of the crate they
//! denote, and those items are copied too, transitively, into an *image* of the crate: a module
//! `__crate` nested in the scratch module that recreates the modules they come from, so that the
//! copied functions' bodies, unchanged, find what they name. Only `use` declarations are
//! rewritten (to point into the image) and visibilities opened to `pub(crate)`.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use crate::imports::{walk, Leaf};
use crate::parse::{idents, is_test_cfg, item_attrs, item_name, item_text, offset, Module, OpenUp};

/// What a path denotes inside the crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A module, by index.
    Module(usize),
    /// A named item of a module (for `Type::assoc`, the type).
    Item(usize, String),
}

/// Resolves paths inside one crate's module tree.
pub(crate) struct Resolver<'a> {
    modules: &'a [Module],
    edition2015: bool,
    /// Per module: its `use` leaves as written (path, bound name or `*`).
    leaves: Vec<Vec<(Vec<String>, String)>>,
    by_path: BTreeMap<Vec<String>, usize>,
    /// Memo of `member` (nothing is stored first, so that cycles end).
    memo: RefCell<BTreeMap<(usize, String), Vec<Target>>>,
    /// The top-level modules that can be copied whole, as their files are, to the scratch
    /// crate's root (see [`Resolver::support`]), by name.
    support: BTreeMap<String, usize>,
}

impl<'a> Resolver<'a> {
    /// Indexes the crate's modules.
    pub(crate) fn new(modules: &'a [Module], edition2015: bool) -> Self {
        let leaves = modules
            .iter()
            .map(|m| {
                let mut out = Vec::new();
                for item in &m.items {
                    let syn::Item::Use(u) = item else { continue };
                    if is_test_cfg(&u.attrs) {
                        continue;
                    }
                    let mut raw = Vec::new();
                    walk(&u.tree, Vec::new(), &mut raw);
                    out.extend(raw.into_iter().map(|(p, bound, _)| (p, bound)));
                }
                out
            })
            .collect();
        let by_path = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.path.clone(), i))
            .collect();
        let support = modules
            .iter()
            .enumerate()
            .filter(|(_, m)| m.path.len() == 1 && self_contained(modules, m))
            .map(|(i, m)| (m.path[0].clone(), i))
            .collect();
        Resolver {
            modules,
            edition2015,
            leaves,
            by_path,
            memo: RefCell::new(BTreeMap::new()),
            support,
        }
    }

    /// A top-level module of the crate that names nothing of the crate outside itself
    /// (`crate::prec::…` inside `prec`, external crates, the standard library) and whose
    /// child modules are written inline: a copy of its file at the scratch crate's root is
    /// the same module, so that copied items may name it as `crate::prec::…` — macros
    /// included (`crate::prec::ulps_eq!(…)`), which the image cannot copy one by one.
    pub(crate) fn support(&self, name: &str) -> Option<(&str, &str)> {
        let &m = self.support.get(name)?;
        Some((
            self.modules[m].path[0].as_str(),
            self.modules[m].text.as_str(),
        ))
    }

    fn parent(&self, m: usize) -> Option<usize> {
        let p = &self.modules[m].path;
        if p.is_empty() {
            return None;
        }
        self.by_path.get(&p[..p.len() - 1]).copied()
    }

    /// What the name `seg` denotes in module `m` (both namespaces: `use crate::dawson;` may
    /// import a module and a re-exported function): items, a child module, imports, globs.
    fn member(&self, m: usize, seg: &str, depth: usize) -> Vec<Target> {
        if depth > 24 {
            return Vec::new();
        }
        let key = (m, seg.to_string());
        if let Some(t) = self.memo.borrow().get(&key) {
            return t.clone();
        }
        self.memo.borrow_mut().insert(key.clone(), Vec::new());
        let found = self.member_uncached(m, seg, depth);
        self.memo.borrow_mut().insert(key, found.clone());
        found
    }

    fn member_uncached(&self, m: usize, seg: &str, depth: usize) -> Vec<Target> {
        let md = &self.modules[m];
        let mut out = Vec::new();
        let add = |t: Target, out: &mut Vec<Target>| {
            if !out.contains(&t) {
                out.push(t);
            }
        };
        let is_item = md.items.iter().any(|i| {
            !matches!(i, syn::Item::Macro(_))
                && !is_test_cfg(item_attrs(i))
                && item_name(i).as_deref() == Some(seg)
        });
        if is_item {
            add(Target::Item(m, seg.to_string()), &mut out);
        }
        if md.children.contains(seg) {
            let mut p = md.path.clone();
            p.push(seg.to_string());
            if let Some(&c) = self.by_path.get(&p) {
                add(Target::Module(c), &mut out);
            }
        }
        for (path, bound) in &self.leaves[m] {
            if bound == seg {
                for t in self.resolve_use_all(m, path, depth + 1) {
                    add(t, &mut out);
                }
            }
        }
        if out.is_empty() {
            for (path, bound) in &self.leaves[m] {
                if bound != "*" {
                    continue;
                }
                for g in self.resolve_use_all(m, path, depth + 1) {
                    if let Target::Module(g) = g {
                        if g != m {
                            for t in self.member(g, seg, depth + 1) {
                                add(t, &mut out);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// A `use` path written in module `m`: everything it imports.
    pub(crate) fn resolve_use_all(&self, m: usize, path: &[String], depth: usize) -> Vec<Target> {
        let Some(first) = path.first() else {
            return Vec::new();
        };
        if self.edition2015 && !matches!(first.as_str(), "crate" | "self" | "super") {
            return self.walk_from(vec![Target::Module(0)], path, depth);
        }
        // `use child::f;`: a child module first (not through the import being resolved).
        let md = &self.modules[m];
        if md.children.contains(first) {
            let mut p = md.path.clone();
            p.push(first.clone());
            if let Some(&c) = self.by_path.get(&p) {
                return self.walk_from(vec![Target::Module(c)], &path[1..], depth);
            }
        }
        self.resolve_at(m, path, depth)
    }

    /// A path written in the body of an item of module `m` (an item rather than a module).
    pub(crate) fn resolve(&self, m: usize, path: &[String]) -> Option<Target> {
        prefer_item(self.resolve_at(m, path, 0))
    }

    fn resolve_at(&self, m: usize, path: &[String], depth: usize) -> Vec<Target> {
        let Some((first, rest)) = path.split_first() else {
            return Vec::new();
        };
        let start = match first.as_str() {
            "crate" => vec![Target::Module(0)],
            "self" => vec![Target::Module(m)],
            "super" => self.parent(m).map(Target::Module).into_iter().collect(),
            "Self" => return Vec::new(),
            other => self.member(m, other, depth),
        };
        self.walk_from(start, rest, depth)
    }

    fn walk_from(&self, start: Vec<Target>, rest: &[String], depth: usize) -> Vec<Target> {
        let mut now = start;
        for seg in rest {
            // A path goes on through a module; through an item (`Type::assoc`) it ends there.
            let module = now.iter().find_map(|t| match t {
                Target::Module(x) => Some(*x),
                Target::Item(..) => None,
            });
            now = match module {
                Some(x) => match seg.as_str() {
                    "super" => self.parent(x).map(Target::Module).into_iter().collect(),
                    "self" => vec![Target::Module(x)],
                    _ => self.member(x, seg, depth + 1),
                },
                None => return now.into_iter().take(1).collect(),
            };
            if now.is_empty() {
                break;
            }
        }
        now
    }
}

/// Macros any crate may invoke (the standard library's).
const STD_MACROS: [&str; 22] = [
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "format",
    "vec",
    "println",
    "eprintln",
    "print",
    "eprint",
    "write",
    "writeln",
    "unreachable",
    "todo",
    "unimplemented",
    "matches",
    "concat",
    "stringify",
    "format_args",
];

/// Whether an item can live in the image unchanged: its body names no `crate::` path (that
/// would be the scratch crate's root) and invokes no macro of its crate (not copied). An item
/// that cannot stays the published one.
fn movable(ts: TokenStream, support: &dyn Fn(&str) -> bool) -> bool {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    let mut skip = 0;
    for (i, t) in toks.iter().enumerate() {
        if i < skip {
            continue;
        }
        match t {
            TokenTree::Group(g) if !movable(g.stream(), support) => return false,
            TokenTree::Ident(id) => {
                let next = toks.get(i + 1);
                if id == "crate" && is_colon(next) {
                    // `crate::m::…` of a support module (copied whole to the root), a macro
                    // of it included: the path's segments are not checked further.
                    match toks.get(i + 3) {
                        Some(TokenTree::Ident(m)) if support(&m.to_string()) => {
                            let mut j = i + 4;
                            while is_colon(toks.get(j))
                                && is_colon(toks.get(j + 1))
                                && matches!(toks.get(j + 2), Some(TokenTree::Ident(_)))
                            {
                                j += 3;
                            }
                            skip = j;
                            continue;
                        }
                        _ => return false,
                    }
                }
                let keyword = matches!(
                    id.to_string().as_str(),
                    "if" | "while" | "return" | "match" | "in" | "break" | "else" | "let" | "mut"
                );
                let bang = !keyword
                    && matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '!')
                    && matches!(toks.get(i + 2), Some(TokenTree::Group(_)));
                let after_colons = i > 1 && is_colon(toks.get(i - 1));
                if bang && (after_colons || !STD_MACROS.contains(&id.to_string().as_str())) {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// Whether module `m` (and its inline children) names no other module of the crate: every
/// `crate::`, `super::` and `self::` path, in items and `use` declarations, stays inside it.
fn self_contained(modules: &[Module], m: &Module) -> bool {
    let own = &m.path[0];
    modules
        .iter()
        .filter(|c| c.path.first() == Some(own))
        .all(|c| {
            // (a child in a file of its own would not come with the copy)
            c.file == m.file
                && c.items.iter().all(|i| {
                    if is_test_cfg(item_attrs(i)) {
                        return true;
                    }
                    let mut ps = Vec::new();
                    paths(i.to_token_stream(), &mut ps);
                    let mut uses = Vec::new();
                    if let syn::Item::Use(u) = i {
                        walk(&u.tree, Vec::new(), &mut uses);
                    }
                    ps.into_iter()
                        .chain(uses.into_iter().map(|(p, _, _)| p))
                        .all(|p| match p.first().map(String::as_str) {
                            // (`pub(crate)` is the path `crate` alone)
                            Some("crate") => p.len() == 1 || p.get(1) == Some(own),
                            // (`super::` from the module itself is the crate root)
                            Some("super") => {
                                c.path.len() > 1 && p.get(1) != Some(&"super".to_string())
                            }
                            _ => true,
                        })
                })
        })
}

fn prefer_item(ts: Vec<Target>) -> Option<Target> {
    ts.iter()
        .find(|t| matches!(t, Target::Item(..)))
        .or(ts.first())
        .cloned()
}

fn is_colon(t: Option<&TokenTree>) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

/// The paths (`a`, `a::b::c`) written in a token stream, macro arguments included; not the
/// names after `.` (fields, methods) nor the segments after a turbofish or a leading `::`.
pub(crate) fn paths(ts: TokenStream, out: &mut Vec<Vec<String>>) {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            TokenTree::Group(g) => {
                paths(g.stream(), out);
                i += 1;
            }
            TokenTree::Ident(id) => {
                let after_dot =
                    i > 0 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                let after_colons = i > 1 && is_colon(toks.get(i - 1)) && is_colon(toks.get(i - 2));
                let mut p = vec![id.to_string()];
                let mut j = i + 1;
                while is_colon(toks.get(j)) && is_colon(toks.get(j + 1)) {
                    match toks.get(j + 2) {
                        Some(TokenTree::Ident(next)) => {
                            p.push(next.to_string());
                            j += 3;
                        }
                        _ => break,
                    }
                }
                if !after_dot && !after_colons {
                    out.push(p);
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}

/// Whether a function can carry the attribute: some parameter mentions a float type or one of
/// its type parameters (else it is copied plain: its calls are constants).
pub(crate) fn annotatable(sig: &syn::Signature) -> bool {
    let generics: BTreeSet<String> = sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    sig.inputs.iter().any(|arg| {
        let mut names = BTreeSet::new();
        idents(arg.to_token_stream(), &mut names);
        names.contains("f64")
            || names.contains("f32")
            || names.contains("Self")
            || names.iter().any(|n| generics.contains(n))
    })
}

/// The items of other modules that a unit needs, by module, and the module tree they sit in.
pub(crate) struct Image {
    /// Copied item names by module index.
    pub(crate) items: BTreeMap<usize, BTreeSet<String>>,
    /// Module paths of the image: those holding items and their ancestors.
    tree: BTreeSet<Vec<String>>,
    /// The support modules the copies name (`crate::prec::…`), copied whole to the root.
    pub(crate) support: BTreeSet<String>,
}

/// The items `seed` (items of module `own`) need from the crate outside `own`'s flat copy:
/// functions, constants and statics (and types not reachable from outside the crate) of other
/// modules, with what they need in turn, wherever it lives.
pub(crate) fn image(r: &Resolver, own: usize, seed: &[syn::Item]) -> Image {
    let mut work: Vec<(usize, String)> = Vec::new();
    for item in seed {
        let mut ps = Vec::new();
        paths(item.to_token_stream(), &mut ps);
        for p in ps {
            if let Some(Target::Item(t, n)) = r.resolve(own, &p) {
                if t != own {
                    work.push((t, n));
                }
            }
        }
    }
    let mut items: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let mut support = BTreeSet::new();
    while let Some((t, n)) = work.pop() {
        if items.get(&t).is_some_and(|s| s.contains(&n)) {
            continue;
        }
        let md = &r.modules[t];
        let found: Vec<&syn::Item> = md
            .items
            .iter()
            .filter(|i| !is_test_cfg(item_attrs(i)) && item_name(i).as_deref() == Some(&n))
            .collect();
        // Values only: a copied type or trait would be another type than the one the
        // published items and the measured impl name.
        let copy = found.iter().any(|i| {
            matches!(
                i,
                syn::Item::Fn(_) | syn::Item::Const(_) | syn::Item::Static(_)
            )
        });
        let is_support = |name: &str| r.support.contains_key(name);
        if !copy
            || found
                .iter()
                .any(|i| !movable(i.to_token_stream(), &is_support))
        {
            continue;
        }
        items.entry(t).or_default().insert(n.clone());
        for i in found {
            let mut ps = Vec::new();
            paths(i.to_token_stream(), &mut ps);
            for p in &ps {
                if let [c, m, ..] = &p[..] {
                    if c == "crate" && r.support.contains_key(m) {
                        support.insert(m.clone());
                    }
                }
            }
            for p in ps {
                if let Some(Target::Item(t2, n2)) = r.resolve(t, &p) {
                    work.push((t2, n2));
                }
            }
        }
    }
    let mut tree = BTreeSet::new();
    for &t in items.keys() {
        let p = &r.modules[t].path;
        for k in 0..=p.len() {
            tree.insert(p[..k].to_vec());
        }
    }
    Image {
        items,
        tree,
        support,
    }
}

impl Image {
    /// Whether nothing is copied.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The path under `__crate` of a target, when the image holds it.
    fn path_of(&self, r: &Resolver, t: &Target) -> Option<Vec<String>> {
        match t {
            Target::Module(m) => {
                let p = &r.modules[*m].path;
                self.tree.contains(p).then(|| p.clone())
            }
            Target::Item(m, n) => self.items.get(m).is_some_and(|s| s.contains(n)).then(|| {
                r.modules[*m]
                    .path
                    .iter()
                    .cloned()
                    .chain([n.clone()])
                    .collect()
            }),
        }
    }

    /// The `use` declaration for `leaf`, pointing into the image when it holds its target;
    /// `root` is the path from where the declaration sits to the module holding `__crate`'s
    /// contents (`self::__crate`, `super::super`). `None`: the declaration is dropped (a private
    /// item not copied, so not used).
    pub(crate) fn leaf_text(&self, r: &Resolver, leaf: &Leaf, root: &str) -> Option<String> {
        let targets = match (&leaf.private, &leaf.origin) {
            (Some((m, n)), _) => vec![Target::Item(*m, n.clone())],
            (None, Some((m, path))) => r.resolve_use_all(*m, path, 0),
            _ => Vec::new(),
        };
        // An item the image holds first (`use crate::dawson;` names the module and the function
        // re-exported beside it; the copied function is what the code calls).
        let item = targets.iter().find(|t| matches!(t, Target::Item(..)));
        let module = targets.iter().find(|t| matches!(t, Target::Module(_)));
        let in_image = match (item.and_then(|t| self.path_of(r, t)), module) {
            (Some(p), _) => Some(p),
            // A glob of a module of the image: only when that module holds all the names
            // the original does (its copies and a glob of the published module).
            (None, Some(Target::Module(x)))
                if leaf.name != "*" || r.modules[*x].public || self.items.contains_key(x) =>
            {
                self.path_of(r, &Target::Module(*x))
            }
            _ => None,
        };
        if let Some(segs) = in_image {
            let joined = std::iter::once(root.to_string())
                .chain(segs.iter().cloned())
                .collect::<Vec<_>>()
                .join("::");
            return Some(if leaf.name == "*" {
                format!("use {joined}::*;")
            } else if segs.last() != Some(&leaf.name) {
                format!("use {joined} as {};", leaf.name)
            } else {
                format!("use {joined};")
            });
        }
        if leaf.private.is_some() || leaf.text.is_empty() {
            return None;
        }
        Some(leaf.text.clone())
    }

    /// The image as source: `mod __crate { … }` with the copied items (functions with float
    /// parameters carry `#[differentiable]` when `annotate`), each module's `use` declarations
    /// rewritten, and a glob of the published module where it is public (for what is not copied).
    pub(crate) fn render(
        &self,
        r: &Resolver,
        lib: &str,
        leaves: &dyn Fn(usize) -> Vec<Leaf>,
        annotate: bool,
    ) -> String {
        if self.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        self.render_module(r, lib, leaves, annotate, &[], &mut out);
        out
    }

    fn render_module(
        &self,
        r: &Resolver,
        lib: &str,
        leaves: &dyn Fn(usize) -> Vec<Leaf>,
        annotate: bool,
        path: &[String],
        out: &mut String,
    ) {
        let name = path.last().map_or("__crate", String::as_str);
        out.push_str(&format!(
            "#[allow(unused_imports, dead_code)]\npub(crate) mod {name} {{\n"
        ));
        let idx = r.by_path.get(path).copied();
        let root = if path.is_empty() {
            "self".to_string()
        } else {
            vec!["super"; path.len()].join("::")
        };
        if annotate {
            out.push_str("use autodiff::prelude::*;\n");
        }
        if let Some(m) = idx {
            let md = &r.modules[m];
            if md.public {
                let glob = std::iter::once(lib.to_string())
                    .chain(path.iter().cloned())
                    .collect::<Vec<_>>()
                    .join("::");
                out.push_str(&format!("pub(crate) use ::{glob}::*;\n"));
            }
            let copied = self.items.get(&m);
            let mut used = BTreeSet::new();
            for item in &md.items {
                if item_name(item).is_some_and(|n| copied.is_some_and(|s| s.contains(&n))) {
                    idents(item.to_token_stream(), &mut used);
                }
            }
            let mut seen = BTreeSet::new();
            for leaf in leaves(m) {
                // Not over a copied item, nor over a child module of the image (a copied
                // function's companion struct lives in the same namespace as modules).
                let child = self.tree.iter().any(|p| {
                    p.len() == path.len() + 1 && p.starts_with(path) && p[path.len()] == leaf.name
                });
                if leaf.name != "*" && (child || copied.is_some_and(|s| s.contains(&leaf.name))) {
                    continue;
                }
                // Only what the copies name (a module's imports of its own macros and of
                // items not copied would not resolve in the image).
                if leaf.name != "*" && copied.is_some() && !used.contains(&leaf.name) {
                    continue;
                }
                let rewritten = self.leaf_text(r, &leaf, &root);
                // A module without copied items keeps only the imports that point into the
                // image (a re-export that a child reaches through `super::`).
                let keep = match (&rewritten, copied) {
                    (Some(t), Some(_)) => Some(t.clone()),
                    (Some(t), None) if *t != leaf.text => Some(t.clone()),
                    _ => None,
                };
                if let Some(t) = keep {
                    if seen.insert(t.clone()) {
                        out.push_str(&t);
                        out.push('\n');
                    }
                }
            }
            if let Some(names) = copied {
                for item in &md.items {
                    if is_test_cfg(item_attrs(item))
                        || !item_name(item).is_some_and(|n| names.contains(&n))
                    {
                        continue;
                    }
                    out.push('\n');
                    if annotate {
                        out.push_str(&opened_text(&md.text, item));
                    } else {
                        let mut plain = item.clone();
                        OpenUp.visit_item_mut(&mut plain);
                        out.push_str(&prettyplease::unparse(&syn::File {
                            shebang: None,
                            attrs: Vec::new(),
                            items: vec![plain],
                        }));
                    }
                    out.push('\n');
                }
            }
        }
        let children: Vec<&Vec<String>> = self
            .tree
            .iter()
            .filter(|p| p.len() == path.len() + 1 && p.starts_with(path))
            .collect();
        for child in children {
            self.render_module(r, lib, leaves, annotate, child, out);
        }
        out.push_str("}\n");
    }
}

/// An item's source text with its visibility opened to `pub(crate)` (kept when `pub`) and,
/// for a function with float parameters, `#[differentiable]` added.
fn opened_text(text: &str, item: &syn::Item) -> String {
    let attrs = item_attrs(item);
    let (vis, keyword) = match item {
        syn::Item::Fn(f) => (&f.vis, f.sig.span()),
        syn::Item::Const(c) => (&c.vis, c.const_token.span),
        syn::Item::Static(s) => (&s.vis, s.static_token.span),
        syn::Item::Struct(s) => (&s.vis, s.struct_token.span),
        syn::Item::Enum(e) => (&e.vis, e.enum_token.span),
        syn::Item::Type(t) => (&t.vis, t.type_token.span),
        syn::Item::Union(u) => (&u.vis, u.union_token.span),
        syn::Item::Trait(t) => (&t.vis, t.unsafety.map_or(t.trait_token.span, |u| u.span)),
        _ => return item_text(text, attrs, item),
    };
    let start = attrs
        .first()
        .map_or(item.span().start(), |a| a.span().start());
    let a = offset(text, start);
    let b = offset(text, item.span().end());
    let (v0, v1) = match vis {
        syn::Visibility::Public(_) => {
            let p = offset(text, vis.span().end());
            (p, p)
        }
        syn::Visibility::Restricted(_) => (
            offset(text, vis.span().start()),
            offset(text, vis.span().end()),
        ),
        syn::Visibility::Inherited => {
            let p = offset(text, keyword.start());
            (p, p)
        }
    };
    let new_vis = match vis {
        syn::Visibility::Public(_) => "",
        syn::Visibility::Restricted(_) => "pub(crate)",
        syn::Visibility::Inherited => "pub(crate) ",
    };
    let body = format!(
        "{}{new_vis}{}",
        text.get(a..v0).unwrap_or_default(),
        text.get(v1..b).unwrap_or_default()
    );
    match item {
        syn::Item::Fn(f) if annotatable(&f.sig) => format!("#[differentiable]\n{body}"),
        _ => body,
    }
}
