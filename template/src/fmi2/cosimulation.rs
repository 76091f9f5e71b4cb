//! The 9 FMI 2.0 functions of Co-Simulation alone (a Model Exchange-only FMU,
//! the template's `me-only` feature, leaves them out).
//!
//! As in [`crate::fmi2::common`], each converts its C arguments with the checked
//! helpers of [`crate::shell`] and calls the core `Instance` inside [`enter`].
//! What the FMU does not provide (input interpolation, output derivatives,
//! asynchronous steps) is a logged `fmi2Error`, as the standard asks.
#![allow(non_snake_case)]

use crate::fmi2::ffi::*;
use crate::shell::{enter, out, unsupported, Component};
use lcsfmu::instance::state::Call;
use lcsfmu::instance::{FmiError, FmiResult};

const OK: FmiResult<fmi2Status> = Ok(fmi2Status::fmi2OK);

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
        comp.log_step_report("fmi2DoStep", currentCommunicationPoint);
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
