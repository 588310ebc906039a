#![cfg(feature = "nalgebra")]
use autodiff::nalgebra::{DMatrix, DVector, Matrix3, Point3, UnitQuaternion, Vector3};
use autodiff::prelude::*;

#[differentiable]
fn f1(a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
    let c = a + b * 2.0;
    let d = a.cross(b);
    c.dot(&d) + a.norm() + b.normalize()[1] + c[0]
}

#[differentiable]
fn f2(m: &Matrix3<f64>, v: Vector3<f64>) -> f64 {
    let w = m * v;
    let t = m.transpose() * w;
    t.norm_squared() + m[(0, 1)]
}

#[differentiable]
fn f3(m: &DMatrix<f64>, v: &DVector<f64>) -> f64 {
    let w = m * v;
    w.dot(&w)
}

#[differentiable]
fn f4(q: &UnitQuaternion<f64>, p: &Point3<f64>, c: &Point3<f64>) -> f64 {
    let r = q * p;
    let d = r - c;
    d.norm_squared()
}

#[test]
fn smoke() {
    let a = Vector3::new(1.0, 2.0, 0.5);
    let b = Vector3::new(-1.0, 0.3, 0.7);
    let (ga, gb) = gradients_function!(f1)(&a, &b);
    println!("{ga} {gb}");
    let m = Matrix3::new(1.0, 2.0, 0.5, 0.1, -1.0, 0.3, 0.7, 0.2, 1.1);
    let (gm, gv) = gradients_function!(f2)(&m, a);
    println!("{gm} {gv}");
    let dm = DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let dv = DVector::from_vec(vec![1.0, -1.0, 0.5]);
    let (gm, gv) = gradients_function!(f3)(&dm, &dv);
    println!("{gm} {gv}");
    let q = UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3);
    let p = Point3::new(1.0, 2.0, 3.0);
    let (gq, gp, gc) = gradients_function!(f4)(&q, &p, &p);
    println!("{gq} {gp} {gc}");
}
