//! Box LCPs whose coupling has no cycle, solved by substitution.
//!
//! When no chain of nonzero off-diagonal entries `M[i][j]` leads from a
//! component back to itself, the components can be ordered so that each one
//! depends only on those before it: `M` is triangular up to a symmetric
//! permutation. Block diagrams give such matrices (static blocks in series,
//! each one's input the previous one's output), and so does Murty's LCP, the
//! classic worst case of pivoting methods. With a positive diagonal, the
//! component `i` of the box LCP is then a scalar problem once its predecessors
//! are known: `w_i = s_i + M[i][i] u_i` increases with `u_i`, so
//! `u_i = clamp(-s_i / M[i][i], lo_i, hi_i)` is its only solution, and the
//! whole problem has exactly one solution, found in `O(n²)` without pivoting.
//!
//! The ordering depends only on `M`, so the solver finds it once per matrix
//! (Kahn's topological sort on preallocated buffers) and reuses it for every
//! cold solve until the matrix changes. A row with no predecessor must exist
//! for an order to exist; a dense matrix has none, so for it the analysis stops
//! after a few entries of each row. The caller verifies the result like every
//! other candidate.

use super::acceptance::clamp_value;
use super::Problem;

/// The substitution order of one matrix, or the finding that there is none.
#[derive(Clone, Debug)]
pub(super) struct Acyclic {
    /// Components in an order where each depends only on earlier ones.
    order: Vec<usize>,
    /// Work space of the sort: predecessors not yet placed, per component.
    pending: Vec<usize>,
    /// Work space of the solve: `q + M u` over the components known so far.
    sums: Vec<f64>,
    /// Whether `order` describes the current matrix (cleared when it changes).
    known: bool,
    /// Whether the current matrix has such an order and a positive diagonal.
    usable: bool,
}

impl Acyclic {
    /// Buffers for problems of size `n`.
    pub(super) fn new(n: usize) -> Self {
        Acyclic {
            order: Vec::with_capacity(n),
            pending: vec![0; n],
            sums: vec![0.0; n],
            known: false,
            usable: false,
        }
    }

    /// Forgets the analysis: the matrix changed.
    pub(super) fn invalidate(&mut self) {
        self.known = false;
    }

    /// Writes the unique solution into `u` when `p`'s matrix is acyclic with a
    /// positive diagonal, and returns whether it did (`u` is untouched
    /// otherwise). `p` must have the size the buffers were made for and `u`
    /// at least as many entries.
    pub(super) fn solve(&mut self, p: &Problem, u: &mut [f64]) -> bool {
        if !self.known {
            self.usable = self.analyze(p);
            self.known = true;
        }
        if !self.usable {
            return false;
        }
        let n = p.n();
        let (m, q, lo, hi) = (
            p.m.as_slice(),
            p.q.as_slice(),
            p.lo.as_slice(),
            p.hi.as_slice(),
        );
        // Column by column (nalgebra stores columns contiguously): once `u_j`
        // is known, its column is added into the partial sums `s = q + M u` of
        // every row, which matters only to rows placed after `j`. A zero `u_j`
        // adds nothing, and most components of a solution sit at zero.
        let s = &mut self.sums[..n];
        s.copy_from_slice(&q[..n]);
        for &j in &self.order {
            let col = &m[j * n..j * n + n];
            let uj = clamp_value(-s[j] / col[j], lo[j], hi[j]);
            u[j] = uj;
            if uj != 0.0 {
                for (si, &mij) in s.iter_mut().zip(col) {
                    *si += mij * uj;
                }
            }
        }
        true
    }

    /// Kahn's sort of the components by their dependencies; false when a cycle
    /// exists or a diagonal entry is not positive and finite.
    fn analyze(&mut self, p: &Problem) -> bool {
        let n = p.n();
        let m = &p.m.as_slice()[..n * n];
        if !m
            .iter()
            .step_by(n + 1)
            .all(|&d| d > 0.0 && d < f64::INFINITY)
        {
            return false;
        }
        // Cheap rejection first: without a component that no other depends on
        // (a column free of off-diagonal entries) there is no last one. Each
        // scan stops at the first nonzero, so a dense matrix costs O(n).
        let column = |j: usize| &m[j * n..j * n + n];
        let ends = (0..n).any(|j| {
            column(j)
                .iter()
                .enumerate()
                .all(|(i, &x)| i == j || x == 0.0)
        });
        if !ends {
            return false;
        }
        // Row `i` depends on `j` when `M[i][j]` is nonzero (NaN included);
        // counted and released column by column, in storage order. The count
        // takes in the (positive) diagonal, which is then taken off again.
        let pending = &mut self.pending[..n];
        pending.fill(0);
        for j in 0..n {
            for (c, &x) in pending.iter_mut().zip(column(j)) {
                *c += usize::from(x != 0.0);
            }
        }
        self.order.clear();
        for (i, c) in pending.iter_mut().enumerate() {
            *c -= 1;
            if *c == 0 {
                self.order.push(i);
            }
        }
        // `order` doubles as the queue: entries before `next` are processed.
        let mut next = 0;
        while next < self.order.len() {
            let j = self.order[next];
            next += 1;
            for (i, (c, &x)) in pending.iter_mut().zip(column(j)).enumerate() {
                if x != 0.0 && i != j {
                    *c -= 1;
                    if *c == 0 {
                        self.order.push(i);
                    }
                }
            }
        }
        self.order.len() == n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::acceptance::{residual, verify_fresh as verify};
    use crate::lcp::tests::murty;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn murtys_lcp_in_both_orientations_has_the_known_solution() {
        for upper in [true, false] {
            let p = murty(16, upper, 1.0);
            let mut a = Acyclic::new(16);
            let (mut u, mut w) = (vec![f64::NAN; 16], vec![0.0; 16]);
            assert!(a.solve(&p, &mut u));
            // Upper: the last component carries the load; lower: the first.
            let k = if upper { 15 } else { 0 };
            for (i, &v) in u.iter().enumerate() {
                assert_eq!(v, if i == k { 1.0 } else { 0.0 }, "upper = {upper}: {u:?}");
            }
            let (ok, r) = verify(&p, &mut u, &mut w, 1e-9);
            assert!(ok && r == 0.0 && residual(&p, &u, &w) == 0.0);
        }
    }

    #[test]
    fn a_permuted_triangular_box_problem_matches_enumeration() {
        // A lower-triangular matrix seen through the permutation (2 0 3 1),
        // with finite and infinite bounds of both kinds.
        let perm = [2usize, 0, 3, 1];
        let l = [
            [2.0, 0.0, 0.0, 0.0],
            [-1.0, 1.5, 0.0, 0.0],
            [0.5, 3.0, 1.0, 0.0],
            [1.0, -2.0, 0.25, 4.0],
        ];
        let m = DMatrix::from_fn(4, 4, |i, j| l[perm[i]][perm[j]]);
        let q = DVector::from_vec(vec![0.7, -1.0, 2.5, -0.3]);
        let lo = DVector::from_vec(vec![-1.0, 0.0, f64::NEG_INFINITY, -0.5]);
        let hi = DVector::from_vec(vec![1.0, f64::INFINITY, 0.2, 0.5]);
        let p = Problem::boxed(m, q, lo, hi);
        let mut a = Acyclic::new(4);
        let (mut u, mut w) = (vec![0.0; 4], vec![0.0; 4]);
        assert!(a.solve(&p, &mut u));
        let (ok, r) = verify(&p, &mut u, &mut w, 1e-12);
        assert!(ok, "residual {r}");
        let all = crate::lcp::enumerate::all_solutions(&p, 1e-12);
        assert_eq!(all.len(), 1, "a P-matrix problem has one solution");
        for i in 0..4 {
            assert!((u[i] - all[0][i]).abs() < 1e-14, "{u:?} vs {}", all[0]);
        }
    }

    #[test]
    fn cycles_and_bad_diagonals_are_declined() {
        let mut a = Acyclic::new(3);
        let mut u = vec![7.0; 3];
        // A 3-cycle 0 -> 1 -> 2 -> 0 behind an acyclic-looking first row test.
        let cyc = DMatrix::from_row_slice(3, 3, &[1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0]);
        let q = DVector::from_element(3, -1.0);
        assert!(!a.solve(&Problem::lcp(cyc, q.clone()), &mut u));
        // Row 2 is free of dependencies, but 0 and 1 depend on each other.
        a.invalidate();
        let two = DMatrix::from_row_slice(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        assert!(!a.solve(&Problem::lcp(two, q.clone()), &mut u));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            a.invalidate();
            let mut d = DMatrix::identity(3, 3);
            d[(1, 1)] = bad;
            assert!(
                !a.solve(&Problem::lcp(d, q.clone()), &mut u),
                "diagonal {bad}"
            );
        }
        assert_eq!(u, vec![7.0; 3], "u untouched when declined");
        // The analysis is kept until the matrix changes.
        a.invalidate();
        assert!(a.solve(&Problem::lcp(DMatrix::identity(3, 3), q), &mut u));
        assert_eq!(u, vec![1.0; 3]);
    }
}
