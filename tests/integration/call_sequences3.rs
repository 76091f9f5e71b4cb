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

use super::fmi3_check::MODELS;
use super::random_calls3::{random_call, step, update_discrete_states};
use super::sequence_args::{env_or, Rng};
use super::sequence_rules::{judge, report, Before, Call, Histogram};
use super::sequences3_instance::{
    random_options, target, target_alone, Instance3, Options, Target,
};
// The Model Exchange target logs through the same callback.
pub(super) use super::sequences3_instance::{log_message, Log};
use fmi::fmi3::binding::{fmi3FMUState, fmi3Status};
use std::ptr::null_mut;

const DEFAULT_SEED: u64 = 0x1c5f_2026_0018_0003;
const DEFAULT_SEQUENCES: u64 = 5_000;
const MAX_CALLS: u64 = 60;
pub(super) const OK: fmi3Status = 0;
const DISCARD: fmi3Status = 2;
const ERROR: fmi3Status = 3;

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
pub(super) struct Session {
    pub(super) states: [fmi3FMUState; 3],
    pub(super) blobs: Vec<Vec<u8>>,
    pub(super) now: f64,
    pub(super) event_pending: bool,
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
        let Some(mut r) = Instance3::new(t, o) else {
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
            let before = Before::read(&mut r, &t.outputs);
            s.now = before.now;
            let (function, status) = if rng.chance(40) {
                progress(&mut rng, &r, &mut s, guess)
            } else {
                random_call(&mut rng, &r, &mut s)
            };
            guess = guess.after(function, status, &o);
            histogram.add(function, status);
            calls += 1;
            let context = || format!("sequence {k} ({}, seed {seed:#x}): {function}", t.name);
            let call = Call {
                function,
                status,
                logger: o.logger,
                error_state_from: "fmi3ExitInitializationMode",
                context: &context,
            };
            judge(&mut r, &before, &t.outputs, call);
        }
        for state in s.states.iter_mut() {
            // SAFETY: a state of this instance, or NULL.
            assert_eq!(unsafe { t.b.fmi3FreeFMUState(r.c, state) }, OK);
        }
    }
    let headline = format!(
        "{sequences} random FMI 3.0 call sequences ({refused} refused instantiations), \
         {calls} calls, seed {seed:#x}, 0 crashes"
    );
    let summary = report(
        &histogram,
        headline,
        "call-sequences3.txt",
        sequences,
        "fmi3DoStep",
    );
    let events = histogram
        .0
        .get("fmi3UpdateDiscreteStates")
        .map_or(0, |r| r[0]);
    assert!(events > 0, "no Event Mode reached:\n{summary}");
}
