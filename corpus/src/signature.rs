//! Signatures: which parameters and results the checks can hold ([`Kind`]), through the
//! crate's type aliases and plain structs, and which functions are left out (unsafe, FFI, SIMD).

use std::collections::BTreeMap;

use syn::visit_mut::VisitMut;

use crate::parse::{tokens, Module};

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
    /// `Option<X>` of a parameter (`xbar: Option<f64>`, `when: Option<bool>`): drawn
    /// `Some` or `None`; an optional float's gradient is the float's, zero for `None`.
    Optional(Box<Kind>),
}

impl Kind {
    /// Whether a value of this kind carries a gradient.
    pub fn differentiable(&self) -> bool {
        match self {
            Kind::Float(_) => true,
            Kind::Int(_) | Kind::Bool | Kind::Struct(_) => false,
            Kind::Vec(k) | Kind::Array(k, _) | Kind::Optional(k) => k.differentiable(),
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
            Kind::Vec(k) | Kind::Array(k, _) | Kind::Optional(k) => k.single(),
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
    /// By exclusive reference to floats (`&mut f64`, `&mut [f64]`, `&mut [f64; N]`): each
    /// call is lent a copy of the drawn value; the check differentiates the result with
    /// respect to the value the function starts from.
    Mut,
}

/// One parameter of a measured function.
#[derive(Clone, Debug)]
pub struct Param {
    /// How the argument is passed.
    pub pass: Pass,
    /// What it is.
    pub kind: Kind,
}

/// A struct of the crate that the checks can build from random field values.
#[derive(Clone, Debug)]
pub struct PlainStruct {
    /// Field names with their kinds, in declaration order (tuple structs: `0`, `1`, …).
    pub fields: Vec<(String, Kind)>,
    /// A tuple struct.
    pub tuple: bool,
}

/// Type aliases and plain structs of the whole crate, by name.
#[derive(Clone)]
pub(crate) struct CrateTypes {
    pub(crate) aliases: BTreeMap<String, syn::ItemType>,
    pub(crate) structs: BTreeMap<String, syn::ItemStruct>,
    /// `usize` constants (array lengths such as `const ORDER: usize = 6;`), by name: their
    /// value where it is a literal or a sum of literals and earlier such constants.
    pub(crate) lengths: BTreeMap<String, u64>,
}

impl CrateTypes {
    pub(crate) fn collect(modules: &[Module]) -> Self {
        let mut types = CrateTypes {
            aliases: BTreeMap::new(),
            structs: BTreeMap::new(),
            lengths: BTreeMap::new(),
        };
        modules.iter().for_each(|m| types.add(m));
        types
    }

    /// The type aliases and structs `m` defines, in place of any of the same name.
    fn add(&mut self, m: &Module) {
        for item in &m.items {
            match item {
                syn::Item::Type(t) => {
                    self.aliases.insert(t.ident.to_string(), t.clone());
                }
                syn::Item::Struct(s) => {
                    self.structs.insert(s.ident.to_string(), s.clone());
                }
                syn::Item::Const(c) if tokens(&c.ty) == "usize" => {
                    if let Some(n) = self.length_value(&c.expr) {
                        self.lengths.insert(c.ident.to_string(), n);
                    }
                }
                _ => {}
            }
        }
    }

    /// The value of a length: an integer literal, a constant known so far, or a sum or
    /// product of those.
    fn length_value(&self, e: &syn::Expr) -> Option<u64> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse().ok(),
            syn::Expr::Path(p) => self.lengths.get(&p.path.get_ident()?.to_string()).copied(),
            syn::Expr::Paren(p) => self.length_value(&p.expr),
            syn::Expr::Binary(b) => {
                let (l, r) = (self.length_value(&b.left)?, self.length_value(&b.right)?);
                match b.op {
                    syn::BinOp::Add(_) => l.checked_add(r),
                    syn::BinOp::Mul(_) => l.checked_mul(r),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The crate's types with those `m` defines in place of others of the same name.
    pub(crate) fn preferring(&self, m: &Module) -> CrateTypes {
        let mut types = self.clone();
        types.add(m);
        types
    }
}

/// Replaces a type parameter by a concrete type.
pub(crate) struct Subst<'a> {
    pub(crate) from: &'a str,
    pub(crate) to: syn::Type,
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
pub(crate) struct TypeCtx<'a> {
    pub(crate) types: &'a CrateTypes,
    pub(crate) generic: Option<String>,
    /// The function's const generic parameters (`N` of `[T; N]`), each instantiated with
    /// [`CONST_N`].
    pub(crate) consts: Vec<String>,
    pub(crate) self_ty: Option<String>,
    pub(crate) structs: BTreeMap<String, PlainStruct>,
}

impl TypeCtx<'_> {
    fn classify(&mut self, ty: &syn::Type, depth: usize) -> Result<(Pass, Kind), String> {
        match ty {
            syn::Type::Reference(r) => {
                if r.mutability.is_some() {
                    let kind = match &*r.elem {
                        syn::Type::Slice(s) => Kind::Vec(Box::new(self.value(&s.elem, depth)?)),
                        other => self.value(other, depth)?,
                    };
                    let floats = match &kind {
                        Kind::Float(_) => true,
                        Kind::Vec(e) | Kind::Array(e, _) => matches!(**e, Kind::Float(_)),
                        _ => false,
                    };
                    if !floats {
                        return Err(format!("`&mut` parameter `{}`", tokens(ty)));
                    }
                    return Ok((Pass::Mut, kind));
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
                syn::Expr::Path(n)
                    if n.path
                        .get_ident()
                        .is_some_and(|id| self.consts.contains(&id.to_string())) =>
                {
                    Ok(Kind::Array(
                        Box::new(self.value(&a.elem, depth + 1)?),
                        CONST_N.to_string(),
                    ))
                }
                len => match self.types.length_value(len) {
                    // (a constant of the crate: its value)
                    Some(n) => Ok(Kind::Array(
                        Box::new(self.value(&a.elem, depth + 1)?),
                        n.to_string(),
                    )),
                    None => Err(format!(
                        "array length `{}` is not a literal",
                        tokens(&a.len)
                    )),
                },
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

    pub(crate) fn local_struct(&mut self, name: &str) -> Result<Kind, String> {
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
            consts: Vec::new(),
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

pub(crate) fn unsafe_or_foreign(
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

pub(crate) struct Sig {
    /// The function's own generic arguments as a call names them (`::<3, f64>`), or nothing.
    pub(crate) turbofish: String,
    pub(crate) receiver: Option<Pass>,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Kind,
    pub(crate) structs: BTreeMap<String, PlainStruct>,
}

/// The length a const generic parameter is instantiated with.
pub(crate) const CONST_N: usize = 3;

/// A function's own type and const parameters, in order, as the checks instantiate them: its
/// float type `f64` and each length [`CONST_N`] (nothing without any).
fn turbofish(generics: &syn::Generics) -> String {
    let args: Vec<String> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(_) => Some("f64".to_string()),
            syn::GenericParam::Const(_) => Some(CONST_N.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    match args.is_empty() {
        true => String::new(),
        false => format!("::<{}>", args.join(", ")),
    }
}

pub(crate) fn classify_sig(
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
    // A function's own const parameters are instantiated (`::<3, f64>`), if every one is a
    // `usize` (a length).
    let consts: Vec<String> = sig
        .generics
        .const_params()
        .map(|c| c.ident.to_string())
        .collect();
    if sig
        .generics
        .const_params()
        .any(|c| !matches!(&c.ty, syn::Type::Path(t) if t.path.is_ident("usize")))
    {
        return Err("const generic parameter of a type other than `usize`".into());
    }
    if type_params.len() > 1 {
        return Err(format!("{} type parameters", type_params.len()));
    }
    let mut ctx = TypeCtx {
        types,
        generic: type_params.first().cloned(),
        consts,
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
                let (pass, kind) = match optional(&t.ty) {
                    // (an optional float parameter, or an optional constant; not as a
                    // result)
                    Some(inner) => match ctx.classify(inner, 1)? {
                        (Pass::Value, k @ (Kind::Float(_) | Kind::Bool | Kind::Int(_))) => {
                            (Pass::Value, Kind::Optional(Box::new(k)))
                        }
                        _ => return Err(format!("type `{}` not supported", tokens(&t.ty))),
                    },
                    None => ctx.classify(&t.ty, 0)?,
                };
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
        turbofish: turbofish(&sig.generics),
        receiver,
        params,
        output,
        structs: ctx.structs,
    })
}

/// A signature that mentions a float type somewhere (the others are not reported at all).
pub(crate) fn looks_numeric(sig: &syn::Signature, generic_impl: bool) -> bool {
    let t = tokens(sig);
    t.contains("f64")
        || t.contains("f32")
        || sig.generics.type_params().next().is_some()
        || t.contains("Self")
        || generic_impl
}

/// `X` of `Option<X>`.
fn optional(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match (p.qself.is_none() && last.ident == "Option", a.args.first()) {
        (true, Some(syn::GenericArgument::Type(t))) if a.args.len() == 1 => Some(t),
        _ => None,
    }
}
