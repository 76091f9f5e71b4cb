//! One random FMI 2.0 call for `call_sequences`: any function of the
//! Co-Simulation interface, with arguments drawn from legal and illegal values
//! (wrong communication points, non-finite and extreme numbers, unknown value
//! references, NULL arrays, damaged and foreign FMU states, junk state pointers).

use super::call_sequences::{Session, Target};
use super::fmus::{Raw, OK};
use super::sequence_args::{
    junk_bytes, random_blob, random_point, random_start, random_step_size, random_vrs, Rng, NUMBERS,
};
use fmi::fmi2::binding::{fmi2FMUstate, fmi2String};
use std::ptr::{null, null_mut};

/// Makes one random call; returns the function's name and the status.
pub(super) fn random_call(
    rng: &mut Rng,
    t: &Target,
    r: &mut Raw,
    s: &mut Session,
) -> (&'static str, u32) {
    let slot = rng.below(3) as usize;
    let mut reals = [0.0f64; 8];
    let mut ints = [0i32; 8];
    let mut strings: [fmi2String; 8] = [null(); 8];
    let mut junk = junk_bytes(rng);
    // SAFETY (all calls): the instance is live; every non-NULL array holds at
    // least as many elements as announced (vrs.len() <= 5 < 8); a state pointer is
    // NULL, one of this sequence's live states, or 1 KiB of junk.
    unsafe {
        let (b, c) = (&r.b, r.c);
        match rng.below(100) {
            0..=4 => {
                let stop = rng
                    .chance(50)
                    .then(|| rng.pick(&[10.0, 1.0, -1.0, f64::NAN]));
                let start = random_start(rng);
                ("fmi2SetupExperiment", r.setup(start, stop))
            }
            5..=9 => ("fmi2EnterInitializationMode", r.enter()),
            10..=14 => ("fmi2ExitInitializationMode", r.exit()),
            15..=39 => {
                let at = random_point(rng, s.now);
                let h = random_step_size(rng);
                ("fmi2DoStep", r.step(at, h))
            }
            40..=42 => ("fmi2Terminate", r.terminate()),
            43..=44 => ("fmi2Reset", r.reset()),
            45..=51 => {
                let vrs = random_vrs(rng, t.count);
                match rng.below(10) {
                    0 => (
                        "fmi2GetReal",
                        b.fmi2GetReal(c, null(), vrs.len(), reals.as_mut_ptr()),
                    ),
                    1 => (
                        "fmi2GetReal",
                        b.fmi2GetReal(c, vrs.as_ptr(), vrs.len(), null_mut()),
                    ),
                    _ => ("fmi2GetReal", r.get(&vrs).0),
                }
            }
            52..=60 => {
                let vrs = random_vrs(rng, t.count);
                let values: Vec<f64> = vrs.iter().map(|_| rng.pick(&NUMBERS)).collect();
                match rng.below(10) {
                    0 => (
                        "fmi2SetReal",
                        b.fmi2SetReal(c, vrs.as_ptr(), vrs.len(), null()),
                    ),
                    _ => ("fmi2SetReal", r.set(&vrs, &values)),
                }
            }
            61..=63 => {
                let vrs = random_vrs(rng, t.count);
                let (p, n) = if rng.chance(20) {
                    (null(), vrs.len() + 1)
                } else {
                    (vrs.as_ptr(), vrs.len())
                };
                match rng.below(6) {
                    0 => (
                        "fmi2GetInteger",
                        b.fmi2GetInteger(c, p, n, ints.as_mut_ptr()),
                    ),
                    1 => ("fmi2SetInteger", b.fmi2SetInteger(c, p, n, ints.as_ptr())),
                    2 => (
                        "fmi2GetBoolean",
                        b.fmi2GetBoolean(c, p, n, ints.as_mut_ptr()),
                    ),
                    3 => ("fmi2SetBoolean", b.fmi2SetBoolean(c, p, n, ints.as_ptr())),
                    4 => (
                        "fmi2GetString",
                        b.fmi2GetString(c, p, n, strings.as_mut_ptr()),
                    ),
                    _ => ("fmi2SetString", b.fmi2SetString(c, p, n, strings.as_ptr())),
                }
            }
            64..=68 => {
                let status = if rng.chance(5) {
                    b.fmi2GetFMUstate(c, null_mut())
                } else {
                    r.get_state(&mut s.states[slot])
                };
                ("fmi2GetFMUstate", status)
            }
            69..=73 => {
                let state = match rng.below(10) {
                    0 => null_mut(),
                    1 => junk.as_mut_ptr() as fmi2FMUstate,
                    _ => s.states[slot],
                };
                ("fmi2SetFMUstate", r.set_state(state))
            }
            74..=76 => {
                let status = if rng.chance(10) {
                    b.fmi2FreeFMUstate(c, null_mut())
                } else {
                    r.free_state(&mut s.states[slot])
                };
                ("fmi2FreeFMUstate", status)
            }
            77..=80 => {
                let state = if rng.chance(10) {
                    null_mut()
                } else {
                    s.states[slot]
                };
                if rng.chance(15) {
                    let mut buf = vec![0u8; rng.below(64) as usize];
                    let status =
                        b.fmi2SerializeFMUstate(c, state, buf.as_mut_ptr() as *mut _, buf.len());
                    ("fmi2SerializeFMUstate", status)
                } else {
                    let (status, bytes) = r.serialize(state);
                    if status == OK && s.blobs.len() < 8 {
                        s.blobs.push(bytes);
                    }
                    ("fmi2SerializeFMUstate", status)
                }
            }
            81..=85 => {
                let blob = random_blob(rng, &t.foreign, &s.blobs);
                let status = if rng.chance(5) {
                    b.fmi2DeSerializeFMUstate(c, null(), blob.len() + 1, &mut s.states[slot])
                } else {
                    r.deserialize(&blob, &mut s.states[slot])
                };
                ("fmi2DeSerializeFMUstate", status)
            }
            86 => (
                "fmi2GetDirectionalDerivative",
                b.fmi2GetDirectionalDerivative(c, null(), 0, null(), 0, null(), null_mut()),
            ),
            87 => (
                "fmi2SetRealInputDerivatives",
                b.fmi2SetRealInputDerivatives(c, null(), 0, null(), null()),
            ),
            88 => (
                "fmi2GetRealOutputDerivatives",
                b.fmi2GetRealOutputDerivatives(c, null(), 0, null(), null_mut()),
            ),
            89 => ("fmi2CancelStep", b.fmi2CancelStep(c)),
            90..=95 => {
                let kind = rng.below(5) as u32;
                let null_value = rng.chance(10);
                match rng.below(5) {
                    0 => {
                        let mut st = 0u32;
                        let p = if null_value {
                            null_mut()
                        } else {
                            &mut st as *mut u32
                        };
                        ("fmi2GetStatus", b.fmi2GetStatus(c, kind, p))
                    }
                    1 => {
                        let p = if null_value {
                            null_mut()
                        } else {
                            reals.as_mut_ptr()
                        };
                        ("fmi2GetRealStatus", b.fmi2GetRealStatus(c, kind, p))
                    }
                    2 => (
                        "fmi2GetIntegerStatus",
                        b.fmi2GetIntegerStatus(c, kind, ints.as_mut_ptr()),
                    ),
                    3 => {
                        let p = if null_value {
                            null_mut()
                        } else {
                            ints.as_mut_ptr()
                        };
                        ("fmi2GetBooleanStatus", b.fmi2GetBooleanStatus(c, kind, p))
                    }
                    _ => (
                        "fmi2GetStringStatus",
                        b.fmi2GetStringStatus(c, kind, strings.as_mut_ptr()),
                    ),
                }
            }
            _ => {
                let names: [fmi2String; 3] = [
                    c"logAll".as_ptr(),
                    c"logStatusError".as_ptr(),
                    c"nonsense%s%n".as_ptr(),
                ];
                let on = rng.below(2) as i32;
                let status = match rng.below(4) {
                    0 => b.fmi2SetDebugLogging(c, on, 0, null()),
                    1 => b.fmi2SetDebugLogging(c, on, 2, null()),
                    2 => b.fmi2SetDebugLogging(c, on, 2, names.as_ptr()),
                    _ => b.fmi2SetDebugLogging(c, on, 3, names.as_ptr()),
                };
                ("fmi2SetDebugLogging", status)
            }
        }
    }
}
