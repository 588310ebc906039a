use autodiff::prelude::*;

fn main() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|x: f64| w * x);
    let tape = GradientTape::new();
    let s = tape.record(|| f(3.0));
    let a: f64 = tape.gradient(&s, &w);
    // A non-persistent tape is consumed by its first `gradient`.
    let b: f64 = tape.gradient(&s, &w);
    let _ = (a, b);
}
