//! The FMI life cycle of the core `Instance`, which the FMU's C functions drive.
//!
//! FMU-state replay and reset are in `instance/replay.rs`; the illegal calls,
//! failed steps, zero-allocation steps and compile-time sizes are here.

mod replay;

use super::alloc::allocations;
use super::{initialized, model};
use lcsfmu::instance::state::Phase;
use lcsfmu::instance::{Instance, Severity};
use lcsfmu::model::{validate, Model};
use std::path::Path;

/// `y = -u + w - a ⟂ u >= 0`: a step's LCP has `M = -1`, `q = w - a`, so it is
/// solvable exactly when `w >= a`; the input switches it to infeasible.
fn switchable_model() -> Model {
    let text = r#"
        [model]
        name = "switch"
        [[parameters]]
        name = "a"
        value = -1.0
        [[inputs]]
        name = "w"
        [[states]]
        name = "x"
        start = 1.0
        [[complementarity]]
        name = "u"
        [system]
        A = [[-1]]
        E = [[1]]
        D = [[-1]]
        F = [[1]]
        g = ["-a"]
    "#;
    validate::from_str(text, Path::new("switch.toml")).unwrap()
}

fn outputs(i: &mut Instance) -> Vec<f64> {
    let n = lcsfmu::instance::variables::kinds(i.model()).len() as u32;
    let vrs: Vec<u32> = (0..n).collect();
    let mut v = vec![0.0; vrs.len()];
    i.get_reals(&vrs, &mut v).unwrap();
    v
}

#[test]
fn illegal_calls_are_errors_and_change_nothing() {
    let mut i = Instance::new(model("coulomb_friction"), "{g}");
    let e = i.do_step(0.0, 0.1).unwrap_err();
    assert_eq!(e.severity, Severity::Error);
    assert!(
        e.message
            .contains("DoStep is not allowed in phase Instantiated"),
        "{}",
        e.message
    );
    assert!(i.get_reals(&[0], &mut [0.0]).is_err());
    assert!(i.exit_initialization_mode().is_err());
    assert_eq!(i.phase(), Phase::Instantiated);

    let mut i = initialized(model("coulomb_friction"));
    let before = outputs(&mut i);
    // Parameter and state start after initialization; time; unknown reference; NaN.
    for (vr, v) in [
        (1u32, 5.0),
        (5, 1.0),
        (0, 1.0),
        (7, 1.0),
        (99, 1.0),
        (4, f64::NAN),
        (4, f64::INFINITY),
    ] {
        let e = i.set_reals(&[vr], &[v]).unwrap_err();
        assert_eq!(e.severity, Severity::Error, "vr {vr}");
    }
    // A batch with one bad entry writes none of them.
    assert!(i.set_reals(&[4, 4], &[3.0, f64::NAN]).is_err());
    assert!(i.set_reals(&[4], &[1.0, 2.0]).is_err());
    assert_eq!(outputs(&mut i), before);
    for (t, h) in [
        (0.0, 0.0),
        (0.0, -1.0),
        (0.0, f64::NAN),
        (0.5, 0.1),
        (f64::NAN, 0.1),
        (0.0, f64::INFINITY),
    ] {
        assert_eq!(
            i.do_step(t, h).unwrap_err().severity,
            Severity::Error,
            "t {t} h {h}"
        );
    }
    assert_eq!(outputs(&mut i), before);
    assert_eq!(i.phase(), Phase::StepComplete);
    i.do_step(0.0, 0.2).unwrap();
    i.terminate().unwrap();
    assert!(i.terminate().is_err());
    assert!(i.do_step(0.2, 0.2).is_err());
}

#[test]
fn an_infeasible_step_is_a_discard_that_keeps_the_last_good_state() {
    let mut i = initialized(switchable_model());
    i.do_step(0.0, 0.1).unwrap();
    let good = outputs(&mut i);
    // An input that makes y = -u - 1 + w - ... infeasible: w enters F with a big negative value.
    i.set_reals(&[2], &[-100.0]).unwrap();
    let e = i.do_step(0.1, 0.1).unwrap_err();
    assert_eq!(e.severity, Severity::Discard);
    assert!(
        e.message.contains("Infeasible") && e.message.contains("residual"),
        "{}",
        e.message
    );
    assert!(i.terminated());
    assert_eq!(i.last_successful_time(), 0.1);
    assert_eq!(i.phase(), Phase::StepFailed);
    let mut after = outputs(&mut i);
    after[2] = good[2]; // the input itself was changed by the caller
    assert_eq!(after, good);
    assert!(i.do_step(0.1, 0.1).is_err());
    i.terminate().unwrap();
}

#[test]
fn infeasible_initial_multipliers_are_a_warning() {
    let mut i = Instance::new(switchable_model(), "{g}");
    i.set_reals(&[2], &[-5.0]).unwrap();
    i.enter_initialization_mode().unwrap();
    let warning = i.exit_initialization_mode().unwrap();
    assert!(warning.unwrap().contains("no multipliers are consistent"));
}

#[test]
fn bad_parameters_fail_initialization_with_the_entry_named() {
    let mut i = Instance::new(model("rlc_diode"), "{g}");
    i.set_reals(&[3], &[0.0]).unwrap(); // C = 0: 1/(L*C) is infinite
    i.enter_initialization_mode().unwrap();
    let e = i.exit_initialization_mode().unwrap_err();
    assert!(
        e.message.contains("entry A[0][1] evaluates to"),
        "{}",
        e.message
    );
    assert_eq!(i.phase(), Phase::Error);
    i.reset().unwrap();
    assert_eq!(i.phase(), Phase::Instantiated);
}

#[test]
fn steps_allocate_nothing() {
    for stem in [
        "sign_spiral",
        "coulomb_friction",
        "rlc_diode",
        "saturated_integrator",
        "two_carts",
        "bouncing_ball",
        "stick_slip",
        // Block models; servo_deadzone re-solves its static maps on every input set.
        "servo_deadzone",
        "friction_block",
        "zero_crossing",
        "backlash_gear",
        "pwa_feedback",
        "square_helix",
        // Nonlinear dynamics and sources in time: the Newton step.
        "vdp_saturation",
        "diode_bridge_source",
        "buck_pwm",
        // Nonlinear forces and gaps: Moreau–Jean's Newton loop.
        "pendulum_stop",
        "duffing_impact",
        "rocking_block",
        // A configuration-dependent mass matrix (M(q) and its gyroscopic forces).
        "double_pendulum",
        // M(q) with friction and three contacts.
        "pendulum_on_slider",
    ] {
        let mut i = initialized(model(stem));
        let mut out = [0.0; 3];
        let h = 0.01;
        // The first step builds the factorization (also without allocating).
        for k in 0..300usize {
            let t = k as f64 * h;
            let (n, r) = allocations(|| {
                if i.model().nw() > 0 {
                    i.set_reals(&[i.model().np() as u32 + 1], &[t.sin()])
                        .unwrap();
                }
                let r = i.do_step(t, (k + 1) as f64 * h - t);
                i.get_reals(&[0, 1, 2], &mut out).unwrap();
                r
            });
            r.unwrap();
            assert_eq!(n, 0, "{stem}: step {k} allocated {n} times");
        }
    }
}

/// The band solver's path too: a chain long enough for it, including the first
/// step (which builds the contact matrix) and a change of step size; and the
/// projected variant's second LCP, banded (N = 200) and dense (N = 10), and
/// the direct projection's.
#[test]
fn chain_steps_allocate_nothing() {
    let path = crate::model_path("bead_chain");
    for (size, method) in [
        (200, None),
        (200, Some("moreau-jean-projected")),
        (10, Some("moreau-jean-projected")),
        (200, Some("moreau-jean-direct-projection")),
        (10, Some("moreau-jean-direct-projection")),
    ] {
        let m = lcsfmu::model::validate::load_with(&path, &[("N".into(), size)], method).unwrap();
        let mut i = initialized(m);
        let mut t = 0.0;
        for k in 0..300usize {
            let h = if k < 150 { 1e-3 } else { 5e-4 };
            let (n, r) = allocations(|| i.do_step(t, h));
            r.unwrap();
            assert_eq!(
                n, 0,
                "bead chain N = {size} {method:?}: step {k} allocated {n} times"
            );
            t += h;
        }
    }
}

/// Outputs' bits after each of `n` steps of `h`, with input 0 (if any) following `f`.
fn run_bits(i: &mut Instance, h: f64, n: usize, f: fn(f64) -> f64) -> Vec<u64> {
    let inputs: Vec<u32> = lcsfmu::instance::variables::kinds(i.model())
        .iter()
        .enumerate()
        .filter(|(_, k)| matches!(k, lcsfmu::instance::variables::Kind::Input(_)))
        .map(|(vr, _)| vr as u32)
        .collect();
    let mut bits = Vec::new();
    for k in 0..n {
        let t = k as f64 * h;
        if let Some(&vr) = inputs.first() {
            i.set_reals(&[vr], &[f(t)]).unwrap();
        }
        i.do_step(t, (k + 1) as f64 * h - t).unwrap();
        bits.extend(outputs(i).iter().map(|x| x.to_bits()));
    }
    bits
}

/// `Instance::specialize` (what an FMU does with the sizes it was compiled for)
/// applies to the affine theta-method and the linear mechanical schemes at the
/// model's own sizes only, and changes no number: the runs at compile-time and
/// at run-time sizes agree bit for bit, through sticking, slipping, a sign
/// spiral landing on its origin, impacts and a ball coming to rest.
#[test]
fn compile_time_sizes_change_no_number() {
    let force = |t: f64| 1500.0 * (2.0 * t).sin();
    let mut fixed = initialized(model("coulomb_friction"));
    assert!(!fixed.specialize::<2, 2, 1>() && !fixed.specialize::<3, 3, 1>());
    assert!(fixed.specialize::<2, 3, 1>());
    let mut dynamic = initialized(model("coulomb_friction"));
    let run = run_bits(&mut fixed, 0.01, 500, force);
    assert_eq!(run, run_bits(&mut dynamic, 0.01, 500, force));
    assert!(run.windows(2).any(|w| w[0] != w[1]));
    for k in 500..600usize {
        let (t, h) = (k as f64 * 0.01, 0.01);
        let (n, r) = allocations(|| fixed.do_step(t, (k + 1) as f64 * h - t));
        r.unwrap();
        assert_eq!(n, 0, "step {k} at compile-time sizes allocated");
    }

    let mut fixed = initialized(model("sign_spiral"));
    assert!(fixed.specialize::<2, 2, 0>());
    let mut dynamic = initialized(model("sign_spiral"));
    assert_eq!(
        run_bits(&mut fixed, 0.05, 60, f64::sin),
        run_bits(&mut dynamic, 0.05, 60, f64::sin)
    );

    // The linear mechanical schemes too (sizes: twice the coordinates, the
    // pairs, the inputs): the ball through its impacts into rest, the cradle's
    // chain of impacts, the frictional block stuck and slipping (semi-explicit,
    // its pairs not the contacts' order alone).
    for (name, h, n, input) in [
        ("bouncing_ball", 1e-3, 6000, f64::sin as fn(f64) -> f64),
        ("newtons_cradle", 1e-3, 1000, f64::sin),
        ("stick_slip", 1e-3, 4000, |t: f64| {
            0.1 + 0.05 * (3.0 * t).sin()
        }),
    ] {
        let mut fixed = initialized(model(name));
        let specialized = match name {
            "bouncing_ball" => !fixed.specialize::<2, 2, 0>() && fixed.specialize::<2, 1, 0>(),
            "newtons_cradle" => fixed.specialize::<6, 2, 0>(),
            _ => fixed.specialize::<4, 4, 1>(),
        };
        assert!(specialized, "{name}");
        let mut dynamic = initialized(model(name));
        let run = run_bits(&mut fixed, h, n, input);
        assert_eq!(run, run_bits(&mut dynamic, h, n, input), "{name}");
        assert!(run.windows(2).any(|w| w[0] != w[1]), "{name}");
        for k in n..n + 100 {
            let t = k as f64 * h;
            let (count, r) = allocations(|| fixed.do_step(t, (k + 1) as f64 * h - t));
            r.unwrap();
            assert_eq!(count, 0, "{name}: step {k} at compile-time sizes allocated");
        }
    }

    // Other schemes keep their own step: the Newton steps.
    let pendulum = model("pendulum_stop");
    assert_eq!((pendulum.nx(), pendulum.nu(), pendulum.nw()), (2, 1, 0));
    assert!(!Instance::new(pendulum, "{g}").specialize::<2, 1, 0>());
    let vdp = model("vdp_saturation");
    assert_eq!((vdp.nx(), vdp.nu(), vdp.nw()), (2, 3, 0));
    assert!(!Instance::new(vdp, "{g}").specialize::<2, 3, 0>());
}

/// The prebuilt runtime's common sizes (`Instance::specialize_common`): the
/// bundled models of those sizes run the step compiled at them, with the same
/// numbers as at run-time sizes; the others keep run-time sizes.
#[test]
fn the_prebuilt_runtime_sizes_change_no_number() {
    let mut names: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("models"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml" || x == "cir"))
            .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
            .collect();
    names.sort();
    let mut specialized = Vec::new();
    for name in &names {
        let mut fixed = initialized(model(name));
        if !fixed.specialize_common() {
            continue;
        }
        specialized.push(name.as_str());
        let h = fixed.model().experiment.step;
        let mut dynamic = initialized(model(name));
        let run = run_bits(&mut fixed, h, 300, f64::sin);
        assert_eq!(run, run_bits(&mut dynamic, h, 300, f64::sin), "{name}");
    }
    assert_eq!(
        specialized,
        [
            "backlash_gear",
            "bouncing_ball",
            "coulomb_friction",
            "filippov_slide",
            "friction_block",
            "half_wave",
            "pwa_feedback",
            "relay_feedback",
            "rlc_diode",
            "saturated_integrator",
            "saturated_integrator_blocks",
            "sign_spiral",
            "zero_crossing",
        ]
    );
}
