//! Numerical abuse of the built FMUs: non-finite values, extreme step sizes,
//! parameters that make the step LCP infeasible or the matrices overflow, and
//! an LCP that exhausts the solver's pivot budget. Each ends in a plain result,
//! a logged `fmi2Error` that changes nothing, or a logged `fmi2Discard` that
//! keeps the last good state and reports it: never a hang (every case runs
//! against a deadline), never non-finite or out-of-law numbers reported as OK.

use super::fmus::{self, Raw, DISCARD, ERROR, LAST_SUCCESSFUL_TIME, OK, TERMINATED, WARNING};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::{Causality, Initial};
use fmi::traits::FmiImport;
use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on its own thread and fails the test if it takes longer than `secs`.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: still running after {secs} s"),
        // the sender is gone: the worker panicked; re-raise its message
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(p) => std::panic::resume_unwind(p),
            Ok(()) => unreachable!("the worker sends before it ends"),
        },
    }
}

/// Names of the variables an importer may set before initialization
/// (parameters, inputs, and outputs with an exact start value: the states).
fn settable(import: &Fmi2Import) -> Vec<(String, u32, Causality)> {
    import
        .model_description()
        .model_variables
        .variables
        .iter()
        .filter(|v| match v.causality {
            Causality::Parameter | Causality::Input => true,
            Causality::Output => v.initial == Some(Initial::Exact),
            _ => false,
        })
        .map(|v| (v.name.clone(), v.value_reference, v.causality.clone()))
        .collect()
}

#[test]
fn non_finite_values_are_refused_and_change_nothing() {
    for model in fmus::every_model() {
        within(60, &model.clone(), move || {
            let import = fmus::import(&fmus::bundled(&model));
            let mut r = Raw::new(&import, &format!("non-finite-{model}"));
            let vars = settable(&import);
            assert!(!vars.is_empty());
            for phase in ["instantiated", "running"] {
                if phase == "running" {
                    assert!(r.init() <= WARNING);
                    assert_eq!(r.step(0.0, 0.01), OK);
                }
                let before = r.snapshot();
                for (name, vr, causality) in &vars {
                    // once running only inputs are settable at all
                    if phase == "running" && *causality != Causality::Input {
                        continue;
                    }
                    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -f64::NAN] {
                        assert_eq!(r.set(&[*vr], &[v]), ERROR, "{model}: {name} = {v}");
                        let logged = r.logged();
                        assert_eq!(logged.len(), 1);
                        assert!(
                            logged[0].message.contains(name)
                                && logged[0].message.contains("not a finite number"),
                            "{}",
                            logged[0].message
                        );
                        assert!(r.snapshot() == before, "{model}: {name} = {v} changed it");
                    }
                }
            }
            // and the instance steps on
            assert_eq!(r.step(0.01, 0.01), OK);
        });
    }
}

/// Each bundled model's laws, checked on the outputs after a step reported OK:
/// finite numbers that satisfy the model's bounds.
fn lawful(model: &str, import: &Fmi2Import, r: &mut Raw) -> Result<(), String> {
    let names: Vec<String> = import
        .model_description()
        .model_variables
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
        .map(|v| v.name.clone())
        .collect();
    let (status, values) = r.get(&fmus::vrs_of(import, Causality::Output));
    assert_eq!(status, OK);
    let value = |n: &str| values[names.iter().position(|x| x == n).unwrap()];
    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
        return Err(format!("{} = {}", names[k], values[k]));
    }
    let ok = match model {
        // the exact solution is at the origin from t = 1 on; |u| <= 1
        "sign_spiral" => {
            value("x1").abs() <= 1e-15
                && value("x2").abs() <= 1e-15
                && value("u1").abs() <= 1.0
                && value("u2").abs() <= 1.0
        }
        "coulomb_friction" => ["F_plus", "F_minus", "v_abs"]
            .iter()
            .all(|n| value(n) >= 0.0),
        "rlc_diode" => value("u_D") >= 0.0,
        // y stays in [L, U] = [-0.5, 0.5]
        "saturated_integrator" => value("y").abs() <= 0.5 && value("k") >= 0.0 && value("l") >= 0.0,
        // the nonlinear step (Newton–Josephy): the saturation in [-umax, umax] = [-0.5, 0.5]
        "vdp_saturation" => value("u").abs() <= 0.5 && value("u_lo") >= 0.0 && value("u_hi") >= 0.0,
        // a source in time: the diodes' complementarity variables are nonnegative
        "diode_bridge_source" => ["i1", "i2", "r3", "r4"].iter().all(|n| value(n) >= 0.0),
        "buck_pwm" => value("vx") >= 0.0 && [0.0, 1.0].contains(&value("switch")),
        _ => unreachable!(),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{names:?} = {values:?}"))
    }
}

#[test]
fn extreme_step_sizes_complete_lawfully_or_discard_keeping_the_state() {
    let mut outcomes = Vec::new();
    // The linear step's models, and those of the Newton step (nonlinear, sources in time).
    let nonlinear = ["vdp_saturation", "diode_bridge_source", "buck_pwm"];
    for model in fmus::BUNDLED.into_iter().chain(nonlinear) {
        outcomes.extend(within(120, model, move || {
            let import = fmus::import(&fmus::bundled(model));
            let outputs = fmus::vrs_of(&import, Causality::Output);
            let mut seen = Vec::new();
            for h in [5e-324, 1e-300, 1e-20, 1e20, 1e300, f64::MAX] {
                for before_steps in [0usize, 3] {
                    let what = format!("{model}: h = {h:e} after {before_steps} steps");
                    let mut r = Raw::new(&import, &format!("extreme-{model}"));
                    assert_eq!(r.init(), OK);
                    for k in 0..before_steps {
                        assert_eq!(r.step(k as f64 * 0.1, 0.1), OK);
                    }
                    let t = before_steps as f64 * 0.1;
                    let (_, before) = r.get(&outputs);
                    r.logged();
                    match r.step(t, h) {
                        OK => {
                            assert_eq!(r.get(&[0]).1[0], t + h, "{what}: time");
                            if h >= 1e20 {
                                lawful(model, &import, &mut r)
                                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                            }
                            seen.push((what, "OK"));
                        }
                        DISCARD => {
                            assert_eq!(r.boolean_status(TERMINATED), (OK, true), "{what}");
                            assert_eq!(r.real_status(LAST_SUCCESSFUL_TIME), (OK, t), "{what}");
                            let (status, after) = r.get(&outputs);
                            assert_eq!(status, OK);
                            let bits =
                                |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                            assert_eq!(bits(&after), bits(&before), "{what}: state moved");
                            let logged = r.logged();
                            assert!(
                                logged.len() == 1 && logged[0].message.contains("failed: "),
                                "{what}: {logged:?}"
                            );
                            seen.push((what, "Discard"));
                        }
                        s => panic!("{what}: status {s}"),
                    }
                }
            }
            seen
        }));
    }
    // Both outcomes occur: the test sees the discard path as well as the results,
    // for the Newton step too.
    assert!(outcomes.iter().any(|(_, o)| *o == "Discard"));
    for model in nonlinear {
        let of = |o: &str| {
            outcomes
                .iter()
                .any(|(w, x)| *x == o && w.starts_with(&format!("{model}:")))
        };
        eprintln!("{model}: OK {}, Discard {}", of("OK"), of("Discard"));
    }
    assert!(outcomes
        .iter()
        .any(|(w, o)| *o == "OK" && w.contains("1e300")));
}

/// Sets start values, initializes and steps with h until a step is discarded;
/// returns the initialization status, the time of the failing step and the log.
fn run_to_discard(
    model: &'static str,
    start: &[(&str, f64)],
    h: f64,
    max: usize,
) -> (u32, f64, Vec<String>) {
    let import = fmus::import(&fmus::bundled(model));
    let mut r = Raw::new(&import, &format!("infeasible-{model}"));
    for (name, v) in start {
        assert_eq!(r.set(&[fmus::vr(&import, name)], &[*v]), OK);
    }
    assert_eq!(r.setup(0.0, None), OK);
    assert_eq!(r.enter(), OK);
    let init = r.exit();
    let outputs = fmus::vrs_of(&import, Causality::Output);
    for k in 0..max {
        let t = k as f64 * h;
        let (status, before) = r.get(&outputs);
        assert_eq!(status, OK);
        match r.step(t, (k + 1) as f64 * h - t) {
            OK => continue,
            DISCARD => {
                assert_eq!(r.boolean_status(TERMINATED), (OK, true));
                assert_eq!(r.real_status(LAST_SUCCESSFUL_TIME), (OK, t));
                let (status, after) = r.get(&outputs);
                assert_eq!(status, OK);
                assert!(
                    after
                        .iter()
                        .zip(&before)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{model}: the discarded step moved the state"
                );
                let log = r.logged().into_iter().map(|l| l.message).collect();
                // the instance refuses to go on, but terminates normally
                assert_eq!(r.step(t, h), ERROR);
                assert_eq!(r.terminate(), OK);
                r.logged();
                return (init, t, log);
            }
            s => panic!("{model}: status {s} at t = {t}"),
        }
    }
    panic!("{model} with {start:?}: no discard in {max} steps")
}

/// A model, the start values that make its LCP infeasible, the step size and the
/// most steps before the discard.
type Infeasible = (&'static str, &'static [(&'static str, f64)], f64, usize);

#[test]
fn parameters_that_make_the_lcp_infeasible_end_in_a_discard() {
    let cases: [Infeasible; 4] = [
        // a negative mass: F_plus + F_minus <= mu m g < 0 has no solution
        ("coulomb_friction", &[("m", -1.0)], 0.1, 10),
        ("coulomb_friction", &[("m", -100.0)], 0.1, 10),
        // a negative resistance: the diode current cannot stay >= 0 (at t ~ 2.4)
        ("rlc_diode", &[("R", -1.0)], 1e-3, 10_000),
        // saturation bounds with L > U
        ("saturated_integrator", &[("L", 1.0), ("U", -1.0)], 0.01, 10),
    ];
    for (model, start, h, max) in cases {
        let (init, t, log) = within(60, model, move || run_to_discard(model, start, h, max));
        let step_log = log.last().unwrap();
        assert!(
            step_log.starts_with("fmi2DoStep: ") && step_log.contains("status Infeasible"),
            "{model}: {log:?}"
        );
        if t == 0.0 {
            // no multipliers exist at the initial state either: a warning says so
            assert_eq!(init, WARNING, "{model}");
            assert!(log[0].contains("no multipliers are consistent"), "{log:?}");
        } else {
            assert_eq!(init, OK);
            assert!(t > 1.0, "{model}: discarded at {t}");
        }
    }
}

#[test]
fn parameters_that_overflow_the_matrices_fail_initialization() {
    within(60, "overflow", || {
        let import = fmus::import(&fmus::bundled("coulomb_friction"));
        let mut r = Raw::new(&import, "overflow");
        // 1/m is infinite for the smallest subnormal mass
        assert_eq!(r.set(&[fmus::vr(&import, "m")], &[5e-324]), OK);
        assert_eq!(r.setup(0.0, None), OK);
        assert_eq!(r.enter(), OK);
        let before = r.snapshot();
        assert_eq!(r.exit(), ERROR);
        let logged = r.logged();
        assert!(
            logged.len() == 1
                && logged[0]
                    .message
                    .contains("cannot initialize with these parameters"),
            "{logged:?}"
        );
        assert!(
            r.snapshot() != before,
            "the instance is now in the error state"
        );
        assert_eq!(r.step(0.0, 0.1), ERROR);
        assert_eq!(r.reset(), OK);
        assert_eq!(r.init(), OK);
        assert_eq!(r.step(0.0, 0.1), OK);
    });
}

/// Murty's LCP, on which Lemke's method needs 2^11 pivots (beyond its budget
/// of 270), used to end the run with a discard; its matrix is triangular, so
/// substitution, tried first on a cold start, now solves every step of it
/// (block pivoting alone does too: `lcp::pivoting` tests).
#[test]
fn murtys_lcp_beyond_lemkes_budget_is_solved_at_every_step() {
    within(60, "lemke_budget", || {
        let import = fmus::import(&fmus::test_model("lemke_budget"));
        let mut r = Raw::new(&import, "lemke-budget");
        assert_eq!(r.init(), OK);
        let x = fmus::vr(&import, "x");
        let us: Vec<_> = (1..=11)
            .map(|i| fmus::vr(&import, &format!("u{i}")))
            .collect();
        let h = 0.1;
        for k in 0..10 {
            let t = k as f64 * h;
            assert_eq!(r.step(t, (k + 1) as f64 * h - t), OK, "step from t = {t}");
            let (_, xv) = r.get(&[x]);
            let (_, u) = r.get(&us);
            // y = D u + (x - 0.45) 1 with D lower triangular (1 on, 2 below the
            // diagonal): the unique solution is u = max(0.45 - x, 0) e_1.
            let want = (0.45 - xv[0]).max(0.0);
            assert!((u[0] - want).abs() < 1e-12, "t = {t}: {u:?}, x = {xv:?}");
            assert!(u[1..].iter().all(|&v| v.abs() < 1e-12), "t = {t}: {u:?}");
        }
        assert!(r.logged().is_empty());
    });
}

/// Regression: a read of the multipliers during initialization used to mark
/// them consistent even when no consistent multipliers exist, so the exit from
/// initialization returned OK and the warning was never given.
#[test]
fn a_read_during_initialization_keeps_the_warning_for_its_exit() {
    within(60, "warning", || {
        let import = fmus::import(&fmus::bundled("coulomb_friction"));
        let outputs = fmus::vrs_of(&import, Causality::Output);
        for reads in [0, 1, 3] {
            let mut r = Raw::new(&import, "warning-kept");
            assert_eq!(r.set(&[fmus::vr(&import, "mu")], &[-1.0]), OK);
            assert_eq!(r.setup(0.0, None), OK);
            assert_eq!(r.enter(), OK);
            for _ in 0..reads {
                assert_eq!(r.get(&outputs).0, OK);
            }
            assert_eq!(r.exit(), WARNING, "after {reads} reads");
            let logged = r.logged();
            assert!(
                logged.len() == 1 && logged[0].message.contains("no multipliers are consistent"),
                "{logged:?}"
            );
        }
    });
}
