//! The FMI 3.0 C types (fmi3PlatformTypes.h, fmi3FunctionTypes.h), written out.
//!
//! As for FMI 2.0 ([`crate::fmi2::ffi`]): plain `#[repr(C)]` definitions instead of a
//! bindings crate, so no foreign `#[no_mangle]` symbol and no libclang enter the
//! build. `fmi3Boolean` is C's `bool`, which Rust's `bool` is. The integration
//! test `c_header` compiles cbindgen's C version of this file and of the
//! exported functions against the standard's headers: a type, value or
//! signature that differs from FMI 3.0 is a C compile error there.
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code
)]

use crate::shell::{Level, Status};
use std::ffi::{c_char, c_void};

pub type fmi3Instance = *mut c_void;
pub type fmi3InstanceEnvironment = *mut c_void;
pub type fmi3FMUState = *mut c_void;
pub type fmi3ValueReference = u32;
pub type fmi3Float32 = f32;
pub type fmi3Float64 = f64;
pub type fmi3Int8 = i8;
pub type fmi3UInt8 = u8;
pub type fmi3Int16 = i16;
pub type fmi3UInt16 = u16;
pub type fmi3Int32 = i32;
pub type fmi3UInt32 = u32;
pub type fmi3Int64 = i64;
pub type fmi3UInt64 = u64;
pub type fmi3Boolean = bool;
pub type fmi3Char = c_char;
pub type fmi3String = *const fmi3Char;
pub type fmi3Byte = u8;
pub type fmi3Binary = *const fmi3Byte;
pub type fmi3Clock = bool;

/// `fmi3Status`, returned by value (a C enum is an `int`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum fmi3Status {
    fmi3OK = 0,
    fmi3Warning = 1,
    fmi3Discard = 2,
    fmi3Error = 3,
    fmi3Fatal = 4,
}

impl Status for fmi3Status {
    const FREE_INSTANCE: &'static str = "fmi3FreeInstance";
    fn of(level: Level) -> Self {
        match level {
            Level::Ok => fmi3Status::fmi3OK,
            Level::Warning => fmi3Status::fmi3Warning,
            Level::Discard => fmi3Status::fmi3Discard,
            Level::Error => fmi3Status::fmi3Error,
            Level::Fatal => fmi3Status::fmi3Fatal,
        }
    }
}

/// `fmi3DependencyKind` and `fmi3IntervalQualifier`: arrays this FMU would
/// write (it has no dependencies to report and no clocks), as C enums (`int`).
pub type fmi3DependencyKind = std::ffi::c_int;
pub type fmi3IntervalQualifier = std::ffi::c_int;

// Nullable callbacks, as in FMI 2.0's ffi.rs: `Option` of a function pointer
// has the pointer's layout, `None` being NULL.

/// `fmi3LogMessageCallback`: not variadic, unlike FMI 2.0's logger.
pub type fmi3LogMessageCallback = Option<
    unsafe extern "C" fn(
        instanceEnvironment: fmi3InstanceEnvironment,
        status: fmi3Status,
        category: fmi3String,
        message: fmi3String,
    ),
>;
pub type fmi3ClockUpdateCallback =
    Option<unsafe extern "C" fn(instanceEnvironment: fmi3InstanceEnvironment)>;
pub type fmi3IntermediateUpdateCallback = Option<
    unsafe extern "C" fn(
        instanceEnvironment: fmi3InstanceEnvironment,
        intermediateUpdateTime: fmi3Float64,
        intermediateVariableSetRequested: fmi3Boolean,
        intermediateVariableGetAllowed: fmi3Boolean,
        intermediateStepFinished: fmi3Boolean,
        canReturnEarly: fmi3Boolean,
        earlyReturnRequested: *mut fmi3Boolean,
        earlyReturnTime: *mut fmi3Float64,
    ),
>;
pub type fmi3LockPreemptionCallback = Option<unsafe extern "C" fn()>;
pub type fmi3UnlockPreemptionCallback = Option<unsafe extern "C" fn()>;
