#![allow(clippy::all, unused)]
use autodiff::ndarray::{Array1, Array2};
use autodiff::prelude::*;

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
fn check(name: &str, g: &[f64], f: impl Fn(&[f64]) -> f64, x: &[f64]) {
    let fd = differences(f, x);
    for (a, b) in g.iter().zip(&fd) {
        assert!(
            (a - b).abs() < 1e-5 * (1.0 + b.abs()),
            "{name}: {g:?} vs {fd:?}"
        );
    }
}

#[derive(Differentiable, Clone)]
pub struct Linear {
    pub w: Vec<f64>,
    pub b: f64,
}

#[differentiable(self)]
impl Linear {
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
    pub fn l2(&self) -> f64 {
        self.w.iter().map(|w| w * w).sum::<f64>()
    }
    pub fn regularized(&self, xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> f64 {
        self.loss(xs, ys) + lambda * self.l2()
    }
}

#[differentiable]
fn huber(r: &[f64], delta: f64) -> f64 {
    r.iter()
        .map(|&e| {
            let a = e.abs();
            if a <= delta {
                0.5 * e * e
            } else {
                delta * (a - 0.5 * delta)
            }
        })
        .sum()
}

#[differentiable]
fn nd_quad(a: &Array2<f64>, x: &Array1<f64>) -> f64 {
    let y = a.dot(x);
    y.dot(&y) + x.mapv(|v| v.sin()).sum()
}

#[differentiable]
fn nd_softplus(x: &Array1<f64>) -> f64 {
    x.mapv(|v| (1.0 + v.exp()).ln()).sum() / x.len() as f64
}

#[differentiable]
fn logistic_nll(w: &[f64], xs: &[[f64; 2]], ys: &[f64]) -> f64 {
    let mut nll = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z = w[0] * x[0] + w[1] * x[1] + w[2];
        let p = 1.0 / (1.0 + (-z).exp());
        nll -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    nll
}

#[differentiable]
fn spring_energy(pos: &[f64], k: f64, rest: f64) -> f64 {
    let n = pos.len() / 2;
    let mut e = 0.0;
    for i in 0..n - 1 {
        let dx = pos[2 * (i + 1)] - pos[2 * i];
        let dy = pos[2 * (i + 1) + 1] - pos[2 * i + 1];
        let len = (dx * dx + dy * dy).sqrt();
        e += 0.5 * k * (len - rest).powi(2);
    }
    e
}

#[differentiable]
fn euler_sim(params: &[f64], steps: usize) -> f64 {
    let (mut x, mut v) = (1.0, 0.0);
    let (k, c) = (params[0], params[1]);
    let dt = 0.01;
    for _ in 0..steps {
        let a = -k * x - c * v;
        v += a * dt;
        x += v * dt;
    }
    x * x + v * v
}

#[differentiable]
fn rk4(params: &[f64]) -> f64 {
    let f = |y: f64, t: f64| -params[0] * y + params[1] * t.sin();
    let mut y = 1.0;
    let h = 0.1;
    let mut t = 0.0;
    for _ in 0..10 {
        let k1 = f(y, t);
        let k2 = f(y + 0.5 * h * k1, t + 0.5 * h);
        let k3 = f(y + 0.5 * h * k2, t + 0.5 * h);
        let k4 = f(y + h * k3, t + h);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        t += h;
    }
    y
}

#[differentiable]
fn gauss_kernel_sum(x: &[f64], sigma: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in (i + 1)..x.len() {
            let d = x[i] - x[j];
            s += (-d * d / (2.0 * sigma * sigma)).exp();
        }
    }
    s
}

#[differentiable]
fn matvec_vecs(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let y: Vec<f64> = m
        .iter()
        .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>())
        .collect();
    y.iter().map(|v| v.tanh()).sum()
}

#[test]
fn probe() {
    let model = Linear {
        w: vec![0.3, -0.2],
        b: 0.1,
    };
    let xs = vec![vec![1.0, 2.0], vec![0.5, -1.0], vec![-0.3, 0.8]];
    let ys = vec![0.5, -0.2, 0.3];
    let g = gradients_function!(Linear::regularized, params = ["self"])(&model, &xs, &ys, 0.1);
    let flat = |p: &[f64]| {
        Linear {
            w: p[..2].to_vec(),
            b: p[2],
        }
        .regularized(&xs, &ys, 0.1)
    };
    check(
        "linear",
        &[g.w.clone(), vec![g.b]].concat(),
        flat,
        &[0.3, -0.2, 0.1],
    );

    let r = [0.3, -2.0, 1.5, 0.1];
    let (g, gd) = gradients_function!(huber)(&r, 1.0);
    check("huber", &g, |v| huber(v, 1.0), &r);

    let a = Array2::from_shape_vec((2, 3), vec![0.1, 0.2, 0.3, -0.4, 0.5, 0.6]).unwrap();
    let x = Array1::from(vec![0.3, -0.7, 1.1]);
    let (_, gx) = gradients_function!(nd_quad)(&a, &x);
    check(
        "nd_quad",
        gx.as_slice().unwrap(),
        |v| nd_quad(&a, &Array1::from(v.to_vec())),
        x.as_slice().unwrap(),
    );
    let gs = gradients_function!(nd_softplus)(&x);
    check(
        "nd_softplus",
        gs.as_slice().unwrap(),
        |v| nd_softplus(&Array1::from(v.to_vec())),
        x.as_slice().unwrap(),
    );

    let w = [0.2, -0.5, 0.1];
    let pts = [[1.0, 2.0], [-0.5, 0.3], [0.7, -1.2]];
    let lab = [1.0, 0.0, 1.0];
    let g = gradients_function!(logistic_nll, params = ["w"])(&w, &pts, &lab);
    check("logistic", &g, |v| logistic_nll(v, &pts, &lab), &w);

    let pos = [0.0, 0.0, 1.1, 0.2, 2.0, -0.3, 2.9, 0.5];
    let (g, _, _) = gradients_function!(spring_energy)(&pos, 2.0, 1.0);
    check("spring", &g, |v| spring_energy(v, 2.0, 1.0), &pos);

    let p = [2.0, 0.3];
    let g = gradients_function!(euler_sim, params = ["params"])(&p, 200);
    check("euler", &g, |v| euler_sim(v, 200), &p);
    let g = gradients_function!(rk4)(&p);
    check("rk4", &g, |v| rk4(v), &p);

    let x = [0.3, -0.2, 0.9, 0.5];
    let (g, _) = gradients_function!(gauss_kernel_sum)(&x, 0.7);
    check("gauss", &g, |v| gauss_kernel_sum(v, 0.7), &x);

    let m = vec![vec![0.1, 0.2, 0.3], vec![-0.4, 0.5, 0.6]];
    let xv = [0.3, -0.7, 1.1];
    let (_, g) = gradients_function!(matvec_vecs)(&m, &xv);
    check("matvec", &g, |v| matvec_vecs(&m, v), &xv);
}
