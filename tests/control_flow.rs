//! Branches, loops, mutation and slices, each checked against central finite differences
//! and, where it is easy, a gradient derived by hand.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

const TOL: f64 = 1e-8;

#[differentiable]
fn piecewise(x: f64, y: f64) -> f64 {
    if x > 1.0 {
        x * y
    } else if x > 0.0 {
        x.sin() * y
    } else {
        y * y
    }
}

#[test]
fn if_else_if_else_as_expression() {
    for &(x, y) in &[(2.0, 3.0), (0.5, 3.0), (-1.0, 3.0)] {
        let (dx, dy) = gradients_function!(piecewise)(x, y);
        let expected = if x > 1.0 {
            (y, x)
        } else if x > 0.0 {
            (x.cos() * y, x.sin())
        } else {
            (0.0, 2.0 * y)
        };
        assert_eq!((dx, dy), expected);
        let fd = finite_difference(|p| piecewise(p[0], p[1]), &[x, y]);
        assert_gradient_close(&[dx, dy], &fd, TOL);
    }
}

#[differentiable]
fn branch_statement(x: f64, n: i32) -> f64 {
    let mut acc = x;
    if n > 2 {
        acc *= x;
    }
    if acc > 100.0 {
        acc = 100.0;
    }
    acc * 3.0
}

#[test]
fn if_as_statement_with_mutation_and_constant_overwrite() {
    assert_eq!(gradients_function!(branch_statement)(2.0, 1), 3.0);
    assert_eq!(gradients_function!(branch_statement)(2.0, 5), 12.0);
    // acc = 100 overwrites: no gradient flows.
    assert_eq!(gradients_function!(branch_statement)(20.0, 5), 0.0);
}

#[differentiable]
fn by_match(x: f64, k: u8) -> f64 {
    match k {
        0 => x,
        1 | 2 => x * x,
        n if n > 10 => x.exp(),
        _ => 3.0 * x,
    }
}

#[test]
fn match_on_an_integer() {
    let g = gradients_function!(by_match);
    assert_eq!(g(1.5, 0), 1.0);
    assert_eq!(g(1.5, 2), 3.0);
    assert_eq!(g(1.5, 11), 1.5_f64.exp());
    assert_eq!(g(1.5, 5), 3.0);
}

#[differentiable]
fn early_return(x: f64) -> f64 {
    if x < 0.0 {
        return -x * 2.0;
    }
    let y = x * x;
    if y > 4.0 {
        return y.sqrt();
    }
    y + x
}

#[test]
fn early_returns() {
    let g = gradients_function!(early_return);
    assert_eq!(g(-1.0), -2.0);
    assert_eq!(g(3.0), 1.0);
    assert_eq!(g(1.0), 3.0);
    assert_eq!(
        early_return(3.0),
        value_and_gradients_function!(early_return)(3.0).0
    );
}

#[differentiable]
fn power_loop(x: f64, n: usize) -> f64 {
    let mut acc = 1.0;
    for _ in 0..n {
        acc *= x;
    }
    acc
}

#[test]
fn for_over_a_range_with_a_loop_carried_product() {
    for n in 0..6 {
        let g = gradients_function!(power_loop)(1.3, n);
        let expected = n as f64 * 1.3_f64.powi(n as i32 - 1);
        assert!((g - expected).abs() < 1e-12, "n = {n}: {g} vs {expected}");
    }
}

#[differentiable]
fn reversed_stepped(x: f64) -> f64 {
    let mut s = 0.0;
    for i in (0..10).rev().step_by(3) {
        s += x.powi(i) / (i as f64 + 1.0);
    }
    s
}

#[test]
fn rev_and_step_by() {
    let x = 0.7;
    let g = gradients_function!(reversed_stepped)(x);
    let expected: f64 = [9, 6, 3, 0]
        .iter()
        .map(|&i| {
            if i == 0 {
                0.0
            } else {
                i as f64 * x.powi(i - 1) / (i as f64 + 1.0)
            }
        })
        .sum();
    assert!((g - expected).abs() < 1e-12);
}

#[differentiable]
fn nested_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            s += x[i] * x[j] * (i + j) as f64;
        }
    }
    s
}

#[test]
fn nested_loops_over_a_slice() {
    let x = [0.5, -1.0, 2.0, 0.25];
    let g = gradients_function!(nested_loops)(&x);
    // d/dx_k sum_ij x_i x_j (i + j) = 2 sum_j x_j (k + j)
    let expected: Vec<f64> = (0..4)
        .map(|k| 2.0 * (0..4).map(|j| x[j] * (k + j) as f64).sum::<f64>())
        .collect();
    assert_gradient_close(&g, &expected, 1e-14);
    assert_gradient_close(&g, &finite_difference(nested_loops, &x), TOL);
}

#[differentiable]
fn break_on_active(x: f64) -> f64 {
    let mut y = x;
    let mut steps = 0;
    loop {
        y = y * y + 0.1;
        steps += 1;
        if y > 10.0 || steps == 50 {
            break;
        }
    }
    y
}

#[test]
fn loop_with_break_on_an_active_condition() {
    for &x in &[1.1, 1.5, 2.0, 0.3] {
        let g = gradients_function!(break_on_active)(x);
        let fd = finite_difference(|p| break_on_active(p[0]), &[x]);
        assert_gradient_close(&[g], &fd, 1e-6);
    }
}

#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    // a trip count that depends on the data
    let mut x = a;
    let mut iterations = 0;
    while (x * x - a).abs() > 1e-12 * a && iterations < 100 {
        x = 0.5 * (x + a / x);
        iterations += 1;
    }
    x
}

#[test]
fn while_with_a_data_dependent_trip_count() {
    for &a in &[2.0, 9.0, 1e4] {
        let g = gradients_function!(newton_sqrt)(a);
        let expected = 0.5 / a.sqrt();
        assert!((g - expected).abs() < 1e-9 * expected, "{g} vs {expected}");
    }
}

#[differentiable]
fn labeled(x: f64, m: usize) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..m {
        let mut j = 0;
        loop {
            j += 1;
            if j > i {
                continue 'outer;
            }
            if i * j > 6 {
                break 'outer;
            }
            s += x * (i * j) as f64;
        }
    }
    s
}

#[test]
fn labeled_break_and_continue() {
    let x = 1.7;
    let g = gradients_function!(labeled)(x, 8);
    let fd = finite_difference(|p| labeled(p[0], 8), &[x]);
    assert_gradient_close(&[g], &fd, TOL);
    assert_eq!(g, labeled(1.0, 8));
}

#[differentiable]
fn break_with_value(x: f64) -> f64 {
    let mut k = 0.0;
    let r = loop {
        k += 1.0;
        if k * x > 3.0 {
            break k * x * x;
        }
    };
    r + x
}

#[test]
fn loop_with_break_value() {
    let x = 1.2;
    let g = gradients_function!(break_with_value)(x);
    // k = 3 when 3 * 1.2 > 3: r = 3 x², dr/dx = 6x
    assert!((g - (6.0 * x + 1.0)).abs() < 1e-12);
}

#[differentiable]
fn local_buffer(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i] * x[i];
    }
    for i in 1..n {
        v[i] += v[i - 1];
    }
    v[n - 1] * v[0]
}

#[test]
fn local_buffers_with_indexed_writes() {
    let x = [1.0, 2.0, -0.5];
    let g = gradients_function!(local_buffer)(&x);
    let fd = finite_difference(local_buffer, &x);
    assert_gradient_close(&g, &fd, TOL);
}

#[differentiable]
fn iterators(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += v.sin();
    }
    for (i, v) in x.iter().enumerate() {
        s += *v * i as f64;
    }
    for (a, b) in x.iter().zip(y.iter()) {
        s += a * b;
    }
    s
}

#[test]
fn slice_iterators() {
    let (x, y) = ([0.1, 0.2, 0.3], [1.0, -2.0, 4.0]);
    let (gx, gy) = gradients_function!(iterators)(&x, &y);
    let ex: Vec<f64> = (0..3).map(|i| x[i].cos() + i as f64 + y[i]).collect();
    assert_gradient_close(&gx, &ex, 1e-14);
    assert_gradient_close(&gy, &x, 1e-14);
}

#[differentiable]
fn array_param(x: [f64; 3]) -> f64 {
    x[0] * x[1] + x[2].exp()
}

#[test]
fn fixed_size_array_parameter() {
    let g: [f64; 3] = gradients_function!(array_param)([1.0, 2.0, 0.5]);
    assert_eq!(g, [2.0, 1.0, 0.5_f64.exp()]);
}

#[differentiable]
fn vec_out(x: &[f64], s: f64) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = x[i] * s;
    }
    out
}

#[test]
fn vec_output_through_vjp() {
    let x = [1.0, 2.0, 3.0];
    let (v, pullback) = vjp!(vec_out)(&x, 2.0);
    assert_eq!(v, vec![2.0, 4.0, 6.0]);
    let (gx, gs) = pullback(vec![1.0, 0.0, 1.0]);
    assert_eq!(gx, vec![2.0, 0.0, 2.0]);
    assert_eq!(gs, 4.0);
}

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = 1.0 - x[i];
        let b = x[i + 1] - x[i] * x[i];
        sum += a * a + 100.0 * b * b;
    }
    sum
}

fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in 0..n - 1 {
        let b = x[i + 1] - x[i] * x[i];
        g[i] += -2.0 * (1.0 - x[i]) - 400.0 * x[i] * b;
        g[i + 1] += 200.0 * b;
    }
    g
}

#[test]
fn rosenbrock_matches_its_closed_form() {
    let x: Vec<f64> = (0..50).map(|i| ((i as f64) * 0.37).sin()).collect();
    let g = gradients_function!(rosenbrock)(&x);
    assert_gradient_close(&g, &rosenbrock_gradient(&x), 1e-12);
    assert_gradient_close(&g, &finite_difference(rosenbrock, &x), 1e-7);
}

#[test]
fn rosenbrock_with_a_million_variables() {
    let x: Vec<f64> = (0..1_000_000).map(|i| ((i as f64) * 0.001).cos()).collect();
    let g = gradients_function!(rosenbrock)(&x);
    let expected = rosenbrock_gradient(&x);
    for (a, e) in g.iter().zip(&expected) {
        assert!((a - e).abs() <= 1e-12 * e.abs().max(1.0), "{a} vs {e}");
    }
}

#[differentiable]
fn reductions(x: &[f64], y: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let sq = x.iter().map(|v| v * v).sum::<f64>();
    let dot: f64 = x.iter().zip(y.iter()).map(|(a, b)| a * b).sum();
    let p: f64 = y.iter().product();
    let weighted = (0..x.len()).map(|i| x[i] * i as f64).sum::<f64>();
    let f = x.iter().fold(1.0, |acc, v| acc * 0.5 + v.sin());
    s + sq + dot + p + weighted + f
}

#[test]
fn iterator_reductions() {
    let (x, y) = ([0.3, -1.2, 2.0], [1.5, 0.5, -2.0]);
    let (gx, gy) = gradients_function!(reductions)(&x, &y);
    let fd = finite_difference(
        |p| reductions(&p[..3], &p[3..]),
        &[x.as_slice(), y.as_slice()].concat(),
    );
    assert_gradient_close(&[gx.clone(), gy.clone()].concat(), &fd, TOL);
    // closed form for y: x + product of the others
    let ey = [x[0] + y[1] * y[2], x[1] + y[0] * y[2], x[2] + y[0] * y[1]];
    assert_gradient_close(&gy, &ey, 1e-14);
    assert_eq!(
        value_and_gradients_function!(reductions)(&x, &y)
            .0
            .to_bits(),
        reductions(&x, &y).to_bits()
    );
}

struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        let d = x - self.rest;
        0.5 * self.k * d * d
    }

    #[differentiable]
    fn total(&self, x: f64, y: f64) -> f64 {
        self.energy(x) + Self::energy(self, y) * 2.0
    }
}

#[test]
fn methods_calling_methods() {
    let s = Spring { k: 3.0, rest: 1.0 };
    let (gx, gy) = gradients_function!(Spring::total, params = ["x", "y"])(&s, 2.0, 0.5);
    assert_eq!(gx, 3.0 * (2.0 - 1.0));
    assert_eq!(gy, 2.0 * 3.0 * (0.5 - 1.0));
    let gx: f64 = gradients_function!(Spring::energy)(&s, 4.0);
    assert_eq!(gx, 9.0);
}

#[differentiable(vjp = cube_rule)]
fn cube(x: f64) -> f64 {
    x * x * x
}

fn cube_rule(x: f64) -> (f64, impl FnOnce(f64) -> f64) {
    (x * x * x, move |dy| dy * 3.0 * x * x)
}

#[differentiable]
fn uses_custom_rule(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += cube(*v) * 2.0;
    }
    s
}

#[test]
fn custom_rule_called_in_a_loop() {
    let x = [1.0, 2.0, -0.5];
    let g = gradients_function!(uses_custom_rule)(&x);
    let expected: Vec<f64> = x.iter().map(|v| 6.0 * v * v).collect();
    assert_eq!(g, expected);
}

#[differentiable]
fn counter_between_reads(x: f64) -> f64 {
    let mut k = 1;
    let a = k;
    k += 1;
    let b = k;
    let mut y = x;
    let first = y;
    y *= 3.0;
    let second = y;
    first * a as f64 + second * b as f64
}

#[test]
fn reads_of_a_cell_see_every_write() {
    assert_eq!(counter_between_reads(2.0), 2.0 + 12.0);
    assert_eq!(gradients_function!(counter_between_reads)(2.0), 1.0 + 6.0);
}

#[differentiable]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

#[differentiable]
fn uses_a_tuple_result(r: f64, theta: f64) -> f64 {
    let (x, y) = polar(r, theta);
    let p = polar(r * 2.0, theta);
    x * y + p.0 - p.1 * 3.0
}

#[test]
fn tuples_returned_by_differentiable_calls() {
    let (r, t) = (1.5, 0.4);
    let g = gradients_function!(uses_a_tuple_result)(r, t);
    let fd = finite_difference(|p| uses_a_tuple_result(p[0], p[1]), &[r, t]);
    assert_gradient_close(&[g.0, g.1], &fd, TOL);
}

struct Scaler {
    k: f64,
}

impl Scaler {
    #[differentiable]
    fn helper(x: f64, k: f64) -> f64 {
        x * k * Self::unit()
    }

    fn unit() -> f64 {
        1.0
    }

    #[differentiable]
    fn apply(&self, x: f64) -> f64 {
        Self::helper(x, self.k) + x
    }
}

#[test]
fn associated_functions_without_self_mentioning_self() {
    let s = Scaler { k: 4.0 };
    assert_eq!(gradients_function!(Scaler::apply)(&s, 2.0), 5.0);
    assert_eq!(
        gradients_function!(Scaler::helper, params = ["k"])(2.0, 4.0),
        2.0
    );
}

#[differentiable]
fn tuple_parameter(p: (f64, f64), scale: f64) -> f64 {
    let (a, b) = p;
    a * b * scale + p.0.sin()
}

#[test]
fn tuple_parameters() {
    let ((da, db), ds) = gradients_function!(tuple_parameter)((2.0, 3.0), 0.5);
    assert_eq!((da, db, ds), (3.0 * 0.5 + 2.0_f64.cos(), 2.0 * 0.5, 6.0));
}

/// Regression (random-program tester, seed 100): a `match` on an integer computed from
/// differentiable values was refused as a match on a differentiable value.
#[differentiable]
fn match_on_an_integer_computed_from_differentiable_values(a: f64, b: f64) -> f64 {
    match (b.tanh().abs() * 2.0) as usize % 3 {
        0 => (a * b * b * 0.5).atan(),
        1 => (1.0 + a.cos().powi(2)).ln(),
        _ => ((b - a) * a * 0.5).atan(),
    }
}

#[test]
fn regression_match_on_an_integer_computed_from_differentiable_values() {
    for &(a, b) in &[(0.3, 0.2), (0.7, 0.8), (-0.4, 2.5)] {
        let g = gradients_function!(match_on_an_integer_computed_from_differentiable_values)(a, b);
        let fd = finite_difference(
            |p| match_on_an_integer_computed_from_differentiable_values(p[0], p[1]),
            &[a, b],
        );
        assert_gradient_close(&[g.0, g.1], &fd, TOL);
    }
}

/// Regression (random-program tester, seed 100): an `if`/`match` statement whose arms end
/// in a loop was lowered as a value of type `()`, which does not compile.
#[differentiable]
fn statement_arms_ending_in_loops(a: f64, xs: &[f64]) -> f64 {
    let mut acc = a;
    for (i, q) in xs.iter().enumerate() {
        if *q > 0.5 {
            let _unused = q * 2.0;
        } else if i % 2 == 0 {
            match i {
                0 => {
                    for _ in 0..2 {
                        acc *= 1.0 + 0.1 * q;
                    }
                }
                _ => {
                    while acc > 10.0 {
                        acc *= 0.5;
                    }
                }
            }
        }
        acc += q.sin();
    }
    let v = if a > 0.0 { a * 2.0 } else { a };
    acc * v
}

#[test]
fn regression_statement_arms_ending_in_loops() {
    let (a, xs) = (0.7, [0.2, 0.9, 0.1, 0.4]);
    let (ga, gx) = gradients_function!(statement_arms_ending_in_loops)(a, &xs);
    let mut all = vec![ga];
    all.extend(gx);
    let fd = finite_difference(
        |p| statement_arms_ending_in_loops(p[0], &p[1..]),
        &[a, 0.2, 0.9, 0.1, 0.4],
    );
    assert_gradient_close(&all, &fd, TOL);
}

/// Regression (random-program tester, program p1 of seed 1): the cell-activity fixpoint
/// keyed cells by creation order, and a pass that lowered an expression structurally
/// instead of as written renumbered later cells, so a `bool` flag cell was taken for an
/// active one and the generated code did not compile.
#[differentiable]
fn cell_numbering_shifts_between_passes(b: f64, a: f64, n: usize) -> f64 {
    if n % 2 == 0 {
        let mut acc0 = (1.0 + (a + b).powi(2)).sqrt() * 0.5;
        match n % 3 {
            0 | 1 => {
                let _b = b - -(a * 0.25).tanh();
            }
            _ => {
                let mut w1 = 0;
                while w1 < 3 && (acc0 * acc0 < -0.2) {
                    let t2: f64 = 2.0;
                    acc0 = (0.1 * t2).powi(3);
                    w1 += 1;
                }
            }
        }
        return 0.6 * acc0;
    }
    let mut acc3 = 0.0;
    acc3 += b;
    if (n as f64 - b) > b && a < -0.1 {
        return acc3;
    }
    acc3 * a
}

#[test]
fn regression_cell_numbering_shifts_between_passes() {
    for n in [2, 3, 5] {
        let (gb, ga) = gradients_function!(
            cell_numbering_shifts_between_passes,
            params = ["b", "a"]
        )(0.4, 0.9, n);
        let fd = finite_difference(
            |p| cell_numbering_shifts_between_passes(p[0], p[1], n),
            &[0.4, 0.9],
        );
        assert_gradient_close(&[gb, ga], &fd, TOL);
    }
}

// Regression tests for bugs the soak found (seeds 6000–6004).

#[differentiable]
fn weighted_by_data(w: f64, #[no_grad] data: &[f64]) -> f64 {
    let local = [0.5_f64; 3];
    data.iter().map(|x| x * w).sum::<f64>() + local.iter().map(|q| q * w * w).sum::<f64>()
}

/// A constant sequence iterated by reference (`data.iter()`) with differentiable values in
/// the body: its items were references, which the rules do not take ("`&f64: Arith`").
#[test]
fn regression_seed6002_p48_constant_slice_iterated_with_differentiable_values() {
    let data = [1.0, 2.0, -0.5];
    let g: f64 = gradients_function!(weighted_by_data, params = ["w"])(0.7, &data);
    let fd = finite_difference(|p| weighted_by_data(p[0], &data), &[0.7]);
    assert_gradient_close(&[g], &fd, 1e-7);
    // by hand: Σ data + 2 w Σ local
    assert!((g - (2.5 + 1.5 * 2.0 * 0.7)).abs() < 1e-14);
}

#[differentiable]
fn wraps_around(a: f64, xs: &[f64]) -> f64 {
    let mut v = vec![0.0; 3];
    for i in 0..v.len() {
        v[i] = (i as f64 - xs[xs.len() - 1 - i]).atan() * a;
    }
    let mut s = 0.0;
    for k in 0..5 {
        s += xs[k % xs.len()] * v[(k + 1) % v.len()];
    }
    s
}

/// An index computed from a differentiable sequence's length (`xs[k % xs.len()]`) was
/// rejected as "depending on differentiable values".
#[test]
fn regression_seed6000_p161_index_from_a_differentiable_sequences_length() {
    let xs = [0.5, -1.0, 2.0];
    let (ga, gx) = gradients_function!(wraps_around)(0.7, &xs);
    let mut all = vec![ga];
    all.extend(gx);
    let fd = finite_difference(|p| wraps_around(p[0], &p[1..]), &[0.7, 0.5, -1.0, 2.0]);
    assert_gradient_close(&all, &fd, 1e-7);
}

#[differentiable]
#[allow(
    unused_variables,
    unused_assignments,
    clippy::collapsible_else_if,
    clippy::needless_else,
    clippy::needless_range_loop
)]
fn seed7002_p141(a: f64, xs: &[f64]) -> f64 {
    let mut v0 = vec![0.0; 2];
    for i in 0..v0.len() {
        v0[i] = (1.5 + (a / (1.5 + a.tanh())).cos()).sqrt();
    }
    let mut acc1 = a;
    acc1 -= (v0
        .iter()
        .map(|q| (q * 0.1).cos())
        .product::<f64>()
        .sin()
        .tanh()
        .sinh()
        * 0.5)
        .atan();
    let mut w3 = 0;
    while w3 < 3 {
        if w3 > 0 {
        } else {
            if a > -0.4 {
                let t4 = xs.iter().map(|q| q * q).sum::<f64>() * xs[w3];
            } else {
            }
        }
        w3 += 1;
    }
    a
}

/// The activity fixpoint numbered cells by creation order, and a pass that lowered an
/// expression differently renumbered later cells: the counter `w3` was taken for an active
/// cell, and its use as an index rejected ("an index must not depend on differentiable
/// values"). Cells are now keyed by the syntax that makes them.
#[test]
fn regression_seed7002_p141_cells_keep_their_identity_across_fixpoint_passes() {
    let xs = [0.5, -1.0, 2.0];
    let (ga, gx) = gradients_function!(seed7002_p141)(0.7, &xs);
    let mut all = vec![ga];
    all.extend(gx);
    let fd = finite_difference(|p| seed7002_p141(p[0], &p[1..]), &[0.7, 0.5, -1.0, 2.0]);
    assert_gradient_close(&all, &fd, 1e-7);
}

#[differentiable]
#[allow(
    unused_mut,
    clippy::match_single_binding,
    clippy::collapsible_else_if,
    clippy::collapsible_if
)]
fn seed7002_p169(xs: &[f64], c: f64, b: f64, a: f64, d: f64) -> f64 {
    let t0 = c;
    let mut a = a;
    let mut v2 = vec![0.0; 3];
    let t4 = {
        let u3 = (-v2
            .iter()
            .enumerate()
            .map(|(k, q)| q * k as f64)
            .sum::<f64>()
            * 0.1)
            .atan();
        xs[0] * u3 * -a
    };
    for (i, q5) in v2.iter().enumerate() {
        if f64::max(v2.iter().map(|q| ((q * 0.25) * 0.25).sin()).sum::<f64>(), c) < -0.4 {
        } else if *q5 + 0.3 > -0.4 {
            if i >= 1 && (v2[i] * 0.25).sin() > d && i == 1 {
                a += t0
                    .cos()
                    .exp_m1()
                    .min((*q5).min(xs.iter().fold(0.0, |acc, q| acc * 0.5 + q.sin())))
                    * 0.5;
            }
        }
    }
    match (((t4 * 0.5).atan().powi(3) * 0.25).abs() * 2.0) as usize % 3 {
        _ => {}
    }
    c * a + b
}

/// `%` on an integer computed from values the macro treats as possibly arrays (elements
/// of a local buffer) was refused as "`%` of arrays".
#[test]
fn regression_seed7002_p169_integer_remainder_of_a_cast() {
    let xs = [0.5, -1.0];
    let (gx, gc, gb, ga, gd) = gradients_function!(seed7002_p169)(&xs, 1.5, 0.2, 0.3, -2.0);
    let mut all = gx;
    all.extend([gc, gb, ga, gd]);
    let fd = finite_difference(
        |p| seed7002_p169(&p[..2], p[2], p[3], p[4], p[5]),
        &[0.5, -1.0, 1.5, 0.2, 0.3, -2.0],
    );
    assert_gradient_close(&all, &fd, 1e-7);
}

#[differentiable]
#[allow(unused_mut, clippy::needless_range_loop)]
fn seed8003_p145(a: f64, b: f64) -> f64 {
    let mut v0 = vec![0.0; 2];
    let a = a + (v0.iter().map(|q| (q * 0.5) * b).sum::<f64>() + (v0[0] * 0.5).atan());
    let t1 = a;
    let mut v2 = vec![0.0; v0.len()];
    for i in 0..v2.len() {
        v2[i] = (v0[i] * 0.5).atan().sin().atan();
    }
    let t3 = if (1.5 + (v0[1] * 0.5).sin()).powf((a * 0.05).tanh().tanh()) > -0.4 {
        v2.iter().fold(0.0, |acc, q| acc * 0.5 + q.sin()) - t1.tanh()
    } else {
        f64::cos(b * b)
    };
    a + t3
}

/// Elements of a constant buffer whose literal type is not fixed yet (`vec![0.0; 2]`) were
/// read through a dispatch that needs the type: "type annotations needed".
#[test]
fn regression_seed8003_p145_elements_of_a_buffer_of_float_literals() {
    let (ga, gb) = gradients_function!(seed8003_p145)(0.5, 0.25);
    let fd = finite_difference(|p| seed8003_p145(p[0], p[1]), &[0.5, 0.25]);
    assert_gradient_close(&[ga, gb], &fd, 1e-7);
    assert!((ga - 0.5_f64.tanh().powi(2)).abs() < 1e-15);
}

/// A value computed before an early return but undefined there (`sqrt` of a negative
/// number): its cotangent is zero on that path, and zero times an infinite derivative
/// contributes zero, not NaN (as in puruspe's `betaiapprox`).
#[differentiable]
fn undefined_before_return(a: f64, b: f64) -> f64 {
    let t = (a * b).sqrt();
    let l = (a - 1.0).ln() / b;
    if a < 0.0 {
        return 0.0;
    }
    t + l
}

#[test]
fn unused_undefined_values_do_not_poison_the_gradient() {
    let (ga, gb) = gradients_function!(undefined_before_return)(-1.0, 2.0);
    assert_eq!((ga, gb), (0.0, 0.0));
    // where the value is used, its derivative is as usual
    let (ga, gb) = gradients_function!(undefined_before_return)(3.0, 2.0);
    let hand_a = 0.5 * 2.0 / 6.0_f64.sqrt() + 1.0 / (2.0 * 2.0);
    let hand_b = 0.5 * 3.0 / 6.0_f64.sqrt() - 2.0_f64.ln() / 4.0;
    assert!(
        (ga - hand_a).abs() < 1e-14 && (gb - hand_b).abs() < 1e-14,
        "{ga} {gb}"
    );
}

/// Labeled blocks: one leaving early with a value, one leaving early without.
#[differentiable]
fn labeled_blocks(x: f64, y: f64) -> f64 {
    let v = 'value: {
        if x > 1.0 {
            break 'value x * y;
        }
        let s = x.sin();
        s * y
    };
    let mut acc = 0.0;
    'sum: {
        for i in 1..4 {
            acc += v * i as f64;
            if acc > 5.0 {
                break 'sum;
            }
        }
        acc += y * y;
    }
    v * 2.0 + acc
}

#[test]
fn labeled_block_left_early() {
    // v = x·y (x > 1) or sin(x)·y; acc = v + 2v + 3v + y² when it stays ≤ 5, else the partial
    // sum at which it passed 5.
    for &(x, y) in &[(0.5, 0.4), (2.0, 0.7), (2.0, 3.0), (0.5, 3.0)] {
        let (v, dv) = if x > 1.0 {
            (x * y, [y, x])
        } else {
            (x.sin() * y, [x.cos() * y, x.sin()])
        };
        let (mut acc, mut k, mut left) = (0.0, 0.0, false);
        for i in 1..4 {
            acc += v * i as f64;
            k += i as f64;
            if acc > 5.0 {
                left = true;
                break;
            }
        }
        let dy_sq = if left { 0.0 } else { 2.0 * y };
        let expected = [(2.0 + k) * dv[0], (2.0 + k) * dv[1] + dy_sq];
        let (dx, dy) = gradients_function!(labeled_blocks)(x, y);
        assert_gradient_close(&[dx, dy], &expected, 1e-14);
        let fd = finite_difference(|p| labeled_blocks(p[0], p[1]), &[x, y]);
        assert_gradient_close(&[dx, dy], &fd, TOL);
        let (value, tangent) = jvp!(labeled_blocks)(x, y, 0.25, -1.0);
        assert_eq!(value, labeled_blocks(x, y));
        assert!((tangent - (0.25 * dx - dy)).abs() < 1e-12);
    }
}

macro_rules! near {
    ($a:expr, $b:expr) => {
        (($a) - ($b)).abs() < 1e-12
    };
}

macro_rules! apart {
    ($a:expr, $b:expr) => {
        (($a) - ($b)).abs() >= 1e-12
    };
}

/// Conditions that invoke macros (`if prec::ulps_eq!(a, 0.0)`, as statistics crates guard
/// their special cases, `while apart!(…)`, `matches!`): booleans, kept as written.
#[differentiable]
fn guarded_by_macros(a: f64, x: f64) -> f64 {
    if near!(a, 0.0) {
        return x;
    }
    let mut s = x;
    let mut k = 0;
    while apart!(s, 0.0) && k < 3 {
        s *= a;
        k += 1;
    }
    s + if matches!(k, 3) { a * x } else { x }
}

#[test]
fn conditions_invoking_macros() {
    for &(a, x) in &[(0.5, 2.0), (0.0, 2.0), (-1.5, 0.3)] {
        // a = 0: x; otherwise x a³ + a x
        let expected = if a == 0.0 {
            [0.0, 1.0]
        } else {
            [3.0 * x * a * a + x, a * a * a + a]
        };
        let (ga, gx) = gradients_function!(guarded_by_macros)(a, x);
        assert_gradient_close(&[ga, gx], &expected, 1e-14);
        if a != 0.0 {
            let fd = finite_difference(|p| guarded_by_macros(p[0], p[1]), &[a, x]);
            assert_gradient_close(&[ga, gx], &fd, TOL);
        }
        let (value, tangent) = jvp!(guarded_by_macros)(a, x, 1.0, 0.0);
        assert_eq!(value, guarded_by_macros(a, x));
        assert!((tangent - ga).abs() < 1e-14);
    }
}
