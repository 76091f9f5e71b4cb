/* A foreign FMU binary for the tests of `lcsfmu check` (tests/integration/binary_run.rs):
 * the 34 FMI 2.0 co-simulation functions with plain C types, built by gcc with one
 * -D flag that chooses how fmi2DoStep misbehaves:
 *   BEHAVE   steps correctly (time advances, every real reads as the time)
 *   SEGV     writes through a NULL pointer
 *   LOOP     never returns
 *   ERROR    logs a message and returns fmi2Error
 *   HOG      allocates and touches memory until malloc fails, then returns fmi2Fatal
 *   NO_DOSTEP  does not define fmi2DoStep at all (a missing symbol)
 *   EXIT     calls exit(3), as some importers' helpers do on an error
 *   FORK     forks a process that sleeps for 1,000 s holding the child's pipes, then steps
 *   CTOR_SEGV  steps correctly, but its constructor crashes while the library loads
 * The FMU state is the instance's time, so a restored state replays exactly. */
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <unistd.h>

#ifdef CTOR_SEGV
__attribute__((constructor)) static void crash_on_load(void) { *(volatile int *)NULL = 1; }
#endif

typedef void (*logger_t)(void *, const char *, int, const char *, const char *, ...);
typedef struct { logger_t logger; void *allocate, *free, *step_finished, *env; } callbacks_t;
typedef struct { double t; const callbacks_t *cb; } inst_t;

const char *fmi2GetTypesPlatform(void) { return "default"; }
const char *fmi2GetVersion(void) { return "2.0"; }
int fmi2SetDebugLogging(void *c, int on, size_t n, const char *const *cats) { return 0; }
void *fmi2Instantiate(const char *name, int type, const char *guid, const char *res,
                      const callbacks_t *cb, int visible, int logging) {
    inst_t *i = calloc(1, sizeof *i);
    if (i) i->cb = cb;
    return i;
}
void fmi2FreeInstance(void *c) { free(c); }
int fmi2SetupExperiment(void *c, int td, double tol, double t0, int sd, double t1) {
    ((inst_t *)c)->t = t0;
    return 0;
}
int fmi2EnterInitializationMode(void *c) { return 0; }
int fmi2ExitInitializationMode(void *c) { return 0; }
int fmi2Terminate(void *c) { return 0; }
int fmi2Reset(void *c) { return 0; }
int fmi2GetReal(void *c, const unsigned *vr, size_t n, double *v) {
    for (size_t k = 0; k < n; k++) v[k] = ((inst_t *)c)->t;
    return 0;
}
int fmi2GetInteger(void *c, const unsigned *vr, size_t n, int *v) { return 3; }
int fmi2GetBoolean(void *c, const unsigned *vr, size_t n, int *v) { return 3; }
int fmi2GetString(void *c, const unsigned *vr, size_t n, const char **v) { return 3; }
int fmi2SetReal(void *c, const unsigned *vr, size_t n, const double *v) { return 0; }
int fmi2SetInteger(void *c, const unsigned *vr, size_t n, const int *v) { return 3; }
int fmi2SetBoolean(void *c, const unsigned *vr, size_t n, const int *v) { return 3; }
int fmi2SetString(void *c, const unsigned *vr, size_t n, const char *const *v) { return 3; }
int fmi2GetFMUstate(void *c, void **s) {
    if (!*s) *s = malloc(sizeof(double));
    memcpy(*s, &((inst_t *)c)->t, sizeof(double));
    return 0;
}
int fmi2SetFMUstate(void *c, void *s) {
    memcpy(&((inst_t *)c)->t, s, sizeof(double));
    return 0;
}
int fmi2FreeFMUstate(void *c, void **s) {
    free(*s);
    *s = NULL;
    return 0;
}
int fmi2SerializedFMUstateSize(void *c, void *s, size_t *n) {
    *n = sizeof(double);
    return 0;
}
int fmi2SerializeFMUstate(void *c, void *s, char *bytes, size_t n) {
    memcpy(bytes, s, sizeof(double));
    return 0;
}
int fmi2DeSerializeFMUstate(void *c, const char *bytes, size_t n, void **s) {
    *s = malloc(sizeof(double));
    memcpy(*s, bytes, sizeof(double));
    return 0;
}
int fmi2GetDirectionalDerivative(void *c, const unsigned *a, size_t na, const unsigned *b,
                                 size_t nb, const double *dv, double *df) { return 3; }
int fmi2SetRealInputDerivatives(void *c, const unsigned *vr, size_t n, const int *o,
                                const double *v) { return 3; }
int fmi2GetRealOutputDerivatives(void *c, const unsigned *vr, size_t n, const int *o,
                                 double *v) { return 3; }
#ifndef NO_DOSTEP
int fmi2DoStep(void *c, double t, double h, int no_prior) {
    inst_t *i = c;
#if defined(SEGV)
    *(volatile int *)NULL = 1;
#elif defined(LOOP)
    for (volatile int spin = 1; spin;) {}
#elif defined(ERROR)
    i->cb->logger(i->cb->env, "foreign", 3, "logStatusError", "step refused by design at t = %g", t);
    return 3;
#elif defined(HOG)
    size_t total = 0;
    for (;;) {
        char *p = malloc(16 << 20);
        if (!p) {
            i->cb->logger(i->cb->env, "foreign", 4, "logStatusFatal", "out of memory");
            return 4;
        }
        memset(p, 1, 16 << 20);
        total += 16 << 20;
    }
#elif defined(EXIT)
    exit(3);
#elif defined(FORK)
    static int forked = 0;
    if (!forked++ && fork() == 0) {
        sleep(1000);
        _exit(0);
    }
#endif
    i->t = t + h;
    return 0;
}
#endif
int fmi2CancelStep(void *c) { return 3; }
int fmi2GetStatus(void *c, int k, int *v) { return 3; }
int fmi2GetRealStatus(void *c, int k, double *v) { return 3; }
int fmi2GetIntegerStatus(void *c, int k, int *v) { return 3; }
int fmi2GetBooleanStatus(void *c, int k, int *v) { return 3; }
int fmi2GetStringStatus(void *c, int k, const char **v) { return 3; }
