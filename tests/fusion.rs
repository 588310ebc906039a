//! Fused reduction loops: `value_and_gradients_function!` and `gradients_function!` run a
//! qualifying loop's reverse inside its forward loop (the output's cotangent is known up
//! front), while `vjp!` keeps the two sweeps. Each function here is checked three ways:
//! the fused gradient against central finite differences, against the two-sweep
//! gradient of `vjp!`, and its value against the function itself, bit for bit. Functions
//! whose loop must not be fused (a carried value, a nonlinear use after the loop) are
//! here too: they must come out right through the fallback.

// Indexed loops are the point here: the fusion and its carried slices work on them.
#![allow(clippy::needless_range_loop)]

use autodiff::check::finite_difference;
use autodiff::prelude::*;

/// Checks a function of a slice: fused gradient vs finite differences and vs `vjp!`.
fn check(
    name: &str,
    f: impl Fn(&[f64]) -> f64,
    fused: impl Fn(&[f64]) -> (f64, Vec<f64>),
    two_sweeps: impl Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
) {
    let (value, g) = fused(x);
    assert_eq!(value.to_bits(), f(x).to_bits(), "{name}: value");
    let numeric = finite_difference(&f, x);
    let reference = two_sweeps(x);
    assert_eq!(g.len(), x.len(), "{name}: gradient length");
    for i in 0..x.len() {
        let scale = numeric[i].abs().max(1.0);
        assert!(
            (g[i] - numeric[i]).abs() <= 1e-8 * scale,
            "{name}: d/dx[{i}] fused {} vs finite differences {}",
            g[i],
            numeric[i]
        );
        assert!(
            (g[i] - reference[i]).abs() <= 1e-13 * reference[i].abs().max(1.0),
            "{name}: d/dx[{i}] fused {} vs two sweeps {}",
            g[i],
            reference[i]
        );
    }
}

macro_rules! check_fn {
    ($f:ident, $x:expr) => {{
        let x: Vec<f64> = $x;
        check(
            stringify!($f),
            |x| $f(x),
            |x| value_and_gradients_function!($f)(x),
            |x| {
                let (_, pullback) = vjp!($f)(x);
                pullback(1.0)
            },
            &x,
        );
    }};
}

fn input(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (i as f64 * 0.73).sin() * 0.9 + 0.05)
        .collect()
}

/// A stencil (`x[i]`, `x[i + 1]`) with a differentiable value from before the loop.
#[differentiable]
fn stencil(x: &[f64]) -> f64 {
    let w = x[0] * 2.0 + 0.5;
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = w - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 10.0 * b * b;
    }
    sum
}

/// The neighbour is read only inside a branch, and the loop runs one step past the last
/// neighbour: nothing may be stored at an index the function never read.
#[differentiable]
fn guarded_stencil(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if i + 1 < x.len() {
            s += x[i] * x[i + 1];
        }
    }
    s
}

/// The neighbour is read first, the element itself only on some iterations.
#[differentiable]
fn sparse_stencil(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i + 1].sin();
        if i % 3 == 0 {
            s += x[i] * x[i];
        }
    }
    s
}

/// Subtraction and a chain of additions into the accumulator.
#[differentiable]
fn chained_accumulation(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s -= x[i].exp();
        s = s + x[i] * 3.0 + x[i].cos();
    }
    s
}

/// A cell written before it is read in every iteration (an `if` expression's result, an
/// inner accumulator), and an inner loop.
#[differentiable]
fn fresh_cells(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let t = if x[i] > 0.0 { x[i] } else { -x[i] * 0.5 };
        let mut inner = 0.0;
        for j in 0..3 {
            inner += x[i] * (j as f64 + 1.0);
        }
        s += t * t + inner.sin();
    }
    s
}

/// A buffer made afresh in every iteration and read by element: its adjoint takes each
/// iteration's length (it was made before the loop, from the buffer's empty declaration).
#[differentiable]
fn fresh_buffers(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut b = vec![0.0; 3];
        b[2] += x[i].sin();
        b[1] = x[i] * b[2];
        s += b[1] + b[2] * b[2];
    }
    s
}

/// The same, the buffer's values reaching nothing (a random program found its gradient
/// panicking: the adjoint read at index 2 had length 0).
#[differentiable]
fn fresh_dead_buffer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    loop {
        let mut b = vec![0.0; 3];
        b[2] += (x[k] * 0.5).tanh();
        s += x[k] * x[k];
        k += 1;
        if k >= x.len() {
            break;
        }
    }
    s
}

/// `break` and `continue`.
#[differentiable]
fn early_exits(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.8 {
            break;
        }
        if i % 2 == 1 {
            continue;
        }
        s += (x[i] * 0.5).exp();
    }
    s
}

/// A `while` loop with an integer counter, two accumulators (one not returned), and a
/// copy after the loop.
#[differentiable]
#[allow(unused_variables, unused_assignments, clippy::let_and_return)]
fn while_loop(x: &[f64]) -> f64 {
    let scale = x[1].tanh();
    let mut i = 0;
    let mut a = 0.0;
    let mut b = 0.0;
    while i < x.len() {
        a += x[i] * scale;
        b += x[i] * x[i];
        i += 1;
    }
    let r = a;
    r
}

/// Reads two steps ahead: fused, but the element adjoints are not carried.
#[differentiable]
fn wide_stencil(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 2 {
        s += x[i] * x[i + 2] - x[i + 1];
    }
    s
}

/// The neighbour is read but its value reaches nothing (found by the random-program
/// tester: the carried register was declared and never assigned, leaving its type unknown).
#[differentiable]
#[allow(unused_variables)]
fn dead_neighbour(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if i + 1 < x.len() {
            let unused = x[i + 1] * 2.0;
        }
        s += x[i].sin();
    }
    s
}

/// Not fused: the loop carries a value that is not an accumulator.
#[differentiable]
fn recurrence(x: &[f64]) -> f64 {
    let mut y = 1.0;
    for i in 0..x.len() {
        y = y * x[i] + 0.5;
    }
    y
}

/// Not fused: the accumulator is used nonlinearly after the loop.
#[differentiable]
fn norm(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s.sqrt()
}

/// Not fused: the accumulator is read inside the loop besides its update.
#[differentiable]
fn self_reading(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * s.tanh() + x[i];
    }
    s
}

#[test]
fn fused_loops_agree_with_finite_differences_and_two_sweeps() {
    for n in [3, 4, 9, 16] {
        check_fn!(stencil, input(n));
        check_fn!(guarded_stencil, input(n));
        check_fn!(sparse_stencil, input(n));
        check_fn!(chained_accumulation, input(n));
        check_fn!(fresh_cells, input(n));
        check_fn!(fresh_buffers, input(n));
        check_fn!(fresh_dead_buffer, input(n));
        check_fn!(early_exits, input(n));
        check_fn!(while_loop, input(n));
        check_fn!(wide_stencil, input(n));
        check_fn!(dead_neighbour, input(n));
        check_fn!(recurrence, input(n));
        check_fn!(norm, input(n));
        check_fn!(self_reading, input(n));
    }
}

#[test]
fn loops_that_qualify_are_fused() {
    // The seeded derivative exists only for fused bodies: this does not compile if one of
    // these loops falls back to two sweeps.
    let x = input(6);
    let _ = stencil::__seeded(&x, 1.0);
    let _ = guarded_stencil::__seeded(&x, 1.0);
    let _ = sparse_stencil::__seeded(&x, 1.0);
    let _ = chained_accumulation::__seeded(&x, 1.0);
    let _ = fresh_cells::__seeded(&x, 1.0);
    let _ = fresh_buffers::__seeded(&x, 1.0);
    let _ = fresh_dead_buffer::__seeded(&x, 1.0);
    let _ = early_exits::__seeded(&x, 1.0);
    let _ = while_loop::__seeded(&x, 1.0);
    let _ = wide_stencil::__seeded(&x, 1.0);
    let _ = dead_neighbour::__seeded(&x, 1.0);
}

#[test]
fn the_cotangent_scales_the_fused_gradient() {
    let x = input(7);
    let (_, g1) = stencil::__seeded(&x, 1.0);
    let (_, g3) = stencil::__seeded(&x, -2.5);
    for (a, b) in g1.0.iter().zip(&g3.0) {
        assert!((a * -2.5 - b).abs() <= 1e-12 * b.abs().max(1.0));
    }
}

/// Generic code and `f32`.
#[differentiable]
fn generic_stencil<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i];
        s = s + d * d;
    }
    s
}

#[test]
fn generic_and_f32_loops_are_fused_correctly() {
    let x: Vec<f32> = vec![0.5, -1.0, 2.0, 0.25];
    let g = gradients_function!(generic_stencil)(&x);
    // d/dx_k Σ (x_{i+1} − x_i)² = 2(x_k − x_{k−1}) − 2(x_{k+1} − x_k)
    let n = x.len();
    for k in 0..n {
        let left = if k > 0 { 2.0 * (x[k] - x[k - 1]) } else { 0.0 };
        let right = if k + 1 < n {
            -2.0 * (x[k + 1] - x[k])
        } else {
            0.0
        };
        assert!(
            (g[k] - (left + right)).abs() < 1e-5,
            "{k}: {} vs {}",
            g[k],
            left + right
        );
    }
}
