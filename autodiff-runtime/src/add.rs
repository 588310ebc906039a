//! Gradients that add (the `rayon` feature): the gradient of a sum of losses is the sum of
//! their gradients, so a batch split into shards, each differentiated on its own thread,
//! gives the batch's gradient by adding the shards' gradients.
//!
//! Numbers and ndarray arrays already add with `+`; a `Vec` gradient (of a slice
//! parameter) adds with [`Accumulate`]; [`Gradients`] (the implicit helpers' pairs) gets
//! `+`, `+=` and [`Sum`](std::iter::Sum) here, and `#[derive(Differentiable)]` writes the
//! same for a struct's tangent.

use crate::implicit::Gradients;
use crate::tangent::Accumulate;
use std::cmp::Ordering;
use std::ops::{Add, AddAssign};

/// Adds gradient pairs variable by variable: a variable in both is summed, a variable in
/// one only is kept as it is. The pairs stay in the variables' construction order.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Accumulate, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let mut total = implicit_gradients(&f)(2.0);
/// total.accumulate(implicit_gradients(&f)(5.0));
/// assert_eq!(total.get(&w), Some(7.0));
/// ```
impl Accumulate for Gradients {
    fn accumulate(&mut self, contribution: Gradients) {
        if self.pairs.is_empty() {
            *self = contribution;
            return;
        }
        let mine = std::mem::take(&mut self.pairs);
        let mut merged = Vec::with_capacity(mine.len().max(contribution.pairs.len()));
        let mut theirs = contribution.pairs.into_iter().peekable();
        for (mut g, v) in mine {
            while let Some((h, u)) = theirs.next_if(|(_, u)| u.id() < v.id()) {
                merged.push((h, u));
            }
            if let Some((h, _)) = theirs.next_if(|(_, u)| u.id().cmp(&v.id()) == Ordering::Equal) {
                g.add(&h);
            }
            merged.push((g, v));
        }
        merged.extend(theirs);
        self.pairs = merged;
    }
}

/// `a += b`: [`Accumulate::accumulate`].
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let mut total = implicit_gradients(&f)(2.0);
/// total += implicit_gradients(&f)(5.0);
/// assert_eq!(total.get(&w), Some(7.0));
/// ```
impl AddAssign for Gradients {
    fn add_assign(&mut self, rhs: Gradients) {
        self.accumulate(rhs);
    }
}

/// `a + b`: the pairs of both, summed where they name the same variable.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let g = implicit_gradients(&f);
/// assert_eq!((g(2.0) + g(5.0)).get(&w), Some(7.0));
/// ```
impl Add for Gradients {
    type Output = Gradients;
    fn add(mut self, rhs: Gradients) -> Gradients {
        self.accumulate(rhs);
        self
    }
}

/// The sum of many gradient pairs, added left to right; no pair at all is the empty
/// `Gradients`.
///
/// ```
/// use autodiff_runtime::{implicit_gradients, Gradients, Variable};
/// let w = Variable::new(3.0_f64);
/// let f = |x: f64| autodiff_runtime::implicit::test_support::scaled(&w, x);
/// let total: Gradients = [1.0, 2.0, 4.0].iter().map(|&x| implicit_gradients(&f)(x)).sum();
/// assert_eq!(total.get(&w), Some(7.0));
/// ```
impl std::iter::Sum for Gradients {
    fn sum<I: Iterator<Item = Gradients>>(iter: I) -> Gradients {
        iter.fold(Gradients::default(), Add::add)
    }
}
