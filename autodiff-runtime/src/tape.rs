//! The stacks and slots generated code saves forward-sweep values in. Not a public API.

/// Pops the value the forward sweep pushed last.
#[inline(always)]
pub fn pop<T>(stack: &mut Vec<T>) -> T {
    match stack.pop() {
        Some(v) => v,
        None => unreachable!("autodiff: the reverse sweep read past the values its forward sweep saved"),
    }
}

/// Takes the value the forward sweep stored in a branch.
#[inline(always)]
pub fn take<T>(slot: &mut Option<T>) -> T {
    match slot.take() {
        Some(v) => v,
        None => unreachable!("autodiff: the reverse sweep read a value its forward sweep did not save"),
    }
}
