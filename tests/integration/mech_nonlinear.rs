//! Mechanical models with nonlinear forces, gaps and slips (Moreau–Jean with
//! a converged Newton loop).
//!
//! - every bundled mechanical model without nonlinear parts takes the linear
//!   stepper (its numbers are today's, bit for bit);
//! - the Newton loop on a linear model written nonlinearly reproduces the
//!   linear scheme (bouncing ball, to rounding);
//! - Newton iteration counts per step (printed) and the residual at
//!   acceptance for the bundled nonlinear mechanical models;
//! - a step whose Newton iteration fails is discarded with the state kept
//!   (through built FMUs: `tests/python/test_newton_discard.py`);
//! - FMU-state replay bit for bit, over a window that holds an impact.

use crate::{assert_fmu_state_replays, column, initialized, model, model_edited, run};
use lcsfmu::instance::Severity;
use lcsfmu::model::validate;
use lcsfmu::scheme::theta::newton;
use lcsfmu::scheme::{Mechanical, Stepper};
use lcsfmu::system::lcs::Lcs;
use lcsfmu::tool::simulate::Options;

/// The bundled models with nonlinear mechanics.
const NONLINEAR: [&str; 6] = [
    "pendulum_stop",
    "duffing_impact",
    "rocking_block",
    "double_pendulum",
    "cartesian_pendulum",
    "pendulum_on_slider",
];

#[test]
fn linear_mechanical_models_take_the_linear_stepper() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut linear = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let m = validate::load(&path).unwrap();
        if m.mechanics.is_none() {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let lcs = Lcs::new(&m);
        let stepper = Stepper::new(&m, &lcs);
        let newton = matches!(stepper, Stepper::Mechanical(Mechanical::Nonlinear(_)));
        assert_eq!(newton, m.nonlinear_mechanics(), "{stem}");
        assert_eq!(newton, NONLINEAR.contains(&stem.as_str()), "{stem}");
        linear += usize::from(!newton);
    }
    assert!(linear >= 5, "{linear} linear mechanical models");
}

#[test]
fn the_newton_loop_on_a_linear_model_is_the_linear_scheme() {
    // sin² + cos² = 1 to an ulp: the same gravity, through the Newton step.
    let linear = run(model("bouncing_ball"), Options::default());
    let m = model_edited(
        "bouncing_ball",
        "force = \"-g\"",
        "force = \"-g*(sin(q)^2 + cos(q)^2)\"",
    );
    assert!(m.nonlinear_mechanics());
    let t = run(m, Options::default());
    for name in ["q", "v", "p"] {
        let (a, b) = (column(&linear, name), column(&t, name));
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        println!("bouncing ball through Newton: {name} differs by at most {worst:e}");
        assert!(worst <= 1e-9, "{name}: {worst}");
    }
    let stats = t.newton.unwrap();
    // A linear step converges after one LCP solve (at most two when the
    // rounding of sin² + cos² is above the tolerance).
    assert_eq!(stats.histogram[3..].iter().sum::<usize>(), 0, "{stats:?}");
}

#[test]
fn newton_iterations_per_step_and_residual_at_acceptance() {
    for stem in NONLINEAR {
        let t = run(model(stem), Options::default());
        let s = t.newton.unwrap();
        println!(
            "{stem}: LCP solves per step {:?} (index = solves), largest scaled residual at acceptance {:e}",
            s.histogram, s.worst_residual
        );
        assert!(s.worst_residual <= newton::TOL, "{stem}: {s:?}");
        assert!(s.histogram[1..].iter().sum::<usize>() > 0, "{stem}");
    }
}

const STIFFENING: &str = r#"
[model]
name = "stiffening"
[experiment]
start = 0.0
stop = 1.0
step = 0.01
[scheme]
method = "moreau-jean"
[[coordinates]]
name = "x"
velocity = "v"
start = 0.5
velocity_start = 10.0
mass = 1.0
force = "-sqrt(1 - x)"
[[contacts]]
name = "p"
gap = "x + 1"
"#;

#[test]
fn a_failing_newton_step_is_discarded_with_the_state_kept() {
    let m = validate::from_str(STIFFENING, std::path::Path::new("stiffening.toml")).unwrap();
    let mut i = initialized(m);
    i.do_step(0.0, 0.01).unwrap();
    let kept = i.states().to_vec();
    // The first iterate, x + h v = 1.6, lies where the force is not
    // defined (NaN): the residual is not finite.
    let e = i.do_step(0.01, 0.1).unwrap_err();
    assert_eq!(e.severity, Severity::Discard);
    assert!(
        e.message.contains("Newton iteration did not converge") && e.message.contains("residual"),
        "{}",
        e.message
    );
    assert_eq!(i.states(), kept.as_slice());
    assert_eq!(i.last_successful_time(), 0.01);
}

/// Each model's replay window, in steps of its experiment's h = 1e-3: it holds
/// pendulum_stop's first impact (in the step ending at t = 0.637 s),
/// duffing_impact's (1.232 s) and rocking_block's corner impacts from 0.617 s
/// on. (Steps 600 to 900 for all three missed duffing_impact's impact.)
const REPLAY: [(&str, usize, usize); 3] = [
    ("pendulum_stop", 600, 900),
    ("duffing_impact", 1100, 1400),
    ("rocking_block", 600, 900),
];

#[test]
fn fmu_state_replays_the_mechanical_newton_steps_bit_for_bit() {
    for (stem, before, after) in REPLAY {
        let m = model(stem);
        let h = m.experiment.step;
        let mech = m.mechanics.as_ref().unwrap();
        let normal: Vec<usize> = mech.contacts.iter().map(|c| c.pair).collect();
        let pairs = assert_fmu_state_replays(m, before, after, stem);
        // The replay crossed an impact: a contact's percussion is zero after
        // one step of the window and positive after the next.
        let impacts: Vec<String> = (1..pairs.len())
            .filter(|&k| {
                normal
                    .iter()
                    .any(|&j| pairs[k - 1][j] == 0.0 && pairs[k][j] > 0.0)
            })
            .map(|k| format!("{:.3}", (before + k + 1) as f64 * h))
            .collect();
        println!(
            "{stem}: replayed steps {before}..{after}, impacts in the steps ending at t = {}",
            impacts.join(", ")
        );
        assert!(
            !impacts.is_empty(),
            "{stem}: no impact in steps {before}..{after}"
        );
    }
}
