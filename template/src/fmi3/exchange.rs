//! The FMI 3.0 Model Exchange functions: instantiation, the 10 of the interface
//! type and the directional and adjoint derivatives, over the same core as FMI 2.0's
//! (`lcsfmu::instance::model_exchange`).
//!
//! Every FMI 3.0 binary exports them (FMI 3.0 §2.5); on an instance that is
//! not Model Exchange (a Co-Simulation one, or any instance of an FMU that does
//! not declare Model Exchange, whose instantiation already refuses) the core's
//! state table refuses them with the reason. What differs from FMI 2.0's
//! [`crate::fmi2::exchange`]: `fmi3CompletedIntegratorStep` returns its flags the
//! same way, `fmi3UpdateDiscreteStates` (in [`super::life`]) replaces
//! `fmi2NewDiscreteStates`, the counts of states and indicators are functions,
//! and the derivative functions take `nSeed` and `nSensitivity`. Each goes
//! through [`enter`]; nothing here allocates on the success path.
#![allow(non_snake_case)]

use super::ffi::*;
use super::life::refuse;
use crate::shell::{c_str, enter, instance_name, out, slice, slice_mut, Component, Sink};
use lcsfmu::instance::state::Call;
use lcsfmu::instance::{FmiError, FmiResult};
use std::panic::catch_unwind;

const OK: FmiResult<fmi3Status> = Ok(fmi3Status::fmi3OK);

#[no_mangle]
pub extern "C" fn fmi3InstantiateModelExchange(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
) -> fmi3Instance {
    let result = catch_unwind(|| {
        let what = "fmi3InstantiateModelExchange";
        let sink = Sink::Fmi3 {
            logger: logMessage,
            environment: instanceEnvironment,
        };
        // SAFETY: the importer passes NULL or valid strings.
        let name = unsafe { instance_name(instanceName) };
        if !crate::interfaces::declared().1 {
            return refuse(
                sink,
                &name,
                what,
                "Model Exchange is not provided: this FMU is Co-Simulation only (lcsfmu build --interface cs,me makes one with both)",
            );
        }
        let token = unsafe { c_str(instantiationToken) };
        let mut instance =
            match crate::model_source::instance(token.as_deref(), None, "instantiationToken") {
                Ok(i) => i,
                Err(e) => return refuse(sink, &name, what, &e),
            };
        if let Err(e) = instance.use_model_exchange() {
            return refuse(sink, &name, what, &e.message);
        }
        instance.expose_event_indicators();
        let comp = Component::new(instance, name, sink, loggingOn);
        Box::into_raw(Box::new(comp)) as fmi3Instance
    });
    result.unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3EnterContinuousTimeMode", |comp| {
        comp.instance.enter_continuous_time_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3CompletedIntegratorStep(
    instance: fmi3Instance,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    enterEventMode: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    enter(instance, "fmi3CompletedIntegratorStep", |comp| {
        // SAFETY: both are NULL or writable.
        let (event, stop) = unsafe {
            (
                out(enterEventMode, "enterEventMode")?,
                out(terminateSimulation, "terminateSimulation")?,
            )
        };
        let done = comp.instance.completed_integrator_step()?;
        (*event, *stop) = (done.enter_event_mode, false);
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status {
    enter(instance, "fmi3SetTime", |comp| {
        comp.instance.set_time(time)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3SetContinuousStates", |comp| {
        // SAFETY: the importer passes nContinuousStates values.
        let x = unsafe { slice(continuousStates, nContinuousStates, "continuousStates")? };
        comp.instance.set_continuous_states(x)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: fmi3Instance,
    derivatives: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetContinuousStateDerivatives", |comp| {
        // SAFETY: the importer passes room for nContinuousStates values.
        let d = unsafe { slice_mut(derivatives, nContinuousStates, "derivatives")? };
        comp.instance.get_derivatives(d)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetEventIndicators(
    instance: fmi3Instance,
    eventIndicators: *mut fmi3Float64,
    nEventIndicators: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetEventIndicators", |comp| {
        // SAFETY: the importer passes room for nEventIndicators values.
        let z = unsafe { slice_mut(eventIndicators, nEventIndicators, "eventIndicators")? };
        comp.instance.get_event_indicators(z)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetContinuousStates", |comp| {
        // SAFETY: the importer passes room for nContinuousStates values.
        let x = unsafe { slice_mut(continuousStates, nContinuousStates, "continuousStates")? };
        comp.instance.get_continuous_states(x)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: fmi3Instance,
    nominals: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNominalsOfContinuousStates", |comp| {
        // SAFETY: the importer passes room for nContinuousStates values.
        let x = unsafe { slice_mut(nominals, nContinuousStates, "nominals")? };
        comp.instance.get_nominals(x)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: fmi3Instance,
    nEventIndicators: *mut usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNumberOfEventIndicators", |comp| {
        comp.instance.check(Call::GetCounts)?;
        // SAFETY: nEventIndicators is NULL or writable.
        unsafe {
            *out(nEventIndicators, "nEventIndicators")? = comp.instance.event_indicator_count()
        };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNumberOfContinuousStates", |comp| {
        comp.instance.check(Call::GetCounts)?;
        // SAFETY: nContinuousStates is NULL or writable.
        unsafe { *out(nContinuousStates, "nContinuousStates")? = comp.instance.model().nx() };
        OK
    })
}

/// The arrays of a directional or adjoint derivative call, as slices.
struct DerivativeArrays<'a> {
    unknowns: &'a [fmi3ValueReference],
    knowns: &'a [fmi3ValueReference],
    seed: &'a [fmi3Float64],
    sensitivity: &'a mut [fmi3Float64],
}

impl DerivativeArrays<'_> {
    /// # Safety
    /// Each pointer is NULL or points to as many elements as its length says.
    unsafe fn of(
        unknowns: (*const fmi3ValueReference, usize),
        knowns: (*const fmi3ValueReference, usize),
        seed: (*const fmi3Float64, usize),
        sensitivity: (*mut fmi3Float64, usize),
    ) -> FmiResult<Self> {
        Ok(DerivativeArrays {
            unknowns: slice(unknowns.0, unknowns.1, "unknowns")?,
            knowns: slice(knowns.0, knowns.1, "knowns")?,
            seed: slice(seed.0, seed.1, "seed")?,
            sensitivity: slice_mut(sensitivity.0, sensitivity.1, "sensitivity")?,
        })
    }
}

/// Scalars only: as many seeds as knowns (directional) or unknowns (adjoint),
/// and as many sensitivities as the other.
fn scalars(nSeed: usize, seeds_for: usize, nSensitivity: usize, out_for: usize) -> FmiResult<()> {
    if nSeed == seeds_for && nSensitivity == out_for {
        return Ok(());
    }
    Err(FmiError::error(format!(
        "nSeed = {nSeed} and nSensitivity = {nSensitivity} for {seeds_for} and {out_for} value references: every variable of this FMU is a scalar"
    )))
}

#[no_mangle]
pub extern "C" fn fmi3GetDirectionalDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetDirectionalDerivative", |comp| {
        scalars(nSeed, nKnowns, nSensitivity, nUnknowns)?;
        // SAFETY: the importer passes arrays of the announced lengths.
        let a = unsafe {
            DerivativeArrays::of(
                (unknowns, nUnknowns),
                (knowns, nKnowns),
                (seed, nSeed),
                (sensitivity, nSensitivity),
            )?
        };
        comp.instance
            .directional_derivative(a.unknowns, a.knowns, a.seed, a.sensitivity)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetAdjointDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetAdjointDerivative", |comp| {
        scalars(nSeed, nUnknowns, nSensitivity, nKnowns)?;
        // SAFETY: the importer passes arrays of the announced lengths.
        let a = unsafe {
            DerivativeArrays::of(
                (unknowns, nUnknowns),
                (knowns, nKnowns),
                (seed, nSeed),
                (sensitivity, nSensitivity),
            )?
        };
        comp.instance
            .adjoint_derivative(a.unknowns, a.knowns, a.seed, a.sensitivity)?;
        OK
    })
}
