//! The FMI 3.0 functions this FMU does not provide, each a logged `fmi3Error`.
//!
//! FMI 3.0 §2.5: an FMU implements every function of `fmi3Functions.h`, also
//! those it does not support, and the recommended behaviour of those is to log
//! a message and return `fmi3Error`. Here: Scheduled Execution, clocks,
//! per-element dependencies, configuration mode, `fmi3EvaluateDiscreteStates`
//! and output derivatives (Model Exchange and the directional and adjoint
//! derivatives are in [`super::exchange`]). Each goes through the
//! entry helper like every other function, so a NULL instance is an error and
//! the message reaches the importer's logger.
#![allow(non_snake_case)]

use super::ffi::*;
use crate::shell::{enter, unsupported};

#[no_mangle]
pub extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: fmi3Instance,
    _valueReference: fmi3ValueReference,
    _nDependencies: *mut usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNumberOfVariableDependencies", |_| {
        unsupported(
            "providesPerElementDependencies is false; the dependencies are in modelDescription.xml",
        )
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetVariableDependencies(
    instance: fmi3Instance,
    _dependent: fmi3ValueReference,
    _elementIndicesOfDependent: *mut usize,
    _independents: *mut fmi3ValueReference,
    _elementIndicesOfIndependents: *mut usize,
    _dependencyKinds: *mut fmi3DependencyKind,
    _nDependencies: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetVariableDependencies", |_| {
        unsupported(
            "providesPerElementDependencies is false; the dependencies are in modelDescription.xml",
        )
    })
}

#[no_mangle]
pub extern "C" fn fmi3EnterConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3EnterConfigurationMode", |_| {
        unsupported("the FMU has no structural parameters")
    })
}

#[no_mangle]
pub extern "C" fn fmi3ExitConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3ExitConfigurationMode", |_| {
        unsupported("the FMU has no structural parameters")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetIntervalDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _intervals: *mut fmi3Float64,
    _qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    enter(instance, "fmi3GetIntervalDecimal", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetIntervalFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *mut fmi3UInt64,
    _resolutions: *mut fmi3UInt64,
    _qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    enter(instance, "fmi3GetIntervalFraction", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetShiftDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _shifts: *mut fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3GetShiftDecimal", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetShiftFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *mut fmi3UInt64,
    _resolutions: *mut fmi3UInt64,
) -> fmi3Status {
    enter(instance, "fmi3GetShiftFraction", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetIntervalDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _intervals: *const fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3SetIntervalDecimal", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetIntervalFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *const fmi3UInt64,
    _resolutions: *const fmi3UInt64,
) -> fmi3Status {
    enter(instance, "fmi3SetIntervalFraction", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetShiftDecimal(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _shifts: *const fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3SetShiftDecimal", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetShiftFraction(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _counters: *const fmi3UInt64,
    _resolutions: *const fmi3UInt64,
) -> fmi3Status {
    enter(instance, "fmi3SetShiftFraction", |_| {
        unsupported("the FMU has no clocks")
    })
}

#[no_mangle]
pub extern "C" fn fmi3EvaluateDiscreteStates(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3EvaluateDiscreteStates", |_| {
        unsupported("providesEvaluateDiscreteStates is false")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetOutputDerivatives(
    instance: fmi3Instance,
    _valueReferences: *const fmi3ValueReference,
    _nValueReferences: usize,
    _orders: *const fmi3Int32,
    _values: *mut fmi3Float64,
    _nValues: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetOutputDerivatives", |_| {
        unsupported("maxOutputDerivativeOrder is 0")
    })
}

#[no_mangle]
pub extern "C" fn fmi3ActivateModelPartition(
    instance: fmi3Instance,
    _clockReference: fmi3ValueReference,
    _activationTime: fmi3Float64,
) -> fmi3Status {
    enter(instance, "fmi3ActivateModelPartition", |_| {
        unsupported("Scheduled Execution is not provided")
    })
}
