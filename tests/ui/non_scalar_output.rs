use autodiff::prelude::*;

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

fn main() {
    let _ = gradients_function!(polar);
}
