//! Second order side by side: the dense Hessian of the Rosenbrock loop at n = 100 and its
//! Hessian-vector product at n = 10⁴, by `hessian!`/`hvp!` (forward over reverse on
//! `dual::Dual<f64>`), by num-dual (forward mode: `num_dual::hessian` on `Dual2Vec`, and
//! the gradient of the directional derivative, `num_dual::gradient` over `Dual64`), by
//! echidna (a recorded bytecode tape: `echidna::hessian`, `echidna::hvp`, recording
//! included), and by a hand-written closed form. Every result is checked against the
//! closed form before timing. `cargo bench --bench second_order`.

use autodiff::ndarray::{Array1, Array2};
use autodiff::prelude::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use num_dual::{Dual2DVec64, Dual64, DualNum, DualVec};

/// The Rosenbrock loop, generic over the float type (`hvp!`, `hessian!` and echidna's
/// `BReverse<f64>` run it).
#[differentiable]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut sum = T::zero();
    for i in 0..x.len() - 1 {
        let a = T::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum = sum + a * a + hundred * b * b;
    }
    sum
}

/// The same loop written with `f64`, as users write it: `hvp!` runs the copy generic over
/// the float type that `second_order` asks the attribute for.
#[differentiable(second_order)]
fn rosenbrock_f64(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

/// The same loop for num-dual's numbers (`DualNum`: not `Copy`, so clones).
fn rosenbrock_num_dual<D: DualNum<Primitive = f64>>(x: &[D]) -> D {
    let mut sum = D::from(0.0);
    for i in 0..x.len() - 1 {
        let a = -x[i].clone() + 1.0;
        let b = x[i + 1].clone() - x[i].clone() * x[i].clone();
        sum += a.clone() * a + b.clone() * b * 100.0;
    }
    sum
}

/// The Hessian-vector product of the Rosenbrock loop in closed form: `H` is tridiagonal,
/// `H_ii = 2 − 400 b_i + 800 x_i² (i < n−1) + 200 (i > 0)`, `H_{i,i+1} = −400 x_i`, with
/// `b_i = x_{i+1} − x_i²`.
fn rosenbrock_hvp_by_hand(x: &[f64], v: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut hv = vec![0.0; n];
    for i in 0..n - 1 {
        let b = x[i + 1] - x[i] * x[i];
        let diag = 2.0 - 400.0 * b + 800.0 * x[i] * x[i];
        let off = -400.0 * x[i];
        hv[i] += diag * v[i] + off * v[i + 1];
        hv[i + 1] += 200.0 * v[i + 1] + off * v[i];
    }
    hv
}

fn input(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * 0.37).sin() * 0.5).collect()
}

fn direction(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * 0.11).cos()).collect()
}

fn assert_close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
            "{what}: {x} vs {y}"
        );
    }
}

fn num_dual_hessian(x: &[f64]) -> nalgebra::DMatrix<f64> {
    let x = nalgebra::DVector::from_column_slice(x);
    let (_, _, h) = num_dual::hessian(
        |x: nalgebra::DVector<Dual2DVec64>| rosenbrock_num_dual(x.as_slice()),
        &x,
    );
    h
}

/// `H v` by num-dual: the gradient (vector dual numbers) of the directional derivative
/// (inner `Dual64` whose tangent is `v`).
fn num_dual_hvp(x: &[f64], v: &[f64]) -> Vec<f64> {
    let xv: nalgebra::DVector<Dual64> = nalgebra::DVector::from_iterator(
        x.len(),
        x.iter().zip(v).map(|(&a, &b)| Dual64::new(a, b)),
    );
    let (_, g) = num_dual::gradient(
        |x: nalgebra::DVector<DualVec<Dual64, nalgebra::Dyn>>| rosenbrock_num_dual(x.as_slice()),
        &xv,
    );
    g.iter().map(|d| d.eps).collect()
}

fn hessian_benches(c: &mut Criterion) {
    let n = 100;
    let x = input(n);
    let ours = hessian!(rosenbrock)(&x[..]);
    // the closed form, one column per unit vector
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let column = rosenbrock_hvp_by_hand(&x, &e);
        assert_close(&ours.column(j).to_vec(), &column, "hessian!");
        let nd = num_dual_hessian(&x);
        assert_close(
            &nd.column(j).iter().copied().collect::<Vec<_>>(),
            &column,
            "num-dual",
        );
        let (_, _, ec) = echidna::hessian(rosenbrock, &x);
        assert_close(
            &ec.iter().map(|r| r[j]).collect::<Vec<_>>(),
            &column,
            "echidna",
        );
        if j > 2 {
            break;
        }
    }

    let mut group = c.benchmark_group("hessian_dense/100");
    group.bench_function("hessian!", |b| {
        b.iter(|| hessian!(rosenbrock)(black_box(&x[..])))
    });
    group.bench_function("num-dual", |b| b.iter(|| num_dual_hessian(black_box(&x))));
    group.bench_function("echidna", |b| {
        b.iter(|| echidna::hessian(rosenbrock, black_box(&x)))
    });
    // echidna's record-once, evaluate-many use: the tape recorded outside the timing
    let (tape, _) = echidna::record(rosenbrock, &x);
    group.bench_function("echidna (tape reused)", |b| {
        b.iter(|| tape.hessian(black_box(&x)))
    });
    group.finish();
}

fn hvp_benches(c: &mut Criterion) {
    let n = 10_000;
    let (x, v) = (input(n), direction(n));
    let expected = rosenbrock_hvp_by_hand(&x, &v);
    assert_close(&hvp!(rosenbrock)(&x[..], &v[..]), &expected, "hvp!");
    assert_close(&echidna::hvp(rosenbrock, &x, &v).1, &expected, "echidna");
    assert_close(&num_dual_hvp(&x, &v), &expected, "num-dual");

    assert_close(
        &hvp!(rosenbrock_f64)(&x[..], &v[..]),
        &expected,
        "hvp! (f64)",
    );

    let mut group = c.benchmark_group("hvp/10000");
    group.bench_function("hvp!", |b| {
        b.iter(|| hvp!(rosenbrock)(black_box(&x[..]), black_box(&v[..])))
    });
    group.bench_function("hvp! (f64, second_order)", |b| {
        b.iter(|| hvp!(rosenbrock_f64)(black_box(&x[..]), black_box(&v[..])))
    });
    group.bench_function("closed form", |b| {
        b.iter(|| rosenbrock_hvp_by_hand(black_box(&x), black_box(&v)))
    });
    let gradient = value_and_gradients_function!(rosenbrock);
    group.bench_function("gradient (f64)", |b| b.iter(|| gradient(black_box(&x[..]))));
    group.bench_function("echidna", |b| {
        b.iter(|| echidna::hvp(rosenbrock, black_box(&x), black_box(&v)))
    });
    let (tape, _) = echidna::record(rosenbrock, &x);
    assert_close(&tape.hvp(&x, &v).1, &expected, "echidna (tape reused)");
    group.bench_function("echidna (tape reused)", |b| {
        b.iter(|| tape.hvp(black_box(&x), black_box(&v)))
    });
    // one product takes seconds: the fewest samples criterion takes
    group.sample_size(10);
    group.bench_function("num-dual", |b| {
        b.iter(|| num_dual_hvp(black_box(&x), black_box(&v)))
    });
    group.finish();
}

/// `hvp!` against the `f64` gradient and the closed form at n = 10⁵ and 10⁶ (the other
/// crates' products are O(n²) or record a tape of n·10 nodes per call; measured at 10⁴).
fn hvp_scaling_benches(c: &mut Criterion) {
    for n in [100_000, 1_000_000] {
        let (x, v) = (input(n), direction(n));
        let expected = rosenbrock_hvp_by_hand(&x, &v);
        assert_close(&hvp!(rosenbrock)(&x[..], &v[..]), &expected, "hvp!");
        assert_close(
            &hvp!(rosenbrock_f64)(&x[..], &v[..]),
            &expected,
            "hvp! (f64)",
        );
        let mut group = c.benchmark_group(format!("hvp/{n}"));
        group.sample_size(20);
        group.bench_function("hvp!", |b| {
            b.iter(|| hvp!(rosenbrock)(black_box(&x[..]), black_box(&v[..])))
        });
        group.bench_function("hvp! (f64, second_order)", |b| {
            b.iter(|| hvp!(rosenbrock_f64)(black_box(&x[..]), black_box(&v[..])))
        });
        group.bench_function("closed form", |b| {
            b.iter(|| rosenbrock_hvp_by_hand(black_box(&x), black_box(&v)))
        });
        let gradient = value_and_gradients_function!(rosenbrock);
        group.bench_function("gradient (f64)", |b| b.iter(|| gradient(black_box(&x[..]))));
        group.finish();
    }
}

/// The MLP of `benches/workloads.rs` (784-256(tanh)-10, batch 64) written generic over its
/// float type, as `hvp!` needs: a derived struct `Mlp<T: Real>` of ndarray arrays.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Mlp<T: autodiff::Real> {
    pub w1: Array2<T>,
    pub b1: Array1<T>,
    pub w2: Array2<T>,
    pub b2: Array1<T>,
}

/// Softmax cross-entropy of a batch, as `mlp_loss` in `benches/workloads.rs`.
#[differentiable]
fn mlp_loss<T: autodiff::Real>(m: &Mlp<T>, #[no_grad] x: &Array2<T>, labels: &[usize]) -> T {
    let h = (x.dot(&m.w1) + &m.b1).mapv(T::tanh);
    let logits = h.dot(&m.w2) + &m.b2;
    autodiff::nn::cross_entropy(&logits, labels)
}

fn mlp_benches(c: &mut Criterion) {
    let (inputs, hidden, classes, batch) = (784, 256, 10, 64);
    let mut s = 12345u64;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let (s1, s2) = ((1.0 / inputs as f64).sqrt(), (1.0 / hidden as f64).sqrt());
    let mut params = || Mlp {
        w1: Array2::from_shape_fn((inputs, hidden), |_| next() * s1),
        b1: Array1::from_shape_fn(hidden, |_| next() * 0.1),
        w2: Array2::from_shape_fn((hidden, classes), |_| next() * s2),
        b2: Array1::from_shape_fn(classes, |_| next() * 0.1),
    };
    let (m, v) = (params(), params());
    let x = Array2::from_shape_fn((batch, inputs), |(i, j)| ((i * inputs + j) as f64).sin());
    let labels: Vec<usize> = (0..batch).map(|i| (i * 7) % classes).collect();
    // checked before timing: the product against central differences of the gradient along
    // v, on the output layer's bias (the cheapest block to compare)
    let hv = hvp!(mlp_loss)(&m, &x, &labels, &v);
    let h = 1e-5;
    let shifted = |t: f64| Mlp {
        w1: &m.w1 + &(&v.w1 * t),
        b1: &m.b1 + &(&v.b1 * t),
        w2: &m.w2 + &(&v.w2 * t),
        b2: &m.b2 + &(&v.b2 * t),
    };
    let (gp, gm) = (
        gradients_function!(mlp_loss)(&shifted(h), &x, &labels),
        gradients_function!(mlp_loss)(&shifted(-h), &x, &labels),
    );
    let fd: Vec<f64> = gp
        .b2
        .iter()
        .zip(&gm.b2)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    assert_close(hv.b2.as_slice().unwrap(), &fd, "hvp! of the MLP");
    let mut group = c.benchmark_group("hvp/mlp");
    group.sample_size(20);
    let product = hvp!(mlp_loss);
    group.bench_function("hvp!", |b| {
        b.iter(|| product(black_box(&m), &x, &labels, black_box(&v)))
    });
    let gradient = value_and_gradients_function!(mlp_loss);
    group.bench_function("gradient", |b| {
        b.iter(|| gradient(black_box(&m), &x, &labels))
    });
    group.finish();
}

criterion_group!(
    benches,
    hessian_benches,
    hvp_benches,
    hvp_scaling_benches,
    mlp_benches
);
criterion_main!(benches);
