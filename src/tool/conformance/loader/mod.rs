//! The child side of the binary's short run: loads an FMU's shared library and
//! drives one co-simulation or Model Exchange life cycle through its C API,
//! FMI 2.0 or FMI 3.0. This module and its children are the only ones of the
//! crate with `unsafe` code and raw pointers.
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
//! The Co-Simulation life cycle is `cycle::life_cycle`'s: instantiate,
//! initialize, step and read, take and restore an FMU state, terminate and
//! free. The Model Exchange one (`exchange::life_cycle`, FMI 2.0 through
//! `api_me`, FMI 3.0 through `api3_me`) integrates with explicit Euler and
//! handles the events, holding the binary to what the description declares
//! ([`exchange::ExchangeSpec`]).

#![allow(unsafe_code)]

pub mod api;
pub mod api3;
mod api3_me;
mod api_me;
mod cycle;
mod exchange;
mod exchange_calls;
mod exchange_checks;

pub use exchange::ExchangeSpec;
use libloading::os::unix::Library;
use std::io::Write;
use std::path::PathBuf;

/// What the child is asked to run.
#[derive(Clone, Debug)]
pub struct Spec {
    pub library: PathBuf,
    /// FMI 3.0's API instead of FMI 2.0's.
    pub fmi3: bool,
    /// The GUID, or FMI 3.0's instantiation token.
    pub guid: String,
    /// A file URI (FMI 2.0) or a directory path ending in `/` (FMI 3.0).
    pub resources: String,
    pub start: f64,
    pub step: f64,
    pub steps: usize,
    /// Value references of Real variables read after each step.
    pub reals: Vec<u32>,
    pub fmu_state: bool,
    pub serialize: bool,
    /// Run Model Exchange instead of Co-Simulation, as the description declares it.
    pub model_exchange: Option<ExchangeSpec>,
}

pub(crate) fn announce(what: &str) {
    drop(writeln!(std::io::stdout(), "call {what}"));
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
    // SAFETY: each table holds the library's FMI functions of its version, and
    // `lib` outlives the cycle.
    let summary = if spec.model_exchange.is_some() {
        // SAFETY: as below.
        match spec.fmi3 {
            true => unsafe { exchange::life_cycle(&api3_me::Api3Me::resolve(&lib)?, spec) },
            false => unsafe { exchange::life_cycle(&api_me::ApiMe::resolve(&lib)?, spec) },
        }
    } else if spec.fmi3 {
        unsafe { cycle::life_cycle(&api3::Api3::resolve(&lib)?, spec) }
    } else {
        unsafe { cycle::life_cycle(&api::Api::resolve(&lib)?, spec) }
    }?;
    // The library stays loaded until exit: an FMU's destructors may still run
    // threads or atexit handlers that need its code.
    std::mem::forget(lib);
    Ok(summary)
}
