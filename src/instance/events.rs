//! FMI 3.0 co-simulation events on the core [`Instance`]: Event Mode, and the
//! early return from a step at an event.
//!
//! An FMI 3.0 importer may declare at instantiation that it handles events
//! (`eventModeUsed`) and that steps may end before the communication point
//! (`earlyReturnAllowed`). What an *event* is depends on the scheme:
//!
//! - event-driven: a located switch of the mode (a guard of the current active
//!   set changing sign). With early return the step ends at the event time, in
//!   the old mode (states at the event, multipliers the old mode's), and the new
//!   mode is selected in [`Instance::update_discrete_states`], exactly as the step
//!   would have selected it; without early return the step handles its events
//!   inside, as for FMI 2.0, and only says that it met some;
//! - time-stepping: a change of the active set from one internal step to the
//!   next. The LCP of the step has already decided the new set, so nothing is
//!   deferred: the step ends after the internal step where the set changed (with
//!   early return) and Event Mode changes nothing.
//!
//! Without `eventModeUsed` none of this runs and a step is the FMI 2.0 step, bit
//! for bit.

use super::state::{Call, Phase};
use super::{FmiError, FmiResult, Instance, Severity};

/// What the importer declared at FMI 3.0 instantiation (FMI 2.0: neither).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventOptions {
    /// The importer enters Event Mode when a step reports an event.
    pub event_mode_used: bool,
    /// A step may end before the communication point, at an event.
    pub early_return_allowed: bool,
}

impl Instance {
    /// Sets what the importer handles; only in the `Instantiated` phase (the
    /// FMI 3.0 shell calls it right after creating the instance). Early return
    /// without event mode has no event to return at, and is ignored.
    pub fn use_events(&mut self, options: EventOptions) -> FmiResult<()> {
        if self.phase != Phase::Instantiated {
            return Err(FmiError::error(
                "the event options are set at instantiation only",
            ));
        }
        self.events = options;
        self.stepper
            .set_stop_at_events(options.event_mode_used && options.early_return_allowed);
        Ok(())
    }

    pub fn event_options(&self) -> EventOptions {
        self.events
    }

    /// Whether the last step met an event that the importer should handle in
    /// Event Mode (`eventHandlingNeeded` of `fmi3DoStep`).
    pub fn event_pending(&self) -> bool {
        self.event_pending
    }

    /// After the internal step from `start` that ends at `end` (size `hs`):
    /// notes an event, and returns the time the whole step must stop at when
    /// early return applies.
    pub(super) fn sub_step_event(&mut self, start: f64, end: f64, hs: f64) -> Option<f64> {
        if let Some(event) = self.stepper.event() {
            if let Some(local) = event.stopped_at {
                self.event_pending = true;
                return Some(if local >= hs { end } else { start + local });
            }
            self.event_pending |= event.report.events > 0;
            return None;
        }
        if self.stepper.active_set() == self.mode_before.as_slice() {
            return None;
        }
        self.event_pending = true;
        self.events.early_return_allowed.then_some(end)
    }

    /// `fmi3EnterEventMode`; only for an importer that declared `eventModeUsed`
    /// (FMI 3.0 §4.2: a co-simulation FMU without it never enters Event Mode).
    pub fn enter_event_mode(&mut self) -> FmiResult<()> {
        self.check(Call::EnterEventMode)?;
        if self.exchange.is_some() {
            return self.enter_event_mode_model_exchange();
        }
        if !self.events.event_mode_used {
            return Err(FmiError::error(
                "Event Mode was not declared at instantiation (eventModeUsed = false)",
            ));
        }
        self.phase = Phase::EventMode;
        Ok(())
    }

    /// `fmi3UpdateDiscreteStates`: the mode change at the event the last step
    /// stopped at (event-driven scheme with early return), after which the states
    /// (projected onto the new mode's constraints) and the multipliers are the new
    /// mode's. True when the values changed. One call settles the event: there is
    /// never a further update needed at the same instant, and no time event.
    pub fn update_discrete_states(&mut self) -> FmiResult<bool> {
        if self.exchange.is_some() {
            return Ok(self.new_discrete_states()?.values_changed);
        }
        self.check(Call::UpdateDiscreteStates)?;
        if !std::mem::take(&mut self.event_pending) {
            return Ok(false);
        }
        match self.stepper.update_mode(
            &self.lcs,
            &self.states,
            &self.pairs,
            &self.inputs,
            self.time,
        ) {
            Ok(false) => Ok(false),
            Ok(true) => {
                self.stepper.take_result(&mut self.states, &mut self.pairs);
                Ok(true)
            }
            Err(why) => {
                self.terminated = true;
                self.phase = Phase::StepFailed;
                Err(FmiError {
                    severity: Severity::Discard,
                    message: format!(
                        "the mode change at t = {} failed: {why}; the FMU keeps the state at the event and terminates",
                        self.time
                    ),
                })
            }
        }
    }

    /// `fmi3EnterStepMode`.
    pub fn enter_step_mode(&mut self) -> FmiResult<()> {
        self.check(Call::EnterStepMode)?;
        self.phase = Phase::StepComplete;
        Ok(())
    }
}
