//! Forward-Euler importers without event location, as FMPy's Euler: an event
//! at the end of each step whose indicators changed sign or whose completed
//! step asks for one ([`euler_step`]); the relay run under it with every call
//! counted for allocations ([`relay_under_euler`]), and a trace of states for
//! the FMU-state replay test ([`euler_trace`]).

use crate::alloc::allocations;
use lcsfmu::instance::{variables, Instance};

/// What a fixed-step forward-Euler importer that does not locate events
/// (FMPy's Euler) sees: `(time, values_changed, u, x)` at each event that
/// changed the mode, and the states at the end.
pub(super) struct EulerRun {
    pub(super) events: Vec<(f64, bool, f64, Vec<f64>)>,
    pub(super) off_surface_after_first: f64,
    pub(super) end: Vec<f64>,
}

/// Euler with step `h` to `stop` on the relay with `x1(0) = x1_start`, the
/// event at the end of each step whose indicators changed sign or whose
/// completed step asks for one; nothing on that path may allocate.
pub(super) fn relay_under_euler(x1_start: &str, h: f64, stop: f64) -> EulerRun {
    let m = crate::model_edited(
        "relay_feedback",
        "start = 0.5",
        &format!("start = {x1_start}"),
    );
    let mut i = crate::running_me(m);
    let names = variables::variables(i.model())
        .iter()
        .map(|v| v.name.to_string())
        .collect::<Vec<_>>();
    let u_vr = [names.iter().position(|n| n == "u").unwrap() as u32];
    let (mut x, mut dx, mut z0, mut z1, mut u) = (
        vec![0.0; 2],
        vec![0.0; 2],
        vec![0.0; 2],
        vec![0.0; 2],
        [0.0],
    );
    let mut run = EulerRun {
        events: vec![],
        off_surface_after_first: 0.0,
        end: vec![],
    };
    let steps = (stop / h).round() as usize;
    let mut worst = 0;
    for k in 1..=steps {
        let (n, event) = allocations(|| {
            i.get_continuous_states(&mut x).unwrap();
            i.get_derivatives(&mut dx).unwrap();
            i.get_event_indicators(&mut z0).unwrap();
            for c in 0..2 {
                x[c] += h * dx[c];
            }
            i.set_time(k as f64 * h).unwrap();
            i.set_continuous_states(&x).unwrap();
            i.get_event_indicators(&mut z1).unwrap();
            let crossed = (0..2).any(|c| (z0[c] > 0.0) != (z1[c] > 0.0));
            let step = i.completed_integrator_step().unwrap();
            if !(crossed || step.enter_event_mode) {
                return None;
            }
            let before = i.model_exchange_events().unwrap();
            i.enter_event_mode().unwrap();
            let update = i.new_discrete_states().unwrap();
            i.enter_continuous_time_mode().unwrap();
            i.get_continuous_states(&mut x).unwrap();
            i.get_reals(&u_vr, &mut u).unwrap();
            (i.model_exchange_events().unwrap() > before).then_some((update.values_changed, u[0]))
        });
        worst = worst.max(n);
        if let Some((changed, u)) = event {
            run.events.push((k as f64 * h, changed, u, x.clone()));
        } else if !run.events.is_empty() {
            run.off_surface_after_first = run.off_surface_after_first.max((x[0] + x[1]).abs());
        }
    }
    assert_eq!(
        worst, 0,
        "allocations on the per-call path, events included"
    );
    i.get_continuous_states(&mut x).unwrap();
    run.end = x;
    run
}
/// One step of a forward-Euler importer without event location, as FMPy's:
/// the event at the end of a step whose indicators changed sign or whose
/// completed step asks for one. Returns whether an event was handled.
fn euler_step(
    i: &mut Instance,
    t: f64,
    h: f64,
    x: &mut [f64],
    dx: &mut [f64],
    z: &mut [Vec<f64>; 2],
) -> bool {
    i.get_continuous_states(x).unwrap();
    i.get_derivatives(dx).unwrap();
    i.get_event_indicators(&mut z[0]).unwrap();
    for (xc, d) in x.iter_mut().zip(dx.iter()) {
        *xc += h * d;
    }
    i.set_time(t + h).unwrap();
    i.set_continuous_states(x).unwrap();
    i.get_event_indicators(&mut z[1]).unwrap();
    let crossed = z[0]
        .iter()
        .zip(&z[1])
        .any(|(a, b)| (*a > 0.0) != (*b > 0.0));
    if !(i.completed_integrator_step().unwrap().enter_event_mode || crossed) {
        return false;
    }
    i.enter_event_mode().unwrap();
    i.new_discrete_states().unwrap();
    i.enter_continuous_time_mode().unwrap();
    true
}

/// `(t, states)` after each of `steps` Euler steps from the instance's state
/// at step `first` (time `first h`).
pub(super) fn euler_trace(
    i: &mut Instance,
    first: usize,
    h: f64,
    steps: usize,
) -> Vec<(f64, Vec<f64>)> {
    let (nx, nz) = (i.model().nx(), i.event_indicator_count());
    let (mut x, mut dx, mut z) = (vec![0.0; nx], vec![0.0; nx], [vec![0.0; nz], vec![0.0; nz]]);
    (1..=steps)
        .map(|k| {
            let t = (first + k - 1) as f64 * h;
            euler_step(i, t, h, &mut x, &mut dx, &mut z);
            i.get_continuous_states(&mut x).unwrap();
            (t + h, x.clone())
        })
        .collect()
}
