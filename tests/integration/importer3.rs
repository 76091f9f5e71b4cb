//! FMI 3.0 FMUs through a second importer, the `fmi` crate's FMI 3.0 side
//! (FMPy is the first: tests/python/test_fmi3.py). Every number is compared bit
//! for bit with the core instance run in this process (the code the binary
//! wraps, as `lcsfmu simulate` runs it): the default experiment of first-order,
//! mechanical and event-driven models, with and without Event Mode; and on
//! rlc_diode event-driven, the early return at the switch and the mode change in
//! `fmi3UpdateDiscreteStates`, step by step equal to the core's.

use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::instance::InstanceCS;
use fmi::fmi3::{CoSimulation, Common, Fmi3Model, GetSet};
use fmi::EventFlags;
use lcsfmu::fmi::description;
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::version::FmiVersion;
use lcsfmu::instance::variables;
use lcsfmu::instance::{EventOptions, Instance};
use lcsfmu::model::{validate, Model};
use std::path::PathBuf;

/// `models/<stem>.toml` with `scheme` (None: the file's), and its FMI 3.0 FMU.
fn build(stem: &str, scheme: Option<&str>) -> (Model, PathBuf) {
    let path = super::model_path(stem);
    let model = validate::load_with(&path, &[], scheme).unwrap();
    let dir = scheme.unwrap_or("file");
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("target/test-fmus/fmi3/{dir}/{stem}.fmu"));
    let env = BuildEnv {
        fmi: FmiVersion::V3,
        ..BuildEnv::from_env()
    };
    export::build(&model, &path, &out, &env).unwrap_or_else(|e| panic!("{stem}: {e}"));
    (model, out)
}

/// The core instance, initialized as the FMU is below.
fn core(model: &Model, events: EventOptions) -> Instance {
    let mut inst = Instance::new(model.clone(), description::guid(model));
    inst.use_events(events).unwrap();
    inst.setup_experiment(model.experiment.start, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    inst
}

fn fmu(import: &Fmi3Import, start: f64, events: EventOptions) -> InstanceCS {
    let mut inst = import
        .instantiate_cs(
            "importer3",
            false,
            false,
            events.event_mode_used,
            events.early_return_allowed,
            &[],
        )
        .unwrap();
    inst.enter_initialization_mode(None, start, None).unwrap();
    inst.exit_initialization_mode().unwrap();
    inst
}

/// Every variable of the FMU and of the core, by value reference.
fn values(model: &Model, fmu: &mut InstanceCS, core: &mut Instance) -> (Vec<f64>, Vec<f64>) {
    let vrs: Vec<u32> = (0..variables::variables(model).len() as u32).collect();
    let (mut a, mut b) = (vec![0.0; vrs.len()], vec![0.0; vrs.len()]);
    fmu.get_float64(&vrs, &mut a).unwrap();
    core.get_reals(&vrs, &mut b).unwrap();
    (a, b)
}

/// After Event Mode at the start (FMI 3.0: an importer that uses it starts there).
fn leave_event_mode(fmu: &mut InstanceCS, core: &mut Instance) -> bool {
    let mut flags = EventFlags::default();
    fmu.update_discrete_states(&mut flags).unwrap();
    assert!(!flags.discrete_states_need_update && flags.next_event_time.is_none());
    fmu.enter_step_mode().unwrap();
    let changed = core.update_discrete_states().unwrap();
    core.enter_step_mode().unwrap();
    assert_eq!(flags.values_of_continuous_states_changed, changed);
    changed
}

#[test]
fn default_experiments_equal_the_core_bit_for_bit() {
    let cases = [
        ("rlc_diode", None),
        ("sign_spiral", None),
        ("coulomb_friction", None),
        ("bouncing_ball", None),
        ("rlc_diode", Some("event-driven")),
    ];
    for (stem, scheme) in cases {
        let (model, path) = build(stem, scheme);
        let import: Fmi3Import = fmi::import::from_path(&path).unwrap();
        for event_mode_used in [false, true] {
            let events = EventOptions {
                event_mode_used,
                early_return_allowed: false,
            };
            let (mut f, mut c) = (
                fmu(&import, model.experiment.start, events),
                core(&model, events),
            );
            if event_mode_used {
                leave_event_mode(&mut f, &mut c);
            }
            let e = model.experiment;
            let n = ((e.stop - e.start) / e.step).round().min(2000.0) as usize;
            let mut events_met = 0;
            for k in 0..n {
                let t = e.start + k as f64 * e.step;
                let (mut handling, mut terminate, mut early, mut last) = (false, false, false, 0.0);
                f.do_step(
                    t,
                    e.step,
                    true,
                    &mut handling,
                    &mut terminate,
                    &mut early,
                    &mut last,
                )
                .unwrap();
                c.do_step(t, e.step).unwrap();
                assert!(!early && !terminate, "{stem} at {t}");
                assert_eq!(last, c.last_successful_time());
                assert_eq!(handling, c.event_pending(), "{stem} at {t}");
                if handling {
                    events_met += 1;
                    f.enter_event_mode().unwrap();
                    c.enter_event_mode().unwrap();
                    leave_event_mode(&mut f, &mut c);
                }
                let (a, b) = values(&model, &mut f, &mut c);
                assert_eq!(
                    a, b,
                    "{stem} {scheme:?} event mode {event_mode_used} at {t}"
                );
            }
            if event_mode_used && stem == "rlc_diode" {
                assert!(events_met >= 1, "{stem} {scheme:?}: the switch is an event");
            }
        }
    }
}

#[test]
fn early_return_at_the_switch_through_the_fmi_crate() {
    let (model, path) = build("rlc_diode", Some("event-driven"));
    let import: Fmi3Import = fmi::import::from_path(&path).unwrap();
    let events = EventOptions {
        event_mode_used: true,
        early_return_allowed: true,
    };
    let (mut f, mut c) = (
        fmu(&import, model.experiment.start, events),
        core(&model, events),
    );
    leave_event_mode(&mut f, &mut c);
    let (mut t, end, h) = (0.0f64, 2.0, 0.5);
    let mut returns = vec![];
    while t < end {
        let next = ((t / h).floor() + 1.0) * h;
        let (mut handling, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        f.do_step(
            t,
            next - t,
            true,
            &mut handling,
            &mut terminate,
            &mut early,
            &mut last,
        )
        .unwrap();
        c.do_step(t, next - t).unwrap();
        assert_eq!(last, c.time());
        assert_eq!(early, last < next);
        if early {
            returns.push(last);
        }
        if handling {
            f.enter_event_mode().unwrap();
            c.enter_event_mode().unwrap();
            assert!(
                leave_event_mode(&mut f, &mut c),
                "the mode changes at {last}"
            );
        }
        let (a, b) = values(&model, &mut f, &mut c);
        assert_eq!(a, b, "at {last}");
        t = last;
    }
    let t_switch = 2.0 * std::f64::consts::PI / (3.0 * 3f64.sqrt());
    assert_eq!(returns.len(), 1, "{returns:?}");
    assert!((returns[0] - t_switch).abs() < 1e-5, "{returns:?}");
}

/// FMI 3.0 (fmi3EnterInitializationMode): a step past a defined stop time is
/// an error. relay_feedback's 3 s in steps of 0.01 accumulated as a master's
/// `t += h`: the 301st step (to 3.00999999999998) returns fmi3Error with every
/// variable as it was, and the instance goes on (a step that lands on the stop
/// time still runs).
#[test]
fn a_step_past_the_stop_time_is_an_error() {
    let (model, path) = build("relay_feedback", None);
    let import: Fmi3Import = fmi::import::from_path(&path).unwrap();
    let mut f = import
        .instantiate_cs("stop3", false, false, false, false, &[])
        .unwrap();
    f.enter_initialization_mode(None, 0.0, Some(3.0)).unwrap();
    f.exit_initialization_mode().unwrap();
    let vrs: Vec<u32> = (0..variables::variables(&model).len() as u32).collect();
    let read = |f: &mut InstanceCS| {
        let mut v = vec![0.0; vrs.len()];
        f.get_float64(&vrs, &mut v).unwrap();
        v
    };
    let step = |f: &mut InstanceCS, t: f64, h: f64| {
        let (mut handling, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        f.do_step(
            t,
            h,
            true,
            &mut handling,
            &mut terminate,
            &mut early,
            &mut last,
        )
    };
    let mut t = 0.0;
    for _ in 0..300 {
        step(&mut f, t, 0.01).unwrap();
        t += 0.01;
    }
    assert_eq!(t, 2.99999999999998);
    let before = read(&mut f);
    assert!(matches!(
        step(&mut f, t, 0.01),
        Err(fmi::fmi3::Fmi3Error::Error)
    ));
    assert_eq!(read(&mut f).as_slice(), before.as_slice());
    step(&mut f, t, 3.0 - t).unwrap();
    assert_eq!(read(&mut f)[0], 3.0, "the time, at the stop time");
}
