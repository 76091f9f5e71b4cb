//! The FMI 3.0 Model Exchange side of [`super::call_sequences3_me`]: the FMUs
//! under test with what the generator needs to know of them ([`Target3`]),
//! an instance driven through the raw bindings ([`Instance3Me`]), what an
//! importer can read of it ([`observe`]), and one random call with legal or
//! illegal arguments ([`random_call`]): the Model Exchange functions and the
//! common ones, NaN, infinite and extreme states and times, time going
//! backwards, wrong sizes and counts (`nValues`, `nSeed`, `nSensitivity`),
//! NULL arrays and out-parameters, unknown value references, and the
//! Co-Simulation and FMU-state functions on a Model Exchange instance.

use super::call_sequences::{random_vrs, Rng, NUMBERS};
use super::call_sequences3::{log_message, Log};
use super::me3_check::me3_fmu;
use fmi::fmi3::binding::{fmi3Instance, fmi3Status, Fmi3Binding};
use fmi::fmi3::import::Fmi3Import;
use fmi::traits::FmiImport;
use lcsfmu::fmi2::variables::{kinds_with_indicators, Kind};
use lcsfmu::model::validate;
use std::ffi::{c_void, CString};
use std::path::Path;
use std::ptr::{null, null_mut};

/// Room in every buffer: wrong sizes (one too many) stay inside it.
pub const ROOM: usize = 16;

/// One FMI 3.0 Model Exchange FMU under test.
pub struct Target3 {
    pub name: String,
    _import: Fmi3Import,
    pub b: Fmi3Binding,
    token: CString,
    resources: CString,
    /// Number of variables: value references `0..count` (0 is `time`).
    pub count: u32,
    pub states: Vec<u32>,
    pub derivatives: Vec<u32>,
    pub indicators: Vec<u32>,
    pub inputs: Vec<u32>,
    /// Built with Co-Simulation too (`cs,me`).
    pub cs: bool,
}

impl Target3 {
    pub fn nx(&self) -> usize {
        self.states.len()
    }
    pub fn nz(&self) -> usize {
        self.indicators.len()
    }
}

/// The value references come from the table the FMU's description is
/// written from; `me3_check` holds the description to the binary.
pub fn target3(stem: &str, cs: bool) -> Target3 {
    let path = me3_fmu(stem, cs);
    let import: Fmi3Import =
        fmi::import::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let b = import.binding(stem).expect("the FMU's library loads");
    let token = CString::new(import.model_description().instantiation_token.clone()).unwrap();
    let resources = CString::new(import.canonical_resource_path_string()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = validate::load(&root.join(format!("models/{stem}.toml"))).unwrap();
    let kinds = kinds_with_indicators(&model);
    let vr_of = |want: &dyn Fn(Kind) -> bool| -> Vec<u32> {
        (0..kinds.len() as u32)
            .filter(|&vr| want(kinds[vr as usize]))
            .collect()
    };
    let nx = model.nx();
    let state_vr = |i: usize| vr_of(&|k| k == Kind::State(i))[0];
    let derivative_vr = |i: usize| vr_of(&|k| k == Kind::Derivative(i))[0];
    Target3 {
        name: format!("{stem}{}", if cs { " (cs,me)" } else { "" }),
        count: kinds.len() as u32,
        states: (0..nx).map(state_vr).collect(),
        derivatives: (0..nx).map(derivative_vr).collect(),
        indicators: vr_of(&|k| matches!(k, Kind::Indicator(_))),
        inputs: vr_of(&|k| matches!(k, Kind::Input(_))),
        cs,
        _import: import,
        b,
        token,
        resources,
    }
}

/// How an instance is made: mostly standard, sometimes refused.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub logger: bool,
    pub logging_on: bool,
    pub wrong_token: bool,
    pub null_resources: bool,
}

/// One Model Exchange instance driven through the raw bindings; freed on drop.
pub struct Instance3Me<'t> {
    pub t: &'t Target3,
    pub c: fmi3Instance,
    log: Box<Log>,
}

impl<'t> Instance3Me<'t> {
    pub fn new(t: &'t Target3, o: Options) -> Option<Instance3Me<'t>> {
        let log: Box<Log> = Box::default();
        let wrong = CString::new("{not-this-model}").unwrap();
        let token = if o.wrong_token { &wrong } else { &t.token };
        let resources = match o.null_resources {
            true => null(),
            false => t.resources.as_ptr(),
        };
        // SAFETY: every pointer is NULL or valid for the call; the log lives
        // in a box the instance outlives only after fmi3FreeInstance.
        let c = unsafe {
            t.b.fmi3InstantiateModelExchange(
                c"sequences3-me".as_ptr(),
                token.as_ptr(),
                resources,
                false,
                o.logging_on,
                &*log as *const Log as *mut c_void,
                o.logger.then_some(log_message as _),
            )
        };
        (!c.is_null()).then_some(Instance3Me { t, c, log })
    }

    pub fn logged(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Drop for Instance3Me<'_> {
    fn drop(&mut self) {
        // SAFETY: the instance is live and freed exactly once.
        unsafe { self.t.b.fmi3FreeInstance(self.c) }
    }
}

/// What an importer can read of an instance, with the statuses: equal
/// observations before and after a call show that it changed nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    pub statuses: [fmi3Status; 4],
    pub bits: Vec<u64>,
}

impl Observation {
    fn values(&self, from: usize, n: usize) -> Vec<f64> {
        let bits = &self.bits[from..from + n];
        bits.iter().map(|b| f64::from_bits(*b)).collect()
    }
    pub fn x(&self, t: &Target3) -> Vec<f64> {
        self.values(0, t.nx())
    }
    pub fn dx(&self, t: &Target3) -> Vec<f64> {
        self.values(t.nx(), t.nx())
    }
    /// The time, read as the Float64 of value reference 0 (`time`).
    pub fn now(&self, t: &Target3) -> f64 {
        match self.statuses[3] {
            0 => f64::from_bits(self.bits[2 * t.nx() + t.nz()]),
            _ => 0.0,
        }
    }
}

/// States, derivatives, indicators and every Float64, with their statuses.
pub fn observe(r: &Instance3Me) -> Observation {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let (mut x, mut dx, mut z) = ([0.0; ROOM], [0.0; ROOM], [0.0; ROOM]);
    let all: Vec<u32> = (0..t.count).collect();
    let mut reals = vec![0.0; all.len()];
    // SAFETY: the instance is live; each buffer holds at least n values.
    let statuses = unsafe {
        [
            b.fmi3GetContinuousStates(c, x.as_mut_ptr(), t.nx()),
            b.fmi3GetContinuousStateDerivatives(c, dx.as_mut_ptr(), t.nx()),
            b.fmi3GetEventIndicators(c, z.as_mut_ptr(), t.nz()),
            b.fmi3GetFloat64(c, all.as_ptr(), all.len(), reals.as_mut_ptr(), reals.len()),
        ]
    };
    let values = x[..t.nx()].iter().chain(&dx[..t.nx()]).chain(&z[..t.nz()]);
    let bits = values.chain(&reals).map(|v| v.to_bits()).collect();
    Observation { statuses, bits }
}

/// `fmi3UpdateDiscreteStates`, one out-parameter NULL when asked.
pub fn update(r: &Instance3Me, null_out: Option<usize>) -> fmi3Status {
    let mut flags = [false; 5];
    let mut next = 0.0;
    let mut p: Vec<*mut bool> = flags.iter_mut().map(|f| f as *mut bool).collect();
    let mut pn: *mut f64 = &mut next;
    match null_out {
        Some(5) => pn = null_mut(),
        Some(k) => p[k] = null_mut(),
        None => {}
    }
    // SAFETY: the out-parameters are NULL or point to locals.
    unsafe {
        r.t.b
            .fmi3UpdateDiscreteStates(r.c, p[0], p[1], p[2], p[3], p[4], pn)
    }
}

/// `fmi3CompletedIntegratorStep`, one out-parameter NULL when asked.
pub fn completed(r: &Instance3Me, null_out: Option<usize>) -> fmi3Status {
    let (mut enter, mut stop) = (false, false);
    let pe = if null_out == Some(0) {
        null_mut()
    } else {
        &mut enter as *mut bool
    };
    let ps = if null_out == Some(1) {
        null_mut()
    } else {
        &mut stop as *mut bool
    };
    // SAFETY: the out-parameters are NULL or point to locals.
    unsafe { r.t.b.fmi3CompletedIntegratorStep(r.c, true, pe, ps) }
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
pub fn random_call(rng: &mut Rng, r: &Instance3Me, o: &Observation) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let mut buf = [0.0f64; ROOM];
    let null_array = rng.chance(8);
    let out = if null_array {
        null_mut()
    } else {
        buf.as_mut_ptr()
    };
    let (nx, nz) = (t.nx(), t.nz());
    // SAFETY (all calls): the instance is live; a non-NULL array holds ROOM
    // values, more than any count passed (at most n + 1 <= ROOM).
    unsafe {
        match rng.below(100) {
            0..=3 => {
                let start = match rng.chance(80) {
                    true => 0.0,
                    false => rng.pick(&NUMBERS),
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
            4..=6 => (
                "fmi3ExitInitializationMode",
                b.fmi3ExitInitializationMode(c),
            ),
            7..=8 => ("fmi3Terminate", b.fmi3Terminate(c)),
            9..=10 => ("fmi3Reset", b.fmi3Reset(c)),
            11..=18 => {
                let now = o.now(t);
                let time = match rng.below(5) {
                    0 => rng.pick(&NUMBERS),
                    1 => now - rng.pick(&[1e-3, 1.0, 1e300]), // backwards
                    _ => now + rng.pick(&[0.0, 1e-3, 0.1]),
                };
                ("fmi3SetTime", b.fmi3SetTime(c, time))
            }
            19..=30 => {
                let mut x = o.x(t);
                x.resize(ROOM, 0.0);
                for v in x.iter_mut() {
                    match rng.chance(15) {
                        true => *v = rng.pick(&NUMBERS),
                        false => *v += rng.pick(&[0.0, 1e-3, -0.1]),
                    }
                }
                let p = if null_array { null() } else { x.as_ptr() };
                let n = count(rng, nx);
                (
                    "fmi3SetContinuousStates",
                    b.fmi3SetContinuousStates(c, p, n),
                )
            }
            31..=35 => {
                let n = count(rng, nx);
                (
                    "fmi3GetContinuousStates",
                    b.fmi3GetContinuousStates(c, out, n),
                )
            }
            36..=42 => {
                let n = count(rng, nx);
                let s = b.fmi3GetContinuousStateDerivatives(c, out, n);
                ("fmi3GetContinuousStateDerivatives", s)
            }
            43..=48 => {
                let n = count(rng, nz);
                (
                    "fmi3GetEventIndicators",
                    b.fmi3GetEventIndicators(c, out, n),
                )
            }
            49..=50 => {
                let n = count(rng, nx);
                let s = b.fmi3GetNominalsOfContinuousStates(c, out, n);
                ("fmi3GetNominalsOfContinuousStates", s)
            }
            51..=52 => {
                let mut n = 0usize;
                let p = if rng.chance(20) {
                    null_mut()
                } else {
                    &mut n as *mut usize
                };
                match rng.below(2) {
                    0 => (
                        "fmi3GetNumberOfContinuousStates",
                        b.fmi3GetNumberOfContinuousStates(c, p),
                    ),
                    _ => (
                        "fmi3GetNumberOfEventIndicators",
                        b.fmi3GetNumberOfEventIndicators(c, p),
                    ),
                }
            }
            53..=57 => ("fmi3EnterEventMode", b.fmi3EnterEventMode(c)),
            58..=63 => {
                let null_out = rng.chance(10).then(|| rng.below(6) as usize);
                ("fmi3UpdateDiscreteStates", update(r, null_out))
            }
            64..=67 => (
                "fmi3EnterContinuousTimeMode",
                b.fmi3EnterContinuousTimeMode(c),
            ),
            68..=72 => {
                let null_out = rng.chance(12).then(|| rng.below(2) as usize);
                ("fmi3CompletedIntegratorStep", completed(r, null_out))
            }
            73..=78 => derivative(rng, r, out),
            79..=84 => {
                let vrs = random_vrs(rng, t.count);
                // FMI 3.0 passes nValues apart: sometimes it does not match.
                let n = if rng.chance(15) {
                    vrs.len() + 1
                } else {
                    vrs.len()
                };
                match rng.below(3) {
                    0 => (
                        "fmi3GetFloat64",
                        b.fmi3GetFloat64(c, vrs.as_ptr(), vrs.len(), out, n),
                    ),
                    _ => {
                        let values: Vec<f64> = (0..ROOM).map(|_| rng.pick(&NUMBERS)).collect();
                        let p = if null_array { null() } else { values.as_ptr() };
                        (
                            "fmi3SetFloat64",
                            b.fmi3SetFloat64(c, vrs.as_ptr(), vrs.len(), p, n),
                        )
                    }
                }
            }
            85..=91 => co_simulation_call(rng, r, o),
            _ => {
                let on = rng.chance(50);
                (
                    "fmi3SetDebugLogging",
                    b.fmi3SetDebugLogging(c, on, 0, null()),
                )
            }
        }
    }
}

/// A directional or adjoint derivative: mostly the derivatives by the
/// states, sometimes random value references, NULL arrays or counts of
/// seeds and sensitivities that do not match.
unsafe fn derivative(rng: &mut Rng, r: &Instance3Me, out: *mut f64) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let unknowns = match rng.chance(80) {
        true => t.derivatives.clone(),
        false => random_vrs(rng, t.count),
    };
    let mut knowns = match rng.below(4) {
        0 => random_vrs(rng, t.count),
        1 => t.inputs.clone(),
        _ => t.states.clone(),
    };
    knowns.truncate(ROOM - 1);
    let seed: Vec<f64> = (0..ROOM).map(|_| rng.pick(&NUMBERS)).collect();
    let seed_p = if rng.chance(8) { null() } else { seed.as_ptr() };
    let adjoint = rng.chance(40);
    // Directional: a seed per known, a sensitivity per unknown; adjoint: the other way.
    let (seeds, outs) = match adjoint {
        true => (unknowns.len(), knowns.len()),
        false => (knowns.len(), unknowns.len()),
    };
    let (n_seed, n_out) = match rng.below(10) {
        0 => (seeds + 1, outs),
        1 => (seeds, outs.saturating_sub(1)),
        _ => (seeds, outs),
    };
    let (u, k) = (unknowns.as_ptr(), knowns.as_ptr());
    let (nu, nk) = (unknowns.len(), knowns.len());
    match adjoint {
        true => (
            "fmi3GetAdjointDerivative",
            b.fmi3GetAdjointDerivative(c, u, nu, k, nk, seed_p, n_seed, out, n_out),
        ),
        false => (
            "fmi3GetDirectionalDerivative",
            b.fmi3GetDirectionalDerivative(c, u, nu, k, nk, seed_p, n_seed, out, n_out),
        ),
    }
}

/// A call of Co-Simulation or of FMU states on the Model Exchange instance:
/// each must be refused.
unsafe fn co_simulation_call(
    rng: &mut Rng,
    r: &Instance3Me,
    o: &Observation,
) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    let mut reals = [0.0f64; 2];
    match rng.below(5) {
        0 | 1 => (
            "fmi3DoStep",
            b.fmi3DoStep(
                c,
                o.now(t),
                rng.pick(&[0.01, 0.1]),
                true,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            ),
        ),
        2 => ("fmi3EnterStepMode", b.fmi3EnterStepMode(c)),
        3 => {
            let (vrs, orders) = ([1u32], [1i32]);
            let s = b.fmi3GetOutputDerivatives(
                c,
                vrs.as_ptr(),
                1,
                orders.as_ptr(),
                reals.as_mut_ptr(),
                1,
            );
            ("fmi3GetOutputDerivatives", s)
        }
        _ => {
            let mut state = null_mut();
            ("fmi3GetFMUState", b.fmi3GetFMUState(c, &mut state))
        }
    }
}
