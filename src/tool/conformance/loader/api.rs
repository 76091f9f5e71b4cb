//! The C side of the loader for FMI 2.0: its types and function signatures as
//! the child calls them, the callbacks it hands the FMU (a logger that relays
//! messages as `log` lines, and the allocation functions), the lookup of the
//! exported functions by name, which names every missing one at once, and the
//! calls of the life cycle (`Binary`) made with them.
//!
//! The FMI 2.0 C types are a handful of `#[repr(C)]` lines written here, rather
//! than generated bindings: nothing at build time needs libclang.

use super::cycle::{ok, Binary, FmuState, Instance as Component, Names, Status};
use super::{announce, Spec};
use libloading::os::unix::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// FMI 2.0's logger is variadic (printf arguments after the message). A Rust
/// function cannot be variadic on stable; on the Linux ABIs (x86-64 System V,
/// AArch64) the fixed arguments of a variadic call are passed exactly as for
/// this non-variadic signature, and the extra ones are simply not read. The
/// message is shown as written; lcsfmu's FMUs pre-format theirs.
type Logger = extern "C" fn(*mut c_void, *const c_char, Status, *const c_char, *const c_char);

/// `fmi2CallbackFunctions`.
#[repr(C)]
pub struct Callbacks {
    logger: Logger,
    allocate: extern "C" fn(usize, usize) -> *mut c_void,
    free: extern "C" fn(*mut c_void),
    step_finished: *const c_void,
    environment: *mut c_void,
}

impl Callbacks {
    /// The relaying logger, `calloc` and `free`, no step-finished callback.
    pub fn relaying() -> Callbacks {
        Callbacks {
            logger,
            allocate,
            free,
            step_finished: std::ptr::null(),
            environment: std::ptr::null_mut(),
        }
    }
}

/// Log lines relayed at most; a chatty FMU must not flood the parent.
const MAX_LOG_LINES: usize = 200;
static LOGGED: AtomicUsize = AtomicUsize::new(0);

/// A C string the FMU passed, or `?` for NULL; long text cut.
pub(super) fn text(p: *const c_char) -> String {
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
    relay(&status_name(status), category, message);
}

/// Relays one logged message as a `log` line, up to [`MAX_LOG_LINES`].
pub(super) fn relay(status: &str, category: *const c_char, message: *const c_char) {
    if LOGGED.fetch_add(1, Ordering::Relaxed) >= MAX_LOG_LINES {
        return;
    }
    // Write errors (the parent gone) are ignored: a panic must not cross into C.
    let line = format!("log {status} {}: {}", text(category), text(message));
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

/// The FMI functions the life cycle calls, resolved by name.
pub struct Api {
    pub instantiate: unsafe extern "C" fn(
        *const c_char,
        c_int,
        *const c_char,
        *const c_char,
        *const Callbacks,
        c_int,
        c_int,
    ) -> Component,
    pub free_instance: unsafe extern "C" fn(Component),
    pub setup: unsafe extern "C" fn(Component, c_int, f64, f64, c_int, f64) -> Status,
    pub enter: unsafe extern "C" fn(Component) -> Status,
    pub exit: unsafe extern "C" fn(Component) -> Status,
    pub terminate: unsafe extern "C" fn(Component) -> Status,
    pub get_real: unsafe extern "C" fn(Component, *const c_uint, usize, *mut f64) -> Status,
    /// `None` only for a Model Exchange-only binary ([`Api::resolve_common`]).
    pub do_step: Option<unsafe extern "C" fn(Component, f64, f64, c_int) -> Status>,
    pub get_state: unsafe extern "C" fn(Component, *mut FmuState) -> Status,
    pub set_state: unsafe extern "C" fn(Component, FmuState) -> Status,
    pub free_state: unsafe extern "C" fn(Component, *mut FmuState) -> Status,
    pub size: unsafe extern "C" fn(Component, FmuState, *mut usize) -> Status,
    pub serialize: unsafe extern "C" fn(Component, FmuState, *mut c_char, usize) -> Status,
    pub deserialize: unsafe extern "C" fn(Component, *const c_char, usize, *mut FmuState) -> Status,
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
/// `T` must be the C signature the FMI standard gives `name`.
pub(super) unsafe fn get<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    let symbol = format!("{name}\0");
    let found = lib.get::<T>(symbol.as_bytes());
    found.map(|s| *s).map_err(|e| format!("{name}: {e}"))
}

/// `Ok` when the library exports every name, else the missing ones, all at once.
pub(super) fn all_exported(lib: &Library, names: &[&str]) -> Result<(), String> {
    // SAFETY: only looked up here, never called through this type.
    let absent = |n: &&str| unsafe { get::<*const c_void>(lib, n) }.is_err();
    let missing: Vec<&str> = names.iter().copied().filter(absent).collect();
    if !missing.is_empty() {
        return Err(format!(
            "the library does not export {}",
            missing.join(", ")
        ));
    }
    Ok(())
}

impl Api {
    /// Every function, or the names of all the missing ones.
    pub fn resolve(lib: &Library) -> Result<Api, String> {
        Api::resolve_with(lib, true)
    }

    /// The functions of both interface types, `fmi2DoStep` when exported: the
    /// part of the table a Model Exchange instance uses.
    pub fn resolve_common(lib: &Library) -> Result<Api, String> {
        Api::resolve_with(lib, false)
    }

    fn resolve_with(lib: &Library, step: bool) -> Result<Api, String> {
        let names = NAMES.iter().copied();
        let required: Vec<&str> = names.filter(|n| step || *n != "fmi2DoStep").collect();
        all_exported(lib, &required)?;
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
                // Required above when `step`.
                do_step: get(lib, "fmi2DoStep").ok(),
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

const NAMES2: Names = Names {
    do_step: "fmi2DoStep",
    get_reals: "fmi2GetReal",
    get_state: "fmi2GetFMUstate",
    set_state: "fmi2SetFMUstate",
    free_state: "fmi2FreeFMUstate",
    size: "fmi2SerializedFMUstateSize",
    serialize: "fmi2SerializeFMUstate",
    deserialize: "fmi2DeSerializeFMUstate",
    terminate: "fmi2Terminate",
    free_instance: "fmi2FreeInstance",
};

/// The callbacks handed to `fmi2Instantiate`: they must outlive the instance,
/// which lives until the child exits.
static CALLBACKS: std::sync::OnceLock<CallbacksCell> = std::sync::OnceLock::new();

/// [`Callbacks`] holds raw pointers (all NULL or functions): shareable.
struct CallbacksCell(Callbacks);
// SAFETY: the pointers are NULL; the functions are thread-safe.
unsafe impl Sync for CallbacksCell {}
// SAFETY: as above.
unsafe impl Send for CallbacksCell {}

fn cstr(s: &str, what: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{what} contains NUL"))
}

/// `fmi2Type`: the interface an instance is made for.
pub const MODEL_EXCHANGE: c_int = 0;
pub const CO_SIMULATION: c_int = 1;

impl Api {
    /// `fmi2Instantiate` as `fmu_type` ([`MODEL_EXCHANGE`] or [`CO_SIMULATION`]).
    ///
    /// # Safety
    /// `self` holds the functions of one loaded library.
    pub unsafe fn instantiate_as(&self, spec: &Spec, fmu_type: c_int) -> Result<Component, String> {
        let (name, guid) = (cstr("lcsfmu check", "name")?, cstr(&spec.guid, "guid")?);
        let resources = cstr(&spec.resources, "resource location")?;
        let callbacks = &CALLBACKS
            .get_or_init(|| CallbacksCell(Callbacks::relaying()))
            .0;
        announce("fmi2Instantiate");
        let c = (self.instantiate)(
            name.as_ptr(),
            fmu_type,
            guid.as_ptr(),
            resources.as_ptr(),
            callbacks,
            0,
            0,
        );
        if c.is_null() {
            return Err("fmi2Instantiate returned NULL".into());
        }
        Ok(c)
    }
}

impl Binary for Api {
    fn names(&self) -> &'static Names {
        &NAMES2
    }

    unsafe fn instantiate(&self, spec: &Spec) -> Result<Component, String> {
        self.instantiate_as(spec, CO_SIMULATION)
    }

    unsafe fn initialize(&self, c: Component, spec: &Spec, stop: f64) -> Result<(), String> {
        announce("fmi2SetupExperiment");
        let status = (self.setup)(c, 0, 0.0, spec.start, 1, stop);
        ok(self, status, "fmi2SetupExperiment")?;
        announce("fmi2EnterInitializationMode");
        ok(self, (self.enter)(c), "fmi2EnterInitializationMode")?;
        announce("fmi2ExitInitializationMode");
        ok(self, (self.exit)(c), "fmi2ExitInitializationMode")
    }

    unsafe fn do_step(&self, c: Component, t: f64, h: f64) -> Result<(), String> {
        let Some(do_step) = self.do_step else {
            return Err("is not exported".into());
        };
        match do_step(c, t, h, 1) {
            0 | 1 => Ok(()),
            s => Err(format!("returned {}", status_name(s))),
        }
    }

    unsafe fn get_reals(&self, c: Component, vrs: &[u32], values: &mut [f64]) -> Status {
        (self.get_real)(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr())
    }

    unsafe fn get_state(&self, c: Component, state: &mut FmuState) -> Status {
        (self.get_state)(c, state)
    }

    unsafe fn set_state(&self, c: Component, state: FmuState) -> Status {
        (self.set_state)(c, state)
    }

    unsafe fn free_state(&self, c: Component, state: &mut FmuState) -> Status {
        (self.free_state)(c, state)
    }

    unsafe fn serialized_size(&self, c: Component, state: FmuState, size: &mut usize) -> Status {
        (self.size)(c, state, size)
    }

    unsafe fn serialize(&self, c: Component, state: FmuState, bytes: &mut [u8]) -> Status {
        (self.serialize)(c, state, bytes.as_mut_ptr().cast(), bytes.len())
    }

    unsafe fn deserialize(&self, c: Component, bytes: &[u8], state: &mut FmuState) -> Status {
        (self.deserialize)(c, bytes.as_ptr().cast(), bytes.len(), state)
    }

    unsafe fn terminate(&self, c: Component) -> Status {
        (self.terminate)(c)
    }

    unsafe fn free_instance(&self, c: Component) {
        (self.free_instance)(c)
    }

    fn status_name(&self, s: Status) -> String {
        status_name(s)
    }
}
