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
use super::random_calls::random_call;
use super::sequence_args::{env_or, Rng};
use super::sequence_rules::{judge, report, Before, Call, Histogram, Observed};
use fmi::fmi2::binding::fmi2FMUstate;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::Causality;
use std::ptr::null_mut;

const DEFAULT_SEED: u64 = 0x1c5f_2026_0004_0001;
const DEFAULT_SEQUENCES: usize = 10_000;
const MAX_CALLS: u64 = 60;

/// One FMU under test, with what the generator needs to know about it.
pub(super) struct Target {
    name: String,
    import: Fmi2Import,
    pub(super) count: u32,
    outputs: Vec<u32>,
    /// A valid serialized state of another model.
    pub(super) foreign: Vec<u8>,
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
pub(super) struct Session {
    pub(super) states: [fmi2FMUstate; 3],
    pub(super) blobs: Vec<Vec<u8>>,
    /// The FMU's time, read before the call (0 when it cannot be read).
    pub(super) now: f64,
}

impl Observed for Raw {
    fn messages(&mut self) -> Vec<String> {
        self.logged().into_iter().map(|l| l.message).collect()
    }
    fn read(&mut self, vrs: &[u32]) -> (u32, Vec<f64>) {
        self.get(vrs)
    }
    fn state_bytes(&mut self) -> Vec<u8> {
        self.snapshot()
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
            let before = Before::read(&mut r, &t.outputs);
            s.now = before.now;
            let (function, status) = if rng.chance(40) {
                progress(&mut rng, &mut r, &s, guess)
            } else {
                random_call(&mut rng, t, &mut r, &mut s)
            };
            guess = guess.after(function, status);
            histogram.add(function, status);
            calls += 1;
            let context = || format!("sequence {k} ({}, seed {seed:#x}): {function}", t.name);
            let call = Call {
                function,
                status,
                logger,
                error_state_from: "fmi2ExitInitializationMode",
                context: &context,
            };
            judge(&mut r, &before, &t.outputs, call);
        }
        for state in s.states.iter_mut() {
            assert_eq!(r.free_state(state), OK);
        }
        drop(r);
        log_capture::take(name);
    }
    let headline = format!(
        "{sequences} random call sequences ({refused_instantiations} refused instantiations), \
         {calls} calls, seed {seed:#x}, 0 crashes"
    );
    report(
        &histogram,
        headline,
        "call-sequences.txt",
        sequences,
        "fmi2DoStep",
    );
    assert!(sequences >= DEFAULT_SEQUENCES || std::env::var_os("LCSFMU_SEQUENCES").is_some());
}
