//! The FMI 3.0 Model Exchange FMUs of [`super::call_sequences3_me`] with
//! what the generator needs to know of them ([`Target3`]), an instance driven
//! through the raw bindings ([`Instance3Me`]), what an importer can read of it
//! ([`observe`]), and the two calls with out-flags the sequences make both
//! legally and with a NULL out-parameter ([`update`], [`completed`]).

use super::call_sequences3::{log_message, Log};
use super::me3_check::me3_fmu;
use fmi::fmi3::binding::{fmi3Instance, fmi3Status, Fmi3Binding};
use fmi::fmi3::import::Fmi3Import;
use fmi::traits::FmiImport;
use lcsfmu::instance::variables::{kinds_with_indicators, Kind};
use lcsfmu::model::validate;
use std::ffi::{c_void, CString};
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
    let model = validate::load(&super::model_path(stem)).unwrap();
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
