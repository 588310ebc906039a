use autodiff::prelude::*;

#[derive(Clone, Debug, Differentiable)]
pub struct State {
    pub pos: f64,
    pub vel: f64,
}

// the state written through `&mut`, no result: not an output yet
#[differentiable]
fn step(s: &mut State, k: f64, dt: f64) {
    let acc = -k * s.pos;
    s.vel += dt * acc;
    s.pos += dt * s.vel;
}

fn main() {}
