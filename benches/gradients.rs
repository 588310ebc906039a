//! Criterion benchmarks: for each workload, the primal, the generated gradient
//! (`value_and_gradients_function!`) and a hand-written adjoint of the same code.
//! `cargo bench --bench gradients`; `cargo bench --bench report` prints the ratios.

use autodiff::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

mod workloads;
use workloads::*;

fn rosenbrock_benches(c: &mut Criterion) {
    for n in [10_000, 1_000_000] {
        let x = rosenbrock_input(n);
        let mut group = c.benchmark_group(format!("rosenbrock/{n}"));
        group.bench_function("primal", |b| b.iter(|| rosenbrock(black_box(&x))));
        let generated = value_and_gradients_function!(rosenbrock);
        group.bench_function("generated", |b| b.iter(|| generated(black_box(&x))));
        group.bench_function("hand-written", |b| {
            b.iter(|| rosenbrock_by_hand(black_box(&x)))
        });
        group.finish();
    }
}

fn chain_benches(c: &mut Criterion) {
    let n = 1_000_000;
    let mut group = c.benchmark_group("chain/1000000");
    group.sample_size(20);
    group.bench_function("primal", |b| b.iter(|| chain(black_box(0.5), n)));
    let generated = value_and_gradients_function!(chain, params = ["x"]);
    group.bench_function("generated", |b| b.iter(|| generated(black_box(0.5), n)));
    group.bench_function("hand-written", |b| {
        b.iter(|| chain_by_hand(black_box(0.5), n))
    });
    group.finish();
}

fn recurrence_benches(c: &mut Criterion) {
    let n = 1_000_000;
    let mut group = c.benchmark_group("recurrence/1000000");
    group.sample_size(20);
    group.bench_function("primal", |b| {
        b.iter(|| recurrence(black_box(0.9), black_box(0.3), n))
    });
    let generated = value_and_gradients_function!(recurrence, params = ["a", "b"]);
    group.bench_function("generated", |b| {
        b.iter(|| generated(black_box(0.9), black_box(0.3), n))
    });
    group.bench_function("hand-written", |b| {
        b.iter(|| recurrence_by_hand(black_box(0.9), black_box(0.3), n))
    });
    group.finish();
}

fn mlp_benches(c: &mut Criterion) {
    let (m, x, labels) = mlp_input(784, 256, 10, 64);
    let mut group = c.benchmark_group("mlp/784-256-10/64");
    group.sample_size(20);
    group.bench_function("primal", |b| {
        b.iter(|| mlp_loss(black_box(&m), black_box(&x), &labels))
    });
    let generated = value_and_gradients_function!(mlp_loss, params = ["m"]);
    group.bench_function("generated", |b| {
        b.iter(|| generated(black_box(&m), black_box(&x), &labels))
    });
    group.bench_function("hand-written", |b| {
        b.iter(|| mlp_by_hand(black_box(&m), black_box(&x), &labels))
    });
    group.finish();
}

criterion_group!(
    benches,
    rosenbrock_benches,
    chain_benches,
    recurrence_benches,
    mlp_benches
);
criterion_main!(benches);
