//! The FMI 3.0 setters of the types this FMU has no variable of (every type
//! but Float64, see `values`): an empty request is fine, a value reference is
//! refused with its real type named. Written out one by one, not by a macro,
//! because the C header check reads these sources with cbindgen, which does
//! not expand macros.
#![allow(non_snake_case)]

use super::ffi::*;
use super::values::absent;
use lcsfmu::instance::state::Call;

#[no_mangle]
pub extern "C" fn fmi3SetFloat32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Float32,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetFloat32",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Float32",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Int8,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetInt8",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Int8",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetUInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3UInt8,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetUInt8",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "UInt8",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Int16,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetInt16",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Int16",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetUInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3UInt16,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetUInt16",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "UInt16",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Int32,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetInt32",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Int32",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetUInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3UInt32,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetUInt32",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "UInt32",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Int64,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetInt64",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Int64",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetUInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3UInt64,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetUInt64",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "UInt64",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Boolean,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetBoolean",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Boolean",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3String,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetString",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "String",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _valueSizes: *const usize,
    _values: *const fmi3Binary,
    _nValues: usize,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetBinary",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Binary",
    )
}

#[no_mangle]
pub extern "C" fn fmi3SetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    _values: *const fmi3Clock,
) -> fmi3Status {
    absent(
        instance,
        "fmi3SetClock",
        Call::SetValues,
        valueReferences,
        nValueReferences,
        "Clock",
    )
}
