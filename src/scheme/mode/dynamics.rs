//! What the event-driven scheme asks of a mode and of the time-stepping that
//! finishes what events cannot do: the two traits its stepper is generic over.
//!
//! [`ModeDynamics`] is one mode (an active set) as an ODE with guards: built
//! at a state, its right-hand side, the multipliers it implies, its guards
//! and how to enter it (consistency, projection onto its constraints, the
//! selection LCP at an event). Two kinds implement it: the linear
//! [`ModeSystem`] (the ODE `x' = Ã x + b̃`, autonomous while the inputs are
//! held) and the nonlinear [`NonlinearMode`]
//! (free pairs from a Newton iteration, sources in `time`). The stepper is
//! compiled once per kind, so a linear model runs the linear mode's code with
//! nothing added: the arguments only a nonlinear mode reads (`lcs` for its
//! programs, the time, the state at `build`) are dropped by the thin wrappers
//! below, which inline.
//!
//! [`Fallback`] is the one time step that finishes a communication step after
//! an accumulation or in a mode that cannot be followed: the linear
//! theta-method for a linear model, the Newton–Josephy step for a nonlinear one.

use crate::lcp::{self, Bound, Problem};
use crate::scheme::mode::linear::{Guard, ModeSystem, SingularMode};
use crate::scheme::mode::nonlinear::NonlinearMode;
use crate::scheme::{NewtonStepper, StepError, ThetaStepper};
use crate::system::lcs::Lcs;
use nalgebra::DMatrix;

/// One mode of the event-driven scheme (see the module's text). `t` is the
/// absolute time; a linear mode ignores it.
pub trait ModeDynamics {
    /// Builds the mode `active` for inputs `w`, entered at state `x` at `t`.
    fn build(
        &mut self,
        lcs: &Lcs,
        active: &[Bound],
        w: &[f64],
        t: f64,
        x: &[f64],
    ) -> Result<(), SingularMode>;
    /// Whether the mode describes the motion from `x` (see `ModeSystem::consistent`).
    fn consistent(&mut self, lcs: &Lcs, t: f64, x: &[f64], atol: f64) -> bool;
    /// Moves `x` onto the constraints the mode holds (see `ModeSystem::project`).
    fn project(&mut self, lcs: &Lcs, t: f64, x: &mut [f64], atol: f64);
    /// `x'` at `(t, x)` into `out`.
    fn rhs(&mut self, lcs: &Lcs, t: f64, x: &[f64], out: &mut [f64]);
    /// The pairs at `(t, x)`.
    fn multipliers(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &mut [f64]);
    /// How far the pairs held through their derivative are from `y = 0`.
    fn drift(&mut self, lcs: &Lcs, t: f64, x: &[f64]) -> f64;
    /// The guards of the mode, in the order `guard` numbers them.
    fn guard_list(&self) -> &[Guard];
    /// Guard `r` at `(t, x)`.
    fn guard(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64]) -> f64;
    /// How negative guard `r` may be at `(t, x)` and count as zero.
    fn guard_tolerance(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64], atol: f64) -> f64;
    /// The mode-selection LCP at `(t, x)` (see `ModeSystem::selection`) of a
    /// step of at most `delta`; returns the step it took (see
    /// [`selection_step`](crate::scheme::mode::selection_step)).
    fn selection(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        delta: f64,
        p: &mut Problem,
    ) -> f64;
    /// `x'` at `(t, x)` with the pairs `u` given (the selection step).
    fn rate(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &[f64], w: &[f64], out: &mut [f64]);
    /// Forgets what belongs to the last assembly.
    fn invalidate(&mut self);
    /// Where the free pairs' iteration starts at the next evaluation (the
    /// step's multipliers, which FMU states carry).
    fn warm_start(&mut self, u: &[f64]);
    /// Why the right-hand side could not be evaluated since the last call, if
    /// it could not (a linear mode always can).
    fn take_failure(&mut self) -> Option<StepError>;
    /// The first jump of a source in time after `ta` up to `tb`, bracketed by
    /// adjacent times (a linear mode has no sources in time).
    fn next_time_jump(&self, lcs: &Lcs, ta: f64, tb: f64) -> Option<(f64, f64)>;
}

impl ModeDynamics for ModeSystem {
    #[inline(always)]
    fn build(
        &mut self,
        lcs: &Lcs,
        active: &[Bound],
        w: &[f64],
        _t: f64,
        _x: &[f64],
    ) -> Result<(), SingularMode> {
        ModeSystem::build(self, lcs, active, w)
    }
    #[inline(always)]
    fn consistent(&mut self, _lcs: &Lcs, _t: f64, x: &[f64], atol: f64) -> bool {
        ModeSystem::consistent(self, x, atol)
    }
    #[inline(always)]
    fn project(&mut self, _lcs: &Lcs, _t: f64, x: &mut [f64], atol: f64) {
        ModeSystem::project(self, x, atol)
    }
    #[inline(always)]
    fn rhs(&mut self, _lcs: &Lcs, _t: f64, x: &[f64], out: &mut [f64]) {
        ModeSystem::rhs(self, x, out)
    }
    #[inline(always)]
    fn multipliers(&mut self, _lcs: &Lcs, _t: f64, x: &[f64], u: &mut [f64]) {
        ModeSystem::multipliers(self, x, u)
    }
    #[inline(always)]
    fn drift(&mut self, _lcs: &Lcs, _t: f64, x: &[f64]) -> f64 {
        ModeSystem::drift(self, x)
    }
    #[inline(always)]
    fn guard_list(&self) -> &[Guard] {
        &self.guards
    }
    #[inline(always)]
    fn guard(&mut self, _lcs: &Lcs, _t: f64, r: usize, x: &[f64]) -> f64 {
        ModeSystem::guard(self, r, x)
    }
    #[inline(always)]
    fn guard_tolerance(&mut self, _lcs: &Lcs, _t: f64, r: usize, x: &[f64], atol: f64) -> f64 {
        ModeSystem::guard_tolerance(self, r, x, atol)
    }
    #[inline(always)]
    fn selection(
        &mut self,
        lcs: &Lcs,
        _t: f64,
        x: &[f64],
        w: &[f64],
        delta: f64,
        p: &mut Problem,
    ) -> f64 {
        ModeSystem::selection(self, lcs, x, w, delta, p)
    }
    #[inline(always)]
    fn rate(&mut self, lcs: &Lcs, _t: f64, x: &[f64], u: &[f64], w: &[f64], out: &mut [f64]) {
        // `out = A x + B u + E w + f`.
        crate::linalg::gemv_from(out, lcs.f.as_slice(), &lcs.a, x);
        crate::linalg::gemv_acc(out, &lcs.b, u);
        crate::linalg::gemv_acc(out, &lcs.e, w);
    }
    #[inline(always)]
    fn invalidate(&mut self) {
        ModeSystem::invalidate(self)
    }
    #[inline(always)]
    fn warm_start(&mut self, _u: &[f64]) {}
    #[inline(always)]
    fn take_failure(&mut self) -> Option<StepError> {
        None
    }
    #[inline(always)]
    fn next_time_jump(&self, _lcs: &Lcs, _ta: f64, _tb: f64) -> Option<(f64, f64)> {
        None
    }
}

/// The time step that finishes a communication step (see the module's text).
pub trait Fallback {
    /// One step of size `h` from `(x, u)` at `t` with inputs `w`.
    fn finish(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError>;
    /// The state and multipliers of the last step.
    fn result(&self) -> (&[f64], &[f64]);
    fn active_set(&self) -> &[Bound];
    fn invalidate(&mut self);
    fn reset_active_set(&mut self);
    /// The LCP matrix of a step of size `h` (for inspection).
    fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError>;
}

impl Fallback for ThetaStepper {
    fn finish(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        self.step(lcs, x, u, w, t, h)
    }
    fn result(&self) -> (&[f64], &[f64]) {
        (&self.x_next, &self.u_next)
    }
    fn active_set(&self) -> &[Bound] {
        ThetaStepper::active_set(self)
    }
    fn invalidate(&mut self) {
        ThetaStepper::invalidate(self)
    }
    fn reset_active_set(&mut self) {
        ThetaStepper::reset_active_set(self)
    }
    fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError> {
        ThetaStepper::lcp_matrix(self, lcs, h)
    }
}

impl Fallback for NewtonStepper {
    fn finish(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        // The event-driven stretches between these steps move the state:
        // no trend runs from one to the next.
        self.step_alone(lcs, x, u, w, t, h)
    }
    fn result(&self) -> (&[f64], &[f64]) {
        (&self.x_next, &self.u_next)
    }
    fn active_set(&self) -> &[Bound] {
        NewtonStepper::active_set(self)
    }
    fn invalidate(&mut self) {
        NewtonStepper::invalidate(self)
    }
    fn reset_active_set(&mut self) {
        NewtonStepper::reset_active_set(self)
    }
    fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError> {
        // From the zero state at t = 0, as `Stepper::lcp_matrix` asks the
        // time-stepping Newton step (inspection only: allocating is fine).
        let (x, w) = (vec![0.0; lcs.a.nrows()], vec![0.0; lcs.e.ncols()]);
        NewtonStepper::lcp_matrix(self, lcs, &x, &w, h)
    }
}

impl ModeDynamics for NonlinearMode {
    fn build(
        &mut self,
        lcs: &Lcs,
        active: &[Bound],
        w: &[f64],
        t: f64,
        x: &[f64],
    ) -> Result<(), SingularMode> {
        NonlinearMode::build(self, lcs, active, w, t, x)
    }
    fn consistent(&mut self, lcs: &Lcs, t: f64, x: &[f64], atol: f64) -> bool {
        NonlinearMode::consistent(self, lcs, t, x, atol)
    }
    fn project(&mut self, lcs: &Lcs, t: f64, x: &mut [f64], atol: f64) {
        NonlinearMode::project(self, lcs, t, x, atol)
    }
    fn rhs(&mut self, lcs: &Lcs, t: f64, x: &[f64], out: &mut [f64]) {
        NonlinearMode::rhs(self, lcs, t, x, out)
    }
    fn multipliers(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &mut [f64]) {
        NonlinearMode::multipliers(self, lcs, t, x, u)
    }
    fn drift(&mut self, lcs: &Lcs, t: f64, x: &[f64]) -> f64 {
        NonlinearMode::drift(self, lcs, t, x)
    }
    fn guard_list(&self) -> &[Guard] {
        self.guards()
    }
    fn guard(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64]) -> f64 {
        NonlinearMode::guard(self, lcs, t, r, x)
    }
    fn guard_tolerance(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64], atol: f64) -> f64 {
        NonlinearMode::guard_tolerance(self, lcs, t, r, x, atol)
    }
    fn selection(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        delta: f64,
        p: &mut Problem,
    ) -> f64 {
        NonlinearMode::selection(self, lcs, t, x, w, delta, p)
    }
    fn rate(&mut self, lcs: &Lcs, t: f64, x: &[f64], u: &[f64], w: &[f64], out: &mut [f64]) {
        NonlinearMode::rate(self, lcs, t, x, u, w, out)
    }
    fn invalidate(&mut self) {
        self.forget()
    }
    fn warm_start(&mut self, u: &[f64]) {
        NonlinearMode::warm_start(self, u)
    }
    fn take_failure(&mut self) -> Option<StepError> {
        NonlinearMode::take_failure(self)
    }
    fn next_time_jump(&self, lcs: &Lcs, ta: f64, tb: f64) -> Option<(f64, f64)> {
        lcs.nl.as_ref()?.next_time_jump(ta, tb)
    }
}
