use autodiff::prelude::*;

// Forgot `#[differentiable]`: the gradient helpers find no derivative. rustc's message says
// that `plain` is a function, not the module the helper looked for; README's "When it does
// not compile" gives the fix (a path that fails to resolve cannot carry our own words).
fn plain(x: f64) -> f64 {
    x * x
}

fn main() {
    let _ = gradients_function!(plain)(1.0);
    let _ = vjp!(plain)(1.0);
}
