//! Networks as users write them with `Vec`s and ndarray: a local `h` reassigned through
//! layers of different widths (`h = dense(w, &h)`, straight and in a loop over the
//! layers), a model whose `Vec<Layer>` field's elements are called by method
//! (`layer.forward(&h)`), and the ndarray form. Each gradient against central finite
//! differences; `vjp!` and `jvp!` where they reach the code differently.

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
