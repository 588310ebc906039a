use autodiff::prelude::*;

// An iterator chain writing through `iter_mut()` inside `map` (consumed by `count()`), as
// published optimisation code writes a derivative: one error at `iter_mut`, naming it, with
// the `for` loop that is differentiable.

#[differentiable]
fn cubes(param: &[f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    param
        .iter()
        .zip(out.iter_mut())
        .map(|(x, o)| *o = 2.0 * x.powi(3) - *x)
        .count();
    out
}

fn main() {}
