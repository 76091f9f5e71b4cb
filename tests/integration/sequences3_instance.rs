//! The FMI 3.0 instances `call_sequences3` drives: FMUs built with `--fmi 3`
//! loaded through the raw bindings of the `fmi` crate, instantiated with every
//! combination of Event Mode, early return, logger and token, read through
//! `fmi3GetFloat64` and their serialized FMU state, and freed on drop.

use super::call_sequences3::OK;
use super::fmi3_check::fmu3;
use super::sequence_args::Rng;
use super::sequence_rules::Observed;
use fmi::fmi3::binding::{fmi3FMUState, fmi3Instance, fmi3Status, Fmi3Binding};
use fmi::fmi3::import::Fmi3Import;
use fmi::traits::FmiImport;
use lcsfmu::instance::variables;
use lcsfmu::model::validate;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::Mutex;

/// Messages an instance logged; the instance environment points here.
pub(super) type Log = Mutex<Vec<String>>;

pub(super) unsafe extern "C" fn log_message(
    env: *mut c_void,
    _status: fmi3Status,
    _category: *const c_char,
    message: *const c_char,
) {
    if env.is_null() {
        return;
    }
    // SAFETY: the environment is the `Log` of a live `Instance3` and the
    // message a NUL-terminated string (or NULL, kept as empty).
    let (log, text) = unsafe {
        let text = (!message.is_null()).then(|| CStr::from_ptr(message).to_string_lossy());
        (&*(env as *const Log), text.unwrap_or_default().into_owned())
    };
    log.lock().unwrap_or_else(|e| e.into_inner()).push(text);
}

/// One FMU under test.
pub(super) struct Target {
    pub(super) name: String,
    pub(super) _import: Fmi3Import,
    pub(super) b: Fmi3Binding,
    pub(super) token: CString,
    pub(super) resources: CString,
    /// Number of variables: value references `0..count` (0 is `time`).
    pub(super) count: u32,
    pub(super) outputs: Vec<u32>,
    /// A valid serialized state of another model.
    pub(super) foreign: Vec<u8>,
}

/// How an instance was made.
#[derive(Clone, Copy)]
pub(super) struct Options {
    pub(super) event_mode_used: bool,
    pub(super) early_return_allowed: bool,
    pub(super) logger: bool,
    pub(super) logging_on: bool,
    pub(super) wrong_token: bool,
    pub(super) null_resources: bool,
}

/// One instance driven through the raw bindings; freed on drop.
pub(super) struct Instance3<'t> {
    pub(super) t: &'t Target,
    pub(super) c: fmi3Instance,
    pub(super) log: Box<Log>,
}

impl<'t> Instance3<'t> {
    pub(super) fn new(t: &'t Target, o: Options) -> Option<Instance3<'t>> {
        let log: Box<Log> = Box::default();
        let wrong = CString::new("{not-this-model}").unwrap();
        let token = if o.wrong_token { &wrong } else { &t.token };
        let resources = if o.null_resources {
            null()
        } else {
            t.resources.as_ptr()
        };
        // SAFETY: every pointer is NULL or valid for the call; the log lives
        // in a box the instance outlives only after fmi3FreeInstance.
        let c = unsafe {
            t.b.fmi3InstantiateCoSimulation(
                c"sequences3".as_ptr(),
                token.as_ptr(),
                resources,
                false,
                o.logging_on,
                o.event_mode_used,
                o.early_return_allowed,
                null(),
                0,
                &*log as *const Log as *mut c_void,
                o.logger.then_some(log_message as _),
                None,
            )
        };
        (!c.is_null()).then_some(Instance3 { t, c, log })
    }

    pub(super) fn logged(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(super) fn get(&self, vrs: &[u32]) -> (fmi3Status, Vec<f64>) {
        let mut v = vec![0.0; vrs.len()];
        // SAFETY: arrays of the announced lengths.
        let s = unsafe {
            self.t
                .b
                .fmi3GetFloat64(self.c, vrs.as_ptr(), vrs.len(), v.as_mut_ptr(), v.len())
        };
        (s, v)
    }

    /// The serialized FMU state: equal bytes before and after a call prove
    /// that the call changed nothing.
    pub(super) fn snapshot(&self) -> Vec<u8> {
        let mut state: fmi3FMUState = null_mut();
        // SAFETY: the instance is live; `state` receives a new state, freed below.
        unsafe {
            assert_eq!(self.t.b.fmi3GetFMUState(self.c, &mut state), OK);
            let bytes = self.serialize(state).1;
            assert_eq!(self.t.b.fmi3FreeFMUState(self.c, &mut state), OK);
            bytes
        }
    }

    /// # Safety
    /// `state` is NULL, junk, or a state of this instance.
    pub(super) unsafe fn serialize(&self, state: fmi3FMUState) -> (fmi3Status, Vec<u8>) {
        let mut size = 0usize;
        let s = self
            .t
            .b
            .fmi3SerializedFMUStateSize(self.c, state, &mut size);
        if s != OK {
            return (s, vec![]);
        }
        let mut bytes = vec![0u8; size];
        let s = self
            .t
            .b
            .fmi3SerializeFMUState(self.c, state, bytes.as_mut_ptr(), size);
        (s, bytes)
    }
}

impl Observed for Instance3<'_> {
    fn messages(&mut self) -> Vec<String> {
        self.logged()
    }
    fn read(&mut self, vrs: &[u32]) -> (u32, Vec<f64>) {
        self.get(vrs)
    }
    fn state_bytes(&mut self) -> Vec<u8> {
        self.snapshot()
    }
}

impl Drop for Instance3<'_> {
    fn drop(&mut self) {
        // SAFETY: the instance is live and freed exactly once.
        unsafe { self.t.b.fmi3FreeInstance(self.c) }
    }
}

pub(super) fn random_options(rng: &mut Rng) -> (Options, bool) {
    let o = Options {
        event_mode_used: rng.chance(50),
        early_return_allowed: rng.chance(50),
        logger: !rng.chance(10),
        logging_on: rng.chance(50),
        wrong_token: rng.chance(3),
        null_resources: rng.chance(10),
    };
    (o, o.wrong_token)
}

pub(super) fn target(stem: &str, other: &Target) -> Target {
    let mut t = target_alone(stem);
    t.foreign = other_state(other);
    t
}

pub(super) fn target_alone(stem: &str) -> Target {
    let path = fmu3(stem);
    let import: Fmi3Import =
        fmi::import::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let b = import.binding(stem).expect("the FMU's library loads");
    let token = CString::new(import.model_description().instantiation_token.clone()).unwrap();
    let resources = CString::new(import.canonical_resource_path_string()).unwrap();
    let model = validate::load(&super::model_path(stem)).unwrap();
    let vars = variables::variables(&model);
    let outputs = (0..vars.len() as u32)
        .filter(|&i| vars[i as usize].attributes().0 == "output")
        .collect();
    Target {
        name: stem.to_string(),
        _import: import,
        b,
        token,
        resources,
        count: vars.len() as u32,
        outputs,
        foreign: vec![],
    }
}

/// A serialized state of `other`, after its initialization.
pub(super) fn other_state(other: &Target) -> Vec<u8> {
    let options = Options {
        event_mode_used: false,
        early_return_allowed: false,
        logger: true,
        logging_on: false,
        wrong_token: false,
        null_resources: false,
    };
    let r = Instance3::new(other, options).expect("instantiation");
    // SAFETY: legal calls on a live instance.
    unsafe {
        assert_eq!(
            r.t.b
                .fmi3EnterInitializationMode(r.c, false, 0.0, 0.0, false, 0.0),
            OK
        );
        assert_eq!(r.t.b.fmi3ExitInitializationMode(r.c), OK);
    }
    r.snapshot()
}
