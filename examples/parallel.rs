//! The gradient of a multilayer perceptron's loss over a large batch, on one core and on
//! every core (`autodiff::parallel`, the `rayon` feature): the batch is cut into shards,
//! each shard's gradient computed on its own thread, the gradients added in shard order.
//! Prints both times, the speed-up, and the largest difference between the gradients
//! (zero: the same additions in the same order; against the gradient of the whole batch
//! in one call, rounding only).
//!
//! Run: `cargo run --release --features rayon --example parallel [rows]`

use autodiff::ndarray::{s, Array1, Array2};
use autodiff::nn;
use autodiff::parallel::sum_ranges;
use autodiff::prelude::*;
use autodiff::value_and_gradients_function;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::time::{Duration, Instant};

const FEATURES: usize = 32;
const HIDDEN: usize = 64;
const CLASSES: usize = 10;
/// Rows per shard: large enough that a shard's work dwarfs its gradient's addition.
const SHARD: usize = 1000;

#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
}

/// The cross-entropy of the rows of `x` times `rows / n`: the shards' losses add up to the
/// mean over the whole batch of `n` rows.
#[differentiable]
fn loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize], #[no_grad] n: f64) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let scores = h.dot(&m.w2) + &m.b2;
    nn::cross_entropy(&scores, labels) * (labels.len() as f64 / n)
}

fn uniform(rng: &mut StdRng, shape: (usize, usize), limit: f64) -> Array2<f64> {
    Array2::from_shape_fn(shape, |_| rng.random_range(-limit..limit))
}

/// The shortest of `runs` runs of `f`, and its last result.
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

/// The largest absolute difference between two gradients, over every field.
fn max_difference(a: &MlpTangent, b: &MlpTangent) -> f64 {
    let pairs = [(&a.w1, &b.w1), (&a.w2, &b.w2)];
    let vectors = [(&a.b1, &b.b1), (&a.b2, &b.b2)];
    let d2 = pairs
        .iter()
        .flat_map(|(x, y)| x.iter().zip(y.iter()))
        .chain(vectors.iter().flat_map(|(x, y)| x.iter().zip(y.iter())));
    d2.map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("the number of rows"))
        .unwrap_or(64_000);
    let mut rng = StdRng::seed_from_u64(2026);
    let x = uniform(&mut rng, (n, FEATURES), 1.0);
    let labels: Vec<usize> = (0..n).map(|_| rng.random_range(0..CLASSES)).collect();
    let model = Mlp {
        w1: uniform(
            &mut rng,
            (FEATURES, HIDDEN),
            (6.0 / (FEATURES + HIDDEN) as f64).sqrt(),
        ),
        b1: Array1::zeros(HIDDEN),
        w2: uniform(
            &mut rng,
            (HIDDEN, CLASSES),
            (6.0 / (HIDDEN + CLASSES) as f64).sqrt(),
        ),
        b2: Array1::zeros(CLASSES),
    };
    let grad = value_and_gradients_function!(loss, params = ["m"]);
    let shard = |r: std::ops::Range<usize>| {
        let (_, g) = grad(
            &model,
            &x.slice(s![r.clone(), ..]).to_owned(),
            &labels[r],
            n as f64,
        );
        g
    };
    let shards = n.div_ceil(SHARD);
    let threads = autodiff::rayon::current_num_threads();
    println!("{n} rows × {FEATURES} features, {FEATURES}–{HIDDEN}–{CLASSES} perceptron");
    println!("{shards} shards of {SHARD} rows, {threads} threads");

    let (whole_time, whole) = best_of(3, || grad(&model, &x, &labels, n as f64).1);
    let (sequential_time, sequential) = best_of(3, || {
        (0..shards)
            .map(|k| shard(k * SHARD..n.min((k + 1) * SHARD)))
            .fold(MlpTangent::default(), |a, b| a + b)
    });
    let (parallel_time, parallel) = best_of(3, || sum_ranges(n, SHARD, shard));

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("whole batch, one call:   {:8.1} ms", ms(whole_time));
    println!("shards, one core:        {:8.1} ms", ms(sequential_time));
    println!(
        "shards, {threads} threads:       {:8.1} ms   speed-up {:.2}×",
        ms(parallel_time),
        sequential_time.as_secs_f64() / parallel_time.as_secs_f64()
    );
    let same_order = max_difference(&parallel, &sequential);
    let vs_whole = max_difference(&parallel, &whole);
    println!("max |parallel − sequential| = {same_order:e} (the same additions in the same order)");
    println!("max |parallel − whole batch| = {vs_whole:.1e}");
    assert_eq!(
        same_order, 0.0,
        "the parallel gradient is the sequential one"
    );
    assert!(vs_whole < 1e-12, "the shards add up to the batch");
}
