//! The FMI 3.0 FMU-state functions: get, set, free, and (de)serialize a
//! snapshot of the core instance, over the same `fmu_state` module as FMI 2.0.
#![allow(non_snake_case)]

use super::ffi::*;
use crate::fmu_state;
use crate::shell::enter;
use lcsfmu::instance::FmiResult;

const OK: FmiResult<fmi3Status> = Ok(fmi3Status::fmi3OK);

#[no_mangle]
pub extern "C" fn fmi3GetFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    enter(instance, "fmi3GetFMUState", |comp| {
        // SAFETY: FMUState points to NULL or to a state of this FMU.
        unsafe { fmu_state::get(comp, FMUState)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetFMUState(instance: fmi3Instance, FMUState: fmi3FMUState) -> fmi3Status {
    enter(instance, "fmi3SetFMUState", |comp| {
        // SAFETY: FMUState is one of this FMU's states (checked by its tag).
        unsafe { fmu_state::set(comp, FMUState)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3FreeFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    enter(instance, "fmi3FreeFMUState", |comp| {
        // SAFETY: FMUState points to NULL or to a state of this FMU, freed once.
        unsafe { fmu_state::free(comp, FMUState)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3SerializedFMUStateSize(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    enter(instance, "fmi3SerializedFMUStateSize", |comp| {
        // SAFETY: as in fmi3SetFMUState; size is writable.
        unsafe { fmu_state::serialized_size(comp, FMUState, size)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3SerializeFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    enter(instance, "fmi3SerializeFMUState", |comp| {
        // SAFETY: as in fmi3SetFMUState; serializedState has room for size bytes.
        unsafe { fmu_state::serialize(comp, FMUState, serializedState, size)? };
        OK
    })
}

#[no_mangle]
pub extern "C" fn fmi3DeserializeFMUState(
    instance: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    enter(instance, "fmi3DeserializeFMUState", |comp| {
        // SAFETY: serializedState holds size bytes; FMUState points to NULL or a
        // state of this FMU.
        unsafe { fmu_state::deserialize(comp, serializedState, size, FMUState)? };
        OK
    })
}
