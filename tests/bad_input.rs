//! Bad input at run time: every case has a defined, documented outcome (README, "Bad
//! input"), never an out-of-bounds read or a silently wrong number.

use autodiff::prelude::*;

#[differentiable]
fn square_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += v * v;
    }
    s
}

#[differentiable]
fn scaled(x: f64) -> f64 {
    x.exp() * 2.0
}

#[differentiable]
fn log_of(x: f64) -> f64 {
    x.ln()
}

#[differentiable]
fn element(x: &[f64], i: usize) -> f64 {
    x[i] * 2.0
}

#[differentiable]
fn scale_all(x: &[f64], s: f64) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = x[i] * s;
    }
    out
}

#[differentiable]
fn repeated(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y * 0.5 + 1.0;
    }
    y
}

#[test]
fn nan_inputs_propagate_to_the_gradients_they_reach() {
    let g = gradients_function!(square_sum)(&[1.0, f64::NAN, 2.0]);
    assert_eq!(g[0], 2.0);
    assert!(g[1].is_nan());
    assert_eq!(g[2], 4.0);
}

#[test]
fn infinite_inputs_follow_ieee_arithmetic() {
    let (v, g) = value_and_gradients_function!(scaled)(f64::INFINITY);
    assert_eq!((v, g), (f64::INFINITY, f64::INFINITY));
    let (v, g) = value_and_gradients_function!(scaled)(f64::NEG_INFINITY);
    assert_eq!((v, g), (0.0, 0.0));
}

#[test]
fn a_non_finite_output_gets_the_ieee_derivative() {
    // ln(0) = -inf, and its derivative 1/0 = +inf: reported as is, not hidden.
    let (v, g) = value_and_gradients_function!(log_of)(0.0);
    assert_eq!((v, g), (f64::NEG_INFINITY, f64::INFINITY));
    // outside the domain: NaN value, NaN-free derivative formula 1/x
    let (v, g) = value_and_gradients_function!(log_of)(-1.0);
    assert!(v.is_nan());
    assert_eq!(g, -1.0);
}

#[test]
fn empty_slices_and_zero_trip_loops_give_zero_gradients() {
    let (v, g) = value_and_gradients_function!(square_sum)(&[]);
    assert_eq!(v, 0.0);
    assert!(g.is_empty());
    let (v, g) = value_and_gradients_function!(repeated, params = ["x"])(3.0, 0);
    assert_eq!((v, g), (3.0, 1.0));
}

#[test]
#[should_panic(expected = "index out of bounds: the len is 2 but the index is 5")]
fn out_of_bounds_indexing_panics_like_the_primal() {
    let _ = gradients_function!(element, params = ["x"])(&[1.0, 2.0], 5);
}

#[test]
#[should_panic(
    expected = "gradient length mismatch: accumulating a gradient of length 1 into one of length 3"
)]
fn a_cotangent_of_the_wrong_length_is_refused() {
    let (_, pullback) = vjp!(scale_all)(&[1.0, 2.0, 3.0], 2.0);
    let _ = pullback(vec![1.0]);
}

#[autodiff::differentiable]
fn add_arrays(a: &autodiff::ndarray::Array2<f64>, b: &autodiff::ndarray::Array1<f64>) -> f64 {
    (a + b).sum()
}

/// Arrays whose shapes do not broadcast: a panic naming the operation and both shapes, in
/// the primal (ndarray's) and in the gradient (the runtime's).
#[test]
#[should_panic(expected = "`+` of arrays of shapes [2, 3] and [4]")]
fn array_shapes_that_do_not_broadcast_panic_naming_them() {
    let a = autodiff::ndarray::Array2::<f64>::zeros((2, 3));
    let b = autodiff::ndarray::Array1::<f64>::zeros(4);
    let _ = autodiff::gradients_function!(add_arrays)(&a, &b);
}

#[autodiff::differentiable]
fn ce_loss(logits: &autodiff::ndarray::Array2<f64>, labels: &[usize]) -> f64 {
    autodiff::nn::cross_entropy(logits, labels)
}

#[test]
#[should_panic(expected = "cross_entropy: label 3 out of range for 3 classes")]
fn a_label_out_of_range_panics_naming_it() {
    let logits = autodiff::ndarray::Array2::<f64>::zeros((2, 3));
    let _ = autodiff::gradients_function!(ce_loss)(&logits, &[0, 3]);
}

/// NaN in an array propagates to the gradients it reaches, elementwise: the other
/// elements' gradients stay exact.
#[test]
fn nan_in_an_array_propagates_elementwise() {
    let a = autodiff::ndarray::array![[1.0, f64::NAN, 2.0], [0.5, 0.25, 3.0]];
    let b = autodiff::ndarray::array![1.0, 2.0, 3.0];
    let (ga, gb) = autodiff::gradients_function!(add_arrays)(&a, &b);
    // the sum is NaN, but `+`'s rule passes 1 to every element regardless of the values
    assert!(ga.iter().all(|g| *g == 1.0));
    assert_eq!(gb, autodiff::ndarray::array![2.0, 2.0, 2.0]);
    let g = autodiff::gradients_function!(ce_loss)(&a, &[0, 2]);
    assert!(
        g.row(0).iter().all(|g| g.is_nan()),
        "the row with a NaN logit"
    );
    assert!(
        g.row(1).iter().all(|g| g.is_finite()),
        "the other row is exact"
    );
}

#[differentiable]
fn window_sum(x: &[f64], start: usize, len: usize) -> f64 {
    let w = &x[start..start + len];
    w[0] + w[len - 1]
}

/// Held by the tests that install a panic hook (one process-wide hook at a time).
static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());

thread_local! {
    static PANIC_AT: std::cell::Cell<Option<(&'static str, u32)>> =
        const { std::cell::Cell::new(None) };
}

/// A sub-slice out of range panics with Rust's own message, located at the user's line
/// (the slicing expression), in the primal and in the gradient alike.
#[test]
fn sub_slice_out_of_range_panics_at_the_users_line() {
    let _hook = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let line = line!() - 17; // `let w = &x[start..start + len];` above
    std::panic::set_hook(Box::new(|info| {
        if let Some(l) = info.location() {
            // `file()` borrows the panic's location, which is `'static` for code locations
            let file: &'static str = Box::leak(l.file().to_string().into_boxed_str());
            PANIC_AT.with(|p| p.set(Some((file, l.line()))));
        }
    }));
    let x = [1.0, 2.0, 3.0, 4.0];
    let mut seen = Vec::new();
    for run in 0..2 {
        PANIC_AT.with(|p| p.set(None));
        let result = std::panic::catch_unwind(|| {
            if run == 0 {
                window_sum(&x, 2, 7)
            } else {
                gradients_function!(window_sum, params = ["x"])(&x, 2, 7)[0]
            }
        });
        let message = result
            .err()
            .and_then(|m| m.downcast_ref::<String>().cloned());
        seen.push((message, PANIC_AT.with(|p| p.get())));
    }
    let _ = std::panic::take_hook();
    for (message, at) in seen {
        assert_eq!(
            message.as_deref(),
            Some("range end index 9 out of range for slice of length 4")
        );
        let (file, at) = at.expect("a location");
        assert!(file.ends_with("bad_input.rs"), "panicked in {file}");
        assert_eq!(
            at, line,
            "panicked at line {at}, not the slicing expression"
        );
    }
}

#[differentiable]
fn tangent_shapes(x: &[f64], m: &autodiff::ndarray::Array2<f64>, s: f64) -> f64 {
    x[0] * m[[0, 0]] * s
}

#[differentiable]
fn generic_norm<T: Float>(x: &[T]) -> T {
    x.iter().fold(T::zero(), |acc, v| acc + *v * *v)
}

/// The message and location of the panic `f` raises.
fn panic_of(f: impl FnOnce() + std::panic::UnwindSafe) -> (String, &'static str, u32) {
    std::panic::set_hook(Box::new(|info| {
        if let Some(l) = info.location() {
            let file: &'static str = Box::leak(l.file().to_string().into_boxed_str());
            PANIC_AT.with(|p| p.set(Some((file, l.line()))));
        }
    }));
    PANIC_AT.with(|p| p.set(None));
    let message = std::panic::catch_unwind(f)
        .err()
        .and_then(|m| m.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    let _ = std::panic::take_hook();
    let (file, line) = PANIC_AT.with(|p| p.get()).expect("a location");
    (message, file, line)
}

/// A tangent (or `hvp!`'s vector) whose length or shape is not its parameter's panics
/// naming the parameter, the function and both shapes, located in the user's file (the
/// function's attribute: the checks are `#[track_caller]` up to the closure the helper
/// returns, and a closure cannot pass its caller's location on).
#[test]
fn tangents_of_the_wrong_shape_panic_naming_the_parameter_and_both_shapes() {
    use autodiff::ndarray::array;
    let attribute_line = |name: &str| {
        let source = include_str!("bad_input.rs");
        let at = source
            .lines()
            .position(|l| l.starts_with(&format!("fn {name}")))
            .expect("the function");
        at as u32 // the line above, 1-based
    };
    let _hook = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let m = array![[1.0, 2.0], [3.0, 4.0]];
    let cases: Vec<(String, &'static str, u32, &str, &str)> = vec![
        {
            let m = m.clone();
            let (msg, file, line) = panic_of(move || {
                let _ = jvp!(tangent_shapes)(&[1.0, 2.0], &m, 0.5, &[1.0], &m, 0.0);
            });
            (msg, file, line, "the tangent of `x` (parameter of `tangent_shapes`) has shape [1], but `x` has shape [2]", "tangent_shapes")
        },
        {
            let m = m.clone();
            let (msg, file, line) = panic_of(move || {
                let wrong = array![[1.0, 2.0, 3.0]];
                let _ = jvp!(tangent_shapes, params = ["m"])(&[1.0, 2.0], &m, 0.5, &wrong);
            });
            (msg, file, line, "the tangent of `m` (parameter of `tangent_shapes`) has shape [1, 3], but `m` has shape [2, 2]", "tangent_shapes")
        },
        {
            let (msg, file, line) = panic_of(|| {
                let _ = hvp!(generic_norm)(&[1.0, 2.0, 3.0], &[1.0, 0.0]);
            });
            (msg, file, line, "the tangent of `x` (parameter of `generic_norm`) has shape [2], but `x` has shape [3]", "generic_norm")
        },
    ];
    for (message, file, line, expected, function) in cases {
        assert!(
            message.contains(expected),
            "{message:?}, expected {expected:?}"
        );
        assert!(file.ends_with("bad_input.rs"), "panicked in {file}");
        assert_eq!(line, attribute_line(function), "panicked at line {line}");
    }
}
