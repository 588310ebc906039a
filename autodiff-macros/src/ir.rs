//! The body IR: a function body in A-normal form.
//!
//! Every intermediate result is a variable with a number; every statement keeps the span
//! of the user's code it came from. Control flow (branches, loops) will be further
//! statement kinds holding nested [`Block`]s; the forward and reverse sweeps are emitted
//! from this IR, never from syn's AST.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// A variable of the IR, emitted as `__vN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub usize);

impl VarId {
    /// The variable's name in the generated code (hygienic: user code cannot name it).
    pub fn ident(self) -> syn::Ident {
        format_ident!("__v{}", self.0, span = Span::mixed_site())
    }
    /// The name of the variable's adjoint in the reverse sweep.
    pub fn adjoint(self) -> syn::Ident {
        format_ident!("__d{}", self.0, span = Span::mixed_site())
    }
    /// The name of the pullback of the call that defined the variable.
    pub fn pullback(self) -> syn::Ident {
        format_ident!("__pb{}", self.0, span = Span::mixed_site())
    }
}

/// What the IR knows of a variable.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Whether the variable depends on a differentiable input (and so gets an adjoint).
    pub active: bool,
}

/// An operand of a primitive or call: a variable, or an inactive expression (a literal or
/// a path to a constant) written inline.
#[derive(Clone, Debug)]
pub enum Operand {
    Var(VarId),
    Inline(syn::Expr),
}

impl Operand {
    pub fn tokens(&self) -> TokenStream {
        match self {
            Operand::Var(v) => {
                let id = v.ident();
                quote!(#id)
            }
            Operand::Inline(e) => quote!((#e)),
        }
    }
    pub fn var(&self) -> Option<VarId> {
        match self {
            Operand::Var(v) => Some(*v),
            Operand::Inline(_) => None,
        }
    }
}

/// A value as the lowering sees it: a variable, an inline constant, or a tuple of values
/// (tuples are structural: `let (a, b) = (x, y)` costs nothing).
#[derive(Clone, Debug)]
pub enum Value {
    Var(VarId),
    Inline(syn::Expr),
    Tuple(Vec<Value>),
}

impl Value {
    pub fn tokens(&self) -> TokenStream {
        match self {
            Value::Var(v) => {
                let id = v.ident();
                quote!(#id)
            }
            Value::Inline(e) => quote!((#e)),
            Value::Tuple(items) => {
                let items = items.iter().map(Value::tokens);
                quote!((#(#items,)*))
            }
        }
    }
    pub fn vars(&self, out: &mut Vec<VarId>) {
        match self {
            Value::Var(v) => out.push(*v),
            Value::Inline(_) => {}
            Value::Tuple(items) => items.iter().for_each(|i| i.vars(out)),
        }
    }
}

/// A primitive whose derivative rule lives in the runtime (`ops::<rule>_d<k>`).
#[derive(Clone, Debug)]
pub enum Prim {
    /// A binary operator; `rule` is `add`, `sub`, `mul`, `div` or `rem`.
    Binary { rule: &'static str, op: syn::BinOp },
    /// Unary minus.
    Neg,
    /// A float method, `x.sin()` or `f64::sin(x)`; `callee` is the user's path in path form.
    Method { rule: &'static str, method: syn::Ident, callee: Option<syn::ExprPath> },
    /// `x as f32` / `x as f64`.
    Cast { ty: Box<syn::Type> },
}

/// The right-hand side of an assignment.
#[derive(Clone, Debug)]
pub enum Rhs {
    /// `let y = x;`
    Copy(Operand),
    /// A primitive with its operands (receiver first for methods).
    Prim(Prim, Vec<Operand>),
    /// A call of another differentiable function, through its generated pullback.
    Call { func: syn::ExprPath, args: Vec<Operand> },
    /// An expression that is constant with respect to the inputs (zero derivative),
    /// emitted as written with the user's names replaced by the IR's variables.
    Inactive(TokenStream),
}

/// A statement of the IR.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let __vN[: ty] = rhs;`
    Let { dst: VarId, ty: Option<Box<syn::Type>>, rhs: Rhs, span: Span },
    /// A statement evaluated for its effect only (`println!(…);`), emitted as written.
    Effect(TokenStream),
}

/// A straight-line sequence of statements.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

/// A function body in IR form.
#[derive(Clone, Debug)]
pub struct Body {
    pub vars: Vec<VarInfo>,
    /// Items declared inside the body (`use`, `const`, nested functions), kept as written.
    pub items: Vec<syn::Item>,
    pub block: Block,
    pub output: Value,
}

impl Body {
    pub fn is_active(&self, v: VarId) -> bool {
        self.vars[v.0].active
    }
}
