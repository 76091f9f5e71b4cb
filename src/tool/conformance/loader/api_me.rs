//! The C side of the loader for FMI 2.0 Model Exchange: the 10 Model Exchange
//! functions, the common ones the cycle needs beyond [`super::api::Api`]'s
//! (`fmi2Reset`, `fmi2SetReal`, `fmi2GetDirectionalDerivative`), and the calls
//! of the Model Exchange life cycle ([`Exchange`]) made with them. `fmi2DoStep`
//! is looked up but not required: a Model Exchange-only binary has none, a
//! `cs,me` one has it, and it must refuse a Model Exchange instance.

use super::api::{all_exported, get, status_name, Api, MODEL_EXCHANGE};
use super::cycle::{Binary, Instance, Status};
use super::exchange::{EventUpdate, Exchange, ExchangeNames};
use super::Spec;
use libloading::os::unix::Library;
use std::ffi::{c_int, c_uint};

/// `fmi2EventInfo`.
#[repr(C)]
#[derive(Default)]
struct EventInfo {
    new_discrete_states_needed: c_int,
    terminate_simulation: c_int,
    nominals_changed: c_int,
    values_changed: c_int,
    next_event_time_defined: c_int,
    next_event_time: f64,
}

type Reals = unsafe extern "C" fn(Instance, *mut f64, usize) -> Status;

/// The FMI 2.0 functions of the Model Exchange cycle, resolved by name.
pub struct ApiMe {
    common: Api,
    reset: unsafe extern "C" fn(Instance) -> Status,
    set_real: unsafe extern "C" fn(Instance, *const c_uint, usize, *const f64) -> Status,
    #[allow(clippy::type_complexity)]
    directional: unsafe extern "C" fn(
        Instance,
        *const c_uint,
        usize,
        *const c_uint,
        usize,
        *const f64,
        *mut f64,
    ) -> Status,
    enter_event_mode: unsafe extern "C" fn(Instance) -> Status,
    new_discrete_states: unsafe extern "C" fn(Instance, *mut EventInfo) -> Status,
    enter_continuous: unsafe extern "C" fn(Instance) -> Status,
    completed: unsafe extern "C" fn(Instance, c_int, *mut c_int, *mut c_int) -> Status,
    set_time: unsafe extern "C" fn(Instance, f64) -> Status,
    set_states: unsafe extern "C" fn(Instance, *const f64, usize) -> Status,
    get_states: Reals,
    derivatives: Reals,
    indicators: Reals,
    nominals: Reals,
}

/// The functions [`ApiMe`] adds to the common ones, by their exported names.
const NAMES: [&str; 13] = [
    "fmi2Reset",
    "fmi2SetReal",
    "fmi2GetDirectionalDerivative",
    "fmi2EnterEventMode",
    "fmi2NewDiscreteStates",
    "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep",
    "fmi2SetTime",
    "fmi2SetContinuousStates",
    "fmi2GetContinuousStates",
    "fmi2GetDerivatives",
    "fmi2GetEventIndicators",
    "fmi2GetNominalsOfContinuousStates",
];

const NAMES_ME: ExchangeNames = ExchangeNames {
    reset: "fmi2Reset",
    terminate: "fmi2Terminate",
    free_instance: "fmi2FreeInstance",
    get_reals: "fmi2GetReal",
    set_reals: "fmi2SetReal",
    enter_event_mode: "fmi2EnterEventMode",
    update: "fmi2NewDiscreteStates",
    enter_continuous: "fmi2EnterContinuousTimeMode",
    completed: "fmi2CompletedIntegratorStep",
    set_time: "fmi2SetTime",
    set_states: "fmi2SetContinuousStates",
    get_states: "fmi2GetContinuousStates",
    derivatives: "fmi2GetDerivatives",
    indicators: "fmi2GetEventIndicators",
    nominals: "fmi2GetNominalsOfContinuousStates",
    directional: "fmi2GetDirectionalDerivative",
    // FMI 2.0 has neither: the description alone gives the counts.
    adjoint: "fmi2 (no adjoint derivatives)",
    number_of_states: "fmi2 (no count of states)",
    number_of_indicators: "fmi2 (no count of event indicators)",
    do_step: "fmi2DoStep",
};

impl ApiMe {
    /// Every function, or the names of all the missing ones.
    pub fn resolve(lib: &Library) -> Result<ApiMe, String> {
        let common = Api::resolve_common(lib);
        let own = all_exported(lib, &NAMES);
        if let (Err(a), Err(b)) = (&common, &own) {
            let b = b.trim_start_matches("the library does not export ");
            return Err(format!("{a}, {b}"));
        }
        let common = common?;
        own?;
        // SAFETY: each field's type is the FMI 2.0 signature of the name it is
        // looked up by.
        unsafe {
            Ok(ApiMe {
                common,
                reset: get(lib, "fmi2Reset")?,
                set_real: get(lib, "fmi2SetReal")?,
                directional: get(lib, "fmi2GetDirectionalDerivative")?,
                enter_event_mode: get(lib, "fmi2EnterEventMode")?,
                new_discrete_states: get(lib, "fmi2NewDiscreteStates")?,
                enter_continuous: get(lib, "fmi2EnterContinuousTimeMode")?,
                completed: get(lib, "fmi2CompletedIntegratorStep")?,
                set_time: get(lib, "fmi2SetTime")?,
                set_states: get(lib, "fmi2SetContinuousStates")?,
                get_states: get(lib, "fmi2GetContinuousStates")?,
                derivatives: get(lib, "fmi2GetDerivatives")?,
                indicators: get(lib, "fmi2GetEventIndicators")?,
                nominals: get(lib, "fmi2GetNominalsOfContinuousStates")?,
            })
        }
    }
}

impl Exchange for ApiMe {
    fn names(&self) -> &'static ExchangeNames {
        &NAMES_ME
    }

    fn status_name(&self, s: Status) -> String {
        status_name(s)
    }

    unsafe fn instantiate(&self, spec: &Spec) -> Result<Instance, String> {
        self.common.instantiate_as(spec, MODEL_EXCHANGE)
    }

    unsafe fn initialize(&self, c: Instance, spec: &Spec, stop: f64) -> Result<(), String> {
        self.common.initialize(c, spec, stop)
    }

    unsafe fn reset(&self, c: Instance) -> Status {
        (self.reset)(c)
    }

    unsafe fn terminate(&self, c: Instance) -> Status {
        self.common.terminate(c)
    }

    unsafe fn free_instance(&self, c: Instance) {
        self.common.free_instance(c)
    }

    unsafe fn get_reals(&self, c: Instance, vrs: &[u32], values: &mut [f64]) -> Status {
        self.common.get_reals(c, vrs, values)
    }

    unsafe fn set_reals(&self, c: Instance, vrs: &[u32], values: &[f64]) -> Status {
        (self.set_real)(c, vrs.as_ptr(), vrs.len(), values.as_ptr())
    }

    unsafe fn enter_event_mode(&self, c: Instance) -> Status {
        (self.enter_event_mode)(c)
    }

    unsafe fn update(&self, c: Instance, update: &mut EventUpdate) -> Status {
        let mut info = EventInfo::default();
        let status = (self.new_discrete_states)(c, &mut info);
        *update = EventUpdate {
            needed: info.new_discrete_states_needed != 0,
            terminate: info.terminate_simulation != 0,
            values_changed: info.values_changed != 0,
            next_time: (info.next_event_time_defined != 0).then_some(info.next_event_time),
        };
        status
    }

    unsafe fn enter_continuous(&self, c: Instance) -> Status {
        (self.enter_continuous)(c)
    }

    unsafe fn completed(&self, c: Instance) -> (Status, bool, bool) {
        let (mut enter, mut terminate) = (0, 0);
        let status = (self.completed)(c, 1, &mut enter, &mut terminate);
        (status, enter != 0, terminate != 0)
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
        (self.directional)(
            c,
            unknowns.as_ptr(),
            unknowns.len(),
            knowns.as_ptr(),
            knowns.len(),
            seed.as_ptr(),
            out.as_mut_ptr(),
        )
    }

    unsafe fn co_simulation_step(&self, c: Instance, t: f64, h: f64) -> Option<Status> {
        self.common.do_step.map(|step| step(c, t, h, 1))
    }
}
