//! Equality constraints (`[[constraints]]`) under Moreau–Jean: the Cartesian
//! pendulum's velocity-level enforcement (its rate zero at every step's end,
//! the length's drift second order in h), its FMU states replayed across an
//! impact, the same motion in millimetres, and the steps where the rows
//! become dependent: solved when they agree, discarded naming a constraint and
//! a contact when they cannot both hold.

use crate::{assert_fmu_state_replays, column, initialized, model, run};
use lcsfmu::instance::Severity;
use lcsfmu::model::validate;
use lcsfmu::tool::simulate::{self, Options};
use std::path::Path;

#[test]
fn the_rod_keeps_its_rate_at_zero_and_its_length_drifts_at_second_order() {
    let mut drift = Vec::new();
    for h in [2e-3, 1e-3, 5e-4] {
        // Up to 0.6 s: before the stop is reached (0.638 s).
        let opts = Options {
            step: Some(h),
            stop: Some(0.6),
            ..Options::default()
        };
        let t = run(model("cartesian_pendulum"), opts);
        let (x, y) = (column(&t, "x"), column(&t, "y"));
        let (vx, vy) = (column(&t, "vx"), column(&t, "vy"));
        let p = column(&t, "p");
        assert!(p.iter().all(|&p| p == 0.0), "the stop is not reached");
        for k in 1..x.len() {
            // The constraint's rate G(q) v at the step's end, against the speed.
            let r = (x[k] * x[k] + y[k] * y[k]).sqrt();
            let rate = (x[k] * vx[k] + y[k] * vy[k]) / r;
            let speed = vx[k].hypot(vy[k]);
            assert!(rate.abs() <= 1e-9 * speed, "h = {h}, step {k}: {rate:e}");
        }
        let worst = column(&t, "length_error")
            .iter()
            .fold(0.0f64, |m, e| m.max(e.abs()));
        println!("cartesian_pendulum, h = {h:e}: largest |length - l| over 0.6 s {worst:e}");
        drift.push(worst);
    }
    for w in drift.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!((1.9..=2.1).contains(&order), "{drift:?}");
    }
}

#[test]
fn the_cartesian_pendulum_replays_from_fmu_states_across_its_first_impact() {
    let pairs = assert_fmu_state_replays(model("cartesian_pendulum"), 600, 700, "cartesian");
    // Pairs: the stop's percussion, then the rod's impulse.
    assert!(
        pairs.iter().any(|p| p[0] > 0.0),
        "the window holds an impact"
    );
    assert!(
        pairs.iter().all(|p| p[1] != 0.0),
        "the rod acts at every step"
    );
}

#[test]
fn the_cartesian_pendulum_in_millimetres_takes_the_same_steps() {
    let si = run(model("cartesian_pendulum"), Options::default());
    let text = std::fs::read_to_string(crate::model_path("cartesian_pendulum")).unwrap();
    let mm = text
        .replace("value = 1.0\nunit = \"m\"", "value = 1000.0\nunit = \"mm\"")
        .replace("value = 9.81", "value = 9810.0")
        .replace("start = 0.8414709848078965", "start = 841.4709848078965")
        .replace("start = -0.5403023058681398", "start = -540.3023058681398");
    assert_eq!(mm.matches("1000.0").count(), 1);
    let m = validate::from_str(&mm, Path::new("cartesian_mm.toml")).unwrap();
    let scaled = run(m, Options::default());
    let (a, b) = (column(&si, "p"), column(&scaled, "p"));
    let mut worst = 0.0f64;
    for (k, (a, b)) in a.iter().zip(&b).enumerate() {
        assert_eq!(*a > 0.0, *b > 0.0, "the stop's active set at step {k}");
    }
    for (x, y) in column(&si, "theta").iter().zip(column(&scaled, "theta")) {
        worst = worst.max((x - y).abs());
    }
    println!("cartesian_pendulum in mm: theta differs by at most {worst:e} rad");
    assert!(worst <= 1e-9, "{worst}");
}

const DEPENDENT: &str = r#"
[model]
name = "dependent"
[experiment]
start = 0.0
stop = 0.01
step = 0.001
[scheme]
method = "moreau-jean"
[[coordinates]]
name = "x"
velocity = "vx"
start = 1.0
mass = 1.0
[[coordinates]]
name = "y"
velocity = "vy"
start = 0.0
mass = 1.0
[[coordinates]]
name = "z"
velocity = "vz"
start = 0.0
mass = 2.0
force = "-19.62"
[[constraints]]
name = "c1"
value = "z"
[[constraints]]
name = "c2"
value = "z - x*y"
"#;

#[test]
fn dependent_but_consistent_constraints_are_solved_at_a_step() {
    // Independent at the start values (x = 1), identical rows at x = y = 0
    // (set at run time, where the file's check does not look): the motion
    // is determined, the impulse's split between c1 and c2 is not.
    let m = validate::from_str(DEPENDENT, Path::new("dependent.toml")).unwrap();
    let opts = Options {
        sets: vec![("x".into(), 0.0), ("vx".into(), 0.0)],
        ..Options::default()
    };
    let t = simulate::run(m, "{test}", &opts).unwrap();
    assert_eq!(t.failure, None);
    let (z, vz) = (column(&t, "z"), column(&t, "vz"));
    let (c1, c2) = (column(&t, "c1"), column(&t, "c2"));
    assert!(z.iter().chain(&vz).all(|&v| v == 0.0));
    for k in 1..c1.len() {
        // Together they carry the weight's impulse over the step, m g h.
        let total = c1[k] + c2[k];
        assert!((total - 2.0 * 9.81 * 1e-3).abs() <= 1e-15, "{k}: {total}");
    }
}

const INCONSISTENT: &str = r#"
[model]
name = "inconsistent"
[scheme]
method = "moreau-jean"
[[coordinates]]
name = "x"
velocity = "vx"
mass = 1.0
[[coordinates]]
name = "z"
velocity = "vz"
velocity_start = -1.0
mass = 1.0
force = "-9.81"
[[contacts]]
name = "ground"
gap = "z"
restitution = 0.5
[[constraints]]
name = "c"
value = "z"
"#;

#[test]
fn a_constraint_and_a_contact_that_cannot_both_hold_discard_naming_both() {
    // Falling at 1 m/s onto the ground: Newton's law asks vz >= 0.5 after
    // the step, the constraint vz = 0.
    let m = validate::from_str(INCONSISTENT, Path::new("inconsistent.toml")).unwrap();
    let mut i = initialized(m);
    let kept = i.states().to_vec();
    let e = i.do_step(0.0, 1e-3).unwrap_err();
    assert_eq!(e.severity, Severity::Discard);
    assert!(
        e.message
            .contains("constraints[0] and contacts[0] are redundant or inconsistent"),
        "{}",
        e.message
    );
    assert_eq!(i.states(), kept.as_slice());
    // With a plastic impact they agree: the step is taken.
    let m = model_edited_text(INCONSISTENT, "restitution = 0.5", "restitution = 0.0");
    let mut i = initialized(m);
    i.do_step(0.0, 1e-3).unwrap();
    assert_eq!(i.states()[3], 0.0);
}

fn model_edited_text(text: &str, from: &str, to: &str) -> lcsfmu::model::Model {
    assert!(text.contains(from));
    validate::from_str(&text.replace(from, to), Path::new("edited.toml")).unwrap()
}
