use autodiff::prelude::*;

// Two functions calling each other, neither marked `#[differentiable(recursive)]`: each one's
// derivative would keep the other's, and so its own. rustc's E0720 at both attributes (the
// README's "When it does not compile" gives the fix: mark one of them `recursive`).

#[differentiable]
fn zig(x: f64, n: u32) -> f64 {
    if n == 0 {
        x.sin()
    } else {
        zag(x * 1.5, n - 1)
    }
}

#[differentiable]
fn zag(x: f64, n: u32) -> f64 {
    if n == 0 {
        x.cos()
    } else {
        zig(x * x, n - 1) + x
    }
}

fn main() {
    let _ = gradients_function!(zig)(0.3, 3);
}
