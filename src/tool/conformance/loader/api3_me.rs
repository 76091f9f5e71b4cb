//! The C side of the loader for FMI 3.0 Model Exchange: the signatures of the
//! functions the Model Exchange cycle calls (fmi3FunctionTypes.h), looked up
//! by name, and the calls of [`Exchange`] made with them.
//!
//! What FMI 3.0 adds to the cycle FMI 2.0 runs ([`super::api_me`]): the
//! experiment travels with `fmi3EnterInitializationMode`, the six flags of an
//! event update are out-parameters, the derivative functions take `nSeed`
//! and `nSensitivity`, the numbers of states and event indicators are calls
//! (checked against the description), and adjoint
//! derivatives exist. `fmi3DoStep` and `fmi3GetAdjointDerivative` are looked
//! up but not required: every FMI 3.0 binary should export every function
//! (§2.5), but a binary without one is still run; the step, when exported,
//! must refuse a Model Exchange instance.

use super::api::{all_exported, get};
use super::api3::{logger, status_name, Logger};
use super::cycle::{Instance, Status};
use super::exchange::{EventUpdate, Exchange, ExchangeNames};
use super::{announce, Spec};
use libloading::os::unix::Library;
use std::ffi::{c_char, c_void, CString};

type Values = unsafe extern "C" fn(Instance, *mut f64, usize) -> Status;
type Count = unsafe extern "C" fn(Instance, *mut usize) -> Status;
type Derivative = unsafe extern "C" fn(
    Instance,
    *const u32,
    usize,
    *const u32,
    usize,
    *const f64,
    usize,
    *mut f64,
    usize,
) -> Status;
type Step = unsafe extern "C" fn(
    Instance,
    f64,
    f64,
    bool,
    *mut bool,
    *mut bool,
    *mut bool,
    *mut f64,
) -> Status;

/// The FMI 3.0 functions of the Model Exchange cycle, resolved by name.
pub struct Api3Me {
    #[allow(clippy::type_complexity)]
    instantiate: unsafe extern "C" fn(
        *const c_char,
        *const c_char,
        *const c_char,
        bool,
        bool,
        *mut c_void,
        Option<Logger>,
    ) -> Instance,
    free_instance: unsafe extern "C" fn(Instance),
    enter: unsafe extern "C" fn(Instance, bool, f64, f64, bool, f64) -> Status,
    exit: unsafe extern "C" fn(Instance) -> Status,
    terminate: unsafe extern "C" fn(Instance) -> Status,
    reset: unsafe extern "C" fn(Instance) -> Status,
    get_float64: unsafe extern "C" fn(Instance, *const u32, usize, *mut f64, usize) -> Status,
    set_float64: unsafe extern "C" fn(Instance, *const u32, usize, *const f64, usize) -> Status,
    enter_event_mode: unsafe extern "C" fn(Instance) -> Status,
    #[allow(clippy::type_complexity)]
    update: unsafe extern "C" fn(
        Instance,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut f64,
    ) -> Status,
    enter_continuous: unsafe extern "C" fn(Instance) -> Status,
    completed: unsafe extern "C" fn(Instance, bool, *mut bool, *mut bool) -> Status,
    set_time: unsafe extern "C" fn(Instance, f64) -> Status,
    set_states: unsafe extern "C" fn(Instance, *const f64, usize) -> Status,
    get_states: Values,
    derivatives: Values,
    indicators: Values,
    nominals: Values,
    number_of_states: Count,
    number_of_indicators: Count,
    directional: Derivative,
    adjoint: Option<Derivative>,
    do_step: Option<Step>,
}

/// The functions [`Api3Me`] requires, by their exported names.
const REQUIRED: [&str; 21] = [
    "fmi3InstantiateModelExchange",
    "fmi3FreeInstance",
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3Terminate",
    "fmi3Reset",
    "fmi3GetFloat64",
    "fmi3SetFloat64",
    "fmi3EnterEventMode",
    "fmi3UpdateDiscreteStates",
    "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep",
    "fmi3SetTime",
    "fmi3SetContinuousStates",
    "fmi3GetContinuousStates",
    "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators",
    "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfContinuousStates",
    "fmi3GetNumberOfEventIndicators",
    "fmi3GetDirectionalDerivative",
];

const NAMES3_ME: ExchangeNames = ExchangeNames {
    reset: "fmi3Reset",
    terminate: "fmi3Terminate",
    free_instance: "fmi3FreeInstance",
    get_reals: "fmi3GetFloat64",
    set_reals: "fmi3SetFloat64",
    enter_event_mode: "fmi3EnterEventMode",
    update: "fmi3UpdateDiscreteStates",
    enter_continuous: "fmi3EnterContinuousTimeMode",
    completed: "fmi3CompletedIntegratorStep",
    set_time: "fmi3SetTime",
    set_states: "fmi3SetContinuousStates",
    get_states: "fmi3GetContinuousStates",
    derivatives: "fmi3GetContinuousStateDerivatives",
    indicators: "fmi3GetEventIndicators",
    nominals: "fmi3GetNominalsOfContinuousStates",
    directional: "fmi3GetDirectionalDerivative",
    adjoint: "fmi3GetAdjointDerivative",
    number_of_states: "fmi3GetNumberOfContinuousStates",
    number_of_indicators: "fmi3GetNumberOfEventIndicators",
    do_step: "fmi3DoStep",
};

impl Api3Me {
    /// Every required function, or the names of all the missing ones.
    pub fn resolve(lib: &Library) -> Result<Api3Me, String> {
        all_exported(lib, &REQUIRED)?;
        // SAFETY: each field's type is the FMI 3.0 signature of the name it is
        // looked up by.
        unsafe {
            Ok(Api3Me {
                instantiate: get(lib, "fmi3InstantiateModelExchange")?,
                free_instance: get(lib, "fmi3FreeInstance")?,
                enter: get(lib, "fmi3EnterInitializationMode")?,
                exit: get(lib, "fmi3ExitInitializationMode")?,
                terminate: get(lib, "fmi3Terminate")?,
                reset: get(lib, "fmi3Reset")?,
                get_float64: get(lib, "fmi3GetFloat64")?,
                set_float64: get(lib, "fmi3SetFloat64")?,
                enter_event_mode: get(lib, "fmi3EnterEventMode")?,
                update: get(lib, "fmi3UpdateDiscreteStates")?,
                enter_continuous: get(lib, "fmi3EnterContinuousTimeMode")?,
                completed: get(lib, "fmi3CompletedIntegratorStep")?,
                set_time: get(lib, "fmi3SetTime")?,
                set_states: get(lib, "fmi3SetContinuousStates")?,
                get_states: get(lib, "fmi3GetContinuousStates")?,
                derivatives: get(lib, "fmi3GetContinuousStateDerivatives")?,
                indicators: get(lib, "fmi3GetEventIndicators")?,
                nominals: get(lib, "fmi3GetNominalsOfContinuousStates")?,
                number_of_states: get(lib, "fmi3GetNumberOfContinuousStates")?,
                number_of_indicators: get(lib, "fmi3GetNumberOfEventIndicators")?,
                directional: get(lib, "fmi3GetDirectionalDerivative")?,
                adjoint: get(lib, "fmi3GetAdjointDerivative").ok(),
                do_step: get(lib, "fmi3DoStep").ok(),
            })
        }
    }
}

/// A directional or adjoint derivative call: one sensitivity per unknown
/// (directional) or known (adjoint), one seed per the other, all scalars.
unsafe fn derivative(
    f: Derivative,
    c: Instance,
    unknowns: &[u32],
    knowns: &[u32],
    seed: &[f64],
    out: &mut [f64],
) -> Status {
    f(
        c,
        unknowns.as_ptr(),
        unknowns.len(),
        knowns.as_ptr(),
        knowns.len(),
        seed.as_ptr(),
        seed.len(),
        out.as_mut_ptr(),
        out.len(),
    )
}

impl Exchange for Api3Me {
    fn names(&self) -> &'static ExchangeNames {
        &NAMES3_ME
    }

    fn status_name(&self, s: Status) -> String {
        status_name(s)
    }

    unsafe fn instantiate(&self, spec: &Spec) -> Result<Instance, String> {
        let cstr =
            |s: &str, what: &str| CString::new(s).map_err(|_| format!("{what} contains NUL"));
        let (name, token) = (cstr("lcsfmu check", "name")?, cstr(&spec.guid, "token")?);
        let resources = cstr(&spec.resources, "resource path")?;
        announce("fmi3InstantiateModelExchange");
        let c = (self.instantiate)(
            name.as_ptr(),
            token.as_ptr(),
            resources.as_ptr(),
            false,
            false,
            std::ptr::null_mut(),
            Some(logger),
        );
        if c.is_null() {
            return Err("fmi3InstantiateModelExchange returned NULL".into());
        }
        Ok(c)
    }

    unsafe fn initialize(&self, c: Instance, spec: &Spec, stop: f64) -> Result<(), String> {
        let ok = |status: Status, what: &str| match status {
            0 | 1 => Ok(()),
            s => Err(format!("{what} returned {}", status_name(s))),
        };
        announce("fmi3EnterInitializationMode");
        // No tolerance, as FMI 2.0's run: the FMU's default.
        let status = (self.enter)(c, false, 0.0, spec.start, true, stop);
        ok(status, "fmi3EnterInitializationMode")?;
        announce("fmi3ExitInitializationMode");
        ok((self.exit)(c), "fmi3ExitInitializationMode")
    }

    unsafe fn reset(&self, c: Instance) -> Status {
        (self.reset)(c)
    }

    unsafe fn terminate(&self, c: Instance) -> Status {
        (self.terminate)(c)
    }

    unsafe fn free_instance(&self, c: Instance) {
        (self.free_instance)(c)
    }

    unsafe fn get_reals(&self, c: Instance, vrs: &[u32], values: &mut [f64]) -> Status {
        let n = values.len();
        (self.get_float64)(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr(), n)
    }

    unsafe fn set_reals(&self, c: Instance, vrs: &[u32], values: &[f64]) -> Status {
        let n = values.len();
        (self.set_float64)(c, vrs.as_ptr(), vrs.len(), values.as_ptr(), n)
    }

    unsafe fn enter_event_mode(&self, c: Instance) -> Status {
        (self.enter_event_mode)(c)
    }

    unsafe fn update(&self, c: Instance, update: &mut EventUpdate) -> Status {
        let [mut needed, mut terminate, mut nominals, mut values, mut defined] = [false; 5];
        let mut next = 0.0;
        let status = (self.update)(
            c,
            &mut needed,
            &mut terminate,
            &mut nominals,
            &mut values,
            &mut defined,
            &mut next,
        );
        *update = EventUpdate {
            needed,
            terminate,
            values_changed: values,
            next_time: defined.then_some(next),
        };
        status
    }

    unsafe fn enter_continuous(&self, c: Instance) -> Status {
        (self.enter_continuous)(c)
    }

    unsafe fn completed(&self, c: Instance) -> (Status, bool, bool) {
        let (mut enter, mut terminate) = (false, false);
        let status = (self.completed)(c, true, &mut enter, &mut terminate);
        (status, enter, terminate)
    }

    unsafe fn set_time(&self, c: Instance, t: f64) -> Status {
        (self.set_time)(c, t)
    }

    unsafe fn set_states(&self, c: Instance, x: &[f64]) -> Status {
        (self.set_states)(c, x.as_ptr(), x.len())
    }

    unsafe fn get_states(&self, c: Instance, x: &mut [f64]) -> Status {
        (self.get_states)(c, x.as_mut_ptr(), x.len())
    }

    unsafe fn derivatives(&self, c: Instance, dx: &mut [f64]) -> Status {
        (self.derivatives)(c, dx.as_mut_ptr(), dx.len())
    }

    unsafe fn indicators(&self, c: Instance, z: &mut [f64]) -> Status {
        (self.indicators)(c, z.as_mut_ptr(), z.len())
    }

    unsafe fn nominals(&self, c: Instance, n: &mut [f64]) -> Status {
        (self.nominals)(c, n.as_mut_ptr(), n.len())
    }

    unsafe fn directional(
        &self,
        c: Instance,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        out: &mut [f64],
    ) -> Status {
        derivative(self.directional, c, unknowns, knowns, seed, out)
    }

    unsafe fn adjoint(
        &self,
        c: Instance,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        out: &mut [f64],
    ) -> Option<Status> {
        let f = self.adjoint?;
        Some(derivative(f, c, unknowns, knowns, seed, out))
    }

    fn has_counts(&self) -> bool {
        true
    }

    unsafe fn number_of_states(&self, c: Instance, n: &mut usize) -> Option<Status> {
        Some((self.number_of_states)(c, n))
    }

    unsafe fn number_of_indicators(&self, c: Instance, n: &mut usize) -> Option<Status> {
        Some((self.number_of_indicators)(c, n))
    }

    unsafe fn co_simulation_step(&self, c: Instance, t: f64, h: f64) -> Option<Status> {
        let step = self.do_step?;
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        Some(step(
            c,
            t,
            h,
            true,
            &mut event,
            &mut terminate,
            &mut early,
            &mut last,
        ))
    }
}
