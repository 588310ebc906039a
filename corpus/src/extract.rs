//! Extraction: reads a crate's sources with `syn`, follows its module tree from `src/lib.rs`,
//! and turns every free function and every inherent or trait-impl method whose parameters and
//! result are floats (or float sequences, arrays and tuples of these) into a [`Candidate`]:
//! the function's own text, the texts of what it needs from its module, and its signature.
//! Everything else that looks numeric is reported as a [`Skipped`] item with its reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use crate::pinned::Pinned;
use crate::resolve::{self, Resolver};

/// A float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Float {
    /// `f32`
    F32,
    /// `f64`
    F64,
}

/// The shape of a parameter or a result, as the checks see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A float scalar.
    Float(Float),
    /// An integer (its type as written); a constant for differentiation.
    Int(String),
    /// `bool`; a constant.
    Bool,
    /// `Vec<X>` (or the slice `[X]` behind a reference).
    Vec(Box<Kind>),
    /// `[X; N]` with a literal length.
    Array(Box<Kind>, String),
    /// A tuple.
    Tuple(Vec<Kind>),
    /// A struct of the crate whose fields are all plain values; a constant.
    Struct(String),
}

impl Kind {
    /// Whether a value of this kind carries a gradient.
    pub fn differentiable(&self) -> bool {
        match self {
            Kind::Float(_) => true,
            Kind::Int(_) | Kind::Bool | Kind::Struct(_) => false,
            Kind::Vec(k) | Kind::Array(k, _) => k.differentiable(),
            Kind::Tuple(ks) => !ks.is_empty() && ks.iter().all(Kind::differentiable),
        }
    }
    /// Whether some component is differentiable and another not (not handled).
    fn mixed(&self) -> bool {
        match self {
            Kind::Vec(k) | Kind::Array(k, _) => k.mixed(),
            Kind::Tuple(ks) => {
                let d = ks.iter().filter(|k| k.differentiable()).count();
                (d > 0 && d < ks.len()) || ks.iter().any(Kind::mixed)
            }
            _ => false,
        }
    }
    /// Whether any component is `f32`.
    pub fn single(&self) -> bool {
        match self {
            Kind::Float(f) => *f == Float::F32,
            Kind::Vec(k) | Kind::Array(k, _) => k.single(),
            Kind::Tuple(ks) => ks.iter().any(Kind::single),
            _ => false,
        }
    }
}

/// How an argument is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// By value.
    Value,
    /// By shared reference (`&X`, and `&[X]` for a `Vec` kind).
    Ref,
}

/// One parameter of a measured function.
#[derive(Clone, Debug)]
pub struct Param {
    /// How the argument is passed.
    pub pass: Pass,
    /// What it is.
    pub kind: Kind,
}

/// Which kind of item a candidate is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// A free function.
    Free,
    /// A method of an inherent `impl` of the struct.
    Inherent(String),
    /// A method of a trait `impl` of the struct (the attribute goes on the `impl`).
    TraitImpl(String),
}

/// A struct of the crate that the checks can build from random field values.
#[derive(Clone, Debug)]
pub struct PlainStruct {
    /// Field names with their kinds, in declaration order (tuple structs: `0`, `1`, …).
    pub fields: Vec<(String, Kind)>,
    /// A tuple struct.
    pub tuple: bool,
}

/// A function to measure, with everything the scaffold needs to write it out.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The crate's package name.
    pub krate: String,
    /// The file, relative to the crate's root.
    pub file: String,
    /// The line of the function in the file.
    pub line: usize,
    /// `f`, `Type::m`.
    pub name: String,
    /// The function's own name.
    pub fn_name: String,
    /// Free function, inherent method or trait-impl method.
    pub unit: UnitKind,
    /// The function, or the impl, has one type parameter that stands for the float type.
    pub generic: bool,
    /// The receiver, if a method: how it is passed.
    pub receiver: Option<Pass>,
    /// The non-receiver parameters.
    pub params: Vec<Param>,
    /// The result.
    pub output: Kind,
    /// The `use` declarations of the module, with paths made absolute, one leaf each.
    pub uses: Vec<String>,
    /// The measured item as written, with `#[differentiable]` added (and the items of its module
    /// it needs: helpers annotated too, constants, types and macros unchanged).
    pub annotated: String,
    /// The same items without the attribute, every item and field made `pub(crate)`: the
    /// reference the annotated copy is compared with when the original is not reachable.
    pub plain: String,
    /// The structs the checks build (self type and struct parameters), by name.
    pub structs: BTreeMap<String, PlainStruct>,
    /// The path of the published function, when it may be public.
    pub public_path: Option<String>,
}

/// A numeric-looking item that is not measured, with the reason.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// The crate's package name.
    pub krate: String,
    /// `f`, `Type::m`.
    pub name: String,
    /// The file, relative to the crate's root.
    pub file: String,
    /// The line.
    pub line: usize,
    /// Why it is not measured.
    pub reason: String,
}

/// One module: its path in the crate, its items, and the text they were parsed from.
pub(crate) struct Module {
    pub(crate) path: Vec<String>,
    pub(crate) public: bool,
    pub(crate) file: String,
    pub(crate) text: std::rc::Rc<String>,
    pub(crate) items: Vec<syn::Item>,
    pub(crate) children: BTreeSet<String>,
}

/// Reads the whole crate and extracts its candidates.
pub fn extract(krate: &Pinned) -> (Vec<Candidate>, Vec<Skipped>) {
    let mut modules = Vec::new();
    let root = krate.src_dir.join("src/lib.rs");
    load_file(&krate.src_dir, &root, Vec::new(), true, &mut modules);
    let crate_types = CrateTypes::collect(&modules);
    let mut out = (Vec::new(), Vec::new());
    for m in &modules {
        extract_module(krate, m, &modules, &crate_types, &mut out);
    }
    out
}

pub(crate) fn is_test_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        (a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
            || a.path().is_ident("test")
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("path"))
        .and_then(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

fn load_file(
    crate_dir: &Path,
    file: &Path,
    path: Vec<String>,
    public: bool,
    modules: &mut Vec<Module>,
) {
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let Ok(parsed) = syn::parse_file(&text) else {
        return;
    };
    let rel = file
        .strip_prefix(crate_dir)
        .unwrap_or(file)
        .display()
        .to_string();
    // The directory where this file's child modules live.
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let dir: PathBuf = if matches!(stem, "lib" | "mod" | "main") {
        file.parent().unwrap_or(crate_dir).to_path_buf()
    } else {
        file.with_extension("")
    };
    add_module(
        crate_dir,
        &dir,
        &rel,
        std::rc::Rc::new(text),
        parsed.items,
        path,
        public,
        modules,
    );
}

#[allow(clippy::too_many_arguments)]
fn add_module(
    crate_dir: &Path,
    dir: &Path,
    rel: &str,
    text: std::rc::Rc<String>,
    items: Vec<syn::Item>,
    path: Vec<String>,
    public: bool,
    modules: &mut Vec<Module>,
) {
    let mut children = BTreeSet::new();
    let mut nested = Vec::new();
    for item in &items {
        if let syn::Item::Mod(m) = item {
            if is_test_cfg(&m.attrs) || m.ident == "tests" || m.ident == "test" {
                continue;
            }
            children.insert(m.ident.to_string());
            nested.push(m.clone());
        }
    }
    modules.push(Module {
        path: path.clone(),
        public,
        file: rel.to_string(),
        text: text.clone(),
        items,
        children,
    });
    for m in nested {
        let mut child = path.clone();
        child.push(m.ident.to_string());
        let child_public = public && matches!(m.vis, syn::Visibility::Public(_));
        let name = m.ident.to_string();
        match m.content {
            Some((_, inner)) => add_module(
                crate_dir,
                &dir.join(&name),
                rel,
                text.clone(),
                inner,
                child,
                child_public,
                modules,
            ),
            None => {
                let file = match path_attr(&m.attrs) {
                    Some(p) => dir.join(p),
                    None if dir.join(format!("{name}.rs")).exists() => {
                        dir.join(format!("{name}.rs"))
                    }
                    None => dir.join(&name).join("mod.rs"),
                };
                load_file(crate_dir, &file, child, child_public, modules);
            }
        }
    }
}

/// Type aliases and plain structs of the whole crate, by name.
struct CrateTypes {
    aliases: BTreeMap<String, syn::ItemType>,
    structs: BTreeMap<String, syn::ItemStruct>,
}

impl CrateTypes {
    fn collect(modules: &[Module]) -> Self {
        let mut aliases = BTreeMap::new();
        let mut structs = BTreeMap::new();
        for m in modules {
            for item in &m.items {
                match item {
                    syn::Item::Type(t) => {
                        aliases.insert(t.ident.to_string(), t.clone());
                    }
                    syn::Item::Struct(s) => {
                        structs.insert(s.ident.to_string(), s.clone());
                    }
                    _ => {}
                }
            }
        }
        CrateTypes { aliases, structs }
    }
}

/// Replaces a type parameter by a concrete type.
struct Subst<'a> {
    from: &'a str,
    to: syn::Type,
}

impl VisitMut for Subst<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() && p.path.is_ident(self.from) {
                *ty = self.to.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// What a signature's types are checked against.
struct TypeCtx<'a> {
    types: &'a CrateTypes,
    generic: Option<String>,
    self_ty: Option<String>,
    structs: BTreeMap<String, PlainStruct>,
}

impl TypeCtx<'_> {
    fn classify(&mut self, ty: &syn::Type, depth: usize) -> Result<(Pass, Kind), String> {
        match ty {
            syn::Type::Reference(r) => {
                if r.mutability.is_some() {
                    return Err(format!("`&mut` parameter `{}`", tokens(ty)));
                }
                match &*r.elem {
                    syn::Type::Slice(s) => {
                        Ok((Pass::Ref, Kind::Vec(Box::new(self.value(&s.elem, depth)?))))
                    }
                    other => Ok((Pass::Ref, self.value(other, depth)?)),
                }
            }
            other => Ok((Pass::Value, self.value(other, depth)?)),
        }
    }

    fn value(&mut self, ty: &syn::Type, depth: usize) -> Result<Kind, String> {
        if depth > 8 {
            return Err("type too deep".into());
        }
        let unsupported = || Err(format!("type `{}` not supported", tokens(ty)));
        match ty {
            syn::Type::Paren(p) => self.value(&p.elem, depth + 1),
            syn::Type::Group(g) => self.value(&g.elem, depth + 1),
            syn::Type::Tuple(t) => {
                if t.elems.is_empty() {
                    return Err("returns nothing".into());
                }
                Ok(Kind::Tuple(
                    t.elems
                        .iter()
                        .map(|e| self.value(e, depth + 1))
                        .collect::<Result<_, _>>()?,
                ))
            }
            syn::Type::Array(a) => match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => Ok(Kind::Array(
                    Box::new(self.value(&a.elem, depth + 1)?),
                    n.base10_digits().to_string(),
                )),
                _ => Err(format!(
                    "array length `{}` is not a literal",
                    tokens(&a.len)
                )),
            },
            syn::Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last().ok_or("empty path")?;
                let name = last.ident.to_string();
                if p.path.segments.len() == 1 {
                    if self.generic.as_deref() == Some(name.as_str()) {
                        return Ok(Kind::Float(Float::F64));
                    }
                    match name.as_str() {
                        "f64" => return Ok(Kind::Float(Float::F64)),
                        "f32" => return Ok(Kind::Float(Float::F32)),
                        "bool" => return Ok(Kind::Bool),
                        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64"
                        | "isize" => return Ok(Kind::Int(name)),
                        "Self" => {
                            let s = self.self_ty.clone().ok_or("`Self` outside an impl")?;
                            return self.local_struct(&s);
                        }
                        _ => {}
                    }
                }
                if name == "Vec" {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                        if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                            return Ok(Kind::Vec(Box::new(self.value(t, depth + 1)?)));
                        }
                    }
                    return unsupported();
                }
                if let Some(alias) = self.types.aliases.get(&name).cloned() {
                    let mut target = (*alias.ty).clone();
                    let params: Vec<String> = alias
                        .generics
                        .type_params()
                        .map(|t| t.ident.to_string())
                        .collect();
                    let args: Vec<syn::Type> = match &last.arguments {
                        syn::PathArguments::AngleBracketed(a) => a
                            .args
                            .iter()
                            .filter_map(|g| match g {
                                syn::GenericArgument::Type(t) => Some(t.clone()),
                                _ => None,
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    if params.len() != args.len() {
                        return unsupported();
                    }
                    for (p, a) in params.iter().zip(args) {
                        Subst { from: p, to: a }.visit_type_mut(&mut target);
                    }
                    return self.value(&target, depth + 1);
                }
                if matches!(last.arguments, syn::PathArguments::None) && p.path.segments.len() == 1
                {
                    return self.local_struct(&name);
                }
                unsupported()
            }
            _ => unsupported(),
        }
    }

    fn local_struct(&mut self, name: &str) -> Result<Kind, String> {
        if self.structs.contains_key(name) {
            return Ok(Kind::Struct(name.to_string()));
        }
        let s = self
            .types
            .structs
            .get(name)
            .ok_or_else(|| format!("type `{name}` not supported"))?
            .clone();
        if s.generics.params.iter().next().is_some() {
            return Err(format!("struct `{name}` is generic"));
        }
        let mut inner = TypeCtx {
            types: self.types,
            generic: None,
            self_ty: None,
            structs: BTreeMap::new(),
        };
        let mut fields = Vec::new();
        let tuple = matches!(s.fields, syn::Fields::Unnamed(_));
        for (i, f) in s.fields.iter().enumerate() {
            let kind = inner
                .value(&f.ty, 1)
                .map_err(|e| format!("struct `{name}` not reconstructible: field {e}"))?;
            if matches!(kind, Kind::Struct(_)) {
                return Err(format!(
                    "struct `{name}` not reconstructible: nested struct field"
                ));
            }
            let fname = f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), |id| id.to_string());
            fields.push((fname, kind));
        }
        self.structs
            .insert(name.to_string(), PlainStruct { fields, tuple });
        Ok(Kind::Struct(name.to_string()))
    }
}

/// The text of `tokens` as rust prints it.
pub fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// Byte offset in `text` of a span's start or end.
pub(crate) fn offset(text: &str, lc: proc_macro2::LineColumn) -> usize {
    let mut line_start = 0;
    for _ in 1..lc.line {
        line_start += text[line_start..]
            .find('\n')
            .map_or(text.len() - line_start, |i| i + 1);
    }
    let line = &text[line_start..];
    line_start
        + line
            .char_indices()
            .nth(lc.column)
            .map_or(line.len(), |(i, _)| i)
}

/// The text of an item with its attributes, from the first attribute to the end.
pub(crate) fn item_text(text: &str, attrs: &[syn::Attribute], item: &impl Spanned) -> String {
    let span = item.span();
    let start = attrs.first().map_or(span.start(), |a| a.span().start());
    let (a, b) = (offset(text, start), offset(text, span.end()));
    text.get(a..b).unwrap_or_default().to_string()
}

pub(crate) fn idents(ts: TokenStream, out: &mut BTreeSet<String>) {
    for t in ts {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// The name an item defines in its module (for the items a function may need).
pub(crate) fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        syn::Item::Const(c) => c.ident.to_string(),
        syn::Item::Static(s) => s.ident.to_string(),
        syn::Item::Struct(s) => s.ident.to_string(),
        syn::Item::Enum(e) => e.ident.to_string(),
        syn::Item::Type(t) => t.ident.to_string(),
        syn::Item::Union(u) => u.ident.to_string(),
        syn::Item::Trait(t) => t.ident.to_string(),
        syn::Item::Macro(m) => m.ident.as_ref()?.to_string(),
        _ => return None,
    })
}

fn impl_self_name(imp: &syn::ItemImpl) -> Option<String> {
    match &*imp.self_ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

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

pub(crate) fn item_public(item: &syn::Item) -> bool {
    let vis = match item {
        syn::Item::Fn(i) => &i.vis,
        syn::Item::Const(i) => &i.vis,
        syn::Item::Static(i) => &i.vis,
        syn::Item::Struct(i) => &i.vis,
        syn::Item::Enum(i) => &i.vis,
        syn::Item::Type(i) => &i.vis,
        syn::Item::Trait(i) => &i.vis,
        syn::Item::Macro(_) => return false,
        _ => return true,
    };
    matches!(vis, syn::Visibility::Public(_))
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
fn public_reexport(name: &str, modules: &[Module]) -> Option<Vec<String>> {
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
fn use_leaves_flat(krate: &Pinned, m: &Module, modules: &[Module]) -> Vec<Leaf> {
    use_leaves_depth(krate, m, modules, false)
}

fn use_leaves(krate: &Pinned, m: &Module, modules: &[Module]) -> Vec<Leaf> {
    use_leaves_depth(krate, m, modules, true)
}

fn use_leaves_depth(krate: &Pinned, m: &Module, modules: &[Module], expand: bool) -> Vec<Leaf> {
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

/// Turns every visibility into `pub(crate)` (the plain reference copy, read by the checks).
pub(crate) struct OpenUp;

impl VisitMut for OpenUp {
    fn visit_visibility_mut(&mut self, v: &mut syn::Visibility) {
        *v = syn::parse_quote!(pub(crate));
    }
    fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
        if i.trait_.is_none() {
            syn::visit_mut::visit_item_impl_mut(self, i);
        }
    }
    fn visit_item_trait_mut(&mut self, i: &mut syn::ItemTrait) {
        i.vis = syn::parse_quote!(pub(crate));
    }
    fn visit_block_mut(&mut self, _: &mut syn::Block) {}
}

fn unsafe_or_foreign(
    sig: &syn::Signature,
    attrs: &[syn::Attribute],
    body: &syn::Block,
) -> Option<&'static str> {
    if sig.unsafety.is_some() {
        return Some("unsafe");
    }
    if sig.abi.is_some() {
        return Some("extern ABI (FFI)");
    }
    if sig.asyncness.is_some() {
        return Some("async");
    }
    if attrs
        .iter()
        .any(|a| a.path().is_ident("target_feature") || a.path().is_ident("no_mangle"))
    {
        return Some("SIMD or FFI attribute");
    }
    let b = tokens(body);
    if b.contains("arch ::") || b.contains("simd") || b.contains("unsafe") {
        return Some("SIMD or unsafe code");
    }
    None
}

struct Sig {
    generic: bool,
    receiver: Option<Pass>,
    params: Vec<Param>,
    output: Kind,
    structs: BTreeMap<String, PlainStruct>,
}

fn classify_sig(
    types: &CrateTypes,
    sig: &syn::Signature,
    impl_generics: Option<&syn::Generics>,
    self_ty: Option<&str>,
) -> Result<Sig, String> {
    let mut type_params: Vec<String> = sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    if let Some(g) = impl_generics {
        type_params.extend(g.type_params().map(|t| t.ident.to_string()));
        if g.const_params().next().is_some() {
            return Err("const generic parameter".into());
        }
    }
    if sig.generics.const_params().next().is_some() {
        return Err("const generic parameter".into());
    }
    if type_params.len() > 1 {
        return Err(format!("{} type parameters", type_params.len()));
    }
    let mut ctx = TypeCtx {
        types,
        generic: type_params.first().cloned(),
        self_ty: self_ty.map(str::to_string),
        structs: BTreeMap::new(),
    };
    let mut receiver = None;
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(r) => {
                if r.colon_token.is_some() {
                    return Err("typed receiver".into());
                }
                if r.mutability.is_some() && r.reference.is_some() {
                    return Err("`&mut self` method".into());
                }
                let s = self_ty.ok_or("receiver outside an impl")?;
                ctx.local_struct(s)
                    .map_err(|e| format!("self type not reconstructible: {e}"))?;
                receiver = Some(if r.reference.is_some() {
                    Pass::Ref
                } else {
                    Pass::Value
                });
            }
            syn::FnArg::Typed(t) => {
                if !matches!(&*t.pat, syn::Pat::Ident(_) | syn::Pat::Wild(_)) {
                    // A destructuring parameter: measured, its pattern is the function's own.
                }
                if matches!(&*t.ty, syn::Type::ImplTrait(_)) {
                    return Err("`impl Trait` parameter".into());
                }
                let (pass, kind) = ctx.classify(&t.ty, 0)?;
                if kind.mixed() {
                    return Err(format!(
                        "parameter mixes floats and constants: `{}`",
                        tokens(&t.ty)
                    ));
                }
                params.push(Param { pass, kind });
            }
        }
    }
    let output = match &sig.output {
        syn::ReturnType::Default => return Err("returns nothing".into()),
        syn::ReturnType::Type(_, ty) => match ctx.classify(ty, 0)? {
            (Pass::Value, k) if k.differentiable() => k,
            _ => return Err(format!("result `{}` is not a float value", tokens(ty))),
        },
    };
    if !params.iter().any(|p| p.kind.differentiable()) {
        return Err(if receiver.is_some() {
            "no differentiable parameter besides `self`".into()
        } else {
            "no differentiable parameter".into()
        });
    }
    Ok(Sig {
        generic: !type_params.is_empty(),
        receiver,
        params,
        output,
        structs: ctx.structs,
    })
}

/// The items of the module the unit needs, transitively: (annotated text, plain item).
fn needed_items(
    m: &Module,
    seed: &BTreeSet<String>,
    exclude: &str,
) -> (Vec<String>, Vec<syn::Item>) {
    let mut names = seed.clone();
    let mut taken: BTreeSet<usize> = BTreeSet::new();
    loop {
        let mut grew = false;
        for (i, item) in m.items.iter().enumerate() {
            if taken.contains(&i) || is_test_cfg(item_attrs(item)) {
                continue;
            }
            let Some(name) = item_name(item) else {
                continue;
            };
            if name == exclude || !names.contains(&name) {
                continue;
            }
            taken.insert(i);
            idents(item.to_token_stream(), &mut names);
            grew = true;
        }
        if !grew {
            break;
        }
    }
    let mut annotated = Vec::new();
    let mut plain = Vec::new();
    for i in taken {
        let item = &m.items[i];
        let text = item_text(&m.text, item_attrs(item), item);
        annotated.push(match item {
            syn::Item::Fn(_) => format!("#[differentiable]\n{text}"),
            _ => text,
        });
        plain.push(item.clone());
    }
    (annotated, plain)
}

pub(crate) fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        _ => &[],
    }
}

fn line_of(span: Span) -> usize {
    span.start().line
}

fn extract_module(
    krate: &Pinned,
    m: &Module,
    modules: &[Module],
    types: &CrateTypes,
    out: &mut (Vec<Candidate>, Vec<Skipped>),
) {
    let leaves = use_leaves(krate, m, modules);
    let lib = krate.name.replace('-', "_");
    for item in &m.items {
        match item {
            syn::Item::Fn(f) if !is_test_cfg(&f.attrs) => {
                let name = f.sig.ident.to_string();
                let skip = |reason: String| Skipped {
                    krate: krate.name.clone(),
                    name: name.clone(),
                    file: m.file.clone(),
                    line: line_of(f.sig.ident.span()),
                    reason,
                };
                if !looks_numeric(&f.sig, false) {
                    continue;
                }
                if let Some(r) = unsafe_or_foreign(&f.sig, &f.attrs, &f.block) {
                    out.1.push(skip(r.into()));
                    continue;
                }
                let sig = match classify_sig(types, &f.sig, None, None) {
                    Ok(s) => s,
                    Err(e) => {
                        out.1.push(skip(e));
                        continue;
                    }
                };
                let mut seed = BTreeSet::new();
                idents(f.to_token_stream(), &mut seed);
                let (mut ann, mut plain) = needed_items(m, &seed, &name);
                ann.push(format!(
                    "#[differentiable]\n{}",
                    item_text(&m.text, &f.attrs, f)
                ));
                plain.push(item.clone());
                // The published function: by its module path when every module on it is public,
                // else as a re-export at the crate's root (the probe build tells which holds).
                let public_path = matches!(f.vis, syn::Visibility::Public(_)).then(|| {
                    let path = if m.public { m.path.clone() } else { Vec::new() };
                    std::iter::once(lib.clone())
                        .chain(path)
                        .chain([name.clone()])
                        .collect::<Vec<_>>()
                        .join("::")
                });
                out.0.push(candidate(
                    krate,
                    m,
                    modules,
                    &leaves,
                    name.clone(),
                    name,
                    UnitKind::Free,
                    sig,
                    ann,
                    plain,
                    public_path,
                    line_of(f.sig.ident.span()),
                ));
            }
            syn::Item::Impl(imp) if !is_test_cfg(&imp.attrs) => {
                extract_impl(krate, m, modules, types, &leaves, imp, out);
            }
            _ => {}
        }
    }
}

/// A signature that mentions a float type somewhere (the others are not reported at all).
fn looks_numeric(sig: &syn::Signature, generic_impl: bool) -> bool {
    let t = tokens(sig);
    t.contains("f64")
        || t.contains("f32")
        || sig.generics.type_params().next().is_some()
        || t.contains("Self")
        || generic_impl
}

#[allow(clippy::too_many_arguments)]
fn candidate(
    krate: &Pinned,
    m: &Module,
    modules: &[Module],
    leaves: &[Leaf],
    name: String,
    fn_name: String,
    unit: UnitKind,
    sig: Sig,
    annotated: Vec<String>,
    mut plain: Vec<syn::Item>,
    public_path: Option<String>,
    line: usize,
) -> Candidate {
    // What the copy names in other modules of the crate comes along, in an image of their
    // module tree (`__crate`), and the imports that name it point there.
    let own = modules
        .iter()
        .position(|x| std::ptr::eq(x, m))
        .unwrap_or_default();
    let resolver = Resolver::new(modules, krate.edition == "2015");
    // Seeded by what carries the attribute: the type's other trait impls, copied unchanged
    // for their supertraits (all before the measured item, last), keep the published helpers.
    let last = plain.len().saturating_sub(1);
    let seed: Vec<syn::Item> = plain
        .iter()
        .enumerate()
        .filter(|(i, item)| {
            *i == last || !matches!(item, syn::Item::Impl(imp) if imp.trait_.is_some())
        })
        .map(|(_, item)| item.clone())
        .collect();
    let image = resolve::image(&resolver, own, &seed);
    let lib = krate.name.replace('-', "_");
    let leaves_of = |i: usize| use_leaves(krate, &modules[i], modules);
    let defined: BTreeSet<String> = plain.iter().filter_map(item_name).collect();
    let mut uses: Vec<String> = Vec::new();
    for leaf in leaves {
        if leaf.name != "*" && defined.contains(&leaf.name) {
            continue;
        }
        let Some(t) = image.leaf_text(&resolver, leaf, "self::__crate") else {
            continue;
        };
        if !uses.contains(&t) {
            uses.push(t);
        }
    }
    let mut annotated = annotated;
    if !image.is_empty() {
        annotated.push(image.render(&resolver, &lib, &leaves_of, true));
    }
    let image_plain = image.render(&resolver, &lib, &leaves_of, false);
    for item in &mut plain {
        OpenUp.visit_item_mut(item);
    }
    let plain_text = prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: plain,
    }) + &image_plain;
    Candidate {
        krate: krate.name.clone(),
        file: m.file.clone(),
        line,
        name,
        fn_name,
        unit,
        generic: sig.generic,
        receiver: sig.receiver,
        params: sig.params,
        output: sig.output,
        uses,
        annotated: annotated.join("\n\n"),
        plain: plain_text,
        structs: sig.structs,
        public_path,
    }
}

fn extract_impl(
    krate: &Pinned,
    m: &Module,
    modules: &[Module],
    types: &CrateTypes,
    leaves: &[Leaf],
    imp: &syn::ItemImpl,
    out: &mut (Vec<Candidate>, Vec<Skipped>),
) {
    let Some(self_name) = impl_self_name(imp) else {
        return;
    };
    let trait_name = imp
        .trait_
        .as_ref()
        .map(|(_, p, _)| tokens(p).replace(' ', ""));
    for ii in &imp.items {
        let syn::ImplItem::Fn(f) = ii else { continue };
        if is_test_cfg(&f.attrs)
            || !looks_numeric(&f.sig, imp.generics.type_params().next().is_some())
        {
            continue;
        }
        let fn_name = f.sig.ident.to_string();
        let name = match &trait_name {
            Some(t) => format!("<{self_name} as {t}>::{fn_name}"),
            None => format!("{self_name}::{fn_name}"),
        };
        let line = line_of(f.sig.ident.span());
        let skip = |reason: String| Skipped {
            krate: krate.name.clone(),
            name: name.clone(),
            file: m.file.clone(),
            line,
            reason,
        };
        if imp.unsafety.is_some() {
            out.1.push(skip("unsafe impl".into()));
            continue;
        }
        if let Some(r) = unsafe_or_foreign(&f.sig, &f.attrs, &f.block) {
            out.1.push(skip(r.into()));
            continue;
        }
        // The self type must be a struct of this module (the copy carries its definition).
        let own = m
            .items
            .iter()
            .any(|i| matches!(i, syn::Item::Struct(s) if s.ident == self_name));
        if !own {
            out.1.push(skip(format!(
                "self type `{self_name}` is not defined in the method's module"
            )));
            continue;
        }
        let sig = match classify_sig(types, &f.sig, Some(&imp.generics), Some(&self_name)) {
            Ok(s) => s,
            Err(e) => {
                out.1.push(skip(e));
                continue;
            }
        };
        if sig.receiver.is_some() || sig.params.iter().any(|p| matches!(p.kind, Kind::Struct(_))) {
            let mut fresh = TypeCtx {
                types,
                generic: None,
                self_ty: None,
                structs: BTreeMap::new(),
            };
            if let Err(e) = fresh.local_struct(&self_name) {
                out.1
                    .push(skip(format!("self type not reconstructible: {e}")));
                continue;
            }
        }
        // Seeds: the method (or the whole trait impl), the self type.
        let mut seed = BTreeSet::new();
        seed.insert(self_name.clone());
        let (unit_ann, unit_plain, unit) = match &trait_name {
            None => {
                // The method and the other methods of the type's inherent impls it calls.
                idents(f.to_token_stream(), &mut seed);
                let methods = inherent_methods(m, &self_name, &seed, &fn_name);
                let header = impl_header(&m.text, imp);
                let mut ann = format!("{header}\n");
                let mut plain_imp = imp.clone();
                plain_imp.items.clear();
                for (text, item, _) in &methods {
                    ann.push_str(&format!("#[differentiable]\n{text}\n\n"));
                    plain_imp.items.push(syn::ImplItem::Fn(item.clone()));
                }
                ann.push_str(&format!(
                    "#[differentiable]\n{}\n}}",
                    item_text(&m.text, &f.attrs, f)
                ));
                plain_imp.items.push(ii.clone());
                for (_, item, _) in &methods {
                    idents(item.to_token_stream(), &mut seed);
                }
                (
                    ann,
                    syn::Item::Impl(plain_imp),
                    UnitKind::Inherent(self_name.clone()),
                )
            }
            Some(_) => {
                idents(imp.to_token_stream(), &mut seed);
                let ann = format!("#[differentiable]\n{}", item_text(&m.text, &imp.attrs, imp));
                (
                    ann,
                    syn::Item::Impl(imp.clone()),
                    UnitKind::TraitImpl(self_name.clone()),
                )
            }
        };
        // Inherent methods of the type that a trait impl calls come along, annotated.
        let mut extra_ann = String::new();
        let mut extra_plain = Vec::new();
        if matches!(unit, UnitKind::TraitImpl(_)) {
            let methods = inherent_methods(m, &self_name, &seed, "");
            if !methods.is_empty() {
                let mut plain_imp: Option<syn::ItemImpl> = None;
                extra_ann.push_str(&format!("impl {self_name} {{\n"));
                for (text, item, _) in &methods {
                    extra_ann.push_str(&format!("#[differentiable]\n{text}\n\n"));
                    let self_ty = &imp.self_ty;
                    let pi = plain_imp.get_or_insert_with(|| syn::parse_quote!(impl #self_ty {}));
                    pi.items.push(syn::ImplItem::Fn(item.clone()));
                    idents(item.to_token_stream(), &mut seed);
                }
                extra_ann.push('}');
                extra_plain.extend(plain_imp.map(syn::Item::Impl));
            }
        }
        // The type's other trait impls come along unchanged (supertraits such as `Min`/`Max`
        // must hold for the copied type); only the measured impl carries the attribute.
        if matches!(unit, UnitKind::TraitImpl(_)) {
            for other in &m.items {
                let syn::Item::Impl(o) = other else { continue };
                if o.trait_.is_none()
                    || std::ptr::eq(o, imp)
                    || impl_self_name(o).as_deref() != Some(&self_name)
                    || is_test_cfg(&o.attrs)
                {
                    continue;
                }
                extra_ann.push_str(&format!("\n\n{}", item_text(&m.text, &o.attrs, o)));
                extra_plain.push(other.clone());
                idents(o.to_token_stream(), &mut seed);
            }
        }
        let (mut ann, mut plain) = needed_items(m, &seed, "");
        // The self type's own inherent impls are not items with names: only the methods above.
        if !extra_ann.is_empty() {
            ann.push(extra_ann);
            plain.extend(extra_plain);
        }
        ann.push(unit_ann);
        plain.push(unit_plain);
        out.0.push(candidate(
            krate, m, modules, leaves, name, fn_name, unit, sig, ann, plain, None, line,
        ));
    }
}

/// The text of an impl from its first attribute to its opening brace.
fn impl_header(text: &str, imp: &syn::ItemImpl) -> String {
    let start = imp
        .attrs
        .first()
        .map_or(imp.span().start(), |a| a.span().start());
    let end = imp.brace_token.span.open().end();
    let (a, b) = (offset(text, start), offset(text, end));
    text.get(a..b).unwrap_or_default().to_string()
}

type Method = (String, syn::ImplItemFn, Vec<syn::Attribute>);

/// The methods of the type's inherent impls (in this module) named in `names`, transitively,
/// except `except`.
fn inherent_methods(
    m: &Module,
    self_name: &str,
    names: &BTreeSet<String>,
    except: &str,
) -> Vec<Method> {
    let mut names = names.clone();
    let mut taken: Vec<Method> = Vec::new();
    let mut seen = BTreeSet::new();
    loop {
        let mut grew = false;
        for item in &m.items {
            let syn::Item::Impl(imp) = item else { continue };
            if imp.trait_.is_some()
                || impl_self_name(imp).as_deref() != Some(self_name)
                || is_test_cfg(&imp.attrs)
            {
                continue;
            }
            for ii in &imp.items {
                let syn::ImplItem::Fn(f) = ii else { continue };
                let n = f.sig.ident.to_string();
                if n == except || seen.contains(&n) || !names.contains(&n) || is_test_cfg(&f.attrs)
                {
                    continue;
                }
                seen.insert(n);
                idents(f.to_token_stream(), &mut names);
                taken.push((item_text(&m.text, &f.attrs, f), f.clone(), f.attrs.clone()));
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    taken
}
