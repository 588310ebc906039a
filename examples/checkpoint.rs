//! Checkpointing a training run (the `serde` feature): a softmax classifier of the Iris
//! flowers trained with Adam for 50 steps, its model and optimizer written to a JSON file,
//! read back, and trained 50 more steps, ends exactly where 100 steps without stopping
//! end: every parameter the same, bit for bit.
//!
//! Run: `cargo run --features serde --example checkpoint [path/of/checkpoint.json]`

use autodiff::ndarray::{Array1, Array2, Axis};
use autodiff::nn;
use autodiff::optim::Adam;
use autodiff::prelude::*;
use autodiff::serde::{Deserialize, Serialize};
use autodiff::value_and_gradients_function;

/// The model: class scores `x · w + b` (4 measurements, 3 species).
#[derive(Clone, Debug, Differentiable, Serialize, Deserialize)]
#[serde(crate = "autodiff::serde")]
struct Classifier {
    w: Array2<f64>,
    b: Array1<f64>,
}

#[differentiable]
fn loss(m: &Classifier, #[no_grad] x: &Array2<f64>, labels: &[usize]) -> f64 {
    nn::cross_entropy(&(x.dot(&m.w) + &m.b), labels)
}

/// Everything a run needs to go on.
#[derive(Serialize, Deserialize)]
#[serde(crate = "autodiff::serde")]
struct Checkpoint {
    model: Classifier,
    adam: Adam,
    step: usize,
}

/// The 150 flowers (`examples/data/iris.csv`), standardised, and their species' numbers.
fn iris() -> (Array2<f64>, Vec<usize>) {
    let species = ["setosa", "versicolor", "virginica"];
    let mut features = Vec::new();
    let mut labels = Vec::new();
    for line in include_str!("data/iris.csv").lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        features.extend(
            fields[..4]
                .iter()
                .map(|f| f.parse::<f64>().expect("a number")),
        );
        labels.push(
            species
                .iter()
                .position(|&s| s == fields[4])
                .expect("a species"),
        );
    }
    let x = Array2::from_shape_vec((labels.len(), 4), features).expect("4 columns");
    let mean = x.mean_axis(Axis(0)).expect("rows");
    let std = x.std_axis(Axis(0), 0.0);
    ((x - &mean) / &std, labels)
}

/// `steps` steps of Adam on mini-batches of 30 flowers taken in turn.
fn train(c: &mut Checkpoint, steps: usize, x: &Array2<f64>, labels: &[usize]) {
    let grad = value_and_gradients_function!(loss, params = ["m"]);
    for _ in 0..steps {
        let start = (c.step * 30) % x.nrows();
        let idx: Vec<usize> = (start..start + 30).map(|i| i % x.nrows()).collect();
        let batch_labels: Vec<usize> = idx.iter().map(|&i| labels[i]).collect();
        let (_, g) = grad(&c.model, &x.select(Axis(0), &idx), &batch_labels);
        c.adam.step(&mut c.model, &g);
        c.step += 1;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("autodiff-checkpoint.json"));
    let (x, labels) = iris();
    let fresh = || Checkpoint {
        model: Classifier {
            w: Array2::zeros((4, 3)),
            b: Array1::zeros(3),
        },
        adam: Adam::new(0.05),
        step: 0,
    };

    let mut run = fresh();
    train(&mut run, 50, &x, &labels);
    std::fs::write(&path, serde_json::to_string(&run)?)?;
    println!(
        "step {}: loss {:.6}, checkpoint written to {}",
        run.step,
        loss(&run.model, &x, &labels),
        path.display()
    );
    drop(run);

    let mut resumed: Checkpoint = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    train(&mut resumed, 50, &x, &labels);
    println!(
        "step {}: loss {:.6} (resumed from the checkpoint)",
        resumed.step,
        loss(&resumed.model, &x, &labels)
    );

    let mut straight = fresh();
    train(&mut straight, 100, &x, &labels);
    println!(
        "step {}: loss {:.6} (without stopping)",
        straight.step,
        loss(&straight.model, &x, &labels)
    );
    let bits = |m: &Classifier| -> Vec<u64> {
        m.w.iter().chain(m.b.iter()).map(|v| v.to_bits()).collect()
    };
    assert_eq!(bits(&resumed.model), bits(&straight.model));
    println!("resumed run = uninterrupted run, bit for bit");
    Ok(())
}
