//! The FMI 3.0 getters of the types this FMU has no variable of (every type
//! but Float64, see `values`): an empty request is fine, a value reference is
//! refused with its real type named. Written out one by one, not by a macro,
//! because the C header check reads these sources with cbindgen, which does
//! not expand macros.
#![allow(non_snake_case)]

use super::ffi::*;
use super::values::absent;
use lcsfmu::instance::state::Call;

#[no_mangle]
pub extern "C" fn fmi3GetFloat32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Float32,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetFloat32",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Float32",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Int8,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetInt8",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Int8",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetUInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3UInt8,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetUInt8",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "UInt8",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Int16,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetInt16",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Int16",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetUInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3UInt16,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetUInt16",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "UInt16",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Int32,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetInt32",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Int32",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetUInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3UInt32,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetUInt32",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "UInt32",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Int64,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetInt64",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Int64",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetUInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3UInt64,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetUInt64",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "UInt64",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Boolean,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetBoolean",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Boolean",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3String,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetString",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "String",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _valueSizes: *mut usize,
    _values: *mut fmi3Binary,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetBinary",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Binary",
    )
}

#[no_mangle]
pub extern "C" fn fmi3GetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *mut fmi3Clock,
) -> fmi3Status {
    absent(
        instance,
        "fmi3GetClock",
        Call::GetValues,
        valueReferences,
        nValueReferences,
        "Clock",
    )
}
