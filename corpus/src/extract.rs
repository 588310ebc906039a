//! Extraction: turns every free function and every inherent or trait-impl method of a parsed
//! crate ([`crate::parse`]) whose parameters and result are floats (or float sequences, arrays
//! and tuples of these, [`crate::signature`]) into a [`Candidate`]: the function's own text, the
//! texts of what it needs from its module and, through [`crate::resolve`], from the rest of the
//! crate, and its signature. Everything else that looks numeric is reported as a [`Skipped`]
//! item with its reason.

use std::collections::{BTreeMap, BTreeSet};

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use crate::imports::{use_leaves, Leaf};
use crate::parse::{
    idents, impl_self_name, is_test_cfg, item_attrs, item_name, item_text, line_of, load_file,
    offset, tokens, Module, OpenUp,
};
use crate::pinned::Pinned;
use crate::resolve::{self, Resolver};
use crate::signature::{classify_sig, looks_numeric, unsafe_or_foreign, CrateTypes, Sig, TypeCtx};
pub use crate::signature::{Float, Kind, Param, Pass, PlainStruct};

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
    /// The function's own generic arguments as the checks name them (`::<3, f64>`), or
    /// nothing.
    pub turbofish: String,
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
    /// The crate's support modules the copies name (`crate::prec::ulps_eq!`), each copied
    /// whole to the scratch crates' roots: name and file text.
    pub support: Vec<(String, String)>,
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

/// Reads the whole crate and extracts its candidates.
pub fn extract(krate: &Pinned) -> (Vec<Candidate>, Vec<Skipped>) {
    let mut modules = Vec::new();
    let root = krate.src_dir.join("src/lib.rs");
    load_file(&krate.src_dir, &root, Vec::new(), true, &mut modules);
    let crate_types = CrateTypes::collect(&modules);
    let mut out = (Vec::new(), Vec::new());
    for m in &modules {
        // (a name two modules define, such as statrs' kernel `Uniform` and distribution
        // `Uniform`, is the module's own)
        let types = crate_types.preferring(m);
        extract_module(krate, m, &modules, &types, &mut out);
    }
    out
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
    let mut image = resolve::image(&resolver, own, &seed);
    let lib = krate.name.replace('-', "_");
    let leaves_of = |i: usize| use_leaves(krate, &modules[i], modules);
    let defined: BTreeSet<String> = plain.iter().filter_map(item_name).collect();
    let mut uses: Vec<String> = Vec::new();
    for leaf in leaves {
        if leaf.name != "*" && defined.contains(&leaf.name) {
            continue;
        }
        // `use crate::prec;` of a support module: its whole copy at the scratch crate's root,
        // which has its private items too (`prec::convergence`, `pub(crate)`)
        if let Some((m0, path)) = &leaf.origin {
            let support =
                resolver
                    .resolve_use_all(*m0, path, 0)
                    .into_iter()
                    .find_map(|t| match t {
                        resolve::Target::Module(x) if modules[x].path.len() == 1 => {
                            let name = &modules[x].path[0];
                            resolver.support(name).map(|_| name.clone())
                        }
                        _ => None,
                    });
            if let (Some(name), false) = (support, leaf.name == "*") {
                let t = match leaf.name == name {
                    true => format!("use crate::{name};"),
                    false => format!("use crate::{name} as {};", leaf.name),
                };
                image.support.insert(name);
                if !uses.contains(&t) {
                    uses.push(t);
                }
                continue;
            }
        }
        let Some(t) = image.leaf_text(&resolver, leaf, "self::__crate") else {
            continue;
        };
        if !uses.contains(&t) {
            uses.push(t);
        }
    }
    // A public child module of the unit's module named as a path's head (`traits::Sqrt` in
    // vecmath's bounds: a name in scope in its parent, not in the scratch module): imported
    // from the published crate.
    let mut heads = Vec::new();
    for item in &plain {
        resolve::paths(item.to_token_stream(), &mut heads);
    }
    for child in &m.children {
        let mut path = m.path.clone();
        path.push(child.clone());
        let public = (modules.iter().find(|md| md.path == path))
            .is_some_and(|md| md.public_path_to_root(modules));
        let named = heads.iter().any(|h| h.len() > 1 && &h[0] == child);
        let bound = leaves.iter().any(|l| &l.name == child) || defined.contains(child);
        if public && named && !bound {
            let t = format!("use ::{lib}::{};", path.join("::"));
            if !uses.contains(&t) {
                uses.push(t);
            }
        }
    }
    // `crate::prec::…` of a support module stays (it is copied whole to the scratch crate's
    // root); an item the image holds is found there, one it does not (a published function
    // that could not move) in the published crate when its module is public.
    let place = |full: &[String], written: usize| -> String {
        let prefix = |root: String| {
            let mut p = root;
            for seg in &full[..written] {
                p.push_str(seg);
                p.push_str("::");
            }
            p
        };
        if full.first().is_some_and(|m| resolver.support(m).is_some()) {
            return prefix("crate::".to_string());
        }
        let Some((item, module)) = full.split_last() else {
            return prefix("self::__crate::".to_string());
        };
        let in_image = (modules.iter().position(|md| md.path[..] == module[..])).is_some_and(|k| {
            image
                .items
                .get(&k)
                .is_some_and(|names| names.contains(item))
        });
        let published = (modules.iter().find(|md| md.path[..] == module[..]))
            .is_some_and(|md| md.public_path_to_root(modules));
        match in_image || !published {
            true => prefix("self::__crate::".to_string()),
            false => prefix(format!("::{lib}::")),
        }
    };
    // Paths through the module tree written in the copied items' bodies (`super::normal::
    // cdf_unchecked`, `use crate::consts::LN_SQRT_2PI;` inside a function) point there too.
    let mut annotated: Vec<String> = annotated
        .iter()
        .map(|t| through_image(t, &m.path, &place))
        .collect();
    if !image.is_empty() {
        annotated.push(image.render(&resolver, &lib, &leaves_of, true));
    }
    let image_plain = image.render(&resolver, &lib, &leaves_of, false);
    for item in &mut plain {
        OpenUp.visit_item_mut(item);
    }
    let plain_text = through_image(
        &prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: plain,
        }),
        &m.path,
        &place,
    ) + &image_plain;
    let support = (image.support.iter())
        .filter_map(|n| resolver.support(n))
        .map(|(n, text)| (n.to_string(), text.to_string()))
        .collect();
    Candidate {
        support,
        krate: krate.name.clone(),
        file: m.file.clone(),
        line,
        name,
        fn_name,
        unit,
        turbofish: sig.turbofish,
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
                consts: Vec::new(),
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
                // (the attribute on the block, as a user writes it for associated functions
                // without `self`, `Normal::pdf(x, mean, sd)`, which it cannot tell from free
                // functions on a single method)
                let header = impl_header(&m.text, imp);
                let mut ann = format!("#[differentiable]\n{header}\n");
                let mut plain_imp = imp.clone();
                plain_imp.items.clear();
                for (text, item, _) in &methods {
                    ann.push_str(&format!("{text}\n\n"));
                    plain_imp.items.push(syn::ImplItem::Fn(item.clone()));
                }
                ann.push_str(&format!("{}\n}}", item_text(&m.text, &f.attrs, f)));
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
        // The type's other trait impls come along unchanged (supertraits such as `Min`/`Max`
        // must hold for the copied type; `Default` may call an inherent constructor); only
        // the measured impl carries the attribute.
        let mut extra_ann = String::new();
        let mut extra_plain = Vec::new();
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
        // Inherent methods of the type that the trait impls call come along, annotated.
        if matches!(unit, UnitKind::TraitImpl(_)) {
            let methods = inherent_methods(m, &self_name, &seed, "");
            if !methods.is_empty() {
                let mut plain_imp: Option<syn::ItemImpl> = None;
                // (the attribute on the block: an associated function without `self`, such as
                // a constructor `Default` calls, is one of the block's, kept as written)
                extra_ann.push_str(&format!("\n\n#[differentiable]\nimpl {self_name} {{\n"));
                for (text, item, _) in &methods {
                    extra_ann.push_str(&format!("{text}\n\n"));
                    let self_ty = &imp.self_ty;
                    let pi = plain_imp.get_or_insert_with(|| syn::parse_quote!(impl #self_ty {}));
                    pi.items.push(syn::ImplItem::Fn(item.clone()));
                    idents(item.to_token_stream(), &mut seed);
                }
                extra_ann.push('}');
                extra_plain.extend(plain_imp.map(syn::Item::Impl));
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

/// `text` (items of the module at `path`, copied into a scratch module) with its paths
/// through the crate's module tree — `super::…` (also `super::super::…`) and `crate::…` —
/// made absolute and handed to `place` with how many of its segments the prefix replaced,
/// which writes the prefix where the copy finds what they name (the image of those
/// modules, `self::__crate::…`, or the published crate). `$crate::` and
/// names ending in `crate`/`super` are left alone.
fn through_image(
    text: &str,
    path: &[String],
    place: &dyn Fn(&[String], usize) -> String,
) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let starts_word = |i: usize| {
        i == 0 || {
            let c = bytes[i - 1];
            !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
        }
    };
    // the segments `a::b::c` from `from` on (the last one not followed by `::`)
    let segments = |from: usize| -> Vec<String> {
        let mut segs = Vec::new();
        let mut j = from;
        loop {
            let seg: String = text[j..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if seg.is_empty() {
                break;
            }
            j += seg.len();
            segs.push(seg);
            if !text[j..].starts_with("::") {
                break;
            }
            j += 2;
        }
        segs
    };
    while i < text.len() {
        let rest = &text[i..];
        let base = if starts_word(i) && rest.starts_with("crate::") {
            i += "crate::".len();
            Some(Vec::new())
        } else if starts_word(i) && rest.starts_with("super::") {
            let mut k = 0;
            while text[i..].starts_with("super::") {
                k += 1;
                i += "super::".len();
            }
            Some(path[..path.len().saturating_sub(k)].to_vec())
        } else {
            None
        };
        if let Some(mut full) = base {
            let written = full.len();
            full.extend(segments(i));
            out.push_str(&place(&full, written));
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
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

/// A support module's text with `#[differentiable]` on each of its top-level functions with
/// float parameters (`prec::convergence(x: &mut f64, x_new: f64) -> bool`): the copies call
/// them with differentiable values, as they call their own module's helpers. Everything
/// else is left as written.
pub(crate) fn annotate_support(text: &str) -> String {
    let Ok(file) = syn::parse_file(text) else {
        return text.to_string();
    };
    let mut starts: Vec<usize> = (file.items.iter())
        .filter_map(|item| match item {
            syn::Item::Fn(f)
                if looks_numeric(&f.sig, false) && f.sig.generics.params.is_empty() =>
            {
                let start = f
                    .attrs
                    .first()
                    .map_or(f.span().start(), |a| a.span().start());
                Some(offset(text, start))
            }
            _ => None,
        })
        .collect();
    starts.sort_unstable();
    let mut out = String::with_capacity(text.len() + 40 * starts.len());
    let mut at = 0;
    for s in starts {
        out.push_str(&text[at..s]);
        out.push_str("#[::autodiff::differentiable]\n");
        at = s;
    }
    out.push_str(&text[at..]);
    out
}
