//! Data-parallel gradients (the `rayon` feature): the gradient of a 32–64–10 perceptron's
//! cross-entropy over a batch of 64 000 rows, in 64 shards of 1 000, on a rayon pool of one
//! thread and on a pool of every core (`autodiff::parallel::sum_ranges`, the same work,
//! added in the same order).
//!
//! `cargo bench --features rayon --bench parallel`; the speed-up is the ratio of the two
//! times (BENCHMARKS.md).

use autodiff::ndarray::{s, Array1, Array2};
use autodiff::nn;
use autodiff::parallel::sum_ranges;
use autodiff::prelude::*;
use autodiff::rayon::ThreadPoolBuilder;
use autodiff::value_and_gradients_function;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::time::Duration;

const ROWS: usize = 64_000;
const SHARD: usize = 1_000;

#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
}

#[differentiable]
fn loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize], #[no_grad] n: f64) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let scores = h.dot(&m.w2) + &m.b2;
    nn::cross_entropy(&scores, labels) * (labels.len() as f64 / n)
}

fn uniform(rng: &mut StdRng, shape: (usize, usize)) -> Array2<f64> {
    Array2::from_shape_fn(shape, |_| rng.random_range(-0.3..0.3))
}

fn parallel_benches(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(64);
    let x = uniform(&mut rng, (ROWS, 32));
    let labels: Vec<usize> = (0..ROWS).map(|_| rng.random_range(0..10)).collect();
    let model = Mlp {
        w1: uniform(&mut rng, (32, 64)),
        b1: Array1::zeros(64),
        w2: uniform(&mut rng, (64, 10)),
        b2: Array1::zeros(10),
    };
    let grad = value_and_gradients_function!(loss, params = ["m"]);
    let shard = |r: std::ops::Range<usize>| {
        let batch = x.slice(s![r.clone(), ..]).to_owned();
        grad(black_box(&model), &batch, &labels[r], ROWS as f64).1
    };

    let mut group = c.benchmark_group("mlp-gradient/64000-rows");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in [1, cores] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        group.bench_function(format!("{threads}-threads"), |b| {
            b.iter(|| pool.install(|| sum_ranges::<MlpTangent, _>(ROWS, SHARD, shard)))
        });
    }
    group.finish();
}

criterion_group!(benches, parallel_benches);
criterion_main!(benches);
