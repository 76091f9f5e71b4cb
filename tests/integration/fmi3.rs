//! FMI 3.0 Co-Simulation: the archive `lcsfmu build --fmi 3` writes passes
//! `lcsfmu check`, and the core instance's Event Mode and early return behave as
//! src/instance/events.rs says, without the C shell (the FMPy tests in
//! tests/python/test_fmi3.py drive the binary).

use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::version::FmiVersion;
use lcsfmu::instance::state::Phase;
use lcsfmu::instance::{EventOptions, FmiResult, Instance};
use lcsfmu::model::validate;
use lcsfmu::tool::conformance;
use std::path::PathBuf;

fn model_path(stem: &str) -> PathBuf {
    super::model_path(stem)
}

/// The switching time of rlc_diode (validation.md §4): 2 pi / (3 sqrt 3).
fn t_switch() -> f64 {
    2.0 * std::f64::consts::PI / (3.0 * 3f64.sqrt())
}

#[test]
fn fmi3_archive_passes_check() {
    let path = model_path("rlc_diode");
    let model = validate::load(&path).unwrap();
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-fmus/fmi3/rlc_diode.fmu");
    let env = BuildEnv {
        fmi: FmiVersion::V3,
        ..BuildEnv::from_env()
    };
    export::build(&model, &path, &out, &env).unwrap();
    let report = conformance::check(&out, None);
    let lines = report.lines();
    assert_eq!(report.failed(), 0, "{lines:#?}");
    for expected in [
        "PASS fmiVersion is \"3.0\"",
        "PASS binaries/x86_64-linux/rlc_diode.so present",
        "PASS exports exactly the 75 functions of fmi3Functions.h",
        "PASS the embedded model's GUID is the XML's guid",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "{expected}: {lines:#?}"
        );
    }
}

/// An instance of rlc_diode with `scheme` (None: the file's), in Step Mode (or
/// Event Mode with `events.event_mode_used`) at t = 0.
fn started(scheme: Option<&str>, events: EventOptions) -> Instance {
    let model = validate::load_with(&model_path("rlc_diode"), &[], scheme).unwrap();
    let mut inst = Instance::new(model, "{guid}");
    inst.use_events(events).unwrap();
    inst.setup_experiment(0.0, Some(5.0)).unwrap();
    inst.enter_initialization_mode().unwrap();
    assert_eq!(inst.exit_initialization_mode().unwrap(), None);
    inst
}

const BOTH: EventOptions = EventOptions {
    event_mode_used: true,
    early_return_allowed: true,
};

#[test]
fn event_driven_step_returns_at_the_switch_and_event_mode_changes_mode() {
    let mut inst = started(Some("event-driven"), BOTH);
    assert_eq!(inst.phase(), Phase::EventMode);
    assert!(!inst.update_discrete_states().unwrap());
    inst.enter_step_mode().unwrap();
    for t in [0.0, 0.5] {
        inst.do_step(t, 0.5).unwrap();
        assert!(!inst.event_pending());
        assert_eq!(inst.time(), t + 0.5);
    }
    inst.do_step(1.0, 0.5).unwrap();
    let t_event = inst.time();
    assert!(inst.event_pending());
    assert_eq!(inst.last_successful_time(), t_event);
    // Default tolerances (rtol 1e-6, atol 1e-9: 1.8e-6 off, measured); the tight
    // build's 1e-8 is the FMPy test's.
    assert!((t_event - t_switch()).abs() < 1e-5, "{t_event}");
    // Still the conducting mode at the event: u_D = 0.
    assert_eq!(inst.pairs()[0], 0.0);
    inst.enter_event_mode().unwrap();
    assert!(inst.do_step(t_event, 0.1).is_err(), "no step in Event Mode");
    assert!(inst.update_discrete_states().unwrap());
    assert!(
        !inst.update_discrete_states().unwrap(),
        "one update settles it"
    );
    inst.enter_step_mode().unwrap();
    inst.do_step(t_event, 1.5 - t_event).unwrap();
    assert_eq!(inst.time(), 1.5);
    assert!(!inst.event_pending());
    assert!(inst.pairs()[0] > 0.0, "the diode blocks after the switch");
}

#[test]
fn without_event_mode_the_step_is_the_fmi2_step() {
    for scheme in [None, Some("event-driven")] {
        let mut two = started(scheme, EventOptions::default());
        let mut three = started(
            scheme,
            EventOptions {
                event_mode_used: true,
                early_return_allowed: false,
            },
        );
        three.update_discrete_states().unwrap();
        three.enter_step_mode().unwrap();
        let mut events = 0;
        for k in 0..50 {
            let t = k as f64 * 0.1;
            two.do_step(t, 0.1).unwrap();
            three.do_step(t, 0.1).unwrap();
            if three.event_pending() {
                events += 1;
                three.enter_event_mode().unwrap();
                assert!(!three.update_discrete_states().unwrap());
                three.enter_step_mode().unwrap();
            }
            assert_eq!(two.states(), three.states(), "{scheme:?} at {t}");
            assert_eq!(two.pairs(), three.pairs(), "{scheme:?} at {t}");
        }
        assert_eq!(events, 1, "{scheme:?}: the diode switches once");
    }
}

/// FMI 3.0's Event Mode path of the core allocates nothing: steps that return
/// early at the diode's switch (event-driven) or note the change of active set
/// (time-stepping), and the Event Mode round trip after each.
#[test]
fn event_mode_steps_allocate_nothing() {
    for scheme in [None, Some("event-driven")] {
        let mut inst = started(scheme, BOTH);
        inst.update_discrete_states().unwrap();
        inst.enter_step_mode().unwrap();
        let mut events = 0;
        while inst.time() < 5.0 {
            let t = inst.time();
            // The last step ends on the stop time set up (5): one past it is refused.
            let h = (5.0 - t).min(0.1);
            let (n, stepped) = super::alloc::allocations(|| -> FmiResult<bool> {
                inst.do_step(t, h)?;
                if inst.event_pending() {
                    inst.enter_event_mode()?;
                    while inst.update_discrete_states()? {}
                    inst.enter_step_mode()?;
                    return Ok(true);
                }
                Ok(false)
            });
            events += usize::from(stepped.unwrap_or_else(|e| panic!("{scheme:?} at {t}: {e:?}")));
            assert_eq!(n, 0, "{scheme:?}: the step from {t} allocated {n} times");
        }
        assert_eq!(events, 1, "{scheme:?}: the diode switches once");
    }
}
