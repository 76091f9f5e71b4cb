//! The child side of the binary's short run: loads an FMU's shared library and
//! drives one FMI 2.0 co-simulation life cycle through its C API. This is the
//! only module of the crate with `unsafe` code and raw pointers.
//!
//! It runs inside `lcsfmu __run-binary`, a child process that `lcsfmu check`
//! spawns ([`super::run`]), never in the process that reports: a foreign binary
//! may segfault, loop, abort or exhaust memory, and each of those must end this
//! child only. The child first limits itself ([`limit_self`]: address space, CPU
//! time, file size, no core dump), then announces each call on standard output
//! (`call NAME`) before making it, so the parent can say in which call a crash or
//! a hang happened. Messages the FMU logs are relayed as `log` lines; the end is
//! one `pass SUMMARY` or `fail REASON` line and the exit status. The protocol is
//! plain lines, so that a partial transcript is still readable.
//!
//! The life cycle: instantiate (with a logger and the allocation callbacks FMI
//! 2.0 requires of an importer), setup, enter and exit initialization, the steps
//! with `fmi2GetReal` of the given references after each, and, when the FMU
//! declares it can, an FMU state taken halfway, restored after the last step and
//! the second half replayed, which must end on the same bits (again through
//! serialization when declared); then terminate and free.

#![allow(unsafe_code)]

use libloading::os::unix::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the child is asked to run.
#[derive(Clone, Debug)]
pub struct Spec {
    pub library: PathBuf,
    pub guid: String,
    pub resources: String,
    pub start: f64,
    pub step: f64,
    pub steps: usize,
    /// Value references of Real variables read after each step.
    pub reals: Vec<u32>,
    pub fmu_state: bool,
    pub serialize: bool,
}

type Component = *mut c_void;
type FmuState = *mut c_void;
type Status = c_int;

/// FMI 2.0's logger is variadic (printf arguments after the message). A Rust
/// function cannot be variadic on stable; on the Linux ABIs (x86-64 System V,
/// AArch64) the fixed arguments of a variadic call are passed exactly as for
/// this non-variadic signature, and the extra ones are simply not read. The
/// message is shown as written; lcsfmu's FMUs pre-format theirs.
type Logger = extern "C" fn(*mut c_void, *const c_char, Status, *const c_char, *const c_char);

/// `fmi2CallbackFunctions`.
#[repr(C)]
struct Callbacks {
    logger: Logger,
    allocate: extern "C" fn(usize, usize) -> *mut c_void,
    free: extern "C" fn(*mut c_void),
    step_finished: *const c_void,
    environment: *mut c_void,
}

/// Log lines relayed at most; a chatty FMU must not flood the parent.
const MAX_LOG_LINES: usize = 200;
static LOGGED: AtomicUsize = AtomicUsize::new(0);

/// A C string the FMU passed, or `?` for NULL; long text cut.
fn text(p: *const c_char) -> String {
    if p.is_null() {
        return "?".into();
    }
    // SAFETY: the FMU passes NUL-terminated strings valid for the call (FMI 2.0 §2.1.5).
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy();
    let s: String = s.chars().take(400).collect();
    s.replace(['\n', '\r'], " ").replace("%%", "%")
}

extern "C" fn logger(
    _env: *mut c_void,
    _instance: *const c_char,
    status: Status,
    category: *const c_char,
    message: *const c_char,
) {
    if LOGGED.fetch_add(1, Ordering::Relaxed) >= MAX_LOG_LINES {
        return;
    }
    // Write errors (the parent gone) are ignored: a panic must not cross into C.
    let line = format!(
        "log {} {}: {}",
        status_name(status),
        text(category),
        text(message)
    );
    drop(writeln!(std::io::stdout(), "{line}"));
}

extern "C" fn allocate(n: usize, size: usize) -> *mut c_void {
    // SAFETY: calloc accepts any sizes and returns NULL when it cannot.
    unsafe { libc::calloc(n, size) }
}

extern "C" fn free(p: *mut c_void) {
    // SAFETY: the FMU frees only what `allocate` returned (or NULL).
    unsafe { libc::free(p) }
}

/// An `fmi2Status` by name.
pub fn status_name(s: Status) -> String {
    let names = [
        "fmi2OK",
        "fmi2Warning",
        "fmi2Discard",
        "fmi2Error",
        "fmi2Fatal",
        "fmi2Pending",
    ];
    usize::try_from(s)
        .ok()
        .and_then(|i| names.get(i))
        .map_or_else(
            || format!("status {s} (not an fmi2Status)"),
            |n| n.to_string(),
        )
}

fn announce(what: &str) {
    drop(writeln!(std::io::stdout(), "call {what}"));
}

/// OK and Warning continue, as in FMPy; anything else ends the run.
fn ok(status: Status, what: &str) -> Result<(), String> {
    match status {
        0 | 1 => Ok(()),
        s => Err(format!("{what} returned {}", status_name(s))),
    }
}

/// The FMI functions the life cycle calls, resolved by name.
struct Api {
    instantiate: unsafe extern "C" fn(
        *const c_char,
        c_int,
        *const c_char,
        *const c_char,
        *const Callbacks,
        c_int,
        c_int,
    ) -> Component,
    free_instance: unsafe extern "C" fn(Component),
    setup: unsafe extern "C" fn(Component, c_int, f64, f64, c_int, f64) -> Status,
    enter: unsafe extern "C" fn(Component) -> Status,
    exit: unsafe extern "C" fn(Component) -> Status,
    terminate: unsafe extern "C" fn(Component) -> Status,
    get_real: unsafe extern "C" fn(Component, *const c_uint, usize, *mut f64) -> Status,
    do_step: unsafe extern "C" fn(Component, f64, f64, c_int) -> Status,
    get_state: unsafe extern "C" fn(Component, *mut FmuState) -> Status,
    set_state: unsafe extern "C" fn(Component, FmuState) -> Status,
    free_state: unsafe extern "C" fn(Component, *mut FmuState) -> Status,
    size: unsafe extern "C" fn(Component, FmuState, *mut usize) -> Status,
    serialize: unsafe extern "C" fn(Component, FmuState, *mut c_char, usize) -> Status,
    deserialize: unsafe extern "C" fn(Component, *const c_char, usize, *mut FmuState) -> Status,
}

/// The functions [`Api`] holds, by their exported names.
const NAMES: [&str; 14] = [
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2GetReal",
    "fmi2DoStep",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
];

/// The exported symbol `name` as a `T`.
///
/// # Safety
/// `T` must be the C signature FMI 2.0 gives `name` (fmi2FunctionTypes.h).
unsafe fn get<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    let symbol = format!("{name}\0");
    let found = lib.get::<T>(symbol.as_bytes());
    found.map(|s| *s).map_err(|e| format!("{name}: {e}"))
}

impl Api {
    /// Every function, or the names of all the missing ones.
    fn resolve(lib: &Library) -> Result<Api, String> {
        // SAFETY: only looked up here, never called through this type.
        let absent = |n: &&str| unsafe { get::<*const c_void>(lib, n) }.is_err();
        let missing: Vec<&str> = NAMES.iter().copied().filter(absent).collect();
        if !missing.is_empty() {
            return Err(format!(
                "the library does not export {}",
                missing.join(", ")
            ));
        }
        // SAFETY: each field's type is the FMI 2.0 signature of the name it is
        // looked up by.
        unsafe {
            Ok(Api {
                instantiate: get(lib, "fmi2Instantiate")?,
                free_instance: get(lib, "fmi2FreeInstance")?,
                setup: get(lib, "fmi2SetupExperiment")?,
                enter: get(lib, "fmi2EnterInitializationMode")?,
                exit: get(lib, "fmi2ExitInitializationMode")?,
                terminate: get(lib, "fmi2Terminate")?,
                get_real: get(lib, "fmi2GetReal")?,
                do_step: get(lib, "fmi2DoStep")?,
                get_state: get(lib, "fmi2GetFMUstate")?,
                set_state: get(lib, "fmi2SetFMUstate")?,
                free_state: get(lib, "fmi2FreeFMUstate")?,
                size: get(lib, "fmi2SerializedFMUstateSize")?,
                serialize: get(lib, "fmi2SerializeFMUstate")?,
                deserialize: get(lib, "fmi2DeSerializeFMUstate")?,
            })
        }
    }
}

/// Limits this process: `memory` bytes of address space, `cpu` seconds of CPU
/// (SIGXCPU at the soft limit, SIGKILL a second later), files of at most
/// `file` bytes, and no core dump (a crash must not write into the directory).
pub fn limit_self(memory: u64, cpu: u64, file: u64) -> Result<(), String> {
    let set = |resource, soft: u64, hard: u64, what: &str| {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct passed by reference and nothing else.
        if unsafe { libc::getrlimit(resource, &mut lim) } != 0 {
            return Err(format!(
                "getrlimit({what}): {}",
                std::io::Error::last_os_error()
            ));
        }
        // An unprivileged process cannot raise its hard limit: stay under it.
        let hard = (hard as libc::rlim_t).min(lim.rlim_max);
        lim = libc::rlimit {
            rlim_cur: (soft as libc::rlim_t).min(hard),
            rlim_max: hard,
        };
        // SAFETY: setrlimit reads the struct passed by reference and nothing else.
        let rc = unsafe { libc::setrlimit(resource, &lim) };
        if rc != 0 {
            return Err(format!(
                "setrlimit({what}): {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(())
    };
    set(libc::RLIMIT_CORE, 0, 0, "RLIMIT_CORE")?;
    set(libc::RLIMIT_AS, memory, memory, "RLIMIT_AS")?;
    set(libc::RLIMIT_CPU, cpu, cpu + 1, "RLIMIT_CPU")?;
    set(libc::RLIMIT_FSIZE, file, file, "RLIMIT_FSIZE")
}

/// Kills the process group `pid` leads: the child and anything the FMU forked.
pub fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill has no memory effects; a group that is gone gives ESRCH.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// Loads the library and runs the life cycle; `Ok` holds the summary.
pub fn run(spec: &Spec) -> Result<String, String> {
    announce("dlopen");
    // RTLD_NOW: an unresolved symbol fails here, with the loader's message,
    // rather than killing the process at its first call.
    let flags = libc::RTLD_NOW | libc::RTLD_LOCAL;
    // SAFETY: loading runs the library's initializers, which is why this runs in
    // a limited child process.
    let lib =
        unsafe { Library::open(Some(&spec.library), flags) }.map_err(|e| format!("dlopen: {e}"))?;
    let api = Api::resolve(&lib)?;
    // SAFETY: `api` holds the library's FMI functions, and `lib` outlives the cycle.
    let summary = unsafe { life_cycle(&api, spec) }?;
    // The library stays loaded until exit: an FMU's destructors may still run
    // threads or atexit handlers that need its code.
    std::mem::forget(lib);
    Ok(summary)
}

/// One life cycle.
///
/// # Safety
/// `api` holds the FMI 2.0 functions of one loaded library.
unsafe fn life_cycle(api: &Api, spec: &Spec) -> Result<String, String> {
    let cstr = |s: &str, what: &str| CString::new(s).map_err(|_| format!("{what} contains NUL"));
    let (name, guid) = (cstr("lcsfmu check", "name")?, cstr(&spec.guid, "guid")?);
    let resources = cstr(&spec.resources, "resource location")?;
    let callbacks = Callbacks {
        logger,
        allocate,
        free,
        step_finished: std::ptr::null(),
        environment: std::ptr::null_mut(),
    };
    announce("fmi2Instantiate");
    let c = (api.instantiate)(
        name.as_ptr(),
        1, // fmi2CoSimulation
        guid.as_ptr(),
        resources.as_ptr(),
        &callbacks,
        0,
        0,
    );
    if c.is_null() {
        return Err("fmi2Instantiate returned NULL".into());
    }
    let (h, n) = (spec.step, spec.steps);
    let at = |k: usize| spec.start + k as f64 * h;
    announce("fmi2SetupExperiment");
    ok(
        (api.setup)(c, 0, 0.0, spec.start, 1, at(n)),
        "fmi2SetupExperiment",
    )?;
    announce("fmi2EnterInitializationMode");
    ok((api.enter)(c), "fmi2EnterInitializationMode")?;
    announce("fmi2ExitInitializationMode");
    ok((api.exit)(c), "fmi2ExitInitializationMode")?;
    let mut values = vec![0.0; spec.reals.len()];
    let half = n / 2;
    let mut state: FmuState = std::ptr::null_mut();
    for k in 0..n {
        if spec.fmu_state && k == half {
            announce("fmi2GetFMUstate");
            ok((api.get_state)(c, &mut state), "fmi2GetFMUstate")?;
        }
        step(api, c, spec, k, &mut values)?;
    }
    let mut summary = format!(
        "{n} steps of h = {h} from t = {}, {} reals read after each",
        spec.start,
        values.len()
    );
    if spec.fmu_state {
        let first = values.clone();
        announce("fmi2SetFMUstate");
        ok((api.set_state)(c, state), "fmi2SetFMUstate")?;
        replay(api, c, spec, half, &first, "fmi2SetFMUstate")?;
        summary += &format!("; FMU state of step {half} restored, the rest replayed bit for bit");
        if spec.serialize {
            let mut copy: FmuState = std::ptr::null_mut();
            let mut size = 0usize;
            announce("fmi2SerializedFMUstateSize");
            ok(
                (api.size)(c, state, &mut size),
                "fmi2SerializedFMUstateSize",
            )?;
            if size > 1 << 30 {
                return Err(format!("fmi2SerializedFMUstateSize says {size} bytes"));
            }
            let mut bytes = vec![0 as c_char; size];
            announce("fmi2SerializeFMUstate");
            let status = (api.serialize)(c, state, bytes.as_mut_ptr(), size);
            ok(status, "fmi2SerializeFMUstate")?;
            announce("fmi2DeSerializeFMUstate");
            let status = (api.deserialize)(c, bytes.as_ptr(), size, &mut copy);
            ok(status, "fmi2DeSerializeFMUstate")?;
            announce("fmi2SetFMUstate");
            ok((api.set_state)(c, copy), "fmi2SetFMUstate")?;
            replay(api, c, spec, half, &first, "fmi2DeSerializeFMUstate")?;
            announce("fmi2FreeFMUstate");
            ok((api.free_state)(c, &mut copy), "fmi2FreeFMUstate")?;
            summary += &format!(" (also through {size} serialized bytes)");
        }
        announce("fmi2FreeFMUstate");
        ok((api.free_state)(c, &mut state), "fmi2FreeFMUstate")?;
    }
    announce("fmi2Terminate");
    ok((api.terminate)(c), "fmi2Terminate")?;
    announce("fmi2FreeInstance");
    (api.free_instance)(c);
    Ok(summary)
}

/// Step `k` (from `t_k` to `t_k+1`), then the reals into `values`.
///
/// # Safety
/// `c` is a live instance of the library `api` came from.
unsafe fn step(
    api: &Api,
    c: Component,
    spec: &Spec,
    k: usize,
    values: &mut [f64],
) -> Result<(), String> {
    let (t, h) = (spec.start + k as f64 * spec.step, spec.step);
    let which = format!("(step {} of {}, t = {t})", k + 1, spec.steps);
    announce(&format!("fmi2DoStep {which}"));
    ok((api.do_step)(c, t, h, 1), &format!("fmi2DoStep {which}"))?;
    if values.is_empty() {
        return Ok(());
    }
    announce(&format!("fmi2GetReal {which}"));
    let status = (api.get_real)(c, spec.reals.as_ptr(), values.len(), values.as_mut_ptr());
    ok(status, &format!("fmi2GetReal {which}"))
}

/// Steps `from..steps` again and compares the last reals with `first`, bit for bit.
///
/// # Safety
/// As [`step`].
unsafe fn replay(
    api: &Api,
    c: Component,
    spec: &Spec,
    from: usize,
    first: &[f64],
    via: &str,
) -> Result<(), String> {
    let mut values = vec![0.0; first.len()];
    for k in from..spec.steps {
        step(api, c, spec, k, &mut values)?;
    }
    let differs = first
        .iter()
        .zip(&values)
        .position(|(a, b)| a.to_bits() != b.to_bits());
    match differs {
        None => Ok(()),
        Some(i) => Err(format!(
            "after {via} and the same steps, the real of value reference {} is {} where the first run gave {}",
            spec.reals[i], values[i], first[i]
        )),
    }
}
