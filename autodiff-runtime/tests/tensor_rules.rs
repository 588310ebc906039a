//! Every tensor rule (`ops::tensor`) against finite differences, on random shapes and
//! values, including every broadcasting pattern, for f64 and f32 (property tests).
//!
//! Method: for an operation `y = op(a, b)` and a random cotangent `w` of `y`'s shape, the
//! rule's gradient of `a` must equal the gradient of the scalar `Σ w ∘ op(a, b)` with respect
//! to `a`, computed by fourth-order central differences (`check::finite_difference`).
//!
//! Tolerances: values are drawn from `[-2, 2]` (divisors from `±[0.5, 2]`), where every
//! function used is smooth with moderate higher derivatives; the difference's truncation
//! error is about `h⁴·|f⁽⁵⁾|/30` with `h = 1e-3·max(1, |x|)`, far below `1e-7` relative
//! (to `max(1, |fd|)`), which still catches any wrong formula or missed broadcast axis (off
//! by O(1)). The f32 rules are compared with the f64 difference to `1e-4` relative: a few
//! f32 operations per element (ε ≈ 6e-8) and sums over at most 64 elements.

use autodiff_runtime::check::finite_difference;
use autodiff_runtime::ops::tensor;
use ndarray::{Array1, Array2, ArrayD, Axis, IxDyn, ShapeBuilder};
use proptest::prelude::*;

/// A function of an array, as the elementwise cases pass it.
type ArrayFn = fn(&ArrayD<f64>) -> ArrayD<f64>;

fn close(analytic: &ArrayD<f64>, numeric: &[f64], tolerance: f64) -> Result<(), String> {
    if analytic.len() != numeric.len() {
        return Err(format!("{} elements vs {}", analytic.len(), numeric.len()));
    }
    for (k, (a, n)) in analytic.iter().zip(numeric).enumerate() {
        if (a - n).abs() > tolerance * n.abs().max(1.0) {
            return Err(format!("element {k}: rule {a}, finite difference {n}"));
        }
    }
    Ok(())
}

/// The gradient of `a ↦ Σ w ∘ f(a)` by finite differences.
fn fd_of(a: &ArrayD<f64>, f: impl Fn(&ArrayD<f64>) -> f64) -> Vec<f64> {
    let flat: Vec<f64> = a.iter().copied().collect();
    finite_difference(
        |p| f(&ArrayD::from_shape_vec(a.raw_dim(), p.to_vec()).expect("shape")),
        &flat,
    )
}

fn weighted(w: &ArrayD<f64>, y: &ArrayD<f64>) -> f64 {
    assert_eq!(w.shape(), y.shape());
    w.iter().zip(y).map(|(w, y)| w * y).sum()
}

/// A shape (rank 0 to 3, lengths 1 to 4) and two operand shapes derived from it: each keeps
/// a suffix of the axes and may have any kept axis set to 1, so they broadcast together
/// (the result's shape is computed from them).
fn broadcast_shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    prop::collection::vec(1usize..=4, 0..=3).prop_flat_map(|out| {
        let n = out.len();
        let operand = move |out: Vec<usize>| {
            (0..=n, prop::collection::vec(any::<bool>(), n)).prop_map(move |(drop, ones)| {
                out.iter()
                    .enumerate()
                    .skip(drop)
                    .map(|(k, &len)| if ones[k] { 1 } else { len })
                    .collect::<Vec<usize>>()
            })
        };
        (Just(out.clone()), operand(out.clone()), operand(out))
    })
}

/// The shape `a` and `b` broadcast to.
fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|k| {
            let x = if k + a.len() >= n {
                a[k + a.len() - n]
            } else {
                1
            };
            let y = if k + b.len() >= n {
                b[k + b.len() - n]
            } else {
                1
            };
            x.max(y)
        })
        .collect()
}

fn values(shape: &[usize], lo: f64, hi: f64, seed: u64) -> ArrayD<f64> {
    let mut s = seed | 1;
    ArrayD::from_shape_fn(IxDyn(shape), |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        lo + (s >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    })
}

/// Divisors: `±[0.5, 2]`.
fn divisors(shape: &[usize], seed: u64) -> ArrayD<f64> {
    values(shape, 0.5, 2.0, seed).mapv(|v| if (v * 1e6) as i64 % 2 == 0 { v } else { -v })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arithmetic_with_every_broadcasting_pattern(
        (_, sa, sb) in broadcast_shapes(),
        seed in any::<u64>(),
        op in 0..4usize,
    ) {
        let out = broadcast(&sa, &sb);
        let a = values(&sa, -2.0, 2.0, seed);
        let b = if op == 3 { divisors(&sb, seed ^ 7) } else { values(&sb, -2.0, 2.0, seed ^ 7) };
        let w = values(&out, -1.0, 1.0, seed ^ 13);
        let f = |a: &ArrayD<f64>, b: &ArrayD<f64>| -> ArrayD<f64> {
            match op {
                0 => tensor::add(a, b),
                1 => tensor::sub(a, b),
                2 => tensor::mul(a, b),
                _ => tensor::div(a, b),
            }
        };
        let y = f(&a, &b);
        prop_assert_eq!(y.shape(), &out[..]);
        let (ga, gb) = match op {
            0 => (tensor::add_d0(&a, &w), tensor::add_d1(&b, &w)),
            1 => (tensor::sub_d0(&a, &w), tensor::sub_d1(&b, &w)),
            2 => (tensor::mul_d0(&a, &b, &w), tensor::mul_d1(&a, &b, &w)),
            _ => (tensor::div_d0(&a, &b, &w), tensor::div_d1(&b, &y, &w)),
        };
        // the cotangent passed by value (its buffer reused) gives the same gradients
        let (ga2, gb2) = match op {
            0 => (tensor::add_d0(&a, w.clone()), tensor::add_d1(&b, w.clone())),
            1 => (tensor::sub_d0(&a, w.clone()), tensor::sub_d1(&b, w.clone())),
            2 => (tensor::mul_d0(&a, &b, w.clone()), tensor::mul_d1(&a, &b, w.clone())),
            _ => (tensor::div_d0(&a, &b, w.clone()), tensor::div_d1(&b, &y, w.clone())),
        };
        prop_assert_eq!(&ga, &ga2);
        prop_assert_eq!(&gb, &gb2);
        prop_assert_eq!(ga.shape(), &sa[..]);
        prop_assert_eq!(gb.shape(), &sb[..]);
        close(&ga, &fd_of(&a, |a| weighted(&w, &f(a, &b))), 1e-7).map_err(TestCaseError::fail)?;
        close(&gb, &fd_of(&b, |b| weighted(&w, &f(&a, b))), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn arithmetic_with_a_scalar(shape in prop::collection::vec(1usize..=4, 0..=3), seed in any::<u64>(), op in 0..4usize, s in 0.5f64..2.0) {
        let a = values(&shape, -2.0, 2.0, seed);
        let w = values(&shape, -1.0, 1.0, seed ^ 5);
        let f = |a: &ArrayD<f64>, s: f64| -> ArrayD<f64> {
            match op {
                0 => tensor::add(a, &s),
                1 => tensor::sub(&s, a),
                2 => tensor::mul(&s, a),
                _ => tensor::div(a, &s),
            }
        };
        let y = f(&a, s);
        let (ga, gs): (ArrayD<f64>, f64) = match op {
            0 => (tensor::add_d0(&a, &w), tensor::add_d1(&s, &w)),
            1 => (tensor::sub_d1(&a, &w), tensor::sub_d0(&s, &w)),
            2 => (tensor::mul_d1(&s, &a, &w), tensor::mul_d0(&s, &a, &w)),
            _ => (tensor::div_d0(&a, &s, &w), tensor::div_d1(&s, &y, &w)),
        };
        close(&ga, &fd_of(&a, |a| weighted(&w, &f(a, s))), 1e-7).map_err(TestCaseError::fail)?;
        let fs = finite_difference(|p| weighted(&w, &f(&a, p[0])), &[s]);
        close(&ndarray::arr0(gs).into_dyn(), &fs, 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn products_of_vectors_and_matrices(m in 1usize..5, n in 1usize..5, k in 1usize..5, seed in any::<u64>()) {
        let a2 = values(&[m, n], -2.0, 2.0, seed).into_dimensionality::<ndarray::Ix2>().unwrap();
        let b2 = values(&[n, k], -2.0, 2.0, seed ^ 3).into_dimensionality::<ndarray::Ix2>().unwrap();
        let u = values(&[n], -2.0, 2.0, seed ^ 5).into_dimensionality::<ndarray::Ix1>().unwrap();
        let v = values(&[m], -2.0, 2.0, seed ^ 9).into_dimensionality::<ndarray::Ix1>().unwrap();
        let wmk = values(&[m, k], -1.0, 1.0, seed ^ 11).into_dimensionality::<ndarray::Ix2>().unwrap();
        let wm = values(&[m], -1.0, 1.0, seed ^ 17).into_dimensionality::<ndarray::Ix1>().unwrap();
        let wn = values(&[n], -1.0, 1.0, seed ^ 19).into_dimensionality::<ndarray::Ix1>().unwrap();
        let fd2 = |x: &Array2<f64>, f: &dyn Fn(&Array2<f64>) -> f64| fd_of(&x.clone().into_dyn(), |x| f(&x.clone().into_dimensionality().unwrap()));
        let fd1 = |x: &Array1<f64>, f: &dyn Fn(&Array1<f64>) -> f64| fd_of(&x.clone().into_dyn(), |x| f(&x.clone().into_dimensionality().unwrap()));
        // matrix · matrix
        let g = tensor::dot_d0(&a2, &b2, &wmk).into_dyn();
        close(&g, &fd2(&a2, &|a| (tensor::dot(a, &b2) * &wmk).sum()), 1e-7).map_err(TestCaseError::fail)?;
        let g = tensor::dot_d1(&a2, &b2, &wmk).into_dyn();
        close(&g, &fd2(&b2, &|b| (tensor::dot(&a2, b) * &wmk).sum()), 1e-7).map_err(TestCaseError::fail)?;
        // matrix · vector
        let g = tensor::dot_d0(&a2, &u, &wm).into_dyn();
        close(&g, &fd2(&a2, &|a| (tensor::dot(a, &u) * &wm).sum()), 1e-7).map_err(TestCaseError::fail)?;
        let g = tensor::dot_d1(&a2, &u, &wm).into_dyn();
        close(&g, &fd1(&u, &|u| (tensor::dot(&a2, u) * &wm).sum()), 1e-7).map_err(TestCaseError::fail)?;
        // vector · matrix
        let g = tensor::dot_d0(&v, &a2, &wn).into_dyn();
        close(&g, &fd1(&v, &|v| (tensor::dot(v, &a2) * &wn).sum()), 1e-7).map_err(TestCaseError::fail)?;
        let g = tensor::dot_d1(&v, &a2, &wn).into_dyn();
        close(&g, &fd2(&a2, &|a| (tensor::dot(&v, a) * &wn).sum()), 1e-7).map_err(TestCaseError::fail)?;
        // vector · vector
        let g = tensor::dot_d0(&u, &wn, &0.7).into_dyn();
        close(&g, &fd1(&u, &|u| tensor::dot(u, &wn) * 0.7), 1e-7).map_err(TestCaseError::fail)?;
        // transposition
        let g = tensor::t_d0(&wmk.t().to_owned()).into_dyn();
        close(&g, &fd2(&wmk, &|x| (&tensor::t(x) * &wmk.t()).sum()), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn reductions_along_every_axis(shape in prop::collection::vec(1usize..=4, 1..=3), seed in any::<u64>(), axis in 0usize..3) {
        let axis = Axis(axis % shape.len());
        let x = values(&shape, -2.0, 2.0, seed);
        let reduced: Vec<usize> = shape.iter().enumerate().filter(|(k, _)| *k != axis.index()).map(|(_, &n)| n).collect();
        let w = values(&reduced, -1.0, 1.0, seed ^ 3);
        let g = tensor::sum_axis_d0(&x, &axis, &w);
        close(&g, &fd_of(&x, |x| weighted(&w, &tensor::sum_axis(x, &axis))), 1e-7).map_err(TestCaseError::fail)?;
        let g = tensor::mean_axis_d0(&x, &axis, &w);
        close(&g, &fd_of(&x, |x| weighted(&w, &tensor::mean_axis(x, &axis))), 1e-7).map_err(TestCaseError::fail)?;
        let g = tensor::sum_d0(&x, &0.3);
        close(&g, &fd_of(&x, |x| tensor::sum(x) * 0.3), 1e-7).map_err(TestCaseError::fail)?;
        let g = tensor::mean_d0(&x, &0.3);
        close(&g, &fd_of(&x, |x| tensor::mean(x) * 0.3), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn elementwise_functions_and_mapv(shape in prop::collection::vec(1usize..=4, 0..=3), seed in any::<u64>(), k in 0..8usize) {
        // positive arguments in [0.5, 2] keep every function here smooth
        let x = values(&shape, 0.5, 2.0, seed);
        let w = values(&shape, -1.0, 1.0, seed ^ 3);
        let (f, g): (ArrayFn, ArrayD<f64>) = match k {
            0 => (|x| tensor::sin(x), tensor::sin_d0(&x, &w)),
            1 => (|x| tensor::exp(x), tensor::exp_d0(&tensor::exp(&x), &w)),
            2 => (|x| tensor::ln(x), tensor::ln_d0(&x, &w)),
            3 => (|x| tensor::sqrt(x), tensor::sqrt_d0(&tensor::sqrt(&x), w.clone())),
            4 => (|x| tensor::tanh(x), tensor::tanh_d0(&tensor::tanh(&x), &w)),
            5 => (|x| tensor::powi(x, &3), tensor::powi_d0(&x, &3, &w)),
            6 => (|x| tensor::neg(x), tensor::neg_d0(&w)),
            _ => (
                |x| tensor::mapv(x, &|v: f64| v.atan()),
                tensor::mapv_d0(&x, &tensor::mapv(&x, &|v: f64| v.atan()), &|x: f64, _y, g| autodiff_runtime::ops::atan_d0(&x, &g), &w),
            ),
        };
        close(&g, &fd_of(&x, |x| weighted(&w, &f(x))), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn scalar_arguments_of_elementwise_functions(shape in prop::collection::vec(1usize..=4, 0..=2), seed in any::<u64>(), p in 0.5f64..2.0) {
        let x = values(&shape, 0.5, 2.0, seed);
        let w = values(&shape, -1.0, 1.0, seed ^ 3);
        let y = tensor::powf(&x, &p);
        close(&tensor::powf_d0(&x, &p, &w), &fd_of(&x, |x| weighted(&w, &tensor::powf(x, &p))), 1e-7).map_err(TestCaseError::fail)?;
        let fp = finite_difference(|q| weighted(&w, &tensor::powf(&x, &q[0])), &[p]);
        close(&ndarray::arr0(tensor::powf_d1(&x, &y, &w)).into_dyn(), &fp, 1e-7).map_err(TestCaseError::fail)?;
        let fb = finite_difference(|q| weighted(&w, &tensor::atan2(&x, &q[0])), &[p]);
        close(&ndarray::arr0(tensor::atan2_d1(&x, &p, &w)).into_dyn(), &fb, 1e-7).map_err(TestCaseError::fail)?;
        close(&tensor::atan2_d0(&x, &p, &w), &fd_of(&x, |x| weighted(&w, &tensor::atan2(x, &p))), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn statistics_reshapes_and_selections(shape in prop::collection::vec(1usize..=4, 1..=3), seed in any::<u64>(), pick in any::<u64>()) {
        let x = values(&shape, 0.5, 1.5, seed);
        let ddof = (pick % 2) as f64;
        let n = x.len();
        if (n as f64) > ddof + 0.5 {
            close(&tensor::var_d0(&x, &ddof, &0.7), &fd_of(&x, |x| tensor::var(x, &ddof) * 0.7), 1e-7).map_err(TestCaseError::fail)?;
            let y = tensor::std(&x, &ddof);
            if y > 0.1 {
                close(&tensor::std_d0(&x, &ddof, &y, &0.7), &fd_of(&x, |x| tensor::std(x, &ddof) * 0.7), 1e-7).map_err(TestCaseError::fail)?;
            }
        }
        close(&tensor::product_d0(&x, &0.7), &fd_of(&x, |x| tensor::product(x) * 0.7), 1e-7).map_err(TestCaseError::fail)?;
        // reshape to a flat vector, and broadcast to a new leading axis
        let w1 = values(&[n], -1.0, 1.0, seed ^ 3);
        let flat = ndarray::Ix1(n);
        close(&tensor::reshape_d0(&x, &flat, &w1), &fd_of(&x, |x| weighted(&w1, &tensor::reshape(x, &flat).into_dyn())), 1e-7).map_err(TestCaseError::fail)?;
        let mut wide = vec![2];
        wide.extend(&shape);
        let ww = values(&wide, -1.0, 1.0, seed ^ 5);
        let to = IxDyn(&wide);
        close(&tensor::broadcast_d0(&x, &to, &ww), &fd_of(&x, |x| weighted(&ww, &tensor::broadcast(x, &to))), 1e-7).map_err(TestCaseError::fail)?;
                // the axes reversed (and rotated by one)
        for perm in [
            (0..shape.len()).rev().collect::<Vec<usize>>(),
            (0..shape.len()).map(|k| (k + 1) % shape.len()).collect(),
        ] {
            let permuted: Vec<usize> = perm.iter().map(|&k| shape[k]).collect();
            let wp = values(&permuted, -1.0, 1.0, seed ^ 17);
            let axes = IxDyn(&perm);
            close(&tensor::permuted_axes_d0(&x, &axes, &wp), &fd_of(&x, |x| weighted(&wp, &tensor::permuted_axes(x, &axes).to_owned())), 1e-7).map_err(TestCaseError::fail)?;
        }
        // a new axis, an index along an axis, a selection with repeats
        let axis = Axis((pick as usize / 2) % shape.len());
        let wi = values(&{ let mut s = shape.clone(); s.insert(axis.index(), 1); s }, -1.0, 1.0, seed ^ 7);
        close(&tensor::insert_axis_d0(&x, &axis, &wi), &fd_of(&x, |x| weighted(&wi, &tensor::insert_axis(x, &axis).to_owned())), 1e-7).map_err(TestCaseError::fail)?;
        let i = (pick as usize / 7) % shape[axis.index()];
        let wr = values(&shape.iter().enumerate().filter(|(k, _)| *k != axis.index()).map(|(_, &n)| n).collect::<Vec<_>>(), -1.0, 1.0, seed ^ 11);
        close(&tensor::index_axis_d0(&x, &axis, &i, &wr), &fd_of(&x, |x| weighted(&wr, &tensor::index_axis(x, &axis, &i).to_owned())), 1e-7).map_err(TestCaseError::fail)?;
        let picks: Vec<usize> = (0..3).map(|k| (pick as usize >> (8 * k)) % shape[axis.index()]).collect();
        let ws = values(&{ let mut s = shape.clone(); s[axis.index()] = picks.len(); s }, -1.0, 1.0, seed ^ 13);
        close(&tensor::select_d0(&x, &axis, &picks, &ws), &fd_of(&x, |x| weighted(&ws, &tensor::select(x, &axis, &picks))), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn concatenate_and_stack_along_every_axis(shape in prop::collection::vec(1usize..=3, 1..=3), extra in 1usize..=3, seed in any::<u64>(), axis in 0usize..3) {
        let axis = Axis(axis % shape.len());
        let a = values(&shape, -2.0, 2.0, seed);
        let mut other = shape.clone();
        other[axis.index()] = extra;
        let b = values(&other, -2.0, 2.0, seed ^ 3);
        let mut joined = shape.clone();
        joined[axis.index()] += extra;
        let w = values(&joined, -1.0, 1.0, seed ^ 5);
        let cat = |a: &ArrayD<f64>, b: &ArrayD<f64>| tensor::concatenate(&axis, &[a.view(), b.view()]);
        close(&tensor::concatenate_d(&axis, &[a.view(), b.view()], 0, &w), &fd_of(&a, |a| weighted(&w, &cat(a, &b))), 1e-7).map_err(TestCaseError::fail)?;
        close(&tensor::concatenate_d(&axis, &[a.view(), b.view()], 1, &w), &fd_of(&b, |b| weighted(&w, &cat(&a, b))), 1e-7).map_err(TestCaseError::fail)?;
        let c = values(&shape, -2.0, 2.0, seed ^ 7);
        let mut stacked = shape.clone();
        stacked.insert(axis.index(), 2);
        let ws = values(&stacked, -1.0, 1.0, seed ^ 11);
        let st = |a: &ArrayD<f64>, c: &ArrayD<f64>| tensor::stack(&axis, &[a.view(), c.view()]);
        close(&tensor::stack_d(&axis, &[a.view(), c.view()], 0, &ws), &fd_of(&a, |a| weighted(&ws, &st(a, &c))), 1e-7).map_err(TestCaseError::fail)?;
        close(&tensor::stack_d(&axis, &[a.view(), c.view()], 1, &ws), &fd_of(&c, |c| weighted(&ws, &st(&a, c))), 1e-7).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn column_major_operands(shape in prop::collection::vec(2usize..=4, 2..=3), seed in any::<u64>(), s in 0.5f64..2.0) {
        // the same values, stored column-major (what `x.t().to_owned()` gives)
        let a = values(&shape, -2.0, 2.0, seed);
                let column_major = |x: &ArrayD<f64>| {
            let mut c = ArrayD::zeros(IxDyn(x.shape()).f());
            c.assign(x);
            c
        };
        let a_f = column_major(&a);
        prop_assert_eq!(&a, &a_f);
        prop_assert!(shape.iter().all(|&n| n == 1) || a_f.as_slice().is_none());
        let w = values(&shape, -1.0, 1.0, seed ^ 3);
                let w_f = column_major(&w);
        for (b, dy) in [(&a_f, &w), (&a, &w_f), (&a_f, &w_f)] {
            let gs = tensor::mul_d0(&s, b, dy);
            let fs = finite_difference(|p| weighted(&w, &tensor::mul(&p[0], &a)), &[s]);
            close(&ndarray::arr0(gs).into_dyn(), &fs, 1e-7).map_err(TestCaseError::fail)?;
            close(&tensor::mul_d1(&s, b, dy), &fd_of(&a, |a| weighted(&w, &tensor::mul(&s, a))), 1e-7).map_err(TestCaseError::fail)?;
            close(&tensor::add_d1(b, dy.clone()), &w.clone().into_dyn().iter().copied().collect::<Vec<f64>>(), 1e-15).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn f32_rules_agree_with_f64_differences((_, sa, sb) in broadcast_shapes(), seed in any::<u64>()) {
        let out = broadcast(&sa, &sb);
        let a = values(&sa, -2.0, 2.0, seed);
        let b = values(&sb, -2.0, 2.0, seed ^ 7);
        let w = values(&out, -1.0, 1.0, seed ^ 13);
        let (a32, b32, w32) = (a.mapv(|v| v as f32), b.mapv(|v| v as f32), w.mapv(|v| v as f32));
        let g32 = tensor::mul_d0(&a32, &b32, &w32).mapv(f64::from);
        close(&g32, &fd_of(&a, |a| weighted(&w, &tensor::mul(a, &b))), 1e-4).map_err(TestCaseError::fail)?;
        let g32 = tensor::add_d1(&b32, &w32).mapv(f64::from);
        close(&g32, &fd_of(&b, |b| weighted(&w, &tensor::add(&a, b))), 1e-4).map_err(TestCaseError::fail)?;
        let t32 = tensor::tanh(&a32);
        let g32 = tensor::tanh_d0(&t32, &tensor::tanh(&a32)).mapv(f64::from);
        let ta = tensor::tanh(&a);
        close(&g32, &fd_of(&a, |a| weighted(&ta, &tensor::tanh(a))), 1e-4).map_err(TestCaseError::fail)?;
    }
}

#[test]
#[should_panic(expected = "do not broadcast")]
fn shapes_that_do_not_broadcast_panic_naming_them() {
    let a = ndarray::Array2::<f64>::zeros((2, 3));
    let b = ndarray::Array1::<f64>::zeros(4);
    let _ = tensor::add(&a, &b);
}
