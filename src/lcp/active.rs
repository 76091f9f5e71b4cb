//! Solving the box MCP for one guessed active set.
//!
//! Fixing every pinned component at its bound leaves the square system
//! `M_FF u_F = -(q_F + M_FA u_A)` for the free ones. This is the whole warm
//! start, the polishing step after Lemke and the inner loop of enumeration,
//! so it owns the cached LU (keyed by the active set) and the index/rhs
//! buffers, all sized at construction so a solve never allocates.

use super::{Bound, Problem, SMALL};
use crate::linalg::Lu;

/// Linear solver for the free block of an active set, with cached factors.
///
/// Everything that depends only on the active set and the matrix is kept
/// between calls: the free indices, the pinned values, their contribution
/// `c = M u_pinned` and the LU of `M_FF`. A warm-started step with an unchanged
/// active set then costs one right-hand side, two triangular solves and a
/// scatter.
#[derive(Clone, Debug)]
pub(super) struct BlockSolver {
    lu: Lu,
    idx: Vec<usize>,
    k: usize,
    rhs: Vec<f64>,
    /// The active set the cached data belong to.
    key: Vec<Bound>,
    valid: bool,
    /// Whether the key's pinned sides are finite and `M_FF` is nonsingular.
    usable: bool,
    /// Pinned values, zero at free components.
    pinned: Vec<f64>,
    /// `M * pinned`.
    c: Vec<f64>,
}

impl BlockSolver {
    /// Workspace for problems of size `n`.
    pub(super) fn new(n: usize) -> Self {
        BlockSolver {
            lu: Lu::new(n),
            idx: vec![0; n],
            k: 0,
            rhs: vec![0.0; n],
            key: vec![Bound::Free; n],
            valid: false,
            usable: false,
            pinned: vec![0.0; n],
            c: vec![0.0; n],
        }
    }

    /// Drops the cached factorization (matrix or bounds changed).
    pub(super) fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Recomputes what depends on the active set only.
    #[inline(never)]
    fn rebuild(&mut self, p: &Problem, active: &[Bound]) {
        let n = p.n();
        self.key.copy_from_slice(&active[..n]);
        self.valid = true;
        self.usable = false;
        let mut k = 0;
        for (i, &b) in active[..n].iter().enumerate() {
            let (lo, hi) = (p.lo[i], p.hi[i]);
            self.pinned[i] = match b {
                Bound::Lower if lo.is_finite() => lo,
                Bound::Upper if hi.is_finite() => hi,
                Bound::Free => {
                    self.idx[k] = i;
                    k += 1;
                    0.0
                }
                _ => return,
            };
        }
        self.k = k;
        let m = p.m.as_slice();
        self.c[..n].fill(0.0);
        for (j, &uj) in self.pinned[..n].iter().enumerate() {
            if uj != 0.0 {
                for (ci, &mij) in self.c[..n].iter_mut().zip(&m[j * n..(j + 1) * n]) {
                    *ci += mij * uj;
                }
            }
        }
        self.usable = self.lu.factor_block(&p.m, &self.idx[..k]);
    }

    /// Writes the candidate `u` of the active set `active`. Returns false when
    /// a pinned side is infinite or `M_FF` is singular; `u` is then garbage.
    /// The candidate is not verified here: see `acceptance::verify`.
    pub(super) fn solve(&mut self, p: &Problem, active: &[Bound], u: &mut [f64]) -> bool {
        self.solve_sized(p.n(), p, p.q.as_slice(), active, u)
    }

    /// [`BlockSolver::solve`] for a problem of size `n` with `q` given apart
    /// (the values of `p.q`). A caller that knows `n` when compiled gets the
    /// loops over `n` unrolled, and for `n <= SMALL` every access to `q` and
    /// `u` at a constant index, so that a caller's local `q` and `u` can live
    /// in registers; the free block's order stays a run-time number.
    #[inline(always)]
    pub(super) fn solve_sized(
        &mut self,
        n: usize,
        p: &Problem,
        q: &[f64],
        active: &[Bound],
        u: &mut [f64],
    ) -> bool {
        debug_assert_eq!(n, p.n());
        let (key, active) = (&self.key[..n], &active[..n]);
        // An inline comparison: for a handful of bytes a memcmp call costs more.
        let mut same = self.valid;
        for i in 0..n {
            same &= key[i] == active[i];
        }
        if !same {
            self.rebuild(p, active);
        }
        if !self.usable {
            return false;
        }
        let (q, c) = (&q[..n], &self.c[..n]);
        let u = &mut u[..n];
        if self.k == n {
            // Nothing pinned (the free block is the whole matrix, `c` is zero):
            // the same sums without the index lists.
            for i in 0..n {
                u[i] = -(q[i] + c[i]);
            }
            self.lu.solve_of_order(n, u);
            return true;
        }
        let k = self.k.min(n);
        if n <= SMALL {
            // Gather, solve and scatter at constant positions only (selects
            // instead of indexing by `idx`): the same values, with `q` and `u`
            // never taken out of registers.
            let idx = &self.idx[..n];
            let mut t = [0.0; SMALL];
            for i in 0..n {
                t[i] = -(q[i] + c[i]);
            }
            let mut v = [0.0; SMALL];
            for (r, vr) in v[..n].iter_mut().enumerate() {
                for (i, &ti) in t[..n].iter().enumerate() {
                    if r < k && idx[r] == i {
                        *vr = ti;
                    }
                }
            }
            self.lu.solve_of_order(k, &mut v[..k]);
            for (i, (ui, &pi)) in u.iter_mut().zip(&self.pinned[..n]).enumerate() {
                *ui = pi;
                for (r, &vr) in v[..n].iter().enumerate() {
                    if r < k && idx[r] == i {
                        *ui = vr;
                    }
                }
            }
            return true;
        }
        let (idx, rhs) = (&self.idx[..k], &mut self.rhs[..k]);
        for r in 0..k {
            let i = idx[r];
            rhs[r] = -(q[i] + c[i]);
        }
        self.lu.solve(rhs);
        u.copy_from_slice(&self.pinned[..n]);
        for r in 0..k {
            u[idx[r]] = rhs[r];
        }
        true
    }
}

/// Replaces entries that name an infinite bound by the default for that
/// component, so a stored active set stays usable after the bounds change.
pub(super) fn sanitize(p: &Problem, active: &mut [Bound]) {
    for (i, b) in active.iter_mut().enumerate() {
        if !b.allowed(p.lo[i], p.hi[i]) {
            *b = Bound::default_for(p.lo[i], p.hi[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn free_block_uses_pinned_values() {
        // w = M u + q with u_1 pinned at hi = 2: row 0 gives 2 u_0 + 1*2 - 4 = 0.
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 3.0]);
        let p = Problem::boxed(
            m,
            DVector::from_vec(vec![-4.0, 0.0]),
            DVector::from_vec(vec![f64::NEG_INFINITY, 0.0]),
            DVector::from_vec(vec![f64::INFINITY, 2.0]),
        );
        let mut bs = BlockSolver::new(2);
        let mut u = [0.0; 2];
        assert!(bs.solve(&p, &[Bound::Free, Bound::Upper], &mut u));
        assert_eq!(u, [1.0, 2.0]);
        assert!(!bs.solve(&p, &[Bound::Lower, Bound::Upper], &mut u));
        let mut a = [Bound::Lower, Bound::Free];
        sanitize(&p, &mut a);
        assert_eq!(a, [Bound::Free, Bound::Free]);
    }
}
