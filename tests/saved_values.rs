//! Values the reverse sweep reads back rather than the forward sweep saving them: a
//! local buffer's elements read after the buffer is complete, and the same reads when
//! the buffer is written again later (which must be saved). Gradients against finite
//! differences.

use autodiff::check::{assert_gradient_close, finite_difference};
use autodiff::prelude::*;

/// `Σᵢ Σ_{j>i} (xᵢ − xⱼ)² · xᵢ` through a buffer filled once, read in a later loop.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn read_after_filled(x: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            s += (c[i] - c[j]) * c[i] * x[j];
        }
    }
    s
}

/// The same reads, with the buffer written again inside the reading loop and after it.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn read_then_written(x: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![0.0; n];
    for i in 0..n {
        c[i] = x[i].sin();
    }
    let mut s = 0.0;
    for i in 0..n {
        s += c[i] * x[i];
        c[i] *= s;
    }
    for i in 0..n {
        s += c[i] * c[i];
        c[i] = 0.5 * x[i];
    }
    s + c[0]
}

#[test]
fn a_buffer_read_after_it_is_complete() {
    let x = [0.3, -1.2, 0.7, 2.0, -0.4];
    let g = gradients_function!(read_after_filled)(&x);
    assert_gradient_close(&g, &finite_difference(read_after_filled, &x), 1e-7);
}

#[test]
fn a_buffer_written_after_it_is_read() {
    let x = [0.3, -1.2, 0.7, 2.0, -0.4];
    let g = gradients_function!(read_then_written)(&x);
    assert_gradient_close(&g, &finite_difference(read_then_written, &x), 1e-7);
}

/// A row of a local matrix read, then the matrix written: the reverse sweep must use the
/// row as it was read.
#[differentiable]
fn row_then_written(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    m[0][0] = x[0];
    m[0][1] = x[1];
    m[1][0] = x[0] * x[1];
    let row = m[0];
    let first = m[0][1];
    let mut s = row[0].sin() * row[1] + first.exp();
    m[0][0] = x[1] * 3.0;
    m[0][1] = s;
    m[1] = [s, x[0]];
    s += m[0][0] * m[0][1] + m[1][0] * m[1][1];
    s
}

#[test]
fn a_row_read_before_its_matrix_is_written() {
    let x = [0.7, -0.4];
    let g = gradients_function!(row_then_written)(&x);
    let fd = autodiff::check::finite_difference(row_then_written, &x);
    autodiff::check::assert_gradient_close(&g, &fd, 1e-6);
}
