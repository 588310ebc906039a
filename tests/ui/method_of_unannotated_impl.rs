use autodiff::prelude::*;

struct Exp {
    rate: f64,
}

impl Exp {
    fn pdf(&self, x: f64) -> f64 {
        self.rate * (-self.rate * x).exp()
    }
}

#[differentiable]
fn nll(#[no_grad] d: &Exp, x: f64) -> f64 {
    -d.pdf(x).ln()
}

fn main() {}
