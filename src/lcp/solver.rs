//! The per-step solver: warm start, block pivoting, Lemke, enumeration.
//!
//! An FMU step usually keeps the contact/friction mode of the previous step,
//! so the stored active set is tried first and costs a couple of triangular
//! solves against a cached LU. When that fails and the matrix couples its
//! components without a cycle, substitution in dependency order gives the
//! unique solution directly (`acyclic`). Otherwise block principal pivoting
//! starts from the same active set (a few factorizations of the free block,
//! which settles P-matrix problems at a fraction of Lemke's cost); only when
//! it stalls does the robust path run: lexicographic Lemke on the exact LCP
//! reformulation, polished by one more active-set solve, and for small `n`
//! exhaustive enumeration. All buffers are
//! sized in [`Solver::new`], every candidate goes through the same
//! verification, and the only state carried between calls that can change a
//! result is the active set (the LU cache is keyed so it cannot).

use super::acceptance::Gauge;
use super::active::{self, BlockSolver};
use super::acyclic::Acyclic;
use super::enumerate;
use super::lemke::{Lemke, Outcome as LemkeOutcome};
use super::pivoting::{self, Outcome};
use super::problem::entry_ok;
use super::transform::Reformulation;
use super::{Bound, Info, Method, Problem, Settings, Status};

/// Allocation-free solver for box MCPs of one fixed size `n`.
#[derive(Clone, Debug)]
pub struct Solver {
    n: usize,
    settings: Settings,
    active: Vec<Bound>,
    trial: Vec<Bound>,
    /// Bound finiteness seen in the last solve, for `reset_active_set`.
    lo_finite: Vec<bool>,
    hi_finite: Vec<bool>,
    /// Whether `lo_finite`, `hi_finite` and the active set were checked
    /// against the current bounds; cleared when bounds or active set change,
    /// so the common step skips that O(n) pass.
    bounds_checked: bool,
    /// Whether only the exchange rates are stale (the matrix changed, the
    /// bounds and the active set did not, see [`Solver::matrix_values_changed`]):
    /// the check then recomputes the rates and skips the bounds' passes.
    only_rates_stale: bool,
    /// The acceptance test's scales; the matrix's exchange rates are derived
    /// with the check above.
    gauge: Gauge,
    block: BlockSolver,
    /// The substitution order of the current matrix, when it has one.
    acyclic: Acyclic,
    reform: Reformulation,
    lemke: Lemke,
    cu: Vec<f64>,
    cw: Vec<f64>,
    /// Where the fallback after a failed warm start writes its answer.
    out_u: Vec<f64>,
    out_w: Vec<f64>,
}

impl Solver {
    /// Allocates all workspace for problems of size `n` (the Lemke tableau
    /// for a reformulated LCP of size up to `2 n`, LU buffers, active sets).
    /// Until the first solve the bounds are assumed to be those of a standard
    /// LCP, so the initial active set is all `Lower`.
    pub fn new(n: usize, settings: Settings) -> Self {
        Solver {
            n,
            settings,
            active: vec![Bound::Lower; n],
            trial: vec![Bound::Lower; n],
            lo_finite: vec![true; n],
            hi_finite: vec![false; n],
            bounds_checked: false,
            only_rates_stale: false,
            gauge: Gauge::new(n),
            block: BlockSolver::new(n),
            acyclic: Acyclic::new(n),
            reform: Reformulation::new(n),
            lemke: Lemke::new(2 * n),
            cu: vec![0.0; n],
            cw: vec![0.0; n],
            out_u: vec![0.0; n],
            out_w: vec![0.0; n],
        }
    }

    /// Problem size this solver was built for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Current settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Replaces the settings (takes effect at the next solve).
    pub fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
    }

    /// Must be called whenever `m`, `lo` or `hi` of the solved problem change:
    /// drops the cached factorization. The active set is kept.
    pub fn matrix_changed(&mut self) {
        self.block.invalidate();
        self.acyclic.invalidate();
        self.bounds_checked = false;
        self.only_rates_stale = false;
    }

    /// [`Solver::matrix_changed`] for a change of `m` alone, the bounds as in
    /// the last solve (a Newton iteration's new linearization): the matrix's
    /// exchange rates are derived again, the bounds are not checked again.
    pub fn matrix_values_changed(&mut self) {
        self.block.invalidate();
        self.acyclic.invalidate();
        self.only_rates_stale = self.bounds_checked || self.only_rates_stale;
        self.bounds_checked = false;
    }

    /// The active set the next warm start will try.
    pub fn active_set(&self) -> &[Bound] {
        &self.active
    }

    /// Restores an active set (e.g. from an FMU state snapshot). Ignored when
    /// `s.len() != n`. Entries naming an infinite bound are replaced by the
    /// component's default at the next solve.
    pub fn set_active_set(&mut self, s: &[Bound]) {
        if s.len() == self.n {
            self.active.copy_from_slice(s);
            self.bounds_checked = false;
            self.only_rates_stale = false;
        }
    }

    /// Sets each component to `Lower` where `lo` is finite, else `Upper` where
    /// `hi` is finite, else `Free` (bounds as seen in the last solve).
    pub fn reset_active_set(&mut self) {
        for i in 0..self.n {
            self.active[i] = match (self.lo_finite[i], self.hi_finite[i]) {
                (true, _) => Bound::Lower,
                (false, true) => Bound::Upper,
                (false, false) => Bound::Free,
            };
        }
    }

    /// Solves `p`, writing `u` and `w = M u + q`. Never allocates and never
    /// panics. On `Status::Solved` the pair is verified (see
    /// the acceptance test, `lcp::acceptance`) and the active set is updated from it; otherwise
    /// `u` and `w` are filled with NaN and the active set is left alone.
    /// Only sizes, the finiteness of `q` and the bounds are checked here (the
    /// bounds at the first solve and after [`Solver::matrix_changed`], which
    /// must follow any change of them): a non-finite `M` is caught by
    /// verification, not by validation.
    pub fn solve(&mut self, p: &Problem, u: &mut [f64], w: &mut [f64]) -> Info {
        self.solve_with(self.n, p, p.q.as_slice(), u, w)
    }

    /// [`Solver::solve`] for a solver of size `n` (which must be [`Solver::n`])
    /// with `q` given apart: the values of `p.q`, which the warm start reads
    /// from this slice instead. The same operations in the same order as
    /// [`Solver::solve`], so the same numbers. A caller compiled for one `n`
    /// gets the warm start with its loops unrolled, and for `n <= lcp::SMALL`,
    /// passing its local `q`, `u` and `w`, gets them kept in registers from the
    /// solve through the verification (the warm start indexes them only at
    /// constant positions, and the fallback, not inlined, works on the
    /// solver's own buffers): what the step then waits on is arithmetic, not
    /// stores and reloads.
    #[inline(always)]
    pub fn solve_with(
        &mut self,
        n: usize,
        p: &Problem,
        q: &[f64],
        u: &mut [f64],
        w: &mut [f64],
    ) -> Info {
        debug_assert_eq!(n, self.n);
        debug_assert!(
            q.len() == p.q.len()
                && q.iter()
                    .zip(p.q.iter())
                    .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        // The bounds are checked when they change (and the caller says so), `q`
        // on every call.
        if !self.sizes_ok(n, p, q, u, w) || !(self.bounds_checked || self.check_bounds(p)) {
            u.fill(f64::NAN);
            w.fill(f64::NAN);
            return info(Status::InvalidProblem, Method::None, f64::NAN, 0);
        }
        if n == 0 {
            return info(Status::Solved, Method::None, 0.0, 0);
        }
        let tol = self.settings.tol;
        let mut best = f64::NAN;

        if self.settings.warm_start && self.block.solve_sized(n, p, q, &self.active, u) {
            let (ok, r) = self.gauge.verify_sized(n, p, q, u, w, tol);
            if ok {
                // The active set just verified; keeping it as is (rather than
                // re-reading it off u) saves a pass on the common step.
                return info(Status::Solved, Method::WarmStart, r, 1);
            }
            best = best.min(r);
        }
        // Through the solver's own buffers: handing the caller's to a function
        // that is not inlined would take them out of registers on every step.
        let (mut cu, mut cw) = (
            std::mem::take(&mut self.out_u),
            std::mem::take(&mut self.out_w),
        );
        let info = self.solve_cold(p, &mut cu, &mut cw, best);
        u[..n].copy_from_slice(&cu[..n]);
        w[..n].copy_from_slice(&cw[..n]);
        (self.out_u, self.out_w) = (cu, cw);
        info
    }

    /// Checks the bounds; when they are valid, records their finiteness and the
    /// matrix's exchange rates, makes the active set fit them and returns true.
    /// Invalid bounds change nothing.
    #[inline(never)]
    fn check_bounds(&mut self, p: &Problem) -> bool {
        if self.only_rates_stale {
            self.gauge.set_problem(p);
            self.only_rates_stale = false;
            self.bounds_checked = true;
            return true;
        }
        let n = self.n;
        let (lo, hi) = (&p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
        if !(0..n).all(|i| entry_ok(0.0, lo[i], hi[i])) {
            return false;
        }
        self.gauge.set_problem(p);
        for i in 0..n {
            self.lo_finite[i] = p.lo[i].is_finite();
            self.hi_finite[i] = p.hi[i].is_finite();
        }
        active::sanitize(p, &mut self.active);
        self.bounds_checked = true;
        true
    }

    /// The robust path after a failed warm start (`best`: its residual, or NaN).
    #[inline(never)]
    fn solve_cold(&mut self, p: &Problem, u: &mut [f64], w: &mut [f64], mut best: f64) -> Info {
        let tol = self.settings.tol;
        if self.acyclic.solve(p, u) {
            let (ok, r) = self.gauge.verify(p, u, w, tol);
            if ok {
                self.gauge.classify(p, u, tol, &mut self.active);
                return info(Status::Solved, Method::Substitution, r, 1);
            }
            best = best.min(r);
        }
        match self.block_pivot(p, u, w) {
            (Some(true), r, solves) => return info(Status::Solved, Method::BlockPivot, r, solves),
            (Some(false), r, _) => best = best.min(r),
            (None, _, _) => {}
        }
        let (outcome, pivots) = self.lemke(p);
        if outcome == LemkeOutcome::Solution {
            match self.polish(p, u, w) {
                (true, r) => {
                    self.gauge.classify(p, u, tol, &mut self.active);
                    return info(Status::Solved, Method::Lemke, r, pivots);
                }
                (false, r) => best = best.min(r),
            }
        }

        let (mut method, mut iterations) = (Method::Lemke, pivots);
        if enumerate::unknowns(p) <= self.settings.enumeration_limit {
            let mut solves = 0;
            let (ok, r) = enumerate::search(
                p,
                &mut self.gauge,
                &mut self.block,
                &mut self.trial,
                u,
                w,
                tol,
                &mut solves,
            );
            if ok {
                self.gauge.classify(p, u, tol, &mut self.active);
                return info(Status::Solved, Method::Enumeration, r, solves);
            }
            best = best.min(r);
            method = Method::Enumeration;
            iterations = solves;
        }
        let status = match outcome {
            // A compact box always has a solution: the ray is Lemke's failure.
            LemkeOutcome::Ray if compact(p) => Status::NumericalFailure,
            LemkeOutcome::Ray => Status::Infeasible,
            LemkeOutcome::MaxPivots => Status::MaxIterations,
            LemkeOutcome::Numerical | LemkeOutcome::Solution => Status::NumericalFailure,
        };
        u.fill(f64::NAN);
        w.fill(f64::NAN);
        info(status, method, best, iterations)
    }

    /// The cheap per-call check: sizes, finite `q`, sane bounds.
    #[inline(always)]
    fn sizes_ok(&self, n: usize, p: &Problem, q: &[f64], u: &[f64], w: &[f64]) -> bool {
        // The lengths of the slices the solve indexes (nalgebra keeps the shape
        // apart from its buffer): once checked here, the compiler drops the
        // bounds checks of the warm start and the verification that follow.
        let sizes = p.m.nrows() == n
            && p.m.ncols() == n
            && p.m.as_slice().len() == n * n
            && p.q.as_slice().len() == n
            && q.len() == n
            && p.lo.as_slice().len() == n
            && p.hi.as_slice().len() == n
            && u.len() == n
            && w.len() == n;
        if !sizes {
            return false;
        }
        let (q, lo, hi) = (&q[..n], &p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
        let mut ok = true;
        for &x in q {
            // The same as `is_finite` (NaN fails too), in one comparison.
            ok &= x.abs() < f64::INFINITY;
        }
        // Bounds that changed without `matrix_changed` break the solver's contract
        // anyway; checked here in debug builds only.
        debug_assert!((0..n).all(|i| !self.bounds_checked || entry_ok(q[i], lo[i], hi[i])));
        ok
    }

    /// Block principal pivoting from the stored active set (the defaults
    /// without warm start). On a verified candidate the active set becomes
    /// the one pivoting ended on, whose factors stay cached for the next step.
    /// Returns whether a candidate verified (`None`: pivoting gave none), its
    /// residual and the number of active-set solves.
    fn block_pivot(
        &mut self,
        p: &Problem,
        u: &mut [f64],
        w: &mut [f64],
    ) -> (Option<bool>, f64, usize) {
        let n = self.n;
        let (lo, hi) = (&p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
        if self.settings.warm_start {
            self.trial.copy_from_slice(&self.active);
        } else {
            for i in 0..n {
                self.trial[i] = Bound::default_for(lo[i], hi[i]);
            }
        }
        let budget = match self.settings.max_pivots {
            0 => PIVOT_BUDGET + 2 * n,
            k => k,
        };
        let (ok, r, solves) = self.pivot_trial(p, u, w, budget);
        if ok == Some(true) {
            self.active.copy_from_slice(&self.trial);
        }
        (ok, r, solves)
    }

    /// Block principal pivoting from `self.trial`, leaving the last candidate
    /// in `u`/`w` and its active set in `trial`; the verdict as in
    /// [`Solver::block_pivot`].
    fn pivot_trial(
        &mut self,
        p: &Problem,
        u: &mut [f64],
        w: &mut [f64],
        budget: usize,
    ) -> (Option<bool>, f64, usize) {
        let tol = self.settings.tol;
        let ws = pivoting::Workspace {
            block: &mut self.block,
            trial: &mut self.trial,
            gauge: &mut self.gauge,
        };
        let (outcome, solves) = pivoting::run(p, ws, u, w, tol, budget);
        if outcome == Outcome::Failed {
            return (None, f64::NAN, solves);
        }
        // The shared acceptance test (no pivot left to flip is not enough:
        // flips wait for violations well above the tolerance).
        let (ok, r) = self.gauge.verify(p, u, w, tol);
        (Some(ok), r, solves)
    }

    /// Builds the reformulated tableau and runs Lemke on it.
    fn lemke(&mut self, p: &Problem) -> (LemkeOutcome, usize) {
        let big_n = self.reform.setup(p);
        let budget = match self.settings.max_pivots {
            0 => 50 + 20 * big_n,
            k => k,
        };
        if !self.reform.fill_tableau(p, &mut self.lemke.t) {
            return (LemkeOutcome::Numerical, 0);
        }
        self.lemke.run(big_n, budget)
    }

    /// Verifies Lemke's answer and the re-solve on the active set it
    /// identifies; leaves the better verified one (smaller residual) in
    /// `u`/`w`. Returns whether either verified and the reported residual.
    fn polish(&mut self, p: &Problem, u: &mut [f64], w: &mut [f64]) -> (bool, f64) {
        let tol = self.settings.tol;
        let big_n = self.reform.size();
        self.reform.recover(&self.lemke.z[..big_n], u);
        let (ok1, r1) = self.gauge.verify(p, u, w, tol);
        self.gauge.classify(p, u, tol, &mut self.trial);
        let (mut ok2, mut r2) = if self.block.solve(p, &self.trial, &mut self.cu) {
            self.gauge.verify(p, &mut self.cu, &mut self.cw, tol)
        } else {
            (false, f64::NAN)
        };
        if !ok1 && !ok2 {
            // Lemke's answer is exact only up to the round-off of its pivots:
            // a component it leaves a hair beyond the threshold above its
            // bound is read as free, and the solve on that active set is then
            // wrong by far more than round-off (the coupled bead column,
            // N = 100: w = -0.25 on a component that must be pinned).
            // Pivoting from that active set repairs such a misreading in a
            // solve or two.
            let (mut cu, mut cw) = (std::mem::take(&mut self.cu), std::mem::take(&mut self.cw));
            let budget = POLISH_BUDGET + self.n;
            match self.pivot_trial(p, &mut cu, &mut cw, budget) {
                (Some(true), r, _) => (ok2, r2) = (true, r),
                (Some(false), r, _) => r2 = r2.min(r),
                (None, _, _) => {}
            }
            (self.cu, self.cw) = (cu, cw);
        }
        if ok2 && (!ok1 || r2 <= r1) {
            u.copy_from_slice(&self.cu);
            w.copy_from_slice(&self.cw);
            (true, r2)
        } else if ok1 {
            (true, r1)
        } else {
            (false, r1.min(r2))
        }
    }
}

/// Active-set solves block pivoting may spend beyond `2 n` before Lemke takes over.
const PIVOT_BUDGET: usize = 10;

/// Active-set solves beyond `n` that polishing Lemke's answer may spend.
const POLISH_BUDGET: usize = 4;

/// Whether every bound is finite (then a solution exists for any `M`).
fn compact(p: &Problem) -> bool {
    p.lo.iter().chain(p.hi.iter()).all(|x| x.is_finite())
}

fn info(status: Status, method: Method, residual: f64, iterations: usize) -> Info {
    Info {
        status,
        method,
        residual,
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// The contact LCP of the coupled bead column (`benches/chain.rs`,
    /// N = 100) at t = 0.008 (of a run solved by Lemke alone): 100 rows of
    /// `M`, then `q`, `lo`, `hi` (`hi = 0` pins the open contacts).
    fn coupled_column() -> Problem {
        let text = include_str!("../../tests/data/lcp/coupled_column_n100.txt");
        let rows: Vec<Vec<f64>> = text
            .lines()
            .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
            .collect();
        let n = rows.len() - 3;
        let m = DMatrix::from_fn(n, n, |i, j| rows[i][j]);
        let v = |k: usize| DVector::from_vec(rows[n + k].clone());
        Problem::boxed(m, v(0), v(1), v(2))
    }

    #[test]
    fn lemke_answer_polished_on_the_coupled_column() {
        // Lemke's answer misses the tolerance and the active set read off it
        // is wrong at one contact; polishing must still end on a verified
        // solution.
        let p = coupled_column();
        let n = p.n();
        // Round-off on this matrix (entries from 1e2 down to 1e-300) breaks
        // the lexicographic invariant's test-only check before it breaks the
        // answer, which is what this test is about.
        super::super::lemke::CHECK_INVARIANT.with(|c| c.set(false));
        let mut s = Solver::new(n, Settings::default());
        assert!(s.check_bounds(&p));
        let (outcome, pivots) = s.lemke(&p);
        assert_eq!(outcome, LemkeOutcome::Solution);
        assert!(pivots > 0);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let (ok, r) = s.polish(&p, &mut u, &mut w);
        assert!(ok, "polished residual {r:e}");
        assert!(r <= s.settings.tol && super::super::residual(&p, &u, &w) <= r);
        let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
        assert!((0..n).all(|i| u[i] >= lo[i] && u[i] <= hi[i]));
    }
}
