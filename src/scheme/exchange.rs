//! The event-driven scheme seen from a Model Exchange importer: the importer
//! integrates, the model says where the modes end and what comes next.
//!
//! In each mode (an active set, see `scheme::mode::linear`) a first-order LCS is a
//! linear ODE, and a nonlinear first-order model a nonlinear one whose free
//! pairs are solved at each state (`scheme::mode::nonlinear`); the engine is generic
//! over the two ([`ExchangeMode`]). Model Exchange hands the mode's ODE to the
//! importer's integrator:
//! [`Exchange::derivatives`] is the mode's right-hand side and
//! [`Exchange::indicators`] are its guards, two slots per pair: slot `2i`
//! holds `y_i` of a pair at its lower bound or `u_i - lo_i` of a free pair,
//! slot `2i + 1` holds `-y_i` at the upper bound or `hi_i - u_i`; a slot the
//! mode does not use reads 1. Each is continuous in the state and nonnegative
//! while the mode holds (never a sign), so the importer's root finder locates
//! its zero. At that event [`Exchange::event`] picks the next mode as the
//! event-driven stepper does (the fired guards' pairs change side; when that
//! mode does not describe the motion, the selection LCP decides) and projects
//! the state onto the constraints the new mode holds. A pair whose `y` has
//! relative degree one slides: its mode holds `y = 0` through the derivative,
//! so a relay's sliding surface is followed without a single further event.
//! An integrator that reports the event only after stepping past the surface
//! is brought back onto it by the capture rule (`exchange/capture.rs`) instead of chattering.
//!
//! Accumulations: events closer together than
//! [`EVENT_FLOOR`](super::event::EVENT_FLOOR) (relative to
//! the time, at least absolute) are an accumulation point (Zeno), which no
//! importer can integrate through. The pairs that switched during the last
//! [`ACCUMULATING`] events are then made free, that is held at `y = 0` on
//! their switching surfaces, and the state is projected there when they are
//! within [`ACCUMULATION_DRIFT`] of it: switches that accumulate on a
//! sliding set end on it. When that mode is not an ODE, its surfaces are
//! farther, or it does not describe the motion, the event is a regular
//! switch if none of the last event's pairs fires again (two commutations
//! that happen to fall close together), and otherwise fails with the reason
//! (the importer gets an error, never a hang). The sign spiral does not
//! get there: within a selection step of its origin the selection LCP itself
//! picks the mode in which both pairs slide, and the state lands on the origin.
//!
//! Inputs change under an importer at any time: the mode is rebuilt for the
//! inputs of each call that reads it (a comparison when they are unchanged).
//! A nonlinear mode reads the time the importer sets; jumps of its sources in
//! time are time events (`exchange/time_events.rs`).
//!
//! This file holds the workspace and what the importer reads between events
//! (derivatives, multipliers, indicators, the end of a step); the mode change
//! at an event is in `exchange/mode_change.rs`, the switch in
//! `exchange/select.rs`, accumulations in `exchange/accumulate.rs`.

mod accumulate;
mod capture;
mod directional;
mod history;
mod kind;
mod mode_change;
mod select;
mod time_events;

pub use history::History;
pub use kind::ExchangeMode;

use crate::lcp::{self, Bound, Problem, Solver};
use crate::scheme::mode::linear::ModeSystem;
use crate::scheme::StepError;
use crate::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};

/// The events whose pairs an accumulation frees.
pub const ACCUMULATING: u64 = 8;

/// How far (relative to the size of their terms, see `ModeSystem::drift`) the
/// freed pairs' surfaces may be from the state at an accumulation: the
/// projection onto them must be a correction, not a jump.
pub const ACCUMULATION_DRIFT: f64 = 1e-6;

/// `changed_at` of a pair that never changed side.
const NEVER: u64 = u64::MAX;

/// The engine of a first-order LCS.
pub type LinearExchange = Exchange<ModeSystem>;
/// The engine of a model with nonlinear rows or sources in `time`.
pub type NonlinearExchange = Exchange<crate::scheme::mode::nonlinear::NonlinearMode>;

/// Event indicators of a model with `nu` pairs (two slots per pair).
pub fn indicator_count(nu: usize) -> usize {
    2 * nu
}

/// What an event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventOutcome {
    /// The mode still describes the motion (a guard touched zero and turns back).
    Kept,
    /// Another mode; `projected` when the state moved onto its constraints.
    Switched { projected: bool },
    /// Events accumulated: the switching pairs now slide on their surfaces,
    /// and the state was moved there.
    Accumulated,
}

/// The Model Exchange workspace of a first-order model, sized once.
pub struct Exchange<M> {
    atol: f64,
    mode: M,
    active: Vec<Bound>,
    previous: Vec<Bound>,
    /// The mode with the fired pairs changed side (for the capture rule).
    flipped: Vec<Bound>,
    /// The pairs whose guards fired at the current event.
    fired: Vec<bool>,
    /// The path the importer's steps travelled since the start of the step
    /// that ended at the last event, and at this event (the capture rule's
    /// reach for the pairs of the event before).
    path: f64,
    path_since_event_before: f64,
    /// Steps the importer completed since the last event, and whether that
    /// event and the current one were stepped over (a fired guard below its
    /// tolerance: the importer did not locate it).
    steps_since_event: u64,
    steps_between_events: u64,
    overshoot: bool,
    overshoot_before: bool,
    /// The pinned pairs a capture holds at `y = 0`.
    hold: Vec<bool>,
    /// Whether the mode is built, and for which inputs.
    built: bool,
    built_for: Vec<f64>,
    select: Problem,
    select_solver: Solver,
    select_u: Vec<f64>,
    select_y: Vec<f64>,
    /// The guard in each indicator slot.
    slots: Vec<Option<usize>>,
    /// Events so far, the time of the last one, and the event at which each
    /// pair last changed side.
    events: u64,
    last_event: f64,
    changed_at: Vec<u64>,
    x_before: Vec<f64>,
    /// Where the importer's current step started: the state at the last
    /// completed step that violated no guard, or after the last event.
    step_start: Vec<f64>,
    /// Where on the chord from `step_start` to the event's state the first
    /// fired guard reads zero (0 at the start, 1 at the event).
    crossing: f64,
    /// The state there.
    crossed: Vec<f64>,
    /// A state projected before it is known to be taken.
    trial: Vec<f64>,
    /// The mode's constant term, and seeded inputs, for directional derivatives.
    b_saved: Vec<f64>,
    w_seeded: Vec<f64>,
    /// Time events (see `time_events.rs`): the jump of a source in time that
    /// the importer is to stop at (bracketed by adjacent times), the last one
    /// handled (from the time it was handled at to the first time on its new
    /// side), and the time since which the sources' levels are known.
    next_jump: Option<(f64, f64)>,
    jump: Option<(f64, f64)>,
    levels_at: f64,
    /// The time the sources are evaluated at in the current call (see
    /// `time_events.rs`: the importer's time, or just after a time event).
    now: f64,
    /// A nonlinear mode's iterate when an event or a directional derivative
    /// began, back when it fails (a refused call changes nothing).
    iterate_saved: Vec<f64>,
}

impl<M: ExchangeMode> Exchange<M> {
    /// A workspace for `nx` states, `nu` pairs and `nw` inputs; `atol` is the
    /// state tolerance within which guards count as zero (the importer's
    /// integrator locates events to about that).
    pub fn new(nx: usize, nu: usize, nw: usize, atol: f64) -> Self {
        Exchange {
            atol,
            mode: M::sized(nx, nu, nw),
            active: vec![Bound::Free; nu],
            previous: vec![Bound::Free; nu],
            flipped: vec![Bound::Free; nu],
            fired: vec![false; nu],
            hold: vec![false; nu],
            path: 0.0,
            path_since_event_before: 0.0,
            steps_since_event: 0,
            steps_between_events: u64::MAX,
            overshoot: false,
            overshoot_before: false,
            built: false,
            built_for: vec![0.0; nw],
            select: Problem::boxed(
                DMatrix::zeros(nu, nu),
                DVector::zeros(nu),
                DVector::zeros(nu),
                DVector::zeros(nu),
            ),
            // Tight, as the event-driven stepper's: a mode is decided by
            // changes of the order of the selection step.
            select_solver: Solver::new(
                nu,
                lcp::Settings {
                    tol: 1e-13,
                    ..lcp::Settings::default()
                },
            ),
            select_u: vec![0.0; nu],
            select_y: vec![0.0; nu],
            slots: vec![None; 2 * nu],
            events: 0,
            last_event: f64::NEG_INFINITY,
            changed_at: vec![NEVER; nu],
            x_before: vec![0.0; nx],
            step_start: vec![0.0; nx],
            crossing: 1.0,
            crossed: vec![0.0; nx],
            trial: vec![0.0; nx],
            b_saved: vec![0.0; nx],
            w_seeded: vec![0.0; nw],
            next_jump: None,
            jump: None,
            levels_at: f64::NEG_INFINITY,
            now: 0.0,
            iterate_saved: vec![0.0; nu],
        }
    }

    /// The current mode.
    pub fn active_set(&self) -> &[Bound] {
        &self.active
    }

    /// Forgets the assembly's products (after a parameter change).
    pub fn invalidate(&mut self) {
        self.mode.invalidate();
        self.built = false;
    }

    /// Selects the mode at `x` at time `t` (initialization, or after the
    /// importer set the states) and projects `x` onto its constraints; true
    /// when `x` moved.
    pub fn enter(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &mut [f64],
        w: &[f64],
    ) -> Result<bool, StepError> {
        self.at_time(t);
        self.levels_at = self.now;
        self.select(lcs, x, w)?;
        let moved = self.project(lcs, x);
        self.step_start.copy_from_slice(x);
        // The mode's build solved it at `x`: what failed before was another mode.
        self.mode.take_failure();
        Ok(moved)
    }

    /// `x'` of the current mode at `(t, x)` with inputs `w`.
    pub fn derivatives(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        self.at_time(t);
        self.follow_inputs(lcs, x, w)?;
        self.solvable_at(lcs, x)?;
        self.mode.rhs(lcs, self.now, x, out);
        self.failed()
    }

    /// The multipliers of the current mode at `(t, x)`.
    pub fn multipliers(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        u: &mut [f64],
    ) -> Result<(), StepError> {
        self.at_time(t);
        self.follow_inputs(lcs, x, w)?;
        self.solvable_at(lcs, x)?;
        self.mode.multipliers(lcs, self.now, x, u);
        self.failed()
    }

    /// The event indicators at `(t, x)` (see the module's text).
    pub fn indicators(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        self.at_time(t);
        self.follow_inputs(lcs, x, w)?;
        self.solvable_at(lcs, x)?;
        let now = self.now;
        for (v, slot) in out.iter_mut().zip(&self.slots) {
            *v = slot.map_or(1.0, |r| self.mode.guard(lcs, now, r, x));
        }
        self.failed()
    }

    /// After the importer completed a step at `(t, x)`: whether a guard of
    /// the current mode is below zero by more than its tolerance there (an
    /// indicator's sign change the integrator stepped over without locating
    /// it), or a source jumped in time since the last event (a time event
    /// the importer stepped past). When neither, `x` is where the next step
    /// starts.
    pub fn completed_step(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
    ) -> Result<bool, StepError> {
        self.at_time(t);
        self.follow_inputs(lcs, x, w)?;
        let (now, atol) = (self.now, self.atol);
        let violated = (0..self.mode.guard_list().len()).any(|r| {
            self.mode.guard(lcs, now, r, x) < -self.mode.guard_tolerance(lcs, now, r, x, atol)
        }) || self.stepped_past_jump(lcs, t);
        self.failed()?;
        if !violated {
            self.path += capture::distance(x, &self.step_start);
            self.steps_since_event += 1;
            self.step_start.copy_from_slice(x);
        }
        Ok(violated)
    }

    /// Events so far (an event that kept the mode does not count).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Whether a nonlinear mode can be evaluated at `x` (its free pairs
    /// solved; the evaluation is kept for the call that follows), so that a
    /// refused read writes nothing into the importer's buffers. A linear mode
    /// always can.
    #[inline(always)]
    fn solvable_at(&mut self, lcs: &Lcs, x: &[f64]) -> Result<(), StepError> {
        if !M::reads_time() {
            return Ok(());
        }
        let mut scratch = std::mem::take(&mut self.trial);
        self.mode.rhs(lcs, self.now, x, &mut scratch);
        self.trial = scratch;
        self.failed()
    }

    /// Why the nonlinear mode could not be evaluated in this call, if so.
    #[inline(always)]
    fn failed(&mut self) -> Result<(), StepError> {
        match self.mode.take_failure() {
            None => Ok(()),
            Some(why) => Err(why),
        }
    }
}
