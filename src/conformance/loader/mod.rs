//! The child side of the binary's short run: loads an FMU's shared library and
//! drives one FMI 2.0 co-simulation life cycle through its C API. This module
//! (with [`api`], its C types and callbacks) is the only one of the crate with
//! `unsafe` code and raw pointers.
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

pub mod api;

use api::{Api, Callbacks, Component, FmuState, Status};
use libloading::os::unix::Library;
use std::ffi::{c_char, CString};
use std::io::Write;
use std::path::PathBuf;

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

fn announce(what: &str) {
    drop(writeln!(std::io::stdout(), "call {what}"));
}

/// OK and Warning continue, as in FMPy; anything else ends the run.
fn ok(status: Status, what: &str) -> Result<(), String> {
    match status {
        0 | 1 => Ok(()),
        s => Err(format!("{what} returned {}", api::status_name(s))),
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
    let callbacks = Callbacks::relaying();
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
