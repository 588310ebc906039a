//! The generated reverse sweep allocates no memory per iteration: the number of heap
//! allocations of a gradient call does not depend on the trip count, and the bytes
//! allocated are the gradient itself plus what the loop's rules read and cannot recompute.
//!
//! The counting allocator below is the one place in the project with `unsafe`: a global
//! allocator must be an `unsafe impl`. It only forwards to the system allocator.
#![allow(unsafe_code)]

use autodiff::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // Per thread, so the test harness's own threads do not count. `const` initialisation:
    // reading it never allocates.
    static COUNTS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = COUNTS.try_with(|c| {
            let (n, bytes) = c.get();
            c.set((n + 1, bytes + layout.size()));
        });
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (allocations, bytes) made while running `f`.
fn measure<R>(f: impl FnOnce() -> R) -> (usize, usize, R) {
    let (a0, b0) = COUNTS.with(Cell::get);
    let r = f();
    let (a1, b1) = COUNTS.with(Cell::get);
    (a1 - a0, b1 - b0, r)
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

/// The Rosenbrock loop generic over its float type, its constants written as generic code
/// writes them, inside the loop: `T::one()`, `T::from(100.0).unwrap()`, `T::PI()`.
#[differentiable]
fn rosenbrock_constants<T: Float + autodiff::num_traits::FloatConst>(x: &[T]) -> T {
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        let a = T::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum = sum + a * a + T::from(100.0).unwrap() * b * b * (T::PI() / T::PI());
    }
    sum
}

/// `Σ (i + 1)·x_i²` generic over the float type, the weight converted from the index.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn weighted_squares<T: Float>(x: &[T]) -> T {
    let mut sum = T::zero();
    for i in 0..x.len() {
        let w = T::from(i + 1).unwrap() / T::from(2.0).expect("two is a float");
        sum = sum + w * x[i] * x[i];
    }
    sum
}

/// The float type's constants are evaluated again by the reverse sweep, not kept once per
/// iteration: the gradient allocates only itself, whatever the length, and is the closed
/// form's.
#[test]
fn constants_of_the_float_type_are_not_kept_per_iteration() {
    let grad = gradients_function!(rosenbrock_constants::<f64>);
    let small: Vec<f64> = (0..10).map(|i| (i as f64 * 0.37).sin()).collect();
    let large: Vec<f64> = (0..100_000).map(|i| (i as f64 * 0.37).sin()).collect();
    let (n_small, bytes_small, _) = measure(|| grad(&small));
    let (n_large, bytes_large, g) = measure(|| grad(&large));
    assert_eq!(
        (n_small, n_large),
        (1, 1),
        "expected only the gradient buffer"
    );
    assert_eq!((bytes_small, bytes_large), (10 * 8, 100_000 * 8));
    let x = &large;
    for (i, gi) in g.iter().enumerate() {
        let mut expected = 0.0;
        if i + 1 < x.len() {
            let b = x[i + 1] - x[i] * x[i];
            expected += -2.0 * (1.0 - x[i]) - 400.0 * x[i] * b;
        }
        if i > 0 {
            expected += 200.0 * (x[i] - x[i - 1] * x[i - 1]);
        }
        assert!(
            (gi - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "{i}: {gi} vs {expected}"
        );
    }
    // an index converted to the float type, evaluated again too: `∂/∂x_i = (i + 1)·x_i`
    let grad = gradients_function!(weighted_squares::<f64>);
    let (count, bytes, g) = measure(|| grad(&large));
    assert_eq!(
        (count, bytes),
        (1, 100_000 * 8),
        "expected only the gradient buffer"
    );
    for (i, gi) in g.iter().enumerate() {
        assert_eq!(*gi, (i + 1) as f64 / 2.0 * large[i] * 2.0, "{i}");
    }
}

#[differentiable]
fn chain(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 1.0001 + (x * y).cos();
    }
    y
}

#[test]
fn allocations_do_not_grow_with_the_trip_count() {
    let grad = gradients_function!(rosenbrock);
    let small: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
    let large: Vec<f64> = (0..100_000).map(|i| i as f64 * 1e-5).collect();
    let (n_small, bytes_small, _) = measure(|| grad(&small));
    let (n_large, bytes_large, g) = measure(|| grad(&large));
    assert_eq!(g.len(), large.len());
    // Rosenbrock keeps nothing per iteration: the only allocation is the gradient.
    assert_eq!(n_small, n_large, "allocation count depends on n");
    assert_eq!(n_large, 1, "expected exactly the gradient buffer");
    assert_eq!(bytes_small, 10 * 8);
    assert_eq!(bytes_large, 100_000 * 8);

    // A recurrence must keep one value per iteration (y before each step), on a stack
    // reserved once from the trip count: allocations constant, bytes linear.
    let chain_grad = gradients_function!(chain, params = ["x"]);
    let (c_small, _, _) = measure(|| chain_grad(0.5, 1_000));
    let (c_large, bytes, _) = measure(|| chain_grad(0.5, 1_000_000));
    assert_eq!(
        c_small, c_large,
        "allocation count depends on the trip count"
    );
    assert!(
        bytes <= 8 * 1_000_000 + 4096,
        "{bytes} bytes for 10^6 steps: more than one f64 per step"
    );
}

#[differentiable]
fn affine(
    x: &autodiff::ndarray::Array2<f64>,
    w: &autodiff::ndarray::Array2<f64>,
    b: &autodiff::ndarray::Array1<f64>,
) -> autodiff::ndarray::Array2<f64> {
    x.dot(w) + b
}

/// A careful hand-written backward pass of `x·w + b` given `dy`: three arrays, the
/// gradients themselves (`dy` passes to the product unchanged).
fn affine_backward(
    x: &autodiff::ndarray::Array2<f64>,
    w: &autodiff::ndarray::Array2<f64>,
    dy: &autodiff::ndarray::Array2<f64>,
) -> (
    autodiff::ndarray::Array2<f64>,
    autodiff::ndarray::Array2<f64>,
    autodiff::ndarray::Array1<f64>,
) {
    (
        dy.dot(&w.t()),
        x.t().dot(dy),
        dy.sum_axis(autodiff::ndarray::Axis(0)),
    )
}

#[test]
fn the_adjoint_of_a_dense_layer_allocates_no_more_arrays_than_by_hand() {
    use autodiff::ndarray::Array2;
    let x = Array2::from_shape_fn((32, 20), |(i, j)| (i * 20 + j) as f64 * 1e-3);
    let w = Array2::from_shape_fn((20, 16), |(i, j)| (i as f64 - j as f64) * 1e-2);
    let b = autodiff::ndarray::Array1::from_shape_fn(16, |j| j as f64 * 0.1);
    let dy = Array2::from_shape_fn((32, 16), |(i, j)| ((i + j) % 5) as f64 - 2.0);
    let (y, pullback) = autodiff::vjp!(affine)(&x, &w, &b);
    assert_eq!(y, affine(&x, &w, &b));
    let (generated, _, (gx, gw, gb)) = measure(|| pullback(dy.clone()));
    let (by_hand, _, (hx, hw, hb)) = measure(|| affine_backward(&x, &w, &dy));
    let dy_copy = 1; // the `dy.clone()` handed to the pullback above
    assert_eq!((gx, gw, gb), (hx, hw, hb));
    assert!(
        generated - dy_copy <= by_hand,
        "generated reverse sweep: {} allocations, hand-written: {by_hand}",
        generated - dy_copy
    );
}

#[differentiable]
fn pick(v: &[f64], i: usize) -> f64 {
    v[i] * v[i]
}

#[differentiable]
fn picks(v: &[f64], m: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..m {
        s += pick(v, (k * 7919) % v.len());
    }
    s
}

/// A helper reading one element of a slice adds into its caller's buffer: the gradient
/// call allocates the gradient and the loop's stack of pullbacks, whatever the slice's
/// length (a fresh full-length gradient per call would allocate once per call).
#[test]
fn slice_helpers_allocate_independently_of_the_slice_length() {
    let grad = gradients_function!(picks, params = ["v"]);
    let small: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
    let large: Vec<f64> = (0..100_000).map(|i| i as f64 * 1e-5).collect();
    let m = 1000;
    let (n_small, bytes_small, _) = measure(|| grad(&small, m));
    let (n_large, bytes_large, g) = measure(|| grad(&large, m));
    assert_eq!(g.len(), large.len());
    assert_eq!(
        n_small, n_large,
        "allocation count depends on the slice length"
    );
    assert!(
        n_large <= 2,
        "{n_large} allocations: expected the gradient and one stack"
    );
    // only the gradient buffer grows with the length
    assert_eq!(bytes_large - bytes_small, (large.len() - small.len()) * 8);
}

/// Into a gradient buffer the caller keeps: the call allocates nothing of the slice's
/// length, the same count and the same bytes at 10 elements as at 10⁶.
#[test]
fn a_kept_gradient_buffer_makes_the_call_independent_of_the_slice_length() {
    let add = accumulate_gradients!(picks, params = ["v"]);
    let m = 1000;
    let mut counts = Vec::new();
    for len in [10, 1_000_000] {
        let v: Vec<f64> = (0..len).map(|i| i as f64 * 1e-6).collect();
        let mut grad = vec![0.0; len];
        let (n, bytes, _) = measure(|| add(&v, m, &mut grad));
        // the gradient is there: the picked elements' 2·v[i] per pick
        let picked = (m * 7919 - 7919) % len;
        assert!(grad[picked] >= 2.0 * v[picked]);
        counts.push((n, bytes));
    }
    assert_eq!(
        counts[0], counts[1],
        "(allocations, bytes) depend on the slice length"
    );
    assert!(
        counts[0].0 <= 1,
        "{:?}: expected at most the loop's stack",
        counts[0]
    );
}

/// The Rosenbrock loop generic over its float type, for `hvp!`.
#[differentiable]
fn rosenbrock_generic<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        let a = T::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum = sum + a * a + hundred * b * b;
    }
    sum
}

/// [`rosenbrock_generic`] with its slice also named another way (`x.first()`): its
/// Hessian-vector product runs on buffers of dual numbers, not the split sweep.
// (`first()` names the slice as something other than an indexed read, on purpose)
#[allow(clippy::unnecessary_first_then_check)]
#[differentiable]
fn rosenbrock_dual_buffers<T: Float>(x: &[T]) -> T {
    let _named = x.first().is_some();
    let hundred = T::from(100.0).unwrap();
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        let a = T::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum = sum + a * a + hundred * b * b;
    }
    sum
}

/// A Hessian-vector product on buffers of dual numbers lends them (the arguments and the
/// gradient, each as long as the parameter) to the thread's next one: from the second call
/// on, the only buffer allocated is the product returned. The split sweep allocates that
/// buffer only, from the first call.
#[test]
fn hessian_vector_products_reuse_their_dual_buffers() {
    let n = 10_000;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 0.5).collect();
    let v: Vec<f64> = (0..n).map(|i| ((i % 7) as f64 - 3.0) * 0.25).collect();
    let product = n * std::mem::size_of::<f64>();
    let buffers = hvp!(rosenbrock_dual_buffers);
    let (_, first_bytes, first) = measure(|| buffers(&x, &v));
    let (count, bytes, second) = measure(|| buffers(&x, &v));
    assert_eq!(first, second, "the same product from reused buffers");
    assert!(
        first_bytes >= product + 2 * n * 2 * std::mem::size_of::<f64>(),
        "the first call allocates the dual buffers: {first_bytes} bytes"
    );
    assert!(
        bytes < product + 1024,
        "{bytes} bytes in {count} allocations for a product of {product} bytes"
    );
    let split = hvp!(rosenbrock_generic);
    for _ in 0..2 {
        let (count, bytes, product_split) = measure(|| split(&x, &v));
        assert_eq!(product_split, second, "the split sweep: the same bits");
        assert!(
            count == 1 && bytes == product,
            "the split sweep: {bytes} bytes in {count} allocations for a product of {product} bytes"
        );
    }
    // the product itself, against the closed form of the tridiagonal Hessian
    for i in 0..n {
        let mut expected = 0.0;
        if i + 1 < n {
            expected +=
                (2.0 + 1200.0 * x[i] * x[i] - 400.0 * x[i + 1]) * v[i] - 400.0 * x[i] * v[i + 1];
        }
        if i > 0 {
            expected += -400.0 * x[i - 1] * v[i - 1] + 200.0 * v[i];
        }
        let tol = 1e-9 * expected.abs().max(1.0);
        assert!(
            (second[i] - expected).abs() <= tol,
            "{i}: {} vs {expected}",
            second[i]
        );
    }
}

/// `Σ q_i²` with `q = 2c + shift(c)`, `c = x − μ`: a helper that makes two buffers, as a
/// user writes it.
#[differentiable]
fn shifted_norm(x: &[f64], mu: &[f64]) -> f64 {
    let d = x.len();
    let mut c = vec![0.0; d];
    for i in 0..d {
        c[i] = x[i] - mu[i];
    }
    let mut q = vec![0.0; d];
    for i in 0..d {
        q[i] = 2.0 * c[i] + c[(i + 1) % d];
    }
    let mut s = 0.0;
    for v in &q {
        s += v * v;
    }
    s
}

/// The helper on each block of `x`.
#[differentiable]
fn blocks(x: &[f64], mu: &[f64]) -> f64 {
    let d = mu.len();
    let mut s = 0.0;
    for k in 0..x.len() / d {
        s += shifted_norm(&x[k * d..(k + 1) * d], mu);
    }
    s
}

#[test]
fn a_helper_s_buffers_come_back_for_the_next_gradient() {
    let d = 8;
    let mu: Vec<f64> = (0..d).map(|i| (i as f64 * 0.3).cos()).collect();
    let grad = gradients_function!(blocks);
    let x_of = |m: usize| -> Vec<f64> { (0..d * m).map(|i| (i as f64 * 0.61).sin()).collect() };
    let (x20, x80) = (x_of(20), x_of(80));
    let _ = grad(&x80, &mu);
    let (count20, _, _) = measure(|| grad(&x20, &mu));
    let (first, _, first_gradient) = measure(|| grad(&x80, &mu));
    let (count80, _, second) = measure(|| grad(&x80, &mu));
    assert_eq!(
        first_gradient, second,
        "the same gradient from reused buffers"
    );
    assert_eq!(
        first, count80,
        "every gradient after the first allocates alike"
    );
    // each call's two buffers come from the pool: what is left per call is the one adjoint
    // the sweep starts from zero (`q`'s; `c`'s adjoint takes over `c`'s storage)
    assert!(
        count80 - count20 <= 60,
        "{count20} allocations for 20 calls of the helper, {count80} for 80"
    );
    // against the adjoint by hand: ∂f/∂c_j = 4 q_j + 2 q_{j−1}
    let (x, m) = (&x80, 80);
    let (gx, gmu) = second;
    let mut expected_mu = vec![0.0; d];
    for k in 0..m {
        let c: Vec<f64> = (0..d).map(|i| x[k * d + i] - mu[i]).collect();
        let q: Vec<f64> = (0..d).map(|i| 2.0 * c[i] + c[(i + 1) % d]).collect();
        for j in 0..d {
            let dc = 4.0 * q[j] + 2.0 * q[(j + d - 1) % d];
            assert!((gx[k * d + j] - dc).abs() <= 1e-12 * dc.abs().max(1.0));
            expected_mu[j] -= dc;
        }
    }
    for j in 0..d {
        assert!((gmu[j] - expected_mu[j]).abs() <= 1e-11 * expected_mu[j].abs().max(1.0));
    }
}

/// `Σ q_i²` with `q_i = c_i c_{i+1}` (cyclically), `c_i = x_i² − μ_i`: a helper whose reverse sweep
/// reads both its buffers' values, so neither lends its storage to its adjoint.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn coupled_norm(x: &[f64], mu: &[f64]) -> f64 {
    let d = x.len();
    let mut c = vec![0.0; d];
    for i in 0..d {
        c[i] = x[i] * x[i] - mu[i];
    }
    let mut q = vec![0.0; d];
    for i in 0..d {
        q[i] = c[i] * c[(i + 1) % d];
    }
    let mut s = 0.0;
    for i in 0..d {
        s += q[i] * q[i];
    }
    s
}

/// The helper on each chunk of `x`.
#[differentiable]
fn coupled_blocks(x: &[f64], mu: &[f64]) -> f64 {
    let mut s = 0.0;
    for block in x.chunks_exact(mu.len()) {
        s += coupled_norm(block, mu);
    }
    s
}

#[test]
fn a_helper_s_adjoint_buffers_come_from_the_pool_too() {
    let d = 6;
    let mu: Vec<f64> = (0..d).map(|i| (i as f64 * 0.7).sin()).collect();
    let grad = gradients_function!(coupled_blocks);
    let x_of = |m: usize| -> Vec<f64> { (0..d * m).map(|i| (i as f64 * 0.37).cos()).collect() };
    let (x20, x80) = (x_of(20), x_of(80));
    let _ = grad(&x80, &mu);
    let _ = grad(&x20, &mu);
    let (count20, _, _) = measure(|| grad(&x20, &mu));
    let (count80, _, (gx, gmu)) = measure(|| grad(&x80, &mu));
    // each call's two buffers and their two adjoints come from the pool and go back to it:
    // no allocation per call of the helper
    assert!(
        count80 <= count20 + 2,
        "{count20} allocations for 20 calls of the helper, {count80} for 80"
    );
    // against the adjoint by hand: ∂f/∂c_j = 2 q_j c_{j+1} + 2 q_{j−1} c_{j−1}, ∂c_j/∂x_j = 2x_j
    let x = &x80;
    let mut expected_mu = vec![0.0; d];
    for k in 0..80 {
        let c: Vec<f64> = (0..d).map(|i| x[k * d + i].powi(2) - mu[i]).collect();
        let q: Vec<f64> = (0..d).map(|i| c[i] * c[(i + 1) % d]).collect();
        for j in 0..d {
            let (next, prev) = ((j + 1) % d, (j + d - 1) % d);
            let dc = 2.0 * q[j] * c[next] + 2.0 * q[prev] * c[prev];
            let dx = 2.0 * x[k * d + j] * dc;
            assert!((gx[k * d + j] - dx).abs() <= 1e-12 * dx.abs().max(1.0));
            expected_mu[j] -= dc;
        }
    }
    for j in 0..d {
        assert!((gmu[j] - expected_mu[j]).abs() <= 1e-11 * expected_mu[j].abs().max(1.0));
    }
}

#[test]
fn large_adjoint_buffers_do_not_crowd_the_pool() {
    // (buffers above `pool::SMALL` elements: their adjoints are zeroed memory from the
    // system and freed, so the pool keeps serving the buffers themselves however many
    // gradients run)
    let d = autodiff::__private::pool::SMALL + 4;
    let mu: Vec<f64> = (0..d).map(|i| (i as f64 * 0.7).sin()).collect();
    let x: Vec<f64> = (0..d * 10).map(|i| (i as f64 * 0.37).cos()).collect();
    let grad = gradients_function!(coupled_blocks);
    let _ = grad(&x, &mu);
    let (second, _, _) = measure(|| grad(&x, &mu));
    for _ in 0..40 {
        let _ = grad(&x, &mu);
    }
    let (last, _, _) = measure(|| grad(&x, &mu));
    assert_eq!(
        second, last,
        "every gradient after the first allocates alike"
    );
}
