//! `&mut` views of a buffer bound to names — `let (h, c) = state.split_at_mut(b)`, `let h =
//! &mut buf[a..b]`, views of views, `for c in buf.chunks_mut(k)` — indexed, sliced,
//! measured and handed to helpers that read or write them, as C-style Rust is written.
//! Gradients against finite differences and hand-derived values, `vjp!` included; a view
//! out of its buffer's bounds panics with Rust's own message at the user's line.
#![allow(clippy::needless_range_loop)]

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

#[differentiable]
fn sqnorm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// y ← y + a·x
#[differentiable]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

/// An LSTM-like step on the hidden and cell halves of a state.
#[differentiable]
fn step(hidden: &mut [f64], cell: &mut [f64], input: &[f64]) {
    for i in 0..hidden.len() {
        cell[i] = cell[i] * input[i].tanh() + hidden[i];
        hidden[i] = cell[i].sin();
    }
}

/// `split_at_mut` of a `&mut` parameter: both halves handed to one call, one to another,
/// read by helpers, indexed, sliced and measured.
#[differentiable]
fn split_state(state: &mut [f64], x: &[f64]) -> f64 {
    let b = state.len() / 2;
    let (hidden, cell) = state.split_at_mut(b);
    step(hidden, cell, x);
    axpy(0.5, x, cell);
    let s = sqnorm(hidden) + cell[0] * hidden[b - 1] + cell.len() as f64;
    s + sqnorm(&cell[1..]) + sqnorm(&hidden[..b - 1]) + dot(hidden, cell)
}

/// The same state updated by hand, without views (the reference).
fn split_state_by_hand(state: &mut [f64], x: &[f64]) -> f64 {
    let b = state.len() / 2;
    for i in 0..b {
        state[b + i] = state[b + i] * x[i].tanh() + state[i];
        state[i] = state[b + i].sin();
    }
    for i in 0..b {
        state[b + i] += 0.5 * x[i];
    }
    let sq = |v: &[f64]| v.iter().map(|e| e * e).sum::<f64>();
    let d: f64 = (0..b).map(|i| state[i] * state[b + i]).sum();
    sq(&state[..b])
        + state[b] * state[b - 1]
        + b as f64
        + sq(&state[b + 1..])
        + sq(&state[..b - 1])
        + d
}

#[test]
fn split_at_mut_halves_handed_to_helpers() {
    let (s0, x) = (vec![0.5, -1.0, 2.0, 0.3, 0.7, -0.2], vec![0.4, 0.9, -0.3]);
    let f = |s0: &[f64], x: &[f64]| {
        let mut s = s0.to_vec();
        split_state(&mut s, x)
    };
    let by_hand = |s0: &[f64], x: &[f64]| {
        let mut s = s0.to_vec();
        split_state_by_hand(&mut s, x)
    };
    assert!((f(&s0, &x) - by_hand(&s0, &x)).abs() < 1e-12);
    let mut s = s0.clone();
    let (v, (gs, gx)) = value_and_gradients_function!(split_state)(&mut s, &x);
    assert_eq!(v.to_bits(), f(&s0, &x).to_bits());
    // the state is updated in place, as the function does
    let mut expected = s0.clone();
    split_state(&mut expected, &x);
    assert_eq!(s, expected);
    assert_gradient_close(&gs, &finite_difference(|v| by_hand(v, &x), &s0), 1e-8);
    assert_gradient_close(&gx, &finite_difference(|v| by_hand(&s0, v), &x), 1e-8);
    // vjp! agrees, scaled
    let mut s = s0.clone();
    let (_, pullback) = vjp!(split_state)(&mut s, &x);
    let (vs, vx) = pullback(3.0);
    let scaled = |g: &[f64]| g.iter().map(|e| 3.0 * e).collect::<Vec<f64>>();
    assert_gradient_close(&vs, &scaled(&gs), 1e-14);
    assert_gradient_close(&vx, &scaled(&gx), 1e-14);
}

/// `let h = &mut buf[a..b]` of a `let mut` buffer (every range form), written through the
/// view and by a helper, then the view split again.
#[differentiable]
fn range_views(a: f64, x: &[f64]) -> f64 {
    let mut buf = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    for i in 0..6 {
        buf[i] *= x[i];
    }
    let h = &mut buf[1..5];
    axpy(a, &x[..4], h);
    h[0] = h[1] * h[2];
    let t = sqnorm(h) + h.len() as f64;
    let (left, right) = h.split_at_mut(1);
    axpy(a * a, &x[2..5], right);
    let u = left[0] * right[2];
    let g = &mut buf[..=2];
    g[2] = g[0].sin() + a;
    let e = &mut buf[3..];
    axpy(-a, &x[..3], e);
    t + u + sqnorm(&buf)
}

/// By hand: the same computation on indices.
fn range_views_by_hand(a: f64, x: &[f64]) -> f64 {
    let mut buf: Vec<f64> = (0..6).map(|i| (i + 1) as f64 * x[i]).collect();
    for i in 0..4 {
        buf[1 + i] += a * x[i];
    }
    buf[1] = buf[2] * buf[3];
    let t = (1..5).map(|i| buf[i] * buf[i]).sum::<f64>() + 4.0;
    for i in 0..3 {
        buf[2 + i] += a * a * x[2 + i];
    }
    let u = buf[1] * buf[4];
    buf[2] = buf[0].sin() + a;
    for i in 0..3 {
        buf[3 + i] += -a * x[i];
    }
    t + u + buf.iter().map(|v| v * v).sum::<f64>()
}

#[test]
fn views_of_ranges_and_views_of_views() {
    let (a, x) = (0.7, vec![0.4, 0.9, -0.3, 1.2, 0.8, -0.6]);
    assert!((range_views(a, &x) - range_views_by_hand(a, &x)).abs() < 1e-12);
    let (v, (ga, gx)) = value_and_gradients_function!(range_views)(a, &x);
    assert_eq!(v.to_bits(), range_views(a, &x).to_bits());
    let fa = finite_difference(|v| range_views_by_hand(v[0], &x), &[a]);
    assert!(
        (ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0),
        "{ga} vs {fa:?}"
    );
    let fx = finite_difference(|v| range_views_by_hand(a, v), &x);
    assert_gradient_close(&gx, &fx, 1e-8);
}

/// `for c in buf.chunks_mut(k)` and `chunks_exact_mut`: each chunk handed to a helper that
/// writes it, and read.
#[differentiable]
fn chunked(a: f64, x: &[f64]) -> f64 {
    let mut buf = vec![0.0; 7];
    for i in 0..7 {
        buf[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for c in buf.chunks_mut(3) {
        axpy(a, x, c);
        s += sqnorm(c) * c[0] + c.len() as f64;
    }
    for c in buf.chunks_exact_mut(2) {
        c[1] = c[0] * a;
        s += dot(c, &x[..2]);
    }
    s
}

#[test]
fn chunks_mut_loops() {
    let (a, x) = (0.6, vec![0.4, 0.9, -0.3, 1.2, 0.8, -0.6, 0.2]);
    let (_, (ga, gx)) = value_and_gradients_function!(chunked)(a, &x);
    let fa = finite_difference(|v| chunked(v[0], &x), &[a]);
    assert!(
        (ga - fa[0]).abs() < 1e-7 * fa[0].abs().max(1.0),
        "{ga} vs {fa:?}"
    );
    assert_gradient_close(&gx, &finite_difference(|v| chunked(a, v), &x), 1e-8);
    // the value, against the same computation written on indices
    let mut buf: Vec<f64> = x.iter().map(|v| v * v).collect();
    let mut s = 0.0;
    for start in [0, 3, 6] {
        let end = (start + 3).min(7);
        for i in start..end {
            buf[i] += a * x[i - start];
        }
        let sq: f64 = (start..end).map(|i| buf[i] * buf[i]).sum();
        s += sq * buf[start] + (end - start) as f64;
    }
    for start in [0, 2, 4] {
        buf[start + 1] = buf[start] * a;
        s += buf[start] * x[0] + buf[start + 1] * x[1];
    }
    assert!((chunked(a, &x) - s).abs() < 1e-12);
}

#[differentiable]
fn split_past_the_end(x: &[f64]) -> f64 {
    let mut buf = vec![1.0; 3];
    let (h, c) = buf.split_at_mut(4);
    axpy(1.0, x, h);
    sqnorm(c)
}

#[differentiable]
fn split_of_a_range_past_the_end(x: &[f64]) -> f64 {
    let mut buf = vec![1.0; 3];
    let (h, c) = buf[1..7].split_at_mut(2);
    axpy(1.0, x, h);
    sqnorm(c)
}

#[differentiable]
fn range_past_the_end(x: &[f64]) -> f64 {
    let mut buf = vec![1.0; 3];
    let h = &mut buf[1..6];
    axpy(1.0, x, h);
    sqnorm(h)
}

thread_local! {
    static PANIC_AT: std::cell::Cell<Option<(&'static str, u32)>> =
        const { std::cell::Cell::new(None) };
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
    let payload = std::panic::catch_unwind(f).expect_err("should panic");
    let _ = std::panic::take_hook();
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    let (file, line) = PANIC_AT.with(|p| p.get()).expect("a location");
    (message, file, line)
}

/// The line of this file that contains `text`, 1-based.
fn line_of(text: &str) -> u32 {
    let at = include_str!("views.rs")
        .lines()
        .position(|l| l.contains(text))
        .expect("the line");
    at as u32 + 1
}

/// A view out of its buffer's bounds panics with Rust's own message at the line that makes
/// it, in the primal and in the gradient alike.
#[test]
fn a_view_out_of_its_buffer_panics_as_rust_does() {
    let x = [0.5; 5];
    let cases = [
        (
            panic_of(|| {
                split_past_the_end(&x);
            }),
            panic_of(|| {
                gradients_function!(split_past_the_end)(&x);
            }),
            "mid > len",
            line_of("buf.split_at_mut(4)"),
        ),
        (
            panic_of(|| {
                range_past_the_end(&x);
            }),
            panic_of(|| {
                gradients_function!(range_past_the_end)(&x);
            }),
            "range end index 6 out of range for slice of length 3",
            line_of("&mut buf[1..6]"),
        ),
        (
            panic_of(|| {
                split_of_a_range_past_the_end(&x);
            }),
            panic_of(|| {
                gradients_function!(split_of_a_range_past_the_end)(&x);
            }),
            "range end index 7 out of range for slice of length 3",
            line_of("buf[1..7].split_at_mut(2)"),
        ),
    ];
    for (primal, gradient, message, line) in cases {
        for (what, (m, file, at)) in [("primal", primal), ("gradient", gradient)] {
            assert!(m.contains(message), "{what}: {m}");
            assert!(file.ends_with("views.rs"), "{what}: panicked in {file}");
            assert_eq!(at, line, "{what}: panicked at line {at}");
        }
    }
}
