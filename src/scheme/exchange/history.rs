//! What a Model Exchange FMU state holds of the event engine: the mode and
//! everything the event rules read later (the accumulation rule's event
//! count, last event time and per-pair changes; the capture rule's step
//! start, paths, step counts and overshoots; a nonlinear mode's iterate, where
//! its free pairs' Newton iteration starts, and the time events pending and
//! handled), so that restoring it and integrating again repeats the run bit
//! for bit.
//!
//! The rest of the engine is either rebuilt from these (the mode's ODE and
//! guards, for the current inputs: a rebuild for the same inputs gives the
//! same bits) or scratch space of one event. Restoring copies into the
//! buffers sized at instantiation and allocates nothing.

use crate::lcp::Bound;
use crate::scheme::exchange::{Exchange, ExchangeMode, NEVER};

/// The engine's dynamic data.
#[derive(Clone, Debug, PartialEq)]
pub struct History {
    /// The state tolerance of the event logic.
    pub atol: f64,
    pub active: Vec<Bound>,
    pub events: u64,
    /// `-inf` before the first event.
    pub last_event: f64,
    /// The event at which each pair last changed side (`u64::MAX`: never).
    pub changed_at: Vec<u64>,
    pub step_start: Vec<f64>,
    pub path: f64,
    pub path_since_event_before: f64,
    pub steps_since_event: u64,
    pub steps_between_events: u64,
    pub overshoot: bool,
    pub overshoot_before: bool,
    /// The free pairs' iterate of a nonlinear mode (empty for a linear one).
    pub iterate: Vec<f64>,
    /// The pending and the last handled time event (brackets, see
    /// `time_events.rs`), and the time since which the levels are known.
    pub next_jump: Option<(f64, f64)>,
    pub jump: Option<(f64, f64)>,
    pub levels_at: f64,
}

impl History {
    /// Why these values cannot be an engine's for `nx` states and `nu`
    /// pairs, or `None` (checked on every deserialized FMU state).
    pub fn refusal(&self, nx: usize, nu: usize) -> Option<String> {
        if self.active.len() != nu || self.changed_at.len() != nu || self.step_start.len() != nx {
            return Some("its Model Exchange part has the wrong sizes".into());
        }
        if !(self.atol > 0.0 && self.atol < 1.0) {
            return Some(format!(
                "its event tolerance {} is not in (0, 1)",
                self.atol
            ));
        }
        if !(self.last_event.is_finite() || self.last_event == f64::NEG_INFINITY) {
            return Some("its last event time is not a number".into());
        }
        if let Some(at) = self
            .changed_at
            .iter()
            .find(|&&at| at != NEVER && at > self.events)
        {
            return Some(format!(
                "a pair changed side at event {at}, after the last event {}",
                self.events
            ));
        }
        let lengths = [self.path, self.path_since_event_before];
        if !(self.iterate.is_empty() || self.iterate.len() == nu) {
            return Some("its iterate of the free pairs has the wrong size".into());
        }
        let brackets = [self.next_jump, self.jump];
        if !self.iterate.iter().all(|v| v.is_finite())
            || !brackets
                .iter()
                .flatten()
                .all(|(l, r)| l.is_finite() && r.is_finite() && l < r)
            || self.levels_at.is_nan()
        {
            return Some("its iterate or time events are not finite".into());
        }
        if !self.step_start.iter().all(|v| v.is_finite())
            || !lengths.iter().all(|v| v.is_finite() && *v >= 0.0)
        {
            return Some("its step start or paths are not finite".into());
        }
        None
    }
}

impl<M: ExchangeMode> Exchange<M> {
    /// The engine's dynamic data.
    pub fn history(&self) -> History {
        History {
            atol: self.atol,
            active: self.active.clone(),
            events: self.events,
            last_event: self.last_event,
            changed_at: self.changed_at.clone(),
            step_start: self.step_start.clone(),
            path: self.path,
            path_since_event_before: self.path_since_event_before,
            steps_since_event: self.steps_since_event,
            steps_between_events: self.steps_between_events,
            overshoot: self.overshoot,
            overshoot_before: self.overshoot_before,
            iterate: self.mode.iterate().to_vec(),
            next_jump: self.next_jump,
            jump: self.jump,
            levels_at: self.levels_at,
        }
    }

    /// Returns to `h` (of the same sizes, see [`History::refusal`]); the mode
    /// is rebuilt at the next call that reads it.
    pub fn restore(&mut self, h: &History) {
        self.atol = h.atol;
        self.active.copy_from_slice(&h.active);
        self.events = h.events;
        self.last_event = h.last_event;
        self.changed_at.copy_from_slice(&h.changed_at);
        self.step_start.copy_from_slice(&h.step_start);
        self.path = h.path;
        self.path_since_event_before = h.path_since_event_before;
        self.steps_since_event = h.steps_since_event;
        self.steps_between_events = h.steps_between_events;
        self.overshoot = h.overshoot;
        self.overshoot_before = h.overshoot_before;
        self.next_jump = h.next_jump;
        self.jump = h.jump;
        self.levels_at = h.levels_at;
        self.invalidate();
        if h.iterate.len() == self.mode.iterate().len() && !h.iterate.is_empty() {
            self.mode.warm_start(&h.iterate);
        }
    }
}
