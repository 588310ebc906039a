//! Locals borrowing one of two parameters, chosen by a branch (`let (a, b) = if x.len() <
//! y.len() { (y, x) } else { (x, y) };`, as convolutions choose the longer input): the
//! local's borrow is shorter than both parameters', and the pullback that keeps it still has
//! a type to return. Each function is checked against its derivative written by hand and
//! against central differences, in both orders of its inputs, through every way of asking
//! for a gradient.

use autodiff::check::finite_difference;
use autodiff::prelude::*;

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: {g} vs {w}"
        );
    }
}

/// Σ_m long[m] · short[m] · long[0], the longer input first whichever order they come in.
#[differentiable]
fn aligned(x: &[f64], y: &[f64]) -> f64 {
    let (long, short) = if x.len() < y.len() { (y, x) } else { (x, y) };
    let mut s = 0.0;
    for m in 0..short.len() {
        s += long[m] * short[m] * long[0];
    }
    s
}

/// The gradient of [`aligned`] by hand, `(∂/∂x, ∂/∂y)`.
fn aligned_by_hand(x: &[f64], y: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let swapped = x.len() < y.len();
    let (long, short) = if swapped { (y, x) } else { (x, y) };
    let mut dlong = vec![0.0; long.len()];
    let mut dshort = vec![0.0; short.len()];
    for m in 0..short.len() {
        dlong[m] += short[m] * long[0];
        dshort[m] += long[m] * long[0];
        dlong[0] += long[m] * short[m];
    }
    if swapped {
        (dshort, dlong)
    } else {
        (dlong, dshort)
    }
}

/// The convolution of two sequences as scilib writes it: the longer one slides under the
/// shorter (`match` on the lengths), every output of full overlap and the partial ones.
#[differentiable]
fn convolve(a_i: &[f64], b_i: &[f64]) -> Vec<f64> {
    let (a, b): (&[f64], &[f64]) = match a_i.len() < b_i.len() {
        true => (b_i, a_i),
        false => (a_i, b_i),
    };
    let mut res = Vec::with_capacity(a.len() + b.len() - 1);
    for n in 0..a.len() + b.len() - 1 {
        let mut sum = 0.0;
        for m in 0..b.len() {
            if n >= m && n - m < a.len() {
                sum += a[n - m] * b[m];
            }
        }
        res.push(sum);
    }
    res
}

/// ‖convolve(a, b)‖², through a call of the helper.
#[differentiable]
fn convolved_energy(a: &[f64], b: &[f64]) -> f64 {
    let r = convolve(a, b);
    let mut s = 0.0;
    for v in r.iter() {
        s += v * v;
    }
    s
}

/// The same choice in a function generic over its float type, handing both halves on.
#[differentiable]
fn generic_aligned<T: Float>(x: &[T], y: &[T]) -> T {
    let (long, short) = if x.len() < y.len() { (y, x) } else { (x, y) };
    let mut s = T::zero();
    for m in 0..short.len() {
        s = s + (long[m] - short[m]).powi(2);
    }
    s + long[long.len() - 1].sin()
}

const X: [f64; 4] = [0.7, -1.3, 0.4, 2.1];
const Y: [f64; 2] = [1.5, -0.6];

#[test]
fn a_local_borrowing_either_parameter_against_the_adjoint_by_hand() {
    for (x, y) in [(&X[..], &Y[..]), (&Y[..], &X[..])] {
        let (value, (gx, gy)) = value_and_gradients_function!(aligned)(x, y);
        assert_eq!(value.to_bits(), aligned(x, y).to_bits());
        let (hx, hy) = aligned_by_hand(x, y);
        assert_close(&gx, &hx, 1e-15, "∂x");
        assert_close(&gy, &hy, 1e-15, "∂y");
        let fx = finite_difference(|p: &[f64]| aligned(p, y), x);
        let fy = finite_difference(|p: &[f64]| aligned(x, p), y);
        assert_close(&gx, &fx, 1e-7, "∂x against differences");
        assert_close(&gy, &fy, 1e-7, "∂y against differences");

        // one parameter asked for, the pullback with a cotangent other than one
        let g = gradients_function!(aligned, params = ["y"])(x, y);
        assert_eq!(g, hy);
        let (v, pullback) = vjp!(aligned)(x, y);
        assert_eq!(v.to_bits(), value.to_bits());
        let (px, py) = pullback(-2.0);
        let twice = |v: &[f64]| v.iter().map(|g| -2.0 * g).collect::<Vec<_>>();
        assert_close(&px, &twice(&hx), 1e-15, "vjp ∂x");
        assert_close(&py, &twice(&hy), 1e-15, "vjp ∂y");

        // forward mode: ⟨∇f, t⟩
        let tx: Vec<f64> = (0..x.len()).map(|i| 0.3 - 0.2 * i as f64).collect();
        let ty: Vec<f64> = (0..y.len()).map(|i| 1.0 + 0.5 * i as f64).collect();
        let (v, dv) = jvp!(aligned)(x, y, &tx, &ty);
        assert_eq!(v.to_bits(), value.to_bits());
        let dot: f64 = hx
            .iter()
            .zip(&tx)
            .chain(hy.iter().zip(&ty))
            .map(|(g, t)| g * t)
            .sum();
        assert!(
            (dv - dot).abs() <= 1e-14 * dot.abs().max(1.0),
            "{dv} vs {dot}"
        );
    }
}

#[test]
fn scilibs_convolution_in_both_orders() {
    for (a, b) in [(&X[..], &Y[..]), (&Y[..], &X[..])] {
        let r = convolve(a, b);
        assert_eq!(r.len(), 5);
        // the pullback of the sequence: Σ_n c_n r_n, whose gradient is the correlation of
        // the cotangent with the other input
        let c = [0.5, -1.0, 2.0, 0.25, 1.5];
        let (value, pullback) = vjp!(convolve)(a, b);
        assert_eq!(value, r);
        let (ga, gb) = pullback(c.to_vec());
        let (long, short, swapped) = if a.len() < b.len() {
            (b, a, true)
        } else {
            (a, b, false)
        };
        let mut dlong = vec![0.0; long.len()];
        let mut dshort = vec![0.0; short.len()];
        for (n, cn) in c.iter().enumerate() {
            for m in 0..short.len() {
                if n >= m && n - m < long.len() {
                    dlong[n - m] += cn * short[m];
                    dshort[m] += cn * long[n - m];
                }
            }
        }
        let (ha, hb) = if swapped {
            (dshort, dlong)
        } else {
            (dlong, dshort)
        };
        assert_close(&ga, &ha, 1e-15, "∂a");
        assert_close(&gb, &hb, 1e-15, "∂b");
        let dot = |r: Vec<f64>| r.iter().zip(&c).map(|(r, c)| r * c).sum::<f64>();
        let fa = finite_difference(|p: &[f64]| dot(convolve(p, b)), a);
        let fb = finite_difference(|p: &[f64]| dot(convolve(a, p)), b);
        assert_close(&ga, &fa, 1e-7, "∂a against differences");
        assert_close(&gb, &fb, 1e-7, "∂b against differences");

        // called from another function, and through the implicit mode
        let (ea, eb) = gradients_function!(convolved_energy)(a, b);
        let fa = finite_difference(|p: &[f64]| convolved_energy(p, b), a);
        let fb = finite_difference(|p: &[f64]| convolved_energy(a, p), b);
        assert_close(&ea, &fa, 1e-7, "energy ∂a");
        assert_close(&eb, &fb, 1e-7, "energy ∂b");
        let va = Variable::new(a.to_vec());
        let f = differentiable_closure!(|q: &[f64]| convolved_energy(&va, q));
        let grads = implicit_gradients(&f)(b);
        let got: Vec<f64> = grads.get(&va).expect("a is read");
        assert_close(&got, &ea, 1e-15, "implicit ∂a");
    }
}

#[test]
fn generic_choice_in_f32_and_f64() {
    for (x, y) in [(&X[..], &Y[..]), (&Y[..], &X[..])] {
        let (gx, gy) = gradients_function!(generic_aligned)(x, y);
        let fx = finite_difference(|p: &[f64]| generic_aligned(p, y), x);
        let fy = finite_difference(|p: &[f64]| generic_aligned(x, p), y);
        assert_close(&gx, &fx, 1e-7, "∂x");
        assert_close(&gy, &fy, 1e-7, "∂y");
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let y32: Vec<f32> = y.iter().map(|&v| v as f32).collect();
        let (gx32, gy32) = gradients_function!(generic_aligned)(&x32[..], &y32[..]);
        for (g32, g) in gx32.iter().zip(&gx).chain(gy32.iter().zip(&gy)) {
            assert!(
                (f64::from(*g32) - g).abs() <= 1e-5 * g.abs().max(1.0),
                "{g32} vs {g}"
            );
        }
    }
}

#[test]
fn generic_choice_under_hvp() {
    // H·v against central differences of the gradient along v
    for (x, y) in [(&X[..], &Y[..]), (&Y[..], &X[..])] {
        let vx: Vec<f64> = (0..x.len()).map(|i| 0.5 - 0.3 * i as f64).collect();
        let vy: Vec<f64> = (0..y.len()).map(|i| -0.2 + 0.7 * i as f64).collect();
        let (hx, hy) = hvp!(generic_aligned)(x, y, &vx[..], &vy[..]);
        let h = 1e-5;
        let shifted = |s: f64| {
            let xs: Vec<f64> = x.iter().zip(&vx).map(|(a, v)| a + s * v).collect();
            let ys: Vec<f64> = y.iter().zip(&vy).map(|(a, v)| a + s * v).collect();
            gradients_function!(generic_aligned)(&xs[..], &ys[..])
        };
        let ((px, py), (mx, my)) = (shifted(h), shifted(-h));
        let dx: Vec<f64> = px
            .iter()
            .zip(&mx)
            .map(|(p, m)| (p - m) / (2.0 * h))
            .collect();
        let dy: Vec<f64> = py
            .iter()
            .zip(&my)
            .map(|(p, m)| (p - m) / (2.0 * h))
            .collect();
        assert_close(&hx, &dx, 1e-6, "H·v, x");
        assert_close(&hy, &dy, 1e-6, "H·v, y");
    }
}

/// `⟨a, b⟩` over the shorter length.
#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len().min(b.len()) {
        s += a[i] * b[i];
    }
    s
}

/// Three arms choosing among sub-slices and whole parameters (one a `&Vec`), in a loop,
/// the chosen pair handed to a helper and read by index.
#[differentiable]
fn three(x: &[f64], y: &[f64], z: &Vec<f64>, k: usize) -> f64 {
    let mut total = 0.0;
    for r in 0..k {
        let (p, q): (&[f64], &[f64]) = match (r + k) % 3 {
            0 => (&x[1..], y),
            1 => (y, &z[..2]),
            _ => (z, x),
        };
        total += dot(p, q) * p[0] + q[q.len() - 1].sin();
    }
    total
}

/// `three` by hand: the same choices, the derivative of each term written out.
fn three_by_hand(x: &[f64], y: &[f64], z: &[f64], k: usize) -> [Vec<f64>; 3] {
    let mut g = [vec![0.0; x.len()], vec![0.0; y.len()], vec![0.0; z.len()]];
    for r in 0..k {
        // (which parameter, offset) of each side
        let (p, q) = match (r + k) % 3 {
            0 => ((0, 1, x.len() - 1), (1, 0, y.len())),
            1 => ((1, 0, y.len()), (2, 0, 2)),
            _ => ((2, 0, z.len()), (0, 0, x.len())),
        };
        let all = [x, y, z];
        let read = |(w, o, _): (usize, usize, usize), i: usize| all[w][o + i];
        let n = p.2.min(q.2);
        let d: f64 = (0..n).map(|i| read(p, i) * read(q, i)).sum();
        let p0 = read(p, 0);
        for i in 0..n {
            g[p.0][p.1 + i] += read(q, i) * p0;
            g[q.0][q.1 + i] += read(p, i) * p0;
        }
        g[p.0][p.1] += d;
        g[q.0][q.1 + q.2 - 1] += read(q, q.2 - 1).cos();
    }
    g
}

#[test]
fn choices_among_three_in_a_loop_against_the_adjoint_by_hand() {
    let x = vec![0.3, -0.7, 1.1];
    let y = vec![0.9, 0.4];
    let z = vec![-0.2, 0.5, 0.8, 1.3];
    for k in 1..5 {
        let (gx, gy, gz) = gradients_function!(three, params = ["x", "y", "z"])(&x, &y, &z, k);
        let [hx, hy, hz] = three_by_hand(&x, &y, &z, k);
        assert_close(&gx, &hx, 1e-14, "∂x");
        assert_close(&gy, &hy, 1e-14, "∂y");
        assert_close(&gz, &hz, 1e-14, "∂z");
        let fz = finite_difference(|p: &[f64]| three(&x, &y, &p.to_vec(), k), &z);
        assert_close(&gz, &fz, 1e-7, "∂z against differences");
        let t = [1.0, 0.5, -0.5];
        let (_, d) = jvp!(three, params = ["x"])(&x, &y, &z, k, &t[..]);
        let want: f64 = hx.iter().zip(&t).map(|(a, b)| a * b).sum();
        assert!((d - want).abs() <= 1e-13, "jvp {d} vs {want}");
    }
}

pub struct Pairing {
    scale: f64,
}

#[differentiable]
impl Pairing {
    /// The larger-headed slice's first element times the other's second.
    fn pick(&self, x: &[f64], y: &[f64]) -> f64 {
        let (a, b) = if x[0] > y[0] { (x, y) } else { (y, x) };
        self.scale * a[0] * b[1]
    }
}

/// The method called on a struct written in the body.
#[differentiable]
fn through_a_local_struct(x: &[f64], y: &[f64]) -> f64 {
    let m = Pairing { scale: 1.5 };
    m.pick(x, y) + m.pick(y, x)
}

#[test]
fn a_method_choosing_slices_called_on_a_local_struct() {
    let (x, y) = (vec![0.3, -0.7, 1.1], vec![0.9, 0.4]);
    let (gx, gy) = gradients_function!(through_a_local_struct)(&x, &y);
    // y[0] > x[0]: both calls pick a = y, b = x, so f = 2 · 1.5 · y₀ · x₁
    assert_eq!(gx, vec![0.0, 3.0 * y[0], 0.0]);
    assert_eq!(gy, vec![3.0 * x[1], 0.0]);
    let fx = finite_difference(|p: &[f64]| through_a_local_struct(p, &y), &x);
    assert_close(&gx, &fx, 1e-7, "∂x against differences");
}

/// One slice chosen, a prefix of one parameter or the other whole.
#[differentiable]
fn one_chosen(x: &[f64], y: &[f64], k: usize) -> f64 {
    let s: &[f64] = if x[0] > y[0] { &x[..k] } else { y };
    s.iter().map(|v| v * v).sum::<f64>() + s[0]
}

/// The longer first by `std::mem::swap` of two borrowed slices.
#[differentiable]
fn swapped(x: &[f64], y: &[f64]) -> f64 {
    let mut a = x;
    let mut b = y;
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    a[0] * b[b.len() - 1] + a[a.len() - 1]
}

/// A borrowed slice reassigned another of a different length (its adjoint takes each
/// one's length in turn).
#[differentiable]
fn reassigned(x: &[f64], y: &Vec<f64>) -> f64 {
    let mut a = x;
    if y[0] > x[0] {
        a = y;
    }
    a[0] * a[1]
}

#[test]
fn one_slice_chosen_swapped_or_reassigned() {
    let long = vec![0.3, -0.7, 1.1];
    let short = vec![0.9, 0.4];
    for (x, y) in [(&long, &short), (&short, &long)] {
        // one_chosen: by hand, s = x[..2] when x₀ > y₀, else y
        let (gx, gy) = gradients_function!(one_chosen, params = ["x", "y"])(x, y, 2);
        let (mut hx, mut hy) = (vec![0.0; x.len()], vec![0.0; y.len()]);
        let (h, s) = if x[0] > y[0] {
            (&mut hx, &x[..2])
        } else {
            (&mut hy, &y[..])
        };
        for (i, v) in s.iter().enumerate() {
            h[i] += 2.0 * v;
        }
        h[0] += 1.0;
        assert_eq!((gx, gy), (hx, hy), "one_chosen");

        // swapped: f = a₀ b_last + a_last, a the longer
        let (gx, gy) = gradients_function!(swapped)(x, y);
        let (a, b) = if x.len() < y.len() { (y, x) } else { (x, y) };
        let mut ha = vec![0.0; a.len()];
        let mut hb = vec![0.0; b.len()];
        ha[0] += b[b.len() - 1];
        hb[b.len() - 1] += a[0];
        *ha.last_mut().expect("non-empty") += 1.0;
        let (hx, hy) = if x.len() < y.len() {
            (hb, ha)
        } else {
            (ha, hb)
        };
        assert_eq!((gx.clone(), gy.clone()), (hx, hy), "swapped");
        let fx = finite_difference(|p: &[f64]| swapped(p, y), x);
        assert_close(&gx, &fx, 1e-7, "swapped against differences");

        // reassigned: f = a₀ a₁, a = y when y₀ > x₀
        let (gx, gy) = gradients_function!(reassigned)(x, y);
        let (mut hx, mut hy) = (vec![0.0; x.len()], vec![0.0; y.len()]);
        let (h, a) = if y[0] > x[0] {
            (&mut hy, &y[..])
        } else {
            (&mut hx, &x[..])
        };
        h[0] = a[1];
        h[1] = a[0];
        assert_eq!(
            (gx.clone(), gy.clone()),
            (hx.clone(), hy.clone()),
            "reassigned"
        );
        let (_, pullback) = vjp!(reassigned)(x, y);
        let (px, py) = pullback(3.0);
        assert_close(
            &px,
            &hx.iter().map(|g| 3.0 * g).collect::<Vec<_>>(),
            1e-15,
            "vjp x",
        );
        assert_close(
            &py,
            &hy.iter().map(|g| 3.0 * g).collect::<Vec<_>>(),
            1e-15,
            "vjp y",
        );
        let tx: Vec<f64> = (0..x.len()).map(|i| 1.0 - 0.25 * i as f64).collect();
        let ty: Vec<f64> = (0..y.len()).map(|i| 0.5 + i as f64).collect();
        let (_, d) = jvp!(reassigned)(x, y, &tx[..], &ty);
        let want: f64 = hx
            .iter()
            .zip(&tx)
            .chain(hy.iter().zip(&ty))
            .map(|(g, t)| g * t)
            .sum();
        assert!((d - want).abs() <= 1e-14, "jvp {d} vs {want}");
    }
}
