//! Sampled-data partitions in Model Exchange (`src/instance/sampling.rs`,
//! `src/instance/model_exchange/events.rs`): sample instants are time events.
//! - `smc_implicit` under an importer that steps to each `nextEventTime` and
//!   integrates with the derivative at the end of each step (for this model,
//!   whose right-hand side does not read the states, that is the theta-method at
//!   theta = 1 of the Co-Simulation FMU) gives the Co-Simulation run to rounding
//!   (the bound is in the test);
//! - a counter: one sample per time event, `nextEventTime` the exact instant,
//!   the start-time sample processed at initialization, and the event path
//!   allocates nothing;
//! - FMU states taken at a sample instant before and after its update: each
//!   restores what it had (the sample is processed once after each);
//! - an importer that steps past a sample is asked for Event Mode, and the
//!   update there processes the missed sample.

use super::alloc::allocations;
use super::sampled::{counter, get};
use super::{column, model, run};
use lcsfmu::instance::Instance;
use lcsfmu::model::Model;
use lcsfmu::tool::simulate::Options;

/// A Model Exchange instance in Continuous-Time Mode after its first update;
/// returns it with that update's next event time.
fn started(m: Model, stop: f64) -> (Instance, Option<f64>) {
    let mut i = Instance::new(m, "{g}");
    i.use_model_exchange().unwrap();
    i.setup_experiment(0.0, Some(stop)).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    let next = i.new_discrete_states().unwrap().next_event_time;
    i.enter_continuous_time_mode().unwrap();
    (i, next)
}

/// Event Mode, one update, back to Continuous-Time Mode.
fn event(i: &mut Instance) -> (bool, Option<f64>) {
    i.enter_event_mode().unwrap();
    let u = i.new_discrete_states().unwrap();
    i.enter_continuous_time_mode().unwrap();
    (u.values_changed, u.next_event_time)
}

#[test]
fn smc_implicit_under_model_exchange_gives_the_co_simulation_run() {
    let (h, stop) = (1e-4, 1.0);
    let cs = run(model("smc_implicit"), Options::default());
    let want = ["x0", "x1", "u"].map(|n| column(&cs, n));
    let (mut i, mut next) = started(model("smc_implicit"), stop);
    let u_vr = super::sampled::vr(&i, "u");
    let (mut x, mut dx, mut u) = ([0.0; 2], [0.0; 2], [0.0]);
    i.get_continuous_states(&mut x).unwrap();
    let (mut t, mut events, mut worst) = (0.0f64, 0, [0.0f64; 3]);
    let n = (stop / h).round() as usize;
    for k in 1..=n {
        let target = k as f64 * h;
        while t < target {
            // A time event within 1e-12 of a grid point is taken there.
            let end = match next {
                Some(e) if e < target - 1e-12 => e,
                _ => target,
            };
            i.set_time(end).unwrap();
            i.get_derivatives(&mut dx).unwrap();
            for (xc, dc) in x.iter_mut().zip(&dx) {
                *xc += (end - t) * dc;
            }
            i.set_continuous_states(&x).unwrap();
            assert!(!i.completed_integrator_step().unwrap().enter_event_mode);
            t = end;
            if next.is_some_and(|e| e <= t + 1e-12) {
                let (changed, after) = event(&mut i);
                assert!(changed, "a sample changes the ODE at t = {t}");
                assert!(after.is_some_and(|a| a > t), "{after:?} at {t}");
                next = after;
                events += 1;
            }
        }
        i.get_reals(&[u_vr], &mut u).unwrap();
        for ((w, column), v) in worst.iter_mut().zip(&want).zip([x[0], x[1], u[0]]) {
            *w = w.max((v - column[k]).abs());
        }
    }
    println!(
        "smc_implicit, Model Exchange against Co-Simulation: {events} sample events, largest differences (x0, x1, u) {worst:?}"
    );
    // The samples at 0.01, ..., 1.0 (the one at 0 is processed at initialization).
    assert_eq!(events, 100);
    // The two sum the same increments in another order: rounding of up to
    // 1e4 steps times eps on states of size up to 2 (2.2e-12), and u reads
    // x1 through the gain 1/(CB hc) = 50 (1.1e-10). Measured: 7.1e-15,
    // 8.3e-14, 3.9e-12.
    let bound = 1e4 * f64::EPSILON * 2.0;
    assert!(worst[0] <= bound && worst[1] <= bound, "{worst:?}");
    assert!(worst[2] <= 50.0 * bound, "{worst:?}");
}

#[test]
fn a_counter_counts_each_time_event_once() {
    let (period, offset) = (0.01, 0.005);
    let (mut i, mut next) = started(counter("0.01", "0.005"), 1.0);
    assert_eq!(get(&mut i, "n"), 0.0);
    let mut worst_alloc = 0;
    for k in 0..100u64 {
        let e = next.unwrap();
        assert_eq!(e, offset + k as f64 * period, "next event {k}");
        let (n, (changed, after)) = allocations(|| {
            i.set_time(e).unwrap();
            i.completed_integrator_step().unwrap();
            event(&mut i)
        });
        worst_alloc = worst_alloc.max(n);
        assert!(changed);
        assert_eq!(get(&mut i, "n"), (k + 1) as f64);
        assert_eq!(get(&mut i, "ts"), e);
        // A second update at the same instant processes nothing.
        let (again, same) = event(&mut i);
        assert!(!again);
        assert_eq!(same, after);
        assert_eq!(get(&mut i, "n"), (k + 1) as f64);
        next = after;
    }
    assert_eq!(worst_alloc, 0, "the time event path allocated");
    // The sample at the start time is processed at initialization.
    let (mut i, next) = started(counter("0.01", "0"), 1.0);
    assert_eq!(get(&mut i, "n"), 1.0);
    assert_eq!(next, Some(0.01));
}

#[test]
fn fmu_states_at_a_sample_instant_before_and_after_its_update() {
    let (mut i, next) = started(counter("0.01", "0.005"), 1.0);
    let e = next.unwrap();
    i.set_time(e).unwrap();
    i.completed_integrator_step().unwrap();
    // At the instant, before the update: the sample is still to come.
    let before = i.serialize(&i.snapshot());
    let (_, after_next) = event(&mut i);
    assert_eq!(get(&mut i, "n"), 1.0);
    let after = i.serialize(&i.snapshot());
    let restore = |i: &mut Instance, bytes: &[u8]| {
        let s = i.deserialize(bytes).unwrap();
        i.restore(&s).unwrap();
    };
    restore(&mut i, &before);
    assert_eq!(get(&mut i, "n"), 0.0);
    let (changed, again) = event(&mut i);
    assert!(changed, "the restored state's sample was lost");
    assert_eq!((get(&mut i, "n"), again), (1.0, after_next));
    restore(&mut i, &after);
    let (changed, again) = event(&mut i);
    assert!(!changed, "the restored state's sample was processed twice");
    assert_eq!((get(&mut i, "n"), again), (1.0, after_next));
}

#[test]
fn an_importer_that_steps_past_a_sample_is_asked_for_event_mode() {
    let (mut i, next) = started(counter("0.01", "0.005"), 1.0);
    let e = next.unwrap();
    i.set_time(e - 1e-3).unwrap();
    assert!(!i.completed_integrator_step().unwrap().enter_event_mode);
    i.set_time(e + 3e-3).unwrap();
    assert!(i.completed_integrator_step().unwrap().enter_event_mode);
    let (changed, after) = event(&mut i);
    assert!(changed);
    // Processed late, at the importer's time; the next one is still on its grid.
    assert_eq!((get(&mut i, "n"), get(&mut i, "ts")), (1.0, e + 3e-3));
    assert_eq!(after, Some(0.015));
}
