//! The theta-method on a first-order LCS: one step is one box LCP.
//!
//! With inputs held at `w` over the step and the complementarity implicit at the
//! end of the step,
//! `(I - hθA) x⁺ = (I + h(1-θ)A) x + h(B u⁺ + E w + f)`, `lo <= u⁺ <= hi ⟂ y⁺`.
//! Writing `W = (I - hθA)⁻¹`, the new state is `x⁺ = x_free + hWB u⁺` with
//! `x_free = W(I + h(1-θ)A) x + hW(E w + f)`, and `y⁺ = M u⁺ + q` with
//! `M = D + hCWB`, `q = C x_free + F w + g`.
//!
//! The θ-γ variants (Siconos' `EulerMoreauOSI(theta, gamma)`, see
//! [`ThetaGamma`]) weight the multiplier term: `h(γ B u⁺ + (1-γ) B u)`, where
//! `u` is the previous step's; the previous multipliers then enter `x_free` as
//! inputs held over the step do (the step reads `[w, u]` and `E` gains the
//! columns `(1-γ) B`). The relation at `x_{k+γ_r} = γ_r x⁺ + (1-γ_r) x`
//! replaces `C` by `γ_r C` in `M` and in `q`'s products and adds
//! `(1-γ_r) C x` to `q`. At `γ = γ_r = 1` none of this exists.
//!
//! Everything that depends only on h (the factorization, `M`) is computed when h
//! changes and reused otherwise, so a step costs a few matrix-vector products and
//! a (usually warm-started) LCP solve, and allocates nothing. A step writes its
//! result into the stepper's own buffers; the caller commits it only when the LCP
//! was solved, so a failed step leaves the caller's state untouched.
//!
//! A model whose nonlinear remainders read only `time`, inputs and
//! parameters (sources in time) is stepped here too: each source is one more
//! input column, read at the scheme's evaluation points (`theta/affine/sources.rs`),
//! so its step is one LCP, as a linear model's.
//!
//! This file holds the workspace and the step's dispatch; what changes with
//! h is computed in `theta/affine/prepare.rs`, the step's arithmetic lives in
//! `theta/affine/products.rs`.

mod prepare;
mod products;
mod sources;

use crate::lcp::{self, Problem, Solver};
use crate::linalg::{gemv_acc, Lu};
use crate::model::ThetaGamma;
use crate::scheme::dims::{Dims, Dyn, Fixed, FIXED_LIMIT};
use crate::scheme::{StepError, StepSize};
use crate::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};
use products::{advance, Layout, Products, Vectors};
pub(in crate::scheme) use sources::Sources;

/// The step at run-time or compile-time sizes: [`ThetaStepper::step_in`] for one [`Dims`].
type StepFn = fn(&mut ThetaStepper, &Lcs, &[f64], &[f64], f64) -> Result<lcp::Info, StepError>;

/// Per-instance time-stepping workspace.
pub struct ThetaStepper {
    theta: f64,
    /// The zero-order hold (`method = "zoh"`): the linear part's exact flow
    /// with multipliers, inputs and sources held over the step, in place of
    /// the theta-method (see `theta/affine/prepare.rs`).
    hold: bool,
    /// States, pairs and inputs.
    nx: usize,
    nu: usize,
    nw: usize,
    /// The θ-γ weights (see the module's text).
    gammas: ThetaGamma,
    /// Inputs the step reads: `nw`, plus `nu` when the previous step's
    /// multipliers enter as inputs (`γ < 1`), plus one per source in time.
    nw_step: usize,
    /// Whether the previous step's multipliers are inputs (`γ < 1`).
    carries: bool,
    /// The model's sources in time, when it has any.
    sources: Option<Sources>,
    /// `[w, u, s]` of a step that reads more than the inputs (`u` when
    /// `γ < 1`, `s` the sources); empty otherwise, which is what the step
    /// tests (it is never empty then: `nu >= 1` for any `u`, and a source
    /// has a row).
    w_step: Vec<f64>,
    /// `γ_r C` when `γ_r < 1` (empty otherwise).
    c_rel: DMatrix<f64>,
    step_fn: StepFn,
    size: StepSize,
    lu: Lu,
    /// `W (I + h(1-θ)A)`. This and the next three are built in `prepare`, where
    /// `M` and the step's products are formed from them; the step reads only
    /// `step_data`.
    phi: DMatrix<f64>,
    /// `h W B`.
    gamma: DMatrix<f64>,
    /// `h W E` (and `(1-γ) h W B` beside it when `γ < 1`).
    ew: DMatrix<f64>,
    /// `h W f`.
    fx: DVector<f64>,
    /// The products taken every step, `x_free = phi x + ew w + fx`,
    /// `q = (C phi) x + (C ew + F) w + (C fx + g)` and `gamma`, row-major in
    /// one buffer at the offsets of [`Layout`]: at sizes fixed when compiled
    /// its length and every offset are constants, so the step checks the
    /// buffer's length once and reads the products without further checks.
    step_data: Vec<f64>,
    /// `q` of the step for sizes above the stack's (see `step_in`).
    q_work: Vec<f64>,
    problem: Problem,
    /// Work space for the products above while they are built.
    solver: Solver,
    /// Result of the last step: state, multipliers and `y = M u + q`.
    pub x_next: Vec<f64>,
    pub u_next: Vec<f64>,
    pub y_next: Vec<f64>,
}

impl ThetaStepper {
    /// Buffers for an LCS with `nx` states, `nu` pairs and `nw` inputs.
    pub fn new(nx: usize, nu: usize, nw: usize, theta: f64, gammas: ThetaGamma) -> Self {
        Self::with_sources(nx, nu, nw, theta, gammas, None)
    }

    /// [`ThetaStepper::new`] for a model with sources in time.
    pub(super) fn with_sources(
        nx: usize,
        nu: usize,
        nw: usize,
        theta: f64,
        gammas: ThetaGamma,
        sources: Option<Sources>,
    ) -> Self {
        let carries = gammas.multipliers != 1.0;
        let n_src = sources.as_ref().map_or(0, Sources::len);
        let nw_step = nw + if carries { nu } else { 0 } + n_src;
        let problem = Problem::boxed(
            DMatrix::zeros(nu, nu),
            DVector::zeros(nu),
            DVector::zeros(nu),
            DVector::zeros(nu),
        );
        ThetaStepper {
            theta,
            hold: false,
            nx,
            nu,
            nw,
            gammas,
            nw_step,
            carries,
            sources,
            w_step: if nw_step > nw {
                vec![0.0; nw_step]
            } else {
                Vec::new()
            },
            c_rel: if gammas.relation != 1.0 {
                DMatrix::zeros(nu, nx)
            } else {
                DMatrix::zeros(0, 0)
            },
            step_fn: Self::step_in::<Dyn>,
            size: StepSize::new(),
            lu: Lu::new(nx),
            phi: DMatrix::zeros(nx, nx),
            gamma: DMatrix::zeros(nx, nu),
            ew: DMatrix::zeros(nx, nw_step),
            fx: DVector::zeros(nx),
            step_data: vec![0.0; Layout::of(nx, nu, nw_step).len],
            q_work: vec![0.0; nu],
            problem,
            solver: Solver::new(nu, lcp::Settings::default()),
            x_next: vec![0.0; nx],
            u_next: vec![0.0; nu],
            y_next: vec![0.0; nu],
        }
    }

    /// The zero-order hold in place of the theta-method: the step maps are
    /// the linear part's exact flow, and sources in time are read at the
    /// step's end and held over it, as Siconos' `ZeroOrderHoldOSI` reads `b`.
    pub(super) fn hold(mut self) -> Self {
        self.hold = true;
        self
    }

    /// Sets the LCP's warm start without touching the cached matrices.
    pub fn set_warm_start(&mut self, active: &[lcp::Bound]) {
        self.solver.set_active_set(active);
    }

    /// Forgets the cached matrices; call after the LCS was assembled again.
    pub fn invalidate(&mut self) {
        self.size.invalidate();
    }

    /// The LCP warm start, saved with FMU states so a restored run repeats exactly.
    pub fn active_set(&self) -> &[lcp::Bound] {
        self.solver.active_set()
    }

    /// Forgets the warm start (a new run begins).
    pub fn reset_active_set(&mut self) {
        self.solver.reset_active_set();
        self.size.forget();
    }

    /// The step size whose matrices are cached (NaN when none), for FMU states.
    pub fn cached_step(&self) -> f64 {
        self.size.cached()
    }

    /// Returns to a saved warm start and cached step size; the matrices are rebuilt
    /// on the next step from the same data, so they come out bit-identical.
    pub fn restore(&mut self, cached_step: f64, active_set: &[lcp::Bound]) {
        self.size.restore(cached_step);
        self.solver.set_active_set(active_set);
    }

    /// One step of size `h` from state `x` and multipliers `u` at time `t`
    /// with inputs `w`; the result is in `x_next`, `u_next`, `y_next`. Step
    /// sizes within [`crate::scheme::SAME_STEP`] of the cached one reuse its
    /// matrices. `u` is read only with `γ < 1`, `t` only by sources in time.
    #[inline]
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        if self.w_step.is_empty() {
            (self.step_fn)(self, lcs, x, w, h)
        } else {
            self.step_extended(lcs, x, u, w, t, h)
        }
    }

    /// The step whose inputs are more than the model's: the previous
    /// multipliers (`γ < 1`) and the sources in time come after `w`.
    #[cold]
    #[inline(never)]
    fn step_extended(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let mut w_step = std::mem::take(&mut self.w_step);
        let (nw, nu) = (self.nw, self.nu);
        w_step[..nw].copy_from_slice(&w[..nw]);
        let mut at = nw;
        if self.carries {
            w_step[at..at + nu].copy_from_slice(&u[..nu]);
            at += nu;
        }
        if let (Some(src), Some(ncs)) = (&self.sources, &lcs.nl) {
            // Held sources are read at the step's end (theta 1's weights), as
            // Siconos' ZeroOrderHoldOSI reads its b.
            let weight = if self.hold { 1.0 } else { self.theta };
            src.eval(ncs, weight, (x, u, w), t, h, &mut w_step[at..]);
        }
        let result = (self.step_fn)(self, lcs, x, &w_step, h);
        self.w_step = w_step;
        result
    }

    /// Runs the step at the compile-time sizes `NX`, `NU`, `NW` from now on, when
    /// they are this stepper's (and within [`crate::scheme::dims::FIXED_LIMIT`]); returns whether it
    /// does. The numbers are the same either way (see [`crate::scheme::dims`]).
    pub fn specialize<const NX: usize, const NU: usize, const NW: usize>(&mut self) -> bool {
        // A constant condition first: a large model's FMU never instantiates the step.
        if !Fixed::<NX, NU, NW>::SMALL || !Fixed::<NX, NU, NW>::fits(self.nx, self.nu, self.nw_step)
        {
            return false;
        }
        self.step_fn = Self::step_in::<Fixed<NX, NU, NW>>;
        true
    }

    /// The step, written once for run-time and compile-time sizes.
    fn step_in<D: Dims>(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let d = D::of(self.nx, self.nu, self.nw_step);
        let (nx, nu) = (d.nx(), d.nu());
        let key = self.size.key(h);
        if !self.size.holds(key) {
            self.prepare(lcs, key)?;
        }
        let products = Products::of(d, &self.step_data);
        if nx <= FIXED_LIMIT && nu <= lcp::SMALL {
            // Small sizes work on the stack, then store the results once: at
            // sizes fixed when compiled the vectors stay in registers all the
            // way from the state to the LCP's verdict and the new state, which
            // is what the next step waits on (see `lcp::Solver::solve_with`).
            let (mut xs, mut qs) = ([0.0; FIXED_LIMIT], [0.0; lcp::SMALL]);
            let (mut us, mut ys) = ([0.0; lcp::SMALL], [0.0; lcp::SMALL]);
            let out = Vectors {
                x: &mut xs[..nx],
                q: &mut qs[..nu],
                u: &mut us[..nu],
                y: &mut ys[..nu],
            };
            let result = advance(d, &products, &mut self.solver, &mut self.problem, x, w, out);
            self.x_next[..nx].copy_from_slice(&xs[..nx]);
            self.u_next[..nu].copy_from_slice(&us[..nu]);
            self.y_next[..nu].copy_from_slice(&ys[..nu]);
            result
        } else {
            let out = Vectors {
                x: &mut self.x_next[..nx],
                q: &mut self.q_work[..nu],
                u: &mut self.u_next[..nu],
                y: &mut self.y_next[..nu],
            };
            advance(d, &products, &mut self.solver, &mut self.problem, x, w, out)
        }
    }

    /// Moves the result of the last step into `x` and `u` (by swapping buffers:
    /// the step path copies nothing it does not have to).
    #[inline]
    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        std::mem::swap(x, &mut self.x_next);
        std::mem::swap(u, &mut self.u_next);
    }

    /// The LCP matrix `M = D + hCWB` of a step of size `h` (for inspection).
    pub fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError> {
        self.prepare(lcs, h)?;
        Ok(self.problem.m.clone())
    }

    /// The multipliers consistent with `x` and `w` at time `t` (`h = 0`,
    /// `M = D`): the values the FMU reports before its first step.
    pub fn consistent_multipliers(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        t: f64,
    ) -> Result<lcp::Info, StepError> {
        let p = &mut self.problem;
        p.m.copy_from(&lcs.d);
        p.lo.copy_from(&lcs.lo);
        p.hi.copy_from(&lcs.hi);
        let q = p.q.as_mut_slice();
        q.copy_from_slice(lcs.g.as_slice());
        gemv_acc(q, &lcs.c, x);
        gemv_acc(q, &lcs.fw, w);
        if let (Some(src), Some(ncs)) = (&self.sources, &lcs.nl) {
            // The relation's sources at t, in `q_work` (a buffer of `nu`
            // entries, at least as many as the relation's sources).
            let r = &mut self.q_work[..src.c_rows().len()];
            src.relation_at(ncs, (x, &self.u_next, w), t, r);
            for (&row, v) in src.c_rows().iter().zip(r.iter()) {
                q[row] += v;
            }
        }
        self.solver.matrix_changed();
        self.size.invalidate();
        let info = self
            .solver
            .solve(&self.problem, &mut self.u_next, &mut self.y_next);
        self.solver.matrix_changed();
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }
        Ok(info)
    }
}
