//! FMI 3.0 Model Exchange FMUs through a second importer, the `fmi` crate
//! (FMPy is the first: tests/python/test_model_exchange3.py). A forward-Euler
//! importer with events located by a secant step on the indicators drives the
//! FMU and the core instance (the code the binary wraps) with the same calls;
//! every state, derivative, indicator (by `fmi3GetEventIndicators` and by
//! `fmi3GetFloat64` of the named variables) and flag is compared bit for bit.
//! relay_feedback reaches its sliding surface once and stays on it; rlc_diode's
//! diode blocks once.

use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::instance::InstanceME;
use fmi::fmi3::{Common, Fmi3Model, GetSet, ModelExchange};
use fmi::EventFlags;
use lcsfmu::fmi::description;
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::version::{FmiVersion, Interfaces};
use lcsfmu::instance::{variables, Instance};
use lcsfmu::model::{validate, Model};
use std::path::PathBuf;

const ME: Interfaces = Interfaces {
    co_simulation: false,
    model_exchange: true,
};

/// `models/<stem>.toml` and its FMI 3.0 Model Exchange FMU.
fn build(stem: &str) -> (Model, PathBuf) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = super::model_path(stem);
    let model = validate::load(&path).unwrap();
    let out = root.join(format!("target/test-fmus/fmi3-me/{stem}.fmu"));
    let env = BuildEnv {
        fmi: FmiVersion::V3,
        interfaces: ME,
        ..BuildEnv::from_env()
    };
    export::build(&model, &path, &out, &env).unwrap_or_else(|e| panic!("{stem}: {e}"));
    (model, out)
}

/// The FMU and the core in Continuous-Time Mode after the first update.
fn start(import: &Fmi3Import, model: &Model) -> (InstanceME, Instance) {
    let mut f = import.instantiate_me("importer3_me", false, false).unwrap();
    f.enter_initialization_mode(None, 0.0, None).unwrap();
    f.exit_initialization_mode().unwrap();
    let mut c = Instance::new(model.clone(), description::guid_for(model, ME));
    c.use_model_exchange().unwrap();
    c.expose_event_indicators();
    c.setup_experiment(0.0, None).unwrap();
    c.enter_initialization_mode().unwrap();
    c.exit_initialization_mode().unwrap();
    update(&mut f, &mut c);
    f.enter_continuous_time_mode().unwrap();
    c.enter_continuous_time_mode().unwrap();
    (f, c)
}

/// One discrete-state update of both; the flags must agree.
fn update(f: &mut InstanceME, c: &mut Instance) {
    let mut flags = EventFlags::default();
    f.update_discrete_states(&mut flags).unwrap();
    let core = c.new_discrete_states().unwrap();
    assert!(!flags.discrete_states_need_update && !flags.terminate_simulation);
    assert_eq!(flags.next_event_time, core.next_event_time);
    assert_eq!(
        flags.values_of_continuous_states_changed,
        core.values_changed
    );
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|a| a.to_bits()).collect()
}

/// Euler with step `h` to `stop`; returns the event count and the final state.
fn euler(stem: &str, h: f64, stop: f64) -> (usize, Vec<f64>) {
    let (model, path) = build(stem);
    let import: Fmi3Import = fmi::import::from_path(&path).unwrap();
    let (mut f, mut c) = start(&import, &model);
    let (nx, nz) = (model.nx(), c.event_indicator_count());
    assert_eq!(f.get_number_of_continuous_states().unwrap(), nx);
    assert_eq!(f.get_number_of_event_indicators().unwrap(), nz);
    let base = variables::variables(&model).len() + nx;
    let z_vrs: Vec<u32> = (0..nz).map(|k| (base + k) as u32).collect();
    let (mut x, mut dx, mut dxc) = (vec![0.0; nx], vec![0.0; nx], vec![0.0; nx]);
    let (mut z0, mut z1, mut zc, mut named) =
        (vec![0.0; nz], vec![0.0; nz], vec![0.0; nz], vec![0.0; nz]);
    let (mut t, mut events) = (0.0, 0);
    while t < stop - 1e-12 {
        f.get_continuous_states(&mut x).unwrap();
        f.get_continuous_state_derivatives(&mut dx).unwrap();
        c.get_derivatives(&mut dxc).unwrap();
        assert_eq!(bits(&dx), bits(&dxc), "{stem} der at {t}");
        f.get_event_indicators(&mut z0).unwrap();
        for k in 0..nx {
            x[k] += h * dx[k];
        }
        f.set_time(t + h).unwrap();
        f.set_continuous_states(&x).unwrap();
        c.set_time(t + h).unwrap();
        c.set_continuous_states(&x).unwrap();
        f.get_event_indicators(&mut z1).unwrap();
        c.get_event_indicators(&mut zc).unwrap();
        f.get_float64(&z_vrs, &mut named).unwrap();
        assert_eq!(bits(&z1), bits(&zc), "{stem} indicators at {t}");
        assert_eq!(bits(&z1), bits(&named), "{stem} named indicators at {t}");
        let (mut enter, mut terminate) = (false, false);
        f.completed_integrator_step(true, &mut enter, &mut terminate)
            .unwrap();
        assert_eq!(
            enter,
            c.completed_integrator_step().unwrap().enter_event_mode
        );
        assert!(!terminate);
        let Some(k) = (0..nz).find(|&k| z0[k] > 0.0 && z1[k] <= 0.0) else {
            t += h;
            continue;
        };
        // The secant zero of the fired indicator (Euler is linear in h).
        let s = z0[k] / (z0[k] - z1[k]);
        let xe: Vec<f64> = (0..nx).map(|j| x[j] - h * dx[j] + s * h * dx[j]).collect();
        t += s * h;
        f.set_time(t).unwrap();
        f.set_continuous_states(&xe).unwrap();
        c.set_time(t).unwrap();
        c.set_continuous_states(&xe).unwrap();
        f.enter_event_mode().unwrap();
        c.enter_event_mode().unwrap();
        update(&mut f, &mut c);
        f.enter_continuous_time_mode().unwrap();
        c.enter_continuous_time_mode().unwrap();
        events += 1;
    }
    f.get_continuous_states(&mut x).unwrap();
    assert_eq!(bits(&x), bits(c.states()), "{stem} final state");
    f.terminate().unwrap();
    (events, x)
}

#[test]
fn euler_through_the_fmi_crate_equals_the_core_bit_for_bit() {
    let (events, x) = euler("relay_feedback", 1e-3, 3.0);
    assert_eq!(events, 1, "one event, then sliding");
    assert!((x[0] + x[1]).abs() < 1e-12, "off the surface: {x:?}");
    assert!((x[0] - 0.0312055).abs() < 1e-2, "x1(3) = {}", x[0]);
    let (events, x) = euler("rlc_diode", 1e-3, 2.0);
    assert_eq!(events, 1, "the diode blocks once");
    // blocked: q_C stays at its value at the switch (exact 0.5462930)
    assert!((x[1] - 0.5462930).abs() < 1e-2, "q_C(2) = {}", x[1]);
    // A nonlinear mode: the saturation is entered and left (measured: 4
    // events to t = 5), the same bits through the importer as in the core.
    let (events, x) = euler("vdp_saturation", 1e-3, 5.0);
    assert!(events >= 2, "{events} events");
    assert!(x.iter().all(|v| v.is_finite() && v.abs() < 3.0), "{x:?}");
}
