//! The event-driven scheme through the core `Instance`: switching times and
//! states against closed forms (the diode circuit, a saturated integrator
//! fed by a sine generated inside the model, the relay's sliding mode), the
//! sign spiral's accumulation, events inside and at the end of communication
//! steps, and FMU-state replay. Closed forms:
//! - `rlc_diode` (L = C = R = 1, x0 = (1, 0)): `i_L = e^{-t/2}(cos wt + sin wt/(2w))`,
//!   `q_C = (2/√3) e^{-t/2} sin wt`, `w = √3/2`, until `i_L = q_C`, i.e. `wt = π/3`,
//!   `t_s = 2π/(3√3)`; then `q_C = e^{-t_s/2}` and `i_L = q_C e^{-(t - t_s)}`.
//! - relay feedback (validation.md §6): the surface at `t_r = √2 - 1`, then
//!   `x1 = t_r e^{-(t - t_r)}`, `x2 = -x1`.

use super::{initialized, model_path};
use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};

/// A bundled model run event-driven, with the given tolerances.
fn event_model(stem: &str, rtol: f64, atol: f64) -> Model {
    let text = std::fs::read_to_string(model_path(stem)).unwrap();
    let text =
        format!("{text}\n[scheme]\nmethod = \"event-driven\"\nrtol = {rtol:e}\natol = {atol:e}\n");
    validate::from_str(&text, &model_path(stem)).unwrap_or_else(|e| panic!("{e}"))
}

fn get(i: &mut Instance, name: &str) -> f64 {
    let vars = lcsfmu::instance::variables::variables(i.model());
    let vr = vars.iter().position(|v| v.name == name).unwrap() as u32;
    let mut v = [0.0];
    i.get_reals(&[vr], &mut v).unwrap();
    v[0]
}

/// Steps from the instance's time to each of `points` in turn.
fn step_to(i: &mut Instance, points: &[f64]) {
    for &p in points {
        let t = i.time();
        i.do_step(t, p - t)
            .unwrap_or_else(|e| panic!("step to {p}: {e}"));
    }
}

fn t_switch() -> f64 {
    2.0 * std::f64::consts::PI / (3.0 * 3f64.sqrt())
}

#[test]
fn diode_switches_at_the_exact_time_and_x5_is_exact() {
    let ts = t_switch();
    // Bracket the switch with communication points 1e-8 on either side: the
    // diode voltage is exactly 0 while it conducts, positive once it blocks.
    let mut i = initialized(event_model("rlc_diode", 1e-10, 1e-12));
    step_to(&mut i, &[0.5, 1.0, ts - 1e-8]);
    assert_eq!(get(&mut i, "u_D"), 0.0, "still conducting 1e-8 before t_s");
    step_to(&mut i, &[ts + 1e-8]);
    assert!(get(&mut i, "u_D") > 0.0, "blocking 1e-8 after t_s");
    step_to(&mut i, &[2.0, 3.5, 5.0]);
    let qs = (-ts / 2.0).exp();
    let (il, qc) = (get(&mut i, "i_L"), get(&mut i, "q_C"));
    assert!(
        (il - qs * (-(5.0 - ts)).exp()).abs() <= 1e-8,
        "i_L(5) = {il}"
    );
    assert!((qc - qs).abs() <= 1e-8, "q_C(5) = {qc}");
}

#[test]
fn diode_event_driven_takes_far_fewer_steps_than_time_stepping() {
    // Over [0, 5] with communication steps of 0.5 and tolerances that give
    // 1e-8 (previous test). Backward Euler's error is 0.55 h (validation.md
    // §4), so it needs h = 1.8e-8 for that accuracy: 2.7e8 steps.
    let mut i = initialized(event_model("rlc_diode", 1e-10, 1e-12));
    let points: Vec<f64> = (1..=10).map(|k| k as f64 * 0.5).collect();
    step_to(&mut i, &points);
    let r = i.run_report().unwrap();
    let stepping = (5.0 / (1e-8 / 0.55)) as usize;
    println!(
        "rlc_diode to 1e-8: event-driven {} steps ({} rejected, {} RHS evaluations, {} events); backward Euler {stepping} steps",
        r.steps, r.rejected, r.rhs, r.events
    );
    assert_eq!(r.events, 1);
    // Measured: 2,896 steps (no rejection, one event), a ratio of about 9e4.
    assert!(r.steps * 10_000 < stepping, "{} steps", r.steps);
}

/// A saturated integrator fed by `s = sin t` from an oscillator inside the model.
const SINE_INTEGRATOR: &str = r#"
[model]
name = "sine_integrator"
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
[[blocks]]
name = "y"
type = "saturated_integrator"
input = "s"
lo = -0.5
hi = 0.5
"#;

#[test]
fn saturated_integrator_reaches_its_limits_at_pi_3_and_3pi_2() {
    let m = validate::from_str(SINE_INTEGRATOR, std::path::Path::new("sine.toml")).unwrap();
    let pi = std::f64::consts::PI;
    let mut i = initialized(m);
    step_to(&mut i, &[1.0, pi / 3.0 - 1e-8]);
    assert_eq!(get(&mut i, "y_hi"), 0.0);
    assert!(get(&mut i, "y") < 0.5);
    step_to(&mut i, &[pi / 3.0 + 1e-8]);
    assert!(get(&mut i, "y_hi") > 0.0, "held at the upper limit");
    assert!((get(&mut i, "y") - 0.5).abs() <= 1e-12);
    step_to(&mut i, &[3.0, 4.0, 1.5 * pi - 1e-8]);
    assert_eq!(get(&mut i, "y_lo"), 0.0);
    assert!(get(&mut i, "y") > -0.5);
    step_to(&mut i, &[1.5 * pi + 1e-8]);
    assert!(get(&mut i, "y_lo") > 0.0, "held at the lower limit");
    // validation.md §5: y(7) = -0.25390225 (the stop operator).
    step_to(&mut i, &[7.0]);
    assert!((get(&mut i, "y") - (-0.25390225)).abs() <= 1e-8);
}

#[test]
fn relay_reaches_the_surface_at_sqrt2_minus_1_then_slides() {
    let tr = 2f64.sqrt() - 1.0;
    let mut i = initialized(event_model("relay_feedback", 1e-10, 1e-12));
    step_to(&mut i, &[0.2, tr - 1e-8]);
    assert_eq!(get(&mut i, "u"), 1.0, "the relay is on before the surface");
    step_to(&mut i, &[tr + 1e-8]);
    let u = get(&mut i, "u");
    assert!(u < 1.0 && u > -1.0, "sliding: u = {u} inside (-1, 1)");
    let points: Vec<f64> = (1..=26).map(|k| 0.4 + k as f64 * 0.1).collect();
    step_to(&mut i, &points);
    let r = i.run_report().unwrap();
    assert_eq!(
        r.accumulation, None,
        "a sliding mode is a mode, not chattering"
    );
    let (x1, x2) = (get(&mut i, "x1"), get(&mut i, "x2"));
    assert!((x1 + x2).abs() <= 1e-10, "on the surface: {}", x1 + x2);
    assert!(
        (x1 - tr * (-(3.0 - tr)).exp()).abs() <= 1e-8,
        "x1(3) = {x1}"
    );
}

#[test]
fn sign_spiral_accumulation_is_reported_and_the_origin_reached() {
    let mut i = initialized(event_model("sign_spiral", 1e-8, 1e-10));
    let mut accumulated = None;
    for k in 1..=150 {
        let t = i.time();
        i.do_step(t, k as f64 * 0.01 - t).unwrap();
        let r = i.step_report().unwrap();
        if let Some(at) = r.accumulation {
            accumulated.get_or_insert(at);
            let (_, warning) = i.describe_step(t);
            assert!(warning.unwrap().contains("events accumulate at t = "));
        }
        if i.time() >= 1.01 - 1e-12 {
            let (x1, x2) = (get(&mut i, "x1"), get(&mut i, "x2"));
            assert!(
                x1.abs() + x2.abs() <= 1e-6,
                "t = {}: ({x1}, {x2})",
                i.time()
            );
        }
    }
    let at = accumulated.expect("the accumulation at t = 1 is reported");
    assert!((at - 1.0).abs() <= 1e-6, "accumulation at {at}");
}

#[test]
fn an_event_at_the_end_of_a_communication_step_and_ragged_steps_agree() {
    // The same run with the switch exactly at a communication point, inside
    // steps of ragged sizes, and inside one step of 5.
    let ts = t_switch();
    let run = |points: &[f64]| {
        let mut i = initialized(event_model("rlc_diode", 1e-10, 1e-12));
        step_to(&mut i, points);
        (
            get(&mut i, "i_L"),
            get(&mut i, "q_C"),
            i.run_report().unwrap(),
        )
    };
    let at_end = run(&[ts, 5.0]);
    let ragged: Vec<f64> = (1..=60)
        .map(|k| 5.0 * (k as f64 / 60.0).powf(1.3))
        .collect();
    let ragged = run(&ragged);
    let whole = run(&[5.0]);
    for (what, r) in [("at the end", at_end), ("ragged", ragged), ("whole", whole)] {
        assert!(
            (r.0 - at_end.0).abs() <= 2e-8 && (r.1 - at_end.1).abs() <= 2e-8,
            "{what}"
        );
        assert_eq!(r.2.events, 1, "{what}: one switch");
    }
    // Clipping at communication points must not shrink the step for good:
    // the ragged run takes about as many steps as the whole one.
    assert!(
        ragged.2.steps <= whole.2.steps + 2 * 60,
        "{} vs {}",
        ragged.2.steps,
        whole.2.steps
    );
}

#[test]
fn fmu_state_replay_is_bit_identical() {
    let mut i = initialized(event_model("rlc_diode", 1e-8, 1e-10));
    step_to(&mut i, &[0.3, 0.7]);
    let saved = i.snapshot();
    let run = |i: &mut Instance| {
        let mut out = vec![];
        for k in 1..=20 {
            step_to(i, &[0.7 + k as f64 * 0.1]);
            out.push((get(i, "i_L").to_bits(), get(i, "u_D").to_bits()));
        }
        out
    };
    let first = run(&mut i);
    i.restore(&saved).unwrap();
    assert_eq!(run(&mut i), first);
}

#[test]
fn event_driven_steps_allocate_nothing() {
    // Steps with events, mode flips, selection LCPs and (for the spiral) an
    // accumulation finished by time-stepping; sizes of communication steps vary.
    for (stem, stop) in [
        ("rlc_diode", 3.0),
        ("sign_spiral", 1.5),
        ("relay_feedback", 2.0),
    ] {
        let mut i = initialized(event_model(stem, 1e-8, 1e-10));
        let mut t = 0.0;
        let mut k = 0;
        while t < stop {
            let h = if k % 3 == 0 { 0.013 } else { 0.05 };
            let (n, r) = super::alloc::allocations(|| i.do_step(t, h));
            r.unwrap();
            assert_eq!(n, 0, "{stem}: step {k} at t = {t} allocated {n} times");
            t = i.time();
            k += 1;
        }
        assert!(
            i.run_report().unwrap().events >= 1,
            "{stem}: no event happened"
        );
    }
}

#[test]
fn a_communication_step_ends_inside_rejected_runge_kutta_steps() {
    // A restored state proposing a first step of 4 (far too long for rtol
    // 1e-10): the step clipped to the communication point 0.5 is rejected
    // and shrunk until it passes; the step still ends exactly at 0.5 with the
    // accuracy asked for.
    let mut i = initialized(event_model("rlc_diode", 1e-10, 1e-12));
    let mut s = i.snapshot();
    s.cached_step = 4.0;
    i.restore(&s).unwrap();
    i.do_step(0.0, 0.5).unwrap();
    let r = i.step_report().unwrap();
    assert!(r.rejected >= 1, "{r:?}");
    assert_eq!(i.time(), 0.5);
    let w = 3f64.sqrt() / 2.0;
    let il = (-0.25f64).exp() * ((0.5 * w).cos() + (0.5 * w).sin() / (2.0 * w));
    assert!(
        (get(&mut i, "i_L") - il).abs() <= 1e-9,
        "{}",
        get(&mut i, "i_L") - il
    );
}
