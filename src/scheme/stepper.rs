//! The scheme a model runs ([`Stepper`]): one variant per method, chosen from
//! the model at instantiation (each method then picks the form its system
//! takes: [`Theta`], [`Mechanical`], [`EventDriven`]), and the calls every
//! caller makes (step, warm start, FMU-state data, multipliers, events),
//! dispatched to it.

use crate::lcp::{self, Bound};
use crate::model::{Method, Model};
use crate::scheme::theta::trend::Trend;
use crate::scheme::{
    EventDriven, EventLog, MechNewtonStepper, Mechanical, NewtonStats, NewtonStepper, StepError,
    Theta,
};
use crate::system::lcs::Lcs;
use nalgebra::DMatrix;

/// The scheme a model runs, with its workspace.
// One per instance, created once and never moved on the step path (see
// `Contacts` in `mechanical`).
#[allow(clippy::large_enum_variant)]
pub enum Stepper {
    /// The theta-method on a first-order model.
    Theta(Theta),
    /// Moreau–Jean (and its projected variants) or the semi-explicit scheme
    /// on a mechanical model.
    Mechanical(Mechanical),
    /// Event-driven integration of a first-order model's modes.
    EventDriven(EventDriven),
}

/// `$e` with `$s` bound to the form's workspace, whatever the method and form.
macro_rules! each {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Stepper::Theta(Theta::Affine($s)) => $e,
            Stepper::Theta(Theta::Newton($s)) => $e,
            Stepper::Mechanical(Mechanical::Linear($s)) => $e,
            Stepper::Mechanical(Mechanical::Nonlinear($s)) => $e,
            Stepper::EventDriven(EventDriven::Linear($s)) => $e,
            Stepper::EventDriven(EventDriven::Nonlinear($s)) => $e,
        }
    };
}

impl Stepper {
    /// Workspace for `model`'s scheme; `lcs` must be [`Lcs::new`] of the same model.
    pub fn new(model: &Model, lcs: &Lcs) -> Self {
        // Validation gives a mechanical model a mechanical method (and no
        // first-order remainders) and a first-order model a first-order one.
        let method = model.scheme.method;
        debug_assert_eq!(lcs.mech.is_some(), !method.first_order());
        match (&lcs.mech, method) {
            (Some(mech), _) => Stepper::Mechanical(Mechanical::new(mech, &model.scheme)),
            (None, Method::EventDriven) => Stepper::EventDriven(EventDriven::new(model)),
            (None, _) => Stepper::Theta(Theta::new(model, lcs)),
        }
    }

    /// Runs the step at the compile-time sizes `NX`, `NU`, `NW` (see
    /// [`dims`](super::dims)) when the scheme has such a step (the affine
    /// theta-method, the linear mechanical schemes) and they are this model's;
    /// returns whether it does. The numbers do not change.
    pub fn specialize<const NX: usize, const NU: usize, const NW: usize>(&mut self) -> bool {
        match self {
            Stepper::Theta(Theta::Affine(s)) => s.specialize::<NX, NU, NW>(),
            Stepper::Mechanical(Mechanical::Linear(s)) => s.specialize::<NX, NU, NW>(),
            _ => false,
        }
    }

    /// Forgets the cached matrices; call after the LCS was assembled again.
    pub fn invalidate(&mut self) {
        each!(self, s => s.invalidate())
    }

    /// The LCP warm start, saved with FMU states so a restored run repeats exactly.
    pub fn active_set(&self) -> &[Bound] {
        each!(self, s => s.active_set())
    }

    /// Forgets the warm start (a new run begins).
    pub fn reset_active_set(&mut self) {
        each!(self, s => s.reset_active_set())
    }

    /// The step size whose matrices are cached (NaN when none), for FMU states.
    pub fn cached_step(&self) -> f64 {
        each!(self, s => s.cached_step())
    }

    /// Returns to a saved warm start and cached step size; the matrices are rebuilt
    /// on the next step from the same data, so they come out bit-identical.
    pub fn restore(&mut self, cached_step: f64, active_set: &[Bound]) {
        each!(self, s => s.restore(cached_step, active_set))
    }

    /// The first-order Newton step's predictor trend, saved with FMU states
    /// (the other schemes keep none).
    pub fn trend(&self) -> Option<Trend> {
        match self {
            Stepper::Theta(Theta::Newton(s)) => s.trend(),
            _ => None,
        }
    }

    /// Returns to a saved trend, after [`Stepper::restore`].
    pub fn restore_trend(&mut self, saved: Option<&Trend>) {
        if let Stepper::Theta(Theta::Newton(s)) = self {
            s.restore_trend(saved);
        }
    }

    /// One step of size `h` from state `x` and multipliers `u` at time `t`
    /// with inputs `w`. Step sizes within [`SAME_STEP`](super::SAME_STEP) of the cached one
    /// reuse its matrices. Only the nonlinear step (its Newton iteration
    /// starts at `u`), the θ-γ step (`u` enters it) and sources in time
    /// read `u` and `t`.
    // Inlined into the FMU's step loop: as a call of its own the dispatch cost
    // about 27 instructions per step (callgrind), 10 % of the cheapest model's step.
    #[inline(always)]
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        match self {
            Stepper::Theta(Theta::Affine(s)) => s.step(lcs, x, u, w, t, h),
            Stepper::Mechanical(Mechanical::Linear(s)) => s.step(lcs, x, w, h),
            Stepper::EventDriven(EventDriven::Linear(s)) => s.step(lcs, x, u, w, t, h),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => s.step(lcs, x, u, w, t, h),
            Stepper::Theta(Theta::Newton(s)) => s.step(lcs, x, u, w, t, h),
            Stepper::Mechanical(Mechanical::Nonlinear(s)) => s.step(lcs, x, w, t, h),
        }
    }

    /// [`Stepper::step`], then on success [`Stepper::take_result`] into `x` and
    /// `u`, with one dispatch for both (a failed step changes neither).
    #[inline(always)]
    pub fn step_and_take(
        &mut self,
        lcs: &Lcs,
        x: &mut Vec<f64>,
        u: &mut Vec<f64>,
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<(), StepError> {
        match self {
            Stepper::Theta(Theta::Affine(s)) => {
                s.step(lcs, x, u, w, t, h)?;
                s.take_result(x, u);
            }
            Stepper::Mechanical(Mechanical::Linear(s)) => {
                s.step(lcs, x, w, h)?;
                s.take_result(x, u);
            }
            Stepper::EventDriven(EventDriven::Linear(s)) => {
                s.step(lcs, x, u, w, t, h)?;
                s.take_result(x, u);
            }
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => {
                s.step(lcs, x, u, w, t, h)?;
                s.take_result(x, u);
            }
            Stepper::Theta(Theta::Newton(s)) => {
                s.step(lcs, x, u, w, t, h)?;
                s.take_result(x, u);
            }
            Stepper::Mechanical(Mechanical::Nonlinear(s)) => {
                s.step(lcs, x, w, t, h)?;
                s.take_result(x, u);
            }
        }
        Ok(())
    }

    /// What the Newton iterations took since initialization (nonlinear models
    /// only; for the event-driven scheme, those of its time-stepping fallback).
    pub fn newton_stats(&self) -> Option<&NewtonStats> {
        match self {
            Stepper::Theta(Theta::Newton(s)) => Some(&s.stats),
            Stepper::Mechanical(Mechanical::Nonlinear(s)) => Some(&s.stats),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => Some(s.newton_stats()),
            _ => None,
        }
    }

    /// The nonlinear Moreau–Jean stepper, when the model has nonlinear mechanics.
    pub fn mech_newton(&mut self) -> Option<&mut MechNewtonStepper> {
        match self {
            Stepper::Mechanical(Mechanical::Nonlinear(s)) => Some(s),
            _ => None,
        }
    }

    /// The Newton stepper, when the model is nonlinear.
    pub fn newton(&mut self) -> Option<&mut NewtonStepper> {
        match self {
            Stepper::Theta(Theta::Newton(s)) => Some(s),
            _ => None,
        }
    }

    /// Moves the result of the last step into `x` and `u` (by swapping buffers).
    #[inline(always)]
    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        each!(self, s => s.take_result(x, u))
    }

    /// What the event-driven stepper reports, when that is the scheme.
    #[inline]
    pub fn event(&self) -> Option<&EventLog> {
        match self {
            Stepper::EventDriven(EventDriven::Linear(s)) => Some(&s.log),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => Some(&s.log),
            _ => None,
        }
    }

    /// Makes the event-driven scheme stop at each located event and leave the
    /// mode change to [`Stepper::update_mode`] (FMI 3.0 early return); the
    /// time-stepping schemes have no event to stop at inside their step.
    pub fn set_stop_at_events(&mut self, on: bool) {
        match self {
            Stepper::EventDriven(EventDriven::Linear(s)) => s.set_stop_at_events(on),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => s.set_stop_at_events(on),
            _ => {}
        }
    }

    /// Changes the mode at the event the last step stopped at (event-driven
    /// scheme); the result is taken with [`Stepper::take_result`]. False, and
    /// nothing to take, when no event is pending. `u` and `t` are the
    /// multipliers and the time at the event.
    pub fn update_mode(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
    ) -> Result<bool, StepError> {
        match self {
            Stepper::EventDriven(EventDriven::Linear(s)) => s.update_mode(lcs, x, u, w, t),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => s.update_mode(lcs, x, u, w, t),
            _ => Ok(false),
        }
    }

    /// Whether the multipliers a step reports are averages over the step (the
    /// first-order time-stepping schemes), as opposed to impulses over it
    /// (mechanical) or values at its end (event-driven): see `instance::tiny_step`.
    pub fn averages_multipliers(&self) -> bool {
        matches!(self, Stepper::Theta(_))
    }

    /// The multipliers of the last step or of [`Stepper::consistent_multipliers`].
    pub fn multipliers(&self) -> &[f64] {
        each!(self, s => &s.u_next)
    }

    /// The multipliers consistent with `x` and `w` at time `t`, reported before
    /// the first step.
    pub fn consistent_multipliers(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        t: f64,
    ) -> Result<lcp::Info, StepError> {
        match self {
            Stepper::Theta(Theta::Affine(s)) => s.consistent_multipliers(lcs, x, w, t),
            Stepper::Mechanical(Mechanical::Linear(s)) => s.consistent_multipliers(lcs, x, w),
            Stepper::EventDriven(EventDriven::Linear(s)) => s.consistent_multipliers(lcs, x, w, t),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => {
                s.consistent_multipliers(lcs, x, w, t)
            }
            Stepper::Theta(Theta::Newton(s)) => s.consistent_multipliers(lcs, x, w, t),
            Stepper::Mechanical(Mechanical::Nonlinear(s)) => s.consistent_multipliers(),
        }
    }

    /// The LCP matrix of a step of size `h` (for inspection); for a nonlinear
    /// model, of the first Newton iteration from the zero state at `t = 0`
    /// (`lcsfmu check` asks [`NewtonStepper::lcp_matrix`] at the start values).
    pub fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError> {
        match self {
            Stepper::Theta(Theta::Affine(s)) => s.lcp_matrix(lcs, h),
            Stepper::Mechanical(Mechanical::Linear(s)) => s.lcp_matrix(lcs, h),
            Stepper::EventDriven(EventDriven::Linear(s)) => s.lcp_matrix(lcs, h),
            Stepper::EventDriven(EventDriven::Nonlinear(s)) => s.lcp_matrix(lcs, h),
            Stepper::Theta(Theta::Newton(s)) => {
                let (x, w) = (vec![0.0; lcs.a.nrows()], vec![0.0; lcs.e.ncols()]);
                s.lcp_matrix(lcs, &x, &w, h)
            }
            Stepper::Mechanical(Mechanical::Nonlinear(s)) => {
                let (n, nw) = lcs
                    .mech
                    .as_ref()
                    .map_or((0, 0), |m| (m.dof, m.input_force.cols));
                let w = vec![0.0; nw];
                s.lcp_matrix(lcs, &vec![0.0; 2 * n], &w, h)
            }
        }
    }
}
