//! The 25 FMI 2.0 functions common to both interface types; with
//! [`crate::fmi2::cosimulation`] (Co-Simulation) and [`crate::fmi2::exchange`] (Model
//! Exchange) they are every function the binary exports, and nothing else.
//!
//! Each function converts its C arguments (through the checked helpers of
//! [`crate::shell`]) and calls the core `Instance` inside [`enter`], which
//! guards against NULL components and panics, maps statuses and logs. What the
//! FMU does not provide (directional derivatives of a Co-Simulation instance)
//! is a logged `fmi2Error`, as the standard asks.
#![allow(non_snake_case)]

use crate::fmi2::ffi::*;
use crate::fmu_state;
use crate::shell::{
    c_str, check_categories, enter, instance_name, log_with, no_variables, slice, slice_mut,
    unsupported, warning_as_status, Component, Sink,
};
use lcsfmu::instance::state::Call;
use lcsfmu::instance::FmiResult;
use std::ffi::c_char;
use std::panic::catch_unwind;

const OK: FmiResult<fmi2Status> = Ok(fmi2Status::fmi2OK);

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
        check_categories(
            names
                .iter()
                .map(|&n| unsafe { c_str(n) }.unwrap_or_default()),
        )?;
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
        let name = unsafe { instance_name(instanceName) };
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
        if !crate::interfaces::accepts_fmi2(fmuType) {
            return fail(format!(
                "fmuType {fmuType} requested; this FMU supports {}",
                crate::interfaces::FMI2_SUPPORTED
            ));
        }
        // SAFETY: the importer passes NULL or valid strings.
        let (guid, location) = unsafe { (c_str(fmuGUID), c_str(fmuResourceLocation)) };
        let mut instance =
            match crate::model_source::instance(guid.as_deref(), location.as_deref(), "GUID") {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
        if fmuType == fmi2ModelExchange {
            if let Err(e) = instance.use_model_exchange() {
                return fail(e.message);
            }
        } else if crate::interfaces::declared().1 {
            // The description lists der(x) for Model Exchange; CS reads them too.
            instance.expose_derivatives();
        }
        let sink = unsafe { Sink::fmi2(functions) };
        let comp = Component::new(instance, name, sink, loggingOn != fmi2False);
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
    toleranceDefined: fmi2Boolean,
    tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2SetupExperiment", |comp| {
        let stop = (stopTimeDefined != fmi2False).then_some(stopTime);
        comp.instance.setup_experiment(startTime, stop)?;
        // Model Exchange only: the state tolerance of its event logic.
        if comp.instance.is_model_exchange() {
            let tol = (toleranceDefined != fmi2False).then_some(tolerance);
            comp.instance.set_tolerance(tol)?;
        }
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
        warning_as_status(comp.instance.exit_initialization_mode()?)
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

#[no_mangle]
pub extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    _value: *mut fmi2Integer,
) -> fmi2Status {
    enter(c, "fmi2GetInteger", |comp| {
        no_variables(comp, Call::GetValues, vr, nvr, "Integer", "Real")
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
        no_variables(comp, Call::GetValues, vr, nvr, "Boolean", "Real")
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
        no_variables(comp, Call::GetValues, vr, nvr, "String", "Real")
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
        no_variables(comp, Call::SetValues, vr, nvr, "Integer", "Real")
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
        no_variables(comp, Call::SetValues, vr, nvr, "Boolean", "Real")
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
        no_variables(comp, Call::SetValues, vr, nvr, "String", "Real")
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetFMUstate(c: fmi2Component, state: *mut fmi2FMUstate) -> fmi2Status {
    enter(c, "fmi2GetFMUstate", |comp| {
        // SAFETY: state points to NULL or to a state of this FMU.
        unsafe { fmu_state::get(comp, state)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2SetFMUstate(c: fmi2Component, state: fmi2FMUstate) -> fmi2Status {
    enter(c, "fmi2SetFMUstate", |comp| {
        // SAFETY: state is one of this FMU's states (checked by its tag).
        unsafe { fmu_state::set(comp, state)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2FreeFMUstate(c: fmi2Component, state: *mut fmi2FMUstate) -> fmi2Status {
    enter(c, "fmi2FreeFMUstate", |comp| {
        // SAFETY: state points to NULL or to a state of this FMU, freed once.
        unsafe { fmu_state::free(comp, state)? };
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
        // SAFETY: as in fmi2SetFMUstate; size is writable.
        unsafe { fmu_state::serialized_size(comp, state, size)? };
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
        // SAFETY: as in fmi2SetFMUstate; bytes has room for size bytes.
        unsafe { fmu_state::serialize(comp, state, bytes as *mut u8, size)? };
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
        unsafe { fmu_state::deserialize(comp, bytes as *const u8, size, state)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    vUnknown_ref: *const fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const fmi2Real,
    dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    enter(c, "fmi2GetDirectionalDerivative", |comp| {
        comp.instance.check(Call::GetDirectionalDerivative)?;
        if !comp.instance.is_model_exchange() {
            return unsupported("providesDirectionalDerivative is false for Co-Simulation");
        }
        // SAFETY: the importer passes arrays of the announced lengths.
        let (unknowns, knowns, seed, out) = unsafe {
            (
                slice(vUnknown_ref, nUnknown, "vUnknown_ref")?,
                slice(vKnown_ref, nKnown, "vKnown_ref")?,
                slice(dvKnown, nKnown, "dvKnown")?,
                slice_mut(dvUnknown, nUnknown, "dvUnknown")?,
            )
        };
        comp.instance
            .directional_derivative(unknowns, knowns, seed, out)?;
        OK
    })
}
