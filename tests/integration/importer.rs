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
//!
//! The runs compared (one case per model, through the `fmi` crate and on the
//! core instance) are in `importer/runs.rs`; the tests are here. For the
//! mechanical nonlinear models the replays and the FMU-equals-core comparison
//! assert that their window crosses an impact (a contact impulse nonzero).

mod runs;

use super::fmus::{
    self, Callbacks, Instantiation, Raw, CO_SIMULATION, MODEL_EXCHANGE, OK, WARNING,
};
use fmi::fmi2::instance::Common;
use fmi::fmi2::schema::Causality;
use fmi::traits::{FmiImport, FmiStatus};
use runs::{
    assert_crosses_an_impact, cases, core_run, full_run, initialize, instance, ok, outputs, run,
};

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
        assert_crosses_an_impact(import, case, &at_mid, &first);
        for _ in 0..2 {
            ok(i.set_fmu_state(&state).ok());
            assert_eq!(outputs(&mut i, import), at_mid, "{}", case.model);
            let again = run(&mut i, import, case, case.mid, case.n);
            assert!(again == first, "{}: replay differs", case.model);
        }
    }
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
            let width = outputs(&mut i, import).len();
            assert_crosses_an_impact(import, case, &fmu[..width], &fmu[width..]);
        }
    }
}

#[test]
fn a_serialized_state_continues_in_a_new_instance() {
    for (import, case) in &cases() {
        let mut a = instance(import, "serialize-a");
        initialize(&mut a, import, &[]);
        run(&mut a, import, case, 0, case.mid);
        let at_mid = outputs(&mut a, import);
        let state = a.get_fmu_state().expect("fmi2GetFMUstate");
        let bytes = a.serialize_fmu_state(&state).expect("serialize");
        let first = run(&mut a, import, case, case.mid, case.n);
        assert_crosses_an_impact(import, case, &at_mid, &first);

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
