//! Structs of parameters (`#[derive(Differentiable)]`), the `nn` helpers, a multilayer
//! perceptron against finite differences and a hand-written backpropagation, optimizers
//! updating a model, and array variables in the implicit mode.

use autodiff::check::{assert_gradient_close, finite_difference, finite_difference_array as fd};
use autodiff::ndarray::{array, Array, Array1, Array2, Axis, Dimension};
use autodiff::nn;
use autodiff::optim::{Adam, Sgd};
use autodiff::prelude::*;
use autodiff::{gradients_function, value_and_gradients_function};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Against finite differences (fourth order): the functions are smooth at the points used.
const FD_TOL: f64 = 1e-7;
/// Against a hand-written backpropagation of the same formulas: a few ulps of rounding in
/// a different order of operations.
const HAND_TOL: f64 = 1e-12;

#[track_caller]
fn close<D: Dimension>(name: &str, actual: &Array<f64, D>, expected: &Array<f64, D>, tol: f64) {
    assert_eq!(actual.shape(), expected.shape(), "{name}: shapes");
    let a: Vec<f64> = actual.iter().copied().collect();
    let e: Vec<f64> = expected.iter().copied().collect();
    eprintln!("checking {name}");
    assert_gradient_close(&a, &e, tol);
}

/// Deterministic pseudo-random values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()
}

fn matrix(r: usize, c: usize, seed: u64) -> Array2<f64> {
    Array2::from_shape_vec((r, c), values(r * c, seed)).expect("shape")
}

#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
}

#[differentiable]
fn mlp_loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let logits = h.dot(&m.w2) + &m.b2;
    nn::cross_entropy(&logits, labels)
}

fn model(seed: u64) -> Mlp {
    Mlp {
        w1: matrix(4, 6, seed),
        b1: Array1::from(values(6, seed + 1)),
        w2: matrix(6, 3, seed + 2),
        b2: Array1::from(values(3, seed + 3)),
    }
}

/// The backward pass of `mlp_loss` written by hand.
fn mlp_backprop(m: &Mlp, x: &Array2<f64>, labels: &[usize]) -> Mlp {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let logits = h.dot(&m.w2) + &m.b2;
    let n = labels.len() as f64;
    let mut dlogits = nn::softmax(&logits);
    for (i, &c) in labels.iter().enumerate() {
        dlogits[[i, c]] -= 1.0;
    }
    dlogits /= n;
    let dh = dlogits.dot(&m.w2.t()) * h.mapv(|v| 1.0 - v * v);
    Mlp {
        w1: x.t().dot(&dh),
        b1: dh.sum_axis(Axis(0)),
        w2: h.t().dot(&dlogits),
        b2: dlogits.sum_axis(Axis(0)),
    }
}

#[test]
fn an_mlp_against_finite_differences_and_hand_written_backpropagation() {
    let m = model(7);
    let x = matrix(5, 4, 11);
    let labels = [0, 2, 1, 1, 0];
    let (v, g) = value_and_gradients_function!(mlp_loss, params = ["m"])(&m, &x, &labels);
    assert_eq!(v, mlp_loss(&m, &x, &labels));
    let hand = mlp_backprop(&m, &x, &labels);
    close("w1 by hand", &g.w1, &hand.w1, HAND_TOL);
    close("b1 by hand", &g.b1, &hand.b1, HAND_TOL);
    close("w2 by hand", &g.w2, &hand.w2, HAND_TOL);
    close("b2 by hand", &g.b2, &hand.b2, HAND_TOL);
    let with = |f: &dyn Fn(&mut Mlp)| {
        let mut m2 = m.clone();
        f(&mut m2);
        mlp_loss(&m2, &x, &labels)
    };
    close(
        "w1",
        &g.w1,
        &fd(&m.w1, |w| with(&|m| m.w1 = w.clone())),
        FD_TOL,
    );
    close(
        "b1",
        &g.b1,
        &fd(&m.b1, |b| with(&|m| m.b1 = b.clone())),
        FD_TOL,
    );
    close(
        "w2",
        &g.w2,
        &fd(&m.w2, |w| with(&|m| m.w2 = w.clone())),
        FD_TOL,
    );
    close(
        "b2",
        &g.b2,
        &fd(&m.b2, |b| with(&|m| m.b2 = b.clone())),
        FD_TOL,
    );
}

/// The mean squared error of the same network, as users write it: the batch size read
/// from the data (`x.nrows() as f64`), the data not marked `#[no_grad]`.
#[differentiable]
fn mlp_mse(m: &Mlp, x: &Array2<f64>, y: &Array2<f64>) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let d = h.dot(&m.w2) + &m.b2 - y;
    (&d * &d).sum() / x.nrows() as f64
}

/// The backward pass of `mlp_mse` written by hand.
fn mlp_mse_backprop(m: &Mlp, x: &Array2<f64>, y: &Array2<f64>) -> Mlp {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let d = h.dot(&m.w2) + &m.b2 - y;
    let dd = d * (2.0 / x.nrows() as f64);
    let dh = dd.dot(&m.w2.t()) * h.mapv(|v| 1.0 - v * v);
    Mlp {
        w1: x.t().dot(&dh),
        b1: dh.sum_axis(Axis(0)),
        w2: h.t().dot(&dd),
        b2: dd.sum_axis(Axis(0)),
    }
}

#[test]
fn an_mse_mlp_reading_its_batch_size_from_the_data() {
    let m = model(3);
    let x = matrix(5, 4, 5);
    let y = matrix(5, 3, 9);
    let (v, g) = value_and_gradients_function!(mlp_mse, params = ["m"])(&m, &x, &y);
    assert_eq!(v, mlp_mse(&m, &x, &y));
    let hand = mlp_mse_backprop(&m, &x, &y);
    close("w1 by hand", &g.w1, &hand.w1, HAND_TOL);
    close("b1 by hand", &g.b1, &hand.b1, HAND_TOL);
    close("w2 by hand", &g.w2, &hand.w2, HAND_TOL);
    close("b2 by hand", &g.b2, &hand.b2, HAND_TOL);
    // With respect to the data too: central differences.
    let (gx, gy) = gradients_function!(mlp_mse, params = ["x", "y"])(&m, &x, &y);
    close("x", &gx, &fd(&x, |x| mlp_mse(&m, x, &y)), FD_TOL);
    close("y", &gy, &fd(&y, |y| mlp_mse(&m, &x, y)), FD_TOL);
}

#[test]
fn optimizers_update_a_derived_model() {
    let x = matrix(8, 4, 3);
    let labels = [0, 1, 2, 0, 1, 2, 0, 1];
    // one plain SGD step is `w − lr·g`, field by field
    let m0 = model(1);
    let g = gradients_function!(mlp_loss, params = ["m"])(&m0, &x, &labels);
    let mut m = m0.clone();
    Sgd::new(0.5).step(&mut m, &g);
    close("sgd w1", &m.w1, &(&m0.w1 - &(&g.w1 * 0.5)), 0.0);
    close("sgd b2", &m.b2, &(&m0.b2 - &(&g.b2 * 0.5)), 0.0);
    // Adam drives the loss down
    let mut adam = Adam::new(0.05);
    let start = mlp_loss(&m, &x, &labels);
    for _ in 0..100 {
        let g = gradients_function!(mlp_loss, params = ["m"])(&m, &x, &labels);
        adam.step(&mut m, &g);
    }
    let end = mlp_loss(&m, &x, &labels);
    assert!(end < 0.2 * start, "loss {start} → {end}");
}

#[derive(Clone, Differentiable)]
struct Affine {
    w: Array2<f64>,
    b: Array1<f64>,
}

#[derive(Clone, Differentiable)]
struct Network {
    first: Affine,
    second: Affine,
    scale: f64,
    #[no_grad]
    name: &'static str,
    #[no_grad]
    temperature: f64,
}

#[differentiable]
fn network(n: &Network, x: &Array1<f64>) -> f64 {
    let h = nn::softplus(&(n.first.w.dot(x) + &n.first.b));
    let y = nn::sigmoid(&(n.second.w.dot(&h) + &n.second.b));
    (y * n.scale).sum() / n.temperature
}

#[test]
fn nested_structs_scalar_fields_and_no_grad_fields() {
    let n = Network {
        first: Affine {
            w: matrix(3, 2, 5),
            b: Array1::from(values(3, 6)),
        },
        second: Affine {
            w: matrix(2, 3, 7),
            b: Array1::from(values(2, 8)),
        },
        scale: 1.7,
        name: "net",
        temperature: 2.0,
    };
    let x = array![0.4, -0.9];
    let (g, gx) = gradients_function!(network)(&n, &x);
    let with = |f: &dyn Fn(&mut Network)| {
        let mut n2 = n.clone();
        f(&mut n2);
        network(&n2, &x)
    };
    close(
        "first.w",
        &g.first.w,
        &fd(&n.first.w, |w| with(&|n| n.first.w = w.clone())),
        FD_TOL,
    );
    close(
        "second.b",
        &g.second.b,
        &fd(&n.second.b, |b| with(&|n| n.second.b = b.clone())),
        FD_TOL,
    );
    let fs = finite_difference(|p| with(&|n| n.scale = p[0]), &[n.scale]);
    assert_gradient_close(&[g.scale], &fs, FD_TOL);
    close("x", &gx, &fd(&x, |x| network(&n, x)), FD_TOL);
    assert_eq!(n.name, "net");
}

#[differentiable]
fn nn_zoo(x: &Array2<f64>, t: &Array2<f64>) -> f64 {
    let a = nn::log_softmax(x).sum() * 0.3;
    let b = nn::softmax(x).mapv(f64::ln).dot(&t.t()).sum();
    let c = nn::logsumexp(x).sum();
    let d = nn::relu(x).sum() + nn::sigmoid(x).sum() + nn::softplus(x).sum();
    a + b + c + d + nn::mse(x, t)
}

#[test]
fn every_nn_helper_against_finite_differences() {
    let x = matrix(3, 4, 21) * 3.0;
    let t = matrix(3, 4, 22);
    let (gx, gt) = gradients_function!(nn_zoo)(&x, &t);
    close("x", &gx, &fd(&x, |x| nn_zoo(x, &t)), FD_TOL);
    close("t", &gt, &fd(&t, |t| nn_zoo(&x, t)), FD_TOL);
}

#[test]
fn nn_helpers_are_stable_at_extreme_logits() {
    let x = array![[1000.0, 0.0, -1000.0]];
    assert!(nn::log_softmax(&x).iter().all(|v| v.is_finite()));
    assert_eq!(nn::cross_entropy(&x, &[0]), 0.0);
    assert_eq!(nn::cross_entropy(&x, &[2]), 2000.0);
    let g: Array2<f64> = gradients_function!(ce)(&x, &[2]);
    assert_eq!(g, array![[1.0, 0.0, -1.0]]);
}

#[differentiable]
fn ce(x: &Array2<f64>, labels: &[usize]) -> f64 {
    nn::cross_entropy(x, labels)
}

#[test]
fn array_variables_in_the_implicit_mode() {
    let w = Variable::new(array![[0.5, -0.25], [0.1, 0.3]]);
    let b = Variable::new(array![0.2, -0.1]);
    let x = array![1.0, 2.0];
    let f = differentiable_closure!(|x: &Array1<f64>| (w.dot(x) + &b).mapv(f64::tanh).sum());
    let (value, grads) = implicit_value_and_gradients(&f)(&x);
    assert_eq!(grads.len(), 2);
    let gw: Array2<f64> = grads.get(&w).expect("w was read");
    let gb: Array1<f64> = grads.get(&b).expect("b was read");
    let pre = w.get().dot(&x) + &b.get();
    let d = pre.mapv(|v| 1.0 - v.tanh() * v.tanh());
    assert_eq!(value, pre.mapv(f64::tanh).sum());
    close("b", &gb, &d, HAND_TOL);
    let outer = Array2::from_shape_fn((2, 2), |(i, j)| d[i] * x[j]);
    close("w", &gw, &outer, HAND_TOL);
}

impl Mlp {
    /// The same loss as a method differentiable with respect to its receiver.
    #[differentiable(self)]
    fn loss(&self, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
        let h = (x.dot(&self.w1) + &self.b1).mapv(f64::tanh);
        let logits = h.dot(&self.w2) + &self.b2;
        nn::cross_entropy(&logits, labels)
    }

    /// A method calling another differentiable method on `self`.
    #[differentiable(self)]
    fn regularized(&self, #[no_grad] x: &Array2<f64>, labels: &[usize], lambda: f64) -> f64 {
        self.loss(x, labels) + (&self.w1 * &self.w1).sum() * lambda
    }
}

#[test]
fn methods_differentiable_with_respect_to_their_receiver() {
    let m = model(3);
    let x = matrix(5, 4, 4);
    let labels = [2, 0, 1, 1, 2];
    let g = gradients_function!(Mlp::loss, params = ["self"])(&m, &x, &labels);
    let hand = mlp_backprop(&m, &x, &labels);
    close("w1", &g.w1, &hand.w1, HAND_TOL);
    close("b2", &g.b2, &hand.b2, HAND_TOL);
    let (g, glambda) =
        gradients_function!(Mlp::regularized, params = ["self", "lambda"])(&m, &x, &labels, 0.1);
    close(
        "regularized w1",
        &g.w1,
        &(&hand.w1 + &(&m.w1 * 0.2)),
        HAND_TOL,
    );
    close("regularized w2", &g.w2, &hand.w2, HAND_TOL);
    assert!((glambda - (&m.w1 * &m.w1).sum()).abs() < 1e-12);
}

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Array2<f64>,
    b: Array1<f64>,
}

#[derive(Clone, Debug, Differentiable)]
struct Deep {
    layers: Vec<Layer>,
    #[no_grad]
    depth: usize,
}

#[differentiable]
fn deep_loss(m: &Deep, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
    let mut h = x.to_owned();
    for layer in m.layers.iter() {
        h = (h.dot(&layer.w) + &layer.b).mapv(f64::tanh);
    }
    nn::cross_entropy(&h, labels)
}

#[test]
fn a_vec_of_derived_layers() {
    let m = Deep {
        layers: vec![
            Layer {
                w: matrix(4, 5, 31),
                b: Array1::from(values(5, 32)),
            },
            Layer {
                w: matrix(5, 5, 33),
                b: Array1::from(values(5, 34)),
            },
            Layer {
                w: matrix(5, 3, 35),
                b: Array1::from(values(3, 36)),
            },
        ],
        depth: 3,
    };
    let x = matrix(6, 4, 37);
    let labels = [0, 1, 2, 2, 1, 0];
    let g = gradients_function!(deep_loss, params = ["m"])(&m, &x, &labels);
    assert_eq!(g.layers.len(), m.depth);
    for (k, layer) in m.layers.iter().enumerate() {
        let with = |f: &dyn Fn(&mut Layer)| {
            let mut m2 = m.clone();
            f(&mut m2.layers[k]);
            deep_loss(&m2, &x, &labels)
        };
        close(
            "w",
            &g.layers[k].w,
            &fd(&layer.w, |w| with(&|l| l.w = w.clone())),
            FD_TOL,
        );
        close(
            "b",
            &g.layers[k].b,
            &fd(&layer.b, |b| with(&|l| l.b = b.clone())),
            FD_TOL,
        );
    }
    // optimizers update the whole stack
    let mut m2 = m.clone();
    Sgd::new(0.1).step(&mut m2, &g);
    close(
        "sgd",
        &m2.layers[2].w,
        &(&m.layers[2].w - &(&g.layers[2].w * 0.1)),
        0.0,
    );
}

/// A model whose gradient has a field nothing reaches, a field read twice and a scalar.
#[derive(Clone, Debug, autodiff::Differentiable)]
struct Partly {
    used: Array2<f64>,
    unused: Array1<f64>,
    twice: Array1<f64>,
    scale: f64,
    layers: Vec<Partly2>,
}

#[derive(Clone, Debug, autodiff::Differentiable)]
struct Partly2 {
    w: Array1<f64>,
}

#[differentiable]
fn partly(p: &Partly, #[no_grad] x: &Array1<f64>) -> f64 {
    (p.used.dot(x) * &p.twice).sum() + p.twice.sum() * 0.5
}

#[test]
fn struct_gradients_start_lazily_and_come_back_whole() {
    // Generated code starts a struct parameter's gradient with fields of no elements (the
    // first contribution is moved in); fields nothing reaches must still come back as
    // zeros of their field's shape.
    let p = Partly {
        used: matrix(3, 2, 7),
        unused: Array1::from(values(4, 8)),
        twice: Array1::from(values(3, 9)),
        scale: 1.5,
        layers: vec![Partly2 {
            w: Array1::from(values(2, 10)),
        }],
    };
    let x = Array1::from(values(2, 11));
    let g = gradients_function!(partly, params = ["p"])(&p, &x);
    // f = Σᵢ (U x)ᵢ tᵢ + ½ Σᵢ tᵢ: dU = t xᵀ, dt = U x + ½
    let ux = p.used.dot(&x);
    let du = Array2::from_shape_fn((3, 2), |(i, j)| p.twice[i] * x[j]);
    close("used", &g.used, &du, HAND_TOL);
    close("twice", &g.twice, &(&ux + 0.5), HAND_TOL);
    assert_eq!(g.unused, Array1::<f64>::zeros(4));
    assert_eq!(g.scale, 0.0);
    assert_eq!(g.layers.len(), 1);
    assert_eq!(g.layers[0].w, Array1::<f64>::zeros(2));
    let numeric = fd(&p.twice, |t| {
        partly(
            &Partly {
                twice: t.clone(),
                ..p.clone()
            },
            &x,
        )
    });
    close("twice (finite differences)", &g.twice, &numeric, FD_TOL);
}

/// A model generic over its float type, as ML code writes its layers.
#[derive(Clone, Debug, Differentiable)]
pub struct GenericLayer<F: Real> {
    w: autodiff::ndarray::Array1<F>,
    b: F,
}

#[differentiable]
fn generic_layer_loss(layer: &GenericLayer<f64>, x: &autodiff::ndarray::Array1<f64>) -> f64 {
    let y = (&layer.w * x).sum() + layer.b;
    y * y
}

#[test]
fn generic_derived_structs() {
    use autodiff::ndarray::Array1;
    let layer = GenericLayer {
        w: Array1::from(vec![0.5_f64, -1.0, 2.0]),
        b: 0.25,
    };
    let x = Array1::from(vec![1.0, 2.0, -0.5]);
    let g = gradients_function!(generic_layer_loss, params = ["layer"])(&layer, &x);
    // y = w·x + b; d(y²)/dw = 2y x, d(y²)/db = 2y
    let y = layer.w.dot(&x) + layer.b;
    for k in 0..3 {
        assert!((g.w[k] - 2.0 * y * x[k]).abs() < 1e-14, "{:?}", g.w);
    }
    assert!((g.b - 2.0 * y).abs() < 1e-14);
    let f32_layer = GenericLayer {
        w: Array1::from(vec![0.5_f32]),
        b: 1.0_f32,
    };
    assert_eq!(f32_layer.clone().b, 1.0);
}
