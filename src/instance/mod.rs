//! The simulation instance, the one core behind every FMI version and
//! interface type: the [`Instance`].
//!
//! An instance is one simulation of a model: parameters, inputs, states,
//! multipliers, the scheme's workspace and the FMI life cycle (Co-Simulation
//! with FMI 3.0's Event Mode and early return, [`model_exchange`]), in the
//! terms FMI 2.0 and 3.0 share. It is what the FMU's C functions of both
//! versions drive (the template's thin `fmi2`/`fmi3` shells), and `lcsfmu
//! simulate` drives the very same type, so all produce the same numbers. It
//! knows nothing of C: failures are [`FmiError`]s with a [`Severity`] and a
//! message, and each shell turns them into its version's status values and
//! logger calls.
//!
//! Guarantees: every call is checked against the state machine in [`state`];
//! a rejected call changes nothing; a step that fails leaves the states at the
//! last successful (sub-)step and reports a discard; no method allocates on the
//! `do_step` path.

mod directional;
mod events;
mod feedthrough;
mod indicators;
pub mod model_exchange;
mod report;
#[cfg(feature = "guid")]
pub mod resources;
pub mod snapshot;
pub mod state;
mod tiny_step;
pub mod variables;

use crate::lcp::Bound;
use crate::lcs::Lcs;
use crate::model::Model;
use crate::scheme::{StepError, StepReport, Stepper};
pub use events::EventOptions;
use feedthrough::Feedthrough;
use model_exchange::ModelExchange;
use snapshot::{Sizes, Snapshot};
use state::{allowed, Call, Interface, Phase};
use tiny_step::HeldMultipliers;
pub use tiny_step::TINY_STEP;
use variables::Kind;

/// How bad a failure is; the shell maps it to `fmi2Warning` ... `fmi2Fatal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Warning,
    Discard,
    Error,
    Fatal,
}

/// A refused or failed call, with the reason to log.
#[derive(Clone, Debug, PartialEq)]
pub struct FmiError {
    pub severity: Severity,
    pub message: String,
}

impl FmiError {
    pub fn error(message: impl Into<String>) -> Self {
        FmiError {
            severity: Severity::Error,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for FmiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.severity, self.message)
    }
}

pub type FmiResult<T> = Result<T, FmiError>;

/// The most sub-steps one communication step may be split into; beyond it the
/// request (a huge step with a small `max_step`) is refused instead of hanging.
pub const MAX_SUBSTEPS: f64 = 1e7;

/// One simulation of a model.
pub struct Instance {
    model: Model,
    guid: String,
    kinds: Vec<Kind>,
    lcs: Lcs,
    stepper: Stepper,
    feedthrough: Feedthrough,
    phase: Phase,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    last_successful_time: f64,
    terminated: bool,
    consistent: bool,
    params: Vec<f64>,
    inputs: Vec<f64>,
    states: Vec<f64>,
    pairs: Vec<f64>,
    /// What the event-driven scheme did in the last `do_step` (accumulation
    /// times absolute) and since initialization; zero for the other schemes.
    last_report: StepReport,
    totals: StepReport,
    /// The multipliers before a step at the rounding level of the time.
    held: HeldMultipliers,
    /// FMI 3.0 events (see [`events`]): what the importer handles, whether the
    /// last step met an event, and the active set before each internal step.
    events: EventOptions,
    event_pending: bool,
    mode_before: Vec<Bound>,
    /// Model Exchange (see [`model_exchange`]); `None`: Co-Simulation.
    exchange: Option<Box<ModelExchange>>,
}

impl Instance {
    /// A new instance in the `Instantiated` phase with the model's start values.
    pub fn new(model: Model, guid: impl Into<String>) -> Self {
        let nu = model.nu();
        let lcs = Lcs::new(&model);
        let stepper = Stepper::new(&model, &lcs);
        let feedthrough = Feedthrough::new(&model);
        let mut inst = Instance {
            feedthrough,
            kinds: variables::kinds(&model),
            lcs,
            stepper,
            guid: guid.into(),
            phase: Phase::Instantiated,
            time: 0.0,
            start_time: 0.0,
            stop_time: None,
            last_successful_time: 0.0,
            terminated: false,
            consistent: false,
            params: Vec::new(),
            inputs: Vec::new(),
            states: Vec::new(),
            pairs: vec![0.0; nu],
            last_report: StepReport::default(),
            totals: StepReport::default(),
            held: HeldMultipliers::new(nu),
            events: EventOptions::default(),
            event_pending: false,
            mode_before: vec![Bound::Free; nu],
            exchange: None,
            model,
        };
        inst.load_start_values();
        inst
    }

    /// Runs the steps at the compile-time sizes `NX`, `NU`, `NW`, as an FMU
    /// compiled for this model does; returns whether they apply (the theta-method
    /// on a model of these sizes, each at most [`crate::scheme::dims::FIXED_LIMIT`]).
    /// The same step code runs either way, so the numbers are the same bit for bit.
    pub fn specialize<const NX: usize, const NU: usize, const NW: usize>(&mut self) -> bool {
        self.stepper.specialize::<NX, NU, NW>()
    }

    fn load_start_values(&mut self) {
        self.params = self.model.default_parameters();
        self.inputs = self.model.inputs.iter().map(|v| v.start).collect();
        self.states = self.model.states.iter().map(|v| v.start).collect();
        self.pairs.fill(0.0);
    }

    pub fn model(&self) -> &Model {
        &self.model
    }
    pub fn guid(&self) -> &str {
        &self.guid
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn time(&self) -> f64 {
        self.time
    }
    pub fn terminated(&self) -> bool {
        self.terminated
    }
    pub fn last_successful_time(&self) -> f64 {
        self.last_successful_time
    }

    /// Refuses `call` unless the state machine allows it now.
    pub fn check(&self, call: Call) -> FmiResult<()> {
        let interface_ok = match call.interface() {
            Interface::Both => true,
            Interface::CoSimulation => self.exchange.is_none(),
            Interface::ModelExchange => self.exchange.is_some(),
        };
        if !interface_ok {
            return Err(self.wrong_interface(call));
        }
        if allowed(call, self.phase) {
            Ok(())
        } else {
            Err(FmiError::error(format!(
                "{call:?} is not allowed in phase {:?}",
                self.phase
            )))
        }
    }

    /// Why `call` does not belong to this instance's interface type.
    #[cold]
    fn wrong_interface(&self, call: Call) -> FmiError {
        let this = if self.exchange.is_some() {
            "Model Exchange"
        } else {
            "Co-Simulation"
        };
        FmiError::error(format!(
            "{call:?} does not belong to {this}, the interface type this instance was made for"
        ))
    }

    pub fn setup_experiment(&mut self, start: f64, stop: Option<f64>) -> FmiResult<()> {
        self.check(Call::SetupExperiment)?;
        if !start.is_finite() || stop.is_some_and(|s| !(s >= start)) {
            return Err(FmiError::error(format!(
                "setup: start time {start} and stop time {stop:?} are not a valid interval"
            )));
        }
        self.start_time = start;
        self.time = start;
        self.last_successful_time = start;
        self.stop_time = stop;
        Ok(())
    }

    pub fn enter_initialization_mode(&mut self) -> FmiResult<()> {
        self.check(Call::EnterInitializationMode)?;
        self.phase = Phase::InitializationMode;
        self.consistent = false;
        Ok(())
    }

    /// Assembles the matrices for the current parameters and computes the
    /// multipliers consistent with the initial state. A warning message is returned
    /// when no consistent multipliers exist (the first step resolves that).
    pub fn exit_initialization_mode(&mut self) -> FmiResult<Option<String>> {
        self.check(Call::ExitInitializationMode)?;
        if self.exchange.is_some() {
            return self.exit_initialization_model_exchange();
        }
        let warning = match self.make_consistent() {
            Ok(()) => None,
            Err(e) if e.severity == Severity::Warning => Some(e.message),
            Err(e) => {
                self.phase = Phase::Error;
                return Err(e);
            }
        };
        self.stepper.invalidate();
        // FMI 3.0 (2.3.4): an importer that uses Event Mode starts in it.
        self.phase = if self.events.event_mode_used {
            Phase::EventMode
        } else {
            Phase::StepComplete
        };
        self.last_successful_time = self.time;
        Ok(warning)
    }

    /// Assembles the LCS and solves for multipliers at the current instant, once.
    fn make_consistent(&mut self) -> FmiResult<()> {
        if self.consistent {
            return Ok(());
        }
        self.lcs.assemble(&self.model, &self.params).map_err(|e| {
            FmiError::error(format!("cannot initialize with these parameters: {e}"))
        })?;
        self.stepper.invalidate();
        self.feedthrough.invalidate();
        self.stepper.reset_active_set();
        self.consistent = true;
        match self
            .stepper
            .consistent_multipliers(&self.lcs, &self.states, &self.inputs, self.time)
        {
            Ok(_) => {
                self.pairs.copy_from_slice(self.stepper.multipliers());
                Ok(())
            }
            Err(e) => {
                for (u, (lo, hi)) in self
                    .pairs
                    .iter_mut()
                    .zip(self.lcs.lo.iter().zip(self.lcs.hi.iter()))
                {
                    *u = 0.0f64.clamp(*lo, *hi);
                }
                self.stepper.reset_active_set();
                // Not consistent: a read during initialization must not make the
                // exit from it skip the solve and, with it, this warning.
                self.consistent = false;
                Err(FmiError {
                    severity: Severity::Warning,
                    message: format!(
                        "no multipliers are consistent with the initial state at t = {} ({e}); they are reported as the point of their interval nearest 0 until the first step",
                        self.time
                    ),
                })
            }
        }
    }

    /// Advances from `t` (which must be the instance's time) by `h`.
    pub fn do_step(&mut self, t: f64, h: f64) -> FmiResult<()> {
        // One test on the common path; the refusal says which condition failed.
        // Comparisons with infinity instead of `is_finite`, which compiles to
        // integer bit tests: NaN fails every comparison, and with t finite and
        // h > 0, t + h can only overflow upwards.
        // `&` rather than `&&`: every test is cheap, and one branch beats six.
        let valid = allowed(Call::DoStep, self.phase)
            & (h > 0.0)
            & (h < f64::INFINITY)
            & (t.abs() < f64::INFINITY)
            & !((t - self.time).abs() > 1e-10 * self.time.abs().max(1.0))
            & (t + h < f64::INFINITY);
        if !valid {
            return Err(self.refused_step(t, h));
        }
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
        FmiError::error(format!("t + h = {t} + {h} overflows"))
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

    pub fn terminate(&mut self) -> FmiResult<()> {
        self.check(Call::Terminate)?;
        self.phase = Phase::Terminated;
        Ok(())
    }

    /// Back to `Instantiated` with start values, as after `fmi2Instantiate`.
    pub fn reset(&mut self) -> FmiResult<()> {
        self.check(Call::Reset)?;
        self.load_start_values();
        self.phase = Phase::Instantiated;
        (
            self.time,
            self.start_time,
            self.stop_time,
            self.last_successful_time,
        ) = (0.0, 0.0, None, 0.0);
        self.terminated = false;
        self.consistent = false;
        self.event_pending = false;
        self.stepper.invalidate();
        self.stepper.reset_active_set();
        self.stepper
            .set_stop_at_events(self.events.event_mode_used && self.events.early_return_allowed);
        (self.last_report, self.totals) = (StepReport::default(), StepReport::default());
        self.reset_model_exchange();
        Ok(())
    }

    fn kind(&self, vr: u32) -> FmiResult<Kind> {
        self.kinds.get(vr as usize).copied().ok_or_else(|| {
            FmiError::error(format!(
                "unknown value reference {vr} (this FMU has 0..{})",
                self.kinds.len()
            ))
        })
    }

    /// Name of a value reference, for messages.
    pub fn name(&self, vr: u32) -> &str {
        let vars = variables::variables(&self.model);
        match vars.get(vr as usize) {
            Some(v) => v.name,
            // A Model Exchange FMU's derivatives and indicators follow the variables.
            None => match self.kinds.get(vr as usize) {
                Some(Kind::Derivative(_)) => "der(...)",
                Some(Kind::Indicator(_)) => "an event indicator",
                _ => "?",
            },
        }
    }

    pub fn get_reals(&mut self, vrs: &[u32], values: &mut [f64]) -> FmiResult<()> {
        self.check(Call::GetValues)?;
        if vrs.len() != values.len() {
            return Err(FmiError::error(
                "value references and values differ in length",
            ));
        }
        // Only during initialization can multipliers be stale (start values or
        // inputs changed); after it every step leaves them consistent.
        if self.phase == Phase::InitializationMode
            && vrs
                .iter()
                .any(|&vr| matches!(self.kind(vr), Ok(Kind::Pair(_) | Kind::Output(_))))
        {
            match self.make_consistent() {
                Ok(()) => {}
                Err(e) if e.severity == Severity::Warning => {}
                Err(e) => return Err(e),
            }
        }
        self.refresh_pairs(vrs)?;
        for (&vr, v) in vrs.iter().zip(values.iter_mut()) {
            *v = match self.kind(vr)? {
                Kind::Time => self.time,
                Kind::Parameter(i) => self.params[i],
                Kind::Input(i) => self.inputs[i],
                Kind::State(i) => self.states[i],
                Kind::Pair(i) => self.pairs[i],
                Kind::Output(k) => self.output(k),
                Kind::Derivative(i) => self.derivative(i),
                Kind::Indicator(k) => self.indicator(k),
            };
        }
        Ok(())
    }

    fn output(&self, k: usize) -> f64 {
        let row = |m: &nalgebra::DMatrix<f64>, v: &[f64]| {
            m.row(k).iter().zip(v).map(|(a, b)| a * b).sum::<f64>()
        };
        let linear = self.lcs.h0[k]
            + row(&self.lcs.hx, &self.states)
            + row(&self.lcs.hu, &self.pairs)
            + row(&self.lcs.hw, &self.inputs);
        match &self.lcs.nl {
            Some(nl) if nl.has_outputs() => {
                let at = crate::model::program::Point {
                    x: &self.states,
                    u: &self.pairs,
                    w: &self.inputs,
                    t: self.time,
                };
                linear + nl.output(k, &at)
            }
            _ => linear,
        }
    }

    /// Sets values; all are checked before any is written, so a refused call changes nothing.
    pub fn set_reals(&mut self, vrs: &[u32], values: &[f64]) -> FmiResult<()> {
        self.check(Call::SetValues)?;
        if vrs.len() != values.len() {
            return Err(FmiError::error(
                "value references and values differ in length",
            ));
        }
        let before_init = matches!(self.phase, Phase::Instantiated | Phase::InitializationMode);
        for (&vr, &v) in vrs.iter().zip(values) {
            let kind = self.kind(vr)?;
            let name = || self.name(vr);
            let settable = match kind {
                Kind::Parameter(_) | Kind::State(_) => before_init,
                Kind::Input(_) => true,
                Kind::Time
                | Kind::Pair(_)
                | Kind::Output(_)
                | Kind::Derivative(_)
                | Kind::Indicator(_) => {
                    return Err(FmiError::error(format!(
                        "{} (value reference {vr}) is calculated and cannot be set",
                        name()
                    )))
                }
            };
            if !settable {
                return Err(FmiError::error(format!(
                    "{} (value reference {vr}) can only be set before initialization ends (phase is {:?})",
                    name(),
                    self.phase
                )));
            }
            if !v.is_finite() {
                return Err(FmiError::error(format!(
                    "{} (value reference {vr}): {v} is not a finite number",
                    name()
                )));
            }
        }
        let mut moved = false;
        for (&vr, &v) in vrs.iter().zip(values) {
            match self.kind(vr)? {
                Kind::Parameter(i) => self.params[i] = v,
                Kind::Input(i) => {
                    moved |= self.feedthrough.moved_by(i);
                    self.inputs[i] = v;
                }
                Kind::State(i) => self.states[i] = v,
                Kind::Time
                | Kind::Pair(_)
                | Kind::Output(_)
                | Kind::Derivative(_)
                | Kind::Indicator(_) => {
                    unreachable!("refused above")
                }
            }
        }
        if before_init {
            self.consistent = false;
        } else if self.exchange.is_some() {
            self.inputs_changed_model_exchange();
        } else if moved {
            self.follow_inputs()?;
        }
        Ok(())
    }

    /// Re-solves the block outputs that depend on inputs at once (see
    /// [`feedthrough`]). When they have no solution for the new inputs the
    /// values stay set, the outputs keep their last values, and the warning
    /// says why (the next step will tell whether the inputs can be followed).
    fn follow_inputs(&mut self) -> FmiResult<()> {
        let active = self.stepper.active_set();
        match self.feedthrough.solve(
            &self.lcs,
            &self.states,
            &self.inputs,
            &mut self.pairs,
            active,
        ) {
            Ok(_) => Ok(()),
            Err(info) => Err(FmiError {
                severity: Severity::Warning,
                message: format!(
                    "the inputs were set, but the block outputs that follow them have no solution for these values at t = {} (LCP status {:?}, method {:?}, residual {:e}); they keep their last values",
                    self.time, info.status, info.method, info.residual
                ),
            }),
        }
    }

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
        (self.time, self.start_time, self.stop_time) = (s.time, s.start_time, s.stop_time);
        self.last_successful_time = s.last_successful_time;
        self.terminated = s.terminated;
        self.consistent = s.consistent;
        self.params.copy_from_slice(&s.params);
        self.inputs.copy_from_slice(&s.inputs);
        self.states.copy_from_slice(&s.states);
        self.pairs.copy_from_slice(&s.pairs);
        self.stepper.restore(s.cached_step, &s.active_set);
        self.restore_exchange(s);
        self.feedthrough.invalidate();
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

    /// The multipliers and states, for callers that record trajectories.
    pub fn states(&self) -> &[f64] {
        &self.states
    }
    pub fn pairs(&self) -> &[f64] {
        &self.pairs
    }
    pub fn active_set(&self) -> &[Bound] {
        match self.model_exchange_mode() {
            Some(mode) => mode,
            None => self.stepper.active_set(),
        }
    }
}
