//! The FMI 3.0 life cycle of a co-simulation instance: instantiation,
//! initialization, Event Mode and Step Mode, `fmi3DoStep`, termination and
//! reset (FMU states are in `fmu_states`).
//!
//! The core instance keeps the state machine; this file converts arguments.
//! What differs from FMI 2.0: `fmi3EnterInitializationMode` carries the
//! experiment (FMI 2.0's `fmi2SetupExperiment`); `fmi3InstantiateCoSimulation`
//! says whether the importer uses Event Mode and allows early return, which the
//! core then honours (`lcsfmu::instance::EventOptions`); `fmi3DoStep` reports
//! `eventHandlingNeeded`, `earlyReturn` and `lastSuccessfulTime` through
//! out-parameters instead of status queries. A Model Exchange instance
//! ([`super::exchange`]) shares this life cycle: its tolerance comes from
//! `fmi3EnterInitializationMode`, and its `fmi3UpdateDiscreteStates` selects
//! the next mode.
#![allow(non_snake_case)]

use super::ffi::*;
use crate::shell::{
    c_str, check_categories, enter, instance_name, out, slice, warning_as_status, Component, Level,
    Sink,
};
use lcsfmu::instance::model_exchange::check_tolerance;
use lcsfmu::instance::state::Call;
use lcsfmu::instance::{EventOptions, FmiResult};
use std::ffi::{c_char, CStr};
use std::panic::catch_unwind;

const OK: FmiResult<fmi3Status> = Ok(fmi3Status::fmi3OK);

#[no_mangle]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    c"3.0".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi3SetDebugLogging(
    instance: fmi3Instance,
    loggingOn: fmi3Boolean,
    nCategories: usize,
    categories: *const fmi3String,
) -> fmi3Status {
    enter(instance, "fmi3SetDebugLogging", |comp| {
        comp.instance.check(Call::SetDebugLogging)?;
        // SAFETY: the importer passes nCategories valid strings.
        let names = unsafe { slice(categories, nCategories, "categories")? };
        check_categories(
            names
                .iter()
                .map(|&n| unsafe { c_str(n) }.unwrap_or_default()),
        )?;
        comp.set_logging(loggingOn);
        OK
    })
}

/// Logs why an instantiation failed, through the logger it was given.
pub(super) fn refuse(sink: Sink, name: &CStr, what: &str, message: &str) -> fmi3Instance {
    sink.send(name, Level::Error, &format!("{what}: {message}"));
    std::ptr::null_mut()
}

#[no_mangle]
pub extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    earlyReturnAllowed: fmi3Boolean,
    _requiredIntermediateVariables: *const fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    _intermediateUpdate: fmi3IntermediateUpdateCallback,
) -> fmi3Instance {
    let result = catch_unwind(|| {
        let what = "fmi3InstantiateCoSimulation";
        let sink = Sink::Fmi3 {
            logger: logMessage,
            environment: instanceEnvironment,
        };
        // SAFETY: the importer passes NULL or valid strings.
        let name = unsafe { instance_name(instanceName) };
        if !crate::interfaces::declared().0 {
            return refuse(
                sink,
                &name,
                what,
                "Co-Simulation is not provided: this FMU declares Model Exchange only",
            );
        }
        if nRequiredIntermediateVariables > 0 {
            return refuse(sink, &name, what, &format!(
                "{nRequiredIntermediateVariables} intermediate variables requested; this FMU has none (providesIntermediateUpdate is false)"
            ));
        }
        let token = unsafe { c_str(instantiationToken) };
        // The FMI 3.0 shell is built per model only (the prebuilt runtime is
        // FMI 2.0's), so the resource path is not read.
        let mut instance =
            match crate::model_source::instance(token.as_deref(), None, "instantiationToken") {
                Ok(i) => i,
                Err(e) => return refuse(sink, &name, what, &e),
            };
        let options = EventOptions {
            event_mode_used: eventModeUsed,
            early_return_allowed: earlyReturnAllowed,
        };
        if let Err(e) = instance.use_events(options) {
            return refuse(sink, &name, what, &e.message);
        }
        if crate::interfaces::declared().1 {
            // The description lists der(x) and the indicators for Model
            // Exchange; a Co-Simulation instance reads them too.
            instance.expose_event_indicators();
        }
        let comp = Component::new(instance, name, sink, loggingOn);
        Box::into_raw(Box::new(comp)) as fmi3Instance
    });
    result.unwrap_or(std::ptr::null_mut())
}

/// An interface type this FMU does not provide: NULL, and the reason logged.
fn not_provided(
    instanceName: fmi3String,
    logMessage: fmi3LogMessageCallback,
    instanceEnvironment: fmi3InstanceEnvironment,
    what: &str,
    message: &str,
) -> fmi3Instance {
    catch_unwind(|| {
        let sink = Sink::Fmi3 {
            logger: logMessage,
            environment: instanceEnvironment,
        };
        // SAFETY: the importer passes NULL or a valid string.
        let name = unsafe { instance_name(instanceName) };
        refuse(sink, &name, what, message)
    })
    .unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub extern "C" fn fmi3InstantiateScheduledExecution(
    instanceName: fmi3String,
    _instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    _loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    _clockUpdate: fmi3ClockUpdateCallback,
    _lockPreemption: fmi3LockPreemptionCallback,
    _unlockPreemption: fmi3UnlockPreemptionCallback,
) -> fmi3Instance {
    not_provided(
        instanceName,
        logMessage,
        instanceEnvironment,
        "fmi3InstantiateScheduledExecution",
        "Scheduled Execution is not provided by this FMU",
    )
}

#[no_mangle]
pub extern "C" fn fmi3FreeInstance(instance: fmi3Instance) {
    if instance.is_null() {
        return;
    }
    // SAFETY: instance came from fmi3InstantiateCoSimulation and is freed once.
    let _ = catch_unwind(|| drop(unsafe { Box::from_raw(instance as *mut Component) }));
}

#[no_mangle]
pub extern "C" fn fmi3EnterInitializationMode(
    instance: fmi3Instance,
    toleranceDefined: fmi3Boolean,
    tolerance: fmi3Float64,
    startTime: fmi3Float64,
    stopTimeDefined: fmi3Boolean,
    stopTime: fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3EnterInitializationMode", |comp| {
        // FMI 2.0's fmi2SetupExperiment, folded into this call; the check of
        // the initialization's own call comes first, so a refusal changes nothing.
        comp.instance.check(Call::EnterInitializationMode)?;
        // Model Exchange only: the state tolerance of its event logic,
        // checked before anything changes.
        let tolerance = toleranceDefined.then_some(tolerance);
        let me = comp.instance.is_model_exchange();
        if me {
            check_tolerance(tolerance)?;
        }
        comp.instance
            .setup_experiment(startTime, stopTimeDefined.then_some(stopTime))?;
        if me {
            comp.instance.set_tolerance(tolerance)?;
        }
        comp.instance.enter_initialization_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3ExitInitializationMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3ExitInitializationMode", |comp| {
        warning_as_status(comp.instance.exit_initialization_mode()?)
    })
}

#[no_mangle]
pub extern "C" fn fmi3EnterEventMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3EnterEventMode", |comp| {
        comp.instance.enter_event_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3UpdateDiscreteStates(
    instance: fmi3Instance,
    discreteStatesNeedUpdate: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    nominalsOfContinuousStatesChanged: *mut fmi3Boolean,
    valuesOfContinuousStatesChanged: *mut fmi3Boolean,
    nextEventTimeDefined: *mut fmi3Boolean,
    nextEventTime: *mut fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3UpdateDiscreteStates", |comp| {
        // SAFETY: the importer passes writable out-parameters.
        let outs = unsafe {
            (
                out(discreteStatesNeedUpdate, "discreteStatesNeedUpdate")?,
                out(terminateSimulation, "terminateSimulation")?,
                out(
                    nominalsOfContinuousStatesChanged,
                    "nominalsOfContinuousStatesChanged",
                )?,
                out(
                    valuesOfContinuousStatesChanged,
                    "valuesOfContinuousStatesChanged",
                )?,
                out(nextEventTimeDefined, "nextEventTimeDefined")?,
                out(nextEventTime, "nextEventTime")?,
            )
        };
        let (again, terminate, nominals, values, defined, next) = outs;
        // One call settles an event; Model Exchange of a nonlinear model has
        // time events (jumps of sources in time), Co-Simulation none.
        let mut next_event = None;
        let changed = if comp.instance.is_model_exchange() {
            comp.instance.new_discrete_states().map(|update| {
                next_event = update.next_event_time;
                update.values_changed
            })
        } else {
            comp.instance.update_discrete_states()
        };
        (*again, *nominals) = (false, false);
        (*defined, *next) = (next_event.is_some(), next_event.unwrap_or(0.0));
        *terminate = comp.instance.terminated();
        *values = matches!(changed, Ok(true));
        if changed? && comp.logging_on() {
            comp.log(
                Level::Ok,
                &format!(
                    "fmi3UpdateDiscreteStates: the mode changed at t = {}",
                    comp.instance.time()
                ),
            );
        }
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3EnterStepMode", |comp| {
        comp.instance.enter_step_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3DoStep(
    instance: fmi3Instance,
    currentCommunicationPoint: fmi3Float64,
    communicationStepSize: fmi3Float64,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    eventHandlingNeeded: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    earlyReturn: *mut fmi3Boolean,
    lastSuccessfulTime: *mut fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3DoStep", |comp| {
        #[cfg(feature = "forced-panic")]
        crate::forced_panic::at(currentCommunicationPoint);
        // SAFETY: the importer passes writable out-parameters.
        let (event, terminate, early, last) = unsafe {
            (
                out(eventHandlingNeeded, "eventHandlingNeeded")?,
                out(terminateSimulation, "terminateSimulation")?,
                out(earlyReturn, "earlyReturn")?,
                out(lastSuccessfulTime, "lastSuccessfulTime")?,
            )
        };
        let (t, h) = (currentCommunicationPoint, communicationStepSize);
        let stepped = comp.instance.do_step(t, h);
        // Written whatever the outcome: a discarded step tells where it stopped.
        *last = comp.instance.last_successful_time();
        *terminate = comp.instance.terminated();
        *event = stepped.is_ok() && comp.instance.event_pending();
        // The core lands on t + h exactly unless it returned early.
        *early = stepped.is_ok() && comp.instance.time() != t + h;
        stepped?;
        comp.log_step_report("fmi3DoStep", t);
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3Terminate(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3Terminate", |comp| {
        comp.instance.terminate()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3Reset(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3Reset", |comp| {
        comp.instance.reset()?;
        OK
    })
}
