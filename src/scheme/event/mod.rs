//! Event-driven integration of a first-order model, with zero-crossing location.
//!
//! The classical alternative to time-stepping (zero-crossing slides): in each
//! mode (an active set, see `scheme::mode::linear`) the system is an ODE (a
//! linear one for a linear model, a nonlinear one with sources in `time`
//! for a nonlinear model, see [`mode::nonlinear`](crate::scheme::mode::nonlinear); the stepper is
//! generic over the two, see `scheme::mode::dynamics`),
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
//!
//! This file holds the workspace, its constants and its life cycle; the
//! communication step's loop is in `event/integration.rs`, the mode changes
//! at events in `event/switching.rs`, the step's report in `event/report.rs`.

mod integration;
mod report;
mod switching;

mod rk;

pub use report::{EventLog, StepReport};

use crate::lcp::{self, Bound, Problem, Solver};
use crate::model::{EventSettings, ThetaGamma};
use crate::scheme::event::rk::Stages;
use crate::scheme::mode::dynamics::{Fallback, ModeDynamics};
use crate::scheme::mode::linear::{Guard, ModeSystem};
use crate::scheme::mode::nonlinear::NonlinearMode;
use crate::scheme::{NewtonStats, NewtonStepper, StepError, ThetaStepper};
use crate::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};

/// Step of the selection LCP: far below any step the integrator takes, far
/// above the time to which events are located (shorter on a stiff model, see
/// [`selection_step`](crate::scheme::mode::selection_step)).
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
    /// The step the last selection LCP took (`SELECT_STEP` or shorter on a
    /// stiff model), which entering its mode takes too.
    select_step: f64,
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

/// The event-driven scheme's workspace, in the form the model's system takes,
/// chosen once at instantiation: modes of a linear model are linear ODEs
/// stepped by the affine theta step where events accumulate; those of a
/// nonlinear one (or one with sources in time) are nonlinear ODEs, finished
/// by the Newton step. Both are the one [`EventStepper`], compiled for its
/// mode kind.
#[allow(clippy::large_enum_variant)]
pub enum EventDriven {
    Linear(EventStepper),
    Nonlinear(NonlinearEventStepper),
}

impl EventDriven {
    pub fn new(model: &crate::model::Model) -> EventDriven {
        let (nx, nu, nw) = (model.nx(), model.nu(), model.nw());
        let (theta, settings) = (model.scheme.theta, model.scheme.event);
        if model.nonlinear_dynamics() {
            EventDriven::Nonlinear(NonlinearEventStepper::nonlinear(
                nx, nu, nw, theta, settings,
            ))
        } else {
            EventDriven::Linear(EventStepper::new(nx, nu, nw, theta, settings))
        }
    }
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
            select_step: SELECT_STEP,
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
}

fn solved() -> lcp::Info {
    lcp::Info {
        status: lcp::Status::Solved,
        method: lcp::Method::None,
        residual: 0.0,
        iterations: 0,
    }
}
