//! What the event-driven scheme tells the importer after each step: the
//! counts for the `logEvents` category, and a warning when events accumulated
//! or a mode could not be followed, naming the time and the modes cycled
//! through. Formatted only when logged, so the step path allocates nothing.

use super::Instance;

impl Instance {
    /// The last step's report as log messages: the counts (for `logEvents`)
    /// and, when events accumulated or a mode could not be followed, a
    /// warning naming the time and the modes cycled through.
    pub fn describe_step(&self, from: f64) -> (String, Option<String>) {
        let r = &self.last_report;
        let counts = format!(
            "step from t = {from} to {}: {} Runge-Kutta steps ({} rejected), {} right-hand-side evaluations, {} events, {} LCP solves",
            self.time, r.steps, r.rejected, r.rhs, r.events, r.lcp_solves
        );
        let Some(event) = self.stepper.event() else {
            return (counts, None);
        };
        let names: Vec<&str> = self.model.pairs.iter().map(|p| p.name.as_str()).collect();
        let modes: Vec<String> = event
            .recent_modes()
            .map(|m| {
                let parts: Vec<String> = m
                    .iter()
                    .zip(&names)
                    .map(|(b, n)| format!("{n} {}", format!("{b:?}").to_lowercase()))
                    .collect();
                format!("({})", parts.join(", "))
            })
            .collect();
        let warning = match (r.accumulation, r.singular_mode) {
            (Some(at), _) => Some(format!(
                "events accumulate at t = {at} (Zeno or chattering; last modes {}); time-stepping finished the step to t = {}",
                modes.join(" -> "),
                self.time
            )),
            (None, true) => Some(format!(
                "a mode could not be followed as an ODE (last modes {}); time-stepping finished the step to t = {}",
                modes.join(" -> "),
                self.time
            )),
            (None, false) => None,
        };
        (counts, warning)
    }
}
