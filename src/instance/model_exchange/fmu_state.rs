//! FMU states of a Model Exchange instance: the importer's tolerance and the
//! event engine's mode and history go into the snapshot and come back from
//! it (into the buffers sized at instantiation: nothing allocates on
//! restore), with the next sample of each `[[discrete]]` partition; a state
//! of the other interface type, or of another number of partitions, is refused.

use super::super::snapshot::{ExchangeState, Snapshot};
use super::super::{FmiError, FmiResult, Instance};

impl Instance {
    /// The Model Exchange part of an FMU state: the importer's tolerance and
    /// the engine's mode and event history.
    pub(in crate::instance) fn exchange_snapshot(&self) -> Option<ExchangeState> {
        self.exchange.as_ref().map(|me| ExchangeState {
            tolerance: me.tolerance,
            engine: me.engine.history(),
            samples: self.sampling_indices().to_vec(),
        })
    }

    /// Refuses an FMU state of the other interface type.
    pub(in crate::instance) fn check_exchange_snapshot(&self, s: &Snapshot) -> FmiResult<()> {
        match (self.exchange.is_some(), s.exchange.is_some()) {
            (true, false) => Err(FmiError::error(
                "the FMU state is of a Co-Simulation instance; this one is Model Exchange",
            )),
            (false, true) => Err(FmiError::error(
                "the FMU state is of a Model Exchange instance; this one is Co-Simulation",
            )),
            (true, true) => {
                let n = self.model.sampled.len();
                match s.exchange.as_ref().map(|me| me.samples.len()) {
                    Some(got) if got != n => Err(FmiError::error(format!(
                        "the FMU state has sample indices of {got} [[discrete]] partitions; this model has {n}"
                    ))),
                    _ => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// Restores the Model Exchange part (checked by
    /// [`Instance::check_exchange_snapshot`]); nothing allocates.
    pub(in crate::instance) fn restore_exchange(&mut self, s: &Snapshot) {
        if let (Some(me), Some(saved)) = (self.exchange.as_deref_mut(), &s.exchange) {
            me.tolerance = saved.tolerance;
            me.engine.restore(&saved.engine);
            me.pairs_current = false;
        }
    }

    /// After [`Instance::restore_exchange`] and the sampling's periods and
    /// offsets: the next samples of the state, not those its time implies.
    pub(in crate::instance) fn restore_sample_indices(&mut self, s: &Snapshot) {
        if let Some(saved) = &s.exchange {
            self.set_sampling_indices(&saved.samples);
        }
    }
}
