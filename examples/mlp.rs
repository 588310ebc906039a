//! Trains a multilayer perceptron on the Iris data (150 flowers, 4 measurements, 3
//! species: Fisher's 1936 measurements, public domain, shipped in `examples/data/iris.csv`,
//! nothing is downloaded) with gradients from `#[differentiable]`, mini-batches and Adam,
//! then reports the test accuracy and draws the loss curves as an SVG picture (title,
//! axis labels, tick labels, legend; the SVG backend needs no font files).
//!
//! Run: `cargo run --release --example mlp [path/of/plot.svg]`

use autodiff::ndarray::{Array1, Array2, Axis};
use autodiff::nn;
use autodiff::optim::Adam;
use autodiff::prelude::*;
use autodiff::value_and_gradients_function;
use plotters::prelude::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// The model: 4 inputs, a hidden layer of 16 `tanh` units, 3 class scores.
#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
}

/// The class scores of a batch (one row per flower).
fn logits(m: &Mlp, x: &Array2<f64>) -> Array2<f64> {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    h.dot(&m.w2) + &m.b2
}

/// Mean cross-entropy of the batch: the function we differentiate, written as usual.
#[differentiable]
fn loss(m: &Mlp, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
    let h = (x.dot(&m.w1) + &m.b1).mapv(f64::tanh);
    let scores = h.dot(&m.w2) + &m.b2;
    nn::cross_entropy(&scores, labels)
}

fn accuracy(m: &Mlp, x: &Array2<f64>, labels: &[usize]) -> f64 {
    let scores = logits(m, x);
    let right = scores
        .outer_iter()
        .zip(labels)
        .filter(|(row, &label)| {
            let best = (0..row.len())
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .expect("three classes");
            best == label
        })
        .count();
    right as f64 / labels.len() as f64
}

/// A Glorot-style uniform initialisation of a `rows × cols` weight matrix.
fn glorot(rng: &mut StdRng, rows: usize, cols: usize) -> Array2<f64> {
    let limit = (6.0 / (rows + cols) as f64).sqrt();
    Array2::from_shape_fn((rows, cols), |_| rng.random_range(-limit..limit))
}

fn rows(x: &Array2<f64>, idx: &[usize]) -> Array2<f64> {
    x.select(Axis(0), idx)
}

/// The species, in the order of their class numbers.
const SPECIES: [&str; 3] = ["setosa", "versicolor", "virginica"];

/// The 150 flowers: one row of 4 measurements (cm) per flower, and its species' number.
fn iris() -> (Array2<f64>, Vec<usize>) {
    let csv = include_str!("data/iris.csv");
    let mut features = Vec::with_capacity(150 * 4);
    let mut species = Vec::with_capacity(150);
    for (n, line) in csv.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 5, "line {} of iris.csv", n + 1);
        for field in &fields[..4] {
            features.push(field.parse::<f64>().expect("a measurement"));
        }
        let class = SPECIES
            .iter()
            .position(|&name| name == fields[4])
            .expect("a known species");
        species.push(class);
    }
    let features = Array2::from_shape_vec((species.len(), 4), features).expect("4 columns");
    (features, species)
}

fn main() {
    let (features, species) = iris();
    let mut rng = StdRng::seed_from_u64(2026); // a reproducible run

    // 120 flowers to train on, 30 held out
    let mut order: Vec<usize> = (0..features.nrows()).collect();
    order.shuffle(&mut rng);
    let (train_idx, test_idx) = order.split_at(120);
    let (mut x_train, mut x_test) = (rows(&features, train_idx), rows(&features, test_idx));
    let y_train: Vec<usize> = train_idx.iter().map(|&i| species[i]).collect();
    let y_test: Vec<usize> = test_idx.iter().map(|&i| species[i]).collect();

    // standardise with the training set's statistics
    let mean = x_train.mean_axis(Axis(0)).expect("rows");
    let std = x_train.std_axis(Axis(0), 0.0);
    for x in [&mut x_train, &mut x_test] {
        *x = (&*x - &mean) / &std;
    }

    let mut model = Mlp {
        w1: glorot(&mut rng, 4, 16),
        b1: Array1::zeros(16),
        w2: glorot(&mut rng, 16, 3),
        b2: Array1::zeros(3),
    };
    let mut adam = Adam::new(0.01);
    let grad = value_and_gradients_function!(loss, params = ["m"]);

    let epochs = 150;
    let batch = 16;
    let mut train_curve = Vec::new();
    let mut test_curve = Vec::new();
    let mut batch_order: Vec<usize> = (0..x_train.nrows()).collect();
    for epoch in 0..epochs {
        batch_order.shuffle(&mut rng);
        for chunk in batch_order.chunks(batch) {
            let xb = rows(&x_train, chunk);
            let yb: Vec<usize> = chunk.iter().map(|&i| y_train[i]).collect();
            let (_, g) = grad(&model, &xb, &yb);
            adam.step(&mut model, &g);
        }
        let train_loss = loss(&model, &x_train, &y_train);
        let test_loss = loss(&model, &x_test, &y_test);
        train_curve.push((epoch as f64, train_loss));
        test_curve.push((epoch as f64, test_loss));
        if (epoch + 1) % 30 == 0 {
            println!(
                "epoch {:>3}/{epochs}: loss train {train_loss:.4}, test {test_loss:.4}",
                epoch + 1
            );
        }
    }

    let train_acc = accuracy(&model, &x_train, &y_train);
    let test_acc = accuracy(&model, &x_test, &y_test);
    println!("Iris, 4-16-3 MLP, {epochs} epochs of mini-batches of {batch}, Adam(0.01)");
    println!(
        "final loss: train {:.4}, test {:.4}",
        train_curve.last().expect("epochs").1,
        test_curve.last().expect("epochs").1
    );
    println!(
        "accuracy:   train {:.1} %, test {:.1} %",
        100.0 * train_acc,
        100.0 * test_acc
    );

    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("autodiff-mlp-loss.svg"));
    plot(&path, &train_curve, &test_curve);
    println!("loss curves written to {}", path.display());
    assert!(test_acc >= 0.95, "test accuracy {test_acc} below 95 %");
}

/// The loss curves as an SVG picture: a title, labelled axes with ticks, and a legend.
fn plot(path: &std::path::Path, train: &[(f64, f64)], test: &[(f64, f64)]) {
    let top = train[0].1.max(test[0].1) * 1.05;
    let root = SVGBackend::new(path, (800, 480)).into_drawing_area();
    root.fill(&WHITE).expect("draw");
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Iris MLP (4-16-3): mean cross-entropy per epoch",
            ("sans-serif", 22),
        )
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..train.len() as f64, 0.0..top)
        .expect("chart");
    chart
        .configure_mesh()
        .x_desc("epoch")
        .x_label_formatter(&|epoch| format!("{epoch:.0}"))
        .y_desc("loss (cross-entropy)")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 14))
        .draw()
        .expect("mesh");
    for (curve, colour, name) in [
        (train, BLUE, "train (120 flowers)"),
        (test, RED, "test (30 flowers)"),
    ] {
        chart
            .draw_series(LineSeries::new(
                curve.iter().copied(),
                colour.stroke_width(2),
            ))
            .expect("curve")
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .expect("legend");
    root.present().expect("write the SVG");
}
