use autodiff::prelude::*;

#[derive(Differentiable)]
enum Activation {
    Tanh,
    Relu,
}

fn main() {}
