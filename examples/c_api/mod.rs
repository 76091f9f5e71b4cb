//! The FMI 2.0 C API of a built FMU, loaded as a C importer would: the archive's
//! `modelDescription.xml` and binary extracted, the library `dlopen`ed, the
//! functions looked up by name. Shared by the examples that drive FMUs through
//! the C ABI (`fmu_cycles`, `soak`); a directory without `main.rs`, so cargo
//! does not take it for an example of its own.
#![allow(dead_code)]

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::io::Read;
use std::path::Path;

pub type Component = *mut c_void;
pub type State = *mut c_void;

#[repr(C)]
pub struct Callbacks {
    pub logger: Option<
        unsafe extern "C" fn(*mut c_void, *const c_char, c_uint, *const c_char, *const c_char, ...),
    >,
    pub allocate: *const c_void,
    pub free: *const c_void,
    pub step_finished: *const c_void,
    pub environment: *mut c_void,
}

impl Callbacks {
    /// The `fmi` crate's printf-style logger and no allocation functions: what
    /// the memory-check drivers pass.
    pub fn logging() -> Callbacks {
        Callbacks {
            logger: Some(fmi::fmi2::binding::logger::callback_logger_handler),
            allocate: std::ptr::null(),
            free: std::ptr::null(),
            step_finished: std::ptr::null(),
            environment: std::ptr::null_mut(),
        }
    }
}

/// The FMI functions the drivers call.
pub struct Api {
    pub instantiate: unsafe extern "C" fn(
        *const c_char,
        c_int,
        *const c_char,
        *const c_char,
        *const Callbacks,
        c_int,
        c_int,
    ) -> Component,
    pub free_instance: unsafe extern "C" fn(Component),
    pub setup: unsafe extern "C" fn(Component, c_int, f64, f64, c_int, f64) -> c_int,
    pub enter: unsafe extern "C" fn(Component) -> c_int,
    pub exit: unsafe extern "C" fn(Component) -> c_int,
    pub terminate: unsafe extern "C" fn(Component) -> c_int,
    pub reset: unsafe extern "C" fn(Component) -> c_int,
    pub get_real: unsafe extern "C" fn(Component, *const c_uint, usize, *mut f64) -> c_int,
    pub set_real: unsafe extern "C" fn(Component, *const c_uint, usize, *const f64) -> c_int,
    pub do_step: unsafe extern "C" fn(Component, f64, f64, c_int) -> c_int,
    pub get_state: unsafe extern "C" fn(Component, *mut State) -> c_int,
    pub set_state: unsafe extern "C" fn(Component, State) -> c_int,
    pub free_state: unsafe extern "C" fn(Component, *mut State) -> c_int,
    pub size: unsafe extern "C" fn(Component, State, *mut usize) -> c_int,
    pub serialize: unsafe extern "C" fn(Component, State, *mut c_char, usize) -> c_int,
    pub deserialize: unsafe extern "C" fn(Component, *const c_char, usize, *mut State) -> c_int,
}

pub fn symbol<T: Copy>(lib: *mut c_void, name: &str) -> T {
    let n = CString::new(name).unwrap();
    // SAFETY: the FMU exports `name` with the FMI 2.0 signature T (checked non-NULL).
    unsafe {
        let p = libc::dlsym(lib, n.as_ptr());
        assert!(!p.is_null(), "{name} missing");
        std::mem::transmute_copy(&p)
    }
}

impl Api {
    pub fn load(so: &Path) -> Api {
        let path = CString::new(so.to_str().unwrap()).unwrap();
        // SAFETY: loading an FMU binary built by lcsfmu.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!lib.is_null(), "dlopen {}", so.display());
        Api {
            instantiate: symbol(lib, "fmi2Instantiate"),
            free_instance: symbol(lib, "fmi2FreeInstance"),
            setup: symbol(lib, "fmi2SetupExperiment"),
            enter: symbol(lib, "fmi2EnterInitializationMode"),
            exit: symbol(lib, "fmi2ExitInitializationMode"),
            terminate: symbol(lib, "fmi2Terminate"),
            reset: symbol(lib, "fmi2Reset"),
            get_real: symbol(lib, "fmi2GetReal"),
            set_real: symbol(lib, "fmi2SetReal"),
            do_step: symbol(lib, "fmi2DoStep"),
            get_state: symbol(lib, "fmi2GetFMUstate"),
            set_state: symbol(lib, "fmi2SetFMUstate"),
            free_state: symbol(lib, "fmi2FreeFMUstate"),
            size: symbol(lib, "fmi2SerializedFMUstateSize"),
            serialize: symbol(lib, "fmi2SerializeFMUstate"),
            deserialize: symbol(lib, "fmi2DeSerializeFMUstate"),
        }
    }
}

/// What the cycle needs from modelDescription.xml.
pub struct Description {
    /// An FMI 3.0 description (`fmiVersion="3.0"`): token and binary path differ.
    pub fmi3: bool,
    /// The GUID (FMI 3.0: the instantiation token).
    pub guid: String,
    pub identifier: String,
    /// Value references of all variables (the FMU numbers them 0..n; an FMI
    /// 2.0 description leaves the time, 0, undeclared).
    pub count: u32,
    /// The first input's value reference, if any.
    pub input: Option<u32>,
    /// The default experiment's step size, if the description has one.
    pub step: Option<f64>,
}

pub fn attribute<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[start..].split('"').next()
}

pub fn describe(xml: &str) -> Description {
    let root = xml
        .split("<fmiModelDescription")
        .nth(1)
        .expect("root element");
    let cs = xml.split("<CoSimulation").nth(1).expect("CoSimulation");
    let fmi3 = attribute(root, "fmiVersion") == Some("3.0");
    let (element, token) = match fmi3 {
        false => ("<ScalarVariable", "guid"),
        true => ("<Float64 ", "instantiationToken"),
    };
    let variables: Vec<&str> = xml.split(element).skip(1).collect();
    Description {
        fmi3,
        guid: attribute(root, token).expect("token").to_string(),
        identifier: attribute(cs, "modelIdentifier")
            .expect("modelIdentifier")
            .to_string(),
        count: variables
            .iter()
            .filter_map(|v| attribute(v, "valueReference")?.parse::<u32>().ok())
            .max()
            .map_or(0, |vr| vr + 1),
        input: variables
            .iter()
            .find(|v| attribute(v, "causality") == Some("input"))
            .map(|v| attribute(v, "valueReference").unwrap().parse().unwrap()),
        step: xml
            .split("<DefaultExperiment")
            .nth(1)
            .and_then(|e| attribute(e, "stepSize"))
            .and_then(|s| s.parse().ok()),
    }
}

/// Extracts modelDescription.xml and the binary into `dir`.
pub fn extract(fmu: &Path, dir: &Path) -> (Description, std::path::PathBuf) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).expect("open FMU")).expect("zip");
    let mut xml = String::new();
    zip.by_name("modelDescription.xml")
        .expect("modelDescription.xml")
        .read_to_string(&mut xml)
        .unwrap();
    let d = describe(&xml);
    let so = dir.join(format!("{}.so", d.identifier));
    let mut entry = zip
        .by_name(&format!(
            "binaries/{}/{}.so",
            if d.fmi3 { "x86_64-linux" } else { "linux64" },
            d.identifier
        ))
        .expect("binary");
    std::io::copy(&mut entry, &mut std::fs::File::create(&so).unwrap()).unwrap();
    drop(entry);
    // The prebuilt runtime reads its model there (resource_location).
    if let Ok(mut model) = zip.by_name("resources/model.json") {
        std::fs::create_dir_all(dir.join("resources")).unwrap();
        let file = &mut std::fs::File::create(dir.join("resources/model.json")).unwrap();
        std::io::copy(&mut model, file).unwrap();
    }
    (d, so)
}

/// The `fmuResourceLocation` of an FMU extracted into `dir` (a plain path: no
/// percent-encoding needed for the temporary directories used here).
pub fn resource_location(dir: &Path) -> std::ffi::CString {
    std::ffi::CString::new(format!("file://{}/resources/", dir.display())).unwrap()
}

#[track_caller]
pub fn ok(status: c_int, what: &str) {
    assert!(status <= 1, "{what}: status {status}");
}
