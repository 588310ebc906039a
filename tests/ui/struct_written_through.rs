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


// a sequence of a type the macro cannot tell is a float, written through
#[differentiable]
fn swap_first<T: Copy + PartialOrd>(v: &mut [T]) {
    if v.len() > 1 && v[1] < v[0] {
        v.swap(0, 1);
    }
}

fn main() {}
