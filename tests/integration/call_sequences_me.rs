//! Random FMI 2.0 call sequences against Model Exchange instances: at least
//! 10,000 sequences of up to 80 calls, over the `me` builds of sign_spiral and
//! rlc_diode and the `cs,me` builds of saturated_integrator (an input) and
//! relay_feedback, with the generators of [`super::call_sequences`]. The calls
//! are the 10 of Model Exchange and the common ones, in any state, with legal
//! and illegal arguments: NaN, infinite and extreme states and times, time
//! going backwards, arrays of the wrong size or NULL, unknown value
//! references, and the Co-Simulation functions on a Model Exchange instance
//! where the binary exports them.
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

use super::call_sequences::{env_or, random_vrs, Histogram, Rng, NUMBERS};
use super::fmus::{self, Callbacks, Instantiation, Raw, ERROR, MODEL_EXCHANGE, OK, WARNING};
use super::log_capture;
use super::me_check::me_fmu;
use fmi::fmi2::binding::fmi2EventInfo;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::Causality;
use fmi::traits::FmiImport;
use std::ptr::{null, null_mut};
use std::time::Instant;

const DEFAULT_SEED: u64 = 0x1c5f_2026_0004_00e1;
const DEFAULT_SEQUENCES: usize = 10_000;
const MAX_CALLS: u64 = 80;
/// Room in every buffer: wrong sizes (one too many) stay inside it.
const ROOM: usize = 16;

/// One Model Exchange FMU under test.
struct Target {
    name: String,
    import: Fmi2Import,
    count: u32,
    nx: usize,
    nz: usize,
    states: Vec<u32>,
    derivatives: Vec<u32>,
    inputs: Vec<u32>,
    /// The binary exports the Co-Simulation functions (`cs,me`).
    cs: bool,
}

fn target(stem: &str, cs: bool) -> Target {
    let import = fmus::import(&me_fmu(stem, cs));
    let md = import.model_description();
    let derivatives: Vec<(u32, String)> = md
        .model_variables
        .variables
        .iter()
        .filter(|v| v.name.starts_with("der("))
        .map(|v| (v.value_reference, v.name[4..v.name.len() - 1].to_string()))
        .collect();
    let states = derivatives.iter().map(|(_, x)| fmus::vr(&import, x));
    Target {
        name: format!("{stem}{}", if cs { " (cs,me)" } else { "" }),
        count: fmus::variable_count(&import),
        nx: md.num_states(),
        nz: md.num_event_indicators(),
        states: states.collect(),
        derivatives: derivatives.iter().map(|(vr, _)| *vr).collect(),
        inputs: fmus::vrs_of(&import, Causality::Input),
        cs,
        import,
    }
}

/// What an importer can read of an instance, with the statuses: equal
/// observations before and after a call show that it changed nothing.
#[derive(Clone, Debug, PartialEq)]
struct Observation {
    statuses: [u32; 4],
    bits: Vec<u64>,
}

impl Observation {
    fn x(&self, t: &Target) -> Vec<f64> {
        self.bits[..t.nx]
            .iter()
            .map(|b| f64::from_bits(*b))
            .collect()
    }
    fn dx(&self, t: &Target) -> Vec<f64> {
        let dx = &self.bits[t.nx..2 * t.nx];
        dx.iter().map(|b| f64::from_bits(*b)).collect()
    }
    /// The time, read as the Real of value reference 0 (`time`).
    fn now(&self, t: &Target) -> f64 {
        match self.statuses[3] {
            OK => f64::from_bits(self.bits[2 * t.nx + t.nz]),
            _ => 0.0,
        }
    }
}

fn observe(r: &mut Raw, t: &Target) -> Observation {
    let (mut x, mut dx, mut z) = ([0.0; ROOM], [0.0; ROOM], [0.0; ROOM]);
    let all: Vec<u32> = (0..t.count).collect();
    let (b, c) = (&r.b, r.c);
    // SAFETY: the instance is live; each buffer holds ROOM >= n values.
    let statuses = unsafe {
        [
            b.fmi2GetContinuousStates(c, x.as_mut_ptr(), t.nx),
            b.fmi2GetDerivatives(c, dx.as_mut_ptr(), t.nx),
            b.fmi2GetEventIndicators(c, z.as_mut_ptr(), t.nz),
            0,
        ]
    };
    let (real_status, reals) = r.get(&all);
    let mut statuses = statuses;
    statuses[3] = real_status;
    let values = x[..t.nx].iter().chain(&dx[..t.nx]).chain(&z[..t.nz]);
    let bits = values.chain(&reals).map(|v| v.to_bits()).collect();
    Observation { statuses, bits }
}

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

/// A zeroed `fmi2EventInfo` for the FMU to fill.
fn event_info() -> fmi2EventInfo {
    fmi2EventInfo {
        newDiscreteStatesNeeded: 0,
        terminateSimulation: 0,
        nominalsOfContinuousStatesChanged: 0,
        valuesOfContinuousStatesChanged: 0,
        nextEventTimeDefined: 0,
        nextEventTime: 0.0,
    }
}

/// A count: mostly right, sometimes one off or zero.
fn count(rng: &mut Rng, n: usize) -> usize {
    match rng.below(10) {
        0 => n + 1,
        1 => n.saturating_sub(1),
        2 => 0,
        _ => n,
    }
}

/// Makes one random call; returns the function's name and the status.
fn random_call(rng: &mut Rng, t: &Target, r: &mut Raw, o: &Observation) -> (&'static str, u32) {
    let mut buf = [0.0f64; ROOM];
    let mut info = event_info();
    let null_array = rng.chance(8);
    let out = if null_array {
        null_mut()
    } else {
        buf.as_mut_ptr()
    };
    // SAFETY (all calls): the instance is live; a non-NULL array holds ROOM
    // values, more than any count passed (at most n + 1 <= ROOM).
    unsafe {
        let (b, c) = (&r.b, r.c);
        match rng.below(100) {
            0..=3 => ("fmi2SetupExperiment", r.setup(rng.pick(&NUMBERS), None)),
            4..=6 => ("fmi2EnterInitializationMode", r.enter()),
            7..=9 => ("fmi2ExitInitializationMode", r.exit()),
            10..=11 => ("fmi2Terminate", r.terminate()),
            12..=13 => ("fmi2Reset", r.reset()),
            14..=21 => {
                let now = o.now(t);
                let time = match rng.below(5) {
                    0 => rng.pick(&NUMBERS),
                    1 => now - rng.pick(&[1e-3, 1.0, 1e300]), // backwards
                    _ => now + rng.pick(&[0.0, 1e-3, 0.1]),
                };
                ("fmi2SetTime", b.fmi2SetTime(c, time))
            }
            22..=33 => {
                let mut x = o.x(t);
                x.resize(ROOM, 0.0);
                for v in x.iter_mut() {
                    if rng.chance(15) {
                        *v = rng.pick(&NUMBERS);
                    } else {
                        *v += rng.pick(&[0.0, 1e-3, -0.1]);
                    }
                }
                let p = if null_array { null() } else { x.as_ptr() };
                let n = count(rng, t.nx);
                (
                    "fmi2SetContinuousStates",
                    b.fmi2SetContinuousStates(c, p, n),
                )
            }
            34..=39 => {
                let n = count(rng, t.nx);
                (
                    "fmi2GetContinuousStates",
                    b.fmi2GetContinuousStates(c, out, n),
                )
            }
            40..=47 => {
                let n = count(rng, t.nx);
                ("fmi2GetDerivatives", b.fmi2GetDerivatives(c, out, n))
            }
            48..=53 => {
                let n = count(rng, t.nz);
                (
                    "fmi2GetEventIndicators",
                    b.fmi2GetEventIndicators(c, out, n),
                )
            }
            54..=55 => {
                let n = count(rng, t.nx);
                let s = b.fmi2GetNominalsOfContinuousStates(c, out, n);
                ("fmi2GetNominalsOfContinuousStates", s)
            }
            56..=60 => ("fmi2EnterEventMode", b.fmi2EnterEventMode(c)),
            61..=66 => {
                let p = if null_array {
                    null_mut()
                } else {
                    &mut info as *mut _
                };
                ("fmi2NewDiscreteStates", b.fmi2NewDiscreteStates(c, p))
            }
            67..=70 => (
                "fmi2EnterContinuousTimeMode",
                b.fmi2EnterContinuousTimeMode(c),
            ),
            71..=75 => {
                let (mut enter, mut stop) = (0, 0);
                let (pe, ps) = match rng.below(8) {
                    0 => (null_mut(), &mut stop as *mut _),
                    1 => (&mut enter as *mut _, null_mut()),
                    _ => (&mut enter as *mut _, &mut stop as *mut _),
                };
                let s = b.fmi2CompletedIntegratorStep(c, rng.below(2) as i32, pe, ps);
                ("fmi2CompletedIntegratorStep", s)
            }
            76..=80 => {
                let unknowns = if rng.chance(80) {
                    t.derivatives.clone()
                } else {
                    random_vrs(rng, t.count)
                };
                let mut knowns = match rng.below(4) {
                    0 => random_vrs(rng, t.count),
                    1 => t.inputs.clone(),
                    _ => t.states.clone(),
                };
                knowns.truncate(ROOM);
                let seed: Vec<f64> = (0..ROOM).map(|_| rng.pick(&NUMBERS)).collect();
                let seed_p = if rng.chance(8) { null() } else { seed.as_ptr() };
                let s = b.fmi2GetDirectionalDerivative(
                    c,
                    unknowns.as_ptr(),
                    unknowns.len(),
                    knowns.as_ptr(),
                    knowns.len(),
                    seed_p,
                    out,
                );
                ("fmi2GetDirectionalDerivative", s)
            }
            81..=85 => {
                let vrs = random_vrs(rng, t.count);
                match rng.below(3) {
                    0 => (
                        "fmi2GetReal",
                        b.fmi2GetReal(c, vrs.as_ptr(), vrs.len(), out),
                    ),
                    _ => {
                        let values: Vec<f64> = vrs.iter().map(|_| rng.pick(&NUMBERS)).collect();
                        ("fmi2SetReal", r.set(&vrs, &values))
                    }
                }
            }
            86..=87 => {
                let mut state = null_mut();
                ("fmi2GetFMUstate", r.get_state(&mut state))
            }
            88..=93 if t.cs => match rng.below(4) {
                0 => ("fmi2DoStep", r.step(o.now(t), rng.pick(&[0.01, 0.1]))),
                1 => ("fmi2CancelStep", b.fmi2CancelStep(c)),
                2 => {
                    let mut v = 0.0;
                    ("fmi2GetRealStatus", b.fmi2GetRealStatus(c, 2, &mut v))
                }
                _ => (
                    "fmi2SetRealInputDerivatives",
                    b.fmi2SetRealInputDerivatives(c, null(), 0, null(), null()),
                ),
            },
            _ => {
                let on = rng.below(2) as i32;
                (
                    "fmi2SetDebugLogging",
                    b.fmi2SetDebugLogging(c, on, 0, null()),
                )
            }
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
