use autodiff::prelude::*;

// generic over its float type: `hvp!` serves it without the marker
#[differentiable(second_order)]
fn cube<T: Float>(x: T) -> T {
    x * x * x
}

// a result that is not `f64`
#[differentiable(second_order)]
fn pair(x: f64) -> (f64, f64) {
    (x, x * x)
}

struct Model {
    scale: f64,
}

#[differentiable]
impl Model {
    #[differentiable(second_order)]
    fn energy(&self, x: f64) -> f64 {
        self.scale * x * x
    }
}

fn main() {
    let _ = cube(2.0);
    let _ = pair(2.0);
    let _ = Model { scale: 1.0 }.energy(2.0);
}
