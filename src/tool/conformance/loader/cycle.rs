//! The life cycle the child runs, written once for both FMI versions: each
//! version's table of C functions ([`super::api::Api`] for FMI 2.0,
//! [`super::api3::Api3`] for FMI 3.0) says how one step of it is called, and
//! this file says which steps there are and what must come out of them.
//!
//! The cycle: instantiate (Co-Simulation), initialize, the steps with the
//! Float64/Real values read after each, and, when the FMU declares it can, an
//! FMU state taken halfway, restored after the last step and the second half
//! replayed, which must end on the same bits (again through serialization
//! when declared); then terminate and free. Every call is announced on
//! standard output first (`call NAME`), so a crash names it.

use super::{announce, Spec};
use std::ffi::c_void;

pub type Instance = *mut c_void;
pub type FmuState = *mut c_void;
pub type Status = std::ffi::c_int;

/// How one FMI version makes the calls of the cycle. Each method makes one
/// FMI call (or, for `initialize`, the calls of initialization) and returns
/// an error naming the call and its status when it did not succeed.
pub trait Binary {
    /// The version's names of the calls, as announced.
    fn names(&self) -> &'static Names;

    /// # Safety
    /// `self` holds the functions of one loaded library.
    unsafe fn instantiate(&self, spec: &Spec) -> Result<Instance, String>;
    /// From instantiated to stepping, the experiment ending at `stop`.
    ///
    /// # Safety
    /// `c` is a live instance of this library; so for every method below.
    unsafe fn initialize(&self, c: Instance, spec: &Spec, stop: f64) -> Result<(), String>;
    /// One communication step; the error says what was wrong ("returned
    /// fmi2Discard", ...), the caller names the call.
    unsafe fn do_step(&self, c: Instance, t: f64, h: f64) -> Result<(), String>;
    unsafe fn get_reals(&self, c: Instance, vrs: &[u32], values: &mut [f64]) -> Status;
    unsafe fn get_state(&self, c: Instance, state: &mut FmuState) -> Status;
    unsafe fn set_state(&self, c: Instance, state: FmuState) -> Status;
    unsafe fn free_state(&self, c: Instance, state: &mut FmuState) -> Status;
    unsafe fn serialized_size(&self, c: Instance, state: FmuState, size: &mut usize) -> Status;
    unsafe fn serialize(&self, c: Instance, state: FmuState, bytes: &mut [u8]) -> Status;
    unsafe fn deserialize(&self, c: Instance, bytes: &[u8], state: &mut FmuState) -> Status;
    unsafe fn terminate(&self, c: Instance) -> Status;
    unsafe fn free_instance(&self, c: Instance);
    /// The name of a status value.
    fn status_name(&self, s: Status) -> String;
}

/// The names a version gives the calls of the cycle.
pub struct Names {
    pub do_step: &'static str,
    pub get_reals: &'static str,
    pub get_state: &'static str,
    pub set_state: &'static str,
    pub free_state: &'static str,
    pub size: &'static str,
    pub serialize: &'static str,
    pub deserialize: &'static str,
    pub terminate: &'static str,
    pub free_instance: &'static str,
}

/// OK and Warning continue, as in FMPy; anything else ends the run.
pub fn ok(api: &impl Binary, status: Status, what: &str) -> Result<(), String> {
    match status {
        0 | 1 => Ok(()),
        s => Err(format!("{what} returned {}", api.status_name(s))),
    }
}

/// Announces `what`, makes the call and checks its status.
///
/// # Safety
/// `call` makes one FMI call that is legal in the instance's state.
unsafe fn call(api: &impl Binary, what: &str, call: impl FnOnce() -> Status) -> Result<(), String> {
    announce(what);
    ok(api, call(), what)
}

/// One life cycle; `Ok` holds its summary.
///
/// # Safety
/// `api` holds the functions of one loaded library.
pub unsafe fn life_cycle(api: &impl Binary, spec: &Spec) -> Result<String, String> {
    let n = spec.steps;
    let c = api.instantiate(spec)?;
    api.initialize(c, spec, spec.start + n as f64 * spec.step)?;
    let names = api.names();
    let mut values = vec![0.0; spec.reals.len()];
    let half = n / 2;
    let mut state: FmuState = std::ptr::null_mut();
    for k in 0..n {
        if spec.fmu_state && k == half {
            call(api, names.get_state, || api.get_state(c, &mut state))?;
        }
        step(api, c, spec, k, &mut values)?;
    }
    let mut summary = format!(
        "{n} steps of h = {} from t = {}, {} reals read after each",
        spec.step,
        spec.start,
        values.len()
    );
    if spec.fmu_state {
        let first = values.clone();
        call(api, names.set_state, || api.set_state(c, state))?;
        replay(api, c, spec, half, &first, names.set_state)?;
        summary += &format!("; FMU state of step {half} restored, the rest replayed bit for bit");
        if spec.serialize {
            let mut copy: FmuState = std::ptr::null_mut();
            let mut size = 0usize;
            call(api, names.size, || api.serialized_size(c, state, &mut size))?;
            if size > 1 << 30 {
                return Err(format!("{} says {size} bytes", names.size));
            }
            let mut bytes = vec![0u8; size];
            call(api, names.serialize, || api.serialize(c, state, &mut bytes))?;
            call(api, names.deserialize, || {
                api.deserialize(c, &bytes, &mut copy)
            })?;
            call(api, names.set_state, || api.set_state(c, copy))?;
            replay(api, c, spec, half, &first, names.deserialize)?;
            call(api, names.free_state, || api.free_state(c, &mut copy))?;
            summary += &format!(" (also through {size} serialized bytes)");
        }
        call(api, names.free_state, || api.free_state(c, &mut state))?;
    }
    call(api, names.terminate, || api.terminate(c))?;
    announce(names.free_instance);
    api.free_instance(c);
    Ok(summary)
}

/// Step `k` (from `t_k` to `t_k+1`), then the reals into `values`.
///
/// # Safety
/// `c` is a live instance of the library `api` came from.
unsafe fn step(
    api: &impl Binary,
    c: Instance,
    spec: &Spec,
    k: usize,
    values: &mut [f64],
) -> Result<(), String> {
    let (t, h) = (spec.start + k as f64 * spec.step, spec.step);
    let names = api.names();
    let which = format!("(step {} of {}, t = {t})", k + 1, spec.steps);
    announce(&format!("{} {which}", names.do_step));
    api.do_step(c, t, h)
        .map_err(|why| format!("{} {which} {why}", names.do_step))?;
    if values.is_empty() {
        return Ok(());
    }
    let what = format!("{} {which}", names.get_reals);
    call(api, &what, || api.get_reals(c, &spec.reals, values))
}

/// Steps `from..steps` again and compares the last reals with `first`, bit for bit.
///
/// # Safety
/// As [`step`].
unsafe fn replay(
    api: &impl Binary,
    c: Instance,
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
