// A type parameter the result is made of, bound by another crate's numeric trait (which may
// stand for complex numbers too): one error at the bound, not errors in generated code.
use autodiff::prelude::*;

pub trait Scalar: Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {}

impl Scalar for f64 {}

#[differentiable]
pub fn twice<T: Scalar>(z: T) -> T {
    z * z + z
}

fn main() {
    let _ = gradients_function!(twice)(2.0);
}
