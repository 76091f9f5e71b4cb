//! The FMI 2.0 C types (fmi2TypesPlatform.h, fmi2FunctionTypes.h), written out.
//!
//! About sixty lines of `#[repr(C)]` definitions; writing them here instead of
//! depending on a bindings crate keeps foreign `#[no_mangle]` symbols out of the
//! binary and libclang out of the build. Enumerations that arrive from the caller
//! (`fmi2Type`, `fmi2StatusKind`) are plain `c_int`s, so an out-of-range value is
//! a value to reject, not undefined behaviour. The integration test `c_header`
//! turns this file and the exported functions into C with cbindgen and compiles
//! them against the standard's headers: a type, value or signature that differs
//! from FMI 2.0 is a C compile error there.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};

pub type fmi2Component = *mut c_void;
pub type fmi2ComponentEnvironment = *mut c_void;
pub type fmi2FMUstate = *mut c_void;
pub type fmi2ValueReference = c_uint;
pub type fmi2Real = f64;
pub type fmi2Integer = c_int;
pub type fmi2Boolean = c_int;
pub type fmi2String = *const c_char;
pub type fmi2Byte = c_char;

pub const fmi2True: fmi2Boolean = 1;
pub const fmi2False: fmi2Boolean = 0;

/// `fmi2Status`, returned by value (a C enum is an `int`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum fmi2Status {
    fmi2OK = 0,
    fmi2Warning = 1,
    fmi2Discard = 2,
    fmi2Error = 3,
    fmi2Fatal = 4,
    #[allow(dead_code)]
    fmi2Pending = 5,
}

/// `fmi2Type`, received as a `c_int` (the size of a C enum), and the value this FMU accepts.
pub type fmi2Type = c_int;
pub const fmi2CoSimulation: fmi2Type = 1;
pub const fmi2ModelExchange: fmi2Type = 0;

/// `fmi2StatusKind`, received as a `c_int`, and the values this FMU answers
/// (Co-Simulation only).
#[cfg_attr(feature = "me-only", allow(dead_code))]
pub type fmi2StatusKind = c_int;
#[cfg_attr(feature = "me-only", allow(dead_code))]
pub const fmi2LastSuccessfulTime: fmi2StatusKind = 2;
#[cfg_attr(feature = "me-only", allow(dead_code))]
pub const fmi2Terminated: fmi2StatusKind = 3;

// The callback types are nullable, as C function pointers are (an importer may
// pass NULL for any of them): `Option` of a function pointer has the pointer's
// layout, with `None` as NULL. Spelled inside each alias rather than in the
// struct, because cbindgen turns `Option<fn>` into a C pointer only when it sees
// the function type itself.

/// `fmi2CallbackLogger`: printf-style, hence variadic.
pub type fmi2CallbackLogger = Option<
    unsafe extern "C" fn(
        componentEnvironment: fmi2ComponentEnvironment,
        instanceName: fmi2String,
        status: fmi2Status,
        category: fmi2String,
        message: fmi2String,
        ...
    ),
>;
pub type fmi2CallbackAllocateMemory =
    Option<unsafe extern "C" fn(nobj: usize, size: usize) -> *mut c_void>;
pub type fmi2CallbackFreeMemory = Option<unsafe extern "C" fn(obj: *mut c_void)>;
pub type fmi2StepFinished = Option<
    unsafe extern "C" fn(componentEnvironment: fmi2ComponentEnvironment, status: fmi2Status),
>;

/// `fmi2CallbackFunctions`; every member may be NULL.
#[repr(C)]
pub struct fmi2CallbackFunctions {
    pub logger: fmi2CallbackLogger,
    pub allocateMemory: fmi2CallbackAllocateMemory,
    pub freeMemory: fmi2CallbackFreeMemory,
    pub stepFinished: fmi2StepFinished,
    pub componentEnvironment: fmi2ComponentEnvironment,
}

/// `fmi2EventInfo`, filled by `fmi2NewDiscreteStates` (Model Exchange).
#[cfg(feature = "model-exchange")]
#[repr(C)]
pub struct fmi2EventInfo {
    pub newDiscreteStatesNeeded: fmi2Boolean,
    pub terminateSimulation: fmi2Boolean,
    pub nominalsOfContinuousStatesChanged: fmi2Boolean,
    pub valuesOfContinuousStatesChanged: fmi2Boolean,
    pub nextEventTimeDefined: fmi2Boolean,
    pub nextEventTime: fmi2Real,
}
