//! A user crate that makes life hard for generated code: edition 2024, every warning an
//! error, clippy's pedantic lints on, prelude names shadowed, identifiers that look
//! generated. Everything here must compile without a warning; the tests check the numbers.
#![forbid(unsafe_code)]
#![deny(warnings, missing_docs)]
#![deny(clippy::all, clippy::pedantic)]
#![allow(clippy::missing_panics_doc)]

/// Shadows `Result`.
pub struct Result;
/// Shadows `Option`.
pub struct Option;
/// Shadows `Vec`.
pub struct Vec;
/// Shadows `Fn`.
pub struct Fn;
/// Shadows `Default`.
pub struct Default;
/// Shadows `Clone`.
pub struct Clone;
/// Shadows `Box`.
pub struct Box;
/// Shadows `drop`.
pub fn drop() {}
/// Shadows `Some`.
#[allow(non_snake_case)]
pub fn Some() {}

/// Shadows `core`, `std` and `autodiff` as module names are not allowed to: absolute paths
/// in generated code must still resolve.
pub mod core {}

use autodiff::prelude::*;

/// Identifiers that look like generated ones.
#[differentiable]
#[must_use]
pub fn looks_generated(__grad: f64, __tape: f64, adj: f64, __v0: f64, __d1: f64) -> f64 {
    let __c0 = __grad * __tape;
    let __pb3 = adj.sin() + __v0 * __d1;
    __c0 + __pb3
}

/// Loops, branches, mutation, slices, early return.
#[differentiable]
#[must_use]
pub fn everything(x: &[f64], scale: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for (i, v) in x.iter().enumerate() {
        if i >= n {
            break;
        }
        let t = if *v > 0.0 { v * scale } else { -v };
        total += t * t;
    }
    let mut buffer = vec![0.0; x.len()];
    for i in 0..x.len() {
        buffer[i] = x[i].tanh();
    }
    if total > 1e6 {
        return total;
    }
    total + buffer.iter().sum::<f64>()
}

/// A fused reduction loop (stencil reads, an accumulator), with parameters named like the
/// fused derivative's registers.
#[differentiable]
#[must_use]
pub fn fused_stencil(x: &[f64], __k: f64, __dy: f64) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i] * __k;
        sum += d * d + __dy * x[i];
    }
    sum
}

/// A model reading variables through a field.
pub struct Model {
    /// The weight.
    pub w: Variable<f64>,
}

impl Model {
    /// `w · x`.
    #[differentiable]
    #[must_use]
    pub fn predict(&self, x: f64) -> f64 {
        self.w * x
    }
}

/// Unit conversions: associated functions of an annotated `impl`.
#[derive(Debug)]
pub struct Units;

#[differentiable]
impl Units {
    /// Degrees to radians.
    #[must_use]
    pub fn radians(degrees: f64) -> f64 {
        degrees * std::f64::consts::PI / 180.0
    }
}

/// The sine of an angle in degrees: a call `Type::function(…)` of an associated function.
#[differentiable]
#[must_use]
pub fn sin_degrees(degrees: f64) -> f64 {
    Units::radians(degrees).sin()
}

/// A dense layer with a derived tangent.
#[derive(Debug, Differentiable)]
pub struct Dense {
    /// Weights.
    pub w: autodiff::ndarray::Array2<f64>,
    /// Biases.
    pub b: autodiff::ndarray::Array1<f64>,
    /// Not trained.
    #[no_grad]
    pub name: &'static str,
}

/// Array code: broadcasting, a product, `mapv` with a closure, a reduction, a method with a
/// differentiable receiver.
#[differentiable]
#[must_use]
pub fn dense_loss(layer: &Dense, #[no_grad] x: &autodiff::ndarray::Array2<f64>) -> f64 {
    let h = (x.dot(&layer.w) + &layer.b).mapv(|v| v.max(0.0) + 0.5 * v * v);
    let scale = layer.b.sum();
    (&h * scale).mean().unwrap() + autodiff::nn::softplus(&h).sum()
}

impl Dense {
    /// The same loss, as a method.
    #[differentiable(self)]
    #[must_use]
    pub fn loss(&self, #[no_grad] x: &autodiff::ndarray::Array2<f64>) -> f64 {
        dense_loss(self, x)
    }
}

/// Writes a differentiable function from names its caller gives: the parameters and the
/// body come from the call, the attribute from the macro.
macro_rules! stamped {
    ($(#[$doc:meta])* $name:ident, |$x:ident: $xt:ty, $w:ident: $wt:ty| $body:block) => {
        $(#[$doc])*
        #[differentiable]
        #[must_use]
        pub fn $name($x: $xt, $w: $wt) -> f64 $body
    };
}

stamped!(
    /// A weighted sum of sines, its names the caller's.
    weighted_sines,
    |xs: &[f64], scale: f64| {
        let mut total = 0.0;
        for x in xs {
            total += (x * scale).sin();
        }
        total * scale
    }
);

/// Writes a function for the float type its caller names (`$t:ty`), in its signature and
/// its body.
macro_rules! typed {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        #[differentiable]
        #[must_use]
        pub fn $name(x: &[$t], w: $t) -> $t {
            let mut s: $t = 0.0;
            let scaled: std::vec::Vec<$t> = x.iter().map(|v| v * w).collect();
            for v in &scaled {
                s += v.sin();
            }
            s
        }
    };
}

typed!(
    /// `Σ sin(xᵢ w)` in `f64`.
    sines_f64,
    f64
);
typed!(
    /// `Σ sin(xᵢ w)` in `f32`.
    sines_f32,
    f32
);

/// Writes a function of `f64` marked for second order, its type the caller's.
macro_rules! second_order {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        #[differentiable(second_order)]
        #[must_use]
        pub fn $name(x: &[$t]) -> $t {
            let mut s: $t = 0.0;
            for v in x {
                s += v * v * v;
            }
            s
        }
    };
}

second_order!(
    /// `Σ xᵢ³`, with `hvp!`.
    cubes,
    f64
);

/// A wrapper of a function the caller names, at a scale the caller gives: its gradient is
/// the callee's, handed on.
macro_rules! negated {
    ($(#[$doc:meta])* $name:ident, $callee:ident, $scale:expr) => {
        $(#[$doc])*
        #[differentiable]
        #[must_use]
        pub fn $name(xs: &[f64]) -> f64 {
            -$callee(xs, $scale)
        }
    };
}

negated!(
    /// `−weighted_sines(xs, 0.75)`.
    negated_sines,
    weighted_sines,
    0.75
);
