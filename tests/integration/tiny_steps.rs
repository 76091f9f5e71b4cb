//! Masters that accumulate their time (`t += h`, OMSimulator's pattern) end a
//! run with a step at the rounding level of the time (issue 20, section 2).
//! The FMU integrates it, keeps the states right and reports the previous
//! step's multipliers while the mode holds (`lcsfmu::instance::TINY_STEP`).

use super::model;
use lcsfmu::instance::Instance;

fn initialized(stem: &str) -> Instance {
    let mut i = Instance::new(model(stem), "{g}");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i
}

/// The states and multipliers at `stop` after steps of `h` taken as a master
/// that accumulates its time does (`t += h`, the last step `stop - t`), and the
/// size of that last step.
fn accumulated(stem: &str, h: f64, stop: f64) -> (Vec<f64>, Vec<f64>, f64) {
    let mut i = initialized(stem);
    let (mut t, mut last) = (0.0f64, h);
    while t < stop {
        last = h.min(stop - t);
        i.do_step(t, last)
            .unwrap_or_else(|e| panic!("t = {t}: {e}"));
        t += last;
    }
    (i.states().to_vec(), i.pairs().to_vec(), last)
}

/// The same run on the exact grid `k h` (as FMPy and `simulate` step).
fn on_the_grid(stem: &str, h: f64, stop: f64) -> (Vec<f64>, Vec<f64>) {
    let mut i = initialized(stem);
    let n = (stop / h).round() as usize;
    for k in 0..n {
        let (t0, t1) = (k as f64 * h, ((k + 1) as f64 * h).min(stop));
        i.do_step(t0, t1 - t0).unwrap();
    }
    (i.states().to_vec(), i.pairs().to_vec())
}

#[test]
fn the_relay_reports_its_sliding_multiplier_after_an_accumulated_tiny_step() {
    // 300 steps of 0.01 accumulate to just below 3, and the last one is tiny.
    let (x, u, last) = accumulated("relay_feedback", 0.01, 3.0);
    assert!(last > 0.0 && last < 1e-12, "last step {last:e}");
    let (xg, ug) = on_the_grid("relay_feedback", 0.01, 3.0);
    for (a, b) in x.iter().zip(&xg) {
        assert!((a - b).abs() <= 1e-12, "states {x:?} vs {xg:?}");
    }
    // Sliding: the multiplier is inside (-1, 1), and the same as on the grid
    // to the accumulated time's rounding (without the rule: 1.4e-4 apart).
    assert!(u[0] > -1.0 && u[0] < 1.0, "{u:?}");
    assert!(
        (u[0] - ug[0]).abs() <= 1e-9,
        "u(3) = {} vs {} on the grid",
        u[0],
        ug[0]
    );
}

#[test]
fn percussions_of_a_tiny_step_are_its_own() {
    // A mechanical step reports impulses over the step: a tiny step's are tiny
    // (the ball resting on the floor at the end of its run), not the held ones.
    let (_, p, last) = accumulated("bouncing_ball", 0.01, 10.0);
    assert!(last < 1e-12, "last step {last:e}");
    let (_, pg) = on_the_grid("bouncing_ball", 0.01, 10.0);
    assert!(pg[0] > 0.0, "resting on the floor on the grid: {pg:?}");
    assert!(p[0] < 1e-9 * pg[0], "{p:?} vs {pg:?}");
}
