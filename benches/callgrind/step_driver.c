/* Steps one FMU binary N times through the C ABI, for instruction counts.
 *
 * usage: step_driver 2|3 BINARY.so TOKEN STEP N [RESOURCES]
 *
 * RESOURCES is the fmuResourceLocation (FMI 2.0) or resourcePath (FMI 3.0)
 * passed at instantiation, "" when left out; the prebuilt runtime reads its
 * model from there (a file:// URI of the FMU's resources directory).
 * `2` drives fmi2Instantiate / fmi2DoStep, `3` fmi3InstantiateCoSimulation /
 * fmi3DoStep (no event mode, no early return: the call an FMI 2.0 master
 * makes). Everything but the steps is outside callgrind's count when it runs
 * with --toggle-collect on the DoStep function (scripts/count-instructions.sh),
 * so instructions per step are the step's own: deterministic, unlike a wall
 * clock on a shared machine. Exits non-zero when any call fails.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    void *logger, *allocate, *free, *step_finished, *environment;
} Callbacks2;

typedef void *(*Instantiate2)(const char *, int, const char *, const char *, const Callbacks2 *, int, int);
typedef int (*Setup2)(void *, int, double, double, int, double);
typedef int (*Simple)(void *);
typedef int (*DoStep2)(void *, double, double, int);
typedef void (*Free)(void *);

typedef void *(*Instantiate3)(const char *, const char *, const char *, bool, bool, bool, bool,
                              const unsigned *, size_t, void *, void *, void *);
typedef int (*Enter3)(void *, bool, double, double, bool, double);
typedef int (*DoStep3)(void *, double, double, bool, bool *, bool *, bool *, double *);

/* A logger that drops every message: lcsfmu accepts a NULL one, the Reference
 * FMUs (measured beside it) do not instantiate without one. */
static void quiet(void *env, const char *name, int status, const char *category, const char *message, ...) {
    (void)env, (void)name, (void)status, (void)category, (void)message;
}

static void *symbol(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "missing %s\n", name);
        exit(2);
    }
    return f;
}

static long run2(void *lib, const char *token, const char *resources, double h, long n) {
    Callbacks2 cb = {(void *)quiet, calloc, free, 0, 0};
    void *s = ((Instantiate2)symbol(lib, "fmi2Instantiate"))("count", 1, token, resources, &cb, 0, 0);
    if (!s) return -1;
    long bad = ((Setup2)symbol(lib, "fmi2SetupExperiment"))(s, 0, 0.0, 0.0, 0, 0.0) != 0;
    bad += ((Simple)symbol(lib, "fmi2EnterInitializationMode"))(s) != 0;
    bad += ((Simple)symbol(lib, "fmi2ExitInitializationMode"))(s) != 0;
    DoStep2 step = (DoStep2)symbol(lib, "fmi2DoStep");
    for (long i = 0; i < n; i++) bad += step(s, i * h, h, 1) != 0;
    ((Free)symbol(lib, "fmi2FreeInstance"))(s);
    return bad;
}

static long run3(void *lib, const char *token, const char *resources, double h, long n) {
    void *s = ((Instantiate3)symbol(lib, "fmi3InstantiateCoSimulation"))(
        "count", token, resources, false, false, false, false, NULL, 0, NULL, NULL, NULL);
    if (!s) return -1;
    long bad = ((Enter3)symbol(lib, "fmi3EnterInitializationMode"))(s, false, 0.0, 0.0, false, 0.0) != 0;
    bad += ((Simple)symbol(lib, "fmi3ExitInitializationMode"))(s) != 0;
    DoStep3 step = (DoStep3)symbol(lib, "fmi3DoStep");
    bool event, terminate, early;
    double last;
    for (long i = 0; i < n; i++)
        bad += step(s, i * h, h, true, &event, &terminate, &early, &last) != 0;
    ((Free)symbol(lib, "fmi3FreeInstance"))(s);
    return bad;
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s 2|3 BINARY TOKEN STEP N [RESOURCES]\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[2], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    double h = atof(argv[4]);
    long n = atol(argv[5]);
    const char *resources = argc == 7 ? argv[6] : "";
    long bad = argv[1][0] == '3' ? run3(lib, argv[3], resources, h, n) : run2(lib, argv[3], resources, h, n);
    if (bad != 0) {
        fprintf(stderr, "%ld calls failed (-1: instantiation)\n", bad);
        return 1;
    }
    return 0;
}
