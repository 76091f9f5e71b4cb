//! A configuration-dependent mass matrix `M(q)`: a step where it stops being
//! positive definite is discarded with that reason, the double pendulum's FMU
//! states replay its Newton steps bit for bit, and random valid `M(q)` models
//! step or are discarded with a reason that holds.
//!
//! The property test draws 1–3 coordinates with `M(q) = D + Σ_k u_k(q) u_k(q)ᵀ`
//! (`D` a positive diagonal, `u_k` entries `a cos(q_j)` or `b sin(q_j)`:
//! positive definite at every `q` by construction, and written with the same
//! text on both sides of the diagonal), a spring, damper and a `sin` force per
//! coordinate, 0–2 contacts `q_i + s >= 0` with restitution in [0, 1], some
//! coordinates and velocities starting at exactly 0, a step drawn
//! log-uniformly from 1e-4 to 0.1 and θ from {1/2, 1}. Every step must succeed
//! or be discarded for a true reason: never "not positive definite" (the
//! matrices are positive definite everywhere), and a Newton failure only with
//! its iterations and residual in the message. `LCSFMU_RANDOM_MODELS=N` runs N
//! models (default 40), `LCSFMU_RANDOM_SEED` picks another seed.
//!
//! The double pendulum against Siconos 4.4 with its Newton loop converged:
//! `tests/data/double_pendulum_siconos_converged.csv`, made by
//! `scripts/siconos/double_pendulum.sh --reference` (a driver written with
//! Siconos' API: `LagrangianDS` with `M(q)`, `FGyr`, `FInt` and their exact
//! Jacobians, two `LagrangianScleronomousR` walls, `MoreauJeanOSI(0.500001)`,
//! Lemke, Newton tolerance 1e-15; every 10th step and every step with a
//! percussion). See the test for the tolerance.

use crate::sequence_args::Rng;
use crate::{assert_fmu_state_replays, close, column, initialized, model, run};
use lcsfmu::instance::Severity;
use lcsfmu::model::validate;
use lcsfmu::tool::simulate::Options;
use std::fmt::Write;
use std::path::Path;

const SOFTENING: &str = r#"
[model]
name = "softening"
[scheme]
method = "moreau-jean"
[[coordinates]]
name = "x"
velocity = "v"
mass = "1 - x"
force = "1"
"#;

#[test]
fn a_step_where_the_mass_matrix_is_not_positive_definite_is_discarded() {
    let m = validate::from_str(SOFTENING, Path::new("softening.toml")).unwrap();
    let mut i = initialized(m);
    let (mut t, h) = (0.0, 0.1);
    let e = loop {
        match i.do_step(t, h) {
            Ok(_) => t += h,
            Err(e) => break e,
        }
        assert!(t < 10.0, "M(x) = 1 - x never reached zero");
    };
    assert_eq!(e.severity, Severity::Discard);
    assert!(e.message.contains("not positive definite"), "{}", e.message);
    let x = i.states()[0];
    // The state kept is where M was still positive, the iterate beyond x = 1.
    assert!(x < 1.0, "x = {x}");
    println!("discarded at t = {t}, x = {x}: {}", e.message);
}

#[test]
fn fmu_state_replays_the_double_pendulums_steps_bit_for_bit() {
    // Steps 1200..1500 at h = 5e-4 hold the tip's first impact (t = 0.6405).
    let pairs = assert_fmu_state_replays(model("double_pendulum"), 1200, 1500, "double_pendulum");
    assert!(
        pairs.iter().any(|p| p[1] > 0.0),
        "no impact of the tip in the window"
    );
}

/// Siconos' converged run: rows of time, th1, w1, th2, w2, p1, p2 (the
/// iterations and residual columns dropped).
fn siconos_converged() -> Vec<[f64; 7]> {
    let rows = crate::reference_rows("double_pendulum_siconos_converged.csv");
    rows.into_iter()
        .map(|r| r[..7].try_into().unwrap())
        .collect()
}

/// Both solve the same scheme (`M(q⁺)(v⁺ - v) = h [θ F⁺ + (1-θ) F] + G(q⁺)ᵀ p`,
/// contacts chosen by `g + h/2 ġ <= 0` at the step's start,
/// `0 <= G(q⁺) v⁺ + e G(q) v ⟂ p >= 0`), Siconos to a residual of 1e-15
/// N.m.s. Before the first impact (t = 0.6405, the tip) they agree to
/// rounding: measured 2.8e-17 rad and 2.2e-16 rad/s, allowed 1e-13. At an
/// impact step lcsfmu's iteration converges linearly (the curvature of the
/// gaps times the percussion is left out of its matrix, as in Siconos); it
/// goes on below its scaled residual of 1e-10 to rounding (2 LCP solves on
/// 9,991 steps, 3 on 9). Over 5 s and ten impacts: measured 1.3e-15 rad in
/// th1, 2.1e-14 rad in th2, 2.6e-14 and 9.7e-14 rad/s in w1 and w2, 2.0e-14
/// and 9.1e-14 N.m.s in p1 and p2 (stopping at 1e-10 left 5.1e-11 rad,
/// 3.3e-10 rad/s and 3.4e-10 N.m.s); allowed 1e-12 times max(1,
/// |reference|). The impacts fall on the same steps.
#[test]
fn double_pendulum_matches_siconos_with_a_converged_newton_loop() {
    let reference = siconos_converged();
    assert_eq!(reference.len(), 1009);
    let t = run(model("double_pendulum"), Options::default());
    assert_eq!(t.rows.len(), 10001);
    let h = 5e-4;
    let first_impact = 0.6405;
    let names = ["time", "th1", "w1", "th2", "w2", "p1", "p2"];
    let ours: Vec<Vec<f64>> = names.iter().map(|n| column(&t, n)).collect();
    let mut impacts = 0;
    for (j, name) in names.iter().enumerate() {
        let (mut worst, mut worst_before) = (0.0f64, 0.0f64);
        for r in &reference {
            let k = (r[0] / h).round() as usize;
            let (a, b) = (ours[j][k], r[j]);
            worst = worst.max((a - b).abs());
            if r[0] < first_impact - h / 2.0 {
                worst_before = worst_before.max((a - b).abs());
                assert!(
                    (a - b).abs() <= 1e-13,
                    "{name} at t = {}: {a} vs Siconos {b}",
                    r[0]
                );
            }
            assert!(
                close(a, b, 1e-12),
                "{name} at t = {}: {a} vs Siconos {b}",
                r[0]
            );
            if j >= 5 {
                assert_eq!(a > 0.0, b > 0.0, "{name} at t = {}: {a} vs {b}", r[0]);
                impacts += usize::from(b > 0.0);
            }
        }
        println!(
            "double_pendulum vs Siconos (converged): {name} differs by at most {worst:.2e}, \
             {worst_before:.2e} before the first impact"
        );
    }
    // The first link bounces (e = 1) and the tip stops (e = 0), ten times in all.
    assert_eq!(impacts, 10);
}

/// A random model of the family in the module text.
fn random_model(rng: &mut Rng, index: usize) -> (String, f64) {
    let uniform = |rng: &mut Rng, lo: f64, hi: f64| {
        lo + (hi - lo) * (rng.below(1 << 30) as f64 / (1u64 << 30) as f64)
    };
    let n = 1 + rng.below(3) as usize;
    let theta = if rng.chance(50) { 0.5 } else { 1.0 };
    let h = 10f64.powf(uniform(rng, -4.0, -1.0));
    let mut s = String::new();
    writeln!(s, "[model]\nname = \"random_mass_{index}\"").unwrap();
    writeln!(s, "[scheme]\nmethod = \"moreau-jean\"\ntheta = {theta}").unwrap();
    // u_k[i]: one vector per k, entries reading one coordinate each.
    let u: Vec<Vec<String>> = (0..n)
        .map(|_| {
            (0..n)
                .map(|_| {
                    let j = rng.below(n as u64);
                    let a = uniform(rng, -1.5, 1.5);
                    let f = rng.pick(&["cos", "sin"]);
                    format!("{a:.3}*{f}(q{j})")
                })
                .collect()
        })
        .collect();
    let d: Vec<f64> = (0..n).map(|_| uniform(rng, 0.1, 3.0)).collect();
    for i in 0..n {
        let start = if rng.chance(40) {
            0.0
        } else {
            uniform(rng, -1.0, 1.0)
        };
        let vstart = if rng.chance(40) {
            0.0
        } else {
            uniform(rng, -2.0, 2.0)
        };
        let (k, c, g) = (
            uniform(rng, 0.0, 20.0),
            uniform(rng, 0.0, 1.0),
            uniform(rng, 0.0, 10.0),
        );
        writeln!(
            s,
            "[[coordinates]]\nname = \"q{i}\"\nvelocity = \"v{i}\"\nstart = {start}\nvelocity_start = {vstart}\nforce = \"-{k:.3}*q{i} - {c:.3}*v{i} - {g:.3}*sin(q{i})\""
        )
        .unwrap();
    }
    let mut rows = Vec::new();
    for (i, di) in d.iter().enumerate() {
        let mut row = Vec::new();
        for j in 0..n {
            let (a, b) = (i.min(j), i.max(j));
            let mut terms: Vec<String> = (0..n)
                .map(|k| format!("({})*({})", u[k][a], u[k][b]))
                .collect();
            if i == j {
                terms.insert(0, format!("{di:.3}"));
            }
            row.push(format!("\"{}\"", terms.join(" + ")));
        }
        rows.push(format!("[{}]", row.join(", ")));
    }
    writeln!(s, "[mechanics]\nM = [{}]", rows.join(", ")).unwrap();
    for c in 0..rng.below(3) {
        let i = rng.below(n as u64);
        let offset = if rng.chance(30) {
            0.0
        } else {
            uniform(rng, 0.0, 1.0)
        };
        let e = if rng.chance(30) {
            0.0
        } else {
            uniform(rng, 0.0, 1.0)
        };
        writeln!(
            s,
            "[[contacts]]\nname = \"p{c}\"\ngap = \"q{i} + {offset:.3}\"\nrestitution = {e:.3}"
        )
        .unwrap();
    }
    (s, h)
}

#[test]
fn random_mass_matrix_models_step_or_discard_for_a_true_reason() {
    let count: usize = std::env::var("LCSFMU_RANDOM_MODELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let seed: u64 = std::env::var("LCSFMU_RANDOM_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6d61_7373);
    let mut rng = Rng(seed | 1);
    let (mut steps, mut discarded) = (0usize, 0usize);
    for index in 0..count {
        let (text, h) = random_model(&mut rng, index);
        let m = validate::from_str(&text, Path::new("random_mass.toml"))
            .unwrap_or_else(|e| panic!("a valid model was refused: {e}\n{text}"));
        let mut i = initialized(m);
        let mut t = 0.0;
        for _ in 0..(2.0 / h).ceil().min(2000.0) as usize {
            steps += 1;
            match i.do_step(t, h) {
                Ok(_) => t += h,
                Err(e) => {
                    assert_eq!(e.severity, Severity::Discard, "{}\n{text}", e.message);
                    assert!(
                        !e.message.contains("not positive definite"),
                        "M(q) is positive definite everywhere: {}\n{text}",
                        e.message
                    );
                    assert!(
                        e.message.contains("Newton iteration did not converge")
                            && e.message.contains("residual"),
                        "a discard without its reason: {}\n{text}",
                        e.message
                    );
                    discarded += 1;
                    println!(
                        "model {index} (h = {h:e}) discarded at t = {t}: {}",
                        e.message
                    );
                    break;
                }
            }
        }
    }
    println!("{count} random M(q) models, {steps} steps, {discarded} discarded");
}
