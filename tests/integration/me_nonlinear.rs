//! Model Exchange of a nonlinear model with sources in time, on the core
//! instance driven as an importer that stops at the time events it is told:
//! buck_pwm under forward Euler (h = 1e-6) to 2 ms.
//!
//! - every `nextEventTime` is a switching instant `k T` or `k T + d T` to 4
//!   ulp, each reported once and in order (40 in 2 ms), and the run stops at each;
//! - nothing on the per-call path allocates, events and the time-event scan
//!   included;
//! - an importer that ignores `nextEventTime` (fixed steps of 3e-6, off the
//!   switching grid) is told to enter Event Mode by the completed step that
//!   passed each instant, and ends within 5 % of the run that stopped (measured:
//!   3.4 % in iL, the error of steps that straddle the jumps);
//! - on diode_bridge_source, `fmi2SetTime` alone moves what `fmi2GetReal`
//!   reads (the sources read the time), bit for bit as a fresh instance.

use super::alloc::allocations;
use super::model;
use lcsfmu::instance::Instance;

const PERIOD: f64 = 1e-4;
const DUTY: f64 = 0.5;

fn started() -> Instance {
    let mut i = Instance::new(model("buck_pwm"), "test");
    i.use_model_exchange().unwrap();
    i.setup_experiment(0.0, Some(2e-3)).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i
}

/// Euler with step `h` to 2 ms, stopping at the reported time events when
/// `stop_at_events`; the time events reported, the steps that asked for an
/// event, the largest allocation count of a step and the final state.
fn euler(h: f64, stop_at_events: bool) -> (Vec<f64>, usize, usize, Vec<f64>) {
    let mut i = started();
    let mut next = i.new_discrete_states().unwrap().next_event_time;
    i.enter_continuous_time_mode().unwrap();
    let (mut x, mut dx, mut z0, mut z1) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
    let (mut t, mut reported, mut asked, mut worst) = (0.0f64, vec![], 0, 0);
    reported.extend(next);
    while t < 2e-3 - 1e-12 {
        let (n, step) = allocations(|| {
            let mut to = (t + h).min(2e-3);
            if let Some(te) = next.filter(|_| stop_at_events) {
                to = to.min(te);
            }
            i.get_continuous_states(&mut x).unwrap();
            i.get_derivatives(&mut dx).unwrap();
            i.get_event_indicators(&mut z0).unwrap();
            for c in 0..2 {
                x[c] += (to - t) * dx[c];
            }
            i.set_time(to).unwrap();
            i.set_continuous_states(&x).unwrap();
            i.get_event_indicators(&mut z1).unwrap();
            let crossed = (0..2).any(|c| (z0[c] > 0.0) != (z1[c] > 0.0));
            let step_event = i.completed_integrator_step().unwrap().enter_event_mode;
            let time_event = next.is_some_and(|te| to >= te);
            let mut new_next = None;
            if crossed || step_event || time_event {
                i.enter_event_mode().unwrap();
                new_next = Some(i.new_discrete_states().unwrap().next_event_time);
                i.enter_continuous_time_mode().unwrap();
            }
            (to, step_event, new_next)
        });
        worst = worst.max(n);
        let (to, step_event, new_next) = step;
        t = to;
        asked += usize::from(step_event);
        if let Some(n) = new_next {
            if n != next {
                reported.extend(n);
            }
            next = n;
        }
    }
    i.get_continuous_states(&mut x).unwrap();
    (reported, asked, worst, x)
}

#[test]
fn buck_pwm_time_events_are_the_switching_instants_and_allocate_nothing() {
    let (reported, _, worst, stopped) = euler(1e-6, true);
    assert_eq!(worst, 0, "allocations on the per-call path");
    // Instants in (0, 2 ms]: 40 (the one at 2 ms lies just before the stop time,
    // its bracket's left end).
    let instants: Vec<f64> = (0..=20)
        .flat_map(|k| [k as f64 * PERIOD, (k as f64 + DUTY) * PERIOD])
        .skip(1)
        .take(40)
        .collect();
    assert_eq!(reported.len(), instants.len(), "{reported:?}");
    for (r, e) in reported.iter().zip(&instants) {
        let ulp = e.next_up() - e;
        assert!((r - e).abs() <= 4.0 * ulp, "reported {r:e}, instant {e:e}");
    }
    // Fixed steps of 3e-6, off the grid: each instant is passed within a step,
    // and the completed step asks for Event Mode.
    let (_, asked, worst, passed) = euler(3e-6, false);
    assert_eq!(worst, 0, "allocations on the per-call path");
    assert!(asked >= instants.len(), "{asked} steps asked for an event");
    for c in 0..2 {
        let scale = stopped[c].abs().max(1e-3);
        assert!(
            (passed[c] - stopped[c]).abs() <= 0.05 * scale,
            "state {c}: {} vs {}",
            passed[c],
            stopped[c]
        );
    }
}

/// `fmi2GetReal` after `fmi2SetTime` alone (no new states): a nonlinear
/// model's sources read the time, so the multipliers, outputs and
/// derivatives read are those of the new time, the same bits as an instance
/// that was set to that time and state afresh, not those of the last read.
#[test]
fn reals_follow_a_new_time_without_new_states() {
    let m = model("diode_bridge_source");
    let n = lcsfmu::instance::variables::kinds_with_derivatives(&m).len() as u32;
    let vrs: Vec<u32> = (0..n).collect();
    let fresh_at = |t: f64, x: &[f64]| {
        let mut i = crate::running_me(m.clone());
        i.set_time(t).unwrap();
        i.set_continuous_states(x).unwrap();
        let mut out = vec![0.0; n as usize];
        i.get_reals(&vrs, &mut out).unwrap();
        out
    };
    let mut i = crate::running_me(m.clone());
    let mut x = vec![0.0; m.nx()];
    i.get_continuous_states(&mut x).unwrap();
    let mut at_start = vec![0.0; n as usize];
    i.get_reals(&vrs, &mut at_start).unwrap();
    // A quarter period of the 50 Hz source later: `Vm cos(w t)` is 0 there.
    let t = 0.005;
    i.set_time(t).unwrap();
    let mut later = vec![0.0; n as usize];
    i.get_reals(&vrs, &mut later).unwrap();
    assert_ne!(later, at_start, "nothing read changed with the time");
    let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&later), bits(&fresh_at(t, &x)));
}
