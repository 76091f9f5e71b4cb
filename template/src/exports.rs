//! The 34 exported FMI 2.0 co-simulation functions, and nothing else.
//!
//! Each function converts its C arguments (through the checked helpers of
//! [`crate::shell`]) and calls the core [`lcsfmu::fmi2::Instance`] inside [`enter`], which
//! guards against NULL components and panics, maps statuses and logs. What the
//! FMU does not provide (directional derivatives, input interpolation, output
//! derivatives, asynchronous steps) is a logged `fmi2Error`, as the standard asks.
#![allow(non_snake_case)]

use crate::ffi::*;
use crate::shell::{c_str, enter, log_with, out, slice, slice_mut, Component, CATEGORIES};
use lcsfmu::fmi2::snapshot::Snapshot;
use lcsfmu::fmi2::state::Call;
use lcsfmu::fmi2::{FmiError, FmiResult, Severity};
use std::ffi::{c_char, CString};
use std::panic::catch_unwind;

const OK: FmiResult<fmi2Status> = Ok(fmi2Status::fmi2OK);

fn unsupported(what: &str) -> FmiResult<fmi2Status> {
    Err(FmiError::error(format!(
        "not provided by this FMU ({what})"
    )))
}

/// An FMU state as handed to the importer; the tag catches foreign pointers
/// before their contents are trusted.
struct StateBox {
    tag: u64,
    snapshot: Snapshot,
}

const STATE_TAG: u64 = 0x4C43_5346_4D55_5354; // "LCSFMUST"

/// # Safety
/// `s` is NULL or a pointer this FMU returned as an FMU state and did not free.
unsafe fn state_ref<'a>(s: fmi2FMUstate) -> FmiResult<&'a mut StateBox> {
    let b = (s as *mut StateBox)
        .as_mut()
        .ok_or_else(|| FmiError::error("the FMU state is NULL"))?;
    if b.tag != STATE_TAG {
        return Err(FmiError::error("the FMU state was not created by this FMU"));
    }
    Ok(b)
}

/// Stores `snapshot` in `*slot`, reusing the state already there if any.
///
/// # Safety
/// `slot` is valid for reads and writes; `*slot` is NULL or one of this FMU's states.
unsafe fn store_state(slot: *mut fmi2FMUstate, snapshot: Snapshot) -> FmiResult<fmi2Status> {
    let slot = out(slot, "the FMUstate argument")?;
    if slot.is_null() {
        *slot = Box::into_raw(Box::new(StateBox {
            tag: STATE_TAG,
            snapshot,
        })) as fmi2FMUstate;
    } else {
        state_ref(*slot)?.snapshot = snapshot;
    }
    OK
}

#[no_mangle]
pub extern "C" fn fmi2GetTypesPlatform() -> *const c_char {
    c"default".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi2GetVersion() -> *const c_char {
    c"2.0".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi2SetDebugLogging(
    c: fmi2Component,
    loggingOn: fmi2Boolean,
    nCategories: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    enter(c, "fmi2SetDebugLogging", |comp| {
        comp.instance.check(Call::SetDebugLogging)?;
        // SAFETY: the importer passes nCategories valid strings.
        let names = unsafe { slice(categories, nCategories, "categories")? };
        for &name in names {
            let name = unsafe { c_str(name) }.unwrap_or_default();
            if !CATEGORIES.contains(&name.as_str()) {
                return Err(FmiError::error(format!(
                    "unknown log category '{name}' (known: {})",
                    CATEGORIES.join(", ")
                )));
            }
        }
        comp.set_logging(loggingOn != fmi2False);
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2Instantiate(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    _visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    let result = catch_unwind(|| {
        // SAFETY: the importer passes NULL or valid strings and callbacks.
        let name = unsafe { c_str(instanceName) }.unwrap_or_else(|| "unnamed".into());
        let name = CString::new(name.replace('\0', "")).expect("NUL bytes were removed");
        let fail = |message: String| {
            unsafe {
                log_with(
                    functions,
                    &name,
                    fmi2Status::fmi2Error,
                    &format!("fmi2Instantiate: {message}"),
                )
            };
            std::ptr::null_mut()
        };
        if fmuType != fmi2CoSimulation {
            return fail(format!(
                "fmuType {fmuType} requested; this FMU supports Co-Simulation (1) only"
            ));
        }
        // SAFETY: as above.
        let (guid, location) = unsafe { (c_str(fmuGUID), c_str(fmuResourceLocation)) };
        let instance = match crate::model_source::instance(guid.as_deref(), location.as_deref()) {
            Ok(instance) => instance,
            Err(e) => return fail(e),
        };
        let comp = unsafe { Component::new(instance, name, functions, loggingOn != fmi2False) };
        Box::into_raw(Box::new(comp)) as fmi2Component
    });
    result.unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    if c.is_null() {
        return;
    }
    // SAFETY: c came from fmi2Instantiate and is freed once, as the standard requires.
    let _ = catch_unwind(|| drop(unsafe { Box::from_raw(c as *mut Component) }));
}

#[no_mangle]
pub extern "C" fn fmi2SetupExperiment(
    c: fmi2Component,
    _toleranceDefined: fmi2Boolean,
    _tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2SetupExperiment", |comp| {
        let stop = (stopTimeDefined != fmi2False).then_some(stopTime);
        comp.instance.setup_experiment(startTime, stop)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2EnterInitializationMode", |comp| {
        comp.instance.enter_initialization_mode()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2ExitInitializationMode", |comp| {
        match comp.instance.exit_initialization_mode()? {
            Some(warning) => Err(FmiError {
                severity: Severity::Warning,
                message: warning,
            }),
            None => OK,
        }
    })
}

#[no_mangle]
pub extern "C" fn fmi2Terminate(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2Terminate", |comp| {
        comp.instance.terminate()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2Reset(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2Reset", |comp| {
        comp.instance.reset()?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2GetReal", |comp| {
        // SAFETY: the importer passes nvr valid elements in each array.
        let (vr, value) = unsafe { (slice(vr, nvr, "vr")?, slice_mut(value, nvr, "value")?) };
        comp.instance.get_reals(vr, value)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2SetReal", |comp| {
        // SAFETY: as in fmi2GetReal.
        let (vr, value) = unsafe { (slice(vr, nvr, "vr")?, slice(value, nvr, "value")?) };
        comp.instance.set_reals(vr, value)?;
        OK
    })
}

/// Integer, Boolean and String access: the FMU has no such variables, so any
/// value reference is unknown; an empty request is fine.
fn no_variables(
    comp: &mut Component,
    call: Call,
    vr: *const fmi2ValueReference,
    nvr: usize,
    kind: &str,
) -> FmiResult<fmi2Status> {
    comp.instance.check(call)?;
    // SAFETY: as in fmi2GetReal.
    match unsafe { slice(vr, nvr, "vr")? }.first() {
        None => OK,
        Some(v) => Err(FmiError::error(format!(
            "unknown value reference {v}: this FMU has no {kind} variables"
        ))),
    }
}

#[no_mangle]
pub extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *mut fmi2Integer,
) -> fmi2Status {
    enter(c, "fmi2GetInteger", |comp| {
        no_variables(comp, Call::GetValues, vr, nvr, "Integer")
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *mut fmi2Boolean,
) -> fmi2Status {
    enter(c, "fmi2GetBoolean", |comp| {
        no_variables(comp, Call::GetValues, vr, nvr, "Boolean")
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *mut fmi2String,
) -> fmi2Status {
    enter(c, "fmi2GetString", |comp| {
        no_variables(comp, Call::GetValues, vr, nvr, "String")
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *const fmi2Integer,
) -> fmi2Status {
    enter(c, "fmi2SetInteger", |comp| {
        no_variables(comp, Call::SetValues, vr, nvr, "Integer")
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *const fmi2Boolean,
) -> fmi2Status {
    enter(c, "fmi2SetBoolean", |comp| {
        no_variables(comp, Call::SetValues, vr, nvr, "Boolean")
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *const fmi2String,
) -> fmi2Status {
    enter(c, "fmi2SetString", |comp| {
        no_variables(comp, Call::SetValues, vr, nvr, "String")
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetFMUstate(c: fmi2Component, state: *mut fmi2FMUstate) -> fmi2Status {
    enter(c, "fmi2GetFMUstate", |comp| {
        comp.instance.check(Call::FmuState)?;
        // SAFETY: state points to NULL or to a state of this FMU.
        unsafe { store_state(state, comp.instance.snapshot()) }
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetFMUstate(c: fmi2Component, state: fmi2FMUstate) -> fmi2Status {
    enter(c, "fmi2SetFMUstate", |comp| {
        // SAFETY: state is one of this FMU's states (checked by its tag).
        let b = unsafe { state_ref(state)? };
        comp.instance.restore(&b.snapshot)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2FreeFMUstate(c: fmi2Component, state: *mut fmi2FMUstate) -> fmi2Status {
    enter(c, "fmi2FreeFMUstate", |comp| {
        comp.instance.check(Call::FmuState)?;
        // SAFETY: state points to NULL or to a state of this FMU, freed once.
        unsafe {
            let Some(slot) = state.as_mut() else {
                return OK;
            };
            if slot.is_null() {
                return OK;
            }
            state_ref(*slot)?;
            drop(Box::from_raw(*slot as *mut StateBox));
            *slot = std::ptr::null_mut();
        }
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2SerializedFMUstateSize(
    c: fmi2Component,
    state: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    enter(c, "fmi2SerializedFMUstateSize", |comp| {
        comp.instance.check(Call::FmuState)?;
        // SAFETY: as in fmi2SetFMUstate; size is writable.
        unsafe { *out(size, "size")? = comp.instance.serialize(&state_ref(state)?.snapshot).len() };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2SerializeFMUstate(
    c: fmi2Component,
    state: fmi2FMUstate,
    bytes: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    enter(c, "fmi2SerializeFMUstate", |comp| {
        comp.instance.check(Call::FmuState)?;
        // SAFETY: as in fmi2SetFMUstate; bytes has room for size bytes.
        let data = comp
            .instance
            .serialize(unsafe { &state_ref(state)?.snapshot });
        if data.len() > size {
            return Err(FmiError::error(format!(
                "buffer of {size} bytes is too small for the state ({} bytes)",
                data.len()
            )));
        }
        let dst = unsafe { slice_mut(bytes as *mut u8, data.len(), "serializedState")? };
        dst.copy_from_slice(&data);
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2DeSerializeFMUstate(
    c: fmi2Component,
    bytes: *const fmi2Byte,
    size: usize,
    state: *mut fmi2FMUstate,
) -> fmi2Status {
    enter(c, "fmi2DeSerializeFMUstate", |comp| {
        // SAFETY: bytes holds size bytes; state points to NULL or a state of this FMU.
        let data = unsafe { slice(bytes as *const u8, size, "serializedState")? };
        let snapshot = comp.instance.deserialize(data)?;
        unsafe { store_state(state, snapshot) }
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    _vUnknown_ref: *const fmi2ValueReference,
    _nUnknown: usize,
    _vKnown_ref: *const fmi2ValueReference,
    _nKnown: usize,
    _dvKnown: *const fmi2Real,
    _dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2GetDirectionalDerivative", |comp| {
        comp.instance.check(Call::GetDirectionalDerivative)?;
        unsupported("providesDirectionalDerivative is false")
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetRealInputDerivatives(
    c: fmi2Component,
    _vr: *const fmi2ValueReference,
    _nvr: usize,
    _order: *const fmi2Integer,
    _value: *const fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2SetRealInputDerivatives", |comp| {
        comp.instance.check(Call::SetRealInputDerivatives)?;
        unsupported("canInterpolateInputs is false: inputs are held over a step")
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetRealOutputDerivatives(
    c: fmi2Component,
    _vr: *const fmi2ValueReference,
    _nvr: usize,
    _order: *const fmi2Integer,
    _value: *mut fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2GetRealOutputDerivatives", |comp| {
        comp.instance.check(Call::GetRealOutputDerivatives)?;
        unsupported("maxOutputDerivativeOrder is 0")
    })
}

#[no_mangle]
pub extern "C" fn fmi2DoStep(
    c: fmi2Component,
    currentCommunicationPoint: fmi2Real,
    communicationStepSize: fmi2Real,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
) -> fmi2Status {
    enter(c, "fmi2DoStep", |comp| {
        #[cfg(feature = "forced-panic")]
        crate::forced_panic::at(currentCommunicationPoint);
        comp.instance
            .do_step(currentCommunicationPoint, communicationStepSize)?;
        // The event-driven scheme says what each step took (logEvents) and
        // warns when events accumulated; formatted only when it is logged.
        if let Some(report) = comp.instance.step_report() {
            let warn = report.accumulation.is_some() || report.singular_mode;
            if warn || comp.logging_on() {
                let (counts, warning) = comp.instance.describe_step(currentCommunicationPoint);
                comp.log(fmi2Status::fmi2OK, &format!("fmi2DoStep: {counts}"));
                if let Some(w) = warning {
                    comp.log(fmi2Status::fmi2Warning, &format!("fmi2DoStep: {w}"));
                }
            }
        }
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2CancelStep(c: fmi2Component) -> fmi2Status {
    enter(c, "fmi2CancelStep", |comp| {
        comp.instance.check(Call::CancelStep)?;
        unsupported("steps are never asynchronous")
    })
}

/// Status queries: only `fmi2LastSuccessfulTime` (Real) and `fmi2Terminated`
/// (Boolean) exist; `wanted` is the one kind the calling function answers, if any.
fn status_query(
    comp: &mut Component,
    kind: fmi2StatusKind,
    wanted: Option<fmi2StatusKind>,
    name: &str,
) -> FmiResult<()> {
    comp.instance.check(Call::GetStatus)?;
    if Some(kind) != wanted {
        return Err(FmiError::error(format!(
            "status kind {kind} is not available from {name} (steps are never pending)"
        )));
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn fmi2GetStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    _value: *mut fmi2Status,
) -> fmi2Status {
    enter(c, "fmi2GetStatus", |comp| {
        status_query(comp, s, None, "fmi2GetStatus")?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetRealStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2GetRealStatus", |comp| {
        status_query(comp, s, Some(fmi2LastSuccessfulTime), "fmi2GetRealStatus")?;
        // SAFETY: value is writable.
        unsafe { *out(value, "value")? = comp.instance.last_successful_time() };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetIntegerStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    _value: *mut fmi2Integer,
) -> fmi2Status {
    enter(c, "fmi2GetIntegerStatus", |comp| {
        status_query(comp, s, None, "fmi2GetIntegerStatus")?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetBooleanStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    enter(c, "fmi2GetBooleanStatus", |comp| {
        status_query(comp, s, Some(fmi2Terminated), "fmi2GetBooleanStatus")?;
        // SAFETY: value is writable.
        unsafe {
            *out(value, "value")? = if comp.instance.terminated() {
                fmi2True
            } else {
                fmi2False
            }
        };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetStringStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    _value: *mut fmi2String,
) -> fmi2Status {
    enter(c, "fmi2GetStringStatus", |comp| {
        status_query(comp, s, None, "fmi2GetStringStatus")?;
        OK
    })
}
