//! Box MCPs with a band matrix, solved by block principal pivoting.
//!
//! Long chains (hundreds to thousands of contacts, each touching only its
//! neighbours) give an LCP matrix with a narrow band, where the dense solver's
//! `O(n^3)` cold start and `O(n^2)` memory do not scale. Here an active set is
//! solved with one band LU (`BandLu`, `O(n kl ku)`), the candidate is checked
//! for infeasible components, and all of them are flipped at once while their
//! number decreases (Júdice–Pires), falling back to Murty's least-index single
//! flip, which terminates for P-matrices. A start that has not converged
//! after a few solves is abandoned once for the all-free start (loads that
//! must travel along a chain would otherwise take one iteration per contact).
//! A step that keeps its active set reuses the cached factors and costs
//! `O(n (kl + ku))`; a changed one is refactored from its first changed row.
//! When the stored active set fails on a tridiagonal Z-matrix (a chain along a
//! line) the monotone sweep (`sweep.rs`) gives the answer's active set in `O(n)`
//! instead of flips. When pivoting fails
//! on a small problem (e.g. a friction LCP, not a P-matrix) the dense
//! [`Solver`] takes over on preallocated copies. Every answer goes through the
//! same acceptance test as the dense path (`acceptance::judge`).

mod pivot;
mod problem;

pub use problem::BandProblem;

use super::acceptance::{self, clamp_to_box, judge};
use super::band::BandLu;
use super::problem::entry_ok;
use super::sweep::Sweep;
use super::{Bound, Info, Method, Problem, Settings, Solver, Status};
use nalgebra::{DMatrix, DVector};

/// Largest problem for which the dense fallback is kept (its Lemke tableau
/// has about `8 n^2` entries).
pub const DENSE_FALLBACK_LIMIT: usize = 256;

/// How block pivoting ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// No infeasible component left; the candidate is in `u`/`w`.
    Converged,
    /// A factorization met a tiny or non-finite pivot, or the candidate was
    /// not finite.
    Singular,
    /// The iteration budget ran out.
    Budget,
}

/// Dense copies for problems the band path cannot finish.
#[derive(Clone, Debug)]
struct Fallback {
    p: Problem,
    solver: Solver,
}

/// Allocation-free block principal pivoting solver for band box MCPs of one
/// size and bandwidth.
#[derive(Clone, Debug)]
pub struct BandSolver {
    n: usize,
    kl: usize,
    ku: usize,
    settings: Settings,
    /// The active set the next warm start tries.
    active: Vec<Bound>,
    /// The active set being iterated on (copied to `active` on success only).
    trial: Vec<Bound>,
    /// `Bound::default_for` each component's bounds as seen in the last solve.
    defaults: Vec<Bound>,
    lu: BandLu,
    /// Active set whose free/pinned pattern `lu` factors (Lower and Upper pin
    /// the same rows, so only the pattern matters).
    key: Vec<Bound>,
    /// Whether `lu` holds a successful factorization of the current matrix.
    cached: bool,
    /// The exchange rates of the current matrix (`acceptance`), and whether
    /// they are.
    rate: Vec<f64>,
    rates_fresh: bool,
    /// Zeros: band rows take no width-based rate (see `Band::rates`).
    per_width: Vec<f64>,
    /// Magnitudes of the candidate's `w`, resolved ones with the scales of
    /// `u` they are made of, and how far the clamp moved its `u` (`acceptance`).
    mag: Vec<f64>,
    sigma: Vec<f64>,
    scale: Vec<f64>,
    out: Vec<f64>,
    factorizations: u64,
    /// The monotone sweep for tridiagonal Z-matrix problems.
    sweep: Sweep,
    dense: Option<Fallback>,
}

impl BandSolver {
    /// Allocates all workspace for problems of order `n` whose band fits in
    /// `kl` sub- and `ku` super-diagonals, plus the dense fallback when
    /// `n <= DENSE_FALLBACK_LIMIT`. The initial active set is all `Lower`
    /// (right for a standard LCP).
    pub fn new(n: usize, kl: usize, ku: usize, settings: Settings) -> Self {
        let dense = (n <= DENSE_FALLBACK_LIMIT).then(|| Fallback {
            p: Problem::lcp(DMatrix::zeros(n, n), DVector::zeros(n)),
            solver: Solver::new(n, dense_settings(settings)),
        });
        BandSolver {
            n,
            kl,
            ku,
            settings,
            active: vec![Bound::Lower; n],
            trial: vec![Bound::Lower; n],
            defaults: vec![Bound::Lower; n],
            lu: BandLu::new(n, kl, ku),
            key: vec![Bound::Lower; n],
            cached: false,
            rate: vec![0.0; n],
            rates_fresh: false,
            per_width: vec![0.0; n],
            mag: vec![0.0; n],
            sigma: vec![0.0; n],
            scale: vec![0.0; n],
            out: vec![0.0; n],
            factorizations: 0,
            sweep: Sweep::new(n),
            dense,
        }
    }

    /// Problem order this solver was built for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Current settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Replaces the settings (takes effect at the next solve; the dense
    /// fallback gets them too, with its automatic Lemke budget).
    pub fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
        if let Some(fb) = self.dense.as_mut() {
            fb.solver.set_settings(dense_settings(settings));
        }
    }

    /// Must be called whenever `M` changes: drops the cached factorization.
    /// The active set is kept. Bounds and `q` may change freely without it.
    pub fn matrix_changed(&mut self) {
        self.cached = false;
        self.rates_fresh = false;
    }

    /// The active set the next warm start will try.
    pub fn active_set(&self) -> &[Bound] {
        &self.active
    }

    /// Restores an active set (e.g. from an FMU state snapshot). Ignored when
    /// `s.len() != n`; entries naming an infinite bound are replaced by the
    /// component's default at the next solve.
    pub fn set_active_set(&mut self, s: &[Bound]) {
        if s.len() == self.n {
            self.active.copy_from_slice(s);
        }
    }

    /// Sets each component to `Bound::default_for` its bounds as seen in the
    /// last solve (all `Lower` before the first).
    pub fn reset_active_set(&mut self) {
        self.active.copy_from_slice(&self.defaults);
    }

    /// Band LU factorizations done so far (a warm step that keeps its
    /// active set does none).
    pub fn factorizations(&self) -> u64 {
        self.factorizations
    }

    /// Solves `p`, writing `u` and `w = M u + q`. Never allocates and never
    /// panics. On `Status::Solved` the pair is verified exactly as by
    /// [`Solver::solve`] and the active set is updated; otherwise `u` and `w`
    /// are NaN and the active set is left alone. The band path cannot prove
    /// infeasibility: without the dense fallback a failure is
    /// `NumericalFailure` (singular block, non-finite numbers, a candidate
    /// that failed verification) or `MaxIterations`. The method is
    /// `WarmStart` when the stored active set verified at once, else
    /// `BlockPivot`, and `Info::iterations` counts active-set solves; when the
    /// dense fallback ran, its status, method and count are reported.
    pub fn solve(&mut self, p: &BandProblem, u: &mut [f64], w: &mut [f64]) -> Info {
        if !self.sizes_ok(p, u, w) {
            u.fill(f64::NAN);
            w.fill(f64::NAN);
            return info(Status::InvalidProblem, Method::None, f64::NAN, 0);
        }
        self.start(p);
        if self.n == 0 {
            return info(Status::Solved, Method::None, 0.0, 0);
        }
        if !self.rates_fresh {
            p.m.rates(&mut self.rate);
            self.rates_fresh = true;
        }
        let tol = self.settings.tol;
        let (outcome, solves) = self.pivot(p, u, w);
        let mut best = f64::NAN;
        if outcome == Outcome::Converged {
            // The shared acceptance test, on the clamped candidate. Pivoting
            // left `w` and its magnitudes computed from the unclamped one, which
            // in the common step lies in the box: they are recomputed only
            // when the clamp moved it (the same product, so the same bits).
            if clamp_to_box(&p.lo, &p.hi, u, &mut self.out) {
                p.m.mul_add_magnitudes(u, &p.q, w, &mut self.mag);
            }
            let (rates, out) = ((&self.rate[..], &self.per_width[..]), &self.out);
            let (mut ok, mut r) = judge(&p.lo, &p.hi, rates, u, w, &self.mag, out, tol);
            if !ok && !r.is_nan() {
                // The second form of the test (`acceptance`).
                let (scale, sigma) = (&mut self.scale, &mut self.sigma);
                let box_u = (&p.lo[..], &p.hi[..], &u[..]);
                p.m.resolution_with(&self.rate, &self.mag, box_u, scale, sigma);
                (ok, r) = judge(&p.lo, &p.hi, rates, u, w, &self.sigma, out, tol);
            }
            if ok {
                self.active.copy_from_slice(&self.trial);
                let method = if solves == 1 && self.settings.warm_start {
                    Method::WarmStart
                } else {
                    Method::BlockPivot
                };
                return info(Status::Solved, method, r, solves);
            }
            best = r;
        }
        if let Some(fb) = self.dense.as_mut() {
            copy_to_dense(p, &mut fb.p);
            // Bounds may have changed too, which the dense cache keys on.
            fb.solver.matrix_changed();
            fb.solver.set_active_set(&self.active);
            let mut r = fb.solver.solve(&fb.p, u, w);
            if r.status == Status::Solved {
                p.m.magnitudes(u, &p.q, &mut self.mag);
                let (scale, sigma) = (&mut self.scale, &mut self.sigma);
                let box_u = (&p.lo[..], &p.hi[..], &u[..]);
                p.m.resolution_with(&self.rate, &self.mag, box_u, scale, sigma);
                let (rates, sigma) = ((&self.rate[..], &self.per_width[..]), &self.sigma);
                acceptance::classify(&p.lo, &p.hi, rates, u, sigma, tol, &mut self.active);
            } else {
                r.residual = best.min(r.residual);
            }
            return r;
        }
        let status = match outcome {
            Outcome::Budget => Status::MaxIterations,
            Outcome::Singular | Outcome::Converged => Status::NumericalFailure,
        };
        u.fill(f64::NAN);
        w.fill(f64::NAN);
        info(status, Method::BlockPivot, best, solves)
    }

    /// The cheap per-call check: sizes, band within the workspace, finite
    /// `q`, sane bounds.
    fn sizes_ok(&self, p: &BandProblem, u: &[f64], w: &[f64]) -> bool {
        let n = self.n;
        let sizes = p.m.n() == n
            && p.m.kl() <= self.kl
            && p.m.ku() <= self.ku
            && p.q.len() == n
            && p.lo.len() == n
            && p.hi.len() == n
            && u.len() == n
            && w.len() == n;
        sizes && (0..n).all(|i| entry_ok(p.q[i], p.lo[i], p.hi[i]))
    }

    /// Records the defaults for these bounds and loads the starting active
    /// set into `trial`: the stored one where its pinned side exists, else
    /// the default; a fixed component (`lo == hi`) is always `Lower`.
    fn start(&mut self, p: &BandProblem) {
        let warm = self.settings.warm_start;
        for i in 0..self.n {
            let (lo, hi) = (p.lo[i], p.hi[i]);
            let d = Bound::default_for(lo, hi);
            self.defaults[i] = d;
            let b = self.active[i];
            self.trial[i] = if lo == hi {
                Bound::Lower
            } else if warm && b.allowed(lo, hi) {
                b
            } else {
                d
            };
        }
    }
}

/// The dense fallback's settings: the pivot budget counts block iterations
/// here and Lemke pivots there, so the fallback keeps its automatic one.
fn dense_settings(settings: Settings) -> Settings {
    Settings {
        max_pivots: 0,
        ..settings
    }
}

/// Copies `p` into the preallocated dense problem `d` of the same order.
fn copy_to_dense(p: &BandProblem, d: &mut Problem) {
    p.m.copy_to_dense(&mut d.m);
    d.q.as_mut_slice().copy_from_slice(&p.q);
    d.lo.as_mut_slice().copy_from_slice(&p.lo);
    d.hi.as_mut_slice().copy_from_slice(&p.hi);
}

fn info(status: Status, method: Method, residual: f64, iterations: usize) -> Info {
    Info {
        status,
        method,
        residual,
        iterations,
    }
}
