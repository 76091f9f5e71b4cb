//! Built FMUs, imported through the `fmi` crate: the second importer.
//!
//! The tests that exercise the FMU binaries build them here with the library's
//! own `export::build` (the code behind `lcsfmu build`), once per test process,
//! into `target/conformance/`, and load them with the `fmi` crate (its archive
//! extraction, XML reader and libloading bindings: nothing of lcsfmu on the
//! importing side). [`Raw`] drives one instance through the raw C bindings, for
//! the calls the crate's safe wrapper cannot make (NULL pointers, wrong GUIDs,
//! any resource location, calls in forbidden states).

use super::{log_capture, model_path};
use fmi::fmi2::binding::{self, fmi2CallbackFunctions, fmi2Component, fmi2FMUstate, Fmi2Binding};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::Causality;
use fmi::traits::FmiImport;
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::model::{validate, Model};
use std::collections::HashMap;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub const OK: u32 = binding::fmi2Status_fmi2OK;
pub const WARNING: u32 = binding::fmi2Status_fmi2Warning;
pub const DISCARD: u32 = binding::fmi2Status_fmi2Discard;
pub const ERROR: u32 = binding::fmi2Status_fmi2Error;
pub const FATAL: u32 = binding::fmi2Status_fmi2Fatal;
pub const LAST_SUCCESSFUL_TIME: u32 = binding::fmi2StatusKind_fmi2LastSuccessfulTime;
pub const TERMINATED: u32 = binding::fmi2StatusKind_fmi2Terminated;
pub const CO_SIMULATION: u32 = binding::fmi2Type_fmi2CoSimulation;
pub const MODEL_EXCHANGE: u32 = binding::fmi2Type_fmi2ModelExchange;

/// The four first-order bundled models, whose physics some tests check.
pub const BUNDLED: [&str; 4] = [
    "sign_spiral",
    "coulomb_friction",
    "rlc_diode",
    "saturated_integrator",
];

/// Every model in `models/` (file stems, sorted): the tests that need no
/// knowledge of a model's physics run on each of them.
pub fn every_model() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            // TOML models and SPICE netlists alike.
            let model = path.extension().is_some_and(|x| x == "toml" || x == "cir");
            model.then(|| path.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    stems.sort();
    stems
}

/// Built FMUs by model name; a model is built at most once per process.
static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance")
}

/// Builds `model` (read from `origin`) unless this process already did.
fn build(model: &Model, origin: &Path) -> PathBuf {
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let built = built.get_or_insert_with(HashMap::new);
    if let Some(path) = built.get(&model.name) {
        return path.clone();
    }
    let out = out_dir().join(format!("{}.fmu", model.name));
    export::build(model, origin, &out, &BuildEnv::from_env())
        .unwrap_or_else(|e| panic!("building {}: {e}", model.name));
    built.insert(model.name.clone(), out.clone());
    out
}

/// A bundled model's FMU.
pub fn bundled(stem: &str) -> PathBuf {
    let path = model_path(stem);
    build(
        &validate::load(&path).unwrap_or_else(|e| panic!("{e}")),
        &path,
    )
}

/// A bundled model's FMU compiled with test-only features of the template
/// (`forced-panic`), in its own directory; built on every call.
pub fn bundled_with_features(stem: &str, features: &[&str]) -> PathBuf {
    let path = model_path(stem);
    let model = validate::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let out = out_dir()
        .join(features.join("+"))
        .join(format!("{stem}.fmu"));
    let env = BuildEnv {
        template_features: features.iter().map(|f| f.to_string()).collect(),
        ..BuildEnv::from_env()
    };
    export::build(&model, &path, &out, &env).unwrap_or_else(|e| panic!("building {stem}: {e}"))
}

/// The FMU of a test model stored in `tests/data/<stem>.toml`.
pub fn test_model(stem: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(format!("{stem}.toml"));
    build(
        &validate::load(&path).unwrap_or_else(|e| panic!("{e}")),
        &path,
    )
}

/// Extracts and parses an FMU with the `fmi` crate (a fresh temporary directory
/// each time: two imports of one FMU load two copies of its library).
pub fn import(fmu: &Path) -> Fmi2Import {
    log_capture::install();
    fmi::import::from_path(fmu).unwrap_or_else(|e| panic!("{}: {e}", fmu.display()))
}

/// Value reference of a variable, as the model description states it.
pub fn vr(import: &Fmi2Import, name: &str) -> u32 {
    import
        .model_description()
        .model_variables
        .variables
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
        .value_reference
}

/// Value references of all variables with a causality, in description order.
pub fn vrs_of(import: &Fmi2Import, causality: Causality) -> Vec<u32> {
    import
        .model_description()
        .model_variables
        .variables
        .iter()
        .filter(|v| v.causality == causality)
        .map(|v| v.value_reference)
        .collect()
}

/// The number of value references (`0..count`): the declared variables, at
/// 1.., and the time at 0, which FMI 2.0 descriptions leave undeclared.
pub fn variable_count(import: &Fmi2Import) -> u32 {
    import.model_description().model_variables.variables.len() as u32 + 1
}

/// Which callbacks `fmi2Instantiate` receives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Callbacks {
    /// The `fmi` crate's logger (printf-style, into [`log_capture`]) and allocators.
    Logging,
    /// A callback structure whose members are all NULL.
    NullLogger,
    /// A NULL pointer instead of the structure.
    Null,
}

/// How to instantiate: every argument an importer controls.
pub struct Instantiation<'a> {
    pub name: &'a str,
    pub fmu_type: u32,
    /// None: the GUID of the model description.
    pub guid: Option<&'a str>,
    /// None: a NULL resource location.
    pub resources: Option<String>,
    pub callbacks: Callbacks,
    pub logging_on: bool,
}

impl<'a> Instantiation<'a> {
    /// What a conforming importer passes: the right GUID, `file:///…/resources`,
    /// a logger.
    pub fn standard(import: &Fmi2Import, name: &'a str) -> Self {
        Instantiation {
            name,
            fmu_type: CO_SIMULATION,
            guid: None,
            resources: Some(import.canonical_resource_path_string()),
            callbacks: Callbacks::Logging,
            logging_on: false,
        }
    }
}

/// One instance driven through the raw bindings; freed on drop.
pub struct Raw {
    pub b: Fmi2Binding,
    pub c: fmi2Component,
    pub name: String,
    /// Must outlive the instance: the FMU keeps the logger and its environment.
    _callbacks: Box<fmi2CallbackFunctions>,
}

fn callbacks(kind: Callbacks) -> Box<fmi2CallbackFunctions> {
    let logging = kind == Callbacks::Logging;
    Box::new(fmi2CallbackFunctions {
        logger: logging.then_some(binding::logger::callback_logger_handler as _),
        allocateMemory: logging.then_some(libc::calloc as _),
        freeMemory: logging.then_some(libc::free as _),
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut(),
    })
}

impl Raw {
    /// Instantiates; None when `fmi2Instantiate` returned NULL.
    pub fn instantiate(import: &Fmi2Import, how: Instantiation) -> Option<Raw> {
        let md = import.model_description();
        // A Model Exchange-only FMU names its binary in ModelExchange.
        let cs = md.co_simulation.as_ref().map(|cs| &cs.model_identifier);
        let me = md.model_exchange.as_ref().map(|me| &me.model_identifier);
        let ident = cs.or(me).expect("CoSimulation or ModelExchange");
        let b = import.binding(ident).expect("the FMU's library loads");
        let cb = callbacks(how.callbacks);
        let name = CString::new(how.name).unwrap();
        let guid = CString::new(how.guid.unwrap_or(&md.guid)).unwrap();
        let resources = how.resources.map(|r| CString::new(r).unwrap());
        let functions: *const fmi2CallbackFunctions = match how.callbacks {
            Callbacks::Null => std::ptr::null(),
            _ => &*cb,
        };
        // SAFETY: every pointer is NULL or a valid string/structure that lives
        // until the call returns (the callbacks until the instance is freed).
        let c = unsafe {
            b.fmi2Instantiate(
                name.as_ptr(),
                how.fmu_type,
                guid.as_ptr(),
                resources.as_ref().map_or(std::ptr::null(), |r| r.as_ptr()),
                functions,
                0,
                how.logging_on as i32,
            )
        };
        if c.is_null() {
            return None;
        }
        Some(Raw {
            b,
            c,
            name: how.name.to_string(),
            _callbacks: cb,
        })
    }

    /// A conforming instantiation that must succeed.
    pub fn new(import: &Fmi2Import, name: &str) -> Raw {
        Raw::instantiate(import, Instantiation::standard(import, name))
            .unwrap_or_else(|| panic!("{name}: fmi2Instantiate returned NULL"))
    }

    /// setupExperiment(start, no stop), enter and exit initialization.
    pub fn init(&mut self) -> u32 {
        for status in [self.setup(0.0, None), self.enter()] {
            if status != OK {
                return status;
            }
        }
        self.exit()
    }

    /// Everything this instance logged since the last call.
    pub fn logged(&self) -> Vec<log_capture::Record> {
        log_capture::take(&self.name)
    }

    // The FMI functions. SAFETY (all): `self.c` is a live instance of the
    // library behind `self.b`; array arguments hold as many elements as announced.

    pub fn setup(&mut self, start: f64, stop: Option<f64>) -> u32 {
        unsafe {
            self.b.fmi2SetupExperiment(
                self.c,
                0,
                0.0,
                start,
                stop.is_some() as i32,
                stop.unwrap_or(0.0),
            )
        }
    }
    pub fn enter(&mut self) -> u32 {
        unsafe { self.b.fmi2EnterInitializationMode(self.c) }
    }
    pub fn exit(&mut self) -> u32 {
        unsafe { self.b.fmi2ExitInitializationMode(self.c) }
    }
    pub fn step(&mut self, t: f64, h: f64) -> u32 {
        unsafe { self.b.fmi2DoStep(self.c, t, h, 0) }
    }
    pub fn terminate(&mut self) -> u32 {
        unsafe { self.b.fmi2Terminate(self.c) }
    }
    pub fn reset(&mut self) -> u32 {
        unsafe { self.b.fmi2Reset(self.c) }
    }
    pub fn get(&mut self, vrs: &[u32]) -> (u32, Vec<f64>) {
        let mut v = vec![f64::NAN; vrs.len()];
        let s = unsafe {
            self.b
                .fmi2GetReal(self.c, vrs.as_ptr(), vrs.len(), v.as_mut_ptr())
        };
        (s, v)
    }
    pub fn set(&mut self, vrs: &[u32], values: &[f64]) -> u32 {
        assert_eq!(vrs.len(), values.len());
        unsafe {
            self.b
                .fmi2SetReal(self.c, vrs.as_ptr(), vrs.len(), values.as_ptr())
        }
    }
    pub fn get_state(&mut self, slot: &mut fmi2FMUstate) -> u32 {
        unsafe { self.b.fmi2GetFMUstate(self.c, slot) }
    }
    pub fn set_state(&mut self, s: fmi2FMUstate) -> u32 {
        unsafe { self.b.fmi2SetFMUstate(self.c, s) }
    }
    pub fn free_state(&mut self, slot: &mut fmi2FMUstate) -> u32 {
        unsafe { self.b.fmi2FreeFMUstate(self.c, slot) }
    }
    pub fn serialize(&mut self, s: fmi2FMUstate) -> (u32, Vec<u8>) {
        let mut size = 0usize;
        let status = unsafe { self.b.fmi2SerializedFMUstateSize(self.c, s, &mut size) };
        if status != OK {
            return (status, vec![]);
        }
        let mut bytes = vec![0u8; size];
        let status = unsafe {
            self.b
                .fmi2SerializeFMUstate(self.c, s, bytes.as_mut_ptr() as *mut _, size)
        };
        (status, bytes)
    }
    pub fn deserialize(&mut self, bytes: &[u8], slot: &mut fmi2FMUstate) -> u32 {
        unsafe {
            self.b
                .fmi2DeSerializeFMUstate(self.c, bytes.as_ptr() as *const _, bytes.len(), slot)
        }
    }
    pub fn real_status(&mut self, kind: u32) -> (u32, f64) {
        let mut v = f64::NAN;
        let s = unsafe { self.b.fmi2GetRealStatus(self.c, kind, &mut v) };
        (s, v)
    }
    pub fn boolean_status(&mut self, kind: u32) -> (u32, bool) {
        let mut v = -1;
        let s = unsafe { self.b.fmi2GetBooleanStatus(self.c, kind, &mut v) };
        (s, v != 0)
    }

    /// The instance's complete dynamic state as the FMU serializes it (phase,
    /// time, every value, the solver's warm start): equal bytes before and after
    /// a call prove that the call changed nothing.
    pub fn snapshot(&mut self) -> Vec<u8> {
        let mut s: fmi2FMUstate = std::ptr::null_mut();
        assert_eq!(self.get_state(&mut s), OK, "{}: fmi2GetFMUstate", self.name);
        let (status, bytes) = self.serialize(s);
        assert_eq!(status, OK, "{}: serializing", self.name);
        assert_eq!(self.free_state(&mut s), OK);
        bytes
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: the instance is live and freed exactly once.
        unsafe { self.b.fmi2FreeInstance(self.c) }
    }
}
