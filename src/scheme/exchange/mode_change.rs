//! The mode change at an event under Model Exchange ([`Exchange::event`]):
//! the mode kept when it still describes the motion, else a switch of the
//! fired pairs or, for events that crowd together, an accumulation (and when
//! that fails, a switch, unless a pair of the last event fires again); a failed
//! event puts back the mode, the time events and a nonlinear mode's iterate
//! as they were, so a refused call changes nothing.

use crate::scheme::event::EVENT_FLOOR;
use crate::scheme::exchange::{capture, EventOutcome, Exchange, ExchangeMode};
use crate::scheme::mode::linear::Guard;
use crate::scheme::StepError;
use crate::system::lcs::Lcs;

impl<M: ExchangeMode> Exchange<M> {
    /// The mode after an indicator reached zero, or a time event, at time `t`
    /// and state `x` (projected in place onto the new mode's constraints).
    pub fn event(
        &mut self,
        lcs: &Lcs,
        x: &mut [f64],
        w: &[f64],
        t: f64,
    ) -> Result<EventOutcome, StepError> {
        self.save_iterate();
        let was_built = self.built;
        let time_events = (self.next_jump, self.jump, self.levels_at);
        self.pass_time_event(t);
        self.at_time(t);
        if let Err(why) = self.follow_inputs(lcs, x, w) {
            (self.next_jump, self.jump, self.levels_at) = time_events;
            self.restore_iterate();
            return Err(why);
        }
        if self.mode.consistent(lcs, self.now, x, self.atol) {
            self.step_start.copy_from_slice(x);
            return Ok(EventOutcome::Kept);
        }
        self.mode.keep();
        self.events += 1;
        let this_step = capture::distance(x, &self.step_start);
        self.path_since_event_before = self.path + this_step;
        self.path = this_step;
        self.steps_between_events = self.steps_since_event;
        self.steps_since_event = 0;
        self.overshoot_before = self.overshoot;
        self.overshoot = false;
        let crowded = t - self.last_event < EVENT_FLOOR * t.abs().max(1.0);
        self.last_event = t;
        self.previous.copy_from_slice(&self.active);
        let outcome = if crowded {
            // Crowded switches of other pairs than the last event's are events
            // that fall close together, not an accumulation: when the pairs
            // cannot be held on their surfaces, they are taken one by one
            // (pm_braking_bridge: at t = 0.5236, where the EMF and the
            // currents come to zero together, two diodes' events fall 6.6e-13
            // s apart). The same pair switching again is refused as before,
            // or it would switch for ever.
            let repeats = self.fires_a_pair_just_switched(lcs, x);
            match self.accumulate(lcs, x, w) {
                Err(_) if !repeats => {
                    self.put_back_mode(lcs, x, w, was_built);
                    self.mode.take_failure();
                    self.restore_iterate();
                    self.switch(lcs, x, w)
                }
                outcome => outcome,
            }
        } else {
            self.switch(lcs, x, w)
        };
        // What failed to evaluate while modes were tried is no failure of
        // the mode chosen (its build solved it at `x`).
        self.mode.take_failure();
        if outcome.is_err() {
            // A failed event leaves the mode as it was (the importer's state is
            // untouched: `x` moves only after a mode is chosen), and so the
            // time events and a nonlinear mode's iterate. A nonlinear mode is
            // brought back rather than built again (`mode_nl/kept.rs`), and
            // counts as built only if it was before the event.
            (self.next_jump, self.jump, self.levels_at) = time_events;
            self.put_back_mode(lcs, x, w, was_built);
            self.at_time(t);
            self.mode.take_failure();
            self.restore_iterate();
        } else {
            self.step_start.copy_from_slice(x);
        }
        outcome
    }
    /// The mode before the event, its active set `previous`: a nonlinear
    /// mode is brought back rather than built again (`mode_nl/kept.rs`), and
    /// counts as built only if it was before the event (`was_built`).
    fn put_back_mode(&mut self, lcs: &Lcs, x: &[f64], w: &[f64], was_built: bool) {
        self.active.copy_from_slice(&self.previous);
        if self.mode.bring_back() {
            self.assign_slots();
            self.built = was_built;
        } else {
            let _ = self.build(lcs, x, w);
        }
    }

    /// Whether a guard of the mode before the event fires at `x` for a pair
    /// that changed side at the previous event.
    fn fires_a_pair_just_switched(&mut self, lcs: &Lcs, x: &[f64]) -> bool {
        let (now, previous_event) = (self.now, self.events - 1);
        for r in 0..self.mode.guard_list().len() {
            let i = match self.mode.guard_list()[r] {
                Guard::LowerY(i) | Guard::UpperY(i) | Guard::AboveLo(i) | Guard::BelowHi(i) => i,
            };
            if self.changed_at[i] != previous_event {
                continue;
            }
            let tol = self.mode.guard_tolerance(lcs, now, r, x, self.atol);
            if self.mode.guard(lcs, now, r, x) <= tol {
                return true;
            }
        }
        false
    }

    /// Keeps the free pairs' iterate (nothing for a linear mode).
    pub(super) fn save_iterate(&mut self) {
        let it = self.mode.iterate();
        self.iterate_saved[..it.len()].copy_from_slice(it);
    }

    /// Back to the kept iterate, the mode's evaluations forgotten.
    pub(super) fn restore_iterate(&mut self) {
        let n = self.mode.iterate().len();
        if n > 0 {
            self.mode.warm_start(&self.iterate_saved[..n]);
        }
    }
}
