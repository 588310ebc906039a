//! Adjoint buffers owned by the caller ("shadows", as Enzyme's `Duplicated` arguments and
//! Tapenade's adjoint arguments): the derivative of a function with a slice or `Vec`
//! parameter adds that parameter's gradient into a buffer its caller hands over, instead
//! of returning a fresh full-length gradient. Differentiating a call then costs what the
//! callee does, not the length of every slice it was given.
//!
//! Generated code passes one sink per argument, and the callee's signature decides its
//! type: a [`SliceShadow`] for a parameter that is a float slice or `Vec` (the caller's
//! adjoint buffer, a sub-slice of it, or nothing when the argument is a constant), and
//! [`Ignored`] for every other parameter (whose gradient is returned, as a value). The
//! caller does not need to know which: [`sink`] and [`no_sink`] produce whichever type the
//! callee's pullback expects.
//!
//! ```
//! use autodiff_runtime::shadow::{sink, no_sink, Ignored, SliceShadow};
//! use autodiff_runtime::ops::index_d0;
//!
//! // A callee's reverse sweep: `y = v[1] * 2`, adding into the caller's buffer.
//! fn reverse(dy: f64, mut dv: SliceShadow<'_, f64>) {
//!     index_d0(&mut dv, 1, &(2.0 * dy));
//! }
//! let mut caller_adjoint = vec![0.0_f64; 4];
//! reverse(1.0, sink(&mut caller_adjoint));
//! reverse(1.0, sink(&mut caller_adjoint[1..3])); // a sub-slice: its element 1 is 2
//! reverse(1.0, no_sink()); // a constant argument: nothing is computed anywhere
//! assert_eq!(caller_adjoint, vec![0.0, 2.0, 2.0, 0.0]);
//! let _: Ignored = sink(&mut 1.0_f64); // a parameter whose gradient is returned
//! ```

use crate::real::Real;
use crate::tangent::Accumulate;

/// The adjoint buffer of a slice or `Vec` parameter, owned by the caller: contributions
/// are added into it in place. Empty when the caller's argument is a constant: then
/// contributions are dropped.
#[derive(Debug)]
pub struct SliceShadow<'a, E> {
    buf: Option<&'a mut [E]>,
    scratch: E,
}

impl<E: Real> Default for SliceShadow<'_, E> {
    /// No buffer: the argument is a constant.
    fn default() -> Self {
        SliceShadow {
            buf: None,
            scratch: E::zero(),
        }
    }
}

impl<'a, E: Real> SliceShadow<'a, E> {
    /// A shadow adding into `buf`.
    #[inline(always)]
    pub fn new(buf: &'a mut [E]) -> Self {
        SliceShadow {
            buf: Some(buf),
            scratch: E::zero(),
        }
    }

    /// Whether contributions land anywhere (the argument is differentiable).
    #[inline(always)]
    pub fn is_active(&self) -> bool {
        self.buf.is_some()
    }

    /// The same buffer, borrowed for a nested call.
    #[inline(always)]
    pub fn reborrow(&mut self) -> SliceShadow<'_, E> {
        SliceShadow {
            buf: self.buf.as_deref_mut(),
            scratch: E::zero(),
        }
    }

    /// The shadow of the sub-slice `range` (the argument `&v[range]`).
    ///
    /// # Panics
    ///
    /// If `range` is out of bounds, as indexing the primal slice with it does first.
    #[inline(always)]
    pub fn range<R>(&mut self, range: R) -> SliceShadow<'_, E>
    where
        R: core::slice::SliceIndex<[E], Output = [E]>,
    {
        SliceShadow {
            buf: self.buf.as_deref_mut().map(|b| &mut b[range]),
            scratch: E::zero(),
        }
    }
}

impl<E: Real> core::ops::Index<usize> for SliceShadow<'_, E> {
    type Output = E;
    #[inline(always)]
    fn index(&self, i: usize) -> &E {
        match &self.buf {
            Some(b) => &b[i],
            None => &self.scratch,
        }
    }
}

impl<E: Real> core::ops::IndexMut<usize> for SliceShadow<'_, E> {
    /// Element `i` of the buffer; with no buffer, a scratch element (reset to zero)
    /// that nothing reads.
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut E {
        match &mut self.buf {
            Some(b) => &mut b[i],
            None => {
                self.scratch = E::zero();
                &mut self.scratch
            }
        }
    }
}

impl<E: Real> Accumulate<Vec<E>> for SliceShadow<'_, E> {
    /// Adds a whole gradient (from a copy of the parameter, or a callee that returned it).
    fn accumulate(&mut self, contribution: Vec<E>) {
        let Some(buf) = &mut self.buf else {
            return;
        };
        if contribution.is_empty() {
            return; // an empty gradient stands for zero
        }
        assert_eq!(
            buf.len(),
            contribution.len(),
            "gradient length mismatch: accumulating a gradient of length {} into a slice of \
             length {}",
            contribution.len(),
            buf.len()
        );
        for (a, b) in buf.iter_mut().zip(contribution) {
            *a = *a + b;
        }
    }
}

impl<E: Real, const N: usize> Accumulate<[E; N]> for SliceShadow<'_, E> {
    /// Adds the gradient of a fixed-size array written through (`&mut [f64; N]`).
    fn accumulate(&mut self, contribution: [E; N]) {
        let Some(buf) = &mut self.buf else {
            return;
        };
        assert_eq!(
            buf.len(),
            N,
            "gradient length mismatch: accumulating a gradient of length {N} into a slice of \
             length {}",
            buf.len()
        );
        for (a, b) in buf.iter_mut().zip(contribution) {
            *a = *a + b;
        }
    }
}

/// The sink of a parameter whose gradient the callee returns as a value (a float, an
/// array, a struct): it carries nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ignored;

/// Makes a callee's sink from the caller's adjoint of an argument.
pub trait FromAdjoint<'a, A: ?Sized> {
    /// The sink for `adjoint`.
    fn from_adjoint(adjoint: &'a mut A) -> Self;
}

impl<'a, A: ?Sized> FromAdjoint<'a, A> for Ignored {
    #[inline(always)]
    fn from_adjoint(_: &'a mut A) -> Self {
        Ignored
    }
}

impl<'a, E: Real> FromAdjoint<'a, Vec<E>> for SliceShadow<'a, E> {
    #[inline(always)]
    fn from_adjoint(adjoint: &'a mut Vec<E>) -> Self {
        SliceShadow::new(adjoint)
    }
}

impl<'a, E: Real> FromAdjoint<'a, [E]> for SliceShadow<'a, E> {
    #[inline(always)]
    fn from_adjoint(adjoint: &'a mut [E]) -> Self {
        SliceShadow::new(adjoint)
    }
}

impl<'a, E: Real, const N: usize> FromAdjoint<'a, [E; N]> for SliceShadow<'a, E> {
    #[inline(always)]
    fn from_adjoint(adjoint: &'a mut [E; N]) -> Self {
        SliceShadow::new(adjoint)
    }
}

/// The adjoint of a float written through (`step(&mut x, …)` of an `x: &mut f64`
/// parameter): a one-element shadow.
impl<'a, E: Real> FromAdjoint<'a, E> for SliceShadow<'a, E> {
    #[inline(always)]
    fn from_adjoint(adjoint: &'a mut E) -> Self {
        SliceShadow::new(core::slice::from_mut(adjoint))
    }
}

impl<'a, 'b, E: Real> FromAdjoint<'a, SliceShadow<'b, E>> for SliceShadow<'a, E> {
    #[inline(always)]
    fn from_adjoint(adjoint: &'a mut SliceShadow<'b, E>) -> Self {
        adjoint.reborrow()
    }
}

/// The sink a callee expects for an argument whose adjoint is `adjoint`.
#[inline(always)]
pub fn sink<'a, A: ?Sized, S: FromAdjoint<'a, A>>(adjoint: &'a mut A) -> S {
    S::from_adjoint(adjoint)
}

/// The sink of a constant argument: no gradient is computed for it.
#[inline(always)]
pub fn no_sink<S: Default>() -> S {
    S::default()
}

/// The sink of a sub-slice argument `&v[range]`, from the adjoint of `v`.
///
/// For a slice of floats the sink is a [`SliceShadow`] of the range; for a slice of rows
/// (`&m[1..]` of an `m: &[Vec<f64>]`, whose callee returns the rows' gradient as a value)
/// it is the range of the rows' adjoint itself, which the gradient is added into.
pub trait RangeAdjoint<E> {
    /// The sink of a range.
    type Range<'a>
    where
        Self: 'a;
    /// The shadow of `self[range]`.
    fn range_shadow<R>(&mut self, range: R) -> Self::Range<'_>
    where
        R: core::slice::SliceIndex<[E], Output = [E]>;
    /// The whole adjoint, or `None` for a shadow carrying nothing.
    fn whole(&mut self) -> Option<&mut [E]>;
}

/// The adjoint of a slice of rows (`Vec`s or arrays of floats): a range of it is lent as
/// it is, and the gradient a callee returns for those rows is added into it.
macro_rules! rows_range_adjoint {
    ($([$($g:tt)*] $row:ty, $adjoint:ty;)*) => {$(
        impl<$($g)*> RangeAdjoint<$row> for $adjoint {
            type Range<'a>
                = RowsShadow<'a, $row>
            where
                Self: 'a;
            #[inline(always)]
            fn range_shadow<R>(&mut self, range: R) -> RowsShadow<'_, $row>
            where
                R: core::slice::SliceIndex<[$row], Output = [$row]>,
            {
                RowsShadow(&mut self[range])
            }
            #[inline(always)]
            fn whole(&mut self) -> Option<&mut [$row]> {
                Some(&mut self[..])
            }
        }
    )*};
}

rows_range_adjoint! {
    [E: Real] Vec<E>, Vec<Vec<E>>;
    [E: Real, const M: usize] [E; M], Vec<[E; M]>;
    [E: Real, const M: usize, const N: usize] [E; M], [[E; M]; N];
}

/// A range of the adjoint of a slice of rows (see [`RangeAdjoint`]).
pub struct RowsShadow<'a, T>(pub &'a mut [T]);

impl<T: Accumulate> Accumulate<Vec<T>> for RowsShadow<'_, T> {
    /// Adds the gradient of the rows (an empty one stands for zero).
    fn accumulate(&mut self, contribution: Vec<T>) {
        crate::tangent::add_elements(self.0, contribution, "rows");
    }
}

impl<E: Real> RangeAdjoint<E> for Vec<E> {
    type Range<'a>
        = SliceShadow<'a, E>
    where
        Self: 'a;
    #[inline(always)]
    fn range_shadow<R>(&mut self, range: R) -> SliceShadow<'_, E>
    where
        R: core::slice::SliceIndex<[E], Output = [E]>,
    {
        SliceShadow::new(&mut self[range])
    }
    #[inline(always)]
    fn whole(&mut self) -> Option<&mut [E]> {
        Some(&mut self[..])
    }
}

impl<E: Real, const N: usize> RangeAdjoint<E> for [E; N] {
    type Range<'a>
        = SliceShadow<'a, E>
    where
        Self: 'a;
    #[inline(always)]
    fn range_shadow<R>(&mut self, range: R) -> SliceShadow<'_, E>
    where
        R: core::slice::SliceIndex<[E], Output = [E]>,
    {
        SliceShadow::new(&mut self[range])
    }
    #[inline(always)]
    fn whole(&mut self) -> Option<&mut [E]> {
        Some(&mut self[..])
    }
}

impl<E: Real> RangeAdjoint<E> for SliceShadow<'_, E> {
    type Range<'a>
        = SliceShadow<'a, E>
    where
        Self: 'a;
    #[inline(always)]
    fn range_shadow<R>(&mut self, range: R) -> SliceShadow<'_, E>
    where
        R: core::slice::SliceIndex<[E], Output = [E]>,
    {
        self.range(range)
    }
    #[inline(always)]
    fn whole(&mut self) -> Option<&mut [E]> {
        self.buf.as_deref_mut()
    }
}

/// The sinks of several disjoint ranges of one adjoint, handed to one call (the views a
/// `split_at_mut` made of one buffer, see `views::disjoint`).
#[inline(always)]
#[track_caller]
pub fn disjoint_sinks<E: Real, A: RangeAdjoint<E> + ?Sized, const N: usize>(
    adjoint: &mut A,
    ranges: [(usize, Option<usize>); N],
) -> [SliceShadow<'_, E>; N] {
    split_sinks(adjoint.whole(), ranges)
}

/// The sinks of disjoint `ranges` of `buf`, or ones carrying nothing without a buffer.
#[inline(always)]
#[track_caller]
fn split_sinks<E: RangeElem, const N: usize>(
    buf: Option<&mut [E]>,
    ranges: [(usize, Option<usize>); N],
) -> [E::Sink<'_>; N] {
    match buf {
        Some(buf) => crate::views::disjoint(buf, ranges).map(E::sink),
        None => core::array::from_fn(|_| E::no_sink()),
    }
}

/// The sinks of several sub-slices of one slice handed to one call (`f(&p[..n], &p[n..])`,
/// a parameter vector cut into weights and biases): the same ranges of the slice's adjoint,
/// split apart, when they do not overlap; otherwise (`f(&x[..3], &x[1..])`, which Rust
/// allows for shared slices) a zeroed buffer each, added into the adjoint by
/// [`finish`](RangeSinks::finish) after the call.
///
/// ```
/// use autodiff_runtime::shadow::RangeSinks;
/// use autodiff_runtime::ops::index_d0;
///
/// let mut adjoint = vec![0.0_f64; 4];
/// let mut ranges = RangeSinks::new(&mut adjoint, [(0, Some(2)), (2, None)]);
/// let [mut w, mut b] = ranges.sinks(); // disjoint: the adjoint's own ranges
/// index_d0(&mut w, 1, &1.0);
/// index_d0(&mut b, 0, &2.0);
/// ranges.finish();
/// assert_eq!(adjoint, vec![0.0, 1.0, 2.0, 0.0]);
///
/// let mut ranges = RangeSinks::new(&mut adjoint, [(0, Some(3)), (1, None)]);
/// let [mut a, mut c] = ranges.sinks(); // overlapping: buffers of their own
/// index_d0(&mut a, 2, &1.0);
/// index_d0(&mut c, 1, &1.0); // the same element, from the other range
/// ranges.finish();
/// assert_eq!(adjoint, vec![0.0, 1.0, 4.0, 0.0]);
/// ```
#[derive(Debug)]
pub struct RangeSinks<'a, E, const N: usize> {
    adjoint: Option<&'a mut [E]>,
    bounds: [(usize, usize); N],
    scratch: Option<[Vec<E>; N]>,
}

/// An element of a slice whose sub-slices [`RangeSinks`] hands to one call: a float, whose
/// ranges are lent as [`SliceShadow`]s of the adjoint, or a row (`Vec` or array of floats):
/// the callee returns the rows' gradients as values, which the caller adds into each range
/// of the adjoint after the call, so their sinks carry nothing (and overlapping ranges need
/// no buffers of their own).
pub trait RangeElem: Sized {
    /// Whether ranges are lent as parts of the adjoint.
    const LENT: bool;
    /// The sink of one range.
    type Sink<'a>
    where
        Self: 'a;
    /// The sink of `part` of the adjoint.
    fn sink(part: &mut [Self]) -> Self::Sink<'_>;
    /// A sink carrying nothing.
    fn no_sink<'a>() -> Self::Sink<'a>
    where
        Self: 'a;
    /// A zeroed buffer of `n` elements (for overlapping ranges).
    fn zeros(n: usize) -> Vec<Self>;
    /// `*a += g`.
    fn add(a: &mut Self, g: Self);
}

impl<E: Real> RangeElem for E {
    const LENT: bool = true;
    type Sink<'a>
        = SliceShadow<'a, E>
    where
        E: 'a;
    #[inline(always)]
    fn sink(part: &mut [E]) -> SliceShadow<'_, E> {
        SliceShadow::new(part)
    }
    #[inline(always)]
    fn no_sink<'a>() -> SliceShadow<'a, E>
    where
        E: 'a,
    {
        SliceShadow::default()
    }
    fn zeros(n: usize) -> Vec<E> {
        vec![E::zero(); n]
    }
    #[inline(always)]
    fn add(a: &mut E, g: E) {
        *a = *a + g;
    }
}

macro_rules! row_range_elem {
    ($([$($g:tt)*] $row:ty;)*) => {$(
        impl<$($g)*> RangeElem for $row {
            const LENT: bool = false;
            type Sink<'a> = Ignored where Self: 'a;
            #[inline(always)]
            fn sink(_: &mut [Self]) -> Ignored {
                Ignored
            }
            #[inline(always)]
            fn no_sink<'a>() -> Ignored
            where
                Self: 'a,
            {
                Ignored
            }
            fn zeros(_: usize) -> Vec<Self> {
                Vec::new()
            }
            #[inline(always)]
            fn add(a: &mut Self, g: Self) {
                a.accumulate(g);
            }
        }
    )*};
}

row_range_elem! {
    [E: Real] Vec<E>;
    [E: Real, const M: usize] [E; M];
}

impl<'a, E: RangeElem, const N: usize> RangeSinks<'a, E, N> {
    /// The ranges `ranges` (start, end or `None` for the slice's end) of `adjoint`, as the
    /// forward sweep sliced them (so they are in bounds).
    #[inline(always)]
    pub fn new<A: RangeAdjoint<E> + ?Sized>(
        adjoint: &'a mut A,
        ranges: [(usize, Option<usize>); N],
    ) -> Self {
        let adjoint = adjoint.whole();
        let len = adjoint.as_ref().map_or(0, |a| a.len());
        let bounds = ranges.map(|r| crate::views::resolve(r, len));
        let mut order: [usize; N] = core::array::from_fn(|k| k);
        order.sort_by_key(|&k| bounds[k]);
        let overlap = order.windows(2).any(|w| bounds[w[1]].0 < bounds[w[0]].1);
        let scratch = (E::LENT && adjoint.is_some() && overlap)
            .then(|| bounds.map(|(start, end)| E::zeros(end - start)));
        RangeSinks {
            adjoint,
            bounds,
            scratch,
        }
    }

    /// One sink per range, in the order given.
    #[inline(always)]
    pub fn sinks(&mut self) -> [E::Sink<'_>; N] {
        match &mut self.scratch {
            Some(scratch) => scratch.each_mut().map(|p| E::sink(p)),
            // (rows are not lent: their ranges may overlap, and carry nothing)
            None => split_sinks(
                self.adjoint.as_deref_mut().filter(|_| E::LENT),
                self.bounds.map(|(s, e)| (s, Some(e))),
            ),
        }
    }

    /// Adds what the call put into buffers of their own (overlapping ranges) into the
    /// adjoint.
    #[inline(always)]
    pub fn finish(self) {
        if let (Some(scratch), Some(adjoint)) = (self.scratch, self.adjoint) {
            for (part, (start, end)) in scratch.into_iter().zip(self.bounds) {
                for (a, g) in adjoint[start..end].iter_mut().zip(part) {
                    E::add(a, g);
                }
            }
        }
    }
}

/// The sink of `&v[range]`: `adjoint` is the adjoint of `v`.
#[inline(always)]
pub fn sink_range<E, A, R>(adjoint: &mut A, range: R) -> A::Range<'_>
where
    A: RangeAdjoint<E> + ?Sized,
    R: core::slice::SliceIndex<[E], Output = [E]>,
{
    adjoint.range_shadow(range)
}

/// The sink of a gradient buffer a caller of `accumulate_gradients!` handed over for the
/// slice parameter `param` of `function`, after checking that it has the argument's length
/// (a shorter or longer buffer would not hold the gradient).
///
/// # Panics
///
/// If the lengths differ, naming the parameter and both lengths.
#[doc(hidden)]
#[inline]
pub fn caller_buffer<'a, E: Real, P: AsRef<[E]> + ?Sized, S: FromAdjoint<'a, [E]>>(
    function: &str,
    param: &str,
    argument: &P,
    buffer: &'a mut [E],
) -> S {
    let n = argument.as_ref().len();
    if buffer.len() != n {
        buffer_length_mismatch(function, param, n, buffer.len());
    }
    S::from_adjoint(buffer)
}

#[cold]
#[inline(never)]
fn buffer_length_mismatch(function: &str, param: &str, n: usize, len: usize) -> ! {
    panic!(
        "autodiff: the gradient buffer of `{param}` (a parameter of `{function}`) has length \
         {len}, but `{param}` has length {n}: hand a buffer of the argument's length"
    )
}
