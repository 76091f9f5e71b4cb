//! FMU states of the [`Instance`]: a [`Snapshot`] of everything the next
//! steps depend on, restored bit for bit, and its bytes (`serialize`,
//! `deserialize`, checked against the instance's GUID and sizes).
//!
//! A restore checks the snapshot before it changes anything, so a refused one
//! leaves the instance as it was.

use super::snapshot::{Sizes, Snapshot};
use super::state::{Call, Phase};
use super::{FmiError, FmiResult, Instance};

impl Instance {
    /// Captures everything the next steps depend on.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            phase: self.phase,
            time: self.time,
            start_time: self.start_time,
            stop_time: self.stop_time,
            last_successful_time: self.last_successful_time,
            terminated: self.terminated,
            consistent: self.consistent,
            cached_step: self.stepper.cached_step(),
            params: self.params.clone(),
            inputs: self.inputs.clone(),
            states: self.states.clone(),
            pairs: self.pairs.clone(),
            active_set: self.active_set().to_vec(),
            trend: self.stepper.trend(),
            exchange: self.exchange_snapshot(),
        }
    }

    fn sizes(&self) -> Sizes {
        Sizes {
            np: self.model.np(),
            nw: self.model.nw(),
            nx: self.model.nx(),
            nu: self.model.nu(),
        }
    }

    /// Returns to a snapshot of this model; caches are rebuilt so the run repeats exactly.
    pub fn restore(&mut self, s: &Snapshot) -> FmiResult<()> {
        self.check(Call::FmuState)?;
        let sizes = self.sizes();
        let got = Sizes {
            np: s.params.len(),
            nw: s.inputs.len(),
            nx: s.states.len(),
            nu: s.pairs.len(),
        };
        if got != sizes || s.active_set.len() != sizes.nu {
            return Err(FmiError::error(
                "the FMU state does not belong to this model (sizes differ)",
            ));
        }
        self.check_exchange_snapshot(s)?;
        let assembled = |p: Phase| {
            matches!(
                p,
                Phase::StepComplete
                    | Phase::StepFailed
                    | Phase::Terminated
                    | Phase::EventMode
                    | Phase::ContinuousTimeMode
            )
        };
        if assembled(s.phase) {
            if let Err(e) = self.lcs.assemble(&self.model, &s.params) {
                // Assembly stops half way: put back the matrices of the parameters
                // the instance keeps, so the refused call changes nothing.
                if assembled(self.phase) {
                    let _ = self.lcs.assemble(&self.model, &self.params);
                }
                return Err(FmiError::error(format!(
                    "the FMU state's parameters are unusable: {e}"
                )));
            }
        }
        self.phase = s.phase;
        (self.time, self.start_time) = (s.time, s.start_time);
        self.set_stop_time(s.stop_time);
        self.last_successful_time = s.last_successful_time;
        self.terminated = s.terminated;
        self.consistent = s.consistent;
        self.params.copy_from_slice(&s.params);
        self.inputs.copy_from_slice(&s.inputs);
        self.states.copy_from_slice(&s.states);
        self.pairs.copy_from_slice(&s.pairs);
        self.stepper.restore(s.cached_step, &s.active_set);
        self.stepper.restore_trend(s.trend.as_ref());
        self.restore_exchange(s);
        self.feedthrough.invalidate();
        self.resume_sampling();
        self.restore_sample_indices(s);
        // An event a restored step stopped at is met again by the next step.
        self.event_pending = false;
        Ok(())
    }

    pub fn serialize(&self, s: &Snapshot) -> Vec<u8> {
        s.to_bytes(&self.guid)
    }

    pub fn deserialize(&self, bytes: &[u8]) -> FmiResult<Snapshot> {
        self.check(Call::FmuState)?;
        Snapshot::from_bytes(bytes, &self.guid, self.sizes()).map_err(FmiError::error)
    }
}
