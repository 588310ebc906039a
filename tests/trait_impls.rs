//! Methods of `impl` blocks annotated as a whole, trait impls above all: each method is
//! differentiable, reached by `gradients_function!(Type::method)`, `vjp!`, the implicit
//! helpers, and from differentiable code as `self.m(x)`, `dist.m(x)`, `Type::m(&d, x)` and
//! `<Type as Trait>::m(&d, x)`. Gradients are compared with central finite differences of
//! the methods as written and with derivatives worked out by hand.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// Relative tolerance against finite differences.
const FD_TOL: f64 = 1e-7;

#[track_caller]
fn assert_fd(at: f64, analytic: f64, mut f: impl FnMut(f64) -> f64) {
    let numeric = finite_difference(|x: &[f64]| f(x[0]), &[at]);
    assert_gradient_close(&[analytic], &numeric, FD_TOL);
}

#[track_caller]
fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= 1e-12 * expected.abs().max(1.0),
        "{actual} vs {expected}"
    );
}

// ---------------------------------------------------------------------------------------
// A trait as statistics libraries write it, implemented for two distributions
// ---------------------------------------------------------------------------------------

pub trait Continuous<K, T> {
    fn pdf(&self, x: K) -> T;
    fn ln_pdf(&self, x: K) -> T;
}

pub trait ContinuousCdf<K, T> {
    fn cdf(&self, x: K) -> T;
    fn sf(&self, x: K) -> T;
}

pub struct Exp {
    rate: f64,
}

pub struct Logistic {
    location: f64,
    scale: f64,
}

#[differentiable]
impl Continuous<f64, f64> for Exp {
    fn pdf(&self, x: f64) -> f64 {
        if x < 0.0 {
            0.0
        } else {
            self.rate * (-self.rate * x).exp()
        }
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        // a sibling method of the same trait impl, through `self`
        self.pdf(x).ln()
    }
}

#[differentiable]
impl ContinuousCdf<f64, f64> for Exp {
    fn cdf(&self, x: f64) -> f64 {
        if x < 0.0 {
            0.0
        } else {
            -(-self.rate * x).exp_m1()
        }
    }

    fn sf(&self, x: f64) -> f64 {
        // a method of another annotated impl of the same type
        1.0 - self.cdf(x)
    }
}

#[differentiable]
impl Continuous<f64, f64> for Logistic {
    fn pdf(&self, x: f64) -> f64 {
        let z = (x - self.location) / self.scale;
        let e = (-z).exp();
        e / (self.scale * (1.0 + e) * (1.0 + e))
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        let z = (x - self.location) / self.scale;
        -z - self.scale.ln() - 2.0 * (-z).exp().ln_1p()
    }
}

/// `d/dx` of the logistic density: `pdf · (−1/s) · tanh(z/2)`.
fn logistic_pdf_d(l: &Logistic, x: f64) -> f64 {
    let z = (x - l.location) / l.scale;
    -l.pdf(x) * (z / 2.0).tanh() / l.scale
}

#[test]
fn a_trait_method_gets_gradients_through_its_type() {
    let d = Exp { rate: 1.5 };
    let x = 0.7;
    let g = gradients_function!(Exp::pdf)(&d, x);
    // d/dx r e^{-rx} = -r² e^{-rx}
    assert_close(g, -1.5 * 1.5 * (-1.5 * x).exp());
    assert_fd(x, g, |x| d.pdf(x));

    let l = Logistic {
        location: 0.3,
        scale: 1.7,
    };
    let g = gradients_function!(Logistic::pdf, params = ["x"])(&l, x);
    assert_close(g, logistic_pdf_d(&l, x));
    assert_fd(x, g, |x| l.pdf(x));
    let g = gradients_function!(Logistic::ln_pdf)(&l, x);
    // d/dx ln pdf = −tanh(z/2)/s
    assert_close(g, -((x - 0.3) / 1.7 / 2.0).tanh() / 1.7);
    assert_fd(x, g, |x| l.ln_pdf(x));
}

#[test]
fn sibling_methods_call_each_other_through_self() {
    let d = Exp { rate: 0.8 };
    let x = 1.3;
    // ln pdf = ln r − r x: the derivative is −r
    let g = gradients_function!(Exp::ln_pdf)(&d, x);
    assert_close(g, -0.8);
    // sf = e^{−rx}; through `1 − self.cdf(x)` of the other impl
    let (v, g) = value_and_gradients_function!(Exp::sf)(&d, x);
    assert_close(v, (-0.8 * x).exp());
    assert_close(g, -0.8 * (-0.8 * x).exp());
    assert_fd(x, g, |x| d.sf(x));
}

#[test]
fn the_qualified_path_names_the_same_method() {
    let d = Exp { rate: 2.0 };
    let g = gradients_function!(<Exp as ContinuousCdf<f64, f64>>::cdf)(&d, 0.25);
    assert_close(g, 2.0 * (-0.5f64).exp());
}

#[test]
fn vjp_of_a_trait_method() {
    let l = Logistic {
        location: -0.2,
        scale: 0.9,
    };
    let (v, pullback) = vjp!(Logistic::pdf)(&l, 0.4);
    assert_close(v, l.pdf(0.4));
    assert_close(pullback(2.0), 2.0 * logistic_pdf_d(&l, 0.4));
}

// ---------------------------------------------------------------------------------------
// Calls of trait methods from differentiable code
// ---------------------------------------------------------------------------------------

/// The negative log-likelihood of two observations, `dist.ln_pdf(x)` on a parameter.
#[differentiable]
fn nll(#[no_grad] dist: &Logistic, x: f64, y: f64) -> f64 {
    -(dist.ln_pdf(x) + dist.ln_pdf(y))
}

/// The same through the path forms.
#[differentiable]
fn nll_paths(#[no_grad] dist: &Logistic, x: f64, y: f64) -> f64 {
    -(Logistic::ln_pdf(dist, x) + <Logistic as Continuous<f64, f64>>::ln_pdf(dist, y))
}

/// A mixture: two distributions of different types in one function.
#[differentiable]
fn mixture(#[no_grad] a: &Exp, #[no_grad] b: &Logistic, w: f64, x: f64) -> f64 {
    w * a.pdf(x) + (1.0 - w) * b.pdf(x)
}

#[test]
fn a_call_on_a_constant_receiver_reaches_the_trait_method() {
    let l = Logistic {
        location: 0.5,
        scale: 1.2,
    };
    let score = |x: f64| ((x - 0.5) / 1.2 / 2.0).tanh() / 1.2;
    let (gx, gy) = gradients_function!(nll, params = ["x", "y"])(&l, 0.1, 2.0);
    assert_close(gx, score(0.1));
    assert_close(gy, score(2.0));
    assert_fd(0.1, gx, |x| nll(&l, x, 2.0));
    let (px, py) = gradients_function!(nll_paths, params = ["x", "y"])(&l, 0.1, 2.0);
    assert_close(px, gx);
    assert_close(py, gy);

    let e = Exp { rate: 1.1 };
    let (gw, gx) = gradients_function!(mixture, params = ["w", "x"])(&e, &l, 0.3, 0.6);
    assert_close(gw, e.pdf(0.6) - l.pdf(0.6));
    let exp_d = -1.1 * e.pdf(0.6);
    assert_close(gx, 0.3 * exp_d + 0.7 * logistic_pdf_d(&l, 0.6));
    assert_fd(0.6, gx, |x| mixture(&e, &l, 0.3, x));
}

/// Forward mode through trait methods reading their receiver's fields (constants there).
#[test]
fn forward_mode_reaches_the_trait_method() {
    let l = Logistic {
        location: 0.5,
        scale: 1.2,
    };
    let score = |x: f64| ((x - 0.5) / 1.2 / 2.0).tanh() / 1.2;
    let (value, tangent) = jvp!(nll, params = ["x", "y"])(&l, 0.1, 2.0, 0.7, -0.4);
    assert_eq!(value.to_bits(), nll(&l, 0.1, 2.0).to_bits());
    assert_close(tangent, 0.7 * score(0.1) - 0.4 * score(2.0));

    let e = Exp { rate: 1.1 };
    let (gw, gx) = gradients_function!(mixture, params = ["w", "x"])(&e, &l, 0.3, 0.6);
    let (_, tangent) = jvp!(mixture, params = ["w", "x"])(&e, &l, 0.3, 0.6, 0.25, 1.5);
    assert_close(tangent, 0.25 * gw + 1.5 * gx);
}

// ---------------------------------------------------------------------------------------
// Generic impls: over the trait's float type, and over the self type's
// ---------------------------------------------------------------------------------------

pub trait Easing<F> {
    fn ease_in(&self, t: F) -> F;
    fn ease_in_out(&self, t: F) -> F;
}

pub struct Cubic;

#[differentiable]
impl<F: Float> Easing<F> for Cubic {
    fn ease_in(&self, t: F) -> F {
        t * t * t
    }

    fn ease_in_out(&self, t: F) -> F {
        let half = F::from(0.5).unwrap();
        if t < half {
            F::from(4.0).unwrap() * self.ease_in(t)
        } else {
            let u = F::from(-2.0).unwrap() * t + F::from(2.0).unwrap();
            F::one() - u.powi(3) / F::from(2.0).unwrap()
        }
    }
}

pub struct Scaled<T> {
    k: usize,
    unit: core::marker::PhantomData<T>,
}

pub trait Energy<T> {
    fn energy(&self, x: T, v: T) -> T;
}

#[differentiable]
impl<T: Float> Energy<T> for Scaled<T> {
    fn energy(&self, x: T, v: T) -> T {
        // (reads no field: a field of a generic self type is not supported yet)
        x * x / (T::one() + T::one()) + v.powi(2)
    }
}

#[test]
fn a_trait_generic_over_the_float_type() {
    let g: f64 = gradients_function!(Cubic::ease_in)(&Cubic, 0.4);
    assert_close(g, 3.0 * 0.16);
    let g: f32 = gradients_function!(Cubic::ease_in)(&Cubic, 0.5f32);
    assert!((g - 0.75).abs() < 1e-6);
    // 4t³ below one half: 12t²; above, 1 − (2 − 2t)³/2: 3(2 − 2t)²
    let g: f64 = gradients_function!(Cubic::ease_in_out)(&Cubic, 0.3);
    assert_close(g, 12.0 * 0.09);
    let g: f64 = gradients_function!(Cubic::ease_in_out)(&Cubic, 0.8);
    assert_close(g, 3.0 * 0.4 * 0.4);
    assert_fd(0.8, g, |t| Easing::<f64>::ease_in_out(&Cubic, t));
}

#[test]
fn an_impl_generic_over_the_self_type() {
    let s = Scaled {
        k: 3,
        unit: core::marker::PhantomData,
    };
    let (gx, gv) = gradients_function!(Scaled::<f64>::energy)(&s, 0.5, -2.0);
    assert_close(gx, 0.5);
    assert_close(gv, -4.0);
    let s32 = Scaled {
        k: 2,
        unit: core::marker::PhantomData::<f32>,
    };
    let (gx, gv) = gradients_function!(Scaled::<f32>::energy)(&s32, 1.0, 1.0);
    assert_eq!((gx, gv), (1.0, 2.0));
    assert_eq!(s.k + s32.k, 5);
}

// ---------------------------------------------------------------------------------------
// Receivers and the implicit mode
// ---------------------------------------------------------------------------------------

pub trait Model {
    fn predict(&self, x: f64) -> f64;
    fn loss(&self, x: f64, y: f64) -> f64;
    fn name(&self) -> &'static str;
}

#[derive(Clone, Differentiable)]
pub struct Affine {
    w: f64,
    b: f64,
}

#[differentiable]
impl Model for Affine {
    // differentiable with respect to the receiver too
    #[differentiable(self)]
    fn predict(&self, x: f64) -> f64 {
        self.w * x + self.b
    }

    #[differentiable(self)]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let r = self.predict(x) - y;
        r * r
    }

    // not differentiable: kept as written
    fn name(&self) -> &'static str {
        "affine"
    }
}

#[test]
fn a_differentiable_receiver_of_a_trait_method() {
    let m = Affine { w: 2.0, b: 0.5 };
    assert_eq!(m.name(), "affine");
    let (dm, dx) = gradients_function!(Affine::loss, params = ["self", "x"])(&m, 1.5, 3.0);
    // r = w x + b − y = 0.5: d/dw = 2 r x, d/db = 2 r, d/dx = 2 r w
    assert_close(dm.w, 1.5);
    assert_close(dm.b, 1.0);
    assert_close(dx, 2.0);
}

pub struct Line {
    slope: Variable<f64>,
    intercept: Variable<f64>,
}

#[differentiable]
impl Model for Line {
    fn predict(&self, x: f64) -> f64 {
        self.slope * x + self.intercept
    }

    fn loss(&self, x: f64, y: f64) -> f64 {
        let r = self.predict(x) - y;
        r * r
    }

    fn name(&self) -> &'static str {
        "line"
    }
}

#[test]
fn the_implicit_mode_reaches_variables_through_trait_methods() {
    let line = Line {
        slope: Variable::new(2.0),
        intercept: Variable::new(-1.0),
    };
    assert_eq!(line.loss(3.0, 4.0), 1.0);
    let grads = implicit_gradients(|x: f64, y: f64| line.loss(x, y))(3.0, 4.0);
    // d/dslope (slope x + b − y)² = 2 r x, d/db = 2 r, with r = 1
    assert_eq!(grads.get(&line.slope), Some(6.0));
    assert_eq!(grads.get(&line.intercept), Some(2.0));
}

// ---------------------------------------------------------------------------------------
// An inherent impl annotated as a whole
// ---------------------------------------------------------------------------------------

pub struct Spring {
    k: f64,
}

#[differentiable]
impl Spring {
    pub fn force(&self, x: f64) -> f64 {
        -self.k * x
    }

    pub fn energy(&self, x: f64) -> f64 {
        -0.5 * self.force(x) * x
    }

    /// No differentiable parameter: kept as written.
    pub fn stiffness(&self) -> f64 {
        self.k
    }
}

#[test]
fn every_method_of_an_annotated_inherent_impl() {
    let s = Spring { k: 4.0 };
    assert_eq!(s.stiffness(), 4.0);
    let g = gradients_function!(Spring::energy)(&s, 0.5);
    assert_close(g, 2.0);
    assert_fd(0.5, g, |x| s.energy(x));
}

// ---------------------------------------------------------------------------------------
// Recursion with constant arguments runs the function as written
// ---------------------------------------------------------------------------------------

/// `n!` by recursion on the constant `n`, times `x`: the recursive call carries no
/// differentiable value, so it is the primal's.
#[differentiable]
fn factorial_times(n: u32, x: f64) -> f64 {
    if n == 0 {
        x
    } else {
        f64::from(n) * factorial_times(n - 1, 1.0) * x
    }
}

#[test]
fn recursion_with_constant_arguments() {
    assert_eq!(factorial_times(4, 2.0), 48.0);
    assert_eq!(gradients_function!(factorial_times)(4, 2.0), 24.0);
}

// ---------------------------------------------------------------------------------------
// Associated functions called by their path, `Type::function(…)`
// ---------------------------------------------------------------------------------------

/// A smooth step, its constructors and evaluation as associated functions (no receiver).
struct Smooth<T>(core::marker::PhantomData<T>);

#[differentiable]
impl<T: autodiff::num_traits::Float> Smooth<T> {
    /// `x²(3 − 2x)`.
    fn step(x: T) -> T {
        let two = T::one() + T::one();
        x * x * (two + T::one() - two * x)
    }
}

/// Degrees to radians, a concrete `impl`.
struct Degrees;

#[differentiable]
impl Degrees {
    fn to_radians(d: f64) -> f64 {
        d * std::f64::consts::PI / 180.0
    }
}

/// A generic owner with its type argument given and inferred (from the call's argument
/// alone), and a concrete owner.
#[differentiable]
fn steps(x: f64, d: f64) -> f64 {
    Smooth::<f64>::step(x) + Smooth::step(0.5 * x) * Degrees::to_radians(d).sin()
}

#[test]
fn associated_functions_by_their_path() {
    let (x, d) = (0.3_f64, 40.0_f64);
    let r = std::f64::consts::PI / 180.0;
    let s = |x: f64| x * x * (3.0 - 2.0 * x);
    let ds = |x: f64| 6.0 * x * (1.0 - x);
    let (gx, gd) = gradients_function!(steps)(x, d);
    // by hand: s'(x) + 0.5 s'(x/2) sin(d r);  s(x/2) cos(d r) r
    assert_close(gx, ds(x) + 0.5 * ds(0.5 * x) * (d * r).sin());
    assert_close(gd, s(0.5 * x) * (d * r).cos() * r);
    assert_fd(x, gx, |x| steps(x, d));
    assert_fd(d, gd, |d| steps(x, d));
    let (_, t) = jvp!(steps)(x, d, 1.0, 0.0);
    assert_close(t, gx);
}

/// A generic function calling the generic owner's function with its type inferred.
#[differentiable]
fn smooth_sum<T: autodiff::Real>(x: &[T]) -> T {
    let mut s = T::zero();
    for &v in x {
        s = s + Smooth::step(v);
    }
    s
}

#[test]
fn associated_functions_of_a_generic_owner_in_generic_code() {
    let x = [0.1_f64, 0.4, 0.9];
    let v = [1.0, -2.0, 0.5];
    let g = gradients_function!(smooth_sum)(&x[..]);
    let hv = hvp!(smooth_sum)(&x[..], &v[..]);
    for i in 0..3 {
        // s'(x) = 6x(1 − x), s''(x) = 6 − 12x
        assert_close(g[i], 6.0 * x[i] * (1.0 - x[i]));
        assert_close(hv[i], (6.0 - 12.0 * x[i]) * v[i]);
    }
    let gf = gradients_function!(smooth_sum)(&[0.25_f32][..]);
    assert!((gf[0] - 1.125).abs() < 1e-6);
}

/// A polynomial generic over its float type, evaluated by a method.
#[derive(Clone, Debug, autodiff::Differentiable)]
struct Poly<T: autodiff::Real> {
    c: Vec<T>,
}

#[differentiable]
impl<T: autodiff::Real> Poly<T> {
    fn eval(&self, x: T) -> T {
        let mut acc = T::zero();
        for i in (0..self.c.len()).rev() {
            acc = acc * x + self.c[i];
        }
        acc
    }
}

/// The owner's type argument written as the function's own generic (`Smooth::<T>`), and a
/// method of a generic owner called by its path with the owner's argument inferred.
#[differentiable]
fn smooth_and_poly<T: autodiff::Real>(x: T, #[no_grad] p: &Poly<T>) -> T {
    Smooth::<T>::step(x) + p.eval(x) + Poly::eval(p, x)
}

#[test]
fn paths_naming_the_functions_generics() {
    let p = Poly {
        c: vec![1.0, 2.0, 3.0],
    };
    let x = 0.3;
    // s(x) + 2(1 + 2x + 3x²): s'(x) + 2(2 + 6x), s''(x) + 12
    let g = gradients_function!(smooth_and_poly)(x, &p);
    assert_close(g, 6.0 * x * (1.0 - x) + 2.0 * (2.0 + 6.0 * x));
    assert_fd(x, g, |x| smooth_and_poly(x, &p));
    let h = hvp!(smooth_and_poly, params = ["x"])(x, &p, 1.0);
    assert_close(h, 6.0 - 12.0 * x + 12.0);
    let (_, t) = jvp!(smooth_and_poly, params = ["x"])(x, &p, 1.0);
    assert_close(t, g);
}

// ---------------------------------------------------------------------------------------
// Values of a struct made in the body, and unit structs, as receivers
// ---------------------------------------------------------------------------------------

/// A point generic over its float type: a constructor and methods of one block marked
/// `self` (the constructor, without a receiver, differentiated as any function).
#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Point<T: autodiff::Real> {
    x: T,
    y: T,
}

#[differentiable(self)]
impl<T: autodiff::Real> Point<T> {
    fn new(x: T, y: T) -> Self {
        Point { x, y }
    }
    fn length(&self) -> T {
        (self.x * self.x + self.y * self.y).sqrt()
    }
    fn scaled(&self, s: T) -> Self {
        Point::new(self.x * s, self.y * s)
    }
    fn dot_with(&self, o: &Self) -> T {
        self.x * o.x + self.y * o.y
    }
}

/// `2|p| + 2|p|²` through values the body makes: `Point::new`, then methods of its result.
#[differentiable]
fn made_points<T: autodiff::Real>(a: T, b: T) -> T {
    let p = Point::new(a, b);
    let q = p.scaled(T::from(2.0).unwrap());
    q.length() + q.dot_with(&p)
}

/// A unit struct with a trait method.
struct Square;

trait Area<T> {
    fn area(&self, side: T) -> T;
}

#[differentiable]
impl<T: autodiff::num_traits::Float> Area<T> for Square {
    fn area(&self, side: T) -> T {
        side * side
    }
}

/// The unit struct as a receiver, written in place and bound to a local.
#[differentiable]
fn squares(x: f64) -> f64 {
    let s = Square;
    Square.area(x) + s.area(3.0 * x)
}

#[test]
fn values_made_in_the_body_and_unit_structs_as_receivers() {
    let (a, b) = (3.0, 4.0);
    let (ga, gb) = gradients_function!(made_points)(a, b);
    // ∇(2|p| + 2|p|²) = 2p/|p| + 4p
    assert_close(ga, 2.0 * a / 5.0 + 4.0 * a);
    assert_close(gb, 2.0 * b / 5.0 + 4.0 * b);
    assert_fd(a, ga, |a| made_points(a, b));
    let x = 0.7;
    // x² + 9x²
    assert_close(gradients_function!(squares)(x), 20.0 * x);
    let (_, t) = jvp!(made_points)(a, b, 1.0, 0.0);
    assert_close(t, ga);
}
