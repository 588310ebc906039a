//! Forward mode (`jvp!`) of `&mut` parameters and of calls lending `&mut` buffers: the
//! tangent of a `&mut` parameter is a `&mut` buffer of its shape, which carries the
//! buffer's tangent in and its written elements' tangents out, as the parameter carries
//! the values. Checked by hand, against ⟨∇f, v⟩ from reverse mode and against central
//! differences.

use autodiff::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// `y ← y + a x`, as BLAS writes it.
#[differentiable]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[i] += a * x[i];
    }
}

/// `out ← (sin x₀ · x₁, x₀²)`: an output buffer the helper only writes.
#[differentiable]
fn polar_out(x: &[f64], out: &mut [f64]) {
    out[0] = x[0].sin() * x[1];
    out[1] = x[0] * x[0];
}

#[test]
fn a_mut_parameter_carries_the_tangent_in_and_out() {
    let (a, x) = (2.0, [0.5, -1.0]);
    let (ta, tx, ty0) = (0.3, [1.0, 2.0], [-0.5, 0.25]);
    let mut y = vec![1.0, 2.0];
    let mut ty = ty0.to_vec();
    let (value, tangent) = jvp!(axpy)(a, &x, &mut y, ta, &tx, &mut ty);
    assert_eq!((value, tangent), ((), ()));
    assert_eq!(y, vec![1.0 + a * x[0], 2.0 + a * x[1]]);
    for i in 0..2 {
        // d(y + a x) = dy + da x + a dx
        let expected = ty0[i] + ta * x[i] + a * tx[i];
        assert!(close(ty[i], expected, 1e-15), "ty[{i}] = {}", ty[i]);
    }
    // a write-only output: its incoming tangent is overwritten
    let mut out = [0.0; 2];
    let mut tout = [7.0, 7.0];
    jvp!(polar_out)(&x, &mut out, &tx, &mut tout);
    let by_hand = [
        x[0].cos() * x[1] * tx[0] + x[0].sin() * tx[1],
        2.0 * x[0] * tx[0],
    ];
    assert!(close(tout[0], by_hand[0], 1e-15) && close(tout[1], by_hand[1], 1e-15));
    // only `a` selected: the buffer's tangent starts at zero and is not returned
    let mut y2 = vec![1.0, 2.0];
    let (_, ()) = jvp!(axpy, params = ["a"])(a, &x, &mut y2, 1.0);
    assert_eq!(y2, y);
    // `y` selected with `a`: its tangent comes back in the buffer
    let mut y3 = vec![1.0, 2.0];
    let mut ty3 = vec![0.0, 0.0];
    jvp!(axpy, params = ["a", "y"])(a, &x, &mut y3, 1.0, &mut ty3);
    assert_eq!(ty3, x.to_vec());
}

/// Lends a local buffer and ranges of it to helpers, hands its own `&mut` parameter on,
/// and reads the results.
#[differentiable]
fn lends(a: f64, x: &[f64], acc: &mut [f64]) -> f64 {
    let mut buf = vec![1.0; 4];
    axpy(a, x, &mut buf[1..3]);
    let head = buf[..2].to_vec();
    axpy(a * a, &head, &mut buf[2..]);
    let mut p = [0.0; 2];
    polar_out(&buf[1..3], &mut p);
    axpy(0.5, &p, acc);
    buf.iter().map(|v| v * v).sum::<f64>() + p[0] * acc[1]
}

#[test]
fn calls_lending_buffers_against_the_gradient_and_differences() {
    let (a, x, acc) = (0.7, [0.5, -1.0], [0.25, -0.75]);
    let (va, vx, vacc) = (1.0, [0.5, -2.0], [0.3, 0.1]);
    let f = |s: f64| {
        let xs = [x[0] + s * vx[0], x[1] + s * vx[1]];
        let mut accs = [acc[0] + s * vacc[0], acc[1] + s * vacc[1]];
        lends(a + s * va, &xs, &mut accs)
    };
    let mut acc1 = acc;
    let mut tacc = vacc;
    let (value, tangent) = jvp!(lends)(a, &x, &mut acc1, va, &vx, &mut tacc);
    assert_eq!(value, f(0.0));
    let (ga, gx, gacc) = gradients_function!(lends)(a, &x, &mut acc.clone());
    let along = ga * va + gx[0] * vx[0] + gx[1] * vx[1] + gacc[0] * vacc[0] + gacc[1] * vacc[1];
    assert!(close(tangent, along, 1e-13), "{tangent} vs ⟨∇f, v⟩ {along}");
    let h = 1e-6;
    let fd = (f(h) - f(-h)) / (2.0 * h);
    assert!(close(tangent, fd, 1e-7), "{tangent} vs difference {fd}");
    // the buffer's own tangent (acc ← acc + ½ p), against differences of what it holds
    let acc_at = |s: f64| {
        let xs = [x[0] + s * vx[0], x[1] + s * vx[1]];
        let mut accs = [acc[0] + s * vacc[0], acc[1] + s * vacc[1]];
        lends(a + s * va, &xs, &mut accs);
        accs
    };
    assert_eq!(acc1, acc_at(0.0));
    let (plus, minus) = (acc_at(h), acc_at(-h));
    for i in 0..2 {
        let fd = (plus[i] - minus[i]) / (2.0 * h);
        assert!(
            close(tacc[i], fd, 1e-7),
            "tacc[{i}] = {} vs difference {fd}",
            tacc[i]
        );
    }
}

#[test]
#[should_panic(
    expected = "the tangent of `y` (parameter of `axpy`) has shape [3], but `y` has shape [2]"
)]
fn a_mut_tangent_of_the_wrong_length_panics_naming_it() {
    let mut y = [1.0, 2.0];
    let _ = jvp!(axpy)(1.0, &[1.0, 2.0], &mut y, 1.0, &[0.0, 0.0], &mut [0.0; 3]);
}

/// Two `&mut` buffers written in step.
#[differentiable]
fn in_step(a: &mut [f64], b: &mut [f64], s: f64) {
    for i in 0..a.len() {
        a[i] = a[i] * s + b[i];
        b[i] *= a[i];
    }
}

/// Both halves of a split handed to one call, and a buffer nothing differentiable reaches
/// (a constant) lent to the same helper.
#[differentiable]
#[allow(clippy::useless_vec)] // (a `Vec` on purpose: the buffer lent is a `Vec`'s range)
fn halves(s: f64, x: &[f64]) -> f64 {
    let mut buf = x.to_vec();
    let (h, t) = buf.split_at_mut(2);
    in_step(h, t, s);
    let mut other = vec![1.0, 2.0];
    let mut third = [3.0];
    in_step(&mut other[..1], &mut third, 2.0);
    buf.iter().sum::<f64>() + other[0] * third[0]
}

#[test]
fn both_halves_of_a_split_and_a_constant_buffer_lent() {
    let (s, x) = (0.7, [0.5, -1.0, 2.0, 0.25]);
    let (vs, vx) = (1.0, [1.0, 0.5, -0.5, 2.0]);
    let (value, tangent) = jvp!(halves)(s, &x, vs, &vx);
    assert_eq!(value, halves(s, &x));
    let (gs, gx) = gradients_function!(halves)(s, &x);
    let along = gs * vs + gx.iter().zip(&vx).map(|(g, v)| g * v).sum::<f64>();
    assert!(close(tangent, along, 1e-13), "{tangent} vs ⟨∇f, v⟩ {along}");
    let f = |e: f64| {
        let xs: Vec<f64> = x.iter().zip(&vx).map(|(a, v)| a + e * v).collect();
        halves(s + e * vs, &xs)
    };
    let fd = (f(1e-6) - f(-1e-6)) / 2e-6;
    assert!(close(tangent, fd, 1e-7), "{tangent} vs difference {fd}");
}
