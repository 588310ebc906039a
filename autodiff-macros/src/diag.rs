//! Diagnostics: every error the macro finds is collected and reported at once, each at the
//! span of the user's code it is about (serde's `Ctxt` pattern). The macro never panics.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }
    pub fn push_spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }
    pub fn push_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }
    pub fn extend(&mut self, other: Errors) {
        self.errors.extend(other.errors);
    }
    /// The first error's message (for a reason given elsewhere).
    pub fn first_message(&self) -> Option<String> {
        self.errors.first().map(ToString::to_string)
    }
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}

// The lowering's diagnostics: what cannot be differentiated, in the user's words, with
// the fix that applies.

pub const LOCAL_CLOSURE_CALL: &str =
    "calling a closure with differentiable values is supported for closures bound by \
     `let name = |…| …;` in this function; make this one a `#[differentiable]` function";
pub const CLOSURE_NOT_CALLED: &str =
    "a closure that reads differentiable values can only be called here (`f(x)`), not \
     passed on or stored; make it a `#[differentiable]` function to pass it";
pub const CLOSURE_EXITS: &str =
    "a closure called with differentiable values cannot `return` early or use `?` \
     (its body is differentiated in place); write it as an expression, or make it a \
     `#[differentiable]` function";
pub const CLOSURE_ARITY: &str = "this closure is called with a different number of arguments \
     than it takes";
pub const CLOSURE_NESTING: &str = "closures calling closures nest too deeply here to be \
     differentiated in place; make them `#[differentiable]` functions";
pub const IF_LET: &str =
    "`if let` on a differentiable value takes the patterns of an `Option` or `Result` \
     (`Some(v)`, `None`, `Ok(v)`, `Err(e)`); for other patterns bind the parts with `let` \
     first, or test a `bool` with `if`";
pub const MATCH_ON_DIFFERENTIABLE: &str =
    "`match` on a differentiable value is not supported; match on an integer, `bool` or \
     enum, or compare with `if`";
pub const UNSUPPORTED_ITERATOR: &str =
    "this iterator is not supported over differentiable values; iterate over a range of \
     indices (`for i in 0..x.len()`) or `x.iter()`, `x.iter().enumerate()`, \
     `x.iter().zip(y.iter())`";
pub const ITERATE_NAMED_OR_FIELD: &str =
    "iterate over a slice, `Vec` or array named by a parameter, a local variable or a \
     field";
pub const ITERATE_NAMED: &str =
    "iterate over a slice, `Vec` or array named by a parameter or local variable";
pub const CHAIN_BREAK: &str =
    "a `for` loop over `a.chain(b)` that breaks out of itself is not supported: it runs as \
     two loops, one over each part; write the two loops out, or collect the parts into one \
     `Vec` first";
pub const UNSAFE_BLOCK: &str =
    "`unsafe` blocks cannot be differentiated: the reverse sweep could not uphold their \
     safety contract; move the unsafe code into a function with a custom rule \
     (`#[differentiable(vjp = …)]`)";
pub const FIELD_OF_VALUE: &str =
    "taking a field of this value is not supported in differentiable code yet";
/// The fixpoint deciding which `let mut` locals carry gradients did not settle (an internal
/// limit; the function is refused rather than differentiated on a guess).
pub const ACTIVITY_UNSETTLED: &str = "the macro could not settle which local variables of \
    this function carry gradients (an internal limit of `#[differentiable]`); split the \
    function into smaller `#[differentiable]` helpers, and please report it with the function";

pub const MACRO_INVOCATION: &str =
    "a macro invocation cannot be differentiated; compute the value outside the macro, or \
     wrap it in `stop_gradient(…)`";
pub const CLOSURE_EXPRESSION: &str =
    "closures capturing differentiable values are not supported in differentiable code \
     yet";
pub const UNSUPPORTED_EXPRESSION: &str = "this expression is not supported in differentiable code";
pub const STRUCT_ON_THE_RIGHT: &str =
    "an operator with a struct on the right only (`k * v`) cannot be differentiated: its \
     method is the left operand's, a float's; write the struct first (`v * k`, with \
     `impl Mul<f64> for V3` in a `#[differentiable]` impl)";
pub const STRUCT_UPDATE: &str =
    "a struct literal with `..base` cannot be differentiated yet: write every field \
     (`Point { x: a, y: base.y }`)";
pub const INDEX_UNNAMED: &str =
    "indexing is supported on a slice, `Vec` or array named by a parameter or local \
     variable; bind this value to a name first";
pub const TUPLE_OPERAND: &str =
    "a tuple is held as a value in differentiable code when each member is a float (a \
     differentiable value or a float constant); this one has a member that is not (an \
     index, a flag, a reference, a constant of another type): keep that member in a \
     variable of its own, or destructure the tuple with `let (a, b) = …`";
pub const MAPV_EXPRESSION: &str =
    "cannot differentiate `mapv` of this expression: pass a float method's path \
     (`f64::tanh`) or a closure";
pub const NESTED_ITEM: &str =
    "items inside nested blocks of a differentiable function are not supported; declare \
     them at the top of the function body";
pub const BITS_OF_DIFFERENTIABLE_VALUE: &str =
    "the bits of a differentiable value (`to_bits`) have no derivative, and `from_bits` \
     could make them a float again with a silently zero gradient; wrap the value in \
     `stop_gradient(…)` if no gradient should flow through it, or give the function a rule \
     with `#[differentiable(vjp = …)]`";
pub const MUTATION_IN_CALL: &str =
    "this call changes a value in place (an assignment or `&mut` inside it) while reading \
     differentiable values; write the loop out, or move the code into a `#[differentiable]` \
     function";
/// [`MUTATION_IN_CALL`] naming the method that changes a value in place inside the call
/// (`.map(|(x, o)| *o = …).count()` over `out.iter_mut()`).
pub fn method_mutates_in_call(name: &str) -> String {
    let example = match name {
        "iter_mut" => {
            " (a `for` loop writing through `iter_mut()` is differentiable: `for (x, o) in \
             xs.iter().zip(out.iter_mut()) { *o = … }`)"
        }
        _ => "",
    };
    format!(
        "this call changes a value in place (`{name}` inside it) while reading differentiable \
         values; write the loop out{example}, or move the code into a `#[differentiable]` \
         function"
    )
}
pub const LET_WITHOUT_VALUE: &str =
    "a `let` without a value declares one name in differentiable code (`let r: f64;`); \
     declare each name on its own, or initialise the variables where they are declared";
pub const DESTRUCTURING: &str =
    "destructuring this value is not supported yet in differentiable code; bind it to a \
     name and take its fields with `.0`, `.1`, …";
pub const TUPLE_REST_PATTERN: &str =
    "`..` in a tuple pattern is not supported in differentiable code yet; name every \
     component (`let (a, _, c) = …`)";
pub const SUB_ARRAY_PATTERN: &str =
    "binding part of an array (`rest @ ..`) is not supported in differentiable code; name \
     the elements, or take a sub-slice with `&x[a..b]`";
pub const ACTIVE_VEC_REPEAT: &str =
    "`vec![x; n]` of a differentiable value cannot be differentiated: write `vec![0.0; n]` and \
     fill it in a loop (`for i in 0..n { v[i] = x; }`), or list the elements (`vec![x, y, z]`)";
pub const VEC_OF_ROWS: &str =
    "a `vec![…]` of sequences holding differentiable values (`vec![row0, row1]`) cannot be \
     differentiated yet; write the rows into one flat `Vec` (`vec![a, b, c, d]`, row `i` at \
     `i * n..(i + 1) * n`), or use an array of arrays (`[[a, b], [c, d]]`)";
pub const SWAP: &str =
    "`mem::swap` of differentiable values is differentiated for two `let mut` locals \
     (`swap(&mut a, &mut b)`); write other swaps out (`let t = a[i]; a[i] = a[j]; a[j] = t;`)";
pub const ACTIVE_REPEAT: &str =
    "an array repeating a differentiable value (`[x; N]`) needs a literal length of at most \
     64; fill a local array in a loop instead (`let mut a = [0.0; N]; for i in 0..N { a[i] \
     = x; }`)";
pub const NESTED_VEC: &str =
    "an element more than two levels deep in a local `Vec` of `Vec`s (`t[i][j][k]`) cannot \
     be read or written in differentiable code yet; use fixed-size arrays or one flat `Vec` \
     indexed by `(i * n + j) * n + k`";
pub const UNSUPPORTED_PATTERN: &str =
    "this pattern is not supported in differentiable code; bind the value to a plain name";
pub const ACTIVE_INDEX: &str =
    "an index must not depend on differentiable values; compute it from integers";
pub const LET_ELSE: &str = "`let … else` is not supported in differentiable code yet";
pub const REM_OF_ARRAYS: &str =
    "`%` of arrays cannot be differentiated; apply it to scalars (`x.mapv(|v| v % m)`)";
pub const BREAK_OUTSIDE_LOOP: &str =
    "`break`/`continue` outside a loop of the differentiable function";
pub const IMPL_TRAIT_PARAMETER: &str =
    "`impl Trait` parameters are not supported in differentiable functions; name a type \
     parameter instead (`fn f<I: Iterator<Item = f64>>(x: f64, items: I)`)";
pub const WRITE_TARGET: &str =
    "only local variables declared with `let mut` (and their elements) and `&mut` parameters \
     of floats, float slices and `Vec`s (`*x = …` of an `x: &mut f64`, `y[i] = …` of a `y: \
     &mut [f64]`) can be assigned in differentiable code; writing through another `&mut`, a \
     static or a field would hide the write from the reverse sweep — return the new value \
     instead";

/// How to make a call differentiable.
pub const HELP_CALL: &str = "mark it `#[differentiable]`, give it a custom rule with \
     `#[differentiable(vjp = …)]`, or wrap the value in `stop_gradient(…)` if no gradient \
     should flow through it";

pub fn method_arity(name: &str, n: usize) -> String {
    format!("`{name}` takes {n} argument(s) here")
}

pub fn mut_view_passed(name: &str, buffer: &str, how: &str) -> String {
    format!(
        "`{name}` is a `&mut` view of the buffer `{buffer}` (made by {how}) used in a way \
         that cannot be read as a range of `{buffer}`, so it cannot be passed to a \
         differentiable function: the reverse sweep would not see what the callee writes \
         into `{buffer}`. A view that is only indexed, sliced, measured with `len()`, split \
         with `split_at_mut` and handed to functions can (a `chunks_mut` loop's item too, \
         without `enumerate`); or lend the buffer in the call itself (`&mut {buffer}[a..b]`)"
    )
}

pub fn method_not_differentiable(name: &str) -> String {
    format!(
        "cannot differentiate through the method `{name}`: it is not a differentiable \
         primitive; {HELP_CALL}"
    )
}

pub fn call_of_expression() -> String {
    format!(
        "cannot differentiate a call of this expression; call a named function. To call a \
         differentiable function: {HELP_CALL}"
    )
}

pub fn option_needs_unwrap(name: &str) -> String {
    format!(
        "`{name}` returns an `Option` (`None` for an empty array): write \
         `.{name}(…).unwrap()` (or `.expect(…)`) directly after it"
    )
}

pub fn active_array_arguments(name: &str) -> String {
    format!(
        "the arguments of `{name}` (axes, indices, slices) must not depend on differentiable \
         values"
    )
}

pub fn active_axis(name: &str) -> String {
    format!("the axis of `{name}` must not depend on differentiable values")
}

pub fn mapv_of_path(path: &str) -> String {
    format!(
        "cannot differentiate `mapv` of `{path}`: a one-argument float method (`f64::tanh`) \
         or a closure is expected"
    )
}

pub fn mapv_capture(local: &str) -> String {
    format!(
        "a `mapv` closure that reads the local `{local}` must be elementwise arithmetic \
         (`+ - * /`, negation, float methods such as `exp`, `powi` of a literal) of its \
         argument and such values; write the rest as array arithmetic (`x.mapv(f) * \
         {local}`)"
    )
}

// The signature, the helpers, the derive.

pub const DERIVE_UNNAMED_FIELDS: &str =
    "`#[derive(Differentiable)]` needs named fields (its tangent has the same field \
     names); give the fields names";

pub const DERIVE_ON_ENUM: &str =
    "`#[derive(Differentiable)]` is for structs: an enum has no tangent space (its \
     variants are not a vector space); mark fields of this type `#[no_grad]`";

pub const CLOSURE_MACRO_INPUT: &str =
    "`differentiable_closure!` takes a closure: `differentiable_closure!(|x: f64| w * \
     x)`";

pub const HELPER_EXPECTS_PATH: &str =
    "expected the path of a `#[differentiable]` function, such as `loss` or \
     `model::loss`";

pub const PARAMS_EMPTY: &str =
    "`params` names no parameter; list at least one, or leave `params` out to \
     differentiate with respect to every differentiable parameter";

pub const PARAMS_TOO_MANY: &str =
    "at most 8 parameters can be selected with `params`; leave `params` out to get \
     every gradient";

pub const VJP_TAKES_NO_PARAMS: &str =
    "`vjp!` takes no `params`: its pullback returns the gradient of every \
     differentiable parameter";

pub const UNSAFE_FN: &str =
    "`#[differentiable]` cannot differentiate an `unsafe fn`: the reverse sweep could \
     not uphold its safety contract; write a safe wrapper and differentiate that, or \
     give it a custom rule with `#[differentiable(vjp = …)]`";

pub const MISSING_RETURN_TYPE: &str =
    "a `#[differentiable]` function must return the value to differentiate; add a \
     return type such as `-> f64`";

/// A function without a result that writes through a `&mut` parameter of a type other than
/// floats and sequences of them (`s: &mut State`).
pub fn struct_written_through(name: &str) -> String {
    format!(
        "`{name}` is written through, but a differentiable function's outputs through `&mut` \
         are floats, slices, `Vec`s and arrays of them (`out: &mut [f64]`) for now; take \
         the value and return it (`fn step(s: State, …) -> State`, its fields then \
         differentiable with `#[derive(Differentiable)]`), or return the value to \
         differentiate"
    )
}

/// A function without a result that writes through a `&mut` sequence whose elements are
/// not known to be floats (`v: &mut [T]`, `T` without a float bound).
pub fn sequence_of_unknown_written_through(name: &str) -> String {
    format!(
        "`{name}` is written through, but its elements are not known to be floats (a type \
         parameter needs a `Float` or `Real` bound to be one), so nothing written is \
         differentiable; bound the element type, or return the value to differentiate"
    )
}

pub const BORROWED_RESULT: &str =
    "a `#[differentiable]` function cannot return a reference yet: the result borrows \
     from a parameter, and its gradient would have to be added into that parameter's at \
     the borrowed place; return an owned value (`values[..n].to_vec()`), or return the \
     end (`n`) and slice where it is called (`&values[..trimmed_len(values)]`)";

pub const PARAMETER_PATTERN: &str =
    "`#[differentiable]` needs every parameter to be a plain name (`x: f64`); \
     destructure it in the body instead";

pub const CLOSURE_PARAMETER_PATTERN: &str =
    "a `differentiable_closure!` parameter must be a plain name (`x: f64`); \
     destructure it in the body instead";

pub fn derive_constant_field(field: &str, ty: &str) -> String {
    format!(
        "the field `{field}` has type `{ty}`, which has no tangent space (it is a constant); \
         mark it `#[no_grad]`"
    )
}

pub fn unknown_attribute_argument(key: &syn::Ident) -> String {
    format!(
        "unknown argument `{key}`; `#[differentiable]` takes `vjp = path_to_rule` (a custom \
         rule), `jvp = path_to_rule` (its forward-mode rule), `self` (a method \
         differentiable with respect to its receiver), `recursive` (a function calling \
         itself through others) and `second_order` (`hvp!` and `hessian!` of a function \
         written with `f64`)"
    )
}

pub fn unknown_helper_argument(key: &syn::Ident) -> String {
    format!("unknown argument `{key}`; expected `params = [\"name\", …]` or `params = [0, …]`")
}

pub fn unknown_result_bound(tp: &syn::Ident) -> String {
    format!(
        "`#[differentiable]` cannot tell whether `{tp}` is a float type: the result is made of \
         `{tp}`, and this bound is not one it knows (a float's are `num_traits::Float`, \
         `autodiff::Real`, the arithmetic operators, `Copy`, `PartialOrd`, …); add `Float` \
         to `{tp}`'s bounds (`{tp}: Float + …`) so that the derivative is generated for float \
         types, or differentiate a copy of the function written for `f64` (complex numbers \
         have no derivative here)"
    )
}

pub fn named_like_a_primitive(name: &str) -> String {
    format!(
        "a `#[differentiable]` function cannot be named `{name}`: its derivative lives in a \
         type of the same name, which would shadow the primitive type `{name}`; rename the \
         function"
    )
}
