//! What every generated program is checked with: the `program!` macro, which keeps a
//! function and its checker together, and the comparison with finite differences.
//!
//! The soak driver of `autodiff-fuzz` builds its throwaway projects with this very file
//! (`include_str!`), so the checked-in programs and the soak's are checked alike.

use autodiff::check::{finite_difference, first_mismatch};
use autodiff::ndarray::{Array1, Array2};

/// A generated function and its checker, written once:
///
/// ```text
/// program! {
///     #[differentiable]
///     fn p1(a: f64, xs: &[f64]) -> f64 { … }
///     check_p1(seed = 0x…, inputs = 5, calls = [p0], at = |p| (p[0], &p[1..5]));
/// }
/// ```
///
/// (helper functions the program calls are written before the invocation) and, to check
/// a selection of parameters, `…, at = |p| (…), params = ["xs", "a"] at [1, 2, 3, 4, 0]);`:
/// the names go to `gradients_function!(p1, params = [...])`, the positions in the point
/// of their inputs, in the same order, pick the finite differences it is compared with.
///
/// yields the function as written and `check_p1`, a `#[test]` (a plain function outside
/// tests, for the soak) that [`check`]s it at random points of `inputs` numbers drawn
/// from `seed`: a point `p` (the scalars, slice and array elements, in parameter order)
/// becomes the arguments `at`. `calls` names the generated functions it calls; they and
/// the function's source text (`stringify!`) are shown when the check fails, which it
/// does by panicking with what [`check`] found.
macro_rules! program {
    (
        $hash:tt $attribute:tt
        fn $name:ident($($params:tt)*) -> f64 { $($body:tt)* }
        $check:ident(
            seed = $seed:literal,
            inputs = $inputs:literal,
            calls = [$($callee:ident),*],
            at = |$p:ident| ($($arg:expr),* $(,)?)
            $(, params = [$($selected:literal),+] at [$($input:literal),+])? $(,)?
        );
    ) => {
        // The invocation's own `#[differentiable]` tokens, not the macro's: the code the
        // attribute writes carries the attribute's span (`Span::call_site()`) and names
        // the parameters, which resolve only in the invocation's hygiene context.
        $hash $attribute
        fn $name($($params)*) -> f64 { $($body)* }

        #[cfg_attr(test, test)]
        // (the closure of an `hvp!` the attribute refuses returns `!`, whose `Flat` is the
        // fallback `()`'s: never called, see `hvp_closure!`)
        #[allow(dependency_on_unit_never_type_fallback)]
        pub fn $check() {
            let checked = crate::harness::check(
                stringify!($name),
                concat!(
                    stringify!($hash $attribute),
                    " fn ",
                    stringify!($name),
                    stringify!(($($params)*)),
                    " -> f64 ",
                    stringify!({ $($body)* }),
                ),
                &[$(stringify!($callee)),*],
                $seed,
                $inputs,
                &[$($($input),+)?],
                &|$p: &[f64]| $name($($arg),*),
                &|$p: &[f64]| {
                    crate::harness::Flat::flat(
                        autodiff::gradients_function!($name $(, params = [$($selected),+])?)(
                            $($arg),*
                        ),
                    )
                },
                &|$p: &[f64]| {
                    autodiff::value_and_gradients_function!(
                        $name $(, params = [$($selected),+])?
                    )($($arg),*)
                    .0
                },
                // what `jvp!($name)` returns, without its compile-time refusal: a function
                // forward mode does not serve yet (`__FORWARD`, its reason) is skipped here
                // at run time instead of failing the whole module's build
                $name::__FORWARD,
                &|$p: &[f64], __tangent: &[f64]| {
                    // (`__jvp_function` of a function of floats and float slices is the
                    // runtime's, through these traits, as `jvp!` brings them in)
                    #[allow(unused_imports)]
                    use autodiff::__private::entry::{
                        JvpEntries1 as _, JvpEntries2 as _, JvpEntries3 as _, JvpEntries4 as _,
                        JvpEntries5 as _, JvpEntries6 as _, JvpEntries7 as _, JvpEntries8 as _,
                    };
                    tangent_call!(
                        $name::__jvp_function(), $p, __tangent,
                        [] [] [$($params)*] [$($arg),*]
                    )
                },
                hvp_closure!($attribute $name, $p, [$($params)*] [$($arg),*]),
            );
            if let Err(message) = checked {
                panic!("{message}");
            }
        }
    };
}

/// `hvp!`'s closure with flat vectors and result, for a function marked
/// `#[differentiable(second_order)]` (the vectors passed as `jvp!`'s tangents are); `None`
/// for the others, and for one whose copy generic over the float type the attribute
/// refuses (`__HVP`, its reason: `hvp!` would be a compile error, skipped here at run time
/// as `jvp!`'s is).
macro_rules! hvp_closure {
    ([differentiable(second_order)] $name:ident, $p:ident, [$($params:tt)*] [$($arg:expr),*]) => {
        $name::__HVP.is_none().then_some(&|$p: &[f64], __vector: &[f64]| {
            crate::harness::Flat::flat(tangent_call!(
                $name::__hvp_function(), $p, __vector, [] [] [$($params)*] [$($arg),*]
            ))
        })
    };
    ($other:tt $name:ident, $p:ident, [$($params:tt)*] [$($arg:expr),*]) => {
        None
    };
}

/// `f(args…, tangents…)` for `jvp!`'s closure `f`: the arguments as written, then, for each
/// differentiable parameter (every one but those of integer or `bool` type), its argument
/// expression again with the point `$p` rebound to the tangent vector, so a slice argument
/// `&p[1..4]` gets the tangent `&t[1..4]` and an array built from `p` an array of the same
/// shape built from `t`. (A temporary in a block's tail lives to the end of the call, as
/// edition 2021 has it.)
macro_rules! tangent_call {
    // a constant parameter (of integer or `bool` type): no tangent
    (@one usize, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    (@one isize, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    (@one u32, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    (@one i32, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    (@one u64, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    (@one i64, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    (@one bool, $($rest:tt)*) => { tangent_call!(@constant $($rest)*) };
    // `f64` or another type named by one identifier: differentiable
    (@one $other:ident, $($rest:tt)*) => { tangent_call!(@differentiable $($rest)*) };
    (@constant $f:expr, $p:ident, $t:ident, [$($a:expr),*] [$($ta:expr),*]
        [$($prest:tt)*] [$arg:expr $(, $($arest:tt)*)?]
    ) => {
        tangent_call!($f, $p, $t, [$($a,)* $arg] [$($ta),*] [$($prest)*] [$($($arest)*)?])
    };
    (@differentiable $f:expr, $p:ident, $t:ident, [$($a:expr),*] [$($ta:expr),*]
        [$($prest:tt)*] [$arg:expr $(, $($arest:tt)*)?]
    ) => {
        tangent_call!($f, $p, $t, [$($a,)* $arg] [$($ta,)* { let $p: &[f64] = $t; $arg }]
            [$($prest)*] [$($($arest)*)?])
    };
    ($f:expr, $p:ident, $t:ident, [$($a:expr),*] [$($ta:expr),*] [] []) => {
        $f($($a,)* $($ta),*)
    };
    // a parameter whose type is one identifier
    ($f:expr, $p:ident, $t:ident, [$($a:tt)*] [$($ta:tt)*]
        [$pn:ident : $ty:ident $(, $($prest:tt)*)?] [$($arest:tt)*]
    ) => {
        tangent_call!(@one $ty, $f, $p, $t, [$($a)*] [$($ta)*] [$($($prest)*)?] [$($arest)*])
    };
    // a parameter of any other type (a slice, an array, an ndarray array): differentiable
    ($f:expr, $p:ident, $t:ident, [$($a:tt)*] [$($ta:tt)*]
        [$pn:ident : $pty:ty $(, $($prest:tt)*)?] [$($arest:tt)*]
    ) => {
        tangent_call!(@differentiable $f, $p, $t, [$($a)*] [$($ta)*] [$($($prest)*)?] [$($arest)*])
    };
}

/// Relative tolerance against `finite_difference` (compared as in `first_mismatch`,
/// relative to `max(1, |numeric|)`). Its fourth-order stencil has a truncation error of
/// about h⁴·f⁽⁵⁾/30 with h = 1e-3·max(1, |xᵢ|), i.e. ~1e-12·f⁽⁵⁾, and a rounding error of
/// ~1e-13·|f|. The generator keeps values and their derivatives moderate (squashing with
/// tanh/sin, safe divisors, exponentials of bounded arguments), so a correct gradient
/// agrees to ~1e-9 or better and 1e-6 leaves a wide margin, while a wrong rule or a
/// dropped contribution is off by far more.
const TOLERANCE: f64 = 1e-6;
/// Independent points per function.
const POINTS: usize = 3;
/// Perturbed points tried after a mismatch before it is reported.
const RETRIES: usize = 3;

/// xorshift64*: uniform in [0, 1).
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
}

/// Checks `gradient` against finite differences of `f` at `POINTS` points drawn from
/// `seed` (the inputs at the positions `selected`, in that order, or all of them if it is
/// empty), and `value` (the value of `value_and_gradients_function!`) against `f` bit for
/// bit. A branch switching or a `max`/`min` tie inside the finite-difference stencil also
/// gives a mismatch, so a mismatch is reported only if it persists at `RETRIES` points
/// perturbed by up to ±0.05: close enough to take the same branches almost surely.
///
/// `Err` describes the failure; its first words say what kind it is (the soak sorts
/// failures by them): `generator error`, `panicked`, `value mismatch`, `gradient mismatch`.
#[allow(clippy::too_many_arguments)]
pub fn check(
    name: &str,
    source: &str,
    callees: &[&str],
    seed: u64,
    dim: usize,
    selected: &[usize],
    f: &dyn Fn(&[f64]) -> f64,
    gradient: &dyn Fn(&[f64]) -> Vec<f64>,
    value: &dyn Fn(&[f64]) -> f64,
    forward: Option<&str>,
    jvp: Jvp,
    hvp: Option<Hvp>,
) -> Result<(), String> {
    let listing = || {
        let calls = if callees.is_empty() {
            String::new()
        } else {
            format!("(calls {})\n", callees.join(", "))
        };
        format!("{calls}{}", layout(source))
    };
    let mut state = seed | 1;
    for _ in 0..POINTS {
        let point: Vec<f64> = (0..dim).map(|_| 2.5 * uniform(&mut state) - 1.25).collect();
        let primal = catch(|| f(&point)).map_err(|e| {
            format!(
                "generator error: `{name}` itself panics at {point:?}: {e}\n{}",
                listing()
            )
        })?;
        let from_helper = catch(|| value(&point)).map_err(|e| {
            format!(
                "panicked: value_and_gradients_function!({name}) at {point:?}: {e}\n{}",
                listing()
            )
        })?;
        // `powi`'s rounding is unspecified (Rust's documentation says so): LLVM folds a
        // constant `powi` with `pow`, while the runtime routine multiplies, so a primal
        // folded at compile time may differ from the derivative's in the last bits.
        let ulps = (primal.to_bits() as i64)
            .wrapping_sub(from_helper.to_bits() as i64)
            .unsigned_abs();
        if primal.to_bits() != from_helper.to_bits() && !(source.contains("powi") && ulps <= 8) {
            return Err(format!(
                "value mismatch: `{name}` at {point:?}: value_and_gradients_function! gives {from_helper:e}, the function {primal:e}\n{}",
                listing()
            ));
        }
        let mut at = point.clone();
        let mut attempts = Vec::new();
        loop {
            let analytic = catch(|| gradient(&at)).map_err(|e| {
                format!(
                    "panicked: gradients_function!({name}) at {at:?}: {e}\n{}",
                    listing()
                )
            })?;
            let mut numeric = finite_difference(f, &at);
            if !selected.is_empty() {
                numeric = selected.iter().map(|&i| numeric[i]).collect();
            }
            if first_mismatch(&analytic, &numeric, TOLERANCE).is_some() {
                // a function whose higher derivatives are large: the same stencil at a tenth
                // of the step, whose truncation error is 10⁴ times smaller
                let mut finer = finer_difference(f, &at);
                if !selected.is_empty() {
                    finer = selected.iter().map(|&i| finer[i]).collect();
                }
                if first_mismatch(&analytic, &finer, TOLERANCE).is_none() {
                    break;
                }
            }
            let Some((i, a, n)) = first_mismatch(&analytic, &numeric, TOLERANCE) else {
                break;
            };
            attempts.push(format!(
                "  at {at:?}: d/d(input {i}) generated {a:e}, finite difference {n:e}\n    generated: {analytic:?}\n    numeric:   {numeric:?}"
            ));
            if attempts.len() > RETRIES {
                return Err(format!(
                    "gradient mismatch: `{name}` (inputs: scalars and slice elements in parameter order{})\n{}\n{}",
                    if selected.is_empty() {
                        String::new()
                    } else {
                        format!("; of them, the selected ones: {selected:?}")
                    },
                    attempts.join("\n"),
                    listing()
                ));
            }
            at = point
                .iter()
                .map(|x| x + 0.1 * uniform(&mut state) - 0.05)
                .collect();
        }
        if forward.is_none() {
            check_jvp(name, source, &at, &mut state, selected, f, gradient, jvp)
                .map_err(|e| format!("{e}\n{}", listing()))?;
        }
        if let Some(hvp) = hvp {
            check_hvp(name, &at, &mut state, selected, gradient, hvp)
                .map_err(|e| format!("{e}\n{}", listing()))?;
        }
    }
    if let Some(reason) = forward {
        // not a failure: forward mode refuses the function (a construct it does not take
        // yet), as `jvp!` would at compile time; the soak counts these lines
        println!("NOTE {name}: jvp! skipped: {reason}");
    }
    Ok(())
}

/// `jvp!`'s closure at a point and a direction, both flat: `(value, tangent)`.
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);

/// Relative tolerance of `jvp!`'s directional derivative against ⟨∇f, v⟩ from the reverse
/// gradient: both are exact up to rounding, so they agree to ~1e-13 of the sum of the
/// products' magnitudes.
const JVP_TOLERANCE: f64 = 1e-9;

/// Checks `jvp!` at `at` (where the reverse gradient matched finite differences) along a
/// random direction `v` (zero outside the selected inputs, if some are selected): its value
/// against the function's (bit for bit, as the value of `value_and_gradients_function!`),
/// its tangent against ⟨∇f, v⟩ from `gradients_function!`. Then, as a check independent of
/// reverse mode, the tangent against the central difference of `f` along `v`.
#[allow(clippy::too_many_arguments)]
fn check_jvp(
    name: &str,
    source: &str,
    at: &[f64],
    state: &mut u64,
    selected: &[usize],
    f: &dyn Fn(&[f64]) -> f64,
    gradient: &dyn Fn(&[f64]) -> Vec<f64>,
    jvp: Jvp,
) -> Result<(), String> {
    let mut attempts = Vec::new();
    loop {
        let v = random_direction(at.len(), state, selected);
        let tangent = check_jvp_along(name, source, at, &v, selected, f, gradient, jvp)?;
        // the derivative of s ↦ f(at + s v) at 0, by the same fourth-order stencil; a
        // direction other than the axes may cross a branch's kink that the gradient's check
        // did not, so a mismatch here is retried along fresh directions, as the gradient's
        // check retries at perturbed points
        let along = |s: &[f64]| {
            f(&at
                .iter()
                .zip(&v)
                .map(|(x, v)| x + s[0] * v)
                .collect::<Vec<_>>())
        };
        let numeric = finite_difference(along, &[0.0])[0];
        let finer = || finer_difference(along, &[0.0])[0];
        let Some((_, a, n)) = first_mismatch(&[tangent], &[numeric], TOLERANCE) else {
            return Ok(());
        };
        if first_mismatch(&[tangent], &[finer()], TOLERANCE).is_none() {
            return Ok(());
        }
        attempts.push(format!(
            "  along {v:?}: jvp! gives {a:e}, the finite difference along v {n:e}"
        ));
        if attempts.len() > RETRIES {
            return Err(format!(
                "jvp mismatch: `{name}` at {at:?}\n{}",
                attempts.join("\n")
            ));
        }
    }
}

/// `hvp!`'s closure at a point and a vector, both flat: `H·v`, flat.
type Hvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> Vec<f64>;

/// Checks `hvp!` at `at` (where the reverse gradient matched finite differences) along a
/// random vector `v`: `H·v` against the central difference of the reverse gradient along
/// `v` (the fourth-order stencil, then a tenth of its step), retried along fresh vectors
/// as the `jvp!` check is. With a selection (`gradient` gives the inputs at the positions
/// `selected`), the product's rows at those positions: `H_{selected, all} · v`.
fn check_hvp(
    name: &str,
    at: &[f64],
    state: &mut u64,
    selected: &[usize],
    gradient: &dyn Fn(&[f64]) -> Vec<f64>,
    hvp: Hvp,
) -> Result<(), String> {
    let mut attempts = Vec::new();
    loop {
        let v = random_direction(at.len(), state, &[]);
        let mut product = catch(|| hvp(at, &v))
            .map_err(|e| format!("panicked: hvp!({name}) at {at:?} along {v:?}: {e}"))?;
        if !selected.is_empty() {
            product = selected.iter().map(|&i| product[i]).collect();
        }
        let along = |h: f64| {
            let g = |s: f64| {
                let p: Vec<f64> = at.iter().zip(&v).map(|(x, v)| x + s * v).collect();
                gradient(&p)
            };
            let (a, b, c, d) = (g(2.0 * h), g(h), g(-h), g(-2.0 * h));
            (0..a.len())
                .map(|i| (-a[i] + 8.0 * b[i] - 8.0 * c[i] + d[i]) / (12.0 * h))
                .collect::<Vec<f64>>()
        };
        let numeric = along(1e-3);
        let Some((i, a, n)) = first_mismatch(&product, &numeric, TOLERANCE) else {
            return Ok(());
        };
        if first_mismatch(&product, &along(1e-4), TOLERANCE).is_none() {
            return Ok(());
        }
        attempts.push(format!(
            "  along {v:?}: (H·v)[{i}] from hvp! {a:e}, the difference of gradients {n:e}\n    hvp!:    {product:?}\n    numeric: {numeric:?}"
        ));
        if attempts.len() > RETRIES {
            return Err(format!(
                "hvp mismatch: `{name}` at {at:?}\n{}",
                attempts.join("\n")
            ));
        }
    }
}

/// `finite_difference`'s fourth-order stencil with a tenth of its step (`h = 1e-4 ·
/// max(1, |xᵢ|)`), for functions whose higher derivatives make the default step's truncation
/// error exceed the tolerance (nested `sin`/`tanh` through several in-place updates); still
/// far above rounding (about 1e-12 relative).
fn finer_difference(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let mut point = x.to_vec();
    (0..x.len())
        .map(|i| {
            let h = 1e-4 * x[i].abs().max(1.0);
            let mut at = |offset: f64| {
                point[i] = x[i] + offset;
                let v = f(&point);
                point[i] = x[i];
                v
            };
            (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h)
        })
        .collect()
}

/// A direction with entries uniform in [-1, 1) (zero outside the selected inputs, if some
/// are selected).
fn random_direction(len: usize, state: &mut u64, selected: &[usize]) -> Vec<f64> {
    (0..len)
        .map(|i| {
            let x = 2.0 * uniform(state) - 1.0;
            if selected.is_empty() || selected.contains(&i) {
                x
            } else {
                0.0
            }
        })
        .collect()
}

/// `jvp!` at `at` along `v`: its value against the function's (bit for bit, as the value of
/// `value_and_gradients_function!`), its tangent against ⟨∇f, v⟩ from `gradients_function!`;
/// returns the tangent.
#[allow(clippy::too_many_arguments)]
fn check_jvp_along(
    name: &str,
    source: &str,
    at: &[f64],
    v: &[f64],
    selected: &[usize],
    f: &dyn Fn(&[f64]) -> f64,
    gradient: &dyn Fn(&[f64]) -> Vec<f64>,
    jvp: Jvp,
) -> Result<f64, String> {
    let (value, tangent) = catch(|| jvp(at, v))
        .map_err(|e| format!("panicked: jvp!({name}) at {at:?} along {v:?}: {e}"))?;
    let primal = f(at);
    let ulps = (primal.to_bits() as i64)
        .wrapping_sub(value.to_bits() as i64)
        .unsigned_abs();
    if primal.to_bits() != value.to_bits() && !(source.contains("powi") && ulps <= 8) {
        return Err(format!(
            "jvp value mismatch: `{name}` at {at:?}: jvp! gives {value:e}, the function {primal:e}"
        ));
    }
    let g = gradient(at);
    let v_selected: Vec<f64> = if selected.is_empty() {
        v.to_vec()
    } else {
        selected.iter().map(|&i| v[i]).collect()
    };
    let dot: f64 = g.iter().zip(&v_selected).map(|(g, v)| g * v).sum();
    let scale: f64 = g.iter().zip(&v_selected).map(|(g, v)| (g * v).abs()).sum();
    if (tangent - dot).abs() > JVP_TOLERANCE * scale.max(1.0) {
        return Err(format!(
            "jvp mismatch: `{name}` at {at:?} along {v:?}: jvp! gives {tangent:e}, ⟨gradients_function!, v⟩ {dot:e}\n  gradient: {g:?}"
        ));
    }
    Ok(tangent)
}

/// `f()`, or the message it panicked with.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    })
}

/// A gradient as one list of inputs, in the order of [`check`]'s point: scalars, slice
/// and array elements (row-major) in parameter order.
pub trait Flat {
    /// The elements, in order.
    fn flat(self) -> Vec<f64>;
}

/// What the closure of a refused `hvp!` returns (never called).
impl Flat for () {
    fn flat(self) -> Vec<f64> {
        Vec::new()
    }
}

impl Flat for f64 {
    fn flat(self) -> Vec<f64> {
        vec![self]
    }
}

impl Flat for Vec<f64> {
    fn flat(self) -> Vec<f64> {
        self
    }
}

impl<const N: usize> Flat for [f64; N] {
    fn flat(self) -> Vec<f64> {
        self.to_vec()
    }
}

impl Flat for Array1<f64> {
    fn flat(self) -> Vec<f64> {
        self.iter().copied().collect()
    }
}

impl Flat for Array2<f64> {
    fn flat(self) -> Vec<f64> {
        self.iter().copied().collect()
    }
}

/// The gradients of several parameters, one after the other.
macro_rules! flat_tuple {
    ($($g:ident),+) => {
        impl<$($g: Flat),+> Flat for ($($g,)+) {
            #[allow(non_snake_case)]
            fn flat(self) -> Vec<f64> {
                let ($($g,)+) = self;
                let mut out = Vec::new();
                $(out.extend($g.flat());)+
                out
            }
        }
    };
}
flat_tuple!(A, B);
flat_tuple!(A, B, C);
flat_tuple!(A, B, C, D);
flat_tuple!(A, B, C, D, E);
flat_tuple!(A, B, C, D, E, F);

/// `stringify!`'s text of a function laid out for reading: the attribute on its own line,
/// one statement or match arm a line, blocks indented (a block inside parentheses stays on
/// its line).
fn layout(source: &str) -> String {
    let flat = source.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let mut indent = 0usize;
    // Nesting of `(`/`[`, and of braces opened inside them (written inline).
    let mut parens = 0usize;
    let mut inline = 0usize;
    let mut chars = flat.chars().peekable();
    let newline = |out: &mut String, indent: usize| {
        out.truncate(out.trim_end().len());
        out.push('\n');
        out.push_str(&"    ".repeat(indent));
    };
    let at_line_start = |out: &String| out.is_empty() || out.trim_end_matches(' ').ends_with('\n');
    while let Some(c) = chars.next() {
        match c {
            ' ' if at_line_start(&out) => {}
            '(' | '[' => {
                parens += 1;
                out.push(c);
            }
            ')' | ']' => {
                parens = parens.saturating_sub(1);
                out.push(c);
                // An outer attribute (`#[…]` opening the text) ends its line.
                if c == ']' && parens == 0 && out.starts_with("#[") && !out.contains('\n') {
                    newline(&mut out, indent);
                }
            }
            '{' if parens > 0 || inline > 0 => {
                inline += 1;
                out.push(c);
            }
            '}' if inline > 0 => {
                inline -= 1;
                out.push(c);
            }
            '{' => {
                out.push(c);
                indent += 1;
                newline(&mut out, indent);
            }
            '}' => {
                indent = indent.saturating_sub(1);
                newline(&mut out, indent);
                out.push(c);
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
                if chars.clone().take(5).collect::<String>() == "else " {
                    out.push(' ');
                    continue;
                }
                if let Some(&end @ (';' | ',')) = chars.peek() {
                    chars.next();
                    out.push(end);
                }
                newline(&mut out, indent);
            }
            ';' | ',' if parens == 0 && inline == 0 => {
                out.push(c);
                newline(&mut out, indent);
            }
            _ => out.push(c),
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}
