//! Criterion benchmarks of forward mode: `jvp!` (value and directional derivative in one
//! tangent sweep) against the primal, on the Rosenbrock loop and the long scalar chain of
//! `benches/workloads.rs`. `cargo bench --bench forward`; the target is `jvp ÷ primal ≤ 1.5`.

use autodiff::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

mod workloads;
use workloads::*;

/// The tangent of [`rosenbrock`] written by hand: the same loop carrying `Σ` and its tangent.
fn rosenbrock_jvp_by_hand(x: &[f64], v: &[f64]) -> (f64, f64) {
    let (mut sum, mut tangent) = (0.0, 0.0);
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        let tb = v[i + 1] - 2.0 * x[i] * v[i];
        sum += a * a + 100.0 * b * b;
        tangent += -2.0 * a * v[i] + 200.0 * b * tb;
    }
    (sum, tangent)
}

fn rosenbrock_jvp(c: &mut Criterion) {
    for n in [10_000, 1_000_000] {
        let x = rosenbrock_input(n);
        let v: Vec<f64> = (0..n).map(|i| ((i % 7) as f64 - 3.0) * 0.25).collect();
        // checked before timing: ⟨∇f, v⟩ from the reverse gradient
        let (_, g) = value_and_gradients_function!(rosenbrock)(&x);
        let dot: f64 = g.iter().zip(&v).map(|(g, v)| g * v).sum();
        let (y, dy) = jvp!(rosenbrock)(&x, &v);
        assert_eq!(y, rosenbrock(&x));
        assert!(
            (dy - dot).abs() <= 1e-9 * dot.abs().max(1.0),
            "{dy} vs {dot}"
        );
        let (_, by_hand) = rosenbrock_jvp_by_hand(&x, &v);
        assert!((by_hand - dot).abs() <= 1e-9 * dot.abs().max(1.0));
        let mut group = c.benchmark_group(format!("jvp/rosenbrock/{n}"));
        group.bench_function("primal", |b| b.iter(|| rosenbrock(black_box(&x))));
        let f = jvp!(rosenbrock);
        group.bench_function("jvp!", |b| b.iter(|| f(black_box(&x), black_box(&v))));
        group.bench_function("tangent by hand", |b| {
            b.iter(|| rosenbrock_jvp_by_hand(black_box(&x), black_box(&v)))
        });
        group.finish();
    }
}

fn chain_jvp(c: &mut Criterion) {
    let n = 1_000_000;
    let (_, d) = chain_by_hand(0.5, n);
    let (y, dy) = jvp!(chain, params = ["x"])(0.5, n, 1.0);
    assert_eq!(y, chain(0.5, n));
    assert!((dy - d).abs() <= 1e-9 * d.abs().max(1.0), "{dy} vs {d}");
    let mut group = c.benchmark_group("jvp/chain/1000000");
    group.sample_size(20);
    group.bench_function("primal", |b| b.iter(|| chain(black_box(0.5), n)));
    let f = jvp!(chain, params = ["x"]);
    group.bench_function("jvp!", |b| b.iter(|| f(black_box(0.5), n, black_box(1.0))));
    group.finish();
}

criterion_group!(benches, rosenbrock_jvp, chain_jvp);
criterion_main!(benches);
