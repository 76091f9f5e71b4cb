/* A minimal FMI 2.0 co-simulation master in C, built twice by the win64 tests
 * (tests/python/test_win64.py): with gcc for the linux64 binary (dlopen) and with
 * MinGW-w64 for the win64 DLL, run under wine (LoadLibrary). Both builds run the
 * same life cycle on the same model, so their outputs can be compared.
 *
 * Usage: fmi2_driver BINARY GUID RESOURCE_URI STOP STEP VR...
 * Life cycle: instantiate, setup (start 0, stop STOP), enter/exit initialization,
 * doStep at t_k = k*STEP (the last step clipped to STOP, as FMPy does) until STOP,
 * the outputs VR... read after initialization and after every step, then reset and
 * run again: the second run must print the same numbers as the first (checked
 * here), then terminate and free. Prints one line per communication point:
 * the time and the values, each as %a (exact hexadecimal floating point; the
 * MinGW build needs -D__USE_MINGW_ANSI_STDIO=1 for it).
 * Exit status: 0 when every call returned fmi2OK or fmi2Warning (a warning is a
 * call that succeeded: bridge_cap_filter warns at initialization that no
 * multipliers fit its start state), 1 otherwise, 2 on bad usage. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
typedef HMODULE library;
static library open_library(const char *path) { return LoadLibraryA(path); }
static void *symbol(library lib, const char *name) { return (void *)GetProcAddress(lib, name); }
static unsigned long load_error(void) { return GetLastError(); }
#else
#include <dlfcn.h>
typedef void *library;
static library open_library(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *symbol(library lib, const char *name) { return dlsym(lib, name); }
static unsigned long load_error(void) { fprintf(stderr, "%s\n", dlerror()); return 0; }
#endif

/* The FMI 2.0 types this driver needs (fmi2TypesPlatform.h, fmi2FunctionTypes.h). */
typedef void *fmi2Component;
typedef unsigned int fmi2ValueReference;
typedef int fmi2Status; /* fmi2OK = 0 */
typedef void (*fmi2CallbackLogger)(void *, const char *, fmi2Status, const char *, const char *, ...);
typedef struct {
    fmi2CallbackLogger logger;
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(void *, fmi2Status);
    void *componentEnvironment;
} fmi2CallbackFunctions;
typedef fmi2Component (*Instantiate)(const char *, int, const char *, const char *,
                                     const fmi2CallbackFunctions *, int, int);
typedef fmi2Status (*Setup)(fmi2Component, int, double, double, int, double);
typedef fmi2Status (*Simple)(fmi2Component);
typedef fmi2Status (*DoStep)(fmi2Component, double, double, int);
typedef fmi2Status (*GetReal)(fmi2Component, const fmi2ValueReference *, size_t, double *);
typedef void (*FreeInstance)(fmi2Component);

static void logger(void *env, const char *name, fmi2Status status, const char *category,
                   const char *message, ...) {
    (void)env;
    fprintf(stderr, "[%s] %s status %d: %s\n", category ? category : "", name ? name : "",
            status, message ? message : "");
}

static int failures = 0;
static void check(fmi2Status status, const char *call) {
    if (status != 0 && status != 1) { /* fmi2OK, fmi2Warning */
        fprintf(stderr, "%s returned %d\n", call, status);
        failures++;
    }
}

/* One run from initialization to STOP; the rows go to out[] (times and values). */
static size_t run(void *const f[], fmi2Component c, double stop, double h,
                  const fmi2ValueReference *vr, size_t n, double *out, size_t capacity) {
    size_t rows = 0;
    check(((Setup)f[0])(c, 0, 0.0, 0.0, 1, stop), "fmi2SetupExperiment");
    check(((Simple)f[1])(c), "fmi2EnterInitializationMode");
    check(((Simple)f[2])(c), "fmi2ExitInitializationMode");
    double t = 0.0;
    for (long k = 0;; k++) {
        if (rows < capacity) {
            double *row = out + rows * (n + 1);
            row[0] = t;
            check(((GetReal)f[4])(c, vr, n, row + 1), "fmi2GetReal");
            rows++;
        }
        if (t > stop || fabs(t - stop) <= 1e-9 * fmax(fabs(t), fabs(stop))) break;
        double next = (double)(k + 1) * h;
        if (next > stop) next = stop;
        fmi2Status s = ((DoStep)f[3])(c, t, next - t, 1);
        check(s, "fmi2DoStep");
        if (s != 0) break;
        t = next;
    }
    return rows;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s BINARY GUID RESOURCE_URI STOP STEP VR...\n", argv[0]);
        return 2;
    }
    library lib = open_library(argv[1]);
    if (!lib) {
        fprintf(stderr, "cannot load %s (error %lu)\n", argv[1], load_error());
        return 1;
    }
    const char *names[] = {"fmi2SetupExperiment", "fmi2EnterInitializationMode",
                           "fmi2ExitInitializationMode", "fmi2DoStep", "fmi2GetReal",
                           "fmi2Reset", "fmi2Terminate", "fmi2Instantiate", "fmi2FreeInstance"};
    void *f[9];
    for (int i = 0; i < 9; i++) {
        f[i] = symbol(lib, names[i]);
        if (!f[i]) {
            fprintf(stderr, "%s not exported\n", names[i]);
            return 1;
        }
    }
    double stop = atof(argv[4]), h = atof(argv[5]);
    if (!(stop > 0.0 && h > 0.0 && stop / h < 1e8)) {
        fprintf(stderr, "STOP %s and STEP %s must be positive numbers, STOP/STEP < 1e8\n",
                argv[4], argv[5]);
        return 2;
    }
    size_t n = (size_t)(argc - 6);
    fmi2ValueReference *vr = calloc(n + 1, sizeof *vr);
    for (size_t i = 0; i < n; i++) vr[i] = (fmi2ValueReference)strtoul(argv[6 + i], NULL, 10);
    size_t capacity = (size_t)(stop / h) + 3;
    double *first = calloc(capacity * (n + 1), sizeof *first);
    double *second = calloc(capacity * (n + 1), sizeof *second);
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = ((Instantiate)f[7])("driver", 1, argv[2], argv[3], &callbacks, 0, 0);
    if (!c) {
        fprintf(stderr, "fmi2Instantiate returned NULL\n");
        return 1;
    }
    size_t rows = run(f, c, stop, h, vr, n, first, capacity);
    check(((Simple)f[5])(c), "fmi2Reset");
    size_t again = run(f, c, stop, h, vr, n, second, capacity);
    if (again != rows || memcmp(first, second, rows * (n + 1) * sizeof *first) != 0) {
        fprintf(stderr, "the run after fmi2Reset differs from the first\n");
        failures++;
    }
    check(((Simple)f[6])(c), "fmi2Terminate");
    ((FreeInstance)f[8])(c);
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j <= n; j++) printf(j ? ",%a" : "%a", first[r * (n + 1) + j]);
        printf("\n");
    }
    free(vr);
    free(first);
    free(second);
    return failures ? 1 : 0;
}
