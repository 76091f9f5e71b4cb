//! Random FMI 3.0 call sequences against FMUs built with `--fmi 3`, as
//! `call_sequences.rs` does for FMI 2.0: thousands of sequences of up to 60
//! calls, arguments drawn from legal and illegal values (wrong communication
//! points, non-finite and extreme numbers, unknown value references, NULL
//! arrays and out-parameters, value counts that do not match, damaged and
//! foreign FMU states, junk state pointers), on instances made with every
//! combination of Event Mode and early return, with and without a logger.
//!
//! Every call must satisfy:
//! - the status is OK, Warning, Discard or Error: never Fatal (a caught panic)
//!   and never a value outside the enumeration;
//! - a call that returns Error changes nothing (the serialized FMU state is the
//!   same bytes), except `fmi3ExitInitializationMode`, whose failure is the
//!   error state itself;
//! - a discarded step keeps the outputs of the last good step;
//! - every status other than OK comes with a logged message when a logger exists.
//!
//! The seed is fixed and printed (`LCSFMU_SEQUENCES_SEED`, count:
//! `LCSFMU_SEQUENCES3`); the histogram of statuses per function is printed and
//! written to `target/conformance/call-sequences3.txt`.

use super::call_sequences::{env_or, random_blob, random_vrs, Histogram, Rng, NUMBERS};
use super::fmi3_check::{fmu3, MODELS};
use fmi::fmi3::binding::{self, fmi3FMUState, fmi3Instance, fmi3Status, Fmi3Binding};
use fmi::fmi3::import::Fmi3Import;
use fmi::traits::FmiImport;
use lcsfmu::fmi2::variables;
use lcsfmu::model::validate;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

const DEFAULT_SEED: u64 = 0x1c5f_2026_0018_0003;
const DEFAULT_SEQUENCES: u64 = 5_000;
const MAX_CALLS: u64 = 60;
const OK: fmi3Status = 0;
const DISCARD: fmi3Status = 2;
const ERROR: fmi3Status = 3;

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
struct Target {
    name: String,
    _import: Fmi3Import,
    b: Fmi3Binding,
    token: CString,
    resources: CString,
    /// Number of variables: value references `0..count` (0 is `time`).
    count: u32,
    outputs: Vec<u32>,
    /// A valid serialized state of another model.
    foreign: Vec<u8>,
}

/// How an instance was made.
#[derive(Clone, Copy)]
struct Options {
    event_mode_used: bool,
    early_return_allowed: bool,
    logger: bool,
    logging_on: bool,
    wrong_token: bool,
    null_resources: bool,
}

/// One instance driven through the raw bindings; freed on drop.
struct Instance3<'t> {
    t: &'t Target,
    c: fmi3Instance,
    log: Box<Log>,
}

impl<'t> Instance3<'t> {
    fn new(t: &'t Target, o: Options) -> Option<Instance3<'t>> {
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

    fn logged(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn get(&self, vrs: &[u32]) -> (fmi3Status, Vec<f64>) {
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
    fn snapshot(&self) -> Vec<u8> {
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
    unsafe fn serialize(&self, state: fmi3FMUState) -> (fmi3Status, Vec<u8>) {
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

impl Drop for Instance3<'_> {
    fn drop(&mut self) {
        // SAFETY: the instance is live and freed exactly once.
        unsafe { self.t.b.fmi3FreeInstance(self.c) }
    }
}

/// Where the sequence believes the instance is; only used to make progress
/// likely, never to judge a status.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Guess {
    Instantiated,
    Initializing,
    Events,
    Stepping,
    Stopped,
}

impl Guess {
    fn after(self, function: &str, status: fmi3Status, o: &Options) -> Guess {
        match (function, status) {
            ("fmi3EnterInitializationMode", OK) => Guess::Initializing,
            ("fmi3ExitInitializationMode", OK) if o.event_mode_used => Guess::Events,
            ("fmi3ExitInitializationMode", OK) => Guess::Stepping,
            ("fmi3ExitInitializationMode", ERROR) => Guess::Stopped,
            ("fmi3EnterEventMode", OK) => Guess::Events,
            ("fmi3EnterStepMode", OK) => Guess::Stepping,
            ("fmi3DoStep", DISCARD) | ("fmi3Terminate", OK) => Guess::Stopped,
            ("fmi3Reset", OK) => Guess::Instantiated,
            _ => self,
        }
    }
}

/// What one sequence keeps between calls.
struct Session {
    states: [fmi3FMUState; 3],
    blobs: Vec<Vec<u8>>,
    now: f64,
    event_pending: bool,
}

/// The DoStep an importer would make: its flags decide what comes next.
fn step(r: &Instance3, s: &mut Session, at: f64, h: f64, outs: Option<usize>) -> fmi3Status {
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    let (pe, pt, pr, pl): (*mut bool, *mut bool, *mut bool, *mut f64) =
        (&mut event, &mut terminate, &mut early, &mut last);
    // One out-parameter NULL when asked: the FMU must refuse, not write there.
    let null_one = |k: usize, p: *mut bool| if outs == Some(k) { null_mut() } else { p };
    let pl = if outs == Some(3) { null_mut() } else { pl };
    // SAFETY: the out-parameters are NULL or point to locals.
    let status = unsafe {
        r.t.b.fmi3DoStep(
            r.c,
            at,
            h,
            true,
            null_one(0, pe),
            null_one(1, pt),
            null_one(2, pr),
            pl,
        )
    };
    s.event_pending = event;
    status
}

fn progress(
    rng: &mut Rng,
    r: &Instance3,
    s: &mut Session,
    guess: Guess,
) -> (&'static str, fmi3Status) {
    let b = &r.t.b;
    // SAFETY: legal arguments for a live instance.
    unsafe {
        match guess {
            Guess::Instantiated => (
                "fmi3EnterInitializationMode",
                b.fmi3EnterInitializationMode(r.c, false, 0.0, 0.0, false, 0.0),
            ),
            Guess::Initializing => (
                "fmi3ExitInitializationMode",
                b.fmi3ExitInitializationMode(r.c),
            ),
            Guess::Events if rng.chance(50) => update_discrete_states(r, None),
            Guess::Events => ("fmi3EnterStepMode", b.fmi3EnterStepMode(r.c)),
            Guess::Stepping if s.event_pending => ("fmi3EnterEventMode", b.fmi3EnterEventMode(r.c)),
            Guess::Stepping => {
                let h = rng.pick(&[0.01, 0.1, 0.2]);
                ("fmi3DoStep", step(r, s, s.now, h, None))
            }
            Guess::Stopped => ("fmi3Reset", b.fmi3Reset(r.c)),
        }
    }
}

fn update_discrete_states(r: &Instance3, null_out: Option<usize>) -> (&'static str, fmi3Status) {
    let mut flags = [false; 5];
    let mut next = 0.0;
    let p: Vec<*mut bool> = flags
        .iter_mut()
        .enumerate()
        .map(|(k, f)| {
            if null_out == Some(k) {
                null_mut()
            } else {
                f as *mut bool
            }
        })
        .collect();
    // SAFETY: the out-parameters are NULL or point to locals.
    let status = unsafe {
        r.t.b
            .fmi3UpdateDiscreteStates(r.c, p[0], p[1], p[2], p[3], p[4], &mut next)
    };
    ("fmi3UpdateDiscreteStates", status)
}

/// Makes one random call; returns the function's name and the status.
fn random_call(rng: &mut Rng, r: &Instance3, s: &mut Session) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let slot = rng.below(3) as usize;
    let mut reals = [0.0f64; 8];
    let mut ints = [0i32; 8];
    let mut flags = [false; 8];
    let mut strings: [binding::fmi3String; 8] = [null(); 8];
    let mut junk = [0u8; 1024];
    junk.iter_mut().for_each(|x| *x = rng.next() as u8);
    let vrs = random_vrs(rng, t.count);
    // A value count that matches, or one that does not (FMI 3.0 passes both).
    let n_values = if rng.chance(10) {
        vrs.len() + 1
    } else {
        vrs.len()
    };
    let values_ptr = if rng.chance(5) {
        null_mut()
    } else {
        reals.as_mut_ptr()
    };
    // SAFETY (all calls): the instance is live; every non-NULL array holds at
    // least as many elements as announced (at most 6 < 8); a state pointer is
    // NULL, one of this sequence's live states, or 1 KiB of junk.
    unsafe {
        match rng.below(100) {
            0..=4 => {
                let start = if rng.chance(80) {
                    0.0
                } else {
                    rng.pick(&NUMBERS)
                };
                let status = b.fmi3EnterInitializationMode(
                    c,
                    rng.chance(50),
                    rng.pick(&[1e-6, 0.0, -1.0, f64::NAN]),
                    start,
                    rng.chance(50),
                    rng.pick(&[10.0, 1.0, -1.0, f64::NAN]),
                );
                ("fmi3EnterInitializationMode", status)
            }
            5..=9 => (
                "fmi3ExitInitializationMode",
                b.fmi3ExitInitializationMode(c),
            ),
            10..=34 => {
                let at = if rng.chance(85) {
                    s.now
                } else {
                    rng.pick(&NUMBERS)
                };
                let h = if rng.chance(70) {
                    rng.pick(&[0.01, 0.1, 1e-3, 0.25])
                } else {
                    rng.pick(&NUMBERS)
                };
                let outs = rng.chance(5).then(|| rng.below(4) as usize);
                ("fmi3DoStep", step(r, s, at, h, outs))
            }
            35..=37 => ("fmi3Terminate", b.fmi3Terminate(c)),
            38..=39 => ("fmi3Reset", b.fmi3Reset(c)),
            40..=46 => {
                let p = if rng.chance(5) { null() } else { vrs.as_ptr() };
                (
                    "fmi3GetFloat64",
                    b.fmi3GetFloat64(c, p, vrs.len(), values_ptr, n_values),
                )
            }
            47..=54 => {
                for v in reals.iter_mut() {
                    *v = rng.pick(&NUMBERS);
                }
                let p = if rng.chance(5) {
                    null()
                } else {
                    reals.as_ptr()
                };
                (
                    "fmi3SetFloat64",
                    b.fmi3SetFloat64(c, vrs.as_ptr(), vrs.len(), p, n_values),
                )
            }
            55..=58 => {
                let (p, n) = (vrs.as_ptr(), vrs.len());
                match rng.below(7) {
                    0 => (
                        "fmi3GetInt32",
                        b.fmi3GetInt32(c, p, n, ints.as_mut_ptr(), n),
                    ),
                    1 => ("fmi3SetInt32", b.fmi3SetInt32(c, p, n, ints.as_ptr(), n)),
                    2 => (
                        "fmi3GetBoolean",
                        b.fmi3GetBoolean(c, p, n, flags.as_mut_ptr(), n),
                    ),
                    3 => (
                        "fmi3SetBoolean",
                        b.fmi3SetBoolean(c, p, n, flags.as_ptr(), n),
                    ),
                    4 => (
                        "fmi3GetString",
                        b.fmi3GetString(c, p, n, strings.as_mut_ptr(), n),
                    ),
                    5 => ("fmi3GetFloat32", b.fmi3GetFloat32(c, p, n, null_mut(), n)),
                    _ => ("fmi3GetClock", b.fmi3GetClock(c, p, n, flags.as_mut_ptr())),
                }
            }
            59..=63 => {
                let status = if rng.chance(5) {
                    b.fmi3GetFMUState(c, null_mut())
                } else {
                    b.fmi3GetFMUState(c, &mut s.states[slot])
                };
                ("fmi3GetFMUState", status)
            }
            64..=68 => {
                let state = match rng.below(10) {
                    0 => null_mut(),
                    1 => junk.as_mut_ptr() as fmi3FMUState,
                    _ => s.states[slot],
                };
                ("fmi3SetFMUState", b.fmi3SetFMUState(c, state))
            }
            69..=71 => {
                let status = if rng.chance(10) {
                    b.fmi3FreeFMUState(c, null_mut())
                } else {
                    b.fmi3FreeFMUState(c, &mut s.states[slot])
                };
                ("fmi3FreeFMUState", status)
            }
            72..=75 => {
                let state = if rng.chance(10) {
                    null_mut()
                } else {
                    s.states[slot]
                };
                if rng.chance(15) {
                    let mut buf = vec![0u8; rng.below(64) as usize];
                    let status = b.fmi3SerializeFMUState(c, state, buf.as_mut_ptr(), buf.len());
                    ("fmi3SerializeFMUState", status)
                } else {
                    let (status, bytes) = r.serialize(state);
                    if status == OK && s.blobs.len() < 8 {
                        s.blobs.push(bytes);
                    }
                    ("fmi3SerializeFMUState", status)
                }
            }
            76..=80 => {
                let blob = random_blob(rng, &t.foreign, &s.blobs);
                let status = if rng.chance(5) {
                    b.fmi3DeserializeFMUState(c, null(), blob.len() + 1, &mut s.states[slot])
                } else {
                    b.fmi3DeserializeFMUState(c, blob.as_ptr(), blob.len(), &mut s.states[slot])
                };
                ("fmi3DeserializeFMUState", status)
            }
            81..=84 => ("fmi3EnterEventMode", b.fmi3EnterEventMode(c)),
            85..=88 => {
                let null_out = rng.chance(10).then(|| rng.below(5) as usize);
                update_discrete_states(r, null_out)
            }
            89..=91 => ("fmi3EnterStepMode", b.fmi3EnterStepMode(c)),
            92 => {
                let orders = [1i32; 8];
                let status = b.fmi3GetOutputDerivatives(
                    c,
                    vrs.as_ptr(),
                    vrs.len(),
                    orders.as_ptr(),
                    reals.as_mut_ptr(),
                    vrs.len(),
                );
                ("fmi3GetOutputDerivatives", status)
            }
            93 => (
                "fmi3EnterConfigurationMode",
                b.fmi3EnterConfigurationMode(c),
            ),
            94 => (
                "fmi3GetContinuousStates",
                b.fmi3GetContinuousStates(c, reals.as_mut_ptr(), 2),
            ),
            95 => {
                let mut n = 0usize;
                (
                    "fmi3GetNumberOfEventIndicators",
                    b.fmi3GetNumberOfEventIndicators(c, &mut n),
                )
            }
            _ => {
                let names: [binding::fmi3String; 3] = [
                    c"logAll".as_ptr(),
                    c"logStatusError".as_ptr(),
                    c"nonsense%s%n".as_ptr(),
                ];
                let on = rng.chance(50);
                let status = match rng.below(4) {
                    0 => b.fmi3SetDebugLogging(c, on, 0, null()),
                    1 => b.fmi3SetDebugLogging(c, on, 2, null()),
                    2 => b.fmi3SetDebugLogging(c, on, 2, names.as_ptr()),
                    _ => b.fmi3SetDebugLogging(c, on, 3, names.as_ptr()),
                };
                ("fmi3SetDebugLogging", status)
            }
        }
    }
}

fn random_options(rng: &mut Rng) -> (Options, bool) {
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

fn target(stem: &str, other: &Target) -> Target {
    let mut t = target_alone(stem);
    t.foreign = other_state(other);
    t
}

fn target_alone(stem: &str) -> Target {
    let path = fmu3(stem);
    let import: Fmi3Import =
        fmi::import::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let b = import.binding(stem).expect("the FMU's library loads");
    let token = CString::new(import.model_description().instantiation_token.clone()).unwrap();
    let resources = CString::new(import.canonical_resource_path_string()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = validate::load(&root.join(format!("models/{stem}.toml"))).unwrap();
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
fn other_state(other: &Target) -> Vec<u8> {
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

#[test]
fn random_fmi3_call_sequences_without_a_crash() {
    let seed = env_or("LCSFMU_SEQUENCES_SEED", DEFAULT_SEED);
    let sequences = env_or("LCSFMU_SEQUENCES3", DEFAULT_SEQUENCES) as usize;
    let mut rng = Rng(seed | 1);
    let alone: Vec<Target> = MODELS.iter().map(|m| target_alone(m)).collect();
    // The foreign states come from the next model.
    let targets: Vec<Target> = (0..MODELS.len())
        .map(|i| target(MODELS[i], &alone[(i + 1) % MODELS.len()]))
        .collect();
    let mut histogram = Histogram::default();
    let (mut calls, mut refused) = (0usize, 0usize);
    for k in 0..sequences {
        let t = &targets[k % targets.len()];
        let (o, must_refuse) = random_options(&mut rng);
        let Some(r) = Instance3::new(t, o) else {
            assert!(
                must_refuse,
                "sequence {k} ({}): instantiation failed",
                t.name
            );
            refused += 1;
            continue;
        };
        assert!(
            !must_refuse,
            "sequence {k} ({}): a wrong token was accepted",
            t.name
        );
        let mut s = Session {
            states: [null_mut(); 3],
            blobs: Vec::new(),
            now: 0.0,
            event_pending: false,
        };
        let mut guess = Guess::Instantiated;
        for _ in 0..1 + rng.below(MAX_CALLS) {
            s.now = match r.get(&[0]) {
                (OK, v) => v[0],
                _ => 0.0,
            };
            let (outputs_readable, outputs) = r.get(&t.outputs);
            let before = r.snapshot();
            r.logged();
            let (function, status) = if rng.chance(40) {
                progress(&mut rng, &r, &mut s, guess)
            } else {
                random_call(&mut rng, &r, &mut s)
            };
            guess = guess.after(function, status, &o);
            histogram.add(function, status);
            calls += 1;
            let context = || format!("sequence {k} ({}, seed {seed:#x}): {function}", t.name);
            assert!(status <= ERROR, "{}: status {status}", context());
            let logged = r.logged();
            if status != OK && o.logger {
                assert!(
                    !logged.is_empty() && logged.iter().all(|l| !l.is_empty()),
                    "{}: status {status} without a message",
                    context()
                );
            }
            if status == DISCARD && outputs_readable == OK {
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let after = r.get(&t.outputs).1;
                assert_eq!(
                    bits(&after),
                    bits(&outputs),
                    "{}: a discard moved the state",
                    context()
                );
            }
            if status == ERROR && function != "fmi3ExitInitializationMode" {
                assert!(
                    r.snapshot() == before,
                    "{}: refused, but the instance changed",
                    context()
                );
            }
        }
        for state in s.states.iter_mut() {
            // SAFETY: a state of this instance, or NULL.
            assert_eq!(unsafe { t.b.fmi3FreeFMUState(r.c, state) }, OK);
        }
    }
    let total = histogram.total();
    let summary = format!(
        "{sequences} random FMI 3.0 call sequences ({refused} refused instantiations), \
         {calls} calls, seed {seed:#x}, 0 crashes\n{}",
        histogram.table()
    );
    println!("{summary}");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("call-sequences3.txt"), &summary).unwrap();
    // Every outcome occurred, so the sequences reached every kind of state.
    assert!(
        total[0] > 0 && total[1] > 0 && total[2] > 0 && total[3] > 0,
        "{summary}"
    );
    assert_eq!(total[4] + total[5], 0);
    let steps_ok = histogram.0["fmi3DoStep"][0];
    assert!(
        steps_ok > sequences,
        "only {steps_ok} successful steps:\n{summary}"
    );
    let events = histogram
        .0
        .get("fmi3UpdateDiscreteStates")
        .map_or(0, |r| r[0]);
    assert!(events > 0, "no Event Mode reached:\n{summary}");
}
