//! `hvp!` and `hessian!` of functions taking fixed-size arrays (`[T; N]`, `&[T; N]`),
//! ndarray arrays (`Array1<T>`, `&Array2<T>`, by value or reference) and derived structs
//! generic over their float type (`Mlp<T>`), the functions generic over the float type or
//! written with `f64` and marked `second_order`: checked against Hessians derived by hand
//! and against central differences of the reverse gradient.

use autodiff::ndarray::{array, Array1, Array2, LinalgScalar};
use autodiff::prelude::*;
use autodiff::Real;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// `Σ xᵢ⁴ + x·x`: a map, an elementwise product, a sum and a dot product.
#[differentiable]
fn quartic<T: Float + LinalgScalar>(x: &Array1<T>) -> T {
    let s = x.mapv(|v| v * v);
    (&s * &s).sum() + x.dot(x)
}

/// `‖A‖²_F · a₀₁` of a matrix taken by value.
#[differentiable]
fn frobenius_times_entry<T: Float + LinalgScalar>(a: Array2<T>) -> T {
    (&a * &a).sum() * a[[0, 1]]
}

/// `x₀ x₁ x₂ y + sin x₀` of a fixed-size array (by reference) and a scalar.
#[differentiable]
fn triple<T: Float>(x: &[T; 3], y: T) -> T {
    x[0] * x[1] * x[2] * y + x[0].sin()
}

/// The same written with `f64`, the array by value.
#[differentiable(second_order)]
fn triple_f64(x: [f64; 3], y: f64) -> f64 {
    x[0] * x[1] * x[2] * y + x[0].sin()
}

/// `Σ exp(xᵢ) xᵢ₊₁` of an `Array1<f64>` by reference, written with `f64`.
#[differentiable(second_order)]
fn chained_exp(x: &Array1<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += x[i].exp() * x[i + 1];
    }
    s
}

/// `h` is diagonal with `diagonal(i)` at `(i, i)`.
fn assert_diagonal(h: &Array2<f64>, diagonal: impl Fn(usize) -> f64, tol: f64) {
    for ((i, j), got) in h.indexed_iter() {
        let expected = if i == j { diagonal(i) } else { 0.0 };
        assert!(
            close(*got, expected, tol),
            "H[{i},{j}] = {got}, not {expected}"
        );
    }
}

/// Central differences of a gradient `g` along `v` (flattened), step `h`.
fn gradient_difference(g: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], v: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let plus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
    let minus: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
    let (gp, gm) = (g(&plus), g(&minus));
    gp.iter()
        .zip(&gm)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

#[test]
fn an_ndarray_vector_by_reference() {
    let x = array![0.5, -1.0, 2.0, 0.25];
    let v = array![1.0, -0.5, 0.25, 2.0];
    // diagonal: 12 xᵢ² + 2
    let h = hessian!(quartic)(&x);
    assert_diagonal(&h, |i| 12.0 * x[i] * x[i] + 2.0, 1e-14);
    let hv: Array1<f64> = hvp!(quartic)(&x, &v);
    let fd = gradient_difference(
        |p| gradients_function!(quartic)(&Array1::from(p.to_vec())).to_vec(),
        x.as_slice().unwrap(),
        v.as_slice().unwrap(),
    );
    for i in 0..4 {
        assert!(close(hv[i], h.row(i).dot(&v), 1e-14));
        assert!(close(hv[i], fd[i], 1e-6), "{} vs {}", hv[i], fd[i]);
    }
    // in f32
    let x32 = x.mapv(|a| a as f32);
    let h32 = hessian!(quartic)(&x32);
    assert!((f64::from(h32[[1, 1]]) - h[[1, 1]]).abs() < 1e-4);
}

#[test]
fn an_ndarray_matrix_by_value() {
    let a = array![[1.0, 2.0], [3.0, 4.0]];
    // f = S a₀₁ with S = Σ a²: ∂²f/∂a_p∂a_q = 2δ_pq a₀₁ + 2a_p δ_q,01 + 2a_q δ_p,01, the
    // entries in row-major order
    let flat = [1.0, 2.0, 3.0, 4.0];
    let h = hessian!(frobenius_times_entry)(a.clone());
    for p in 0..4 {
        for q in 0..4 {
            let mut expected = 0.0;
            if p == q {
                expected += 2.0 * flat[1];
            }
            if q == 1 {
                expected += 2.0 * flat[p];
            }
            if p == 1 {
                expected += 2.0 * flat[q];
            }
            assert!(close(h[[p, q]], expected, 1e-14), "H[{p},{q}]");
        }
    }
    let v = array![[0.5, -1.0], [2.0, 0.25]];
    let hv: Array2<f64> = hvp!(frobenius_times_entry)(a.clone(), v.clone());
    assert_eq!(hv.dim(), (2, 2));
    let fd = gradient_difference(
        |p| {
            let m = Array2::from_shape_vec((2, 2), p.to_vec()).unwrap();
            gradients_function!(frobenius_times_entry)(m)
                .iter()
                .copied()
                .collect()
        },
        &flat,
        v.as_slice().unwrap(),
    );
    for (k, (a, b)) in hv.iter().zip(&fd).enumerate() {
        assert!(close(*a, *b, 1e-6), "{k}: {a} vs {b}");
    }
}

/// The Hessian of `triple` in `x`, by hand.
fn triple_hessian(x: [f64; 3], y: f64) -> [[f64; 3]; 3] {
    [
        [-x[0].sin(), x[2] * y, x[1] * y],
        [x[2] * y, 0.0, x[0] * y],
        [x[1] * y, x[0] * y, 0.0],
    ]
}

#[test]
fn fixed_size_arrays_generic_and_written_with_f64() {
    let (x, y) = ([0.5, -1.0, 2.0], 1.5);
    let expected = triple_hessian(x, y);
    let h = hessian!(triple, params = ["x"])(&x, y);
    let h64 = hessian!(triple_f64, params = ["x"])(x, y);
    for i in 0..3 {
        for j in 0..3 {
            assert!(close(h[[i, j]], expected[i][j], 1e-14), "H[{i},{j}]");
            assert_eq!(h[[i, j]], h64[[i, j]]);
        }
    }
    // both parameters: the x block applied to v and the cross terms ∂²f/∂x∂y = x₁x₂, …
    let v = [1.0, 0.5, -2.0];
    let (hx, hy): ([f64; 3], f64) = hvp!(triple)(&x, y, &v, 0.25);
    let (hx64, hy64) = hvp!(triple_f64)(x, y, v, 0.25);
    let cross = [x[1] * x[2], x[0] * x[2], x[0] * x[1]];
    for i in 0..3 {
        let row: f64 = (0..3).map(|j| expected[i][j] * v[j]).sum::<f64>() + cross[i] * 0.25;
        assert!(close(hx[i], row, 1e-14), "{i}: {} vs {row}", hx[i]);
        assert_eq!(hx[i], hx64[i]);
    }
    let hy_expected: f64 = (0..3).map(|j| cross[j] * v[j]).sum();
    assert!(close(hy, hy_expected, 1e-14) && hy == hy64);
    // against differences of the reverse gradient
    let fd = gradient_difference(
        |p| {
            let (gx, gy) = gradients_function!(triple)(&[p[0], p[1], p[2]], p[3]);
            vec![gx[0], gx[1], gx[2], gy]
        },
        &[x[0], x[1], x[2], y],
        &[v[0], v[1], v[2], 0.25],
    );
    for (k, a) in hx.iter().chain([&hy]).enumerate() {
        assert!(close(*a, fd[k], 1e-6), "{k}: {a} vs {}", fd[k]);
    }
}

#[test]
fn an_ndarray_vector_written_with_f64() {
    let x = array![0.3, -0.2, 0.5, 1.0];
    let h = hessian!(chained_exp)(&x);
    // ∂²/∂xᵢ² = eˣⁱ xᵢ₊₁, ∂²/∂xᵢ∂xᵢ₊₁ = eˣⁱ
    for i in 0..4 {
        for j in 0..4 {
            let expected = if i == j && i < 3 {
                x[i].exp() * x[i + 1]
            } else if j == i + 1 {
                x[i].exp()
            } else if i == j + 1 {
                x[j].exp()
            } else {
                0.0
            };
            assert!(close(h[[i, j]], expected, 1e-14), "H[{i},{j}]");
        }
    }
}

/// `Σ (3 s aᵢ)² + s Σ aᵢ / n + Σ 1 / (1 + aᵢ²)` written with `f64` as ndarray code is: a
/// scalar on the left of arrays (`2.0 * a`, `s * &b`, `1.0 + &q`, `1.0 / &r`, which
/// ndarray has for `f64` only) and on the right (`a * s`).
#[differentiable(second_order)]
fn scaled_f64(a: &Array1<f64>, s: f64) -> f64 {
    let b = 2.0 * a;
    let c = s * &b + a * s;
    let q = a * a;
    let r = 1.0 + &q;
    (&c * &c).sum() + (s * a).sum() / a.len() as f64 + (1.0 / &r).sum()
}

#[test]
fn scalars_on_the_left_of_arrays_written_with_f64() {
    let (a, s) = (array![0.5, -1.0, 2.0], 0.75);
    let h = hessian!(scaled_f64, params = ["a"])(&a, s);
    // ∂²/∂aᵢ² of 9 s² aᵢ² + 1 / (1 + aᵢ²): 18 s² + (6 aᵢ² − 2) / (1 + aᵢ²)³; no cross terms
    let q = |i: usize| 1.0 + a[i] * a[i];
    let diagonal = |i: usize| 18.0 * s * s + (6.0 * a[i] * a[i] - 2.0) / q(i).powi(3);
    assert_diagonal(&h, diagonal, 1e-13);
    // the product with a vector and the mixed row, against differences of the gradient
    let v = array![1.0, -0.5, 0.25];
    let hv = hvp!(scaled_f64)(&a, s, &v, 0.5);
    let g = |p: &[f64]| {
        let (ga, gs) = gradients_function!(scaled_f64)(&Array1::from(p[..3].to_vec()), p[3]);
        let mut out = ga.to_vec();
        out.push(gs);
        out
    };
    let fd = gradient_difference(g, &[a[0], a[1], a[2], s], &[v[0], v[1], v[2], 0.5]);
    for (k, (got, want)) in hv.0.iter().chain([&hv.1]).zip(&fd).enumerate() {
        assert!(close(*got, *want, 1e-6), "row {k}: {got} vs {want}");
    }
}

#[test]
#[should_panic(expected = "has shape [2]")]
fn a_vector_of_the_wrong_shape_panics() {
    let x = array![0.5, -1.0, 2.0];
    let _ = hvp!(quartic)(&x, &array![1.0, 0.0]);
}

/// A two-layer perceptron generic over its float type, as ML code writes its models.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Mlp<T: Real> {
    pub w1: Array2<T>,
    pub b1: Array1<T>,
    pub w2: Array2<T>,
    pub b2: Array1<T>,
}

/// Softmax cross-entropy of a batch, the inputs a constant made of the float type.
#[differentiable]
fn mlp_loss<T: Real>(m: &Mlp<T>, #[no_grad] x: &Array2<T>, labels: &[usize]) -> T {
    let h = (x.dot(&m.w1) + &m.b1).mapv(T::tanh);
    let logits = h.dot(&m.w2) + &m.b2;
    autodiff::nn::cross_entropy(&logits, labels)
}

fn mlp(scale: f64, shift: f64) -> Mlp<f64> {
    Mlp {
        w1: Array2::from_shape_fn((3, 4), |(i, j)| {
            scale * ((i * 4 + j) as f64 * 0.7 + shift).sin()
        }),
        b1: Array1::from_shape_fn(4, |i| scale * (i as f64 + shift).cos()),
        w2: Array2::from_shape_fn((4, 2), |(i, j)| {
            scale * ((i * 2 + j) as f64 * 1.3 + shift).cos()
        }),
        b2: Array1::from_shape_fn(2, |i| scale * (i as f64 * 0.5 - shift).sin()),
    }
}

/// `a + h v`, field by field.
fn step(a: &Mlp<f64>, v: &Mlp<f64>, h: f64) -> Mlp<f64> {
    Mlp {
        w1: &a.w1 + &(&v.w1 * h),
        b1: &a.b1 + &(&v.b1 * h),
        w2: &a.w2 + &(&v.w2 * h),
        b2: &a.b2 + &(&v.b2 * h),
    }
}

#[test]
fn a_derived_struct_generic_over_its_float_type() {
    let m = mlp(0.5, 0.1);
    let v = mlp(1.0, 0.7);
    let x = Array2::from_shape_fn((5, 3), |(i, j)| ((i * 3 + j) as f64 * 0.37).sin());
    let labels = [0, 1, 1, 0, 1];
    let hv = hvp!(mlp_loss)(&m, &x, &labels, &v);
    // central differences of the reverse gradient along v
    let h = 1e-5;
    let gp = gradients_function!(mlp_loss)(&step(&m, &v, h), &x, &labels);
    let gm = gradients_function!(mlp_loss)(&step(&m, &v, -h), &x, &labels);
    let pairs = [
        (hv.w1.iter().collect::<Vec<_>>(), &gp.w1 - &gm.w1),
        (hv.w2.iter().collect::<Vec<_>>(), &gp.w2 - &gm.w2),
    ];
    for (hv, diff) in pairs {
        for (a, d) in hv.into_iter().zip(diff.iter()) {
            assert!(close(*a, d / (2.0 * h), 1e-6), "{a} vs {}", d / (2.0 * h));
        }
    }
    for (a, d) in hv.b1.iter().zip((&gp.b1 - &gm.b1).iter()) {
        assert!(close(*a, d / (2.0 * h), 1e-6), "{a} vs {}", d / (2.0 * h));
    }
    for (a, d) in hv.b2.iter().zip((&gp.b2 - &gm.b2).iter()) {
        assert!(close(*a, d / (2.0 * h), 1e-6), "{a} vs {}", d / (2.0 * h));
    }
    // linear in v: H(2v) = 2 Hv, and H·0 = 0
    let hv2 = hvp!(mlp_loss)(&m, &x, &labels, &step(&v, &v, 1.0));
    for (a, b) in hv2.w1.iter().zip(hv.w1.iter()) {
        assert!(close(*a, 2.0 * b, 1e-12));
    }
    let zero = step(&v, &v, -1.0);
    let h0 = hvp!(mlp_loss)(&m, &x, &labels, &zero);
    assert!(h0.w1.iter().chain(h0.b2.iter()).all(|g| *g == 0.0));
}

#[test]
#[should_panic(expected = "the vector's field `b1` (of a `Mlp`) has shape [3]")]
fn a_struct_vector_of_the_wrong_shape_panics() {
    let m = mlp(0.5, 0.1);
    let mut v = mlp(1.0, 0.7);
    v.b1 = Array1::zeros(3);
    let x = Array2::zeros((2, 3));
    let _ = hvp!(mlp_loss)(&m, &x, &[0, 1], &v);
}

/// A model holding layers: structs generic over the float type nested in one another.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Affine<T: Real> {
    pub w: Array2<T>,
    pub b: Array1<T>,
}

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Stack<T: Real> {
    pub first: Affine<T>,
    pub second: Affine<T>,
    pub scale: T,
}

#[differentiable]
fn stack_loss<T: Real>(s: &Stack<T>, #[no_grad] x: &Array1<T>) -> T {
    let h = (s.first.w.dot(x) + &s.first.b).mapv(T::tanh);
    let y = (s.second.w.dot(&h) + &s.second.b).mapv(T::tanh);
    (&y * &y).sum() * s.scale
}

fn stack(k: f64) -> Stack<f64> {
    let affine = |r: usize, c: usize, k: f64| Affine {
        w: Array2::from_shape_fn((r, c), |(i, j)| ((i * c + j) as f64 * 0.9 + k).sin() * 0.7),
        b: Array1::from_shape_fn(r, |i| (i as f64 + k).cos() * 0.3),
    };
    Stack {
        first: affine(3, 2, k),
        second: affine(2, 3, 2.0 * k),
        scale: 1.0 + 0.25 * k,
    }
}

#[test]
fn nested_structs_generic_over_their_float_type() {
    let (s, v) = (stack(0.3), stack(1.1));
    let x = array![0.4, -0.8];
    let hv = hvp!(stack_loss)(&s, &x, &v);
    let shift = |t: f64| Stack {
        first: Affine {
            w: &s.first.w + &(&v.first.w * t),
            b: &s.first.b + &(&v.first.b * t),
        },
        second: Affine {
            w: &s.second.w + &(&v.second.w * t),
            b: &s.second.b + &(&v.second.b * t),
        },
        scale: s.scale + v.scale * t,
    };
    let h = 1e-5;
    let gp = gradients_function!(stack_loss)(&shift(h), &x);
    let gm = gradients_function!(stack_loss)(&shift(-h), &x);
    let fd = |a: f64, b: f64| (a - b) / (2.0 * h);
    // each field of the product against the differences of the same field of the gradient
    let field = |name: &str, got: &[f64], plus: &[f64], minus: &[f64]| {
        for (a, (p, m)) in got.iter().zip(plus.iter().zip(minus)) {
            assert!(close(*a, fd(*p, *m), 1e-6), "{name}: {a} vs {}", fd(*p, *m));
        }
    };
    let flat = |a: &Array2<f64>| a.iter().copied().collect::<Vec<f64>>();
    field(
        "first.w",
        &flat(&hv.first.w),
        &flat(&gp.first.w),
        &flat(&gm.first.w),
    );
    field(
        "second.b",
        &hv.second.b.to_vec(),
        &gp.second.b.to_vec(),
        &gm.second.b.to_vec(),
    );
    assert!(close(hv.scale, fd(gp.scale, gm.scale), 1e-6));
}

#[test]
#[should_panic(expected = "the vector's field `b` (of a `Affine`) has shape [2]")]
fn a_nested_field_of_the_wrong_shape_panics() {
    let s = stack(0.3);
    let mut v = stack(1.1);
    v.first.b = Array1::zeros(2);
    let _ = hvp!(stack_loss)(&s, &array![0.4, -0.8], &v);
}
