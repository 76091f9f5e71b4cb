//! One random FMI 3.0 call for `call_sequences3`: any function of the header,
//! with arguments drawn from legal and illegal values (wrong communication
//! points, non-finite and extreme numbers, unknown value references, NULL
//! arrays and out-parameters, value counts that do not match, damaged and
//! foreign FMU states, junk state pointers); and the two calls with
//! out-parameters that the progress of a sequence needs too.

use super::call_sequences3::{Session, OK};
use super::sequence_args::{
    junk_bytes, random_blob, random_point, random_start, random_step_size, random_vrs, Rng, NUMBERS,
};
use super::sequences3_instance::Instance3;
use fmi::fmi3::binding::{self, fmi3FMUState, fmi3Status};
use std::ptr::{null, null_mut};

/// The DoStep an importer would make: its flags decide what comes next.
pub(super) fn step(
    r: &Instance3,
    s: &mut Session,
    at: f64,
    h: f64,
    outs: Option<usize>,
) -> fmi3Status {
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    let (pe, pt, pr, pl): (*mut bool, *mut bool, *mut bool, *mut f64) =
        (&mut event, &mut terminate, &mut early, &mut last);
    // One out-parameter NULL when asked: the FMU must refuse, not write there.
    let null_one = |k: usize, p: *mut bool| if outs == Some(k) { null_mut() } else { p };
    let pl = if outs == Some(3) { null_mut() } else { pl };
    // SAFETY: the out-parameters are NULL or point to locals.
    let status = unsafe {
        r.t.b.fmi3DoStep(
            r.c,
            at,
            h,
            true,
            null_one(0, pe),
            null_one(1, pt),
            null_one(2, pr),
            pl,
        )
    };
    s.event_pending = event;
    status
}

pub(super) fn update_discrete_states(
    r: &Instance3,
    null_out: Option<usize>,
) -> (&'static str, fmi3Status) {
    let mut flags = [false; 5];
    let mut next = 0.0;
    let p: Vec<*mut bool> = flags
        .iter_mut()
        .enumerate()
        .map(|(k, f)| {
            if null_out == Some(k) {
                null_mut()
            } else {
                f as *mut bool
            }
        })
        .collect();
    // SAFETY: the out-parameters are NULL or point to locals.
    let status = unsafe {
        r.t.b
            .fmi3UpdateDiscreteStates(r.c, p[0], p[1], p[2], p[3], p[4], &mut next)
    };
    ("fmi3UpdateDiscreteStates", status)
}

/// Makes one random call; returns the function's name and the status.
pub(super) fn random_call(
    rng: &mut Rng,
    r: &Instance3,
    s: &mut Session,
) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let slot = rng.below(3) as usize;
    let mut reals = [0.0f64; 8];
    let mut ints = [0i32; 8];
    let mut flags = [false; 8];
    let mut strings: [binding::fmi3String; 8] = [null(); 8];
    let mut junk = junk_bytes(rng);
    let vrs = random_vrs(rng, t.count);
    // A value count that matches, or one that does not (FMI 3.0 passes both).
    let n_values = if rng.chance(10) {
        vrs.len() + 1
    } else {
        vrs.len()
    };
    let values_ptr = if rng.chance(5) {
        null_mut()
    } else {
        reals.as_mut_ptr()
    };
    // SAFETY (all calls): the instance is live; every non-NULL array holds at
    // least as many elements as announced (at most 6 < 8); a state pointer is
    // NULL, one of this sequence's live states, or 1 KiB of junk.
    unsafe {
        match rng.below(100) {
            0..=4 => {
                let start = random_start(rng);
                let status = b.fmi3EnterInitializationMode(
                    c,
                    rng.chance(50),
                    rng.pick(&[1e-6, 0.0, -1.0, f64::NAN]),
                    start,
                    rng.chance(50),
                    rng.pick(&[10.0, 1.0, -1.0, f64::NAN]),
                );
                ("fmi3EnterInitializationMode", status)
            }
            5..=9 => (
                "fmi3ExitInitializationMode",
                b.fmi3ExitInitializationMode(c),
            ),
            10..=34 => {
                let at = random_point(rng, s.now);
                let h = random_step_size(rng);
                let outs = rng.chance(5).then(|| rng.below(4) as usize);
                ("fmi3DoStep", step(r, s, at, h, outs))
            }
            35..=37 => ("fmi3Terminate", b.fmi3Terminate(c)),
            38..=39 => ("fmi3Reset", b.fmi3Reset(c)),
            40..=46 => {
                let p = if rng.chance(5) { null() } else { vrs.as_ptr() };
                (
                    "fmi3GetFloat64",
                    b.fmi3GetFloat64(c, p, vrs.len(), values_ptr, n_values),
                )
            }
            47..=54 => {
                for v in reals.iter_mut() {
                    *v = rng.pick(&NUMBERS);
                }
                let p = if rng.chance(5) {
                    null()
                } else {
                    reals.as_ptr()
                };
                (
                    "fmi3SetFloat64",
                    b.fmi3SetFloat64(c, vrs.as_ptr(), vrs.len(), p, n_values),
                )
            }
            55..=58 => {
                let (p, n) = (vrs.as_ptr(), vrs.len());
                match rng.below(7) {
                    0 => (
                        "fmi3GetInt32",
                        b.fmi3GetInt32(c, p, n, ints.as_mut_ptr(), n),
                    ),
                    1 => ("fmi3SetInt32", b.fmi3SetInt32(c, p, n, ints.as_ptr(), n)),
                    2 => (
                        "fmi3GetBoolean",
                        b.fmi3GetBoolean(c, p, n, flags.as_mut_ptr(), n),
                    ),
                    3 => (
                        "fmi3SetBoolean",
                        b.fmi3SetBoolean(c, p, n, flags.as_ptr(), n),
                    ),
                    4 => (
                        "fmi3GetString",
                        b.fmi3GetString(c, p, n, strings.as_mut_ptr(), n),
                    ),
                    5 => ("fmi3GetFloat32", b.fmi3GetFloat32(c, p, n, null_mut(), n)),
                    _ => ("fmi3GetClock", b.fmi3GetClock(c, p, n, flags.as_mut_ptr())),
                }
            }
            59..=63 => {
                let status = if rng.chance(5) {
                    b.fmi3GetFMUState(c, null_mut())
                } else {
                    b.fmi3GetFMUState(c, &mut s.states[slot])
                };
                ("fmi3GetFMUState", status)
            }
            64..=68 => {
                let state = match rng.below(10) {
                    0 => null_mut(),
                    1 => junk.as_mut_ptr() as fmi3FMUState,
                    _ => s.states[slot],
                };
                ("fmi3SetFMUState", b.fmi3SetFMUState(c, state))
            }
            69..=71 => {
                let status = if rng.chance(10) {
                    b.fmi3FreeFMUState(c, null_mut())
                } else {
                    b.fmi3FreeFMUState(c, &mut s.states[slot])
                };
                ("fmi3FreeFMUState", status)
            }
            72..=75 => {
                let state = if rng.chance(10) {
                    null_mut()
                } else {
                    s.states[slot]
                };
                if rng.chance(15) {
                    let mut buf = vec![0u8; rng.below(64) as usize];
                    let status = b.fmi3SerializeFMUState(c, state, buf.as_mut_ptr(), buf.len());
                    ("fmi3SerializeFMUState", status)
                } else {
                    let (status, bytes) = r.serialize(state);
                    if status == OK && s.blobs.len() < 8 {
                        s.blobs.push(bytes);
                    }
                    ("fmi3SerializeFMUState", status)
                }
            }
            76..=80 => {
                let blob = random_blob(rng, &t.foreign, &s.blobs);
                let status = if rng.chance(5) {
                    b.fmi3DeserializeFMUState(c, null(), blob.len() + 1, &mut s.states[slot])
                } else {
                    b.fmi3DeserializeFMUState(c, blob.as_ptr(), blob.len(), &mut s.states[slot])
                };
                ("fmi3DeserializeFMUState", status)
            }
            81..=84 => ("fmi3EnterEventMode", b.fmi3EnterEventMode(c)),
            85..=88 => {
                let null_out = rng.chance(10).then(|| rng.below(5) as usize);
                update_discrete_states(r, null_out)
            }
            89..=91 => ("fmi3EnterStepMode", b.fmi3EnterStepMode(c)),
            92 => {
                let orders = [1i32; 8];
                let status = b.fmi3GetOutputDerivatives(
                    c,
                    vrs.as_ptr(),
                    vrs.len(),
                    orders.as_ptr(),
                    reals.as_mut_ptr(),
                    vrs.len(),
                );
                ("fmi3GetOutputDerivatives", status)
            }
            93 => (
                "fmi3EnterConfigurationMode",
                b.fmi3EnterConfigurationMode(c),
            ),
            94 => (
                "fmi3GetContinuousStates",
                b.fmi3GetContinuousStates(c, reals.as_mut_ptr(), 2),
            ),
            95 => {
                let mut n = 0usize;
                (
                    "fmi3GetNumberOfEventIndicators",
                    b.fmi3GetNumberOfEventIndicators(c, &mut n),
                )
            }
            _ => {
                let names: [binding::fmi3String; 3] = [
                    c"logAll".as_ptr(),
                    c"logStatusError".as_ptr(),
                    c"nonsense%s%n".as_ptr(),
                ];
                let on = rng.chance(50);
                let status = match rng.below(4) {
                    0 => b.fmi3SetDebugLogging(c, on, 0, null()),
                    1 => b.fmi3SetDebugLogging(c, on, 2, null()),
                    2 => b.fmi3SetDebugLogging(c, on, 2, names.as_ptr()),
                    _ => b.fmi3SetDebugLogging(c, on, 3, names.as_ptr()),
                };
                ("fmi3SetDebugLogging", status)
            }
        }
    }
}
