/* A foreign FMI 3.0 Model Exchange binary for the tests of `lcsfmu check`
 * (tests/integration/me3_check.rs): the functions the Model Exchange run calls, with plain
 * C types, for sign_spiral's `--fmi 3 --interface me` description (states x1, x2 at value
 * references 1 and 2, their derivatives at 5 and 6, event indicators at 7 to 10). Its own
 * model is the harmonic oscillator x1' = x2, x2' = -x1 from (-1, 1), indicators
 * (x1, x2, 1, 1), with a state machine that refuses calls in the wrong mode. It exports
 * only these functions, so the check of the 75 exports fails; the Model Exchange run is
 * what the tests read. Built by gcc with one -D flag:
 *   BEHAVE             as above
 *   WRONG_ADJOINT      adjoint derivatives twice what they are
 *   WRONG_COUNT        fmi3GetNumberOfContinuousStates gives 3
 *   WRONG_INDICATOR    the variable of indicator 0 (value reference 7) reads 0 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

enum { INSTANTIATED, INIT, EVENT, CONT, TERMINATED };
typedef struct { double t, x[2]; int phase; } inst_t;
#define I ((inst_t *)c)
#define ONLY(cond) if (!(cond)) return 3

static void start(inst_t *i) { i->t = 0; i->x[0] = -1; i->x[1] = 1; i->phase = INSTANTIATED; }
static double der(inst_t *i, int k) { return k == 0 ? i->x[1] : -i->x[0]; }
static double indicator(inst_t *i, int k) { return k < 2 ? i->x[k] : 1; }
static int readable(inst_t *i) { return i->phase >= EVENT; }

void *fmi3InstantiateModelExchange(const char *name, const char *token, const char *res,
                                   bool visible, bool logging, void *env, void *logger) {
    inst_t *i = calloc(1, sizeof *i);
    if (i) start(i);
    return i;
}
void fmi3FreeInstance(void *c) { free(c); }
int fmi3EnterInitializationMode(void *c, bool td, double tol, double t0, bool sd, double t1) {
    ONLY(I->phase == INSTANTIATED);
    I->t = t0;
    I->phase = INIT;
    return 0;
}
int fmi3ExitInitializationMode(void *c) { ONLY(I->phase == INIT); I->phase = EVENT; return 0; }
int fmi3Terminate(void *c) { ONLY(I->phase == EVENT || I->phase == CONT); I->phase = TERMINATED; return 0; }
int fmi3Reset(void *c) { start(I); return 0; }
int fmi3GetFloat64(void *c, const unsigned *vr, size_t n, double *v, size_t nv) {
    ONLY(I->phase != INSTANTIATED && n == nv);
    for (size_t k = 0; k < n; k++) {
        switch (vr[k]) {
        case 0: v[k] = I->t; break;
        case 1: case 2: v[k] = I->x[vr[k] - 1]; break;
        case 5: case 6: v[k] = der(I, vr[k] - 5); break;
        case 7: case 8: case 9: case 10: v[k] = indicator(I, vr[k] - 7); break;
        default: v[k] = 0;
        }
#ifdef WRONG_INDICATOR
        if (vr[k] == 7) v[k] = 0;
#endif
    }
    return 0;
}
int fmi3SetFloat64(void *c, const unsigned *vr, size_t n, const double *v, size_t nv) {
    return n == 0 ? 0 : 3;
}
/* d(der x1) = d x2, d(der x2) = -d x1: the Jacobian [[0, 1], [-1, 0]] by value reference. */
static double jacobian(unsigned u, unsigned k) {
    if (u == 5 && k == 2) return 1;
    if (u == 6 && k == 1) return -1;
    return 0;
}
int fmi3GetDirectionalDerivative(void *c, const unsigned *u, size_t nu, const unsigned *k,
                                 size_t nk, const double *seed, size_t ns, double *out,
                                 size_t no) {
    ONLY(readable(I) && ns == nk && no == nu);
    for (size_t a = 0; a < nu; a++) {
        out[a] = 0;
        for (size_t b = 0; b < nk; b++) out[a] += jacobian(u[a], k[b]) * seed[b];
    }
    return 0;
}
int fmi3GetAdjointDerivative(void *c, const unsigned *u, size_t nu, const unsigned *k,
                             size_t nk, const double *seed, size_t ns, double *out,
                             size_t no) {
    ONLY(readable(I) && ns == nu && no == nk);
    for (size_t b = 0; b < nk; b++) {
        out[b] = 0;
        for (size_t a = 0; a < nu; a++) out[b] += seed[a] * jacobian(u[a], k[b]);
#ifdef WRONG_ADJOINT
        out[b] *= 2;
#endif
    }
    return 0;
}
int fmi3EnterEventMode(void *c) { ONLY(I->phase == CONT); I->phase = EVENT; return 0; }
int fmi3UpdateDiscreteStates(void *c, bool *again, bool *stop, bool *nominals, bool *values,
                             bool *defined, double *next) {
    ONLY(I->phase == EVENT);
    *again = *stop = *nominals = *values = *defined = false;
    *next = 0;
    return 0;
}
int fmi3EnterContinuousTimeMode(void *c) { ONLY(I->phase == EVENT); I->phase = CONT; return 0; }
int fmi3CompletedIntegratorStep(void *c, bool no_prior, bool *enter, bool *stop) {
    ONLY(I->phase == CONT);
    *enter = *stop = false;
    return 0;
}
int fmi3DoStep(void *c, double t, double h, bool no_prior, bool *event, bool *stop,
               bool *early, double *last) {
    return 3;
}
int fmi3SetTime(void *c, double t) { ONLY(I->phase == EVENT || I->phase == CONT); I->t = t; return 0; }
int fmi3SetContinuousStates(void *c, const double *x, size_t n) {
    ONLY(I->phase == CONT && n == 2);
    I->x[0] = x[0];
    I->x[1] = x[1];
    return 0;
}
int fmi3GetContinuousStates(void *c, double *x, size_t n) {
    ONLY(readable(I) && n == 2);
    x[0] = I->x[0];
    x[1] = I->x[1];
    return 0;
}
int fmi3GetContinuousStateDerivatives(void *c, double *dx, size_t n) {
    ONLY(readable(I) && n == 2);
    dx[0] = der(I, 0);
    dx[1] = der(I, 1);
    return 0;
}
int fmi3GetEventIndicators(void *c, double *z, size_t n) {
    ONLY(readable(I) && n == 4);
    for (int k = 0; k < 4; k++) z[k] = indicator(I, k);
    return 0;
}
int fmi3GetNominalsOfContinuousStates(void *c, double *x, size_t n) {
    ONLY(n == 2);
    x[0] = x[1] = 1;
    return 0;
}
int fmi3GetNumberOfContinuousStates(void *c, size_t *n) {
#ifdef WRONG_COUNT
    *n = 3;
#else
    *n = 2;
#endif
    return 0;
}
int fmi3GetNumberOfEventIndicators(void *c, size_t *n) { *n = 4; return 0; }
