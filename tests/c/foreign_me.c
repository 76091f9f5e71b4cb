/* A foreign FMI 2.0 Model Exchange binary for the tests of `lcsfmu check`
 * (tests/integration/me_check.rs): the 25 common and 10 Model Exchange functions with
 * plain C types, for sign_spiral's `--interface me` description (states x1, x2 at value
 * references 1 and 2, their derivatives at 5 and 6, four event indicators). Its own model
 * is the harmonic oscillator x1' = x2, x2' = -x1 from (-1, 1), indicators (x1, x2, 1, 1),
 * with a state machine that refuses calls in the wrong mode. Built by gcc with one -D flag:
 *   BEHAVE       as above
 *   NAN_DER      the derivatives are NaN from t = 0.5 on
 *   WRONG_DIR    directional derivatives twice what they are
 *   NO_REFUSAL   derivatives are given before initialization
 *   SEGV_EVENT   fmi2NewDiscreteStates writes through a NULL pointer after the start
 *   TIME_EVENT   as BEHAVE, with a time event at t = 0.5 announced from the start */
#include <math.h>
#include <stdlib.h>
#include <stddef.h>

typedef struct { void *logger, *allocate, *free, *step_finished, *env; } callbacks_t;
typedef struct { int new_states, terminate, nominals, values, time_defined; double next; } info_t;
enum { INSTANTIATED, INIT, EVENT, CONT, TERMINATED };
typedef struct { double t, x[2]; int phase; } inst_t;
#define I ((inst_t *)c)
#define ONLY(cond) if (!(cond)) return 3

static void start(inst_t *i) { i->t = 0; i->x[0] = -1; i->x[1] = 1; i->phase = INSTANTIATED; }
static double der(inst_t *i, int k) {
#ifdef NAN_DER
    if (i->t >= 0.5) return NAN;
#endif
    return k == 0 ? i->x[1] : -i->x[0];
}
static int readable(inst_t *i) {
#ifdef NO_REFUSAL
    return 1;
#endif
    return i->phase >= EVENT;
}

const char *fmi2GetTypesPlatform(void) { return "default"; }
const char *fmi2GetVersion(void) { return "2.0"; }
int fmi2SetDebugLogging(void *c, int on, size_t n, const char *const *cats) { return 0; }
void *fmi2Instantiate(const char *name, int type, const char *guid, const char *res,
                      const callbacks_t *cb, int visible, int logging) {
    if (type != 0) return NULL;
    inst_t *i = calloc(1, sizeof *i);
    if (i) start(i);
    return i;
}
void fmi2FreeInstance(void *c) { free(c); }
int fmi2SetupExperiment(void *c, int td, double tol, double t0, int sd, double t1) {
    ONLY(I->phase == INSTANTIATED);
    I->t = t0;
    return 0;
}
int fmi2EnterInitializationMode(void *c) { ONLY(I->phase == INSTANTIATED); I->phase = INIT; return 0; }
int fmi2ExitInitializationMode(void *c) { ONLY(I->phase == INIT); I->phase = EVENT; return 0; }
int fmi2Terminate(void *c) { ONLY(I->phase == EVENT || I->phase == CONT); I->phase = TERMINATED; return 0; }
int fmi2Reset(void *c) { start(I); return 0; }
int fmi2GetReal(void *c, const unsigned *vr, size_t n, double *v) {
    ONLY(I->phase != INSTANTIATED);
    for (size_t k = 0; k < n; k++) {
        switch (vr[k]) {
        case 0: v[k] = I->t; break;
        case 1: case 2: v[k] = I->x[vr[k] - 1]; break;
        case 5: case 6: v[k] = der(I, vr[k] - 5); break;
        default: v[k] = 0;
        }
    }
    return 0;
}
int fmi2GetInteger(void *c, const unsigned *vr, size_t n, int *v) { return 3; }
int fmi2GetBoolean(void *c, const unsigned *vr, size_t n, int *v) { return 3; }
int fmi2GetString(void *c, const unsigned *vr, size_t n, const char **v) { return 3; }
int fmi2SetReal(void *c, const unsigned *vr, size_t n, const double *v) { return n == 0 ? 0 : 3; }
int fmi2SetInteger(void *c, const unsigned *vr, size_t n, const int *v) { return 3; }
int fmi2SetBoolean(void *c, const unsigned *vr, size_t n, const int *v) { return 3; }
int fmi2SetString(void *c, const unsigned *vr, size_t n, const char *const *v) { return 3; }
int fmi2GetFMUstate(void *c, void **s) { return 3; }
int fmi2SetFMUstate(void *c, void *s) { return 3; }
int fmi2FreeFMUstate(void *c, void **s) { return 3; }
int fmi2SerializedFMUstateSize(void *c, void *s, size_t *n) { return 3; }
int fmi2SerializeFMUstate(void *c, void *s, char *bytes, size_t n) { return 3; }
int fmi2DeSerializeFMUstate(void *c, const char *bytes, size_t n, void **s) { return 3; }
int fmi2GetDirectionalDerivative(void *c, const unsigned *u, size_t nu, const unsigned *k,
                                 size_t nk, const double *dk, double *du) {
    ONLY(readable(I));
    /* d(der x1) = d x2, d(der x2) = -d x1 */
    for (size_t a = 0; a < nu; a++) {
        du[a] = 0;
        for (size_t b = 0; b < nk; b++) {
            if (u[a] == 5 && k[b] == 2) du[a] += dk[b];
            if (u[a] == 6 && k[b] == 1) du[a] -= dk[b];
        }
#ifdef WRONG_DIR
        du[a] *= 2;
#endif
    }
    return 0;
}
int fmi2EnterEventMode(void *c) { ONLY(I->phase == CONT); I->phase = EVENT; return 0; }
int fmi2NewDiscreteStates(void *c, info_t *info) {
    ONLY(I->phase == EVENT);
#ifdef SEGV_EVENT
    if (I->t > 0) info = NULL;
#endif
    info->new_states = info->terminate = info->nominals = info->values = 0;
    info->time_defined = 0;
    info->next = 0;
#ifdef TIME_EVENT
    if (I->t < 0.5) {
        info->time_defined = 1;
        info->next = 0.5;
    }
#endif
    return 0;
}
int fmi2EnterContinuousTimeMode(void *c) { ONLY(I->phase == EVENT); I->phase = CONT; return 0; }
int fmi2CompletedIntegratorStep(void *c, int no_prior, int *enter, int *stop) {
    ONLY(I->phase == CONT);
    *enter = *stop = 0;
    return 0;
}
int fmi2SetTime(void *c, double t) { ONLY(I->phase == EVENT || I->phase == CONT); I->t = t; return 0; }
int fmi2SetContinuousStates(void *c, const double *x, size_t n) {
    ONLY(I->phase == CONT && n == 2);
    I->x[0] = x[0];
    I->x[1] = x[1];
    return 0;
}
int fmi2GetContinuousStates(void *c, double *x, size_t n) {
    ONLY(readable(I) && n == 2);
    x[0] = I->x[0];
    x[1] = I->x[1];
    return 0;
}
int fmi2GetDerivatives(void *c, double *dx, size_t n) {
    ONLY(readable(I) && n == 2);
    dx[0] = der(I, 0);
    dx[1] = der(I, 1);
    return 0;
}
int fmi2GetEventIndicators(void *c, double *z, size_t n) {
    ONLY(readable(I) && n == 4);
    z[0] = I->x[0];
    z[1] = I->x[1];
    z[2] = z[3] = 1;
    return 0;
}
int fmi2GetNominalsOfContinuousStates(void *c, double *x, size_t n) {
    ONLY(n == 2);
    x[0] = x[1] = 1;
    return 0;
}
