//! Values of derived `Differentiable` structs made inside differentiable code — a struct
//! literal of differentiable values (`V3 { x: a.x - b.x, … }`) returned, bound to a local,
//! handed to a callee, or carried through a loop as its state (`s = step(&s, k, dt)`) —
//! and functions returning such a struct (alone or in a tuple) under `vjp!`, `jvp!`, the
//! gradient helpers and the implicit mode. Each gradient against a derivation by hand or
//! central differences; each tangent against the gradient.

// index loops are the forms under test
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use std::ops::Sub;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct V3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// `a − b`, a struct made of differentiable members.
#[differentiable]
fn difference(a: V3, b: V3) -> V3 {
    V3 {
        x: a.x - b.x,
        y: a.y - b.y,
        z: a.z - b.z,
    }
}

#[differentiable]
fn norm(v: V3) -> f64 {
    (v.x * v.x + v.y * v.y + v.z * v.z).sqrt()
}

/// `|a − b|` through the struct `difference` returns.
#[differentiable]
fn distance(a: V3, b: V3) -> f64 {
    let d = difference(a, b);
    norm(d)
}

/// A local struct mixing differentiable members and a constant: `2 k aₓ + k a_z`.
#[differentiable]
fn scaled_members(a: V3, k: f64) -> f64 {
    let s = V3 {
        x: a.x * k,
        y: 2.0,
        z: a.z,
    };
    s.x * s.y + s.z * k
}

/// A struct and a scalar together: `(a · k, |a|²)`.
#[differentiable]
fn scaled_and_squared(a: V3, k: f64) -> (V3, f64) {
    let s = V3 {
        x: a.x * k,
        y: a.y * k,
        z: a.z * k,
    };
    (s, a.x * a.x + a.y * a.y + a.z * a.z)
}

const A: V3 = V3 {
    x: 0.3,
    y: -0.7,
    z: 1.1,
};
const B: V3 = V3 {
    x: 1.0,
    y: 0.5,
    z: -0.2,
};

#[test]
fn a_struct_returned_and_handed_on() {
    let (ga, gb) = gradients_function!(distance)(A, B);
    // by hand: ∂|a − b|/∂a = (a − b)/|a − b|, ∂/∂b its negation
    let d = ((A.x - B.x).powi(2) + (A.y - B.y).powi(2) + (A.z - B.z).powi(2)).sqrt();
    for (g, want) in [(ga.x, A.x - B.x), (ga.y, A.y - B.y), (ga.z, A.z - B.z)] {
        assert!(close(g, want / d, 1e-14), "{g} vs {}", want / d);
    }
    assert!(close(gb.x, -(A.x - B.x) / d, 1e-14));
    // the pullback of the struct-valued function takes the struct's tangent
    let (value, pullback) = vjp!(difference)(A, B);
    assert_eq!(value, difference(A, B));
    let (da, db) = pullback(V3Tangent {
        x: 1.0,
        y: 2.0,
        z: 3.0,
    });
    assert_eq!((da.x, da.y, da.z), (1.0, 2.0, 3.0));
    assert_eq!((db.x, db.y, db.z), (-1.0, -2.0, -3.0));
    // and its tangent is one
    let t = V3Tangent {
        x: 0.5,
        y: 0.0,
        z: -1.0,
    };
    let zero = V3Tangent {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    let (value, tangent) = jvp!(difference)(A, B, t.clone(), zero.clone());
    assert_eq!(value, difference(A, B));
    assert_eq!((tangent.x, tangent.y, tangent.z), (0.5, 0.0, -1.0));
    let (_, along) = jvp!(distance)(A, B, t, zero);
    assert!(close(along, ga.x * 0.5 - ga.z, 1e-14));
}

#[test]
fn a_local_struct_with_a_constant_member() {
    let (ga, gk) = gradients_function!(scaled_members)(A, 1.5);
    // 2 k aₓ + k a_z: ∂/∂a = (2k, 0, k), ∂/∂k = 2 aₓ + a_z
    assert_eq!((ga.x, ga.y, ga.z), (3.0, 0.0, 1.5));
    assert!(close(gk, 2.0 * A.x + A.z, 1e-15));
    let (value, pullback) = vjp!(scaled_and_squared)(A, 2.0);
    assert_eq!(value, scaled_and_squared(A, 2.0));
    // cotangent ((1, 0, 1), 1): k (1, 0, 1) + 2a for a, aₓ + a_z for k
    let (da, dk) = pullback((
        V3Tangent {
            x: 1.0,
            y: 0.0,
            z: 1.0,
        },
        1.0,
    ));
    assert_eq!(
        (da.x, da.y, da.z),
        (2.0 + 2.0 * A.x, 2.0 * A.y, 2.0 + 2.0 * A.z)
    );
    assert!(close(dk, A.x + A.z, 1e-15));
}

#[derive(Clone, Debug, Differentiable)]
pub struct State {
    pub pos: f64,
    pub vel: f64,
    /// A counter: constant, carried along.
    #[no_grad]
    pub steps: usize,
}

/// One explicit Euler step of the oscillator `x'' = −k x`.
#[differentiable]
fn step(s: &State, k: f64, dt: f64) -> State {
    State {
        pos: s.pos + dt * s.vel,
        vel: s.vel - dt * k * s.pos,
        steps: s.steps + 1,
    }
}

/// The position after `n` steps from rest at 1: the state reassigned in a loop.
#[differentiable]
fn simulate(k: f64, n: usize) -> f64 {
    let mut s = State {
        pos: 1.0,
        vel: 0.0,
        steps: 0,
    };
    for _ in 0..n {
        s = step(&s, k, 0.1);
    }
    assert_eq!(s.steps, n);
    s.pos
}

#[test]
fn a_struct_as_a_loop_state() {
    let g = gradients_function!(simulate)(2.0, 10);
    let fd = autodiff::check::finite_difference(|k| simulate(k[0], 10), &[2.0]);
    assert!(close(g, fd[0], 1e-6), "{g} vs {}", fd[0]);
    let (value, tangent) = jvp!(simulate)(2.0, 10, 1.0);
    assert_eq!(value, simulate(2.0, 10));
    assert!(close(tangent, g, 1e-14));
    // one step by hand: pos' = pos + dt vel, vel' = vel − dt k pos
    let s = State {
        pos: 0.5,
        vel: -0.25,
        steps: 3,
    };
    let (value, pullback) = vjp!(step)(&s, 2.0, 0.1);
    assert_eq!(value.steps, 4);
    let (ds, dk, ddt) = pullback(StateTangent {
        pos: 1.0,
        vel: 1.0,
        steps: autodiff::NoTangent,
    });
    assert!(close(ds.pos, 1.0 - 0.1 * 2.0, 1e-15));
    assert!(close(ds.vel, 0.1 + 1.0, 1e-15));
    assert!(close(dk, -0.1 * 0.5, 1e-15));
    assert!(close(ddt, -0.25 - 2.0 * 0.5, 1e-15));
}

#[derive(Clone, Debug, Differentiable)]
pub struct Layer {
    pub w: Vec<f64>,
    pub b: f64,
}

/// A layer scaled by `k`: a `Vec` member collected from a chain.
#[differentiable]
fn scaled_layer(l: &Layer, k: f64) -> Layer {
    Layer {
        w: l.w.iter().map(|v| v * k).collect(),
        b: l.b * k,
    }
}

#[differentiable]
fn scaled_output(l: &Layer, k: f64) -> f64 {
    let m = scaled_layer(l, k);
    m.w.iter().sum::<f64>() * m.b
}

#[test]
fn a_struct_with_a_vec_member() {
    let l = Layer {
        w: vec![1.0, 2.0],
        b: 0.5,
    };
    let (gl, gk) = gradients_function!(scaled_output)(&l, 2.0);
    // (k Σw)(k b): ∂/∂wᵢ = k² b, ∂/∂b = k² Σw, ∂/∂k = 2k b Σw
    assert_eq!(gl.w, vec![2.0, 2.0]);
    assert_eq!(gl.b, 12.0);
    assert_eq!(gk, 6.0);
}

#[test]
fn a_struct_of_captured_variables() {
    let w = Variable::new(2.0);
    let f = differentiable_closure!(|t: f64| norm(V3 {
        x: w * t,
        y: 1.0,
        z: t
    }));
    let grads = implicit_gradients(&f)(0.5);
    // |(w t, 1, t)|: ∂/∂w = w t² / |…|
    let n = (1.0f64 + 1.0 + 0.25).sqrt();
    assert!(close(grads.get(&w).unwrap(), 2.0 * 0.25 / n, 1e-14));
}

/// Parameters generic over their float, written without bounds as Rust code usually is.
#[derive(Clone, Debug, Differentiable)]
pub struct Params<T> {
    pub w: Vec<T>,
    pub b: T,
}

#[differentiable]
fn predict<T: Float>(p: &Params<T>, x: &[T]) -> T {
    let mut s = p.b;
    for i in 0..x.len() {
        s = s + p.w[i] * x[i];
    }
    s
}

#[differentiable]
fn squared_error(p: &Params<f64>, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut l = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let r = predict(p, x) - y;
        l += r * r;
    }
    l / ys.len() as f64
}

#[test]
fn a_struct_generic_over_its_float_without_bounds() {
    let p = Params {
        w: vec![0.5, -1.0],
        b: 0.2,
    };
    let xs = vec![vec![1.0, 2.0], vec![0.5, -0.5]];
    let ys = [0.3, 0.7];
    let (g, _, _) = gradients_function!(squared_error)(&p, &xs, &ys);
    // by hand: rₖ = w·xₖ + b − yₖ; ∂/∂b = Σ rₖ, ∂/∂wᵢ = Σ rₖ xₖᵢ (the 2 and the 1/2 cancel)
    let r: Vec<f64> = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| p.w[0] * x[0] + p.w[1] * x[1] + p.b - y)
        .collect();
    assert!(close(g.b, r[0] + r[1], 1e-14));
    assert!(close(g.w[0], r[0] * xs[0][0] + r[1] * xs[1][0], 1e-14));
    assert!(close(g.w[1], r[0] * xs[0][1] + r[1] * xs[1][1], 1e-14));
}

#[derive(Clone, Debug, Differentiable)]
pub struct Vec2 {
    pub x: f64,
    pub y: f64,
}

#[differentiable]
impl Vec2 {
    #[differentiable(self)]
    pub fn scale(&self, k: f64) -> Vec2 {
        Vec2 {
            x: self.x * k,
            y: self.y * k,
        }
    }

    #[differentiable(self)]
    pub fn plus(&self, o: &Vec2) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }

    #[differentiable(self)]
    pub fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

/// `|a k + a|²` by methods chained on the values they return.
#[differentiable]
fn methods_of_made_values(a: &Vec2, k: f64) -> f64 {
    let b = a.scale(k);
    let c = b.plus(a);
    c.norm2()
}

#[test]
fn methods_returning_self_called_on_the_values_they_make() {
    let a = Vec2 { x: 0.3, y: -0.4 };
    let (ga, gk) = gradients_function!(methods_of_made_values)(&a, 2.0);
    // (k + 1)² |a|²: ∂/∂a = 2 (k + 1)² a, ∂/∂k = 2 (k + 1) |a|²
    assert!(close(ga.x, 18.0 * a.x, 1e-14) && close(ga.y, 18.0 * a.y, 1e-14));
    assert!(close(gk, 6.0 * 0.25, 1e-14));
    let (value, tangent) =
        jvp!(methods_of_made_values)(&a, 2.0, &Vec2Tangent { x: 0.0, y: 0.0 }, 1.0);
    assert_eq!(value, methods_of_made_values(&a, 2.0));
    assert!(close(tangent, gk, 1e-14));
}

// ---------------------------------------------------------------------------------------
// Operators of a user's struct (`impl Sub for V3` in an annotated impl): `a - b`, `a * k +
// b`, and its methods called on the values they make, whatever their names (`d.dot(&d)`)
// ---------------------------------------------------------------------------------------

#[differentiable]
impl std::ops::Sub for V3 {
    type Output = V3;
    #[differentiable(self)]
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

#[differentiable]
impl std::ops::Add for V3 {
    type Output = V3;
    #[differentiable(self)]
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

#[differentiable]
impl std::ops::Mul<f64> for V3 {
    type Output = V3;
    #[differentiable(self)]
    fn mul(self, k: f64) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}

#[differentiable]
impl V3 {
    #[differentiable(self)]
    pub fn dot(&self, o: &V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
}

/// `|a − b|²` by the operator.
#[differentiable]
fn squared_distance(a: V3, b: V3) -> f64 {
    let d = a - b;
    d.dot(&d)
}

/// The same by the method written out.
#[differentiable]
fn squared_distance_by_method(a: V3, b: V3) -> f64 {
    let d = a.sub(b);
    let e = a - b;
    d.dot(&e)
}

/// `(a k + b) · a`.
#[differentiable]
fn scaled_sum_dot(a: V3, b: V3, k: f64) -> f64 {
    let m = a * k + b;
    m.dot(&a)
}

#[test]
fn operators_of_a_users_struct() {
    // by hand: ∂|a − b|²/∂a = 2 (a − b)
    let (ga, gb) = gradients_function!(squared_distance)(A, B);
    assert_eq!(
        (ga.x, ga.y, ga.z),
        (2.0 * (A.x - B.x), 2.0 * (A.y - B.y), 2.0 * (A.z - B.z))
    );
    assert_eq!(gb.x, -2.0 * (A.x - B.x));
    let (ga2, _) = gradients_function!(squared_distance_by_method)(A, B);
    assert_eq!((ga2.x, ga2.y, ga2.z), (ga.x, ga.y, ga.z));
    // (a k + b) · a: ∂/∂k = |a|², ∂/∂a = 2k a + b, ∂/∂b = a
    let (ga, gb, gk) = gradients_function!(scaled_sum_dot)(A, B, 2.0);
    assert!(close(gk, A.x * A.x + A.y * A.y + A.z * A.z, 1e-15));
    assert!(close(ga.y, 4.0 * A.y + B.y, 1e-15));
    assert_eq!((gb.x, gb.y, gb.z), (A.x, A.y, A.z));
    let t = V3Tangent {
        x: 1.0,
        y: 0.0,
        z: 0.0,
    };
    let (value, tangent) = jvp!(scaled_sum_dot)(
        A,
        B,
        2.0,
        t,
        V3Tangent {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        0.0,
    );
    assert_eq!(value, scaled_sum_dot(A, B, 2.0));
    assert!(close(tangent, ga.x, 1e-15));
}

/// Points pushed onto a local `Vec` from a flat slice, then read by a loop and by index.
#[differentiable]
fn pushed_points(xs: &[f64]) -> f64 {
    let mut pts = Vec::new();
    for i in 0..xs.len() / 2 {
        pts.push(Vec2 {
            x: xs[2 * i],
            y: xs[2 * i + 1],
        });
    }
    let mut s = 0.0;
    for p in &pts {
        s += p.x * p.y;
    }
    s + pts[0].x
}

#[derive(Clone, Debug, Differentiable)]
pub struct Cell<T> {
    pub a: T,
    pub v: Vec<T>,
}

/// Generic structs with a `Vec` member pushed onto a local `Vec`.
#[differentiable]
fn pushed_cells<T: Float>(xs: &[T]) -> T {
    let mut cells = Vec::new();
    for i in 0..xs.len() {
        cells.push(Cell {
            a: xs[i] * xs[i],
            v: vec![xs[i]],
        });
    }
    let mut s = T::zero();
    for c in &cells {
        s = s + c.a * c.v[0];
    }
    s
}

#[test]
fn structs_pushed_onto_a_local_vec() {
    let xs = [0.3, -0.7, 1.1, 0.4];
    // x₀y₀ + x₁y₁ + x₀: by hand
    let g = gradients_function!(pushed_points)(&xs);
    assert_eq!(g, vec![xs[1] + 1.0, xs[0], xs[3], xs[2]]);
    let (value, tangent) = jvp!(pushed_points)(&xs, &[1.0, 0.0, 0.0, 0.0]);
    assert_eq!(value, pushed_points(&xs));
    assert!(close(tangent, g[0], 1e-15));
    // Σ x³: 3x²
    let g = gradients_function!(pushed_cells)(&xs[..]);
    for (gi, x) in g.iter().zip(&xs) {
        assert!(close(*gi, 3.0 * x * x, 1e-14));
    }
}

// ---------------------------------------------------------------------------------------
// A `let mut` struct stepped through a loop, its methods called on it
// ---------------------------------------------------------------------------------------

#[derive(Differentiable, Clone, Copy, Debug, Default)]
pub struct Particle {
    pub x: f64,
    pub v: f64,
}

#[differentiable(self)]
impl Particle {
    pub fn energy(&self, k: f64) -> f64 {
        0.5 * self.v * self.v + 0.5 * k * self.x * self.x
    }
}

/// One symplectic Euler step of a spring.
#[differentiable]
fn spring_step(p: Particle, k: f64, dt: f64) -> Particle {
    let a = -k * p.x;
    let v = p.v + a * dt;
    Particle { x: p.x + v * dt, v }
}

/// A particle made by a literal, stepped in a loop, its energy by its method.
#[differentiable]
fn simulated_energy(x0: f64, v0: f64, k: f64) -> f64 {
    let mut p = Particle { x: x0, v: v0 };
    for _ in 0..50 {
        p = spring_step(p, k, 0.01);
    }
    p.energy(k) + p.x
}

#[test]
fn a_mutable_struct_stepped_and_its_method_called() {
    let (gx, gv, gk) = gradients_function!(simulated_energy)(1.0, 0.5, 2.0);
    let f = |p: &[f64]| simulated_energy(p[0], p[1], p[2]);
    let fd = autodiff::check::finite_difference(f, &[1.0, 0.5, 2.0]);
    for (a, b) in [gx, gv, gk].iter().zip(&fd) {
        assert!(close(*a, *b, 1e-6), "{a} vs {b}");
    }
    // one step by hand, from the start: x₁ = x₀ + (v₀ − k x₀ dt) dt, v₁ = v₀ − k x₀ dt
    #[differentiable]
    fn one_step_energy(x0: f64, v0: f64, k: f64) -> f64 {
        let mut p = Particle { x: x0, v: v0 };
        p = spring_step(p, k, 0.1);
        p.energy(k)
    }
    let (x0, v0, k, dt) = (1.0, 0.5, 2.0, 0.1);
    let v1 = v0 - k * x0 * dt;
    let x1 = x0 + v1 * dt;
    // E = ½ v₁² + ½ k x₁²; ∂v₁/∂x₀ = −k dt, ∂x₁/∂x₀ = 1 − k dt²
    let gx_hand = v1 * (-k * dt) + k * x1 * (1.0 - k * dt * dt);
    let (gx, _, _) = gradients_function!(one_step_energy)(x0, v0, k);
    assert!(close(gx, gx_hand, 1e-14), "{gx} vs {gx_hand}");
    let (_, dy) = jvp!(simulated_energy)(1.0, 0.5, 2.0, 1.0, 0.0, 0.0);
    let (gx, _, _) = gradients_function!(simulated_energy)(1.0, 0.5, 2.0);
    assert!(close(dy, gx, 1e-12));
}

/// A `Vec` of structs collected from a chain (`.map(|&x| Particle { x, v: 0.0 })`), each
/// element stepped in place by a helper taking it by value (a `Copy` struct, `ps[i]`).
#[differentiable]
fn particles_stepped(xs: &[f64], k: f64) -> f64 {
    let mut ps: Vec<Particle> = xs.iter().map(|&x| Particle { x, v: 0.0 }).collect();
    for _ in 0..10 {
        for i in 0..ps.len() {
            ps[i] = spring_step(ps[i], k, 0.05);
        }
    }
    ps.iter().map(|p| p.x * p.x).sum()
}

#[test]
fn a_vec_of_structs_collected_and_stepped() {
    let xs = [0.3, -0.5, 1.2];
    let (g, gk) = gradients_function!(particles_stepped)(&xs, 1.5);
    let fd = autodiff::check::finite_difference(|v| particles_stepped(v, 1.5), &xs);
    autodiff::check::assert_gradient_close(&g, &fd, 1e-6);
    let fdk = autodiff::check::finite_difference(|k| particles_stepped(&xs, k[0]), &[1.5]);
    autodiff::check::assert_gradient_close(&[gk], &fdk, 1e-6);
    // each particle is independent and linear in its start: x₁₀ = c(k) x₀, so ∂/∂x₀ of x₁₀²
    // is 2 c² x₀, the same c for all
    let c2 = g[0] / (2.0 * xs[0]);
    for (gi, x) in g.iter().zip(&xs) {
        assert!(close(*gi, 2.0 * c2 * x, 1e-12));
    }
    let t = [0.2, -0.1, 0.4];
    let (_, dy) = jvp!(particles_stepped)(&xs, 1.5, &t, 0.0);
    assert!(close(dy, g.iter().zip(&t).map(|(a, b)| a * b).sum(), 1e-12));
}
