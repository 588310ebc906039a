use autodiff::prelude::*;

#[derive(Clone, Copy, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
}

impl std::ops::Mul<P2> for f64 {
    type Output = P2;
    fn mul(self, p: P2) -> P2 {
        P2 {
            x: self * p.x,
            y: self * p.y,
        }
    }
}

#[differentiable]
fn scaled(p: P2, k: f64) -> f64 {
    let q = k * p;
    q.x + q.y
}

fn main() {}
