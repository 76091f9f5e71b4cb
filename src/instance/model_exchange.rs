//! Model Exchange on the core [`Instance`]: the importer integrates, the
//! instance gives the current mode's derivatives and guards, and changes the
//! mode in Event Mode.
//!
//! The life cycle (one table, [`super::state`]): `Instantiated` →
//! `InitializationMode` → (exit: the selection LCP picks the first mode and the
//! start state is projected onto its constraints) `EventMode` ⇄
//! `ContinuousTimeMode` → `Terminated`. In Continuous-Time Mode the mode is
//! frozen: the derivatives are its ODE (linear for a first-order LCS, with
//! the free pairs solved at each state for a nonlinear model, at the time the
//! importer set) and the event indicators its guards (see
//! [`crate::scheme::exchange`]: two slots per pair, continuous, nonnegative
//! while the mode holds). Each update of the discrete states in Event Mode
//! asks the engine for the mode at the current state: the same mode when it
//! still describes the motion, else the next one, with the state projected
//! onto its constraints (`valuesOfContinuousStatesChanged` is set at every
//! change of mode, projected or not), and the
//! documented accumulation rule when events crowd. One update always settles
//! an event: a second one is never needed at the same instant. The time
//! events are the jumps of a nonlinear model's sources in time, reported as
//! `nextEventTime` after each update (`scheme::exchange::time_events`). An FMU
//! state holds the engine's mode and event history
//! ([`crate::scheme::exchange::History`]), so a restored run repeats the
//! original bit for bit.
//!
//! The sample instants of `[[discrete]]` partitions are time events too:
//! the update at one processes the samples due (the partitions read the
//! current mode's multipliers there), then chooses the mode for the new held
//! values, and reports `valuesOfContinuousStatesChanged` since the ODE the
//! importer integrates changed with them (see the `sampling` module); between
//! samples the held values are inputs that do not change.
//!
//! Mechanical models are refused ([`refusal`]): their impacts are velocity
//! jumps whose Newton restitution and friction cones have no mode ODE in this
//! engine. Nothing on the per-call path allocates: the engine's workspace is
//! sized when the instance is made.

mod engine;
mod events;
mod fmu_state;

use super::state::{Call, Phase};
use super::variables::Kind;
use super::{FmiError, FmiResult, Instance, Severity};
use crate::model::Model;
pub(super) use engine::Engine;

/// The state tolerance of the event logic when the importer gives none in
/// `fmi2SetupExperiment` / `fmi3EnterInitializationMode` (see
/// `docs/src/model-exchange.md`): guards within it (times their gradient) count
/// as zero when an event decides the next mode.
pub const DEFAULT_TOLERANCE: f64 = 1e-8;

/// Why `model` cannot be built as a Model Exchange FMU, or `None`.
pub fn refusal(model: &Model) -> Option<String> {
    if model.mechanics.is_some() {
        return Some(format!(
            "{} is a mechanical model: its impacts are velocity jumps (Newton restitution, friction) that Model Exchange cannot give an ODE per mode here; build it with --interface cs",
            model.name
        ));
    }
    None
}

/// Refuses a tolerance outside (0, 1) (a call that sets it checks first, so
/// that a refusal changes nothing).
pub fn check_tolerance(tolerance: Option<f64>) -> FmiResult<()> {
    match tolerance {
        Some(tol) if !(tol > 0.0 && tol < 1.0) => Err(FmiError::error(format!(
            "tolerance {tol} must be in (0, 1)"
        ))),
        _ => Ok(()),
    }
}

/// The Model Exchange part of an instance.
pub(super) struct ModelExchange {
    pub(super) engine: Engine,
    tolerance: Option<f64>,
    /// The multipliers and derivatives are those of the current mode at the
    /// current state and inputs.
    pub(super) pairs_current: bool,
    pub(super) xdot: Vec<f64>,
    /// The event indicators, refreshed with `xdot` (FMI 3.0 names them).
    pub(super) z: Vec<f64>,
    /// Seeds of a directional derivative, by state and by input.
    pub(super) seed_x: Vec<f64>,
    pub(super) seed_w: Vec<f64>,
}

/// What an update of the discrete states says to the importer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiscreteUpdate {
    /// The mode changed (and with it the ODE), the state possibly projected
    /// onto the new mode's constraints: FMI's `valuesOfContinuousStatesChanged`,
    /// which tells an importer to restart its integrator.
    pub values_changed: bool,
    /// The next time event (a jump of a source in time), if one is known.
    pub next_event_time: Option<f64>,
}

/// What `fmi2CompletedIntegratorStep` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCompleted {
    /// A guard is below zero beyond its tolerance: the importer stepped over
    /// an indicator's zero without locating it.
    pub enter_event_mode: bool,
}

impl ModelExchange {
    fn new(model: &Model) -> Self {
        ModelExchange {
            engine: Engine::new(model, DEFAULT_TOLERANCE),
            tolerance: None,
            pairs_current: false,
            xdot: vec![0.0; model.nx()],
            // No guard before the first mode exists, as for an unused slot.
            z: vec![1.0; crate::scheme::exchange::indicator_count(model.nu())],
            seed_x: vec![0.0; model.nx()],
            seed_w: vec![0.0; model.nw()],
        }
    }
}

impl Instance {
    /// Makes this instance a Model Exchange one; only in the `Instantiated`
    /// phase (the shells call it at instantiation when the importer asks for
    /// Model Exchange). Refused for the models [`refusal`] names.
    pub fn use_model_exchange(&mut self) -> FmiResult<()> {
        if self.phase != Phase::Instantiated {
            return Err(FmiError::error(
                "the interface type is chosen at instantiation only",
            ));
        }
        if let Some(why) = refusal(&self.model) {
            return Err(FmiError::error(why));
        }
        self.exchange = Some(Box::new(ModelExchange::new(&self.model)));
        self.expose_derivatives();
        Ok(())
    }

    /// Gives the `der(x)` variables value references, as the description of an
    /// FMU that declares Model Exchange lists them: a Co-Simulation instance of
    /// such an FMU (`--interface cs,me`) reads them too.
    pub fn expose_derivatives(&mut self) {
        if self.kinds.len() == super::variables::kinds(&self.model).len() {
            self.kinds = super::variables::kinds_with_derivatives(&self.model);
        }
    }

    /// Whether the instance is a Model Exchange one.
    pub fn is_model_exchange(&self) -> bool {
        self.exchange.is_some()
    }

    /// Event indicators of this model (Model Exchange: two per pair).
    pub fn event_indicator_count(&self) -> usize {
        crate::scheme::exchange::indicator_count(self.model.nu())
    }

    /// The importer's tolerance (`fmi2SetupExperiment`), used as the state
    /// tolerance of the event logic; `None` keeps [`DEFAULT_TOLERANCE`].
    pub fn set_tolerance(&mut self, tolerance: Option<f64>) -> FmiResult<()> {
        check_tolerance(tolerance)?;
        if let Some(me) = self.exchange.as_mut() {
            me.tolerance = tolerance;
        }
        Ok(())
    }

    /// The Model Exchange part after `check(call)`.
    pub(super) fn exchange_for(&mut self, call: Call) -> FmiResult<&mut ModelExchange> {
        self.check(call)?;
        self.exchange.as_deref_mut().ok_or_else(|| {
            FmiError::error(format!("{call:?}: this instance is not Model Exchange"))
        })
    }

    /// Leaves initialization for Event Mode: selects the first mode and
    /// projects the start state onto its constraints.
    pub(super) fn exit_initialization_model_exchange(&mut self) -> FmiResult<Option<String>> {
        let mut warning = match self.make_consistent() {
            Ok(()) => None,
            Err(e) if e.severity == Severity::Warning => Some(e.message),
            Err(e) => {
                self.phase = Phase::Error;
                return Err(e);
            }
        };
        // Held outputs enter the ODE like inputs: they are set (and the
        // samples at the start time processed) before the first mode is chosen.
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
        let model = &self.model;
        let me = self
            .exchange
            .as_deref_mut()
            .expect("a Model Exchange instance");
        let tol = me.tolerance.unwrap_or(DEFAULT_TOLERANCE);
        // The engine is made afresh for the tolerance (once per run, not per call).
        me.engine = Engine::new(model, tol);
        me.pairs_current = false;
        if let Err(why) = me
            .engine
            .enter(&self.lcs, self.time, &mut self.states, &self.inputs)
        {
            self.phase = Phase::Error;
            return Err(FmiError::error(format!(
                "no mode describes the motion from the initial state at t = {}: {why}",
                self.time
            )));
        }
        self.phase = Phase::EventMode;
        Ok(warning)
    }

    /// `fmi2SetTime`: the time of the next calls (a nonlinear model's sources
    /// read it; outputs may).
    pub fn set_time(&mut self, t: f64) -> FmiResult<()> {
        self.exchange_for(Call::SetTime)?;
        if !t.is_finite() {
            return Err(FmiError::error(format!("time {t} is not a finite number")));
        }
        // A nonlinear model's sources read the time: its multipliers,
        // derivatives and indicators follow on the next read.
        let me = self.exchange.as_deref_mut().expect("checked");
        if !me.engine.is_linear() && t.to_bits() != self.time.to_bits() {
            me.pairs_current = false;
        }
        self.time = t;
        Ok(())
    }

    /// `fmi2SetContinuousStates`: all or nothing; a non-finite value is refused
    /// and the states stay as they were.
    pub fn set_continuous_states(&mut self, x: &[f64]) -> FmiResult<()> {
        self.exchange_for(Call::SetContinuousStates)?;
        self.check_state_count(x.len())?;
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(FmiError::error(format!(
                "state {} = {}: not a finite number; the states are kept",
                self.model.states[i].name, x[i]
            )));
        }
        self.states.copy_from_slice(x);
        self.exchange.as_deref_mut().expect("checked").pairs_current = false;
        Ok(())
    }

    fn check_state_count(&self, n: usize) -> FmiResult<()> {
        if n == self.model.nx() {
            return Ok(());
        }
        Err(FmiError::error(format!(
            "{n} continuous states passed; this FMU has {}",
            self.model.nx()
        )))
    }

    /// The current mode's `x'` at the current state and inputs.
    pub fn get_derivatives(&mut self, out: &mut [f64]) -> FmiResult<()> {
        self.exchange_for(Call::GetDerivatives)?;
        self.check_state_count(out.len())?;
        let me = self.exchange.as_deref_mut().expect("checked");
        me.engine
            .derivatives(&self.lcs, self.time, &self.states, &self.inputs, out)
            .map_err(|why| mode_failed(self.time, why))
    }

    /// The current mode's guards (see [`crate::scheme::exchange`]).
    pub fn get_event_indicators(&mut self, out: &mut [f64]) -> FmiResult<()> {
        self.exchange_for(Call::GetDerivatives)?;
        let n = self.event_indicator_count();
        if out.len() != n {
            return Err(FmiError::error(format!(
                "{} event indicators requested; this FMU has {n}",
                out.len()
            )));
        }
        let me = self.exchange.as_deref_mut().expect("checked");
        me.engine
            .indicators(&self.lcs, self.time, &self.states, &self.inputs, out)
            .map_err(|why| mode_failed(self.time, why))
    }

    pub fn get_continuous_states(&mut self, out: &mut [f64]) -> FmiResult<()> {
        self.exchange_for(Call::GetContinuousStates)?;
        self.check_state_count(out.len())?;
        out.copy_from_slice(&self.states);
        Ok(())
    }

    /// Nominal values: 1 for every state (the model declares no scales).
    pub fn get_nominals(&mut self, out: &mut [f64]) -> FmiResult<()> {
        self.exchange_for(Call::GetNominals)?;
        self.check_state_count(out.len())?;
        out.fill(1.0);
        Ok(())
    }

    pub fn enter_continuous_time_mode(&mut self) -> FmiResult<()> {
        self.exchange_for(Call::EnterContinuousTimeMode)?;
        self.phase = Phase::ContinuousTimeMode;
        Ok(())
    }

    /// The current mode of a Model Exchange instance.
    pub(super) fn model_exchange_mode(&self) -> Option<&[crate::lcp::Bound]> {
        self.exchange.as_ref().map(|me| me.engine.active_set())
    }

    /// Events the engine resolved so far (Model Exchange), for reports.
    pub fn model_exchange_events(&self) -> Option<u64> {
        self.exchange.as_ref().map(|me| me.engine.events())
    }

    /// Brings the multipliers to the current mode at the current state before
    /// pairs or outputs are read (Model Exchange, after initialization).
    pub(super) fn refresh_pairs(&mut self, vrs: &[u32]) -> FmiResult<()> {
        let Some(me) = self.exchange.as_deref_mut() else {
            return Ok(());
        };
        if me.pairs_current
            || matches!(self.phase, Phase::Instantiated | Phase::InitializationMode)
            || !vrs.iter().any(|&vr| {
                matches!(
                    self.kinds.get(vr as usize),
                    Some(
                        Kind::Pair(_) | Kind::Output(_) | Kind::Derivative(_) | Kind::Indicator(_)
                    )
                )
            })
        {
            return Ok(());
        }
        let (t, x, w) = (self.time, &self.states, &self.inputs);
        me.engine
            .multipliers(&self.lcs, t, x, w, &mut self.pairs)
            .and_then(|()| me.engine.derivatives(&self.lcs, t, x, w, &mut me.xdot))
            .and_then(|()| me.engine.indicators(&self.lcs, t, x, w, &mut me.z))
            .map_err(|why| mode_failed(self.time, why))?;
        me.pairs_current = true;
        Ok(())
    }

    /// `der(x_i)`: Model Exchange, as refreshed by [`Instance::refresh_pairs`]
    /// (0 before the first mode exists); Co-Simulation, `A x + B u + E w + f`
    /// at the current state with the multipliers of the last step (0 before the
    /// matrices are assembled).
    pub(super) fn derivative(&self, i: usize) -> f64 {
        if let Some(me) = &self.exchange {
            return me.xdot[i];
        }
        let l = &self.lcs;
        if l.a.nrows() <= i {
            return 0.0;
        }
        let row = |m: &nalgebra::DMatrix<f64>, v: &[f64]| {
            m.row(i).iter().zip(v).map(|(a, b)| a * b).sum::<f64>()
        };
        row(&l.a, &self.states) + row(&l.b, &self.pairs) + row(&l.e, &self.inputs) + l.f[i]
    }

    /// After inputs were set: the multipliers follow on the next read.
    pub(super) fn inputs_changed_model_exchange(&mut self) {
        if let Some(me) = self.exchange.as_deref_mut() {
            me.pairs_current = false;
        }
    }

    /// Back to the start (`fmi2Reset`): a fresh engine.
    pub(super) fn reset_model_exchange(&mut self) {
        if let Some(me) = self.exchange.as_deref_mut() {
            *me = ModelExchange::new(&self.model);
        }
    }
}

#[cold]
pub(super) fn mode_failed(t: f64, why: crate::scheme::StepError) -> FmiError {
    FmiError::error(format!(
        "the current mode has no ODE for these inputs at t = {t}: {why}"
    ))
}
