//! One random FMI 3.0 call on a Model Exchange instance for
//! [`super::call_sequences3_me`], with legal or illegal arguments: the Model
//! Exchange functions and the common ones, NaN, infinite and extreme states
//! and times, time going backwards, wrong sizes and counts (`nValues`,
//! `nSeed`, `nSensitivity`), NULL arrays and out-parameters, unknown value
//! references, the Co-Simulation functions on a Model Exchange instance,
//! which must all be refused, and FMU states taken and set back.

use super::me3_target::{completed, update, Instance3Me, Observation, ROOM};
use super::sequence_args::{random_vrs, Rng, NUMBERS};
use fmi::fmi3::binding::fmi3Status;
use std::ptr::{null, null_mut};

/// A count: mostly right, sometimes one off or zero.
fn count(rng: &mut Rng, n: usize) -> usize {
    match rng.below(10) {
        0 => n + 1,
        1 => n.saturating_sub(1),
        2 => 0,
        _ => n,
    }
}

/// Makes one random call; returns the function's name and the status.
pub fn random_call(rng: &mut Rng, r: &Instance3Me, o: &Observation) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let mut buf = [0.0f64; ROOM];
    let null_array = rng.chance(8);
    let out = if null_array {
        null_mut()
    } else {
        buf.as_mut_ptr()
    };
    let (nx, nz) = (t.nx(), t.nz());
    // SAFETY (all calls): the instance is live; a non-NULL array holds ROOM
    // values, more than any count passed (at most n + 1 <= ROOM).
    unsafe {
        match rng.below(100) {
            0..=3 => {
                let start = match rng.chance(80) {
                    true => 0.0,
                    false => rng.pick(&NUMBERS),
                };
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
            4..=6 => (
                "fmi3ExitInitializationMode",
                b.fmi3ExitInitializationMode(c),
            ),
            7..=8 => ("fmi3Terminate", b.fmi3Terminate(c)),
            9..=10 => ("fmi3Reset", b.fmi3Reset(c)),
            11..=18 => {
                let now = o.now(t);
                let time = match rng.below(5) {
                    0 => rng.pick(&NUMBERS),
                    1 => now - rng.pick(&[1e-3, 1.0, 1e300]), // backwards
                    _ => now + rng.pick(&[0.0, 1e-3, 0.1]),
                };
                ("fmi3SetTime", b.fmi3SetTime(c, time))
            }
            19..=30 => {
                let mut x = o.x(t);
                x.resize(ROOM, 0.0);
                for v in x.iter_mut() {
                    match rng.chance(15) {
                        true => *v = rng.pick(&NUMBERS),
                        false => *v += rng.pick(&[0.0, 1e-3, -0.1]),
                    }
                }
                let p = if null_array { null() } else { x.as_ptr() };
                let n = count(rng, nx);
                (
                    "fmi3SetContinuousStates",
                    b.fmi3SetContinuousStates(c, p, n),
                )
            }
            31..=35 => {
                let n = count(rng, nx);
                (
                    "fmi3GetContinuousStates",
                    b.fmi3GetContinuousStates(c, out, n),
                )
            }
            36..=42 => {
                let n = count(rng, nx);
                let s = b.fmi3GetContinuousStateDerivatives(c, out, n);
                ("fmi3GetContinuousStateDerivatives", s)
            }
            43..=48 => {
                let n = count(rng, nz);
                (
                    "fmi3GetEventIndicators",
                    b.fmi3GetEventIndicators(c, out, n),
                )
            }
            49..=50 => {
                let n = count(rng, nx);
                let s = b.fmi3GetNominalsOfContinuousStates(c, out, n);
                ("fmi3GetNominalsOfContinuousStates", s)
            }
            51..=52 => {
                let mut n = 0usize;
                let p = if rng.chance(20) {
                    null_mut()
                } else {
                    &mut n as *mut usize
                };
                match rng.below(2) {
                    0 => (
                        "fmi3GetNumberOfContinuousStates",
                        b.fmi3GetNumberOfContinuousStates(c, p),
                    ),
                    _ => (
                        "fmi3GetNumberOfEventIndicators",
                        b.fmi3GetNumberOfEventIndicators(c, p),
                    ),
                }
            }
            53..=57 => ("fmi3EnterEventMode", b.fmi3EnterEventMode(c)),
            58..=63 => {
                let null_out = rng.chance(10).then(|| rng.below(6) as usize);
                ("fmi3UpdateDiscreteStates", update(r, null_out))
            }
            64..=67 => (
                "fmi3EnterContinuousTimeMode",
                b.fmi3EnterContinuousTimeMode(c),
            ),
            68..=72 => {
                let null_out = rng.chance(12).then(|| rng.below(2) as usize);
                ("fmi3CompletedIntegratorStep", completed(r, null_out))
            }
            73..=78 => derivative(rng, r, out),
            79..=84 => {
                let vrs = random_vrs(rng, t.count);
                // FMI 3.0 passes nValues apart: sometimes it does not match.
                let n = if rng.chance(15) {
                    vrs.len() + 1
                } else {
                    vrs.len()
                };
                match rng.below(3) {
                    0 => (
                        "fmi3GetFloat64",
                        b.fmi3GetFloat64(c, vrs.as_ptr(), vrs.len(), out, n),
                    ),
                    _ => {
                        let values: Vec<f64> = (0..ROOM).map(|_| rng.pick(&NUMBERS)).collect();
                        let p = if null_array { null() } else { values.as_ptr() };
                        (
                            "fmi3SetFloat64",
                            b.fmi3SetFloat64(c, vrs.as_ptr(), vrs.len(), p, n),
                        )
                    }
                }
            }
            85..=91 => co_simulation_call(rng, r, o),
            _ => {
                let on = rng.chance(50);
                (
                    "fmi3SetDebugLogging",
                    b.fmi3SetDebugLogging(c, on, 0, null()),
                )
            }
        }
    }
}

/// A directional or adjoint derivative: mostly the derivatives by the
/// states, sometimes random value references, NULL arrays or counts of
/// seeds and sensitivities that do not match.
unsafe fn derivative(rng: &mut Rng, r: &Instance3Me, out: *mut f64) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let unknowns = match rng.chance(80) {
        true => t.derivatives.clone(),
        false => random_vrs(rng, t.count),
    };
    let mut knowns = match rng.below(4) {
        0 => random_vrs(rng, t.count),
        1 => t.inputs.clone(),
        _ => t.states.clone(),
    };
    knowns.truncate(ROOM - 1);
    let seed: Vec<f64> = (0..ROOM).map(|_| rng.pick(&NUMBERS)).collect();
    let seed_p = if rng.chance(8) { null() } else { seed.as_ptr() };
    let adjoint = rng.chance(40);
    // Directional: a seed per known, a sensitivity per unknown; adjoint: the other way.
    let (seeds, outs) = match adjoint {
        true => (unknowns.len(), knowns.len()),
        false => (knowns.len(), unknowns.len()),
    };
    let (n_seed, n_out) = match rng.below(10) {
        0 => (seeds + 1, outs),
        1 => (seeds, outs.saturating_sub(1)),
        _ => (seeds, outs),
    };
    let (u, k) = (unknowns.as_ptr(), knowns.as_ptr());
    let (nu, nk) = (unknowns.len(), knowns.len());
    match adjoint {
        true => (
            "fmi3GetAdjointDerivative",
            b.fmi3GetAdjointDerivative(c, u, nu, k, nk, seed_p, n_seed, out, n_out),
        ),
        false => (
            "fmi3GetDirectionalDerivative",
            b.fmi3GetDirectionalDerivative(c, u, nu, k, nk, seed_p, n_seed, out, n_out),
        ),
    }
}

/// A call of Co-Simulation or of FMU states on the Model Exchange instance:
/// each must be refused.
unsafe fn co_simulation_call(
    rng: &mut Rng,
    r: &Instance3Me,
    o: &Observation,
) -> (&'static str, fmi3Status) {
    let (t, b, c) = (r.t, &r.t.b, r.c);
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    let mut reals = [0.0f64; 2];
    match rng.below(5) {
        0 | 1 => (
            "fmi3DoStep",
            b.fmi3DoStep(
                c,
                o.now(t),
                rng.pick(&[0.01, 0.1]),
                true,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            ),
        ),
        2 => ("fmi3EnterStepMode", b.fmi3EnterStepMode(c)),
        3 => {
            let (vrs, orders) = ([1u32], [1i32]);
            let s = b.fmi3GetOutputDerivatives(
                c,
                vrs.as_ptr(),
                1,
                orders.as_ptr(),
                reals.as_mut_ptr(),
                1,
            );
            ("fmi3GetOutputDerivatives", s)
        }
        _ => {
            // Model Exchange provides FMU states: a state taken is set back at
            // once (which must change nothing the observation sees) and freed
            // (status 0 is fmi3OK).
            let mut state = null_mut();
            let status = b.fmi3GetFMUState(c, &mut state);
            if status == 0 {
                assert_eq!(b.fmi3SetFMUState(c, state), status);
                assert_eq!(b.fmi3FreeFMUState(c, &mut state), status);
            }
            ("fmi3GetFMUState", status)
        }
    }
}
