//! Which float methods are primitives, and how many operands they take.
//!
//! This is structure, not maths: the macro only needs to know that `x.atan2(y)` has two
//! differentiable operands and that its rules are `ops::atan2_d0` and `ops::atan2_d1`.
//! The formulas live in the runtime.

/// Float methods with a derivative rule: (name, number of operands including the receiver,
/// which operands are differentiable).
pub const DIFFERENTIABLE_METHODS: &[(&str, usize)] = &[
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("asinh", 1),
    ("acosh", 1),
    ("atanh", 1),
    ("exp", 1),
    ("exp2", 1),
    ("exp_m1", 1),
    ("ln", 1),
    ("ln_1p", 1),
    ("log2", 1),
    ("log10", 1),
    ("sqrt", 1),
    ("cbrt", 1),
    ("abs", 1),
    ("recip", 1),
    ("to_degrees", 1),
    ("to_radians", 1),
    ("fract", 1),
    ("powi", 2),
    ("powf", 2),
    ("log", 2),
    ("atan2", 2),
    ("hypot", 2),
    ("max", 2),
    ("min", 2),
    ("clamp", 3),
    ("mul_add", 3),
];

/// Operands of a method that are never differentiable (the integer exponent of `powi`).
pub fn constant_operand(method: &str, index: usize) -> bool {
    method == "powi" && index == 1
}

/// Float methods whose result is piecewise constant (zero derivative) or not a float.
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
    "to_bits",
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

pub fn method_arity(name: &str) -> Option<(&'static str, usize)> {
    DIFFERENTIABLE_METHODS
        .iter()
        .find(|(n, _)| *n == name)
        .copied()
}

pub fn is_piecewise_constant(name: &str) -> bool {
    PIECEWISE_CONSTANT_METHODS.contains(&name)
}

/// Type names whose values are constants (no tangent).
pub fn is_constant_type_name(name: &str) -> bool {
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
            | "bool"
            | "char"
            | "str"
            | "String"
            | "Ordering"
    )
}

/// Type names that are float scalars.
pub fn is_float_type_name(name: &str) -> bool {
    matches!(name, "f32" | "f64")
}

/// The to-be-recorded table: which values the rule `<rule>_d<k>` reads, as indices into
/// the primitive's operands, with `arity` standing for the output `y`. It mirrors the
/// signatures in the runtime's `ops` (`mul_d0(&rhs, &dy)`), and decides what a reverse
/// sweep must keep: a value no rule reads is never saved.
pub fn rule_reads(rule: &str, k: usize, arity: usize) -> Vec<usize> {
    let y = arity;
    match (rule, k) {
        ("add" | "sub" | "rem" | "neg" | "to_degrees" | "to_radians" | "fract", 0) => vec![],
        ("add" | "sub", 1) => vec![],
        ("mul", 0) => vec![1],
        ("mul", 1) => vec![0],
        ("div", 0) => vec![1],
        ("div", 1) => vec![1, y],
        ("rem", 1) => vec![0, 1],
        ("tan" | "tanh" | "exp" | "exp2" | "exp_m1" | "sqrt" | "cbrt" | "recip", 0) => vec![y],
        ("powi" | "powf" | "log" | "atan2" | "max" | "min", 0) => vec![0, 1],
        ("atan2" | "max" | "min", 1) => vec![0, 1],
        ("powf", 1) => vec![0, y],
        ("log", 1) => vec![1, y],
        ("hypot", 0) => vec![0, y],
        ("hypot", 1) => vec![1, y],
        ("clamp", _) => vec![0, 1, 2],
        ("mul_add", 0) => vec![1],
        ("mul_add", 1) => vec![0],
        ("mul_add", 2) => vec![],
        // one-input functions reading their input: sin, cos, ln, abs, …
        _ => vec![0],
    }
}

/// The to-be-recorded table of the tensor rules (`ops::tensor::<rule>_d<k>`), for values
/// that may be arrays: an operand broadcast into the result is also read for its shape.
pub fn tensor_rule_reads(rule: &str, k: usize, arity: usize) -> Vec<usize> {
    let y = arity;
    match (rule, k) {
        ("add" | "sub", 0) => vec![0],
        ("add" | "sub", 1) => vec![1],
        ("mul" | "dot", _) => vec![0, 1],
        ("div", 0) => vec![0, 1],
        ("div", 1) => vec![1, y],
        ("t" | "view" | "to_owned", 0) => vec![],
        ("sum" | "mean" | "product", 0) => vec![0],
        ("std", 0) => vec![0, 1, y],
        // the operand (for its shape) and the constant arguments (axes, indices, shapes)
        (
            "sum_axis" | "mean_axis" | "slice" | "row" | "column" | "index_axis" | "select"
            | "insert_axis" | "var" | "reshape" | "broadcast" | "permuted_axes",
            0,
        ) => (0..arity).collect(),
        // `mapv(x, f, rule)`: the rule reads the input and the output
        ("mapv" | "map", 0) => vec![0, y, 2],
        _ => rule_reads(rule, k, arity),
    }
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

/// Tensor rules that accept their cotangent by value (`CotArg`): the reverse sweep passes
/// it so at its last use, and the rule computes its result in that buffer.
pub fn tensor_rule_takes_owned(rule: &str) -> bool {
    matches!(
        rule,
        "add" | "sub" | "mul" | "div" | "neg" | "mapv" | "map" | "powi"
    ) || (method_arity(rule).is_some_and(|(_, n)| n == 1))
}
