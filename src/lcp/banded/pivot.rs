//! Block principal pivoting on band problems (Júdice–Pires with Murty's
//! least-index fallback), and the restart from all free.
//!
//! Each iteration solves one active set with the cached band LU, counts the
//! components that violate their side, and flips them all while their number
//! drops; after a few flips that do not help, the least infeasible index alone
//! is flipped, which terminates for P-matrices. When the stored active set
//! fails on a tridiagonal Z-matrix, the sweep (`sweep.rs`) gives the next one.
//! A stored active set that has not converged after a few solves is abandoned
//! once for the all-free start.
//!
//! "Violates" is measured as `acceptance` measures, each component in the
//! units of its own `w`, against a small fraction of the tolerance. Since the
//! test became unit-free (b19d764), a row whose terms are all rounding noise
//! (two beads at rest on each other: approach speed 1e-16, percussion 1e-18)
//! is judged in its own scale, not against the largest load of the problem,
//! and two things follow that the struck bead column ran into. The sweep must
//! decide in the same per-row scale (it used one absolute threshold, so the
//! noisy rows it left were flipped here one contact per solve: 154 solves in
//! one step of the 1,000-bead column). And a free component a hair outside
//! its box must count as infeasible when the acceptance test's clamp, which
//! moves the `w` of every row of its column, would move a quieter
//! neighbour's `w` beyond that neighbour's scale, even where it is nothing
//! in its own ([`BandSolver::infeasible_at`]); otherwise pivoting stops on a
//! candidate that verification rejects, and a chain beyond the dense
//! fallback's size fails its step (the 3,000-, 5,000- and 10,000-bead
//! columns at t = 0.158, 0.364 and 0.03). With both, a converged candidate
//! passes verification unless the linear solve's own rounding exceeds the
//! tolerance, and every step of those columns takes one or two solves.

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
            p.m.mul_add_magnitudes(u, &p.q, w, &mut self.mag);
            let (scale, sigma) = (&mut self.scale, &mut self.sigma);
            let box_u = (&p.lo[..], &p.hi[..], &u[..]);
            p.m.resolution_with(&self.rate, &self.mag, box_u, scale, sigma);
            let Some(Tally { count, first }) = self.infeasible(p, u, w, eps) else {
                return (Outcome::Singular, solves);
            };
            if count == 0 {
                return (Outcome::Converged, solves);
            }
            // The stored active set failed: on a tridiagonal Z-matrix the
            // sweep finds the answer's active set in O(n), where flipping
            // would move a travelling load one contact per solve.
            if solves == 1 && Sweep::applies(p) && self.sweep.run(p, eps, &mut self.trial) {
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
                if self.infeasible_at(p, i, u, w, eps) {
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

    /// Counts the infeasible components of the candidate of `trial`
    /// ([`BandSolver::infeasible_at`]); `None` when it is not finite.
    fn infeasible(&self, p: &BandProblem, u: &[f64], w: &[f64], eps: f64) -> Option<Tally> {
        let (mut count, mut first) = (0, usize::MAX);
        let mut finite = true;
        for i in 0..self.n {
            finite &= u[i].is_finite() && w[i].is_finite();
            if self.infeasible_at(p, i, u, w, eps) {
                count += 1;
                first = first.min(i);
            }
        }
        finite.then_some(Tally { count, first })
    }

    /// Whether component `i` of the candidate violates its side of `trial` by
    /// more than `eps` (`violates`, with its exchange rate and resolved
    /// magnitude), or, free and outside its box, lies so far out that the
    /// acceptance test's clamp would move another row's `w` by more than
    /// `eps` of that row's resolved magnitude ([`spills`]).
    ///
    /// The second condition makes a converged candidate one that the
    /// acceptance test accepts: the test judges the clamped point, and the
    /// clamp of `u_i` by `out` moves every `w_k` of its column by
    /// `|M_ki| out`. Against `u_i`'s own scale alone that move can be far
    /// beyond a neighbour's: a contact between beads at rest (terms of
    /// 1e-16) next to an open contact whose other neighbour carries a blow
    /// has a resolved magnitude of 1e-2, so 1e-18 below its bound passes its
    /// own test, while the clamp moves the quiet neighbour's `w` by 1e-16,
    /// all of that neighbour's terms. Pivoting then stopped on a candidate
    /// that verification rejected (the 3,000-bead column at t = 0.158).
    #[inline(always)]
    fn infeasible_at(&self, p: &BandProblem, i: usize, u: &[f64], w: &[f64], eps: f64) -> bool {
        let b = self.trial[i];
        let (lo, hi) = (p.lo[i], p.hi[i]);
        let ds = (self.rate[i], self.sigma[i]);
        if violates(b, lo, hi, u[i], w[i], ds, eps) {
            return true;
        }
        // Rare (a free component within the flip tolerance outside its box),
        // so the column's check is a call of its own.
        let out = (lo - u[i]).max(u[i] - hi);
        b == Bound::Free && out > 0.0 && spills(p, i, out, &self.sigma, eps)
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

/// Whether moving `u_j` by `out` would move `w_k` of some other row `k` of
/// its column by more than `eps` times that row's resolved magnitude
/// `sigma_k`. A fixed row (`lo_k == hi_k`) takes any `w_k` and is skipped.
/// Both sides of the comparison are in the units of `w_k`, so the verdict is
/// the same in any units.
#[cold]
#[inline(never)]
fn spills(p: &BandProblem, j: usize, out: f64, sigma: &[f64], eps: f64) -> bool {
    let (n, kl, ku) = (p.n(), p.m.kl(), p.m.ku());
    // Column `j` has entries in rows `j - ku ..= j + kl`.
    (j.saturating_sub(ku)..(j + kl + 1).min(n))
        .any(|k| k != j && p.lo[k] != p.hi[k] && p.m.get(k, j).abs() * out > eps * sigma[k])
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
