//! Block principal pivoting on band problems (Júdice–Pires with Murty's
//! least-index fallback), and the restart from all free.
//!
//! Each iteration solves one active set with the cached band LU, counts the
//! components that violate their side, and flips them all while their number
//! drops; after a few flips that do not help, the least infeasible index alone
//! is flipped, which terminates for P-matrices. A stored active set that has
//! not converged after a few solves is abandoned once for the all-free start.

use super::super::acceptance::violates;
use super::super::sweep::Sweep;
use super::super::Bound;
use super::{BandProblem, BandSolver, Outcome};

/// Flip tolerance as a fraction of the acceptance tolerance (measured as the
/// acceptance test measures): a component is infeasible only beyond it, so
/// roundoff on a degenerate
/// component (free at its bound, or pinned with `w = 0`) does not flip it
/// back and forth, while what remains is far below what verification allows.
const FLIP_TOL: f64 = 1e-3;

/// Non-improving block flips allowed before single flips take over.
const BLOCK_RETRIES: usize = 3;

/// Active-set solves from the stored active set before block pivoting
/// starts over once from all free (see `BandSolver::restart`).
const RESTART_AFTER: usize = 16;

impl BandSolver {
    /// Block principal pivoting from `trial`: returns how it ended and the
    /// number of active-set solves.
    pub(super) fn pivot(
        &mut self,
        p: &BandProblem,
        u: &mut [f64],
        w: &mut [f64],
    ) -> (Outcome, usize) {
        let eps = FLIP_TOL * self.settings.tol;
        // The sweep decides in the units of `w` (a chain's rows share them):
        // the same fraction of the tolerance, against the largest load.
        let sweep_eps = eps * p.q.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        let budget = match self.settings.max_pivots {
            0 => 50 + 2 * self.n,
            k => k,
        };
        let mut fewest = usize::MAX;
        let mut retries = BLOCK_RETRIES;
        for solves in 1..=budget {
            if solves == RESTART_AFTER + 1 {
                self.restart(p);
                (fewest, retries) = (usize::MAX, BLOCK_RETRIES);
            }
            if !self.solve_active(p, u) {
                return (Outcome::Singular, solves);
            }
            p.m.mul_add(u, &p.q, w);
            p.m.magnitudes(u, &p.q, &mut self.mag);
            p.m.resolution(&self.rate, &self.mag, &mut self.sigma);
            let scales = (&self.rate[..], &self.sigma[..]);
            let Some(Tally { count, first }) = infeasible(p, &self.trial, scales, u, w, eps) else {
                return (Outcome::Singular, solves);
            };
            if count == 0 {
                return (Outcome::Converged, solves);
            }
            // The stored active set failed: on a tridiagonal Z-matrix the
            // sweep finds the answer's active set in O(n), where flipping
            // would move a travelling load one contact per solve.
            if solves == 1 && Sweep::applies(p) && self.sweep.run(p, sweep_eps, &mut self.trial) {
                continue;
            }
            // Júdice–Pires: block flips while the count drops (or for a few
            // more tries), then Murty's least-index flip until it drops again.
            if count < fewest {
                fewest = count;
                retries = BLOCK_RETRIES;
            } else if retries > 0 {
                retries -= 1;
            } else {
                self.trial[first] = flipped(self.trial[first], u[first], p.lo[first]);
                continue;
            }
            for i in 0..self.n {
                let ds = (self.rate[i], self.sigma[i]);
                if violates(self.trial[i], p.lo[i], p.hi[i], u[i], w[i], ds, eps) {
                    self.trial[i] = flipped(self.trial[i], u[i], p.lo[i]);
                }
            }
        }
        (Outcome::Budget, budget)
    }

    /// The second starting point: every component free except fixed ones.
    /// From all pinned, a load applied at one end of a chain frees one
    /// contact per iteration (`n` iterations of `O(n)` for a chain pressed
    /// together); from all free the same chain is one solve, and a mostly
    /// separating one pins its contacts in a few block flips.
    pub(super) fn restart(&mut self, p: &BandProblem) {
        for i in 0..self.n {
            self.trial[i] = if p.lo[i] == p.hi[i] {
                Bound::Lower
            } else {
                Bound::Free
            };
        }
    }

    /// Writes the candidate of `trial` into `u`, refactoring only when the
    /// free/pinned pattern or the matrix changed, and then only from the
    /// first row whose pattern changed. False when singular.
    pub(super) fn solve_active(&mut self, p: &BandProblem, u: &mut [f64]) -> bool {
        // Pinned rows are identity rows, so their right-hand side is the
        // bound value and their columns act through the solution itself.
        // The same pass finds the first row whose free/pinned pattern
        // differs from the cached one.
        let mut first = if self.cached { usize::MAX } else { 0 };
        for (i, ui) in u[..self.n].iter_mut().enumerate() {
            let b = self.trial[i];
            if first == usize::MAX && (b == Bound::Free) != (self.key[i] == Bound::Free) {
                first = i;
            }
            *ui = match b {
                Bound::Free => -p.q[i],
                Bound::Lower => p.lo[i],
                Bound::Upper => p.hi[i],
            };
        }
        if first != usize::MAX {
            self.factorizations += 1;
            self.cached = self.lu.factor_from(&p.m, &self.trial, first);
            if !self.cached {
                return false;
            }
            self.key.copy_from_slice(&self.trial);
        }
        self.lu.solve(u);
        true
    }
}

/// Tally of a candidate's infeasible components.
struct Tally {
    count: usize,
    /// The least infeasible index (meaningless when `count == 0`).
    first: usize,
}

/// Counts the infeasible components of a candidate (`violates`, with the
/// exchange rates and magnitudes in `scales`); `None` when it is not finite.
fn infeasible(
    p: &BandProblem,
    active: &[Bound],
    scales: (&[f64], &[f64]),
    u: &[f64],
    w: &[f64],
    eps: f64,
) -> Option<Tally> {
    let (rate, mag) = scales;
    let (mut count, mut first) = (0, usize::MAX);
    let mut finite = true;
    for i in 0..active.len() {
        finite &= u[i].is_finite() && w[i].is_finite();
        if violates(
            active[i],
            p.lo[i],
            p.hi[i],
            u[i],
            w[i],
            (rate[i], mag[i]),
            eps,
        ) {
            count += 1;
            first = first.min(i);
        }
    }
    finite.then_some(Tally { count, first })
}

/// The new side of an infeasible component: a free one goes to the bound it
/// crossed, a pinned one is freed.
fn flipped(b: Bound, u: f64, lo: f64) -> Bound {
    match b {
        Bound::Free if u < lo => Bound::Lower,
        Bound::Free => Bound::Upper,
        Bound::Lower | Bound::Upper => Bound::Free,
    }
}
