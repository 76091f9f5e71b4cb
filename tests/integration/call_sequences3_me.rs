//! Random FMI 3.0 call sequences against Model Exchange instances, as
//! [`super::call_sequences_me`] does for FMI 2.0: at least 10,000 sequences
//! of up to 80 calls over the `--fmi 3` `me` builds of sign_spiral, rlc_diode,
//! vdp_saturation and buck_pwm (nonlinear, sources in time) and the `cs,me`
//! builds of saturated_integrator (an input) and relay_feedback, with the
//! generators of [`super::sequence_args`]. The calls ([`super::me3_calls`],
//! on [`super::me3_target`]) are the Model Exchange functions and the
//! common ones in any state, with legal and illegal arguments: NaN, infinite
//! and extreme states and times, time going backwards, arrays of the wrong
//! size or NULL, `nValues`, `nSeed` and `nSensitivity` that do not match,
//! NULL out-parameters, unknown value references, the Co-Simulation
//! functions on a Model Exchange instance, and FMU states taken and set back.
//!
//! Every call must satisfy:
//! - the status is OK, Warning, Discard or Error: never Fatal (a caught
//!   panic), never a value outside the enumeration;
//! - a call that returns Error or Discard changes nothing an importer can
//!   read (states, derivatives, event indicators, every Float64, each with its
//!   status), except `fmi3ExitInitializationMode`, whose failure is the error
//!   state itself;
//! - every status other than OK comes with a logged message when a logger exists.
//!
//! A crash kills the test binary, which fails the run. The seed is fixed and
//! printed (`LCSFMU_SEQUENCES_SEED`, and the count with `LCSFMU_ME3_SEQUENCES`);
//! the summary is printed and written to
//! `target/conformance/call-sequences3-me.txt`.

use super::me3_calls::random_call;
use super::me3_target::{
    completed, observe, target3, update, Instance3Me, Observation, Options, Target3,
};
use super::sequence_args::{env_or, Rng};
use super::sequence_rules::Histogram;
use fmi::fmi3::binding::fmi3Status;
use std::time::Instant;

const DEFAULT_SEED: u64 = 0x1c5f_2026_0004_03e3;
const DEFAULT_SEQUENCES: u64 = 10_000;
const MAX_CALLS: u64 = 80;
const OK: fmi3Status = 0;
const WARNING: fmi3Status = 1;
const ERROR: fmi3Status = 3;

/// Where the sequence believes the instance is; only to make progress likely.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Guess {
    Instantiated,
    Initializing,
    Event,
    Continuous,
    Stopped,
}

impl Guess {
    fn after(self, function: &str, status: fmi3Status) -> Guess {
        match (function, status) {
            ("fmi3EnterInitializationMode", OK) => Guess::Initializing,
            ("fmi3ExitInitializationMode", OK | WARNING) => Guess::Event,
            ("fmi3ExitInitializationMode", ERROR) => Guess::Stopped,
            ("fmi3EnterEventMode", OK) => Guess::Event,
            ("fmi3EnterContinuousTimeMode", OK) => Guess::Continuous,
            ("fmi3Terminate", OK) => Guess::Stopped,
            ("fmi3Reset", OK) => Guess::Instantiated,
            _ => self,
        }
    }
}

/// The call a careful importer would make next: an explicit Euler step split
/// into its calls, and the event iteration.
fn progress(
    rng: &mut Rng,
    r: &Instance3Me,
    o: &Observation,
    g: Guess,
) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let h = rng.pick(&[1e-3, 0.01, 0.1]);
    // SAFETY: the instance is live; arrays hold the counts passed.
    unsafe {
        match g {
            Guess::Instantiated => (
                "fmi3EnterInitializationMode",
                b.fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0),
            ),
            Guess::Initializing => (
                "fmi3ExitInitializationMode",
                b.fmi3ExitInitializationMode(c),
            ),
            Guess::Event if rng.chance(60) => ("fmi3UpdateDiscreteStates", update(r, None)),
            Guess::Event => (
                "fmi3EnterContinuousTimeMode",
                b.fmi3EnterContinuousTimeMode(c),
            ),
            Guess::Continuous => match rng.below(10) {
                0..=3 => ("fmi3SetTime", b.fmi3SetTime(c, o.now(t) + h)),
                4..=7 => {
                    let x: Vec<f64> = o.x(t).iter().zip(o.dx(t)).map(|(x, d)| x + h * d).collect();
                    (
                        "fmi3SetContinuousStates",
                        b.fmi3SetContinuousStates(c, x.as_ptr(), t.nx()),
                    )
                }
                8 => ("fmi3CompletedIntegratorStep", completed(r, None)),
                _ => ("fmi3EnterEventMode", b.fmi3EnterEventMode(c)),
            },
            Guess::Stopped => ("fmi3Reset", b.fmi3Reset(c)),
        }
    }
}

/// Instantiation options: mostly standard, sometimes no logger or NULL
/// resources, sometimes refused (a wrong token).
fn random_options(rng: &mut Rng) -> Options {
    Options {
        logger: !rng.chance(10),
        logging_on: rng.chance(50),
        wrong_token: rng.chance(3),
        null_resources: rng.chance(10),
    }
}

#[test]
fn random_fmi3_model_exchange_call_sequences_without_a_crash() {
    let seed = env_or("LCSFMU_SEQUENCES_SEED", DEFAULT_SEED);
    let sequences = env_or("LCSFMU_ME3_SEQUENCES", DEFAULT_SEQUENCES) as usize;
    let mut rng = Rng(seed | 1);
    let targets: [Target3; 6] = [
        target3("sign_spiral", false),
        target3("rlc_diode", false),
        target3("saturated_integrator", true),
        target3("relay_feedback", true),
        target3("vdp_saturation", false),
        target3("buck_pwm", false),
    ];
    let mut histogram = Histogram::default();
    let (mut calls, mut refused_instantiations, mut refused_unchanged) = (0usize, 0usize, 0usize);
    let started = Instant::now();
    for k in 0..sequences {
        let t = &targets[k % targets.len()];
        let o = random_options(&mut rng);
        let Some(r) = Instance3Me::new(t, o) else {
            assert!(
                o.wrong_token,
                "sequence {k} ({}): instantiation failed",
                t.name
            );
            refused_instantiations += 1;
            continue;
        };
        assert!(
            !o.wrong_token,
            "sequence {k} ({}): a wrong token was accepted",
            t.name
        );
        let mut guess = Guess::Instantiated;
        for _ in 0..1 + rng.below(MAX_CALLS) {
            let before = observe(&r);
            r.logged();
            let (function, status) = if rng.chance(45) {
                progress(&mut rng, &r, &before, guess)
            } else {
                random_call(&mut rng, &r, &before)
            };
            guess = guess.after(function, status);
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
            if status > WARNING && function != "fmi3ExitInitializationMode" {
                let after = observe(&r);
                assert_eq!(
                    after,
                    before,
                    "{}: refused, but the instance changed",
                    context()
                );
                refused_unchanged += 1;
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let total = histogram.total();
    let summary = format!(
        "{sequences} random FMI 3.0 Model Exchange call sequences ({refused_instantiations} \
         refused instantiations), {calls} calls ({refused_unchanged} refused, each changing \
         nothing), seed {seed:#x}, {seconds:.1} s, 0 crashes\n{}",
        histogram.table()
    );
    println!("{summary}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("call-sequences3-me.txt"), &summary).unwrap();
    let requested = std::env::var_os("LCSFMU_ME3_SEQUENCES").is_some();
    assert!(sequences >= DEFAULT_SEQUENCES as usize || requested);
    assert!(total[0] > 0 && total[3] > 0, "{summary}");
    assert_eq!(total[4] + total[5], 0);
    // The sequences reach Continuous-Time Mode and integrate there.
    for function in [
        "fmi3SetContinuousStates",
        "fmi3CompletedIntegratorStep",
        "fmi3UpdateDiscreteStates",
    ] {
        let ok = histogram.0.get(function).map_or(0, |row| row[0]);
        assert!(
            ok > sequences / 4,
            "only {ok} successful {function}:\n{summary}"
        );
    }
    // The Co-Simulation calls were made, and every one refused.
    for function in ["fmi3DoStep", "fmi3EnterStepMode"] {
        let row = histogram.0.get(function).copied().unwrap_or_default();
        assert!(
            row[3] > 0 && row[0] + row[1] == 0,
            "{function}: {row:?}\n{summary}"
        );
    }
    // FMU states are provided for Model Exchange: taken (and set back) in most phases.
    let row = histogram
        .0
        .get("fmi3GetFMUState")
        .copied()
        .unwrap_or_default();
    assert!(row[0] > 0, "fmi3GetFMUState: {row:?}\n{summary}");
}
