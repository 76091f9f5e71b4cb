//! Life-cycle driver of a built FMU, for memory checkers: `scripts/test.sh` runs
//! it under valgrind, which fails the suite on a leak or an invalid access.
//!
//! ```text
//! cargo build --release --example fmu_cycles
//! valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
//!     target/release/examples/fmu_cycles FMU [CYCLES] [STEPS]
//! ```
//!
//! Each cycle (1,000 and 100 steps by default, of the default experiment's
//! step size) instantiates the FMU with a
//! printf-style logger and logging on, sets a start value, initializes, steps
//! while reading every output, takes an FMU state, serializes and deserializes
//! it, restores both, makes two refused calls (which format and log messages),
//! terminates, resets every other cycle, and frees everything. The binary is
//! loaded with `dlopen` as a C importer would; the GUID comes from the FMU's
//! modelDescription.xml, and the resource location is the extracted
//! `resources/` (where the prebuilt runtime reads its model).

#[path = "c_api/mod.rs"]
mod c_api;

use c_api::{extract, ok, resource_location, Api, Callbacks, Description, State};
use std::ffi::{c_char, c_uint, CString};
use std::path::Path;

/// The communication steps of one cycle: how many, and their size.
#[derive(Clone, Copy)]
struct Steps {
    count: usize,
    h: f64,
}

/// One full life cycle; returns how many statuses were as expected.
///
/// # Safety
/// `api` holds the functions of one loaded FMU whose description is `d`.
unsafe fn cycle(
    api: &Api,
    d: &Description,
    guid: &CString,
    resources: &CString,
    callbacks: &Callbacks,
    k: usize,
    Steps { count: steps, h }: Steps,
) -> usize {
    let name = CString::new(format!("cycle-{k}")).unwrap();
    let c = (api.instantiate)(
        name.as_ptr(),
        1,
        guid.as_ptr(),
        resources.as_ptr(),
        callbacks,
        0,
        1,
    );
    assert!(!c.is_null(), "fmi2Instantiate");
    // The run's own end as the stop time: the FMU refuses a step past it.
    ok(
        (api.setup)(c, 0, 0.0, 0.0, 1, steps as f64 * h),
        "fmi2SetupExperiment",
    );
    ok((api.enter)(c), "fmi2EnterInitializationMode");
    ok((api.exit)(c), "fmi2ExitInitializationMode");
    let vrs: Vec<c_uint> = (0..d.count).collect();
    let mut values = vec![0.0; vrs.len()];
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
    let resources = resource_location(&dir);
    let callbacks = Callbacks::logging();
    // The model's own communication step, as a master reads it: a fixed one
    // would be a thousand sub-steps per call on a model with max_step = 1e-5.
    let schedule = Steps {
        count: steps,
        h: d.step.unwrap_or(0.01),
    };
    let start = std::time::Instant::now();
    let mut total = 0;
    for k in 0..cycles {
        // SAFETY: `api` was loaded from the binary described by `d`.
        total += unsafe { cycle(&api, &d, &guid, &resources, &callbacks, k, schedule) };
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!(
        "{}: {cycles} cycles of instantiate, initialize, {steps} steps, FMU state get/serialize/deserialize/set, free: {total} steps in {:.2} s",
        d.identifier,
        start.elapsed().as_secs_f64()
    );
}
