use autodiff::prelude::*;

#[differentiable(vjp = softplus_vjp)]
fn softplus(x: f64) -> f64 {
    x.exp().ln_1p()
}

fn softplus_vjp(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    let sigmoid = 1.0 / (1.0 + (-x).exp());
    (softplus(x), move |dy| dy * sigmoid)
}

#[differentiable]
fn caller(x: f64) -> f64 {
    softplus(x) * 2.0
}

// (marked `recursive`, its callees' reasons still reach `jvp!`)
#[differentiable(recursive)]
fn recursive_caller(x: f64, n: u32) -> f64 {
    if n == 0 {
        softplus(x)
    } else {
        recursive_caller(x, n - 1) * 0.5
    }
}

fn main() {
    let _ = jvp!(softplus)(0.5, 1.0);
    let _ = jvp!(caller)(0.5, 1.0);
    let _ = jvp!(recursive_caller)(0.5, 2, 1.0);
}
