//! Float buffers a thread reuses from one derivative to the next.
//!
//! A helper that makes local buffers (`let mut out = vec![0.0; d];`), called many times in
//! a differentiable loop, keeps every call's buffers alive from the forward sweep to its
//! reverse: tens of thousands of small allocations alive at once, then freed in the reverse
//! order, which the system allocator serves slowly (its fast per-size caches hold a few
//! chunks each). Generated code takes such buffers from this pool ([`filled`]) and gives them
//! back where its pullback ends ([`Give`]); the next derivative of the thread takes them
//! again. A buffer is only ever handed out with every element written, so what the pool
//! holds is never visible.
//!
//! A thread keeps buffers of at most [`SIZES`] different capacities and [`KEEP_BYTES`]
//! bytes in all per float type; more are freed as usual, and a capacity of which more
//! buffers are given back than the limit holds is not kept again (a derivative that keeps
//! that many alive at once gains nothing from a pool that holds some of them). [`clear`]
//! frees them.
//!
//! ```
//! use autodiff_runtime::pool::{self, Give, GiveAny as _, GiveVec as _};
//! pool::clear();
//! let v: Vec<f64> = pool::filled(0.5, 3, || vec![0.5; 3]);
//! let at = v.as_ptr();
//! Give(v).give();
//! let w: Vec<f64> = pool::filled(-1.0, 3, || vec![-1.0; 3]);
//! assert_eq!((w.clone(), w.as_ptr()), (vec![-1.0; 3], at));
//! Give(2.0_f64).give(); // anything else is dropped as usual
//! ```

use crate::real::Real;
use std::cell::RefCell;

/// How many different capacities a thread keeps buffers of, per float type.
pub const SIZES: usize = 16;
/// The most elements of a zero gradient taken from the pool (`Differentiable::zero_tangents`
/// of floats): a larger one is zeroed memory from the system, whose pages cost only where
/// contributions touch them; a small one is written in any case, and `calloc` is not served
/// by the system allocator's per-thread cache.
pub const SMALL: usize = 4096;
/// How many bytes of buffers a thread keeps, per float type.
pub const KEEP_BYTES: usize = 8 << 20;

/// A thread's buffers of one float type, by capacity.
#[derive(Debug)]
pub struct Pool<E> {
    by_capacity: Vec<(usize, Vec<Vec<E>>)>,
    bytes: usize,
    /// Capacities whose buffers outgrew the pool: more of them alive at once than
    /// [`KEEP_BYTES`] holds, so keeping some would only add to what the allocator serves.
    /// Their buffers are freed as usual.
    overflowed: Vec<usize>,
}

impl<E> Pool<E> {
    /// An empty pool.
    pub const fn new() -> Pool<E> {
        Pool {
            by_capacity: Vec::new(),
            bytes: 0,
            overflowed: Vec::new(),
        }
    }

    /// An empty buffer of capacity exactly `n`, if one was given back.
    fn take(&mut self, n: usize) -> Option<Vec<E>> {
        let (_, stack) = self.by_capacity.iter_mut().find(|(c, _)| *c == n)?;
        let v = stack.pop()?;
        self.bytes -= n * std::mem::size_of::<E>();
        Some(v)
    }

    fn give(&mut self, mut v: Vec<E>) {
        let capacity = v.capacity();
        let bytes = capacity * std::mem::size_of::<E>();
        if bytes == 0 || self.overflowed.contains(&capacity) {
            return;
        }
        if self.bytes + bytes > KEEP_BYTES {
            // (the buffers of this capacity freed, and no more kept)
            if let Some(at) = self.by_capacity.iter().position(|(c, _)| *c == capacity) {
                let (_, stack) = self.by_capacity.swap_remove(at);
                self.bytes -= stack.len() * bytes;
            }
            if self.overflowed.len() < SIZES {
                self.overflowed.push(capacity);
            }
            return;
        }
        v.clear();
        match self.by_capacity.iter_mut().find(|(c, _)| *c == capacity) {
            Some((_, stack)) => stack.push(v),
            None => {
                // a capacity seen before whose buffers are all out makes room for this one
                if self.by_capacity.len() >= SIZES {
                    let Some(empty) = self.by_capacity.iter().position(|(_, s)| s.is_empty())
                    else {
                        return;
                    };
                    self.by_capacity.swap_remove(empty);
                }
                self.by_capacity.push((capacity, vec![v]));
            }
        }
        self.bytes += bytes;
    }
}

impl<E> Default for Pool<E> {
    fn default() -> Pool<E> {
        Pool::new()
    }
}

thread_local! {
    static F64: RefCell<Pool<f64>> = const { RefCell::new(Pool::new()) };
    static F32: RefCell<Pool<f32>> = const { RefCell::new(Pool::new()) };
}

/// Runs `f` on this thread's pool in `key`, unless the thread is ending or the pool is in
/// use.
#[inline]
fn with<E: 'static, R>(
    key: &'static std::thread::LocalKey<RefCell<Pool<E>>>,
    f: impl FnOnce(&mut Pool<E>) -> R,
) -> Option<R> {
    key.try_with(|p| p.try_borrow_mut().ok().map(|mut p| f(&mut p)))
        .ok()
        .flatten()
}

/// This thread's pool of `f64` buffers (for [`Real::with_pool`]).
#[doc(hidden)]
#[inline]
pub fn with_f64<R>(f: impl FnOnce(&mut Pool<f64>) -> R) -> Option<R> {
    with(&F64, f)
}

/// This thread's pool of `f32` buffers (for [`Real::with_pool`]).
#[doc(hidden)]
#[inline]
pub fn with_f32<R>(f: impl FnOnce(&mut Pool<f32>) -> R) -> Option<R> {
    with(&F32, f)
}

/// `vec![value; n]` in a buffer given back earlier when there is one, else `fresh()` (the
/// `vec![value; n]` written in the function, which allocates as it always did).
#[inline(always)]
pub fn filled<E: Real>(value: E, n: usize, fresh: impl FnOnce() -> Vec<E>) -> Vec<E> {
    let v = match take(value, n) {
        Some(v) => v,
        None => fresh(),
    };
    // (the length known where the buffer is used, as `vec!`'s is: the bounds checks of
    // `v[i]` for `i < n` go)
    assert!(v.len() == n);
    v
}

/// [`filled`] from the pool, never inlined: an allocation costs more than the call, and the
/// pool's code inlined into a large sweep would count against the sweep's own inlining.
#[inline(never)]
fn take<E: Real>(value: E, n: usize) -> Option<Vec<E>> {
    let mut v = E::with_pool(|p| p.take(n)).flatten()?;
    v.resize(n, value);
    Some(v)
}

/// Keeps `v`'s storage for a later [`filled`] of this thread (a buffer of an element type
/// without a pool, or beyond the pool's limits, is freed).
#[inline(never)]
pub fn give<E: Real>(v: Vec<E>) {
    if v.capacity() != 0 {
        E::with_pool(|p| p.give(v));
    }
}

/// Frees the buffers this thread keeps.
pub fn clear() {
    let _ = with_f64(|p| *p = Pool::new());
    let _ = with_f32(|p| *p = Pool::new());
}

/// A value whose pullback has ended, handed back: generated code calls `Give(v).give()`
/// with [`GiveVec`] and [`GiveAny`] in scope; method resolution picks [`GiveVec`] for a
/// `Vec` of floats (kept by the pool) and [`GiveAny`] (dropped) for anything else.
#[derive(Debug)]
pub struct Give<T>(pub T);

/// A `Vec` of floats: its storage goes back to the pool.
pub trait GiveVec {
    /// Gives the storage back.
    fn give(self);
}

impl<E: Real> GiveVec for Give<Vec<E>> {
    #[inline(always)]
    fn give(self) {
        give(self.0);
    }
}

/// An adjoint a pullback made where it started (`adjoint_zero` of a buffer of floats),
/// handed back where it ends: as [`Give`], but only a buffer of at most [`SMALL`] elements,
/// which came from the pool; a larger one (zeroed memory from the system) is freed, so the
/// pool is given back no more buffers than its derivatives take.
///
/// ```
/// use autodiff_runtime::pool::{self, GiveAny as _, GiveSmall, GiveVec as _};
/// pool::clear();
/// let big = vec![0.0_f64; pool::SMALL + 1];
/// GiveSmall(big).give(); // freed
/// let v: Vec<f64> = pool::filled(0.0, pool::SMALL + 1, || vec![7.0; pool::SMALL + 1]);
/// assert_eq!(v[0], 7.0); // not from the pool
/// let small = vec![0.0_f64; 3];
/// let at = small.as_ptr();
/// GiveSmall(small).give(); // kept
/// let again: Vec<f64> = pool::filled(1.0, 3, || unreachable!());
/// assert_eq!((again.as_ptr(), again), (at, vec![1.0; 3]));
/// ```
#[derive(Debug)]
pub struct GiveSmall<T>(pub T);

impl<E: Real> GiveVec for GiveSmall<Vec<E>> {
    #[inline(always)]
    fn give(self) {
        if self.0.capacity() <= SMALL {
            give(self.0);
        }
    }
}

impl<T> GiveAny for &GiveSmall<T> {
    #[inline(always)]
    fn give(self) {}
}

/// Any other value: dropped.
pub trait GiveAny {
    /// Drops the value.
    fn give(self);
}

impl<T> GiveAny for &Give<T> {
    #[inline(always)]
    fn give(self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_by_capacity_and_within_limits() {
        clear();
        let a: Vec<f64> = filled(1.0, 4, || vec![1.0; 4]);
        let b: Vec<f64> = filled(2.0, 7, || vec![2.0; 7]);
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        give(a);
        give(b);
        // each size gets its own buffer back, written through
        let b2: Vec<f64> = filled(3.0, 7, || unreachable!());
        let a2: Vec<f64> = filled(4.0, 4, || unreachable!());
        assert_eq!((a2.as_ptr(), b2.as_ptr()), (pa, pb));
        assert_eq!((a2, b2), (vec![4.0; 4], vec![3.0; 7]));
        // an empty pool allocates
        let c: Vec<f32> = filled(0.0, 5, || vec![0.0; 5]);
        assert_eq!(c, vec![0.0; 5]);
        // beyond the byte limit: freed, not kept
        give(vec![0.0_f64; KEEP_BYTES / 8 + 1]);
        assert_eq!(with_f64(|p| p.bytes), Some(0));
        // more buffers of one capacity than the limit holds: none of them kept
        let n = KEEP_BYTES / 8 / 3;
        give(vec![0.0_f64; n]);
        give(vec![0.0_f64; n]);
        assert_eq!(with_f64(|p| p.bytes), Some(2 * n * 8));
        give(vec![0.0_f64; n]);
        give(vec![0.0_f64; n]);
        assert_eq!(with_f64(|p| p.bytes), Some(0));
        let fresh = filled(1.0, n, || vec![1.0; n]);
        give(fresh);
        assert_eq!(with_f64(|p| p.bytes), Some(0));
        clear();
        // beyond the number of sizes: a size with no buffer left makes room
        for n in 1..=SIZES + 3 {
            give(vec![0.0_f64; n]);
        }
        assert_eq!(with_f64(|p| p.by_capacity.len()), Some(SIZES));
        clear();
        assert_eq!(with_f64(|p| p.bytes), Some(0));
    }
}
