//! Float expressions as trees, so they print with exactly the parentheses Rust's
//! precedence needs.

/// A float expression, printed with the parentheses Rust's precedence needs.
#[derive(Clone, Debug)]
pub(crate) enum Expr {
    /// A float literal: its type is inferred (`{float}`).
    Lit(f64),
    /// A literal with its type written out: `0.5_f64`.
    TLit(f64),
    /// A variable, an index, a reduction: anything that binds tighter than a method call.
    Atom(String),
    /// `*v` for an iterator's `&f64`.
    Deref(String),
    /// `i as f64`.
    Cast(String),
    Neg(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Method(Box<Expr>, &'static str, Vec<Expr>),
    Call(String, Vec<Expr>),
}

pub(crate) use Expr::{Atom, Bin, Call, Cast, Deref, Lit, Method, Neg, TLit};

pub(crate) fn bin(op: char, l: Expr, r: Expr) -> Expr {
    Bin(op, Box::new(l), Box::new(r))
}

pub(crate) fn method(recv: Expr, name: &'static str, args: Vec<Expr>) -> Expr {
    // `(0.5 * 0.25).sin()` does not compile: a method needs a receiver of known type.
    Method(Box::new(typed(recv)), name, args)
}

/// Whether the type of `e` is known to be `f64` (not only `{float}`) where it is written.
pub(crate) fn is_typed(e: &Expr) -> bool {
    match e {
        Lit(_) => false,
        Neg(x) => is_typed(x),
        Bin(_, l, r) => is_typed(l) || is_typed(r),
        _ => true,
    }
}

/// `e` with its leftmost literal typed if its type would otherwise be unknown.
pub(crate) fn typed(e: Expr) -> Expr {
    if is_typed(&e) {
        return e;
    }
    match e {
        Lit(v) => TLit(v),
        Neg(x) => Neg(Box::new(typed(*x))),
        Bin(op, l, r) => Bin(op, Box::new(typed(*l)), r),
        e => e,
    }
}

pub(crate) fn lit(v: f64) -> String {
    format!("{v:?}")
}

impl Expr {
    pub(crate) fn prec(&self) -> u8 {
        match self {
            Lit(v) | TLit(v) if *v < 0.0 => 4,
            Lit(_) | TLit(_) | Atom(_) | Method(..) | Call(..) => 5,
            Deref(_) | Neg(_) => 4,
            Cast(_) => 3,
            Bin('+' | '-', ..) => 1,
            Bin(..) => 2,
        }
    }

    pub(crate) fn paren(&self, needed: bool) -> String {
        if needed {
            format!("({})", self.render())
        } else {
            self.render()
        }
    }

    pub(crate) fn render(&self) -> String {
        match self {
            Lit(v) => lit(*v),
            TLit(v) => format!("{}_f64", lit(*v)),
            Atom(s) => s.clone(),
            Deref(s) => format!("*{s}"),
            Cast(s) => format!("{s} as f64"),
            Neg(e) => format!("-{}", e.paren(e.prec() < 5)),
            Bin(op, l, r) => {
                let p = self.prec();
                format!("{} {op} {}", l.paren(l.prec() < p), r.paren(r.prec() <= p))
            }
            Method(recv, name, args) => {
                let args: Vec<String> = args.iter().map(Expr::render).collect();
                format!(
                    "{}.{name}({})",
                    recv.paren(recv.prec() < 5),
                    args.join(", ")
                )
            }
            Call(f, args) => {
                let args: Vec<String> = args.iter().map(Expr::render).collect();
                format!("{f}({})", args.join(", "))
            }
        }
    }

    /// Rendered as the left operand of a comparison (`i as f64 < x` would parse as generics).
    pub(crate) fn render_cmp(&self) -> String {
        let text = self.render();
        if text.contains(" as ") {
            format!("({text})")
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_get_the_parentheses_they_need() {
        let e = bin('-', Atom("a".into()), bin('-', Atom("b".into()), Lit(1.0)));
        assert_eq!(e.render(), "a - (b - 1.0)");
        let e = method(bin('*', Lit(2.0), Atom("a".into())), "sin", vec![]);
        assert_eq!(e.render(), "(2.0 * a).sin()");
        let e = Neg(Box::new(Lit(-0.5)));
        assert_eq!(e.render(), "-(-0.5)");
        assert_eq!(Cast("i".into()).render_cmp(), "(i as f64)");
    }
}
