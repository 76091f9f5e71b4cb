//! Time events of Model Exchange: the jumps of a nonlinear model's sources
//! in time (`step`, `floor`, `frac` of `time`, see `model::time_jumps`).
//!
//! After each event the engine looks for the first jump after the current
//! time ([`Exchange::next_time_event`]) and the FMU reports it as
//! `nextEventTime`: the left end of the jump's bracket, the last
//! floating-point time on the old side, so that every evaluation of the
//! importer's step up to it (an implicit integrator evaluates at the step's
//! end) sees the old sources. At the time event the engine treats that time
//! as the first one on the new side (the bracket's right end, adjacent): the
//! mode is chosen there, as at a state event (kept when it still describes
//! the motion, else the fired guards or the selection LCP decide), and every
//! evaluation at that time until the importer moves on sees the new sources.
//!
//! An importer that steps past the time event (or ignores `nextEventTime`)
//! gets `enterEventMode` from `fmi2CompletedIntegratorStep` at the end of the
//! step that passed it, and the mode is chosen at that step's end: its step
//! integrated the old mode with the new sources from the jump on, an error of
//! the order of that part of the step (what a fixed-step integrator gets at
//! a discontinuity it does not stop at). A jump beyond the scan
//! ([`SCAN_WINDOWS`] windows) is not reported ahead but caught in the same way.
//!
//! The scan compares the sources' levels at the ends of windows of the
//! scheme's `max_step` (else the model's default communication step), as the
//! event-driven stepper compares them at the ends of its steps: a pulse
//! shorter than a window is not seen. A linear mode reads no time: all of
//! this compiles away for it.

use super::{Exchange, ExchangeMode};
use crate::lcs::Lcs;

/// The most windows one scan for the next time event looks through (a cost
/// bound per event: each window evaluates every jump site's level twice).
pub const SCAN_WINDOWS: u32 = 100_000;

impl<M: ExchangeMode> Exchange<M> {
    /// Sets the time the sources are evaluated at in this call: `t`, or the
    /// first time on the new side when `t` is the time event just handled.
    #[inline(always)]
    pub(super) fn at_time(&mut self, t: f64) {
        if M::reads_time() {
            self.now = match self.jump {
                Some((left, right)) if t == left => right,
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
            if t >= left {
                self.jump = Some((left, right));
                self.next_jump = None;
            }
        }
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
