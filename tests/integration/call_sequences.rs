//! Random FMI call sequences against the built FMUs: at least 10,000 sequences
//! of up to 60 calls each, with arguments drawn from legal and illegal values
//! (wrong communication points, non-finite and extreme numbers, unknown value
//! references, NULL arrays, damaged and foreign FMU states, junk pointers to
//! states), on instances created with every kind of instantiation argument.
//!
//! The test runs in this process: a crash of an FMU kills the test binary, which
//! fails the run. Besides surviving, every call must satisfy:
//! - the status is OK, Warning, Discard or Error: never Fatal (that is a caught
//!   panic) and never Pending or a value outside the enumeration;
//! - a call that returns Error changes nothing (the serialized FMU state is the
//!   same bytes), except `fmi2ExitInitializationMode`, whose failure is the
//!   error state itself;
//! - a discarded step keeps the outputs of the last good step;
//! - every status other than OK comes with a logged message when a logger exists.
//!
//! The seed is fixed and printed (override: `LCSFMU_SEQUENCES_SEED`, and the count
//! with `LCSFMU_SEQUENCES`); the summary, a histogram of statuses per function,
//! is printed and written to `target/conformance/call-sequences.txt`.

use super::fmus::{self, Callbacks, Instantiation, Raw, DISCARD, ERROR, OK, WARNING};
use super::log_capture;
use fmi::fmi2::binding::{fmi2FMUstate, fmi2String};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::Causality;
use std::collections::BTreeMap;
use std::ptr::{null, null_mut};

const DEFAULT_SEED: u64 = 0x1c5f_2026_0004_0001;
const DEFAULT_SEQUENCES: usize = 10_000;
const MAX_CALLS: u64 = 60;

/// xorshift64*: small, deterministic, good enough to pick arguments.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Numbers an importer might pass as values, times or step sizes.
pub const NUMBERS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    2.5,
    -100.0,
    1e-300,
    5e-324,
    1e300,
    -1e300,
    f64::MAX,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    9.81,
];

/// One FMU under test, with what the generator needs to know about it.
struct Target {
    name: String,
    import: Fmi2Import,
    count: u32,
    outputs: Vec<u32>,
    /// A valid serialized state of another model.
    foreign: Vec<u8>,
}

/// Where the sequence believes the instance is, from the statuses it saw;
/// only used to make progress likely, never to judge a status.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Guess {
    Instantiated { set_up: bool },
    Initializing,
    Running,
    Stopped,
}

impl Guess {
    fn after(self, function: &str, status: u32) -> Guess {
        match (function, status) {
            ("fmi2SetupExperiment", OK) => Guess::Instantiated { set_up: true },
            ("fmi2EnterInitializationMode", OK) => Guess::Initializing,
            ("fmi2ExitInitializationMode", OK | WARNING) => Guess::Running,
            ("fmi2ExitInitializationMode", ERROR) => Guess::Stopped,
            ("fmi2DoStep", DISCARD) | ("fmi2Terminate", OK) => Guess::Stopped,
            ("fmi2Reset", OK) => Guess::Instantiated { set_up: false },
            ("fmi2SetFMUstate", OK) => Guess::Running,
            _ => self,
        }
    }
}

/// The call a well-behaved importer would make next.
fn progress(rng: &mut Rng, r: &mut Raw, s: &Session, guess: Guess) -> (&'static str, u32) {
    match guess {
        Guess::Instantiated { set_up: false } => ("fmi2SetupExperiment", r.setup(0.0, None)),
        Guess::Instantiated { set_up: true } => ("fmi2EnterInitializationMode", r.enter()),
        Guess::Initializing => ("fmi2ExitInitializationMode", r.exit()),
        Guess::Running => ("fmi2DoStep", r.step(s.now, rng.pick(&[0.01, 0.1, 0.2]))),
        Guess::Stopped => ("fmi2Reset", r.reset()),
    }
}

/// What one sequence keeps between calls.
struct Session {
    states: [fmi2FMUstate; 3],
    blobs: Vec<Vec<u8>>,
    /// The FMU's time, read before the call (0 when it cannot be read).
    now: f64,
}

/// Statuses per FMI function.
#[derive(Default)]
pub struct Histogram(pub BTreeMap<&'static str, [usize; 6]>);

impl Histogram {
    pub fn add(&mut self, function: &'static str, status: u32) {
        self.0.entry(function).or_default()[status.min(5) as usize] += 1;
    }
    pub fn total(&self) -> [usize; 6] {
        let mut t = [0; 6];
        for row in self.0.values() {
            for (a, b) in t.iter_mut().zip(row) {
                *a += b;
            }
        }
        t
    }
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<30}{:>9}{:>9}{:>9}{:>9}{:>7}\n",
            "function", "OK", "Warning", "Discard", "Error", "Fatal"
        );
        let rows = self.0.iter().map(|(k, v)| (*k, *v));
        for (name, r) in rows.chain(std::iter::once(("total", self.total()))) {
            s += &format!(
                "{name:<30}{:>9}{:>9}{:>9}{:>9}{:>7}\n",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4] + r[5]
            );
        }
        s
    }
}

/// A random vector of value references, mostly known ones.
pub fn random_vrs(rng: &mut Rng, count: u32) -> Vec<u32> {
    let n = rng.pick(&[0usize, 1, 1, 2, 3, 5]);
    (0..n)
        .map(|_| match rng.below(10) {
            0 => rng.pick(&[count, count + 1, 1000, u32::MAX]),
            _ => rng.below(u64::from(count)) as u32,
        })
        .collect()
}

/// Bytes to deserialize: valid, truncated, with a flipped bit, random, foreign.
pub fn random_blob(rng: &mut Rng, foreign: &[u8], blobs: &[Vec<u8>]) -> Vec<u8> {
    let valid = (!blobs.is_empty()).then(|| blobs[rng.below(blobs.len() as u64) as usize].clone());
    match (rng.below(6), valid) {
        (0 | 1, Some(b)) => b,
        (2, Some(mut b)) => {
            let cut = rng.below(b.len() as u64) as usize;
            b.truncate(cut);
            b
        }
        (3, Some(mut b)) => {
            let i = rng.below(b.len() as u64) as usize;
            b[i] ^= 1 << rng.below(8);
            b
        }
        (4, _) => foreign.to_vec(),
        _ => {
            let n = rng.below(300) as usize;
            (0..n).map(|_| rng.next() as u8).collect()
        }
    }
}

/// Makes one random call; returns the function's name and the status.
fn random_call(rng: &mut Rng, t: &Target, r: &mut Raw, s: &mut Session) -> (&'static str, u32) {
    let slot = rng.below(3) as usize;
    let mut reals = [0.0f64; 8];
    let mut ints = [0i32; 8];
    let mut strings: [fmi2String; 8] = [null(); 8];
    let mut junk = [0u8; 1024];
    junk.iter_mut().for_each(|b| *b = rng.next() as u8);
    // SAFETY (all calls): the instance is live; every non-NULL array holds at
    // least as many elements as announced (vrs.len() <= 5 < 8); a state pointer is
    // NULL, one of this sequence's live states, or 1 KiB of junk.
    unsafe {
        let (b, c) = (&r.b, r.c);
        match rng.below(100) {
            0..=4 => {
                let stop = rng
                    .chance(50)
                    .then(|| rng.pick(&[10.0, 1.0, -1.0, f64::NAN]));
                let start = if rng.chance(80) {
                    0.0
                } else {
                    rng.pick(&NUMBERS)
                };
                ("fmi2SetupExperiment", r.setup(start, stop))
            }
            5..=9 => ("fmi2EnterInitializationMode", r.enter()),
            10..=14 => ("fmi2ExitInitializationMode", r.exit()),
            15..=39 => {
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
                ("fmi2DoStep", r.step(at, h))
            }
            40..=42 => ("fmi2Terminate", r.terminate()),
            43..=44 => ("fmi2Reset", r.reset()),
            45..=51 => {
                let vrs = random_vrs(rng, t.count);
                match rng.below(10) {
                    0 => (
                        "fmi2GetReal",
                        b.fmi2GetReal(c, null(), vrs.len(), reals.as_mut_ptr()),
                    ),
                    1 => (
                        "fmi2GetReal",
                        b.fmi2GetReal(c, vrs.as_ptr(), vrs.len(), null_mut()),
                    ),
                    _ => ("fmi2GetReal", r.get(&vrs).0),
                }
            }
            52..=60 => {
                let vrs = random_vrs(rng, t.count);
                let values: Vec<f64> = vrs.iter().map(|_| rng.pick(&NUMBERS)).collect();
                match rng.below(10) {
                    0 => (
                        "fmi2SetReal",
                        b.fmi2SetReal(c, vrs.as_ptr(), vrs.len(), null()),
                    ),
                    _ => ("fmi2SetReal", r.set(&vrs, &values)),
                }
            }
            61..=63 => {
                let vrs = random_vrs(rng, t.count);
                let (p, n) = if rng.chance(20) {
                    (null(), vrs.len() + 1)
                } else {
                    (vrs.as_ptr(), vrs.len())
                };
                match rng.below(6) {
                    0 => (
                        "fmi2GetInteger",
                        b.fmi2GetInteger(c, p, n, ints.as_mut_ptr()),
                    ),
                    1 => ("fmi2SetInteger", b.fmi2SetInteger(c, p, n, ints.as_ptr())),
                    2 => (
                        "fmi2GetBoolean",
                        b.fmi2GetBoolean(c, p, n, ints.as_mut_ptr()),
                    ),
                    3 => ("fmi2SetBoolean", b.fmi2SetBoolean(c, p, n, ints.as_ptr())),
                    4 => (
                        "fmi2GetString",
                        b.fmi2GetString(c, p, n, strings.as_mut_ptr()),
                    ),
                    _ => ("fmi2SetString", b.fmi2SetString(c, p, n, strings.as_ptr())),
                }
            }
            64..=68 => {
                let status = if rng.chance(5) {
                    b.fmi2GetFMUstate(c, null_mut())
                } else {
                    r.get_state(&mut s.states[slot])
                };
                ("fmi2GetFMUstate", status)
            }
            69..=73 => {
                let state = match rng.below(10) {
                    0 => null_mut(),
                    1 => junk.as_mut_ptr() as fmi2FMUstate,
                    _ => s.states[slot],
                };
                ("fmi2SetFMUstate", r.set_state(state))
            }
            74..=76 => {
                let status = if rng.chance(10) {
                    b.fmi2FreeFMUstate(c, null_mut())
                } else {
                    r.free_state(&mut s.states[slot])
                };
                ("fmi2FreeFMUstate", status)
            }
            77..=80 => {
                let state = if rng.chance(10) {
                    null_mut()
                } else {
                    s.states[slot]
                };
                if rng.chance(15) {
                    let mut buf = vec![0u8; rng.below(64) as usize];
                    let status =
                        b.fmi2SerializeFMUstate(c, state, buf.as_mut_ptr() as *mut _, buf.len());
                    ("fmi2SerializeFMUstate", status)
                } else {
                    let (status, bytes) = r.serialize(state);
                    if status == OK && s.blobs.len() < 8 {
                        s.blobs.push(bytes);
                    }
                    ("fmi2SerializeFMUstate", status)
                }
            }
            81..=85 => {
                let blob = random_blob(rng, &t.foreign, &s.blobs);
                let status = if rng.chance(5) {
                    b.fmi2DeSerializeFMUstate(c, null(), blob.len() + 1, &mut s.states[slot])
                } else {
                    r.deserialize(&blob, &mut s.states[slot])
                };
                ("fmi2DeSerializeFMUstate", status)
            }
            86 => (
                "fmi2GetDirectionalDerivative",
                b.fmi2GetDirectionalDerivative(c, null(), 0, null(), 0, null(), null_mut()),
            ),
            87 => (
                "fmi2SetRealInputDerivatives",
                b.fmi2SetRealInputDerivatives(c, null(), 0, null(), null()),
            ),
            88 => (
                "fmi2GetRealOutputDerivatives",
                b.fmi2GetRealOutputDerivatives(c, null(), 0, null(), null_mut()),
            ),
            89 => ("fmi2CancelStep", b.fmi2CancelStep(c)),
            90..=95 => {
                let kind = rng.below(5) as u32;
                let null_value = rng.chance(10);
                match rng.below(5) {
                    0 => {
                        let mut st = 0u32;
                        let p = if null_value {
                            null_mut()
                        } else {
                            &mut st as *mut u32
                        };
                        ("fmi2GetStatus", b.fmi2GetStatus(c, kind, p))
                    }
                    1 => {
                        let p = if null_value {
                            null_mut()
                        } else {
                            reals.as_mut_ptr()
                        };
                        ("fmi2GetRealStatus", b.fmi2GetRealStatus(c, kind, p))
                    }
                    2 => (
                        "fmi2GetIntegerStatus",
                        b.fmi2GetIntegerStatus(c, kind, ints.as_mut_ptr()),
                    ),
                    3 => {
                        let p = if null_value {
                            null_mut()
                        } else {
                            ints.as_mut_ptr()
                        };
                        ("fmi2GetBooleanStatus", b.fmi2GetBooleanStatus(c, kind, p))
                    }
                    _ => (
                        "fmi2GetStringStatus",
                        b.fmi2GetStringStatus(c, kind, strings.as_mut_ptr()),
                    ),
                }
            }
            _ => {
                let names: [fmi2String; 3] = [
                    c"logAll".as_ptr(),
                    c"logStatusError".as_ptr(),
                    c"nonsense%s%n".as_ptr(),
                ];
                let on = rng.below(2) as i32;
                let status = match rng.below(4) {
                    0 => b.fmi2SetDebugLogging(c, on, 0, null()),
                    1 => b.fmi2SetDebugLogging(c, on, 2, null()),
                    2 => b.fmi2SetDebugLogging(c, on, 2, names.as_ptr()),
                    _ => b.fmi2SetDebugLogging(c, on, 3, names.as_ptr()),
                };
                ("fmi2SetDebugLogging", status)
            }
        }
    }
}

/// Instantiation arguments: mostly standard, sometimes with NULL callbacks or
/// resources, sometimes refused (wrong GUID, Model Exchange).
fn random_instantiation<'a>(
    rng: &mut Rng,
    import: &Fmi2Import,
    name: &'a str,
) -> (Instantiation<'a>, bool) {
    let mut how = Instantiation::standard(import, name);
    how.callbacks = rng.pick(&[
        Callbacks::Logging,
        Callbacks::Logging,
        Callbacks::Logging,
        Callbacks::NullLogger,
        Callbacks::Null,
    ]);
    how.logging_on = rng.chance(50);
    if rng.chance(10) {
        how.resources = None;
    }
    let refused = match rng.below(40) {
        0 => {
            how.guid = Some("{not-this-model}");
            true
        }
        1 => {
            how.fmu_type = rng.pick(&[0, 2, 99]);
            true
        }
        _ => false,
    };
    (how, refused)
}

fn target(name: &str, other: &str) -> Target {
    let import = fmus::import(&fmus::bundled(name));
    let other = fmus::import(&fmus::bundled(other));
    let mut o = Raw::new(&other, "sequences-foreign");
    assert!(o.init() <= WARNING);
    Target {
        name: name.to_string(),
        count: fmus::variable_count(&import),
        outputs: fmus::vrs_of(&import, Causality::Output),
        foreign: o.snapshot(),
        import,
    }
}

/// A number from the environment (decimal, or hexadecimal with `0x`).
pub fn env_or(key: &str, default: u64) -> u64 {
    let Ok(v) = std::env::var(key) else {
        return default;
    };
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    parsed.unwrap_or_else(|e| panic!("{key}={v}: {e}"))
}

#[test]
fn ten_thousand_random_call_sequences_without_a_crash() {
    let seed = env_or("LCSFMU_SEQUENCES_SEED", DEFAULT_SEED);
    let sequences = env_or("LCSFMU_SEQUENCES", DEFAULT_SEQUENCES as u64) as usize;
    let mut rng = Rng(seed | 1);
    // every bundled model in turn; the foreign states come from the next one
    let models = fmus::every_model();
    let targets: Vec<Target> = (0..models.len())
        .map(|i| target(&models[i], &models[(i + 1) % models.len()]))
        .collect();
    let name = "sequences";
    let mut histogram = Histogram::default();
    let (mut calls, mut refused_instantiations) = (0usize, 0usize);
    for k in 0..sequences {
        let t = &targets[k % targets.len()];
        let (how, refused) = random_instantiation(&mut rng, &t.import, name);
        let logger = how.callbacks == Callbacks::Logging;
        let Some(mut r) = Raw::instantiate(&t.import, how) else {
            assert!(refused, "sequence {k} ({}): instantiation failed", t.name);
            refused_instantiations += 1;
            log_capture::take(name);
            continue;
        };
        assert!(
            !refused,
            "sequence {k} ({}): a refused instantiation succeeded",
            t.name
        );
        let mut s = Session {
            states: [null_mut(); 3],
            blobs: Vec::new(),
            now: 0.0,
        };
        let mut guess = Guess::Instantiated { set_up: false };
        for _ in 0..1 + rng.below(MAX_CALLS) {
            // Reads first: in initialization mode they update the multipliers.
            s.now = match r.get(&[0]) {
                (OK, v) => v[0],
                _ => 0.0,
            };
            let (outputs_readable, outputs) = r.get(&t.outputs);
            let before = r.snapshot();
            r.logged();
            let (function, status) = if rng.chance(40) {
                progress(&mut rng, &mut r, &s, guess)
            } else {
                random_call(&mut rng, t, &mut r, &mut s)
            };
            guess = guess.after(function, status);
            histogram.add(function, status);
            calls += 1;
            let context = || format!("sequence {k} ({}, seed {seed:#x}): {function}", t.name);
            assert!(status <= ERROR, "{}: status {status}", context());
            let logged = r.logged();
            if status != OK && logger {
                assert!(
                    !logged.is_empty() && logged.iter().all(|l| !l.message.is_empty()),
                    "{}: status {status} without a message",
                    context()
                );
            }
            if status == DISCARD && outputs_readable == OK {
                let (_, after) = r.get(&t.outputs);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&after),
                    bits(&outputs),
                    "{}: a discard moved the state",
                    context()
                );
            }
            if status == ERROR && function != "fmi2ExitInitializationMode" {
                assert!(
                    r.snapshot() == before,
                    "{}: refused, but the instance changed",
                    context()
                );
            }
        }
        for state in s.states.iter_mut() {
            assert_eq!(r.free_state(state), OK);
        }
        drop(r);
        log_capture::take(name);
    }
    let total = histogram.total();
    let summary = format!(
        "{sequences} random call sequences ({refused_instantiations} refused instantiations), \
         {calls} calls, seed {seed:#x}, 0 crashes\n{}",
        histogram.table()
    );
    println!("{summary}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance");
    std::fs::write(dir.join("call-sequences.txt"), &summary).unwrap();
    assert!(sequences >= DEFAULT_SEQUENCES || std::env::var_os("LCSFMU_SEQUENCES").is_some());
    // every outcome occurred, so the sequences reached every kind of state
    assert!(
        total[0] > 0 && total[1] > 0 && total[2] > 0 && total[3] > 0,
        "{summary}"
    );
    assert_eq!(total[4] + total[5], 0);
    let steps_ok = histogram.0["fmi2DoStep"][0];
    assert!(
        steps_ok > sequences,
        "only {steps_ok} successful steps:\n{summary}"
    );
}
