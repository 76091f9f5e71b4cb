//! LU factorization with partial pivoting in buffers sized once.
//!
//! nalgebra's `LU::new` consumes and reallocates its input; this one factors a
//! whole matrix or one principal submatrix into preallocated storage, with
//! substitution specialized for the smallest orders, so a step never touches
//! the heap.

use nalgebra::DMatrix;

/// An LU factorization with partial pivoting of a whole matrix or of one of its
/// principal submatrices, in buffers sized once.
///
/// The stepper factors `I - hθA`; the LCP warm start factors the block `M_FF`
/// picked by an active set. The arithmetic order is fixed, so factoring the same
/// data again gives bit-identical factors: caching is invisible to callers.
#[derive(Clone, Debug)]
pub struct Lu {
    /// Row-major `k × k` factors (`L` unit-lower below the diagonal, `U` on and above).
    a: Vec<f64>,
    /// Row swapped with row `j` at elimination step `j`.
    piv: Vec<usize>,
    /// The largest entry of each (swapped) row of the factored matrix.
    row_scale: Vec<f64>,
    /// Current order.
    k: usize,
}

impl Lu {
    /// Buffers for matrices of order up to `n`.
    pub fn new(n: usize) -> Self {
        Lu {
            a: vec![0.0; n * n],
            piv: vec![0; n],
            row_scale: vec![0.0; n],
            k: 0,
        }
    }

    /// Factors the whole of `m`; false when it is singular or not finite.
    pub fn factor(&mut self, m: &DMatrix<f64>) -> bool {
        self.factor_with(m.nrows(), |r, c| m[(r, c)])
    }

    /// Factors the principal submatrix `m[idx, idx]`.
    pub fn factor_block(&mut self, m: &DMatrix<f64>, idx: &[usize]) -> bool {
        self.factor_with(idx.len(), |r, c| m[(idx[r], idx[c])])
    }

    fn factor_with(&mut self, k: usize, entry: impl Fn(usize, usize) -> f64) -> bool {
        // The small orders of the Newton step's `J_x` and the LCP's free blocks
        // with the order a constant, so the loops unroll: for order 2 the general
        // loop took about 500 instructions (vectorization prologues for loops of
        // two), the unrolled one a fifth of that. Same arithmetic, same order.
        match k {
            1 => self.factor_order(1, entry),
            2 => self.factor_order(2, entry),
            3 => self.factor_order(3, entry),
            4 => self.factor_order(4, entry),
            _ => self.factor_order(k, entry),
        }
    }

    #[inline(always)]
    fn factor_order(&mut self, k: usize, entry: impl Fn(usize, usize) -> f64) -> bool {
        self.k = k;
        let (a, rows) = (&mut self.a[..k * k], &mut self.row_scale[..k]);
        for r in 0..k {
            let mut big = 0.0f64;
            for c in 0..k {
                let x = entry(r, c);
                a[r * k + c] = x;
                big = big.max(x.abs());
            }
            // A zero row is singular; a non-finite one cannot be factored.
            if !(big > 0.0 && big < f64::INFINITY) {
                return false;
            }
            rows[r] = big;
        }
        // Scaled partial pivoting: a candidate pivot is measured against the
        // largest entry of its own row, so that a row written in other units
        // (multiplied by a constant, as an LCP row is when its `y` is) picks
        // the same pivots and meets the same singularity test. Plain partial
        // pivoting with a threshold relative to the largest entry of the whole
        // matrix compares rows of different units: a friction block in
        // megatonnes, whose rows then differ by 2^60, was declared singular.
        let tiny = 1e-14;
        for j in 0..k {
            let (mut best, mut bmax) = (j, a[j * k + j].abs() / rows[j]);
            for r in j + 1..k {
                let v = a[r * k + j].abs() / rows[r];
                if v > bmax {
                    (best, bmax) = (r, v);
                }
            }
            self.piv[j] = best;
            if bmax.is_nan() || bmax <= tiny {
                return false;
            }
            if best != j {
                for c in 0..k {
                    a.swap(j * k + c, best * k + c);
                }
                rows.swap(j, best);
            }
            let d = a[j * k + j];
            for r in j + 1..k {
                let f = a[r * k + j] / d;
                a[r * k + j] = f;
                if f != 0.0 {
                    for c in j + 1..k {
                        a[r * k + c] -= f * a[j * k + c];
                    }
                }
            }
        }
        true
    }

    /// Overwrites `b[..k]` with the solution of the factored system; only
    /// meaningful after a factorization that returned true.
    #[inline(always)]
    pub fn solve(&self, b: &mut [f64]) {
        self.solve_of_order(self.k, b)
    }

    /// [`Lu::solve`] for a caller that knows the order `k` (which must be the
    /// factored one): a `k` known when compiled picks the unrolled solve
    /// directly, so its values never leave registers.
    #[inline(always)]
    pub fn solve_of_order(&self, k: usize, b: &mut [f64]) {
        debug_assert_eq!(k, self.k);
        // The orders of the warm-started LCP's free block: the same arithmetic
        // with the loops unrolled.
        match k {
            // Nothing free (every contact of a mechanical step open): no call.
            0 => {}
            1 => self.solve_order::<1>(b),
            2 => self.solve_order::<2>(b),
            3 => self.solve_order::<3>(b),
            4 => self.solve_order::<4>(b),
            5 => self.solve_order::<5>(b),
            6 => self.solve_order::<6>(b),
            7 => self.solve_order::<7>(b),
            8 => self.solve_order::<8>(b),
            _ => self.solve_any(b),
        }
    }

    #[inline(always)]
    fn solve_order<const K: usize>(&self, b: &mut [f64]) {
        debug_assert_eq!(K, self.k);
        // On a local copy, with the row exchanges as selects between constant
        // indices: the compiler keeps the K values in registers instead of
        // storing and reloading them around each exchange, which on the warm
        // step sat on the path from the state to the LCP's verdict. (A row
        // exchange with a run-time index would also pin a caller's local
        // candidate to memory.)
        let mut v = [0.0; K];
        v.copy_from_slice(&b[..K]);
        let piv = &self.piv[..K];
        if K == 2 {
            // Order 2 has one possible exchange: a branch around the whole solve,
            // which a cached factorization makes perfectly predictable, rather
            // than the select below, which the compiler does in integer
            // registers (two domain crossings on the path to the verdict;
            // sign_spiral's step went from 39.8 to 34.0 ns). The branch must
            // hold the divisions, or the compiler turns it back into a select.
            if piv[0] == 1 {
                v.swap(0, 1);
                self.substitute(2, &mut v);
            } else {
                self.substitute(2, &mut v);
            }
            b[..K].copy_from_slice(&v);
            return;
        }
        for j in 0..K {
            for i in j + 1..K {
                if piv[j] == i {
                    v.swap(j, i);
                }
            }
        }
        self.substitute(K, &mut v);
        b[..K].copy_from_slice(&v);
    }

    #[inline(never)]
    fn solve_any(&self, b: &mut [f64]) {
        let (k, b) = (self.k, &mut b[..self.k]);
        for (j, &p) in self.piv[..k].iter().enumerate() {
            b.swap(j, p);
        }
        self.substitute(k, b);
    }

    /// Forward and back substitution on the row-exchanged right-hand side.
    #[inline(always)]
    fn substitute(&self, k: usize, b: &mut [f64]) {
        let (a, b) = (&self.a[..k * k], &mut b[..k]);
        for r in 1..k {
            let row = &a[r * k..r * k + r];
            let mut s = b[r];
            for c in 0..r {
                s -= row[c] * b[c];
            }
            b[r] = s;
        }
        for r in (0..k).rev() {
            let row = &a[r * k..r * k + k];
            let mut s = b[r];
            for c in r + 1..k {
                s -= row[c] * b[c];
            }
            b[r] = s / row[r];
        }
    }

    /// Replaces each column of `m` (with k rows) by the solution of `A x = column`.
    pub fn solve_columns(&self, m: &mut DMatrix<f64>) {
        if self.k == 0 {
            return;
        }
        for col in m.as_mut_slice().chunks_exact_mut(self.k) {
            self.solve(col);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::gemv_acc;

    #[test]
    fn lu_solves_with_pivoting() {
        let a = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0]);
        let x = [1.0, -2.0, 0.5];
        let mut b = vec![0.0; 3];
        gemv_acc(&mut b, &a, &x);
        let mut lu = Lu::new(3);
        assert!(lu.factor(&a));
        lu.solve(&mut b);
        for (got, want) in b.iter().zip(x) {
            assert!((got - want).abs() < 1e-14, "{got} vs {want}");
        }
    }

    #[test]
    fn principal_blocks() {
        let m = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 4.0]);
        let mut lu = Lu::new(3);
        // Block {0, 2}: [[0, 1], [3, 4]] x = (1, 7) gives x = (1, 1).
        assert!(lu.factor_block(&m, &[0, 2]));
        let mut b = [1.0, 7.0];
        lu.solve(&mut b);
        assert!((b[0] - 1.0).abs() < 1e-14 && (b[1] - 1.0).abs() < 1e-14);
        assert!(!lu.factor_block(&DMatrix::from_element(2, 2, 1.0), &[0, 1]));
        assert!(lu.factor_block(&DMatrix::from_element(2, 2, 1.0), &[1]));
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
        lu.solve_columns(&mut m);
        let prod = &a * &m;
        assert!((prod - DMatrix::<f64>::identity(2, 2)).norm() < 1e-15);
    }
}
