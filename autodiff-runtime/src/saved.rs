//! The stacks and slots generated code saves forward-sweep values in. Not a public API.

/// Pops the value the forward sweep pushed last.
#[inline(always)]
pub fn pop<T>(stack: &mut Vec<T>) -> T {
    match stack.pop() {
        Some(v) => v,
        None => {
            unreachable!("autodiff: the reverse sweep read past the values its forward sweep saved")
        }
    }
}

/// Takes the value the forward sweep stored in a branch.
#[inline(always)]
pub fn take<T>(slot: &mut Option<T>) -> T {
    match slot.take() {
        Some(v) => v,
        None => {
            unreachable!("autodiff: the reverse sweep read a value its forward sweep did not save")
        }
    }
}

/// The values an `if` outside loops saved, from whichever branch ran: one slot for both
/// branches, the size of the larger tuple rather than of both.
#[derive(Debug, Default)]
pub enum Arm<A, B> {
    /// Neither branch has run (yet).
    #[default]
    Empty,
    /// The `then` branch's values.
    Then(A),
    /// The `else` branch's values.
    Else(B),
}

/// A branch's slot: an [`Arm`] shared by both branches, or an `Option` of the one
/// branch that saves values.
pub trait BranchSlot {
    /// What the `then` branch saved.
    type Then;
    /// What the `else` branch saved.
    type Else;
    /// Takes what the `then` branch saved.
    fn take_then(&mut self) -> Self::Then;
    /// Takes what the `else` branch saved.
    fn take_else(&mut self) -> Self::Else;
}

impl<A, B> BranchSlot for Arm<A, B> {
    type Then = A;
    type Else = B;
    #[inline(always)]
    fn take_then(&mut self) -> A {
        match core::mem::take(self) {
            Arm::Then(v) => v,
            _ => unreachable!(
                "autodiff: the reverse sweep read a branch its forward sweep did not run"
            ),
        }
    }
    #[inline(always)]
    fn take_else(&mut self) -> B {
        match core::mem::take(self) {
            Arm::Else(v) => v,
            _ => unreachable!(
                "autodiff: the reverse sweep read a branch its forward sweep did not run"
            ),
        }
    }
}

impl<T> BranchSlot for Option<T> {
    type Then = T;
    type Else = T;
    #[inline(always)]
    fn take_then(&mut self) -> T {
        take(self)
    }
    #[inline(always)]
    fn take_else(&mut self) -> T {
        take(self)
    }
}

/// Takes what the `then` branch of an `if` saved in its slot.
#[inline(always)]
pub fn take_then<S: BranchSlot>(slot: &mut S) -> S::Then {
    slot.take_then()
}

/// Takes what the `else` branch of an `if` saved in its slot.
#[inline(always)]
pub fn take_else<S: BranchSlot>(slot: &mut S) -> S::Else {
    slot.take_else()
}

/// An integer type a `for` loop over `start..end` can count with.
pub trait RangeIndex: Copy {
    /// `self + k`.
    fn offset(self, k: usize) -> Self;
}

macro_rules! range_index {
    ($($t:ty),*) => {$(
        impl RangeIndex for $t {
            #[inline(always)]
            fn offset(self, k: usize) -> Self {
                self + k as $t
            }
        }
    )*};
}
range_index!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// The check `buf[i]` makes of a buffer of `len` elements, for a read of a buffer the
/// derivative computes again where it is read instead of keeping (see the macro's
/// `lower::remat`): the same panic, with Rust's own message, at the user's line.
///
/// ```
/// autodiff_runtime::saved::checked_index(2, 3);
/// let caught = std::panic::catch_unwind(|| autodiff_runtime::saved::checked_index(3, 3));
/// assert!(caught.is_err());
/// ```
#[inline(always)]
#[track_caller]
pub fn checked_index(i: usize, len: usize) {
    if i >= len {
        out_of_bounds(i, len);
    }
}

/// The check a loop `for i in 0..len { buf[i] = …a[i]…b[i]…; }` makes of the slices it
/// reads, `lens` in the order it reads them, for a buffer filled so and computed again
/// where it is read (see [`checked_index`]): the first read out of range panics, with
/// Rust's own message.
///
/// ```
/// autodiff_runtime::saved::covers(3, [3, 4]);
/// let caught = std::panic::catch_unwind(|| autodiff_runtime::saved::covers(3, [4, 2]));
/// assert!(caught.is_err());
/// ```
#[inline(always)]
#[track_caller]
pub fn covers<const N: usize>(len: usize, lens: [usize; N]) {
    // the loop stops at the smallest index out of one of them: the shortest, the first of
    // the shortest in reading order
    let mut first: Option<usize> = None;
    for l in lens {
        if l < len && first.is_none_or(|f| l < f) {
            first = Some(l);
        }
    }
    if let Some(l) = first {
        out_of_bounds(l, l);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(i: usize, len: usize) -> ! {
    panic!("index out of bounds: the len is {len} but the index is {i}")
}

/// The items a loop over `start..` took in its first `count` iterations, last first: what
/// the reverse sweep of the loop walks instead of saving every item.
#[inline(always)]
pub fn range_back<T: RangeIndex>(start: T, count: usize) -> impl Iterator<Item = T> {
    (0..count).rev().map(move |k| start.offset(k))
}

/// A loop's item kept for the reverse sweep, owned: the referent of an item borrowed
/// from a constant sequence (`for p in points` over `&[[f64; 2]]` keeps the `[f64; 2]`,
/// so the pullback holds no borrow of the argument), the item itself otherwise. Generated
/// code calls `(&Own(&item)).own()` with [`OwnRef`] and [`OwnVal`] in scope; method
/// resolution picks the first that applies.
///
/// ```
/// use autodiff_runtime::saved::{Own, OwnRef as _, OwnVal as _};
/// let points = [[1.0, 2.0]];
/// let item: &[f64; 2] = &points[0];
/// let kept: [f64; 2] = (&Own(&item)).own();
/// assert_eq!(kept, [1.0, 2.0]);
/// let x = 1.5_f64;
/// let kept: f64 = (&Own(&x)).own();
/// assert_eq!(kept, 1.5);
/// ```
pub struct Own<'a, T: ?Sized>(pub &'a T);

/// [`Own`] of a reference: a clone of its referent.
pub trait OwnRef {
    /// The referent's type.
    type Out;
    /// The referent, cloned.
    fn own(&self) -> Self::Out;
}

impl<T: Clone> OwnRef for Own<'_, &T> {
    type Out = T;
    #[inline(always)]
    fn own(&self) -> T {
        (*self.0).clone()
    }
}

/// [`Own`] of a value: a clone of it.
pub trait OwnVal {
    /// The value's type.
    type Out;
    /// The value, cloned.
    fn own(&self) -> Self::Out;
}

impl<T: Clone> OwnVal for &Own<'_, T> {
    type Out = T;
    #[inline(always)]
    fn own(&self) -> T {
        self.0.clone()
    }
}

/// The part `lo..hi` of a slice that every iteration of a loop reads, indexed by the
/// indices the loop's body uses (`lo` and above): what the reverse sweep of a range loop
/// reads its slices through, so that the compiler sees each index within one slice of the
/// loop's length and checks the bounds once, where the part is taken, instead of at every
/// element (the forward sweep has read the same elements, so the part is in range).
///
/// ```
/// use autodiff_runtime::saved::Part;
/// let x = [1.0, 2.0, 3.0, 4.0];
/// let part = Part::new(&x, 1, 3);
/// assert_eq!((part[1], part[2]), (2.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Part<'a, E> {
    elements: &'a [E],
    base: usize,
}

impl<'a, E> Part<'a, E> {
    /// Elements `lo..hi` of `whole`.
    ///
    /// # Panics
    ///
    /// If `lo..hi` is not a range of `whole`.
    #[inline(always)]
    pub fn new<S: core::ops::Index<core::ops::Range<usize>, Output = [E]> + ?Sized>(
        whole: &'a S,
        lo: usize,
        hi: usize,
    ) -> Self {
        Part {
            elements: &whole[lo..hi],
            base: lo,
        }
    }
}

impl<E> core::ops::Index<usize> for Part<'_, E> {
    type Output = E;
    #[inline(always)]
    fn index(&self, i: usize) -> &E {
        &self.elements[i.wrapping_sub(self.base)]
    }
}

/// [`Part`] of an adjoint the reverse sweep adds into: of a `Vec`, an array, or a shadow
/// (the caller's buffer, or none for a constant argument).
///
/// ```
/// use autodiff_runtime::saved::{PartMut, Split};
/// let mut dx = vec![0.0; 4];
/// let mut part = PartMut::new(Split::split(&mut dx, 1, 3), 1);
/// part[2] += 5.0;
/// assert_eq!(dx, [0.0, 0.0, 5.0, 0.0]);
/// ```
#[derive(Debug)]
pub struct PartMut<S> {
    elements: S,
    base: usize,
}

impl<S> PartMut<S> {
    /// `elements`, the part of an adjoint from `base` on.
    #[inline(always)]
    pub fn new(elements: S, base: usize) -> Self {
        PartMut { elements, base }
    }
}

macro_rules! part_mut_index {
    ($([$($g:tt)*] $s:ty),*) => {$(
        impl<$($g)*> core::ops::Index<usize> for PartMut<$s> {
            type Output = E;
            #[inline(always)]
            fn index(&self, i: usize) -> &E {
                &self.elements[i.wrapping_sub(self.base)]
            }
        }

        impl<$($g)*> core::ops::IndexMut<usize> for PartMut<$s> {
            #[inline(always)]
            fn index_mut(&mut self, i: usize) -> &mut E {
                &mut self.elements[i.wrapping_sub(self.base)]
            }
        }
    )*};
}
part_mut_index!([E] &mut [E], [E: crate::Real] crate::shadow::SliceShadow<'_, E>);

/// An adjoint's elements `lo..hi`, borrowed to add into (see [`PartMut`]).
pub trait Split {
    /// What the part is.
    type Part<'a>
    where
        Self: 'a;
    /// Elements `lo..hi`.
    ///
    /// # Panics
    ///
    /// If `lo..hi` is not a range of the adjoint.
    fn split(&mut self, lo: usize, hi: usize) -> Self::Part<'_>;
}

macro_rules! split_slice {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<E, $($g)*> Split for $t {
            type Part<'a>
                = &'a mut [E]
            where
                E: 'a;
            #[inline(always)]
            fn split(&mut self, lo: usize, hi: usize) -> &mut [E] {
                &mut self[lo..hi]
            }
        }
    )*};
}
split_slice!([] [E], [] Vec<E>, [const N: usize] [E; N]);

impl<E: crate::Real> Split for crate::shadow::SliceShadow<'_, E> {
    type Part<'a>
        = crate::shadow::SliceShadow<'a, E>
    where
        Self: 'a;
    #[inline(always)]
    fn split(&mut self, lo: usize, hi: usize) -> crate::shadow::SliceShadow<'_, E> {
        self.range(lo..hi)
    }
}
