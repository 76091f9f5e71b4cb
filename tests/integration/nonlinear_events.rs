//! The event-driven scheme on nonlinear first-order models (`src/scheme/mode/nonlinear.rs`)
//! through the core `Instance`:
//! - a guard nonlinear in the state located on the interpolant: `u = clamp(s², -1, 1/4)`
//!   with `s = sin t`, `z' = u`; the limit is reached at `t = π/6`, left at `5π/6`, and
//!   `z(3) = π/12 - sin(π/3)/4 + π/6 + (3/2 - sin(6)/4) - (5π/12 - sin(5π/3)/4)`
//!   (`∫ sin² = t/2 - sin(2t)/4`);
//! - `diode_bridge_source` (a source `Vm cos(ω time)` in its relations) against the
//!   theta-method, which converges to it at first order; the source read at the absolute
//!   time (a run from half a period equals the run from 0: the bridge rectifies both signs);
//! - a free pair whose equation loses its root: the step is refused with the reason and
//!   the state kept;
//! - the Newton steps of the time-stepping fallback counted in the Newton
//!   statistics (a nonlinear sign spiral whose switches accumulate);
//! - FMU-state replay bit for bit, steps that allocate nothing.

use super::model_path;
use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Method, Model};
use std::f64::consts::PI;

pub(super) fn model(text: &str) -> Model {
    validate::from_str(text, std::path::Path::new("nl_events.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn bundled(stem: &str, method: Method, rtol: f64, atol: f64) -> Model {
    let mut m = validate::load(&model_path(stem)).unwrap_or_else(|e| panic!("{e}"));
    m.scheme.method = method;
    m.scheme.event.rtol = rtol;
    m.scheme.event.atol = atol;
    m
}

pub(super) fn initialized(m: Model, start: f64) -> Instance {
    let mut i = Instance::new(m, "{g}");
    i.setup_experiment(start, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i
}

pub(super) fn get(i: &mut Instance, name: &str) -> f64 {
    let vars = lcsfmu::instance::variables::variables(i.model());
    let vr = vars.iter().position(|v| v.name == name).unwrap() as u32;
    let mut v = [0.0];
    i.get_reals(&[vr], &mut v).unwrap();
    v[0]
}

pub(super) fn step_to(i: &mut Instance, points: &[f64]) {
    for &p in points {
        let t = i.time();
        i.do_step(t, p - t)
            .unwrap_or_else(|e| panic!("step to {p}: {e}"));
    }
}

const SQUARED_SINE: &str = r#"
[model]
name = "squared_sine"
[scheme]
method = "event-driven"
rtol = 1e-10
atol = 1e-12
[[states]]
name = "s"
der = "c"
[[states]]
name = "c"
start = 1.0
der = "-s"
[[states]]
name = "z"
der = "u"
[[blocks]]
name = "u"
type = "saturation"
input = "s^2"
lo = -1
hi = 0.25
"#;

#[test]
fn a_guard_nonlinear_in_the_state_is_located_on_the_interpolant() {
    let mut i = initialized(model(SQUARED_SINE), 0.0);
    let (on, off) = (PI / 6.0, 5.0 * PI / 6.0);
    step_to(&mut i, &[0.3, on - 1e-7]);
    assert!(get(&mut i, "u") < 0.25 && get(&mut i, "u_hi") == 0.0);
    step_to(&mut i, &[on + 1e-7]);
    assert!(get(&mut i, "u_hi") > 0.0, "at the limit 1e-7 after π/6");
    assert!((get(&mut i, "u") - 0.25).abs() <= 1e-15);
    step_to(&mut i, &[2.0, off - 1e-7]);
    assert!(
        get(&mut i, "u_hi") > 0.0,
        "still at the limit 1e-7 before 5π/6"
    );
    step_to(&mut i, &[off + 1e-7]);
    assert_eq!(get(&mut i, "u_hi"), 0.0, "released 1e-7 after 5π/6");
    step_to(&mut i, &[3.0]);
    let integral = |t: f64| t / 2.0 - (2.0 * t).sin() / 4.0;
    let z = integral(on) + 0.25 * (off - on) + integral(3.0) - integral(off);
    let got = get(&mut i, "z");
    assert!((got - z).abs() <= 1e-9, "z(3) = {got}, exact {z}");
    let r = i.run_report().unwrap();
    assert_eq!(r.events, 2, "{r:?}");
}

/// `v` of `diode_bridge_source` at `times` with `method` and communication step `h`.
fn bridge(method: Method, h: f64, start: f64, times: &[f64]) -> Vec<f64> {
    let mut i = initialized(bundled("diode_bridge_source", method, 1e-10, 1e-12), start);
    let mut out = vec![];
    let mut k = 0u64;
    for &t in times {
        while i.time() < t - 1e-12 {
            k += 1;
            let next = (start + k as f64 * h).min(t);
            let now = i.time();
            i.do_step(now, next - now).unwrap();
        }
        out.push(get(&mut i, "v"));
    }
    out
}

#[test]
fn diode_bridge_source_is_the_limit_of_the_theta_method() {
    let times = [0.003, 0.011, 0.024, 0.04];
    let events = bridge(Method::EventDriven, 1e-3, 0.0, &times);
    let coarse = bridge(Method::Theta, 1e-5, 0.0, &times);
    let fine = bridge(Method::Theta, 1e-6, 0.0, &times);
    let err = |v: &[f64]| {
        v.iter()
            .zip(&events)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    };
    let (e5, e6) = (err(&coarse), err(&fine));
    println!(
        "diode_bridge_source: |theta - event-driven| {e5:.3e} (h = 1e-5), {e6:.3e} (h = 1e-6)"
    );
    // First order: ten times smaller step, about ten times smaller difference.
    assert!(e6 < e5 / 7.0 && e6 < e5 / 13.0 * 2.0, "{e5} {e6}");
    assert!(e6 <= 1e-3 * events.iter().fold(0.0f64, |m, v| m.max(v.abs())));
}

#[test]
fn the_source_is_read_at_the_absolute_time() {
    // cos(ω(t + T/2)) = -cos(ωt), and the full-wave bridge gives the load the same
    // voltage for both signs: from t0 = T/2 with v = 0 the load sees the run from 0.
    let half = PI / 314.159265358979;
    let times = [0.002, 0.007, 0.013];
    let from0 = bridge(Method::EventDriven, 1e-3, 0.0, &times);
    let shifted: Vec<f64> = times.iter().map(|t| t + half).collect();
    let from_half = bridge(Method::EventDriven, 1e-3, half, &shifted);
    for (a, b) in from0.iter().zip(&from_half) {
        assert!((a - b).abs() <= 1e-7 * a.abs().max(1.0), "{a} vs {b}");
    }
    assert!(
        from0.iter().any(|v| *v > 1.0),
        "the load charges: {from0:?}"
    );
}

/// `z = clamp(e, -100, 100)` with `e = z - (z - 2)² - 1 + x`: the free `z` solves
/// `(z - 2)² = x - 1`, whose roots vanish when `x = 2 - t` falls below 1 at `t = 1`.
const LOSES_ITS_ROOT: &str = r#"
[model]
name = "loses_its_root"
[scheme]
method = "event-driven"
[[states]]
name = "x"
start = 2.0
der = "-1"
[[states]]
name = "q"
der = "z"
[[blocks]]
name = "z"
type = "saturation"
input = "z - (z - 2)^2 - 1 + x"
lo = -100
hi = 100
"#;

#[test]
fn a_free_pair_without_solution_discards_the_step_and_keeps_the_state() {
    let mut i = initialized(model(LOSES_ITS_ROOT), 0.0);
    step_to(&mut i, &[0.5, 0.9]);
    let z = get(&mut i, "z");
    assert!(
        (z - (2.0 - 0.1f64.sqrt())).abs() <= 1e-9,
        "the root below 2: {z}"
    );
    let (x, q) = (get(&mut i, "x"), get(&mut i, "q"));
    let e = i.do_step(0.9, 0.2).unwrap_err();
    assert!(
        e.message
            .contains("the mode's free pairs cannot be solved for at t = "),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("keeps the state at t = 0.9"),
        "{}",
        e.message
    );
    assert_eq!((get(&mut i, "x"), get(&mut i, "q")), (x, q));
}

/// The sign spiral with its field scaled by `1 + x1²` (nonlinear, and still
/// a spiral that reaches the origin in finite time); at most one event per
/// communication step, so the time-stepping fallback finishes the steps with
/// more.
const NONLINEAR_SPIRAL: &str = r#"
[model]
name = "nonlinear_spiral"
[scheme]
method = "event-driven"
rtol = 1e-8
atol = 1e-10
max_events_per_step = 1
[[states]]
name = "x1"
start = -1.0
der = "(-u1 + 2*u2)*(1 + x1^2)"
[[states]]
name = "x2"
start = 1.0
der = "(-2*u1 - u2)*(1 + x1^2)"
[[blocks]]
name = "u1"
type = "sign"
input = "x1"
[[blocks]]
name = "u2"
type = "sign"
input = "x2"
"#;

#[test]
fn the_newton_fallback_counts_in_the_newton_statistics() {
    let mut i = initialized(model(NONLINEAR_SPIRAL), 0.0);
    let steps = |i: &Instance| -> usize {
        let stats = i
            .newton_stats()
            .expect("the event-driven scheme reports them");
        stats.histogram.iter().sum()
    };
    assert_eq!(steps(&i), 0);
    let mut finished_by_stepping = false;
    for k in 1..=10 {
        step_to(&mut i, &[k as f64 * 0.2]);
        let r = i.step_report().unwrap();
        finished_by_stepping |= r.accumulation.is_some() || r.singular_mode;
    }
    assert!(finished_by_stepping, "steps with more events than allowed");
    let (x1, x2) = (get(&mut i, "x1"), get(&mut i, "x2"));
    assert!(
        x1.abs() + x2.abs() <= 1e-6,
        "at rest at the origin: ({x1}, {x2})"
    );
    // Each time step of the fallback is one converged Newton step.
    let n = steps(&i);
    assert!((1..=10).contains(&n), "{n} Newton steps");
}

#[test]
fn fmu_state_replay_is_bit_identical() {
    let mut i = initialized(
        bundled("vdp_saturation", Method::EventDriven, 1e-8, 1e-10),
        0.0,
    );
    step_to(&mut i, &[0.1]);
    let saved = i.snapshot();
    let run = |i: &mut Instance| {
        let mut out = vec![];
        for k in 1..=40 {
            step_to(i, &[0.1 + k as f64 * 0.1]);
            out.push((get(i, "x1").to_bits(), get(i, "u").to_bits()));
        }
        out
    };
    let first = run(&mut i);
    assert!(
        i.run_report().unwrap().events >= 2,
        "the run crosses switches"
    );
    i.restore(&saved).unwrap();
    assert_eq!(run(&mut i), first);
}

#[test]
fn steps_allocate_nothing() {
    for (m, stop) in [
        (
            bundled("vdp_saturation", Method::EventDriven, 1e-8, 1e-10),
            8.0,
        ),
        (
            bundled("diode_bridge_source", Method::EventDriven, 1e-8, 1e-10),
            0.02,
        ),
        (model(SQUARED_SINE), 3.0),
    ] {
        let name = m.name.clone();
        let mut i = initialized(m, 0.0);
        let h = stop / 40.0;
        for k in 0..40 {
            let t = i.time();
            let (n, r) = super::alloc::allocations(|| i.do_step(t, (k + 1) as f64 * h - t));
            r.unwrap();
            assert_eq!(n, 0, "{name}: step {k} allocated {n} times");
        }
        assert!(i.run_report().unwrap().events >= 1, "{name}: no event");
    }
}
