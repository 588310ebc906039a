use autodiff::prelude::*;

// An iterator chain writing through `iter_mut()` inside a `map` whose values are summed (a
// `for_each`, or a `map(…).count()` consumed for its effects, is a loop and differentiable):
// one error at `iter_mut`, naming it, with the `for` loop that is differentiable.

#[differentiable]
fn cubes(param: &[f64; 3]) -> f64 {
    let mut out = [0.0; 3];
    let s: f64 = param
        .iter()
        .zip(out.iter_mut())
        .map(|(x, o)| {
            *o = 2.0 * x.powi(3);
            *x
        })
        .sum();
    s + out[0]
}

fn main() {}
