//! Sources in time on a model linear in its unknowns: the affine
//! time-varying LCS route of the theta step (one LCP per step, no Newton).
//!
//! - the driven stick–slip oscillator of issue 28 (a mass with Coulomb
//!   friction under `0.5*sin(2*time)`, starting at rest at exactly 0) runs
//!   to its end at every step size from 1e-4 to 0.1, θ = 1 and 1/2, stuck
//!   exactly while the force is below the friction bound;
//! - the same with a spring, a `coulomb_viscous` block and `F0*sin(w*time)`;
//! - the model with the source equals, bit for bit, its twin with the force
//!   an input set at each step to the source at the scheme's evaluation
//!   points (`θ F(t+h) + (1-θ) F(t)`);
//! - with a smooth nonlinear term the Newton step runs the same sweep without
//!   a discarded step (its scales see a state at rest at zero, see
//!   `scheme::theta::residual`).

use crate::{initialized, run};
use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::Options;
use std::path::Path;

const DRIVEN_STICK: &str = r#"
[model]
name = "driven_stick"
[experiment]
stop = 2.0
step = 0.001
[[states]]
name = "x"
der = "v"
[[states]]
name = "v"
der = "0.5*sin(2*time) - u"
[[blocks]]
name = "u"
type = "sign"
input = "v"
"#;

const SPRING_STICK: &str = r#"
[model]
name = "spring_stick"
[experiment]
stop = 20.0
step = 0.001
[[parameters]]
name = "F0"
value = 4.0
[[parameters]]
name = "Fc"
value = 3.0
[[parameters]]
name = "w"
value = 1.0
[[states]]
name = "x"
der = "v"
[[states]]
name = "v"
der = "F0*sin(w*time) - x - f"
[[blocks]]
name = "f"
type = "coulomb_viscous"
input = "v"
Fc = "Fc"
"#;

fn with_scheme(text: &str, theta: f64) -> Model {
    let text = format!("{text}\n[scheme]\ntheta = {theta:?}\n");
    validate::from_str(&text, Path::new("sources.toml")).unwrap_or_else(|e| panic!("{e}"))
}

const STEPS: [f64; 7] = [1e-4, 1e-3, 2e-3, 4e-3, 0.032, 0.05, 0.1];

#[test]
fn the_driven_stick_runs_at_every_step_and_sticks_exactly() {
    for theta in [1.0, 0.5] {
        for h in STEPS {
            let m = with_scheme(DRIVEN_STICK, theta);
            let n = (2.0 / h).round() as usize;
            let opts = Options {
                stop: Some(n as f64 * h),
                step: Some(h),
                ..Options::default()
            };
            let t = run(m, opts);
            assert_eq!(t.newton, None, "one LCP per step, no Newton iteration");
            // |0.5 sin(2t)| <= 0.5 < 1: the mass never moves, and the
            // friction force is the applied force at the scheme's point.
            for row in &t.rows {
                let (time, x, v, u) = (row[0], row[1], row[2], row[3]);
                assert!(
                    x.abs() < 1e-15 && v.abs() < 1e-15,
                    "θ {theta} h {h} t {time}: {row:?}"
                );
                if time > 0.0 {
                    let force = theta * 0.5 * (2.0 * time).sin()
                        + (1.0 - theta) * 0.5 * (2.0 * (time - h)).sin();
                    assert!(
                        (u - force).abs() < 1e-12,
                        "θ {theta} h {h} t {time}: {u} vs {force}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_driven_spring_with_coulomb_friction_runs_at_every_step() {
    for theta in [1.0, 0.5] {
        for h in STEPS {
            let opts = Options {
                stop: Some(20.0),
                step: Some(h),
                ..Options::default()
            };
            let t = run(with_scheme(SPRING_STICK, theta), opts);
            // It slides and sticks: both happen in 20 s.
            let v: Vec<f64> = t.rows.iter().map(|r| r[2]).collect();
            assert!(
                v.iter().any(|v| v.abs() > 0.5),
                "θ {theta} h {h}: never slides"
            );
            assert!(
                v.iter().filter(|v| **v == 0.0).count() > 2,
                "θ {theta} h {h}: never sticks"
            );
        }
    }
}

#[test]
fn a_source_equals_an_input_set_at_the_evaluation_points_bit_for_bit() {
    for theta in [1.0, 0.5] {
        let source = with_scheme(SPRING_STICK, theta);
        let twin_text = SPRING_STICK.replace("F0*sin(w*time)", "F").replacen(
            "[[states]]",
            "[[inputs]]\nname = \"F\"\nstart = 0.0\n\n[[states]]",
            1,
        );
        let twin = with_scheme(&twin_text, theta);
        assert!(!twin.nonlinear_dynamics());
        let vr = |m: &Model, name: &str| -> u32 {
            let vars = lcsfmu::instance::variables::variables(m);
            let at = vars.iter().position(|v| v.name == name);
            at.unwrap_or_else(|| panic!("no {name}")) as u32
        };
        let f_ref = vr(&twin, "F");
        let names = ["x", "v", "f"];
        let refs_a: Vec<u32> = names.iter().map(|n| vr(&source, n)).collect();
        let refs_b: Vec<u32> = names.iter().map(|n| vr(&twin, n)).collect();
        let (mut a, mut b) = (initialized(source), initialized(twin));
        let force = |t: f64| 4.0 * (1.0 * t).sin();
        let h = 0.004;
        let (mut ya, mut yb) = ([0.0; 3], [0.0; 3]);
        for k in 0..2500 {
            let t = a.time();
            assert_eq!(t, b.time());
            let w = 0.0 + theta * force(t + h) + (1.0 - theta) * force(t);
            b.set_reals(&[f_ref], &[w]).unwrap();
            a.do_step(t, h).unwrap();
            b.do_step(t, h).unwrap();
            a.get_reals(&refs_a, &mut ya).unwrap();
            b.get_reals(&refs_b, &mut yb).unwrap();
            assert_eq!(
                ya.map(f64::to_bits),
                yb.map(f64::to_bits),
                "θ {theta}, step {k}: {ya:?} vs {yb:?}"
            );
        }
    }
}

#[test]
fn the_newton_step_runs_the_driven_stick_with_a_nonlinear_term() {
    let text = DRIVEN_STICK.replace("0.5*sin(2*time) - u", "0.5*sin(2*time) - u - 0.1*sin(x)");
    for theta in [1.0, 0.5] {
        for h in STEPS {
            let n = (2.0 / h).round() as usize;
            let opts = Options {
                stop: Some(n as f64 * h),
                step: Some(h),
                ..Options::default()
            };
            let t = run(with_scheme(&text, theta), opts);
            let stats = t.newton.expect("a Newton step");
            assert_eq!(stats.histogram.iter().sum::<usize>(), n, "θ {theta} h {h}");
            assert!(stats.worst_residual <= 1e-10, "θ {theta} h {h}: {stats:?}");
        }
    }
}
