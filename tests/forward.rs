//! Forward mode (`jvp!`): every construct's tangent against ⟨∇f, v⟩ from the reverse
//! gradient and against central finite differences, with hand-derived values where easy.

// index loops are the constructs under test
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

/// Central difference of `f` at `x` along `v`.
fn central(f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64]) -> f64 {
    let h = 1e-6;
    let plus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
    let minus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
    (f(&plus) - f(&minus)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

#[differentiable]
fn weighted_sum(w1: f64, x1: f64, w2: f64, x2: f64) -> f64 {
    w1 * x1 + w2 * x2
}

#[test]
fn weighted_sum_as_in_the_api() {
    let (y, dy) = jvp!(weighted_sum, params = ["w1", "w2"])(2.0, 5.0, 3.0, 7.0, 1.0, 0.0);
    assert_eq!((y, dy), (31.0, 5.0));
    let (y, dy) = jvp!(weighted_sum)(2.0, 5.0, 3.0, 7.0, 1.0, 1.0, 1.0, 1.0);
    assert_eq!((y, dy), (31.0, 5.0 + 2.0 + 7.0 + 3.0));
    let (_, dy) = jvp!(weighted_sum, params = ["x2", 0])(2.0, 5.0, 3.0, 7.0, 1.0, 10.0);
    assert_eq!(dy, 3.0 + 50.0);
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

#[test]
fn rosenbrock_loop_against_the_gradient_and_differences() {
    let x = [0.3, -1.2, 0.8, 1.5, -0.4];
    let v = [1.0, 0.5, -0.25, 2.0, 0.1];
    let (y, dy) = jvp!(rosenbrock)(&x, &v);
    assert_eq!(y, rosenbrock(&x));
    let g = gradients_function!(rosenbrock)(&x);
    let dot: f64 = g.iter().zip(&v).map(|(a, b)| a * b).sum();
    assert!(close(dy, dot, 1e-12), "{dy} vs {dot}");
    let fd = central(rosenbrock, &x, &v);
    assert!(close(dy, fd, 1e-6), "{dy} vs {fd}");
}

fn check_all(name: &str, f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64], g: &[f64], dy: f64) {
    let dot: f64 = g.iter().zip(v).map(|(a, b)| a * b).sum();
    assert!(close(dy, dot, 1e-10), "{name}: jvp {dy} vs ⟨∇f, v⟩ {dot}");
    let fd = central(f, x, v);
    assert!(close(dy, fd, 1e-6), "{name}: jvp {dy} vs difference {fd}");
}

#[differentiable]
fn branches_and_mutation(x: f64, y: f64) -> f64 {
    let mut acc = x * y;
    if x > 0.0 {
        acc += x.sin() * y.exp();
    } else {
        acc -= (x * x).sqrt() / y;
    }
    let mut k = 0;
    while k < 3 {
        acc = acc * 0.5 + x.powi(2) - y.atan2(x);
        k += 1;
    }
    acc.tanh()
}

#[test]
fn branches_loops_and_let_mut() {
    for (x, y) in [(0.7, 1.3), (-0.4, 0.9)] {
        let (vx, vy) = (0.3, -1.1);
        let (val, dy) = jvp!(branches_and_mutation)(x, y, vx, vy);
        assert_eq!(val, branches_and_mutation(x, y));
        let (gx, gy) = gradients_function!(branches_and_mutation)(x, y);
        check_all(
            "branches_and_mutation",
            |p| branches_and_mutation(p[0], p[1]),
            &[x, y],
            &[vx, vy],
            &[gx, gy],
            dy,
        );
    }
}

#[differentiable]
fn norm_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[differentiable]
fn halves(x: &[f64], c: f64) -> f64 {
    let n = x.len() / 2;
    let left = norm_sq(&x[..n]);
    let right = norm_sq(&x[n..]);
    let mut buf = vec![0.0; x.len()];
    for i in 0..x.len() {
        buf[i] = x[i] * c;
    }
    left * right + norm_sq(&buf) + stop_gradient(x[0]) * x[1]
}

#[test]
fn slices_sub_slices_calls_local_buffers_and_stop_gradient() {
    let x = [0.5, -1.5, 2.0, 0.25];
    let v = [1.0, 0.2, -0.3, 0.7];
    let c = 1.7;
    // the tangent of `c` is zero: only x moves
    let (val, dy) = jvp!(halves, params = ["x"])(&x, c, &v);
    assert_eq!(val, halves(&x, c));
    let (gx, _) = gradients_function!(halves)(&x, c);
    // (the difference holds the `stop_gradient` operand at its value)
    let frozen = |p: &[f64]| halves(p, c) - p[0] * p[1] + x[0] * p[1];
    check_all("halves", frozen, &x, &v, &gx, dy);
    // along c alone
    let (_, dc) = jvp!(halves, params = ["c"])(&x, c, 1.0);
    let (_, gc) = gradients_function!(halves)(&x, c);
    assert!(close(dc, gc, 1e-12), "{dc} vs {gc}");
}

#[differentiable]
fn generic_chain<T: Float>(x: T, y: T) -> T {
    let a = x * y + x.sin();
    let b = (a * a + T::one()).ln();
    b / (y * y + T::one()).sqrt()
}

#[test]
fn generics_in_f32_and_f64() {
    let (x, y) = (0.8_f64, -0.6_f64);
    let (val, dy) = jvp!(generic_chain)(x, y, 1.0, 2.0);
    assert_eq!(val, generic_chain(x, y));
    let (gx, gy) = gradients_function!(generic_chain)(x, y);
    check_all(
        "generic_chain",
        |p| generic_chain(p[0], p[1]),
        &[x, y],
        &[1.0, 2.0],
        &[gx, gy],
        dy,
    );
    let (val32, dy32) = jvp!(generic_chain)(0.8_f32, -0.6_f32, 1.0, 2.0);
    assert_eq!(val32, generic_chain(0.8_f32, -0.6_f32));
    assert!((f64::from(dy32) - dy).abs() < 1e-5, "{dy32} vs {dy}");
}

mod arrays {
    use super::*;
    use autodiff::ndarray::{array, Array1, Array2};

    #[differentiable]
    fn layer(x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>) -> f64 {
        let h = (x.dot(w) + b).mapv(f64::tanh);
        let s = &h * &h;
        s.sum() + h.mean().unwrap() * 2.0 + (w * 3.0).sum()
    }

    fn flat(a: &Array2<f64>) -> Vec<f64> {
        a.iter().copied().collect()
    }

    #[test]
    fn dot_broadcasting_mapv_and_reductions() {
        let x = array![[0.2, -0.4], [1.0, 0.5], [-0.3, 0.8]];
        let w = array![[0.5, -1.0, 0.25], [0.75, 0.1, -0.6]];
        let b = array![0.1, -0.2, 0.3];
        let vw = array![[1.0, 0.5, -0.5], [0.2, -0.3, 0.4]];
        let vb = array![0.3, 0.6, -0.9];
        let (val, dy) = jvp!(layer, params = ["w", "b"])(&x, &w, &b, &vw, &vb);
        assert_eq!(val, layer(&x, &w, &b));
        let (_, gw, gb) = gradients_function!(layer)(&x, &w, &b);
        let dot = (&gw * &vw).sum() + (&gb * &vb).sum();
        assert!(close(dy, dot, 1e-10), "{dy} vs {dot}");
        let shape = w.raw_dim();
        let fd = central(
            |p| {
                let w2 = Array2::from_shape_vec(shape, p[..6].to_vec()).unwrap();
                let b2 = Array1::from(p[6..].to_vec());
                layer(&x, &w2, &b2)
            },
            &[flat(&w), b.to_vec()].concat(),
            &[flat(&vw), vb.to_vec()].concat(),
        );
        assert!(close(dy, fd, 1e-6), "{dy} vs {fd}");
    }

    #[test]
    #[should_panic(expected = "the tangent of `b` (parameter of `layer`) has shape [2]")]
    fn a_tangent_of_the_wrong_shape_panics_naming_the_parameter() {
        let x = array![[0.2, -0.4]];
        let w = array![[0.5, -1.0, 0.25], [0.75, 0.1, -0.6]];
        let b = array![0.1, -0.2, 0.3];
        let vb = array![1.0, 2.0];
        let _ = jvp!(layer, params = ["b"])(&x, &w, &b, &vb);
    }
}

#[test]
#[should_panic(
    expected = "the tangent of `x` (parameter of `rosenbrock`) has shape [2], but `x` has shape [3]"
)]
fn a_slice_tangent_of_the_wrong_length_panics_naming_both_lengths() {
    let _ = jvp!(rosenbrock)(&[1.0, 2.0, 3.0], &[1.0, 0.0]);
}

#[differentiable]
fn fixed_arrays(w: [f64; 3], r: &[f64; 2], s: f64) -> f64 {
    let mut acc = w[0] * w[1].sin() + w[2] * s;
    for i in 0..2 {
        acc += r[i] * w[i + 1] * s;
    }
    acc
}

/// Fixed-size array parameters (by value and by reference) take tangents of their own
/// type (found by the random-program tester, which skipped them).
#[test]
fn fixed_size_array_parameters_take_array_tangents() {
    let (w, r, s) = ([0.3, -1.2, 0.8], [0.5, -0.25], 1.5);
    let (tw, tr, ts) = ([1.0, -0.5, 0.25], [0.75, 2.0], -0.4);
    let (y, dy) = jvp!(fixed_arrays)(w, &r, s, tw, &tr, ts);
    assert_eq!(y, fixed_arrays(w, &r, s));
    let x = [w[0], w[1], w[2], r[0], r[1], s];
    let v = [tw[0], tw[1], tw[2], tr[0], tr[1], ts];
    let f = |p: &[f64]| fixed_arrays([p[0], p[1], p[2]], &[p[3], p[4]], p[5]);
    let fd = central(f, &x, &v);
    assert!(close(dy, fd, 1e-8), "{dy} vs {fd}");
    let (gw, gr, gs) = gradients_function!(fixed_arrays)(w, &r, s);
    let g: Vec<f64> = gw.iter().chain(&gr).copied().chain([gs]).collect();
    let dot: f64 = g.iter().zip(&v).map(|(g, v)| g * v).sum();
    assert!(close(dy, dot, 1e-12), "{dy} vs {dot}");
}

/// An array whose length is a const parameter, with a local array of that length.
#[differentiable]
fn weighted_n<const N: usize>(x: &[f64; N], w: f64) -> f64 {
    let mut acc = [0.0; N];
    for i in 0..N {
        acc[i] = x[i] * w;
    }
    let mut s = 0.0;
    for i in 0..N {
        s += acc[i] * acc[i].sin();
    }
    s
}

#[test]
fn const_generic_array_lengths() {
    let (x, w) = ([0.5, -0.25, 2.0, 1.0], 0.6);
    let (tx, tw) = ([1.0, 0.5, -0.5, 0.25], -1.5);
    let (y, dy) = jvp!(weighted_n)(&x, w, &tx, tw);
    assert_eq!(y, weighted_n(&x, w));
    let f = |p: &[f64]| weighted_n(&[p[0], p[1], p[2], p[3]], p[4]);
    let fd = central(
        f,
        &[x[0], x[1], x[2], x[3], w],
        &[tx[0], tx[1], tx[2], tx[3], tw],
    );
    assert!(close(dy, fd, 1e-8), "{dy} vs {fd}");
}

/// Reduction loops, whose tangent sweeps run in strips (the terms of sixteen iterations,
/// then the sums over them in order): two sums, a difference, a product, a maximum, a
/// term of the item's cast and of a value computed before the loop, read in an order
/// that differs from the statements', a term chosen by a branch, the last iteration's
/// value read after the loop.
mod strips {
    use super::*;

    #[differentiable]
    fn reductions(x: &[f64], w: &[f64], c: f64) -> f64 {
        let scale = c * c + 0.5;
        let mut sum = 0.0;
        let mut diff = 1.0;
        let mut prod = 1.0;
        let mut big = -1.0e300;
        let mut last = 0.0;
        for i in 0..x.len() {
            let a = x[i] * w[i] - scale;
            let t = (i as f64 + 1.0).sqrt() * a.sin();
            sum += a * a + t;
            let u = if a > 0.0 { a * 0.5 } else { -a };
            sum += u * u;
            diff -= t * 0.25;
            prod *= 1.0 + 0.01 * a;
            big = big.max(a * c);
            last = t;
        }
        sum + diff * prod + big + last * c
    }

    /// The same body, with a `break` that never happens: its loop runs as written, one
    /// iteration after the other (a loop that may leave early is not strip-mined).
    #[differentiable]
    fn reductions_unstripped(x: &[f64], w: &[f64], c: f64) -> f64 {
        let scale = c * c + 0.5;
        let mut sum = 0.0;
        let mut diff = 1.0;
        let mut prod = 1.0;
        let mut big = -1.0e300;
        let mut last = 0.0;
        for i in 0..x.len() {
            if i == usize::MAX {
                break;
            }
            let a = x[i] * w[i] - scale;
            let t = (i as f64 + 1.0).sqrt() * a.sin();
            sum += a * a + t;
            let u = if a > 0.0 { a * 0.5 } else { -a };
            sum += u * u;
            diff -= t * 0.25;
            prod *= 1.0 + 0.01 * a;
            big = big.max(a * c);
            last = t;
        }
        sum + diff * prod + big + last * c
    }

    fn inputs(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let x = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let w = (0..n).map(|i| 1.0 + (i as f64 * 0.11).cos()).collect();
        let vx = (0..n).map(|i| ((i % 5) as f64 - 2.0) * 0.3).collect();
        let vw = (0..n).map(|i| ((i % 3) as f64 - 1.0) * 0.7).collect();
        (x, w, vx, vw)
    }

    #[test]
    fn at_every_length_across_strips_the_same_bits_as_one_iteration_at_a_time() {
        for n in 0..=50 {
            let (x, w, vx, vw) = inputs(n);
            let c = 0.7;
            let (y, dy) = jvp!(reductions)(&x, &w, c, &vx, &vw, 0.4);
            let (y1, dy1) = jvp!(reductions_unstripped)(&x, &w, c, &vx, &vw, 0.4);
            assert_eq!(y.to_bits(), reductions(&x, &w, c).to_bits(), "n = {n}");
            assert_eq!(
                (y.to_bits(), dy.to_bits()),
                (y1.to_bits(), dy1.to_bits()),
                "n = {n}"
            );
            let (gx, gw, gc) = gradients_function!(reductions)(&x, &w, c);
            let dot: f64 = gx.iter().zip(&vx).map(|(a, b)| a * b).sum::<f64>()
                + gw.iter().zip(&vw).map(|(a, b)| a * b).sum::<f64>()
                + gc * 0.4;
            assert!(close(dy, dot, 1e-10), "n = {n}: jvp {dy} vs ⟨∇f, v⟩ {dot}");
            let p: Vec<f64> = [&x[..], &w[..], &[c]].concat();
            let v: Vec<f64> = [&vx[..], &vw[..], &[0.4]].concat();
            let fd = central(|q| reductions(&q[..n], &q[n..2 * n], q[2 * n]), &p, &v);
            assert!(close(dy, fd, 1e-6), "n = {n}: jvp {dy} vs difference {fd}");
        }
    }

    /// A branchy helper called in the loop: its value and tangent are terms.
    #[differentiable]
    fn huber(r: f64) -> f64 {
        if r.abs() <= 1.0 {
            0.5 * r * r
        } else {
            r.abs() - 0.5
        }
    }

    #[differentiable]
    fn fit(w: &[f64], b: f64, xs: &[f64], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..ys.len() {
            let r = w[i % w.len()] * xs[i] + b - ys[i];
            loss += huber(r) * 0.5;
        }
        loss
    }

    #[differentiable]
    fn fit_unstripped(w: &[f64], b: f64, xs: &[f64], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..ys.len() {
            if i == usize::MAX {
                break;
            }
            let r = w[i % w.len()] * xs[i] + b - ys[i];
            loss += huber(r) * 0.5;
        }
        loss
    }

    #[test]
    fn a_helper_called_in_the_loop() {
        let w = [0.5, -1.5, 2.0];
        let vw = [1.0, 0.25, -0.5];
        for n in [0usize, 5, 16, 17, 40] {
            let xs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.9).sin() * 2.0).collect();
            let ys: Vec<f64> = (0..n).map(|i| (i as f64 * 0.4).cos()).collect();
            let (y, dy) = jvp!(fit, params = ["w", "b"])(&w, 0.3, &xs, &ys, &vw, 0.7);
            let (y1, dy1) = jvp!(fit_unstripped, params = ["w", "b"])(&w, 0.3, &xs, &ys, &vw, 0.7);
            assert_eq!(y.to_bits(), fit(&w, 0.3, &xs, &ys).to_bits(), "n = {n}");
            assert_eq!(
                (y.to_bits(), dy.to_bits()),
                (y1.to_bits(), dy1.to_bits()),
                "n = {n}"
            );
            // by hand: Σ ½ huber'(r)·(vw[i % 3]·x + vb)
            let by_hand: f64 = (0..n)
                .map(|i| {
                    let r = w[i % 3] * xs[i] + 0.3 - ys[i];
                    let slope = if r.abs() <= 1.0 { r } else { r.signum() };
                    0.5 * slope * (vw[i % 3] * xs[i] + 0.7)
                })
                .sum();
            assert!(close(dy, by_hand, 1e-12), "n = {n}: {dy} vs {by_hand}");
        }
    }

    #[differentiable]
    fn rosenbrock_chain<T: Float + std::iter::Sum>(x: &[T]) -> T {
        let hundred = T::from(100.0).unwrap();
        x.iter()
            .zip(x.iter().skip(1))
            .map(|(&a, &b)| (T::one() - a).powi(2) + hundred * (b - a * a).powi(2))
            .sum()
    }

    #[test]
    fn an_iterator_chain_generic_over_its_float_in_f32_and_f64() {
        for n in [1usize, 2, 15, 16, 17, 33, 100] {
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 0.5).collect();
            let v: Vec<f64> = (0..n).map(|i| ((i % 7) as f64 - 3.0) * 0.25).collect();
            let (y, dy) = jvp!(rosenbrock_chain)(&x, &v);
            assert_eq!(y.to_bits(), rosenbrock_chain(&x).to_bits(), "n = {n}");
            // by hand: Σ -2(1 - a)·va + 200(b - a²)(vb - 2a·va)
            let by_hand: f64 = (0..n.saturating_sub(1))
                .map(|i| {
                    let (a, b) = (x[i], x[i + 1]);
                    -2.0 * (1.0 - a) * v[i] + 200.0 * (b - a * a) * (v[i + 1] - 2.0 * a * v[i])
                })
                .sum();
            assert!(close(dy, by_hand, 1e-12), "n = {n}: {dy} vs {by_hand}");
            let x32: Vec<f32> = x.iter().map(|&a| a as f32).collect();
            let v32: Vec<f32> = v.iter().map(|&a| a as f32).collect();
            let (y32, dy32) = jvp!(rosenbrock_chain)(&x32, &v32);
            assert_eq!(y32.to_bits(), rosenbrock_chain(&x32).to_bits(), "n = {n}");
            assert!(
                close(f64::from(dy32), by_hand, 1e-4),
                "n = {n}: {dy32} vs {by_hand}"
            );
        }
    }

    /// Neighbours read around the item (`x[i - 1]`, `x[i + 2]`: the strip reads `x` and
    /// its tangent through parts), a loop starting past the first element, a slice also
    /// read in a branch (`y`: read as written) and one read at an index that is not the
    /// item plus a constant (`w[i % w.len()]`).
    #[differentiable]
    fn stencil<T: Float>(x: &[T], y: &[T], w: &[T]) -> T {
        let two = T::from(2.0).unwrap();
        let mut s = T::zero();
        for i in 1..x.len() - 2 {
            let d = x[i + 2] - two * x[i] + x[i - 1];
            let g = if d > T::zero() { y[i] * d } else { d };
            s = s + d * d * w[i % w.len()] + g * y[i + 1];
        }
        s
    }

    #[differentiable]
    fn stencil_unstripped<T: Float>(x: &[T], y: &[T], w: &[T]) -> T {
        let two = T::from(2.0).unwrap();
        let mut s = T::zero();
        for i in 1..x.len() - 2 {
            if i == usize::MAX {
                break;
            }
            let d = x[i + 2] - two * x[i] + x[i - 1];
            let g = if d > T::zero() { y[i] * d } else { d };
            s = s + d * d * w[i % w.len()] + g * y[i + 1];
        }
        s
    }

    #[test]
    fn neighbours_read_through_parts_of_the_strip_in_f32_and_f64() {
        let w = [0.5, -1.5, 2.0];
        let vw = [1.0, 0.25, -0.5];
        for n in 3..=45 {
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.71).sin()).collect();
            let y: Vec<f64> = (0..n).map(|i| (i as f64 * 0.23).cos()).collect();
            let vx: Vec<f64> = (0..n).map(|i| ((i % 5) as f64 - 2.0) * 0.3).collect();
            let vy: Vec<f64> = (0..n).map(|i| ((i % 3) as f64 - 1.0) * 0.7).collect();
            let (v, dv) = jvp!(stencil)(&x, &y, &w, &vx, &vy, &vw);
            let (v1, dv1) = jvp!(stencil_unstripped)(&x, &y, &w, &vx, &vy, &vw);
            assert_eq!(v.to_bits(), stencil(&x, &y, &w).to_bits(), "n = {n}");
            assert_eq!(
                (v.to_bits(), dv.to_bits()),
                (v1.to_bits(), dv1.to_bits()),
                "n = {n}"
            );
            let (gx, gy, gw) = gradients_function!(stencil)(&x, &y, &w);
            let dot = |g: &[f64], v: &[f64]| g.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
            let along = dot(&gx, &vx) + dot(&gy, &vy) + dot(&gw, &vw);
            assert!(
                close(dv, along, 1e-10),
                "n = {n}: jvp {dv} vs ⟨∇f, v⟩ {along}"
            );
            let p: Vec<f64> = [&x[..], &y[..], &w[..]].concat();
            let q: Vec<f64> = [&vx[..], &vy[..], &vw[..]].concat();
            let fd = central(|p| stencil(&p[..n], &p[n..2 * n], &p[2 * n..]), &p, &q);
            assert!(close(dv, fd, 1e-6), "n = {n}: jvp {dv} vs difference {fd}");
            let f32s = |a: &[f64]| a.iter().map(|&a| a as f32).collect::<Vec<f32>>();
            let (x, y, w, vx, vy, vw) = (
                f32s(&x),
                f32s(&y),
                f32s(&w),
                f32s(&vx),
                f32s(&vy),
                f32s(&vw),
            );
            let (v, dv) = jvp!(stencil)(&x, &y, &w, &vx, &vy, &vw);
            let (v1, dv1) = jvp!(stencil_unstripped)(&x, &y, &w, &vx, &vy, &vw);
            assert_eq!(
                (v.to_bits(), dv.to_bits()),
                (v1.to_bits(), dv1.to_bits()),
                "f32, n = {n}"
            );
        }
    }

    /// A local buffer made once, then read at the item and its neighbour (through parts).
    #[differentiable]
    fn smoothed<T: Float>(x: &[T]) -> T {
        let mut r = vec![T::zero(); x.len()];
        for i in 0..x.len() {
            r[i] = x[i].sin() * x[i];
        }
        let mut s = T::zero();
        for i in 0..x.len() - 1 {
            s = s + r[i] * r[i + 1] + r[i];
        }
        s
    }

    #[differentiable]
    fn smoothed_unstripped<T: Float>(x: &[T]) -> T {
        let mut r = vec![T::zero(); x.len()];
        for i in 0..x.len() {
            r[i] = x[i].sin() * x[i];
        }
        let mut s = T::zero();
        for i in 0..x.len() - 1 {
            if i == usize::MAX {
                break;
            }
            s = s + r[i] * r[i + 1] + r[i];
        }
        s
    }

    #[test]
    fn a_local_buffer_read_through_parts_of_the_strip() {
        for n in 1..=40 {
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.53).cos() * 1.5).collect();
            let v: Vec<f64> = (0..n).map(|i| ((i % 4) as f64 - 1.5) * 0.4).collect();
            let (y, dy) = jvp!(smoothed)(&x, &v);
            let (y1, dy1) = jvp!(smoothed_unstripped)(&x, &v);
            assert_eq!(y.to_bits(), smoothed(&x).to_bits(), "n = {n}");
            assert_eq!(
                (y.to_bits(), dy.to_bits()),
                (y1.to_bits(), dy1.to_bits()),
                "n = {n}"
            );
            // by hand: r = x·sin x, r' = sin x + x·cos x; Σ (r'ᵢ vᵢ)(rᵢ₊₁ + 1) + rᵢ r'ᵢ₊₁ vᵢ₊₁
            let r = |i: usize| x[i].sin() * x[i];
            let dr = |i: usize| (x[i].sin() + x[i] * x[i].cos()) * v[i];
            let by_hand: f64 = (0..n - 1)
                .map(|i| dr(i) * (r(i + 1) + 1.0) + r(i) * dr(i + 1))
                .sum();
            assert!(close(dy, by_hand, 1e-12), "n = {n}: {dy} vs {by_hand}");
            let x32: Vec<f32> = x.iter().map(|&a| a as f32).collect();
            let v32: Vec<f32> = v.iter().map(|&a| a as f32).collect();
            let (y, dy) = jvp!(smoothed)(&x32, &v32);
            let (y1, dy1) = jvp!(smoothed_unstripped)(&x32, &v32);
            assert_eq!(
                (y.to_bits(), dy.to_bits()),
                (y1.to_bits(), dy1.to_bits()),
                "f32, n = {n}"
            );
        }
    }

    /// A read past the end of its slice panics in a strip as in the loop (a part of the
    /// strip out of range is a read the loop makes): here the second strip's part, which
    /// reaches `x[32]`.
    #[differentiable]
    fn overreach(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i + 1];
        }
        s
    }

    #[test]
    #[should_panic(expected = "range end index 33 out of range for slice of length 32")]
    fn a_read_past_the_end_panics_in_a_strip() {
        let x = vec![0.5; 32];
        let _ = jvp!(overreach)(&x, &x);
    }
}

// Negations carried as signs (`1.0 - x`, `-x`) and products `c·u·u`: the tangent sweep
// writes fewer operations than the rules one by one; the tangents are those of the rules
// (bit for bit where only signs move, to rounding where `c·u·u` becomes `2·(c·u)·u̇`).

#[differentiable]
fn negations(x: f64, y: f64) -> f64 {
    let a = 1.0 - x;
    let b = -y;
    let c = a * b; // (−ẋ)·b + a·(−ẏ): both terms negated
    let d = 2.0 - c; // a negation of a negated tangent
    let e = a / (y * y + 1.0); // a quotient of a negated tangent
    let f = -(a - b); // a negated difference of two negated tangents
    d + e * a - f * x
}

/// [`negations`]' tangent written rule by rule, each negation taken where it happens: the
/// sweep that carries the signs must give these bits.
fn negations_tangent(x: f64, y: f64, tx: f64, ty: f64) -> f64 {
    let (a, ta) = (1.0 - x, -tx);
    let (b, tb) = (-y, -ty);
    let (c, tc) = (a * b, b * ta + a * tb);
    let td = -tc;
    let _ = c;
    let w = y * y + 1.0;
    let tw = y * ty + y * ty;
    let e = a / w;
    let te = ta / w + -(e / w) * tw;
    let (f, tf) = (-(a - b), -(ta + -tb));
    td + (a * te + e * ta) + -(x * tf + f * tx)
}

#[differentiable]
fn scaled_squares(x: f64, y: f64) -> f64 {
    let b = y - x * x;
    let a = 1.0 - x;
    100.0 * b * b + b * (0.5 * b) + (a * 3.0) * a + 2.0 * a * a
}

#[test]
fn negations_and_scaled_squares_against_their_derivatives() {
    let points = [
        (0.3, -1.2, 1.0, 0.5),
        (-0.7, 0.4, -0.25, 2.0),
        (1.5, 2.5, 0.1, -3.0),
    ];
    for (x, y, tx, ty) in points {
        let (value, dy) = jvp!(negations)(x, y, tx, ty);
        assert_eq!(value.to_bits(), negations(x, y).to_bits());
        let by_rule = negations_tangent(x, y, tx, ty);
        assert_eq!(dy.to_bits(), by_rule.to_bits(), "{dy} vs {by_rule}");
        let (gx, gy) = gradients_function!(negations)(x, y);
        assert!(close(dy, gx * tx + gy * ty, 1e-13), "{dy} vs ⟨∇f, v⟩");
        let (value, dy) = jvp!(scaled_squares)(x, y, tx, ty);
        assert_eq!(value.to_bits(), scaled_squares(x, y).to_bits());
        // by hand: b = y − x², a = 1 − x; f = 100.5·b² + 5·a²
        let (b, a) = (y - x * x, 1.0 - x);
        let exact = 201.0 * b * (ty - 2.0 * x * tx) - 10.0 * a * tx;
        assert!(close(dy, exact, 1e-13), "{dy} vs {exact}");
        let (gx, gy) = gradients_function!(scaled_squares)(x, y);
        assert!(close(dy, gx * tx + gy * ty, 1e-13), "{dy} vs ⟨∇f, v⟩");
        let h = 1e-6;
        let fd = (scaled_squares(x + h * tx, y + h * ty) - scaled_squares(x - h * tx, y - h * ty))
            / (2.0 * h);
        assert!(close(dy, fd, 1e-6), "{dy} vs {fd}");
    }
}

// `x.sin()`'s tangent reads `x.cos()` computed where the value's `x.sin()` is, which the
// compiler makes one `sin_cos` call: the same bits as the rule reading `x`, and a zero
// tangent still contributes zero where the derivative is infinite.

#[differentiable]
fn trig_pairs(x: f64, y: f64) -> f64 {
    x.sin() * (2.0 * y).cos() + (x * y).sinh() - y.cosh()
}

#[test]
fn sine_and_cosine_tangents_from_their_siblings() {
    for (x, y, tx, ty) in [(0.3, -1.2, 1.0, 0.5), (2.5, 0.75, -0.5, 2.0)] {
        let (value, dy) = jvp!(trig_pairs)(x, y, tx, ty);
        assert_eq!(value.to_bits(), trig_pairs(x, y).to_bits());
        // rule by rule, in the sweep's order
        let (s, c2) = (x.sin(), (2.0 * y).cos());
        let (ts, tc2) = (tx * x.cos(), -(2.0 * ty) * (2.0 * y).sin());
        let (xy, txy) = (x * y, y * tx + x * ty);
        let by_rule = (c2 * ts + s * tc2) + txy * xy.cosh() + -(ty * y.sinh());
        assert_eq!(dy.to_bits(), by_rule.to_bits(), "{dy} vs {by_rule}");
        let (gx, gy) = gradients_function!(trig_pairs)(x, y);
        assert!(close(dy, gx * tx + gy * ty, 1e-13));
    }
    // cosh(800) is infinite: its tangent along a zero direction is zero, not NaN
    let (value, dy) = jvp!(trig_pairs, params = ["y"])(0.0, 800.0, 0.0);
    assert!(value.is_infinite());
    assert_eq!(dy, 0.0);
}

#[differentiable]
fn squares(x: f64, y: f64) -> f64 {
    let a = 1.0 - y;
    let p = x * y;
    x * x - a * a + p * p
}

#[test]
fn squares_carried_doubled_give_the_rules_bits() {
    for (x, y, tx, ty) in [
        (0.3, -1.2, 1.0, 0.5),
        (-0.7, 0.4, -0.25, 2.0),
        (1e150, 3.0, 1.0, 1.0),
    ] {
        let (value, dy) = jvp!(squares)(x, y, tx, ty);
        assert_eq!(value.to_bits(), squares(x, y).to_bits());
        // rule by rule: u̇·u + u̇·u for each square, the negation where it happens
        let (a, ta) = (1.0 - y, -ty);
        let (p, tp) = (x * y, tx * y + ty * x);
        let by_rule = ((tx * x + tx * x) + -(ta * a + ta * a)) + (tp * p + tp * p);
        assert_eq!(dy.to_bits(), by_rule.to_bits(), "{dy} vs {by_rule}");
    }
}
