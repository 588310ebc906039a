use autodiff::prelude::*;

#[derive(Differentiable, Clone)]
pub struct Linear {
    pub w: Vec<f64>,
    pub b: f64,
}

// the receiver is a constant (no `#[differentiable(self)]`)
#[differentiable]
impl Linear {
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
    }
}

// `m` carries a gradient, `predict`'s receiver is a constant
#[differentiable]
fn outer(m: &Linear, x: &[f64]) -> f64 {
    m.predict(x) * 2.0
}

fn main() {}
