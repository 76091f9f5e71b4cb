//! Soak run of a built FMU through its C API: many steps with FMU states taken,
//! restored and serialized along the way, and the process's resident memory
//! before and after, to show that nothing accumulates (issue 20, section 4).
//!
//! ```text
//! cargo build --release --example soak
//! target/release/examples/soak FMU [STEPS] [H]
//! ```
//!
//! One instance, initialized once, takes STEPS communication steps (10^7 by
//! default) of H (the default experiment's step size, else 0.01) on the grid
//! `t_k = k H`, with the first input (if any) set to `sin t` before each. Every
//! 100 steps it takes a new FMU state, restores it and frees it; every 10^4 it
//! also serializes that state, deserializes the bytes into another state,
//! restores that one and frees both. It prints VmRSS (from /proc/self/status)
//! after the first 10^4 steps and at the end, the time per step, and whether
//! the end is within 1 % of the first figure. It is a measurement, not a test:
//! it fails only when an FMI call does.

#[path = "c_api/mod.rs"]
mod c_api;

use c_api::{extract, ok, Api, Callbacks, State};
use std::ffi::{c_char, CString};
use std::path::Path;
use std::time::Instant;

/// Steps between FMU-state round trips, and between serializations.
const STATE_EVERY: usize = 100;
const SERIALIZE_EVERY: usize = 10_000;

/// Resident memory of this process in kB (VmRSS).
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

/// Takes a state, restores it and frees it; with `serialize`, also its bytes
/// deserialized into a second state, restored and freed.
///
/// # Safety
/// `c` is an initialized instance of the library behind `api`.
unsafe fn state_round_trip(api: &Api, c: c_api::Component, serialize: bool) {
    let mut state: State = std::ptr::null_mut();
    ok((api.get_state)(c, &mut state), "fmi2GetFMUstate");
    if serialize {
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
        let mut copy: State = std::ptr::null_mut();
        ok(
            (api.deserialize)(c, bytes.as_ptr(), size, &mut copy),
            "fmi2DeSerializeFMUstate",
        );
        ok((api.set_state)(c, copy), "fmi2SetFMUstate");
        ok((api.free_state)(c, &mut copy), "fmi2FreeFMUstate");
    }
    ok((api.set_state)(c, state), "fmi2SetFMUstate");
    ok((api.free_state)(c, &mut state), "fmi2FreeFMUstate");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: soak FMU [STEPS] [H]";
    let fmu = Path::new(args.get(1).expect(usage));
    let steps: usize = args.get(2).map_or(10_000_000, |s| s.parse().expect(usage));
    let dir = std::env::temp_dir().join(format!("soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (d, so) = extract(fmu, &dir);
    let h: f64 = args
        .get(3)
        .map(|s| s.parse().expect(usage))
        .or(d.step)
        .unwrap_or(0.01);
    let api = Api::load(&so);
    let guid = CString::new(d.guid.clone()).unwrap();
    let callbacks = Callbacks::logging();
    let vrs: Vec<u32> = (0..d.count).collect();
    let mut values = vec![0.0; vrs.len()];
    let (mut first, mut first_time) = (None, 0.0);
    let start = Instant::now();
    // SAFETY: `api` was loaded from the binary described by `d`; the instance
    // is used only between its instantiation and its release.
    unsafe {
        let c = (api.instantiate)(
            c"soak".as_ptr(),
            1,
            guid.as_ptr(),
            c"file:///tmp".as_ptr(),
            &callbacks,
            0,
            0,
        );
        assert!(!c.is_null(), "fmi2Instantiate");
        ok((api.setup)(c, 0, 0.0, 0.0, 0, 0.0), "fmi2SetupExperiment");
        ok((api.enter)(c), "fmi2EnterInitializationMode");
        ok((api.exit)(c), "fmi2ExitInitializationMode");
        for k in 0..steps {
            let t = k as f64 * h;
            if let Some(input) = d.input {
                ok((api.set_real)(c, &input, 1, &t.sin()), "fmi2SetReal");
            }
            ok((api.do_step)(c, t, (k + 1) as f64 * h - t, 0), "fmi2DoStep");
            let done = k + 1;
            if done % STATE_EVERY == 0 {
                state_round_trip(&api, c, done % SERIALIZE_EVERY == 0);
            }
            if done == SERIALIZE_EVERY {
                ok(
                    (api.get_real)(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()),
                    "fmi2GetReal",
                );
                first = Some(rss_kb());
                first_time = start.elapsed().as_secs_f64();
                println!("after {done} steps: VmRSS {} kB", first.unwrap());
            }
        }
        ok(
            (api.get_real)(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr()),
            "fmi2GetReal",
        );
        let end = rss_kb();
        ok((api.terminate)(c), "fmi2Terminate");
        (api.free_instance)(c);
        let seconds = start.elapsed().as_secs_f64();
        println!("after {steps} steps: VmRSS {end} kB");
        println!(
            "{}: {steps} steps of {h} in {seconds:.1} s ({:.2} us per step with the state round trips)",
            d.identifier,
            1e6 * (seconds - first_time) / (steps.saturating_sub(SERIALIZE_EVERY).max(1)) as f64
        );
        match first {
            Some(first) => {
                let change = 100.0 * (end as f64 - first as f64) / first as f64;
                let within = if change.abs() <= 1.0 { "yes" } else { "NO" };
                println!(
                    "end within 1 % of after {SERIALIZE_EVERY} steps: {within} ({change:+.2} %)"
                );
            }
            None => println!("fewer than {SERIALIZE_EVERY} steps: no comparison"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
