//! The Model Exchange engine (`scheme::exchange`) driven as an importer drives
//! it: a classical RK4 integrator on the mode's derivatives, the indicators
//! checked after every step, a sign change located by bisection on re-taken
//! partial steps, then the event. Against the exact solutions of
//! `validation.md`:
//!
//! - `rlc_diode`: the diode blocks at t = 1.2091996 (located to 1e-9), then
//!   `i_L` decays from 0.54629302 with no further event;
//! - `relay_feedback`: the relay reaches its sliding surface at
//!   t = sqrt(2) - 1 and slides on it without a further event (no chattering),
//!   x1(3) = 0.0312055;
//! - `saturated_integrator` (input sin t): the stop operator, at its limits
//!   from pi/3 to pi and from 3pi/2 to 2pi;
//! - `sign_spiral`: the switches accumulate at t = 1 (gaps shrinking by 3);
//!   within a selection step of the origin the mode in which both pairs slide
//!   is selected, the state lands on the origin and stays there to t = 2.

use lcsfmu::model::{validate, Model};
use lcsfmu::scheme::exchange::{EventOutcome, LinearExchange};
use lcsfmu::system::lcs::Lcs;

fn model(stem: &str) -> Model {
    let path = super::model_path(stem);
    validate::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// What a run saw.
struct Run {
    /// (time, outcome) of every event.
    events: Vec<(f64, EventOutcome)>,
    /// States at the sample times.
    samples: Vec<Vec<f64>>,
}

/// Integrates `stem` from its start values to the last sample time with RK4 of
/// step `h`, inputs `input(t)`, locating indicator zeros to `1e-12`.
fn run(stem: &str, h: f64, input: impl Fn(f64) -> Vec<f64>, samples: &[f64]) -> Run {
    let m = model(stem);
    let mut lcs = Lcs::new(&m);
    lcs.assemble(&m, &m.default_parameters()).unwrap();
    let (nx, nu) = (m.nx(), m.nu());
    let mut ex = LinearExchange::new(nx, nu, m.nw(), 1e-10);
    let mut x: Vec<f64> = m.states.iter().map(|s| s.start).collect();
    let mut t = 0.0;
    ex.enter(&lcs, t, &mut x, &input(t)).unwrap();
    let ni = lcsfmu::scheme::exchange::indicator_count(nu);
    let (mut g0, mut g1) = (vec![0.0; ni], vec![0.0; ni]);
    let mut out = Run {
        events: Vec::new(),
        samples: Vec::new(),
    };
    let mut next_sample = 0;
    let stop = *samples.last().unwrap();
    let rk4 = |ex: &mut LinearExchange, x: &[f64], t: f64, h: f64| -> Vec<f64> {
        let f = |ex: &mut LinearExchange, x: &[f64], t: f64| {
            let mut d = vec![0.0; nx];
            ex.derivatives(&lcs, t, x, &input(t), &mut d).unwrap();
            d
        };
        let k1 = f(ex, x, t);
        let a: Vec<f64> = (0..nx).map(|i| x[i] + 0.5 * h * k1[i]).collect();
        let k2 = f(ex, &a, t + 0.5 * h);
        let b: Vec<f64> = (0..nx).map(|i| x[i] + 0.5 * h * k2[i]).collect();
        let k3 = f(ex, &b, t + 0.5 * h);
        let c: Vec<f64> = (0..nx).map(|i| x[i] + h * k3[i]).collect();
        let k4 = f(ex, &c, t + h);
        (0..nx)
            .map(|i| x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
            .collect()
    };
    while t < stop - 1e-12 {
        let step = h.min(samples[next_sample] - t);
        ex.indicators(&lcs, t, &x, &input(t), &mut g0).unwrap();
        let x1 = rk4(&mut ex, &x, t, step);
        ex.indicators(&lcs, t + step, &x1, &input(t + step), &mut g1)
            .unwrap();
        let fired = (0..ni).any(|k| g0[k] >= 0.0 && g1[k] < 0.0);
        if !fired {
            (x, t) = (x1, t + step);
        } else {
            // Bisection on the fraction of the step where the first indicator
            // turns negative.
            let (mut lo, mut hi) = (0.0, step);
            while hi - lo > 1e-12 {
                let mid = 0.5 * (lo + hi);
                let xm = rk4(&mut ex, &x, t, mid);
                ex.indicators(&lcs, t + mid, &xm, &input(t + mid), &mut g1)
                    .unwrap();
                if (0..ni).any(|k| g0[k] >= 0.0 && g1[k] < 0.0) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            x = rk4(&mut ex, &x, t, hi);
            t += hi;
            let outcome = ex.event(&lcs, &mut x, &input(t), t).unwrap();
            out.events.push((t, outcome));
            assert!(out.events.len() < 200, "{stem}: events do not stop");
        }
        if (t - samples[next_sample]).abs() <= 1e-12 {
            out.samples.push(x.clone());
            next_sample += 1;
        }
    }
    out
}

#[test]
fn the_diode_blocks_at_its_exact_time_and_then_decays_without_events() {
    let r = run("rlc_diode", 1e-3, |_| vec![], &[1.0, 2.0, 5.0]);
    assert_eq!(r.events.len(), 1, "{:?}", r.events);
    let (ts, outcome) = r.events[0];
    assert!((ts - 1.2091996).abs() < 1e-7, "switch at {ts}");
    assert!(matches!(outcome, EventOutcome::Switched { .. }));
    let exact = [
        [0.65970015, 0.53350720],
        [0.24773387, 0.54629302],
        [0.01233394, 0.54629302],
    ];
    for (x, e) in r.samples.iter().zip(exact) {
        assert!(
            (x[0] - e[0]).abs() < 1e-7 && (x[1] - e[1]).abs() < 1e-7,
            "{x:?} vs {e:?}"
        );
    }
}

#[test]
fn the_relay_slides_on_its_surface_without_chattering() {
    let r = run("relay_feedback", 1e-3, |_| vec![], &[1.0, 3.0]);
    assert_eq!(r.events.len(), 1, "{:?}", r.events);
    let (tr, _) = r.events[0];
    assert!(
        (tr - (2f64.sqrt() - 1.0)).abs() < 1e-9,
        "reaches the surface at {tr}"
    );
    let x = &r.samples[1];
    assert!((x[0] - 0.0312055).abs() < 1e-7, "x1(3) = {}", x[0]);
    assert!((x[0] + x[1]).abs() < 1e-12, "off the surface: {x:?}");
}

#[test]
fn the_saturated_integrator_follows_the_stop_operator() {
    use std::f64::consts::PI;
    let times = [1.0, 4.0, 5.0, 7.0, 10.0];
    let r = run("saturated_integrator", 1e-3, |t| vec![t.sin()], &times);
    let exact = [0.45969769, 0.15364362, -0.5, -0.25390225, 0.33907153];
    for (x, e) in r.samples.iter().zip(exact) {
        assert!((x[0] - e).abs() < 1e-7, "{} vs {e}", x[0]);
    }
    // Reaches its limits at pi/3 (upper), 3pi/2 (lower) and 5pi/2 (upper);
    // leaves them where the input changes sign (pi, 2pi, 3pi).
    assert_eq!(r.events.len(), 6, "{:?}", r.events);
    for expected in [PI / 3.0, PI, 1.5 * PI, 2.0 * PI, 2.5 * PI, 3.0 * PI] {
        assert!(
            r.events.iter().any(|(t, _)| (t - expected).abs() < 1e-6),
            "no event at {expected}: {:?}",
            r.events
        );
    }
}

#[test]
fn the_spiral_accumulates_at_the_origin_and_stays() {
    let r = run("sign_spiral", 1e-3, |_| vec![], &[0.5, 2.0]);
    // The exact switches: 1/3, 7/9, 25/27, ...
    for (k, expected) in [1.0 / 3.0, 7.0 / 9.0, 25.0 / 27.0].iter().enumerate() {
        assert!((r.events[k].0 - expected).abs() < 1e-8, "{:?}", r.events);
    }
    // Near the origin the selection LCP (over a step of 1e-8) picks the mode
    // in which both pairs slide, and the state is projected onto the origin:
    // the accumulation ends after a few dozen events, at t = 1.
    let last = r.events.last().unwrap();
    assert!(r.events.len() < 40, "{} events", r.events.len());
    assert!(
        matches!(
            last.1,
            EventOutcome::Switched { projected: true } | EventOutcome::Accumulated
        ),
        "{:?}",
        r.events
    );
    assert!((last.0 - 1.0).abs() < 1e-7, "ends at {}", last.0);
    let x = &r.samples[1];
    assert!(x[0].abs() < 1e-12 && x[1].abs() < 1e-12, "x(2) = {x:?}");
    eprintln!(
        "sign spiral: {} events, the last at {}",
        r.events.len(),
        last.0
    );
}

#[test]
fn crowded_events_slide_the_switching_pairs_or_fail_with_the_reason() {
    let m = model("sign_spiral");
    let mut lcs = Lcs::new(&m);
    lcs.assemble(&m, &m.default_parameters()).unwrap();
    let mut ex = LinearExchange::new(m.nx(), m.nu(), m.nw(), 1e-10);
    let mut x = vec![-1.0, 1.0];
    ex.enter(&lcs, 0.0, &mut x, &[]).unwrap();
    // The first axis crossing (t = 1/3, x = (0, 4/3)): a switch.
    let mut x = vec![0.0, 4.0 / 3.0];
    let first = ex.event(&lcs, &mut x, &[], 1.0 / 3.0).unwrap();
    assert!(matches!(first, EventOutcome::Switched { .. }));
    // The same pair again 1e-13 later: an accumulation. Its pair cannot slide
    // on x1 = 0 there (the motion crosses the axis), so the event fails with
    // the reason instead of switching for ever.
    let mode = ex.active_set().to_vec();
    let mut x = vec![-1e-6, 4.0 / 3.0];
    let again = ex.event(&lcs, &mut x, &[], 1.0 / 3.0 + 1e-13);
    assert!(again.is_err(), "{again:?} {:?}", ex.active_set());
    // ... and leaves the mode and the state as they were.
    assert_eq!(ex.active_set(), mode.as_slice());
    assert_eq!(x, vec![-1e-6, 4.0 / 3.0]);
    // The other pair 1e-13 later, far from the first one's surface: no
    // accumulation holds both on their surfaces there, but this is a second
    // commutation, not the first pair switching back (pm_braking_bridge's
    // diodes at t = 0.5236): a regular switch of the other pair.
    let mut x = vec![1e-3, 0.0];
    let other = ex.event(&lcs, &mut x, &[], 1.0 / 3.0 + 1e-13);
    assert!(
        matches!(other, Ok(EventOutcome::Switched { .. })),
        "{other:?}"
    );
    assert_eq!(ex.active_set()[0], mode[0]);
    assert_ne!(ex.active_set()[1], mode[1]);
    // Where the pairs can slide (at the origin), an accumulation ends there.
    let mut ex = LinearExchange::new(m.nx(), m.nu(), m.nw(), 1e-10);
    let mut x = vec![1e-3, -1e-3];
    ex.enter(&lcs, 0.0, &mut x, &[]).unwrap();
    // Both pairs switch (the spiral's axis crossings near the origin) ...
    let mut x = vec![0.0, -9e-4];
    ex.event(&lcs, &mut x, &[], 0.5).unwrap();
    let mut x = vec![-8e-4, 0.0];
    ex.event(&lcs, &mut x, &[], 0.6).unwrap();
    // ... and the next switch follows 1e-13 later, 1e-11 from the origin.
    let mut x = vec![1e-11, 1e-11];
    let outcome = ex.event(&lcs, &mut x, &[], 0.6 + 1e-13).unwrap();
    assert_eq!(outcome, EventOutcome::Accumulated, "{:?}", ex.active_set());
    assert_eq!(x, vec![0.0, 0.0]);
}
