//! The FMI 3.0 Float64 getter and setter, and the one body that the getters
//! and setters of every other type share.
//!
//! Every variable of the FMU is a Float64 scalar (time, parameters, inputs,
//! states, complementarity variables, outputs), so Float64 access goes to the
//! core instance, with `nValues` equal to the number of value references (no
//! arrays). Every other type has no variable (`empty_getters`,
//! `empty_setters`): an empty request is fine, and a value reference is
//! refused with its real type named.
#![allow(non_snake_case)]

use super::ffi::*;
use crate::shell::{enter, no_variables, slice, slice_mut};
use lcsfmu::instance::state::Call;
use lcsfmu::instance::{FmiError, FmiResult};

const OK: FmiResult<fmi3Status> = Ok(fmi3Status::fmi3OK);

/// Scalars only: as many values as value references.
fn scalars(nValueReferences: usize, nValues: usize) -> FmiResult<()> {
    if nValueReferences == nValues {
        Ok(())
    } else {
        Err(FmiError::error(format!(
            "{nValues} values for {nValueReferences} value references: every variable of this FMU is a scalar"
        )))
    }
}

/// The whole body of the getter or setter `what` of `kind`, a type the FMU
/// has no variable of ([`no_variables`]), through the entry helper.
pub(super) fn absent(
    instance: fmi3Instance,
    what: &str,
    call: Call,
    vr: *const fmi3ValueReference,
    n: usize,
    kind: &str,
) -> fmi3Status {
    enter(instance, what, |comp| {
        no_variables(comp, call, vr, n, kind, "Float64")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetFloat64", |comp| {
        scalars(nValueReferences, nValues)?;
        // SAFETY: the importer passes arrays of the announced lengths.
        let vr = unsafe { slice(valueReferences, nValueReferences, "valueReferences")? };
        let values = unsafe { slice_mut(values, nValues, "values")? };
        comp.instance.get_reals(vr, values)?;
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    enter(instance, "fmi3SetFloat64", |comp| {
        scalars(nValueReferences, nValues)?;
        // SAFETY: as in fmi3GetFloat64.
        let vr = unsafe { slice(valueReferences, nValueReferences, "valueReferences")? };
        let values = unsafe { slice(values, nValues, "values")? };
        comp.instance.set_reals(vr, values)?;
        OK
    })
}
