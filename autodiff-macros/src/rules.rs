//! The primitive table: every operation whose derivative rule lives in the runtime, and
//! what the macro must know of it — its operands, which of them are differentiable, and
//! which values each rule reads. Structure, never a formula: the formulas are the
//! runtime's `ops::<name>_d<k>` (scalars, and arrays elementwise) and
//! `ops::tensor::<name>_d<k>` (values that may be arrays).
//!
//! The IR carries `&'static Rule`; nothing outside this file names a rule by a string.
//! A rule's reads decide what a reverse sweep keeps from its forward sweep: a value no rule
//! reads is never saved. They mirror the runtime's signatures (`mul_d0(&b, &dy)` reads
//! operand 1), and the facade's test `tests/rule_table.rs` checks every scalar row against
//! central finite differences through the runtime's formula (`rule_table_checks!`), so a
//! wrong entry fails a test instead of giving a wrong gradient.

/// A value a rule reads, before the output's cotangent `dy` (which every rule takes last).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Operand `k` of the primitive (the receiver of a method is operand 0).
    Operand(usize),
    /// The primitive's output `y`.
    Output,
}

const A0: Read = Read::Operand(0);
const A1: Read = Read::Operand(1);
const A2: Read = Read::Operand(2);
const Y: Read = Read::Output;

/// How a primitive is written in the user's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A binary operator (`+ - * / %`) or unary minus.
    Operator,
    /// A float method, `x.sin()` or `f64::sin(x)` (elementwise on arrays).
    Method,
    /// An array method (`a.dot(&b)`, `a.sum()`, `a.slice(s![..])`): forward
    /// `ops::tensor::<name>(&operands…)`. A `view` borrows its operand and is recomputed
    /// by the reverse sweep rather than kept; a `scalar` result is the element type.
    Array { view: bool, scalar: bool },
    /// `concatenate(axis, &[parts…])` and `stack`: any number of parts, each part's
    /// cotangent from one rule `ops::tensor::<name>_d(&axis, &parts, k, &dy)`.
    Join,
}

/// One row of the table.
#[derive(Debug)]
pub struct Rule {
    /// The runtime's name: forward `ops::tensor::<name>`, rules `ops[::tensor]::<name>_d<k>`.
    pub name: &'static str,
    /// How it is written.
    pub form: Form,
    /// For each operand `k`, what `<name>_d<k>` reads; `None` for an operand that is never
    /// differentiable (the integer exponent of `powi`, an axis, an index).
    pub reads: &'static [Option<&'static [Read]>],
    /// Where the rules of `ops::tensor` (values that may be arrays) read more than the
    /// scalar ones: an operand broadcast into the result is also read for its shape.
    pub tensor_reads: Option<&'static [&'static [Read]]>,
    /// The operand whose cotangent is `-dy` (a subtraction's right side, a negation): for
    /// scalars its sign is kept pending and applied where the contribution lands.
    pub negates: Option<usize>,
    /// The operands whose cotangent is `dy` itself (`a + b`, the left side of `a - b`).
    pub passes: &'static [usize],
    /// Whether the tensor rules take the cotangent by value (`CotangentArg`): the last
    /// rule to read it gets the buffer and computes its result there.
    pub owned_cotangent: bool,
    /// With an owned cotangent, whether the left operand's rule runs last and takes the
    /// buffer (it usually has the result's shape, the right one is broadcast: `xw + b`).
    pub owned_by_left: bool,
    /// For array methods: the operands the forward function takes (the others feed only
    /// the rule: `mapv`'s derivative closure); `None` for all of them.
    pub forward_operands: Option<usize>,
    /// A point where the primitive is smooth, for the table's finite-difference check.
    pub sample: &'static [f64],
    /// A one-input method whose scalar rule can read, instead of its operand, the output
    /// of another method of the same operand (`x.sin()` beside `x.cos()`): that method
    /// and the rule reading its output (`ops::<rule>(&sibling, &dy)`).
    pub sibling: Option<Sibling>,
}

/// See [`Rule::sibling`].
#[derive(Clone, Copy, Debug)]
pub struct Sibling {
    /// The other method, `cos` for `sin`.
    pub method: &'static str,
    /// The runtime's rule reading its output, `sin_d0_from_cos`.
    pub rule: &'static str,
}

impl Rule {
    /// The number of operands (the receiver included); 0 for a [`Form::Join`].
    pub fn arity(&self) -> usize {
        self.reads.len()
    }
    /// Whether operand `k` is never differentiable.
    pub fn constant_operand(&self, k: usize) -> bool {
        matches!(self.reads.get(k), Some(None))
    }
    /// What `ops::<name>_d<k>` (or `ops::tensor::…` when `tensor`) reads.
    pub fn reads(&self, k: usize, tensor: bool) -> &'static [Read] {
        if tensor {
            if let Some(t) = self.tensor_reads {
                return t[k];
            }
        }
        self.reads.get(k).copied().flatten().unwrap_or(&[])
    }
    /// Whether a forward sweep keeps a borrow of the operand rather than a value.
    pub fn is_view(&self) -> bool {
        matches!(self.form, Form::Array { view: true, .. })
    }
}

const BASE: Rule = Rule {
    name: "",
    form: Form::Method,
    reads: &[],
    tensor_reads: None,
    negates: None,
    passes: &[],
    owned_cotangent: false,
    owned_by_left: false,
    forward_operands: None,
    sample: &[],
    sibling: None,
};

const X: &[Option<&[Read]>] = &[Some(&[A0])];
const OUT: &[Option<&[Read]>] = &[Some(&[Y])];
const NOTHING: &[Option<&[Read]>] = &[Some(&[])];

/// A one-input float method; its tensor rule takes the cotangent's buffer.
const fn unary(
    name: &'static str,
    reads: &'static [Option<&'static [Read]>],
    sample: &'static [f64],
) -> Rule {
    Rule {
        name,
        reads,
        owned_cotangent: true,
        sample,
        ..BASE
    }
}

/// `rule` reading the output of `method` on the same operand when the body has it.
const fn with_sibling(rule: Rule, method: &'static str, sibling_rule: &'static str) -> Rule {
    Rule {
        sibling: Some(Sibling {
            method,
            rule: sibling_rule,
        }),
        ..rule
    }
}

/// A float method of two or three operands.
const fn method(
    name: &'static str,
    reads: &'static [Option<&'static [Read]>],
    sample: &'static [f64],
) -> Rule {
    Rule {
        name,
        reads,
        sample,
        ..BASE
    }
}

/// An array method whose operands after the receiver are constants (axes, indices, shapes).
const fn array(
    name: &'static str,
    reads: &'static [Option<&'static [Read]>],
    view: bool,
    scalar: bool,
) -> Rule {
    Rule {
        name,
        form: Form::Array { view, scalar },
        reads,
        ..BASE
    }
}

pub static ADD: Rule = Rule {
    name: "add",
    form: Form::Operator,
    reads: &[Some(&[]), Some(&[])],
    tensor_reads: Some(&[&[A0], &[A1]]),
    passes: &[0, 1],
    owned_cotangent: true,
    owned_by_left: true,
    sample: &[0.7, -1.3],
    ..BASE
};
pub static SUB: Rule = Rule {
    name: "sub",
    form: Form::Operator,
    reads: &[Some(&[]), Some(&[])],
    tensor_reads: Some(&[&[A0], &[A1]]),
    negates: Some(1),
    passes: &[0],
    owned_cotangent: true,
    owned_by_left: true,
    sample: &[0.7, -1.3],
    ..BASE
};
pub static MUL: Rule = Rule {
    name: "mul",
    form: Form::Operator,
    reads: &[Some(&[A1]), Some(&[A0])],
    tensor_reads: Some(&[&[A0, A1], &[A0, A1]]),
    owned_cotangent: true,
    sample: &[0.7, -1.3],
    ..BASE
};
pub static DIV: Rule = Rule {
    name: "div",
    form: Form::Operator,
    reads: &[Some(&[A1]), Some(&[A1, Y])],
    tensor_reads: Some(&[&[A0, A1], &[A1, Y]]),
    owned_cotangent: true,
    sample: &[0.7, -1.3],
    ..BASE
};
pub static REM: Rule = Rule {
    name: "rem",
    form: Form::Operator,
    reads: &[Some(&[]), Some(&[A0, A1])],
    sample: &[7.3, 2.1],
    ..BASE
};
pub static NEG: Rule = Rule {
    name: "neg",
    form: Form::Operator,
    reads: &[Some(&[])],
    negates: Some(0),
    owned_cotangent: true,
    sample: &[0.7],
    ..BASE
};

/// `Some(x)` / `Ok(x)` (forward through the user's constructor path): an `Option`'s or a
/// `Result`'s tangent is its value's, so the cotangent passes through (`ops::wrap_d0`).
pub static WRAP: Rule = Rule {
    name: "wrap",
    reads: NOTHING,
    passes: &[0],
    ..BASE
};
/// `ops::wrap_like(y, o)`: `o.map(f)` where `o` holds a value, `f`'s value `y` wrapped as
/// `o` is; `o` only says how (its own value reaches `y` through `try_value`).
pub static WRAP_LIKE: Rule = Rule {
    name: "wrap_like",
    reads: &[Some(&[]), None],
    passes: &[0],
    ..BASE
};
/// `o.unwrap()` of an `Option`/`Result` of a differentiable value.
pub static UNWRAP: Rule = Rule {
    name: "unwrap",
    reads: NOTHING,
    passes: &[0],
    ..BASE
};
/// `o.expect(message)`: the message is a constant.
pub static EXPECT: Rule = Rule {
    name: "expect",
    reads: &[Some(&[]), None],
    passes: &[0],
    ..BASE
};
/// The value of `o?` (forward `ops::try_value(o)`).
pub static TRY_VALUE: Rule = Rule {
    name: "try_value",
    reads: NOTHING,
    passes: &[0],
    ..BASE
};

static SIN: Rule = with_sibling(unary("sin", X, &[0.7]), "cos", "sin_d0_from_cos");
static COS: Rule = with_sibling(unary("cos", X, &[0.7]), "sin", "cos_d0_from_sin");
static TAN: Rule = unary("tan", OUT, &[0.7]);
static ASIN: Rule = unary("asin", X, &[0.5]);
static ACOS: Rule = unary("acos", X, &[0.5]);
static ATAN: Rule = unary("atan", X, &[0.7]);
static SINH: Rule = with_sibling(unary("sinh", X, &[0.7]), "cosh", "sinh_d0_from_cosh");
static COSH: Rule = with_sibling(unary("cosh", X, &[0.7]), "sinh", "cosh_d0_from_sinh");
static TANH: Rule = unary("tanh", OUT, &[0.7]);
static ASINH: Rule = unary("asinh", X, &[0.7]);
static ACOSH: Rule = unary("acosh", X, &[1.5]);
static ATANH: Rule = unary("atanh", X, &[0.5]);
static EXP: Rule = unary("exp", OUT, &[0.7]);
static EXP2: Rule = unary("exp2", OUT, &[0.7]);
static EXP_M1: Rule = unary("exp_m1", OUT, &[0.7]);
static LN: Rule = unary("ln", X, &[0.7]);
static LN_1P: Rule = unary("ln_1p", X, &[0.7]);
static LOG2: Rule = unary("log2", X, &[0.7]);
static LOG10: Rule = unary("log10", X, &[0.7]);
static SQRT: Rule = unary("sqrt", OUT, &[0.7]);
static CBRT: Rule = unary("cbrt", OUT, &[0.7]);
static ABS: Rule = unary("abs", X, &[0.7]);
static RECIP: Rule = unary("recip", OUT, &[0.7]);
static TO_DEGREES: Rule = unary("to_degrees", NOTHING, &[0.7]);
static TO_RADIANS: Rule = unary("to_radians", NOTHING, &[0.7]);
static FRACT: Rule = unary("fract", NOTHING, &[0.7]);
static POWI: Rule = Rule {
    owned_cotangent: true,
    ..method("powi", &[Some(&[A0, A1]), None], &[1.3, 3.0])
};
static POWF: Rule = method("powf", &[Some(&[A0, A1]), Some(&[A0, Y])], &[1.3, 0.6]);
static LOG: Rule = method("log", &[Some(&[A0, A1]), Some(&[A1, Y])], &[1.3, 2.5]);
static ATAN2: Rule = method("atan2", &[Some(&[A0, A1]), Some(&[A0, A1])], &[0.7, -1.3]);
static HYPOT: Rule = method("hypot", &[Some(&[A0, Y]), Some(&[A1, Y])], &[0.7, -1.3]);
static MAX: Rule = method("max", &[Some(&[A0, A1]), Some(&[A0, A1])], &[0.7, -1.3]);
static MIN: Rule = method("min", &[Some(&[A0, A1]), Some(&[A0, A1])], &[0.7, -1.3]);
static CLAMP: Rule = method(
    "clamp",
    &[
        Some(&[A0, A1, A2]),
        Some(&[A0, A1, A2]),
        Some(&[A0, A1, A2]),
    ],
    &[0.7, -1.3, 2.0],
);
static COPYSIGN: Rule = method("copysign", &[Some(&[A0, A1]), Some(&[])], &[0.7, -1.3]);
static MIDPOINT: Rule = method("midpoint", &[Some(&[]), Some(&[])], &[0.7, -1.3]);
static MUL_ADD: Rule = method(
    "mul_add",
    &[Some(&[A1]), Some(&[A0]), Some(&[])],
    &[0.7, -1.3, 2.0],
);

/// The float methods with a derivative rule.
static METHODS: &[&Rule] = &[
    &SIN,
    &COS,
    &TAN,
    &ASIN,
    &ACOS,
    &ATAN,
    &SINH,
    &COSH,
    &TANH,
    &ASINH,
    &ACOSH,
    &ATANH,
    &EXP,
    &EXP2,
    &EXP_M1,
    &LN,
    &LN_1P,
    &LOG2,
    &LOG10,
    &SQRT,
    &CBRT,
    &ABS,
    &RECIP,
    &TO_DEGREES,
    &TO_RADIANS,
    &FRACT,
    &POWI,
    &POWF,
    &LOG,
    &ATAN2,
    &COPYSIGN,
    &MIDPOINT,
    &HYPOT,
    &MAX,
    &MIN,
    &CLAMP,
    &MUL_ADD,
];

const RECEIVER: Option<&[Read]> = Some(&[A0]);
const SHAPE_1: &[Option<&[Read]>] = &[Some(&[A0, A1]), None];

pub static DOT: Rule = array("dot", &[Some(&[A0, A1]), Some(&[A0, A1])], false, false);
pub static T: Rule = array("t", &[Some(&[])], true, false);
pub static VIEW: Rule = array("view", &[Some(&[])], true, false);
pub static TO_OWNED: Rule = array("to_owned", &[Some(&[])], false, false);
pub static SUM: Rule = array("sum", &[RECEIVER], false, true);
pub static MEAN: Rule = array("mean", &[RECEIVER], false, true);
pub static PRODUCT: Rule = array("product", &[RECEIVER], false, true);
pub static SUM_AXIS: Rule = array("sum_axis", SHAPE_1, false, false);
pub static MEAN_AXIS: Rule = array("mean_axis", SHAPE_1, false, false);
pub static SLICE: Rule = array("slice", SHAPE_1, true, false);
pub static ROW: Rule = array("row", SHAPE_1, true, false);
pub static DIAG: Rule = array("diag", &[RECEIVER], true, false);
pub static COLUMN: Rule = array("column", SHAPE_1, true, false);
pub static INDEX_AXIS: Rule = array(
    "index_axis",
    &[Some(&[A0, A1, A2]), None, None],
    true,
    false,
);
pub static SELECT: Rule = array("select", &[Some(&[A0, A1, A2]), None, None], false, false);
pub static INSERT_AXIS: Rule = array("insert_axis", SHAPE_1, true, false);
pub static PERMUTED_AXES: Rule = array("permuted_axes", SHAPE_1, true, false);
pub static VAR: Rule = array("var", SHAPE_1, false, true);
pub static STD: Rule = array("std", &[Some(&[A0, A1, Y]), None], false, true);
pub static RESHAPE: Rule = array("reshape", SHAPE_1, false, false);
pub static BROADCAST: Rule = array("broadcast", SHAPE_1, false, false);
// nalgebra's (the facade's `nalgebra` feature); the norms also serve ndarray's arrays
pub static NORM: Rule = array("norm", &[Some(&[A0, Y])], false, true);
pub static NORM_SQUARED: Rule = array("norm_squared", &[RECEIVER], false, true);
pub static NORMALIZE: Rule = array("normalize", &[Some(&[A0, Y])], false, false);
pub static TRANSPOSE: Rule = array("transpose", &[RECEIVER], false, false);
pub static CROSS: Rule = array("cross", &[Some(&[A0, A1]), Some(&[A0, A1])], false, false);
/// `x.mapv(f)`: operands `x`, `f` and the element rule (a closure `|x, y, dy|`).
pub static MAPV: Rule = Rule {
    owned_cotangent: true,
    forward_operands: Some(2),
    ..array("mapv", &[Some(&[A0, Y, A2]), None, None], false, false)
};
/// `x.map(f)` (`f` takes `&x`): `mapv`'s rule.
pub static MAP: Rule = Rule {
    name: "map",
    ..MAPV
};
pub static CONCATENATE: Rule = Rule {
    name: "concatenate",
    form: Form::Join,
    ..BASE
};
pub static STACK: Rule = Rule {
    name: "stack",
    form: Form::Join,
    ..BASE
};

/// Whether the primitive wraps or unwraps an `Option`/`Result` (`Some(x)`, `o.unwrap()`,
/// `o?`): its forward form and its rule are the same whatever the value's shape (the
/// cotangent passes through), so values that may be arrays take the scalar forms.
pub fn is_option_rule(rule: &Rule) -> bool {
    [&WRAP, &WRAP_LIKE, &UNWRAP, &EXPECT, &TRY_VALUE]
        .into_iter()
        .any(|r| std::ptr::eq(r, rule))
}

/// Whether the primitive's forward form takes its receiver by value (`o.unwrap()`): the
/// forward sweep hands it a clone, so the value is still there for the reverse sweep.
pub fn moves_receiver(rule: &Rule) -> bool {
    [&UNWRAP, &EXPECT, &TRY_VALUE]
        .into_iter()
        .any(|r| std::ptr::eq(r, rule))
}

pub fn method_rule(name: &str) -> Option<&'static Rule> {
    METHODS.iter().copied().find(|r| r.name == name)
}

/// The operators and float methods: the rows with scalar rules, which the table's test
/// checks against finite differences.
pub fn scalar_rules() -> impl Iterator<Item = &'static Rule> {
    [&ADD, &SUB, &MUL, &DIV, &REM, &NEG]
        .into_iter()
        .chain(METHODS.iter().copied())
}

/// Float methods whose result is piecewise constant (zero derivative) or not a float.
/// (`to_bits` is not one: its integer can become a float again through `from_bits`, so a
/// differentiable value's bits are an error, with `stop_gradient` as the fix.)
pub const PIECEWISE_CONSTANT_METHODS: &[&str] = &[
    "floor",
    "ceil",
    "round",
    "round_ties_even",
    "trunc",
    "signum",
    "is_nan",
    "is_infinite",
    "is_finite",
    "is_normal",
    "is_subnormal",
    "is_sign_positive",
    "is_sign_negative",
    "classify",
    "partial_cmp",
    "total_cmp",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "to_string",
    "len",
    "is_empty",
];

/// Whether `name` is a piecewise-constant method (no derivative flows through it).
pub fn is_piecewise_constant(name: &str) -> bool {
    PIECEWISE_CONSTANT_METHODS.contains(&name)
}

/// Macros whose value is never a float: a truth (`matches!`, the approx crate's
/// `relative_eq!` family, which numeric crates re-export), text (`format!`), `()` (the
/// assertions and prints) or nothing (the diverging ones). Their arguments are read as they
/// are and no derivative flows through them, as through a comparison. Any other macro with a
/// differentiable argument is refused: its value could be a float.
pub fn is_value_free_macro(m: &syn::Macro) -> bool {
    m.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "matches"
                | "relative_eq"
                | "relative_ne"
                | "abs_diff_eq"
                | "abs_diff_ne"
                | "ulps_eq"
                | "ulps_ne"
                | "format"
                | "stringify"
                | "assert"
                | "assert_eq"
                | "assert_ne"
                | "debug_assert"
                | "debug_assert_eq"
                | "debug_assert_ne"
                | "assert_relative_eq"
                | "assert_relative_ne"
                | "assert_abs_diff_eq"
                | "assert_abs_diff_ne"
                | "assert_ulps_eq"
                | "assert_ulps_ne"
                | "print"
                | "println"
                | "eprint"
                | "eprintln"
                | "panic"
                | "unreachable"
                | "unimplemented"
                | "todo"
        )
    })
}

/// Methods of std's slices, `Vec`s, ranges, options and iterators: a call of one with a
/// differentiable argument is not a call of a differentiable method of the receiver.
pub fn is_std_container_method(name: &str) -> bool {
    matches!(
        name,
        "contains"
            | "iter"
            | "iter_mut"
            | "into_iter"
            | "get"
            | "get_mut"
            | "first"
            | "last"
            | "push"
            | "insert"
            | "extend"
            | "binary_search"
            | "binary_search_by"
            | "starts_with"
            | "ends_with"
            | "map"
            | "and_then"
            | "unwrap_or"
            | "unwrap_or_else"
            | "zip"
            | "chain"
            | "fold"
            | "max_by"
            | "min_by"
            | "clamp"
            | "copied"
            | "cloned"
    )
}

/// Type names whose values are constants (no tangent).
pub fn is_constant_type_name(name: &str) -> bool {
    is_integer_type_name(name) || matches!(name, "bool" | "char" | "str" | "String" | "Ordering")
}

/// The primitive integer types' names.
pub fn is_integer_type_name(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
    )
}

/// Type names that are float scalars.
pub fn is_float_type_name(name: &str) -> bool {
    matches!(name, "f32" | "f64")
}

/// ndarray methods the macro differentiates (`x.dot(&w)`, `x.t()`, `x.mapv(f64::tanh)`, …):
/// their receivers (and `dot`'s argument) are read in float positions.
pub fn is_array_method(name: &str) -> bool {
    matches!(
        name,
        "dot"
            | "t"
            | "view"
            | "to_owned"
            | "into_owned"
            | "sum"
            | "mean"
            | "sum_axis"
            | "mean_axis"
            | "mapv"
            | "map"
            | "slice"
            | "row"
            | "column"
            | "diag"
            | "index_axis"
            | "select"
            | "insert_axis"
            | "reversed_axes"
            | "permuted_axes"
            | "product"
            | "var"
            | "std"
            | "to_shape"
            | "into_shape_with_order"
            | "broadcast"
    )
}

/// The finite-difference checks of every scalar row, as an expression of type
/// `&[(&str, f64, f64)]`: for each rule `<name>_d<k>` of a differentiable operand, its value
/// at the row's sample point (with `dy = 1`, reading exactly what the row says) and the
/// central difference of the primitive there. Used by the facade's `tests/rule_table.rs`.
pub fn checks() -> proc_macro2::TokenStream {
    use quote::{format_ident, quote};
    let rt = quote!(::autodiff::__private::ops);
    let mut rows = Vec::new();
    for rule in scalar_rules() {
        let n = rule.arity();
        let args: Vec<syn::Ident> = (0..n).map(|i| format_ident!("a{}", i)).collect();
        // the primal at `args`, with operand `k` shifted by `shift`
        let primal = |k: usize, shift: proc_macro2::TokenStream| {
            let a: Vec<proc_macro2::TokenStream> = (0..n)
                .map(|i| {
                    let x = &args[i];
                    match (i == k, rule.constant_operand(i)) {
                        (_, true) => quote!((#x as i32)),
                        (true, _) => quote!((#x + #shift)),
                        _ => quote!(#x),
                    }
                })
                .collect();
            match (rule.form, n) {
                (Form::Operator, 1) => {
                    let x = &a[0];
                    quote!(-#x)
                }
                (Form::Operator, _) => {
                    let (l, r) = (&a[0], &a[1]);
                    match rule.name {
                        "add" => quote!(#l + #r),
                        "sub" => quote!(#l - #r),
                        "mul" => quote!(#l * #r),
                        "div" => quote!(#l / #r),
                        _ => quote!(#l % #r),
                    }
                }
                _ => {
                    let m = format_ident!("{}", rule.name);
                    let (recv, rest) = (&a[0], &a[1..]);
                    quote!(f64::#m(#recv, #(#rest),*))
                }
            }
        };
        let sample = rule.sample;
        for k in 0..n {
            if rule.constant_operand(k) {
                continue;
            }
            let reads = rule.reads(k, false).iter().map(|r| match r {
                Read::Operand(i) if rule.constant_operand(*i) => {
                    let x = &args[*i];
                    quote!(&(#x as i32),)
                }
                Read::Operand(i) => {
                    let x = &args[*i];
                    quote!(&#x,)
                }
                Read::Output => quote!(&__y,),
            });
            let d = format_ident!("{}_d{}", rule.name, k);
            let label = format!("{}_d{}", rule.name, k);
            let y = primal(usize::MAX, quote!(0.0));
            let plus = primal(k, quote!(__h));
            let minus = primal(k, quote!(-__h));
            rows.push(quote! {{
                let [#(#args),*]: [f64; #n] = [#(#sample),*];
                let __y: f64 = #y;
                let __h = 1e-6_f64;
                let __rule: f64 = #rt::#d(#(#reads)* &1.0_f64);
                let __fd = ((#plus) - (#minus)) / (2.0 * __h);
                (#label, __rule, __fd)
            }});
        }
        // the rule reading a sibling method's output instead of the operand
        if let Some(sibling) = &rule.sibling {
            let d = format_ident!("{}", sibling.rule);
            let m = format_ident!("{}", sibling.method);
            let x = &args[0];
            let label = sibling.rule;
            let plus = primal(0, quote!(__h));
            let minus = primal(0, quote!(-__h));
            rows.push(quote! {{
                let [#(#args),*]: [f64; #n] = [#(#sample),*];
                let __h = 1e-6_f64;
                let __rule: f64 = #rt::#d(&f64::#m(#x), &1.0_f64);
                let __fd = ((#plus) - (#minus)) / (2.0 * __h);
                (#label, __rule, __fd)
            }});
        }
        // the cotangents the emitter writes without calling a rule: `dy` and `-dy`
        let signed = rule
            .passes
            .iter()
            .map(|k| (*k, 1.0_f64))
            .chain(rule.negates.map(|k| (k, -1.0_f64)));
        for (k, expected) in signed {
            let label = format!("{}: operand {} gets {} dy", rule.name, k, expected);
            let plus = primal(k, quote!(__h));
            let minus = primal(k, quote!(-__h));
            rows.push(quote! {{
                let [#(#args),*]: [f64; #n] = [#(#sample),*];
                let __h = 1e-6_f64;
                (#label, #expected, ((#plus) - (#minus)) / (2.0 * __h))
            }});
        }
    }
    quote!(&[#(#rows),*])
}

/// The tangent checks of the table (for the facade's tests): for every scalar rule, a
/// `#[differentiable]` function of the primitive alone, in `f64` and in `f32`, and an
/// expression of type `Vec<(String, f64, f64, f64)>`: for each precision, point (the row's
/// sample point and two points near it) and direction (each differentiable operand alone,
/// then all of them), the label, the tangent `jvp!` gives, the fourth-order central
/// difference of the `f64` primitive along the direction, and the relative tolerance.
/// Every rule's tangent is then checked through the whole forward mode: the tangent sweep
/// the macro writes for the primitive and the runtime's formula it calls.
pub fn tangent_checks() -> proc_macro2::TokenStream {
    use quote::{format_ident, quote};
    let mut items = Vec::new();
    let mut rows = Vec::new();
    for rule in scalar_rules() {
        let n = rule.arity();
        let args: Vec<syn::Ident> = (0..n).map(|i| format_ident!("a{}", i)).collect();
        let primal =
            |ty: &proc_macro2::TokenStream, a: &[proc_macro2::TokenStream]| match (rule.form, n) {
                (Form::Operator, 1) => {
                    let x = &a[0];
                    quote!(-#x)
                }
                (Form::Operator, _) => {
                    let (l, r) = (&a[0], &a[1]);
                    match rule.name {
                        "add" => quote!(#l + #r),
                        "sub" => quote!(#l - #r),
                        "mul" => quote!(#l * #r),
                        "div" => quote!(#l / #r),
                        _ => quote!(#l % #r),
                    }
                }
                _ => {
                    let m = format_ident!("{}", rule.name);
                    let (recv, rest) = (&a[0], &a[1..]);
                    quote!(#ty::#m(#recv, #(#rest),*))
                }
            };
        let active: Vec<usize> = (0..n).filter(|k| !rule.constant_operand(*k)).collect();
        let sample = rule.sample;
        // the directions: each differentiable operand alone, then all of them
        let mut directions: Vec<Vec<f64>> = active
            .iter()
            .map(|&k| (0..n).map(|i| if i == k { 1.0 } else { 0.0 }).collect())
            .collect();
        if active.len() > 1 {
            let mix = [0.7, -0.4, 0.3];
            directions.push(
                (0..n)
                    .map(|i| if active.contains(&i) { mix[i % 3] } else { 0.0 })
                    .collect(),
            );
        }
        for (ty, tolerance) in [(quote!(f64), 1e-7_f64), (quote!(f32), 1e-3_f64)] {
            let f = format_ident!("__tangent_{}_{}", rule.name, ty.to_string());
            let params = (0..n).map(|i| {
                let a = &args[i];
                if rule.constant_operand(i) {
                    quote!(#a: i32)
                } else {
                    quote!(#a: #ty)
                }
            });
            let a: Vec<proc_macro2::TokenStream> = args.iter().map(|x| quote!(#x)).collect();
            let body = primal(&ty, &a);
            items.push(quote! {
                #[::autodiff::differentiable]
                fn #f(#(#params),*) -> #ty { #body }
            });
            for offset in [0.0_f64, 0.03, -0.05] {
                for d in &directions {
                    // the point, as f64 (a constant operand as given)
                    let point: Vec<f64> = (0..n)
                        .map(|i| {
                            if rule.constant_operand(i) {
                                sample[i]
                            } else {
                                sample[i] + offset
                            }
                        })
                        .collect();
                    let call_args = (0..n).map(|i| {
                        let x = point[i];
                        if rule.constant_operand(i) {
                            quote!((#x as i32))
                        } else {
                            quote!((#x as #ty))
                        }
                    });
                    let tangents = active.iter().map(|&i| {
                        let t = d[i];
                        quote!((#t as #ty))
                    });
                    // the f64 primitive at point + s·d
                    let along: Vec<proc_macro2::TokenStream> = (0..n)
                        .map(|i| {
                            let (x, t) = (point[i], d[i]);
                            if rule.constant_operand(i) {
                                quote!((#x as i32))
                            } else {
                                quote!((#x + __s * #t))
                            }
                        })
                        .collect();
                    let g = primal(&quote!(f64), &along);
                    let label = format!("{} ({}) at {:?} along {:?}", rule.name, ty, point, d);
                    rows.push(quote! {{
                        let (_, __t) = ::autodiff::jvp!(#f)(#(#call_args,)* #(#tangents),*);
                        let __g = |__s: f64| -> f64 { #g };
                        let __h = 1e-3_f64;
                        let __fd = (-__g(2.0 * __h) + 8.0 * __g(__h) - 8.0 * __g(-__h)
                            + __g(-2.0 * __h))
                            / (12.0 * __h);
                        (::std::string::String::from(#label), __t as f64, __fd, #tolerance)
                    }});
                }
            }
        }
    }
    quote! {{
        #(#items)*
        ::std::vec![#(#rows),*]
    }}
}
