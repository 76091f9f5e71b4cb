//! Block principal pivoting, the dense solver's first cold method.
//!
//! After a failed warm start the stored active set is usually close to right:
//! a few components changed side. Flipping every infeasible component at
//! once and solving the new free block (Júdice–Pires) reaches the solution
//! of a P-matrix problem in a handful of factorizations of `M_FF`, where
//! Lemke pays a Gauss–Jordan pivot on a `N x (2N + 2)` tableau per basis
//! change plus the box reformulation and a polishing solve. When the number
//! of infeasible components stops dropping, Murty's least-index single flip
//! takes over, which terminates for P-matrices; on other matrices (friction
//! cones) pivoting may stall, and the caller falls back to Lemke after a
//! small budget, so robustness is Lemke's and only the common case is faster.
//! On a friction cone a flip can make the free block singular (a slip
//! multiplier freed while its row, `mu N - t+ - t-`, has no other free
//! entry); such a flip is undone, and from the last set that solved only
//! single flips follow, each time of the next infeasible component, so that
//! rows whose data are round-off (a contact with no normal force between
//! beads that fall together) are opened one at a time rather than all at
//! once into a singular block.
//! Each candidate is the `BlockSolver`'s, so the active set found here leaves
//! its factors cached for the next warm-started step.

use super::acceptance::{violates, Gauge};
use super::active::BlockSolver;
use super::problem::mul_add;
use super::{Bound, Problem};

/// Fraction of the acceptance tolerance below which a violated sign is not
/// flipped (round-off of a component sitting on its bound).
const FLIP_TOL: f64 = 1e-3;
/// Block flips tried without a drop of the infeasible count before Murty's
/// single flip takes over.
const BLOCK_RETRIES: usize = 3;

/// How a pivoting run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// No component violates its side: `u`, `w = M u + q` hold the candidate,
    /// for the caller to verify.
    Converged,
    /// A singular free block, non-finite numbers or the budget ran out.
    Failed,
}

/// What a pivoting run works on, all borrowed from the solver.
pub(super) struct Workspace<'a> {
    /// The free-block solver, whose factors stay cached for the next step.
    pub block: &'a mut BlockSolver,
    /// The active set: where the run starts, and where it ends.
    pub trial: &'a mut [Bound],
    /// The last active set whose free block was nonsingular (scratch).
    pub prev: &'a mut [Bound],
    /// The acceptance test's scales (`acceptance`), with the matrix's rates.
    pub gauge: &'a mut Gauge,
}

/// Runs block principal pivoting from `ws.trial` (a valid active set for the
/// bounds of `p`), leaving the last candidate in `u`, `w` and its active set
/// in `ws.trial`. A component is infeasible when it violates its side by more
/// than a fraction of the acceptance tolerance `tol` (measured as the
/// acceptance test measures, so in any units alike), or when it is free and
/// so far outside its box that the acceptance test's clamp would move another
/// row's `w` by more than that fraction of the other row's scale
/// ([`spills`]: a friction force 1e-19 below zero, nothing in its own row,
/// spoiled the next contact's rows of round-off terms in the friction columns
/// of 30 and 100 beads, and pivoting converged on a candidate the test
/// rejected); `budget` bounds the number of active-set solves. Returns the
/// outcome and the solves.
pub(super) fn run(
    p: &Problem,
    ws: Workspace,
    u: &mut [f64],
    w: &mut [f64],
    tol: f64,
    budget: usize,
) -> (Outcome, usize) {
    let n = p.n();
    let Workspace {
        block,
        trial,
        prev,
        gauge,
    } = ws;
    let (lo, hi) = (&p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
    let eps = FLIP_TOL * tol;
    let (mut fewest, mut retries) = (usize::MAX, BLOCK_RETRIES);
    // A flip that makes the free block singular (a friction contact's slip
    // multiplier freed while its row has no other free entry) is undone:
    // back to `prev`, the last set that solved, and from there single flips
    // only, of the `skip`-th infeasible component in index order (the first
    // once a flip has led to a nonsingular block again).
    let (mut have_prev, mut single, mut skip, mut redo) = (false, false, 0usize, false);
    for solves in 1..=budget {
        if !block.solve(p, trial, u) {
            if !have_prev {
                return (Outcome::Failed, solves);
            }
            // `prev` is solved again (its factors were dropped), then
            // flipped at the next infeasible component.
            trial.copy_from_slice(prev);
            (have_prev, single, redo) = (false, true, true);
            skip += 1;
            continue;
        }
        if single && !redo {
            skip = 0;
        }
        redo = false;
        mul_add(p, u, w);
        gauge.resolve(p, u);
        let mag = gauge.resolved_magnitudes();
        let infeasible = |trial: &[Bound], i: usize| {
            let ds = (gauge.rate_at(i, mag[i]), mag[i]);
            violates(trial[i], lo[i], hi[i], u[i], w[i], ds, eps)
                || (trial[i] == Bound::Free && spills(p, i, u[i], mag, eps))
        };
        let (mut count, mut first) = (0, usize::MAX);
        let mut finite = true;
        for i in (0..n).rev() {
            // `abs() < inf` is `is_finite` in one comparison (NaN fails it).
            finite &= u[i].abs() < f64::INFINITY && w[i].abs() < f64::INFINITY;
            if infeasible(trial, i) {
                count += 1;
                first = i;
            }
        }
        if !finite {
            return (Outcome::Failed, solves);
        }
        if count == 0 {
            return (Outcome::Converged, solves);
        }
        prev.copy_from_slice(trial);
        have_prev = true;
        if single {
            // Every infeasible component's flip led to a singular block.
            let Some(i) = (0..n).filter(|&i| infeasible(trial, i)).nth(skip) else {
                return (Outcome::Failed, solves);
            };
            trial[i] = flipped(trial[i], u[i], lo[i]);
            continue;
        }
        // Júdice–Pires: block flips while the count drops (or for a few more
        // tries), then Murty's least-index flip until it drops again.
        if count < fewest {
            (fewest, retries) = (count, BLOCK_RETRIES);
        } else if retries > 0 {
            retries -= 1;
        } else {
            trial[first] = flipped(trial[first], u[first], lo[first]);
            continue;
        }
        for i in 0..n {
            if infeasible(trial, i) {
                trial[i] = flipped(trial[i], u[i], lo[i]);
            }
        }
    }
    (Outcome::Failed, budget)
}

/// Whether the acceptance test's clamp of the free component `j` (at `u_j`)
/// into its box would move `w_k` of another row `k` of its column by more
/// than `eps` times that row's resolved magnitude `sigma_k`: `|M_kj| out`
/// against `eps sigma_k`, both in the units of `w_k`. A fixed row (`lo_k ==
/// hi_k`) takes any `w_k` and is skipped. The band solver's test of the same
/// name (`banded/pivot.rs`), for a dense column.
#[cold]
#[inline(never)]
fn spills_column(p: &Problem, j: usize, out: f64, sigma: &[f64], eps: f64) -> bool {
    let n = p.n();
    let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
    let col = &p.m.as_slice()[j * n..(j + 1) * n];
    (0..n).any(|k| k != j && lo[k] != hi[k] && col[k].abs() * out > eps * sigma[k])
}

/// [`spills_column`] for a free component `u_j`, which is checked only when
/// `u_j` lies outside its box (rarely: within the flip tolerance of it).
#[inline(always)]
fn spills(p: &Problem, j: usize, u: f64, sigma: &[f64], eps: f64) -> bool {
    let out = (p.lo[j] - u).max(u - p.hi[j]);
    out > 0.0 && spills_column(p, j, out, sigma, eps)
}

/// The new side of a violating component: a free one goes to the bound it
/// crossed, a pinned one is freed.
#[inline(always)]
fn flipped(b: Bound, u: f64, lo: f64) -> Bound {
    match b {
        Bound::Free if u < lo => Bound::Lower,
        Bound::Free => Bound::Upper,
        Bound::Lower | Bound::Upper => Bound::Free,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::tests::murty;
    use nalgebra::{DMatrix, DVector};

    /// Block pivoting on `p` from every component pinned at its lower bound,
    /// within `budget` solves: the outcome, the solves, `u` and the active set.
    fn from_all_pinned(p: &Problem, budget: usize) -> (Outcome, usize, Vec<f64>, Vec<Bound>) {
        let n = p.n();
        let mut trial = vec![Bound::Lower; n];
        let (o, solves, u, _) = run_on(p, &mut trial, budget);
        (o, solves, u, trial)
    }

    /// Block pivoting on `p` from `trial`: the outcome, the solves, `u` and `w`.
    fn run_on(
        p: &Problem,
        trial: &mut [Bound],
        budget: usize,
    ) -> (Outcome, usize, Vec<f64>, Vec<f64>) {
        let n = p.n();
        let mut block = BlockSolver::new(n);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let mut gauge = Gauge::new(n);
        gauge.set_problem(p);
        let mut prev = vec![Bound::Free; n];
        let ws = Workspace {
            block: &mut block,
            trial,
            prev: &mut prev,
            gauge: &mut gauge,
        };
        let (o, solves) = run(p, ws, &mut u, &mut w, 1e-9, budget);
        (o, solves, u, w)
    }

    #[test]
    fn murty_matrix_from_all_pinned() {
        // Murty's upper-triangular matrix with q = -1: the solution is e_n.
        let n = 8;
        let (o, solves, u, trial) = from_all_pinned(&murty(n, true, 1.0), 100);
        assert_eq!(o, Outcome::Converged);
        assert!(solves > 1);
        let mut want = vec![0.0; n];
        want[n - 1] = 1.0;
        assert_eq!(u, want);
        assert!(trial[..n - 1].iter().all(|&b| b == Bound::Lower));
        assert_eq!(trial[n - 1], Bound::Free);
    }

    #[test]
    fn murtys_transpose_within_the_solvers_budget() {
        // The matrix of tests/data/lemke_budget.toml (1 on the diagonal, 2
        // below), on which Lemke needs 2^n pivots; the dense solver now meets
        // it with substitution first, so pivoting's own answer is checked here,
        // within the `10 + 2 n` solves the solver grants it.
        let n = 11;
        let (o, solves, u, _) = from_all_pinned(&murty(n, false, 0.3), 10 + 2 * n);
        assert_eq!(o, Outcome::Converged, "{solves} solves");
        let mut want = vec![0.0; n];
        want[0] = 0.3;
        assert_eq!(u, want);
    }

    #[test]
    fn box_sides_and_budget() {
        // u_0 is pushed past hi = 1, u_1 below lo = -1: both end pinned.
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 0.5, 0.5, 2.0]);
        let p = Problem::boxed(
            m,
            DVector::from_vec(vec![-10.0, 10.0]),
            DVector::from_vec(vec![-1.0, -1.0]),
            DVector::from_vec(vec![1.0, 1.0]),
        );
        let mut trial = vec![Bound::Free; 2];
        let (o, _, u, w) = run_on(&p, &mut trial, 10);
        assert_eq!(o, Outcome::Converged);
        assert_eq!(trial, [Bound::Upper, Bound::Lower]);
        assert_eq!(u, [1.0, -1.0]);
        assert!(w[0] < 0.0 && w[1] > 0.0);
        let mut trial = vec![Bound::Free; 2];
        let (o, solves, _, _) = run_on(&p, &mut trial, 1);
        assert_eq!((o, solves), (Outcome::Failed, 1));
    }
}
