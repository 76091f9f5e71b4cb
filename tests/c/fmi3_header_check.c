/* The FMU template's FMI 3.0 C interface against the FMI 3.0 standard's headers.
 *
 * The FMI 3.0 counterpart of fmi2_header_check.c (read that file first):
 * tests/integration/c_header.rs generates the headers from template/src with cbindgen,
 * the FMI 3.0 shell (the template's `fmi3` feature) visible through LCSFMU_FMI3, and
 * compiles this file with gcc -std=c11 -pedantic-errors -Wall -Wextra -Werror, the
 * FMI 3.0 headers of the fmi-sys crate on the include path (and the FMI 2.0 ones: the
 * shared shell also names FMI 2.0 types).
 *
 * - lcsfmu_fmi3_exports.h declares the 75 exported functions with the standard's type
 *   names; fmi3Functions.h has declared them already, so a different parameter or
 *   return type is a "conflicting types" error;
 * - lcsfmu_fmi3_types.h holds the template's own typedefs, prefixed with lcsfmu_, each
 *   compared below with the standard's;
 * - lcsfmu_fmi3_status.h holds the template's fmi3Status, prefixed, for its values.
 */
#define LCSFMU_FMI3 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmi2Functions.h"
#include "fmi3Functions.h"
#include "lcsfmu_fmi3_exports.h"
#include "lcsfmu_fmi3_status.h"
#include "lcsfmu_fmi3_types.h"

#define SAME_TYPE(ours, standard)                                                   \
    _Static_assert(__builtin_types_compatible_p(ours, standard),                    \
                   #ours " is not the type " #standard)

#define SAME_VALUE(ours, standard)                                                  \
    _Static_assert((long long)(ours) == (long long)(standard),                      \
                   #ours " is not the value " #standard)

#define SAME_SIZE(ours, standard) \
    _Static_assert(sizeof(ours) == sizeof(standard), #ours " differs in size from " #standard)

/* fmi3PlatformTypes.h */
SAME_TYPE(lcsfmu_fmi3Instance, fmi3Instance);
SAME_TYPE(lcsfmu_fmi3InstanceEnvironment, fmi3InstanceEnvironment);
SAME_TYPE(lcsfmu_fmi3FMUState, fmi3FMUState);
SAME_TYPE(lcsfmu_fmi3ValueReference, fmi3ValueReference);
SAME_TYPE(lcsfmu_fmi3Float32, fmi3Float32);
SAME_TYPE(lcsfmu_fmi3Float64, fmi3Float64);
SAME_TYPE(lcsfmu_fmi3Int8, fmi3Int8);
SAME_TYPE(lcsfmu_fmi3UInt8, fmi3UInt8);
SAME_TYPE(lcsfmu_fmi3Int16, fmi3Int16);
SAME_TYPE(lcsfmu_fmi3UInt16, fmi3UInt16);
SAME_TYPE(lcsfmu_fmi3Int32, fmi3Int32);
SAME_TYPE(lcsfmu_fmi3UInt32, fmi3UInt32);
SAME_TYPE(lcsfmu_fmi3Int64, fmi3Int64);
SAME_TYPE(lcsfmu_fmi3UInt64, fmi3UInt64);
SAME_TYPE(lcsfmu_fmi3Boolean, fmi3Boolean);
SAME_TYPE(lcsfmu_fmi3Char, fmi3Char);
SAME_TYPE(lcsfmu_fmi3String, fmi3String);
SAME_TYPE(lcsfmu_fmi3Byte, fmi3Byte);
SAME_TYPE(lcsfmu_fmi3Binary, fmi3Binary);
SAME_TYPE(lcsfmu_fmi3Clock, fmi3Clock);

/* fmi3Status: returned and logged as a C enum. */
SAME_SIZE(lcsfmu_fmi3Status, fmi3Status);
SAME_VALUE(lcsfmu_fmi3Status_fmi3OK, fmi3OK);
SAME_VALUE(lcsfmu_fmi3Status_fmi3Warning, fmi3Warning);
SAME_VALUE(lcsfmu_fmi3Status_fmi3Discard, fmi3Discard);
SAME_VALUE(lcsfmu_fmi3Status_fmi3Error, fmi3Error);
SAME_VALUE(lcsfmu_fmi3Status_fmi3Fatal, fmi3Fatal);

/* The enums the template never reads, as int (sizes only; see fmi2Type). */
SAME_SIZE(lcsfmu_fmi3DependencyKind, fmi3DependencyKind);
SAME_SIZE(lcsfmu_fmi3IntervalQualifier, fmi3IntervalQualifier);

/* The callbacks (fmi3FunctionTypes.h). */
SAME_TYPE(lcsfmu_fmi3LogMessageCallback, fmi3LogMessageCallback);
SAME_TYPE(lcsfmu_fmi3ClockUpdateCallback, fmi3ClockUpdateCallback);
SAME_TYPE(lcsfmu_fmi3IntermediateUpdateCallback, fmi3IntermediateUpdateCallback);
SAME_TYPE(lcsfmu_fmi3LockPreemptionCallback, fmi3LockPreemptionCallback);
SAME_TYPE(lcsfmu_fmi3UnlockPreemptionCallback, fmi3UnlockPreemptionCallback);
