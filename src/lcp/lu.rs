//! In-place LU factorization with partial pivoting on preallocated buffers.
//!
//! The warm start solves `M_FF u_F = rhs` for a principal submatrix `M_FF`
//! chosen by the active set. nalgebra's decompositions allocate their result,
//! which `solve` may not do, so this is a small Doolittle LU that gathers the
//! submatrix into a buffer sized for the full `n x n` at construction. The
//! arithmetic order is fixed, so re-factoring the same data gives bit-identical
//! factors: caching is then invisible to the caller (determinism).

use super::Problem;

/// Factors of one principal submatrix, plus the key that says which one.
#[derive(Clone, Debug)]
pub(super) struct Lu {
    /// Row-major `k x k` factors (`L` unit-lower below, `U` on and above).
    a: Vec<f64>,
    /// Row swapped with row `j` at elimination step `j`.
    piv: Vec<usize>,
    /// Current order `k`.
    k: usize,
    /// Whether the factorization succeeded (nonsingular pivots).
    ok: bool,
    /// Free mask the factors belong to; `valid == false` means "none".
    key: Vec<bool>,
    valid: bool,
}

impl Lu {
    /// Workspace for submatrices of order up to `n`.
    pub(super) fn new(n: usize) -> Self {
        Lu {
            a: vec![0.0; n * n],
            piv: vec![0; n],
            k: 0,
            ok: false,
            key: vec![false; n],
            valid: false,
        }
    }

    /// Forgets the cached factors (the matrix changed).
    pub(super) fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Makes the factors of `M[free, free]` current, re-factoring only when
    /// the free mask differs from the cached one. `idx` lists the free
    /// indices in increasing order. Returns false when the block is singular.
    pub(super) fn prepare(&mut self, p: &Problem, free: &[bool], idx: &[usize]) -> bool {
        let n = self.key.len();
        if self.valid && self.key[..] == free[..n] {
            return self.ok;
        }
        self.key.copy_from_slice(&free[..n]);
        self.valid = true;
        self.factor(p, idx);
        self.ok
    }

    fn factor(&mut self, p: &Problem, idx: &[usize]) {
        let k = idx.len();
        self.k = k;
        let a = &mut self.a[..k * k];
        let mut scale = 0.0f64;
        for (r, &i) in idx.iter().enumerate() {
            for (c, &j) in idx.iter().enumerate() {
                let x = p.m[(i, j)];
                a[r * k + c] = x;
                scale = scale.max(x.abs());
            }
        }
        // Relative singularity threshold; NaN pivots are rejected explicitly.
        let tiny = 1e-14 * scale;
        self.ok = scale.is_finite();
        for j in 0..k {
            if !self.ok {
                break;
            }
            let mut best = j;
            let mut bmax = a[j * k + j].abs();
            for r in j + 1..k {
                let v = a[r * k + j].abs();
                if v > bmax {
                    bmax = v;
                    best = r;
                }
            }
            self.piv[j] = best;
            if bmax.is_nan() || bmax <= tiny {
                self.ok = false;
                break;
            }
            if best != j {
                for c in 0..k {
                    a.swap(j * k + c, best * k + c);
                }
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
    }

    /// Overwrites `b[..k]` with the solution of the factored system.
    /// Only meaningful after `prepare` returned true.
    pub(super) fn solve(&self, b: &mut [f64]) {
        let k = self.k;
        let a = &self.a[..k * k];
        for j in 0..k {
            b.swap(j, self.piv[j]);
        }
        for r in 1..k {
            let mut s = b[r];
            for c in 0..r {
                s -= a[r * k + c] * b[c];
            }
            b[r] = s;
        }
        for r in (0..k).rev() {
            let mut s = b[r];
            for c in r + 1..k {
                s -= a[r * k + c] * b[c];
            }
            b[r] = s / a[r * k + r];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn problem(m: DMatrix<f64>) -> Problem {
        let n = m.nrows();
        Problem::lcp(m, DVector::zeros(n))
    }

    #[test]
    fn solves_a_permuted_block() {
        let m = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 4.0]);
        let p = problem(m);
        let mut lu = Lu::new(3);
        assert!(lu.prepare(&p, &[true, true, true], &[0, 1, 2]));
        let mut b = [3.0, 2.0, 7.0]; // M * (1, 1, 1)
        lu.solve(&mut b);
        for x in b {
            assert!((x - 1.0).abs() < 1e-14, "{x}");
        }
        // Sub-block {0, 2}: [[0, 1], [3, 4]] x = (1, 7) -> x = (1, 1).
        assert!(lu.prepare(&p, &[true, false, true], &[0, 2]));
        let mut b = [1.0, 7.0];
        lu.solve(&mut b);
        assert!((b[0] - 1.0).abs() < 1e-14 && (b[1] - 1.0).abs() < 1e-14);
    }

    #[test]
    fn detects_singular_and_caches_by_mask() {
        let p = problem(DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]));
        let mut lu = Lu::new(2);
        assert!(!lu.prepare(&p, &[true, true], &[0, 1]));
        assert!(lu.prepare(&p, &[true, false], &[0]));
        // Same mask: the cached verdict is returned even for a different matrix,
        // which is exactly why callers must invalidate on matrix changes.
        let q = problem(DMatrix::zeros(2, 2));
        assert!(lu.prepare(&q, &[true, false], &[0]));
        lu.invalidate();
        assert!(!lu.prepare(&q, &[true, false], &[0]));
    }
}
