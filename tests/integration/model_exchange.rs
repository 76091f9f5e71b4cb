//! The core instance as a Model Exchange FMU runs it (`instance::model_exchange`),
//! driven by hand as an importer would, without building an FMU:
//!
//! - the life cycle follows the one state table: calls of the other interface
//!   type, calls in the wrong phase, NaN and miscounted states are refused with
//!   the reason and change nothing; mechanical models are refused, nonlinear
//!   first-order ones accepted (their runs: `me_nonlinear`);
//! - a forward-Euler importer on the relay (h = 1e-4) with its event located by
//!   bisection on the indicators reaches the sliding surface at sqrt(2) - 1 and
//!   stays on it, and reading der(x) equals `fmi2GetDerivatives`;
//! - the per-call path (set time and states, derivatives, indicators, the
//!   completed step, outputs) allocates nothing.
//!
//! The Euler importers without event location the later tests drive are in
//! `model_exchange/euler.rs`.

mod euler;

use super::alloc::allocations;
use super::model;
use euler::{euler_trace, relay_under_euler};
use lcsfmu::instance::state::Phase;
use lcsfmu::instance::{variables, Instance};

/// An instance of `stem` in Continuous-Time Mode after initialization.
fn running(stem: &str) -> Instance {
    crate::running_me(model(stem))
}

#[test]
fn calls_outside_the_table_are_refused_and_change_nothing() {
    // Mechanical models are refused; the nonlinear first-order ones are not.
    for stem in ["bouncing_ball", "two_carts"] {
        let mut i = Instance::new(model(stem), "g");
        let e = i.use_model_exchange().unwrap_err();
        assert!(e.message.contains(stem), "{}", e.message);
        assert!(e.message.contains("mechanical model"), "{}", e.message);
    }
    for stem in ["vdp_saturation", "diode_bridge_source", "buck_pwm"] {
        let mut i = Instance::new(model(stem), "g");
        i.use_model_exchange()
            .unwrap_or_else(|e| panic!("{stem}: {}", e.message));
    }
    let mut i = Instance::new(model("rlc_diode"), "g");
    i.use_model_exchange().unwrap();
    let mut d = [0.0; 2];
    assert!(i.get_derivatives(&mut d).is_err(), "before initialization");
    let mut i = running("rlc_diode");
    // Co-simulation calls on a Model Exchange instance.
    let e = i.do_step(0.0, 0.1).unwrap_err();
    assert!(e.message.contains("DoStep"), "{}", e.message);
    // FMU states are provided for Model Exchange.
    assert!(i.check(lcsfmu::instance::state::Call::FmuState).is_ok());
    // NaN and a wrong count: refused, the states kept.
    let e = i.set_continuous_states(&[f64::NAN, 0.0]).unwrap_err();
    assert!(
        e.message.contains("i_L") && e.message.contains("NaN"),
        "{}",
        e.message
    );
    assert!(i.set_continuous_states(&[1.0, 0.0, 0.0]).is_err());
    let mut x = [0.0; 2];
    i.get_continuous_states(&mut x).unwrap();
    assert_eq!(x, [1.0, 0.0]);
    // Event Mode: no states may be set, the time may.
    i.enter_event_mode().unwrap();
    assert!(i.set_continuous_states(&[1.0, 0.0]).is_err());
    i.set_time(0.5).unwrap();
    assert!(i.set_time(f64::NAN).is_err());
    assert!(i.completed_integrator_step().is_err());
    i.new_discrete_states().unwrap();
    i.enter_continuous_time_mode().unwrap();
    assert!(i.enter_continuous_time_mode().is_err());
    i.terminate().unwrap();
    assert!(
        i.get_derivatives(&mut d).is_ok(),
        "derivatives stay readable"
    );
}

#[test]
fn euler_with_located_events_slides_the_relay_and_allocates_nothing_per_call() {
    let mut i = running("relay_feedback");
    let m = i.model().clone();
    let (nx, nz) = (m.nx(), i.event_indicator_count());
    let der_vr: Vec<u32> = (0..nx)
        .map(|k| (variables::variables(&m).len() + k) as u32)
        .collect();
    let (mut x, mut dx, mut z0, mut z1, mut read) = (
        vec![0.0; nx],
        vec![0.0; nx],
        vec![0.0; nz],
        vec![0.0; nz],
        vec![0.0; nx],
    );
    let h = 1e-4;
    let (mut t, mut events, mut reached) = (0.0, 0, f64::NAN);
    let mut worst = 0;
    while t < 3.0 - 1e-12 {
        let (n, fired) = allocations(|| {
            i.get_continuous_states(&mut x).unwrap();
            i.get_derivatives(&mut dx).unwrap();
            i.get_reals(&der_vr, &mut read).unwrap();
            assert_eq!(read, dx);
            i.get_event_indicators(&mut z0).unwrap();
            for k in 0..nx {
                x[k] += h * dx[k];
            }
            i.set_time(t + h).unwrap();
            i.set_continuous_states(&x).unwrap();
            i.get_event_indicators(&mut z1).unwrap();
            let fired = (0..nz).any(|k| z0[k] > 0.0 && z1[k] <= 0.0);
            let step = i.completed_integrator_step().unwrap();
            assert!(!step.enter_event_mode || fired);
            fired
        });
        worst = worst.max(n);
        if !fired {
            t += h;
            continue;
        }
        // The zero of the straight line between the indicators, as a root
        // finder's last secant step would put it (Euler is linear in h).
        let k = (0..nz).find(|&k| z0[k] > 0.0 && z1[k] <= 0.0).unwrap();
        let s = z0[k] / (z0[k] - z1[k]);
        let xe: Vec<f64> = (0..nx).map(|c| x[c] - h * dx[c] + s * h * dx[c]).collect();
        t += s * h;
        i.set_time(t).unwrap();
        i.set_continuous_states(&xe).unwrap();
        i.enter_event_mode().unwrap();
        i.new_discrete_states().unwrap();
        i.enter_continuous_time_mode().unwrap();
        events += 1;
        reached = t;
    }
    assert_eq!(worst, 0, "allocations on the per-call path");
    assert_eq!(events, 1, "one event, then sliding");
    assert!((reached - (2f64.sqrt() - 1.0)).abs() < 1e-3, "{reached}");
    i.get_continuous_states(&mut x).unwrap();
    assert!((x[0] + x[1]).abs() < 1e-12, "off the surface: {x:?}");
    // Euler's O(h) against the exact x1(3) = 0.0312055.
    assert!((x[0] - 0.0312055).abs() < 1e-3, "x1(3) = {}", x[0]);
    eprintln!("relay, Euler h = {h}: event at {reached}, x1(3) = {}", x[0]);
}

#[test]
fn directional_derivatives_equal_finite_differences_of_the_mode() {
    use lcsfmu::instance::variables::Kind;
    let models = [
        "backlash_gear",
        "coulomb_friction",
        "friction_block",
        "pwa_feedback",
        "relay_feedback",
        "rlc_diode",
        "saturated_integrator",
        "servo_deadzone",
        "sign_spiral",
        "square_helix",
        "vdp_saturation",
        "diode_bridge_source",
        "buck_pwm",
    ];
    let mut checked = 0;
    for stem in models {
        let mut i = running(stem);
        let m = i.model().clone();
        let vars = variables::variables(&m);
        let (nx, nw) = (m.nx(), m.nw());
        let der: Vec<u32> = (0..nx).map(|k| (vars.len() + k) as u32).collect();
        let vr = |kind: Kind| vars.iter().position(|v| v.kind == kind).unwrap() as u32;
        let (mut x, mut f0, mut f1, mut dd) =
            (vec![0.0; nx], vec![0.0; nx], vec![0.0; nx], vec![0.0; nx]);
        i.get_continuous_states(&mut x).unwrap();
        i.get_derivatives(&mut f0).unwrap();
        let knowns: Vec<Kind> = (0..nx)
            .map(Kind::State)
            .chain((0..nw).map(Kind::Input))
            .collect();
        for known in knowns {
            let k = vr(known);
            let (n, r) = allocations(|| i.directional_derivative(&der, &[k], &[1.0], &mut dd));
            r.unwrap();
            assert_eq!(n, 0, "{stem}: allocations");
            // The mode is frozen in Continuous-Time Mode: a central difference of
            // its ODE (affine for a linear model) is the derivative to 1e-6.
            let h = 1e-6;
            let mut at = [0.0];
            let mut shifted = |i: &mut Instance, by: f64, out: &mut [f64]| match known {
                Kind::State(j) => {
                    let mut xp = x.clone();
                    xp[j] += by;
                    i.set_continuous_states(&xp).unwrap();
                    i.get_derivatives(out).unwrap();
                    i.set_continuous_states(&x).unwrap();
                }
                _ => {
                    i.get_reals(&[k], &mut at).unwrap();
                    i.set_reals(&[k], &[at[0] + by]).unwrap();
                    i.get_derivatives(out).unwrap();
                    i.set_reals(&[k], &at).unwrap();
                }
            };
            shifted(&mut i, h, &mut f1);
            shifted(&mut i, -h, &mut f0);
            for c in 0..nx {
                let fd = (f1[c] - f0[c]) / (2.0 * h);
                assert!(
                    (dd[c] - fd).abs() <= 1e-6 * fd.abs().max(1.0),
                    "{stem}: d der[{c}] / d {known:?} = {} vs {fd}",
                    dd[c]
                );
            }
            checked += 1;
        }
        // Only state derivatives are unknowns; only states and inputs are knowns.
        let time_vr = vr(Kind::Time);
        assert!(i
            .directional_derivative(&der, &[time_vr], &[1.0], &mut dd)
            .is_err());
        assert!(i
            .directional_derivative(
                &[vr(Kind::State(0))],
                &[vr(Kind::State(0))],
                &[1.0],
                &mut dd[..1]
            )
            .is_err());
    }
    eprintln!("directional derivatives: {checked} columns equal finite differences");
}

#[test]
fn euler_without_event_location_enters_the_relay_sliding_mode_instead_of_chattering() {
    // Before the capture rule: 162 (h = 1e-2) and 542 (h = 1e-3) events with FMPy's Euler.
    for h in [1e-2, 1e-3] {
        let run = relay_under_euler("0.5", h, 3.0);
        assert_eq!(run.events.len(), 1, "h = {h}: {:?}", run.events);
        let (t, changed, u, x) = &run.events[0];
        // The step that crossed sqrt(2) - 1; the state is projected onto x1 + x2 = 0.
        assert!((t - (2f64.sqrt() - 1.0)).abs() <= h, "h = {h}: {t}");
        assert!(*changed && (x[0] + x[1]).abs() <= 1e-15, "h = {h}: {x:?}");
        // The equivalent control, strictly inside the relay's bounds.
        assert!(u.abs() < 1.0, "h = {h}: u = {u}");
        assert!(
            run.off_surface_after_first <= 1e-12,
            "h = {h}: {}",
            run.off_surface_after_first
        );
        // Euler's first order against the exact x1(3) = 0.0312055.
        assert!(
            (run.end[0] - 0.0312055).abs() <= h,
            "h = {h}: x1(3) = {}",
            run.end[0]
        );
        eprintln!(
            "relay, Euler h = {h}: 1 event at {t}, x1(3) = {}",
            run.end[0]
        );
    }
}

#[test]
fn a_transversal_crossing_under_euler_still_switches_sides() {
    // From x1 = 3 the relay reaches x1 + x2 = 0 at t = sqrt(7) - 1 with x2 = 1 - sqrt(7):
    // the equivalent control x2 is outside [-1, 1], the far side's field (x2 + 1 < 0)
    // points away from the surface, and the state must cross with u = -1. The
    // motion turns back later (x2 rises to -1) and then slides.
    for h in [1e-2, 1e-3] {
        let run = relay_under_euler("3.0", h, 6.0);
        let (t, changed, u, x) = &run.events[0];
        // Euler's own crossing is O(h) off the exact one.
        assert!((t - (7f64.sqrt() - 1.0)).abs() <= 5.0 * h, "h = {h}: {t}");
        // A change of mode: reported as changed values (the ODE is another
        // one), though the state was not moved.
        assert!(
            *changed && *u == -1.0 && x[0] + x[1] < 0.0,
            "h = {h}: {:?}",
            run.events[0]
        );
        assert_eq!(run.events.len(), 2, "h = {h}: {:?}", run.events);
        let (_, changed, u, x) = &run.events[1];
        assert!(
            *changed && u.abs() < 1.0 && (x[0] + x[1]).abs() <= 1e-15,
            "{:?}",
            run.events[1]
        );
        assert!(
            (run.end[0] + run.end[1]).abs() <= 1e-12,
            "h = {h}: {:?}",
            run.end
        );
    }
}

#[test]
fn fmu_states_of_model_exchange_repeat_the_run_bit_for_bit() {
    // The sign spiral under Euler (h = 1e-2) goes through axis crossings, the
    // back-and-forth capture onto its origin and the accumulation bookkeeping:
    // FMU states taken before and after its events, restored (also from their
    // serialized bytes, and after the run went on through mode changes), repeat
    // the uninterrupted run exactly.
    let h = 1e-2;
    let mut i = running("sign_spiral");
    let whole = euler_trace(&mut i, 0, h, 200);
    let mut i = running("sign_spiral");
    for cut in [30usize, 95, 100, 103, 150] {
        let mut fresh = running("sign_spiral");
        let _ = euler_trace(&mut fresh, 0, h, cut);
        let saved = fresh.snapshot();
        assert!(saved.exchange.is_some());
        let bytes = fresh.serialize(&saved);
        // Go on past further events, then back to the state, from its bytes.
        let _ = euler_trace(&mut fresh, cut, h, 200 - cut);
        let restored = i.deserialize(&bytes).unwrap();
        // (compared as bytes: an unused cached step is NaN)
        assert_eq!(i.serialize(&restored), bytes);
        i.restore(&restored).unwrap();
        assert_eq!(i.phase(), Phase::ContinuousTimeMode);
        let rest = euler_trace(&mut i, cut, h, 200 - cut);
        for ((ta, xa), (tb, xb)) in rest.iter().zip(&whole[cut..]) {
            assert_eq!(ta.to_bits(), tb.to_bits());
            assert!(
                xa.iter().zip(xb).all(|(a, b)| a.to_bits() == b.to_bits()),
                "cut at step {cut}: t = {ta}: {xa:?} != {xb:?}"
            );
        }
        assert_eq!(
            i.model_exchange_events(),
            fresh.model_exchange_events(),
            "cut at {cut}"
        );
    }
    // The run reached the origin through events: the cuts cross mode changes.
    assert!(whole.last().unwrap().1 == [0.0, 0.0], "{:?}", whole.last());
}

#[test]
fn fmu_states_of_the_other_interface_type_are_refused() {
    let me = running("rlc_diode");
    let mut cs = Instance::new(model("rlc_diode"), "test");
    cs.setup_experiment(0.0, None).unwrap();
    cs.enter_initialization_mode().unwrap();
    cs.exit_initialization_mode().unwrap();
    let mut me2 = running("rlc_diode");
    let e = me2.restore(&cs.snapshot()).unwrap_err();
    assert!(
        e.message.contains("Co-Simulation instance"),
        "{}",
        e.message
    );
    let e = cs.restore(&me.snapshot()).unwrap_err();
    assert!(
        e.message.contains("Model Exchange instance"),
        "{}",
        e.message
    );
    // A hostile Model Exchange part (a pair changed side after the last event).
    let mut s = me.snapshot();
    s.exchange.as_mut().unwrap().engine.changed_at[0] = 7;
    let e = me2.deserialize(&me.serialize(&s)).unwrap_err();
    assert!(e.message.contains("after the last event"), "{}", e.message);
}
