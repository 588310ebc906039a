//! Gradients over a batch on every core (the `rayon` cargo feature).
//!
//! The gradient of a loss summed over a batch is the sum of the gradients of its shards,
//! and a gradient is a plain value: differentiate each shard on its own thread, add the
//! results. Every gradient type adds: numbers and ndarray arrays with `+`, derived
//! tangents and [`Gradients`](crate::Gradients) with `+`, `+=` and `Sum` (this feature
//! writes them), and all of them, `Vec`s included, with [`add`], the reduction to hand
//! rayon:
//!
//! ```
//! use autodiff::prelude::*;
//! use autodiff::rayon::prelude::*;
//!
//! /// The squared error of a line through the points (x, y) of a shard, summed.
//! #[differentiable]
//! fn sse(w: &[f64], #[no_grad] points: &[[f64; 2]]) -> f64 {
//!     let mut sum = 0.0;
//!     for i in 0..points.len() {
//!         let r = w[0] + w[1] * points[i][0] - points[i][1];
//!         sum += r * r;
//!     }
//!     sum
//! }
//!
//! let points: Vec<[f64; 2]> = (0..10_000).map(|i| [i as f64 / 1e4, 1.0]).collect();
//! let w = [0.5, -1.0];
//! let grad = gradients_function!(sse, params = ["w"]);
//!
//! // rayon as usual: shards in parallel, gradients added by `parallel::add`.
//! let g: Vec<f64> = points
//!     .par_chunks(1000)
//!     .map(|shard| grad(&w, shard))
//!     .reduce_with(autodiff::parallel::add)
//!     .unwrap();
//! assert!((g[0] - grad(&w, &points)[0]).abs() < 1e-9);
//!
//! // Or one call, which also adds the shards in a fixed order: the result is the same,
//! // bit for bit, whatever the number of threads.
//! let g2: Vec<f64> = autodiff::parallel::sum_chunks(&points, 1000, |shard| grad(&w, shard));
//! let sequential = points
//!     .chunks(1000)
//!     .map(|shard| grad(&w, shard))
//!     .fold(Vec::new(), autodiff::parallel::add);
//! assert_eq!(g2, sequential);
//! ```
//!
//! A loss that is a *mean* over the batch is the sum of the shards' sums divided by the
//! batch size: differentiate the shards' sums (or means weighted by their sizes) and scale
//! the total once. Implicit gradients ([`implicit_gradients`](crate::implicit_gradients))
//! work the same way: each thread has its own request, and the [`Gradients`](crate::Gradients)
//! of the shards add.
//!
//! Shards of a few hundred examples or more keep the per-shard cost (a gradient buffer,
//! one addition) small beside the work; a few shards per core let rayon balance them.
//! `cargo run --release --features rayon --example parallel` measures the speed-up.

use crate::Accumulate;
use rayon::prelude::*;
use std::ops::Range;

/// `a + b` for every gradient type: `a.accumulate(b)` returned. The reduction for rayon's
/// `reduce_with`, `reduce` (with `G::default` as the identity) and `fold`.
///
/// ```
/// use autodiff::parallel::add;
/// assert_eq!(add(vec![1.0, 2.0], vec![0.5, 0.5]), vec![1.5, 2.5]);
/// assert_eq!(add(1.0, 2.0), 3.0);
/// // An empty `Vec` is a zero of any length.
/// assert_eq!(add(Vec::new(), vec![1.0]), vec![1.0]);
/// ```
pub fn add<G: Accumulate>(mut a: G, b: G) -> G {
    a.accumulate(b);
    a
}

/// The sum of `f(shard)` over the shards `data.chunks(chunk_size)`, the shards run in
/// parallel on rayon's threads and their results added in shard order: the result is,
/// bit for bit, `data.chunks(chunk_size).map(f).fold(G::default(), add)`, whatever the
/// number of threads. No data gives `G::default()` (zero). Panics if `chunk_size` is 0.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn energy(k: f64, #[no_grad] xs: &[f64]) -> f64 {
///     xs.iter().map(|x| 0.5 * k * x * x).sum()
/// }
///
/// let xs: Vec<f64> = (0..1000).map(|i| i as f64 / 1000.0).collect();
/// let grad = gradients_function!(energy, params = ["k"]);
/// let dk: f64 = autodiff::parallel::sum_chunks(&xs, 128, |shard| grad(2.0, shard));
/// let expected: f64 = xs.iter().map(|x| 0.5 * x * x).sum();
/// assert!((dk - expected).abs() < 1e-9);
/// ```
pub fn sum_chunks<T, G, F>(data: &[T], chunk_size: usize, f: F) -> G
where
    T: Sync,
    G: Accumulate + Default + Send,
    F: Fn(&[T]) -> G + Sync,
{
    sum_ranges(data.len(), chunk_size, |range| f(&data[range]))
}

/// [`sum_chunks`] over index ranges: the sum of `f(range)` over `0..len` cut into ranges
/// of `chunk_size` (the last one shorter), for a batch held in several slices or arrays
/// that `f` cuts itself (`x.slice(s![range, ..])`, `&labels[range]`). The ranges run in
/// parallel and their results are added in order, so the result is bit for bit the
/// sequential one. No range (`len` 0) gives `G::default()`. Panics if `chunk_size` is 0.
///
/// ```
/// use autodiff::ndarray::{s, Array1, Array2};
/// use autodiff::prelude::*;
///
/// /// The squared error of a linear model on the rows of `x`, summed.
/// #[differentiable]
/// fn sse(w: &Array1<f64>, #[no_grad] x: &Array2<f64>, #[no_grad] y: &Array1<f64>) -> f64 {
///     let r = x.dot(w) - y;
///     r.dot(&r)
/// }
///
/// let x = Array2::from_shape_fn((1000, 3), |(i, j)| ((i * 3 + j) as f64).sin());
/// let y = Array1::from_shape_fn(1000, |i| (i as f64).cos());
/// let w = Array1::from(vec![0.1, -0.2, 0.3]);
/// let grad = gradients_function!(sse, params = ["w"]);
/// let g: Array1<f64> = autodiff::parallel::sum_ranges(1000, 250, |r| {
///     grad(&w, &x.slice(s![r.clone(), ..]).to_owned(), &y.slice(s![r]).to_owned())
/// });
/// let whole = grad(&w, &x, &y);
/// assert!((&g - &whole).iter().all(|d| d.abs() < 1e-9));
/// ```
pub fn sum_ranges<G, F>(len: usize, chunk_size: usize, f: F) -> G
where
    G: Accumulate + Default + Send,
    F: Fn(Range<usize>) -> G + Sync,
{
    assert!(chunk_size > 0, "sum_chunks: a chunk size of 0");
    let shards = len.div_ceil(chunk_size);
    let parts: Vec<G> = (0..shards)
        .into_par_iter()
        .map(|k| f(k * chunk_size..len.min((k + 1) * chunk_size)))
        .collect();
    parts.into_iter().fold(G::default(), add)
}
