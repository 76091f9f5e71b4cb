/* The FMU template's C interface against the FMI 2.0 standard's headers.
 *
 * tests/integration/c_header.rs generates three headers from fmu-template/src with
 * cbindgen and compiles this file with gcc -std=c11 -pedantic-errors -Wall -Wextra
 * -Werror, the standard's headers (fmi2Functions.h, from the fmi-sys crate) on the
 * include path. It compiles only if the Rust definitions agree with the standard:
 *
 * - lcsfmu_fmi2_exports.h declares every exported function with the standard's type
 *   names; fmi2Functions.h has declared them already, so a different parameter or
 *   return type is a "conflicting types" error;
 * - lcsfmu_fmi2_types.h holds the template's own typedefs, constants and callback
 *   struct, prefixed with lcsfmu_ (the standard's names are taken); each is compared
 *   below with the standard's. fmi2Status keeps its standard name in them, so that the
 *   callback types that mention it compare whole;
 * - lcsfmu_fmi2_status.h holds the template's fmi2Status, prefixed, for its values.
 *
 * That every standard co-simulation function is exported, and nothing else, is checked
 * on the Rust side of the test (a missing declaration is no C error).
 */
#include <stddef.h>

#include "fmi2Functions.h"
#include "lcsfmu_fmi2_exports.h"
#include "lcsfmu_fmi2_status.h"
#include "lcsfmu_fmi2_types.h"

/* The same C type (qualifiers of the type itself aside). */
#define SAME_TYPE(ours, standard)                                                   \
    _Static_assert(__builtin_types_compatible_p(ours, standard),                    \
                   #ours " is not the type " #standard)

/* As integers: comparing two enumerations' constants directly is a warning. */
#define SAME_VALUE(ours, standard)                                                  \
    _Static_assert((long long)(ours) == (long long)(standard),                      \
                   #ours " is not the value " #standard)

#define SAME_SIZE(ours, standard) \
    _Static_assert(sizeof(ours) == sizeof(standard), #ours " differs in size from " #standard)

/* fmi2TypesPlatform.h */
SAME_TYPE(lcsfmu_fmi2Component, fmi2Component);
SAME_TYPE(lcsfmu_fmi2ComponentEnvironment, fmi2ComponentEnvironment);
SAME_TYPE(lcsfmu_fmi2FMUstate, fmi2FMUstate);
SAME_TYPE(lcsfmu_fmi2ValueReference, fmi2ValueReference);
SAME_TYPE(lcsfmu_fmi2Real, fmi2Real);
SAME_TYPE(lcsfmu_fmi2Integer, fmi2Integer);
SAME_TYPE(lcsfmu_fmi2Boolean, fmi2Boolean);
SAME_TYPE(lcsfmu_fmi2String, fmi2String);
SAME_TYPE(lcsfmu_fmi2Byte, fmi2Byte);
SAME_VALUE(lcsfmu_fmi2True, fmi2True);
SAME_VALUE(lcsfmu_fmi2False, fmi2False);

/* fmi2Status: the template returns and logs it as a C enum. */
SAME_SIZE(lcsfmu_fmi2Status, fmi2Status);
SAME_VALUE(lcsfmu_fmi2Status_fmi2OK, fmi2OK);
SAME_VALUE(lcsfmu_fmi2Status_fmi2Warning, fmi2Warning);
SAME_VALUE(lcsfmu_fmi2Status_fmi2Discard, fmi2Discard);
SAME_VALUE(lcsfmu_fmi2Status_fmi2Error, fmi2Error);
SAME_VALUE(lcsfmu_fmi2Status_fmi2Fatal, fmi2Fatal);
SAME_VALUE(lcsfmu_fmi2Status_fmi2Pending, fmi2Pending);

/* fmi2Type and fmi2StatusKind arrive as int (an out-of-range value is then a value to
 * refuse): gcc's enums are unsigned int, so the types differ in name only; the size and
 * the values the template compares with must be the standard's. */
SAME_SIZE(lcsfmu_fmi2Type, fmi2Type);
SAME_VALUE(lcsfmu_fmi2CoSimulation, fmi2CoSimulation);
SAME_SIZE(lcsfmu_fmi2StatusKind, fmi2StatusKind);
SAME_VALUE(lcsfmu_fmi2LastSuccessfulTime, fmi2LastSuccessfulTime);
SAME_VALUE(lcsfmu_fmi2Terminated, fmi2Terminated);

/* The callbacks (fmi2FunctionTypes.h). */
SAME_TYPE(lcsfmu_fmi2CallbackLogger, fmi2CallbackLogger);
SAME_TYPE(lcsfmu_fmi2CallbackAllocateMemory, fmi2CallbackAllocateMemory);
SAME_TYPE(lcsfmu_fmi2CallbackFreeMemory, fmi2CallbackFreeMemory);
SAME_TYPE(lcsfmu_fmi2StepFinished, fmi2StepFinished);

/* Two struct definitions are never the same C type: compare member by member (type and
 * offset), then the size, which also catches a member the standard does not have. */
#define SAME_MEMBER(member)                                                         \
    _Static_assert(__builtin_types_compatible_p(                                    \
                       __typeof__(((lcsfmu_fmi2CallbackFunctions *)0)->member),     \
                       __typeof__(((fmi2CallbackFunctions *)0)->member)),           \
                   "fmi2CallbackFunctions." #member " has another type");           \
    _Static_assert(offsetof(lcsfmu_fmi2CallbackFunctions, member) ==                \
                       offsetof(fmi2CallbackFunctions, member),                     \
                   "fmi2CallbackFunctions." #member " is at another offset")
SAME_MEMBER(logger);
SAME_MEMBER(allocateMemory);
SAME_MEMBER(freeMemory);
SAME_MEMBER(stepFinished);
SAME_MEMBER(componentEnvironment);
SAME_SIZE(lcsfmu_fmi2CallbackFunctions, fmi2CallbackFunctions);

/* Model Exchange (the template's model-exchange feature): fmi2Type's other value and the
 * struct fmi2NewDiscreteStates fills, member by member as above. */
SAME_VALUE(lcsfmu_fmi2ModelExchange, fmi2ModelExchange);
#define SAME_EVENT_MEMBER(member)                                                   \
    _Static_assert(__builtin_types_compatible_p(                                    \
                       __typeof__(((lcsfmu_fmi2EventInfo *)0)->member),             \
                       __typeof__(((fmi2EventInfo *)0)->member)),                   \
                   "fmi2EventInfo." #member " has another type");                   \
    _Static_assert(offsetof(lcsfmu_fmi2EventInfo, member) ==                        \
                       offsetof(fmi2EventInfo, member),                             \
                   "fmi2EventInfo." #member " is at another offset")
SAME_EVENT_MEMBER(newDiscreteStatesNeeded);
SAME_EVENT_MEMBER(terminateSimulation);
SAME_EVENT_MEMBER(nominalsOfContinuousStatesChanged);
SAME_EVENT_MEMBER(valuesOfContinuousStatesChanged);
SAME_EVENT_MEMBER(nextEventTimeDefined);
SAME_EVENT_MEMBER(nextEventTime);
SAME_SIZE(lcsfmu_fmi2EventInfo, fmi2EventInfo);
