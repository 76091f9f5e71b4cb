//! The FMI 2.0 C types (fmi2TypesPlatform.h, fmi2FunctionTypes.h), written out.
//!
//! About sixty lines of `#[repr(C)]` definitions; writing them here instead of
//! depending on a bindings crate keeps foreign `#[no_mangle]` symbols out of the
//! binary and libclang out of the build. Enumerations that arrive from the caller
//! are plain `c_int`s, so an out-of-range value is a value to reject, not
//! undefined behaviour.
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

/// `fmi2Type` values (received as `c_int`).
pub const fmi2CoSimulation: c_int = 1;

/// `fmi2StatusKind` values (received as `c_int`).
pub const fmi2LastSuccessfulTime: c_int = 2;
pub const fmi2Terminated: c_int = 3;

/// `fmi2CallbackLogger`: printf-style, hence variadic.
pub type fmi2CallbackLogger = unsafe extern "C" fn(
    componentEnvironment: fmi2ComponentEnvironment,
    instanceName: fmi2String,
    status: c_int,
    category: fmi2String,
    message: fmi2String,
    ...
);
pub type fmi2CallbackAllocateMemory = unsafe extern "C" fn(nobj: usize, size: usize) -> *mut c_void;
pub type fmi2CallbackFreeMemory = unsafe extern "C" fn(obj: *mut c_void);
pub type fmi2StepFinished =
    unsafe extern "C" fn(componentEnvironment: fmi2ComponentEnvironment, status: c_int);

/// `fmi2CallbackFunctions`; every member may be NULL.
#[repr(C)]
pub struct fmi2CallbackFunctions {
    pub logger: Option<fmi2CallbackLogger>,
    pub allocateMemory: Option<fmi2CallbackAllocateMemory>,
    pub freeMemory: Option<fmi2CallbackFreeMemory>,
    pub stepFinished: Option<fmi2StepFinished>,
    pub componentEnvironment: fmi2ComponentEnvironment,
}
