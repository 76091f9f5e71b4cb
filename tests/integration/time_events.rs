//! Jumps of sources in time under the event-driven scheme (`src/model/time_jumps.rs`,
//! `EventStepper::cross_time_jump`):
//! - a PWM-driven clamp, `x' = step(d - frac(time/T)) - 1/2 + u`, `0 <= u ⟂ x >= 0`:
//!   piecewise linear, so the Runge–Kutta pair integrates it exactly and the state at every
//!   communication point equals the closed form to rounding; the jumps at `(k + d) T` and
//!   `k T` and the mode switch at `(k + 2d) T` (the clamp engages) are all crossed, the
//!   one at `k T` also releases the clamp;
//! - communication points on the jumps themselves (the jump is crossed at the start of the
//!   next step, with no time to integrate over);
//! - `buck_pwm`: the average output voltage is `d Vin` to 1e-4 (the theta-method at the
//!   model's step is off by 0.05: it sees the carrier at its steps' ends);
//! - a square wave `sign(sin(2 pi time))` integrates to its triangle wave exactly;
//! - FMU-state replay across jumps is bit for bit and steps allocate nothing.

use super::nonlinear_events::{bundled, get, initialized, model, step_to};
use lcsfmu::instance::Instance;
use lcsfmu::model::Method;

const PWM_CLAMP: &str = r#"
[model]
name = "pwm_clamp"
[scheme]
method = "event-driven"
rtol = 1e-10
atol = 1e-12
[[parameters]]
name = "T"
value = 1.0
[[parameters]]
name = "d"
value = 0.3
[[states]]
name = "x"
der = "step(d - frac(time/T)) - 0.5 + u"
[[blocks]]
name = "u"
type = "diode"
input = "x"
"#;

/// The clamp's closed form: up at 1/2 for `d T`, down at 1/2 for `d T`, held at 0.
fn clamp_exact(t: f64) -> (f64, f64) {
    let (tau, d) = (t - t.floor(), 0.3);
    if tau <= d {
        (0.5 * tau, 0.0)
    } else if tau <= 2.0 * d {
        (0.5 * d - 0.5 * (tau - d), 0.0)
    } else {
        (0.0, 0.5)
    }
}

fn clamp_run(h: f64, stop: f64) -> (Instance, f64) {
    let mut i = initialized(model(PWM_CLAMP), 0.0);
    let mut worst = 0.0f64;
    let n = (stop / h).round() as usize;
    for k in 1..=n {
        step_to(&mut i, &[k as f64 * h]);
        let (x, u) = clamp_exact(i.time());
        worst = worst.max((get(&mut i, "x") - x).abs());
        // u only away from its switching instants, where the sampled value is either.
        let tau = i.time() - i.time().floor();
        if (tau - 0.6).abs() > 1e-9 && tau > 1e-9 && (tau - 1.0).abs() > 1e-9 {
            assert!((get(&mut i, "u") - u).abs() <= 1e-9, "u at {}", i.time());
        }
    }
    (i, worst)
}

#[test]
fn a_pwm_driven_clamp_equals_its_closed_form() {
    // h = 0.07 puts no communication point on a jump.
    let (i, worst) = clamp_run(0.07, 3.5);
    assert!(worst <= 1e-14, "max |x - exact| = {worst:e}");
    let r = i.run_report().unwrap();
    // Jumps at k + 0.3 (k = 0..3) and k (k = 1..3): 7. Mode switches: the clamp
    // engages at k + 0.6 (k = 0..2) and is released by the jumps at k (k = 1..3).
    assert_eq!((r.time_events, r.events), (7, 6), "{r:?}");
}

#[test]
fn communication_points_on_the_jumps() {
    // h = 0.05 puts communication points on (or within rounding of) every jump.
    let (i, worst) = clamp_run(0.05, 3.0);
    assert!(worst <= 1e-14, "max |x - exact| = {worst:e}");
    assert!(i.run_report().unwrap().time_events >= 5);
}

/// A triangle wave from a square one, `x' = sign(sin(2 pi time))`: `sign`'s
/// jumps (each side and the zero between, when a time hits it) are time events
/// like `step`'s, and the piecewise-linear state equals its closed form.
#[test]
fn a_square_wave_of_sign_integrates_to_its_triangle() {
    let text = r#"
[model]
name = "triangle"
[scheme]
method = "event-driven"
rtol = 1e-10
atol = 1e-12
[[states]]
name = "x"
der = "sign(sin(2*pi*time))"
"#;
    let mut i = initialized(model(text), 0.0);
    let mut worst = 0.0f64;
    for k in 1..=43 {
        step_to(&mut i, &[k as f64 * 0.07]);
        let tau = i.time() - i.time().floor();
        let exact = if tau <= 0.5 { tau } else { 1.0 - tau };
        worst = worst.max((get(&mut i, "x") - exact).abs());
    }
    assert!(worst <= 1e-13, "max |x - exact| = {worst:e}");
    // The jumps at k/2 for k = 1..6 (t = 3.01 at the end).
    let events = i.run_report().unwrap().time_events;
    println!("triangle from sign: max |x - exact| = {worst:e}, {events} time events");
    assert!((6..=8).contains(&events), "{events} time events");
}

#[test]
fn buck_pwm_event_driven_averages_d_vin() {
    let m = bundled("buck_pwm", Method::EventDriven, 1e-8, 1e-10);
    let mut i = initialized(m, 0.0);
    let h = 1e-6;
    let (mut sum, mut n) = (0.0, 0usize);
    for k in 1..=30_000 {
        step_to(&mut i, &[k as f64 * h]);
        // Whole periods (T = 1e-4) at the end: steady state.
        if k > 20_000 {
            sum += get(&mut i, "vC");
            n += 1;
        }
    }
    let mean = sum / n as f64;
    assert!((mean - 6.0).abs() <= 1e-4, "mean vC = {mean}");
    let r = i.run_report().unwrap();
    // Two jumps per period of 1e-4 over 0.03 s: 600, every one crossed as a time
    // event (the blocking mode, whose relation reads vx with a coefficient s that
    // is zero there, holds iL = 0 through its derivative; before that rule it was
    // singular and time-stepping crossed 5 jumps uncounted: 595).
    assert_eq!(r.time_events, 600, "{r:?}");
}

#[test]
fn fmu_state_replay_across_jumps_is_bit_identical() {
    let mut i = initialized(model(PWM_CLAMP), 0.0);
    step_to(&mut i, &[0.25]);
    let saved = i.snapshot();
    let run = |i: &mut Instance| {
        (1..=20)
            .map(|k| {
                step_to(i, &[0.25 + k as f64 * 0.07]);
                (get(i, "x").to_bits(), get(i, "u").to_bits())
            })
            .collect::<Vec<_>>()
    };
    let first = run(&mut i);
    i.restore(&saved).unwrap();
    assert_eq!(run(&mut i), first);
}

#[test]
fn steps_across_jumps_allocate_nothing() {
    let mut i = initialized(model(PWM_CLAMP), 0.0);
    for k in 1..=40 {
        let t = i.time();
        let (n, r) = super::alloc::allocations(|| i.do_step(t, k as f64 * 0.07 - t));
        r.unwrap();
        assert_eq!(n, 0, "step {k} allocated {n} times");
    }
    assert!(i.run_report().unwrap().time_events > 0);
}

/// `lcsfmu simulate -v` reports what the event-driven scheme took, time events included.
#[test]
fn simulate_verbose_reports_the_time_events() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
        .args([
            "simulate",
            "--scheme",
            "event-driven",
            "--stop",
            "0.001",
            "-v",
        ])
        .arg(super::model_path("buck_pwm"))
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Jumps at (k + d) T and (k + 1) T, T = 1e-4, over 1 ms: 20.
    assert!(stderr.contains(", 20 time events,"), "{stderr}");
}
