use autodiff::prelude::*;

// A local closure is differentiated where it is called; one that returns early cannot be.
#[differentiable]
fn f(x: f64) -> f64 {
    let g = |v: f64| {
        if v > 1.0 {
            return v;
        }
        v * 2.0
    };
    g(x)
}

// One that reads differentiable values can be called (or mapped over), not stored.
#[differentiable]
fn h(x: f64) -> f64 {
    let scale = |v: f64| v * x;
    let boxed = Box::new(scale);
    boxed(x)
}

fn main() {}
