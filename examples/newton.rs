//! Newton's method with `hessian!` against gradient descent on the extended Rosenbrock
//! function (n = 20, standard start `(-1.2, 1, -1.2, 1, …)`), printing the iterations of
//! both: Newton converges in a few tens of iterations, gradient descent with a line search
//! is still far from the minimum after thousands.
//!
//! Run it with `cargo run --release --example newton`.

use autodiff::ndarray::Array2;
use autodiff::prelude::*;

/// The extended Rosenbrock function: `Σ 100 (x₂ᵢ₊₁ − x₂ᵢ²)² + (1 − x₂ᵢ)²`, minimum 0 at
/// `(1, …, 1)`. Written with `f64`; `second_order` gives it `hessian!` (the attribute writes
/// a copy generic over the float type, whose gradient runs on dual numbers).
#[differentiable(second_order)]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i + 1] - x[2 * i] * x[2 * i];
        let b = 1.0 - x[2 * i];
        total = total + 100.0 * a * a + b * b;
    }
    total
}

const N: usize = 20;
const TOLERANCE: f64 = 1e-8;

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|g| g * g).sum::<f64>().sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves `(H + shift·I) p = b` by Cholesky, or `None` if the matrix is not positive
/// definite.
fn cholesky_solve(h: &Array2<f64>, shift: f64, b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut l = Array2::<f64>::zeros((n, n));
    for i in 0..n {
        for j in 0..=i {
            let mut s = h[[i, j]] + if i == j { shift } else { 0.0 };
            for k in 0..j {
                s -= l[[i, k]] * l[[j, k]];
            }
            if i == j {
                if s <= 0.0 {
                    return None;
                }
                l[[i, i]] = s.sqrt();
            } else {
                l[[i, j]] = s / l[[j, j]];
            }
        }
    }
    let mut y = vec![0.0; n];
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[[i, k]] * y[k]).sum();
        y[i] = (b[i] - s) / l[[i, i]];
    }
    let mut p = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[[k, i]] * p[k]).sum();
        p[i] = (y[i] - s) / l[[i, i]];
    }
    Some(p)
}

/// Backtracking (Armijo) line search along the descent direction `p`: the step and the
/// new point.
fn line_search(x: &[f64], f: f64, g: &[f64], p: &[f64], first: f64) -> (f64, Vec<f64>) {
    let slope = dot(g, p);
    let mut t = first;
    loop {
        let next: Vec<f64> = x.iter().zip(p).map(|(a, b)| a + t * b).collect();
        if rosenbrock(&next[..]) <= f + 1e-4 * t * slope || t < 1e-16 {
            return (t, next);
        }
        t *= 0.5;
    }
}

/// Newton's method: the step solves `H p = −g` (H shifted until positive definite), then a
/// backtracking line search from the full step. Returns the iterations taken.
fn newton(mut x: Vec<f64>, budget: usize) -> usize {
    println!("Newton (hessian!)");
    println!("{:>6} {:>14} {:>12} {:>8}", "iter", "f", "|grad|", "step");
    for k in 0..budget {
        let f = rosenbrock(&x[..]);
        let g: Vec<f64> = gradients_function!(rosenbrock)(&x[..]);
        if norm(&g) < TOLERANCE {
            println!("{k:>6} {f:>14.6e} {:>12.3e}   converged", norm(&g));
            return k;
        }
        let h = hessian!(rosenbrock)(&x[..]);
        let minus_g: Vec<f64> = g.iter().map(|v| -v).collect();
        let mut shift = 0.0;
        let p = loop {
            match cholesky_solve(&h, shift, &minus_g) {
                Some(p) => break p,
                None => shift = (2.0 * shift).max(1e-3),
            }
        };
        let (t, next) = line_search(&x, f, &g, &p, 1.0);
        println!("{k:>6} {f:>14.6e} {:>12.3e} {t:>8.4}", norm(&g));
        x = next;
    }
    budget
}

/// Gradient descent with the same line search (each search starting from twice the last
/// accepted step). Returns the iterations taken.
fn gradient_descent(mut x: Vec<f64>, budget: usize) -> usize {
    println!("gradient descent (gradients_function!, backtracking line search)");
    println!("{:>6} {:>14} {:>12} {:>10}", "iter", "f", "|grad|", "step");
    let mut t = 1e-3;
    for k in 0..budget {
        let f = rosenbrock(&x[..]);
        let g: Vec<f64> = gradients_function!(rosenbrock)(&x[..]);
        if norm(&g) < TOLERANCE {
            println!("{k:>6} {f:>14.6e} {:>12.3e}   converged", norm(&g));
            return k;
        }
        let p: Vec<f64> = g.iter().map(|v| -v).collect();
        let (step, next) = line_search(&x, f, &g, &p, 2.0 * t);
        t = step;
        if k < 10 || k.is_power_of_two() || k % 10_000 == 0 {
            println!("{k:>6} {f:>14.6e} {:>12.3e} {t:>10.3e}", norm(&g));
        }
        x = next;
    }
    let (f, g) = (rosenbrock(&x[..]), gradients_function!(rosenbrock)(&x[..]));
    println!(
        "{budget:>6} {f:>14.6e} {:>12.3e}   budget exhausted",
        norm(&g)
    );
    budget
}

fn main() {
    let start: Vec<f64> = (0..N)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    println!("extended Rosenbrock, n = {N}, start (-1.2, 1, …), stop at |grad| < {TOLERANCE:e}\n");
    let newton_iterations = newton(start.clone(), 200);
    println!();
    let budget = 50_000;
    let descent_iterations = gradient_descent(start, budget);
    println!();
    println!("Newton: {newton_iterations} iterations");
    if descent_iterations < budget {
        println!("gradient descent: {descent_iterations} iterations");
    } else {
        println!("gradient descent: not converged in {budget} iterations");
    }
    assert!(
        newton_iterations < 100,
        "Newton should converge in tens of iterations"
    );
    assert!(descent_iterations >= 100 * newton_iterations);
}
