use autodiff::prelude::*;

// A result borrowed from a parameter (trailing zeros trimmed off a cash flow).
#[differentiable]
fn trimmed(values: &[f64]) -> &[f64] {
    let mut n = values.len();
    while n > 0 && values[n - 1] == 0.0 {
        n -= 1;
    }
    &values[..n]
}

fn main() {}
