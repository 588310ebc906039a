//! Networks as users write them with `Vec`s and ndarray: a local `h` reassigned through
//! layers of different widths (`h = dense(w, &h)`, straight and in a loop over the
//! layers), a model whose `Vec<Layer>` field's elements are called by method
//! (`layer.forward(&h)`), and the ndarray form. Each gradient against central finite
//! differences; `vjp!` and `jvp!` where they reach the code differently. Also a local read
//! by index and then assigned values of other lengths (grown, shrunk, in loops, halved).

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::ndarray::{array, Array1, Array2};
use autodiff::prelude::*;

/// `tanh(W x)` of a layer given as its rows.
#[differentiable]
fn dense(w: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(w.len());
    for row in w {
        let z: f64 = row.iter().zip(x).map(|(a, b)| a * b).sum();
        out.push(z.tanh());
    }
    out
}

/// Two layers, 2 → 3 → 1: `h` changes length at each assignment.
#[differentiable]
fn two_layers(x: &[f64], w1: &[Vec<f64>], w2: &[Vec<f64>]) -> f64 {
    let mut h = x.to_vec();
    h = dense(w1, &h);
    h = dense(w2, &h);
    h[0]
}

/// Any number of layers, in a loop.
#[differentiable]
fn deep(x: &[f64], layers: &[Vec<Vec<f64>>]) -> f64 {
    let mut h = x.to_vec();
    for w in layers {
        h = dense(w, &h);
    }
    h.iter().sum()
}

/// The same with ndarray.
#[differentiable]
fn deep_arrays(x: &Array1<f64>, w1: &Array2<f64>, w2: &Array2<f64>) -> f64 {
    let mut h = x.clone();
    h = w1.dot(&h).mapv(f64::tanh);
    h = w2.dot(&h).mapv(f64::tanh);
    h.sum()
}

fn layers() -> Vec<Vec<Vec<f64>>> {
    vec![
        vec![vec![0.1, -0.2], vec![0.3, 0.4], vec![-0.1, 0.2]],
        vec![vec![0.5, -0.3, 0.2], vec![0.1, 0.1, 0.1]],
        vec![vec![0.7, -0.4]],
    ]
}

#[test]
fn a_local_reassigned_through_layers_of_different_widths() {
    let ls = layers();
    let x = [1.0, 2.0];
    let (gx, _, g2) = gradients_function!(two_layers)(&x, &ls[0], &ls[1][..1]);
    let fd = finite_difference(|v| two_layers(v, &ls[0], &ls[1][..1]), &x);
    assert_gradient_close(&gx, &fd, 1e-6);
    let fd = finite_difference(|v| two_layers(&x, &ls[0], &[v.to_vec()]), &ls[1][0]);
    assert_gradient_close(&g2[0], &fd, 1e-6);

    let (gx, gl) = gradients_function!(deep)(&x, &ls);
    let fd = finite_difference(|v| deep(v, &ls), &x);
    assert_gradient_close(&gx, &fd, 1e-6);
    for (l, r) in [(0, 2), (1, 0), (2, 0)] {
        let row = &ls[l][r];
        let fd = finite_difference(
            |v| {
                let mut p = ls.clone();
                p[l][r] = v.to_vec();
                deep(&x, &p)
            },
            row,
        );
        assert_gradient_close(&gl[l][r], &fd, 1e-6);
    }
    // the pullback and the tangent sweep
    let (value, pullback) = vjp!(deep)(&x, &ls);
    assert_eq!(value, deep(&x, &ls));
    let (gx2, _) = pullback(1.0);
    assert_gradient_close(&gx2, &gx, 1e-14);
    let t = [0.3, -0.7];
    let (_, dy) = jvp!(deep, params = ["x"])(&x, &ls, &t);
    assert!((dy - (gx[0] * t[0] + gx[1] * t[1])).abs() < 1e-12);

    let xa = array![1.0, 2.0];
    let w1 = array![[0.1, -0.2], [0.3, 0.4], [-0.1, 0.2]];
    let w2 = array![[0.5, -0.3, 0.2]];
    let (g, _, _) = gradients_function!(deep_arrays)(&xa, &w1, &w2);
    let fd = finite_difference(|v| deep_arrays(&Array1::from(v.to_vec()), &w1, &w2), &x);
    assert_gradient_close(g.as_slice().unwrap(), &fd, 1e-6);
}

// ---------------------------------------------------------------------------------------
// A model of layers, each called by method on the elements of a `Vec<Layer>` field
// ---------------------------------------------------------------------------------------

#[derive(Differentiable, Clone, Debug)]
pub struct Layer {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
}

#[derive(Differentiable, Clone, Debug)]
pub struct Net {
    pub layers: Vec<Layer>,
}

#[differentiable(self)]
impl Layer {
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.b.len());
        for (row, b) in self.w.iter().zip(&self.b) {
            let z: f64 = row.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + b;
            out.push(z.tanh());
        }
        out
    }
}

#[differentiable(self)]
impl Net {
    pub fn predict(&self, x: &[f64]) -> f64 {
        let mut h = x.to_vec();
        for layer in &self.layers {
            h = layer.forward(&h);
        }
        h.iter().sum()
    }

    pub fn loss(&self, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut l = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let d = self.predict(x) - y;
            l += d * d;
        }
        l / ys.len() as f64
    }
}

#[test]
fn a_models_layers_called_by_method() {
    let l1 = Layer {
        w: vec![vec![0.1, -0.2], vec![0.3, 0.4], vec![-0.1, 0.2]],
        b: vec![0.0, 0.1, -0.1],
    };
    let l2 = Layer {
        w: vec![vec![0.5, -0.3, 0.2]],
        b: vec![0.05],
    };
    let net = Net {
        layers: vec![l1, l2],
    };
    let xs = vec![vec![1.0, 2.0], vec![-0.5, 0.3]];
    let ys = [0.3, -0.1];
    let g = gradients_function!(Net::loss, params = ["self"])(&net, &xs, &ys);
    let h = 1e-6;
    let at = |f: &dyn Fn(&mut Net, f64)| {
        let (mut p, mut m) = (net.clone(), net.clone());
        f(&mut p, h);
        f(&mut m, -h);
        (p.loss(&xs, &ys) - m.loss(&xs, &ys)) / (2.0 * h)
    };
    for (l, r, c) in [(0, 1, 0), (1, 0, 2), (0, 2, 1)] {
        let fd = at(&|n: &mut Net, d: f64| n.layers[l].w[r][c] += d);
        assert!((g.layers[l].w[r][c] - fd).abs() < 1e-6, "{l} {r} {c}");
    }
    for (l, k) in [(0, 2), (1, 0)] {
        let fd = at(&|n: &mut Net, d: f64| n.layers[l].b[k] += d);
        assert!((g.layers[l].b[k] - fd).abs() < 1e-6, "{l} {k}");
    }
}

// A local read by index, then assigned a value of another length: the reverse sweep gives
// its adjoint back the length it had at the reads (`Stmt::Extent`).

#[differentiable]
fn read_then_grow(x: &[f64], w1: &[Vec<f64>]) -> f64 {
    let mut h = x.to_vec();
    let first = h[1] * h[0];
    h = dense(w1, &h);
    first + h[2] * h[0]
}

#[differentiable]
fn loop_reads(x: &[f64], layers: &[Vec<Vec<f64>>]) -> f64 {
    let mut h = x.to_vec();
    let mut s = 0.0;
    for w in layers {
        s += h[0] * h[h.len() - 1];
        h = dense(w, &h);
    }
    s + h[0]
}

#[test]
fn reads_by_index_before_reassignment() {
    let w1 = vec![vec![0.1, -0.2], vec![0.3, 0.4], vec![-0.1, 0.2]];
    let x = vec![0.3, -0.7];
    let g = gradients_function!(read_then_grow, params = ["x"]);
    let gx = g(&x, &w1);
    let fd = finite_difference(|v: &[f64]| read_then_grow(v, &w1), &x);
    assert_gradient_close(&gx, &fd, 1e-6);
    let ls = vec![
        vec![vec![0.1, -0.2], vec![0.3, 0.4], vec![-0.1, 0.2]],
        vec![vec![0.5, -0.3, 0.2], vec![0.1, 0.1, 0.1]],
        vec![vec![0.7, -0.4]],
    ];
    let g = gradients_function!(loop_reads, params = ["x"]);
    let gx = g(&x, &ls);
    let fd = finite_difference(|v: &[f64]| loop_reads(v, &ls), &x);
    assert_gradient_close(&gx, &fd, 1e-6);
}

#[differentiable]
fn read_then_shrink(x: &[f64], w1: &[Vec<f64>]) -> f64 {
    let mut h = x.to_vec();
    let first = h[2] * h[0];
    h = dense(w1, &h);
    first + h[0]
}

#[test]
fn reads_by_index_before_shrinking() {
    let w1 = vec![vec![0.1, -0.2, 0.5]];
    let x = vec![0.3, -0.7, 0.9];
    let g = gradients_function!(read_then_shrink, params = ["x"]);
    let gx = g(&x, &w1);
    let fd = finite_difference(|v: &[f64]| read_then_shrink(v, &w1), &x);
    assert_gradient_close(&gx, &fd, 1e-6);
}

/// (Read by index on purpose: the reads before the assignment are what is tested.)
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn reassigned_from_param(x: &[f64], y: &[f64]) -> f64 {
    let mut h = x.to_vec();
    let mut s = 0.0;
    for i in 0..h.len() {
        s += h[i] * h[i];
    }
    h = y.to_vec();
    s += h[0] * h[1];
    h = h[..1].to_vec();
    s * h[0]
}

#[differentiable]
fn reassigned_by_collect(x: &[f64], y: &[f64]) -> f64 {
    let mut h: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    let a = h[2];
    h = y.iter().map(|v| v.sin()).collect();
    a * h[0]
}

#[test]
fn reassigned_from_other_lengths() {
    let x = vec![0.3, -0.7, 0.9];
    let y = vec![0.4, 1.1];
    let g = gradients_function!(reassigned_from_param, params = ["x", "y"]);
    let (gx, gy) = g(&x, &y);
    assert_gradient_close(
        &gx,
        &finite_difference(|v: &[f64]| reassigned_from_param(v, &y), &x),
        1e-6,
    );
    assert_gradient_close(
        &gy,
        &finite_difference(|v: &[f64]| reassigned_from_param(&x, v), &y),
        1e-6,
    );
    let g = gradients_function!(reassigned_by_collect, params = ["x", "y"]);
    let (gx, gy) = g(&x, &y);
    assert_gradient_close(
        &gx,
        &finite_difference(|v: &[f64]| reassigned_by_collect(v, &y), &x),
        1e-6,
    );
    assert_gradient_close(
        &gy,
        &finite_difference(|v: &[f64]| reassigned_by_collect(&x, v), &y),
        1e-6,
    );
}

/// Reads after the assignment in the body: the next iteration's assignment comes after them.
#[differentiable]
fn loop_reads_after(x: &[f64], layers: &[Vec<Vec<f64>>]) -> f64 {
    let mut h = x.to_vec();
    let mut s = 0.0;
    for w in layers {
        h = dense(w, &h);
        s += h[h.len() - 1] * h[0];
    }
    s
}

#[differentiable]
fn shrinking_by_halves(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    let mut s = 0.0;
    while h.len() > 1 {
        s += h[h.len() - 1] * h[0];
        let mut next = Vec::new();
        for i in 0..h.len() / 2 {
            next.push(h[2 * i] * h[2 * i + 1]);
        }
        h = next;
    }
    s + h[0]
}

#[test]
fn in_loops() {
    let x = vec![0.3, -0.7, 0.9];
    let ls = vec![
        vec![vec![0.1, -0.2, 0.3], vec![0.3, 0.4, 0.1]],
        vec![
            vec![0.5, -0.3],
            vec![0.1, 0.1],
            vec![0.2, 0.6],
            vec![0.4, -0.4],
        ],
        vec![vec![0.7, -0.4, 0.2, 0.1]],
    ];
    let g = gradients_function!(loop_reads_after, params = ["x"]);
    let gx = g(&x, &ls);
    assert_gradient_close(
        &gx,
        &finite_difference(|v: &[f64]| loop_reads_after(v, &ls), &x),
        1e-6,
    );
    let g = gradients_function!(loop_reads, params = ["x"]);
    let gx = g(&x, &ls);
    assert_gradient_close(
        &gx,
        &finite_difference(|v: &[f64]| loop_reads(v, &ls), &x),
        1e-6,
    );
    let x8: Vec<f64> = (0..8).map(|i| 0.9 + 0.05 * i as f64).collect();
    let g = gradients_function!(shrinking_by_halves);
    let gx = g(&x8);
    assert_gradient_close(&gx, &finite_difference(shrinking_by_halves, &x8), 1e-6);
    let (value, pullback) = vjp!(loop_reads_after)(&x, &ls);
    assert_eq!(value, loop_reads_after(&x, &ls));
    let (gx, _) = pullback(2.0);
    let fd = finite_difference(|v: &[f64]| loop_reads_after(v, &ls), &x);
    assert_gradient_close(&gx, &fd.iter().map(|d| 2.0 * d).collect::<Vec<_>>(), 1e-6);
}

#[differentiable]
fn arrays_read_then_reassigned(x: &Array1<f64>, w: &Array2<f64>) -> f64 {
    let mut h = x.clone();
    let a = h[2] * h[0];
    h = w.dot(&h).mapv(f64::tanh);
    a + h[0]
}

#[test]
fn arrays() {
    let x = array![0.3, -0.7, 0.9];
    let w = array![[0.1, -0.2, 0.3]];
    let (gx, _) = gradients_function!(arrays_read_then_reassigned)(&x, &w);
    let fd = finite_difference(
        |v: &[f64]| arrays_read_then_reassigned(&Array1::from(v.to_vec()), &w),
        x.as_slice().unwrap(),
    );
    assert_gradient_close(gx.as_slice().unwrap(), &fd, 1e-6);
}
