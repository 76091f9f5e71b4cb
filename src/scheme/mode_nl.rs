//! One mode of a nonlinear first-order model: the nonlinear ODE it follows
//! and the guards that end it, for the event-driven scheme.
//!
//! The model is `x' = f(x, u, w, t)`, `y = c(x, u, w, t)` (see [`crate::ncs::Ncs`]). As
//! in a linear mode (`scheme::mode`) pinned pairs are their bounds and each
//! free pair holds `y_i = 0`: *algebraically*, `c_i(x, u, w, t) = 0`, when
//! `c_i` reads a free pair (a nonzero entry of `D` or a remainder that reads
//! it), else *through the derivative* (relative degree one),
//! `ċ_i = ∂c_i/∂x f(x, u, w, t) + ∂c_i/∂t = 0`. Those equations `G(u_F) = 0`
//! are solved at every state the integrator asks for by Newton's method on
//! their Jacobian `J` (rows `∂c_i/∂u_F`, or `∂c_i/∂x ∂f/∂u_F`: `∂c_i/∂x`
//! does not read the free pairs, which `c_i` does not read), warm-started
//! from the last solution. Convergence: every `|G_i|` at most [`FREE_TOL`]
//! times the magnitude of its terms (`|c_i|₊`, or `Σ_k |∂c_i/∂x_k| |f_k|₊ +
//! |∂c_i/∂t|`), which any change of units scales alike. A singular `J` or no
//! convergence within [`FREE_ITERATIONS`] is a failure: at the mode's entry
//! the mode is not an ODE (time-stepping finishes the step, as for a singular
//! linear mode); inside a step it ends the step with the reason.
//!
//! Guards are those of a linear mode evaluated as nonlinear functions of the
//! state: `±c_i` of a pinned pair, `u_i - lo_i`, `hi_i - u_i` of a free one.
//! What the linear mode reads off its matrices (the guards' rates, their
//! sensitivity to the state, the rows a projection moves along) comes from
//! the linearization at the state: `∂u_F/∂x = -J⁻¹ ∂G/∂x`,
//! `dy/dx = ∂c/∂x + ∂c/∂u_F ∂u_F/∂x`, with the second derivatives of `c`
//! that a sliding pair's `∂G/∂x` would need left out (exact when `c` is
//! linear in the state). Two evaluated states are kept (a step's start and
//! end, asked for in turn by the guard checks); every buffer is sized here.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use super::mode::{Guard, SingularMode, DRIFT_TOL};
use super::StepError;
use crate::lcp::{Bound, Problem};
use crate::lcs::Lcs;
use crate::linalg::Lu;
use crate::model::program::Point;
use nalgebra::DMatrix;

mod directional;
mod free_pairs;
mod kept;
use free_pairs::{Evaluated, Jacobians};
use kept::Kept;

/// Relative tolerance of the free pairs' Newton iteration (module text):
/// four orders above the rounding of the magnitudes it is measured against,
/// far below any tolerance the integrator is given.
pub const FREE_TOL: f64 = 1e-12;
/// Newton iterations for the free pairs at one state before giving up.
pub const FREE_ITERATIONS: usize = 20;

/// The nonlinear ODE and guards of the current mode, with its workspace.
pub struct NonlinearMode {
    active: Vec<Bound>,
    w: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    free: Vec<usize>,
    /// Per pair: held through its derivative (when free).
    derivative: Vec<bool>,
    guards: Vec<Guard>,
    /// The iterate of the free pairs (pinned entries at their bounds), and
    /// what it was before the last build.
    u: Vec<f64>,
    u_entry: Vec<f64>,
    /// The iterate kept aside: the entry's start while a build retries, the
    /// current one while a directional derivative evaluates elsewhere.
    u_held: Vec<f64>,
    /// The iterate before a solve, back after a failed one (a failed
    /// evaluation leaves the warm start as it was).
    u_start: Vec<f64>,
    /// Two evaluated states; `newest` was filled last.
    slots: [Evaluated; 2],
    newest: usize,
    // Workspace of one evaluation.
    c: Vec<f64>,
    cmag: Vec<f64>,
    f: Vec<f64>,
    fmag: Vec<f64>,
    ct: Vec<f64>,
    cx: DMatrix<f64>,
    cu: DMatrix<f64>,
    fx: DMatrix<f64>,
    fu: DMatrix<f64>,
    jac: DMatrix<f64>,
    g: Vec<f64>,
    lu: Lu,
    seq: Vec<usize>,
    rows: Vec<usize>,
    gram: DMatrix<f64>,
    sol: Vec<f64>,
    failure: Option<StepError>,
    /// The mode as a failed Model Exchange event must leave it (`kept.rs`).
    kept: Kept,
}

impl NonlinearMode {
    pub fn new(nx: usize, nu: usize, nw: usize) -> Self {
        let v = |n| vec![0.0; n];
        NonlinearMode {
            active: vec![Bound::Free; nu],
            w: v(nw),
            lo: v(nu),
            hi: v(nu),
            free: Vec::with_capacity(nu),
            derivative: vec![false; nu],
            guards: Vec::with_capacity(2 * nu),
            u: v(nu),
            u_entry: v(nu),
            u_held: v(nu),
            u_start: v(nu),
            slots: [Evaluated::new(nx, nu), Evaluated::new(nx, nu)],
            newest: 0,
            c: v(nu),
            cmag: v(nu),
            f: v(nx),
            fmag: v(nx),
            ct: v(nu),
            cx: DMatrix::zeros(nu, nx),
            cu: DMatrix::zeros(nu, nu),
            fx: DMatrix::zeros(nx, nx),
            fu: DMatrix::zeros(nx, nu),
            jac: DMatrix::zeros(nu, nu),
            g: v(nu),
            lu: Lu::new(nu),
            seq: (0..nu).collect(),
            rows: vec![0; nu],
            gram: DMatrix::zeros(nu, nu),
            sol: v(nu),
            failure: None,
            kept: Kept::new(nu, nw),
        }
    }

    pub fn guards(&self) -> &[Guard] {
        &self.guards
    }

    /// Forgets both evaluated states.
    pub fn forget(&mut self) {
        for s in &mut self.slots {
            s.t = f64::NAN;
        }
    }

    /// Where the free pairs' iteration starts at the next state (the last
    /// solution; FMU states carry it).
    pub fn iterate(&self) -> &[f64] {
        &self.u
    }

    /// Sets the free pairs' starting iterate.
    pub fn warm_start(&mut self, u: &[f64]) {
        self.u.copy_from_slice(u);
        self.forget();
    }

    /// Builds the mode `active` for inputs `w` and solves it at `(t, x)`;
    /// `SingularMode` when its free pairs cannot be solved for there.
    pub fn build(
        &mut self,
        lcs: &Lcs,
        active: &[Bound],
        w: &[f64],
        t: f64,
        x: &[f64],
    ) -> Result<(), SingularMode> {
        let (nx, nu) = (x.len(), active.len());
        self.u_entry.copy_from_slice(&self.u);
        self.active.copy_from_slice(active);
        self.w.copy_from_slice(w);
        self.lo.copy_from_slice(lcs.lo.as_slice());
        self.hi.copy_from_slice(lcs.hi.as_slice());
        self.free.clear();
        self.guards.clear();
        for i in 0..nu {
            match active[i] {
                Bound::Free => self.free.push(i),
                Bound::Lower => self.u[i] = lcs.lo[i],
                Bound::Upper => self.u[i] = lcs.hi[i],
            }
        }
        for &i in &self.free {
            // A free pair that starts at an infinite bound (never, from a
            // selection) starts its iteration at 0.
            if !self.u[i].is_finite() {
                self.u[i] = 0.0;
            }
            let reads = |j: usize| {
                lcs.d[(i, j)] != 0.0 || lcs.nl.as_ref().is_some_and(|n| n.relation_reads(i, nx + j))
            };
            self.derivative[i] = !self.free.iter().any(|&j| reads(j));
        }
        for i in 0..nu {
            match active[i] {
                Bound::Lower => self.guards.push(Guard::LowerY(i)),
                Bound::Upper => self.guards.push(Guard::UpperY(i)),
                Bound::Free => {
                    if lcs.lo[i].is_finite() {
                        self.guards.push(Guard::AboveLo(i));
                    }
                    if lcs.hi[i].is_finite() {
                        self.guards.push(Guard::BelowHi(i));
                    }
                }
            }
        }
        self.forget();
        self.failure = None;
        self.u_held.copy_from_slice(&self.u);
        let mut entered = self.evaluate(lcs, t, x, true);
        if entered.is_err() && self.held_by_derivative_where_algebra_vanishes() {
            // Judged algebraic by structure, but the relation's coefficients
            // of the free pairs are zero here (the buck converter's
            // `(1 - s) iL + s vx` while the switch is open): the row holds
            // `y = 0` through its derivative instead.
            self.u.copy_from_slice(&self.u_held);
            self.forget();
            entered = self.evaluate(lcs, t, x, true);
        }
        match entered {
            Ok(_) => Ok(()),
            Err(_) => {
                // Not an ODE here: the caller lets time-stepping go on (or
                // selects another mode, linearized at the pairs kept here).
                self.u.copy_from_slice(&self.u_entry);
                self.forget();
                Err(SingularMode)
            }
        }
    }

    /// Guard `r` of slot `k`, its rate along `x'`, its row of sensitivities
    /// to the state (as `(pair, of_y, sign)`) and the size of its terms.
    fn guard_parts(&self, k: usize, r: usize) -> (usize, bool, f64, f64) {
        let s = &self.slots[k];
        match self.guards[r] {
            Guard::LowerY(i) => (i, true, 1.0, s.c[i]),
            Guard::UpperY(i) => (i, true, -1.0, -s.c[i]),
            Guard::AboveLo(i) => (i, false, 1.0, s.u[i] - self.lo[i]),
            Guard::BelowHi(i) => (i, false, -1.0, self.hi[i] - s.u[i]),
        }
    }

    fn fail(&mut self, why: StepError) {
        self.failure.get_or_insert(why);
    }

    pub fn take_failure(&mut self) -> Option<StepError> {
        self.failure.take()
    }

    /// `x'` at `(t, x)`; NaN (and a recorded failure) when the free pairs
    /// cannot be solved for.
    pub fn rhs(&mut self, lcs: &Lcs, t: f64, x: &[f64], out: &mut [f64]) {
        match self.evaluate(lcs, t, x, false) {
            Ok(k) => out.copy_from_slice(&self.slots[k].f),
            Err(why) => {
                self.fail(why);
                out.fill(f64::NAN);
            }
        }
    }

    pub fn multipliers(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &mut [f64]) {
        match self.evaluate(lcs, t, x, false) {
            Ok(k) => u.copy_from_slice(&self.slots[k].u),
            Err(why) => {
                self.fail(why);
                u.copy_from_slice(&self.u);
            }
        }
    }

    /// How far the pairs held through their derivative are from `y = 0`,
    /// relative to the magnitude of their terms (at least 1).
    pub fn drift(&mut self, lcs: &Lcs, t: f64, x: &[f64]) -> f64 {
        let Ok(k) = self.evaluate(lcs, t, x, false) else {
            return f64::INFINITY;
        };
        let s = &self.slots[k];
        self.free
            .iter()
            .filter(|&&i| self.derivative[i])
            .map(|&i| s.c[i].abs() / (1.0 + s.cmag[i]))
            .fold(0.0, f64::max)
    }

    pub fn guard(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64]) -> f64 {
        match self.evaluate(lcs, t, x, false) {
            Ok(k) => self.guard_parts(k, r).3,
            Err(why) => {
                self.fail(why);
                f64::NAN
            }
        }
    }

    /// The rounding of guard `r`'s terms and what `atol` on the state
    /// allows it (as `ModeSystem::guard_tolerance`, with the linearization's
    /// sensitivities for the matrix rows).
    pub fn guard_tolerance(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64], atol: f64) -> f64 {
        let Ok(k) = self.evaluate(lcs, t, x, true) else {
            return 0.0;
        };
        let (i, of_y, _, _) = self.guard_parts(k, r);
        let s = &self.slots[k];
        let (size, row) = if of_y {
            (s.cmag[i], &s.cy)
        } else {
            let bound = if matches!(self.guards[r], Guard::AboveLo(_)) {
                self.lo[i]
            } else {
                self.hi[i]
            };
            (s.u[i].abs() + bound.abs(), &s.gu)
        };
        let reach: f64 = (0..row.ncols()).map(|c| row[(i, c)].abs()).sum();
        1e-12 * size + atol * reach + f64::MIN_POSITIVE
    }

    /// Whether the mode describes the motion from `(t, x)`: solvable there,
    /// no drift, every guard nonnegative, a guard at zero not decreasing.
    pub fn consistent(&mut self, lcs: &Lcs, t: f64, x: &[f64], atol: f64) -> bool {
        if self.drift(lcs, t, x) > DRIFT_TOL {
            return false;
        }
        let Ok(k) = self.evaluate(lcs, t, x, true) else {
            return false;
        };
        for r in 0..self.guards.len() {
            let (i, of_y, sign, g) = self.guard_parts(k, r);
            let tol = self.guard_tolerance(lcs, t, r, x, atol);
            if !(g >= -tol) {
                return false;
            }
            if g <= tol {
                let s = &self.slots[k];
                let (row, dt) = if of_y {
                    (&s.cy, s.yt[i])
                } else {
                    (&s.gu, s.ut[i])
                };
                let (mut rate, mut size) = (dt, dt.abs());
                for (c, v) in s.f.iter().enumerate() {
                    rate += row[(i, c)] * v;
                    size += (row[(i, c)] * v).abs();
                }
                if sign * rate < -1e-9 * size {
                    return false;
                }
            }
        }
        true
    }

    /// Moves `x` by the least amount (one Gauss–Newton step on the
    /// linearized constraints) that puts at zero the `y` of each pair held
    /// through its derivative and of each pinned pair whose `y` is zero within
    /// `atol` and stays so (see `ModeSystem::project`).
    pub fn project(&mut self, lcs: &Lcs, t: f64, x: &mut [f64], atol: f64) {
        let Ok(k) = self.evaluate(lcs, t, x, true) else {
            return;
        };
        let (nx, nu) = (x.len(), self.u.len());
        let mut chosen = 0;
        for i in 0..nu {
            let s = &self.slots[k];
            let held = match self.active[i] {
                Bound::Free => self.derivative[i],
                _ => {
                    let (mut rate, mut size, mut reach) = (s.yt[i], s.yt[i].abs(), 0.0);
                    for c in 0..nx {
                        rate += s.cy[(i, c)] * s.f[c];
                        size += (s.cy[(i, c)] * s.f[c]).abs();
                        reach += s.cy[(i, c)].abs();
                    }
                    reach > 0.0
                        && s.c[i].abs() <= atol * reach
                        && rate.abs() <= 1e-12 * size.max(1.0)
                }
            };
            if !held {
                continue;
            }
            self.rows[chosen] = i;
            self.fill_gram(k, chosen + 1, nx);
            if self.lu.factor_block(&self.gram, &self.seq[..chosen + 1]) {
                chosen += 1;
            }
        }
        if chosen == 0 {
            return;
        }
        self.fill_gram(k, chosen, nx);
        if !self.lu.factor_block(&self.gram, &self.seq[..chosen]) {
            return;
        }
        let s = &self.slots[k];
        for a in 0..chosen {
            self.sol[a] = s.c[self.rows[a]];
        }
        self.lu.solve(&mut self.sol[..chosen]);
        for a in 0..chosen {
            let i = self.rows[a];
            for c in 0..nx {
                x[c] -= s.cy[(i, c)] * self.sol[a];
            }
        }
    }

    fn fill_gram(&mut self, k: usize, n: usize, nx: usize) {
        let cy = &self.slots[k].cy;
        for a in 0..n {
            for b in 0..n {
                let (i, j) = (self.rows[a], self.rows[b]);
                self.gram[(a, b)] = (0..nx).map(|c| cy[(i, c)] * cy[(j, c)]).sum();
            }
        }
    }

    /// The selection LCP at `(t, x)`, linearized at the pairs `self.u` (the
    /// last ones solved for, those of the mode the event ends): the step LCP
    /// of a step `delta` to first order, `y ≈ c + c_u (u' - u) + delta (c_x
    /// (f + f_u (u' - u)) + c_t)`, i.e. `M = c_u + delta c_x f_u`; rows whose
    /// `c_u` is zero (relative degree one) divided by `delta`, as in
    /// `ModeSystem::selection`.
    pub fn selection(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        delta: f64,
        p: &mut Problem,
    ) {
        let (nx, nu) = (x.len(), self.u.len());
        self.w.copy_from_slice(w);
        for j in 0..nu {
            if !self.u[j].is_finite() {
                self.u[j] = 0.0;
            }
        }
        self.functions(lcs, t, x, Jacobians::OfPairs);
        for i in 0..nu {
            let relative_degree_one = (0..nu).all(|j| self.cu[(i, j)] == 0.0);
            // c_x (f - f_u u) + c_t, and c - c_u u.
            let (mut rate, mut pos) = (self.ct[i], self.c[i]);
            for k in 0..nx {
                let mut fk = self.f[k];
                for j in 0..nu {
                    fk -= self.fu[(k, j)] * self.u[j];
                }
                rate += self.cx[(i, k)] * fk;
            }
            for j in 0..nu {
                pos -= self.cu[(i, j)] * self.u[j];
                let cxfu: f64 = (0..nx).map(|k| self.cx[(i, k)] * self.fu[(k, j)]).sum();
                p.m[(i, j)] = if relative_degree_one {
                    cxfu
                } else {
                    self.cu[(i, j)] + delta * cxfu
                };
            }
            p.q[i] = if relative_degree_one {
                pos / delta + rate
            } else {
                pos + delta * rate
            };
            p.lo[i] = lcs.lo[i];
            p.hi[i] = lcs.hi[i];
        }
    }

    /// `x' = f(x, u, w, t)` with the pairs `u` given.
    pub fn rate(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &[f64], w: &[f64], out: &mut [f64]) {
        if let Some(ncs) = lcs.nl.as_ref() {
            let at = Point { x, u, w, t };
            ncs.rhs(&at, out, &mut self.fmag);
        }
    }
}
