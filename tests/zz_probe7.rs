#![allow(clippy::all, unused)]
use autodiff::ndarray::{s, Array1, Array2, Axis, Zip};
use autodiff::prelude::*;

fn fd_arr(f: impl Fn(&Array2<f64>) -> f64, a: &Array2<f64>) -> Array2<f64> {
    let mut g = a.clone();
    for idx in 0..a.len() {
        let (i, j) = (idx / a.ncols(), idx % a.ncols());
        let h = 1e-6;
        let mut p = a.clone();
        p[[i, j]] += h;
        let mut m = a.clone();
        m[[i, j]] -= h;
        g[[i, j]] = (f(&p) - f(&m)) / (2.0 * h);
    }
    g
}
fn check2(name: &str, g: &Array2<f64>, f: impl Fn(&Array2<f64>) -> f64, a: &Array2<f64>) {
    let fd = fd_arr(f, a);
    for (x, y) in g.iter().zip(fd.iter()) {
        assert!(
            (x - y).abs() < 1e-5 * (1.0 + y.abs()),
            "{name}: {g} vs {fd}"
        );
    }
}

#[differentiable]
fn mlp_loss(w: &Array2<f64>, x: &Array2<f64>, y: &Array2<f64>) -> f64 {
    let z = x.dot(w);
    let h = z.mapv(|v| v.max(0.0));
    (&h - y).mapv(|v| v * v).mean().unwrap()
}

#[differentiable]
fn row_softmax_loss(w: &Array2<f64>, x: &Array2<f64>) -> f64 {
    let z = x.dot(w);
    let m = z.map_axis(Axis(1), |r| r.fold(f64::NEG_INFINITY, |a, &b| a.max(b)));
    let e = (&z - &m.insert_axis(Axis(1))).mapv(f64::exp);
    let s = e.sum_axis(Axis(1));
    s.mapv(f64::ln).sum()
}

#[differentiable]
fn zeros_then_fill(w: &Array2<f64>) -> f64 {
    let mut v = Array1::zeros(w.nrows());
    for i in 0..w.nrows() {
        v[i] = w.row(i).sum() * 2.0;
    }
    v.dot(&v)
}

#[differentiable]
fn nd_fold(w: &Array2<f64>) -> f64 {
    w.fold(0.0, |acc, v| acc + v * v)
}

#[differentiable]
fn nd_iter_sum(w: &Array2<f64>) -> f64 {
    w.iter().map(|v| v.sin()).sum()
}

#[differentiable]
fn nd_gram(w: &Array2<f64>) -> f64 {
    let g = w.dot(&w.t());
    g.diag().sum()
}

#[differentiable]
fn nd_slice_cols(w: &Array2<f64>) -> f64 {
    let a = w.slice(s![.., 1..]);
    let c = w.column(0);
    a.sum() * c.sum()
}

#[differentiable]
fn nd_zip(w: &Array2<f64>) -> f64 {
    let mut out = Array2::zeros(w.raw_dim());
    Zip::from(&mut out).and(w).for_each(|o, &a| *o = a * a);
    out.sum()
}

#[test]
fn probe() {
    let w = Array2::from_shape_vec((3, 2), vec![0.1, -0.2, 0.3, 0.4, -0.5, 0.6]).unwrap();
    let x =
        Array2::from_shape_vec((4, 3), (0..12).map(|i| (i as f64 * 0.37).sin()).collect()).unwrap();
    let y =
        Array2::from_shape_vec((4, 2), (0..8).map(|i| (i as f64 * 0.21).cos()).collect()).unwrap();
    let g = gradients_function!(mlp_loss, params = ["w"])(&w, &x, &y);
    check2("mlp", &g, |w| mlp_loss(w, &x, &y), &w);
    let g = gradients_function!(row_softmax_loss, params = ["w"])(&w, &x);
    check2("softmax", &g, |w| row_softmax_loss(w, &x), &w);
    macro_rules! one {
        ($f:ident) => {{
            let g = gradients_function!($f)(&w);
            check2(stringify!($f), &g, |v| $f(v), &w);
        }};
    }
    one!(zeros_then_fill);
    one!(nd_fold);
    one!(nd_iter_sum);
    one!(nd_gram);
    one!(nd_slice_cols);
    one!(nd_zip);
}
