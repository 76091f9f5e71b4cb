//! Time events of Model Exchange: the jumps of a nonlinear model's sources
//! in time (`step`, `floor`, `frac` of `time`, see `model::time_jumps`).
//!
//! After each event the engine looks for the first jump after the current
//! time ([`Exchange::next_time_event`]) and the FMU reports it as
//! `nextEventTime`: the left end of the jump's bracket, the last
//! floating-point time on the old side, so that every evaluation of the
//! importer's step up to it (an implicit integrator evaluates at the step's
//! end) sees the old sources. At the time event (an event at that time, or
//! up to [`TIME_EVENT_SLACK`] before it) the engine treats the time as the
//! first one on the new side (the bracket's right end, adjacent): the
//! mode is chosen there, as at a state event (kept when it still describes
//! the motion, else the fired guards or the selection LCP decide), and every
//! evaluation at that time until the importer moves on sees the new sources.
//!
//! Until the time event is handled the mode goes on as it was, sources
//! included: an evaluation past the pending event's time sees the sources at
//! that time (an integrator stepping beyond its output time, as CVode does in
//! its normal mode before interpolating back, sees the old mode's smooth
//! continuation; a smooth source is held there too, an error of the order of
//! the overshoot that only a step past the event makes). An importer that
//! steps past the time event (or ignores `nextEventTime`) gets
//! `enterEventMode` from `fmi2CompletedIntegratorStep` at the end of that
//! step, and the mode is chosen there with the sources of that time: its step
//! integrated the old mode beyond the jump, an error of the order of that
//! part of the step (what a fixed-step integrator gets at a discontinuity it
//! does not stop at). A jump beyond the scan ([`SCAN_WINDOWS`] windows) is not
//! reported ahead; it is caught at the end of the step that passed it, whose
//! evaluations after the jump saw the new sources in the old mode.
//!
//! The scan compares the sources' levels at the ends of windows of the
//! scheme's `max_step` (else the model's default communication step), as the
//! event-driven stepper compares them at the ends of its steps: a pulse
//! shorter than a window is not seen. A linear mode reads no time: all of
//! this compiles away for it.

use crate::scheme::exchange::{Exchange, ExchangeMode};
use crate::system::lcs::Lcs;

/// How far before the pending time event (relative to its time) an event
/// still counts as that time event: FMPy declares a time event when its
/// output point is `math.isclose` to `nextEventTime` (relative 1e-9), and
/// then stops there, up to that much early. From that time to the jump the
/// sources are the new side's.
pub const TIME_EVENT_SLACK: f64 = 1e-9;

/// The most windows one scan for the next time event looks through (a cost
/// bound per event: each window evaluates every jump site's level twice).
pub const SCAN_WINDOWS: u32 = 100_000;

impl<M: ExchangeMode> Exchange<M> {
    /// Sets the time the sources are evaluated at in this call: `t`; the
    /// first time on the new side when `t` is the time event just handled;
    /// the last time on the old side when `t` is past the pending time event
    /// (the mode goes on as it was until the event is handled).
    #[inline(always)]
    pub(super) fn at_time(&mut self, t: f64) {
        if M::reads_time() {
            self.now = match (self.jump, self.next_jump) {
                (Some((from, right)), _) if t >= from && t < right => right,
                (_, Some((left, _))) if t > left => left,
                _ => t,
            };
        }
    }

    /// At an event at `t`: whether it is (also) the pending time event or
    /// comes after it; the jump is then the one handled.
    pub(super) fn pass_time_event(&mut self, t: f64) {
        if !M::reads_time() {
            return;
        }
        if let Some((left, right)) = self.next_jump {
            if t >= left - TIME_EVENT_SLACK * left.abs() {
                self.jump = Some((t.min(left), right));
                self.next_jump = None;
            }
        }
        // At the event the sources are the new side's (`t` past the jump
        // counts as itself, no longer held on the old side).
        self.at_time(t);
        self.levels_at = self.now;
    }

    /// Whether the importer's step that ended at `t` passed a jump of a
    /// source: the pending time event, or (none known) any jump since the
    /// last event.
    pub(super) fn stepped_past_jump(&mut self, lcs: &Lcs, t: f64) -> bool {
        if !M::reads_time() {
            return false;
        }
        match self.next_jump {
            Some((left, _)) => t > left,
            None => {
                t > self.levels_at && self.mode.next_time_jump(lcs, self.levels_at, t).is_some()
            }
        }
    }

    /// The next time event after `t` up to `horizon`, scanned in windows of
    /// `window` (see the module's text): the time the importer is to stop at,
    /// kept as the pending one. `None` when there is none within the scan.
    pub fn next_time_event(&mut self, lcs: &Lcs, t: f64, horizon: f64, window: f64) -> Option<f64> {
        self.next_jump = None;
        if !M::reads_time() || !(window > 0.0) {
            return None;
        }
        self.at_time(t);
        let mut a = self.now;
        for _ in 0..SCAN_WINDOWS {
            if !(a < horizon) {
                break;
            }
            let b = (a + window).min(horizon).max(a.next_up());
            if let Some(jump) = self.mode.next_time_jump(lcs, a, b) {
                // Levels are compared with those at `a`, the same as at `now`.
                self.next_jump = Some(jump);
                return Some(jump.0);
            }
            a = b;
        }
        None
    }
}
