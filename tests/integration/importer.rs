//! Every bundled FMU through a second importer, the `fmi` crate: FMU-state
//! replay and serialization, reset, several instances in one thread and in
//! eight, the resource locations and callback structures importers pass, and
//! the refusals (wrong GUID, Model Exchange) that must return NULL with a
//! logged reason. Every comparison is bit for bit: the same binary repeating
//! the same calls must produce the same floating-point numbers.
//!
//! That these numbers equal FMPy's is checked from the Python side
//! (`tests/python/test_second_importer.py` runs `examples/fmi_cosim.rs`, the
//! same importer as a command).

use super::fmus::{
    self, Callbacks, Instantiation, Raw, CO_SIMULATION, MODEL_EXCHANGE, OK, WARNING,
};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::fmi2::schema::Causality;
use fmi::fmi2::Fmi2Res;
use fmi::traits::{FmiImport, FmiStatus};

/// An input's name and its value as a function of time.
type Signal = (&'static str, fn(f64) -> f64);

/// One run per model: step size, steps, the step of the snapshot, other start
/// values, and an input signal applied at each communication point.
struct Case {
    model: String,
    h: f64,
    n: usize,
    mid: usize,
    modified: Vec<(&'static str, f64)>,
    input: Option<Signal>,
    /// Whether the run is known to change after the snapshot and with the
    /// modified start values (so the comparisons cannot pass vacuously).
    known: bool,
}

/// The run for `model`: chosen by hand for the first-order models, derived from
/// the default experiment (at most 400 steps) for any other bundled model.
fn case(model: &str, import: &Fmi2Import) -> Case {
    let known = |h, n, mid, modified: &[(&'static str, f64)], input| Case {
        model: model.to_string(),
        h,
        n,
        mid,
        modified: modified.to_vec(),
        input,
        known: true,
    };
    match model {
        // the snapshot is taken before the origin is reached (t = 0.5 of ~0.96)
        "sign_spiral" => known(0.05, 40, 10, &[("x1", 2.0), ("x2", 0.5)], None),
        // sliding at the snapshot; the applied force makes it stick and slip again
        "coulomb_friction" => known(
            0.1,
            60,
            6,
            &[("mu", 5.0), ("v", 60.0)],
            Some(("F_a", |t| 2000.0 * (1.5 * t).sin())),
        ),
        // conducting at the snapshot, the diode switches at t = 1.21 after it
        "rlc_diode" => known(
            1e-3,
            2000,
            1100,
            &[("R", 2.0), ("L", 0.5), ("C", 0.25)],
            None,
        ),
        "saturated_integrator" => known(
            0.01,
            800,
            300,
            &[("U", 0.2), ("y", 0.1)],
            Some(("x", f64::sin)),
        ),
        _ => {
            let e = import.model_description().default_experiment.as_ref();
            let h = e.and_then(|e| e.step_size).unwrap_or(0.01);
            let span = e.map_or(1.0, |e| e.stop_time() - e.start_time());
            let n = ((span / h).round() as usize).clamp(3, 400);
            Case {
                model: model.to_string(),
                h,
                n,
                mid: n / 3,
                modified: Vec::new(),
                input: None,
                known: false,
            }
        }
    }
}

/// Every bundled model with its run.
fn cases() -> Vec<(Fmi2Import, Case)> {
    fmus::every_model()
        .iter()
        .map(|m| {
            let import = fmus::import(&fmus::bundled(m));
            let c = case(m, &import);
            (import, c)
        })
        .collect()
}

/// Asserts an `fmi` crate result is a plain OK.
#[track_caller]
fn ok<E: std::fmt::Debug>(r: Result<Fmi2Res, E>) {
    assert!(matches!(r, Ok(Fmi2Res::OK)), "{r:?}");
}

fn instance(import: &Fmi2Import, name: &str) -> InstanceCS {
    import
        .instantiate_cs(name, false, false)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// setupExperiment, start values, initialization; returns the outputs at t = 0.
fn initialize(i: &mut InstanceCS, import: &Fmi2Import, start: &[(&str, f64)]) -> Vec<u64> {
    ok(Common::setup_experiment(i, None, 0.0, None));
    for (name, v) in start {
        ok(i.set_real(&[fmus::vr(import, name)], &[*v]));
    }
    ok(Common::enter_initialization_mode(i));
    // a model may warn that no multipliers are consistent with its start values
    let exit = Common::exit_initialization_mode(i);
    assert!(
        matches!(exit, Ok(Fmi2Res::OK | Fmi2Res::Warning)),
        "{exit:?}"
    );
    outputs(i, import)
}

/// Every output's bit pattern (so -0.0 and 0.0 differ).
fn outputs(i: &mut InstanceCS, import: &Fmi2Import) -> Vec<u64> {
    let vrs = fmus::vrs_of(import, Causality::Output);
    let mut v = vec![f64::NAN; vrs.len()];
    ok(i.get_real(&vrs, &mut v));
    v.iter().map(|x| x.to_bits()).collect()
}

/// Steps `from..to` (t_k = k h), the input set at each point; the outputs after each step.
fn run(i: &mut InstanceCS, import: &Fmi2Import, case: &Case, from: usize, to: usize) -> Vec<u64> {
    let input = case.input.map(|(name, f)| (fmus::vr(import, name), f));
    let mut rows = Vec::new();
    for k in from..to {
        let t = k as f64 * case.h;
        if let Some((vr, f)) = input {
            ok(i.set_real(&[vr], &[f(t)]));
        }
        ok(i.do_step(t, (k + 1) as f64 * case.h - t, false));
        rows.extend(outputs(i, import));
    }
    rows
}

fn full_run(i: &mut InstanceCS, import: &Fmi2Import, case: &Case, modified: bool) -> Vec<u64> {
    let start = if modified { &case.modified[..] } else { &[] };
    let mut rows = initialize(i, import, start);
    rows.extend(run(i, import, case, 0, case.n));
    rows
}

#[test]
fn fmu_state_replays_bit_for_bit() {
    for (import, case) in &cases() {
        let mut i = instance(import, "replay");
        initialize(&mut i, import, &[]);
        run(&mut i, import, case, 0, case.mid);
        let at_mid = outputs(&mut i, import);
        let state = i.get_fmu_state().expect("fmi2GetFMUstate");
        let first = run(&mut i, import, case, case.mid, case.n);
        assert!(
            !case.known || first.chunks(at_mid.len()).any(|row| row != at_mid),
            "{}: nothing happens after the snapshot",
            case.model
        );
        for _ in 0..2 {
            ok(i.set_fmu_state(&state).ok());
            assert_eq!(outputs(&mut i, import), at_mid, "{}", case.model);
            let again = run(&mut i, import, case, case.mid, case.n);
            assert!(again == first, "{}: replay differs", case.model);
        }
    }
}

/// The run of [`full_run`] on the core `Instance` in this process, which takes
/// its sizes at run time like `lcsfmu simulate`.
fn core_run(import: &Fmi2Import, case: &Case, modified: bool) -> Vec<u64> {
    let mut i = lcsfmu::instance::Instance::new(super::model(&case.model), "{core}");
    let outs = fmus::vrs_of(import, Causality::Output);
    let mut v = vec![f64::NAN; outs.len()];
    let mut rows = Vec::new();
    let mut read = |i: &mut lcsfmu::instance::Instance, rows: &mut Vec<u64>| {
        i.get_reals(&outs, &mut v).unwrap();
        rows.extend(v.iter().map(|x| x.to_bits()));
    };
    i.setup_experiment(0.0, None).unwrap();
    if modified {
        for (name, x) in &case.modified {
            i.set_reals(&[fmus::vr(import, name)], &[*x]).unwrap();
        }
    }
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    read(&mut i, &mut rows);
    let input = case.input.map(|(name, f)| (fmus::vr(import, name), f));
    for k in 0..case.n {
        let t = k as f64 * case.h;
        if let Some((vr, f)) = input {
            i.set_reals(&[vr], &[f(t)]).unwrap();
        }
        i.do_step(t, (k + 1) as f64 * case.h - t).unwrap();
        read(&mut i, &mut rows);
    }
    rows
}

/// The FMU runs its step at the sizes it was compiled for (`Instance::specialize`),
/// the core instance of `simulate` at run-time sizes: the same numbers, bit for bit.
#[test]
fn the_compiled_step_equals_the_core_instance_bit_for_bit() {
    for (import, case) in &cases() {
        for modified in [false, true] {
            let mut i = instance(import, "compiled");
            let fmu = full_run(&mut i, import, case, modified);
            assert!(
                fmu == core_run(import, case, modified),
                "{} (modified start values: {modified}): the FMU and the core instance differ",
                case.model
            );
        }
    }
}

#[test]
fn a_serialized_state_continues_in_a_new_instance() {
    for (import, case) in &cases() {
        let mut a = instance(import, "serialize-a");
        initialize(&mut a, import, &[]);
        run(&mut a, import, case, 0, case.mid);
        let state = a.get_fmu_state().expect("fmi2GetFMUstate");
        let bytes = a.serialize_fmu_state(&state).expect("serialize");
        let first = run(&mut a, import, case, case.mid, case.n);

        // Initialized with other parameters and start values: the state carries its own.
        let mut b = instance(import, "serialize-b");
        initialize(&mut b, import, &case.modified);
        let restored = b.deserialize_fmu_state(&bytes).expect("deserialize");
        ok(b.set_fmu_state(&restored).ok());
        let again = run(&mut b, import, case, case.mid, case.n);
        assert!(again == first, "{}: restored run differs", case.model);
    }
}

#[test]
fn reset_then_a_second_run_repeats_the_first() {
    for (import, case) in &cases() {
        let mut i = instance(import, "reset");
        let first = full_run(&mut i, import, case, false);
        ok(Common::terminate(&mut i));
        ok(Common::reset(&mut i));
        let other = full_run(&mut i, import, case, true);
        assert!(
            !case.known || other != first,
            "{}: start values must matter",
            case.model
        );
        // and a reset in the middle of a run, without terminate
        ok(Common::reset(&mut i));
        let again = full_run(&mut i, import, case, false);
        assert!(again == first, "{}: run after reset differs", case.model);
    }
}

#[test]
fn two_instances_stepped_alternately_equal_single_runs() {
    for (import, case) in &cases() {
        let alone =
            [false, true].map(|m| full_run(&mut instance(import, "alone"), import, case, m));
        let mut pair = [instance(import, "alt-a"), instance(import, "alt-b")];
        let mut rows = [
            initialize(&mut pair[0], import, &[]),
            initialize(&mut pair[1], import, &case.modified),
        ];
        for k in 0..case.n {
            for (i, r) in pair.iter_mut().zip(rows.iter_mut()) {
                r.extend(run(i, import, case, k, k + 1));
            }
        }
        assert!(rows[0] == alone[0], "{}: first instance", case.model);
        assert!(rows[1] == alone[1], "{}: second instance", case.model);
    }
}

#[test]
fn eight_instances_in_parallel_threads_equal_single_runs() {
    for (import, case) in &cases() {
        let alone =
            [false, true].map(|m| full_run(&mut instance(import, "alone"), import, case, m));
        let results: Vec<Vec<u64>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|k| {
                    let import = &import;
                    s.spawn(move || {
                        let mut i = instance(import, &format!("thread-{k}"));
                        // reused three times, so runs overlap other threads' resets
                        let mut last = Vec::new();
                        for _ in 0..3 {
                            ok(Common::reset(&mut i));
                            last = full_run(&mut i, import, case, k % 2 == 1);
                        }
                        last
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (k, r) in results.iter().enumerate() {
            assert!(*r == alone[k % 2], "{}: thread {k}", case.model);
        }
    }
}

/// Ten steps through the raw bindings; the outputs after the last one.
fn short_run(r: &mut Raw, outputs: &[u32]) -> Vec<u64> {
    assert!(r.init() <= WARNING, "{}", r.name);
    for k in 0..10 {
        let t = k as f64 * 0.01;
        assert_eq!(r.step(t, 0.01), OK, "{}", r.name);
    }
    let (status, v) = r.get(outputs);
    assert_eq!(status, OK);
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn every_resource_location_and_callback_form_is_accepted() {
    for model in fmus::every_model() {
        let import = fmus::import(&fmus::bundled(&model));
        let outputs = fmus::vrs_of(&import, Causality::Output);
        let reference = short_run(&mut Raw::new(&import, "reference"), &outputs);
        let dir = import.resource_path();
        let dir = dir.to_str().unwrap().trim_start_matches('/');
        let encoded: String = dir.replace('/', "%2F").replace('_', "%5F");
        let locations = [
            None,
            Some(format!("file:/{dir}")),
            Some(format!("file:///{dir}")),
            Some(format!("file:////{dir}")),
            Some(format!("file:///{encoded}")),
            Some("file:///no/such%20dir/with%zz/bad%".to_string()),
            Some(String::new()),
        ];
        for (k, resources) in locations.into_iter().enumerate() {
            for callbacks in [Callbacks::Logging, Callbacks::NullLogger, Callbacks::Null] {
                let name = format!("location-{k}-{callbacks:?}");
                let how = Instantiation {
                    resources: resources.clone(),
                    callbacks,
                    logging_on: true,
                    ..Instantiation::standard(&import, &name)
                };
                let mut r = Raw::instantiate(&import, how)
                    .unwrap_or_else(|| panic!("{model}: {name} {resources:?} refused"));
                assert_eq!(short_run(&mut r, &outputs), reference, "{model}: {name}");
                // an error with no logger to report it to
                assert_eq!(r.step(-1.0, 0.01), fmus::ERROR);
            }
        }
    }
}

#[test]
fn wrong_guid_and_model_exchange_get_null_after_a_logged_reason() {
    for model in fmus::every_model() {
        let import = fmus::import(&fmus::bundled(&model));
        let cases = [
            (
                "guid",
                CO_SIMULATION,
                Some("{00000000-0000-0000-0000-000000000000}"),
                "GUID",
            ),
            ("no-guid", CO_SIMULATION, Some(""), "GUID"),
            ("model-exchange", MODEL_EXCHANGE, None, "Co-Simulation"),
            ("type-7", 7, None, "Co-Simulation"),
        ];
        for (name, fmu_type, guid, reason) in cases {
            for callbacks in [Callbacks::Logging, Callbacks::NullLogger, Callbacks::Null] {
                let how = Instantiation {
                    fmu_type,
                    guid,
                    callbacks,
                    ..Instantiation::standard(&import, name)
                };
                assert!(
                    Raw::instantiate(&import, how).is_none(),
                    "{model}: {name} was instantiated"
                );
                let logged = super::log_capture::take(name);
                if callbacks == Callbacks::Logging {
                    assert_eq!(logged.len(), 1, "{model}: {name}: {logged:?}");
                    assert_eq!(logged[0].level, log::Level::Error);
                    assert!(
                        logged[0].message.starts_with("fmi2Instantiate: ")
                            && logged[0].message.contains(reason),
                        "{model}: {name}: {}",
                        logged[0].message
                    );
                } else {
                    assert!(logged.is_empty());
                }
            }
        }
    }
}
