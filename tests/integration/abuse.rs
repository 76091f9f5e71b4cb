//! Call-sequence abuse through the raw C functions of a built FMU: every FMI
//! function called in every state where the FMI 2.0 standard forbids it, and
//! the bad arguments of legal calls (step sizes, communication points, value
//! references, `nvr` against NULL arrays, NULL pointers, damaged and foreign
//! FMU states). Each must return `fmi2Error`, log a message through the
//! importer's logger, leave the serialized FMU state byte for byte as it was,
//! and leave the instance usable for whatever the standard allows next.
//!
//! The state machine the tests walk (states, functions, the standard's table,
//! reaching a state, a legal call, carrying on) is in `abuse/state_machine.rs`;
//! the assertions on a refused call and the tests are here.

mod state_machine;

use super::fmus::{self, Raw, ERROR, LAST_SUCCESSFUL_TIME, OK, TERMINATED};
use fmi::fmi2::binding::{fmi2FMUstate, fmi2String};
use state_machine::{allowed, call, carry_on, friction, reach, StepComplete, ALL, FUNCTIONS};
use std::ptr::{null, null_mut};

/// Asserts that `status` is fmi2Error, that exactly one message naming `what`
/// was logged with it, and that the FMU state is still `before`.
#[track_caller]
fn refused(r: &mut Raw, status: u32, what: &str, before: &[u8]) {
    assert_eq!(status, ERROR, "{}: {what}", r.name);
    let logged = r.logged();
    assert_eq!(logged.len(), 1, "{}: {what}: {logged:?}", r.name);
    assert_eq!(logged[0].level, log::Level::Error);
    assert!(
        !logged[0].message.is_empty(),
        "{}: {what}: empty message",
        r.name
    );
    assert!(
        r.snapshot() == before,
        "{}: {what} changed the instance",
        r.name
    );
}

/// [`refused`] for calls made in one batch: each returned fmi2Error and logged
/// one message of its own.
#[track_caller]
fn each_refused(r: &mut Raw, statuses: &[u32], what: &str, before: &[u8]) {
    for (k, status) in statuses.iter().enumerate() {
        assert_eq!(*status, ERROR, "{}: {what}, call {k}", r.name);
    }
    let logged = r.logged();
    assert_eq!(
        logged.len(),
        statuses.len(),
        "{}: {what}: {logged:?}",
        r.name
    );
    for record in &logged {
        assert_eq!(record.level, log::Level::Error, "{record:?}");
        assert!(!record.message.is_empty());
    }
    assert!(
        r.snapshot() == before,
        "{}: {what} changed the instance",
        r.name
    );
}

#[test]
fn every_function_in_every_state_the_standard_forbids_is_refused() {
    let f = friction();
    let mut refusals = 0;
    for state in ALL {
        let name = format!("forbidden-{state:?}");
        let (mut r, t) = reach(&f, state, &name);
        let before = r.snapshot();
        for func in FUNCTIONS {
            if allowed(func).contains(&state) {
                continue;
            }
            let status = call(&mut r, &f, func, t);
            refused(&mut r, status, &format!("fmi2{func:?}"), &before);
            refusals += 1;
        }
        carry_on(&mut r, &f, state, t);
    }
    // 6 states x 30 functions, less the allowed pairs of the table
    assert_eq!(refusals, 67);
}

#[test]
fn step_sizes_and_communication_points_that_are_wrong() {
    let f = friction();
    let (mut r, t) = reach(&f, StepComplete, "bad-step");
    let before = r.snapshot();
    for h in [0.0, -0.0, -0.1, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let status = r.step(t, h);
        refused(&mut r, status, &format!("h = {h}"), &before);
    }
    for at in [
        t + 0.1,
        t - 0.1,
        0.0,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
    ] {
        let status = r.step(at, 0.1);
        refused(&mut r, status, &format!("t = {at}"), &before);
    }
    carry_on(&mut r, &f, StepComplete, t);
}

#[test]
fn terminate_twice_and_fixed_variables_after_initialization() {
    let f = friction();
    let (mut r, t) = reach(&f, StepComplete, "fixed");
    let before = r.snapshot();
    let time = 0;
    for (vr, what) in [
        (f.m, "parameter m"),
        (f.mu, "parameter mu"),
        (f.v, "state v"),
        (f.f_f, "output F_f"),
        (time, "time"),
    ] {
        let status = r.set(&[vr], &[1.0]);
        refused(&mut r, status, what, &before);
        // in one batch with a legal input value: nothing is written
        let status = r.set(&[f.f_a, vr], &[3.0, 1.0]);
        refused(&mut r, status, what, &before);
    }
    assert_eq!(r.step(t, 0.1), OK);
    assert_eq!(r.terminate(), OK);
    let after = r.snapshot();
    let status = r.terminate();
    refused(&mut r, status, "second fmi2Terminate", &after);
}

#[test]
fn unknown_value_references() {
    let f = friction();
    let (mut r, t) = reach(&f, StepComplete, "unknown-vr");
    let before = r.snapshot();
    let n = fmus::variable_count(&f.import);
    for vr in [n, n + 1, 1000, u32::MAX] {
        let (status, _) = r.get(&[vr]);
        refused(&mut r, status, &format!("get {vr}"), &before);
        let (status, _) = r.get(&[f.v, vr]);
        refused(&mut r, status, &format!("get v, {vr}"), &before);
        let status = r.set(&[vr], &[1.0]);
        refused(&mut r, status, &format!("set {vr}"), &before);
        let status = r.set(&[f.f_a, vr], &[2.0, 1.0]);
        refused(&mut r, status, &format!("set F_a, {vr}"), &before);
        let vrs = [vr];
        let mut int = [0i32];
        // SAFETY: one element announced, one present.
        let statuses = unsafe {
            [
                r.b.fmi2GetInteger(r.c, vrs.as_ptr(), 1, int.as_mut_ptr()),
                r.b.fmi2SetInteger(r.c, vrs.as_ptr(), 1, int.as_ptr()),
                r.b.fmi2GetBoolean(r.c, vrs.as_ptr(), 1, int.as_mut_ptr()),
                r.b.fmi2SetBoolean(r.c, vrs.as_ptr(), 1, int.as_ptr()),
            ]
        };
        each_refused(&mut r, &statuses, &format!("integer/boolean {vr}"), &before);
    }
    carry_on(&mut r, &f, StepComplete, t);
}

#[test]
fn null_arrays_with_values_announced_and_empty_requests() {
    let f = friction();
    let (mut r, t) = reach(&f, StepComplete, "null-arrays");
    let before = r.snapshot();
    let vrs = [f.v, f.f_a];
    let mut values = [0.0f64; 2];
    let mut ints = [0i32; 2];
    let mut strings: [fmi2String; 2] = [null(); 2];
    let categories: [fmi2String; 1] = [c"noSuchCategory".as_ptr()];
    // SAFETY: a non-NULL array always holds the announced number of elements;
    // the NULL ones are what is being tested.
    let refusals = unsafe {
        let (b, c) = (&r.b, r.c);
        [
            b.fmi2GetReal(c, null(), 2, values.as_mut_ptr()),
            b.fmi2GetReal(c, vrs.as_ptr(), 2, null_mut()),
            b.fmi2SetReal(c, null(), 2, values.as_ptr()),
            b.fmi2SetReal(c, vrs.as_ptr(), 2, null()),
            b.fmi2GetInteger(c, null(), 2, ints.as_mut_ptr()),
            b.fmi2SetBoolean(c, null(), 2, ints.as_ptr()),
            b.fmi2GetString(c, null(), 2, strings.as_mut_ptr()),
            b.fmi2SetString(c, null(), 2, strings.as_ptr()),
            // the FMU has no Integer, Boolean or String variables at all
            b.fmi2GetString(c, vrs.as_ptr(), 2, strings.as_mut_ptr()),
            b.fmi2SetString(c, vrs.as_ptr(), 2, strings.as_ptr()),
            b.fmi2SetDebugLogging(c, 1, 3, null()),
            b.fmi2SetDebugLogging(c, 1, 1, categories.as_ptr()),
            b.fmi2GetRealStatus(c, LAST_SUCCESSFUL_TIME, null_mut()),
            b.fmi2GetBooleanStatus(c, TERMINATED, null_mut()),
            // kinds that the other status function answers
            b.fmi2GetRealStatus(c, TERMINATED, values.as_mut_ptr()),
            b.fmi2GetBooleanStatus(c, LAST_SUCCESSFUL_TIME, ints.as_mut_ptr()),
            b.fmi2GetBooleanStatus(c, 99, ints.as_mut_ptr()),
        ]
    };
    each_refused(
        &mut r,
        &refusals,
        "NULL arrays, no such variables or kinds",
        &before,
    );
    // nvr = 0 with NULL arrays is legal
    // SAFETY: nothing is announced, nothing is read or written.
    let empty = unsafe {
        let (b, c) = (&r.b, r.c);
        [
            b.fmi2GetReal(c, null(), 0, null_mut()),
            b.fmi2SetReal(c, null(), 0, null()),
            b.fmi2GetInteger(c, null(), 0, null_mut()),
            b.fmi2SetString(c, null(), 0, null()),
            b.fmi2SetDebugLogging(c, 0, 0, null()),
        ]
    };
    assert_eq!(empty, [OK; 5]);
    assert!(r.snapshot() == before);
    carry_on(&mut r, &f, StepComplete, t);
}

/// A xorshift generator: the same bytes on every run.
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

#[test]
fn damaged_foreign_and_null_fmu_states() {
    let f = friction();
    let (mut r, t) = reach(&f, StepComplete, "bad-states");
    let mut good: fmi2FMUstate = null_mut();
    assert_eq!(r.get_state(&mut good), OK);
    let (status, bytes) = r.serialize(good);
    assert_eq!(status, OK);
    let before = r.snapshot();

    let mut refuse_bytes = |r: &mut Raw, data: &[u8], what: &str| {
        let mut slot: fmi2FMUstate = null_mut();
        let status = r.deserialize(data, &mut slot);
        refused(r, status, what, &before);
        assert!(slot.is_null(), "{what}: a state was created");
        // an existing state is not overwritten by a refused deserialization
        let status = r.deserialize(data, &mut good);
        refused(r, status, what, &before);
    };
    for cut in 0..bytes.len() {
        refuse_bytes(&mut r, &bytes[..cut], &format!("truncated to {cut}"));
    }
    for bit in (0..8 * bytes.len()).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        refuse_bytes(&mut r, &flipped, &format!("bit {bit} flipped"));
    }
    for (seed, len) in (1..200u64).map(|s| (s, (s as usize * 37) % 700)) {
        refuse_bytes(&mut r, &noise(seed, len), &format!("{len} random bytes"));
    }
    // a valid state of another model
    let other = fmus::import(&fmus::bundled("rlc_diode"));
    let mut o = Raw::new(&other, "bad-states-other");
    assert_eq!(o.init(), OK);
    let foreign = o.snapshot();
    refuse_bytes(&mut r, &foreign, "state of rlc_diode");
    // NULL data with a size, NULL out-pointers, NULL and foreign state pointers
    let mut junk = noise(7, 256);
    let mut size = 0usize;
    // SAFETY: the pointers are NULL or point to live memory of the announced size.
    let statuses = unsafe {
        let (b, c) = (&r.b, r.c);
        [
            b.fmi2DeSerializeFMUstate(c, null(), 100, &mut good),
            b.fmi2DeSerializeFMUstate(c, bytes.as_ptr() as *const _, bytes.len(), null_mut()),
            b.fmi2GetFMUstate(c, null_mut()),
            b.fmi2SetFMUstate(c, null_mut()),
            b.fmi2SetFMUstate(c, junk.as_mut_ptr() as fmi2FMUstate),
            b.fmi2SerializedFMUstateSize(c, null_mut(), &mut size),
            b.fmi2SerializedFMUstateSize(c, good, null_mut()),
            b.fmi2SerializeFMUstate(c, good, junk.as_mut_ptr() as *mut _, 3),
            b.fmi2SerializeFMUstate(c, good, null_mut(), bytes.len()),
        ]
    };
    each_refused(&mut r, &statuses, "NULL and foreign pointers", &before);
    // the reason gives both sizes
    // SAFETY: the buffer (256 bytes) has room for the bytes announced.
    let status = unsafe {
        r.b.fmi2SerializeFMUstate(r.c, good, junk.as_mut_ptr() as *mut _, bytes.len() - 1)
    };
    assert_eq!(status, ERROR);
    let message = &r.logged()[0].message;
    let want = format!(
        "buffer of {} bytes is too small for the state ({} bytes)",
        bytes.len() - 1,
        bytes.len()
    );
    assert!(message.ends_with(&want), "{message}");
    // the state survived all of it and still restores
    assert_eq!(r.step(t, 0.1), OK);
    assert_eq!(r.set_state(good), OK);
    assert!(r.snapshot() == before);
    assert_eq!(r.free_state(&mut good), OK);
    assert!(good.is_null());
    // freeing NULL is legal
    assert_eq!(r.free_state(&mut good), OK);
    // SAFETY: a NULL pointer to the state pointer.
    assert_eq!(unsafe { r.b.fmi2FreeFMUstate(r.c, null_mut()) }, OK);
}

#[test]
fn a_null_instance_is_an_error_for_every_function() {
    let f = friction();
    let r = Raw::new(&f.import, "null-instance");
    let c = null_mut();
    let mut real = [0.0f64];
    let mut int = [0i32];
    let mut state: fmi2FMUstate = null_mut();
    let mut size = 0usize;
    // SAFETY: a NULL instance with otherwise valid arguments.
    let statuses = unsafe {
        let b = &r.b;
        [
            b.fmi2SetDebugLogging(c, 0, 0, null()),
            b.fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0),
            b.fmi2EnterInitializationMode(c),
            b.fmi2ExitInitializationMode(c),
            b.fmi2Terminate(c),
            b.fmi2Reset(c),
            b.fmi2GetReal(c, [0].as_ptr(), 1, real.as_mut_ptr()),
            b.fmi2SetReal(c, [0].as_ptr(), 1, real.as_ptr()),
            b.fmi2GetInteger(c, null(), 0, int.as_mut_ptr()),
            b.fmi2GetFMUstate(c, &mut state),
            b.fmi2SetFMUstate(c, state),
            b.fmi2FreeFMUstate(c, &mut state),
            b.fmi2SerializedFMUstateSize(c, state, &mut size),
            b.fmi2DeSerializeFMUstate(c, [0u8; 4].as_ptr() as *const _, 4, &mut state),
            b.fmi2DoStep(c, 0.0, 0.1, 0),
            b.fmi2CancelStep(c),
            b.fmi2GetRealStatus(c, LAST_SUCCESSFUL_TIME, real.as_mut_ptr()),
            b.fmi2GetBooleanStatus(c, TERMINATED, int.as_mut_ptr()),
        ]
    };
    assert_eq!(statuses, [ERROR; 18]);
    // SAFETY: freeing NULL is a no-op.
    unsafe { r.b.fmi2FreeInstance(c) };
    assert!(r.logged().is_empty());
}

/// FMI 2.0 (fmi2SetupExperiment): "if the environment tries to compute past
/// stopTime the FMU has to return fmi2Error". A master's `while t < stop { step;
/// t += h }` loop over relay_feedback's 3 s in steps of 0.01 ends its 300th
/// step at 2.99999999999998 and asks a 301st: refused, state kept. Ends within
/// the tolerance of the stop time (`STOP_TOLERANCE`, relative) are steps that
/// land on it and run; without a stop time the 301st step runs too.
#[test]
fn a_step_past_the_stop_time_is_refused() {
    use lcsfmu::instance::STOP_TOLERANCE;
    let import = fmus::import(&fmus::bundled("relay_feedback"));
    let (stop, h) = (3.0, 0.01);
    let run = |name: &str, stop: Option<f64>| {
        let mut r = Raw::new(&import, name);
        assert_eq!(r.setup(0.0, stop), OK);
        assert_eq!(r.enter(), OK);
        assert_eq!(r.exit(), OK);
        let mut t = 0.0;
        let mut steps = 0;
        while t < 3.0 && steps < 300 {
            assert_eq!(r.step(t, h), OK, "{name}: step from {t}");
            t += h;
            steps += 1;
        }
        r.logged();
        (r, t)
    };
    let (mut r, t) = run("past-stop", Some(stop));
    assert_eq!(t, 2.99999999999998, "the accumulated time of the loop");
    let before = r.snapshot();
    let status = r.step(t, h);
    let logged = r.logged();
    refused_with(&mut r, status, &logged, "the 301st step", &before);
    let message = &logged[0].message;
    assert!(
        message.contains("past the stop time 3") && message.contains("3.00999999999998"),
        "{message}"
    );
    // Ends that land on the stop time run: 45 ulps past it (what the same loop
    // accumulates in the other direction), and just inside the tolerance; each
    // from the state at t, restored through an FMU state.
    let mut at_t: fmi2FMUstate = null_mut();
    assert_eq!(r.get_state(&mut at_t), OK);
    for end in [
        stop + 45.0 * 2.0 * f64::EPSILON,
        stop + 0.9 * STOP_TOLERANCE * stop,
    ] {
        assert!(end > stop);
        assert_eq!(r.step(t, end - t), OK, "a step ending at {end:e}");
        assert_eq!(r.set_state(at_t), OK);
    }
    assert_eq!(r.free_state(&mut at_t), OK);
    r.logged();
    assert!(r.snapshot() == before);
    // Just past the tolerance: refused.
    let end = stop + 2.0 * STOP_TOLERANCE * stop;
    let status = r.step(t, end - t);
    let logged = r.logged();
    refused_with(
        &mut r,
        status,
        &logged,
        "a step ending past the tolerance",
        &before,
    );
    assert_eq!(r.terminate(), OK);
    // No stop time defined: the same step runs.
    let (mut r, t) = run("no-stop", None);
    assert_eq!(r.step(t, h), OK);
}

/// [`refused`] with the messages already taken.
#[track_caller]
fn refused_with(
    r: &mut Raw,
    status: u32,
    logged: &[super::log_capture::Record],
    what: &str,
    before: &[u8],
) {
    assert_eq!(status, ERROR, "{}: {what}", r.name);
    assert_eq!(logged.len(), 1, "{}: {what}: {logged:?}", r.name);
    assert_eq!(logged[0].level, log::Level::Error);
    assert!(
        r.snapshot() == before,
        "{}: {what} changed the instance",
        r.name
    );
}
