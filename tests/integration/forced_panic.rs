//! A panic inside `fmi2DoStep`, through the `fmi` crate's raw bindings.
//!
//! `coulomb_friction` is built with the template's test-only `forced-panic`
//! feature (template/src/forced_panic.rs: steps from t = 1 on panic). What must
//! hold is the entry helper's promise for any panic: `fmi2Fatal` with the panic's
//! message logged, this process alive, every later call on the instance but
//! `fmi2FreeInstance` refused with `fmi2Fatal` and a logged reason, and other
//! instances of the same library unaffected.

use super::fmus::{self, Raw, FATAL, LAST_SUCCESSFUL_TIME, OK, TERMINATED};

#[test]
fn a_panic_is_fatal_logged_and_leaves_only_free_instance() {
    let import = fmus::import(&fmus::bundled_with_features(
        "coulomb_friction",
        &["forced-panic"],
    ));
    let x = fmus::vr(&import, "x");
    let f_a = fmus::vr(&import, "F_a");

    // A bystander instance of the same library, stepped before and after.
    let mut other = Raw::new(&import, "panic-bystander");
    assert_eq!(other.init(), OK);
    assert_eq!(other.step(0.0, 0.5), OK);

    let mut r = Raw::new(&import, "panic-victim");
    assert_eq!(r.init(), OK);
    assert_eq!(r.step(0.0, 0.5), OK);
    assert_eq!(r.step(0.5, 0.5), OK);
    let (status, before) = r.get(&[x]);
    assert_eq!(status, OK);
    assert!(r.logged().is_empty());

    assert_eq!(r.step(1.0, 0.5), FATAL);
    let logged = r.logged();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].level, log::Level::Error);
    let message = &logged[0].message;
    assert!(
        message.contains("fmi2DoStep: internal error (forced panic in fmi2DoStep at t = 1 "),
        "{message}"
    );

    let mut state = std::ptr::null_mut();
    type Call<'a> = Box<dyn FnMut(&mut Raw) -> u32 + 'a>;
    let refused: Vec<(&str, Call)> = vec![
        ("fmi2DoStep", Box::new(|r| r.step(1.0, 0.5))),
        ("fmi2GetReal", Box::new(|r| r.get(&[x]).0)),
        ("fmi2SetReal", Box::new(|r| r.set(&[f_a], &[1.0]))),
        ("fmi2GetFMUstate", Box::new(|r| r.get_state(&mut state))),
        (
            "fmi2GetRealStatus",
            Box::new(|r| r.real_status(LAST_SUCCESSFUL_TIME).0),
        ),
        (
            "fmi2GetBooleanStatus",
            Box::new(|r| r.boolean_status(TERMINATED).0),
        ),
        ("fmi2Terminate", Box::new(|r| r.terminate())),
        ("fmi2Reset", Box::new(|r| r.reset())),
        ("fmi2SetupExperiment", Box::new(|r| r.setup(0.0, None))),
    ];
    for (name, mut call) in refused {
        assert_eq!(call(&mut r), FATAL, "{name}");
        let logged = r.logged();
        assert_eq!(logged.len(), 1, "{name}: {logged:?}");
        let m = &logged[0].message;
        assert!(
            m.starts_with(&format!("{name}: ")) && m.contains("only fmi2FreeInstance"),
            "{name}: {m}"
        );
    }
    assert!(state.is_null(), "no FMU state was handed out");
    drop(r); // fmi2FreeInstance

    assert_eq!(other.step(0.5, 0.5), OK);
    assert_eq!(other.get(&[x]), (OK, before));
    assert!(other.logged().is_empty());
}
