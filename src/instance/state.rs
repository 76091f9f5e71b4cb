//! The state machine of FMI 2.0 and 3.0, Co-Simulation and Model Exchange, as
//! one table.
//!
//! Each FMI function is allowed in a set of [`Phase`]s (FMI 2.0 standard,
//! sections 3.2.3 and 4.2.4; FMI 3.0, sections 2.3, 3.2 and 4.2); [`allowed`]
//! answers from a single mask table, so the rules live in one place instead of
//! being spread over the entry points of two shells. FMI 3.0's Step Mode is FMI
//! 2.0's stepComplete; its Event Mode exists only for an FMI 3.0 importer that
//! declared `eventModeUsed`, so an FMI 2.0 co-simulation instance never enters
//! it. A Model Exchange instance goes from initialization to Event Mode and
//! then between it and Continuous-Time Mode; it is never in Step Mode, and a
//! co-simulation instance never in Continuous-Time Mode, so the interface-specific
//! calls of one are refused in the other's phases by [`Call::interface`]. The FFI shells ask before every call, and
//! `lcsfmu simulate` drives the same [`Instance`](super::Instance) through the same
//! checks.

use serde::{Deserialize, Serialize};

/// Where an instance is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum Phase {
    Instantiated = 0,
    InitializationMode = 1,
    /// Initialized, ready for `fmi2DoStep` (the standard's slaveInitialized/stepComplete).
    StepComplete = 2,
    /// A step was discarded; the simulation cannot go on, but results may be read.
    StepFailed = 3,
    Terminated = 4,
    /// An error the instance cannot recover from without `fmi2Reset`.
    Error = 5,
    /// FMI 3.0 Event Mode (co-simulation with `eventModeUsed`): after
    /// initialization and `fmi3EnterEventMode`, until `fmi3EnterStepMode`.
    EventMode = 6,
    /// Model Exchange: the importer integrates the current mode's ODE.
    ContinuousTimeMode = 7,
}

impl Phase {
    pub fn from_u8(v: u8) -> Option<Phase> {
        Some(match v {
            0 => Phase::Instantiated,
            1 => Phase::InitializationMode,
            2 => Phase::StepComplete,
            3 => Phase::StepFailed,
            4 => Phase::Terminated,
            5 => Phase::Error,
            6 => Phase::EventMode,
            7 => Phase::ContinuousTimeMode,
            _ => return None,
        })
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The FMI functions that act on an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    SetDebugLogging,
    FreeInstance,
    SetupExperiment,
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    GetValues,
    SetValues,
    FmuState,
    GetDirectionalDerivative,
    SetRealInputDerivatives,
    GetRealOutputDerivatives,
    DoStep,
    CancelStep,
    GetStatus,
    /// FMI 3.0: `fmi3EnterEventMode`, `fmi3UpdateDiscreteStates`, `fmi3EnterStepMode`.
    EnterEventMode,
    UpdateDiscreteStates,
    EnterStepMode,
    /// Model Exchange (FMI 2.0 and 3.0).
    SetTime,
    SetContinuousStates,
    EnterContinuousTimeMode,
    CompletedIntegratorStep,
    GetDerivatives,
    GetContinuousStates,
    GetNominals,
    /// FMI 3.0: `fmi3GetNumberOfContinuousStates`, `fmi3GetNumberOfEventIndicators`.
    GetCounts,
}

/// Which interface type a call belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    Both,
    CoSimulation,
    ModelExchange,
}

impl Call {
    /// The interface type whose instances may make this call.
    pub const fn interface(self) -> Interface {
        match self {
            Call::SetRealInputDerivatives
            | Call::GetRealOutputDerivatives
            | Call::DoStep
            | Call::CancelStep
            | Call::GetStatus
            | Call::EnterStepMode => Interface::CoSimulation,
            Call::SetTime
            | Call::SetContinuousStates
            | Call::EnterContinuousTimeMode
            | Call::CompletedIntegratorStep
            | Call::GetDerivatives
            | Call::GetContinuousStates
            | Call::GetNominals
            | Call::GetCounts => Interface::ModelExchange,
            _ => Interface::Both,
        }
    }
}

const INST: u8 = Phase::Instantiated.bit();
const INIT: u8 = Phase::InitializationMode.bit();
const DONE: u8 = Phase::StepComplete.bit();
const FAIL: u8 = Phase::StepFailed.bit();
const TERM: u8 = Phase::Terminated.bit();
const ERR: u8 = Phase::Error.bit();
const EVENT: u8 = Phase::EventMode.bit();
const CONT: u8 = Phase::ContinuousTimeMode.bit();
const ANY: u8 = INST | INIT | DONE | FAIL | TERM | ERR | EVENT | CONT;

/// The phases in which `call` is legal.
const fn mask(call: Call) -> u8 {
    match call {
        // The counts are constants of the FMU: every phase may ask.
        Call::SetDebugLogging
        | Call::FreeInstance
        | Call::Reset
        | Call::FmuState
        | Call::GetCounts => ANY,
        Call::SetupExperiment | Call::EnterInitializationMode => INST,
        Call::ExitInitializationMode => INIT,
        Call::Terminate => DONE | FAIL | EVENT | CONT,
        Call::GetValues | Call::GetDirectionalDerivative => {
            INIT | DONE | FAIL | TERM | ERR | EVENT | CONT
        }
        Call::SetValues => INST | INIT | DONE | EVENT | CONT,
        Call::SetRealInputDerivatives => INST | INIT | DONE | EVENT,
        Call::GetRealOutputDerivatives => DONE | FAIL | TERM | ERR,
        Call::DoStep => DONE,
        // No step ever runs asynchronously, so there is never a step to cancel.
        Call::CancelStep => 0,
        Call::GetStatus => DONE | FAIL | TERM,
        Call::EnterEventMode => DONE | CONT,
        Call::UpdateDiscreteStates | Call::EnterStepMode => EVENT,
        // FMI 2.0 section 3.2.3 (the Reference FMUs' masks agree).
        Call::SetTime => EVENT | CONT,
        Call::EnterContinuousTimeMode => EVENT,
        Call::SetContinuousStates | Call::CompletedIntegratorStep => CONT,
        Call::GetDerivatives | Call::GetContinuousStates => EVENT | CONT | TERM | ERR,
        Call::GetNominals => INST | EVENT | CONT | TERM | ERR,
    }
}

/// Whether `call` is legal in `phase`.
pub fn allowed(call: Call, phase: Phase) -> bool {
    mask(call) & phase.bit() != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_follows_the_standard() {
        assert!(allowed(Call::DoStep, Phase::StepComplete));
        assert!(!allowed(Call::DoStep, Phase::Instantiated));
        assert!(!allowed(Call::DoStep, Phase::InitializationMode));
        assert!(!allowed(Call::DoStep, Phase::StepFailed));
        assert!(!allowed(Call::GetValues, Phase::Instantiated));
        assert!(allowed(Call::SetValues, Phase::Instantiated));
        assert!(!allowed(Call::SetValues, Phase::Terminated));
        assert!(!allowed(Call::Terminate, Phase::Terminated));
        assert!(allowed(Call::Reset, Phase::Error));
        assert!(!allowed(Call::CancelStep, Phase::StepComplete));
        assert!(!allowed(Call::DoStep, Phase::EventMode));
        assert!(allowed(Call::UpdateDiscreteStates, Phase::EventMode));
        assert!(!allowed(Call::UpdateDiscreteStates, Phase::StepComplete));
        assert!(allowed(Call::EnterEventMode, Phase::StepComplete));
        assert!(!allowed(Call::EnterStepMode, Phase::StepComplete));
        assert!(allowed(
            Call::SetContinuousStates,
            Phase::ContinuousTimeMode
        ));
        assert!(!allowed(Call::SetContinuousStates, Phase::EventMode));
        assert!(allowed(Call::EnterEventMode, Phase::ContinuousTimeMode));
        assert!(!allowed(Call::GetDerivatives, Phase::Instantiated));
        assert!(allowed(Call::Terminate, Phase::ContinuousTimeMode));
        assert_eq!(Call::DoStep.interface(), Interface::CoSimulation);
        assert_eq!(Call::GetDerivatives.interface(), Interface::ModelExchange);
        // FMI 3.0's counts are constants: any phase, Model Exchange only.
        assert!(allowed(Call::GetCounts, Phase::Instantiated));
        assert!(allowed(Call::GetCounts, Phase::Terminated));
        assert_eq!(Call::GetCounts.interface(), Interface::ModelExchange);
        for v in 0..=7 {
            assert_eq!(Phase::from_u8(v).map(|p| p as u8), Some(v));
        }
        assert_eq!(Phase::from_u8(8), None);
    }
}
