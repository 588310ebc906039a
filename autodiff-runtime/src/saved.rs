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

/// The items a loop over `start..` took in its first `count` iterations, last first: what
/// the reverse sweep of the loop walks instead of saving every item.
#[inline(always)]
pub fn range_back<T: RangeIndex>(start: T, count: usize) -> impl Iterator<Item = T> {
    (0..count).rev().map(move |k| start.offset(k))
}
