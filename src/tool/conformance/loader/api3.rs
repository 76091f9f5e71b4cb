//! The C side of the loader for FMI 3.0 Co-Simulation: the signatures of the
//! functions the life cycle calls (fmi3FunctionTypes.h), the logger it hands
//! the FMU, and those calls made for `Binary`.
//!
//! The instance is made the way an FMI 2.0 master would use it: no Event Mode,
//! no early return. Each step must then land where it was asked to: an
//! `earlyReturn`, an `eventHandlingNeeded` or a `lastSuccessfulTime` other than
//! `t + h` after an OK step is an error of the FMU, and so reported.

use super::api::{all_exported, get, relay};
use super::cycle::{ok, Binary, FmuState, Instance, Names, Status};
use super::{announce, Spec};
use libloading::os::unix::Library;
use std::ffi::{c_char, c_void, CString};

/// `fmi3LogMessageCallback`: not variadic, unlike FMI 2.0's logger.
pub(super) type Logger = extern "C" fn(*mut c_void, Status, *const c_char, *const c_char);

pub(super) extern "C" fn logger(
    _env: *mut c_void,
    status: Status,
    category: *const c_char,
    message: *const c_char,
) {
    relay(&status_name(status), category, message);
}

/// An `fmi3Status` by name.
pub fn status_name(s: Status) -> String {
    let names = [
        "fmi3OK",
        "fmi3Warning",
        "fmi3Discard",
        "fmi3Error",
        "fmi3Fatal",
    ];
    usize::try_from(s)
        .ok()
        .and_then(|i| names.get(i))
        .map_or_else(
            || format!("status {s} (not an fmi3Status)"),
            |n| n.to_string(),
        )
}

/// The FMI 3.0 functions the life cycle calls, resolved by name.
pub struct Api3 {
    #[allow(clippy::type_complexity)]
    instantiate: unsafe extern "C" fn(
        *const c_char,
        *const c_char,
        *const c_char,
        bool,
        bool,
        bool,
        bool,
        *const u32,
        usize,
        *mut c_void,
        Option<Logger>,
        *const c_void,
    ) -> Instance,
    free_instance: unsafe extern "C" fn(Instance),
    enter: unsafe extern "C" fn(Instance, bool, f64, f64, bool, f64) -> Status,
    exit: unsafe extern "C" fn(Instance) -> Status,
    terminate: unsafe extern "C" fn(Instance) -> Status,
    get_float64: unsafe extern "C" fn(Instance, *const u32, usize, *mut f64, usize) -> Status,
    #[allow(clippy::type_complexity)]
    do_step: unsafe extern "C" fn(
        Instance,
        f64,
        f64,
        bool,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut f64,
    ) -> Status,
    get_state: unsafe extern "C" fn(Instance, *mut FmuState) -> Status,
    set_state: unsafe extern "C" fn(Instance, FmuState) -> Status,
    free_state: unsafe extern "C" fn(Instance, *mut FmuState) -> Status,
    size: unsafe extern "C" fn(Instance, FmuState, *mut usize) -> Status,
    serialize: unsafe extern "C" fn(Instance, FmuState, *mut u8, usize) -> Status,
    deserialize: unsafe extern "C" fn(Instance, *const u8, usize, *mut FmuState) -> Status,
}

const NAMES3: Names = Names {
    do_step: "fmi3DoStep",
    get_reals: "fmi3GetFloat64",
    get_state: "fmi3GetFMUState",
    set_state: "fmi3SetFMUState",
    free_state: "fmi3FreeFMUState",
    size: "fmi3SerializedFMUStateSize",
    serialize: "fmi3SerializeFMUState",
    deserialize: "fmi3DeserializeFMUState",
    terminate: "fmi3Terminate",
    free_instance: "fmi3FreeInstance",
};

const RESOLVED: [&str; 13] = [
    "fmi3InstantiateCoSimulation",
    "fmi3FreeInstance",
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3Terminate",
    "fmi3GetFloat64",
    "fmi3DoStep",
    "fmi3GetFMUState",
    "fmi3SetFMUState",
    "fmi3FreeFMUState",
    "fmi3SerializedFMUStateSize",
    "fmi3SerializeFMUState",
    "fmi3DeserializeFMUState",
];

impl Api3 {
    /// Every function, or the names of all the missing ones.
    pub fn resolve(lib: &Library) -> Result<Api3, String> {
        all_exported(lib, &RESOLVED)?;
        // SAFETY: each field's type is the FMI 3.0 signature of the name it is
        // looked up by.
        unsafe {
            Ok(Api3 {
                instantiate: get(lib, "fmi3InstantiateCoSimulation")?,
                free_instance: get(lib, "fmi3FreeInstance")?,
                enter: get(lib, "fmi3EnterInitializationMode")?,
                exit: get(lib, "fmi3ExitInitializationMode")?,
                terminate: get(lib, "fmi3Terminate")?,
                get_float64: get(lib, "fmi3GetFloat64")?,
                do_step: get(lib, "fmi3DoStep")?,
                get_state: get(lib, "fmi3GetFMUState")?,
                set_state: get(lib, "fmi3SetFMUState")?,
                free_state: get(lib, "fmi3FreeFMUState")?,
                size: get(lib, "fmi3SerializedFMUStateSize")?,
                serialize: get(lib, "fmi3SerializeFMUState")?,
                deserialize: get(lib, "fmi3DeserializeFMUState")?,
            })
        }
    }
}

impl Binary for Api3 {
    fn names(&self) -> &'static Names {
        &NAMES3
    }

    unsafe fn instantiate(&self, spec: &Spec) -> Result<Instance, String> {
        let cstr =
            |s: &str, what: &str| CString::new(s).map_err(|_| format!("{what} contains NUL"));
        let (name, token) = (cstr("lcsfmu check", "name")?, cstr(&spec.guid, "token")?);
        let resources = cstr(&spec.resources, "resource path")?;
        announce("fmi3InstantiateCoSimulation");
        let c = (self.instantiate)(
            name.as_ptr(),
            token.as_ptr(),
            resources.as_ptr(),
            false,
            false,
            false, // eventModeUsed
            false, // earlyReturnAllowed
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            Some(logger),
            std::ptr::null(),
        );
        if c.is_null() {
            return Err("fmi3InstantiateCoSimulation returned NULL".into());
        }
        Ok(c)
    }

    unsafe fn initialize(&self, c: Instance, spec: &Spec, stop: f64) -> Result<(), String> {
        announce("fmi3EnterInitializationMode");
        let status = (self.enter)(c, false, 0.0, spec.start, true, stop);
        ok(self, status, "fmi3EnterInitializationMode")?;
        announce("fmi3ExitInitializationMode");
        ok(self, (self.exit)(c), "fmi3ExitInitializationMode")
    }

    unsafe fn do_step(&self, c: Instance, t: f64, h: f64) -> Result<(), String> {
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, f64::NAN);
        let status = (self.do_step)(
            c,
            t,
            h,
            true,
            &mut event,
            &mut terminate,
            &mut early,
            &mut last,
        );
        if !matches!(status, 0 | 1) {
            return Err(format!("returned {}", status_name(status)));
        }
        // Without Event Mode and early return the FMU must do the whole step.
        match (event, early, terminate) {
            (true, _, _) => Err("set eventHandlingNeeded, but Event Mode is not used".into()),
            (_, true, _) => Err("returned early, which was not allowed".into()),
            (_, _, true) => Err("asked to terminate".into()),
            _ if last.to_bits() != (t + h).to_bits() => Err(format!(
                "gave lastSuccessfulTime {last}, not the end of the step {}",
                t + h
            )),
            _ => Ok(()),
        }
    }

    unsafe fn get_reals(&self, c: Instance, vrs: &[u32], values: &mut [f64]) -> Status {
        let n = values.len();
        (self.get_float64)(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr(), n)
    }

    unsafe fn get_state(&self, c: Instance, state: &mut FmuState) -> Status {
        (self.get_state)(c, state)
    }

    unsafe fn set_state(&self, c: Instance, state: FmuState) -> Status {
        (self.set_state)(c, state)
    }

    unsafe fn free_state(&self, c: Instance, state: &mut FmuState) -> Status {
        (self.free_state)(c, state)
    }

    unsafe fn serialized_size(&self, c: Instance, state: FmuState, size: &mut usize) -> Status {
        (self.size)(c, state, size)
    }

    unsafe fn serialize(&self, c: Instance, state: FmuState, bytes: &mut [u8]) -> Status {
        (self.serialize)(c, state, bytes.as_mut_ptr(), bytes.len())
    }

    unsafe fn deserialize(&self, c: Instance, bytes: &[u8], state: &mut FmuState) -> Status {
        (self.deserialize)(c, bytes.as_ptr(), bytes.len(), state)
    }

    unsafe fn terminate(&self, c: Instance) -> Status {
        (self.terminate)(c)
    }

    unsafe fn free_instance(&self, c: Instance) {
        (self.free_instance)(c)
    }

    fn status_name(&self, s: Status) -> String {
        status_name(s)
    }
}
