//! Sampled-data partitions (`[[discrete]]`, `src/model/sampled.rs`,
//! `src/instance/sampling.rs`):
//! - `smc_implicit` against Siconos' SMCExampleImplicit reference to 1e-10 per column, and
//!   `smc_explicit` (`u = -sign(x1)`) against SMCExampleExplicit to 1e-14, `pid_zoh`
//!   against Siconos' control/PID to 1e-12 of each value, `oscillator_pid` (`method = "zoh"`)
//!   against control/Observer/LuenbergerObserver to 1e-11;
//! - 10^6 samples without drift: the held time of the last sample is `offset + k period`
//!   exactly, and a counter counts every sample once;
//! - communication steps of 3 ms, 7 ms and 0.1 ms over a 5 ms period give the same samples
//!   (a plant that the theta-method integrates exactly, so the samples agree to rounding,
//!   and with the closed form);
//! - an FMU state taken between two samples restores the held values, and the run repeats
//!   bit for bit; a sample on a communication point is processed once, also on a master's
//!   accumulated clock; the stepping path allocates nothing;
//! - the event-driven scheme runs partitions: `pid_zoh` against Siconos to 1e-12, `oscillator_pid`
//!   at rtol 1e-10 to 1e-8 (Model Exchange: `sampled_me`);
//! - random models with partitions (periods, offsets, steps 1e-4..0.1, θ in {1, 1/2}, the
//!   zero-order hold and the event-driven scheme): every
//!   step succeeds and the samples counted are those of the closed-form instants.

use super::alloc::allocations;
use super::sequence_args::Rng;
use super::{column, model, reference_rows, run};
use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::Options;
use std::path::Path;

pub(super) fn from_text(text: &str) -> Model {
    validate::from_str(text, Path::new("sampled.toml")).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn initialized(m: Model) -> Instance {
    let mut i = Instance::new(m, "{g}");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i
}

pub(super) fn vr(i: &Instance, name: &str) -> u32 {
    let vars = lcsfmu::instance::variables::variables(i.model());
    vars.iter().position(|v| v.name == name).unwrap() as u32
}

pub(super) fn get(i: &mut Instance, name: &str) -> f64 {
    let r = vr(i, name);
    let mut v = [0.0];
    i.get_reals(&[r], &mut v).unwrap();
    v[0]
}

/// The largest difference per column (time, x0, x1, u) between a bundled SMC
/// model and Siconos' reference, whose rows are every 5th of the run's.
fn smc_against_siconos(stem: &str) -> ([f64; 4], Vec<f64>) {
    let reference = reference_rows(&format!("{stem}_siconos.csv"));
    let t = run(model(stem), Options::default());
    let cols = ["time", "x0", "x1", "u"].map(|n| column(&t, n));
    assert_eq!(cols[0].len(), 10001);
    assert_eq!(reference.len(), 2001);
    let mut worst = [0.0f64; 4];
    for r in &reference {
        // Row k of ours is at k * 1e-4.
        let k = (r[0] / 1e-4).round() as usize;
        for (c, col) in cols.iter().enumerate() {
            worst[c] = worst[c].max((col[k] - r[c]).abs());
        }
    }
    println!("{stem} against Siconos, largest differences (time, x0, x1, u): {worst:?}");
    let [.., u] = cols;
    (worst, u)
}

#[test]
fn smc_implicit_matches_siconos_reference() {
    let (worst, u) = smc_against_siconos("smc_implicit");
    assert!(worst.iter().all(|w| *w <= 1e-10), "{worst:?}");
    // The controller did slide: u left its bound after x1 reached 0.
    assert!(u.iter().any(|u| u.abs() < 0.5));
}

/// `u = -sign(x1)` sampled: the same plant and scheme as Siconos, so the runs
/// agree to rounding (measured 4.4e-16 on x0); the law stays at ±1 and
/// chatters, switching every few samples once x1 has reached 0.
#[test]
fn smc_explicit_matches_siconos_reference() {
    let (worst, u) = smc_against_siconos("smc_explicit");
    assert!(worst.iter().all(|w| *w <= 1e-14), "{worst:?}");
    assert!(u.iter().all(|u| u.abs() == 1.0));
    let switches = u.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches > 20, "{switches} switches");
}

/// Siconos' control/PID: a velocity-form PID sampled every step on a double
/// integrator, which the trapezoidal rule integrates exactly with u held (see
/// the model's text). Measured: largest difference 1.6e-13 of max(1, |value|)
/// (x1), 6.8e-13 absolute in u (whose first sample is -402.6), over all
/// 2,001 rows; the operations are Siconos' in another order.
#[test]
fn pid_zoh_matches_siconos_reference() {
    let reference = reference_rows("pid_zoh_siconos.csv");
    let t = run(model("pid_zoh"), Options::default());
    let cols = ["time", "x1", "x2", "u"].map(|n| column(&t, n));
    assert_eq!(cols[0].len(), 2001);
    assert_eq!(reference.len(), 501);
    let mut worst = [0.0f64; 4];
    for r in &reference {
        let k = (r[0] / 0.05).round() as usize;
        for (c, col) in cols.iter().enumerate() {
            worst[c] = worst[c].max((col[k] - r[c]).abs() / r[c].abs().max(1.0));
        }
    }
    println!("pid_zoh against Siconos, largest relative differences (time, x1, x2, u): {worst:?}");
    assert!(worst.iter().all(|w| *w <= 1e-12), "{worst:?}");
    // The loop settles: from 10 to within 3e-3 of the set point at t = 100.
    assert!(cols[1][2000].abs() < 3e-3 && cols[1][0] == 10.0);
}

/// The plant and PID of Siconos' control/Observer/LuenbergerObserver: an
/// oscillator, whose zero-order-hold flow (cos and sin) no theta-method
/// reproduces, under `method = "zoh"`. Measured: 2.2e-12 relative at most
/// over the reference's rows (u), where the trapezoidal rule differs by 1.1e-2.
#[test]
fn oscillator_pid_under_zoh_matches_siconos_reference() {
    let reference = reference_rows("oscillator_pid_siconos.csv");
    assert_eq!(reference.len(), 501);
    let worst = |m: Model| {
        let t = run(m, Options::default());
        let cols = ["time", "x1", "x2", "u"].map(|n| column(&t, n));
        assert_eq!(cols[0].len(), 2001);
        let mut worst = [0.0f64; 4];
        for r in &reference {
            let k = (r[0] / 0.05).round() as usize;
            for (c, col) in cols.iter().enumerate() {
                worst[c] = worst[c].max((col[k] - r[c]).abs() / r[c].abs().max(1.0));
            }
        }
        worst
    };
    let held = model("oscillator_pid");
    assert_eq!(held.scheme.method, lcsfmu::model::Method::Zoh);
    let mut trapezoidal = held.clone();
    trapezoidal.scheme.method = lcsfmu::model::Method::Theta;
    trapezoidal.scheme.theta = 0.5;
    let (zoh, theta) = (worst(held), worst(trapezoidal));
    println!("oscillator_pid against Siconos, largest relative differences (time, x1, x2, u): zoh {zoh:?}, theta 1/2 {theta:?}");
    assert!(zoh.iter().all(|w| *w <= 1e-11), "{zoh:?}");
    assert!(theta[3] > 1e-3, "{theta:?}");
}

const COUNTER: &str = r#"
[model]
name = "counter"
[[states]]
name = "x"
der = "1"
[[discrete]]
name = "clock"
period = PERIOD
offset = OFFSET
[[discrete.states]]
name = "n"
start = 0
update = "n + 1"
[[discrete.outputs]]
name = "ts"
value = "time"
"#;

pub(super) fn counter(period: &str, offset: &str) -> Model {
    from_text(&COUNTER.replace("PERIOD", period).replace("OFFSET", offset))
}

#[test]
fn a_million_samples_without_drift() {
    let (period, offset) = (1e-3, 5e-4);
    let mut i = initialized(counter("1e-3", "5e-4"));
    // No sample at the start (the offset is later): ts holds the start time.
    assert_eq!(get(&mut i, "n"), 0.0);
    // Communication steps of 4 periods, the master's points computed from
    // their index: every step spans four samples, none on a point.
    let steps = 250_000;
    let h = 4e-3;
    for k in 1..=steps {
        let t = i.time();
        i.do_step(t, k as f64 * h - t).unwrap();
        if k % 25_000 == 0 {
            let ts = get(&mut i, "ts");
            let t = i.time();
            assert!(ts <= t && t - ts < period, "ts {ts} at t {t}");
        }
    }
    let last = 999_999u64;
    assert_eq!(get(&mut i, "n"), 1e6);
    assert_eq!(get(&mut i, "ts"), offset + last as f64 * period, "drift");
}

#[test]
fn a_sample_on_a_communication_point_is_processed_once() {
    for (label, accumulate) in [("computed points", false), ("accumulated clock", true)] {
        let mut i = initialized(counter("0.01", "0"));
        // The sample at the start time is processed at initialization.
        assert_eq!(get(&mut i, "n"), 1.0, "{label}");
        let mut t = 0.0;
        for k in 1..=100 {
            let next = if accumulate {
                t + 0.01
            } else {
                k as f64 * 0.01
            };
            i.do_step(t, next - t).unwrap();
            t = next;
            assert_eq!(
                get(&mut i, "n"),
                (k + 1) as f64,
                "{label}: step {k} at t = {t}"
            );
        }
        // Half steps: the samples on every other point, once each.
        for k in 1..=20 {
            i.do_step(t, 0.005).unwrap();
            t += 0.005;
            assert_eq!(
                get(&mut i, "n"),
                (101 + k / 2) as f64,
                "{label}: half step {k}"
            );
        }
    }
}

/// x' = u, u = -K x sampled at T: the theta-method integrates a constant
/// right-hand side exactly however the period is cut, so the samples are
/// x_k = (1 - K T)^k x0 on every communication grid, to rounding.
const LOOP: &str = r#"
[model]
name = "sampled_loop"
[scheme]
theta = THETA
[[states]]
name = "x"
start = 1.0
der = "u"
[[discrete]]
name = "ctl"
period = 0.005
[[discrete.states]]
name = "xs"
start = 0
update = "x"
[[discrete.states]]
name = "k"
start = -1
update = "k + 1"
[[discrete.outputs]]
name = "u"
value = "-20*xs"
"#;

#[test]
fn communication_grids_give_the_same_samples() {
    for theta in ["1.0", "0.5"] {
        let m = from_text(&LOOP.replace("THETA", theta));
        // lcm(3 ms, 7 ms) = 21 ms: compare every 21 ms up to 0.105 s.
        let mut seen: Vec<Vec<(f64, f64, f64)>> = Vec::new();
        for h in [3e-3f64, 7e-3, 1e-4] {
            let mut i = initialized(m.clone());
            let mut rows = Vec::new();
            let n = (0.105 / h).round() as usize;
            for j in 1..=n {
                let t = i.time();
                i.do_step(t, j as f64 * h - t).unwrap();
                let at = j as f64 * h;
                if ((at / 0.021).round() * 0.021 - at).abs() < 1e-12 {
                    rows.push((get(&mut i, "k"), get(&mut i, "xs"), get(&mut i, "u")));
                }
            }
            assert_eq!(rows.len(), 5, "h = {h}");
            seen.push(rows);
        }
        for rows in &seen {
            for (r, s) in rows.iter().zip(&seen[0]) {
                assert_eq!(r.0, s.0, "theta {theta}: sample index");
                assert!((r.1 - s.1).abs() < 1e-14, "theta {theta}: {r:?} vs {s:?}");
                assert!((r.2 - s.2).abs() < 1e-13, "theta {theta}: {r:?} vs {s:?}");
                let exact = (1.0f64 - 20.0 * 0.005).powi(r.0 as i32);
                assert!(
                    (r.1 - exact).abs() < 1e-14,
                    "theta {theta}: {r:?} vs {exact}"
                );
            }
        }
    }
}

#[test]
fn an_fmu_state_between_samples_restores_the_held_values() {
    let m = from_text(&LOOP.replace("THETA", "1.0"));
    let mut i = initialized(m);
    let h = 1e-3;
    let step = |i: &mut Instance, n: usize| {
        for _ in 0..n {
            let t = i.time();
            i.do_step(t, h).unwrap();
        }
    };
    step(&mut i, 12); // t = 0.012, between the samples at 0.010 and 0.015
    let bytes = i.serialize(&i.snapshot());
    let held = (get(&mut i, "u"), get(&mut i, "xs"), get(&mut i, "k"));
    assert_eq!(held.2, 2.0);
    step(&mut i, 30);
    let after = (get(&mut i, "u"), get(&mut i, "x"), get(&mut i, "k"));
    assert_ne!(after.2, held.2);
    let s = i.deserialize(&bytes).unwrap();
    i.restore(&s).unwrap();
    assert_eq!(
        (get(&mut i, "u"), get(&mut i, "xs"), get(&mut i, "k")),
        held
    );
    step(&mut i, 30);
    let again = (get(&mut i, "u"), get(&mut i, "x"), get(&mut i, "k"));
    assert_eq!(again, after, "the replay from the FMU state differs");
}

#[test]
fn sampled_steps_allocate_nothing() {
    let mut i = initialized(from_text(&LOOP.replace("THETA", "0.5")));
    for _ in 0..10 {
        let t = i.time();
        i.do_step(t, 7e-3).unwrap();
    }
    let (n, ()) = allocations(|| {
        for _ in 0..200 {
            let t = i.time();
            i.do_step(t, 7e-3).unwrap();
        }
    });
    assert_eq!(n, 0, "allocations in 200 sampled steps");
}

/// Every sample is processed in turn, so a step over more than
/// `MAX_SUBSTEPS` of them would never end (the random call sequences hung on
/// a step of 1e300 s): refused with the count, nothing moved, and the next
/// sensible step runs.
#[test]
fn a_step_over_too_many_samples_is_refused_and_changes_nothing() {
    for (period, t0, h) in [
        ("0.01", 0.0, 1e300),
        ("1e-300", 0.0, 0.01),
        ("0.01", 1e300, 1e290),
    ] {
        let mut i = Instance::new(counter(period, "0"), "{g}");
        i.setup_experiment(t0, None).unwrap();
        i.enter_initialization_mode().unwrap();
        i.exit_initialization_mode().unwrap();
        let before = (get(&mut i, "n"), get(&mut i, "ts"), i.time());
        let e = i.do_step(t0, h).unwrap_err();
        assert!(
            e.message.contains("samples of the [[discrete]] partitions"),
            "{e}"
        );
        assert_eq!(
            (get(&mut i, "n"), get(&mut i, "ts"), i.time()),
            before,
            "period {period}"
        );
    }
    let mut i = initialized(counter("0.01", "0"));
    assert!(i.do_step(0.0, 1e300).is_err());
    i.do_step(0.0, 0.1).unwrap();
    assert_eq!(get(&mut i, "n"), 11.0);
}

/// The event-driven scheme runs partitions: the instance cuts each
/// communication step at the sample instants, and the Runge–Kutta pair
/// integrates each mode between them with the held outputs as inputs.
/// `pid_zoh`'s double integrator is a quadratic in time between samples,
/// which the pair integrates exactly: Siconos' reference to 1e-12 (measured
/// 1.2e-13); `oscillator_pid` at rtol 1e-10 within 1e-8 of it (measured
/// 2.9e-9), where its zero-order hold is exact.
#[test]
fn the_event_driven_scheme_runs_partitions() {
    let event_driven = |stem: &str, settings: &str| {
        let text = std::fs::read_to_string(super::model_path(stem)).unwrap();
        let edited = match text.find("[scheme]\n") {
            Some(at) => {
                let end = at + text[at..].find("\n\n").unwrap();
                format!("{}[scheme]\n{settings}{}", &text[..at], &text[end..])
            }
            None => text.replacen(
                "[[states]]",
                &format!("[scheme]\n{settings}\n\n[[states]]"),
                1,
            ),
        };
        let m = from_text(&edited);
        assert_eq!(m.scheme.method, lcsfmu::model::Method::EventDriven);
        run(m, Options::default())
    };
    for (stem, settings, bound) in [
        ("pid_zoh", "method = \"event-driven\"", 1e-12),
        (
            "oscillator_pid",
            "method = \"event-driven\"\nrtol = 1e-10\natol = 1e-13",
            1e-8,
        ),
    ] {
        let reference = reference_rows(&format!("{stem}_siconos.csv"));
        let t = event_driven(stem, settings);
        let cols = ["time", "x1", "x2", "u"].map(|n| column(&t, n));
        let mut worst = 0.0f64;
        for r in &reference {
            let k = (r[0] / 0.05).round() as usize;
            for (c, col) in cols.iter().enumerate() {
                worst = worst.max((col[k] - r[c]).abs() / r[c].abs().max(1.0));
            }
        }
        println!("{stem} event-driven against Siconos: {worst:e}");
        assert!(worst <= bound, "{stem}: {worst:e}");
    }
}

/// Random first-order models with one or two partitions: a stable plant
/// (decay, a saturation block on a held output), controllers of random
/// periods and offsets whose held output is a linear, explicit sliding-mode
/// (`-sign`) or saturated law, random communication steps; every step must succeed
/// and each partition's counter must equal the number of its instants up
/// to the current time, computed here from `offset + k period`.
#[test]
fn random_models_with_partitions_step_and_sample_exactly() {
    let count: u64 = std::env::var("LCSFMU_RANDOM_MODELS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut rng = Rng(0x5a4d_1ed1);
    for case in 0..count {
        let scheme = rng.pick(&[
            "theta = 1.0",
            "theta = 0.5",
            "method = \"zoh\"",
            "method = \"event-driven\"",
        ]);
        let parts = 1 + rng.below(2) as usize;
        let mut text = format!(
            "[model]\nname = \"r{case}\"\n[scheme]\n{scheme}\n\
             [[states]]\nname = \"x1\"\nstart = 1.0\nder = \"-x1 + 0.5*x2 + s\"\n\
             [[states]]\nname = \"x2\"\nstart = -0.5\nder = \"-2*x2 - 0.5*x1 + sin(3*time)\"\n\
             [[blocks]]\nname = \"s\"\ntype = \"saturation\"\ninput = \"y0\"\nlo = -1\nhi = 1\n"
        );
        let mut timing = Vec::new();
        for p in 0..parts {
            // Periods 1e-3 .. 0.1 log-uniformly, offsets 0 .. 2 periods.
            let period = 10f64.powf(-3.0 + 2.0 * rng.below(1000) as f64 / 1000.0);
            let offset = period * rng.below(2000) as f64 / 1000.0;
            timing.push((period, offset));
            let reads = if p == 0 {
                "x1".to_string()
            } else {
                "x2 + y0".to_string()
            };
            let law = match rng.below(3) {
                0 => format!("-2*({reads}) - z{p}"),
                // An explicit sliding-mode law, as smc_explicit's.
                1 => format!("-sign({reads})"),
                // A saturated law, as smc_implicit's.
                _ => format!("max(-1, min(1, -({reads})/(2*{period:e})))"),
            };
            write_partition(&mut text, p, period, offset, &reads, &law);
        }
        let m = from_text(&text);
        let mut i = initialized(m);
        let mut t = 0.0;
        let stop = 0.5;
        let mut steps = Vec::new();
        while t < stop {
            let h = 10f64
                .powf(-4.0 + 3.0 * rng.below(1000) as f64 / 1000.0)
                .min(stop - t);
            if let Err(e) = i.do_step(t, h) {
                panic!("case {case}: step at t = {t}, h = {h} failed: {e}\n{text}");
            }
            t += h;
            steps.push(h);
            for (p, &(period, offset)) in timing.iter().enumerate() {
                let tol = 1e-10 * t.max(1.0);
                let mut expected = 0u64;
                while offset + expected as f64 * period <= t + tol {
                    expected += 1;
                }
                let n = get(&mut i, &format!("n{p}"));
                assert_eq!(
                    n, expected as f64,
                    "case {case}, partition {p} at t = {t} after steps {steps:?}\n{text}"
                );
            }
        }
    }
}

fn write_partition(text: &mut String, p: usize, period: f64, offset: f64, reads: &str, law: &str) {
    use std::fmt::Write;
    write!(
        text,
        "[[discrete]]\nname = \"c{p}\"\nperiod = {period:e}\noffset = {offset:e}\n\
         [[discrete.states]]\nname = \"n{p}\"\nupdate = \"n{p} + 1\"\n\
         [[discrete.states]]\nname = \"z{p}\"\nupdate = \"z{p} + 0.1*({reads})\"\n\
         [[discrete.outputs]]\nname = \"y{p}\"\nvalue = \"{law}\"\n"
    )
    .unwrap();
}
