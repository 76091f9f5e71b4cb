//! Random FMI 2.0 call sequences against Model Exchange instances: at least
//! 10,000 sequences of up to 80 calls, over the `me` builds of sign_spiral,
//! rlc_diode, vdp_saturation and buck_pwm (nonlinear, sources in time) and
//! the `cs,me` builds of saturated_integrator (an input) and relay_feedback,
//! with the generators of [`super::sequence_args`]. The calls
//! are the 10 of Model Exchange and the common ones, in any state, with legal
//! and illegal arguments: NaN, infinite and extreme states and times, time
//! going backwards, arrays of the wrong size or NULL, unknown value
//! references, and the Co-Simulation functions on a Model Exchange instance
//! where the binary exports them (the calls: [`super::me_calls`]).
//!
//! Every call must satisfy:
//! - the status is OK, Warning, Discard or Error: never Fatal (a caught
//!   panic), never Pending or a value outside the enumeration;
//! - a call that returns Error or Discard changes nothing an importer can read
//!   (states, derivatives, event indicators, every Real, each with its status:
//!   Model Exchange has no FMU state to compare), except
//!   `fmi2ExitInitializationMode`, whose failure is the error state itself;
//! - every status other than OK comes with a logged message when a logger exists.
//!
//! A crash kills the test binary, which fails the run. The seed is fixed and
//! printed (`LCSFMU_SEQUENCES_SEED`, and the count with `LCSFMU_ME_SEQUENCES`);
//! the summary is printed and written to `target/conformance/call-sequences-me.txt`.

use super::fmus::{self, Callbacks, Instantiation, Raw, ERROR, MODEL_EXCHANGE, OK, WARNING};
use super::log_capture;
use super::me_calls::{event_info, observe, random_call, target, Observation, Target};
use super::sequence_args::{env_or, Rng};
use super::sequence_rules::Histogram;
use std::time::Instant;

const DEFAULT_SEED: u64 = 0x1c5f_2026_0004_00e1;
const DEFAULT_SEQUENCES: usize = 10_000;
const MAX_CALLS: u64 = 80;

/// Where the sequence believes the instance is; only to make progress likely.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Guess {
    Instantiated { set_up: bool },
    Initializing,
    Event,
    Continuous,
    Stopped,
}

impl Guess {
    fn after(self, function: &str, status: u32) -> Guess {
        match (function, status) {
            ("fmi2SetupExperiment", OK) => Guess::Instantiated { set_up: true },
            ("fmi2EnterInitializationMode", OK) => Guess::Initializing,
            ("fmi2ExitInitializationMode", OK | WARNING) => Guess::Event,
            ("fmi2ExitInitializationMode", ERROR) => Guess::Stopped,
            ("fmi2EnterEventMode", OK) => Guess::Event,
            ("fmi2EnterContinuousTimeMode", OK) => Guess::Continuous,
            ("fmi2Terminate", OK) => Guess::Stopped,
            ("fmi2Reset", OK) => Guess::Instantiated { set_up: false },
            _ => self,
        }
    }
}

/// The call a careful importer would make next: an explicit Euler step split
/// into its calls, and the event iteration.
fn progress(
    rng: &mut Rng,
    r: &mut Raw,
    t: &Target,
    o: &Observation,
    g: Guess,
) -> (&'static str, u32) {
    let (b, c) = (&r.b, r.c);
    let mut info = event_info();
    let h = rng.pick(&[1e-3, 0.01, 0.1]);
    // SAFETY: the instance is live; arrays hold the counts passed.
    unsafe {
        match g {
            Guess::Instantiated { set_up: false } => ("fmi2SetupExperiment", r.setup(0.0, None)),
            Guess::Instantiated { set_up: true } => ("fmi2EnterInitializationMode", r.enter()),
            Guess::Initializing => ("fmi2ExitInitializationMode", r.exit()),
            Guess::Event if rng.chance(60) => (
                "fmi2NewDiscreteStates",
                b.fmi2NewDiscreteStates(c, &mut info),
            ),
            Guess::Event => (
                "fmi2EnterContinuousTimeMode",
                b.fmi2EnterContinuousTimeMode(c),
            ),
            Guess::Continuous => match rng.below(10) {
                0..=3 => ("fmi2SetTime", b.fmi2SetTime(c, o.now(t) + h)),
                4..=7 => {
                    let x: Vec<f64> = o.x(t).iter().zip(o.dx(t)).map(|(x, d)| x + h * d).collect();
                    (
                        "fmi2SetContinuousStates",
                        b.fmi2SetContinuousStates(c, x.as_ptr(), t.nx),
                    )
                }
                8 => {
                    let (mut enter, mut stop) = (0, 0);
                    let s = b.fmi2CompletedIntegratorStep(c, 1, &mut enter, &mut stop);
                    ("fmi2CompletedIntegratorStep", s)
                }
                _ => ("fmi2EnterEventMode", b.fmi2EnterEventMode(c)),
            },
            Guess::Stopped => ("fmi2Reset", r.reset()),
        }
    }
}

/// Model Exchange instantiation arguments: mostly standard, sometimes NULL
/// callbacks or resources, sometimes refused (a wrong GUID or type).
fn random_instantiation<'a>(rng: &mut Rng, t: &Target, name: &'a str) -> (Instantiation<'a>, bool) {
    let mut how = Instantiation::standard(&t.import, name);
    how.fmu_type = MODEL_EXCHANGE;
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
        // Co-Simulation is refused by an `me` binary only.
        1 if !t.cs => {
            how.fmu_type = fmus::CO_SIMULATION;
            true
        }
        2 => {
            how.fmu_type = 99;
            true
        }
        _ => false,
    };
    (how, refused)
}

#[test]
fn random_model_exchange_call_sequences_without_a_crash() {
    let seed = env_or("LCSFMU_SEQUENCES_SEED", DEFAULT_SEED);
    let sequences = env_or("LCSFMU_ME_SEQUENCES", DEFAULT_SEQUENCES as u64) as usize;
    let mut rng = Rng(seed | 1);
    let targets = [
        target("sign_spiral", false),
        target("rlc_diode", false),
        target("saturated_integrator", true),
        target("relay_feedback", true),
        target("vdp_saturation", false),
        target("buck_pwm", false),
    ];
    let name = "sequences-me";
    let mut histogram = Histogram::default();
    let (mut calls, mut refused_instantiations, mut refused_unchanged) = (0usize, 0usize, 0usize);
    let started = Instant::now();
    for k in 0..sequences {
        let t = &targets[k % targets.len()];
        let (how, refused) = random_instantiation(&mut rng, t, name);
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
        let mut guess = Guess::Instantiated { set_up: false };
        for _ in 0..1 + rng.below(MAX_CALLS) {
            let before = observe(&mut r, t);
            r.logged();
            let (function, status) = if rng.chance(45) {
                progress(&mut rng, &mut r, t, &before, guess)
            } else {
                random_call(&mut rng, t, &mut r, &before)
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
            if status > WARNING && function != "fmi2ExitInitializationMode" {
                let after = observe(&mut r, t);
                assert_eq!(
                    after,
                    before,
                    "{}: refused, but the instance changed",
                    context()
                );
                refused_unchanged += 1;
            }
        }
        drop(r);
        log_capture::take(name);
    }
    let seconds = started.elapsed().as_secs_f64();
    let total = histogram.total();
    let summary = format!(
        "{sequences} random Model Exchange call sequences ({refused_instantiations} refused \
         instantiations), {calls} calls ({refused_unchanged} refused, each changing nothing), \
         seed {seed:#x}, {seconds:.1} s, 0 crashes\n{}",
        histogram.table()
    );
    println!("{summary}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("call-sequences-me.txt"), &summary).unwrap();
    assert!(sequences >= DEFAULT_SEQUENCES || std::env::var_os("LCSFMU_ME_SEQUENCES").is_some());
    assert!(total[0] > 0 && total[3] > 0, "{summary}");
    assert_eq!(total[4] + total[5], 0);
    // The sequences reach Continuous-Time Mode and integrate there.
    for function in [
        "fmi2SetContinuousStates",
        "fmi2CompletedIntegratorStep",
        "fmi2NewDiscreteStates",
    ] {
        let ok = histogram.0.get(function).map_or(0, |row| row[0]);
        assert!(
            ok > sequences / 4,
            "only {ok} successful {function}:\n{summary}"
        );
    }
}
