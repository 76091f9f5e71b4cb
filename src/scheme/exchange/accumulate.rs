//! Accumulations (Zeno) in Model Exchange: events closer together than
//! [`EVENT_FLOOR`](crate::scheme::event::EVENT_FLOOR) free the pairs that
//! switched during the last [`ACCUMULATING`] events, holding them on their
//! switching surfaces, and move the state there when it is within
//! [`ACCUMULATION_DRIFT`] of them; otherwise the event fails with the reason
//! and nothing changes (see the parent module).

use crate::lcp::Bound;
use crate::scheme::exchange::{
    EventOutcome, Exchange, ExchangeMode, ACCUMULATING, ACCUMULATION_DRIFT, NEVER,
};
use crate::scheme::StepError;
use crate::system::lcs::Lcs;

impl<M: ExchangeMode> Exchange<M> {
    /// Frees the pairs that switched during the last events and moves `x`
    /// onto their surfaces.
    pub(super) fn accumulate(
        &mut self,
        lcs: &Lcs,
        x: &mut [f64],
        w: &[f64],
    ) -> Result<EventOutcome, StepError> {
        for (i, a) in self.active.iter_mut().enumerate() {
            let at = self.changed_at[i];
            if at != NEVER && at + ACCUMULATING > self.events {
                *a = Bound::Free;
            }
        }
        let now = self.now;
        if self.build(lcs, x, w).is_err() || self.mode.drift(lcs, now, x) > ACCUMULATION_DRIFT {
            return Err(StepError::SingularMode);
        }
        // Projected on a copy: a refused accumulation leaves `x` as it was.
        let mut trial = std::mem::take(&mut self.trial);
        trial.copy_from_slice(x);
        self.mode.project(lcs, now, &mut trial, self.atol);
        let follows = self.mode.consistent(lcs, now, &trial, self.atol);
        if follows {
            x.copy_from_slice(&trial);
        }
        self.trial = trial;
        if !follows {
            return Err(StepError::SingularMode);
        }
        self.mark_changes();
        Ok(EventOutcome::Accumulated)
    }
}
