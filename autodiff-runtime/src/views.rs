//! `&mut` views of a buffer bound to names (`let (h, c) = buf.split_at_mut(k)`, `let h = &mut
//! buf[a..b]`), as differentiable code reads them: ranges of the buffer, with the checks
//! the view's own making does (the generated code no longer makes the view).
//!
//! ```
//! use autodiff_runtime::views::{check_range, check_split, handed_on};
//! check_split(2, 3);
//! check_range(1, 3, 3);
//! let mut buf = [1.0, 2.0, 3.0];
//! handed_on(&mut buf[1..])[0] = 5.0;
//! assert_eq!(buf, [1.0, 5.0, 3.0]);
//! assert!(std::panic::catch_unwind(|| check_split(4, 3)).is_err());
//! assert!(std::panic::catch_unwind(|| check_range(2, 4, 3)).is_err());
//! ```

/// `buf.split_at_mut(mid)`'s check, with its message, at the caller's line.
#[track_caller]
#[inline(always)]
pub fn check_split(mid: usize, len: usize) {
    if mid > len {
        panic!("mid > len");
    }
}

/// The order a stable sort by `compare` puts the elements of `v` in: element `k` of the
/// sorted slice is `v[order[k]]`. `v.sort_by(compare)` is the gather of this order, which
/// is how its derivative is taken (each element's adjoint goes back to where the element
/// came from); equal elements keep their order, as `sort_by` keeps them (`sort_unstable_by`
/// may exchange them, which changes neither the values nor, but at equal values, the
/// gradient).
///
/// ```
/// use autodiff_runtime::views::sorted_order;
/// let v = [0.5, -1.0, 2.0, -1.0];
/// let order = sorted_order(&v, |a: &f64, b: &f64| a.total_cmp(b));
/// assert_eq!(order, vec![1, 3, 0, 2]);
/// ```
pub fn sorted_order<E>(
    v: &[E],
    mut compare: impl FnMut(&E, &E) -> core::cmp::Ordering,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| compare(&v[a], &v[b]));
    order
}

/// `&mut buf[start..end]`'s bounds check, with Rust's own message, at the caller's line.
#[track_caller]
#[inline(always)]
pub fn check_range(start: usize, end: usize, len: usize) {
    // (a `Vec` of zero-sized elements of the buffer's length: nothing is allocated)
    let _ = &vec![(); len][start..end];
}

/// `buf[start..end].copy_from_slice(src)`'s checks (the range, then the lengths), with
/// Rust's own messages, at the caller's line.
#[track_caller]
#[inline(always)]
pub fn check_copy(src_len: usize, start: usize, end: usize, len: usize) {
    check_range(start, end, len);
    if src_len != end - start {
        panic!(
            "copy_from_slice: source slice length ({src_len}) does not match destination \
             slice length ({})",
            end - start
        );
    }
}

/// The number of chunks `buf.chunks_mut(size)` makes of a buffer of `len` elements.
///
/// # Panics
///
/// If `size` is zero, as `chunks_mut` does.
#[track_caller]
#[inline(always)]
pub fn chunks(len: usize, size: usize) -> usize {
    assert!(size != 0, "chunk size must be non-zero");
    len.div_ceil(size)
}

/// The number of chunks `buf.chunks_exact_mut(size)` makes of a buffer of `len` elements.
///
/// # Panics
///
/// If `size` is zero, as `chunks_exact_mut` does.
#[track_caller]
#[inline(always)]
pub fn exact_chunks(len: usize, size: usize) -> usize {
    assert!(size != 0, "chunk size must be non-zero");
    len / size
}

/// A view handed to a function as it is, standing for the range of the buffer it is (the
/// identity).
#[inline(always)]
pub fn handed_on<T: ?Sized>(range: &mut T) -> &mut T {
    range
}

/// The bounds of a range of a buffer of `len` elements, as the generated code writes them:
/// `end` is `None` for a range open at the end.
#[inline(always)]
pub(crate) fn resolve((start, end): (usize, Option<usize>), len: usize) -> (usize, usize) {
    (start, end.unwrap_or(len))
}

/// Disjoint ranges of one buffer, each borrowed mutably: what the views made by
/// `split_at_mut` are when a call is handed several of them (`step(hidden, cell, x)` of
/// `let (hidden, cell) = state.split_at_mut(b)`). The ranges come from the user's views,
/// which Rust proved disjoint; each is checked against the buffer's length as slicing
/// checks it.
///
/// # Panics
///
/// If a range is out of the buffer's bounds (Rust's own message) or two ranges overlap.
///
/// ```
/// use autodiff_runtime::views::disjoint;
/// let mut buf = [1.0, 2.0, 3.0, 4.0];
/// let [b, a] = disjoint(&mut buf[..], [(2, None), (0, Some(2))]);
/// a[0] = 10.0;
/// b[1] = 40.0;
/// assert_eq!(buf, [10.0, 2.0, 3.0, 40.0]);
/// ```
#[track_caller]
pub fn disjoint<E, const N: usize>(
    buf: &mut [E],
    ranges: [(usize, Option<usize>); N],
) -> [&mut [E]; N] {
    let len = buf.len();
    let bounds = ranges.map(|r| resolve(r, len));
    for &(start, end) in &bounds {
        check_range(start, end, len);
    }
    let mut order: [usize; N] = core::array::from_fn(|k| k);
    order.sort_by_key(|&k| bounds[k]);
    let mut parts: [Option<&mut [E]>; N] = core::array::from_fn(|_| None);
    let (mut rest, mut at) = (buf, 0);
    for k in order {
        let (start, end) = bounds[k];
        assert!(
            start >= at,
            "two views of one buffer handed to one call overlap"
        );
        let tail = core::mem::take(&mut rest);
        let (_, tail) = tail.split_at_mut(start - at);
        let (part, tail) = tail.split_at_mut(end - start);
        parts[k] = Some(part);
        (rest, at) = (tail, end);
    }
    parts.map(|p| p.unwrap_or_default())
}
