//! Small dense kernels that write into caller-owned buffers.
//!
//! The step path runs on matrices of size 1 to 50, where the call overhead of a
//! general BLAS-style routine is comparable to the arithmetic itself. These
//! kernels work on nalgebra's column-major storage through slices, so the
//! compiler drops the bounds checks, and they never allocate: an FMU step must not
//! touch the heap. nalgebra's own `LU::new` consumes and reallocates its input,
//! hence the in-place factorization here.

#![allow(clippy::needless_range_loop)]

mod lu;

pub use lu::Lu;
use nalgebra::{DMatrix, DVector};

// The kernels below index plain slices whose lengths are fixed up front (hence
// the allowed `needless_range_loop` in this module), instead
// of chaining iterator adapters: for the 2-to-10-element vectors of a step the
// adapters' setup cost several times the arithmetic (measured with callgrind:
// about 170 of 450 instructions of a 2-state step went to `zip`).

/// `y += A x` for a column-major `A` with `y.len()` rows.
#[inline]
pub fn gemv_acc(y: &mut [f64], a: &DMatrix<f64>, x: &[f64]) {
    let (m, n) = (y.len(), x.len());
    let a = &a.as_slice()[..m * n];
    for j in 0..n {
        let xj = x[j];
        let col = &a[j * m..j * m + m];
        for i in 0..m {
            y[i] += col[i] * xj;
        }
    }
}

/// `y = b + A x` for a column-major `A` with `y.len()` rows (one pass, no
/// separate copy of `b`: for the tiny vectors of a step a `memcpy` call costs
/// more than the arithmetic).
#[inline(always)]
pub fn gemv_from(y: &mut [f64], b: &[f64], a: &DMatrix<f64>, x: &[f64]) {
    let (m, n) = (y.len(), x.len());
    let (a, b) = (&a.as_slice()[..m * n], &b[..m]);
    if n == 0 {
        y.copy_from_slice(b);
        return;
    }
    let (x0, col) = (x[0], &a[..m]);
    for i in 0..m {
        y[i] = b[i] + col[i] * x0;
    }
    for j in 1..n {
        let xj = x[j];
        let col = &a[j * m..j * m + m];
        for i in 0..m {
            y[i] += col[i] * xj;
        }
    }
}

/// A row-major matrix borrowed from a larger buffer: how the step path reads
/// its products (see `scheme::theta::affine`, which keeps them all in one buffer).
///
/// Written as dot products, the inner loop is a serial reduction that LLVM
/// keeps scalar: no vector prologue and epilogue around two or three elements
/// (with column sweeps a 2×2 product took about 90 instructions). When the
/// shape and the buffer's length are constants, as in an FMU compiled for one
/// small model, the loops unroll and every bounds check folds away.
#[derive(Clone, Copy, Debug)]
pub struct RowsRef<'a> {
    rows: usize,
    cols: usize,
    data: &'a [f64],
}

impl<'a> RowsRef<'a> {
    /// The `rows × cols` matrix stored row-major at the start of `data`.
    #[inline(always)]
    pub fn new(data: &'a [f64], rows: usize, cols: usize) -> Self {
        RowsRef {
            rows,
            cols,
            data: &data[..rows * cols],
        }
    }

    /// `y = b + A x`.
    #[inline(always)]
    pub fn mul_from(&self, y: &mut [f64], b: &[f64], x: &[f64]) {
        let (m, n) = (self.rows, self.cols);
        let (y, b, x) = (&mut y[..m], &b[..m], &x[..n]);
        for i in 0..m {
            let row = &self.data[i * n..i * n + n];
            let mut s = b[i];
            for j in 0..n {
                s += row[j] * x[j];
            }
            y[i] = s;
        }
    }

    /// `y += A x`.
    #[inline(always)]
    pub fn mul_acc(&self, y: &mut [f64], x: &[f64]) {
        let (m, n) = (self.rows, self.cols);
        if n == 0 {
            return;
        }
        let (y, x) = (&mut y[..m], &x[..n]);
        for i in 0..m {
            let row = &self.data[i * n..i * n + n];
            let mut s = y[i];
            for j in 0..n {
                s += row[j] * x[j];
            }
            y[i] = s;
        }
    }
}

/// Stores `m` row-major into `dst` (of length `m.len()`), for [`RowsRef`].
pub fn store_rows(dst: &mut [f64], m: &DMatrix<f64>) {
    let (rows, cols) = m.shape();
    for i in 0..rows {
        for j in 0..cols {
            dst[i * cols + j] = m[(i, j)];
        }
    }
}

/// Stores the product `a b` row-major into `dst`, for [`RowsRef`].
pub fn store_product(dst: &mut [f64], a: &DMatrix<f64>, b: &DMatrix<f64>) {
    debug_assert_eq!(a.ncols(), b.nrows());
    let cols = b.ncols();
    for i in 0..a.nrows() {
        for j in 0..cols {
            dst[i * cols + j] = (0..a.ncols()).map(|k| a[(i, k)] * b[(k, j)]).sum();
        }
    }
}

/// Adds `m` to the row-major matrix of its shape in `dst`.
pub fn add_rows(dst: &mut [f64], m: &DMatrix<f64>) {
    let (rows, cols) = m.shape();
    for i in 0..rows {
        for j in 0..cols {
            dst[i * cols + j] += m[(i, j)];
        }
    }
}

/// Infinity norm of a vector, 0 for an empty one.
pub fn norm_inf(v: &DVector<f64>) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}
