//! The generated code of the hostile crate gives the right numbers.
#![deny(warnings)]

use autodiff::prelude::*;
use autodiff_hygiene::{
    Dense, Model, cubes, dense_loss, everything, fused_stencil, looks_generated, negated_sines,
    sin_degrees, sines_f32, sines_f64, weighted_sines,
};

#[test]
fn generated_looking_names_do_not_collide() {
    let g = gradients_function!(looks_generated)(2.0, 3.0, 0.5, 4.0, 5.0);
    assert_eq!(g, (3.0, 2.0, 0.5_f64.cos(), 5.0, 4.0));
}

#[test]
fn everything_against_finite_differences() {
    let x = [0.5, -1.0, 2.0, 0.25];
    let (gx, gs) = gradients_function!(everything, params = ["x", "scale"])(&x, 1.5, 3);
    let mut all = gx.clone();
    all.push(gs);
    let fd = autodiff::check::finite_difference(
        |p| everything(&p[..4], p[4], 3),
        &[0.5, -1.0, 2.0, 0.25, 1.5],
    );
    autodiff::check::assert_gradient_close(&all, &fd, 1e-8);
}

#[test]
fn associated_function_by_its_path() {
    let d = 30.0_f64;
    let r = std::f64::consts::PI / 180.0;
    // d/dd sin(d·π/180) = cos(d·π/180)·π/180
    let g = gradients_function!(sin_degrees)(d);
    assert!((g - (d * r).cos() * r).abs() < 1e-15, "{g}");
    let (y, dy) = jvp!(sin_degrees)(d, 1.0);
    assert!((y - (d * r).sin()).abs() < 1e-15 && (dy - g).abs() < 1e-15);
}

#[test]
fn variables_through_fields() {
    let model = Model {
        w: Variable::new(2.0),
    };
    let grads = implicit_gradients(|x: f64| model.predict(x))(3.0);
    assert_eq!(grads.get(&model.w), Some(3.0));
}

#[test]
fn array_code_against_finite_differences() {
    use autodiff::ndarray::{Array1, Array2, array};
    let layer = Dense {
        w: array![[0.5, -0.25], [0.1, 0.3]],
        b: array![0.2, -0.1],
        name: "d",
    };
    let x = array![[1.0, 2.0], [-0.5, 0.25]];
    let g = gradients_function!(Dense::loss, params = ["self"])(&layer, &x);
    let flat: std::vec::Vec<f64> = layer.w.iter().chain(layer.b.iter()).copied().collect();
    let fd = autodiff::check::finite_difference(
        |p| {
            let l = Dense {
                w: Array2::from_shape_vec((2, 2), p[..4].to_vec()).unwrap(),
                b: Array1::from(p[4..].to_vec()),
                name: "d",
            };
            dense_loss(&l, &x)
        },
        &flat,
    );
    let ours: std::vec::Vec<f64> = g.w.iter().chain(g.b.iter()).copied().collect();
    autodiff::check::assert_gradient_close(&ours, &fd, 1e-7);
    assert_eq!(layer.name, "d");
}

#[test]
fn fused_loop_against_finite_differences() {
    let x = [0.5, -1.0, 2.0, 0.25];
    let (gx, gk, gdy) = gradients_function!(fused_stencil)(&x, 1.5, -0.5);
    let mut all = gx.clone();
    all.extend([gk, gdy]);
    let fd = autodiff::check::finite_difference(
        |p| fused_stencil(&p[..4], p[4], p[5]),
        &[0.5, -1.0, 2.0, 0.25, 1.5, -0.5],
    );
    autodiff::check::assert_gradient_close(&all, &fd, 1e-8);
    // fused (the seeded companion exists only then), and the same as the two sweeps
    let (_, g) = fused_stencil::__seeded(&x, 1.5, -0.5, 1.0);
    let (_, pullback) = vjp!(fused_stencil)(&x, 1.5, -0.5);
    let (tx, tk, tdy) = pullback(1.0);
    autodiff::check::assert_gradient_close(&g.0, &tx, 1e-14);
    autodiff::check::assert_gradient_close(&[g.1, g.2], &[tk, tdy], 1e-14);
}

#[test]
fn a_function_a_macro_writes_from_its_callers_names() {
    let xs = [0.5, -1.0, 2.0];
    let s = 0.75;
    let (gx, gs) = gradients_function!(weighted_sines)(&xs, s);
    // by hand: ∂/∂xᵢ = s² cos(xᵢ s), ∂/∂s = Σ sin(xᵢ s) + s Σ xᵢ cos(xᵢ s)
    for (g, x) in gx.iter().zip(&xs) {
        assert!((g - s * s * (x * s).cos()).abs() < 1e-14);
    }
    let by_hand: f64 = xs
        .iter()
        .map(|x| (x * s).sin() + s * x * (x * s).cos())
        .sum();
    assert!((gs - by_hand).abs() < 1e-14);
    let (_, dy) = jvp!(weighted_sines)(&xs, s, &[1.0, 0.0, 0.0], 0.0);
    assert!((dy - gx[0]).abs() < 1e-14);
    let (value, pullback) = vjp!(weighted_sines)(&xs, s);
    assert_eq!(value, weighted_sines(&xs, s));
    let (vx, vs) = pullback(2.0);
    assert_eq!(vs, 2.0 * gs);
    assert!(vx.iter().zip(&gx).all(|(a, b)| *a == 2.0 * b));
}

#[test]
fn types_a_macro_is_handed() {
    let xs = [0.5, -1.0, 2.0];
    let w = 0.75;
    let (gx, gw) = gradients_function!(sines_f64)(&xs, w);
    // by hand: ∂/∂xᵢ = w cos(xᵢ w), ∂/∂w = Σ xᵢ cos(xᵢ w)
    for (g, x) in gx.iter().zip(&xs) {
        assert!((g - w * (x * w).cos()).abs() < 1e-14);
    }
    let by_hand: f64 = xs.iter().map(|x| x * (x * w).cos()).sum();
    assert!((gw - by_hand).abs() < 1e-14);
    let (_, dy) = jvp!(sines_f64)(&xs, w, &[0.0, 0.0, 0.0], 1.0);
    assert!((dy - gw).abs() < 1e-14);
    let (gx32, _) = gradients_function!(sines_f32)(&[0.5_f32, -1.0, 2.0], 0.75);
    assert!((f64::from(gx32[2]) - gx[2]).abs() < 1e-6);
    // the Hessian of Σ xᵢ³ is diag(6 xᵢ)
    let v = [1.0, 2.0, -1.0];
    let hv = hvp!(cubes)(&xs, &v);
    for ((h, x), vi) in hv.iter().zip(&xs).zip(&v) {
        assert!((h - 6.0 * x * vi).abs() < 1e-14);
    }
}

#[test]
fn a_wrapper_a_macro_writes() {
    let xs = [0.5, -1.0, 2.0];
    let g = gradients_function!(negated_sines)(&xs);
    let (gx, _) = gradients_function!(weighted_sines)(&xs, 0.75);
    for (a, b) in g.iter().zip(&gx) {
        assert_eq!(a.to_bits(), (-b).to_bits());
    }
    let value = value_and_gradients_function!(negated_sines)(&xs).0;
    assert_eq!(value.to_bits(), negated_sines(&xs).to_bits());
}
