//! Checking code shared by every module of a scratch crate (written there by the corpus runner).
//!
//! Each measured function gets a `check` that samples arguments, compares the annotated
//! function's primal with a reference (the published function, or a plain copy of it), and its
//! gradient with central finite differences taken at two step sizes. A point where the two
//! difference quotients disagree is a kink or a numerically unstable place: it is skipped.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// A small deterministic generator (SplitMix64), so that a run can be reproduced from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Where the arguments of one attempt are drawn from.
pub struct Ctx {
    pub lo: f64,
    pub hi: f64,
    pub len: usize,
}

/// A value that can be drawn at random for an argument.
pub trait Sample: Sized {
    fn sample(rng: &mut Rng, ctx: &Ctx) -> Self;
}

impl Sample for f64 {
    fn sample(rng: &mut Rng, ctx: &Ctx) -> Self {
        ctx.lo + (ctx.hi - ctx.lo) * rng.unit()
    }
}
impl Sample for f32 {
    fn sample(rng: &mut Rng, ctx: &Ctx) -> Self {
        f64::sample(rng, ctx) as f32
    }
}
impl Sample for bool {
    fn sample(rng: &mut Rng, _: &Ctx) -> Self {
        rng.next_u64() & 1 == 1
    }
}
macro_rules! sample_int {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn sample(rng: &mut Rng, _: &Ctx) -> Self {
                (1 + rng.next_u64() % 4) as $t
            }
        }
    )*};
}
sample_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
impl<T: Sample> Sample for Vec<T> {
    fn sample(rng: &mut Rng, ctx: &Ctx) -> Self {
        (0..ctx.len).map(|_| T::sample(rng, ctx)).collect()
    }
}
/// (`None` one time in three.)
impl<T: Sample> Sample for Option<T> {
    fn sample(rng: &mut Rng, ctx: &Ctx) -> Self {
        let value = T::sample(rng, ctx);
        (rng.next_u64() % 3 != 0).then_some(value)
    }
}
impl<T: Sample, const N: usize> Sample for [T; N] {
    fn sample(rng: &mut Rng, ctx: &Ctx) -> Self {
        std::array::from_fn(|_| T::sample(rng, ctx))
    }
}
macro_rules! sample_tuple {
    ($($t:ident),*) => {
        impl<$($t: Sample),*> Sample for ($($t,)*) {
            fn sample(rng: &mut Rng, ctx: &Ctx) -> Self {
                ($($t::sample(rng, ctx),)*)
            }
        }
    };
}
sample_tuple!();
sample_tuple!(A);
sample_tuple!(A, B);
sample_tuple!(A, B, C);
sample_tuple!(A, B, C, D);
sample_tuple!(A, B, C, D, E);
sample_tuple!(A, B, C, D, E, F);
sample_tuple!(A, B, C, D, E, F, G);
sample_tuple!(A, B, C, D, E, F, G, H);
sample_tuple!(A, B, C, D, E, F, G, H, I);
sample_tuple!(A, B, C, D, E, F, G, H, I, J);
sample_tuple!(A, B, C, D, E, F, G, H, I, J, K);
sample_tuple!(A, B, C, D, E, F, G, H, I, J, K, L);

/// A differentiable value seen as a flat list of its float components.
pub trait Flat: Clone {
    fn flat(&self) -> Vec<f64>;
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>);
    fn unflat_like(&self, x: &[f64]) -> Self {
        let mut c = self.clone();
        c.set_flat(&mut x.iter().copied());
        c
    }
}
impl Flat for f64 {
    fn flat(&self) -> Vec<f64> {
        vec![*self]
    }
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
        *self = it.next().expect("flat length");
    }
}
impl Flat for f32 {
    fn flat(&self) -> Vec<f64> {
        vec![*self as f64]
    }
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
        *self = it.next().expect("flat length") as f32;
    }
}
impl<T: Flat> Flat for Vec<T> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(Flat::flat).collect()
    }
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
        self.iter_mut().for_each(|v| v.set_flat(it));
    }
}
/// An optional float: its float, and `None` a component nothing moves (its gradient is
/// the float's zero, as the macro gives it for `None`).
impl Flat for Option<f64> {
    fn flat(&self) -> Vec<f64> {
        vec![self.unwrap_or(0.0)]
    }
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
        let v = it.next().expect("flat length");
        if let Some(x) = self {
            *x = v;
        }
    }
}
impl Flat for Option<f32> {
    fn flat(&self) -> Vec<f64> {
        vec![self.map_or(0.0, f64::from)]
    }
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
        let v = it.next().expect("flat length");
        if let Some(x) = self {
            *x = v as f32;
        }
    }
}
impl<T: Flat, const N: usize> Flat for [T; N] {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(Flat::flat).collect()
    }
    fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
        self.iter_mut().for_each(|v| v.set_flat(it));
    }
}
macro_rules! flat_tuple {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Flat),*> Flat for ($($t,)*) {
            fn flat(&self) -> Vec<f64> {
                let mut v = Vec::new();
                $(v.extend(self.$i.flat());)*
                v
            }
            #[allow(unused_variables)]
            fn set_flat(&mut self, it: &mut dyn Iterator<Item = f64>) {
                $(self.$i.set_flat(it);)*
            }
        }
    };
}
flat_tuple!();
flat_tuple!(A 0);
flat_tuple!(A 0, B 1);
flat_tuple!(A 0, B 1, C 2);
flat_tuple!(A 0, B 1, C 2, D 3);
flat_tuple!(A 0, B 1, C 2, D 3, E 4);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
flat_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);

/// What the check of one function needs, written by the runner for each function.
pub struct Spec<'a, A> {
    /// Draws the owned arguments.
    pub sample: &'a dyn Fn(&mut Rng, &Ctx) -> A,
    /// The annotated function's value, flattened.
    pub primal: &'a dyn Fn(&A) -> Vec<f64>,
    /// The reference value (the published function, or a plain copy), flattened.
    pub reference: &'a dyn Fn(&A) -> Vec<f64>,
    /// The gradient of `cotangent · f` with respect to every differentiable argument, flattened.
    pub gradient: &'a dyn Fn(&A, &[f64]) -> Vec<f64>,
    /// The differentiable arguments, flattened.
    pub get: &'a dyn Fn(&A) -> Vec<f64>,
    /// Writes flattened differentiable arguments back.
    pub set: &'a dyn Fn(&mut A, &[f64]),
    /// The function computes in `f32`.
    pub single: bool,
    /// The program's own derivative, derived by hand, for a function whose program is not
    /// differentiable the way the function it approximates is (an iteration whose steps are
    /// piecewise constant in the input): the gradient is compared with it, to rounding,
    /// instead of with finite differences, which see the slope of the approximated function.
    pub program: Option<&'a dyn Fn(&A) -> Vec<f64>>,
}

const DOMAINS: [(f64, f64); 7] = [
    (0.2, 2.0),
    (0.5, 1.5),
    (-1.5, 1.5),
    (1.0, 4.0),
    (0.05, 0.95),
    (-3.0, -0.2),
    (2.0, 10.0),
];
const LENGTHS: [usize; 4] = [3, 2, 4, 5];
const POINTS: usize = 3;
const ATTEMPTS: usize = 84;

fn quiet<R>(f: impl FnOnce() -> R) -> Option<R> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn same_value(a: &[f64], b: &[f64], single: bool) -> bool {
    let tol = if single { 1e-5 } else { 1e-10 };
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= tol * x.abs().max(y.abs()).max(1e-300)
        })
}

/// The derivative of `cot · f` along component `i` by central differences with step `h`
/// (relative to the component), and the rounding noise to expect from it.
fn central<A: Clone>(
    spec: &Spec<A>,
    args: &A,
    x: &[f64],
    cot: &[f64],
    i: usize,
    h: f64,
) -> Option<(f64, f64)> {
    let step = h * x[i].abs().max(1.0);
    let eval = |v: f64| -> Option<f64> {
        let mut xs = x.to_vec();
        xs[i] = v;
        let mut a = args.clone();
        (spec.set)(&mut a, &xs);
        let y = quiet(|| (spec.primal)(&a))?;
        finite(&y).then(|| dot(cot, &y))
    };
    let (hi, lo) = (eval(x[i] + step)?, eval(x[i] - step)?);
    let eps = if spec.single {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let noise = 16.0 * eps * hi.abs().max(lo.abs()) / step;
    Some(((hi - lo) / (2.0 * step), noise))
}

/// Runs the check; the result is one line: `correct`, `wrong` or `untested`, a tab, the number
/// of points checked, a tab, and a detail.
pub fn check<A: Clone>(spec: &Spec<A>, seed: u64) -> String {
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng::new(seed);
    let (steps, stable_tol, wrong_tol): ([f64; 3], f64, f64) = if spec.single {
        ([1e-2, 3e-3, 5e-3], 1e-2, 5e-2)
    } else {
        ([1e-5, 1e-6, 3e-6], 1e-5, 1e-3)
    };
    let (mut good, mut panics, mut unstable) = (0, 0, 0);
    for attempt in 0..ATTEMPTS {
        let (lo, hi) = DOMAINS[attempt % DOMAINS.len()];
        let ctx = Ctx {
            lo,
            hi,
            len: LENGTHS[(attempt / DOMAINS.len()) % LENGTHS.len()],
        };
        let args = (spec.sample)(&mut rng, &ctx);
        let Some(y) = quiet(|| (spec.primal)(&args)) else {
            panics += 1;
            continue;
        };
        if !finite(&y) || y.is_empty() {
            continue;
        }
        match quiet(|| (spec.reference)(&args)) {
            Some(r) if same_value(&y, &r, spec.single) => {}
            Some(r) => {
                return format!("wrong\t{good}\tprimal {y:?} differs from the original's {r:?}")
            }
            None => {
                return "wrong\t0\tthe original panics where the annotated copy does not"
                    .to_string()
            }
        }
        let x = (spec.get)(&args);
        if x.is_empty() {
            return "untested\t0\tno differentiable component".to_string();
        }
        let cot: Vec<f64> = if y.len() == 1 {
            vec![1.0]
        } else {
            y.iter().map(|_| 2.0 * rng.unit() - 1.0).collect()
        };
        let Some(g) = quiet(|| (spec.gradient)(&args, &cot)) else {
            return format!(
                "wrong\t{good}\tthe gradient panics at {x:?} where the primal does not"
            );
        };
        if g.len() != x.len() {
            return format!(
                "wrong\t{good}\tthe gradient has {} components, the arguments {}",
                g.len(),
                x.len()
            );
        }
        if let Some(program) = spec.program {
            let p = program(&args);
            for i in 0..x.len() {
                let scale = p[i].abs().max(1.0);
                if !g[i].is_finite() || (g[i] - p[i]).abs() > 1e-12 * scale {
                    return format!(
                        "wrong\t{good}\tat {x:?}, component {i}: gradient {} but the program's derivative {}",
                        g[i], p[i]
                    );
                }
            }
            good += 1;
            if good >= POINTS {
                break;
            }
            continue;
        }
        let mut point_ok = true;
        for i in 0..x.len() {
            let fds: Vec<Option<(f64, f64)>> = steps
                .iter()
                .map(|&h| central(spec, &args, &x, &cot, i, h))
                .collect();
            let (Some((d1, n1)), Some((d2, n2)), Some((d3, n3))) = (fds[0], fds[1], fds[2]) else {
                point_ok = false;
                break;
            };
            let scale = d1.abs().max(1.0);
            if (d1 - d2).abs() > stable_tol * scale + n1 + n2
                || (d1 - d3).abs() > stable_tol * scale + n1 + n3
            {
                point_ok = false;
                break;
            }
            if !g[i].is_finite() || (g[i] - d1).abs() > wrong_tol * scale + 4.0 * (n1 + n2) {
                return format!(
                    "wrong\t{good}\tat {x:?}, component {i}: gradient {} but finite differences {d1} (step {}) and {d2} (step {})",
                    g[i], steps[0], steps[1]
                );
            }
        }
        if point_ok {
            good += 1;
            if good >= POINTS {
                break;
            }
        } else {
            unstable += 1;
        }
    }
    if good > 0 && spec.program.is_some() {
        format!("program\t{good}\t")
    } else if good > 0 {
        format!("correct\t{good}\t")
    } else {
        format!("untested\t0\tno smooth point found ({panics} panicked, {unstable} unstable)")
    }
}
