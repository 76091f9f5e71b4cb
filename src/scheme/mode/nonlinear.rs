//! One mode of a nonlinear first-order model: the nonlinear ODE it follows
//! and the guards that end it, for the event-driven scheme.
//!
//! The model is `x' = f(x, u, w, t)`, `y = c(x, u, w, t)` (see [`crate::system::ncs::Ncs`]). As
//! in a linear mode (`scheme::mode::linear`) pinned pairs are their bounds and each
//! free pair holds `y_i = 0`: *algebraically*, `c_i(x, u, w, t) = 0`, when
//! `c_i` reads a free pair (a nonzero entry of `D` or a remainder that reads
//! it), else *through the derivative* (relative degree one),
//! `ċ_i = ∂c_i/∂x f(x, u, w, t) + ∂c_i/∂t = 0`. Those equations `G(u_F) = 0`
//! are solved at every state the integrator asks for by Newton's method on
//! their Jacobian `J` (rows `∂c_i/∂u_F`, or `∂c_i/∂x ∂f/∂u_F`: `∂c_i/∂x`
//! does not read the free pairs, which `c_i` does not read), started from
//! the free pairs at 0 (so that the ODE is a function of the state in the
//! mode, bit for bit, as importers' finite differences require), and from the
//! last solution when that does not converge. Convergence: every `|G_i|` at most [`FREE_TOL`]
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
//!
//! This file holds the workspace, the mode's entry and the ODE's right-hand
//! side; the free pairs' Newton iteration is in `mode_nl/free_pairs.rs`, the
//! guards, the consistency test and the projection in `mode_nl/consistency.rs`,
//! the selection LCP in `mode_nl/selection.rs`, the directional derivatives in
//! `mode_nl/directional.rs`, the kept copy of a mode in `mode_nl/kept.rs`.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp::Bound;
use crate::linalg::Lu;
use crate::model::program::Point;
use crate::scheme::mode::linear::{Guard, SingularMode};
use crate::scheme::StepError;
use crate::system::lcs::Lcs;
use nalgebra::DMatrix;

mod consistency;
mod directional;
mod free_pairs;
mod kept;
mod selection;
use free_pairs::Evaluated;
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

    /// The last solution of the free pairs: where a mode's build starts, and
    /// an evaluation whose start from 0 fails (FMU states carry it).
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

    /// `x' = f(x, u, w, t)` with the pairs `u` given.
    pub fn rate(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &[f64], w: &[f64], out: &mut [f64]) {
        if let Some(ncs) = lcs.nl.as_ref() {
            let at = Point { x, u, w, t };
            ncs.rhs(&at, out, &mut self.fmag);
        }
    }
}
