//! Iterator chains over differentiable sequences, as published numeric code writes them:
//! `x.iter().zip(x.iter().skip(1))`, sub-slices `x[1..n - 1].iter()`, `.rev()`, `.skip(k)`,
//! `.take(k)`, `.step_by(k)`, `.enumerate()`, `.filter(…)`, zips of zips, several `.map(…)`s
//! before `.sum()`/`.product()`/`.fold(…)`, closures with typed parameters, and
//! `[T; N]::map`, `a.chain(b)`, checked ends (`x.last().copied().unwrap_or(d)`,
//! `x.split_first()`). Each gradient is checked against
//! central differences and, where short, a closed form.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::num_traits::FromPrimitive;
use autodiff::prelude::*;
use std::iter::Sum;

/// Rosenbrock as optimisation test suites write it.
#[differentiable]
fn rosenbrock_ab<T: Float + FromPrimitive + Sum>(param: &[T], a: T, b: T) -> T {
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
        .sum()
}

/// Levy's function: a local closure, a sub-slice, two maps with a typed parameter.
#[differentiable]
fn levy<T: Float + FromPrimitive + Sum>(param: &[T]) -> T {
    let plen = param.len();
    let n1 = T::from_f64(1.0).unwrap();
    let n4 = T::from_f64(4.0).unwrap();
    let n10 = T::from_f64(10.0).unwrap();
    let pi = T::from_f64(std::f64::consts::PI).unwrap();
    let w = |x: T| n1 + (x - n1) / n4;
    (pi * w(param[0])).sin().powi(2)
        + param[1..(plen - 1)]
            .iter()
            .map(|x| w(*x))
            .map(|wi: T| (wi - n1).powi(2) * (n1 + n10 * (pi * wi + n1).sin().powi(2)))
            .sum()
        + (w(param[plen - 1]) - n1).powi(2)
}

/// Horner's rule from the highest coefficient (the last): `.rev().fold(…)`.
#[differentiable]
fn horner(x: f64, coeff: &[f64]) -> f64 {
    coeff.iter().rev().fold(0_f64, |acc, c| acc * x + c)
}

/// Adapters in sequence, then `enumerate`.
#[differentiable]
fn weighted_tail(x: &[f64]) -> f64 {
    x.iter()
        .rev()
        .skip(1)
        .take(2)
        .enumerate()
        .map(|(k, v)| (k as f64 + 1.0) * v * v)
        .sum()
}

/// A product over a sub-slice from a computed start.
#[differentiable]
fn tail_product(x: &[f64], from: usize) -> f64 {
    x[from..].iter().map(|v| 1.0 + v * v).product()
}

/// `[T; N]::map` destructured, as in test functions of two variables.
#[differentiable]
fn shifted_pair<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let n2 = T::from_f64(2.0).unwrap();
    let n4 = T::from_f64(4.0).unwrap();
    let [x1, x2] = param.map(|x| n4 * x - n2);
    x1 * x2.sin()
}

fn fd(f: impl Fn(&[f64]) -> f64, at: &[f64]) -> Vec<f64> {
    finite_difference(f, at)
}

#[test]
fn zip_with_skip() {
    let p = [0.3, -0.7, 1.1, 0.4];
    let (a, b) = (1.0, 100.0);
    let (g, ga, gb) = gradients_function!(rosenbrock_ab::<f64>)(&p, a, b);
    let mut hand = vec![0.0; p.len()];
    let (mut ha, mut hb) = (0.0, 0.0);
    for i in 0..p.len() - 1 {
        let r = p[i + 1] - p[i] * p[i];
        hand[i] += -2.0 * (a - p[i]) - 4.0 * b * r * p[i];
        hand[i + 1] += 2.0 * b * r;
        ha += 2.0 * (a - p[i]);
        hb += r * r;
    }
    assert_gradient_close(&g, &hand, 1e-12);
    assert_gradient_close(&[ga, gb], &[ha, hb], 1e-12);
    assert_gradient_close(&g, &fd(|q| rosenbrock_ab(q, a, b), &p), 1e-7);
    // f32, and forward mode
    let g32 = gradients_function!(rosenbrock_ab::<f32>, params = ["param"])(
        &[0.3_f32, -0.7, 1.1, 0.4],
        1.0,
        100.0,
    );
    for (x, y) in g32.iter().zip(&hand) {
        assert!(
            (*x as f64 - y).abs() < 1e-3 * y.abs().max(1.0),
            "{g32:?} vs {hand:?}"
        );
    }
    let v = [1.0, 0.5, -0.25, 2.0];
    let (_, dy) = jvp!(rosenbrock_ab::<f64>, params = ["param"])(&p, a, b, &v);
    let along: f64 = hand.iter().zip(&v).map(|(g, v)| g * v).sum();
    assert_gradient_close(&[dy], &[along], 1e-12);
}

/// The suites' wrapper (`rosenbrock(param)`): the helper's pullback runs unfused.
#[differentiable]
fn rosenbrock_wrapped<T: Float + FromPrimitive + Sum>(param: &[T]) -> T {
    rosenbrock_ab(
        param,
        T::from_f64(1.0).unwrap(),
        T::from_f64(100.0).unwrap(),
    )
}

/// Pairs two apart.
#[differentiable]
fn gaps(x: &[f64]) -> f64 {
    x.iter().zip(x.iter().skip(2)).map(|(a, b)| a * b * b).sum()
}

/// A literal skip reads `x[k + skip]`: at every length, from none to a few pairs (the
/// skip as long as the slice or longer runs no iteration), directly and through a wrapper.
#[test]
fn zip_with_skip_at_every_length_and_through_a_wrapper() {
    for n in 0..7 {
        let p: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut hand = vec![0.0; n];
        for i in 0..n.saturating_sub(1) {
            let r = p[i + 1] - p[i] * p[i];
            hand[i] += -2.0 * (1.0 - p[i]) - 400.0 * r * p[i];
            hand[i + 1] += 200.0 * r;
        }
        let g = gradients_function!(rosenbrock_wrapped::<f64>)(&p);
        assert_gradient_close(&g, &hand, 1e-12);
        let (direct, _, _) = gradients_function!(rosenbrock_ab::<f64>)(&p, 1.0, 100.0);
        assert_gradient_close(&direct, &hand, 1e-12);
        let mut hand = vec![0.0; n];
        for i in 0..n.saturating_sub(2) {
            hand[i] += p[i + 2] * p[i + 2];
            hand[i + 2] += 2.0 * p[i] * p[i + 2];
        }
        let g = gradients_function!(gaps)(&p);
        assert_gradient_close(&g, &hand, 1e-12);
        if n > 0 {
            assert_gradient_close(&g, &fd(gaps, &p), 1e-7);
            assert_gradient_close(&direct, &fd(rosenbrock_wrapped, &p), 1e-6);
        }
    }
}

#[test]
fn sub_slices_closures_and_chained_maps() {
    for p in [[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -2.0, 0.9]] {
        let g = gradients_function!(levy::<f64>)(&p);
        assert_gradient_close(&g, &fd(levy, &p), 1e-7);
    }
}

#[test]
fn rev_fold_and_adapters_in_sequence() {
    let c = [0.3, -0.7, 1.1, 0.4];
    let x = 0.7;
    let (gx, gc) = gradients_function!(horner)(x, &c);
    // Σ c_k x^k: the reversed fold starts from the highest coefficient, c[n - 1]
    let n = c.len();
    let hand_x: f64 = (1..n).map(|k| c[k] * k as f64 * x.powi(k as i32 - 1)).sum();
    let hand_c: Vec<f64> = (0..n).map(|k| x.powi(k as i32)).collect();
    assert_gradient_close(&[gx], &[hand_x], 1e-13);
    assert_gradient_close(&gc, &hand_c, 1e-13);

    // reversed, skip the last, take two: 1·x[2]² + 2·x[1]²
    let g = gradients_function!(weighted_tail)(&c);
    assert_gradient_close(&g, &[0.0, 4.0 * c[1], 2.0 * c[2], 0.0], 1e-13);
    let g = gradients_function!(tail_product, params = ["x"])(&c, 1);
    assert_gradient_close(&g, &fd(|q| tail_product(q, 1), &c), 1e-7);
    assert_eq!(g[0], 0.0);
}

#[test]
fn array_map_destructured() {
    let p = [0.3, 0.6];
    let g = gradients_function!(shifted_pair::<f64>)(&p);
    let (x1, x2) = (4.0 * p[0] - 2.0, 4.0 * p[1] - 2.0);
    assert_gradient_close(&g, &[4.0 * x2.sin(), 4.0 * x1 * x2.cos()], 1e-13);
}

// ---- windows, chunks, split_at: sub-slices of a differentiable sequence -------------------

#[differentiable]
fn total_variation(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    s
}

#[differentiable]
fn chunked(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c[0] * c[c.len() - 1];
    }
    s + x.windows(3).map(|w| w[0] * w[2]).sum::<f64>()
}

#[differentiable]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// Each exact chunk handed to a helper (twice: the same sub-slice lent twice).
#[differentiable]
fn chunk_norms(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks_exact(2) {
        s += dot2(c, c);
    }
    s
}

#[differentiable]
fn halves(x: &[f64], k: usize) -> f64 {
    let (a, b) = x.split_at(k);
    dot2(a, b) + a[0] * 3.0
}

#[test]
fn windows_chunks_and_split_at() {
    let p = [0.3, -0.7, 1.1, 0.4, 0.9];
    let n = p.len();
    // Σ (x[i+1] − x[i])²
    let mut hand = vec![0.0; n];
    for i in 0..n - 1 {
        let d = p[i + 1] - p[i];
        hand[i] -= 2.0 * d;
        hand[i + 1] += 2.0 * d;
    }
    assert_gradient_close(&gradients_function!(total_variation)(&p), &hand, 1e-13);
    assert_gradient_close(&gradients_function!(chunked)(&p), &fd(chunked, &p), 1e-7);
    // Σ over the two exact chunks of |c|²: 2x, the odd last element untouched
    let g = gradients_function!(chunk_norms)(&p);
    assert_gradient_close(&g, &[0.6, -1.4, 2.2, 0.8, 0.0], 1e-13);
    let g = gradients_function!(halves, params = ["x"])(&p, 2);
    assert_gradient_close(&g, &[p[2] + 3.0, p[3], p[0], p[1], 0.0], 1e-13);
    let (_, dy) = jvp!(total_variation)(&p, &[1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_gradient_close(&[dy], &[hand[0]], 1e-13);
}

// ---- paths of functions as the closures of maps and folds ---------------------------------

#[differentiable]
fn square(v: f64) -> f64 {
    v * v
}

/// The largest element, as `fold(f64::NEG_INFINITY, f64::max)`, plus `Σ sin` and `Σ v²`
/// through paths.
#[differentiable]
fn by_paths(x: &[f64]) -> f64 {
    let largest = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    largest
        + x.iter().copied().map(f64::sin).sum::<f64>()
        + x.iter().copied().map(square).sum::<f64>()
}

#[test]
fn function_paths_as_closures() {
    let p = [0.3, -0.7, 1.1, 0.4];
    let g = gradients_function!(by_paths)(&p);
    let hand: Vec<f64> = p
        .iter()
        .enumerate()
        .map(|(i, v)| if i == 2 { 1.0 } else { 0.0 } + v.cos() + 2.0 * v)
        .collect();
    assert_gradient_close(&g, &hand, 1e-13);
}

/// Levy's derivative as optimisation test suites write it: `enumerate`, a first map
/// returning a tuple, a second destructuring it (`&x` included), collected into a `Vec`.
#[differentiable]
fn levy_terms<T: Float + FromPrimitive>(param: &[T]) -> Vec<T> {
    let d = param.len();
    let n1 = T::from_f64(1.0).unwrap();
    let n2 = T::from_f64(2.0).unwrap();
    let n4 = T::from_f64(4.0).unwrap();
    let pi = T::from_f64(std::f64::consts::PI).unwrap();
    param
        .iter()
        .enumerate()
        .map(|(i, x)| (i, x, pi * ((*x - n1) / n4 + n1)))
        .map(|(i, &x, wp)| {
            if i == 0 {
                pi / n2 * wp.cos() * wp.sin()
            } else if i == d - 1 {
                (n2 * wp).sin().powi(2) * (x - n1)
            } else {
                wp.sin() * x
            }
        })
        .collect()
}

/// Two zipped sequences, two maps, collected.
#[differentiable]
fn zipped_products(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| x * y)
        .map(|p| p.sin())
        .collect()
}

#[test]
fn collected_through_enumerate_and_several_maps() {
    let p = [0.3, -0.7, 1.1, 0.4];
    let w = [1.0, -2.0, 0.5, 3.0];
    let (value, pullback) = vjp!(levy_terms::<f64>)(&p[..]);
    assert_eq!(value, levy_terms(&p[..]));
    let g = pullback(w.to_vec());
    let along = |q: &[f64]| -> f64 { levy_terms(q).iter().zip(&w).map(|(y, w)| y * w).sum() };
    assert_gradient_close(&g, &fd(along, &p), 1e-7);
    // closed form of the first element: d/dx (π/2 cos(wp) sin(wp)) = π²/8 cos(2 wp)
    let pi = std::f64::consts::PI;
    let wp = pi * ((p[0] - 1.0) / 4.0 + 1.0);
    assert_gradient_close(&[g[0]], &[w[0] * pi * pi / 8.0 * (2.0 * wp).cos()], 1e-12);

    let (a, b) = ([0.2, 0.9, -1.3], [1.5, -0.4, 0.8]);
    let (_, pullback) = vjp!(zipped_products)(&a[..], &b[..]);
    let (ga, gb) = pullback(vec![1.0, 2.0, -1.0]);
    let c = [1.0, 2.0, -1.0];
    for k in 0..3 {
        let d = (a[k] * b[k]).cos() * c[k];
        assert_gradient_close(&[ga[k], gb[k]], &[d * b[k], d * a[k]], 1e-12);
    }
}

/// A typed closure parameter in a collected map.
#[differentiable]
fn typed_collect(x: &[f64]) -> Vec<f64> {
    x.iter().copied().map(|v: f64| v * v).collect()
}

#[test]
fn collected_with_a_typed_closure_parameter() {
    let x = [0.5, -1.5, 2.0];
    let (value, pullback) = vjp!(typed_collect)(&x[..]);
    assert_eq!(value, vec![0.25, 2.25, 4.0]);
    let g = pullback(vec![1.0, 2.0, 3.0]);
    assert_gradient_close(&g, &[1.0, -6.0, 12.0], 1e-15);
}

/// Iterators consumed for their closures' effects: `for_each` writing through `iter_mut()`
/// (the shared element bound by value, `|(&x, o)|`),
/// `for_each` accumulating into a `let mut`, and `.map(|…| *o = …).count()` (argmin's
/// derivatives of const-generic length), each the `for` loop it stands for.
#[differentiable]
fn cubic_terms<T: Float + FromPrimitive>(param: &[T]) -> Vec<T> {
    let two = T::from_f64(2.0).unwrap();
    let mut out = vec![T::zero(); param.len()];
    param
        .iter()
        .zip(out.iter_mut())
        .for_each(|(&x, o)| *o = two * x.powi(3) - x);
    out
}

#[differentiable]
fn sum_of_squares_by_for_each(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    x.iter().for_each(|v| s += w * v * v);
    s
}

#[differentiable]
fn counted_derivative<const N: usize, T: Float + FromPrimitive>(param: &[T; N]) -> [T; N] {
    let n2 = T::from_f64(2.0).unwrap();
    let mut out = [T::zero(); N];
    param
        .iter()
        .zip(out.iter_mut())
        .map(|(x, o)| *o = n2 * x.powi(3) - x.sin())
        .count();
    out
}

#[test]
fn iterators_consumed_for_their_effects() {
    let x = [0.3, -0.5, 0.7];
    // ⟨c, f(x)⟩ for a cotangent c: the gradient is c_i f'(x_i), each element on its own
    let c = [1.0, -2.0, 0.5];
    let (value, pullback) = vjp!(cubic_terms::<f64>)(&x[..]);
    assert_eq!(value, cubic_terms::<f64>(&x));
    let g = pullback(c.to_vec());
    let by_hand: Vec<f64> = (0..3).map(|i| c[i] * (6.0 * x[i] * x[i] - 1.0)).collect();
    assert_gradient_close(&g, &by_hand, 1e-14);
    let (value, pullback) = vjp!(counted_derivative::<3, f64>)(&x);
    assert_eq!(value, counted_derivative::<3, f64>(&x));
    let g = pullback(c);
    let by_hand: Vec<f64> = (0..3)
        .map(|i| c[i] * (6.0 * x[i] * x[i] - x[i].cos()))
        .collect();
    assert_gradient_close(&g, &by_hand, 1e-14);
    let inner = |p: &[f64]| {
        let y = counted_derivative::<3, f64>(&[p[0], p[1], p[2]]);
        (0..3).map(|i| c[i] * y[i]).sum()
    };
    assert_gradient_close(&g, &fd(inner, &x), 1e-8);

    let w = 1.5;
    let (gx, gw) = gradients_function!(sum_of_squares_by_for_each)(&x[..], w);
    let by_hand: Vec<f64> = x.iter().map(|v| 2.0 * w * v).collect();
    assert_gradient_close(&gx, &by_hand, 1e-14);
    assert!((gw - x.iter().map(|v| v * v).sum::<f64>()).abs() < 1e-14);
    let (_, tangent) = jvp!(sum_of_squares_by_for_each)(&x[..], w, &[1.0, 0.0, 0.0][..], 0.0);
    assert!((tangent - gx[0]).abs() < 1e-14);
}

// ---------------------------------------------------------------------------------------
// `.filter(…)`, `.step_by(n)` and zips of zips
// ---------------------------------------------------------------------------------------

/// `Σ v²` over the positive elements.
#[differentiable]
fn positive_energy(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum()
}

/// Two filters, on enumerated items (the index counts every item), with a captured
/// threshold and a differentiable weight.
#[differentiable]
fn filtered_enumerated(x: &[f64], w: f64, t: f64) -> f64 {
    x.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .filter(|&(_, &v)| v < t)
        .map(|(i, v)| (i as f64 + w) * v)
        .sum()
}

/// A `for` loop over a filtered chain whose body reads a name the filter's parameter
/// shadows inside the filter only.
#[differentiable]
fn filtered_loop(x: &[f64], v: f64) -> f64 {
    let mut s = 0.0;
    for a in x.iter().copied().filter(|v| v.abs() < 1.0) {
        s += a * v;
    }
    s
}

/// Every other element, forwards and from the end: `.step_by(2)`, `.rev().step_by(3)`.
#[differentiable]
fn strided(x: &[f64]) -> f64 {
    let even: f64 = x.iter().step_by(2).map(|v| v.sin()).sum();
    let mut back = 0.0;
    for (k, v) in x[1..].iter().rev().step_by(3).enumerate() {
        back += (k as f64 + 1.0) * v;
    }
    even + back
}

/// A zip of zips: `((a, b), c)` items.
#[differentiable]
fn triple_dot(x: &[f64], y: &[f64]) -> f64 {
    let w = [1.0, 2.0, 3.0, 4.0];
    x.iter()
        .zip(y)
        .zip(w.iter())
        .map(|((a, b), c)| a * b * c)
        .sum()
}

#[test]
fn filters_strides_and_zips_of_zips() {
    let x = [0.7, -0.3, 1.3, 0.4, -1.1, 0.2];
    let g = gradients_function!(positive_energy)(&x);
    let hand: Vec<f64> = x
        .iter()
        .map(|&v| if v > 0.0 { 2.0 * v } else { 0.0 })
        .collect();
    assert_gradient_close(&g, &hand, 1e-15);
    assert_gradient_close(&g, &finite_difference(positive_energy, &x), 1e-6);

    let (gx, gw, gt) = gradients_function!(filtered_enumerated)(&x, 0.5, 1.0);
    // kept: even indices with v < 1: i = 0 (0.7), 4 (−1.1); i = 2 (1.3) fails the second
    let mut hand = vec![0.0; x.len()];
    hand[0] = 0.5;
    hand[4] = 4.5;
    assert_gradient_close(&gx, &hand, 1e-15);
    assert_gradient_close(&[gw, gt], &[0.7 - 1.1, 0.0], 1e-15);
    let fd = finite_difference(
        |p| filtered_enumerated(&p[..6], p[6], 1.0),
        &[&x[..], &[0.5]].concat(),
    );
    assert_gradient_close(&[&gx[..], &[gw]].concat(), &fd, 1e-6);

    let (gx, gv) = gradients_function!(filtered_loop)(&x, 2.0);
    let hand: Vec<f64> = x
        .iter()
        .map(|&a| if a.abs() < 1.0 { 2.0 } else { 0.0 })
        .collect();
    assert_gradient_close(&gx, &hand, 1e-15);
    let kept: f64 = x.iter().filter(|a| a.abs() < 1.0).sum();
    assert_gradient_close(&[gv], &[kept], 1e-15);

    let g = gradients_function!(strided)(&x);
    // even: cos at 0, 2, 4; back over x[1..] from its end, every third: x[5] (k = 0), x[2]
    // (k = 1)
    let mut hand = vec![0.0; x.len()];
    for i in [0, 2, 4] {
        hand[i] += x[i].cos();
    }
    hand[5] += 1.0;
    hand[2] += 2.0;
    assert_gradient_close(&g, &hand, 1e-15);
    assert_gradient_close(&g, &finite_difference(strided, &x), 1e-6);
    let t: Vec<f64> = (0..x.len()).map(|i| 0.1 * i as f64 - 0.2).collect();
    let (y, dy) = jvp!(strided)(&x, &t);
    assert_eq!(y, strided(&x));
    assert!((dy - g.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>()).abs() < 1e-12);

    let y = [0.1, 0.2, 0.3, 0.5, 0.7];
    let (gx, gy) = gradients_function!(triple_dot)(&x, &y);
    // four terms: the shortest of the three sequences
    let w = [1.0, 2.0, 3.0, 4.0];
    let mut hx = vec![0.0; x.len()];
    let mut hy = vec![0.0; y.len()];
    for i in 0..4 {
        hx[i] = y[i] * w[i];
        hy[i] = x[i] * w[i];
    }
    assert_gradient_close(&gx, &hx, 1e-15);
    assert_gradient_close(&gy, &hy, 1e-15);
}

#[test]
#[should_panic(expected = "step != 0")]
fn a_zero_step_panics_as_step_by_does() {
    #[differentiable]
    fn stride(x: &[f64], n: usize) -> f64 {
        x.iter().step_by(n).sum()
    }
    gradients_function!(stride, params = ["x"])(&[1.0, 2.0], 0);
}

// ---------------------------------------------------------------------------------------
// `a.chain(b)` (in `for` loops and before `map`/`filter`/`rev`/`sum`/`fold`), the ends of a
// sequence taken checked (`x.last().copied().unwrap_or(d)`, `if let Some((head, rest)) =
// x.split_first()`), extremes (`max_by`, `fold(f64::NEG_INFINITY, f64::max)`, `min_by` of
// `total_cmp`), `windows`/`chunks` mapped, Horner's rule over `.rev()`, `product()`.
// ---------------------------------------------------------------------------------------

#[differentiable]
fn p_chain(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y.iter()).map(|v| v * v).sum()
}

#[differentiable]
fn p_windows(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[differentiable]
fn p_chunks(x: &[f64]) -> f64 {
    x.chunks(2).map(|c| c[0] * c[c.len() - 1]).sum()
}

#[differentiable]
fn p_max_by(x: &[f64]) -> f64 {
    *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap()
}

#[differentiable]
fn p_fold_max(x: &[f64]) -> f64 {
    x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
}

#[differentiable]
fn p_zip_fold_max(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

#[differentiable]
fn p_horner(c: &[f64], t: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * t + k)
}

#[differentiable]
fn p_product(x: &[f64]) -> f64 {
    x.iter().product::<f64>()
}

#[differentiable]
fn p_min_by(x: &[f64]) -> f64 {
    x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap()
}

#[differentiable]
fn p_split_first(x: &[f64]) -> f64 {
    if let Some((first, rest)) = x.split_first() {
        first * rest.iter().sum::<f64>()
    } else {
        0.0
    }
}

#[differentiable]
fn p_last(x: &[f64]) -> f64 {
    x.last().copied().unwrap_or(0.0) * x.first().copied().unwrap_or(1.0)
}

#[differentiable]
fn p_collect_sum(x: &[f64]) -> f64 {
    let sq = x.iter().map(|v| v * v).collect::<Vec<_>>();
    sq.iter().sum::<f64>().sqrt()
}

#[differentiable]
fn p_iter_sum_of_squares(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt()
}

#[differentiable]
fn p_dot_rev(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    (0..n).map(|i| x[i] * y[n - 1 - i]).sum()
}

#[differentiable]
fn p_softmax(x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e[0] / s
}

#[differentiable]
fn p_abs_sum(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).sum::<f64>() + x.iter().map(|&v| v.max(0.0)).sum::<f64>()
}

fn close_to(a: &[f64], b: &[f64], what: &str) {
    for (i, (u, v)) in a.iter().zip(b).enumerate() {
        assert!(
            (u - v).abs() < 1e-6 * (1.0 + v.abs()),
            "{what}[{i}]: {u} vs {v}"
        );
    }
    assert_eq!(a.len(), b.len(), "{what}");
}

#[test]
fn chains_ends_and_extremes() {
    let x = [0.3, -1.2, 0.8, 2.1, -0.4];
    let y = [1.5, 0.2, -0.7];
    macro_rules! one {
        ($f:ident) => {{
            let g = gradients_function!($f)(&x);
            close_to(&g, &fd(|v: &[f64]| $f(v), &x), stringify!($f));
        }};
    }
    macro_rules! two {
        ($f:ident, $y:expr) => {{
            let (gx, gy) = gradients_function!($f)(&x, &$y);
            close_to(&gx, &fd(|v: &[f64]| $f(v, &$y), &x), stringify!($f));
            close_to(&gy, &fd(|v: &[f64]| $f(&x, v), &$y), stringify!($f));
        }};
    }
    two!(p_chain, y);
    one!(p_windows);
    one!(p_chunks);
    one!(p_max_by);
    one!(p_fold_max);
    two!(p_zip_fold_max, [1.5, 0.2, -0.7, 0.1, 0.3]);
    let (gc, gt) = gradients_function!(p_horner)(&x, 0.7);
    close_to(&gc, &fd(|v: &[f64]| p_horner(v, 0.7), &x), "horner");
    close_to(
        &[gt],
        &fd(|v: &[f64]| p_horner(&x, v[0]), &[0.7]),
        "horner t",
    );
    one!(p_product);
    one!(p_min_by);
    one!(p_split_first);
    one!(p_last);
    one!(p_collect_sum);
    one!(p_iter_sum_of_squares);
    two!(p_dot_rev, [1.5, 0.2, -0.7, 0.1, 0.3]);
    one!(p_softmax);
    one!(p_abs_sum);
}

#[differentiable]
fn c_for(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y.iter()) {
        s = s * 0.5 + v * v;
    }
    s
}

#[differentiable]
fn c_rev_horner(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y).rev().fold(0.0, |acc, &k| acc * 0.7 + k)
}

#[differentiable]
fn c_filter(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .chain(y.iter())
        .filter(|v| **v > 0.0)
        .map(|v| v.sin())
        .sum::<f64>()
}

#[differentiable]
fn c_local(x: &[f64], y: &[f64]) -> f64 {
    let w: Vec<f64> = y.iter().map(|v| v * 2.0).collect();
    x.iter().chain(&w).map(|v| v.exp()).sum::<f64>().ln()
}

#[differentiable]
fn c_continue(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().chain(y.iter()) {
        if v < 0.0 {
            continue;
        }
        for k in 0..3 {
            if k == 2 {
                break;
            }
            s += v * k as f64;
        }
    }
    s
}

#[test]
fn chained_sequences() {
    let x = [0.3, -1.2, 0.8, 2.1, -0.4];
    let y = [1.5, 0.2, -0.7];
    macro_rules! two {
        ($f:ident) => {{
            let (gx, gy) = gradients_function!($f)(&x, &y);
            close_to(&gx, &fd(|v: &[f64]| $f(v, &y), &x), stringify!($f));
            close_to(&gy, &fd(|v: &[f64]| $f(&x, v), &y), stringify!($f));
            let (_, dv) = jvp!($f)(&x, &y, &[1.0; 5], &[0.0; 3]);
            assert!(
                (dv - gx.iter().sum::<f64>()).abs() < 1e-10,
                "{}",
                stringify!($f)
            );
        }};
    }
    two!(c_for);
    two!(c_rev_horner);
    two!(c_filter);
    two!(c_local);
    two!(c_continue);
}

// --- `take_while` and `scan` -----------------------------------------------------------------

/// `take_while` before a `map` and a `sum`: the terms up to the first item ≥ 2.
#[differentiable]
fn sines_below_two(xs: &[f64]) -> f64 {
    xs.iter().take_while(|x| **x < 2.0).map(|x| x.sin()).sum()
}

/// A `for` loop over a filter then a `take_while` that reads another parameter.
#[differentiable]
fn filtered_then_taken(xs: &[f64], y: f64) -> f64 {
    let mut s = 0.0;
    for x in xs
        .iter()
        .filter(|x| **x > -1.0)
        .take_while(|x| **x * y < 1.5)
    {
        s += x * x * y;
    }
    s
}

/// Running sums by `scan`, squared and summed.
#[differentiable]
fn running_sums(xs: &[f64]) -> f64 {
    xs.iter()
        .scan(0.0, |acc, &x| {
            *acc += x;
            Some(*acc)
        })
        .map(|c| c * c)
        .sum()
}

/// A damped running state that stops the iteration (`None`) once it passes 3, in a `for`
/// loop, and the same state folded with a typed accumulator.
#[differentiable]
fn damped_until(xs: &[f64], y: f64) -> f64 {
    let mut s = 0.0;
    for c in xs.iter().scan(y, |acc, &x| {
        *acc = *acc * 0.5 + x;
        if *acc > 3.0 {
            None
        } else {
            Some(*acc * y)
        }
    }) {
        s += c * c;
    }
    s
}

#[differentiable]
fn damped_fold(xs: &[f64], y: f64) -> f64 {
    xs.iter()
        .scan(1.0, |acc: &mut f64, x| {
            *acc = *acc * y + x;
            Some(acc.sin())
        })
        .fold(0.0, |a, c| a + c * y)
}

/// A `scan` whose step holds names of its own the same as its state's: a `fold`'s
/// accumulator, a `let`, a `match` arm (each is the inner name where it is bound; the
/// state everywhere else).
#[differentiable]
fn scan_shadowing(a: f64, xs: &[f64]) -> f64 {
    let v: Vec<f64> = xs
        .iter()
        .scan(0.0, |acc, &u| {
            *acc = *acc * 0.5 + a * xs.iter().fold(0.0, |acc, q| acc * 0.5 + q.sin());
            let outer = *acc * u;
            let shifted = match Some(u) {
                Some(acc) => acc * 2.0 + outer,
                None => outer,
            };
            let acc = shifted * 0.5;
            Some(acc + u)
        })
        .collect();
    v[1] + v[3] * v[2]
}

#[test]
fn a_scan_step_with_names_of_its_own_the_same_as_its_state() {
    let (a, xs) = (0.11, [0.89, 0.58, -0.92, 0.087]);
    let (v, (ga, gx)) = value_and_gradients_function!(scan_shadowing)(a, &xs[..]);
    assert_eq!(v, scan_shadowing(a, &xs));
    let p: Vec<f64> = std::iter::once(a).chain(xs).collect();
    let numeric = fd(|p: &[f64]| scan_shadowing(p[0], &p[1..]), &p);
    let g: Vec<f64> = std::iter::once(ga).chain(gx).collect();
    assert_gradient_close(&g, &numeric, 1e-6);
}

#[test]
fn take_while_and_scan() {
    let x = [0.3, -1.2, 0.7, 1.9, 2.5, 3.0, 0.1];
    // sines_below_two: cos x for the first four, then nothing
    let g = gradients_function!(sines_below_two)(&x);
    let by_hand: Vec<f64> = (0..x.len())
        .map(|i| if i < 4 { x[i].cos() } else { 0.0 })
        .collect();
    assert_gradient_close(&g, &by_hand, 1e-12);
    assert_gradient_close(&g, &fd(sines_below_two, &x), 1e-6);

    // filtered_then_taken at y = 0.7: x[4]·y = 1.75 stops the loop, x[1] is filtered out
    let y = 0.7;
    let (v, (gx, gy)) = value_and_gradients_function!(filtered_then_taken)(&x, y);
    assert!((v - filtered_then_taken(&x, y)).abs() < 1e-12);
    let kept = [0usize, 2, 3];
    let by_hand: Vec<f64> = (0..x.len())
        .map(|i| {
            if kept.contains(&i) {
                2.0 * x[i] * y
            } else {
                0.0
            }
        })
        .collect();
    assert_gradient_close(&gx, &by_hand, 1e-12);
    let gy_by_hand: f64 = kept.iter().map(|&i| x[i] * x[i]).sum();
    assert!((gy - gy_by_hand).abs() < 1e-12);
    let p: Vec<f64> = x.iter().copied().chain([y]).collect();
    let at = |p: &[f64]| filtered_then_taken(&p[..7], p[7]);
    assert_gradient_close(&[gx.clone(), vec![gy]].concat(), &fd(at, &p), 1e-6);

    // running_sums: f = Σ_k c_k², c_k = Σ_{i ≤ k} x_i, so ∂f/∂x_i = 2 Σ_{k ≥ i} c_k
    let (v, g) = value_and_gradients_function!(running_sums)(&x);
    assert!((v - running_sums(&x)).abs() < 1e-12);
    let c: Vec<f64> = x
        .iter()
        .scan(0.0, |a, &v| {
            *a += v;
            Some(*a)
        })
        .collect();
    let by_hand: Vec<f64> = (0..x.len())
        .map(|i| 2.0 * c[i..].iter().sum::<f64>())
        .collect();
    assert_gradient_close(&g, &by_hand, 1e-12);
    assert_gradient_close(&g, &fd(running_sums, &x), 1e-6);

    // the scans that stop and fold: value, central differences, jvp, vjp
    let y = 0.6;
    let p: Vec<f64> = x.iter().copied().chain([y]).collect();
    type Split = fn(&[f64], f64) -> f64;
    for (name, f, (v, (gx, gy)), jv, vj) in [
        (
            "damped_until",
            damped_until as Split,
            value_and_gradients_function!(damped_until)(&x, y),
            jvp!(damped_until)(&x, y, &[1.0; 7], 0.5),
            (vjp!(damped_until)(&x, y).1)(1.0),
        ),
        (
            "damped_fold",
            damped_fold,
            value_and_gradients_function!(damped_fold)(&x, y),
            jvp!(damped_fold)(&x, y, &[1.0; 7], 0.5),
            (vjp!(damped_fold)(&x, y).1)(1.0),
        ),
    ] {
        assert!((v - f(&x, y)).abs() < 1e-12, "{name}: value");
        let g = [gx.clone(), vec![gy]].concat();
        assert_gradient_close(&g, &fd(|p| f(&p[..7], p[7]), &p), 1e-6);
        let along = gx.iter().sum::<f64>() + 0.5 * gy;
        assert!(
            (jv.0 - v).abs() < 1e-12 && (jv.1 - along).abs() < 1e-10,
            "{name}: jvp"
        );
        assert_gradient_close(&[vj.0, vec![vj.1]].concat(), &g, 1e-12);
    }
}

// --- inclusive sub-ranges iterated ------------------------------------------------------------

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Pair<T: autodiff::Real> {
    pub a: T,
    pub b: T,
}

/// `x[a..=b].iter()` summed, looped over, and collected into a `Vec` of structs whose fields
/// are then written in place.
#[differentiable]
fn inclusive_ranges(xs: &[f64], y: f64) -> f64 {
    let s: f64 = xs[1..=2].iter().map(|v| v * v).sum();
    let mut t = 0.0;
    for v in xs[..=1].iter() {
        t += v * y;
    }
    let mut ps: Vec<Pair<f64>> = xs[3..=3]
        .iter()
        .map(|&e| Pair { a: e, b: e * 0.75 })
        .collect();
    for p in ps.iter_mut() {
        p.a += p.b * y;
    }
    s + t + ps[0].a * ps[0].b
}

#[test]
fn inclusive_sub_ranges() {
    let x = [0.3, -1.2, 0.7, 1.9, 2.5];
    let y = 0.6;
    let (gx, gy) = gradients_function!(inclusive_ranges)(&x, y);
    // by hand: ps[0] = (x3 (1 + 0.75 y), 0.75 x3), its product 0.75 x3² (1 + 0.75 y)
    let x3 = x[3];
    let by_hand = [
        y,
        2.0 * x[1] + y,
        2.0 * x[2],
        1.5 * x3 * (1.0 + 0.75 * y),
        0.0,
    ];
    assert_gradient_close(&gx, &by_hand, 1e-12);
    assert!((gy - (x[0] + x[1] + 0.75 * 0.75 * x3 * x3)).abs() < 1e-12);
    let p: Vec<f64> = x.iter().copied().chain([y]).collect();
    let at = |p: &[f64]| inclusive_ranges(&p[..5], p[5]);
    assert_gradient_close(&[gx, vec![gy]].concat(), &fd(at, &p), 1e-6);
}

// Two chains of one form in one function, differing only in a constant: each keeps its
// own state (the lowering once shared the first one's between them, so the second `scan`
// started from the first's initial value).

#[differentiable]
fn two_scans(xs: &[f64]) -> f64 {
    let first = xs
        .iter()
        .scan(0.3, |acc, &v| {
            *acc = *acc * 0.5 + v;
            Some(*acc)
        })
        .map(|c| c * c)
        .sum::<f64>();
    let second = xs
        .iter()
        .scan(0.6, |acc, &v| {
            *acc = *acc * 0.5 + v;
            Some(*acc)
        })
        .map(|c| c * c)
        .sum::<f64>();
    second - 0.5 * first
}

#[differentiable]
fn two_scans_folded(a: f64, xs: &[f64]) -> f64 {
    let s = &xs[1..3];
    let first = xs
        .iter()
        .take_while(|v| **v < a + 1.0)
        .map(|v| v.sin())
        .sum::<f64>();
    let second = s
        .iter()
        .take_while(|v| **v < a + 1.0)
        .map(|v| v.sin())
        .sum::<f64>()
        + s.iter()
            .scan(0.6, |acc, &v| {
                *acc = *acc * 0.5 + v;
                if *acc > 4.0 {
                    None
                } else {
                    Some(*acc)
                }
            })
            .fold(0.0, |t, c| t + c * c);
    second * first
}

#[test]
fn chains_of_one_form_keep_their_own_state() {
    let xs = [0.3, -1.2, 0.7, 2.0];
    // by hand: states sₖ = sₖ₋₁/2 + xₖ from s₋₁ = c; f = Σ sₖ² about c = 0.6, less half
    // of it about c = 0.3; ∂f/∂xⱼ = Σₖ≥ⱼ 2sₖ·2^(j−k)
    let by_hand = |c: f64| {
        let mut s = Vec::new();
        let mut acc = c;
        for x in xs {
            acc = acc * 0.5 + x;
            s.push(acc);
        }
        let g: Vec<f64> = (0..4)
            .map(|j| {
                (j..4)
                    .map(|k| 2.0 * s[k] * 0.5f64.powi((k - j) as i32))
                    .sum()
            })
            .collect();
        (s.iter().map(|v| v * v).sum::<f64>(), g)
    };
    let ((f1, g1), (f2, g2)) = (by_hand(0.3), by_hand(0.6));
    let (value, g) = value_and_gradients_function!(two_scans)(&xs);
    assert!((value - (f2 - 0.5 * f1)).abs() < 1e-12 && value == two_scans(&xs));
    let expected: Vec<f64> = g2.iter().zip(&g1).map(|(a, b)| a - 0.5 * b).collect();
    close_to(&g, &expected, "two_scans");
    close_to(&g, &fd(two_scans, &xs), "two_scans");
    let a = 0.5;
    let (value, (ga, gx)) = value_and_gradients_function!(two_scans_folded)(a, &xs);
    assert_eq!(value, two_scans_folded(a, &xs));
    assert_eq!(ga, 0.0);
    close_to(
        &gx,
        &fd(|p| two_scans_folded(a, p), &xs),
        "two_scans_folded",
    );
}

/// The index of the largest element and a reference to it, by `enumerate().max_by(…)`,
/// scaled by the index (argmax pairs, as classification code finds the predicted class).
#[differentiable]
fn argmax_pair(x: &[f64]) -> f64 {
    let (i, m) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    *m * (i as f64 + 1.0)
}

/// The index alone (`map(|(i, _)| i)`), by `min_by` with destructured parameters, then an
/// element read at it.
#[differentiable]
fn argmin_read<T: Float>(x: &[T], w: T) -> T {
    let i = x
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| a.partial_cmp(b).unwrap())
        .map(|(i, _)| i)
        .unwrap();
    x[i] * w + x[(i + 1) % x.len()]
}

/// The same pair by `total_cmp`, kept whole; and of copied items (the element by value).
#[differentiable]
fn argmax_total(x: &[f64]) -> f64 {
    let best = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    let (j, low) = x
        .iter()
        .copied()
        .enumerate()
        .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap())
        .unwrap();
    best.1 * 2.0 + best.0 as f64 + low * low * (j as f64 + 1.0)
}

#[test]
fn argmax_and_argmin_pairs() {
    // ties: `max_by` keeps the last maximum, `min_by` the first minimum
    for x in [
        vec![0.5, 2.0, -1.0, 2.0, 0.25],
        vec![3.0, -1.0, 0.4],
        vec![-2.0, -2.0, 1.5],
    ] {
        let (i, &m) = x
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
            .unwrap();
        let (v, g) = value_and_gradients_function!(argmax_pair)(&x[..]);
        assert_eq!(v, m * (i as f64 + 1.0));
        let mut by_hand = vec![0.0; x.len()];
        by_hand[i] = i as f64 + 1.0;
        assert_eq!(g, by_hand, "{x:?}");
        let (_, pullback) = vjp!(argmax_pair)(&x[..]);
        assert_eq!(
            pullback(2.0),
            by_hand.iter().map(|d| 2.0 * d).collect::<Vec<_>>()
        );

        let j = (x.iter().enumerate())
            .min_by(|(_, a), (_, b)| a.total_cmp(b))
            .map(|(j, _)| j)
            .unwrap();
        let w = 1.5;
        let (v, (gx, gw)) = value_and_gradients_function!(argmin_read)(&x[..], w);
        assert_eq!(v, x[j] * w + x[(j + 1) % x.len()]);
        let mut by_hand = vec![0.0; x.len()];
        by_hand[j] += w;
        by_hand[(j + 1) % x.len()] += 1.0;
        assert_eq!((gx, gw), (by_hand.clone(), x[j]));
        let (jv, jt) = jvp!(argmin_read)(&x[..], w, &vec![1.0; x.len()][..], 0.0);
        assert_eq!((jv, jt), (v, w + 1.0));
        // f32, and central differences away from ties
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (_, (g32, _)) = value_and_gradients_function!(argmin_read)(&x32[..], 1.5f32);
        assert_eq!(g32, by_hand.iter().map(|&d| d as f32).collect::<Vec<_>>());
    }
    let x = [0.3, 1.7, -0.2, 0.9];
    let g = gradients_function!(argmax_pair)(&x[..]);
    assert_gradient_close(&g, &finite_difference(argmax_pair, &x), 1e-6);
    let (v, g) = value_and_gradients_function!(argmax_total)(&x[..]);
    // the largest is x[1], the smallest x[2] (−0.2, at index 2: times 3)
    assert_eq!(v, argmax_total(&x));
    assert_eq!(g, vec![0.0, 2.0, 2.0 * -0.2 * 3.0, 0.0]);
}

/// A `Vec` of pairs collected from a zip, then read by destructuring loops and by index.
#[differentiable]
fn collected_pairs<T: Float>(x: &[T], y: &[T]) -> T {
    let p: Vec<(T, T)> = x
        .iter()
        .zip(y.iter())
        .map(|(&a, &b)| (a * a, a * b))
        .collect();
    let mut s = T::zero();
    for (u, v) in p.iter() {
        s = s + *u * *v;
    }
    s + p[0].1
}

#[test]
fn vecs_of_pairs_collected() {
    let (x, y) = ([1.0, -2.0, 0.5], [0.5, 1.5, 3.0]);
    // s = Σ a³ b + a₀ b₀
    let (v, (gx, gy)) = value_and_gradients_function!(collected_pairs)(&x[..], &y[..]);
    assert_eq!(v, collected_pairs(&x, &y));
    let mut hx: Vec<f64> = (0..3).map(|k| 3.0 * x[k] * x[k] * y[k]).collect();
    let mut hy: Vec<f64> = (0..3).map(|k| x[k] * x[k] * x[k]).collect();
    hx[0] += y[0];
    hy[0] += x[0];
    assert_gradient_close(&gx, &hx, 1e-12);
    assert_gradient_close(&gy, &hy, 1e-12);
    assert_gradient_close(
        &gx,
        &finite_difference(|p| collected_pairs(p, &y), &x),
        1e-6,
    );
    let (_, pullback) = vjp!(collected_pairs)(&x[..], &y[..]);
    let (px, _) = pullback(0.5);
    assert_gradient_close(&px, &hx.iter().map(|d| 0.5 * d).collect::<Vec<_>>(), 1e-12);
    let (jv, jt) = jvp!(collected_pairs)(&x[..], &y[..], &[1.0, 0.0, 0.0][..], &[0.0; 3][..]);
    assert_eq!(jv, v);
    assert!((jt - hx[0]).abs() <= 1e-12 * hx[0].abs());
    let (_, (g32, _)) = value_and_gradients_function!(collected_pairs)(
        &[1.0f32, -2.0, 0.5][..],
        &[0.5f32, 1.5, 3.0][..],
    );
    assert!((g32[1] as f64 - hx[1]).abs() < 1e-4);
}

/// Running sums and products collected from `scan` (a cumulative sum, as statistics code
/// writes it), mapped or not.
#[differentiable]
fn cumulative(x: &[f64]) -> f64 {
    let sums: Vec<f64> = x
        .iter()
        .scan(0.0, |acc, &v| {
            *acc += v;
            Some(*acc)
        })
        .collect();
    let products: Vec<f64> = x
        .iter()
        .scan(1.0, |acc, &v| {
            *acc *= v;
            Some(*acc)
        })
        .map(|p| p * 2.0)
        .collect();
    sums.iter().map(|s| s * s).sum::<f64>() + products[products.len() - 1]
}

#[test]
fn scans_collected() {
    let x = [1.0, 2.0, 0.5, -1.5];
    let (v, g) = value_and_gradients_function!(cumulative)(&x[..]);
    assert_eq!(v, cumulative(&x));
    // by hand: Σ_k S_k² with S_k = x_0 + … + x_k, plus 2 Π x
    let sums: Vec<f64> = (0..4).map(|k| x[..=k].iter().sum()).collect();
    let product: f64 = x.iter().product();
    let by_hand: Vec<f64> = (0..4)
        .map(|i| 2.0 * sums[i..].iter().sum::<f64>() + 2.0 * product / x[i])
        .collect();
    assert_gradient_close(&g, &by_hand, 1e-12);
    assert_gradient_close(&g, &finite_difference(cumulative, &x), 1e-6);
    let (_, pullback) = vjp!(cumulative)(&x[..]);
    assert_gradient_close(
        &pullback(-1.0),
        &by_hand.iter().map(|d| -d).collect::<Vec<_>>(),
        1e-12,
    );
    let (jv, jt) = jvp!(cumulative)(&x[..], &[0.0, 1.0, 0.0, 0.0][..]);
    assert_eq!(jv, v);
    assert!((jt - by_hand[1]).abs() <= 1e-12 * by_hand[1].abs());
}

// --- pairs with a constant member ---------------------------------------------------------

/// Pairs collected with a constant first member computed from an integer
/// (`-(1.5 + (n as f64).cos()).sqrt()`): a float by its form.
#[differentiable]
fn constant_member_pairs(xs: &[f64], n: usize) -> f64 {
    let pairs: Vec<(f64, f64)> = xs
        .iter()
        .map(|&u| (-(1.5 + (n as f64).cos()).sqrt(), u * 0.5))
        .collect();
    pairs[0].0 * pairs[2].1 + pairs[0].1 + f64::MAX.min(pairs[1].1)
}

/// The same, generic, the constant through the float type (`T::one()`).
#[differentiable]
fn constant_member_pairs_generic<T: Float>(xs: &[T], _n: usize) -> T {
    let pairs: Vec<(T, T)> = xs
        .iter()
        .map(|&u| (-(T::one() + T::one()).sqrt(), u * u))
        .collect();
    pairs[0].0 * pairs[2].1 + pairs[1].1
}

#[test]
fn pairs_with_a_constant_member() {
    let xs = vec![0.5, 1.0, 2.0];
    for n in 0..3 {
        let c = -(1.5 + (n as f64).cos()).sqrt();
        let g = gradients_function!(constant_member_pairs, params = ["xs"])(&xs, n);
        // by hand: ∂/∂x₀ = ½, ∂/∂x₁ = ½, ∂/∂x₂ = c·½
        assert_eq!(g, vec![0.5, 0.5, c * 0.5]);
        let fd = finite_difference(|p: &[f64]| constant_member_pairs(p, n), &xs);
        assert_gradient_close(&g, &fd, 1e-7);
        let g = gradients_function!(constant_member_pairs_generic, params = ["xs"])(&xs[..], n);
        let c = -(2.0f64).sqrt();
        // f = c·x₂² + x₁²
        assert_eq!(g, vec![0.0, 2.0 * xs[1], c * 2.0 * xs[2]]);
    }
}
