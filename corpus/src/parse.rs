//! Parsing: reads a crate's sources with `syn` and follows its module tree from `src/lib.rs`
//! ([`Module`]); the helpers that read items back as text, names and identifiers.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// One module: its path in the crate, its items, and the text they were parsed from.
pub(crate) struct Module {
    pub(crate) path: Vec<String>,
    pub(crate) public: bool,
    pub(crate) file: String,
    pub(crate) text: std::rc::Rc<String>,
    pub(crate) items: Vec<syn::Item>,
    pub(crate) children: BTreeSet<String>,
}

impl Module {
    /// Whether the module and every module above it are public (its path reachable from
    /// outside the crate); the crate root is.
    pub(crate) fn public_path_to_root(&self, modules: &[Module]) -> bool {
        (0..self.path.len()).all(|k| {
            modules
                .iter()
                .any(|md| md.path[..] == self.path[..=k] && md.public)
        })
    }
}

pub(crate) fn is_test_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        (a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
            || a.path().is_ident("test")
    })
}

pub(crate) fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
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

pub(crate) fn load_file(
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
pub(crate) fn add_module(
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

pub(crate) fn impl_self_name(imp: &syn::ItemImpl) -> Option<String> {
    match &*imp.self_ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
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

pub(crate) fn line_of(span: Span) -> usize {
    span.start().line
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
