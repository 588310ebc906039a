//! Every array rule's tangent (forward mode, `jvp!`) against central differences, on random
//! shapes and values, in f64 and f32: the four operators with every broadcasting pattern
//! of two arrays (both operands moving, and each alone with the other constant, which the
//! tangent sweep meets as a zero of the constant's shape), arrays with scalars and
//! literals, elementwise methods and `mapv`, reductions, products, and the shape
//! operations. (The scalar rules' tangents are checked from the rule table itself, in
//! `tests/rule_table.rs`.)
//!
//! Method: for `y = f(a, b)` and random tangents `(ta, tb)` of the operands' shapes, the
//! tangent `jvp!` gives must equal, element by element, the fourth-order central
//! difference `(−y(−2h) + 8y(−h) − 8y(h)·… ) / 12h` of `s ↦ f(a + s·ta, b + s·tb)` in f64
//! (`h = 1e-3`). Values are drawn from `[-2, 2]`, divisors from `±[0.5, 2]`, arguments of
//! `ln`/`sqrt` from `[0.5, 2]`, where every function is smooth with moderate derivatives: the
//! difference's error is ~1e-12, and `1e-7` relative to `max(1, |fd|)` still catches a wrong
//! formula or a missed broadcast axis (off by O(1)). The f32 tangents are compared with the
//! same f64 difference to `1e-3` relative (ε ≈ 6e-8, a few operations per element, sums of
//! at most 64 terms).

use autodiff::ndarray::{s, Array1, Array2, ArrayD, Axis, IxDyn};
use autodiff::prelude::*;

/// Random cases per property.
const CASES: u64 = 48;
const F64_TOL: f64 = 1e-7;
const F32_TOL: f64 = 1e-3;

/// xorshift64*: uniform in [0, 1).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n
    }
    fn values(&mut self, shape: &[usize], lo: f64, hi: f64) -> ArrayD<f64> {
        ArrayD::from_shape_simple_fn(IxDyn(shape), || lo + self.unit() * (hi - lo))
    }
    fn divisors(&mut self, shape: &[usize]) -> ArrayD<f64> {
        ArrayD::from_shape_simple_fn(IxDyn(shape), || {
            let v = 0.5 + 1.5 * self.unit();
            if self.unit() < 0.5 {
                v
            } else {
                -v
            }
        })
    }
    /// A result shape (rank 0 to 3, lengths 1 to 4) and two operand shapes that broadcast
    /// to it: each keeps a suffix of its axes and may have any kept axis set to 1.
    fn broadcast_shapes(&mut self) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let rank = self.below(4);
        let out: Vec<usize> = (0..rank).map(|_| 1 + self.below(4)).collect();
        let mut operand = || {
            let drop = self.below(rank + 1);
            out.iter()
                .skip(drop)
                .map(|&len| if self.unit() < 0.3 { 1 } else { len })
                .collect::<Vec<usize>>()
        };
        let (a, b) = (operand(), operand());
        let n = a.len().max(b.len());
        let dim = |s: &[usize], k: usize| {
            if k + s.len() >= n {
                s[k + s.len() - n]
            } else {
                1
            }
        };
        let out = (0..n).map(|k| dim(&a, k).max(dim(&b, k))).collect();
        (out, a, b)
    }
}

/// The fourth-order central difference of `s ↦ f(s)` at 0, element by element.
fn along(f: impl Fn(f64) -> Vec<f64>) -> Vec<f64> {
    let h = 1e-3;
    let (p2, p1, m1, m2) = (f(2.0 * h), f(h), f(-h), f(-2.0 * h));
    (0..p1.len())
        .map(|i| (-p2[i] + 8.0 * p1[i] - 8.0 * m1[i] + m2[i]) / (12.0 * h))
        .collect()
}

fn assert_close(what: &str, tangent: &[f64], fd: &[f64], tol: f64) {
    assert_eq!(
        tangent.len(),
        fd.len(),
        "{what}: {} elements vs {}",
        tangent.len(),
        fd.len()
    );
    for (k, (t, n)) in tangent.iter().zip(fd).enumerate() {
        assert!(
            (t - n).abs() <= tol * n.abs().max(1.0),
            "{what}: element {k}: jvp! {t}, finite difference {n}\n  jvp!: {tangent:?}\n  fd:   {fd:?}"
        );
    }
}

fn flat<D: autodiff::ndarray::Dimension>(a: &autodiff::ndarray::Array<f64, D>) -> Vec<f64> {
    a.iter().copied().collect()
}

fn flat32<D: autodiff::ndarray::Dimension>(a: &autodiff::ndarray::Array<f32, D>) -> Vec<f64> {
    a.iter().map(|&x| f64::from(x)).collect()
}

fn to32(a: &ArrayD<f64>) -> ArrayD<f32> {
    a.mapv(|x| x as f32)
}

fn shifted(a: &ArrayD<f64>, s: f64, t: &ArrayD<f64>) -> ArrayD<f64> {
    a + &(t * s)
}

/// The functions under test, once per float type.
macro_rules! functions {
    ($m:ident, $t:ident) => {
        mod $m {
            use super::*;

            #[differentiable]
            pub fn add(a: &ArrayD<$t>, b: &ArrayD<$t>) -> ArrayD<$t> {
                a + b
            }
            #[differentiable]
            pub fn sub(a: &ArrayD<$t>, b: &ArrayD<$t>) -> ArrayD<$t> {
                a - b
            }
            #[differentiable]
            pub fn mul(a: &ArrayD<$t>, b: &ArrayD<$t>) -> ArrayD<$t> {
                a * b
            }
            #[differentiable]
            pub fn div(a: &ArrayD<$t>, b: &ArrayD<$t>) -> ArrayD<$t> {
                a / b
            }
            /// arrays with a differentiable scalar and with literals, on both sides
            #[differentiable]
            pub fn with_scalars(a: &ArrayD<$t>, s: $t) -> ArrayD<$t> {
                let p = a * s + 1.5;
                let q = s - &p;
                let r = &q / s;
                let u = 2.0 - &r * 0.5;
                -(&u / 1.25)
            }
            #[differentiable]
            pub fn elementwise(x: &ArrayD<$t>) -> ArrayD<$t> {
                let a = x.exp() + x.sin() + x.cos() * x.tanh();
                let b = x.powi(3) + x.sqrt() + x.ln() + x.abs();
                let c = x.mapv($t::atan) + x.mapv(|v| v * v * 0.5);
                a + b + c
            }
            #[differentiable]
            pub fn reductions(x: &Array2<$t>) -> Array1<$t> {
                let rows = x.sum_axis(Axis(1));
                let cols = x.mean_axis(Axis(0)).unwrap();
                let all = x.sum() + x.mean().unwrap() * 2.0;
                &rows * all + cols.sum()
            }
            /// reductions to a scalar whose tangent is not the reduction of the tangent
            #[differentiable]
            pub fn statistics(x: &Array1<$t>) -> Array1<$t> {
                let s = x.product() + x.var(1.0) * 2.0 + x.std(0.0);
                x * s
            }
            #[differentiable]
            pub fn products(
                a: &Array2<$t>,
                b: &Array2<$t>,
                u: &Array1<$t>,
                v: &Array1<$t>,
            ) -> Array2<$t> {
                let mm = a.dot(b); // (2,3)·(3,2)
                let mv = a.dot(v); // (2,3)·(3,)
                let vm = u.dot(a); // (2,)·(2,3)
                let vv = u.dot(u); // (2,)·(2,)
                let t = a.t().dot(&mm); // (3,2)·(2,2)
                &t * vv + &vm.dot(&t).insert_axis(Axis(0)) + &mv.dot(&mm).insert_axis(Axis(0))
            }
            #[differentiable]
            pub fn shapes(x: &Array2<$t>, v: &Array1<$t>) -> Array1<$t> {
                let left = x.slice(s![.., 0..2]).to_owned();
                let r = x.row(1).to_owned();
                let c = x.column(2).to_owned();
                let picked = x.select(Axis(1), &[2, 0, 2]);
                let second = x.index_axis(Axis(0), 0).to_owned();
                let col = v.view().insert_axis(Axis(1)); // (3, 1)
                let wide = v.broadcast((2, 3)).unwrap().to_owned();
                let swapped = x.view().permuted_axes([1, 0]).to_owned(); // (3, 2)
                let grid = (&swapped * &col).sum_axis(Axis(1)); // (3,)
                let flat = x.to_shape(6).unwrap().to_owned();
                &r * v
                    + &second
                    + &grid
                    + left.sum_axis(Axis(1)).sum()
                    + c.sum()
                    + x.diag().sum()
                    + (&picked * &wide).sum_axis(Axis(0))
                    + flat.slice(s![1..4]).to_owned()
            }
        }
    };
}

functions!(f64s, f64);
functions!(f32s, f32);

type Binary<T> = fn(&ArrayD<T>, &ArrayD<T>) -> ArrayD<T>;

/// The four operators, every broadcasting pattern, both operands moving and each alone.
#[test]
fn arithmetic_with_every_broadcasting_pattern() {
    let ops: [(&str, Binary<f64>); 4] = [
        ("add", f64s::add),
        ("sub", f64s::sub),
        ("mul", f64s::mul),
        ("div", f64s::div),
    ];
    for case in 0..CASES {
        let mut rng = Rng::new(case);
        let (out, sa, sb) = rng.broadcast_shapes();
        for (op, (name, f)) in ops.iter().enumerate() {
            let a = rng.values(&sa, -2.0, 2.0);
            let b = if op == 3 {
                rng.divisors(&sb)
            } else {
                rng.values(&sb, -2.0, 2.0)
            };
            let (ta, tb) = (rng.values(&sa, -1.0, 1.0), rng.values(&sb, -1.0, 1.0));
            let zero_a = ArrayD::zeros(IxDyn(&sa));
            let zero_b = ArrayD::zeros(IxDyn(&sb));
            // both, `a` alone, `b` alone
            let fds: Vec<Vec<f64>> = [(&ta, &tb), (&ta, &zero_b), (&zero_a, &tb)]
                .iter()
                .map(|(ta, tb)| along(|s| flat(&f(&shifted(&a, s, ta), &shifted(&b, s, tb)))))
                .collect();
            let what = |mode: &str, ty: &str| {
                format!("{name} {ty} ({mode}) of {sa:?} and {sb:?} → {out:?}")
            };
            let (y, t) = match op {
                0 => jvp!(f64s::add)(&a, &b, &ta, &tb),
                1 => jvp!(f64s::sub)(&a, &b, &ta, &tb),
                2 => jvp!(f64s::mul)(&a, &b, &ta, &tb),
                _ => jvp!(f64s::div)(&a, &b, &ta, &tb),
            };
            assert_eq!(y.shape(), &out[..], "{}", what("both", "f64"));
            assert_close(&what("both", "f64"), &flat(&t), &fds[0], F64_TOL);
            let (_, t) = match op {
                0 => jvp!(f64s::add, params = ["a"])(&a, &b, &ta),
                1 => jvp!(f64s::sub, params = ["a"])(&a, &b, &ta),
                2 => jvp!(f64s::mul, params = ["a"])(&a, &b, &ta),
                _ => jvp!(f64s::div, params = ["a"])(&a, &b, &ta),
            };
            assert_close(&what("a alone", "f64"), &flat(&t), &fds[1], F64_TOL);
            let (_, t) = match op {
                0 => jvp!(f64s::add, params = ["b"])(&a, &b, &tb),
                1 => jvp!(f64s::sub, params = ["b"])(&a, &b, &tb),
                2 => jvp!(f64s::mul, params = ["b"])(&a, &b, &tb),
                _ => jvp!(f64s::div, params = ["b"])(&a, &b, &tb),
            };
            assert_close(&what("b alone", "f64"), &flat(&t), &fds[2], F64_TOL);
            let (a32, b32, ta32, tb32) = (to32(&a), to32(&b), to32(&ta), to32(&tb));
            let (_, t) = match op {
                0 => jvp!(f32s::add)(&a32, &b32, &ta32, &tb32),
                1 => jvp!(f32s::sub)(&a32, &b32, &ta32, &tb32),
                2 => jvp!(f32s::mul)(&a32, &b32, &ta32, &tb32),
                _ => jvp!(f32s::div)(&a32, &b32, &ta32, &tb32),
            };
            assert_close(&what("both", "f32"), &flat32(&t), &fds[0], F32_TOL);
            let (_, t) = match op {
                0 => jvp!(f32s::add, params = ["b"])(&a32, &b32, &tb32),
                1 => jvp!(f32s::sub, params = ["b"])(&a32, &b32, &tb32),
                2 => jvp!(f32s::mul, params = ["b"])(&a32, &b32, &tb32),
                _ => jvp!(f32s::div, params = ["b"])(&a32, &b32, &tb32),
            };
            assert_close(&what("b alone", "f32"), &flat32(&t), &fds[2], F32_TOL);
        }
    }
}

#[test]
fn arrays_with_scalars_and_literals() {
    for case in 0..CASES {
        let mut rng = Rng::new(100 + case);
        let rank = rng.below(4);
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4)).collect();
        let a = rng.values(&shape, -2.0, 2.0);
        let ta = rng.values(&shape, -1.0, 1.0);
        let s = 0.5 + 1.5 * rng.unit();
        let ts = 2.0 * rng.unit() - 1.0;
        let fd = along(|h| flat(&f64s::with_scalars(&shifted(&a, h, &ta), s + h * ts)));
        let (_, t) = jvp!(f64s::with_scalars)(&a, s, &ta, ts);
        assert_close(
            &format!("with_scalars f64 {shape:?}"),
            &flat(&t),
            &fd,
            F64_TOL,
        );
        let fd_s = along(|h| flat(&f64s::with_scalars(&a, s + h * ts)));
        let (_, t) = jvp!(f64s::with_scalars, params = ["s"])(&a, s, ts);
        assert_close(
            &format!("with_scalars f64 {shape:?}, s alone"),
            &flat(&t),
            &fd_s,
            F64_TOL,
        );
        let (_, t) = jvp!(f32s::with_scalars)(&to32(&a), s as f32, &to32(&ta), ts as f32);
        assert_close(
            &format!("with_scalars f32 {shape:?}"),
            &flat32(&t),
            &fd,
            F32_TOL,
        );
    }
}

#[test]
fn elementwise_methods_and_mapv() {
    for case in 0..CASES {
        let mut rng = Rng::new(200 + case);
        let rank = rng.below(4);
        let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4)).collect();
        // (`ln` and `sqrt` need positive arguments, `abs` one away from its kink)
        let x = rng.values(&shape, 0.5, 2.0);
        let tx = rng.values(&shape, -1.0, 1.0);
        let fd = along(|h| flat(&f64s::elementwise(&shifted(&x, h, &tx))));
        let (_, t) = jvp!(f64s::elementwise)(&x, &tx);
        assert_close(
            &format!("elementwise f64 {shape:?}"),
            &flat(&t),
            &fd,
            F64_TOL,
        );
        let (_, t) = jvp!(f32s::elementwise)(&to32(&x), &to32(&tx));
        assert_close(
            &format!("elementwise f32 {shape:?}"),
            &flat32(&t),
            &fd,
            F32_TOL,
        );
    }
}

fn matrix(rng: &mut Rng, r: usize, c: usize) -> Array2<f64> {
    Array2::from_shape_simple_fn((r, c), || 4.0 * rng.unit() - 2.0)
}

fn vector(rng: &mut Rng, n: usize) -> Array1<f64> {
    Array1::from_shape_simple_fn(n, || 4.0 * rng.unit() - 2.0)
}

#[test]
fn reductions_products_and_shape_operations() {
    for case in 0..CASES {
        let mut rng = Rng::new(300 + case);
        let (r, c) = (1 + rng.below(4), 1 + rng.below(4));
        let (x, tx) = (matrix(&mut rng, r, c), matrix(&mut rng, r, c));
        let fd = along(|h| flat(&f64s::reductions(&(&x + &(&tx * h)))));
        let (_, t) = jvp!(f64s::reductions)(&x, &tx);
        assert_close(
            &format!("reductions f64 ({r}, {c})"),
            &flat(&t),
            &fd,
            F64_TOL,
        );
        let (_, t) = jvp!(f32s::reductions)(&x.mapv(|v| v as f32), &tx.mapv(|v| v as f32));
        assert_close(
            &format!("reductions f32 ({r}, {c})"),
            &flat32(&t),
            &fd,
            F32_TOL,
        );

        let n = 2 + rng.below(4);
        let (x, tx) = (vector(&mut rng, n), vector(&mut rng, n));
        let fd = along(|h| flat(&f64s::statistics(&(&x + &(&tx * h)))));
        let (_, t) = jvp!(f64s::statistics)(&x, &tx);
        assert_close(&format!("statistics f64 ({n})"), &flat(&t), &fd, F64_TOL);
        let (_, t) = jvp!(f32s::statistics)(&x.mapv(|v| v as f32), &tx.mapv(|v| v as f32));
        assert_close(&format!("statistics f32 ({n})"), &flat32(&t), &fd, F32_TOL);

        let (a, ta) = (matrix(&mut rng, 2, 3), matrix(&mut rng, 2, 3));
        let (b, tb) = (matrix(&mut rng, 3, 2), matrix(&mut rng, 3, 2));
        let (u, tu) = (vector(&mut rng, 2), vector(&mut rng, 2));
        let (v, tv) = (vector(&mut rng, 3), vector(&mut rng, 3));
        let fd = along(|h| {
            flat(&f64s::products(
                &(&a + &(&ta * h)),
                &(&b + &(&tb * h)),
                &(&u + &(&tu * h)),
                &(&v + &(&tv * h)),
            ))
        });
        let (_, t) = jvp!(f64s::products)(&a, &b, &u, &v, &ta, &tb, &tu, &tv);
        assert_close("products f64", &flat(&t), &fd, F64_TOL);
        let c32 = |m: &Array2<f64>| m.mapv(|v| v as f32);
        let v32 = |m: &Array1<f64>| m.mapv(|v| v as f32);
        let (_, t) = jvp!(f32s::products)(
            &c32(&a),
            &c32(&b),
            &v32(&u),
            &v32(&v),
            &c32(&ta),
            &c32(&tb),
            &v32(&tu),
            &v32(&tv),
        );
        assert_close("products f32", &flat32(&t), &fd, F32_TOL);

        let fd = along(|h| flat(&f64s::shapes(&(&a + &(&ta * h)), &(&v + &(&tv * h)))));
        let (_, t) = jvp!(f64s::shapes)(&a, &v, &ta, &tv);
        assert_close("shapes f64", &flat(&t), &fd, F64_TOL);
        let (_, t) = jvp!(f32s::shapes)(&c32(&a), &v32(&v), &c32(&ta), &v32(&tv));
        assert_close("shapes f32", &flat32(&t), &fd, F32_TOL);
    }
}
