//! Support for `jacobian!`: the rows of a function's output (one unit cotangent per
//! element), the columns of the selected parameter's gradient, the matrix they fill, and
//! the compile-time refusal of what `jacobian!` cannot serve.
//!
//! Not a public API: generated code reaches it through the facade's hidden path.
//!
//! The Jacobian is filled by reverse mode, one row per output element: the function's
//! `__vjp` runs once per row and its pullback is handed the unit cotangent of that
//! element; the selected parameter's gradient is the row. When the parameter has fewer
//! elements than the output and forward mode serves the function, by forward mode
//! instead, one column per parameter element: `__jvp` with the unit tangent of that
//! element ([`crate::forward::Unit`]), the output's tangent being the column
//! ([`from_columns`]).

use crate::real::Real;
use crate::select::{Sel1, TakeAt};
use crate::tangent::Differentiable;
use ndarray::{Array1, Array2};

/// An output `jacobian!` differentiates, each element one row of the Jacobian: a float
/// (one row), a `Vec`, an array or an `Array1` of floats.
pub trait Rows: Differentiable {
    /// The float type.
    type Elem: Real;
    /// The number of elements.
    fn rows(&self) -> usize;
    /// The cotangent that is one at element `i` and zero elsewhere.
    fn unit(&self, i: usize) -> Self::Tangent;
    /// Appends the elements of a tangent of the output (a column of the Jacobian).
    fn extend_column(tangent: &Self::Tangent, column: &mut Vec<Self::Elem>);
}

macro_rules! scalar_rows {
    ($($t:ty),*) => {$(
        impl Rows for $t {
            type Elem = $t;
            #[inline(always)]
            fn rows(&self) -> usize {
                1
            }
            #[inline(always)]
            fn unit(&self, _: usize) -> $t {
                1.0
            }
            #[inline(always)]
            fn extend_column(tangent: &$t, column: &mut Vec<$t>) {
                column.push(*tangent);
            }
        }

        impl Columns for $t {
            type Elem = $t;
            #[inline(always)]
            fn extend_row(&self, row: &mut Vec<$t>) {
                row.push(*self);
            }
        }
    )*};
}
scalar_rows!(f32, f64);

impl<F: Real> Rows for Vec<F> {
    type Elem = F;
    fn rows(&self) -> usize {
        self.len()
    }
    fn unit(&self, i: usize) -> Vec<F> {
        let mut u = vec![F::zero(); self.len()];
        u[i] = F::one();
        u
    }
    fn extend_column(tangent: &Vec<F>, column: &mut Vec<F>) {
        column.extend_from_slice(tangent);
    }
}

impl<F: Real, const N: usize> Rows for [F; N] {
    type Elem = F;
    fn rows(&self) -> usize {
        N
    }
    fn unit(&self, i: usize) -> [F; N] {
        let mut u = [F::zero(); N];
        u[i] = F::one();
        u
    }
    fn extend_column(tangent: &[F; N], column: &mut Vec<F>) {
        column.extend_from_slice(tangent);
    }
}

impl<F: Real> Rows for Array1<F> {
    type Elem = F;
    fn rows(&self) -> usize {
        self.len()
    }
    fn unit(&self, i: usize) -> Array1<F> {
        let mut u = Array1::zeros(self.len());
        u[i] = F::one();
        u
    }
    fn extend_column(tangent: &Array1<F>, column: &mut Vec<F>) {
        column.extend(tangent.iter().copied());
    }
}

/// The gradient of the parameter `jacobian!` selects, its elements one row of the Jacobian
/// (a float, a `Vec`, an array or an `Array1` of floats: the gradients of a float, a slice,
/// a `Vec`, an array or an `Array1` parameter).
#[diagnostic::on_unimplemented(
    message = "`jacobian!` needs exactly one selected parameter, a float or a slice, `Vec`, \
        array or `Array1` of floats; its gradient here is `{Self}`",
    label = "the selected parameter's gradient is not a sequence of floats",
    note = "`jacobian!` differentiates with respect to one float, slice, `Vec`, array or \
        `Array1` parameter, selected with `params = [\"name\"]`"
)]
pub trait Columns {
    /// The float type.
    type Elem: Real;
    /// Appends the elements, in order, to `row`.
    fn extend_row(&self, row: &mut Vec<Self::Elem>);
}

impl<F: Real> Columns for Vec<F> {
    type Elem = F;
    fn extend_row(&self, row: &mut Vec<F>) {
        row.extend_from_slice(self);
    }
}

impl<F: Real, const N: usize> Columns for [F; N] {
    type Elem = F;
    fn extend_row(&self, row: &mut Vec<F>) {
        row.extend_from_slice(self);
    }
}

impl<F: Real> Columns for Array1<F> {
    type Elem = F;
    fn extend_row(&self, row: &mut Vec<F>) {
        row.extend(self.iter().copied());
    }
}

/// Holds for the selection `jacobian!` passes (`Sel1<K>`) when `G`, the function's
/// `Option`al gradients, has at `K` a gradient with [`Columns`], and `O`, its output, has
/// [`Rows`] of the same float type whose cotangents have type `C` (the output's tangent
/// type, as the function's pullback takes it). A bound on the selection rather than on the
/// function's types, so that it is checked where `jacobian!` is used, not where the
/// function is defined.
#[diagnostic::on_unimplemented(
    message = "`jacobian!` needs one selected parameter, a float or a slice, `Vec`, array or \
        `Array1` of floats, and an output of the same floats; here the output is `{O}`",
    label = "`jacobian!` cannot serve this selection",
    note = "`jacobian!` differentiates with respect to one float, slice, `Vec`, array or \
        `Array1` parameter, selected with `params = [\"name\"]`"
)]
pub trait JacobianFor<G, O, C> {
    /// The float type.
    type Elem: Real;
    /// The number of rows.
    fn rows(value: &O) -> usize;
    /// The unit cotangent of row `i`.
    fn unit(value: &O, i: usize) -> C;
    /// The zero cotangent (an empty output still has its gradient's length).
    fn zero(value: &O) -> C;
    /// Appends the selected gradient as a row.
    fn push(gradients: G, matrix: &mut Matrix<Self::Elem>);
    /// Takes the number of columns from the selected gradient (an empty output).
    fn columns_of(gradients: G, matrix: &mut Matrix<Self::Elem>);
    /// The selected parameter's position (`usize::MAX` for a refused selection).
    const SELECTED: usize;
    /// Appends the elements of the output's tangent `tangent`: a column of the Jacobian.
    fn column(tangent: &C, columns: &mut Vec<Self::Elem>);
}

impl<G, O, const K: usize> JacobianFor<G, O, O::Tangent> for Sel1<K>
where
    G: TakeAt<K>,
    O: Rows,
    <G as TakeAt<K>>::Item: Columns<Elem = O::Elem>,
{
    type Elem = O::Elem;
    #[inline]
    fn rows(value: &O) -> usize {
        value.rows()
    }
    #[inline]
    fn unit(value: &O, i: usize) -> O::Tangent {
        value.unit(i)
    }
    #[inline]
    fn zero(value: &O) -> O::Tangent {
        value.zero_tangent()
    }
    #[inline]
    fn push(mut gradients: G, matrix: &mut Matrix<O::Elem>) {
        matrix.push(&gradients.take());
    }
    #[inline]
    fn columns_of(mut gradients: G, matrix: &mut Matrix<O::Elem>) {
        matrix.columns_of(&gradients.take());
    }
    const SELECTED: usize = K;
    #[inline]
    fn column(tangent: &O::Tangent, columns: &mut Vec<O::Elem>) {
        O::extend_column(tangent, columns);
    }
}

/// An argument handed to the function once per row: a clone of the caller's. A bound on
/// the selection, so that a parameter type without `Clone` is refused where `jacobian!`
/// is used, not where the function is defined.
#[diagnostic::on_unimplemented(
    message = "`jacobian!` runs the function once per row and so clones its arguments: \
        `{A}` is not `Clone`",
    label = "an argument of this function cannot be cloned",
    note = "take the parameter by reference"
)]
pub trait Again<A> {
    /// A clone of `arg`.
    fn again(arg: &A) -> A;
}

impl<A: Clone, const K: usize> Again<A> for Sel1<K> {
    #[inline(always)]
    fn again(arg: &A) -> A {
        arg.clone()
    }
}

/// The selection of a function `jacobian!` refuses (its reason is the compile error):
/// meets every bound, so that the reason is the only error; never run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Refused;

impl<G, O, C> JacobianFor<G, O, C> for Refused {
    type Elem = f64;
    fn rows(_: &O) -> usize {
        unreachable!("a refused `jacobian!` is never run")
    }
    fn unit(_: &O, _: usize) -> C {
        unreachable!("a refused `jacobian!` is never run")
    }
    fn zero(_: &O) -> C {
        unreachable!("a refused `jacobian!` is never run")
    }
    fn push(_: G, _: &mut Matrix<f64>) {
        unreachable!("a refused `jacobian!` is never run")
    }
    const SELECTED: usize = usize::MAX;
    fn column(_: &C, _: &mut Vec<f64>) {
        unreachable!()
    }
    fn columns_of(_: G, _: &mut Matrix<f64>) {
        unreachable!("a refused `jacobian!` is never run")
    }
}

impl<A> Again<A> for Refused {
    fn again(_: &A) -> A {
        unreachable!("a refused `jacobian!` is never run")
    }
}

/// `Sel1<K>` when `OK` (the function is served), else [`Refused`].
pub struct Choice<const K: usize, const OK: bool>;

/// The selection a [`Choice`] names.
pub trait Pick {
    /// `Sel1<K>` or [`Refused`].
    type Sel: Default;
}

impl<const K: usize> Pick for Choice<K, true> {
    type Sel = Sel1<K>;
}

impl<const K: usize> Pick for Choice<K, false> {
    type Sel = Refused;
}

/// The Jacobian being filled, row by row.
pub struct Matrix<F> {
    data: Vec<F>,
    rows: usize,
    columns: Option<usize>,
    function: &'static str,
}

impl<F: Real> Matrix<F> {
    /// An empty matrix of `rows` rows, for the function named `function`.
    pub fn new(rows: usize, function: &'static str) -> Self {
        Matrix {
            data: Vec::new(),
            rows,
            columns: None,
            function,
        }
    }

    /// Appends a row: the gradient of one output element.
    pub fn push<C: Columns<Elem = F>>(&mut self, gradient: &C) {
        let start = self.data.len();
        gradient.extend_row(&mut self.data);
        let n = self.data.len() - start;
        match self.columns {
            None => {
                self.columns = Some(n);
                self.data.reserve(n * self.rows.saturating_sub(1));
            }
            Some(c) if c != n => panic!(
                "autodiff: the gradients of `{}`'s outputs have {c} and {n} elements",
                self.function
            ),
            Some(_) => {}
        }
    }

    /// The number of columns from a gradient, when there are no rows (an empty output).
    pub fn columns_of<C: Columns<Elem = F>>(&mut self, gradient: &C) {
        let mut row = Vec::new();
        gradient.extend_row(&mut row);
        self.columns = Some(row.len());
    }

    /// The `rows × columns` matrix.
    pub fn finish(self) -> Array2<F> {
        let shape = (self.rows, self.columns.unwrap_or(0));
        Array2::from_shape_vec(shape, self.data).expect("a row per output element")
    }
}

/// The `rows × columns` Jacobian from its columns, one after the other (each `rows` long).
///
/// ```
/// let j = autodiff_runtime::jacobian::from_columns(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// assert_eq!(j, ndarray::array![[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]);
/// ```
pub fn from_columns<F: Real>(rows: usize, columns: usize, data: Vec<F>) -> Array2<F> {
    Array2::from_shape_vec((columns, rows), data)
        .expect("a column of the output's length per parameter element")
        .reversed_axes()
        .as_standard_layout()
        .into_owned()
}

/// The Jacobian by reverse mode, one row per output element: `first` is the pullback of
/// the sweep that computed `value`, `next` runs the function again and pulls the given
/// cotangent back (each row needs a sweep of its own: a pullback is used once). Both give
/// the selected gradients as `S` selects them. (The body of every `__jacobian_function`,
/// written once here rather than in each function's expansion.)
#[inline]
pub fn by_rows<S, G, O, C>(
    value: &O,
    function: &'static str,
    first: impl FnOnce(C) -> G,
    mut next: impl FnMut(C) -> G,
) -> Array2<S::Elem>
where
    S: JacobianFor<G, O, C>,
{
    let rows = S::rows(value);
    let mut matrix = Matrix::new(rows, function);
    if rows == 0 {
        S::columns_of(first(S::zero(value)), &mut matrix);
        return matrix.finish();
    }
    S::push(first(S::unit(value, 0)), &mut matrix);
    for row in 1..rows {
        S::push(next(S::unit(value, row)), &mut matrix);
    }
    matrix.finish()
}

/// The Jacobian by forward mode, one column per element of the selected parameter, if it
/// has fewer elements than the output has rows: `unit` starts as the parameter's zero
/// tangent, one element is set to one at a time, and `sweep` gives the output's tangent
/// for it. `None` (nothing run) when reverse mode needs fewer sweeps.
#[inline]
pub fn by_columns<S, G, O, C, U>(
    rows: usize,
    mut unit: U,
    mut sweep: impl FnMut(&U) -> C,
) -> Option<Array2<S::Elem>>
where
    S: JacobianFor<G, O, C>,
    U: crate::forward::Unit,
{
    let n = unit.count();
    if n >= rows {
        return None;
    }
    let mut columns = Vec::with_capacity(n * rows);
    for j in 0..n {
        unit.set_unit(j, true);
        let tangent = sweep(&unit);
        unit.set_unit(j, false);
        S::column(&tangent, &mut columns);
    }
    Some(from_columns(rows, n, columns))
}

/// A compile-time error, where `jacobian!` is used, when the function cannot be served.
pub const fn check_supported(reason: Option<&'static str>) {
    if let Some(r) = reason {
        panic!("{}", r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_rows_in_order() {
        let mut m = Matrix::new(2, "f");
        m.push(&vec![1.0, 2.0, 3.0]);
        m.push(&[4.0, 5.0, 6.0]);
        assert_eq!(
            m.finish(),
            ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
        );
    }

    #[test]
    fn units_select_one_element() {
        assert_eq!(vec![0.0_f32; 3].unit(1), vec![0.0, 1.0, 0.0]);
        assert_eq!([0.0_f64; 2].unit(0), [1.0, 0.0]);
        assert_eq!(Array1::<f64>::zeros(2).unit(1), ndarray::array![0.0, 1.0]);
        assert_eq!(2.5_f64.rows(), 1);
    }

    #[test]
    fn an_empty_output_keeps_the_columns() {
        let mut m = Matrix::<f64>::new(0, "f");
        m.columns_of(&vec![0.0; 4]);
        assert_eq!(m.finish().shape(), &[0, 4]);
    }
}
