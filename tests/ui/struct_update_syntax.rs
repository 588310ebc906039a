use autodiff::prelude::*;

#[derive(Clone, Differentiable)]
pub struct State {
    pub pos: f64,
    pub vel: f64,
}

#[differentiable]
fn step(s: &State, dt: f64) -> State {
    State {
        pos: s.pos + dt * s.vel,
        ..s.clone()
    }
}

fn main() {}
