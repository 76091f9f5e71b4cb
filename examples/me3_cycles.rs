//! FMI 3.0 Model Exchange life cycles of a built FMU, for memory checkers: the
//! FMI 3.0 counterpart of `me_cycles`, run under valgrind by `scripts/test.sh`
//! on the `--fmi 3 --interface cs,me` build of every first-order model.
//!
//! ```text
//! cargo build --release --example me3_cycles
//! valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
//!     target/release/examples/me3_cycles FMU [CYCLES] [STEPS]
//! ```
//!
//! Each cycle instantiates Model Exchange with a logger and logging on,
//! initializes with a tolerance, settles the first event iteration, then
//! integrates with explicit Euler: time, states, derivatives, the event
//! indicators (by `fmi3GetEventIndicators` and by `fmi3GetFloat64` of the named
//! indicator variables, which must agree), `fmi3CompletedIntegratorStep`, and
//! Event Mode when an indicator changes sign. It asks for the directional and
//! adjoint derivatives, makes a refused call (a NaN state, which logs its
//! reason), terminates and frees.

#[path = "c_api/mod.rs"]
mod c_api;

use c_api::{extract, ok, symbol};
use std::ffi::{c_char, c_int, c_void, CString};
use std::io::Read;
use std::path::Path;

type Instance = *mut c_void;
type Logger = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char);
type Vector = unsafe extern "C" fn(Instance, *mut f64, usize) -> c_int;
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
) -> c_int;

/// The FMI 3.0 functions the cycle calls.
struct Api {
    instantiate: unsafe extern "C" fn(
        *const c_char,
        *const c_char,
        *const c_char,
        bool,
        bool,
        *mut c_void,
        Option<Logger>,
    ) -> Instance,
    enter: unsafe extern "C" fn(Instance, bool, f64, f64, bool, f64) -> c_int,
    exit: unsafe extern "C" fn(Instance) -> c_int,
    update: unsafe extern "C" fn(
        Instance,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut f64,
    ) -> c_int,
    event_mode: unsafe extern "C" fn(Instance) -> c_int,
    continuous: unsafe extern "C" fn(Instance) -> c_int,
    completed: unsafe extern "C" fn(Instance, bool, *mut bool, *mut bool) -> c_int,
    set_time: unsafe extern "C" fn(Instance, f64) -> c_int,
    set_states: unsafe extern "C" fn(Instance, *const f64, usize) -> c_int,
    get_states: Vector,
    derivatives: Vector,
    indicators: Vector,
    get: unsafe extern "C" fn(Instance, *const u32, usize, *mut f64, usize) -> c_int,
    directional: Derivative,
    adjoint: Derivative,
    terminate: unsafe extern "C" fn(Instance) -> c_int,
    free: unsafe extern "C" fn(Instance),
}

impl Api {
    fn load(so: &Path) -> Api {
        let path = CString::new(so.to_str().unwrap()).unwrap();
        // SAFETY: loading an FMU binary, as any FMI importer does.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!lib.is_null(), "dlopen {}", so.display());
        Api {
            instantiate: symbol(lib, "fmi3InstantiateModelExchange"),
            enter: symbol(lib, "fmi3EnterInitializationMode"),
            exit: symbol(lib, "fmi3ExitInitializationMode"),
            update: symbol(lib, "fmi3UpdateDiscreteStates"),
            event_mode: symbol(lib, "fmi3EnterEventMode"),
            continuous: symbol(lib, "fmi3EnterContinuousTimeMode"),
            completed: symbol(lib, "fmi3CompletedIntegratorStep"),
            set_time: symbol(lib, "fmi3SetTime"),
            set_states: symbol(lib, "fmi3SetContinuousStates"),
            get_states: symbol(lib, "fmi3GetContinuousStates"),
            derivatives: symbol(lib, "fmi3GetContinuousStateDerivatives"),
            indicators: symbol(lib, "fmi3GetEventIndicators"),
            get: symbol(lib, "fmi3GetFloat64"),
            directional: symbol(lib, "fmi3GetDirectionalDerivative"),
            adjoint: symbol(lib, "fmi3GetAdjointDerivative"),
            terminate: symbol(lib, "fmi3Terminate"),
            free: symbol(lib, "fmi3FreeInstance"),
        }
    }
}

/// Reads every message, so that valgrind sees each byte of it used.
unsafe extern "C" fn logger(
    _env: *mut c_void,
    _status: c_int,
    category: *const c_char,
    message: *const c_char,
) {
    let n = std::ffi::CStr::from_ptr(category).to_bytes().len()
        + std::ffi::CStr::from_ptr(message).to_bytes().len();
    std::hint::black_box(n);
}

/// The value references the description declares.
struct Sizes {
    /// The state derivatives and their states.
    derivatives: Vec<u32>,
    states: Vec<u32>,
    /// The named event indicators.
    indicators: Vec<u32>,
}

fn sizes(fmu: &Path) -> Sizes {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    let mut xml = String::new();
    let mut entry = zip.by_name("modelDescription.xml").unwrap();
    entry.read_to_string(&mut xml).unwrap();
    let vr = |e: &str| -> u32 {
        c_api::attribute(e, "valueReference")
            .unwrap()
            .parse()
            .unwrap()
    };
    let (mut derivatives, mut states) = (vec![], vec![]);
    for v in xml.split("<Float64 ").skip(1) {
        if let Some(state) = c_api::attribute(v, "derivative") {
            derivatives.push(vr(v));
            states.push(state.parse().unwrap());
        }
    }
    let indicators = xml.split("<EventIndicator").skip(1).map(vr).collect();
    Sizes {
        derivatives,
        states,
        indicators,
    }
}

/// Event Mode until the FMU needs no further update; then continuous time.
///
/// # Safety
/// `c` is a live Model Exchange instance of `api`'s library, in Event Mode.
unsafe fn settle(api: &Api, c: Instance) {
    let mut again = true;
    while again {
        let (mut term, mut nominals, mut values, mut defined, mut next) =
            (false, false, false, false, 0.0);
        ok(
            (api.update)(
                c,
                &mut again,
                &mut term,
                &mut nominals,
                &mut values,
                &mut defined,
                &mut next,
            ),
            "fmi3UpdateDiscreteStates",
        );
        // A time event (a nonlinear model's jump of a source) lies ahead.
        assert!(!term && (!defined || next.is_finite()));
    }
    ok((api.continuous)(c), "fmi3EnterContinuousTimeMode");
}

/// One life cycle; returns the number of events met.
///
/// # Safety
/// `api` holds the functions of one loaded FMU whose sizes are `s`.
unsafe fn cycle(api: &Api, s: &Sizes, token: &CString, k: usize, steps: usize) -> usize {
    let name = CString::new(format!("me3-cycle-{k}")).unwrap();
    let c = (api.instantiate)(
        name.as_ptr(),
        token.as_ptr(),
        std::ptr::null(),
        false,
        true,
        std::ptr::null_mut(),
        Some(logger),
    );
    assert!(!c.is_null(), "fmi3InstantiateModelExchange");
    ok(
        (api.enter)(c, true, 1e-8, 0.0, true, 10.0),
        "fmi3EnterInitializationMode",
    );
    ok((api.exit)(c), "fmi3ExitInitializationMode");
    settle(api, c);
    let (nx, nz) = (s.states.len(), s.indicators.len());
    let (mut x, mut dx) = (vec![0.0; nx], vec![0.0; nx]);
    let (mut z, mut z_before, mut named) = (vec![0.0; nz], vec![0.0; nz], vec![0.0; nz]);
    ok(
        (api.get_states)(c, x.as_mut_ptr(), nx),
        "fmi3GetContinuousStates",
    );
    ok(
        (api.indicators)(c, z_before.as_mut_ptr(), nz),
        "fmi3GetEventIndicators",
    );
    let h = 1e-3;
    let mut events = 0;
    for n in 0..steps {
        ok(
            (api.derivatives)(c, dx.as_mut_ptr(), nx),
            "fmi3GetContinuousStateDerivatives",
        );
        for (xi, di) in x.iter_mut().zip(&dx) {
            *xi += h * di;
        }
        ok((api.set_time)(c, (n + 1) as f64 * h), "fmi3SetTime");
        ok(
            (api.set_states)(c, x.as_ptr(), nx),
            "fmi3SetContinuousStates",
        );
        ok(
            (api.indicators)(c, z.as_mut_ptr(), nz),
            "fmi3GetEventIndicators",
        );
        let status = (api.get)(c, s.indicators.as_ptr(), nz, named.as_mut_ptr(), nz);
        ok(status, "fmi3GetFloat64");
        assert_eq!(
            z.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            named.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "named indicators"
        );
        let (mut enter, mut terminate) = (false, false);
        ok(
            (api.completed)(c, true, &mut enter, &mut terminate),
            "fmi3CompletedIntegratorStep",
        );
        let crossed = z
            .iter()
            .zip(&z_before)
            .any(|(a, b)| (*a > 0.0) != (*b > 0.0));
        if crossed || enter {
            events += 1;
            ok((api.event_mode)(c), "fmi3EnterEventMode");
            settle(api, c);
            ok(
                (api.get_states)(c, x.as_mut_ptr(), nx),
                "fmi3GetContinuousStates",
            );
            ok(
                (api.indicators)(c, z.as_mut_ptr(), nz),
                "fmi3GetEventIndicators",
            );
        }
        std::mem::swap(&mut z, &mut z_before);
    }
    let seed = vec![1.0; nx];
    let mut sensitivity = vec![0.0; nx];
    for (f, what) in [
        (api.directional, "fmi3GetDirectionalDerivative"),
        (api.adjoint, "fmi3GetAdjointDerivative"),
    ] {
        let status = f(
            c,
            s.derivatives.as_ptr(),
            nx,
            s.states.as_ptr(),
            nx,
            seed.as_ptr(),
            nx,
            sensitivity.as_mut_ptr(),
            nx,
        );
        ok(status, what);
    }
    // A refused call: a NaN state (the reason is logged, the states kept).
    let nan = vec![f64::NAN; nx];
    assert_eq!((api.set_states)(c, nan.as_ptr(), nx), 3);
    ok((api.terminate)(c), "fmi3Terminate");
    (api.free)(c);
    events
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: me3_cycles FMU [CYCLES] [STEPS]";
    let fmu = Path::new(args.get(1).expect(usage));
    let cycles: usize = args.get(2).map_or(100, |s| s.parse().expect(usage));
    let steps: usize = args.get(3).map_or(1000, |s| s.parse().expect(usage));
    let dir = std::env::temp_dir().join(format!("me3_cycles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (d, so) = extract(fmu, &dir);
    assert!(d.fmi3, "{}: not an FMI 3.0 FMU", fmu.display());
    let api = Api::load(&so);
    let s = sizes(fmu);
    let token = CString::new(d.guid.clone()).unwrap();
    let mut events = 0;
    for k in 0..cycles {
        // SAFETY: `api` was loaded from the binary described by `s`.
        events += unsafe { cycle(&api, &s, &token, k, steps) };
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!(
        "{}: {cycles} FMI 3.0 Model Exchange cycles of {steps} Euler steps: {events} events",
        d.identifier
    );
}
