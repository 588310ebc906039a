//! Seeds: every function, `impl` and derived struct the repository itself annotates (tests,
//! UI tests, examples, benchmarks, documentation), and pools of their expressions,
//! statements, types and patterns for the mutator to splice in.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::path::Path;
use syn::visit::Visit;

/// An annotated item: the attribute's arguments and the item without the attribute.
pub struct Seed {
    pub args: TokenStream,
    pub item: syn::Item,
}

#[derive(Default)]
pub struct Pool {
    pub functions: Vec<Seed>,
    pub structs: Vec<syn::ItemStruct>,
    pub exprs: Vec<syn::Expr>,
    pub stmts: Vec<syn::Stmt>,
    pub types: Vec<syn::Type>,
    pub pats: Vec<syn::Pat>,
    pub paths: Vec<syn::Path>,
}

impl Pool {
    pub fn load() -> Pool {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for dir in [
            "tests",
            "examples",
            "benches",
            "src",
            "autodiff-macros/src/lib.rs",
        ] {
            collect_files(&root.join(dir), &mut files);
        }
        files.sort();
        let mut pool = Pool::default();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let Ok(parsed) = syn::parse_file(&text) else {
                continue;
            };
            pool.visit_file(&parsed);
            // Doc-comment examples: the fenced code of `///` lines.
            for block in doc_blocks(&text) {
                if let Ok(parsed) = syn::parse_file(&block) {
                    pool.visit_file(&parsed);
                }
                if let Ok(parsed) = syn::parse_file(&format!("fn __doc() {{ {block} }}")) {
                    pool.visit_file(&parsed);
                }
            }
        }
        pool
    }
}

fn collect_files(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_file() {
        if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        collect_files(&entry.path(), out);
    }
}

fn doc_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let Some(doc) = line.trim_start().strip_prefix("///") else {
            if let Some(b) = current.take() {
                blocks.push(b);
            }
            continue;
        };
        let doc = doc.strip_prefix(' ').unwrap_or(doc);
        if doc.starts_with("```") {
            match current.take() {
                Some(b) => blocks.push(b),
                None => current = Some(String::new()),
            }
        } else if let Some(b) = current.as_mut() {
            b.push_str(doc.strip_prefix("# ").unwrap_or(doc));
            b.push('\n');
        }
    }
    blocks
}

/// The arguments of `#[differentiable(...)]` among `attrs`, removing that attribute.
fn take_marker(attrs: &mut Vec<syn::Attribute>) -> Option<TokenStream> {
    let at = attrs
        .iter()
        .position(|a| a.path().is_ident("differentiable"))?;
    let attr = attrs.remove(at);
    Some(match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    })
}

impl<'ast> Visit<'ast> for Pool {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let mut item = f.clone();
        if let Some(args) = take_marker(&mut item.attrs) {
            self.functions.push(Seed {
                args,
                item: syn::Item::Fn(item),
            });
        }
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let mut whole = i.clone();
        if let Some(args) = take_marker(&mut whole.attrs) {
            self.functions.push(Seed {
                args,
                item: syn::Item::Impl(whole),
            });
        }
        // A marked method, as a function of its own (its receiver kept).
        for it in &i.items {
            if let syn::ImplItem::Fn(m) = it {
                let mut attrs = m.attrs.clone();
                if let Some(args) = take_marker(&mut attrs) {
                    let item = syn::ItemFn {
                        attrs,
                        vis: m.vis.clone(),
                        sig: m.sig.clone(),
                        block: Box::new(m.block.clone()),
                    };
                    self.functions.push(Seed {
                        args,
                        item: syn::Item::Fn(item),
                    });
                }
            }
        }
        syn::visit::visit_item_impl(self, i);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        if s.attrs
            .iter()
            .any(|a| a.to_token_stream().to_string().contains("Differentiable"))
        {
            let mut s = s.clone();
            s.attrs.retain(|a| !a.path().is_ident("derive"));
            self.structs.push(s);
        }
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.exprs.len() < 20_000 {
            self.exprs.push(e.clone());
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        if self.stmts.len() < 10_000 {
            self.stmts.push(s.clone());
        }
        syn::visit::visit_stmt(self, s);
    }

    fn visit_type(&mut self, t: &'ast syn::Type) {
        if self.types.len() < 5_000 {
            self.types.push(t.clone());
        }
        syn::visit::visit_type(self, t);
    }

    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        if self.pats.len() < 5_000 {
            self.pats.push(p.clone());
        }
        syn::visit::visit_pat(self, p);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if self.paths.len() < 5_000 {
            self.paths.push(p.path.clone());
        }
        syn::visit::visit_expr_path(self, p);
    }
}
