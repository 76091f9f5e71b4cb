//! Event Mode of a Model Exchange instance: the completed integrator step
//! that asks for it, and the update of the discrete states that processes
//! the samples due, chooses the next mode and reports the next time event
//! (see the parent module).

use super::super::state::{Call, Phase};
use super::super::{FmiError, FmiResult, Instance};
use super::{mode_failed, DiscreteUpdate, StepCompleted};
use crate::scheme::exchange::EventOutcome;

impl Instance {
    /// `fmi2CompletedIntegratorStep`: asks for Event Mode when the importer
    /// stepped over a guard's zero without locating it, or past a time event.
    pub fn completed_integrator_step(&mut self) -> FmiResult<StepCompleted> {
        self.exchange_for(Call::CompletedIntegratorStep)?;
        let me = self.exchange.as_deref_mut().expect("checked");
        let guard = me
            .engine
            .completed_step(&self.lcs, self.time, &self.states, &self.inputs)
            .map_err(|why| mode_failed(self.time, why))?;
        Ok(StepCompleted {
            enter_event_mode: guard || self.past_a_sample(),
        })
    }

    /// `fmi2EnterEventMode` of Model Exchange.
    pub(in crate::instance) fn enter_event_mode_model_exchange(&mut self) -> FmiResult<()> {
        self.phase = Phase::EventMode;
        Ok(())
    }

    /// `fmi2NewDiscreteStates` / `fmi3UpdateDiscreteStates`: the mode at the
    /// current state (see the module's text). A failed event (an accumulation
    /// the engine cannot end) is an error with the reason; the mode and the
    /// state stay as they were.
    pub fn new_discrete_states(&mut self) -> FmiResult<DiscreteUpdate> {
        self.exchange_for(Call::UpdateDiscreteStates)?;
        let sampled = self.sample_at_event()?;
        let me = self.exchange.as_deref_mut().expect("checked");
        let outcome = me
            .engine
            .event(&self.lcs, &mut self.states, &self.inputs, self.time);
        // What was read before stays valid when the event fails (mode and
        // state are kept); after any other outcome it follows on the next read.
        me.pairs_current &= outcome.is_err();
        // Any change of mode is reported as changed values, not only a state
        // projected onto the new mode's constraints: the ODE the importer
        // integrates is another one from here, and an importer that restarts
        // its integrator only on this flag (the Reference FMUs' fmusim with
        // CVode) would otherwise go on with the old mode's history: the relay's
        // x1(3) came out -0.409 instead of 0.0312 there.
        // New held values change the ODE as a new mode does (the same
        // reasoning): the importer restarts its integrator at a sample.
        let values_changed = sampled
            || match outcome {
                Ok(EventOutcome::Kept) => false,
                Ok(EventOutcome::Switched { .. } | EventOutcome::Accumulated) => true,
                Err(why) => {
                    return Err(FmiError::error(format!(
                        "the event at t = {} cannot be resolved: {why}; mode and state are kept",
                        self.time
                    )))
                }
            };
        // Time events: scanned up to the importer's stop time, else over one
        // default experiment's length, in windows of `max_step` or the
        // default communication step (see `scheme::exchange::time_events`).
        let e = &self.model.experiment;
        let horizon = self.stop_time.unwrap_or(self.time + (e.stop - e.start));
        let window = self.model.scheme.max_step.unwrap_or(e.step);
        let jump = me
            .engine
            .next_time_event(&self.lcs, self.time, horizon, window);
        let next_event_time = match (jump, self.next_sample()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Ok(DiscreteUpdate {
            values_changed,
            next_event_time,
        })
    }
}

impl Instance {
    /// The samples due at the current time, processed before the mode is
    /// chosen (see `Instance::process_due_samples`): the partitions read the
    /// multipliers of the mode that held up to this instant, at the current
    /// state, as a Co-Simulation sample reads those of the step that ended
    /// there. Whether any sample was processed.
    fn sample_at_event(&mut self) -> FmiResult<bool> {
        if !self.sample_due() {
            return Ok(false);
        }
        let me = self.exchange.as_deref_mut().expect("checked");
        if self.model.nu() > 0 {
            let (t, x, w) = (self.time, &self.states, &self.inputs);
            me.engine
                .multipliers(&self.lcs, t, x, w, &mut self.pairs)
                .map_err(|why| mode_failed(t, why))?;
        }
        // The multipliers, derivatives and indicators follow the new held
        // values on the next read.
        me.pairs_current = false;
        self.process_due_samples()
    }
}
