//! Procedural macros of [`autodiff`](https://docs.rs/autodiff): `#[differentiable]` and
//! the gradient helpers. Use them through the `autodiff` facade
//! (`use autodiff::prelude::*;`), which also provides the runtime the generated code calls.
//!
//! The attribute reads a function body and writes its reverse-mode derivative next to it,
//! by source transformation: parse (syn) → lower to an IR in A-normal form with activity
//! analysis and diagnostics → emit a forward sweep and a reverse sweep. The macro knows the
//! structure of the code; every derivative formula lives in the runtime.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod companions;
mod derive;
mod derive_dual;
mod derive_features;
mod diag;
mod emit;
mod expand;
mod forward;
mod fuse;
mod helpers;
mod hessian;
mod impls;
mod ir;
mod jacobian;
mod lower;
#[cfg(test)]
mod never_panics;
mod plain_types;
mod rename;
mod rules;
mod second_order;
mod signature;
#[cfg(test)]
mod snapshots;
mod sources;

/// Makes a function differentiable: keeps it as written and generates its reverse-mode
/// derivative (adjoint code) beside it, reached by [`gradients_function!`],
/// [`value_and_gradients_function!`], [`vjp!`] and by calls from other differentiable
/// functions.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
///     w1 * x1 + w2 * x2
/// }
///
/// assert_eq!(weighted_sum(2.0, 5.0, 3.0, 7.0), 31.0); // still an ordinary function
/// let grad = gradients_function!(weighted_sum, params = ["w1", "w2"]);
/// assert_eq!(grad(2.0, 5.0, 3.0, 7.0), (5.0, 7.0));
/// ```
///
/// Parameters of type `f32`, `f64` (or a type parameter bounded by `Float`), slices,
/// `Vec`s and arrays of them, ndarray arrays (owned, borrowed, views) and structs with
/// `#[derive(Differentiable)]` are differentiable; integer, `bool`, `char` and string
/// parameters (and sequences of them), and parameters marked `#[no_grad]`, are constants. A
/// method's receiver is a constant unless the method says `#[differentiable(self)]`:
///
/// ```
/// use autodiff::prelude::*;
///
/// #[derive(Clone, Differentiable)]
/// struct Spring { k: f64 }
///
/// impl Spring {
///     #[differentiable(self)]
///     fn energy(&self, x: f64) -> f64 {
///         0.5 * self.k * x * x
///     }
/// }
///
/// let (dk, dx) = gradients_function!(Spring::energy)(&Spring { k: 3.0 }, 2.0);
/// assert_eq!((dk.k, dx), (2.0, 6.0));
/// ```
///
/// Arrays are differentiated as ndarray code is written (broadcasting arithmetic, `dot`,
/// reductions, `mapv`, slicing, …; see the crate's README for the list).
/// `#[differentiable(vjp = rule)]` supplies the derivative by
/// hand: `rule` takes the function's parameters and returns `(value, pullback)`, the
/// pullback mapping the output's cotangent to the gradients of the differentiable
/// parameters (the bare gradient when there is one, else a tuple):
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable(vjp = softplus_vjp)]
/// fn softplus(x: f64) -> f64 {
///     x.exp().ln_1p()
/// }
///
/// fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
///     let sigmoid = 1.0 / (1.0 + (-x).exp());
///     (softplus(x), move |dy| dy * sigmoid)
/// }
///
/// let d = gradients_function!(softplus)(0.0);
/// assert_eq!(d, 0.5);
/// ```
///
/// Forward mode (`jvp!`, and the forward sweeps of its callers) needs a forward rule
/// beside a hand-written `vjp` one: `#[differentiable(vjp = rule, jvp = rule)]`, the `jvp`
/// rule taking the function's parameters, then the tangent of each differentiable one, and
/// returning `(value, tangent)`. Without it, `jvp!` of the function (or of a caller) is a
/// compile error naming the missing `jvp` rule.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable(vjp = softplus_vjp, jvp = softplus_jvp)]
/// fn softplus(x: f64) -> f64 {
///     x.exp().ln_1p()
/// }
///
/// fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
///     let sigmoid = 1.0 / (1.0 + (-x).exp());
///     (softplus(x), move |dy| dy * sigmoid)
/// }
///
/// fn softplus_jvp(x: f64, tx: f64) -> (f64, f64) {
///     (softplus(x), tx / (1.0 + (-x).exp()))
/// }
///
/// assert_eq!(jvp!(softplus)(0.0, 2.0), (2.0_f64.ln(), 1.0));
/// ```
///
/// A function calling itself needs nothing more. Functions calling each other (mutual
/// recursion) need one of them in each cycle marked `#[differentiable(recursive)]`: its
/// reverse sweep runs each callee's derivative again where it is needed instead of keeping
/// the callee's pullback, so no pullback's type contains itself (unmarked, rustc reports
/// `E0720 cannot resolve opaque type` at the attributes). The marked function's callees then
/// run their forward sweeps twice.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable(recursive)]
/// fn even(x: f64, n: u32) -> f64 {
///     if n == 0 { x } else { odd(x, n - 1).sin() }
/// }
///
/// #[differentiable]
/// fn odd(x: f64, n: u32) -> f64 {
///     if n == 0 { x * x } else { even(x, n - 1) * 2.0 }
/// }
///
/// // even(x, 2) = sin(2x): derivative 2 cos(2x)
/// let d = gradients_function!(even, params = ["x"])(0.5, 2);
/// assert!((d - 2.0 * 1.0_f64.cos()).abs() < 1e-15);
/// ```
///
/// `#[differentiable(second_order)]` on a free function written with `f64` gives it
/// [`hvp!`] and [`hessian!`], which run a gradient on dual numbers and so need code generic
/// over the float type: the attribute writes a hidden copy of the function with every `f64`
/// of its types and casts written as a type parameter, its float literals and `f64`
/// constants converted (`f64::EPSILON`, `std::f64::consts::PI`, a `const` or `static`
/// named in capitals, arrays of them), and differentiates the copy; its calls of other
/// functions of the crate call their copies, so a helper is marked `second_order` too (or
/// is generic, `fn g<T: Float>`, and is called as it is). It is asked for because the copy
/// is a second function to compile. What the copy cannot follow fails to compile there: a
/// call of a helper written for `f64` and not marked (rustc: ``cannot find function
/// `__autodiff_so_helper` ``), `x as f32` of a float.
///
/// ```
/// use autodiff::prelude::*;
///
/// const A: f64 = 3.0;
///
/// #[differentiable(second_order)]
/// fn f(x: &[f64]) -> f64 {
///     let mut s = 0.0;
///     for i in 0..x.len() {
///         s += A * x[i] * x[i] * x[i] / (i as f64 + 1.0);
///     }
///     s
/// }
///
/// // ∂²f/∂x_i² = 6 A x_i / (i + 1)
/// let h = hessian!(f)(&[1.0, 2.0]);
/// assert_eq!(h, autodiff::ndarray::array![[18.0, 0.0], [0.0, 18.0]]);
/// assert_eq!(hvp!(f)(&[1.0, 2.0], &[1.0, 1.0]), vec![18.0, 18.0]);
/// ```
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::differentiable(args.into(), item.into()).into()
}

/// `differentiable_closure!(|x: f64| w * x)`: a closure that stays an ordinary closure
/// (call it as usual) and is differentiated at compile time: the implicit helpers and the
/// `GradientTape` get the gradients of the variables it reads. (`#[differentiable]` and a
/// function-like `differentiable!` cannot share one name in Rust: attribute and
/// function-like macros live in one namespace.)
///
/// ```
/// use autodiff::prelude::*;
///
/// let w1 = Variable::new(2.0);
/// let w2 = Variable::new(3.0);
/// let weighted_sum = differentiable_closure!(|x1: f64, x2: f64| w1 * x1 + w2 * x2);
/// assert_eq!(weighted_sum(5.0, 7.0), 31.0);
///
/// let grads = implicit_gradients(&weighted_sum)(5.0, 7.0);
/// assert_eq!(grads.get(&w1), Some(5.0));
/// assert_eq!(grads.get(&w2), Some(7.0));
/// ```
#[proc_macro]
pub fn differentiable_closure(input: TokenStream) -> TokenStream {
    expand::closure(input.into()).into()
}

/// `gradients_function!(f)` or `gradients_function!(f, params = ["w1", "w2"])`: a closure
/// taking `f`'s own arguments and returning the gradients of `f`'s (scalar) result with
/// respect to the chosen parameters, in the order named (by name or by position); one
/// gradient comes back bare, several as a tuple. Naming an unknown or constant parameter
/// is a compile error.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
///     w1 * x1 + w2 * x2
/// }
///
/// let all = gradients_function!(weighted_sum);
/// assert_eq!(all(2.0, 5.0, 3.0, 7.0), (5.0, 2.0, 7.0, 3.0));
/// let x2_grad: f64 = gradients_function!(weighted_sum, params = ["x2"])(2.0, 5.0, 3.0, 7.0);
/// assert_eq!(x2_grad, 3.0);
/// let by_position = gradients_function!(weighted_sum, params = [2, 0]);
/// assert_eq!(by_position(2.0, 5.0, 3.0, 7.0), (7.0, 5.0));
/// ```
#[proc_macro]
pub fn gradients_function(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    helpers::gradients_function(input, false)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Like [`gradients_function!`], but the closure returns `(value, gradients)`: reverse
/// mode computes the value anyway.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
///     w1 * x1 + w2 * x2
/// }
///
/// let vg = value_and_gradients_function!(weighted_sum, params = ["w1", "w2"]);
/// assert_eq!(vg(2.0, 5.0, 3.0, 7.0), (31.0, (5.0, 7.0)));
/// ```
#[proc_macro]
pub fn value_and_gradients_function(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    helpers::gradients_function(input, true)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `accumulate_gradients!(f)` or `accumulate_gradients!(f, params = ["v"])`: a closure
/// taking `f`'s own arguments and then the caller's gradient buffers (one `&mut` buffer
/// bare, several as a tuple, in the order `params` names them), which **adds** the gradients
/// of `f`'s (scalar) result into the buffers and returns the value. As Enzyme's shadow
/// arguments: a slice's buffer is a `&mut [f64]` the derivative writes into in place (the
/// whole vector, a sub-slice of a larger one, an array), so a call costs what `f` does, not
/// the length of its slices, and nothing is allocated for it; any other parameter's buffer
/// has its gradient's type (`&mut f64`, `&mut Array1<f64>`, `&mut` a derived tangent).
/// Gradients add up over calls (a batch's sum, or many sparse updates); zero the buffers
/// yourself (`fill(0.0)`) for the gradient of one call. Parameters not selected get no
/// adjoint at all.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn pick(v: &[f64], i: usize) -> f64 {
///     v[i] * v[i]
/// }
///
/// let v = vec![1.0, 2.0, 3.0];
/// let mut grad = vec![0.0; 3];
/// let add_gradient = accumulate_gradients!(pick, params = ["v"]);
/// assert_eq!(add_gradient(&v, 1, &mut grad), 4.0);
/// assert_eq!(add_gradient(&v, 2, &mut grad), 9.0);
/// assert_eq!(grad, vec![0.0, 4.0, 6.0]); // 2·v[1] + 2·v[2], added
/// ```
#[proc_macro]
pub fn accumulate_gradients(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    helpers::accumulate_gradients(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `vjp!(f)(args…)` returns `(value, pullback)`; `pullback(cotangent)` gives the
/// gradients of every differentiable parameter (the bare gradient when there is one),
/// for any output type, e.g. a tuple.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn polar(r: f64, theta: f64) -> (f64, f64) {
///     (r * theta.cos(), r * theta.sin())
/// }
///
/// let (value, pullback) = vjp!(polar)(2.0, 0.0);
/// assert_eq!(value, (2.0, 0.0));
/// // the gradient of the output's second component, y = r sin θ:
/// let (dr, dtheta) = pullback((0.0, 1.0));
/// assert_eq!((dr, dtheta), (0.0, 2.0));
/// ```
#[proc_macro]
pub fn vjp(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    helpers::vjp(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `jvp!(f)(args…, tangents…)` returns `(value, tangent)`: forward mode, the value and
/// the directional derivative in one sweep, no tape. Without `params` it takes one tangent
/// per differentiable parameter, in order; with `params = [...]`, one per selected
/// parameter in the order named (the others' tangents are zero). A tangent has its
/// parameter's type (a slice's tangent is a slice), and the result's tangent the output's
/// type; a tangent whose shape is not its parameter's panics, naming both.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
///     w1 * x1 + w2 * x2
/// }
///
/// let (y, dy) = jvp!(weighted_sum, params = ["w1", "w2"])(2.0, 5.0, 3.0, 7.0, 1.0, 0.0);
/// assert_eq!((y, dy), (31.0, 5.0));
/// let (_, dy) = jvp!(weighted_sum)(2.0, 5.0, 3.0, 7.0, 1.0, 0.0, 0.0, 1.0);
/// assert_eq!(dy, 5.0 + 3.0);
/// ```
///
/// A function forward mode cannot differentiate yet (a hand-written `vjp` rule without a
/// `jvp` one, an array operation without a tangent rule) is a compile error where `jvp!`
/// names it.
#[proc_macro]
pub fn jvp(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    forward::jvp(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `hvp!(f)(args…, vectors…)` returns the Hessian of the scalar function `f` applied to
/// the vectors (one per differentiable parameter, of the parameter's type), never forming
/// the Hessian: forward mode over reverse mode, `f`'s generated gradient run on dual
/// numbers. The result has the gradients' types (a `Vec` for a slice; a tuple for several
/// parameters). `f` must be generic over its float type (`fn f<T: Float>(…) -> T`) or,
/// written with `f64`, marked `#[differentiable(second_order)]` (see [`macro@differentiable`]),
/// with parameters `T`, `&[T]`, `&Vec<T>` or `Vec<T>` (and constants); anything else is a
/// compile error where `hvp!` names it.
///
/// `hvp!(f, params = ["a", …])(args…, vectors…)` takes vectors for the selected
/// parameters only, in the order named (the others' are zero), and returns the products of
/// those parameters: the selected rows of `H·v`, the blocks of the Hessian that couple the
/// selected parameters.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn cubic<T: Float>(x: &[T]) -> T {
///     x[0] * x[0] * x[1]
/// }
///
/// // H = [[2 x1, 2 x0], [2 x0, 0]]
/// let hv = hvp!(cubic)(&[3.0, 5.0], &[1.0, 0.0]);
/// assert_eq!(hv, vec![10.0, 6.0]);
///
/// #[differentiable]
/// fn scaled<T: Float>(x: &[T], s: T) -> T {
///     s * x[0] * x[1]
/// }
///
/// // the block of `x` alone: [[0, s], [s, 0]]·v
/// let hx = hvp!(scaled, params = ["x"])(&[3.0, 5.0], 2.0, &[1.0, 0.0]);
/// assert_eq!(hx, vec![0.0, 2.0]);
/// // both, `s` first: (∂²f/∂s∂x · v_x, …)
/// let (hs, hx) = hvp!(scaled, params = ["s", "x"])(&[3.0, 5.0], 2.0, 0.0, &[1.0, 0.0]);
/// assert_eq!((hs, hx), (5.0, vec![0.0, 2.0]));
/// ```
#[proc_macro]
pub fn hvp(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    hessian::helper(input, false)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `hessian!(f)(args…)` returns the dense Hessian of the scalar function `f` with respect
/// to its one differentiable parameter: a float for a float parameter, an `Array2` `n × n`
/// for a slice or `Vec` of `n` elements, filled one column per `hvp!` product with a unit
/// vector. `f` must be generic over its float type or marked `second_order`, as for
/// [`hvp!`]; for large sparse
/// Hessians, use `hvp!` directly (a Krylov method needs only products). A function with
/// several differentiable parameters takes `params = ["x"]` naming one: the block of the
/// Hessian for that parameter.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn cubic<T: Float>(x: &[T]) -> T {
///     x[0] * x[0] * x[1]
/// }
///
/// let h = hessian!(cubic)(&[3.0, 5.0]);
/// assert_eq!(h, autodiff::ndarray::array![[10.0, 6.0], [6.0, 0.0]]);
///
/// #[differentiable]
/// fn scaled<T: Float>(x: &[T], s: T) -> T {
///     s * s * x[0] * x[1]
/// }
///
/// let hx = hessian!(scaled, params = ["x"])(&[3.0, 5.0], 2.0);
/// assert_eq!(hx, autodiff::ndarray::array![[0.0, 4.0], [4.0, 0.0]]);
/// assert_eq!(hessian!(scaled, params = ["s"])(&[3.0, 5.0], 2.0), 30.0);
/// ```
#[proc_macro]
pub fn hessian(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    hessian::helper(input, true)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `jacobian!(f)(args…)` returns the Jacobian of `f` with respect to its one
/// differentiable parameter (or the one `params = ["x"]` selects): an `Array2` `m × n`,
/// `m` the elements of the output (a float, a `Vec`, an array or an `Array1` of floats)
/// and `n` those of the parameter (a float, a slice, a `Vec`, an array or an `Array1`).
/// Row `i` is the gradient of output element `i`, by reverse mode: one pullback per row.
/// Several parameters, or an output of another kind, are a compile error where
/// `jacobian!` names the function.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn polar(r: f64, theta: f64) -> [f64; 2] {
///     [r * theta.cos(), r * theta.sin()]
/// }
///
/// // d(x, y)/dr = (cos θ, sin θ)
/// let j = jacobian!(polar, params = ["r"])(2.0, 0.0);
/// assert_eq!(j, autodiff::ndarray::array![[1.0], [0.0]]);
///
/// #[differentiable]
/// fn squares(x: &[f64]) -> Vec<f64> {
///     let mut y = vec![0.0; x.len()];
///     for i in 0..x.len() {
///         y[i] = x[i] * x[i];
///     }
///     y
/// }
///
/// let j = jacobian!(squares)(&[1.0, 3.0]);
/// assert_eq!(j, autodiff::ndarray::array![[2.0, 0.0], [0.0, 6.0]]);
/// ```
#[proc_macro]
pub fn jacobian(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as helpers::HelperInput);
    jacobian::helper(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(Differentiable)]` on a struct with named fields: its tangent (gradient) type
/// `<Name>Tangent`, with the same field names (`NoTangent` for fields marked
/// `#[no_grad]`), and the runtime's traits, so the struct can be a parameter of a
/// `#[differentiable]` function, be updated by an optimizer's `step`, and live in a
/// `Variable`. Every other field's type must be differentiable (floats, arrays, `Vec`s,
/// other derived structs). A type parameter without bounds that such a field names
/// (`struct Params<T> { w: Vec<T>, b: T }`) is the float type: the generated items take it
/// as `T: Real`. Inside differentiable code, a struct literal of differentiable values
/// (`Line { slope: a * k, offsets: o.clone(), label: "l" }`) is differentiable too.
///
/// ```
/// use autodiff::prelude::*;
/// use autodiff::ndarray::{array, Array1};
///
/// #[derive(Clone, Differentiable)]
/// struct Line {
///     slope: f64,
///     offsets: Array1<f64>,
///     #[no_grad]
///     label: &'static str,
/// }
///
/// #[differentiable]
/// fn fit(line: &Line, x: f64) -> f64 {
///     (&line.offsets * line.slope * x).sum()
/// }
///
/// let line = Line { slope: 2.0, offsets: array![1.0, 3.0], label: "l" };
/// let g = gradients_function!(fit, params = ["line"])(&line, 0.5);
/// assert_eq!(g.slope, 2.0); // Σ offsets · x
/// assert_eq!(g.offsets, array![1.0, 1.0]); // slope · x
/// let _ = line.label;
/// ```
#[proc_macro_derive(Differentiable, attributes(no_grad))]
pub fn derive_differentiable(input: TokenStream) -> TokenStream {
    derive::derive(input.into()).into()
}

/// The finite-difference checks of the macro's primitive table (for the facade's tests):
/// an expression of type `&[(&str, f64, f64)]`, each entry a rule's name, its value at the
/// row's sample point through the runtime's formula, reading what the row says it reads,
/// and the central difference of the primitive there.
#[doc(hidden)]
#[proc_macro]
pub fn __rule_table_checks(_input: TokenStream) -> TokenStream {
    rules::checks().into()
}

/// The tangent checks of the macro's primitive table (for the facade's tests): for every
/// scalar rule, `jvp!` of a function of the primitive alone, in `f64` and `f32`, against
/// the central difference along each direction; an expression of type
/// `Vec<(String, f64, f64, f64)>` (label, tangent, difference, relative tolerance).
#[doc(hidden)]
#[proc_macro]
pub fn __tangent_table_checks(_input: TokenStream) -> TokenStream {
    rules::tangent_checks().into()
}
