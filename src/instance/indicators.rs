//! Event indicators as variables: FMI 3.0 gives each one a name and a value
//! reference (`<EventIndicator>` lists continuous Float64 variables), where
//! FMI 2.0 had only their number.
//!
//! An FMI 3.0 FMU that declares Model Exchange appends them after the state
//! derivatives ([`super::variables::kinds_with_indicators`]), so the references
//! of the other variables stay what they were. In a Model Exchange instance a
//! read gives exactly what `fmi3GetEventIndicators` gives at the same state
//! and inputs (the engine's guards, refreshed with the multipliers, see
//! [`crate::scheme::exchange`]); before the first mode exists every slot reads
//! 1, as a slot the mode does not use. A Co-Simulation instance of a `cs,me`
//! FMU reads the same guards of the active set of its last step: `y_i` at the
//! lower bound, `-y_i` at the upper bound, the distances `u_i - lo_i` and
//! `hi_i - u_i` of a pair between its bounds, 1 for a slot without a guard;
//! 1 before initialization ends. The importer ignores them for Co-Simulation
//! (FMI 3.0 §2.4.8), but a declared variable must read as something meaningful.

use super::state::Phase;
use super::variables::kinds_with_indicators;
use super::Instance;
use crate::lcp::Bound;

impl Instance {
    /// Gives the derivatives and the event indicators value references, as an
    /// FMI 3.0 description with Model Exchange lists them (both interface
    /// types of such an FMU: the FMI 3.0 shell calls it at instantiation).
    pub fn expose_event_indicators(&mut self) {
        if self.kinds.len() < kinds_with_indicators(&self.model).len() {
            self.kinds = kinds_with_indicators(&self.model);
        }
    }

    /// Event indicator `k` (see the module's text).
    pub(super) fn indicator(&self, k: usize) -> f64 {
        if let Some(me) = &self.exchange {
            return me.z[k];
        }
        if matches!(self.phase, Phase::Instantiated | Phase::InitializationMode) {
            // No step yet, so no active set: no guard.
            return 1.0;
        }
        let (i, upper) = (k / 2, k % 2 == 1);
        let l = &self.lcs;
        let y = || {
            let row = |m: &nalgebra::DMatrix<f64>, v: &[f64]| {
                m.row(i).iter().zip(v).map(|(a, b)| a * b).sum::<f64>()
            };
            row(&l.c, &self.states) + row(&l.d, &self.pairs) + row(&l.fw, &self.inputs) + l.g[i]
        };
        let u = self.pairs[i];
        match (self.stepper.active_set()[i], upper) {
            (Bound::Lower, false) => y(),
            (Bound::Upper, true) => -y(),
            (Bound::Free, false) if l.lo[i].is_finite() => u - l.lo[i],
            (Bound::Free, true) if l.hi[i].is_finite() => l.hi[i] - u,
            _ => 1.0,
        }
    }
}
