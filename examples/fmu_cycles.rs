//! Life-cycle driver of a built FMU, for memory checkers: `scripts/test.sh` runs
//! it under valgrind, which fails the suite on a leak or an invalid access.
//!
//! ```text
//! cargo build --release --example fmu_cycles
//! valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
//!     target/release/examples/fmu_cycles FMU [CYCLES] [STEPS]
//! ```
//!
//! Each cycle (1,000 and 100 steps by default) instantiates the FMU with a
//! printf-style logger and logging on, sets a start value, initializes, steps
//! while reading every output, takes an FMU state, serializes and deserializes
//! it, restores both, makes two refused calls (which format and log messages),
//! terminates, resets every other cycle, and frees everything. The binary is
//! loaded with `dlopen` as a C importer would; the GUID comes from the FMU's
//! modelDescription.xml.

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::io::Read;
use std::path::Path;

type Component = *mut c_void;
type State = *mut c_void;

#[repr(C)]
struct Callbacks {
    logger: Option<
        unsafe extern "C" fn(*mut c_void, *const c_char, c_uint, *const c_char, *const c_char, ...),
    >,
    allocate: *const c_void,
    free: *const c_void,
    step_finished: *const c_void,
    environment: *mut c_void,
}

/// The FMI functions the cycle calls.
struct Api {
    instantiate: unsafe extern "C" fn(
        *const c_char,
        c_int,
        *const c_char,
        *const c_char,
        *const Callbacks,
        c_int,
        c_int,
    ) -> Component,
    free_instance: unsafe extern "C" fn(Component),
    setup: unsafe extern "C" fn(Component, c_int, f64, f64, c_int, f64) -> c_int,
    enter: unsafe extern "C" fn(Component) -> c_int,
    exit: unsafe extern "C" fn(Component) -> c_int,
    terminate: unsafe extern "C" fn(Component) -> c_int,
    reset: unsafe extern "C" fn(Component) -> c_int,
    get_real: unsafe extern "C" fn(Component, *const c_uint, usize, *mut f64) -> c_int,
    set_real: unsafe extern "C" fn(Component, *const c_uint, usize, *const f64) -> c_int,
    do_step: unsafe extern "C" fn(Component, f64, f64, c_int) -> c_int,
    get_state: unsafe extern "C" fn(Component, *mut State) -> c_int,
    set_state: unsafe extern "C" fn(Component, State) -> c_int,
    free_state: unsafe extern "C" fn(Component, *mut State) -> c_int,
    size: unsafe extern "C" fn(Component, State, *mut usize) -> c_int,
    serialize: unsafe extern "C" fn(Component, State, *mut c_char, usize) -> c_int,
    deserialize: unsafe extern "C" fn(Component, *const c_char, usize, *mut State) -> c_int,
}

fn symbol<T: Copy>(lib: *mut c_void, name: &str) -> T {
    let n = CString::new(name).unwrap();
    // SAFETY: the FMU exports `name` with the FMI 2.0 signature T (checked non-NULL).
    unsafe {
        let p = libc::dlsym(lib, n.as_ptr());
        assert!(!p.is_null(), "{name} missing");
        std::mem::transmute_copy(&p)
    }
}

impl Api {
    fn load(so: &Path) -> Api {
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
struct Description {
    guid: String,
    identifier: String,
    /// Value references of all variables (the FMU numbers them 0..n).
    count: u32,
    /// The first input's value reference, if any.
    input: Option<u32>,
}

fn attribute<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[start..].split('"').next()
}

fn describe(xml: &str) -> Description {
    let root = xml
        .split("<fmiModelDescription")
        .nth(1)
        .expect("root element");
    let cs = xml.split("<CoSimulation").nth(1).expect("CoSimulation");
    let variables: Vec<&str> = xml.split("<ScalarVariable").skip(1).collect();
    Description {
        guid: attribute(root, "guid").expect("guid").to_string(),
        identifier: attribute(cs, "modelIdentifier")
            .expect("modelIdentifier")
            .to_string(),
        count: variables.len() as u32,
        input: variables
            .iter()
            .find(|v| attribute(v, "causality") == Some("input"))
            .map(|v| attribute(v, "valueReference").unwrap().parse().unwrap()),
    }
}

/// Extracts modelDescription.xml and the binary into `dir`.
fn extract(fmu: &Path, dir: &Path) -> (Description, std::path::PathBuf) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).expect("open FMU")).expect("zip");
    let mut xml = String::new();
    zip.by_name("modelDescription.xml")
        .expect("modelDescription.xml")
        .read_to_string(&mut xml)
        .unwrap();
    let d = describe(&xml);
    let so = dir.join(format!("{}.so", d.identifier));
    let mut entry = zip
        .by_name(&format!("binaries/linux64/{}.so", d.identifier))
        .expect("binary");
    std::io::copy(&mut entry, &mut std::fs::File::create(&so).unwrap()).unwrap();
    (d, so)
}

#[track_caller]
fn ok(status: c_int, what: &str) {
    assert!(status <= 1, "{what}: status {status}");
}

/// One full life cycle; returns how many statuses were as expected.
///
/// # Safety
/// `api` holds the functions of one loaded FMU whose description is `d`.
unsafe fn cycle(
    api: &Api,
    d: &Description,
    guid: &CString,
    callbacks: &Callbacks,
    k: usize,
    steps: usize,
) -> usize {
    let name = CString::new(format!("cycle-{k}")).unwrap();
    let c = (api.instantiate)(
        name.as_ptr(),
        1,
        guid.as_ptr(),
        c"file:///tmp".as_ptr(),
        callbacks,
        0,
        1,
    );
    assert!(!c.is_null(), "fmi2Instantiate");
    ok((api.setup)(c, 0, 0.0, 0.0, 1, 10.0), "fmi2SetupExperiment");
    ok((api.enter)(c), "fmi2EnterInitializationMode");
    ok((api.exit)(c), "fmi2ExitInitializationMode");
    let vrs: Vec<c_uint> = (0..d.count).collect();
    let mut values = vec![0.0; vrs.len()];
    let h = 0.01;
    let mut state: State = std::ptr::null_mut();
    let mut copy: State = std::ptr::null_mut();
    for s in 0..steps {
        let t = s as f64 * h;
        if let Some(input) = d.input {
            ok((api.set_real)(c, &input, 1, &t.sin()), "fmi2SetReal");
        }
        ok((api.do_step)(c, t, (s + 1) as f64 * h - t, 0), "fmi2DoStep");
        ok(
            (api.get_real)(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()),
            "fmi2GetReal",
        );
        if s == steps / 2 {
            ok((api.get_state)(c, &mut state), "fmi2GetFMUstate");
            let mut size = 0;
            ok(
                (api.size)(c, state, &mut size),
                "fmi2SerializedFMUstateSize",
            );
            let mut bytes = vec![0 as c_char; size];
            ok(
                (api.serialize)(c, state, bytes.as_mut_ptr(), size),
                "fmi2SerializeFMUstate",
            );
            ok(
                (api.deserialize)(c, bytes.as_ptr(), size, &mut copy),
                "fmi2DeSerializeFMUstate",
            );
            // a truncated copy is refused (and the refusal logged)
            assert_eq!((api.deserialize)(c, bytes.as_ptr(), size / 2, &mut copy), 3);
        }
    }
    ok((api.set_state)(c, copy), "fmi2SetFMUstate");
    ok((api.set_state)(c, state), "fmi2SetFMUstate");
    // refused calls: a wrong communication point, an unknown reference
    assert_eq!((api.do_step)(c, -1.0, h, 0), 3);
    assert_eq!((api.set_real)(c, &d.count, 1, &1.0), 3);
    ok((api.free_state)(c, &mut state), "fmi2FreeFMUstate");
    ok((api.free_state)(c, &mut copy), "fmi2FreeFMUstate");
    ok((api.terminate)(c), "fmi2Terminate");
    if k % 2 == 1 {
        ok((api.reset)(c), "fmi2Reset");
    }
    (api.free_instance)(c);
    steps
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: fmu_cycles FMU [CYCLES] [STEPS]";
    let fmu = Path::new(args.get(1).expect(usage));
    let cycles: usize = args.get(2).map_or(1000, |s| s.parse().expect(usage));
    let steps: usize = args.get(3).map_or(100, |s| s.parse().expect(usage));
    let dir = std::env::temp_dir().join(format!("fmu_cycles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (d, so) = extract(fmu, &dir);
    let api = Api::load(&so);
    let guid = CString::new(d.guid.clone()).unwrap();
    let callbacks = Callbacks {
        logger: Some(fmi::fmi2::binding::logger::callback_logger_handler),
        allocate: std::ptr::null(),
        free: std::ptr::null(),
        step_finished: std::ptr::null(),
        environment: std::ptr::null_mut(),
    };
    let start = std::time::Instant::now();
    let mut total = 0;
    for k in 0..cycles {
        // SAFETY: `api` was loaded from the binary described by `d`.
        total += unsafe { cycle(&api, &d, &guid, &callbacks, k, steps) };
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!(
        "{}: {cycles} cycles of instantiate, initialize, {steps} steps, FMU state get/serialize/deserialize/set, free: {total} steps in {:.2} s",
        d.identifier,
        start.elapsed().as_secs_f64()
    );
}
