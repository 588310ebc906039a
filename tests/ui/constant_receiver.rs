use autodiff::prelude::*;

#[derive(Differentiable, Clone)]
pub struct Linear {
    pub w: Vec<f64>,
    pub b: f64,
}

#[differentiable]
impl Linear {
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
    }
}

fn main() {
    let _ = gradients_function!(Linear::predict, params = ["self"]);
}
