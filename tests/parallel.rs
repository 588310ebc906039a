//! `autodiff::parallel` and gradients that add (run with `cargo test --features rayon
//! --test parallel`): the gradient of a batch computed shard by shard on several threads
//! equals the gradient of the whole batch (to 1e-12: the additions happen in another
//! order), and equals the sequential shard-by-shard sum bit for bit (the same order).
#![cfg(feature = "rayon")]

use autodiff::ndarray::{s, Array1, Array2};
use autodiff::nn;
use autodiff::parallel::{add, sum_chunks, sum_ranges};
use autodiff::prelude::*;
use autodiff::rayon::prelude::*;
use autodiff::rayon::ThreadPoolBuilder;
use autodiff::{gradients_function, Gradients};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
    #[no_grad]
    name: &'static str,
}

/// The cross-entropy of the rows of `x`, summed over the rows and divided by `n`, the size
/// of the whole batch: the shards' losses add up to the batch's mean.
#[differentiable]
fn loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize], #[no_grad] n: f64) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let scores = h.dot(&m.w2) + &m.b2;
    nn::cross_entropy(&scores, labels) * (labels.len() as f64 / n)
}

fn uniform(rng: &mut StdRng, shape: (usize, usize)) -> Array2<f64> {
    Array2::from_shape_fn(shape, |_| rng.random_range(-1.0..1.0))
}

fn model(rng: &mut StdRng) -> Mlp {
    Mlp {
        w1: uniform(rng, (5, 16)),
        b1: Array1::from_shape_fn(16, |_| rng.random_range(-0.1..0.1)),
        w2: uniform(rng, (16, 3)),
        b2: Array1::from_shape_fn(3, |_| rng.random_range(-0.1..0.1)),
        name: "mlp",
    }
}

fn batch(rng: &mut StdRng, n: usize) -> (Array2<f64>, Vec<usize>) {
    (
        uniform(rng, (n, 5)),
        (0..n).map(|_| rng.random_range(0..3)).collect(),
    )
}

/// Every element of the tangents' fields, in order.
fn elements(t: &MlpTangent) -> Vec<f64> {
    [&t.w1, &t.w2]
        .iter()
        .flat_map(|a| a.iter().copied())
        .chain([&t.b1, &t.b2].iter().flat_map(|a| a.iter().copied()))
        .collect()
}

#[track_caller]
fn assert_close(a: &MlpTangent, b: &MlpTangent, tol: f64) {
    let (a, b) = (elements(a), elements(b));
    assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!((x - y).abs() <= tol, "element {k}: {x} vs {y}");
    }
}

#[track_caller]
fn assert_same_bits(a: &MlpTangent, b: &MlpTangent) {
    let bits = |t: &MlpTangent| elements(t).iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a), bits(b));
}

#[test]
fn the_parallel_gradient_of_a_batch_is_the_gradient_of_the_batch() {
    let mut rng = StdRng::seed_from_u64(16);
    let m = model(&mut rng);
    let n = 2000;
    let (x, labels) = batch(&mut rng, n);
    let grad = gradients_function!(loss, params = ["m"]);
    let whole = grad(&m, &x, &labels, n as f64);

    let shard = |r: std::ops::Range<usize>| {
        grad(
            &m,
            &x.slice(s![r.clone(), ..]).to_owned(),
            &labels[r],
            n as f64,
        )
    };
    let parallel: MlpTangent = sum_ranges(n, 128, shard);
    assert_close(&parallel, &whole, 1e-12);

    // The same shards added in the same order one after another: the same bits, on any
    // number of threads.
    let sequential = (0..n.div_ceil(128))
        .map(|k| shard(k * 128..n.min(k * 128 + 128)))
        .fold(MlpTangent::default(), |a, b| a + b);
    assert_same_bits(&parallel, &sequential);
    for threads in [1, 2, 3] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let again: MlpTangent = pool.install(|| sum_ranges(n, 128, shard));
        assert_same_bits(&again, &sequential);
    }

    // rayon's own reduction (its order depends on how the work was split): to 1e-12.
    let indices: Vec<usize> = (0..n).collect();
    let reduced = indices
        .par_chunks(100)
        .map(|c| shard(c[0]..c[0] + c.len()))
        .reduce(MlpTangent::default, |a, b| a + b);
    assert_close(&reduced, &whole, 1e-12);
    let summed: MlpTangent = indices
        .chunks(500)
        .map(|c| shard(c[0]..c[0] + c.len()))
        .sum();
    assert_close(&summed, &whole, 1e-12);
}

#[test]
fn derived_tangents_add_field_by_field() {
    let mut rng = StdRng::seed_from_u64(7);
    let m = model(&mut rng);
    assert_eq!(m.name, "mlp");
    let (x, labels) = batch(&mut rng, 20);
    let grad = gradients_function!(loss, params = ["m"]);
    let a = grad(&m, &x, &labels, 1.0);
    let b = grad(&m, &x.mapv(|v| v * 0.5), &labels, 2.0);
    let sum = a.clone() + b.clone();
    assert_eq!(sum.w1, &a.w1 + &b.w1);
    assert_eq!(sum.b2, &a.b2 + &b.b2);
    let mut acc = a.clone();
    acc += b.clone();
    assert_same_bits(&acc, &sum);
    // The empty tangent is a zero that takes the shape of what is added to it.
    let from_zero = MlpTangent::default() + a.clone();
    assert_same_bits(&from_zero, &a);
    let total: MlpTangent = vec![a.clone(), b.clone()].into_iter().sum();
    assert_same_bits(&total, &sum);
    let nothing: MlpTangent = std::iter::empty().sum();
    assert_eq!(nothing.w1.len(), 0);
}

#[differentiable]
fn sse(w: &[f64], #[no_grad] x: &[f64], #[no_grad] y: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() {
        let r = w[0] + w[1] * x[i] + w[2] * x[i] * x[i] - y[i];
        sum += r * r;
    }
    sum
}

#[test]
fn vec_gradients_add_with_parallel_add() {
    let mut rng = StdRng::seed_from_u64(3);
    let x: Vec<f64> = (0..10_000).map(|_| rng.random_range(-1.0..1.0)).collect();
    let y: Vec<f64> = x.iter().map(|v| (3.0 * v).sin()).collect();
    let points: Vec<[f64; 2]> = x.iter().zip(&y).map(|(&a, &b)| [a, b]).collect();
    let w = [0.1, 0.2, -0.3];
    let grad = gradients_function!(sse, params = ["w"]);
    let whole: Vec<f64> = grad(&w, &x, &y);
    let shard = |c: &[[f64; 2]]| {
        let (xs, ys): (Vec<f64>, Vec<f64>) = c.iter().map(|p| (p[0], p[1])).unzip();
        grad(&w, &xs, &ys)
    };
    let reduced = points.par_chunks(700).map(shard).reduce_with(add).unwrap();
    let chunked: Vec<f64> = sum_chunks(&points, 700, shard);
    let sequential = points.chunks(700).map(shard).fold(Vec::new(), add);
    assert_eq!(chunked, sequential);
    for g in [&reduced, &chunked] {
        for (a, b) in g.iter().zip(&whole) {
            // sums of 10 000 terms of size ~1: relative 1e-12
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
        }
    }
    // No data: zero.
    let empty: Vec<f64> = sum_chunks(&points[..0], 700, shard);
    assert!(empty.is_empty());
}

struct Line {
    slope: Variable<f64>,
    intercept: Variable<f64>,
}

impl Line {
    #[differentiable]
    fn sse(&self, #[no_grad] x: &[f64], #[no_grad] y: &[f64]) -> f64 {
        let mut sum = 0.0;
        for i in 0..x.len() {
            let r = self.slope * x[i] + self.intercept - y[i];
            sum += r * r;
        }
        sum
    }
}

#[test]
fn implicit_gradients_of_shards_add() {
    let line = Line {
        slope: Variable::new(0.5),
        intercept: Variable::new(-0.25),
    };
    let x: Vec<f64> = (0..4000).map(|i| (i as f64 * 0.37).sin()).collect();
    let y: Vec<f64> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    let whole = implicit_gradients(|x: &[f64], y: &[f64]| line.sse(x, y))(&x, &y);
    let idx: Vec<usize> = (0..x.len()).collect();
    let shard = |c: &[usize]| {
        let r = c[0]..c[0] + c.len();
        implicit_gradients(|x: &[f64], y: &[f64]| line.sse(x, y))(&x[r.clone()], &y[r])
    };
    let reduced: Gradients = idx
        .par_chunks(300)
        .map(shard)
        .reduce_with(|a, b| a + b)
        .unwrap();
    let ordered: Gradients = sum_chunks(&idx, 300, shard);
    let sequential: Gradients = idx.chunks(300).map(shard).sum();
    for (g, v) in [&reduced, &ordered, &sequential].iter().flat_map(|g| {
        [
            (g.get(&line.slope), &line.slope),
            (g.get(&line.intercept), &line.intercept),
        ]
    }) {
        let expected = whole.get(v).unwrap();
        let g = g.unwrap();
        assert!(
            (g - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "{g} vs {expected}"
        );
    }
    assert_eq!(
        ordered.get(&line.slope).unwrap().to_bits(),
        sequential.get(&line.slope).unwrap().to_bits()
    );
    assert!(reduced[0].1.is(&line.slope) && reduced[1].1.is(&line.intercept));
}
