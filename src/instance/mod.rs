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
mod sampling;
mod saved;
pub mod snapshot;
pub mod state;
mod stepping;
mod tiny_step;
mod values;
pub mod variables;

use crate::lcp::Bound;
use crate::model::Model;
use crate::scheme::{StepReport, Stepper};
use crate::system::lcs::Lcs;
pub use events::EventOptions;
use feedthrough::Feedthrough;
use model_exchange::ModelExchange;
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

/// How far past a defined stop time a step may end, relative to the stop time.
/// FMI asks for an error from a step past the stop time, and a master that
/// asks one step too many overshoots by a whole step. But masters land on the
/// stop time only to within their own rounding: one that accumulates its time
/// (`t += h`) ends up to thousands of ulps past it (20 s in steps of 1e-3: 411
/// ulps; 0.03 s in steps of 1e-6: 2,695 ulps, 3e-13 of it), and FMPy takes a
/// communication point within `math.isclose` (1e-9, relative) of the stop time
/// for the stop time itself, without clipping it (a 0.9999999995 s run in
/// steps of 0.1 ends with a step to 1.0). A tolerance of a few ulps would
/// refuse those last steps; this one is FMPy's.
pub const STOP_TOLERANCE: f64 = 1e-9;

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
    /// The latest end a step may have: the stop time and [`STOP_TOLERANCE`] of
    /// it when one is defined, `f64::MAX` otherwise (so the one test also
    /// refuses an end that overflows). Set only by [`Instance::set_stop_time`].
    step_end_limit: f64,
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
    /// The next sample of each `[[discrete]]` partition (see [`sampling`]).
    sampling: sampling::Sampling,
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
            step_end_limit: f64::MAX,
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
            sampling: sampling::Sampling::new(&model.sampled),
            model,
        };
        inst.load_start_values();
        inst
    }

    /// Runs the steps at the compile-time sizes `NX`, `NU`, `NW`, as an FMU
    /// compiled for this model does; returns whether they apply (the affine
    /// theta-method or a linear mechanical scheme on a model of these sizes,
    /// each at most [`crate::scheme::dims::FIXED_LIMIT`]).
    /// The same step code runs either way, so the numbers are the same bit for bit.
    pub fn specialize<const NX: usize, const NU: usize, const NW: usize>(&mut self) -> bool {
        self.stepper.specialize::<NX, NU, NW>()
    }

    /// [`Instance::specialize`] for a binary built for every model (the
    /// prebuilt runtime), which cannot know the sizes when it is compiled:
    /// the step is compiled at each of a few common sizes, and the one that is
    /// this model's runs (returns whether one is). The sizes are those of the
    /// smallest first-order models, where the fixed-size step saves the most
    /// (about half the step; a larger model's step is mostly its arithmetic):
    /// 1 or 2 states, 1 to 3 pairs and at most one input. They cover 10 of the
    /// 12 bundled first-order models with one LCP per step (all but
    /// servo_deadzone, 6 pairs, and square_helix, 3 states) and, among the
    /// mechanical ones, bouncing_ball (one coordinate, one contact); each size
    /// costs the runtime the code of its steps (see the performance page for
    /// the runtime's size).
    // Inlined: only the runtime, and the tests that check it, compile these steps.
    #[inline]
    pub fn specialize_common(&mut self) -> bool {
        macro_rules! first_of {
            ($(($nx:literal, $nu:literal, $nw:literal)),*) => {
                false $(|| self.specialize::<$nx, $nu, $nw>())*
            };
        }
        first_of!(
            (1, 1, 0),
            (1, 1, 1),
            (1, 2, 0),
            (1, 2, 1),
            (1, 3, 0),
            (1, 3, 1),
            (2, 1, 0),
            (2, 1, 1),
            (2, 2, 0),
            (2, 2, 1),
            (2, 3, 0),
            (2, 3, 1)
        )
    }

    fn load_start_values(&mut self) {
        self.params = self.model.default_parameters();
        self.inputs = self.model.inputs.iter().map(|v| v.start).collect();
        // The partitions' columns: held outputs are computed at initialization.
        for p in &self.model.sampled {
            self.inputs.extend(p.outputs.iter().map(|_| 0.0));
            self.inputs.extend(p.states.iter().map(|d| d.start));
        }
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
        self.set_stop_time(stop);
        Ok(())
    }

    /// The stop time and, with it, the latest end a step may have.
    fn set_stop_time(&mut self, stop: Option<f64>) {
        self.stop_time = stop;
        self.step_end_limit = stop.map_or(f64::MAX, |s| s + STOP_TOLERANCE * s.abs());
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
        let mut warning = match self.make_consistent() {
            Ok(()) => None,
            Err(e) if e.severity == Severity::Warning => Some(e.message),
            Err(e) => {
                self.phase = Phase::Error;
                return Err(e);
            }
        };
        // Held outputs enter the continuous part like inputs: once they are
        // set at the start, its multipliers are solved again for them.
        if self.start_sampling() {
            self.consistent = false;
            warning = match self.make_consistent() {
                Ok(()) => None,
                Err(e) if e.severity == Severity::Warning => Some(e.message),
                Err(e) => {
                    self.phase = Phase::Error;
                    return Err(e);
                }
            };
        }
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
        (self.time, self.start_time, self.last_successful_time) = (0.0, 0.0, 0.0);
        self.set_stop_time(None);
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
