//! Values the reverse sweep reads back rather than the forward sweep saving them: a
//! local buffer's elements read after the buffer is complete, and the same reads when
//! the buffer is written again later (which must be saved). Gradients against finite
//! differences; a callee handed a local buffer runs its forward sweep once; integer counters
//! read in loops.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// `Σᵢ Σ_{j>i} (xᵢ − xⱼ)² · xᵢ` through a buffer filled once, read in a later loop.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn read_after_filled(x: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += (c[i] - c[j]) * c[i] * x[j];
        }
    }
    s
}

/// The same reads, with the buffer written again inside the reading loop and after it.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn read_then_written(x: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = x[i].sin();
    }
    let mut s = 0.0;
    for i in 0..n {
        s += c[i] * x[i];
        c[i] *= s;
    }
    for i in 0..n {
        s += c[i] * c[i];
        c[i] = 0.5 * x[i];
    }
    s + c[0]
}

#[test]
fn a_buffer_read_after_it_is_complete() {
    let x = [0.3, -1.2, 0.7, 2.0, -0.4];
    let g = gradients_function!(read_after_filled)(&x);
    assert_gradient_close(&g, &finite_difference(read_after_filled, &x), 1e-7);
}

#[test]
fn a_buffer_written_after_it_is_read() {
    let x = [0.3, -1.2, 0.7, 2.0, -0.4];
    let g = gradients_function!(read_then_written)(&x);
    assert_gradient_close(&g, &finite_difference(read_then_written, &x), 1e-7);
}

/// A row of a local matrix read, then the matrix written: the reverse sweep must use the
/// row as it was read.
#[differentiable]
fn row_then_written(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[0][0] = x[0];
    m[0][1] = x[1];
    m[1][0] = x[0] * x[1];
    let row = m[0];
    let first = m[0][1];
    let mut s = row[0].sin() * row[1] + first.exp();
    m[0][0] = x[1] * 3.0;
    m[0][1] = s;
    m[1] = [s, x[0]];
    s += m[0][0] * m[0][1] + m[1][0] * m[1][1];
    s
}

#[test]
fn a_row_read_before_its_matrix_is_written() {
    let x = [0.7, -0.4];
    let g = gradients_function!(row_then_written)(&x);
    let fd = autodiff::check::finite_difference(row_then_written, &x);
    autodiff::check::assert_gradient_close(&g, &fd, 1e-6);
}

thread_local! {
    /// How many times [`weighted_norm`]'s body ran on this thread.
    static RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count_run() {
    RUNS.with(|r| r.set(r.get() + 1));
}

/// `Σᵢ wᵢ xᵢ²`, counting its runs.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn weighted_norm(x: &[f64], #[no_grad] w: &[f64]) -> f64 {
    count_run();
    let mut s = 0.0;
    for i in 0..x.len() {
        s += w[i] * x[i] * x[i];
    }
    s
}

/// [`weighted_norm`] of a local buffer `yₖ = sin(k·xₖ)`, rebuilt in each of three rounds.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn norms_of_local_buffers(x: &[f64], #[no_grad] w: &[f64]) -> f64 {
    let mut y = vec![0.0; x.len()];
    let mut total = 0.0;
    for round in 0..3 {
        for k in 0..x.len() {
            y[k] = (x[k] * (round + k) as f64).sin();
        }
        total += weighted_norm(&y, w);
    }
    total
}

#[test]
fn a_callee_handed_a_local_buffer_runs_once() {
    let x = [0.3, -1.2, 0.7, 2.0];
    let w = [1.0, 0.5, -2.0, 0.25];
    RUNS.with(|r| r.set(0));
    let g = gradients_function!(norms_of_local_buffers, params = ["x"])(&x, &w);
    // one run per round: the reverse sweep does not run the callee's forward sweep again
    assert_eq!(RUNS.with(|r| r.get()), 3);
    let f = |x: &[f64]| norms_of_local_buffers(x, &w);
    assert_gradient_close(&g, &finite_difference(f, &x), 1e-7);
}

/// `Σ_{i<j} lₖ xᵢ xⱼ` with `k` the running index of the pair (ADBench GMM's packed lower
/// triangle): an integer counter incremented in the inner loop, read before and after
/// its increments, plus a counter stepping down.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn packed_pairs(x: &[f64], l: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut down = 100;
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += l[k] * x[i] * x[j];
            k += 1;
            down -= 2;
            s += 0.01 * l[k - 1] * (down as f64);
        }
        if i % 2 == 0 {
            s += x[i] * (k as f64);
        }
    }
    s
}

#[test]
fn integer_counters_read_in_loops() {
    let x = [0.3, -1.2, 0.7, 2.0, -0.4];
    let l = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0];
    let (gx, gl) = gradients_function!(packed_pairs)(&x, &l);
    assert_gradient_close(&gx, &finite_difference(|x| packed_pairs(x, &l), &x), 1e-7);
    assert_gradient_close(&gl, &finite_difference(|l| packed_pairs(&x, l), &l), 1e-7);
}

/// A buffer made again in each iteration of a loop whose iterations are independent (the
/// fused form reverses each at its end): its adjoint, started before the loop, grows to the
/// buffer's length (found by the random-program tester: an index out of bounds).
#[differentiable]
fn buffer_remade_each_iteration(b: f64, a: f64, xs: &[f64]) -> f64 {
    let mut s = a;
    for i in 1..=2 {
        let mut v = vec![0.0; 4];
        for j in 0..v.len() {
            v[j] = b / (1.5 + xs[j].tanh()) * -0.25;
        }
        s += v[i] * a;
    }
    s
}

#[test]
fn buffer_remade_in_a_fused_loop() {
    let xs = [0.3, -0.2, 0.5, 0.1];
    let (b, a) = (0.7, 1.3);
    let (vb, (gb, ga, gx)) = value_and_gradients_function!(buffer_remade_each_iteration)(b, a, &xs);
    assert_eq!(vb, buffer_remade_each_iteration(b, a, &xs));
    let f = |p: &[f64]| buffer_remade_each_iteration(p[0], p[1], &p[2..]);
    let mut at = vec![b, a];
    at.extend_from_slice(&xs);
    let numeric = autodiff::check::finite_difference(f, &at);
    let mut analytic = vec![gb, ga];
    analytic.extend_from_slice(&gx);
    autodiff::check::assert_gradient_close(&analytic, &numeric, 1e-7);
}

/// `½‖L·x‖²` for the unit lower-triangular `L` stored by columns in `ltri`: the inner loop
/// reads `x[i]` (fixed across it) once per iteration and `out[j]` at its own index, so the
/// reverse sweep keeps `x[i]`'s adjoint in a local across the inner loop.
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)]
fn triangular(ltri: &[f64], x: &[f64]) -> f64 {
    let d = x.len();
    let mut out = vec![0.0; d];
    for i in 0..d {
        out[i] = x[i];
    }
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += ltri[l] * x[i];
            l += 1;
        }
    }
    let mut s = 0.0;
    for i in 0..d {
        s += out[i] * out[i];
    }
    0.5 * s
}

/// Elements read fixed across an inner loop: `x[i]` next to reads of the same slice at
/// the loop's own index (its adjoint is then not kept aside: another update of it may
/// happen in the loop), `u[i]` and `v[k]` alone (kept aside; `k` is a parameter).
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn fixed_and_moving(x: &[f64], w: &[f64], u: &[f64], v: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            s += (x[i] * w[j]).sin() + x[j] * v[k] * u[i];
        }
        s += u[i] * v[k];
    }
    s
}

#[test]
#[allow(clippy::needless_range_loop)]
fn element_adjoints_kept_across_an_inner_loop() {
    let d = 7;
    let x: Vec<f64> = (0..d).map(|i| 0.3 - 0.11 * i as f64).collect();
    let ltri: Vec<f64> = (0..d * (d - 1) / 2)
        .map(|i| 0.05 * i as f64 - 0.4)
        .collect();
    let (gl, gx) = gradients_function!(triangular)(&ltri, &x);
    // by hand: out = L x, s = ½‖out‖²: ∂s/∂x = Lᵀ out, ∂s/∂ltri[l] = out[j] x[i]
    let mut out = x.clone();
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += ltri[l] * x[i];
            l += 1;
        }
    }
    let mut hand_x = out.clone();
    let mut hand_l = vec![0.0; ltri.len()];
    let mut l = 0;
    for i in 0..d {
        for j in i + 1..d {
            hand_x[i] += ltri[l] * out[j];
            hand_l[l] = out[j] * x[i];
            l += 1;
        }
    }
    assert_gradient_close(&gx, &hand_x, 1e-13);
    assert_gradient_close(&gl, &hand_l, 1e-13);
    assert_gradient_close(&gx, &finite_difference(|x| triangular(&ltri, x), &x), 1e-7);

    let w: Vec<f64> = (0..d).map(|i| 0.2 + 0.07 * i as f64).collect();
    let u: Vec<f64> = (0..d).map(|i| 0.9 - 0.13 * i as f64).collect();
    let v: Vec<f64> = (0..d).map(|i| -0.5 + 0.21 * i as f64).collect();
    let f = |x: &[f64], w: &[f64], u: &[f64], v: &[f64]| fixed_and_moving(x, w, u, v, 3);
    let (gx, gw, gu, gv) = gradients_function!(fixed_and_moving)(&x, &w, &u, &v, 3);
    assert_gradient_close(&gx, &finite_difference(|x| f(x, &w, &u, &v), &x), 1e-7);
    assert_gradient_close(&gw, &finite_difference(|w| f(&x, w, &u, &v), &w), 1e-7);
    assert_gradient_close(&gu, &finite_difference(|u| f(&x, &w, u, &v), &u), 1e-7);
    assert_gradient_close(&gv, &finite_difference(|v| f(&x, &w, &u, v), &v), 1e-7);
    // ∂/∂v[k] = Σᵢ (Σⱼ x[j]) u[i] + Σᵢ u[i]: by hand
    let (sx, su): (f64, f64) = (x.iter().sum(), u.iter().sum());
    assert!((gv[3] - (sx * su + su)).abs() < 1e-12);
}

/// In-place increments of a buffer's elements in every written form, and a read of an
/// element kept across another write of it (not an increment: the adjoint must be taken).
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
fn increments(x: &[f64], w: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = x[i] * w[i];
    }
    for i in 0..n {
        for j in 0..n {
            c[j] += w[i] * x[j];
            c[j] = c[j] - 0.5 * x[i] * c[i];
            c[j] = (w[j] * x[i]).sin() + c[j];
        }
        let kept = c[i];
        c[i] = x[i] * 2.0;
        c[i] = kept + c[i] * w[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += c[i] * c[i];
    }
    s
}

#[test]
fn in_place_increments() {
    let x: Vec<f64> = (0..5).map(|i| 0.3 - 0.17 * i as f64).collect();
    let w: Vec<f64> = (0..5).map(|i| 0.8 + 0.05 * i as f64).collect();
    let (gx, gw) = gradients_function!(increments)(&x, &w);
    assert_gradient_close(&gx, &finite_difference(|x| increments(x, &w), &x), 1e-6);
    assert_gradient_close(&gw, &finite_difference(|w| increments(&x, w), &w), 1e-6);
}

/// `out ← L·x + ¼ (pₗ₊₁)²` per pair, the unit lower-triangular `L` stored from element 2 of
/// `packed` on (the C form: `&mut` output): the counter `l` indexes `packed` before and
/// after its step in the inner loop, whose reverse reads `packed`, its shadow and `out`'s
/// adjoint through parts of the loop's length.
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)]
fn lower_times(packed: &[f64], x: &[f64], out: &mut [f64]) {
    let d = x.len();
    for i in 0..d {
        out[i] = x[i];
    }
    let mut l = 2;
    for i in 0..d {
        for j in i + 1..d {
            out[j] += packed[l] * x[i];
            l += 1;
            out[j] += 0.25 * packed[l] * packed[l];
        }
    }
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn half_norm_lower(packed: &[f64], x: &[f64]) -> f64 {
    let mut out = vec![0.0; x.len()];
    lower_times(packed, x, &mut out);
    let mut s = 0.0;
    for i in 0..out.len() {
        s += out[i] * out[i];
    }
    0.5 * s
}

#[test]
#[allow(clippy::needless_range_loop)]
fn loops_indexed_by_a_counter_read_through_parts() {
    for d in [0_usize, 1, 2, 6] {
        let x: Vec<f64> = (0..d).map(|i| 0.4 - 0.13 * i as f64).collect();
        let packed: Vec<f64> = (0..3 + d * d.saturating_sub(1) / 2)
            .map(|i| 0.07 * i as f64 - 0.3)
            .collect();
        let (gp, gx) = gradients_function!(half_norm_lower)(&packed, &x);
        // by hand: s = ½‖out‖², ∂s/∂out = out
        let mut out = x.clone();
        let mut l = 2;
        for i in 0..d {
            for j in i + 1..d {
                out[j] += packed[l] * x[i] + 0.25 * packed[l + 1] * packed[l + 1];
                l += 1;
            }
        }
        let mut hand_x = out.clone();
        let mut hand_p = vec![0.0; packed.len()];
        let mut l = 2;
        for i in 0..d {
            for j in i + 1..d {
                hand_x[i] += packed[l] * out[j];
                hand_p[l] += out[j] * x[i];
                hand_p[l + 1] += 0.5 * packed[l + 1] * out[j];
                l += 1;
            }
        }
        assert_gradient_close(&gx, &hand_x, 1e-13);
        assert_gradient_close(&gp, &hand_p, 1e-13);
        let fd_x = finite_difference(|x| half_norm_lower(&packed, x), &x);
        let fd_p = finite_difference(|p| half_norm_lower(p, &x), &packed);
        assert_gradient_close(&gx, &fd_x, 1e-7);
        assert_gradient_close(&gp, &fd_p, 1e-7);

        // the same through `vjp!` and the implicit mode
        let (value, pullback) = vjp!(half_norm_lower)(&packed, &x);
        assert_eq!(value, half_norm_lower(&packed, &x));
        let (vp, vx) = pullback(1.0);
        assert_eq!((&vp, &vx), (&gp, &gx));
        let w = Variable::new(packed.clone());
        let f = differentiable_closure!(|x: &[f64]| half_norm_lower(&w, x));
        let grads = implicit_gradients(&f)(&x);
        let gw: Vec<f64> = grads.get(&w).expect("w was read");
        assert_eq!(gw, gp);
    }
}
