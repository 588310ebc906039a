//! Forward mode (`jvp!`) of parameters of derived structs: the tangent argument is the
//! struct's tangent (`&MlpTangent` for `m: &Mlp`), each field's tangent read as the field
//! is. Checked against ⟨∇f, v⟩ from the reverse gradient (the same struct tangent) and
//! against central differences along `v`; `#[no_grad]` fields (a float and an enum),
//! structs by value, handed on to a callee, lent as constants, nested, generic over the
//! float (`f64` and `f32`); tangents of the wrong shape.

use autodiff::ndarray::{array, Array1, Array2};
use autodiff::prelude::*;
use autodiff::NoTangent;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Activation {
    Tanh,
    Softplus,
}

#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array1<f64>,
    b2: f64,
    #[no_grad]
    act: Activation,
    #[no_grad]
    scale: f64,
}

#[differentiable]
fn mlp_loss(m: &Mlp, x: &Array2<f64>, y: &Array1<f64>) -> f64 {
    let z = x.dot(&m.w1) + &m.b1;
    let h = if m.act == Activation::Tanh {
        z.mapv(f64::tanh)
    } else {
        z.mapv(|v| (1.0 + v.exp()).ln())
    };
    let out = h.dot(&m.w2) + m.b2 * m.scale;
    let d = &out - y;
    (&d * &d).sum() / x.nrows() as f64
}

/// `m + h·v` (the `#[no_grad]` fields kept).
fn step(m: &Mlp, v: &MlpTangent, h: f64) -> Mlp {
    Mlp {
        w1: &m.w1 + &(&v.w1 * h),
        b1: &m.b1 + &(&v.b1 * h),
        w2: &m.w2 + &(&v.w2 * h),
        b2: m.b2 + h * v.b2,
        ..m.clone()
    }
}

fn dot(g: &MlpTangent, v: &MlpTangent) -> f64 {
    (&g.w1 * &v.w1).sum() + (&g.b1 * &v.b1).sum() + (&g.w2 * &v.w2).sum() + g.b2 * v.b2
}

fn mlp(act: Activation) -> (Mlp, MlpTangent, Array2<f64>, Array1<f64>) {
    let m = Mlp {
        w1: array![[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]],
        b1: array![0.05, -0.1, 0.2],
        w2: array![0.7, -0.3, 0.9],
        b2: 0.25,
        act,
        scale: 1.5,
    };
    let v = MlpTangent {
        w1: array![[1.0, 0.5, -0.25], [-0.5, 2.0, 0.75]],
        b1: array![0.3, -1.0, 0.5],
        w2: array![-0.4, 0.6, 1.1],
        b2: -0.8,
        act: NoTangent,
        scale: NoTangent,
    };
    let x = array![[0.5, -1.0], [1.5, 0.25], [-0.75, 0.8], [0.2, 0.1]];
    let y = array![0.3, -0.2, 0.9, 0.0];
    (m, v, x, y)
}

#[test]
fn a_model_of_arrays_against_the_gradient_and_differences() {
    for act in [Activation::Tanh, Activation::Softplus] {
        let (m, v, x, y) = mlp(act);
        let zero_x = Array2::zeros(x.raw_dim());
        let zero_y = Array1::zeros(y.len());
        let (value, tangent) = jvp!(mlp_loss)(&m, &x, &y, &v, &zero_x, &zero_y);
        assert_eq!(value, mlp_loss(&m, &x, &y));
        let (g, _, _) = gradients_function!(mlp_loss)(&m, &x, &y);
        let along = dot(&g, &v);
        assert!(
            close(tangent, along, 1e-12),
            "{act:?}: {tangent} vs ⟨∇f, v⟩ {along}"
        );
        let h = 1e-6;
        let fd =
            (mlp_loss(&step(&m, &v, h), &x, &y) - mlp_loss(&step(&m, &v, -h), &x, &y)) / (2.0 * h);
        assert!(
            close(tangent, fd, 1e-7),
            "{act:?}: {tangent} vs difference {fd}"
        );
        // only the model's tangent, the data's zero
        let (_, selected) = jvp!(mlp_loss, params = ["m"])(&m, &x, &y, &v);
        assert_eq!(selected, tangent);
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Params {
    w: f64,
    b: Vec<f64>,
    #[no_grad]
    scale: f64,
}

#[differentiable]
fn inner(p: &Params, x: f64) -> f64 {
    p.w * x * p.scale + p.b[0] * p.b[1] * x.sin()
}

/// By value, handed on, and a constant struct lent to the same callee.
#[differentiable]
fn outer(p: Params, x: f64, #[no_grad] q: &Params) -> f64 {
    inner(&p, x) * x + inner(q, p.w)
}

#[test]
fn structs_by_value_handed_on_and_lent_as_constants() {
    let p = Params {
        w: 0.7,
        b: vec![1.5, -0.4],
        scale: 2.0,
    };
    let q = Params {
        w: -0.3,
        b: vec![0.2, 0.9],
        scale: 0.5,
    };
    let (x, w, b0, b1, s) = (0.8_f64, p.w, p.b[0], p.b[1], p.scale);
    // d/dp·v and d/dx by hand: inner(p, x) = w x s + b0 b1 sin x
    let inner_p = w * x * s + b0 * b1 * x.sin();
    let (vw, vb0, vb1, vx) = (1.0, -0.5, 2.0, 0.3);
    let d_inner = vw * x * s + (vb0 * b1 + b0 * vb1) * x.sin() + (w * s + b0 * b1 * x.cos()) * vx;
    // inner(q, w) = q.w w q.scale + q.b0 q.b1 sin w depends on p through w only
    let d_lent = (q.w * q.scale + q.b[0] * q.b[1] * w.cos()) * vw;
    let expected = d_inner * x + inner_p * vx + d_lent;
    let v = ParamsTangent {
        w: vw,
        b: vec![vb0, vb1],
        scale: NoTangent,
    };
    let (value, tangent) = jvp!(outer)(p.clone(), x, &q, v.clone(), vx);
    assert_eq!(value, outer(p.clone(), x, &q));
    assert!(close(tangent, expected, 1e-14), "{tangent} vs {expected}");
    let (g, gx) = gradients_function!(outer)(p.clone(), x, &q);
    let along = g.w * vw + g.b[0] * vb0 + g.b[1] * vb1 + gx * vx;
    assert!(close(tangent, along, 1e-14), "{tangent} vs ⟨∇f, v⟩ {along}");
    // a tangent of the struct alone
    let (_, dp) = jvp!(outer, params = ["p"])(p.clone(), x, &q, v);
    let by_hand = (vw * x * s + (vb0 * b1 + b0 * vb1) * x.sin()) * x + d_lent;
    assert!(close(dp, by_hand, 1e-14), "{dp} vs {by_hand}");
}

#[derive(Clone, Debug, Differentiable)]
struct Layer<T: Real> {
    w: Array1<T>,
    c: T,
}

#[derive(Clone, Debug, Differentiable)]
struct Net<T: Real> {
    first: Layer<T>,
    second: Layer<T>,
    k: T,
}

#[differentiable]
fn net<T: Real>(n: &Net<T>, x: &Array1<T>) -> T {
    let a = (n.first.w.dot(x) + n.first.c).tanh();
    let b = (n.second.w.dot(x) * n.second.c).sin();
    a * n.k + b * b
}

fn net_at<T: Real>(values: [f64; 7]) -> Net<T> {
    let t = |k: usize| T::from(values[k]).unwrap();
    Net {
        first: Layer {
            w: array![t(0), t(1)],
            c: t(2),
        },
        second: Layer {
            w: array![t(3), t(4)],
            c: t(5),
        },
        k: t(6),
    }
}

/// A direction of the same shape.
fn tangent_of<T: Real>(v: Net<T>) -> NetTangent<T> {
    let layer = |l: Layer<T>| LayerTangent { w: l.w, c: l.c };
    NetTangent {
        first: layer(v.first),
        second: layer(v.second),
        k: v.k,
    }
}

#[test]
fn nested_generic_structs_in_f64_and_f32() {
    let at = [0.4, -0.3, 0.2, 0.9, 0.5, -1.1, 1.7];
    let dir = [1.0, -0.5, 0.25, 0.75, -1.5, 0.6, -0.2];
    let x = array![0.6, -1.2];
    let (n, v) = (net_at::<f64>(at), tangent_of(net_at::<f64>(dir)));
    let (value, tangent) = jvp!(net)(&n, &x, &v, &array![0.0, 0.0]);
    assert_eq!(value, net(&n, &x));
    let (g, _) = gradients_function!(net)(&n, &x);
    let along = (&g.first.w * &v.first.w).sum()
        + g.first.c * v.first.c
        + (&g.second.w * &v.second.w).sum()
        + g.second.c * v.second.c
        + g.k * v.k;
    assert!(close(tangent, along, 1e-13), "{tangent} vs ⟨∇f, v⟩ {along}");
    let h = 1e-6;
    let shifted = |s: f64| {
        let p: Vec<f64> = at.iter().zip(&dir).map(|(a, d)| a + s * d).collect();
        net(&net_at::<f64>(p.try_into().unwrap()), &x)
    };
    let fd = (shifted(h) - shifted(-h)) / (2.0 * h);
    assert!(close(tangent, fd, 1e-7), "{tangent} vs difference {fd}");

    // the same function on f32: its tangent rounds the f64 one
    let (n32, v32) = (net_at::<f32>(at), tangent_of(net_at::<f32>(dir)));
    let x32 = x.mapv(|e| e as f32);
    let (_, t32) = jvp!(net)(&n32, &x32, &v32, &array![0.0_f32, 0.0]);
    assert!(close(t32 as f64, tangent, 1e-5), "{t32} vs {tangent}");
}

#[test]
#[should_panic(
    expected = "autodiff: the tangent of `n.second.w` (parameter of `net`) has shape [3], but \
                `n.second.w` has shape [2]"
)]
fn a_nested_field_of_the_wrong_shape_panics_naming_it() {
    let n = net_at::<f64>([0.1; 7]);
    let v = NetTangent {
        first: LayerTangent {
            w: array![1.0, 0.0],
            c: 0.0,
        },
        second: LayerTangent {
            w: array![1.0, 0.0, 2.0],
            c: 0.0,
        },
        k: 0.0,
    };
    let _ = jvp!(net, params = ["n"])(&n, &array![1.0, 2.0], &v);
}

#[test]
#[should_panic(
    expected = "autodiff: the tangent of `p.b` (parameter of `inner`) has shape [1], but `p.b` \
                has shape [2]"
)]
fn a_vec_field_of_the_wrong_length_panics_naming_it() {
    let p = Params {
        w: 1.0,
        b: vec![1.0, 2.0],
        scale: 1.0,
    };
    let v = ParamsTangent {
        w: 1.0,
        b: vec![1.0],
        scale: NoTangent,
    };
    let _ = jvp!(inner)(&p, 0.5, &v, 0.0);
}

/// A derived struct with methods: differentiable with respect to their receiver
/// (`#[differentiable(self)]`) and called in method form, on `self` and on a parameter.
#[derive(Clone, Debug, Differentiable)]
struct Quadratic {
    a: f64,
    b: Vec<f64>,
}

#[differentiable]
impl Quadratic {
    /// `a x² + b₀ x + b₁`
    #[differentiable(self)]
    fn energy(&self, x: f64) -> f64 {
        self.a * x * x + self.b[0] * x + self.b[1]
    }

    #[differentiable(self)]
    fn product(&self, x: f64, y: f64) -> f64 {
        self.energy(x) * self.energy(y)
    }
}

#[differentiable]
fn through_methods(q: &Quadratic, x: f64) -> f64 {
    q.energy(x).sin() + q.product(x, 0.5)
}

#[test]
fn methods_in_forward_mode() {
    let q = Quadratic {
        a: 0.75,
        b: vec![-0.5, 0.25],
    };
    let v = QuadraticTangent {
        a: 0.3,
        b: vec![-1.1, 0.6],
    };
    let (x, tx) = (0.8, -0.45);
    // by hand: E(x) = a x² + b₀ x + b₁, dE = da x² + db₀ x + db₁ + (2 a x + b₀) dx
    let e = |x: f64| q.a * x * x + q.b[0] * x + q.b[1];
    let de = |x: f64, dx: f64| v.a * x * x + v.b[0] * x + v.b[1] + (2.0 * q.a * x + q.b[0]) * dx;
    let (value, tangent) = jvp!(Quadratic::product, params = ["self", "x"])(&q, x, 0.5, &v, tx);
    assert_eq!(value.to_bits(), q.product(x, 0.5).to_bits());
    let hand = de(x, tx) * e(0.5) + e(x) * de(0.5, 0.0);
    assert!(close(tangent, hand, 1e-14), "{tangent} vs {hand}");

    let (value, tangent) = jvp!(through_methods)(&q, x, &v, tx);
    assert_eq!(value.to_bits(), through_methods(&q, x).to_bits());
    let hand = e(x).cos() * de(x, tx) + hand;
    assert!(close(tangent, hand, 1e-14), "{tangent} vs {hand}");
    // and against the reverse gradient: ⟨∇f, v⟩
    let (gq, gx) = gradients_function!(through_methods)(&q, x);
    let along = gq.a * v.a + gq.b[0] * v.b[0] + gq.b[1] * v.b[1] + gx * tx;
    assert!(close(tangent, along, 1e-13), "{tangent} vs {along}");
}

/// A method forward mode does not cover yet (`powf` of an array with a differentiable
/// exponent), reached in method form: its receiver's type is known only to the compiler, so
/// `jvp!` of the caller compiles and the method's reason is a panic where it is called.
struct Scale {
    k: f64,
}

#[differentiable]
impl Scale {
    fn powered(&self, x: &Array1<f64>, p: f64) -> f64 {
        x.powf(p).sum() * self.k
    }
}

#[differentiable]
fn through_powered(#[no_grad] s: &Scale, x: &Array1<f64>, p: f64) -> f64 {
    s.powered(x, p)
}

#[test]
#[should_panic(
    expected = "`powered` cannot be differentiated in forward mode yet: `powf` on \
                           arrays with a differentiable argument other than the receiver"
)]
fn a_method_forward_mode_does_not_cover_panics_with_its_reason() {
    let s = Scale { k: 2.0 };
    let x = array![1.5, 2.0];
    // (the reverse mode has it: ∂/∂p 2 Σ xᵢᵖ = 2 Σ xᵢᵖ ln xᵢ)
    let (_, gp) = gradients_function!(through_powered)(&s, &x, 2.0);
    let hand: f64 = x.iter().map(|v| 2.0 * v.powf(2.0) * v.ln()).sum();
    assert!((gp - hand).abs() < 1e-12, "{gp} vs {hand}");
    let _ = jvp!(through_powered)(&s, &x, 2.0, &x, 1.0);
}
