//! Buffers filled element by element from the parameters and only read after (`let mut xc
//! = vec![0.0; d]; for i in 0..d { xc[i] = x[i] - mean[i]; }`): the derivative computes
//! each element again where it is read instead of keeping the buffer from its forward
//! sweep to its reverse. Gradients against the adjoint by hand and central differences,
//! against the same function written so that the buffer is kept, the value bit for bit,
//! `vjp!`, the implicit mode and `jvp!`, and the panics the buffer's loop and reads make,
//! with Rust's messages.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// `½‖Q (x − μ)‖²` for the lower-triangular `Q` with the diagonal `qdiag` and the strictly
/// lower triangle `ltri` column by column: GMM's helper as its users write it.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn mahalanobis(qdiag: &[f64], ltri: &[f64], x: &[f64], mean: &[f64]) -> f64 {
    let d = x.len();
    let mut xc = vec![0.0; d];
    for i in 0..d {
        xc[i] = x[i] - mean[i];
    }
    let mut out = vec![0.0; d];
    for i in 0..d {
        out[i] = qdiag[i] * xc[i];
    }
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += ltri[l] * xc[i];
            l += 1;
        }
    }
    let mut s = 0.0;
    for i in 0..d {
        s += out[i] * out[i];
    }
    0.5 * s
}

/// [`mahalanobis`] with its buffer bound again (`let xc = xc;`), which the derivative keeps
/// as written: the same values, another path to the gradient.
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::redundant_locals)]
fn mahalanobis_kept(qdiag: &[f64], ltri: &[f64], x: &[f64], mean: &[f64]) -> f64 {
    let d = x.len();
    let mut xc = vec![0.0; d];
    for i in 0..d {
        xc[i] = x[i] - mean[i];
    }
    let xc = xc;
    let mut out = vec![0.0; d];
    for i in 0..d {
        out[i] = qdiag[i] * xc[i];
    }
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += ltri[l] * xc[i];
            l += 1;
        }
    }
    let mut s = 0.0;
    for i in 0..d {
        s += out[i] * out[i];
    }
    0.5 * s
}

/// The gradient of [`mahalanobis`] by hand: `y = Q c`, `c = x − μ`; `∂/∂x = Qᵀy = −∂/∂μ`,
/// `∂/∂qᵢ = yᵢcᵢ`, `∂/∂L_l = y_j c_i` for the element `l` at `(j, i)`.
#[allow(clippy::needless_range_loop)]
fn by_hand(qdiag: &[f64], ltri: &[f64], x: &[f64], mean: &[f64]) -> [Vec<f64>; 4] {
    let d = x.len();
    let c: Vec<f64> = (0..d).map(|i| x[i] - mean[i]).collect();
    let mut y: Vec<f64> = (0..d).map(|i| qdiag[i] * c[i]).collect();
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            y[j] += ltri[l] * c[i];
            l += 1;
        }
    }
    let gq: Vec<f64> = (0..d).map(|i| y[i] * c[i]).collect();
    let mut gl = vec![0.0; ltri.len()];
    let mut qty: Vec<f64> = (0..d).map(|i| qdiag[i] * y[i]).collect();
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            gl[l] = y[j] * c[i];
            qty[i] += ltri[l] * y[j];
            l += 1;
        }
    }
    let gm = qty.iter().map(|g| -g).collect();
    [gq, gl, qty, gm]
}

fn inputs(d: usize) -> [Vec<f64>; 4] {
    let wave =
        |k: usize, a: f64| -> Vec<f64> { (0..k).map(|i| ((i as f64 + 1.0) * a).sin()).collect() };
    [
        wave(d, 0.7).iter().map(|v: &f64| 1.0 + 0.5 * v).collect(),
        wave(d * d.saturating_sub(1) / 2, 0.3),
        wave(d, 1.1),
        wave(d, 0.4).iter().map(|v: &f64| 0.2 * v).collect(),
    ]
}

#[test]
fn a_buffer_computed_again_where_read_has_the_gradient_by_hand() {
    for d in [0, 1, 2, 5, 10] {
        let [q, lt, x, m] = inputs(d);
        let (value, (gq, gl, gx, gm)) = value_and_gradients_function!(mahalanobis)(&q, &lt, &x, &m);
        assert_eq!(value.to_bits(), mahalanobis(&q, &lt, &x, &m).to_bits());
        let hand = by_hand(&q, &lt, &x, &m);
        for (g, h) in [&gq, &gl, &gx, &gm].into_iter().zip(&hand) {
            assert_gradient_close(g, h, 1e-13);
        }
        assert_gradient_close(
            &gx,
            &finite_difference(|x| mahalanobis(&q, &lt, x, &m), &x),
            1e-7,
        );
        assert_gradient_close(
            &gm,
            &finite_difference(|m| mahalanobis(&q, &lt, &x, m), &m),
            1e-7,
        );
        assert_gradient_close(
            &gl,
            &finite_difference(|l| mahalanobis(&q, l, &x, &m), &lt),
            1e-7,
        );
        // the buffer kept: the same value, the same gradient to rounding
        let (kept, (kq, kl, kx, km)) =
            value_and_gradients_function!(mahalanobis_kept)(&q, &lt, &x, &m);
        assert_eq!(kept.to_bits(), value.to_bits());
        for (g, k) in [(&gq, &kq), (&gl, &kl), (&gx, &kx), (&gm, &km)] {
            assert_gradient_close(g, k, 1e-14);
        }
        // `vjp!` and the implicit mode: the same code, the same bits
        let (v, pullback) = vjp!(mahalanobis)(&q, &lt, &x, &m);
        assert_eq!(v.to_bits(), value.to_bits());
        let (pq, pl, px, pm) = pullback(1.0);
        assert_eq!((&pq, &pl, &px, &pm), (&gq, &gl, &gx, &gm));
        let mean = Variable::new(m.clone());
        let f = differentiable_closure!(|x: &[f64]| mahalanobis(&q, &lt, x, &mean));
        let grads = implicit_gradients(&f)(&x);
        let g_mean: Vec<f64> = grads.get(&mean).expect("mean was read");
        assert_eq!(g_mean, gm);
        // forward mode: the value, and ⟨∇f, v⟩
        let v: Vec<f64> = (0..d).map(|i| 0.5 - 0.1 * i as f64).collect();
        let (y, dy) = jvp!(mahalanobis, params = ["x"])(&q, &lt, &x, &m, &v);
        assert_eq!(y.to_bits(), value.to_bits());
        let dot: f64 = gx.iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            (dy - dot).abs() <= 1e-12 * dot.abs().max(1.0),
            "{dy} vs {dot}"
        );
    }
}

/// A buffer shorter than the slice it is filled from, read at a caller's index.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn read_at(x: &[f64], k: usize) -> f64 {
    let n = x.len() - 1;
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = 2.0 * x[i] * x[i];
    }
    c[k] * x[0]
}

/// A buffer filled from two slices, the second possibly shorter.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn filled_from_two(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = x[i] * y[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += c[i];
    }
    s
}

fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).expect_err("a panic");
    (payload.downcast_ref::<String>().cloned())
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_default()
}

#[test]
fn its_reads_and_its_loop_panic_as_the_function_does() {
    // in range: values and gradients as usual
    let x = [0.5, -1.5, 2.0, 3.0];
    let (value, g) = value_and_gradients_function!(read_at, params = ["x"])(&x, 2);
    assert_eq!(value, read_at(&x, 2));
    assert_gradient_close(&g, &finite_difference(|x| read_at(x, 2), &x), 1e-7);
    // past the buffer, though not past the slice its elements come from: the read's own
    // panic, not a value
    let primal = panic_message(|| {
        read_at(&x, 3);
    });
    assert_eq!(
        primal,
        "index out of bounds: the len is 3 but the index is 3"
    );
    let gradient = panic_message(|| {
        let _ = value_and_gradients_function!(read_at, params = ["x"])(&x, 3);
    });
    assert_eq!(gradient, primal);
    let forward = panic_message(|| {
        let _ = jvp!(read_at, params = ["x"])(&x, 3, &[1.0; 4]);
    });
    assert_eq!(forward, primal);
    // the loop filling it reads past a slice: its panic, though no read reaches there
    let y = [1.0, 2.0];
    let primal = panic_message(|| {
        filled_from_two(&x, &y);
    });
    assert_eq!(
        primal,
        "index out of bounds: the len is 2 but the index is 2"
    );
    let gradient = panic_message(|| {
        let _ = value_and_gradients_function!(filled_from_two)(&x, &y);
    });
    assert_eq!(gradient, primal);
    let (v, (gx, gy)) = value_and_gradients_function!(filled_from_two)(&x, &x);
    assert_eq!(v, filled_from_two(&x, &x));
    assert_eq!(gx, gy);
    assert_gradient_close(&gx, &x, 1e-15);
}
