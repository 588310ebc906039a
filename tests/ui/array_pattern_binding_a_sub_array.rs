use autodiff::prelude::*;

#[differentiable]
fn f(p: [f64; 4]) -> f64 {
    let [first, rest @ ..] = p;
    let (a, .., d) = (p[0], p[1], p[2], p[3]);
    first * rest[0] + a * d
}

fn main() {}
