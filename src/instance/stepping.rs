//! Co-Simulation stepping on the [`Instance`]: `do_step` over the model's
//! scheme, and what a step that cannot be taken reports.
//!
//! A model with `[[discrete]]` partitions has its steps cut at the sample
//! instants ([`super::sampling`]), each piece run as below.
//!
//! A communication step runs the scheme in sub-steps of at most the model's
//! `max_step` and ends early at an FMI 3.0 event when the importer uses Event
//! Mode ([`super::events`]); a tiny last step keeps the multipliers of its mode
//! ([`super::tiny_step`]). A refused step changes nothing; a step that fails
//! keeps the states of the last successful sub-step and is a discard with the
//! scheme's reason. The reports (`step_report`, `run_report`, `newton_stats`)
//! are what `lcsfmu simulate -v` prints.

use super::state::{allowed, Call, Phase};
use super::tiny_step::HeldMultipliers;
use super::{FmiError, FmiResult, Instance, Severity, MAX_SUBSTEPS, STOP_TOLERANCE};
use crate::scheme::{StepError, StepReport};

impl Instance {
    /// Advances from `t` (which must be the instance's time) by `h`.
    pub fn do_step(&mut self, t: f64, h: f64) -> FmiResult<()> {
        // One test on the common path; the refusal says which condition failed.
        // Comparisons with infinity instead of `is_finite`, which compiles to
        // integer bit tests: NaN fails every comparison, and with t finite and
        // h > 0, t + h can only overflow upwards, past the end limit (f64::MAX
        // without a stop time, the stop time and its tolerance with one).
        // `&` rather than `&&`: every test is cheap, and one branch beats six.
        let valid = allowed(Call::DoStep, self.phase)
            & (h > 0.0)
            & (h < f64::INFINITY)
            & (t.abs() < f64::INFINITY)
            & !((t - self.time).abs() > 1e-10 * self.time.abs().max(1.0))
            & (t + h <= self.step_end_limit);
        if !valid {
            return Err(self.refused_step(t, h));
        }
        // The common case, one sub-step that nobody watches, without the loop:
        // its reports, event tests and sub-step arithmetic cost the smallest
        // models a third of their step (callgrind, sign_spiral and decay).
        let single = self.model.scheme.max_step.is_none()
            & !self.events.event_mode_used
            & !self.reports_steps();
        if single & !self.sampling.active() {
            return self.single_step(t, h);
        }
        if self.sampling.active() {
            return self.sampled_step(t, h);
        }
        self.advance(t, h)
    }

    /// Runs the scheme from `t` over `h` (validated) in sub-steps of at most
    /// `max_step`, watched for FMI 3.0 events and reported as the options ask.
    pub(super) fn advance(&mut self, t: f64, h: f64) -> FmiResult<()> {
        let n = match self.model.scheme.max_step {
            Some(max) => {
                let n = (h / max * (1.0 - 4.0 * f64::EPSILON)).ceil().max(1.0);
                if n > MAX_SUBSTEPS {
                    return Err(FmiError::error(format!(
                        "step {h} would need {n:e} sub-steps of at most max_step = {max}; at most {MAX_SUBSTEPS:e} are allowed"
                    )));
                }
                n as usize
            }
            None => 1,
        };
        // h / 1 is h exactly: the division is skipped, not the arithmetic changed.
        let hs = if n == 1 { h } else { h / n as f64 };
        // Adopt the master's clock: it is within rounding of ours and avoids drift.
        self.time = t;
        // Only the event-driven scheme reports what a step took.
        let reports = self.stepper.event().is_some();
        let tiny = HeldMultipliers::is_tiny(t, h) && self.stepper.averages_multipliers();
        if tiny {
            self.held.hold(&self.pairs, self.stepper.active_set());
        }
        if reports {
            self.last_report = StepReport::default();
        }
        // FMI 3.0 events (events.rs): off for FMI 2.0, one test per sub-step.
        let watch = self.events.event_mode_used;
        self.event_pending = false;
        // A loop that tests for its end once per sub-step, after the step: the
        // common single sub-step runs straight through.
        let mut k = 1;
        loop {
            if watch {
                self.mode_before.copy_from_slice(self.stepper.active_set());
            }
            let (x, u, w) = (&self.states, &self.pairs, &self.inputs);
            if let Err(why) = self.stepper.step(&self.lcs, x, u, w, self.time, hs) {
                return Err(self.failed_step(why, hs, k, n));
            }
            if reports {
                if let Some(event) = self.stepper.event() {
                    let mut r = event.report;
                    r.accumulation = r.accumulation.map(|local| self.time + local);
                    self.last_report.add(&r);
                }
            }
            self.stepper.take_result(&mut self.states, &mut self.pairs);
            if watch {
                let end = if k == n { t + h } else { t + k as f64 * hs };
                if let Some(stop) = self.sub_step_event(self.time, end, hs) {
                    self.time = stop;
                    break;
                }
            }
            if k == n {
                self.time = t + h;
                break;
            }
            self.time = t + k as f64 * hs;
            k += 1;
        }
        self.last_successful_time = self.time;
        if reports {
            self.totals.add(&self.last_report);
        }
        if tiny {
            let active = self.stepper.active_set();
            self.held.restore_if_same_mode(&mut self.pairs, active);
        }
        Ok(())
    }

    /// `do_step(t, h)` in one sub-step, neither watched for FMI 3.0 events nor
    /// reported: the loop below with `n = 1`, `watch` and `reports` false.
    #[inline(always)]
    fn single_step(&mut self, t: f64, h: f64) -> FmiResult<()> {
        self.time = t;
        let tiny = HeldMultipliers::is_tiny(t, h) && self.stepper.averages_multipliers();
        if tiny {
            self.held.hold(&self.pairs, self.stepper.active_set());
        }
        self.event_pending = false;
        let (x, u, w) = (&mut self.states, &mut self.pairs, &self.inputs);
        if let Err(why) = self.stepper.step_and_take(&self.lcs, x, u, w, t, h) {
            return Err(self.failed_step(why, h, 1, 1));
        }
        self.time = t + h;
        self.last_successful_time = self.time;
        if tiny {
            let active = self.stepper.active_set();
            self.held.restore_if_same_mode(&mut self.pairs, active);
        }
        Ok(())
    }

    /// Why `do_step(t, h)` is refused (the first condition that fails); kept off
    /// the step path.
    #[cold]
    #[inline(never)]
    fn refused_step(&self, t: f64, h: f64) -> FmiError {
        if let Err(e) = self.check(Call::DoStep) {
            return e;
        }
        if !(h > 0.0 && h.is_finite()) {
            return FmiError::error(format!(
                "communication step size {h} must be positive and finite"
            ));
        }
        if !t.is_finite() || (t - self.time).abs() > 1e-10 * self.time.abs().max(1.0) {
            return FmiError::error(format!(
                "currentCommunicationPoint {t} is not the FMU's time {}",
                self.time
            ));
        }
        match self.stop_time {
            Some(stop) if t + h > stop => FmiError::error(format!(
                "a step from t = {t} with h = {h} would end at {}, past the stop time {stop} set up for this run (by more than {STOP_TOLERANCE:e} of it); the FMU keeps its state at t = {}",
                t + h,
                self.time
            )),
            _ => FmiError::error(format!("t + h = {t} + {h} overflows")),
        }
    }

    /// Ends the run after sub-step `k` of `n` failed: the state stays at the last
    /// successful sub-step and the instance terminates.
    #[cold]
    #[inline(never)]
    fn failed_step(&mut self, why: StepError, hs: f64, k: usize, n: usize) -> FmiError {
        self.last_successful_time = self.time;
        self.terminated = true;
        self.phase = Phase::StepFailed;
        FmiError {
            severity: Severity::Discard,
            message: format!(
                "step from t = {} with h = {hs:e} (sub-step {k} of {n}) failed: {why}; the FMU keeps the state at t = {} and terminates",
                self.time, self.time
            ),
        }
    }

    /// Whether steps have a report ([`Instance::step_report`]): the
    /// event-driven scheme's, one test for the others.
    #[inline]
    pub fn reports_steps(&self) -> bool {
        self.stepper.event().is_some()
    }

    /// What the event-driven scheme did in the last step (None for the other schemes).
    pub fn step_report(&self) -> Option<StepReport> {
        self.stepper.event().map(|_| self.last_report)
    }

    /// Newton iterations per step since initialization (None unless the
    /// dynamics are nonlinear).
    pub fn newton_stats(&self) -> Option<&crate::scheme::NewtonStats> {
        self.stepper.newton_stats()
    }

    /// The event-driven scheme's counts since initialization (None for the others).
    pub fn run_report(&self) -> Option<StepReport> {
        self.stepper.event().map(|_| self.totals)
    }
}
