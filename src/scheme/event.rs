//! Event-driven integration of a first-order model, with zero-crossing location.
//!
//! The classical alternative to time-stepping (zero-crossing slides): in each
//! mode (an active set, see `scheme::mode`) the system is an ODE (a
//! linear one for a linear model, a nonlinear one with sources in `time`
//! for a nonlinear model, see [`mode_nl`](super::mode_nl); the stepper is
//! generic over the two, see `scheme::dynamics`),
//! integrated with an embedded Runge–Kutta pair and step-size control;
//! after each accepted step the mode's guards are checked for a sign change,
//! the earliest one is located on the step's cubic Hermite interpolant with
//! Brent's method, the state is moved there, and the next mode is selected.
//! Jumps of sources in time (`step`, `floor`, `frac` of `time`, see
//! [`crate::model::time_jumps`]) are time events: a step ends on the old side
//! of the next one and integration goes on from its new side.
//!
//! The next mode is first the one the fired guard suggests (its pair moves
//! to the other side), kept when it describes the motion (see
//! `ModeSystem::consistent`). Otherwise a *selection LCP* decides, warm-started
//! from the old mode: the step LCP of a step of [`SELECT_STEP`] to first order,
//! which is the `h -> 0` problem `M = D` on rows whose `D` is not zero, and, on
//! rows of relative degree one (`D = 0`, `y` about zero at the event), divided
//! by the step, the LCP on the derivatives with `C B` that decides crossing,
//! sliding (a free pair keeping `y = 0`, as the relay's sliding mode) or
//! sticking (see `ModeSystem::selection`). Entering a mode projects the state
//! onto the constraints it holds (`ModeSystem::project`).
//!
//! Events that accumulate (more than `max_events_per_step` in one
//! communication step, or two closer than [`EVENT_FLOOR`]), or a mode that is
//! not an ODE (a singular equation for its free pairs), end event-driven
//! integration for the rest of the communication step, which time-stepping
//! (the model's theta-method, one step; the Newton–Josephy step for a
//! nonlinear model) finishes: the sign spiral lands on its origin instead of
//! hanging. The report of each step says so.

mod report;
mod switching;

pub use report::{EventLog, StepReport};

use super::dynamics::{Fallback, ModeDynamics};
use super::mode::{Guard, ModeSystem};
use super::mode_nl::NonlinearMode;
use super::rk::{error_norm, hermite, next_step, Stages};
use super::{tidy, NewtonStats, NewtonStepper, StepError, ThetaStepper};
use crate::lcp::{self, Bound, Problem, Solver};
use crate::lcs::Lcs;
use crate::model::{EventSettings, ThetaGamma};
use nalgebra::{DMatrix, DVector};

/// Step of the selection LCP: far below any step the integrator takes, far
/// above the time to which events are located.
pub const SELECT_STEP: f64 = 1e-8;

/// Two events closer than this (relative to the communication step, at
/// least this absolute) count as an accumulation.
pub const EVENT_FLOOR: f64 = 1e-10;

/// Events are located to this (times the communication step, at least this absolute).
pub const EVENT_TOL: f64 = 1e-13;

/// How many recent modes a report keeps to name an accumulation's cycle.
pub const CYCLE: usize = 4;

/// The event-driven scheme on a nonlinear first-order model.
pub type NonlinearEventStepper = EventStepper<NonlinearMode, NewtonStepper>;

/// Per-instance workspace of the event-driven scheme, over a mode kind `M`
/// with the time-stepping `B` that finishes what events cannot do.
pub struct EventStepper<M = ModeSystem, B = ThetaStepper> {
    settings: EventSettings,
    mode: M,
    active: Vec<Bound>,
    /// The mode at the start of the step, and before the last event.
    previous: Vec<Bound>,
    previous_event_mode: Vec<Bound>,
    /// The mode-selection LCP (see `ModeSystem::selection`) and its solver.
    select: Problem,
    select_solver: Solver,
    select_u: Vec<f64>,
    select_y: Vec<f64>,
    /// Time-stepping for what events cannot do.
    fallback: B,
    stages: Stages,
    x: Vec<f64>,
    f0: Vec<f64>,
    x1: Vec<f64>,
    f1: Vec<f64>,
    xe: Vec<f64>,
    /// The step the controller proposes next (NaN before the first).
    h_next: f64,
    pub log: EventLog,
    pub x_next: Vec<f64>,
    pub u_next: Vec<f64>,
    /// Stop at each located event instead of changing mode inside the step
    /// (an FMI 3.0 importer with event mode and early return handles it).
    stop_at_events: bool,
    /// The guard that fired at the event the last step stopped at; the mode
    /// changes when [`EventStepper::update_mode`] handles it.
    pending: Option<Guard>,
}

impl EventStepper {
    pub fn new(nx: usize, nu: usize, nw: usize, theta: f64, settings: EventSettings) -> Self {
        let mode = ModeSystem::new(nx, nu, nw);
        let fallback = ThetaStepper::new(nx, nu, nw, theta, ThetaGamma::default());
        EventStepper::with(mode, fallback, nx, nu, settings)
    }
}

impl NonlinearEventStepper {
    pub fn nonlinear(nx: usize, nu: usize, nw: usize, theta: f64, settings: EventSettings) -> Self {
        let mode = NonlinearMode::new(nx, nu, nw);
        let fallback = NewtonStepper::new(nx, nu, nw, theta);
        EventStepper::with(mode, fallback, nx, nu, settings)
    }

    /// What the Newton iterations of the time-stepping fallback took since
    /// initialization (the steps it finished, where events accumulate or a
    /// mode cannot be followed).
    pub fn newton_stats(&self) -> &NewtonStats {
        &self.fallback.stats
    }
}

impl<M: ModeDynamics, B: Fallback> EventStepper<M, B> {
    fn with(mode: M, fallback: B, nx: usize, nu: usize, settings: EventSettings) -> Self {
        EventStepper {
            settings,
            mode,
            active: vec![Bound::Free; nu],
            previous: vec![Bound::Free; nu],
            previous_event_mode: vec![Bound::Free; nu],
            select: Problem::boxed(
                DMatrix::zeros(nu, nu),
                DVector::zeros(nu),
                DVector::zeros(nu),
                DVector::zeros(nu),
            ),
            // A tight acceptance: what decides a mode here are changes of the
            // order of the selection step, next to entries of any size.
            select_solver: Solver::new(
                nu,
                lcp::Settings {
                    tol: 1e-13,
                    ..lcp::Settings::default()
                },
            ),
            select_u: vec![0.0; nu],
            select_y: vec![0.0; nu],
            fallback,
            stages: Stages::new(nx),
            x: vec![0.0; nx],
            f0: vec![0.0; nx],
            x1: vec![0.0; nx],
            f1: vec![0.0; nx],
            xe: vec![0.0; nx],
            h_next: f64::NAN,
            log: EventLog::new(nu),
            x_next: vec![0.0; nx],
            u_next: vec![0.0; nu],
            stop_at_events: false,
            pending: None,
        }
    }

    /// Whether steps stop at located events (see [`EventStepper::update_mode`]).
    pub fn set_stop_at_events(&mut self, on: bool) {
        self.stop_at_events = on;
        self.pending = None;
    }

    pub fn invalidate(&mut self) {
        self.mode.invalidate();
        self.fallback.invalidate();
    }

    pub fn active_set(&self) -> &[Bound] {
        &self.active
    }

    pub fn reset_active_set(&mut self) {
        self.select_solver.reset_active_set();
        self.fallback.reset_active_set();
        self.active.fill(Bound::Free);
        self.h_next = f64::NAN;
    }

    /// The proposed next step size, saved with FMU states.
    pub fn cached_step(&self) -> f64 {
        self.h_next
    }

    pub fn restore(&mut self, h_next: f64, active: &[Bound]) {
        self.h_next = h_next;
        self.pending = None;
        if active.len() == self.active.len() {
            self.active.copy_from_slice(active);
        }
        self.invalidate();
    }

    /// The time-stepping LCP matrix of a step of size `h` (for inspection).
    pub fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError> {
        self.fallback.lcp_matrix(lcs, h)
    }

    /// Moves the result of the last step into `x` and `u` (by swapping buffers).
    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        std::mem::swap(x, &mut self.x_next);
        std::mem::swap(u, &mut self.u_next);
    }

    /// The multipliers consistent with `x` and `w` at time `t`: those of
    /// the mode selected there.
    pub fn consistent_multipliers(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        t: f64,
    ) -> Result<lcp::Info, StepError> {
        self.x.copy_from_slice(x);
        if !self.select_mode(lcs, w, t)? {
            return Err(StepError::SingularMode);
        }
        self.mode.multipliers(lcs, t, x, &mut self.u_next);
        if let Some(why) = self.mode.take_failure() {
            return Err(why);
        }
        Ok(solved())
    }

    /// Integrates from `x` (multipliers `u`, which a nonlinear mode's
    /// iteration starts from) at time `t0` over a communication step of size
    /// `big_h` with the inputs `w` held; the result is in `x_next`, `u_next`
    /// and the log's report.
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t0: f64,
        big_h: f64,
    ) -> Result<lcp::Info, StepError> {
        self.log.report = StepReport::default();
        self.log.stopped_at = None;
        self.x.copy_from_slice(x);
        self.mode.warm_start(u);
        let settings = self.settings;
        if let Some(guard) = self.pending.take() {
            // The importer stepped on without handling the event the last
            // step stopped at: the mode changes here, as it would have there.
            self.change_mode(lcs, w, guard, t0, &mut 0.0, big_h)?;
        }
        let order = settings.integrator.order();
        let tol_t = EVENT_TOL * big_h.max(1.0);
        let floor = EVENT_FLOOR * big_h.max(1.0);
        let mut t = 0.0;
        let mut last_event = f64::NEG_INFINITY;
        // Consecutive events each closer to the last than the one before: the
        // signature of an accumulation point, also when what stops the
        // integration is a mode near it that cannot be followed.
        let (mut spacing, mut shrinking) = (f64::INFINITY, 0usize);
        let mut h = self.h_next;
        // The mode of the last step goes on unless it no longer describes the
        // motion (new inputs, or the end of a fallback): then the LCP decides.
        self.previous.copy_from_slice(&self.active);
        let kept = self.mode.build(lcs, &self.active, w, t0, &self.x).is_ok()
            && self.mode.consistent(lcs, t0, &self.x, settings.atol);
        let mut finish_by_stepping = !kept && !self.enter_mode(lcs, w, t0, &mut t, big_h)?;
        if self.active != self.previous {
            // A switch exactly at the communication point.
            self.log.report.events += 1;
        }
        if !finish_by_stepping {
            self.mode.project(lcs, t0 + t, &mut self.x, settings.atol);
            self.mode.rhs(lcs, t0 + t, &self.x, &mut self.f0);
            self.log.report.rhs += 1;
            if !(h > 0.0 && h.is_finite()) {
                h = self.initial_step(big_h);
            }
        }
        while !finish_by_stepping && big_h - t > 4.0 * f64::EPSILON * big_h {
            let remaining = big_h - t;
            let clipped = h >= remaining;
            let mut h_try = if clipped { remaining } else { h };
            // A jump of a source in time ends the step on its old side (every
            // stage time at most `left`); the jump is crossed after the step.
            let jump = self.mode.next_time_jump(lcs, t0 + t, t0 + t + h_try);
            if let Some((left, right)) = jump {
                h_try = left - (t0 + t);
                while h_try > 0.0 && (t0 + t) + h_try > left {
                    h_try = h_try.next_down();
                }
                if h_try <= 0.0 {
                    // The jump is right here: no time to integrate over.
                    if !self.cross_time_jump(lcs, w, t0, &mut t, right, big_h)? {
                        finish_by_stepping = true;
                    }
                    continue;
                }
            }
            self.stages.set_first(&self.f0);
            let mode = &mut self.mode;
            self.log.report.rhs += settings.integrator.step(
                &mut |s, x, out| mode.rhs(lcs, s, x, out),
                t0 + t,
                &self.x,
                h_try,
                &mut self.stages,
                &mut self.x1,
                &mut self.f1,
            );
            if let Some(why) = self.mode.take_failure() {
                return Err(why);
            }
            let norm = error_norm(
                &self.stages.err,
                &self.x,
                &self.x1,
                settings.rtol,
                settings.atol,
            );
            if !norm.is_finite() {
                return Err(StepError::NotFinite);
            }
            if norm > 1.0 {
                self.log.report.rejected += 1;
                h = next_step(h_try, norm, order);
                if h < 1e-14 * big_h.max(1.0) {
                    return Err(StepError::StepTooSmall { h });
                }
                continue;
            }
            self.log.report.steps += 1;
            let proposal = next_step(h_try, norm, order);
            // Only a step that was not cut short by the communication point
            // or a jump says how large the next one may be.
            h = if clipped || jump.is_some() {
                h.max(proposal)
            } else {
                proposal
            };
            let crossing = self.earliest_crossing(lcs, t0 + t, h_try, tol_t);
            if let Some(why) = self.mode.take_failure() {
                return Err(why);
            }
            match crossing {
                None => {
                    std::mem::swap(&mut self.x, &mut self.x1);
                    std::mem::swap(&mut self.f0, &mut self.f1);
                    if let Some((_, right)) = jump {
                        t += h_try;
                        if !self.cross_time_jump(lcs, w, t0, &mut t, right, big_h)? {
                            finish_by_stepping = true;
                        }
                    } else {
                        t = if clipped { big_h } else { t + h_try };
                    }
                }
                Some((s, guard)) => {
                    self.log.report.events += 1;
                    let t_event = if s >= 1.0 && clipped {
                        big_h
                    } else {
                        t + s * h_try
                    };
                    hermite(
                        &self.x,
                        &self.f0,
                        &self.x1,
                        &self.f1,
                        h_try,
                        s,
                        &mut self.xe,
                    );
                    std::mem::swap(&mut self.x, &mut self.xe);
                    t = t_event;
                    let gap = t_event - last_event;
                    let crowded = gap < floor;
                    shrinking = if gap < spacing { shrinking + 1 } else { 0 };
                    (spacing, last_event) = (gap, t_event);
                    // Stopping is for events apart from the step's start: one
                    // there follows the event just handled (a cascade, or an
                    // accumulation), and is handled inside the step as always,
                    // so an importer is never asked to step by nothing.
                    if self.stop_at_events && t_event > floor {
                        self.pending = Some(guard);
                        self.log.stopped_at = Some(t_event);
                        break;
                    }
                    if crowded || self.log.report.events > settings.max_events_per_step {
                        self.log.report.accumulation = Some(t);
                        finish_by_stepping = true;
                        break;
                    }
                    if !self.change_mode(lcs, w, guard, t0, &mut t, big_h)? {
                        finish_by_stepping = true;
                        break;
                    }
                }
            }
        }
        self.h_next = h;
        if finish_by_stepping && shrinking >= 3 {
            self.log.report.accumulation.get_or_insert(t);
        }
        if finish_by_stepping && big_h - t <= 1e-12 * big_h.max(1.0) {
            // Nothing left to step over: the state stands, with the
            // multipliers of the last selection.
            self.x_next.copy_from_slice(&self.x);
            self.u_next.copy_from_slice(&self.select_u);
            return Ok(solved());
        }
        if finish_by_stepping {
            let info = self
                .fallback
                .finish(lcs, &self.x, &self.select_u, w, t0 + t, big_h - t)?;
            self.log.report.lcp_solves += 1;
            let (x_end, u_end) = self.fallback.result();
            self.x_next.copy_from_slice(x_end);
            self.u_next.copy_from_slice(u_end);
            self.active.copy_from_slice(self.fallback.active_set());
            if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
                return Err(StepError::NotFinite);
            }
            return Ok(info);
        }
        self.x_next.copy_from_slice(&self.x);
        self.mode
            .multipliers(lcs, t0 + big_h, &self.x, &mut self.u_next);
        if let Some(why) = self.mode.take_failure() {
            return Err(why);
        }
        if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
            return Err(StepError::NotFinite);
        }
        Ok(solved())
    }

    /// A first step from the size of the state and of its derivative.
    fn initial_step(&self, big_h: f64) -> f64 {
        let (rtol, atol) = (self.settings.rtol, self.settings.atol);
        let (mut d0, mut d1) = (0.0f64, 0.0f64);
        for (x, f) in self.x.iter().zip(&self.f0) {
            let sc = atol + rtol * x.abs();
            d0 = d0.max(x.abs() / sc);
            d1 = d1.max(f.abs() / sc);
        }
        let h = if d0 < 1e-5 || d1 < 1e-5 {
            1e-3 * big_h
        } else {
            0.01 * d0 / d1
        };
        h.min(big_h)
    }
}

fn solved() -> lcp::Info {
    lcp::Info {
        status: lcp::Status::Solved,
        method: lcp::Method::None,
        residual: 0.0,
        iterations: 0,
    }
}
