//! The Model Exchange side of [`super::call_sequences_me`]: the FMUs under
//! test with what the generator needs to know of them ([`Target`]), what an
//! importer can read of an instance ([`observe`]), and one random call with
//! legal or illegal arguments ([`random_call`]): the 10 Model Exchange
//! functions and the common ones, NaN, infinite and extreme states and times,
//! time going backwards, wrong sizes, NULL arrays, unknown value references,
//! and the Co-Simulation functions where the binary exports them.

use super::fmus::{self, Raw, OK};
use super::me_check::me_fmu;
use super::sequence_args::{random_vrs, Rng, NUMBERS};
use fmi::fmi2::binding::fmi2EventInfo;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::Causality;
use fmi::traits::FmiImport;
use std::ptr::{null, null_mut};

/// Room in every buffer: wrong sizes (one too many) stay inside it.
pub const ROOM: usize = 16;

/// One Model Exchange FMU under test.
pub struct Target {
    pub name: String,
    pub import: Fmi2Import,
    pub count: u32,
    pub nx: usize,
    pub nz: usize,
    pub states: Vec<u32>,
    pub derivatives: Vec<u32>,
    pub inputs: Vec<u32>,
    /// The binary exports the Co-Simulation functions (`cs,me`).
    pub cs: bool,
}

pub fn target(stem: &str, cs: bool) -> Target {
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
pub struct Observation {
    pub statuses: [u32; 4],
    pub bits: Vec<u64>,
}

impl Observation {
    pub fn x(&self, t: &Target) -> Vec<f64> {
        self.bits[..t.nx]
            .iter()
            .map(|b| f64::from_bits(*b))
            .collect()
    }
    pub fn dx(&self, t: &Target) -> Vec<f64> {
        let dx = &self.bits[t.nx..2 * t.nx];
        dx.iter().map(|b| f64::from_bits(*b)).collect()
    }
    /// The time, read as the Real of value reference 0 (`time`).
    pub fn now(&self, t: &Target) -> f64 {
        match self.statuses[3] {
            OK => f64::from_bits(self.bits[2 * t.nx + t.nz]),
            _ => 0.0,
        }
    }
}

pub fn observe(r: &mut Raw, t: &Target) -> Observation {
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

/// A zeroed `fmi2EventInfo` for the FMU to fill.
pub fn event_info() -> fmi2EventInfo {
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
pub fn random_call(rng: &mut Rng, t: &Target, r: &mut Raw, o: &Observation) -> (&'static str, u32) {
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
