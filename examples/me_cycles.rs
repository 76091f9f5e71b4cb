//! Model Exchange life cycles of a built FMU, for memory checkers:
//! `scripts/test.sh` runs it under valgrind on the `--interface cs,me` build of
//! every first-order model (the binary of an `me` build has the same
//! code without the Co-Simulation exports).
//!
//! ```text
//! cargo build --release --example me_cycles
//! valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
//!     target/release/examples/me_cycles FMU [CYCLES] [STEPS]
//! ```
//!
//! Each cycle instantiates the Model Exchange interface with a printf-style
//! logger and logging on, initializes, settles the first event iteration, then
//! integrates with explicit Euler as the simplest importer does: time, states,
//! derivatives and event indicators at every step, `fmi2CompletedIntegratorStep`,
//! and Event Mode (`fmi2NewDiscreteStates` until settled) when an indicator
//! changes sign. It asks for the directional derivatives of the state
//! derivatives, makes a refused call (a NaN state, which logs its reason),
//! terminates and frees.

#[path = "c_api/mod.rs"]
mod c_api;

use c_api::{extract, ok, resource_location, symbol, Api, Callbacks, Component};
use std::ffi::{c_int, c_uint, CString};
use std::io::Read;
use std::path::Path;

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

/// The Model Exchange functions the cycle calls.
struct MeApi {
    set_time: unsafe extern "C" fn(Component, f64) -> c_int,
    set_states: unsafe extern "C" fn(Component, *const f64, usize) -> c_int,
    get_states: unsafe extern "C" fn(Component, *mut f64, usize) -> c_int,
    derivatives: unsafe extern "C" fn(Component, *mut f64, usize) -> c_int,
    indicators: unsafe extern "C" fn(Component, *mut f64, usize) -> c_int,
    enter_event_mode: unsafe extern "C" fn(Component) -> c_int,
    new_discrete_states: unsafe extern "C" fn(Component, *mut EventInfo) -> c_int,
    enter_continuous: unsafe extern "C" fn(Component) -> c_int,
    completed: unsafe extern "C" fn(Component, c_int, *mut c_int, *mut c_int) -> c_int,
    directional: unsafe extern "C" fn(
        Component,
        *const c_uint,
        usize,
        *const c_uint,
        usize,
        *const f64,
        *mut f64,
    ) -> c_int,
}

impl MeApi {
    fn load(so: &Path) -> MeApi {
        let path = CString::new(so.to_str().unwrap()).unwrap();
        // SAFETY: the library is already loaded (Api::load); this takes a reference.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!lib.is_null(), "dlopen {}", so.display());
        MeApi {
            set_time: symbol(lib, "fmi2SetTime"),
            set_states: symbol(lib, "fmi2SetContinuousStates"),
            get_states: symbol(lib, "fmi2GetContinuousStates"),
            derivatives: symbol(lib, "fmi2GetDerivatives"),
            indicators: symbol(lib, "fmi2GetEventIndicators"),
            enter_event_mode: symbol(lib, "fmi2EnterEventMode"),
            new_discrete_states: symbol(lib, "fmi2NewDiscreteStates"),
            enter_continuous: symbol(lib, "fmi2EnterContinuousTimeMode"),
            completed: symbol(lib, "fmi2CompletedIntegratorStep"),
            directional: symbol(lib, "fmi2GetDirectionalDerivative"),
        }
    }
}

/// The Model Exchange sizes the description declares.
struct Sizes {
    /// The value references of the state derivatives and of their states.
    derivatives: Vec<c_uint>,
    states: Vec<c_uint>,
    indicators: usize,
}

fn sizes(fmu: &Path) -> Sizes {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    let mut xml = String::new();
    let mut entry = zip.by_name("modelDescription.xml").unwrap();
    entry.read_to_string(&mut xml).unwrap();
    let root = xml.split("<fmiModelDescription").nth(1).unwrap();
    let indicators = c_api::attribute(root, "numberOfEventIndicators")
        .expect("numberOfEventIndicators: build with --interface cs,me")
        .parse()
        .unwrap();
    let (mut derivatives, mut states) = (vec![], vec![]);
    for v in xml.split("<ScalarVariable").skip(1) {
        if let Some(state) = v
            .split("<Real")
            .nth(1)
            .and_then(|r| c_api::attribute(r, "derivative"))
        {
            // FMI 2.0's `derivative` is the 1-based index of the state, which
            // is its value reference (the time, 0, is not declared).
            derivatives.push(
                c_api::attribute(v, "valueReference")
                    .unwrap()
                    .parse()
                    .unwrap(),
            );
            states.push(state.parse::<c_uint>().unwrap());
        }
    }
    Sizes {
        derivatives,
        states,
        indicators,
    }
}

/// Event Mode until the FMU needs no further iteration; then continuous time.
///
/// # Safety
/// `c` is a live Model Exchange instance of `me`'s library, in Event Mode.
unsafe fn settle(me: &MeApi, c: Component) {
    let mut info = EventInfo {
        new_discrete_states_needed: 1,
        ..EventInfo::default()
    };
    while info.new_discrete_states_needed != 0 {
        ok(
            (me.new_discrete_states)(c, &mut info),
            "fmi2NewDiscreteStates",
        );
    }
    ok((me.enter_continuous)(c), "fmi2EnterContinuousTimeMode");
}

/// One life cycle; returns the number of events met.
///
/// # Safety
/// `api` and `me` hold the functions of one loaded FMU whose sizes are `s`.
#[allow(clippy::too_many_arguments)]
unsafe fn cycle(
    api: &Api,
    me: &MeApi,
    s: &Sizes,
    guid: &CString,
    resources: &CString,
    callbacks: &Callbacks,
    k: usize,
    steps: usize,
) -> usize {
    let name = CString::new(format!("me-cycle-{k}")).unwrap();
    // fmi2ModelExchange = 0.
    let c = (api.instantiate)(
        name.as_ptr(),
        0,
        guid.as_ptr(),
        resources.as_ptr(),
        callbacks,
        0,
        1,
    );
    assert!(!c.is_null(), "fmi2Instantiate");
    ok((api.setup)(c, 1, 1e-8, 0.0, 1, 10.0), "fmi2SetupExperiment");
    ok((api.enter)(c), "fmi2EnterInitializationMode");
    ok((api.exit)(c), "fmi2ExitInitializationMode");
    settle(me, c);
    let (nx, nz) = (s.states.len(), s.indicators);
    let (mut x, mut dx) = (vec![0.0; nx], vec![0.0; nx]);
    let (mut z, mut z_before) = (vec![0.0; nz], vec![0.0; nz]);
    ok(
        (me.get_states)(c, x.as_mut_ptr(), nx),
        "fmi2GetContinuousStates",
    );
    ok(
        (me.indicators)(c, z_before.as_mut_ptr(), nz),
        "fmi2GetEventIndicators",
    );
    let h = 1e-3;
    let mut events = 0;
    for n in 0..steps {
        ok(
            (me.derivatives)(c, dx.as_mut_ptr(), nx),
            "fmi2GetDerivatives",
        );
        for (xi, di) in x.iter_mut().zip(&dx) {
            *xi += h * di;
        }
        ok((me.set_time)(c, (n + 1) as f64 * h), "fmi2SetTime");
        ok(
            (me.set_states)(c, x.as_ptr(), nx),
            "fmi2SetContinuousStates",
        );
        ok(
            (me.indicators)(c, z.as_mut_ptr(), nz),
            "fmi2GetEventIndicators",
        );
        let (mut enter, mut terminate) = (0, 0);
        ok(
            (me.completed)(c, 1, &mut enter, &mut terminate),
            "fmi2CompletedIntegratorStep",
        );
        let crossed = z
            .iter()
            .zip(&z_before)
            .any(|(a, b)| (*a > 0.0) != (*b > 0.0));
        if crossed || enter != 0 {
            events += 1;
            ok((me.enter_event_mode)(c), "fmi2EnterEventMode");
            settle(me, c);
            ok(
                (me.get_states)(c, x.as_mut_ptr(), nx),
                "fmi2GetContinuousStates",
            );
            ok(
                (me.indicators)(c, z.as_mut_ptr(), nz),
                "fmi2GetEventIndicators",
            );
        }
        std::mem::swap(&mut z, &mut z_before);
    }
    let seed = vec![1.0; nx];
    let mut sensitivity = vec![0.0; nx];
    let status = (me.directional)(
        c,
        s.derivatives.as_ptr(),
        nx,
        s.states.as_ptr(),
        nx,
        seed.as_ptr(),
        sensitivity.as_mut_ptr(),
    );
    ok(status, "fmi2GetDirectionalDerivative");
    // A refused call: a NaN state (the reason is logged, the states kept).
    let nan = vec![f64::NAN; nx];
    assert_eq!((me.set_states)(c, nan.as_ptr(), nx), 3);
    ok((api.terminate)(c), "fmi2Terminate");
    (api.free_instance)(c);
    events
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: me_cycles FMU [CYCLES] [STEPS]";
    let fmu = Path::new(args.get(1).expect(usage));
    let cycles: usize = args.get(2).map_or(100, |s| s.parse().expect(usage));
    let steps: usize = args.get(3).map_or(1000, |s| s.parse().expect(usage));
    let dir = std::env::temp_dir().join(format!("me_cycles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (d, so) = extract(fmu, &dir);
    let api = Api::load(&so);
    let me = MeApi::load(&so);
    let s = sizes(fmu);
    let guid = CString::new(d.guid.clone()).unwrap();
    let resources = resource_location(&dir);
    let callbacks = Callbacks::logging();
    let mut events = 0;
    for k in 0..cycles {
        // SAFETY: `api` and `me` were loaded from the binary described by `s`.
        events += unsafe { cycle(&api, &me, &s, &guid, &resources, &callbacks, k, steps) };
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!(
        "{}: {cycles} Model Exchange cycles of {steps} Euler steps: {events} events",
        d.identifier
    );
}
