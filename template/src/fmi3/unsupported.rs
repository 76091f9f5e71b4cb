//! The FMI 3.0 functions this FMU does not provide, each a logged `fmi3Error`.
//!
//! FMI 3.0 §2.5: an FMU implements every function of `fmi3Functions.h`, also
//! those it does not support, and the recommended behaviour of those is to log
//! a message and return `fmi3Error`. Here: Model Exchange (not yet: its
//! instantiation already refuses), Scheduled Execution, clocks, per-element
//! dependencies, directional and adjoint derivatives, configuration mode,
//! `fmi3EvaluateDiscreteStates` and output derivatives. Each goes through the
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
pub extern "C" fn fmi3GetDirectionalDerivative(
    instance: fmi3Instance,
    _unknowns: *const fmi3ValueReference,
    _nUnknowns: usize,
    _knowns: *const fmi3ValueReference,
    _nKnowns: usize,
    _seed: *const fmi3Float64,
    _nSeed: usize,
    _sensitivity: *mut fmi3Float64,
    _nSensitivity: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetDirectionalDerivative", |_| {
        unsupported("providesDirectionalDerivatives is false")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetAdjointDerivative(
    instance: fmi3Instance,
    _unknowns: *const fmi3ValueReference,
    _nUnknowns: usize,
    _knowns: *const fmi3ValueReference,
    _nKnowns: usize,
    _seed: *const fmi3Float64,
    _nSeed: usize,
    _sensitivity: *mut fmi3Float64,
    _nSensitivity: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetAdjointDerivative", |_| {
        unsupported("providesAdjointDerivatives is false")
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
pub extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    enter(instance, "fmi3EnterContinuousTimeMode", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3CompletedIntegratorStep(
    instance: fmi3Instance,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    _enterEventMode: *mut fmi3Boolean,
    _terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    enter(instance, "fmi3CompletedIntegratorStep", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetTime(instance: fmi3Instance, _time: fmi3Float64) -> fmi3Status {
    enter(instance, "fmi3SetTime", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    _continuousStates: *const fmi3Float64,
    _nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3SetContinuousStates", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: fmi3Instance,
    _derivatives: *mut fmi3Float64,
    _nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetContinuousStateDerivatives", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetEventIndicators(
    instance: fmi3Instance,
    _eventIndicators: *mut fmi3Float64,
    _nEventIndicators: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetEventIndicators", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetContinuousStates(
    instance: fmi3Instance,
    _continuousStates: *mut fmi3Float64,
    _nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetContinuousStates", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: fmi3Instance,
    _nominals: *mut fmi3Float64,
    _nContinuousStates: usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNominalsOfContinuousStates", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: fmi3Instance,
    _nEventIndicators: *mut usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNumberOfEventIndicators", |_| {
        unsupported("Model Exchange is not provided (not yet)")
    })
}

#[no_mangle]
pub extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    _nContinuousStates: *mut usize,
) -> fmi3Status {
    enter(instance, "fmi3GetNumberOfContinuousStates", |_| {
        unsupported("Model Exchange is not provided (not yet)")
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
