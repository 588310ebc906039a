//! Forward mode (`jvp!`) of parameters that are sequences of sequences — `&[Vec<f64>]`,
//! `Vec<Vec<f64>>`, `&[[f64; 2]]`, `[[f64; 3]; 3]` — read element by element, handed on to
//! callees whole and as sub-slices of rows: each tangent against ⟨∇f, v⟩ from the reverse
//! gradient, central finite differences and values derived by hand; tangents of the wrong
//! shape panic naming the row.

// index loops are the constructs under test
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// Central difference of `f` at `x` along `v`, both given as rows.
fn central_rows(f: impl Fn(&[Vec<f64>]) -> f64, x: &[Vec<f64>], v: &[Vec<f64>]) -> f64 {
    let h = 1e-6;
    let step = |s: f64| -> Vec<Vec<f64>> {
        x.iter()
            .zip(v)
            .map(|(r, t)| r.iter().zip(t).map(|(a, b)| a + s * h * b).collect())
            .collect()
    };
    (f(&step(1.0)) - f(&step(-1.0))) / (2.0 * h)
}

/// ⟨g, v⟩ of two sequences of rows.
fn dot_rows<R: AsRef<[f64]>>(g: &[R], v: &[R]) -> f64 {
    g.iter()
        .zip(v)
        .map(|(a, b)| {
            a.as_ref()
                .iter()
                .zip(b.as_ref())
                .map(|(p, q)| p * q)
                .sum::<f64>()
        })
        .sum()
}

/// `Σᵢⱼ sin(mᵢⱼ) · wⱼᵢ`: rows that are `Vec`s, one borrowed and one owned.
#[differentiable]
fn mixed_rows(m: &[Vec<f64>], w: Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j].sin() * w[j][i];
        }
    }
    s
}

#[test]
fn rows_that_are_vecs_borrowed_and_owned() {
    let m = vec![vec![0.3, -1.2, 0.5], vec![0.7, 2.0, -0.4]];
    let w = vec![vec![1.5, -0.5], vec![0.25, 2.0], vec![-1.0, 0.75]];
    let tm = vec![vec![1.0, 0.5, -2.0], vec![0.25, -1.0, 3.0]];
    let tw = vec![vec![-0.5, 1.0], vec![2.0, 0.1], vec![0.3, -0.7]];
    let (gm, gw) = gradients_function!(mixed_rows)(&m, w.clone());

    let (y, dy) = jvp!(mixed_rows, params = ["m"])(&m, w.clone(), &tm);
    assert_eq!(y, mixed_rows(&m, w.clone()));
    // by hand: ∂/∂mᵢⱼ = cos(mᵢⱼ) · wⱼᵢ
    let mut hand = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            hand += m[i][j].cos() * w[j][i] * tm[i][j];
        }
    }
    assert!(close(dy, hand, 1e-14), "{dy} vs {hand}");
    let dot = dot_rows(&gm, &tm);
    assert!(close(dy, dot, 1e-12), "{dy} vs {dot}");
    let fd = central_rows(|p| mixed_rows(p, w.clone()), &m, &tm);
    assert!(close(dy, fd, 1e-7), "{dy} vs {fd}");

    let (_, dy) = jvp!(mixed_rows)(&m, w.clone(), &tm, tw.clone());
    let dot = dot_rows(&gm, &tm) + dot_rows(&gw, &tw);
    assert!(close(dy, dot, 1e-12), "{dy} vs {dot}");
    let (_, dw) = jvp!(mixed_rows, params = ["w"])(&m, w.clone(), tw.clone());
    let fd = central_rows(|p| mixed_rows(&m, p.to_vec()), &w, &tw);
    assert!(close(dw, fd, 1e-7), "{dw} vs {fd}");
}

/// The energy of rows, handed on whole and as a sub-slice of rows to one callee.
#[differentiable]
fn row_energy(m: &[Vec<f64>]) -> f64 {
    let mut e = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            e += m[i][j] * m[i][j] * m[i][j];
        }
    }
    e
}

#[differentiable]
fn rows_handed_on(m: &[Vec<f64>], s: f64) -> f64 {
    s * row_energy(m) + row_energy(&m[1..]).exp()
}

#[test]
fn rows_handed_to_a_callee_whole_and_as_a_sub_slice() {
    let m = vec![vec![0.3, -0.2], vec![0.5], vec![-0.4, 0.1, 0.2]];
    let tm = vec![vec![1.0, -2.0], vec![0.5], vec![0.25, 3.0, -1.0]];
    let s = 1.5;
    let (y, dy) = jvp!(rows_handed_on)(&m, s, &tm, 0.5);
    assert_eq!(y, rows_handed_on(&m, s));
    let (gm, gs) = gradients_function!(rows_handed_on)(&m, s);
    let dot = dot_rows(&gm, &tm) + gs * 0.5;
    assert!(close(dy, dot, 1e-12), "{dy} vs {dot}");
    // by hand: e(m) = Σ v³, so d e = Σ 3v² t; the tail's energy through exp
    let de = |rows: &[Vec<f64>], t: &[Vec<f64>]| {
        dot_rows(
            &rows
                .iter()
                .map(|r| r.iter().map(|v| 3.0 * v * v).collect::<Vec<_>>())
                .collect::<Vec<_>>(),
            t,
        )
    };
    let hand =
        0.5 * row_energy(&m) + s * de(&m, &tm) + row_energy(&m[1..]).exp() * de(&m[1..], &tm[1..]);
    assert!(close(dy, hand, 1e-14), "{dy} vs {hand}");
    let fd = central_rows(|p| rows_handed_on(p, s), &m, &tm)
        + 0.5 * (rows_handed_on(&m, s + 1e-6) - rows_handed_on(&m, s - 1e-6)) / 2e-6;
    assert!(close(dy, fd, 1e-7), "{dy} vs {fd}");
}

/// The determinant of a 2 × 2 matrix handed as a slice of rows.
#[differentiable]
fn det_of_rows(m: &[[f64; 2]]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

/// A local array of arrays lent to the callee: `det [[x, 1], [2, x²]] = x³ − 2`.
#[differentiable]
fn det_of_local_rows(x: f64) -> f64 {
    let m = [[x, 1.0], [2.0, x * x]];
    det_of_rows(&m)
}

#[test]
fn a_slice_of_arrays_and_a_local_array_of_arrays() {
    let a = [[1.5, -2.0], [0.5, 3.0]];
    let t = [[0.1, 1.0], [-2.0, 0.5]];
    let (y, dy) = jvp!(det_of_rows)(&a, &t);
    assert_eq!(y, det_of_rows(&a));
    // by hand: d det = t₀₀ m₁₁ + m₀₀ t₁₁ − t₀₁ m₁₀ − m₀₁ t₁₀
    let hand = t[0][0] * a[1][1] + a[0][0] * t[1][1] - t[0][1] * a[1][0] - a[0][1] * t[1][0];
    assert!(close(dy, hand, 1e-15), "{dy} vs {hand}");
    let g = gradients_function!(det_of_rows)(&a);
    let dot = dot_rows(&g, &t);
    assert!(close(dy, dot, 1e-14), "{dy} vs {dot}");

    let (y, dy) = jvp!(det_of_local_rows)(0.7, 2.0);
    assert!(close(y, 0.7_f64.powi(3) - 2.0, 1e-15));
    assert!(close(dy, 3.0 * 0.49 * 2.0, 1e-14), "{dy}");
}

/// `xᵀ A x + (tr A)²` with the matrix an array of arrays taken by value.
#[differentiable]
fn quadratic_form(a: [[f64; 3]; 3], x: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            s += x[i] * a[i][j] * x[j];
        }
    }
    let tr = a[0][0] + a[1][1] + a[2][2];
    s + tr * tr
}

#[test]
fn an_array_of_arrays_by_value() {
    let a = [[1.0, 0.5, -0.25], [2.0, -1.0, 0.75], [0.3, 0.4, 1.5]];
    let x = [0.5, -1.5, 2.0];
    let ta = [[0.2, -1.0, 0.5], [1.0, 0.3, -0.4], [0.0, 2.0, -0.6]];
    let tx = [1.0, 0.25, -0.5];
    let (y, dy) = jvp!(quadratic_form)(a, &x, ta, &tx);
    assert_eq!(y, quadratic_form(a, &x));
    // by hand: d(xᵀAx) = xᵀ T x + txᵀ A x + xᵀ A tx; d(tr²) = 2 tr · tr T
    let mut hand = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            hand += x[i] * ta[i][j] * x[j] + tx[i] * a[i][j] * x[j] + x[i] * a[i][j] * tx[j];
        }
    }
    let tr = a[0][0] + a[1][1] + a[2][2];
    hand += 2.0 * tr * (ta[0][0] + ta[1][1] + ta[2][2]);
    assert!(close(dy, hand, 1e-14), "{dy} vs {hand}");
    let (ga, gx) = gradients_function!(quadratic_form)(a, &x);
    let dot = dot_rows(&ga, &ta) + gx.iter().zip(&tx).map(|(p, q)| p * q).sum::<f64>();
    assert!(close(dy, dot, 1e-13), "{dy} vs {dot}");
    let (_, da) = jvp!(quadratic_form, params = ["a"])(a, &x, ta);
    let rows = |p: &[[f64; 3]; 3]| p.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    let fd = central_rows(
        |p| {
            quadratic_form(
                std::array::from_fn(|i| std::array::from_fn(|j| p[i][j])),
                &x,
            )
        },
        &rows(&a),
        &rows(&ta),
    );
    assert!(close(da, fd, 1e-7), "{da} vs {fd}");
}

#[test]
#[should_panic(
    expected = "the tangent of `m[1]` (parameter of `mixed_rows`) has shape [2], but `m[1]` has shape [3]"
)]
fn a_row_of_the_wrong_length_panics_naming_the_row() {
    let m = vec![vec![0.3, -1.2, 0.5], vec![0.7, 2.0, -0.4]];
    let w = vec![vec![1.5, -0.5], vec![0.25, 2.0], vec![-1.0, 0.75]];
    let tm = vec![vec![1.0, 0.5, -2.0], vec![0.25, -1.0]];
    let _ = jvp!(mixed_rows, params = ["m"])(&m, w, &tm);
}

#[test]
#[should_panic(
    expected = "the tangent of `w` (parameter of `mixed_rows`) has shape [2], but `w` has shape [3]"
)]
fn too_few_rows_panic_naming_the_parameter() {
    let m = vec![vec![0.3, -1.2, 0.5], vec![0.7, 2.0, -0.4]];
    let w = vec![vec![1.5, -0.5], vec![0.25, 2.0], vec![-1.0, 0.75]];
    let tw = vec![vec![1.0, 0.5], vec![0.25, -1.0]];
    let _ = jvp!(mixed_rows, params = ["w"])(&m, w, tw);
}

#[test]
fn the_reverse_gradient_of_rows_handed_on_as_a_sub_slice() {
    let m = vec![vec![0.3, -0.2], vec![0.5], vec![-0.4, 0.1, 0.2]];
    let s = 1.5;
    let (gm, gs) = gradients_function!(rows_handed_on)(&m, s);
    // by hand: ∂/∂mᵢⱼ = 3mᵢⱼ² (s + [i ≥ 1] exp(e(m[1..]))), ∂/∂s = e(m)
    let tail = row_energy(&m[1..]).exp();
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            let hand = 3.0 * m[i][j] * m[i][j] * (s + if i >= 1 { tail } else { 0.0 });
            assert!(
                close(gm[i][j], hand, 1e-14),
                "[{i}][{j}]: {} vs {hand}",
                gm[i][j]
            );
        }
    }
    assert!(close(gs, row_energy(&m), 1e-15));
}

/// Two ranges of one slice of rows handed to one call, and the same range twice.
#[differentiable]
fn pair_energy(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    row_energy(a) * row_energy(b)
}

#[differentiable]
fn rows_split_in_one_call(m: &[Vec<f64>]) -> f64 {
    pair_energy(&m[..1], &m[1..]) + pair_energy(&m[1..], &m[1..])
}

#[test]
fn ranges_of_one_slice_of_rows_in_one_call() {
    let m = vec![vec![0.3, -0.2], vec![0.5], vec![-0.4, 0.1, 0.2]];
    let g = gradients_function!(rows_split_in_one_call)(&m);
    // by hand: f = e₀ · e₁ + e₁², with e₀ the first row's energy and e₁ the others'
    let (e0, e1) = (row_energy(&m[..1]), row_energy(&m[1..]));
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            let de = 3.0 * m[i][j] * m[i][j];
            let hand = if i == 0 {
                de * e1
            } else {
                de * (e0 + 2.0 * e1)
            };
            assert!(
                close(g[i][j], hand, 1e-14),
                "[{i}][{j}]: {} vs {hand}",
                g[i][j]
            );
        }
    }
    let (value, pullback) = vjp!(rows_split_in_one_call)(&m);
    assert_eq!(value, rows_split_in_one_call(&m));
    let doubled = pullback(2.0);
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            assert_eq!(doubled[i][j], 2.0 * g[i][j]);
        }
    }
    // the implicit mode: the rows a variable a closure reads
    let w = Variable::new(m.clone());
    let f = differentiable_closure!(|s: f64| rows_split_in_one_call(&w) * s);
    let gw: Vec<Vec<f64>> = implicit_gradients(&f)(0.5).get(&w).expect("w was read");
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            assert!(
                close(gw[i][j], 0.5 * g[i][j], 1e-15),
                "{} vs {}",
                gw[i][j],
                g[i][j]
            );
        }
    }
    let t = vec![vec![1.0, -0.5], vec![2.0], vec![0.25, -1.0, 0.5]];
    let (_, dy) = jvp!(rows_split_in_one_call)(&m, &t);
    let fd = central_rows(rows_split_in_one_call, &m, &t);
    assert!(
        close(dy, dot_rows(&g, &t), 1e-12) && close(dy, fd, 1e-7),
        "{dy} vs {fd}"
    );
}
