//! What the event-driven scheme tells about its steps: the counts of one
//! communication step ([`StepReport`], summed over a run by the instance and
//! printed by `lcsfmu compare`) and the last modes entered, which name the
//! cycle of an accumulation in its report ([`EventLog`]).

use crate::lcp::Bound;
use crate::scheme::event::CYCLE;

/// What one communication step took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    pub steps: usize,
    pub rejected: usize,
    pub rhs: usize,
    pub events: usize,
    /// Jumps of sources in time crossed (not mode switches: a jump that
    /// changes the mode counts in both).
    pub time_events: usize,
    pub lcp_solves: usize,
    /// Time (from the step's start) where events accumulated and
    /// time-stepping took over, if they did.
    pub accumulation: Option<f64>,
    /// Whether a mode could not be followed as an ODE (its free pairs'
    /// equations singular, or its sliding pairs off their constraint):
    /// time-stepping took over too.
    pub singular_mode: bool,
}

impl StepReport {
    /// Adds the counts of a later step; the first accumulation is kept.
    pub fn add(&mut self, later: &StepReport) {
        self.steps += later.steps;
        self.rejected += later.rejected;
        self.rhs += later.rhs;
        self.events += later.events;
        self.time_events += later.time_events;
        self.lcp_solves += later.lcp_solves;
        self.accumulation = self.accumulation.or(later.accumulation);
        self.singular_mode |= later.singular_mode;
    }
}

/// What the scheme tells after each step, apart from the stepper's mode kind.
pub struct EventLog {
    /// The last modes entered, most recent at `cycle_at`, for reports.
    cycle: Vec<Bound>,
    cycle_at: usize,
    cycle_len: usize,
    pub report: StepReport,
    /// Where (from the step's start) the last step stopped at an event.
    pub stopped_at: Option<f64>,
}

impl EventLog {
    pub(super) fn new(nu: usize) -> Self {
        EventLog {
            cycle: vec![Bound::Free; CYCLE * nu],
            cycle_at: 0,
            cycle_len: 0,
            report: StepReport::default(),
            stopped_at: None,
        }
    }

    /// The modes entered most recently, oldest first (for an accumulation report).
    pub fn recent_modes(&self) -> impl Iterator<Item = &[Bound]> {
        let nu = self.cycle.len() / CYCLE;
        (0..self.cycle_len).rev().map(move |back| {
            let k = (self.cycle_at + CYCLE - back) % CYCLE;
            &self.cycle[k * nu..(k + 1) * nu]
        })
    }

    /// Records the mode just entered for reports.
    pub(super) fn remember(&mut self, active: &[Bound]) {
        let nu = active.len();
        self.cycle_at = (self.cycle_at + 1) % CYCLE;
        self.cycle_len = (self.cycle_len + 1).min(CYCLE);
        self.cycle[self.cycle_at * nu..(self.cycle_at + 1) * nu].copy_from_slice(active);
    }
}
