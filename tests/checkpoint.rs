//! Checkpoints (run with `cargo test --features serde --test checkpoint`): a model, its
//! tangent, its variables and its optimizer saved as JSON after 50 steps and loaded again
//! train 50 more steps to exactly the parameters of 100 steps without stopping.
#![cfg(feature = "serde")]

use autodiff::ndarray::{Array1, Array2, Axis};
use autodiff::nn;
use autodiff::optim::{Adam, CosineDecay, Sgd};
use autodiff::prelude::*;
use autodiff::serde::{Deserialize, Serialize};
use autodiff::value_and_gradients_function;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

#[derive(Clone, Debug, Differentiable, Serialize, Deserialize)]
#[serde(crate = "autodiff::serde")]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
    #[no_grad]
    hidden: usize,
}

#[differentiable]
fn loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let scores = h.dot(&m.w2) + &m.b2;
    nn::cross_entropy(&scores, labels)
}

fn uniform(rng: &mut StdRng, shape: (usize, usize)) -> Array2<f64> {
    Array2::from_shape_fn(shape, |_| rng.random_range(-1.0..1.0))
}

/// 64 points of 4 features in 3 classes (the class decided by the features).
fn data() -> (Array2<f64>, Vec<usize>) {
    let mut rng = StdRng::seed_from_u64(5);
    let x = uniform(&mut rng, (64, 4));
    let labels = x
        .outer_iter()
        .map(|r| usize::from(r[0] + r[1] > 0.0) + usize::from(r[2] > 0.5))
        .collect();
    (x, labels)
}

fn mlp() -> Mlp {
    let mut rng = StdRng::seed_from_u64(9);
    Mlp {
        w1: uniform(&mut rng, (4, 8)),
        b1: Array1::zeros(8),
        w2: uniform(&mut rng, (8, 3)),
        b2: Array1::zeros(3),
        hidden: 8,
    }
}

/// Everything a run needs to go on: the model and the optimizer's state.
#[derive(Serialize, Deserialize)]
#[serde(crate = "autodiff::serde")]
struct Checkpoint {
    model: Mlp,
    adam: Adam<CosineDecay>,
    steps: usize,
}

/// Steps of Adam on mini-batches of 16 chosen by the step number.
fn train(c: &mut Checkpoint, steps: usize, x: &Array2<f64>, labels: &[usize]) {
    let grad = value_and_gradients_function!(loss, params = ["m"]);
    for _ in 0..steps {
        let start = (c.steps * 16) % x.nrows();
        let idx: Vec<usize> = (start..start + 16).collect();
        let batch = x.select(Axis(0), &idx);
        let (_, g) = grad(&c.model, &batch, &labels[start..start + 16]);
        c.adam.step(&mut c.model, &g);
        c.steps += 1;
    }
}

fn bits(m: &Mlp) -> Vec<u64> {
    [&m.w1, &m.w2]
        .iter()
        .flat_map(|a| a.iter())
        .chain([&m.b1, &m.b2].iter().flat_map(|a| a.iter()))
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn a_model_and_adam_resume_bit_for_bit() {
    let (x, labels) = data();
    let fresh = || Checkpoint {
        model: mlp(),
        adam: Adam::new(CosineDecay {
            initial: 0.05,
            steps: 100,
            floor: 0.1,
        }),
        steps: 0,
    };
    let mut straight = fresh();
    train(&mut straight, 100, &x, &labels);

    let mut first = fresh();
    train(&mut first, 50, &x, &labels);
    let text = serde_json::to_string(&first).unwrap();
    drop(first);
    let mut resumed: Checkpoint = serde_json::from_str(&text).unwrap();
    assert_eq!(resumed.model.hidden, 8);
    train(&mut resumed, 50, &x, &labels);

    assert_eq!(resumed.steps, 100);
    assert_eq!(bits(&resumed.model), bits(&straight.model));
    // The run moved: 100 steps are not 50.
    let mut half = fresh();
    train(&mut half, 50, &x, &labels);
    assert_ne!(bits(&half.model), bits(&straight.model));
}

#[test]
fn a_tangent_round_trips() {
    let (x, labels) = data();
    let g = autodiff::gradients_function!(loss, params = ["m"])(&mlp(), &x, &labels);
    let text = serde_json::to_string(&g).unwrap();
    let back: MlpTangent = serde_json::from_str(&text).unwrap();
    assert_eq!(back.w1, g.w1);
    assert_eq!(back.b2, g.b2);
    assert_eq!(back.hidden, autodiff::NoTangent);
}

/// A model whose parameters are variables (the implicit mode).
#[derive(Serialize, Deserialize)]
#[serde(crate = "autodiff::serde")]
struct Net {
    w: Variable<Array2<f64>>,
    b: Variable<Array1<f64>>,
    /// Read but never trained.
    scale: Variable<f64>,
}

impl Net {
    #[differentiable]
    fn loss(&self, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
        let scores = (x.dot(&self.w) + &self.b) * self.scale;
        nn::cross_entropy(&scores, labels)
    }
}

fn train_net(net: &Net, sgd: &mut Sgd, from: usize, to: usize, x: &Array2<f64>, l: &[usize]) {
    for step in from..to {
        let start = (step * 8) % x.nrows();
        let idx: Vec<usize> = (start..start + 8).collect();
        let batch = x.select(Axis(0), &idx);
        let grads = implicit_gradients(|x: &Array2<f64>, l: &[usize]| net.loss(x, l))(
            &batch,
            &l[start..start + 8],
        );
        assert_eq!(grads.len(), 2);
        sgd.apply_gradients(&grads);
    }
}

#[test]
fn variables_and_their_optimizer_state_resume_bit_for_bit() {
    let (x, labels) = data();
    let mut rng = StdRng::seed_from_u64(11);
    let (w0, b0) = (uniform(&mut rng, (4, 3)), Array1::zeros(3));
    let net = || Net {
        w: Variable::new(w0.clone()).with_name("w"),
        b: Variable::new(b0.clone()),
        scale: Variable::non_trainable(1.5),
    };
    let sgd = || Sgd::new(0.1).momentum(0.9).weight_decay(1e-3);

    let straight = net();
    let mut opt = sgd();
    train_net(&straight, &mut opt, 0, 100, &x, &labels);

    let first = net();
    let mut opt = sgd();
    train_net(&first, &mut opt, 0, 50, &x, &labels);
    let text = serde_json::to_string(&(&first, &opt)).unwrap();
    drop((first, opt));
    let (resumed, mut opt): (Net, Sgd) = serde_json::from_str(&text).unwrap();
    assert!(!resumed.scale.is_trainable());
    assert_eq!(resumed.w.name().as_deref(), Some("w"));
    train_net(&resumed, &mut opt, 50, 100, &x, &labels);

    let b = |v: &Variable<Array2<f64>>| v.get().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(b(&resumed.w), b(&straight.w));
    assert_eq!(
        resumed
            .b
            .get()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>(),
        straight
            .b
            .get()
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>()
    );
}

/// A differentiable type of the user's whose tangent is neither `Serialize` nor `Default`.
#[derive(Clone, Debug)]
struct Knob(f64);

#[derive(Clone, Debug)]
struct KnobTangent(f64);

impl Differentiable for Knob {
    type Tangent = KnobTangent;
    fn zero_tangent(&self) -> KnobTangent {
        KnobTangent(0.0)
    }
}

impl autodiff::Accumulate for KnobTangent {
    fn accumulate(&mut self, contribution: KnobTangent) {
        self.0 += contribution.0;
    }
}

impl autodiff::__private::Reset for KnobTangent {
    fn reset(&mut self) {
        self.0 = 0.0;
    }
    fn take_reset(&mut self) -> Self {
        KnobTangent(std::mem::take(&mut self.0))
    }
}

impl autodiff::Parameter for Knob {
    fn num_elements(&self) -> usize {
        1
    }
    fn update_elements(&mut self, grad: &KnobTangent, f: &mut dyn FnMut(usize, f64, f64) -> f64) {
        self.0 = f(0, self.0, grad.0);
    }
    fn visit_gradient(grad: &KnobTangent, f: &mut dyn FnMut(usize, f64)) {
        f(0, grad.0);
    }
    fn scale_gradient(grad: &mut KnobTangent, factor: f64) {
        grad.0 *= factor;
    }
}

impl autodiff::implicit::TangentValue for KnobTangent {
    fn scale(&mut self, factor: f64) {
        self.0 *= factor;
    }
}

/// A struct with such a field still derives with the features on: its tangent is only
/// left without the impls the field's tangent cannot give (`Serialize`, `Default`, `Sum`).
#[derive(Clone, Debug, Differentiable)]
struct Tuned {
    w: f64,
    knob: Knob,
}

#[test]
fn a_field_whose_tangent_does_not_serialize_leaves_the_struct_derivable() {
    let t = Tuned {
        w: 1.0,
        knob: Knob(2.0),
    };
    let z = t.zero_tangent();
    assert_eq!((z.w, z.knob.0, t.w, t.knob.0), (0.0, 0.0, 1.0, 2.0));
}

/// A model of nalgebra values (with the `nalgebra` feature too): the model and its tangent
/// serialize (nalgebra's `serde-serialize` is turned on with both features).
#[cfg(feature = "nalgebra")]
#[derive(Clone, Debug, Differentiable, Serialize, Deserialize)]
#[serde(crate = "autodiff::serde")]
struct Pose {
    t: nalgebra::Vector3<f64>,
    scale: f64,
}

#[cfg(feature = "nalgebra")]
#[test]
fn a_model_of_nalgebra_values_round_trips() {
    let pose = Pose {
        t: nalgebra::Vector3::new(0.1, -2.5, 1e-300),
        scale: 3.0,
    };
    let back: Pose = serde_json::from_str(&serde_json::to_string(&pose).unwrap()).unwrap();
    assert_eq!((back.t, back.scale), (pose.t, pose.scale));
    let tangent = PoseTangent {
        t: nalgebra::Vector3::new(1.0, 2.0, 3.0),
        scale: 0.5,
    };
    let back: PoseTangent =
        serde_json::from_str(&serde_json::to_string(&tangent).unwrap()).unwrap();
    assert_eq!((back.t, back.scale), (tangent.t, tangent.scale));
}
