//! The projected Moreau–Jean and semi-explicit schemes on mechanical models
//! with nonlinear forces (`pendulum_stop`) and gaps (`rocking_block`):
//!
//! - no gap is negative beyond rounding at any step (plain Moreau–Jean
//!   penetrates by 9e-4 on the block, so the check can fail);
//! - projected and plain Moreau–Jean agree bit for bit until the first
//!   contact, and to O(h) between impacts afterwards;
//! - Newton counts per step and the residual at acceptance (printed);
//! - FMU-state replay bit for bit; no allocation on the step path;
//! - `moreau-jean-direct-projection` is refused for such models with the
//!   field and the reason.

use super::alloc::allocations;
use crate::{assert_fmu_state_replays, column, model_path, run};
use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};
use lcsfmu::scheme::theta::newton;
use lcsfmu::tool::simulate::{Options, Trajectory};

/// A bundled model with another method; semi-explicit impacts are plastic
/// (its files give no restitution).
fn with_method(stem: &str, method: &str) -> Model {
    let text = std::fs::read_to_string(model_path(stem)).unwrap();
    let mut text = text.replace(
        "method = \"moreau-jean\"",
        &format!("method = \"{method}\""),
    );
    if method == "semi-explicit" {
        text = text.replace("restitution = \"e\"\n", "");
    }
    validate::from_str(&text, &model_path(stem)).unwrap_or_else(|e| panic!("{e}"))
}

fn with_step(h: f64, stop: f64) -> Options {
    Options {
        step: Some(h),
        stop: Some(stop),
        ..Options::default()
    }
}

/// The block's two corner gaps at each step (L = 1, H = 1.5).
fn block_gaps(t: &Trajectory) -> Vec<f64> {
    let (y, th) = (column(t, "y"), column(t, "th"));
    y.iter()
        .zip(&th)
        .flat_map(|(y, th)| {
            let (a, b) = (0.5 * th.sin(), 0.75 * th.cos());
            [y - a - b, y + a - b]
        })
        .collect()
}

fn lowest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

#[test]
fn projected_and_semi_explicit_never_penetrate() {
    let plain = run(crate::model("rocking_block"), Options::default());
    let plain_low = lowest(&block_gaps(&plain));
    println!("rocking_block, moreau-jean: lowest gap {plain_low:e}");
    assert!(plain_low < -1e-4, "{plain_low}");
    for method in ["moreau-jean-projected", "semi-explicit"] {
        let t = run(with_method("rocking_block", method), Options::default());
        let low = lowest(&block_gaps(&t));
        let p = run(with_method("pendulum_stop", method), Options::default());
        let low_p = lowest(
            &column(&p, "theta")
                .iter()
                .map(|x| x + 0.3)
                .collect::<Vec<_>>(),
        );
        println!("{method}: lowest gap rocking_block {low:e}, pendulum_stop {low_p:e}");
        // The gaps' rounding: a few ulps of the block's 0.75 m.
        assert!(low >= -1e-15 && low_p >= -1e-15, "{method}: {low} {low_p}");
        for (stem, t) in [("rocking_block", &t), ("pendulum_stop", &p)] {
            let s = t.newton.clone().unwrap();
            println!(
                "{stem}, {method}: LCP solves per step {:?}, largest scaled residual {:e}",
                s.histogram, s.worst_residual
            );
            assert!(s.worst_residual <= newton::TOL);
        }
    }
}

/// Largest difference of `name` between two runs, away from the steps
/// within two of a jump of `rate` larger than `jump` in either run.
fn apart_from_impacts(
    a: &Trajectory,
    b: &Trajectory,
    name: &str,
    rates: &[&str],
    jump: f64,
) -> f64 {
    let n = a.rows.len();
    let mut near = vec![false; n];
    for t in [a, b] {
        for r in rates {
            let c = column(t, r);
            for k in 1..n {
                if (c[k] - c[k - 1]).abs() > jump {
                    near[k.saturating_sub(3)..(k + 2).min(n)].fill(true);
                }
            }
        }
    }
    let (x, y) = (column(a, name), column(b, name));
    (0..n)
        .filter(|&k| !near[k])
        .map(|k| (x[k] - y[k]).abs())
        .fold(0.0, f64::max)
}

#[test]
fn projected_follows_moreau_jean_to_order_h() {
    // The pendulum: identical until its first contact; afterwards the
    // projection may bounce it a step earlier (where plain Moreau–Jean let
    // it penetrate), a shift of one step: |Δθ| <= |θ'| h (1 + e) ≈ 8.2 h
    // (measured 0.09–5.9 h; |Δθ'| 0.28–17.6 h).
    for h in [1e-3, 5e-4, 2.5e-4] {
        let a = run(
            with_method("pendulum_stop", "moreau-jean"),
            with_step(h, 5.0),
        );
        let b = run(
            with_method("pendulum_stop", "moreau-jean-projected"),
            with_step(h, 5.0),
        );
        let first = column(&a, "p").iter().position(|p| *p > 0.0).unwrap();
        let same = a.rows[..first - 1] == b.rows[..first - 1];
        let dth = apart_from_impacts(&a, &b, "theta", &["omega"], 0.5);
        let dw = apart_from_impacts(&a, &b, "omega", &["omega"], 0.5);
        println!("pendulum_stop h = {h:e}: identical before the first impact {same}; between impacts |Δθ| {dth:.3e} ({:.2} h), |Δθ'| {dw:.3e} ({:.2} h)", dth / h, dw / h);
        assert!(same);
        assert!(dth <= 10.0 * h && dw <= 30.0 * h, "{dth} {dw}");
    }
    // The block until its impacts accumulate (0.5 s: four impacts): the
    // difference halves with h (measured ratios 2.6 and 2.0).
    let diff = |h: f64| {
        let a = run(
            with_method("rocking_block", "moreau-jean"),
            with_step(h, 0.5),
        );
        let b = run(
            with_method("rocking_block", "moreau-jean-projected"),
            with_step(h, 0.5),
        );
        let rates = ["vth", "vy"];
        let d = [
            apart_from_impacts(&a, &b, "th", &rates, 0.1),
            apart_from_impacts(&a, &b, "vth", &rates, 0.1),
        ];
        println!(
            "rocking_block h = {h:e}: between impacts |Δθ| {:.3e}, |Δθ'| {:.3e}",
            d[0], d[1]
        );
        d
    };
    let (coarse, fine) = (diff(1e-3), diff(5e-4));
    for i in 0..2 {
        assert!(coarse[i] <= 5.0 * 1e-3 * 30.0, "{coarse:?}");
        assert!(fine[i] <= 0.6 * coarse[i], "{coarse:?} {fine:?}");
    }
}

#[test]
fn fmu_state_replays_projected_and_semi_explicit_bit_for_bit() {
    for method in ["moreau-jean-projected", "semi-explicit"] {
        for stem in ["rocking_block", "pendulum_stop"] {
            // Past the block's first impacts (0.184, 0.296 s), into its rocking.
            let what = format!("{stem}, {method}");
            assert_fmu_state_replays(with_method(stem, method), 300, 700, &what);
        }
    }
}

#[test]
fn direct_projection_refuses_nonlinear_mechanics() {
    let text = std::fs::read_to_string(model_path("rocking_block"))
        .unwrap()
        .replace(
            "method = \"moreau-jean\"",
            "method = \"moreau-jean-direct-projection\"",
        );
    let e = validate::from_str(&text, &model_path("rocking_block")).unwrap_err();
    assert_eq!(e.field, "scheme.method");
    assert!(
        e.message.contains("does not step such models yet"),
        "{}",
        e.message
    );
}

#[test]
fn projected_and_semi_explicit_steps_allocate_nothing() {
    for method in ["moreau-jean-projected", "semi-explicit"] {
        for stem in ["rocking_block", "pendulum_stop"] {
            let mut i = Instance::new(with_method(stem, method), "{g}");
            i.setup_experiment(0.0, None).unwrap();
            i.enter_initialization_mode().unwrap();
            i.exit_initialization_mode().unwrap();
            // Through the block's impacts, projections and resting contacts
            // (and the pendulum's first two impacts), with a change of step.
            let mut t = 0.0;
            for k in 0..2500usize {
                let h = if k < 2000 { 1e-3 } else { 5e-4 };
                let (n, r) = allocations(|| i.do_step(t, h));
                r.unwrap();
                assert_eq!(n, 0, "{stem}, {method}: step {k} allocated {n} times");
                t += h;
            }
        }
    }
}
