//! Gradient checking by finite differences: the independent truth the project's own tests
//! compare generated gradients with, public so users can check their custom rules too.
//!
//! ```
//! use autodiff_runtime::check;
//! let f = |x: &[f64]| x[0] * x[1].sin();
//! let x = [2.0, 0.5];
//! let numeric = check::finite_difference(f, &x);
//! let analytic = [x[1].sin(), x[0] * x[1].cos()];
//! check::assert_gradient_close(&analytic, &numeric, 1e-9);
//! ```

/// The gradient of `f` at `x` by the fourth-order central difference
/// `(−f(x+2h) + 8f(x+h) − 8f(x−h) + f(x−2h)) / 12h` in each coordinate, with
/// `h = 1e-3 · max(1, |xᵢ|)`; its truncation error is `O(h⁴)`, so for smooth functions of
/// moderate curvature the result is accurate to about `1e-10` relative.
///
/// ```
/// let g = autodiff_runtime::check::finite_difference(|x: &[f64]| x[0].exp(), &[1.0]);
/// assert!((g[0] - 1.0_f64.exp()).abs() < 1e-10);
/// ```
pub fn finite_difference<F: FnMut(&[f64]) -> f64>(mut f: F, x: &[f64]) -> Vec<f64> {
    let mut point = x.to_vec();
    (0..x.len())
        .map(|i| {
            let h = 1e-3 * x[i].abs().max(1.0);
            let mut at = |offset: f64| {
                point[i] = x[i] + offset;
                let v = f(&point);
                point[i] = x[i];
                v
            };
            (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h)
        })
        .collect()
}

/// The second-order central difference `(f(x+h) − f(x−h)) / 2h` with
/// `h = 6e-6 · max(1, |xᵢ|)`, for functions whose higher derivatives are large or which
/// are only defined near `x`.
///
/// ```
/// let g = autodiff_runtime::check::central_difference(|x: &[f64]| x[0] * x[0], &[3.0]);
/// assert!((g[0] - 6.0).abs() < 1e-8);
/// ```
pub fn central_difference<F: FnMut(&[f64]) -> f64>(mut f: F, x: &[f64]) -> Vec<f64> {
    let mut point = x.to_vec();
    (0..x.len())
        .map(|i| {
            let h = 6e-6 * x[i].abs().max(1.0);
            point[i] = x[i] + h;
            let plus = f(&point);
            point[i] = x[i] - h;
            let minus = f(&point);
            point[i] = x[i];
            (plus - minus) / (2.0 * h)
        })
        .collect()
}

/// The first coordinate where `analytic` and `numeric` differ by more than
/// `tolerance · max(1, |numeric|)`, as `(index, analytic, numeric)`; `None` when they agree.
///
/// ```
/// use autodiff_runtime::check::first_mismatch;
/// assert_eq!(first_mismatch(&[1.0, 2.0], &[1.0, 2.0 + 1e-12], 1e-9), None);
/// assert_eq!(first_mismatch(&[1.0, 2.0], &[1.0, 2.5], 1e-9), Some((1, 2.0, 2.5)));
/// ```
pub fn first_mismatch(
    analytic: &[f64],
    numeric: &[f64],
    tolerance: f64,
) -> Option<(usize, f64, f64)> {
    assert_eq!(
        analytic.len(),
        numeric.len(),
        "gradient check: the analytic gradient has {} entries, the numeric one {}",
        analytic.len(),
        numeric.len()
    );
    analytic
        .iter()
        .zip(numeric)
        .enumerate()
        .find(|(_, (a, n))| {
            let close = (*a - *n).abs() <= tolerance * n.abs().max(1.0);
            let both_nan = a.is_nan() && n.is_nan();
            !(close || both_nan)
        })
        .map(|(i, (a, n))| (i, *a, *n))
}

/// Panics with a readable report if [`first_mismatch`] finds a coordinate where the two
/// gradients disagree.
///
/// ```
/// autodiff_runtime::check::assert_gradient_close(&[0.5, 1.0], &[0.5 + 1e-12, 1.0], 1e-9);
/// ```
#[track_caller]
pub fn assert_gradient_close(analytic: &[f64], numeric: &[f64], tolerance: f64) {
    if let Some((i, a, n)) = first_mismatch(analytic, numeric, tolerance) {
        panic!(
            "gradient mismatch at coordinate {i}: analytic {a:e}, numeric {n:e} (difference {:e}, \
            tolerance {tolerance:e} relative)\n analytic: {analytic:?}\n numeric:  {numeric:?}",
            (a - n).abs()
        );
    }
}

/// [`finite_difference`] with respect to every element of an array: the gradient of `f` at
/// `a`, shaped like `a`.
///
/// ```
/// use ndarray::array;
/// let a = array![[1.0_f64, 2.0], [3.0, 4.0]];
/// let g = autodiff_runtime::check::finite_difference_array(&a, |a| (a * a).sum());
/// assert!((g[[1, 0]] - 6.0).abs() < 1e-9);
/// ```
pub fn finite_difference_array<D, F>(a: &ndarray::Array<f64, D>, f: F) -> ndarray::Array<f64, D>
where
    D: ndarray::Dimension,
    F: Fn(&ndarray::Array<f64, D>) -> f64,
{
    let flat: Vec<f64> = a.iter().copied().collect();
    let shaped = |p: &[f64]| {
        ndarray::Array::from_shape_vec(a.raw_dim(), p.to_vec()).expect("the array's own shape")
    };
    shaped(&finite_difference(|p| f(&shaped(p)), &flat))
}
