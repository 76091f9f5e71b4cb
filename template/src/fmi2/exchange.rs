//! The 10 FMI 2.0 Model Exchange functions, exported when the FMU declares
//! Model Exchange (the template's `model-exchange` feature).
//!
//! Each converts its C arguments with the checked helpers of [`crate::shell`]
//! and calls the core `Instance` (its `model_exchange` module) inside
//! [`enter`]: NULL component, panic guard, the one state table, status mapping
//! and `%`-safe logging as for every other function. Nothing here allocates on
//! the success path: the slices are the importer's arrays.
#![allow(non_snake_case)]

use crate::fmi2::ffi::*;
use crate::shell::{enter, out, slice, slice_mut, Component, Level};
use lcsfmu::instance::FmiResult;

const OK: FmiResult<fmi2Status> = Ok(fmi2Status::fmi2OK);

fn boolean(b: bool) -> fmi2Boolean {
    if b {
        fmi2True
    } else {
        fmi2False
    }
}

/// Logs the mode after an event (logEvents).
#[cold]
fn log_event(comp: &Component, projected: bool) {
    let mode = comp.instance.active_set();
    let projected = if projected { ", state projected" } else { "" };
    let t = comp.instance.time();
    comp.log(
        Level::Ok,
        &format!("fmi2NewDiscreteStates: t = {t}, mode {mode:?}{projected}"),
    );
}

#[no_mangle]
pub extern "C" fn fmi2EnterEventMode(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2EnterEventMode", |comp| {
        comp.instance.enter_event_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2NewDiscreteStates(
    c: fmi2Component,
    eventInfo: *mut fmi2EventInfo,
) -> fmi2Status {
    enter(c, "fmi2NewDiscreteStates", |comp| {
        // SAFETY: eventInfo is NULL or writable.
        let info = unsafe { out(eventInfo, "eventInfo")? };
        let update = comp.instance.new_discrete_states()?;
        // One update settles an event; the next time event is a jump of a
        // source in time (nonlinear models only).
        *info = fmi2EventInfo {
            newDiscreteStatesNeeded: fmi2False,
            terminateSimulation: fmi2False,
            nominalsOfContinuousStatesChanged: fmi2False,
            valuesOfContinuousStatesChanged: boolean(update.values_changed),
            nextEventTimeDefined: boolean(update.next_event_time.is_some()),
            nextEventTime: update.next_event_time.unwrap_or(0.0),
        };
        if comp.logging_on() {
            log_event(comp, update.values_changed);
        }
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2EnterContinuousTimeMode", |comp| {
        comp.instance.enter_continuous_time_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2CompletedIntegratorStep(
    c: fmi2Component,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
    enterEventMode: *mut fmi2Boolean,
    terminateSimulation: *mut fmi2Boolean,
) -> fmi2Status {
    enter(c, "fmi2CompletedIntegratorStep", |comp| {
        // SAFETY: both are NULL or writable.
        let (event, stop) = unsafe {
            (
                out(enterEventMode, "enterEventMode")?,
                out(terminateSimulation, "terminateSimulation")?,
            )
        };
        let done = comp.instance.completed_integrator_step()?;
        *event = boolean(done.enter_event_mode);
        *stop = fmi2False;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetTime(c: fmi2Component, time: fmi2Real) -> fmi2Status {
    enter(c, "fmi2SetTime", |comp| {
        comp.instance.set_time(time)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetContinuousStates(
    c: fmi2Component,
    x: *const fmi2Real,
    nx: usize,
) -> fmi2Status {
    enter(c, "fmi2SetContinuousStates", |comp| {
        // SAFETY: the importer passes nx values.
        let x = unsafe { slice(x, nx, "x")? };
        comp.instance.set_continuous_states(x)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetDerivatives(
    c: fmi2Component,
    derivatives: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    enter(c, "fmi2GetDerivatives", |comp| {
        // SAFETY: the importer passes room for nx values.
        let d = unsafe { slice_mut(derivatives, nx, "derivatives")? };
        comp.instance.get_derivatives(d)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetEventIndicators(
    c: fmi2Component,
    eventIndicators: *mut fmi2Real,
    ni: usize,
) -> fmi2Status {
    enter(c, "fmi2GetEventIndicators", |comp| {
        // SAFETY: the importer passes room for ni values.
        let z = unsafe { slice_mut(eventIndicators, ni, "eventIndicators")? };
        comp.instance.get_event_indicators(z)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetContinuousStates(
    c: fmi2Component,
    x: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    enter(c, "fmi2GetContinuousStates", |comp| {
        // SAFETY: the importer passes room for nx values.
        let x = unsafe { slice_mut(x, nx, "x")? };
        comp.instance.get_continuous_states(x)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: fmi2Component,
    x_nominal: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    enter(c, "fmi2GetNominalsOfContinuousStates", |comp| {
        // SAFETY: the importer passes room for nx values.
        let x = unsafe { slice_mut(x_nominal, nx, "x_nominal")? };
        comp.instance.get_nominals(x)?;
        OK
    })
}
