//! Syntax generated from Rust's grammar: expressions of every kind, statements, patterns,
//! types, signatures and attribute arguments, written as text and parsed by syn (text that
//! does not parse is drawn again).

use super::seeds::Pool;
use super::{Input, Rng};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

const NAMES: &[&str] = &[
    "x",
    "y",
    "w",
    "a",
    "b",
    "v",
    "xs",
    "out",
    "p",
    "self",
    "n",
    "i",
    "t",
    "state",
    "T",
    "f",
    "grad",
    "__vjp",
    "__autodiff_x",
    "sin",
    "sum",
    "r#fn",
    "_",
    "Self",
];

const METHODS: &[&str] = &[
    "sin",
    "cos",
    "exp",
    "ln",
    "sqrt",
    "powi",
    "powf",
    "abs",
    "max",
    "min",
    "tanh",
    "sum",
    "dot",
    "iter",
    "map",
    "len",
    "nrows",
    "mapv",
    "t",
    "unwrap",
    "clone",
    "to_vec",
    "into",
    "as_slice",
    "fold",
    "zip",
    "rev",
    "windows",
    "chunks",
    "split_at",
    "hypot",
    "atan2",
    "mean",
    "first",
    "get",
    "is_empty",
    "to_bits",
    "mul_add",
    "recip",
    "sum_axis",
    "view",
    "collect",
    "enumerate",
    "copied",
    "product",
    "signum",
    "floor",
    "exp_m1",
    "ln_1p",
    "foo",
];

const TYPES: &[&str] = &[
    "f64",
    "f32",
    "i32",
    "usize",
    "bool",
    "T",
    "&[f64]",
    "&mut [f64]",
    "Vec<f64>",
    "[f64; 3]",
    "&[f64; 2]",
    "[[f64; 2]; 2]",
    "&mut f64",
    "Array1<f64>",
    "&Array2<f64>",
    "ArrayView1<f64>",
    "ArrayViewMut1<f64>",
    "(f64, f64)",
    "(f64, (f64, [f64; 2]))",
    "Option<f64>",
    "Result<f64, String>",
    "&str",
    "String",
    "Self",
    "&Self",
    "impl Fn(f64) -> f64",
    "&dyn Fn(f64) -> f64",
    "Box<f64>",
    "Vec<Vec<f64>>",
    "Model",
    "&Model",
    "Line<T>",
    "()",
    "!",
    "_",
    "&'a [T]",
    "*const f64",
    "fn(f64) -> f64",
    "Variable<f64>",
    "Array<f64, Ix2>",
    "HashMap<usize, f64>",
    "std::rc::Rc<f64>",
    "[T; N]",
    "&mut Vec<f64>",
    "Gradients",
];

const PATS: &[&str] = &[
    "x",
    "mut x",
    "_",
    "(a, b)",
    "[a, b]",
    "[a, ..]",
    "[first, rest @ ..]",
    "&x",
    "&mut x",
    "ref x",
    "Some(v)",
    "Ok(v)",
    "Line { w, b }",
    "Line { w, .. }",
    "(a, (b, c))",
    "x @ 1..=3",
    "1 | 2",
    "..",
    "Self",
    "mut _unused",
    "[[a, b], [c, d]]",
    "(mut a, mut b)",
];

const STMTS: &[&str] = &[
    "let mut acc = 0.0;",
    "acc += x * x;",
    "let (a, b) = (x, y);",
    "let [p, q] = arr;",
    "let z: f64;",
    "let v = vec![x; 3];",
    "let mut buf = [0.0; 4];",
    "buf[1] = x;",
    "for i in 0..n { acc += xs[i]; }",
    "for v in xs.iter() { acc += v; }",
    "for (i, v) in xs.iter().enumerate() { acc = acc * v + i as f64; }",
    "while acc < 1.0 { acc *= 2.0; }",
    "loop { if acc > x { break; } acc += 1.0; }",
    "if x > 0.0 { return x; }",
    "let Some(v) = opt else { return 0.0; };",
    "let s = xs.iter().map(|v| v * v).sum::<f64>();",
    "let f = |t: f64| t * x;",
    "fn inner(t: f64) -> f64 { t * t }",
    "const C: f64 = 2.0;",
    "static mut S: f64 = 1.0;",
    "struct Local { a: f64 }",
    "use std::f64::consts::PI;",
    "println!(\"{}\", x);",
    "assert!(x > 0.0);",
    "debug_assert_eq!(xs.len(), 3);",
    "unsafe { S = x; }",
    "*out = x;",
    "out[0] += x;",
    "self.w = x;",
    "x = x + 1.0;",
    "let _ = stop_gradient(x);",
    "let g = gradients_function!(inner)(x);",
    "macro_rules! m { () => {} }",
    "let t = (x, y).0;",
    "let m = match n { 0 => x, 1 | 2 => y, _ => x + y };",
    "let r = if let Some(v) = opt { v } else { x };",
    "let k = xs[..2].iter().sum::<f64>();",
    "let (left, right) = xs.split_at(1);",
    "let c = 'outer: loop { break 'outer x; };",
    "let q = async { x };",
    ";",
];

const ATTRIBUTE_ARGS: &[&str] = &[
    "",
    "vjp = softplus_vjp",
    "vjp = ",
    "vjp = 3",
    "vjp = a::b::<f64>",
    "jvp = g",
    "vjp = f, jvp = g",
    "vjp = f, vjp = g",
    "self",
    "self, vjp = f",
    "foo",
    "foo = bar",
    "\"text\"",
    "(nested)",
    "params = [\"x\"]",
    ",",
    "vjp",
    "= f",
    "self self",
    "crate",
    "recursive",
    "second_order",
    "second_order, recursive",
    "second_order = 1",
    "second_order, vjp = f",
];

pub fn ident(rng: &mut Rng) -> syn::Ident {
    let name = *rng.pick(&[
        "f",
        "g",
        "helper",
        "self_",
        "r#match",
        "__vjp_into",
        "new",
        "sin",
        "F",
    ]);
    syn::parse_str(name).unwrap_or_else(|_| syn::parse_quote!(f))
}

pub fn lit(rng: &mut Rng) -> syn::Lit {
    let text = *rng.pick(&[
        "0.0",
        "1.0",
        "-0.0",
        "1e308",
        "1e-320",
        "2.5f32",
        "3f64",
        "0",
        "1",
        "255u8",
        "18446744073709551615",
        "340282366920938463463374607431768211455",
        "1_000.0_f64",
        "\"s\"",
        "b'a'",
        "'c'",
        "true",
        "false",
        "b\"bytes\"",
        "0x1F",
        "0b1010",
        "1e10",
        "0.1",
        "f64::NAN",
        "1e400",
    ]);
    syn::parse_str(text).unwrap_or_else(|_| syn::parse_quote!(1.0))
}

pub fn bin_op(rng: &mut Rng) -> syn::BinOp {
    let text = *rng.pick(&[
        "+", "-", "*", "/", "%", "&&", "||", "^", "&", "|", "<<", ">>", "==", "<", "<=", "!=",
        ">=", ">", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=",
    ]);
    syn::parse_str(text).expect("a binary operator")
}

pub fn ty(rng: &mut Rng) -> syn::Type {
    syn::parse_str::<syn::Type>(rng.pick::<&str>(TYPES)).unwrap_or_else(|_| syn::parse_quote!(f64))
}

pub fn pat(rng: &mut Rng) -> syn::Pat {
    let text = *rng.pick(PATS);
    syn::parse::Parser::parse_str(syn::Pat::parse_multi, text)
        .unwrap_or_else(|_| syn::parse_quote!(x))
}

/// An expression of depth at most `depth`.
pub fn expr(pool: &Pool, rng: &mut Rng, depth: usize) -> syn::Expr {
    for _ in 0..10 {
        let text = expr_text(rng, depth);
        if let Ok(e) = syn::parse_str::<syn::Expr>(&text) {
            return e;
        }
    }
    rng.pick(&pool.exprs).clone()
}

fn expr_text(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.one_in(4) {
        return match rng.below(3) {
            0 => lit(rng).to_token_stream().to_string(),
            _ => rng.pick(NAMES).to_string(),
        };
    }
    let d = depth - 1;
    let sub = |rng: &mut Rng| expr_text(rng, d);
    match rng.below(51) {
        47 => format!(
            "{}.iter().filter(|v| **v > {}).map(|v| v * {}).sum::<f64>()",
            sub(rng),
            sub(rng),
            sub(rng)
        ),
        48 => format!(
            "{}.iter().step_by({}).zip({}).zip({})",
            sub(rng),
            sub(rng),
            sub(rng),
            sub(rng)
        ),
        49 => format!("{}.sort_by(|a, b| a.partial_cmp(b).unwrap())", sub(rng)),
        50 => format!(
            "{{ fn {}(t: f64) -> f64 {{ {} }} {}({}) }}",
            rng.pick(NAMES),
            sub(rng),
            rng.pick(NAMES),
            sub(rng)
        ),
        42 => format!(
            "{}.iter().fold(({}, {}), |({}, {}), &v| ({}, {}))",
            sub(rng),
            sub(rng),
            sub(rng),
            rng.pick(NAMES),
            rng.pick(NAMES),
            sub(rng),
            sub(rng)
        ),
        43 => format!(
            "{}.get({}).copied().unwrap_or({})",
            sub(rng),
            sub(rng),
            sub(rng)
        ),
        44 => format!("*{}.get({}).unwrap_or(&{})", sub(rng), sub(rng), sub(rng)),
        45 => format!(
            "if let Some({}) = {}.get({}) {{ {} }} else {{ {} }}",
            rng.pick(&["v", "&v", "(a, b)", "_"]),
            sub(rng),
            sub(rng),
            sub(rng),
            sub(rng)
        ),
        46 => format!("{}.reverse()", sub(rng)),
        37 => format!(
            "{}.{}().unwrap()",
            sub(rng),
            rng.pick(&["first", "last", "split_first", "split_last"])
        ),
        38 => format!("{}.extend_from_slice({})", sub(rng), sub(rng)),
        39 => format!("{}.iter().enumerate().skip({})", sub(rng), sub(rng)),
        40 => format!("P {{ x: {}, y: {} }}", sub(rng), sub(rng)),
        41 => format!("P {{ x: {}, ..{} }}", sub(rng), sub(rng)),
        34 => format!("vec![{}, {}]", sub(rng), sub(rng)),
        35 => format!(
            "{}.mapv(|v| ({} - v).{}())",
            sub(rng),
            sub(rng),
            rng.pick(METHODS)
        ),
        36 => format!("std::mem::swap(&mut {}, &mut {})", sub(rng), sub(rng)),
        0 => format!(
            "{} {} {}",
            sub(rng),
            bin_op(rng).to_token_stream(),
            sub(rng)
        ),
        1 => format!("-{}", sub(rng)),
        2 => format!("!{}", sub(rng)),
        3 => format!("*{}", sub(rng)),
        4 => format!("&{}", sub(rng)),
        5 => format!("&mut {}", sub(rng)),
        6 => format!("({})", sub(rng)),
        7 => format!("{}.{}()", sub(rng), rng.pick(METHODS)),
        8 => format!("{}.{}({})", sub(rng), rng.pick(METHODS), sub(rng)),
        9 => format!("{}.{}(|v| {})", sub(rng), rng.pick(METHODS), sub(rng)),
        10 => format!("{}[{}]", sub(rng), sub(rng)),
        11 => format!("{}[{}..{}]", sub(rng), sub(rng), sub(rng)),
        12 => format!("{}[..]", sub(rng)),
        13 => format!("{}({})", rng.pick(NAMES), sub(rng)),
        14 => format!("{}({}, {})", rng.pick(NAMES), sub(rng), sub(rng)),
        15 => format!("if {} {{ {} }} else {{ {} }}", sub(rng), sub(rng), sub(rng)),
        16 => format!(
            "match {} {{ {} => {}, _ => {} }}",
            sub(rng),
            rng.pick(PATS),
            sub(rng),
            sub(rng)
        ),
        17 => format!("{{ let {} = {}; {} }}", rng.pick(PATS), sub(rng), sub(rng)),
        18 => format!("loop {{ break {}; }}", sub(rng)),
        19 => format!("|{}| {}", rng.pick(PATS), sub(rng)),
        20 => format!("({}, {})", sub(rng), sub(rng)),
        21 => format!("[{}, {}]", sub(rng), sub(rng)),
        22 => format!("[{}; 3]", sub(rng)),
        23 => format!("{} as {}", sub(rng), rng.pick(TYPES)),
        24 => format!("{}?", sub(rng)),
        25 => format!("{}.0", sub(rng)),
        26 => format!("{}.w", sub(rng)),
        27 => format!("Line {{ w: {}, b: {} }}", sub(rng), sub(rng)),
        28 => format!("vec![{}; 2]", sub(rng)),
        29 => format!("T::from({}).unwrap()", sub(rng)),
        30 => format!(
            "{}::{}({})",
            rng.pick(&["f64", "T", "Self", "Array1", "autodiff", "std::f64"]),
            rng.pick(METHODS),
            sub(rng)
        ),
        31 => format!("unsafe {{ {} }}", sub(rng)),
        32 => format!("{} = {}", sub(rng), sub(rng)),
        _ => format!("for i in 0..{} {{ {}; }}", sub(rng), sub(rng)),
    }
}

/// `e` wrapped in another construct.
pub fn wrap(pool: &Pool, rng: &mut Rng, e: syn::Expr) -> syn::Expr {
    let other = expr(pool, rng, 1);
    let name: &str = rng.pick::<&str>(&METHODS[..METHODS.len() - 1]);
    let m = syn::Ident::new(name, proc_macro2::Span::call_site());
    let ty = ty(rng);
    let p = pat(rng);
    let candidates: Vec<TokenStream> = vec![
        quote!((#e)),
        quote!(-#e),
        quote!(#e.#m()),
        quote!(#e.#m(#other)),
        quote!(#e as #ty),
        quote!({ #e }),
        quote!(if #other > 0.0 { #e } else { #other }),
        quote!(loop { break #e; }),
        quote!((#e, #other)),
        quote!([#e, #other]),
        quote!(#e?),
        quote!(#e.unwrap()),
        quote!(#e.iter().map(|v| v * 2.0).sum::<f64>()),
        quote!(match #e { #p => #other, _ => #other }),
        quote!(stop_gradient(#e)),
        quote!((|t: f64| t * #other)(#e)),
        quote!(#e[0]),
        quote!(&#e[1..]),
        quote!(#e.0),
        quote!(#e + #e),
        quote!(Some(#e)),
        quote!(#e.max(#other)),
        quote!(format!("{}", #e)),
        quote!(async { #e }),
        quote!(#e.await),
        quote!(return #e),
        quote!('l: { break 'l #e; }),
        quote!(#e..#other),
        quote!(#e = #other),
        quote!(#e += #other),
        quote!(#e.len() as f64),
    ];
    let choice = rng.pick(&candidates).clone();
    syn::parse2(choice).unwrap_or(e)
}

pub fn stmt(pool: &Pool, rng: &mut Rng) -> syn::Stmt {
    if rng.one_in(3) {
        let e = expr(pool, rng, 3);
        let tokens = if rng.one_in(2) {
            quote!({ let x = #e; })
        } else {
            quote!({ #e; })
        };
        if let Some(s) = syn::parse2::<syn::Block>(tokens)
            .ok()
            .and_then(|b| b.stmts.into_iter().next())
        {
            return s;
        }
    }
    let text = *rng.pick(STMTS);
    syn::parse_str::<syn::Block>(&format!("{{ {text} }}"))
        .ok()
        .and_then(|b| b.stmts.into_iter().next())
        .unwrap_or_else(|| syn::parse_quote!(let _ = 0.0;))
}

pub fn fn_arg(rng: &mut Rng) -> syn::FnArg {
    let text = match rng.below(6) {
        0 => rng
            .pick(&[
                "&self",
                "self",
                "&mut self",
                "mut self",
                "self: &Self",
                "self: Box<Self>",
            ])
            .to_string(),
        1 => format!("#[no_grad] {}: {}", rng.pick(NAMES), rng.pick(TYPES)),
        2 => format!("{}: {}", rng.pick(PATS), rng.pick(TYPES)),
        _ => format!(
            "{}: {}",
            rng.pick(&["x", "y", "w", "xs", "out", "n", "self_"]),
            rng.pick(TYPES)
        ),
    };
    syn::parse_str(&text).unwrap_or_else(|_| syn::parse_quote!(z: f64))
}

pub fn return_type(rng: &mut Rng) -> syn::ReturnType {
    if rng.one_in(6) {
        return syn::ReturnType::Default;
    }
    let t = ty(rng);
    syn::parse_quote!(-> #t)
}

pub fn generics(rng: &mut Rng) -> syn::Generics {
    let text = *rng.pick(&[
        "",
        "<T: Float>",
        "<T: Float + FromPrimitive>",
        "<T>",
        "<'a, T: Float + 'a>",
        "<const N: usize>",
        "<T: Float, const N: usize>",
        "<T: Real>",
        "<T: Copy + std::ops::Add<Output = T>>",
        "<F: Fn(f64) -> f64>",
        "<T, U>",
        "<'a>",
        "<T: Float = f64>",
    ]);
    let mut g: syn::Generics = syn::parse_str(text).unwrap_or_default();
    if rng.one_in(4) {
        g.where_clause = Some(syn::parse_quote!(where T: Float));
    }
    g
}

pub fn attribute_args(pool: &Pool, rng: &mut Rng) -> TokenStream {
    if rng.one_in(5) {
        let e = expr(pool, rng, 2);
        return quote!(#e);
    }
    rng.pick(ATTRIBUTE_ARGS).parse().unwrap_or_default()
}

/// A function, method block or other item written from the grammar alone.
pub fn generated_attribute(pool: &Pool, rng: &mut Rng) -> Input {
    loop {
        let n = rng.below(4);
        let args: Vec<String> = (0..n)
            .map(|_| fn_arg(rng).to_token_stream().to_string())
            .collect();
        let stmts: Vec<String> = (0..rng.below(5))
            .map(|_| stmt(pool, rng).to_token_stream().to_string())
            .collect();
        let tail = expr(pool, rng, 3).to_token_stream().to_string();
        let ret = return_type(rng).to_token_stream().to_string();
        let g = generics(rng);
        let (gen, where_) = (
            g.to_token_stream().to_string(),
            g.where_clause.to_token_stream().to_string(),
        );
        let f = format!(
            "fn f{gen}({}) {ret} {where_} {{ {} {tail} }}",
            args.join(", "),
            stmts.join(" ")
        );
        let text = match rng.below(8) {
            0 => format!("impl Model {{ {f} }}"),
            1 => format!("impl Energy for Model {{ {f} }}"),
            2 => format!("impl<T: Float> Line<T> {{ {f} fn g(&self) -> T {{ self.w }} }}"),
            3 => rng
                .pick(&[
                    "struct S;",
                    "const C: f64 = 1.0;",
                    "mod m {}",
                    "trait Tr { fn f(x: f64) -> f64; }",
                    "static S: f64 = 1.0;",
                    "extern \"C\" { fn sin(x: f64) -> f64; }",
                    "enum E { A }",
                    "use std::f64;",
                ])
                .to_string(),
            _ => f,
        };
        if let Ok(item) = syn::parse_str::<syn::Item>(&text) {
            return Input::Attribute {
                args: if rng.one_in(6) {
                    attribute_args(pool, rng)
                } else {
                    TokenStream::new()
                },
                item: item.into_token_stream(),
            };
        }
    }
}

pub fn closure_input(pool: &Pool, rng: &mut Rng) -> Input {
    let body = expr(pool, rng, 3);
    let args: Vec<String> = (0..rng.below(3))
        .map(|_| format!("{}: {}", rng.pick(PATS), rng.pick(TYPES)))
        .collect();
    let text = match rng.below(4) {
        0 => format!("|{}| {}", args.join(", "), body.to_token_stream()),
        1 => format!(
            "move |{}| -> f64 {{ {} }}",
            args.join(", "),
            body.to_token_stream()
        ),
        2 => body.to_token_stream().to_string(),
        _ => format!("|x| {}", body.to_token_stream()),
    };
    Input::Closure(text.parse().unwrap_or_default())
}

pub fn helper_input(pool: &Pool, rng: &mut Rng) -> Input {
    let path = rng.pick(&pool.paths).to_token_stream().to_string();
    let path = match rng.below(4) {
        0 => format!("{path}::<f64>"),
        1 => path,
        _ => rng
            .pick(&[
                "weighted_sum",
                "f",
                "Model::loss",
                "rosenbrock::<f32>",
                "a::b::c",
                "<T as Tr>::f",
                "self",
                "crate::f",
                "|x| x",
                "1.0",
                "",
            ])
            .to_string(),
    };
    let params = match rng.below(7) {
        0 => String::new(),
        1 => ", params = [\"x\"]".into(),
        2 => ", params = [0, 1]".into(),
        3 => ", params = []".into(),
        4 => ", params = [\"w1\", \"w1\"]".into(),
        5 => ", params = [1.5, true]".into(),
        _ => format!(", {}", expr(pool, rng, 1).to_token_stream()),
    };
    Input::Helper(
        rng.below(3) as u8,
        format!("{path}{params}").parse().unwrap_or_default(),
    )
}

pub fn derive_input(rng: &mut Rng) -> Input {
    let mut fields = Vec::new();
    for i in 0..rng.below(4) {
        let attr = if rng.one_in(3) { "#[no_grad] " } else { "" };
        fields.push(format!("{attr}f{i}: {}", rng.pick(TYPES)));
    }
    let text = match rng.below(6) {
        0 => format!("struct S {{ {} }}", fields.join(", ")),
        1 => format!("struct S<T: Float> {{ {} }}", fields.join(", ")),
        2 => format!("struct S({});", rng.pick(TYPES)),
        3 => "struct S;".to_string(),
        4 => "enum E { A(f64), B }".to_string(),
        _ => "union U { a: f64 }".to_string(),
    };
    Input::Derive(text.parse().unwrap_or_default())
}
