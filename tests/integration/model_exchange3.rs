//! What FMI 3.0 Model Exchange adds to the core instance, driven by hand
//! without building an FMU (the FMU itself: tests/python/test_model_exchange3.py):
//!
//! - the named event indicators: reading their value references gives exactly
//!   what `get_event_indicators` gives (bit for bit, at several states of each
//!   linear first-order model), without allocating; a Co-Simulation instance of
//!   a `cs,me` FMU reads the guards of its last step's active set (rlc_diode:
//!   the diode current `i_L - q_C` while it conducts, its reverse voltage
//!   `u_D` while it blocks);
//! - the adjoint derivative `seed^T J` equals the transpose of the directional
//!   derivatives' Jacobian, without allocating.

use super::alloc::allocations;
use super::model;
use lcsfmu::instance::variables::{self, Kind};
use lcsfmu::instance::Instance;

const MODELS: [&str; 10] = [
    "backlash_gear",
    "coulomb_friction",
    "friction_block",
    "pwa_feedback",
    "relay_feedback",
    "rlc_diode",
    "saturated_integrator",
    "servo_deadzone",
    "sign_spiral",
    "square_helix",
];

/// A Model Exchange instance of `stem` with FMI 3.0's variables, in
/// Continuous-Time Mode after initialization.
fn running3(stem: &str) -> Instance {
    let mut i = Instance::new(model(stem), "test");
    i.use_model_exchange().unwrap();
    i.expose_event_indicators();
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i.new_discrete_states().unwrap();
    i.enter_continuous_time_mode().unwrap();
    i
}

/// Value references of the event indicators (after the model's variables and
/// the derivatives).
fn indicator_vrs(i: &Instance) -> Vec<u32> {
    let m = i.model();
    let base = variables::variables(m).len() + m.nx();
    (0..i.event_indicator_count())
        .map(|k| (base + k) as u32)
        .collect()
}

#[test]
fn named_indicators_read_as_get_event_indicators() {
    let mut compared = 0;
    for stem in MODELS {
        let mut i = running3(stem);
        let vrs = indicator_vrs(&i);
        let nz = vrs.len();
        assert_eq!(
            variables::kinds_with_indicators(i.model()).last(),
            Some(&Kind::Indicator(nz - 1)),
            "{stem}"
        );
        let nx = i.model().nx();
        let mut x0 = vec![0.0; nx];
        i.get_continuous_states(&mut x0).unwrap();
        let (mut z, mut named) = (vec![0.0; nz], vec![0.0; nz]);
        for scale in [1.0, 0.5, -0.25, 2.0] {
            let x: Vec<f64> = x0.iter().map(|v| v * scale + 0.125 * scale).collect();
            i.set_continuous_states(&x).unwrap();
            i.get_event_indicators(&mut z).unwrap();
            let (n, r) = allocations(|| i.get_reals(&vrs, &mut named));
            r.unwrap();
            assert_eq!(n, 0, "{stem}: allocations");
            let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&z), bits(&named), "{stem} at {x:?}");
            compared += 1;
        }
        assert!(i.name(vrs[0]).contains("indicator"), "{}", i.name(vrs[0]));
        assert!(
            i.set_reals(&vrs[..1], &[0.0]).is_err(),
            "{stem}: calculated"
        );
    }
    eprintln!("named indicators: {compared} states of 10 models, bit for bit");
}

#[test]
fn a_co_simulation_instance_reads_the_guards_of_its_last_step() {
    let m = model("rlc_diode");
    let mut i = Instance::new(m, "test");
    i.expose_event_indicators();
    let vrs = indicator_vrs(&i);
    let u_d = 6;
    assert_eq!(i.name(u_d), "u_D");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    let mut z = [0.0; 2];
    i.get_reals(&vrs, &mut z).unwrap();
    assert_eq!(z, [1.0, 1.0], "no step, no guard");
    i.exit_initialization_mode().unwrap();
    let (h, mut t) = (1e-3, 0.0);
    let (mut conducting, mut blocking) = (0, 0);
    while t < 2.0 - 1e-9 {
        i.do_step(t, h).unwrap();
        t += h;
        i.get_reals(&vrs, &mut z).unwrap();
        assert_eq!(z[1], 1.0, "the diode has no upper bound");
        let x = i.states().to_vec();
        let mut u = [0.0];
        i.get_reals(&[u_d], &mut u).unwrap();
        if t < 1.2 {
            // conducting (u_D = 0): the guard is y = i_L - q_C / (R C) + u_D / R
            assert_eq!(u[0], 0.0, "t = {t}");
            assert!(
                (z[0] - (x[0] - x[1])).abs() <= 1e-12,
                "t = {t}: {z:?} {x:?}"
            );
            assert!(z[0] > 0.0);
            conducting += 1;
        } else if t > 1.22 {
            // blocking: the pair is free above its lower bound 0
            assert_eq!(z[0], u[0] - 0.0, "t = {t}");
            assert!(z[0] > 0.0);
            blocking += 1;
        }
    }
    assert!(
        conducting > 1000 && blocking > 700,
        "{conducting} {blocking}"
    );
}

#[test]
fn adjoint_derivatives_are_the_transposed_jacobian() {
    for stem in MODELS {
        let mut i = running3(stem);
        let m = i.model().clone();
        let vars = variables::variables(&m);
        let (nx, nw) = (m.nx(), m.nw());
        let vr = |kind: Kind| vars.iter().position(|v| v.kind == kind).unwrap() as u32;
        let der: Vec<u32> = (0..nx).map(|k| (vars.len() + k) as u32).collect();
        let knowns: Vec<u32> = (0..nx)
            .map(|j| vr(Kind::State(j)))
            .chain((0..nw).map(|j| vr(Kind::Input(j))))
            .collect();
        // J column by column from the directional derivative.
        let mut jac = vec![vec![0.0; knowns.len()]; nx];
        let mut col = vec![0.0; nx];
        for (j, &k) in knowns.iter().enumerate() {
            i.directional_derivative(&der, &[k], &[1.0], &mut col)
                .unwrap();
            for c in 0..nx {
                jac[c][j] = col[c];
            }
        }
        let seed: Vec<f64> = (0..nx).map(|c| 1.0 - 0.75 * c as f64).collect();
        let mut adjoint = vec![0.0; knowns.len()];
        let (n, r) = allocations(|| i.adjoint_derivative(&der, &knowns, &seed, &mut adjoint));
        r.unwrap();
        assert_eq!(n, 0, "{stem}: allocations");
        for (j, a) in adjoint.iter().enumerate() {
            let exact: f64 = (0..nx).map(|c| seed[c] * jac[c][j]).sum();
            assert!(
                (a - exact).abs() <= 1e-14 * exact.abs().max(1.0),
                "{stem}: column {j}: {a} vs {exact}"
            );
        }
        // Lengths are checked: one seed per unknown, one value per known.
        assert!(i
            .adjoint_derivative(&der, &knowns, &seed[..nx - 1], &mut adjoint)
            .is_err());
    }
}
