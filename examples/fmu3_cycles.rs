//! Life-cycle driver of a built FMI 3.0 FMU (`lcsfmu build --fmi 3`), for memory
//! checkers: the FMI 3.0 counterpart of `fmu_cycles`, run under valgrind by
//! `scripts/test.sh`.
//!
//! ```text
//! cargo build --release --example fmu3_cycles
//! valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
//!     target/release/examples/fmu3_cycles FMU [CYCLES] [STEPS]
//! ```
//!
//! Each cycle instantiates with a logger, logging on, Event Mode and early return,
//! initializes, leaves Event Mode, steps while reading every variable (entering
//! Event Mode whenever a step asks for it, and stepping on from where an early
//! return stopped), takes an FMU state, serializes and deserializes it, restores
//! both, makes two refused calls (which format and log messages), terminates,
//! resets every other cycle, and frees everything.

#[path = "c_api/mod.rs"]
mod c_api;

use c_api::{extract, ok, symbol, Description};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;

type Instance = *mut c_void;
type Logger = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char);

/// The FMI 3.0 functions the cycle calls.
struct Api {
    instantiate: unsafe extern "C" fn(
        *const c_char,
        *const c_char,
        *const c_char,
        bool,
        bool,
        bool,
        bool,
        *const u32,
        usize,
        *mut c_void,
        Option<Logger>,
        *const c_void,
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
    step_mode: unsafe extern "C" fn(Instance) -> c_int,
    do_step: unsafe extern "C" fn(
        Instance,
        f64,
        f64,
        bool,
        *mut bool,
        *mut bool,
        *mut bool,
        *mut f64,
    ) -> c_int,
    get: unsafe extern "C" fn(Instance, *const u32, usize, *mut f64, usize) -> c_int,
    set: unsafe extern "C" fn(Instance, *const u32, usize, *const f64, usize) -> c_int,
    get_i32: unsafe extern "C" fn(Instance, *const u32, usize, *mut i32, usize) -> c_int,
    get_state: unsafe extern "C" fn(Instance, *mut *mut c_void) -> c_int,
    set_state: unsafe extern "C" fn(Instance, *mut c_void) -> c_int,
    free_state: unsafe extern "C" fn(Instance, *mut *mut c_void) -> c_int,
    size: unsafe extern "C" fn(Instance, *mut c_void, *mut usize) -> c_int,
    serialize: unsafe extern "C" fn(Instance, *mut c_void, *mut u8, usize) -> c_int,
    deserialize: unsafe extern "C" fn(Instance, *const u8, usize, *mut *mut c_void) -> c_int,
    terminate: unsafe extern "C" fn(Instance) -> c_int,
    reset: unsafe extern "C" fn(Instance) -> c_int,
    free: unsafe extern "C" fn(Instance),
}

impl Api {
    fn load(so: &Path) -> Api {
        let path = CString::new(so.to_str().unwrap()).unwrap();
        // SAFETY: loading an FMU binary, as any FMI importer does.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!lib.is_null(), "dlopen {}", so.display());
        Api {
            instantiate: symbol(lib, "fmi3InstantiateCoSimulation"),
            enter: symbol(lib, "fmi3EnterInitializationMode"),
            exit: symbol(lib, "fmi3ExitInitializationMode"),
            update: symbol(lib, "fmi3UpdateDiscreteStates"),
            event_mode: symbol(lib, "fmi3EnterEventMode"),
            step_mode: symbol(lib, "fmi3EnterStepMode"),
            do_step: symbol(lib, "fmi3DoStep"),
            get: symbol(lib, "fmi3GetFloat64"),
            set: symbol(lib, "fmi3SetFloat64"),
            get_i32: symbol(lib, "fmi3GetInt32"),
            get_state: symbol(lib, "fmi3GetFMUState"),
            set_state: symbol(lib, "fmi3SetFMUState"),
            free_state: symbol(lib, "fmi3FreeFMUState"),
            size: symbol(lib, "fmi3SerializedFMUStateSize"),
            serialize: symbol(lib, "fmi3SerializeFMUState"),
            deserialize: symbol(lib, "fmi3DeserializeFMUState"),
            terminate: symbol(lib, "fmi3Terminate"),
            reset: symbol(lib, "fmi3Reset"),
            free: symbol(lib, "fmi3FreeInstance"),
        }
    }
}

/// Reads every message (as an importer's logger would), so that valgrind sees
/// each byte of it used.
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

/// Event Mode until nothing is left to update, then Step Mode.
unsafe fn handle_events(api: &Api, c: Instance) {
    let (mut again, mut term, mut nominals, mut values, mut defined, mut next) =
        (false, false, false, false, false, 0.0);
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
    assert!(!again && !term);
    ok((api.step_mode)(c), "fmi3EnterStepMode");
}

/// One full life cycle; returns how many steps were taken.
///
/// # Safety
/// `api` holds the functions of one loaded FMU whose description is `d`.
unsafe fn cycle(api: &Api, d: &Description, token: &CString, k: usize, steps: usize) -> usize {
    let name = CString::new(format!("cycle-{k}")).unwrap();
    let c = (api.instantiate)(
        name.as_ptr(),
        token.as_ptr(),
        std::ptr::null(),
        false,
        true,
        true,
        true,
        std::ptr::null(),
        0,
        std::ptr::null_mut(),
        Some(logger),
        std::ptr::null(),
    );
    assert!(!c.is_null(), "fmi3InstantiateCoSimulation");
    let h = d.step.unwrap_or(0.01);
    // The run's own end as the stop time: the FMU refuses a step past it.
    ok(
        (api.enter)(c, false, 0.0, 0.0, true, steps as f64 * h),
        "fmi3EnterInitializationMode",
    );
    ok((api.exit)(c), "fmi3ExitInitializationMode");
    handle_events(api, c);
    let vrs: Vec<u32> = (0..d.count).collect();
    let mut values = vec![0.0; vrs.len()];
    let (mut t, mut taken) = (0.0f64, 0);
    let (mut state, mut copy) = (std::ptr::null_mut(), std::ptr::null_mut());
    for s in 0..steps {
        let end = (s + 1) as f64 * h;
        // Early returns: step on from where the last step stopped.
        while t < end {
            if let Some(input) = d.input {
                ok((api.set)(c, &input, 1, &t.sin(), 1), "fmi3SetFloat64");
            }
            let (mut event, mut term, mut early, mut last) = (false, false, false, 0.0);
            ok(
                (api.do_step)(
                    c,
                    t,
                    end - t,
                    false,
                    &mut event,
                    &mut term,
                    &mut early,
                    &mut last,
                ),
                "fmi3DoStep",
            );
            assert!(!term && last > t && early == (last < end));
            if event {
                ok((api.event_mode)(c), "fmi3EnterEventMode");
                handle_events(api, c);
            }
            ok(
                (api.get)(
                    c,
                    vrs.as_ptr(),
                    vrs.len(),
                    values.as_mut_ptr(),
                    values.len(),
                ),
                "fmi3GetFloat64",
            );
            t = if early { last } else { end };
            taken += 1;
        }
        if s == steps / 2 {
            ok((api.get_state)(c, &mut state), "fmi3GetFMUState");
            let mut size = 0;
            ok(
                (api.size)(c, state, &mut size),
                "fmi3SerializedFMUStateSize",
            );
            let mut bytes = vec![0u8; size];
            ok(
                (api.serialize)(c, state, bytes.as_mut_ptr(), size),
                "fmi3SerializeFMUState",
            );
            ok(
                (api.deserialize)(c, bytes.as_ptr(), size, &mut copy),
                "fmi3DeserializeFMUState",
            );
        }
    }
    ok((api.set_state)(c, copy), "fmi3SetFMUState");
    ok((api.set_state)(c, state), "fmi3SetFMUState");
    // Two refused calls: a step from the wrong time, an Int32 that does not exist.
    let (mut e, mut term, mut early, mut last) = (false, false, false, 0.0);
    assert_eq!(
        (api.do_step)(c, -1.0, h, false, &mut e, &mut term, &mut early, &mut last),
        3
    );
    let mut int = 0;
    assert_eq!((api.get_i32)(c, vrs.as_ptr(), 1, &mut int, 1), 3);
    ok((api.free_state)(c, &mut state), "fmi3FreeFMUState");
    ok((api.free_state)(c, &mut copy), "fmi3FreeFMUState");
    ok((api.terminate)(c), "fmi3Terminate");
    if k % 2 == 1 {
        ok((api.reset)(c), "fmi3Reset");
    }
    (api.free)(c);
    taken
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: fmu3_cycles FMU [CYCLES] [STEPS]";
    let fmu = Path::new(args.get(1).expect(usage));
    let cycles: usize = args.get(2).map_or(1000, |s| s.parse().expect(usage));
    let steps: usize = args.get(3).map_or(100, |s| s.parse().expect(usage));
    let dir = std::env::temp_dir().join(format!("fmu3_cycles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (d, so) = extract(fmu, &dir);
    assert!(d.fmi3, "{}: not an FMI 3.0 FMU", fmu.display());
    let api = Api::load(&so);
    let token = CString::new(d.guid.clone()).unwrap();
    let start = std::time::Instant::now();
    let mut total = 0;
    for k in 0..cycles {
        // SAFETY: `api` was loaded from the binary described by `d`.
        total += unsafe { cycle(&api, &d, &token, k, steps) };
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!(
        "{}: {cycles} FMI 3.0 cycles of instantiate, initialize, Event Mode, {steps} communication steps, FMU state get/serialize/deserialize/set, free: {total} doStep calls in {:.2} s",
        d.identifier,
        start.elapsed().as_secs_f64()
    );
}
