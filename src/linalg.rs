//! Small dense kernels that write into caller-owned buffers.
//!
//! The step path runs on matrices of size 1 to 50, where the call overhead of a
//! general BLAS-style routine is comparable to the arithmetic itself. These
//! kernels work on nalgebra's column-major storage through slices, so the
//! compiler drops the bounds checks, and they never allocate: an FMU step must not
//! touch the heap. nalgebra's own `LU::new` consumes and reallocates its input,
//! hence the in-place factorization here.

use nalgebra::{DMatrix, DVector};

/// `y += A x` for a column-major `A` with `y.len()` rows.
#[inline]
pub fn gemv_acc(y: &mut [f64], a: &DMatrix<f64>, x: &[f64]) {
    let rows = y.len();
    if rows == 0 {
        return;
    }
    debug_assert_eq!((a.nrows(), a.ncols()), (rows, x.len()));
    for (col, &xj) in a.as_slice().chunks_exact(rows).zip(x) {
        for (yi, &aij) in y.iter_mut().zip(col) {
            *yi += aij * xj;
        }
    }
}

/// `y = b + A x` for a column-major `A` with `y.len()` rows (one pass, no
/// separate copy of `b`: for the tiny vectors of a step a `memcpy` call costs
/// more than the arithmetic).
#[inline]
pub fn gemv_from(y: &mut [f64], b: &[f64], a: &DMatrix<f64>, x: &[f64]) {
    let rows = y.len();
    debug_assert_eq!((a.nrows(), a.ncols(), b.len()), (rows, x.len(), rows));
    let mut cols = a.as_slice().chunks_exact(rows.max(1)).zip(x);
    match cols.next() {
        Some((col, &x0)) => {
            for ((yi, &bi), &ai0) in y.iter_mut().zip(b).zip(col) {
                *yi = bi + ai0 * x0;
            }
        }
        None => {
            for (yi, &bi) in y.iter_mut().zip(b) {
                *yi = bi;
            }
        }
    }
    for (col, &xj) in cols {
        for (yi, &aij) in y.iter_mut().zip(col) {
            *yi += aij * xj;
        }
    }
}

/// An LU factorization with partial pivoting, computed in place in buffers sized once.
#[derive(Clone, Debug)]
pub struct Lu {
    lu: DMatrix<f64>,
    perm: Vec<usize>,
}

impl Lu {
    /// Buffers for `n × n` matrices.
    pub fn new(n: usize) -> Self {
        Lu {
            lu: DMatrix::zeros(n, n),
            perm: (0..n).collect(),
        }
    }

    /// Factorizes `a`; false when a pivot is zero or not finite (singular matrix).
    pub fn factor(&mut self, a: &DMatrix<f64>) -> bool {
        self.lu.copy_from(a);
        self.factor_in_place()
    }

    /// Gives write access to the matrix to factorize, for callers that build it in place.
    pub fn matrix_mut(&mut self) -> &mut DMatrix<f64> {
        &mut self.lu
    }

    /// Factorizes what [`Lu::matrix_mut`] holds.
    pub fn factor_in_place(&mut self) -> bool {
        let n = self.lu.nrows();
        for (i, p) in self.perm.iter_mut().enumerate() {
            *p = i;
        }
        let scale = self.lu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let tiny = scale * f64::EPSILON * n as f64;
        for k in 0..n {
            let (mut piv, mut best) = (k, self.lu[(k, k)].abs());
            for i in k + 1..n {
                let v = self.lu[(i, k)].abs();
                if v > best {
                    (piv, best) = (i, v);
                }
            }
            if !(best > tiny) || !best.is_finite() {
                return false;
            }
            if piv != k {
                self.lu.swap_rows(k, piv);
                self.perm.swap(k, piv);
            }
            let pivot = self.lu[(k, k)];
            for i in k + 1..n {
                self.lu[(i, k)] /= pivot;
            }
            for j in k + 1..n {
                let ukj = self.lu[(k, j)];
                if ukj != 0.0 {
                    for i in k + 1..n {
                        let lik = self.lu[(i, k)];
                        self.lu[(i, j)] -= lik * ukj;
                    }
                }
            }
        }
        true
    }

    /// Solves `A x = b` in place (`b` becomes `x`), using `tmp` of length n as scratch.
    pub fn solve(&self, b: &mut [f64], tmp: &mut [f64]) {
        let n = self.perm.len();
        for (t, &p) in tmp.iter_mut().zip(&self.perm) {
            *t = b[p];
        }
        for i in 0..n {
            let (done, rest) = tmp.split_at_mut(i);
            let s: f64 = done
                .iter()
                .enumerate()
                .map(|(k, t)| self.lu[(i, k)] * t)
                .sum();
            rest[0] -= s;
        }
        for i in (0..n).rev() {
            let (head, later) = tmp.split_at_mut(i + 1);
            let s: f64 = later[..n - i - 1]
                .iter()
                .enumerate()
                .map(|(k, t)| self.lu[(i, i + 1 + k)] * t)
                .sum();
            head[i] = (head[i] - s) / self.lu[(i, i)];
        }
        b[..n].copy_from_slice(&tmp[..n]);
    }

    /// Replaces each column of `m` (with n rows) by the solution of `A x = column`.
    pub fn solve_columns(&self, m: &mut DMatrix<f64>, tmp: &mut [f64]) {
        let n = self.perm.len();
        if n == 0 {
            return;
        }
        for col in m.as_mut_slice().chunks_exact_mut(n) {
            self.solve(col, tmp);
        }
    }
}

/// Infinity norm of a vector, 0 for an empty one.
pub fn norm_inf(v: &DVector<f64>) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_with_pivoting() {
        let a = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0]);
        let x = [1.0, -2.0, 0.5];
        let mut b = vec![0.0; 3];
        gemv_acc(&mut b, &a, &x);
        let mut lu = Lu::new(3);
        assert!(lu.factor(&a));
        let mut tmp = [0.0; 3];
        lu.solve(&mut b, &mut tmp);
        for (got, want) in b.iter().zip(x) {
            assert!((got - want).abs() < 1e-14, "{got} vs {want}");
        }
    }

    #[test]
    fn singular_is_reported() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        assert!(!Lu::new(2).factor(&a));
        let a = DMatrix::from_row_slice(1, 1, &[f64::NAN]);
        assert!(!Lu::new(1).factor(&a));
    }

    #[test]
    fn solve_columns_gives_the_inverse() {
        let a = DMatrix::from_row_slice(2, 2, &[4.0, 1.0, 2.0, 3.0]);
        let mut lu = Lu::new(2);
        assert!(lu.factor(&a));
        let mut m = DMatrix::identity(2, 2);
        lu.solve_columns(&mut m, &mut [0.0; 2]);
        let prod = &a * &m;
        assert!((prod - DMatrix::<f64>::identity(2, 2)).norm() < 1e-15);
    }
}
