//! ndarray code under `#[differentiable]`: broadcasting arithmetic, products, reductions,
//! elementwise functions, `mapv`, views, local arrays, loops. Every gradient is compared
//! with central finite differences of the function as written, and, where the formula is
//! short, with one derived by hand.

use autodiff::check::{assert_gradient_close, finite_difference, finite_difference_array as fd};
use autodiff::ndarray::{array, Array, Array1, Array2, ArrayView1, Axis, Dimension};
use autodiff::prelude::*;
use autodiff::{gradients_function, value_and_gradients_function, vjp};

/// Relative tolerance against finite differences (fourth-order, step 1e-3·max(1,|x|)): the
/// functions below have derivatives of moderate size, so 1e-7 leaves a wide margin.
const FD_TOL: f64 = 1e-7;

#[track_caller]
fn assert_close<D: Dimension>(name: &str, actual: &Array<f64, D>, expected: &Array<f64, D>) {
    assert_eq!(actual.shape(), expected.shape(), "{name}: shapes");
    let a: Vec<f64> = actual.iter().copied().collect();
    let e: Vec<f64> = expected.iter().copied().collect();
    eprintln!("checking {name}");
    assert_gradient_close(&a, &e, FD_TOL);
}

fn x23() -> Array2<f64> {
    array![[0.3, -0.7, 1.1], [0.5, 0.2, -0.4]]
}

#[differentiable]
fn dense_tanh(x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>) -> f64 {
    let h = x.dot(w) + b;
    h.mapv(f64::tanh).sum()
}

#[test]
fn a_dense_layer_against_finite_differences_and_by_hand() {
    let x = x23();
    let w = array![[0.1, -0.2], [0.3, 0.4], [-0.5, 0.25]];
    let b = array![0.05, -0.1];
    let (v, (gx, gw, gb)) = value_and_gradients_function!(dense_tanh)(&x, &w, &b);
    assert_eq!(v, dense_tanh(&x, &w, &b));
    assert_close("x", &gx, &fd(&x, |x| dense_tanh(x, &w, &b)));
    assert_close("w", &gw, &fd(&w, |w| dense_tanh(&x, w, &b)));
    assert_close("b", &gb, &fd(&b, |b| dense_tanh(&x, &w, b)));
    // by hand: dh = 1 − tanh²(h); dw = xᵀ·dh, db = Σ_rows dh, dx = dh·wᵀ
    let h = x.dot(&w) + &b;
    let dh = h.mapv(|v| 1.0 - v.tanh() * v.tanh());
    assert_close("w by hand", &gw, &x.t().dot(&dh));
    assert_close("b by hand", &gb, &dh.sum_axis(Axis(0)));
    assert_close("x by hand", &gx, &dh.dot(&w.t()));
}

#[differentiable]
fn broadcasts(m: &Array2<f64>, row: &Array1<f64>, col: &Array2<f64>, s: f64) -> f64 {
    let a = m * row; // (2,3) * (3,)
    let b = &a / col; // (2,3) / (2,1)
    let c = s - &b; // scalar - array
    let d = &c * s + row; // array * scalar + (3,)
    let e = row / s; // (3,) / scalar
    (d.mapv(|v| v * v).sum() + e.sum()) / (2.0 + s * s)
}

#[test]
fn every_broadcasting_pattern_of_the_four_operators() {
    let m = x23();
    let row = array![0.4, -1.2, 0.8];
    let col = array![[1.5], [-0.75]];
    let s = 0.6;
    let (gm, grow, gcol, gs) = gradients_function!(broadcasts)(&m, &row, &col, s);
    assert_close("m", &gm, &fd(&m, |m| broadcasts(m, &row, &col, s)));
    assert_close("row", &grow, &fd(&row, |r| broadcasts(&m, r, &col, s)));
    assert_close("col", &gcol, &fd(&col, |c| broadcasts(&m, &row, c, s)));
    let fs = finite_difference(|p| broadcasts(&m, &row, &col, p[0]), &[s]);
    assert_gradient_close(&[gs], &fs, FD_TOL);
}

#[differentiable]
fn products(a: &Array2<f64>, b: &Array2<f64>, u: &Array1<f64>, v: &Array1<f64>) -> f64 {
    let mm = a.dot(b); // (2,3)·(3,2)
    let mv = a.dot(v); // (2,3)·(3,)
    let vm = u.dot(a); // (2,)·(2,3)
    let vv = v.dot(v); // (3,)·(3,)
    mm.sum() + mv.dot(u) + vm.mapv(f64::sin).sum() + vv * 0.5 + a.t().dot(u).sum()
}

#[test]
fn matrix_and_vector_products_and_transposes() {
    let a = x23();
    let b = array![[0.1, -0.2], [0.3, 0.4], [-0.5, 0.25]];
    let u = array![0.7, -0.3];
    let v = array![0.2, 0.9, -0.6];
    let (ga, gb, gu, gv) = gradients_function!(products)(&a, &b, &u, &v);
    assert_close("a", &ga, &fd(&a, |a| products(a, &b, &u, &v)));
    assert_close("b", &gb, &fd(&b, |b| products(&a, b, &u, &v)));
    assert_close("u", &gu, &fd(&u, |u| products(&a, &b, u, &v)));
    assert_close("v", &gv, &fd(&v, |v| products(&a, &b, &u, v)));
}

#[differentiable]
fn reductions(x: &Array2<f64>) -> f64 {
    let rows = x.sum_axis(Axis(1));
    let cols = x.mean_axis(Axis(0)).unwrap();
    let m = x.mean().unwrap();
    rows.mapv(f64::exp).sum() + cols.dot(&cols) + m * m + x.view().sum()
}

#[test]
fn sums_and_means_over_all_elements_and_along_axes() {
    let x = x23();
    let g = gradients_function!(reductions)(&x);
    assert_close("x", &g, &fd(&x, reductions));
}

#[differentiable]
fn elementwise(x: &Array1<f64>) -> f64 {
    let a = x.exp() + x.mapv(f64::sin) + x.powi(3);
    let b = (x * x + 1.0).sqrt().ln();
    let relu = x.mapv(|v| v.max(0.0));
    let sigmoid = x.mapv(|v| 1.0 / (1.0 + (-v).exp()));
    (a * b).sum() + relu.sum() * 2.0 + sigmoid.sum() - (-x).sum()
}

#[test]
fn elementwise_methods_and_mapv_with_paths_and_closures() {
    let x = array![0.3, -0.7, 1.1, -0.2];
    let g = gradients_function!(elementwise)(&x);
    assert_close("x", &g, &fd(&x, elementwise));
}

#[differentiable]
fn recurrent(x: &Array1<f64>, w: &Array2<f64>, steps: usize) -> f64 {
    let mut h = x.clone();
    for _ in 0..steps {
        h = w.dot(&h).mapv(f64::tanh) + &h * 0.5;
    }
    h.sum()
}

#[test]
fn a_local_array_updated_in_a_loop() {
    let x = array![0.3, -0.7, 0.4];
    let w = array![[0.1, -0.2, 0.3], [0.3, 0.4, -0.1], [-0.5, 0.25, 0.2]];
    let (gx, gw) = gradients_function!(recurrent)(&x, &w, 4);
    assert_close("x", &gx, &fd(&x, |x| recurrent(x, &w, 4)));
    assert_close("w", &gw, &fd(&w, |w| recurrent(&x, w, 4)));
}

#[differentiable]
fn owned_and_views(a: Array1<f64>, b: ArrayView1<f64>) -> Array1<f64> {
    let c = &a * &b;
    c.mapv(f64::cos) + &a
}

#[test]
fn owned_arrays_views_and_array_outputs_through_vjp() {
    let a = array![0.3, -0.7, 0.4];
    let b = array![1.5, 0.5, -2.0];
    let (y, pullback) = vjp!(owned_and_views)(a.clone(), b.view());
    assert_eq!(y, owned_and_views(a.clone(), b.view()));
    let dy = array![1.0, -2.0, 0.5];
    let (ga, gb) = pullback(dy.clone());
    let weighted = |a: &Array1<f64>, b: &Array1<f64>| owned_and_views(a.clone(), b.view()).dot(&dy);
    assert_close("a", &ga, &fd(&a, |a| weighted(a, &b)));
    assert_close("b", &gb, &fd(&b, |b| weighted(&a, b)));
}

#[differentiable]
fn scalar_and_array_mixed(x: &Array1<f64>, k: f64) -> f64 {
    let s = x.sum();
    let y = x * (s * k).sin();
    y.dot(x) + s * k
}

#[test]
fn scalars_computed_from_arrays_flow_back_into_them() {
    let x = array![0.3, -0.7, 0.4];
    let (gx, gk) = gradients_function!(scalar_and_array_mixed)(&x, 0.8);
    assert_close("x", &gx, &fd(&x, |x| scalar_and_array_mixed(x, 0.8)));
    let fk = finite_difference(|p| scalar_and_array_mixed(&x, p[0]), &[0.8]);
    assert_gradient_close(&[gk], &fk, FD_TOL);
}

#[differentiable]
fn elements(a: &Array2<f64>, v: &Array1<f64>, i: usize) -> f64 {
    let mut acc = a[[i, 0]] * a[[0, 1]] + a[[1, i]].sin();
    for k in 0..v.len() {
        acc += v[k] * a[[k % 2, 2]];
    }
    acc
}

#[test]
fn indexing_array_elements() {
    let a = x23();
    let v = array![0.5, -1.5, 2.0];
    let (ga, gv) = gradients_function!(elements, params = ["a", "v"])(&a, &v, 1);
    assert_close("a", &ga, &fd(&a, |a| elements(a, &v, 1)));
    assert_close("v", &gv, &fd(&v, |v| elements(&a, v, 1)));
}

#[differentiable]
fn pieces(x: &Array2<f64>, #[no_grad] picks: &[usize]) -> f64 {
    let left = x.slice(autodiff::ndarray::s![.., 0..2]);
    let r = x.row(1);
    let c = x.column(2);
    let chosen = x.select(Axis(0), picks);
    let lane = x.index_axis(Axis(1), 1);
    (&left * &left).sum() + r.mapv(f64::sin).sum() + c.dot(&c) + chosen.sum() * 0.5 + lane.sum()
}

#[test]
fn slices_rows_columns_and_selections() {
    let x = x23();
    let picks = [1, 0, 1];
    let g = gradients_function!(pieces, params = ["x"])(&x, &picks);
    assert_close("x", &g, &fd(&x, |x| pieces(x, &picks)));
}

// Regression tests for bugs the random-program tester found.

#[differentiable]
fn array_cell_overwritten_in_a_branch(v: &Array1<f64>, s: f64, n: usize) -> f64 {
    let mut t1 = (v * (s + s * 0.5)).mapv(f64::sin);
    if n % 3 == 0 {
        t1 = v.to_owned();
    }
    t1.dot(&t1) * 0.1 + s
}

/// The array written to a cell was moved into it although the reverse sweep still read it
/// (`mapv`'s rule reads its output): "use of moved value" in the generated code.
#[test]
fn regression_array_written_to_a_cell_is_still_read_by_the_reverse_sweep() {
    let v = array![0.3, -0.7, 0.4];
    for n in [1, 3] {
        let (gv, gs) = gradients_function!(array_cell_overwritten_in_a_branch)(&v, 0.8, n);
        assert_close(
            "v",
            &gv,
            &fd(&v, |v| array_cell_overwritten_in_a_branch(v, 0.8, n)),
        );
        let fs = finite_difference(|p| array_cell_overwritten_in_a_branch(&v, p[0], n), &[0.8]);
        assert_gradient_close(&[gs], &fs, FD_TOL);
    }
}

#[differentiable]
fn squashed(x: &Array1<f64>) -> Array1<f64> {
    x.mapv(f64::tanh)
}

/// The result was moved out of the forward sweep although its own rule reads it.
#[test]
fn regression_an_array_result_read_by_its_own_rule() {
    let x = array![0.3, -0.7];
    let (y, pullback) = vjp!(squashed)(&x);
    assert_eq!(y, squashed(&x));
    let g = pullback(array![1.0, 1.0]);
    assert_close("x", &g, &fd(&x, |x| squashed(x).sum()));
}

#[differentiable]
fn shapes_and_statistics(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let grid = x.to_shape((2, 2)).unwrap();
    let wide = x.broadcast((3, 4)).unwrap();
    let column = x.view().insert_axis(Axis(1));
    let flipped = m.to_owned().reversed_axes();
    let mut h = m.to_owned();
    h.mapv_inplace(f64::tanh);
    grid.dot(&flipped.slice(autodiff::ndarray::s![0..2, ..]))
        .sum()
        * 0.1
        + wide.mapv(f64::sin).sum()
        + column.sum_axis(Axis(0)).sum()
        + x.var(0.0)
        + x.std(1.0)
        + x.product()
        + h.sum()
}

#[test]
fn reshapes_broadcasts_new_axes_statistics_and_in_place_maps() {
    let x = array![0.3, -0.7, 1.1, 0.5];
    let m = array![[0.2, -0.4], [0.6, 0.1], [-0.3, 0.8]];
    let (gx, gm) = gradients_function!(shapes_and_statistics)(&x, &m);
    assert_close("x", &gx, &fd(&x, |x| shapes_and_statistics(x, &m)));
    assert_close("m", &gm, &fd(&m, |m| shapes_and_statistics(&x, m)));
    // forward mode (`var`, `std`, `product` among the rest): ⟨∇f, t⟩
    let (tx, tm) = (
        array![0.5, 1.2, -0.4, 0.9],
        array![[0.3, 0.1], [-0.7, 0.2], [0.4, -0.5]],
    );
    let (value, t) = jvp!(shapes_and_statistics)(&x, &m, &tx, &tm);
    assert_eq!(value.to_bits(), shapes_and_statistics(&x, &m).to_bits());
    let along = (&gx * &tx).sum() + (&gm * &tm).sum();
    assert!(
        (t - along).abs() < 1e-12 * along.abs().max(1.0),
        "{t} vs {along}"
    );
}

#[differentiable]
fn joined(a: &Array2<f64>, b: &Array2<f64>, v: &Array1<f64>) -> f64 {
    let tall = autodiff::ndarray::concatenate(Axis(0), &[a.view(), b.view()]).unwrap();
    let rows = autodiff::ndarray::stack(Axis(0), &[v.view(), v.view()]).unwrap();
    tall.mapv(f64::sin).sum() + (&rows * &rows).sum() * 0.5 + tall.dot(v).sum()
}

#[test]
fn concatenate_and_stack() {
    let a = x23().t().to_owned(); // 3 × 2
    let b = array![[0.5, -0.25]];
    let v = array![0.7, -1.1];
    let (ga, gb, gv) = gradients_function!(joined)(&a, &b, &v);
    assert_close("a", &ga, &fd(&a, |a| joined(a, &b, &v)));
    assert_close("b", &gb, &fd(&b, |b| joined(&a, b, &v)));
    assert_close("v", &gv, &fd(&v, |v| joined(&a, &b, v)));
    // forward mode: the join of the parts' tangents, ⟨∇f, t⟩; and with `b` constant
    let (ta, tb, tv) = (
        array![[0.2, -0.6], [0.9, 0.1], [-0.3, 0.4]],
        array![[1.5, 0.5]],
        array![-0.8, 0.3],
    );
    let (value, t) = jvp!(joined)(&a, &b, &v, &ta, &tb, &tv);
    assert_eq!(value.to_bits(), joined(&a, &b, &v).to_bits());
    let along = (&ga * &ta).sum() + (&gb * &tb).sum() + (&gv * &tv).sum();
    assert!(
        (t - along).abs() < 1e-12 * along.abs().max(1.0),
        "{t} vs {along}"
    );
    let (_, t) = jvp!(joined, params = ["a", "v"])(&a, &b, &v, &ta, &tv);
    let along = (&ga * &ta).sum() + (&gv * &tv).sum();
    assert!(
        (t - along).abs() < 1e-12 * along.abs().max(1.0),
        "{t} vs {along}"
    );
}

#[differentiable]
fn seed5001_p53(x: &Array2<f64>, v: &Array1<f64>, s: f64) -> f64 {
    let t1 = x.t().to_owned();
    let t2 = s * &t1;
    let t3 = x.dot(&(&t2 + x)) * 0.3;
    let t5 = &((&t1 * v).mapv(f64::tanh)) + &((&t3 * s).mapv(f64::tanh));
    t5.sum() * 0.2 + t3.sum() * 0.2
}

#[differentiable]
fn seed5002_p179(x: &Array2<f64>, v: &Array1<f64>, s: f64) -> f64 {
    let t1 = ((x * v).mapv(f64::tanh)).t().to_owned();
    let t3 = (&(v + &t1) * s).mapv(f64::tanh);
    t3.sum() * 0.2 + t1.sum() * 0.2
}

/// The gradient of a scalar times an array was a dot product over the two arrays' memory,
/// pairing the wrong elements when one was column-major (`x.t().to_owned()`).
#[test]
fn regression_seed5001_p53_and_seed5002_p179_scalar_times_a_column_major_array() {
    let x = array![
        [-0.63, 0.78, -0.85],
        [1.05, 1.16, -0.27],
        [1.0, -1.24, 1.02]
    ];
    let v = array![0.23, -0.66, -0.81];
    let s = 0.44;
    type F = fn(&Array2<f64>, &Array1<f64>, f64) -> f64;
    let cases: [(&str, F); 2] = [
        ("seed5001_p53", seed5001_p53),
        ("seed5002_p179", seed5002_p179),
    ];
    for (name, f) in cases {
        let (gx, gv, gs) = match name {
            "seed5001_p53" => gradients_function!(seed5001_p53)(&x, &v, s),
            _ => gradients_function!(seed5002_p179)(&x, &v, s),
        };
        assert_close(name, &gx, &fd(&x, |x| f(x, &v, s)));
        assert_close(name, &gv, &fd(&v, |v| f(&x, v, s)));
        let fs = finite_difference(|p| f(&x, &v, p[0]), &[s]);
        assert_gradient_close(&[gs], &fs, FD_TOL);
    }
}

#[differentiable]
fn permuted(x: &autodiff::ndarray::Array3<f64>, w: &Array1<f64>) -> f64 {
    let p = x.view().permuted_axes([2, 0, 1]);
    (&p.mapv(f64::sin) * w.len() as f64).sum() + p.sum_axis(Axis(0)).sum_axis(Axis(0)).dot(w)
}

#[test]
fn permuted_axes_of_a_three_dimensional_array() {
    let x = autodiff::ndarray::Array3::from_shape_fn((2, 3, 2), |(i, j, k)| {
        (i as f64 - j as f64 * 0.5 + k as f64 * 0.25).sin()
    });
    let w = array![0.5, -1.0, 2.0];
    let (gx, gw) = gradients_function!(permuted)(&x, &w);
    assert_close("x", &gx, &fd(&x, |x| permuted(x, &w)));
    assert_close("w", &gw, &fd(&w, |w| permuted(&x, w)));
}

#[differentiable]
fn mapped(x: &Array1<f64>) -> f64 {
    let clipped = x.map(|v| if *v > 0.0 { v * v } else { 0.5 * *v });
    let smooth = x.map(|v| v.tanh() * 2.0);
    clipped.sum() + smooth.dot(&clipped)
}

#[test]
fn map_with_closures_over_references() {
    let x = array![0.3, -0.7, 1.1, -0.2];
    let g = gradients_function!(mapped)(&x);
    assert_close("x", &g, &fd(&x, mapped));
}

#[differentiable]
fn literals_beside_f32_arrays(a: &Array1<f32>, s: f32) -> f32 {
    let u = 2.0 - &(a * s) * 0.5;
    let r = &u / 1.25 + 0.75;
    (&r * &u).sum()
}

/// Regression: a float literal read by an array rule of the reverse sweep (`&u / 1.25`
/// reads `1.25`) takes the array's element type; it was an `f64`, so the function did not
/// compile with `f32` arrays.
#[test]
fn regression_float_literals_beside_f32_arrays() {
    let a = array![0.3_f32, -0.7, 1.1];
    let s = 0.8_f32;
    let (ga, gs) = gradients_function!(literals_beside_f32_arrays)(&a, s);
    let point: Vec<f64> = a
        .iter()
        .map(|&x| f64::from(x))
        .chain([f64::from(s)])
        .collect();
    let numeric = finite_difference(
        |p| {
            let u: Vec<f64> = p[..3].iter().map(|x| 2.0 - x * p[3] * 0.5).collect();
            u.iter().map(|u| (u / 1.25 + 0.75) * u).sum()
        },
        &point,
    );
    let analytic: Vec<f64> = ga
        .iter()
        .map(|&g| f64::from(g))
        .chain([f64::from(gs)])
        .collect();
    for (k, (g, n)) in analytic.iter().zip(&numeric).enumerate() {
        assert!(
            (g - n).abs() <= 1e-4 * n.abs().max(1.0),
            "input {k}: {g} vs {n}"
        );
    }
}

// ----- views handed to helpers ----------------------------------------------------------

/// A helper taking a view, as ndarray code writes one.
#[differentiable]
fn weighted_view(x: ArrayView1<f64>, k: f64) -> f64 {
    x.sum() * k + x[0] * x[1]
}

/// A view of a parameter handed to it (`x.view()`), and each row of a matrix in a loop
/// whose bound is a query (`0..m.nrows()`).
#[differentiable]
fn through_view(x: &Array1<f64>) -> f64 {
    weighted_view(x.view(), 2.0)
}

#[differentiable]
fn through_rows(m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.nrows() {
        s += weighted_view(m.row(i), 0.5) * (i + 1) as f64;
    }
    s
}

/// Both, one level further down (their derivatives then hand the views again).
#[differentiable]
fn through_both(m: &Array2<f64>, x: &Array1<f64>) -> f64 {
    through_rows(m) * through_view(x)
}

#[test]
fn views_of_parameters_handed_to_helpers() {
    let x = array![1.0, 2.0, -0.5];
    let m = array![[1.0, 2.0, 0.3], [3.0, -4.0, 0.7]];
    let g = gradients_function!(through_view)(&x);
    // by hand: ∂/∂x = 2 + (x₁, x₀, 0)
    assert_close("x", &g, &array![2.0 + 2.0, 2.0 + 1.0, 2.0]);
    assert_close("x by differences", &g, &fd(&x, through_view));
    let gm = gradients_function!(through_rows)(&m);
    let hand = array![
        [1.0 * (0.5 + 2.0), 1.0 * (0.5 + 1.0), 0.5],
        [2.0 * (0.5 - 4.0), 2.0 * (0.5 + 3.0), 1.0]
    ];
    assert_close("m", &gm, &hand);
    assert_close("m by differences", &gm, &fd(&m, through_rows));
    let (a, b) = gradients_function!(through_both)(&m, &x);
    assert_close("m, nested", &a, &(&gm * through_view(&x)));
    assert_close("x, nested", &b, &(&g * through_rows(&m)));
    // forward mode: a view's tangent is a view of the tangent; ⟨∇f, t⟩
    let (tx, tm) = (
        array![0.3, -1.2, 0.8],
        array![[0.5, 0.1, -0.2], [0.4, -0.6, 0.9]],
    );
    let (value, t) = jvp!(through_both)(&m, &x, &tm, &tx);
    assert_eq!(value.to_bits(), through_both(&m, &x).to_bits());
    let along = (&a * &tm).sum() + (&b * &tx).sum();
    assert!(
        (t - along).abs() < 1e-12 * along.abs().max(1.0),
        "{t} vs {along}"
    );
    let (_, t) = jvp!(weighted_view)(x.view(), 2.0, tx.view(), 0.5);
    let hand = (2.0 + x[1]) * tx[0] + (2.0 + x[0]) * tx[1] + 2.0 * tx[2] + x.sum() * 0.5;
    assert!((t - hand).abs() < 1e-14, "{t} vs {hand}");
    // (the view unselected: a zero view lent)
    let (_, t) = jvp!(weighted_view, params = ["k"])(x.view(), 2.0, 0.5);
    assert!((t - x.sum() * 0.5).abs() < 1e-14, "{t}");
}

/// Loops over ranges whose bounds are queries of differentiable arrays, reversed, stepped
/// and inclusive: the indices are constants.
#[differentiable]
fn range_heads(x: &Array1<f64>, m: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev() {
        s += x[i] * (i + 1) as f64;
    }
    for i in (0..m.nrows()).rev() {
        s += m[[i, 0]] * s.sin();
    }
    for j in 0..=m.ncols() - 1 {
        s += m[[0, j]] * x[j];
    }
    for i in (0..x.len()).step_by(2) {
        s += x[i] * x[i];
    }
    s
}

#[test]
fn ranges_bounded_by_queries() {
    let x = array![0.5, 1.5, -0.25];
    let m = array![[1.0, 2.0], [3.0, -4.0]];
    let (gx, gm) = gradients_function!(range_heads)(&x, &m);
    assert_close("x", &gx, &fd(&x, |x| range_heads(x, &m)));
    assert_close("m", &gm, &fd(&m, |m| range_heads(&x, m)));
    let (tx, tm) = (array![0.2, -0.7, 1.1], array![[0.3, -0.5], [0.8, 0.1]]);
    let (_, t) = jvp!(range_heads)(&x, &m, &tx, &tm);
    let along = (&gx * &tx).sum() + (&gm * &tm).sum();
    assert!(
        (t - along).abs() < 1e-12 * along.abs().max(1.0),
        "{t} vs {along}"
    );
}

/// The elements of a matrix parameter iterated: `a.iter()` in a chain and a `for` loop
/// (enumerated: the index counts in logical order), and ndarray's `a.fold(…)`.
#[differentiable]
fn matrix_elements(a: &Array2<f64>, k: f64) -> f64 {
    let waves: f64 = a.iter().map(|v| v.sin()).sum();
    let squares = a.fold(0.0, |acc, v| acc + v * v * k);
    let mut ranked = 0.0;
    for (i, v) in a.iter().enumerate() {
        ranked += (i as f64 + 1.0) * v;
    }
    waves + squares + ranked
}

#[test]
fn elements_of_a_matrix_iterated() {
    let a = array![[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]];
    let (g, gk) = gradients_function!(matrix_elements)(&a, 2.0);
    let rank = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
    let hand = a.mapv(f64::cos) + a.mapv(|v| 4.0 * v) + &rank;
    assert_close("matrix_elements", &g, &hand);
    assert_gradient_close(&[gk], &[a.mapv(|v| v * v).sum()], 1e-14);
    assert_close(
        "matrix_elements fd",
        &g,
        &fd(&a, |a| matrix_elements(a, 2.0)),
    );
    // a matrix in column-major layout: the same logical order, the same gradient
    let f = a.t().to_owned().reversed_axes();
    assert_eq!(f, a);
    let (gf, _) = gradients_function!(matrix_elements)(&f, 2.0);
    assert_close("matrix_elements, column-major", &gf, &hand);
    let t = a.mapv(|v| 0.5 - v);
    let (_, dy) = jvp!(matrix_elements, params = ["a"])(&a, 2.0, &t);
    assert!((dy - (&hand * &t).sum()).abs() < 1e-12);
}

/// `diag()`: the trace of a Gram matrix, and the squares of a matrix's own diagonal.
#[differentiable]
fn traces(w: &Array2<f64>) -> f64 {
    let g = w.dot(&w.t());
    g.diag().sum() + w.diag().mapv(|v| v * v).sum()
}

#[test]
fn diagonals() {
    let w = array![[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]];
    let g = gradients_function!(traces)(&w);
    // trace(W Wᵀ) = ‖W‖²: 2W; Σ W_kk²: 2 W_kk on the diagonal
    let mut hand = w.mapv(|v| 2.0 * v);
    hand[[0, 0]] += 2.0 * w[[0, 0]];
    hand[[1, 1]] += 2.0 * w[[1, 1]];
    assert_close("traces", &g, &hand);
    assert_close("traces fd", &g, &fd(&w, traces));
}
