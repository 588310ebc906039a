//! Re-emitting user expressions that carry no derivative (constants, comparisons, integer
//! arithmetic, `stop_gradient(…)`) with the user's local names replaced by the IR's
//! variables, respecting the scopes the expression opens itself (closure parameters,
//! `let` in blocks, `match` arms, `for` patterns).

use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;
use syn::visit_mut::{self, VisitMut};

/// Renames the free local names of `expr` through `lookup`; returns the names it found
/// bound (whether or not their replacement differs).
pub fn rename_expr(
    expr: &mut syn::Expr,
    lookup: &dyn Fn(&str) -> Option<TokenStream>,
) -> Vec<String> {
    let mut r = Renamer {
        lookup,
        shadowed: vec![HashSet::new()],
        used: Vec::new(),
        values_only: false,
    };
    r.visit_expr_mut(expr);
    r.used
}

/// The free local names whose *values* `expr` uses: a name that is only the receiver of a
/// method whose result carries no derivative (`x.len()`, `x.floor()`) does not count.
pub fn free_names(expr: &syn::Expr, lookup: &dyn Fn(&str) -> Option<TokenStream>) -> Vec<String> {
    let mut copy = expr.clone();
    let mut r = Renamer {
        lookup,
        shadowed: vec![HashSet::new()],
        used: Vec::new(),
        values_only: true,
    };
    r.visit_expr_mut(&mut copy);
    r.used
}

struct Renamer<'a> {
    lookup: &'a dyn Fn(&str) -> Option<TokenStream>,
    shadowed: Vec<HashSet<String>>,
    used: Vec<String>,
    values_only: bool,
}

/// The names the `let`s of an `if let`/`while let` condition bind (`a && let …` chains
/// included), in scope in its body.
fn let_names(cond: &syn::Expr) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut stack = vec![cond];
    while let Some(e) = stack.pop() {
        match e {
            syn::Expr::Let(l) => pattern_names(&l.pat, &mut names),
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                stack.extend([&*b.left, &*b.right]);
            }
            syn::Expr::Paren(p) => stack.push(&p.expr),
            _ => {}
        }
    }
    names
}

pub(crate) fn pattern_names(pat: &syn::Pat, out: &mut HashSet<String>) {
    struct Names<'b>(&'b mut HashSet<String>);
    impl syn::visit::Visit<'_> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Names(out), pat);
}

impl Renamer<'_> {
    fn is_shadowed(&self, name: &str) -> bool {
        self.shadowed.iter().any(|s| s.contains(name))
    }

    fn replacement(&mut self, name: &str) -> Option<TokenStream> {
        if self.is_shadowed(name) {
            return None;
        }
        let found = (self.lookup)(name)?;
        self.used.push(name.to_string());
        Some(found)
    }

    fn with_scope(&mut self, names: HashSet<String>, f: impl FnOnce(&mut Self)) {
        self.shadowed.push(names);
        f(self);
        self.shadowed.pop();
    }

    fn rename_tokens(&mut self, tokens: TokenStream) -> TokenStream {
        let mut out = Vec::new();
        let mut prev_dot = false;
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (k, tt) in tokens.iter().cloned().enumerate() {
            let next_prev_dot = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '.');
            let receiver_of_constant_method = self.values_only
                && matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.')
                && tokens.get(k + 2).is_some_and(|t| {
                    let TokenTree::Ident(m) = t else { return false };
                    crate::rules::is_piecewise_constant(&m.to_string())
                });
            match tt {
                TokenTree::Ident(_) if receiver_of_constant_method => out.push(tt),
                TokenTree::Ident(ref id) if !prev_dot => match self.replacement(&id.to_string()) {
                    Some(rep) => out.extend(rep),
                    None => out.push(tt),
                },
                TokenTree::Group(g) => {
                    let mut ng =
                        proc_macro2::Group::new(g.delimiter(), self.rename_tokens(g.stream()));
                    ng.set_span(g.span());
                    out.push(TokenTree::Group(ng));
                }
                other => out.push(other),
            }
            prev_dot = next_prev_dot;
        }
        out.into_iter().collect()
    }
}

impl VisitMut for Renamer<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if p.qself.is_none() {
                if let Some(id) = p.path.get_ident() {
                    if let Some(rep) = self.replacement(&id.to_string()) {
                        *e = syn::Expr::Verbatim(rep);
                    }
                    return;
                }
            }
        }
        match e {
            syn::Expr::MethodCall(m)
                if self.values_only
                    && crate::rules::is_piecewise_constant(&m.method.to_string()) =>
            {
                m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
            }
            syn::Expr::Closure(c) => {
                let mut names = HashSet::new();
                c.inputs.iter().for_each(|p| pattern_names(p, &mut names));
                self.with_scope(names, |r| r.visit_expr_mut(&mut c.body));
            }
            syn::Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let mut names = HashSet::new();
                pattern_names(&f.pat, &mut names);
                self.with_scope(names, |r| r.visit_block_mut(&mut f.body));
            }
            syn::Expr::Let(l) => {
                // `if let` / `while let`: the names bind in the body, which the enclosing
                // `if` handles conservatively by shadowing them for the rest of the condition.
                self.visit_expr_mut(&mut l.expr);
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let mut names = HashSet::new();
        pattern_names(&arm.pat, &mut names);
        self.with_scope(names, |r| {
            if let Some((_, guard)) = &mut arm.guard {
                r.visit_expr_mut(guard);
            }
            r.visit_expr_mut(&mut arm.body);
        });
    }

    fn visit_expr_if_mut(&mut self, i: &mut syn::ExprIf) {
        let names = let_names(&i.cond);
        self.visit_expr_mut(&mut i.cond);
        self.with_scope(names, |r| r.visit_block_mut(&mut i.then_branch));
        if let Some((_, e)) = &mut i.else_branch {
            self.visit_expr_mut(e);
        }
    }

    fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
        let names = let_names(&w.cond);
        self.visit_expr_mut(&mut w.cond);
        self.with_scope(names, |r| r.visit_block_mut(&mut w.body));
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.shadowed.push(HashSet::new());
        for stmt in &mut b.stmts {
            match stmt {
                syn::Stmt::Local(l) => {
                    if let Some(init) = &mut l.init {
                        self.visit_expr_mut(&mut init.expr);
                        if let Some((_, d)) = &mut init.diverge {
                            self.visit_expr_mut(d);
                        }
                    }
                    let mut names = HashSet::new();
                    pattern_names(&l.pat, &mut names);
                    self.shadowed.last_mut().expect("scope").extend(names);
                }
                other => self.visit_stmt_mut(other),
            }
        }
        self.shadowed.pop();
    }

    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        if f.colon_token.is_none() {
            if let syn::Member::Named(id) = &f.member {
                if let Some(rep) = self.replacement(&id.to_string()) {
                    f.colon_token = Some(Default::default());
                    f.expr = syn::Expr::Verbatim(rep);
                    return;
                }
            }
        }
        visit_mut::visit_field_value_mut(self, f);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let captured = format_captures(m);
        m.tokens = self.rename_tokens(std::mem::take(&mut m.tokens));
        // names a format string captures (`format!("{x}")`) are renamed as named
        // arguments: `format!("{x}", x = __v3)`
        for name in captured {
            if let Some(rep) = self.replacement(&name) {
                let id = syn::Ident::new(&name, proc_macro2::Span::call_site());
                let tokens = std::mem::take(&mut m.tokens);
                m.tokens = quote::quote!(#tokens, #id = #rep);
            }
        }
    }
}

/// The names a format-like macro's string captures (`{x}`, `{x:.3}`), not passed as named
/// arguments already.
fn format_captures(m: &syn::Macro) -> Vec<String> {
    let Some(name) = m.path.segments.last().map(|s| s.ident.to_string()) else {
        return Vec::new();
    };
    // how many arguments come before the format string
    let skip = match name.as_str() {
        "format" | "print" | "println" | "eprint" | "eprintln" | "panic" | "unreachable"
        | "todo" | "unimplemented" | "format_args" => 0,
        "assert" | "debug_assert" | "write" | "writeln" => 1,
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" => 2,
        _ => return Vec::new(),
    };
    let tokens: Vec<TokenTree> = m.tokens.clone().into_iter().collect();
    let mut commas = 0;
    let mut format = None;
    let mut named = HashSet::new();
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Punct(p) if p.as_char() == ',' => commas += 1,
            TokenTree::Literal(l) if commas == skip && format.is_none() => {
                format = syn::parse_str::<syn::LitStr>(&l.to_string()).ok();
            }
            TokenTree::Ident(id) if commas > skip => {
                let assigned = matches!(tokens.get(k + 1), Some(TokenTree::Punct(p))
                    if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone);
                if assigned {
                    named.insert(id.to_string());
                }
            }
            _ => {}
        }
    }
    let Some(format) = format else {
        return Vec::new();
    };
    let text = format.value();
    let mut out: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '{' {
            continue;
        }
        if chars.peek() == Some(&'{') {
            chars.next();
            continue;
        }
        let mut arg = String::new();
        while let Some(&c) = chars.peek() {
            if c == '}' || c == ':' {
                break;
            }
            arg.push(c);
            chars.next();
        }
        let arg = arg.trim().to_string();
        let is_name = arg
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && arg.chars().all(|c| c.is_alphanumeric() || c == '_');
        if is_name && !named.contains(&arg) && !out.contains(&arg) {
            out.push(arg);
        }
    }
    out
}
