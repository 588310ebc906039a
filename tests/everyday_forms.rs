//! Forms of ordinary Rust that numeric code is full of, each once refused or miscompiled:
//! loops over rows (`for row in m { for v in row { … } }`, over `&[Vec<f64>]` and
//! `&[[f64; 3]]`, in iterator chains too), `vec![a, b, c]` of differentiable values, a
//! constant local `Vec` handed to a helper beside a differentiable one, `push` onto a
//! `Vec` copied from a parameter, `const` tables iterated (`for c in COEFFS.iter()`, items
//! `&f64`), `to_owned` of a slice, `std::mem::swap` of two locals, slices of derived
//! structs read by index and by `windows`, slices of pairs, and a call's result iterated
//! (`f(x).iter().map(…).sum()`), folds into tuples, checked reads by `get` and `reverse()`
//! in place. Each gradient against central finite differences and,
//! where short, a derivation by hand; `jvp!` against ⟨∇f, v⟩; `vjp!` and the implicit mode
//! where the form reaches them differently.

// index loops are part of what is under test
#![allow(clippy::needless_range_loop)]
// `vec![…]` where an array would do is one of the forms under test
#![allow(clippy::useless_vec)]

use autodiff::ndarray::Array1;
use autodiff::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// Central differences of `f` at `x`.
fn differences(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let mut a = x.to_vec();
            a[i] += h;
            let mut b = x.to_vec();
            b[i] -= h;
            (f(&a) - f(&b)) / (2.0 * h)
        })
        .collect()
}

fn assert_matches_differences(name: &str, g: &[f64], f: impl Fn(&[f64]) -> f64, x: &[f64]) {
    let fd = differences(f, x);
    assert_eq!(g.len(), fd.len(), "{name}");
    for (k, (a, b)) in g.iter().zip(&fd).enumerate() {
        assert!(
            close(*a, *b, 1e-6),
            "{name}[{k}]: gradient {a} vs differences {b}"
        );
    }
}

/// Two rows of two and one of three, flattened and back.
fn rows_of(p: &[f64]) -> Vec<Vec<f64>> {
    vec![p[..2].to_vec(), p[2..4].to_vec(), p[4..].to_vec()]
}

const M: [f64; 7] = [0.3, -0.5, 0.7, 0.2, -0.4, 0.9, 0.1];
const T: [f64; 7] = [1.0, 0.5, -2.0, 0.25, 3.0, -1.0, 0.5];

/// `⟨g, t⟩` of a gradient of rows and a flat direction.
fn along(g: &[Vec<f64>], t: &[f64]) -> f64 {
    g.concat().iter().zip(t).map(|(a, b)| a * b).sum()
}

// ---------------------------------------------------------------------------------------
// Loops over rows: the loop variable is itself a sequence, iterated or indexed
// ---------------------------------------------------------------------------------------

/// `Σ v²` over rows, by `iter()` and a `&v` pattern.
#[differentiable]
fn rows_iter(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in m.iter() {
        for &v in row.iter() {
            s += v * v;
        }
    }
    s
}

/// `Σ exp(v)`, rows and elements by plain `for … in`.
#[differentiable]
fn rows_plain(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for r in m {
        for v in r {
            s += v.exp();
        }
    }
    s
}

/// `Σ (i + 2j) vᵢⱼ²`, both loops enumerated.
#[differentiable]
fn rows_enumerated(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            s += (i + 2 * j) as f64 * v * v;
        }
    }
    s
}

/// `Σᵢ Σⱼ rᵢⱼ rᵢ₀`: the row indexed inside its loop.
#[differentiable]
fn rows_indexed(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for r in m.iter() {
        for j in 0..r.len() {
            s += r[j] * r[0];
        }
    }
    s
}

/// `Σ sin` by nested iterator chains.
#[differentiable]
fn rows_chained(m: &[Vec<f64>]) -> f64 {
    m.iter()
        .map(|r| r.iter().map(|v| v.sin()).sum::<f64>())
        .sum()
}

/// `Σᵢ (Σⱼ mᵢⱼ)²`: each row summed by `iter().sum()`.
#[differentiable]
fn rows_summed(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in m {
        let t: f64 = row.iter().sum();
        s += t * t;
    }
    s
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// `Σ tanh(⟨row, x⟩)`: each row handed to a helper.
#[differentiable]
fn rows_to_a_helper(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for row in m {
        s += dot(row, x).tanh();
    }
    s
}

/// `Σ ⟨aᵢ, bᵢ⟩` over rows zipped with rows.
#[differentiable]
fn rows_zipped(m: &[Vec<f64>], w: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for (a, b) in m.iter().zip(w.iter()) {
        for (x, y) in a.iter().zip(b.iter()) {
            s += x * y;
        }
    }
    s
}

#[test]
fn loops_over_rows_against_differences_and_by_hand() {
    let m = rows_of(&M);
    let x = [0.5, -1.0, 2.0];
    let w = rows_of(&T);
    type Case = (&'static str, Vec<Vec<f64>>, fn(&[Vec<f64>]) -> f64);
    let cases: [Case; 6] = [
        ("rows_iter", gradients_function!(rows_iter)(&m), rows_iter),
        (
            "rows_plain",
            gradients_function!(rows_plain)(&m),
            rows_plain,
        ),
        (
            "rows_enumerated",
            gradients_function!(rows_enumerated)(&m),
            rows_enumerated,
        ),
        (
            "rows_indexed",
            gradients_function!(rows_indexed)(&m),
            rows_indexed,
        ),
        (
            "rows_chained",
            gradients_function!(rows_chained)(&m),
            rows_chained,
        ),
        (
            "rows_summed",
            gradients_function!(rows_summed)(&m),
            rows_summed,
        ),
    ];
    for (name, g, f) in &cases {
        assert_matches_differences(name, &g.concat(), |p| f(&rows_of(p)), &M);
    }
    // by hand: ∂(Σv²) = 2v, ∂(Σeᵛ) = eᵛ, ∂(Σ sin v) = cos v, ∂(Σ(Σrow)²) = 2 Σrow
    for (i, row) in m.iter().enumerate() {
        let total: f64 = row.iter().sum();
        for (j, v) in row.iter().enumerate() {
            assert!(close(cases[0].1[i][j], 2.0 * v, 1e-15));
            assert!(close(cases[1].1[i][j], v.exp(), 1e-15));
            assert!(close(cases[2].1[i][j], 2.0 * (i + 2 * j) as f64 * v, 1e-15));
            assert!(close(cases[4].1[i][j], v.cos(), 1e-15));
            assert!(close(cases[5].1[i][j], 2.0 * total, 1e-15));
        }
    }

    let g = gradients_function!(rows_to_a_helper, params = ["m"])(&m[..2], &x[..2]);
    assert_matches_differences(
        "rows_to_a_helper",
        &g.concat(),
        |p| rows_to_a_helper(&[p[..2].to_vec(), p[2..].to_vec()], &x[..2]),
        &M[..4],
    );
    let g = gradients_function!(rows_zipped, params = ["m"])(&m, &w);
    assert_eq!(g, w, "∂⟨m, w⟩/∂m = w");

    // forward mode: ⟨∇f, t⟩
    for (name, g, _) in &cases {
        let f = match *name {
            "rows_iter" => jvp!(rows_iter)(&m, &w),
            "rows_plain" => jvp!(rows_plain)(&m, &w),
            "rows_enumerated" => jvp!(rows_enumerated)(&m, &w),
            "rows_indexed" => jvp!(rows_indexed)(&m, &w),
            "rows_chained" => jvp!(rows_chained)(&m, &w),
            _ => jvp!(rows_summed)(&m, &w),
        };
        let dot = along(g, &T);
        assert!(
            close(f.1, dot, 1e-12),
            "{name}: jvp {} vs ⟨∇f, t⟩ {dot}",
            f.1
        );
    }
}

#[test]
fn rows_in_vjp_and_the_implicit_mode() {
    let m = rows_of(&M);
    let g = gradients_function!(rows_plain)(&m);
    let (value, pullback) = vjp!(rows_plain)(&m);
    assert_eq!(value, rows_plain(&m));
    let half = pullback(0.5);
    for (a, b) in half.concat().iter().zip(g.concat()) {
        assert_eq!(*a, 0.5 * b);
    }
    let v = Variable::new(m.clone());
    let f = differentiable_closure!(|k: f64| rows_plain(&v) * k);
    let gv: Vec<Vec<f64>> = implicit_gradients(&f)(3.0).get(&v).expect("v was read");
    for (a, b) in gv.concat().iter().zip(g.concat()) {
        assert!(close(*a, 3.0 * b, 1e-15));
    }
}

/// `Σ (p₀ p₁ − p₂)` over points given as arrays.
#[differentiable]
fn points(pts: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for p in pts {
        s += p[0] * p[1] - p[2];
    }
    s
}

/// `Σₚ Σ_c c² p₀`: each point's coordinates iterated.
#[differentiable]
fn point_coordinates(pts: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for p in pts {
        for c in p {
            s += c * c * p[0];
        }
    }
    s
}

#[test]
fn loops_over_points_given_as_arrays() {
    let pts = [[0.3, 0.5, 0.7], [1.1, -0.2, 0.4]];
    let unflat = |p: &[f64]| [[p[0], p[1], p[2]], [p[3], p[4], p[5]]];
    let flat = pts.concat();
    let g = gradients_function!(points)(&pts);
    // by hand: (p₁, p₀, −1) per point
    for (p, gp) in pts.iter().zip(&g) {
        assert_eq!(*gp, [p[1], p[0], -1.0]);
    }
    let g = gradients_function!(point_coordinates)(&pts);
    assert_matches_differences(
        "point_coordinates",
        &g.concat(),
        |p| point_coordinates(&unflat(p)),
        &flat,
    );
    let dir = [[1.0, -0.5, 2.0], [0.25, 1.0, -1.0]];
    let (_, dy) = jvp!(point_coordinates)(&pts, &dir);
    let dot: f64 = g
        .concat()
        .iter()
        .zip(dir.concat())
        .map(|(a, b)| a * b)
        .sum();
    assert!(close(dy, dot, 1e-13), "{dy} vs {dot}");
}

// ---------------------------------------------------------------------------------------
// `vec![a, b, c]` of differentiable values, constant local `Vec`s, `push`
// ---------------------------------------------------------------------------------------

/// `x + x² · 3` through `vec![x, x * x, 3.0]`.
#[differentiable]
fn vec_literal(x: f64) -> f64 {
    let v = vec![x, x * x, 3.0];
    v[0] + v[1] * v[2]
}

/// `vec![…]` grown by `push`, iterated and handed to a helper with a literal slice.
#[differentiable]
fn vec_literal_pushed(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y * y];
    v.push(x * y);
    let mut s = 0.0;
    for a in v.iter() {
        s += a.sin();
    }
    s + dot(&v, &[1.0, 2.0, 3.0])
}

/// A typed `vec!` of differentiable values and a constant local `Vec`, both handed to a
/// helper.
#[differentiable]
fn vec_literal_and_constant_vec(x: &[f64]) -> f64 {
    let v: Vec<f64> = vec![x[0] * 2.0, x[1].exp(), 4.0];
    let w = vec![1.0, 2.0, 3.0];
    dot(&v, &w) + v.iter().sum::<f64>()
}

/// A constant local `Vec` built with `vec![0.0; n]` and written, beside a differentiable
/// local one.
#[differentiable]
fn constant_vec_beside_a_buffer(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 3];
    v[0] = x[0] * 2.0;
    v[1] = x[1].exp();
    let w = vec![1.0, 2.0, 3.0];
    dot(&v, &w) + v.iter().sum::<f64>()
}

/// `push` onto a `Vec` copied from a parameter.
#[differentiable]
fn pushed_onto_a_copy(x: &[f64], y: f64) -> f64 {
    let mut v = x.to_vec();
    v.push(x[0] * y);
    v.push(y);
    let mut s = 0.0;
    for a in v.iter() {
        s += a.sin();
    }
    s
}

#[test]
fn vec_literals_constant_vecs_and_pushes() {
    // by hand: 1 + 6x
    assert!(close(
        gradients_function!(vec_literal)(0.7),
        1.0 + 6.0 * 0.7,
        1e-15
    ));
    let (a, b) = gradients_function!(vec_literal_pushed)(0.7, -0.4);
    assert_matches_differences(
        "vec_literal_pushed",
        &[a, b],
        |p| vec_literal_pushed(p[0], p[1]),
        &[0.7, -0.4],
    );
    let (_, dy) = jvp!(vec_literal_pushed)(0.7, -0.4, 1.0, 0.5);
    assert!(close(dy, a + 0.5 * b, 1e-12), "{dy} vs {}", a + 0.5 * b);

    let x = [0.3, 0.5];
    // by hand: v = (2x₀, e^x₁, 4), f = ⟨v, (1, 2, 3)⟩ + Σv: (2 + 2, 2e^x₁ + e^x₁)
    let hand = [4.0, 3.0 * x[1].exp()];
    for g in [
        gradients_function!(vec_literal_and_constant_vec)(&x),
        gradients_function!(constant_vec_beside_a_buffer)(&x),
    ] {
        assert!(
            close(g[0], hand[0], 1e-15) && close(g[1], hand[1], 1e-15),
            "{g:?}"
        );
    }
    let (_, pullback) = vjp!(constant_vec_beside_a_buffer)(&x);
    assert_eq!(
        pullback(1.0),
        gradients_function!(constant_vec_beside_a_buffer)(&x)
    );

    let (gx, gy) = gradients_function!(pushed_onto_a_copy)(&x, 2.0);
    // by hand: v = (x₀, x₁, 2x₀, y): (cos x₀ + 2 cos 2x₀, cos x₁), x₀ cos(x₀ y) + cos y
    assert!(close(gx[0], x[0].cos() + 2.0 * (2.0 * x[0]).cos(), 1e-15));
    assert!(close(gx[1], x[1].cos(), 1e-15));
    assert!(close(gy, x[0] * (2.0 * x[0]).cos() + 2.0_f64.cos(), 1e-15));
    assert_matches_differences(
        "pushed_onto_a_copy",
        &gx,
        |p| pushed_onto_a_copy(p, 2.0),
        &x,
    );
}

// ---------------------------------------------------------------------------------------
// Constant tables iterated, `to_owned` of a slice, `mem::swap` of locals
// ---------------------------------------------------------------------------------------

const COEFFS: [f64; 3] = [1.0, -2.0, 0.5];

/// `Σ cₖ xᵏ` with the coefficients of a `const` table, its items `&f64`.
#[differentiable]
fn table_polynomial(x: f64) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for c in COEFFS.iter() {
        s += c * p;
        p *= x;
    }
    s
}

/// The same table enumerated, its items dereferenced in a comparison and a product.
#[differentiable]
fn table_enumerated(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, c) in COEFFS.iter().enumerate() {
        if *c > 0.0 {
            s += *c * x[i].powi(i as i32 + 1);
        } else {
            s += c * x[i] * x[i];
        }
    }
    s
}

/// `to_owned` of a slice parameter.
#[differentiable]
fn owned_copy(x: &[f64]) -> f64 {
    let y = x.to_owned();
    y[0] * y[1].sin()
}

/// Two locals swapped with `std::mem::swap`, in a loop.
#[differentiable]
fn swapped(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..3 {
        b = a + b * 0.5;
        std::mem::swap(&mut a, &mut b);
    }
    a * b
}

#[test]
fn constant_tables_owned_copies_and_swaps() {
    // by hand: 1 − 2x + x²/2 → −2 + x
    assert!(close(
        gradients_function!(table_polynomial)(0.7),
        -2.0 + 0.7,
        1e-15
    ));
    let (_, dy) = jvp!(table_polynomial)(0.7, 2.0);
    assert!(close(dy, 2.0 * (-2.0 + 0.7), 1e-15));

    let x = [0.3, 0.5, 0.7];
    let g = gradients_function!(table_enumerated)(&x);
    // by hand: 1·x₀ → 1; −2·x₁² → −4x₁; 0.5·x₂³ → 1.5x₂²
    let hand = [1.0, -4.0 * x[1], 1.5 * x[2] * x[2]];
    for k in 0..3 {
        assert!(close(g[k], hand[k], 1e-15), "{g:?} vs {hand:?}");
    }
    let (_, dy) = jvp!(table_enumerated)(&x, &[1.0, 1.0, 1.0]);
    assert!(close(dy, hand.iter().sum(), 1e-14));

    let g = gradients_function!(owned_copy)(&x[..2]);
    assert!(close(g[0], x[1].sin(), 1e-15) && close(g[1], x[0] * x[1].cos(), 1e-15));

    let (a, b) = gradients_function!(swapped)(0.3, 0.5);
    assert_matches_differences("swapped", &[a, b], |p| swapped(p[0], p[1]), &[0.3, 0.5]);
    let (_, dy) = jvp!(swapped)(0.3, 0.5, 1.0, -1.0);
    assert!(close(dy, a - b, 1e-13));
}

// ---------------------------------------------------------------------------------------
// Slices of structs and of tuples, a call's result iterated
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

/// The length of a polyline, its points read by index.
#[differentiable]
fn path_length(pts: &[Point]) -> f64 {
    let mut s = 0.0;
    for i in 1..pts.len() {
        let dx = pts[i].x - pts[i - 1].x;
        let dy = pts[i].y - pts[i - 1].y;
        s += (dx * dx + dy * dy).sqrt();
    }
    s
}

/// The same by `windows(2)` in an iterator chain.
#[differentiable]
fn path_length_windows(pts: &[Point]) -> f64 {
    pts.windows(2)
        .map(|w| ((w[1].x - w[0].x).powi(2) + (w[1].y - w[0].y).powi(2)).sqrt())
        .sum()
}

/// `Σ aᵢ bᵢ` over a slice of pairs.
#[differentiable]
fn pairs(ps: &[(f64, f64)]) -> f64 {
    let mut s = 0.0;
    for &(a, b) in ps {
        s += a * b;
    }
    s
}

/// `M x` by rows, as a `Vec`.
#[differentiable]
fn mat_vec(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum())
        .collect()
}

/// `‖M x‖²`, the product iterated as it is returned.
#[differentiable]
fn mat_vec_norm(m: &[Vec<f64>], x: &[f64]) -> f64 {
    mat_vec(m, x).iter().map(|v| v * v).sum()
}

#[test]
fn slices_of_structs_and_pairs_and_a_call_iterated() {
    let pts = vec![
        Point { x: 0.0, y: 0.0 },
        Point { x: 1.0, y: 0.5 },
        Point { x: 1.5, y: 2.0 },
    ];
    let flat = [0.0, 0.0, 1.0, 0.5, 1.5, 2.0];
    let points = |q: &[f64]| {
        q.chunks(2)
            .map(|c| Point { x: c[0], y: c[1] })
            .collect::<Vec<_>>()
    };
    for (name, g) in [
        ("path_length", gradients_function!(path_length)(&pts)),
        (
            "path_length_windows",
            gradients_function!(path_length_windows)(&pts),
        ),
    ] {
        let g: Vec<f64> = g.iter().flat_map(|t| [t.x, t.y]).collect();
        assert_matches_differences(name, &g, |q| path_length(&points(q)), &flat);
        // by hand: the first point moves along the unit vector away from the second
        let (dx, dy) = (1.0, 0.5);
        let len = f64::hypot(dx, dy);
        assert!(
            close(g[0], -dx / len, 1e-15) && close(g[1], -dy / len, 1e-15),
            "{name}"
        );
    }

    // forward mode: the points' tangents are `PointTangent`s
    let dir = vec![
        PointTangent { x: 1.0, y: 0.0 },
        PointTangent { x: 0.0, y: 1.0 },
        PointTangent { x: 0.5, y: -0.5 },
    ];
    let g = gradients_function!(path_length)(&pts);
    let along: f64 = g.iter().zip(&dir).map(|(a, b)| a.x * b.x + a.y * b.y).sum();
    for (name, (y, dy)) in [
        ("path_length", jvp!(path_length)(&pts, &dir)),
        ("path_length_windows", jvp!(path_length_windows)(&pts, &dir)),
    ] {
        assert_eq!(y, path_length(&pts), "{name}");
        assert!(close(dy, along, 1e-14), "{name}: {dy} vs {along}");
    }

    let ps = [(0.3, 0.5), (0.7, -0.2)];
    let g = gradients_function!(pairs)(&ps);
    assert_eq!(g, vec![(0.5, 0.3), (-0.2, 0.7)]);

    let m = vec![vec![0.3, -0.5, 0.2], vec![0.7, 0.2, -0.4]];
    let x = [0.3, -0.5, 0.7];
    let g = gradients_function!(mat_vec_norm, params = ["x"])(&m, &x);
    // by hand: 2 Mᵀ M x
    let y = mat_vec(&m, &x);
    for j in 0..3 {
        let hand = 2.0 * (m[0][j] * y[0] + m[1][j] * y[1]);
        assert!(close(g[j], hand, 1e-15), "{g:?}");
    }
    let (_, dy) = jvp!(mat_vec_norm, params = ["x"])(&m, &x, &[1.0, 0.0, -1.0]);
    assert!(close(dy, g[0] - g[2], 1e-14));
}

#[test]
#[should_panic(
    expected = "the tangent of `pts` (parameter of `path_length`) has shape [2], but `pts` has shape [3]"
)]
fn a_tangent_with_too_few_points_panics_naming_the_parameter() {
    let pts = vec![
        Point { x: 0.0, y: 0.0 },
        Point { x: 1.0, y: 0.5 },
        Point { x: 1.5, y: 2.0 },
    ];
    let dir = vec![
        PointTangent { x: 1.0, y: 0.0 },
        PointTangent { x: 0.0, y: 1.0 },
    ];
    let _ = jvp!(path_length)(&pts, &dir);
}

// ---------------------------------------------------------------------------------------
// `mapv` closures reading local values
// ---------------------------------------------------------------------------------------

/// Softmax cross-entropy with the maximum subtracted inside the closure.
#[differentiable]
fn softmax_cross_entropy(logits: &Array1<f64>, target: usize) -> f64 {
    let m = logits.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e = logits.mapv(|v| (v - m).exp());
    let z = e.sum();
    -(e[target] / z).ln()
}

/// Centred, scaled and shifted by a differentiable parameter `s`.
#[differentiable]
fn standardised(x: &Array1<f64>, s: f64) -> f64 {
    let mean = x.sum() / x.len() as f64;
    let y = x.mapv(|v| (v - mean) * s + 2.0 / s);
    y.mapv(|t| t * t).sum()
}

#[test]
fn mapv_closures_reading_locals() {
    let v = [0.3, -0.5, 0.7];
    let a = |q: &[f64]| Array1::from(q.to_vec());
    let (value, g) = value_and_gradients_function!(softmax_cross_entropy)(&a(&v), 1);
    assert_eq!(value, softmax_cross_entropy(&a(&v), 1));
    // by hand: softmax(x) − one_hot(target)
    let z: f64 = v.iter().map(|x| x.exp()).sum();
    for k in 0..3 {
        let hand = v[k].exp() / z - if k == 1 { 1.0 } else { 0.0 };
        assert!(close(g[k], hand, 1e-15), "{g} vs {hand}");
    }
    let (value, (gx, gs)) = value_and_gradients_function!(standardised)(&a(&v), 0.7);
    assert_eq!(value, standardised(&a(&v), 0.7));
    assert_matches_differences(
        "standardised",
        &gx.to_vec(),
        |q| standardised(&a(q), 0.7),
        &v,
    );
    assert_matches_differences(
        "standardised s",
        &[gs],
        |q| standardised(&a(&v), q[0]),
        &[0.7],
    );
    let (_, dy) = jvp!(standardised)(&a(&v), 0.7, &a(&[1.0, 0.0, -1.0]), 0.5);
    assert!(close(dy, gx[0] - gx[2] + 0.5 * gs, 1e-13));
}

// ---------------------------------------------------------------------------------------
// The ends of a sequence, `extend`, skipped enumerations, copies collected
// ---------------------------------------------------------------------------------------

/// `x₀·xₙ₋₁ + x₁`, the ends by `first()`/`last()`.
#[differentiable]
fn ends_product(x: &[f64]) -> f64 {
    let a = *x.first().unwrap();
    let b = x.last().copied().expect("not empty");
    a * b + x[1]
}

/// `x₀ · Σ x₁…` by `split_first`, plus `xₙ₋₁ · x₀` by `split_last`.
#[differentiable]
fn split_ends(x: &[f64]) -> f64 {
    let (head, tail) = x.split_first().unwrap();
    let (last, init) = x.split_last().unwrap();
    head * tail.iter().sum::<f64>() + last * init[0]
}

/// `Σ v²` of `x` then `y` gathered into one `Vec` by `extend_from_slice` and `extend`.
#[differentiable]
fn extended(x: &[f64], y: &[f64]) -> f64 {
    let mut v = Vec::new();
    v.extend_from_slice(x);
    v.extend(y.iter().copied());
    v.extend_from_slice(&x[1..]);
    v.iter().map(|t| t * t).sum::<f64>() + v[x.len()] * v[0]
}

/// `Σᵢ₌₁ xᵢ xᵢ₋₁`, the loop enumerated then skipped (the index still counts from 0).
#[differentiable]
fn neighbours_skipped(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().skip(1) {
        s += v * x[i - 1];
    }
    for (i, (a, b)) in x.iter().zip(x.iter().rev()).enumerate().take(2) {
        s += (i + 1) as f64 * a * b;
    }
    s
}

/// `x` reversed into a `Vec` by `.rev().copied().collect()`.
#[differentiable]
fn reversed_weights(x: &[f64]) -> f64 {
    let r: Vec<f64> = x.iter().rev().copied().collect();
    3.0 * r[0] + r[2] * r[1]
}

#[test]
fn ends_extends_skipped_enumerations_and_copies_collected() {
    let x = [0.3, -0.7, 1.1, 0.4];
    let y = [0.5, 2.0];
    // by hand: ∂/∂x₀ = x₃, ∂/∂x₁ = 1, ∂/∂x₃ = x₀
    let g = gradients_function!(ends_product)(&x);
    assert_eq!(g, vec![x[3], 1.0, 0.0, x[0]]);
    assert_matches_differences("ends", &g, ends_product, &x);
    let g = gradients_function!(split_ends)(&x);
    assert_matches_differences("split_ends", &g, split_ends, &x);
    let (gx, gy) = gradients_function!(extended)(&x, &y);
    assert_matches_differences("extended x", &gx, |x| extended(x, &y), &x);
    assert_matches_differences("extended y", &gy, |y| extended(&x, y), &y);
    // by hand for y: 2y (once in v) and v[4] = y₀ times v[0] = x₀
    assert!(close(gy[0], 2.0 * y[0] + x[0], 1e-12) && close(gy[1], 2.0 * y[1], 1e-12));
    let g = gradients_function!(neighbours_skipped)(&x);
    assert_matches_differences("neighbours", &g, neighbours_skipped, &x);
    let g = gradients_function!(reversed_weights)(&x);
    // r = (x₃, x₂, x₁, x₀): 3 x₃ + x₁ x₂
    assert_eq!(g, vec![0.0, x[2], x[1], 3.0]);
    // `vjp!` and `jvp!` reach them too
    let (value, pullback) = vjp!(split_ends)(&x);
    assert_eq!(value, split_ends(&x));
    assert_eq!(
        pullback(2.0),
        gradients_function!(split_ends)(&x)
            .iter()
            .map(|g| 2.0 * g)
            .collect::<Vec<_>>()
    );
    let t = [1.0, -0.5, 0.25, 2.0];
    let (value, tangent) = jvp!(extended)(&x, &y, &t, &[0.0, 0.0]);
    assert_eq!(value, extended(&x, &y));
    let along: f64 = gx.iter().zip(&t).map(|(a, b)| a * b).sum();
    assert!(close(tangent, along, 1e-12));
}

#[test]
#[should_panic]
fn the_last_of_an_empty_slice_panics_in_the_derivative_too() {
    let _ = gradients_function!(ends_product)(&[]);
}

// ---------------------------------------------------------------------------------------
// `impl Trait` parameters, captured variables in nested closures, methods handed constants
// ---------------------------------------------------------------------------------------

/// `Σ wᵢ xᵢ` with the weights from a function argument written `impl Fn`.
#[differentiable]
fn weighted_by(x: &[f64], weight: impl Fn(usize) -> f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += weight(i) * x[i] * x[i];
    }
    s
}

/// The same weights through `&impl Fn` and a `map` closure.
#[differentiable]
fn weighted_by_ref(x: &[f64], weight: &impl Fn(f64) -> f64) -> f64 {
    x.iter().map(|v| weight(2.0) * v.sin()).sum()
}

/// `Σ cₖ x^(n−k)` by Horner's rule over an iterator of constants written `impl Iterator`.
#[differentiable]
fn horner_of(x: f64, coefficients: impl Iterator<Item = f64>) -> f64 {
    let mut acc = 0.0;
    for c in coefficients {
        acc = acc * x + c;
    }
    acc
}

pub struct Polynomial {
    pub coefficients: Vec<f64>,
}

#[differentiable]
impl Polynomial {
    /// `Σ cₖ tᵏ` by Horner's rule.
    pub fn at(&self, t: f64) -> f64 {
        let mut acc = 0.0;
        for c in self.coefficients.iter().rev() {
            acc = acc * t + c;
        }
        acc
    }

    /// `c₀ ⟨(1, 2, 3), x⟩`, through a sibling method handed a constant local `Vec`.
    pub fn weighted(&self, x: &[f64]) -> f64 {
        let w = vec![1.0, 2.0, 3.0];
        self.scaled_dot(&w, x)
    }

    pub fn scaled_dot(&self, w: &[f64], x: &[f64]) -> f64 {
        w.iter()
            .zip(x)
            .map(|(a, b)| a * b * self.coefficients[0])
            .sum()
    }

    /// `Σ wₖ cₖ tᵏ`, the weights from an `impl Fn` parameter of a method.
    pub fn weighted_at(&self, t: f64, weight: impl Fn(usize) -> f64) -> f64 {
        let mut acc = 0.0;
        let mut power = 1.0;
        for k in 0..self.coefficients.len() {
            acc += weight(k) * self.coefficients[k] * power;
            power *= t;
        }
        acc
    }
}

/// A method of a constant parameter handed a constant local `Vec` beside `x`.
#[differentiable]
fn through_a_parameter_method(#[no_grad] p: &Polynomial, x: &[f64]) -> f64 {
    let w = vec![0.5, -1.0, 2.0];
    p.scaled_dot(&w, x) * p.at(x[0])
}

#[test]
fn impl_trait_parameters_and_methods_handed_constants() {
    let x = [0.3, -0.7, 1.1];
    let g = gradients_function!(weighted_by, params = ["x"])(&x, |i| i as f64 + 1.0);
    // by hand: 2 (i + 1) xᵢ
    assert_eq!(g, vec![2.0 * x[0], 4.0 * x[1], 6.0 * x[2]]);
    // 2x² − x + 3: 4x − 1
    let g = gradients_function!(horner_of, params = ["x"])(1.5, [2.0, -1.0, 3.0].into_iter());
    assert_eq!(g, 5.0);
    let g = gradients_function!(weighted_by_ref, params = ["x"])(&x, &|t: f64| t * t);
    assert_matches_differences("by_ref", &g, |x| weighted_by_ref(x, &|t: f64| t * t), &x);
    let p = Polynomial {
        coefficients: vec![1.5, 0.5, -0.3],
    };
    let g = gradients_function!(Polynomial::weighted, params = ["x"])(&p, &x);
    assert_eq!(g, vec![1.5, 3.0, 4.5]);
    // 1.5 + 2·0.5 t − 3·0.3 t²: 1 − 1.8 t
    let g =
        gradients_function!(Polynomial::weighted_at, params = ["t"])(&p, 0.5, |k| k as f64 + 1.0);
    assert!(close(g, 1.0 - 1.8 * 0.5, 1e-15));
    let g = gradients_function!(through_a_parameter_method, params = ["x"])(&p, &x);
    assert_matches_differences("method", &g, |x| through_a_parameter_method(&p, x), &x);
}

#[test]
fn captured_variables_inside_nested_closures() {
    let w = Variable::new(0.5);
    let data = vec![1.0, 2.0, 3.0];
    let f = differentiable_closure!(|| data.iter().map(|d| (w * d - 1.0).powi(2)).sum::<f64>());
    assert_eq!(
        f(),
        data.iter().map(|d| (0.5 * d - 1.0).powi(2)).sum::<f64>()
    );
    let grads = implicit_gradients(&f)();
    // by hand: Σ 2 (w d − 1) d
    let want: f64 = data.iter().map(|d| 2.0 * (0.5 * d - 1.0) * d).sum();
    assert!(close(grads.get(&w).unwrap(), want, 1e-12));
    let fd = autodiff::check::finite_difference(
        |q| data.iter().map(|d| (q[0] * d - 1.0).powi(2)).sum::<f64>(),
        &[0.5],
    );
    assert!(close(want, fd[0], 1e-6));
}

// ---------------------------------------------------------------------------------------
// An element of a `Vec` built by `push` incremented in place (`v[0] += a`): its adjoint was
// once dropped (the increment's read kept the element's adjoint, the grown `Vec`'s write
// took it)
// ---------------------------------------------------------------------------------------

/// `v = (a, 3a)`, then `v[0] += a`: `2a`.
#[allow(clippy::vec_init_then_push)] // the pushes are the form under test
#[differentiable]
fn pushed_then_incremented(a: f64) -> f64 {
    let mut v = Vec::new();
    v.push(a);
    v.push(a * 3.0);
    v[0] += a;
    v[0] * v[1]
}

/// A copy of `x` grown by one, each element then incremented by its neighbour times `a`.
#[allow(clippy::assign_op_pattern)] // `v[i] = v[i] + …` is the form under test
#[differentiable]
fn grown_copy_incremented(a: f64, x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.push(a * x[0]);
    for i in 0..v.len() - 1 {
        v[i] = v[i] + a * v[i + 1];
    }
    v.iter().map(|t| t * t).sum()
}

#[test]
fn increments_of_a_vec_built_by_push() {
    // (2a)(3a) = 6a²: 12a
    let g = gradients_function!(pushed_then_incremented)(0.5);
    assert_eq!(g, 6.0);
    let x = [0.3, -0.7, 1.1];
    let (ga, gx) = gradients_function!(grown_copy_incremented)(0.8, &x);
    let mut p = vec![0.8];
    p.extend_from_slice(&x);
    let fd = differences(|p| grown_copy_incremented(p[0], &p[1..]), &p);
    let mut g = vec![ga];
    g.extend_from_slice(&gx);
    assert_matches_differences(
        "grown_copy_incremented",
        &g,
        |p| grown_copy_incremented(p[0], &p[1..]),
        &p,
    );
    assert_eq!(fd.len(), 4);
}

// ---------------------------------------------------------------------------------------
// The largest and smallest element: `max_by`/`min_by` with `partial_cmp`/`total_cmp`, and a
// fold comparing copied items
// ---------------------------------------------------------------------------------------

/// log Σ exp(xᵢ − m) + m, the maximum by `max_by(|a, b| a.partial_cmp(b).unwrap())`.
#[differentiable]
fn log_sum_exp_by_max_by(x: &[f64]) -> f64 {
    let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    x.iter().map(|v| (v - m).exp()).sum::<f64>().ln() + m
}

/// `2 max + min + max`, by a fold of copies, `min_by(total_cmp)` and `max_by` over copies.
#[differentiable]
fn extremes(x: &[f64]) -> f64 {
    let m = x
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, |a, v| if v > a { v } else { a });
    let n = *x.iter().min_by(|a, b| a.total_cmp(b)).unwrap();
    let k = x
        .iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).expect("no NaN"))
        .unwrap();
    m * 2.0 + n + k
}

#[test]
fn largest_and_smallest_elements() {
    let x = [0.3, -0.7, 1.1];
    // softmax, by hand
    let g = gradients_function!(log_sum_exp_by_max_by)(&x);
    let s: f64 = x.iter().map(|v| v.exp()).sum();
    for (gi, v) in g.iter().zip(&x) {
        assert!(close(*gi, v.exp() / s, 1e-14));
    }
    // the maximum x₂ three times, the minimum x₁ once
    let g = gradients_function!(extremes)(&x);
    assert_eq!(g, vec![0.0, 1.0, 3.0]);
    assert_matches_differences("extremes", &g, extremes, &x);
    let (value, tangent) = jvp!(extremes)(&x, &[0.5, 1.0, 2.0]);
    assert_eq!(value, extremes(&x));
    assert!(close(tangent, 1.0 + 6.0, 1e-15));
}

// ---------------------------------------------------------------------------------------
// Folds into a tuple, checked reads (`get`), reversal in place
// ---------------------------------------------------------------------------------------

/// The variance by one pass: a fold into `(Σ v, Σ v²)`.
#[differentiable]
fn variance_by_fold(x: &[f64]) -> f64 {
    let (s, s2) = x.iter().fold((0.0, 0.0), |(a, b), &v| (a + v, b + v * v));
    let n = x.len() as f64;
    s2 / n - (s / n) * (s / n)
}

/// A fold into three members, one an integer count, with a branch in the closure.
#[differentiable]
fn range_by_fold(x: &[f64]) -> f64 {
    let (lo, hi, n) = x
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY, 0), |(lo, hi, n), &v| {
            if v < lo {
                (v, hi.max(v), n + 1)
            } else {
                (lo, hi.max(v), n + 1)
            }
        });
    (hi - lo) * n as f64
}

/// A fold over enumerated items, its accumulator read by field.
#[differentiable]
fn weighted_ratio_by_fold(x: &[f64], w: f64) -> f64 {
    let (num, den) = x.iter().enumerate().fold((0.0, 0.0), |acc, (i, v)| {
        (acc.0 + w * (i as f64) * v, acc.1 + v * v)
    });
    num / den
}

#[test]
fn folds_into_tuples() {
    let x = [0.7, -0.3, 1.3, 0.4];
    let n = x.len() as f64;
    // d/dx_k (Σv²/n − (Σv/n)²) = 2 x_k / n − 2 Σv / n²
    let s: f64 = x.iter().sum();
    let g = gradients_function!(variance_by_fold)(&x);
    for k in 0..x.len() {
        assert!(close(g[k], 2.0 * x[k] / n - 2.0 * s / (n * n), 1e-12));
    }
    assert_matches_differences("variance_by_fold", &g, variance_by_fold, &x);
    // (max − min) · n: +n at the largest element, −n at the smallest
    let g = gradients_function!(range_by_fold)(&x);
    assert_eq!(g, vec![0.0, -n, n, 0.0]);
    assert_matches_differences("range_by_fold", &g, range_by_fold, &x);
    let (gx, gw) = gradients_function!(weighted_ratio_by_fold)(&x, 0.8);
    assert_matches_differences(
        "weighted_ratio_by_fold",
        &gx,
        |v| weighted_ratio_by_fold(v, 0.8),
        &x,
    );
    assert_matches_differences(
        "weighted_ratio_by_fold w",
        &[gw],
        |v| weighted_ratio_by_fold(&x, v[0]),
        &[0.8],
    );
    // forward mode and the implicit mode
    let t = [0.3, -0.2, 0.5, 1.0];
    let g = gradients_function!(variance_by_fold)(&x);
    let (y, dy) = jvp!(variance_by_fold)(&x, &t);
    assert_eq!(y, variance_by_fold(&x));
    assert!(close(dy, g.iter().zip(&t).map(|(a, b)| a * b).sum(), 1e-12));
    let v = Variable::new(x.to_vec());
    let f = differentiable_closure!(|k: f64| variance_by_fold(&v) * k);
    let gv: Vec<f64> = implicit_gradients(&f)(2.0).get(&v).expect("v was read");
    for (a, b) in gv.iter().zip(&g) {
        assert!(close(*a, 2.0 * b, 1e-12));
    }
}

/// Neighbours read by `get`, with a default past the end: `*x.get(i).unwrap_or(&d)`,
/// `if let Some(&p) = x.get(j)`, `if let Some(v) = x.get(j) { … } else { … }` and
/// `x.get(i).copied().unwrap_or(d)`.
#[differentiable]
fn neighbours_by_get(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let next = *x.get(i + 1).unwrap_or(&0.0);
        let prev = if let Some(&p) = x.get(i + k) { p } else { 1.0 };
        if let Some(v) = x.get(i + 2) {
            s += v * next;
        } else {
            s += prev * x[i];
        }
        let w = x.get(i).copied().unwrap_or(2.0);
        s += w * w * prev;
    }
    s
}

#[test]
fn checked_reads_by_get() {
    let x = [0.7, -0.3, 1.3, 0.4, 0.9];
    let g = gradients_function!(neighbours_by_get, params = ["x"])(&x, 3);
    assert_matches_differences("neighbours_by_get", &g, |v| neighbours_by_get(v, 3), &x);
    let t = [0.3, -0.2, 0.5, 1.0, 0.1];
    let (y, dy) = jvp!(neighbours_by_get, params = ["x"])(&x, 3, &t);
    assert_eq!(y, neighbours_by_get(&x, 3));
    assert!(close(dy, g.iter().zip(&t).map(|(a, b)| a * b).sum(), 1e-12));
    // an index past the end is the default, as in the function (k beyond every element)
    let g = gradients_function!(neighbours_by_get, params = ["x"])(&x, 10);
    assert_matches_differences(
        "neighbours_by_get far",
        &g,
        |v| neighbours_by_get(v, 10),
        &x,
    );
}

/// `r.reverse()` of a local copy, whole and of a range.
#[differentiable]
fn reversed_in_place(x: &[f64]) -> f64 {
    let mut r = x.to_vec();
    r.reverse();
    let mut s = 0.0;
    for (i, v) in r.iter().enumerate() {
        s += (i as f64 + 1.0) * v;
    }
    r[1..4].reverse();
    s + r[1] * r[1]
}

#[test]
fn reversal_in_place() {
    let x = [0.7, -0.3, 1.3, 0.4, 0.9];
    // after the first reversal r[i] = x[4 − i]: Σ (i + 1) x[4 − i]; after the second,
    // r[1] is the old r[3] = x[1]
    let g = gradients_function!(reversed_in_place)(&x);
    assert_eq!(g, vec![5.0, 4.0 + 2.0 * x[1], 3.0, 2.0, 1.0]);
    assert_matches_differences("reversed_in_place", &g, reversed_in_place, &x);
    let r = std::panic::catch_unwind(|| {
        #[differentiable]
        fn out_of_range(x: &[f64]) -> f64 {
            let mut r = x.to_vec();
            r[1..9].reverse();
            r[0]
        }
        gradients_function!(out_of_range)(&[1.0, 2.0])
    });
    assert!(r.is_err());
}

// ---------------------------------------------------------------------------------------
// Sorting a local copy, functions declared inside the body
// ---------------------------------------------------------------------------------------

/// The median by sorting a copy (`partial_cmp`), and the mean of the two largest by a
/// descending unstable sort of a range (`total_cmp`).
#[differentiable]
fn median_and_top(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = v[v.len() / 2];
    let mut w = x.to_vec();
    w[1..].sort_unstable_by(|a, b| b.total_cmp(a));
    median + 0.5 * (w[1] + w[2]) * x[0]
}

#[test]
fn sorted_copies() {
    let x = [0.7, -0.3, 1.3, 0.4, 0.9];
    let g = gradients_function!(median_and_top)(&x);
    // median: 0.7 = x[0]; the two largest of x[1..]: 1.3 (x[2]) and 0.9 (x[4])
    let hand = [1.0 + 0.5 * (1.3 + 0.9), 0.0, 0.5 * 0.7, 0.0, 0.5 * 0.7];
    for (a, b) in g.iter().zip(hand) {
        assert!(close(*a, b, 1e-15), "{g:?}");
    }
    assert_matches_differences("median_and_top", &g, median_and_top, &x);
    let t = [0.3, -0.2, 0.5, 1.0, 0.1];
    let (y, dy) = jvp!(median_and_top)(&x, &t);
    assert_eq!(y, median_and_top(&x));
    assert!(close(dy, g.iter().zip(&t).map(|(a, b)| a * b).sum(), 1e-12));
}

/// Helpers declared inside the body: one of floats (differentiated through), one of
/// integers.
#[differentiable]
fn with_local_helpers(x: &[f64]) -> f64 {
    fn weighted(v: &[f64], k: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..v.len() {
            s += (i + k) as f64 * v[i] * v[i];
        }
        s
    }
    fn middle(n: usize) -> usize {
        n / 2
    }
    fn sq(t: f64) -> f64 {
        t * t
    }
    weighted(x, 1) + sq(x[middle(x.len())])
}

#[test]
fn functions_declared_inside_the_body() {
    let x = [0.7, -0.3, 1.3, 0.4];
    let g = gradients_function!(with_local_helpers)(&x);
    let mut hand: Vec<f64> = (0..4).map(|i| 2.0 * (i + 1) as f64 * x[i]).collect();
    hand[2] += 2.0 * x[2];
    for (a, b) in g.iter().zip(&hand) {
        assert!(close(*a, *b, 1e-15), "{g:?}");
    }
    assert_matches_differences("with_local_helpers", &g, with_local_helpers, &x);
    let t = [0.3, -0.2, 0.5, 1.0];
    let (_, dy) = jvp!(with_local_helpers)(&x, &t);
    assert!(close(
        dy,
        hand.iter().zip(&t).map(|(a, b)| a * b).sum(),
        1e-12
    ));
}

// ---------------------------------------------------------------------------------------
// A model's methods: its fields zipped with differentiable data
// ---------------------------------------------------------------------------------------

/// A linear model of derived parameters, its receiver a constant (`#[differentiable]`).
#[derive(Differentiable, Clone)]
pub struct Linear {
    pub w: Vec<f64>,
    pub b: f64,
}

#[differentiable]
impl Linear {
    /// `⟨w, x⟩ + b`: the receiver's field zipped with a differentiable input.
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
    }
}

/// The same model differentiable with respect to its receiver.
#[derive(Differentiable, Clone)]
pub struct Trained {
    pub w: Vec<f64>,
    pub b: f64,
}

#[differentiable(self)]
impl Trained {
    pub fn predict(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
    }

    pub fn loss(&self, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let r = self.predict(x) - y;
            total += r * r;
        }
        total / ys.len() as f64
    }

    pub fn regularized(&self, xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> f64 {
        self.loss(xs, ys) + lambda * self.w.iter().map(|w| w * w).sum::<f64>()
    }
}

#[test]
fn a_models_fields_zipped_with_data() {
    let model = Linear {
        w: vec![0.3, -0.2],
        b: 0.1,
    };
    let x = [1.5, 0.7];
    // with respect to the input: the weights
    let g = gradients_function!(Linear::predict)(&model, &x);
    assert_eq!(g, model.w);

    let trained = Trained {
        w: vec![0.3, -0.2],
        b: 0.1,
    };
    let xs = vec![vec![1.0, 2.0], vec![0.5, -1.0], vec![-0.3, 0.8]];
    let ys = [0.5, -0.2, 0.3];
    let g = gradients_function!(Trained::regularized, params = ["self"])(&trained, &xs, &ys, 0.1);
    // by hand: (2/n) Σ r x + 2 λ w, (2/n) Σ r
    let n = ys.len() as f64;
    let (mut gw, mut gb) = (vec![0.0; 2], 0.0);
    for (x, y) in xs.iter().zip(&ys) {
        let r = trained.w[0] * x[0] + trained.w[1] * x[1] + trained.b - y;
        for k in 0..2 {
            gw[k] += 2.0 * r * x[k] / n;
        }
        gb += 2.0 * r / n;
    }
    for k in 0..2 {
        gw[k] += 2.0 * 0.1 * trained.w[k];
        assert!(close(g.w[k], gw[k], 1e-14), "{:?} vs {gw:?}", g.w);
    }
    assert!(close(g.b, gb, 1e-14));
    let flat = |p: &[f64]| {
        Trained {
            w: p[..2].to_vec(),
            b: p[2],
        }
        .regularized(&xs, &ys, 0.1)
    };
    assert_matches_differences(
        "regularized",
        &[g.w.clone(), vec![g.b]].concat(),
        flat,
        &[0.3, -0.2, 0.1],
    );
}

/// `reduce` over copied items, unwrapped three ways.
#[differentiable]
fn reductions_by_reduce(x: &[f64]) -> f64 {
    let smallest = x.iter().copied().reduce(f64::min).unwrap();
    let folded = x
        .iter()
        .cloned()
        .reduce(|p, q| p + q * q)
        .expect("a non-empty slice");
    let empty: Vec<f64> = Vec::new();
    let default = empty.iter().copied().reduce(f64::max).unwrap_or(0.5);
    smallest + folded + default * x[0]
}

#[test]
fn reductions_by_reduce_unwrapped() {
    let x = [0.7, -0.3, 1.3, 0.4];
    let g = gradients_function!(reductions_by_reduce)(&x);
    // min: x[1]; x[0] + Σ_{k≥1} x[k]²; 0.5 x[0]
    let hand = [1.5, 1.0 + 2.0 * x[1], 2.0 * x[2], 2.0 * x[3]];
    for (a, b) in g.iter().zip(hand) {
        assert!(close(*a, b, 1e-15), "{g:?}");
    }
    assert_matches_differences("reductions_by_reduce", &g, reductions_by_reduce, &x);
    let empty = std::panic::catch_unwind(|| gradients_function!(reductions_by_reduce)(&[]));
    assert!(empty.is_err());
}

// ---------------------------------------------------------------------------------------
// Simulation and learning code: a `Vec` copied from a slice of derived structs whose
// elements are replaced (`ps[i] = P { x: ps[i].x + ps[i].v * dt, v: ps[i].v }`), RK4 with a
// local closure, a matrix-vector product collected from nested chains, ndarray products
// and views, buckets of a local array, the float methods, logistic regression, generic
// folds, a local struct's method, nested `enumerate`s, an early return from a loop.
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Differentiable)]
struct P {
    x: f64,
    v: f64,
}

#[differentiable]
fn q_particles(ps: &[P], dt: f64) -> f64 {
    let mut ps = ps.to_vec();
    for i in 0..ps.len() {
        ps[i] = P {
            x: ps[i].x + ps[i].v * dt,
            v: ps[i].v,
        };
    }
    ps.iter().map(|p| p.x * p.x).sum()
}

#[differentiable]
fn q_rk4(y0: f64, k: f64) -> f64 {
    let f = |y: f64| -k * y * y;
    let h = 0.1;
    let mut y = y0;
    for _ in 0..10 {
        let k1 = f(y);
        let k2 = f(y + 0.5 * h * k1);
        let k3 = f(y + 0.5 * h * k2);
        let k4 = f(y + h * k3);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    y
}

#[differentiable]
fn q_matvec(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let y: Vec<f64> = m
        .iter()
        .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    y.iter().map(|v| v.tanh()).sum()
}

#[differentiable]
fn q_nd(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    (a * b).sum()
        + a.dot(b)
        + a.mapv(|v| v.powi(2)).sum()
        + a.iter().zip(b.iter()).map(|(u, w)| u * w).sum::<f64>()
}

#[differentiable]
fn q_buckets(x: &[f64]) -> f64 {
    let mut acc = [0.0; 3];
    for i in 0..x.len() {
        acc[i % 3] += x[i];
    }
    acc.iter().map(|a| a * a).sum()
}

#[differentiable]
fn q_math(a: f64, b: f64) -> f64 {
    a.hypot(b)
        + a.atan2(b)
        + a.clamp(-0.5, 0.5)
        + a.mul_add(b, 1.0)
        + b.recip()
        + a.cbrt()
        + b.exp_m1()
        + a.asinh()
        + b.log10()
        + a.to_radians()
}

#[differentiable]
fn q_logreg(xs: &[Vec<f64>], ys: &[f64], w: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z: f64 = x.iter().zip(w).map(|(a, b)| a * b).sum();
        let p = 1.0 / (1.0 + (-z).exp());
        loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    loss / ys.len() as f64
}

#[differentiable]
fn q_generic<T: Float>(x: &[T]) -> T {
    let half = T::from(0.5).unwrap();
    x.iter()
        .fold(T::one(), |acc, &v| acc * (T::one() + v * half))
}

#[derive(Clone, Debug, Differentiable)]
struct Pt {
    x: f64,
    y: f64,
}

#[differentiable]
impl Pt {
    #[differentiable(self)]
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

#[differentiable]
fn q_local_struct(a: f64, b: f64) -> f64 {
    let p = Pt { x: a, y: b };
    p.norm() * a
}

#[differentiable]
fn q_nested_enum(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            s += v * (i + j) as f64;
        }
    }
    s
}

#[differentiable]
fn q_early(x: &[f64]) -> f64 {
    for v in x {
        if *v > 1.0 {
            return v * v;
        }
    }
    x[0]
}

#[differentiable]
fn q_range_map(x: &[f64]) -> f64 {
    let n = x.len();
    let total: f64 = (0..n).map(|i| x[i].powi(2)).sum();
    total.sqrt()
}

#[differentiable]
fn q_mse(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter())
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        / x.len() as f64
}

#[differentiable]
fn q_matrix(a: &autodiff::ndarray::Array2<f64>, x: &Array1<f64>) -> f64 {
    let y = a.dot(x);
    let z = a.t().dot(&y);
    z.iter().map(|v| v.abs()).sum::<f64>() + a.column(0).sum() + a.row(1).dot(x)
}

fn fd2(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    autodiff::check::finite_difference(f, x)
}

fn close_to2(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (u, v)) in a.iter().zip(b).enumerate() {
        assert!(
            (u - v).abs() < 1e-6 * (1.0 + v.abs()),
            "{what}[{i}]: {u} vs {v}"
        );
    }
}

#[test]
fn simulation_and_learning_code() {
    let ps = vec![P { x: 0.5, v: -1.0 }, P { x: -0.3, v: 2.0 }];
    let (gp, gdt) = gradients_function!(q_particles)(&ps, 0.1);
    let flat = |q: &[f64]| vec![P { x: q[0], v: q[1] }, P { x: q[2], v: q[3] }];
    let g: Vec<f64> = gp.iter().flat_map(|p| [p.x, p.v]).collect();
    close_to2(
        &g,
        &fd2(|q| q_particles(&flat(q), 0.1), &[0.5, -1.0, -0.3, 2.0]),
        "particles",
    );
    close_to2(
        &[gdt],
        &fd2(|q| q_particles(&ps, q[0]), &[0.1]),
        "particles dt",
    );

    let g = gradients_function!(q_rk4)(0.8, 1.3);
    close_to2(&[g.0, g.1], &fd2(|q| q_rk4(q[0], q[1]), &[0.8, 1.3]), "rk4");

    let m = vec![vec![0.1, 0.2, -0.3], vec![0.5, -0.1, 0.4]];
    let x = [0.7, -1.1, 0.4];
    let (gm, gx) = gradients_function!(q_matvec)(&m, &x);
    close_to2(&gx, &fd2(|q| q_matvec(&m, q), &x), "matvec x");
    let gmf: Vec<f64> = gm.concat();
    close_to2(
        &gmf,
        &fd2(
            |q| q_matvec(&[q[..3].to_vec(), q[3..].to_vec()], &x),
            &m.concat(),
        ),
        "matvec m",
    );

    let a = Array1::from(vec![0.3, -0.8, 1.2]);
    let b = Array1::from(vec![1.1, 0.4, -0.6]);
    let (ga, gb) = gradients_function!(q_nd)(&a, &b);
    close_to2(
        ga.as_slice().unwrap(),
        &fd2(
            |q| q_nd(&Array1::from(q.to_vec()), &b),
            a.as_slice().unwrap(),
        ),
        "nd a",
    );
    close_to2(
        gb.as_slice().unwrap(),
        &fd2(
            |q| q_nd(&a, &Array1::from(q.to_vec())),
            b.as_slice().unwrap(),
        ),
        "nd b",
    );

    let xs = [0.3, -1.2, 0.8, 2.1, -0.4];
    close_to2(
        &gradients_function!(q_buckets)(&xs),
        &fd2(q_buckets, &xs),
        "buckets",
    );
    let g = gradients_function!(q_math)(0.3, 1.7);
    close_to2(
        &[g.0, g.1],
        &fd2(|q| q_math(q[0], q[1]), &[0.3, 1.7]),
        "math",
    );

    let data = vec![vec![1.0, 0.5], vec![-0.3, 2.0], vec![0.8, -1.0]];
    let ys = [1.0, 0.0, 1.0];
    let w = [0.4, -0.2];
    let (_, _, gw) = gradients_function!(q_logreg)(&data, &ys, &w);
    close_to2(&gw, &fd2(|q| q_logreg(&data, &ys, q), &w), "logreg");

    close_to2(
        &gradients_function!(q_generic::<f64>)(&xs),
        &fd2(q_generic, &xs),
        "generic",
    );
    let g = gradients_function!(q_local_struct)(0.6, -0.9);
    close_to2(
        &[g.0, g.1],
        &fd2(|q| q_local_struct(q[0], q[1]), &[0.6, -0.9]),
        "local struct",
    );
    let gm = gradients_function!(q_nested_enum)(&m);
    close_to2(
        &gm.concat(),
        &fd2(
            |q| q_nested_enum(&[q[..3].to_vec(), q[3..].to_vec()]),
            &m.concat(),
        ),
        "nested enum",
    );
    close_to2(
        &gradients_function!(q_early)(&xs),
        &fd2(q_early, &xs),
        "early",
    );
    close_to2(
        &gradients_function!(q_range_map)(&xs),
        &fd2(q_range_map, &xs),
        "range map",
    );
    let ys5 = [0.1, 0.2, 0.3, 0.4, 0.5];
    let (g1, g2) = gradients_function!(q_mse)(&xs, &ys5);
    close_to2(&g1, &fd2(|q| q_mse(q, &ys5), &xs), "mse");
    close_to2(&g2, &fd2(|q| q_mse(&xs, q), &ys5), "mse y");
    let am =
        autodiff::ndarray::Array2::from_shape_vec((2, 3), vec![0.1, 0.2, -0.3, 0.5, -0.1, 0.4])
            .unwrap();
    let v = Array1::from(vec![0.7, -1.1, 0.4]);
    let (gam, gv) = gradients_function!(q_matrix)(&am, &v);
    close_to2(
        gv.as_slice().unwrap(),
        &fd2(
            |q| q_matrix(&am, &Array1::from(q.to_vec())),
            v.as_slice().unwrap(),
        ),
        "matrix x",
    );
    close_to2(
        gam.as_slice().unwrap(),
        &fd2(
            |q| {
                q_matrix(
                    &autodiff::ndarray::Array2::from_shape_vec((2, 3), q.to_vec()).unwrap(),
                    &v,
                )
            },
            am.as_slice().unwrap(),
        ),
        "matrix a",
    );
}

// ---------------------------------------------------------------------------------------
// Fields written in place: `ps[i].x += …` of a local `Vec` of structs, through `iter_mut()`
// and `&mut ps`, and `p.x = …` of a `let mut` struct; elements read before a later write
// of the same element (kept as copies, not read again after the write).
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Differentiable)]
struct Body {
    x: f64,
    v: f64,
}

#[differentiable]
fn g_replace(ps: &[Body], dt: f64) -> f64 {
    let mut ps = ps.to_vec();
    for _ in 0..3 {
        for i in 0..ps.len() {
            ps[i] = Body {
                x: ps[i].x + ps[i].v * dt,
                v: ps[i].v - ps[i].x * dt,
            };
        }
    }
    ps.iter().map(|p| p.x * p.x + p.v).sum()
}

#[test]
fn elements_replaced_after_reads() {
    let ps = vec![Body { x: 0.5, v: -1.0 }, Body { x: -0.3, v: 2.0 }];
    let (gp, gdt) = gradients_function!(g_replace)(&ps, 0.1);
    let flat = |q: &[f64]| vec![Body { x: q[0], v: q[1] }, Body { x: q[2], v: q[3] }];
    let g: Vec<f64> = gp.iter().flat_map(|p| [p.x, p.v]).collect();
    let fd =
        autodiff::check::finite_difference(|q| g_replace(&flat(q), 0.1), &[0.5, -1.0, -0.3, 2.0]);
    autodiff::check::assert_gradient_close(&g, &fd, 1e-6);
    let fd = autodiff::check::finite_difference(|q| g_replace(&ps, q[0]), &[0.1]);
    assert!((gdt - fd[0]).abs() < 1e-6, "{gdt} {}", fd[0]);
}

#[differentiable]
fn f_elements(ps: &[Body], dt: f64) -> f64 {
    let mut ps = ps.to_vec();
    for _ in 0..3 {
        for i in 0..ps.len() {
            ps[i].v -= ps[i].x * dt;
            ps[i].x += ps[i].v * dt;
        }
    }
    ps.iter().map(|p| p.x * p.x + p.v).sum()
}

#[differentiable]
fn f_local(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut p = Body { x: x0, v: v0 };
    for _ in 0..4 {
        p.v = p.v * 0.99 - p.x * dt;
        p.x += p.v * dt;
    }
    p.x * p.v
}

#[differentiable]
fn f_straight(ps: &[Body], dt: f64) -> f64 {
    let mut ps = ps.to_vec();
    ps[0].v -= ps[0].x * dt;
    ps[0].x += ps[0].v * dt;
    ps[1].x = ps[0].x * ps[1].v;
    let mut q = Body { x: dt, v: 1.0 };
    q.x *= ps[1].x;
    ps[0].x * ps[1].x + q.x
}

#[test]
fn fields_written_in_place() {
    let ps = vec![Body { x: 0.5, v: -1.0 }, Body { x: -0.3, v: 2.0 }];
    let flat = |q: &[f64]| vec![Body { x: q[0], v: q[1] }, Body { x: q[2], v: q[3] }];
    let generated = [
        gradients_function!(f_elements)(&ps, 0.1),
        gradients_function!(f_straight)(&ps, 0.1),
    ];
    let plain: [fn(&[Body], f64) -> f64; 2] = [f_elements, f_straight];
    for ((gp, gdt), f) in generated.into_iter().zip(plain) {
        let g: Vec<f64> = gp.iter().flat_map(|p| [p.x, p.v]).collect();
        let fd = autodiff::check::finite_difference(|q| f(&flat(q), 0.1), &[0.5, -1.0, -0.3, 2.0]);
        autodiff::check::assert_gradient_close(&g, &fd, 1e-6);
        let fd = autodiff::check::finite_difference(|q| f(&ps, q[0]), &[0.1]);
        assert!((gdt - fd[0]).abs() < 1e-6, "{gdt} {}", fd[0]);
    }
    let g = gradients_function!(f_local)(0.7, -0.2, 0.1);
    let fd = autodiff::check::finite_difference(|q| f_local(q[0], q[1], q[2]), &[0.7, -0.2, 0.1]);
    autodiff::check::assert_gradient_close(&[g.0, g.1, g.2], &fd, 1e-6);
    let (_, dv) = jvp!(f_local)(0.7, -0.2, 0.1, 1.0, 0.0, 0.0);
    assert!((dv - g.0).abs() < 1e-12);
}

#[differentiable]
fn f_iter_mut(ps: &[Body], dt: f64) -> f64 {
    let mut ps = ps.to_vec();
    for _ in 0..3 {
        for p in ps.iter_mut() {
            p.v -= p.x * dt;
            p.x += p.v * dt;
        }
        for p in &mut ps {
            p.x *= 0.9;
        }
    }
    ps.iter().map(|p| p.x * p.x + p.v).sum()
}

#[test]
fn fields_written_through_iter_mut() {
    let ps = vec![Body { x: 0.5, v: -1.0 }, Body { x: -0.3, v: 2.0 }];
    let flat = |q: &[f64]| vec![Body { x: q[0], v: q[1] }, Body { x: q[2], v: q[3] }];
    let (gp, gdt) = gradients_function!(f_iter_mut)(&ps, 0.1);
    let g: Vec<f64> = gp.iter().flat_map(|p| [p.x, p.v]).collect();
    let fd =
        autodiff::check::finite_difference(|q| f_iter_mut(&flat(q), 0.1), &[0.5, -1.0, -0.3, 2.0]);
    autodiff::check::assert_gradient_close(&g, &fd, 1e-6);
    let fd = autodiff::check::finite_difference(|q| f_iter_mut(&ps, q[0]), &[0.1]);
    assert!((gdt - fd[0]).abs() < 1e-6, "{gdt} {}", fd[0]);
}

#[differentiable]
fn h_collected(xs: &[f64], dt: f64) -> f64 {
    let mut ps: Vec<Body> = xs.iter().map(|&x| Body { x, v: 0.5 * x }).collect();
    for _ in 0..3 {
        for i in 0..ps.len() {
            ps[i] = Body {
                x: ps[i].x + ps[i].v * dt,
                v: ps[i].v - ps[i].x * dt,
            };
        }
    }
    ps.iter().map(|p| p.x * p.x + p.v).sum()
}

#[test]
fn a_collected_vec_of_structs_replaced_after_reads() {
    let xs = [0.5, -0.3];
    let (gx, gdt) = gradients_function!(h_collected)(&xs, 0.1);
    let fd = autodiff::check::finite_difference(|q| h_collected(q, 0.1), &xs);
    let fdt = autodiff::check::finite_difference(|q| h_collected(&xs, q[0]), &[0.1]);
    autodiff::check::assert_gradient_close(&gx, &fd, 1e-6);
    // (the elements were read again after the later writes: ∂/∂dt came out −0.513)
    assert!((gdt - fdt[0]).abs() < 1e-6, "{gdt} {}", fdt[0]);
}

/// A generic pair, for a `Vec` of them collected and bound without `mut`.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Pr<T: autodiff::Real> {
    pub a: T,
    pub b: T,
}

#[differentiable]
fn collected_pairs(xs: &[f64], a: f64) -> f64 {
    let ps7: Vec<Pr<f64>> = xs
        .iter()
        .map(|&e| Pr {
            a: e * a,
            b: e * 0.3,
        })
        .collect();
    ps7[0].a + ps7[ps7.len() - 1].b * a + ps7.iter().map(|p| p.a * p.b).sum::<f64>()
}
#[test]
fn an_immutable_collected_vec_of_structs() {
    let xs = [0.5, -0.3, 1.2];
    let (gx, ga) = gradients_function!(collected_pairs)(&xs, 0.7);
    let fd = autodiff::check::finite_difference(|q| collected_pairs(q, 0.7), &xs);
    autodiff::check::assert_gradient_close(&gx, &fd, 1e-6);
    let fa = autodiff::check::finite_difference(|q| collected_pairs(&xs, q[0]), &[0.7]);
    assert!((ga - fa[0]).abs() < 1e-6);
}

// --- Macros whose value is not a float, with differentiable arguments ---------------------

/// A closeness test as numeric crates write it (statrs re-exports approx's `relative_eq!`).
macro_rules! relative_eq {
    ($a:expr, $b:expr) => {
        relative_eq!($a, $b, max_relative = 1e-12)
    };
    ($a:expr, $b:expr, max_relative = $r:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        (a - b).abs() <= $r * a.abs().max(b.abs())
    }};
}

/// statrs' `prec::convergence`, as published: the closeness test is a macro.
#[differentiable]
fn converged(x: &mut f64, x_new: f64) -> bool {
    let res = relative_eq!(*x, x_new);
    *x = x_new;
    res
}

/// Newton's square root iterated until `converged`.
#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a.max(1.0);
    for _ in 0..100 {
        let next = 0.5 * (x + a / x);
        if converged(&mut x, next) {
            break;
        }
    }
    x
}

/// `matches!`, `format!`, the macro with a named argument and inside `assert!`,
/// each reading differentiable values; the branch they choose is what is differentiated.
#[differentiable]
fn macro_guards(a: f64, b: f64) -> f64 {
    let near = relative_eq!(a, b, max_relative = 0.5);
    let below = matches!(a.partial_cmp(&b), Some(core::cmp::Ordering::Less));
    let label = format!("{a:.3} vs {b}");
    assert!(
        a.is_finite() && !relative_eq!(b, f64::MAX),
        "a = {a}, b = {b}"
    );
    if label.is_empty() {
        return 0.0;
    }
    if near {
        a * a * b
    } else if below {
        a.sin() * b
    } else {
        a + b * b
    }
}

#[test]
fn macros_whose_value_is_not_a_float() {
    // d√a/da = 1 / (2√a)
    for a in [0.3, 2.0, 17.0] {
        let g = gradients_function!(newton_sqrt)(a);
        assert!((newton_sqrt(a) - a.sqrt()).abs() < 1e-12);
        assert!(
            (g - 0.5 / a.sqrt()).abs() < 1e-10,
            "a = {a}: {g} vs {}",
            0.5 / a.sqrt()
        );
        let fd = fd2(|p| newton_sqrt(p[0]), &[a]);
        close_to2(&[g], &fd, "newton_sqrt");
        let t = jvp!(newton_sqrt)(a, 1.0);
        assert!(close(t.1, g, 1e-12), "jvp {} vs {g}", t.1);
    }
    // each branch, by hand and by differences
    for (a, b, by_hand) in [
        (1.0, 1.2, [2.0 * 1.2, 1.0]),
        (0.2, 3.0, [0.2f64.cos() * 3.0, 0.2f64.sin()]),
        (3.0, 0.4, [1.0, 0.8]),
    ] {
        let g = gradients_function!(macro_guards)(a, b);
        assert!(close(g.0, by_hand[0], 1e-12) && close(g.1, by_hand[1], 1e-12));
        let fd = fd2(|p| macro_guards(p[0], p[1]), &[a, b]);
        close_to2(&[g.0, g.1], &fd, "macro_guards");
        let t = jvp!(macro_guards)(a, b, 0.3, -0.7);
        assert!(close(t.1, 0.3 * g.0 - 0.7 * g.1, 1e-12));
    }
}

// --- `sin_cos`, `Vec` methods that change a length, `for` over `map` ------------------------

/// `t.sin_cos()` and its path form.
#[differentiable]
fn polar_mix(r: f64, t: f64) -> f64 {
    let (s, c) = t.sin_cos();
    let (s2, c2) = f64::sin_cos(2.0 * t);
    r * c + r * r * s + s2 * c2
}

/// `retain` keeps the positive elements (their adjoints stay with them).
#[differentiable]
fn retained_squares(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.retain(|x| *x > 0.0);
    v.iter().map(|x| x * x).sum()
}

/// `extend` of a slice's items, of an array literal, of a mapped iterator.
#[differentiable]
fn extended_by(xs: &[f64], y: f64) -> f64 {
    let mut v = Vec::with_capacity(2 * xs.len() + 2);
    v.extend(xs.iter());
    v.extend_from_slice(&[y, 2.0 * y]);
    v.extend(xs.iter().map(|x| x * y));
    v.iter().sum::<f64>() * v.len() as f64
}

/// `truncate`, then `clear` and a push.
#[differentiable]
fn truncated(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.truncate(2);
    v.push(v[0] * v[1]);
    let s: f64 = v.iter().sum();
    v.clear();
    v.push(s * s);
    v[0]
}

/// A `for` loop over mapped items, with an outer name the closure's parameter shadows.
#[differentiable]
fn mapped_loop(xs: &[f64], y: f64) -> f64 {
    let x = 3.0 * y;
    let mut s = 0.0;
    for t in xs.iter().map(|x| x * y) {
        s += t * x;
    }
    s
}

/// A local `Vec` iterated, then replaced by a shorter one: the reverse sweep walks the loop
/// as many times as the forward one did (it walked the new length, one element off, before).
#[differentiable]
fn iterated_then_replaced(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let mut kept = Vec::with_capacity(v.len());
    for (i, x) in v.iter().enumerate() {
        if *x > 0.0 {
            kept.push(v[i]);
        }
    }
    v = kept;
    v.iter().map(|x| x * x).sum()
}

#[test]
fn sin_cos_vec_methods_and_mapped_loops() {
    let x = [0.3, -1.2, 0.7, 1.9, 2.5];
    let (r, t) = (1.3, 0.4);
    let g = gradients_function!(polar_mix)(r, t);
    // by hand: ∂r = cos t + 2r sin t; ∂t = −r sin t + r² cos t + 2 cos 4t
    let by_hand = [
        t.cos() + 2.0 * r * t.sin(),
        -r * t.sin() + r * r * t.cos() + 2.0 * (4.0 * t).cos(),
    ];
    assert!(close(g.0, by_hand[0], 1e-12) && close(g.1, by_hand[1], 1e-12));
    close_to2(
        &[g.0, g.1],
        &fd2(|p| polar_mix(p[0], p[1]), &[r, t]),
        "polar_mix",
    );
    let j = jvp!(polar_mix)(r, t, 0.5, -1.0);
    assert!(close(j.1, 0.5 * g.0 - g.1, 1e-12));

    // retained: 2x where x > 0, else 0 (both loops, and the one written out)
    let by_hand: Vec<f64> = x
        .iter()
        .map(|&v| if v > 0.0 { 2.0 * v } else { 0.0 })
        .collect();
    for (name, f, g) in [
        (
            "retained_squares",
            retained_squares as fn(&[f64]) -> f64,
            gradients_function!(retained_squares)(&x),
        ),
        (
            "iterated_then_replaced",
            iterated_then_replaced,
            gradients_function!(iterated_then_replaced)(&x),
        ),
    ] {
        close_to2(&g, &by_hand, name);
        close_to2(&g, &fd2(f, &x), name);
    }

    // extended: f = (Σx + 3y + yΣx)·(2n + 2)
    let y = 0.5;
    let (g, gy) = gradients_function!(extended_by)(&x, y);
    let m = (2 * x.len() + 2) as f64;
    let sx: f64 = x.iter().sum();
    close_to2(&g, &vec![(1.0 + y) * m; x.len()], "extended_by ∂x");
    assert!(close(gy, (3.0 + sx) * m, 1e-12));
    let p: Vec<f64> = x.iter().copied().chain([y]).collect();
    close_to2(
        &[g, vec![gy]].concat(),
        &fd2(|p| extended_by(&p[..5], p[5]), &p),
        "extended_by",
    );

    // truncated: f = (x0 + x1 + x0·x1)²
    let g = gradients_function!(truncated)(&x);
    let s = x[0] + x[1] + x[0] * x[1];
    let by_hand = [
        2.0 * s * (1.0 + x[1]),
        2.0 * s * (1.0 + x[0]),
        0.0,
        0.0,
        0.0,
    ];
    close_to2(&g, &by_hand, "truncated");
    close_to2(&g, &fd2(truncated, &x), "truncated");

    // mapped_loop: f = Σ x·y·3y
    let (g, gy) = gradients_function!(mapped_loop)(&x, y);
    close_to2(&g, &vec![3.0 * y * y; x.len()], "mapped_loop ∂x");
    assert!(close(gy, 6.0 * y * sx, 1e-12));
    let v = vjp!(mapped_loop)(&x, y);
    let (vx, vy) = (v.1)(1.0);
    close_to2(&vx, &g, "mapped_loop vjp");
    assert!(close(vy, gy, 1e-12));
}

// --- `pop`, `insert`, `remove`, `swap_remove`; ends through iterators -------------------------

/// `(Σ of all but the last) · last`, by `pop`.
#[differentiable]
fn popped(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let last = v.pop().unwrap();
    v.iter().sum::<f64>() * last
}

/// Elements inserted, removed and swap-removed, then weighted by position.
#[differentiable]
fn edited(xs: &[f64], y: f64) -> f64 {
    let mut v = xs.to_vec();
    v.insert(1, y * y);
    let r = v.remove(0);
    v.insert(3, r * 2.0);
    let q = v.swap_remove(1);
    v.push(q.sin());
    v.iter()
        .enumerate()
        .map(|(i, t)| t * r * (i + 1) as f64)
        .sum()
}

#[differentiable]
fn removed_at(xs: &[f64], k: usize) -> f64 {
    let mut v = xs.to_vec();
    v.remove(k) * 2.0
}

/// The ends read through iterators: `x.iter().last()`, `x.iter().next()`, `.next_back()`,
/// `x.iter().rev().last()` (forms published code has, whatever clippy says of them).
#[allow(clippy::double_ended_iterator_last)]
#[differentiable]
fn iterated_ends(xs: &[f64]) -> f64 {
    let l = *xs.iter().last().unwrap();
    let f = xs.iter().next().copied().unwrap_or(0.0);
    let r = xs.iter().next_back().copied().unwrap_or(1.0);
    let b = xs.iter().rev().last().copied().unwrap_or(0.0);
    l * f + r + 0.5 * b
}

#[test]
fn vec_edits_and_iterated_ends() {
    let x = [0.3, -1.2, 0.7, 1.9, 2.5];
    let n = x.len();
    // popped: ∂x_i = x_last (i < n − 1), ∂x_last = Σ of the rest
    let g = gradients_function!(popped)(&x);
    let mut by_hand = vec![x[n - 1]; n];
    by_hand[n - 1] = x[..n - 1].iter().sum();
    close_to2(&g, &by_hand, "popped");
    close_to2(&g, &fd2(popped, &x), "popped");

    let y = 0.7;
    let (v, (gx, gy)) = value_and_gradients_function!(edited)(&x, y);
    assert!((v - edited(&x, y)).abs() < 1e-12);
    let p: Vec<f64> = x.iter().copied().chain([y]).collect();
    close_to2(
        &[gx.clone(), vec![gy]].concat(),
        &fd2(|p| edited(&p[..5], p[5]), &p),
        "edited",
    );
    let t = jvp!(edited)(&x, y, &[1.0; 5], -0.5);
    assert!(close(t.1, gx.iter().sum::<f64>() - 0.5 * gy, 1e-12));

    let g = gradients_function!(iterated_ends)(&x);
    let by_hand = [x[n - 1] + 0.5, 0.0, 0.0, 0.0, x[0] + 1.0];
    close_to2(&g, &by_hand, "iterated_ends");
}

#[test]
#[should_panic(expected = "removal index (is 9) should be < len (is 5)")]
fn a_bad_removal_index_panics_as_vec_does() {
    let _ = gradients_function!(removed_at, params = ["xs"])(&[0.3, -1.2, 0.7, 1.9, 2.5], 9);
}

/// The `Vec` methods in a generic function, and inside a local closure called twice (each
/// inlined copy of the closure's body is the same syntax, lowered once per call).
#[differentiable]
fn generic_edits<T: autodiff::num_traits::Float + std::iter::Sum>(xs: &[T]) -> T {
    let mut v = xs.to_vec();
    v.retain(|x| *x > T::zero());
    v.truncate(3);
    let l = v.pop().unwrap_or(T::one());
    v.iter().copied().sum::<T>() * l
}

#[differentiable]
fn retained_twice(xs: &[f64], y: f64) -> f64 {
    let kept = |s: f64| {
        let mut v = xs.to_vec();
        v.retain(|x| *x > s);
        let mut t = 0.0;
        for x in v.iter().map(|x| x * y) {
            t += x;
        }
        t
    };
    kept(0.0) + kept(1.0) * y
}

#[test]
fn vec_edits_generic_and_in_closures() {
    let x = [0.3, -1.2, 0.7, 1.9, 2.5];
    // generic_edits: kept (0.3, 0.7, 1.9), truncated to 3, last popped: (0.3 + 0.7)·1.9
    let g = gradients_function!(generic_edits)(&x);
    close_to2(&g, &[1.9, 0.0, 1.9, 1.0, 0.0], "generic_edits");
    close_to2(&g, &fd2(generic_edits, &x), "generic_edits");
    let g32 = gradients_function!(generic_edits)(&x.map(|v| v as f32));
    assert!((g32[3] - 1.0).abs() < 1e-6);

    // retained_twice: y·Σ_{x>0} x + y²·Σ_{x>1} x
    let y = 0.6;
    let (gx, gy) = gradients_function!(retained_twice)(&x, y);
    let by_hand: Vec<f64> = x
        .iter()
        .map(|&v| {
            if v > 1.0 {
                y + y * y
            } else if v > 0.0 {
                y
            } else {
                0.0
            }
        })
        .collect();
    close_to2(&gx, &by_hand, "retained_twice");
    let (s0, s1): (f64, f64) = (
        x.iter().filter(|v| **v > 0.0).sum(),
        x.iter().filter(|v| **v > 1.0).sum(),
    );
    assert!(close(gy, s0 + 2.0 * y * s1, 1e-12));
}

// A `Vec` made inside a loop's body and then shortened (or given a shorter copy of
// itself) before its elements are read by index: the adjoint of such a `Vec` grows only
// as far as the reads reach, and is given the length of each value written before the
// write's reverse takes it.

#[differentiable]
fn popped_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let mut w = x.to_vec();
        let last = w.pop().unwrap();
        s += last * w[k];
    }
    s
}

#[differentiable]
fn shorter_copy_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let mut w = x.to_vec();
        w[k] *= 2.0;
        w = w[..2].to_vec();
        s += w[0] * w[1] * (k as f64 + 1.0);
    }
    s
}

#[differentiable]
fn popped_while_longer_than_one(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        let mut w = Vec::new();
        for &v in x {
            w.push(v * (k as f64 + 1.5));
        }
        while w.len() > 1 {
            let t = w.pop().unwrap();
            let n = w.len();
            w[n - 1] += t.sin();
        }
        w.truncate(1);
        s += w[0];
    }
    s
}

#[differentiable]
fn removed_and_inserted_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let mut w = x.to_vec();
        let r = w.remove(k);
        w.insert(0, r * r);
        w.swap_remove(1);
        s += w[0] * w[w.len() - 1] + w[1];
    }
    s
}

#[test]
fn vecs_shortened_inside_loops() {
    let x = [0.3, -1.2, 0.7, 2.0];
    // by hand: s = x₃·(x₀ + x₁ + x₂)
    let g = gradients_function!(popped_in_a_loop)(&x);
    close_to2(
        &g,
        &[x[3], x[3], x[3], x[0] + x[1] + x[2]],
        "popped_in_a_loop",
    );
    // by hand: s = Σₖ (k + 1)·w₀·w₁ with w₀, w₁ doubled where k is 0 or 1: 2x₀x₁ + 4x₀x₁ + 3x₀x₁
    let g = gradients_function!(shorter_copy_in_a_loop)(&x);
    close_to2(
        &g,
        &[9.0 * x[1], 9.0 * x[0], 0.0, 0.0],
        "shorter_copy_in_a_loop",
    );
    let t = [0.5, 0.1, -0.3, 0.2];
    macro_rules! check {
        ($f:ident) => {{
            let name = stringify!($f);
            let fd = fd2($f, &x);
            let (value, g) = value_and_gradients_function!($f)(&x);
            assert!(close(value, $f(&x), 1e-14), "{name}: value");
            close_to2(&g, &fd, name);
            close_to2(&vjp!($f)(&x).1(1.0), &fd, name);
            let (value, tangent) = jvp!($f)(&x, &t);
            assert!(close(value, $f(&x), 1e-14), "{name}: jvp value");
            assert!(close(tangent, along(&[g], &t), 1e-12), "{name}: jvp");
        }};
    }
    check!(popped_in_a_loop);
    check!(shorter_copy_in_a_loop);
    check!(popped_while_longer_than_one);
    check!(removed_and_inserted_in_a_loop);
}

// `const fn`: the function stays usable in constants; its derivatives are ordinary
// functions beside it.

const MS_PER_DAY: f64 = 86_400_000.0;

#[differentiable]
const fn julian_day(ms: f64) -> f64 {
    ms / MS_PER_DAY - 0.5 + 2_440_588.0
}

#[differentiable]
const fn transit_time(hour_angle: f64, longitude: f64, cycle: f64) -> f64 {
    0.0009 + (hour_angle + longitude) / (2.0 * std::f64::consts::PI) + cycle
}

#[differentiable]
fn through_const_fns(ms: f64, h: f64) -> f64 {
    (julian_day(ms) * 1e-6).sin() * transit_time(h * h, 0.3, 2.0)
}

const EPOCH_DAY: f64 = julian_day(0.0);

#[test]
fn const_fns() {
    assert_eq!(EPOCH_DAY, 2_440_587.5);
    assert_eq!(gradients_function!(julian_day)(5.0), 1.0 / MS_PER_DAY);
    let g = gradients_function!(transit_time)(0.1, 0.2, 0.3);
    let tau = 2.0 * std::f64::consts::PI;
    assert_eq!(g, (1.0 / tau, 1.0 / tau, 1.0));
    let (ms, h) = (1.0e12, 0.7);
    let (value, g) = value_and_gradients_function!(through_const_fns)(ms, h);
    assert_eq!(value, through_const_fns(ms, h));
    // by hand: f = sin(j·10⁻⁶)·t(h²), j = ms/D − ½ + c
    let j = julian_day(ms) * 1e-6;
    let t = transit_time(h * h, 0.3, 2.0);
    let by_hand = (j.cos() * 1e-6 / MS_PER_DAY * t, j.sin() * 2.0 * h / tau);
    assert!(close(g.0, by_hand.0, 1e-12) && close(g.1, by_hand.1, 1e-12));
    let fd = fd2(|p| through_const_fns(p[0], p[1]), &[ms, h]);
    close_to2(&[g.1], &fd[1..], "through_const_fns");
    let (_, tangent) = jvp!(through_const_fns)(ms, h, 0.0, 1.0);
    assert!(close(tangent, g.1, 1e-12));
}

// Optional float parameters (`center: Option<T>`, a default computed when `None`): the
// gradient of the parameter is the float's (zero for `None`), its tangent in `jvp!` a
// float too; a literal `None` handed to a differentiable helper.

#[differentiable]
fn average<T: autodiff::Real>(v: &[T]) -> T {
    let n = T::from(v.len()).unwrap();
    v.iter().fold(T::zero(), |acc, x| acc + *x) / n
}

#[differentiable]
fn spread<T: autodiff::Real>(v: &[T], center: Option<T>) -> T {
    let c = match center {
        Some(c) => c,
        None => average(v),
    };
    let n = T::from(v.len()).unwrap();
    (v.iter()
        .map(|x| (*x - c) * (*x - c))
        .fold(T::zero(), |acc, d| acc + d)
        / n)
        .sqrt()
}

#[differentiable]
#[allow(clippy::needless_borrow)] // (`&v` of a slice, as published code writes it)
fn standardized<T: autodiff::Real>(v: &[T]) -> Vec<T> {
    let m = average(&v);
    let s = spread(&v, None);
    v.iter().map(|x| (*x - m) / s).collect()
}

#[test]
fn optional_float_parameters() {
    let x = [0.3, -1.2, 0.7, 2.0];
    let n = x.len() as f64;
    let m = average(&x);
    let s = spread(&x, None);
    // by hand: ∂s/∂xᵢ = (xᵢ − m)/(n·s) about the mean (the mean's own terms sum to zero)
    let by_hand: Vec<f64> = x.iter().map(|v| (v - m) / (n * s)).collect();
    let (g, gc) = gradients_function!(spread::<f64>)(&x, None);
    close_to2(&g, &by_hand, "spread about the mean");
    assert_eq!(gc, 0.0);
    close_to2(&g, &fd2(|p| spread(p, None), &x), "spread about the mean");
    // about a given center: ∂s/∂c = −Σ(xᵢ − c)/(n·s)
    let c = 0.5;
    let sc = spread(&x, Some(c));
    let (g, gc) = gradients_function!(spread::<f64>)(&x, Some(c));
    let dc = -x.iter().map(|v| v - c).sum::<f64>() / (n * sc);
    assert!(close(gc, dc, 1e-12));
    let p: Vec<f64> = x.iter().copied().chain([c]).collect();
    let fd = fd2(|p| spread(&p[..4], Some(p[4])), &p);
    close_to2(
        &[g.clone(), vec![gc]].concat(),
        &fd,
        "spread about a center",
    );
    // forward mode: the optional parameter's tangent is a float
    let t = [1.0, 0.5, -0.25, 2.0];
    let (value, tangent) = jvp!(spread::<f64>)(&x, Some(c), &t, 1.5);
    assert_eq!(value, sc);
    let along_g = g.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>() + 1.5 * gc;
    assert!(close(tangent, along_g, 1e-12));
    let (_, tangent) = jvp!(spread::<f64>)(&x, None, &t, 0.0);
    let g = gradients_function!(spread::<f64>)(&x, None).0;
    assert!(close(tangent, along(&[g], &t), 1e-12));
    // `None` handed on: standardized scores, a vector function
    let w = [1.0, 0.5, -0.25, 2.0];
    let (value, pullback) = vjp!(standardized::<f64>)(&x);
    assert_eq!(value, standardized(&x));
    let fd = fd2(
        |p| standardized(p).iter().zip(&w).map(|(a, b)| a * b).sum(),
        &x,
    );
    close_to2(&pullback(w.to_vec()), &fd, "standardized");
    let (_, tangent) = jvp!(standardized::<f64>)(&x, &t);
    let rows: Vec<f64> = (0..4)
        .map(|i| {
            let mut e = vec![0.0; 4];
            e[i] = 1.0;
            along(&[vjp!(standardized::<f64>)(&x).1(e)], &t)
        })
        .collect();
    close_to2(&tangent, &rows, "standardized, forward");
    // f32
    let x32 = [0.3_f32, -1.2, 0.7, 2.0];
    let (g, _) = gradients_function!(spread::<f32>)(&x32, None);
    for (a, b) in g.iter().zip(&by_hand) {
        assert!((f64::from(*a) - b).abs() < 1e-5);
    }
}

// An optional constant parameter (`Option<bool>`) beside optional floats: a constant, as
// `bool` is.

#[differentiable]
fn future_value(rate: f64, periods: f64, payment: Option<f64>, at_start: Option<bool>) -> f64 {
    let payment = payment.unwrap_or(0.0);
    let growth = (1.0 + rate).powf(periods);
    let due = if at_start.unwrap_or(false) {
        1.0 + rate
    } else {
        1.0
    };
    payment * due * (growth - 1.0) / rate
}

#[test]
fn optional_constant_parameters() {
    let (r, n, p) = (0.05, 10.0, 100.0);
    for at_start in [None, Some(false), Some(true)] {
        let (gr, gn, gp) = gradients_function!(future_value)(r, n, Some(p), at_start);
        let fd = fd2(
            |q| future_value(q[0], q[1], Some(q[2]), at_start),
            &[r, n, p],
        );
        close_to2(&[gr, gn, gp], &fd, "future_value");
        // by hand: ∂/∂payment = due·(g − 1)/r
        let due = if at_start == Some(true) { 1.0 + r } else { 1.0 };
        assert!(close(gp, due * ((1.0 + r).powf(n) - 1.0) / r, 1e-12));
        let (_, gn, gp) = gradients_function!(future_value)(r, n, None, at_start);
        assert_eq!((gn, gp), (0.0, 0.0));
    }
}

// Destructuring assignment: `(s, c) = …;` of locals, elements and nested tuples, `_`
// left out.

#[differentiable]
fn turned_by_quarters(x: f64, q: u32) -> (f64, f64) {
    let (mut s, mut c) = x.to_radians().sin_cos();
    (s, c) = match q % 4 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    };
    (s * 2.0, c)
}

#[differentiable]
fn rotated_pairs(x: &[f64]) -> f64 {
    let (mut a, mut b, mut v) = (x[0], x[1], vec![0.0; 2]);
    for _ in 0..3 {
        (a, b) = (b * 0.5, a + b);
        (v[0], _, v[1]) = (a * b, 7.0, a.sin());
    }
    let mut t = 1.0;
    ((t, a), b) = ((t * a * a, b), v[0] + v[1]);
    a * b + t
}

#[test]
fn destructuring_assignment() {
    let x = 30.0_f64;
    let d = std::f64::consts::PI / 180.0;
    let (s, c) = (x * d).sin_cos();
    for q in 0..4 {
        let (value, pullback) = vjp!(turned_by_quarters)(x, q);
        assert_eq!(value, turned_by_quarters(x, q));
        // by hand: d(sin)/dx = cos·π/180, d(cos)/dx = −sin·π/180, turned by q quarters
        let (ds, dc) = match q {
            0 => (c * d, -s * d),
            1 => (-s * d, -c * d),
            2 => (-c * d, s * d),
            _ => (s * d, c * d),
        };
        let g = pullback((1.0, 0.5));
        assert!(close(g, 2.0 * ds + 0.5 * dc, 1e-14), "q = {q}");
    }
    let x = [0.3, 1.2];
    let (value, g) = value_and_gradients_function!(rotated_pairs)(&x);
    assert_eq!(value, rotated_pairs(&x));
    close_to2(&g, &fd2(rotated_pairs, &x), "rotated_pairs");
    let (_, tangent) = jvp!(rotated_pairs)(&x, &[1.0, -0.5]);
    assert!(close(tangent, g[0] - 0.5 * g[1], 1e-12));
}

// Tuples held as values: a running pair written member by member (`acc.0 += x`), a best
// pair replaced whole (`best = (…, …)`).

#[differentiable]
fn running_pair<T: autodiff::Real>(xs: &[T], a: T) -> T {
    let mut acc = (a, T::zero());
    let mut best = (T::zero(), T::zero());
    for x in xs {
        acc.0 = acc.0 * x.cos();
        acc.1 = acc.1 * T::from(0.5).unwrap() + *x * acc.0;
        if *x > best.1 {
            best = (acc.1 * a, *x);
        }
    }
    best.0 = best.0 + acc.1;
    acc.0 + acc.1 + best.0 * best.1
}

#[test]
fn tuples_held_as_values() {
    let xs = [0.3, -1.2, 0.7, 2.0];
    let a = 0.4;
    let p: Vec<f64> = xs.iter().copied().chain([a]).collect();
    let fd = fd2(|p| running_pair(&p[..4], p[4]), &p);
    let (value, (g, ga)) = value_and_gradients_function!(running_pair::<f64>)(&xs, a);
    assert_eq!(value, running_pair(&xs, a));
    close_to2(&[g.clone(), vec![ga]].concat(), &fd, "running_pair");
    let (gv, gva) = vjp!(running_pair::<f64>)(&xs, a).1(1.0);
    close_to2(&[gv, vec![gva]].concat(), &fd, "running_pair, vjp!");
    let t = [0.5, -1.0, 0.25, 2.0];
    let (_, tangent) = jvp!(running_pair::<f64>)(&xs, a, &t, 1.5);
    assert!(close(tangent, along(&[g], &t) + 1.5 * ga, 1e-12));
    // by hand, one element: acc.0 = a·cos x, acc.1 = x·a·cos x, best = (acc.1·a, x)
    // (x > 0), so f = a·cos x + x·a·cos x + (x·a²·cos x + x·a·cos x)·x
    let x = 0.7_f64;
    let (g, ga) = gradients_function!(running_pair::<f64>)(&[x], a);
    let c = x.cos();
    let s = x.sin();
    let dfa = c + x * c + (2.0 * x * a * c + x * c) * x;
    let dfx = -a * s + a * (c - x * s) + (a * a + a) * (2.0 * x * c - x * x * s);
    assert!(close(ga, dfa, 1e-12) && close(g[0], dfx, 1e-12));
    // f32
    let x32 = [0.3_f32, -1.2, 0.7, 2.0];
    let (g32, _) = gradients_function!(running_pair::<f32>)(&x32, 0.4);
    let g64 = gradients_function!(running_pair::<f64>)(&xs, a).0;
    for (u, v) in g32.iter().zip(&g64) {
        assert!((f64::from(*u) - v).abs() < 1e-4 * (1.0 + v.abs()));
    }
}

// `while let`: a stack drained by `pop`, a work list that pushes while it pops (with a
// label, `continue` and `break`), the top read by `last`.

#[differentiable]
fn drained(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let mut s = 0.0;
    while let Some(x) = v.pop() {
        s = s * 0.5 + x * x;
    }
    s
}

#[differentiable]
fn work_list(xs: &[f64], a: f64) -> f64 {
    let mut stack = vec![a];
    let mut total = 0.0;
    let mut steps = 0;
    'work: while let Some(top) = stack.pop() {
        steps += 1;
        if steps > 20 {
            break 'work;
        }
        if top.abs() < 0.05 {
            continue;
        }
        total += top.sin();
        if steps < 6 {
            stack.push(top * xs[steps % xs.len()]);
            stack.push(top * 0.3);
        }
    }
    total
}

#[differentiable]
fn peeled_while_large(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let mut s = 1.0;
    while let Some(&x) = v.last() {
        if x < -1.0 {
            break;
        }
        s *= x + 2.0;
        v.pop();
    }
    s
}

#[test]
fn while_let_loops() {
    let xs = [0.3, -1.2, 0.7, 2.0];
    // by hand: s = Σₖ xₖ²·2^(k−3), the last element popped first
    let g = gradients_function!(drained)(&xs);
    close_to2(
        &g,
        &[2.0 * xs[0], xs[1], 0.5 * xs[2], 0.25 * xs[3]],
        "drained",
    );
    // by hand: s = (x₃ + 2)(x₂ + 2), stopping at x₁ < −1
    let g = gradients_function!(peeled_while_large)(&xs);
    close_to2(
        &g,
        &[0.0, 0.0, xs[3] + 2.0, xs[2] + 2.0],
        "peeled_while_large",
    );
    let t = [0.5, -1.0, 0.25, 2.0];
    close_to2(&g, &fd2(peeled_while_large, &xs), "peeled_while_large");
    close_to2(
        &gradients_function!(drained)(&xs),
        &fd2(drained, &xs),
        "drained",
    );
    close_to2(
        &vjp!(drained)(&xs).1(1.0),
        &fd2(drained, &xs),
        "drained, vjp!",
    );
    let (_, tangent) = jvp!(peeled_while_large)(&xs, &t);
    assert!(close(tangent, along(&[g], &t), 1e-12));
    let a = 0.9;
    let p: Vec<f64> = xs.iter().copied().chain([a]).collect();
    let (value, (g, ga)) = value_and_gradients_function!(work_list)(&xs, a);
    assert_eq!(value, work_list(&xs, a));
    close_to2(
        &[g, vec![ga]].concat(),
        &fd2(|p| work_list(&p[..4], p[4]), &p),
        "work_list",
    );
    let (_, tangent) = jvp!(work_list)(&xs, a, &[0.0; 4], 1.0);
    assert!(close(tangent, ga, 1e-12));
}

// A negative literal beside a value that may be an array (a struct's field: the struct
// might hold arrays), in a tuple a `fold` starts from: the literal takes the field's type
// (it once stayed an unknown float, and the compiler chose a `Vec` adjoint for the sum).

#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Halves {
    pub lo: f64,
    pub hi: f64,
}

#[differentiable]
fn halves(v: &[f64], s: f64) -> Halves {
    let lo = (v[0] * s).sin();
    Halves {
        lo,
        hi: v[v.len() - 1] * -0.5 + s * lo,
    }
}

#[differentiable]
fn folded_from_a_field(xs: &[f64], a: f64) -> f64 {
    let h = halves(xs, a);
    let t = h.lo;
    let (p, q) = xs.iter().fold((0.0, t.tanh() * -0.5), |(p, q), &v| {
        (p + v * 0.5, (q + v).sin())
    });
    p * q + h.hi * (-1.5)
}

#[test]
fn negative_literals_beside_fields() {
    let xs = [0.3, -1.2, 0.7, 2.0];
    let a = 0.4;
    let p: Vec<f64> = xs.iter().copied().chain([a]).collect();
    let (value, (g, ga)) = value_and_gradients_function!(folded_from_a_field)(&xs, a);
    assert_eq!(value, folded_from_a_field(&xs, a));
    close_to2(
        &[g.clone(), vec![ga]].concat(),
        &fd2(|p| folded_from_a_field(&p[..4], p[4]), &p),
        "folded_from_a_field",
    );
    let t = [0.5, -1.0, 0.25, 2.0];
    let (_, tangent) = jvp!(folded_from_a_field)(&xs, a, &t, 0.0);
    assert!(close(tangent, along(&[g], &t), 1e-12));
}

/// A constant written as a function of no parameters (astro's
/// `equatorial_unit_semidiameter()`), annotated like its module's other helpers and
/// called by a differentiable function: its tangent and adjoint are nothing.
#[differentiable]
fn unit_semidiameter() -> f64 {
    (82.73f64 / 3600.0).to_radians()
}

#[differentiable]
fn polar_semidiameter(dist: f64, lat: f64) -> f64 {
    let a = unit_semidiameter();
    let k = 0.1;
    (a / dist) * (1.0 - k * lat.cos().powi(2)).sqrt()
}

#[test]
fn helpers_of_no_parameters() {
    let (d, lat) = (9.5, 0.4);
    let a = (82.73f64 / 3600.0).to_radians();
    let s = (1.0 - 0.1 * lat.cos().powi(2)).sqrt();
    // by hand: ∂/∂d = −a s / d², ∂/∂lat = (a / d) · 0.1 · cos·sin / s
    let by_hand = [-a * s / (d * d), a / d * 0.1 * lat.cos() * lat.sin() / s];
    let (v, (gd, glat)) = value_and_gradients_function!(polar_semidiameter)(d, lat);
    assert_eq!(v.to_bits(), polar_semidiameter(d, lat).to_bits());
    let fd = autodiff::check::finite_difference(|p| polar_semidiameter(p[0], p[1]), &[d, lat]);
    for (got, (h, n)) in [gd, glat].into_iter().zip(by_hand.into_iter().zip(fd)) {
        assert!(close(got, h, 1e-12) && close(got, n, 1e-6), "{got} {h} {n}");
    }
    let (jv, jt) = jvp!(polar_semidiameter)(d, lat, 0.5, -2.0);
    assert_eq!(jv.to_bits(), v.to_bits());
    assert!(
        close(jt, 0.5 * by_hand[0] - 2.0 * by_hand[1], 1e-12),
        "{jt}"
    );
    let (_, pullback) = vjp!(polar_semidiameter)(d, lat);
    let (pd, plat) = pullback(3.0);
    assert!(close(pd, 3.0 * by_hand[0], 1e-12) && close(plat, 3.0 * by_hand[1], 1e-12));
}

/// The largest element, found by reference (scilib's `max_slice`): a local holding a
/// reference to an element, replaced by the loop's items.
#[differentiable]
fn largest_by_reference<T>(val: &[T]) -> T
where
    T: std::cmp::PartialOrd + Copy,
{
    let mut current_max: &T = &val[0];
    for v in val.iter() {
        if v > current_max {
            current_max = v;
        }
    }
    *current_max
}

/// References to elements held in locals, annotated or not, compared, dereferenced and
/// used in arithmetic as written.
#[differentiable]
fn references_to_elements(val: &[f64]) -> f64 {
    let first = &val[0];
    let second: &f64 = &val[1];
    let mut best = &val[2];
    if *first > 0.5 * best {
        best = first;
    }
    for v in val.iter().skip(3) {
        if v > best && v != second {
            best = v;
        }
    }
    *first * 2.0 + *best * best.abs() - second * 0.5
}

#[test]
fn locals_holding_references_to_elements() {
    let x = [1.0, 3.0, 0.4, 2.5, -1.0];
    let g = gradients_function!(largest_by_reference)(&x[..]);
    assert_eq!(g, vec![0.0, 1.0, 0.0, 0.0, 0.0]);
    let g32 = gradients_function!(largest_by_reference)(&[1.0f32, 3.0, 2.0][..]);
    assert_eq!(g32, vec![0.0, 1.0, 0.0]);
    let (v, t) = jvp!(largest_by_reference)(&x[..], &[0.1, 0.2, 0.3, 0.4, 0.5][..]);
    assert_eq!((v, t), (3.0, 0.2));
    let fd = autodiff::check::finite_difference(largest_by_reference, &x);
    for (a, b) in g.iter().zip(&fd) {
        assert!(close(*a, *b, 1e-6), "{g:?} vs {fd:?}");
    }

    for x in [[1.0, 3.0, 0.4, 2.5, -1.0], [0.3, -2.0, 1.2, 0.1, 1.7]] {
        let (v, g) = value_and_gradients_function!(references_to_elements)(&x[..]);
        assert_eq!(v.to_bits(), references_to_elements(&x).to_bits());
        // by hand: 2·x0 + b·|b| − 0.5·x1, b the element `best` ends at
        let mut b = if x[0] > 0.5 * x[2] { 0 } else { 2 };
        for k in 3..x.len() {
            if x[k] > x[b] && x[k] != x[1] {
                b = k;
            }
        }
        let mut by_hand = vec![0.0; x.len()];
        by_hand[0] += 2.0;
        by_hand[1] -= 0.5;
        by_hand[b] += 2.0 * x[b].abs();
        let fd = autodiff::check::finite_difference(references_to_elements, &x);
        for k in 0..x.len() {
            assert!(close(g[k], by_hand[k], 1e-12), "{k}: {g:?} vs {by_hand:?}");
            assert!(close(g[k], fd[k], 1e-6), "{k}: {g:?} vs {fd:?}");
        }
        let (_, pullback) = vjp!(references_to_elements)(&x[..]);
        let p = pullback(-1.5);
        for k in 0..x.len() {
            assert!(close(p[k], -1.5 * by_hand[k], 1e-12));
        }
    }
}

/// Fixed-size arrays made by `core::array::from_fn` from differentiable values, the length
/// from the `let`'s type or the call's turbofish.
#[differentiable]
fn arrays_from_fn<T: Float>(x: [T; 3], a: T) -> T {
    let y: [T; 3] = core::array::from_fn(|i| x[i] * a + T::from(i).unwrap());
    let z = std::array::from_fn::<T, 2, _>(|k: usize| y[k + 1] * y[k]);
    z[0] + z[1] * a
}

#[test]
fn arrays_made_by_from_fn() {
    let (x, a): ([f64; 3], f64) = ([1.0, -2.0, 0.5], 1.5);
    let (v, (gx, ga)) = value_and_gradients_function!(arrays_from_fn)(x, a);
    assert_eq!(v.to_bits(), arrays_from_fn(x, a).to_bits());
    // by hand: y_i = a x_i + i, f = y0 y1 + a y1 y2
    let y = [a * x[0], a * x[1] + 1.0, a * x[2] + 2.0];
    let dy = [y[1], y[0] + a * y[2], a * y[1]];
    let by_hand_x: Vec<f64> = (0..3).map(|i| dy[i] * a).collect();
    let by_hand_a = (0..3).map(|i| dy[i] * x[i]).sum::<f64>() + y[1] * y[2];
    for i in 0..3 {
        assert!(close(gx[i], by_hand_x[i], 1e-12), "{gx:?} vs {by_hand_x:?}");
    }
    assert!(close(ga, by_hand_a, 1e-12), "{ga} vs {by_hand_a}");
    let fd = autodiff::check::finite_difference(
        |p| arrays_from_fn([p[0], p[1], p[2]], p[3]),
        &[x[0], x[1], x[2], a],
    );
    for (got, n) in gx.iter().chain([ga].iter()).zip(&fd) {
        assert!(close(*got, *n, 1e-6), "{got} vs {n}");
    }
    let (_, pullback) = vjp!(arrays_from_fn)(x, a);
    let (px, pa) = pullback(2.0);
    assert!(close(px[1], 2.0 * by_hand_x[1], 1e-12) && close(pa, 2.0 * by_hand_a, 1e-12));
    let (jv, jt) = jvp!(arrays_from_fn)(x, a, [0.0, 0.0, 0.0], 1.0);
    assert_eq!(jv.to_bits(), v.to_bits());
    assert!(close(jt, by_hand_a, 1e-12));
    let (_, (g32, _)) = value_and_gradients_function!(arrays_from_fn)([1.0f32, -2.0, 0.5], 1.5f32);
    assert!((g32[0] as f64 - by_hand_x[0]).abs() < 1e-4);
}

/// An iterator stepped by `while let Some(v) = it.next()` (named nowhere else): the `for`
/// loop over it, mapped items and a labelled `break` included.
#[allow(clippy::while_let_on_iterator)] // the form is the point
#[differentiable]
fn stepped_iterator(x: &[f64], a: f64) -> f64 {
    let mut it = x.iter().map(|v| v * a);
    let mut s = 0.0;
    let mut pairs = x.iter().zip(x.iter().skip(1));
    'walk: while let Some((&u, &w)) = pairs.next() {
        if u * w > 10.0 {
            break 'walk;
        }
        s += u * w;
    }
    while let Some(v) = it.next() {
        s += v * v;
    }
    s
}

#[test]
fn iterators_stepped_by_next() {
    let (x, a) = ([1.0, 2.0, -0.5, 3.0], 0.5);
    let (v, (gx, ga)) = value_and_gradients_function!(stepped_iterator)(&x[..], a);
    assert_eq!(v.to_bits(), stepped_iterator(&x, a).to_bits());
    // by hand: Σ x_k x_{k+1} (no product above 10 here) + a² Σ x_k²
    let mut by_hand: Vec<f64> = x.iter().map(|v| 2.0 * a * a * v).collect();
    for k in 0..3 {
        by_hand[k] += x[k + 1];
        by_hand[k + 1] += x[k];
    }
    let by_hand_a = 2.0 * a * x.iter().map(|v| v * v).sum::<f64>();
    for k in 0..4 {
        assert!(close(gx[k], by_hand[k], 1e-12), "{gx:?} vs {by_hand:?}");
    }
    assert!(close(ga, by_hand_a, 1e-12));
    let fd = autodiff::check::finite_difference(|p| stepped_iterator(p, a), &x);
    for k in 0..4 {
        assert!(close(gx[k], fd[k], 1e-6), "{gx:?} vs {fd:?}");
    }
    let (jv, jt) = jvp!(stepped_iterator)(&x[..], a, &[0.0; 4][..], 1.0);
    assert_eq!(jv.to_bits(), v.to_bits());
    assert!(close(jt, by_hand_a, 1e-12));
    let (_, pullback) = vjp!(stepped_iterator)(&x[..], a);
    let (px, _) = pullback(3.0);
    assert!(close(px[2], 3.0 * by_hand[2], 1e-12));
}
