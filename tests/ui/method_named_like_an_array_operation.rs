use autodiff::prelude::*;

#[derive(Clone, Copy, Debug, Differentiable)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[differentiable(self)]
impl Point {
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }
    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

// `p.norm()` is read as the array operation `norm`; `Point::norm(&p)` is the method
#[differentiable]
fn length(a: f64, b: f64) -> f64 {
    let p = Point::new(a, b);
    p.norm()
}

fn main() {}
