//! Numerically stable building blocks of neural networks, differentiable, each with a
//! derivative rule written by hand (one fused pass rather than the chain of its parts).
//!
//! Matrices hold one example per row: `softmax`, `log_softmax` and `logsumexp` work along
//! each row; `cross_entropy` takes one integer label per row.
//!
//! ```
//! use autodiff::nn;
//! use autodiff::ndarray::array;
//! use autodiff::prelude::*;
//!
//! #[differentiable]
//! fn loss(logits: &autodiff::ndarray::Array2<f64>, #[no_grad] labels: &[usize]) -> f64 {
//!     nn::cross_entropy(logits, labels)
//! }
//!
//! let logits = array![[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]];
//! let g = gradients_function!(loss)(&logits, &[0, 1]);
//! // softmax minus the one-hot labels, over the batch size
//! let p = nn::softmax(&logits);
//! assert!((g[[0, 0]] - (p[[0, 0]] - 1.0) / 2.0).abs() < 1e-15);
//! assert!((g[[0, 1]] - p[[0, 1]] / 2.0).abs() < 1e-15);
//! ```

use crate::differentiable;
use crate::ndarray::{Array, Array1, Array2, Axis, Dimension, Zip};
use crate::Real;

fn row_max<T: Real>(x: &Array2<T>) -> Array1<T> {
    x.map_axis(Axis(1), |row| {
        row.iter()
            .copied()
            .fold(T::neg_infinity(), |m, v| if v > m { v } else { m })
    })
}

/// `ln Σⱼ exp(xᵢⱼ)` for every row `i`, computed as `m + ln Σ exp(x − m)` with `m` the row's
/// maximum, so large values do not overflow.
///
/// ```
/// let x = autodiff::ndarray::array![[1000.0_f64, 1000.0]];
/// let l = autodiff::nn::logsumexp(&x);
/// assert!((l[0] - (1000.0 + 2f64.ln())).abs() < 1e-12);
/// ```
#[differentiable(vjp = logsumexp_vjp)]
pub fn logsumexp<T: Real>(x: &Array2<T>) -> Array1<T> {
    let m = row_max(x);
    let mut out = Array1::zeros(x.nrows());
    Zip::from(&mut out)
        .and(x.rows())
        .and(&m)
        .for_each(|o, row, &m| {
            let s = row.iter().fold(T::zero(), |s, &v| s + (v - m).exp());
            *o = m + s.ln();
        });
    out
}

#[allow(clippy::type_complexity)]
fn logsumexp_vjp<T: Real>(x: &Array2<T>) -> (Array1<T>, impl FnOnce(Array1<T>) -> Array2<T>) {
    let p = softmax(x);
    let value = logsumexp(x);
    (value, move |dy: Array1<T>| {
        let mut g = p;
        Zip::from(g.rows_mut())
            .and(&dy)
            .for_each(|mut row, &d| row.mapv_inplace(|v| v * d));
        g
    })
}

/// `exp(xᵢⱼ) / Σₖ exp(xᵢₖ)` along each row (stable: the row's maximum is subtracted first).
///
/// ```
/// let p = autodiff::nn::softmax(&autodiff::ndarray::array![[0.0_f64, 0.0]]);
/// assert_eq!(p, autodiff::ndarray::array![[0.5, 0.5]]);
/// ```
#[differentiable(vjp = softmax_vjp)]
pub fn softmax<T: Real>(x: &Array2<T>) -> Array2<T> {
    let m = row_max(x);
    let mut p = x.to_owned();
    Zip::from(p.rows_mut()).and(&m).for_each(|mut row, &m| {
        row.mapv_inplace(|v| (v - m).exp());
        let s = row.sum();
        row.mapv_inplace(|v| v / s);
    });
    p
}

#[allow(clippy::type_complexity)]
fn softmax_vjp<T: Real>(x: &Array2<T>) -> (Array2<T>, impl FnOnce(Array2<T>) -> Array2<T>) {
    let p = softmax(x);
    (p.clone(), move |dy: Array2<T>| {
        // dx = p ∘ (dy − Σⱼ dyⱼ pⱼ), row by row
        let mut g = dy;
        Zip::from(g.rows_mut()).and(p.rows()).for_each(|mut g, p| {
            let dot = g
                .iter()
                .zip(p.iter())
                .fold(T::zero(), |s, (&a, &b)| s + a * b);
            Zip::from(&mut g)
                .and(&p)
                .for_each(|g, &p| *g = p * (*g - dot));
        });
        g
    })
}

/// `xᵢⱼ − logsumexp(xᵢ)` along each row: the logarithm of [`softmax`], without its
/// underflow.
///
/// ```
/// let l = autodiff::nn::log_softmax(&autodiff::ndarray::array![[0.0_f64, 0.0]]);
/// assert!((l[[0, 0]] + 2f64.ln()).abs() < 1e-15);
/// ```
#[differentiable(vjp = log_softmax_vjp)]
pub fn log_softmax<T: Real>(x: &Array2<T>) -> Array2<T> {
    let l = logsumexp(x);
    let mut y = x.to_owned();
    Zip::from(y.rows_mut())
        .and(&l)
        .for_each(|mut row, &l| row.mapv_inplace(|v| v - l));
    y
}

#[allow(clippy::type_complexity)]
fn log_softmax_vjp<T: Real>(x: &Array2<T>) -> (Array2<T>, impl FnOnce(Array2<T>) -> Array2<T>) {
    let y = log_softmax(x);
    (y.clone(), move |dy: Array2<T>| {
        // dx = dy − softmax · Σⱼ dyⱼ, row by row (softmax = exp(y))
        let mut g = dy;
        Zip::from(g.rows_mut()).and(y.rows()).for_each(|mut g, y| {
            let s = g.sum();
            Zip::from(&mut g)
                .and(&y)
                .for_each(|g, &y| *g = *g - y.exp() * s);
        });
        g
    })
}

/// The mean over the rows of `−log softmax(logits)[i, labels[i]]`: the cross-entropy of
/// integer class labels. Panics if the lengths differ or a label is out of range.
///
/// ```
/// let logits = autodiff::ndarray::array![[0.0_f64, 0.0]];
/// assert!((autodiff::nn::cross_entropy(&logits, &[1]) - 2f64.ln()).abs() < 1e-15);
/// ```
#[differentiable(vjp = cross_entropy_vjp)]
pub fn cross_entropy<T: Real>(logits: &Array2<T>, labels: &[usize]) -> T {
    check_labels(logits, labels);
    let l = log_softmax(logits);
    let n = T::from_f64_rounded(labels.len() as f64);
    let total = labels
        .iter()
        .enumerate()
        .fold(T::zero(), |s, (i, &c)| s - l[[i, c]]);
    total / n
}

fn check_labels<T: Real>(logits: &Array2<T>, labels: &[usize]) {
    assert_eq!(
        logits.nrows(),
        labels.len(),
        "cross_entropy: {} rows of logits but {} labels",
        logits.nrows(),
        labels.len()
    );
    if let Some(bad) = labels.iter().find(|&&c| c >= logits.ncols()) {
        panic!(
            "cross_entropy: label {bad} out of range for {} classes",
            logits.ncols()
        );
    }
}

#[allow(clippy::type_complexity)]
fn cross_entropy_vjp<'a, T: Real>(
    logits: &Array2<T>,
    labels: &'a [usize],
) -> (T, impl FnOnce(T) -> Array2<T> + 'a) {
    check_labels(logits, labels);
    let mut p = softmax(logits);
    let n = T::from_f64_rounded(labels.len() as f64);
    let value = labels
        .iter()
        .enumerate()
        .fold(T::zero(), |s, (i, &c)| s - p[[i, c]].ln())
        / n;
    // The value from log_softmax, for its accuracy when a probability underflows.
    let value = if value.is_finite() {
        value
    } else {
        cross_entropy(logits, labels)
    };
    (value, move |dy: T| {
        for (i, &c) in labels.iter().enumerate() {
            p[[i, c]] = p[[i, c]] - T::one();
        }
        let scale = dy / n;
        p.mapv_inplace(|v| v * scale);
        p
    })
}

/// `1 / (1 + e⁻ˣ)` elementwise, computed without overflow for large `|x|`.
///
/// ```
/// let s = autodiff::nn::sigmoid(&autodiff::ndarray::array![0.0_f64, -1000.0]);
/// assert_eq!(s, autodiff::ndarray::array![0.5, 0.0]);
/// ```
#[differentiable(vjp = sigmoid_vjp)]
pub fn sigmoid<T: Real, D: Dimension>(x: &Array<T, D>) -> Array<T, D> {
    x.mapv(|v| {
        if v >= T::zero() {
            T::one() / (T::one() + (-v).exp())
        } else {
            let e = v.exp();
            e / (T::one() + e)
        }
    })
}

#[allow(clippy::type_complexity)]
fn sigmoid_vjp<T: Real, D: Dimension>(
    x: &Array<T, D>,
) -> (Array<T, D>, impl FnOnce(Array<T, D>) -> Array<T, D>) {
    let s = sigmoid(x);
    (s.clone(), move |mut dy: Array<T, D>| {
        Zip::from(&mut dy)
            .and(&s)
            .for_each(|g, &s| *g = *g * s * (T::one() - s));
        dy
    })
}

/// `max(x, 0)` elementwise; its derivative at 0 is 0 (JAX's convention).
///
/// ```
/// let r = autodiff::nn::relu(&autodiff::ndarray::array![-1.0_f64, 2.0]);
/// assert_eq!(r, autodiff::ndarray::array![0.0, 2.0]);
/// ```
#[differentiable(vjp = relu_vjp)]
pub fn relu<T: Real, D: Dimension>(x: &Array<T, D>) -> Array<T, D> {
    x.mapv(|v| if v > T::zero() { v } else { T::zero() })
}

#[allow(clippy::type_complexity)]
fn relu_vjp<T: Real, D: Dimension>(
    x: &Array<T, D>,
) -> (Array<T, D>, impl FnOnce(Array<T, D>) -> Array<T, D>) {
    let y = relu(x);
    (y.clone(), move |mut dy: Array<T, D>| {
        Zip::from(&mut dy).and(&y).for_each(|g, &y| {
            if y <= T::zero() {
                *g = T::zero();
            }
        });
        dy
    })
}

/// `ln(1 + eˣ)` elementwise, computed as `max(x, 0) + ln(1 + e^−|x|)` (no overflow).
///
/// ```
/// let s = autodiff::nn::softplus(&autodiff::ndarray::array![0.0_f64, 1000.0]);
/// assert!((s[0] - 2f64.ln()).abs() < 1e-15 && s[1] == 1000.0);
/// ```
#[differentiable(vjp = softplus_vjp)]
pub fn softplus<T: Real, D: Dimension>(x: &Array<T, D>) -> Array<T, D> {
    x.mapv(|v| v.max(T::zero()) + (-v.abs()).exp().ln_1p())
}

#[allow(clippy::type_complexity)]
fn softplus_vjp<T: Real, D: Dimension>(
    x: &Array<T, D>,
) -> (Array<T, D>, impl FnOnce(Array<T, D>) -> Array<T, D>) {
    let y = softplus(x);
    let s = sigmoid(x);
    (y, move |mut dy: Array<T, D>| {
        Zip::from(&mut dy).and(&s).for_each(|g, &s| *g = *g * s);
        dy
    })
}

/// The mean of `(prediction − target)²` over every element; panics if the shapes differ.
///
/// ```
/// use autodiff::ndarray::array;
/// assert_eq!(autodiff::nn::mse(&array![1.0_f64, 3.0], &array![0.0, 1.0]), 2.5);
/// ```
#[differentiable(vjp = mse_vjp)]
pub fn mse<T: Real, D: Dimension>(prediction: &Array<T, D>, target: &Array<T, D>) -> T {
    assert_eq!(
        prediction.shape(),
        target.shape(),
        "mse: prediction of shape {:?}, target of shape {:?}",
        prediction.shape(),
        target.shape()
    );
    let n = T::from_f64_rounded(prediction.len() as f64);
    Zip::from(prediction)
        .and(target)
        .fold(T::zero(), |s, &p, &t| s + (p - t) * (p - t))
        / n
}

#[allow(clippy::type_complexity)]
fn mse_vjp<T: Real, D: Dimension>(
    prediction: &Array<T, D>,
    target: &Array<T, D>,
) -> (T, impl FnOnce(T) -> (Array<T, D>, Array<T, D>)) {
    let value = mse(prediction, target);
    let mut diff = prediction - target;
    let n = T::from_f64_rounded(prediction.len() as f64);
    (value, move |dy: T| {
        let k = (dy + dy) / n;
        diff.mapv_inplace(|v| v * k);
        let neg = diff.mapv(|v| -v);
        (diff, neg)
    })
}
