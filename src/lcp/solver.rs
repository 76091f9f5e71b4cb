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
//! result is the active set (the LU cache is keyed so it cannot). This file
//! holds the workspace, its life cycle and the warm start; `fallback` the
//! path after a failed warm start.

use super::acceptance::Gauge;
use super::active::{self, BlockSolver};
use super::acyclic::Acyclic;
use super::lemke::Lemke;
use super::problem::entry_ok;
use super::transform::Reformulation;
use super::{Bound, Info, Method, Problem, Settings, Status};

mod fallback;

/// Allocation-free solver for box MCPs of one fixed size `n`.
#[derive(Clone, Debug)]
pub struct Solver {
    n: usize,
    settings: Settings,
    active: Vec<Bound>,
    trial: Vec<Bound>,
    /// Pivoting's last nonsingular active set.
    prev: Vec<Bound>,
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
    /// Which LCP variables Lemke's final basis holds (length up to `2 n`).
    basic: Vec<bool>,
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
            prev: vec![Bound::Lower; n],
            lo_finite: vec![true; n],
            hi_finite: vec![false; n],
            bounds_checked: false,
            only_rates_stale: false,
            gauge: Gauge::new(n),
            block: BlockSolver::new(n),
            acyclic: Acyclic::new(n),
            reform: Reformulation::new(n),
            lemke: Lemke::new(2 * n),
            basic: vec![false; 2 * n],
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

    /// How much `w_i` moves per unit of `u_i` in the matrix of the last solve,
    /// at a `w_i` whose terms have magnitude `s` (the acceptance test's
    /// exchange rate, see `lcp::acceptance`): a number in the units of `w_i /
    /// u_i`, which converts a distance of `u_i` from its bound into the units
    /// of `w_i`. Meaningful only after a solve of the current matrix.
    #[inline]
    pub fn exchange_rate(&self, i: usize, s: f64) -> f64 {
        self.gauge.rate_at(i, s)
    }

    /// The scale of each multiplier of `u`, a solution of `p` this solver
    /// verified, in the units of that multiplier: `sigma_i / d_i` for a
    /// component strictly inside its box, with `sigma_i` the resolved
    /// magnitude of `w_i` (what the acceptance test measures `w_i`'s rounding
    /// against, see `lcp::acceptance`) and `d_i` its exchange rate; 0 for one
    /// on a bound (exactly there: no equation computes it). `u_i`'s rounding
    /// is of the order of the tolerance times this: a caller that checks the
    /// solution in its own terms (the Newton step's residual) measures with
    /// it, so that it accepts what this solver accepted.
    pub fn multiplier_scales(&mut self, p: &Problem, u: &[f64], out: &mut [f64]) {
        let n = self.n;
        self.gauge.resolve(p, u);
        let sigma = self.gauge.resolved_magnitudes();
        for i in 0..n {
            let inside = u[i] > p.lo[i] && u[i] < p.hi[i];
            let d = self.gauge.rate_at(i, sigma[i]);
            let scale = sigma[i] / d;
            out[i] = if inside && d > 0.0 && scale < f64::INFINITY {
                scale
            } else {
                0.0
            };
        }
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
}

fn info(status: Status, method: Method, residual: f64, iterations: usize) -> Info {
    Info {
        status,
        method,
        residual,
        iterations,
    }
}
