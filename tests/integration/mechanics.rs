//! Mechanical models in the core: parameters checked again at initialization,
//! `[defines]` through the public loader, the contact LCP matrices against
//! their closed forms, Coulomb friction under Moreau–Jean, and `lcsfmu check` of a
//! large chain (no dense LCP). (Trajectories are checked through FMPy in
//! `tests/python/test_mechanics.py`; allocations per step in `instance`.)

use super::model;
use lcsfmu::instance::state::Phase;
use lcsfmu::instance::{Instance, Severity};
use lcsfmu::model::validate;

/// Sets `name = value` before initialization and returns the error of
/// `fmi2ExitInitializationMode`, after checking that a reset recovers.
fn init_error(stem: &str, name: &str, value: f64) -> String {
    let m = model(stem);
    let vr = lcsfmu::instance::variables::variables(&m)
        .iter()
        .position(|v| v.name == name)
        .unwrap() as u32;
    let mut i = Instance::new(m, "{g}");
    i.setup_experiment(0.0, None).unwrap();
    i.set_reals(&[vr], &[value]).unwrap();
    i.enter_initialization_mode().unwrap();
    let e = i.exit_initialization_mode().unwrap_err();
    assert_eq!(e.severity, Severity::Error);
    assert_eq!(i.phase(), Phase::Error);
    // Reset returns to the start values, which initialize and step.
    i.reset().unwrap();
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i.do_step(0.0, 1e-3).unwrap();
    e.message
}

#[test]
fn parameters_that_break_the_mechanics_are_refused_at_initialization() {
    let cases = [
        (
            "two_carts",
            "m1",
            -1.0,
            "mass matrix is not positive definite",
        ),
        (
            "two_carts",
            "m2",
            0.0,
            "mass matrix is not positive definite",
        ),
        ("bouncing_ball", "e", 1.5, "restitution of contact 0 is 1.5"),
        ("stick_slip", "mu", -0.1, "mu = -0.1"),
        ("bead_chain", "m", f64::MAX, "not finite"),
    ];
    for (stem, name, value, fragment) in cases {
        let message = init_error(stem, name, value);
        assert!(
            message.contains(fragment),
            "{stem}, {name} = {value}: {message}"
        );
    }
}

#[test]
fn defines_size_the_model_and_unknown_ones_are_refused() {
    let path = super::model_path("bead_chain");
    let m = validate::load_with_defines(&path, &[("N".into(), 25)]).unwrap();
    assert_eq!((m.nx(), m.nu()), (50, 25));
    assert_eq!(m.states[24].name, "q25");
    assert_eq!(m.states[24].start, 24.0 * 0.01 + 0.005);
    assert_eq!(m.outputs[0].definition, "q25 + d");
    let e = validate::load_with_defines(&path, &[("M".into(), 3)]).unwrap_err();
    assert_eq!(e.field, "defines");
    assert!(e.message.contains("no define 'M'"), "{e}");
    let e = validate::load_with_defines(&super::model_path("two_carts"), &[("N".into(), 3)])
        .unwrap_err();
    assert!(e.message.contains("declares no [defines]"), "{e}");
}

#[test]
fn contact_lcp_matrices_match_their_formulas() {
    // The LCP matrix of one two-carts step is h^2 C B (validation.md §2).
    let m = model("two_carts");
    let mut lcs = lcsfmu::system::lcs::Lcs::new(&m);
    lcs.assemble(&m, &m.default_parameters()).unwrap();
    let mut stepper = lcsfmu::scheme::Stepper::new(&m, &lcs);
    let lcp = stepper.lcp_matrix(&lcs, 0.1).unwrap();
    let expected = [[0.01, -0.01], [-0.01, 0.02]];
    for (i, row) in expected.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            assert!(
                (lcp[(i, j)] - v).abs() <= 1e-15,
                "M[{i}][{j}] = {}",
                lcp[(i, j)]
            );
        }
    }
    // A bead chain's Moreau-Jean matrix is G M⁻¹ Gᵀ: tridiagonal with 2/m inside.
    let path = super::model_path("bead_chain");
    let m = validate::load_with_defines(&path, &[("N".into(), 100)]).unwrap();
    let mut lcs = lcsfmu::system::lcs::Lcs::new(&m);
    lcs.assemble(&m, &m.default_parameters()).unwrap();
    let mut stepper = lcsfmu::scheme::Stepper::new(&m, &lcs);
    let lcp = stepper.lcp_matrix(&lcs, 1e-3).unwrap();
    for i in 0..100usize {
        for j in 0..100 {
            let v = match (i, j) {
                (0, 0) => 100.0,
                _ if i == j => 200.0,
                _ if i.abs_diff(j) == 1 => -100.0,
                _ => 0.0,
            };
            assert!(
                (lcp[(i, j)] - v).abs() <= 1e-12,
                "M[{i}][{j}] = {}",
                lcp[(i, j)]
            );
        }
    }
}

/// Friction under Moreau–Jean: the stick-slip block with percussions. The
/// normal percussion of a resting block is `m g h`, the friction percussion
/// stays within `mu` times it, equals it (against the slip) while slipping,
/// and the slip is exactly zero while sticking.
#[test]
fn moreau_jean_friction_sticks_exactly_and_respects_the_cone() {
    let m = super::model_edited(
        "stick_slip",
        "method = \"semi-explicit\"",
        "method = \"moreau-jean\"",
    );
    let h = 1e-3;
    let opts = lcsfmu::tool::simulate::Options {
        stop: Some(20.0),
        step: Some(h),
        ..Default::default()
    };
    let t = super::run(m, opts);
    let (slip, x) = (super::column(&t, "slip"), super::column(&t, "x"));
    let (n, f) = (super::column(&t, "N"), super::column(&t, "F_f"));
    let (k, mu, weight) = (10.0, 0.3, 9.81);
    let (mut stuck, mut slipping) = (0, 0);
    for i in 1..t.rows.len() {
        assert!(
            (n[i] - weight * h).abs() <= 1e-12,
            "normal percussion {}",
            n[i]
        );
        assert!(
            f[i].abs() <= mu * n[i] * (1.0 + 1e-9),
            "outside the cone at row {i}"
        );
        if slip[i].abs() <= 1e-12 {
            stuck += 1;
            // Inside the band (with a margin for the belt's inertia) a stuck block stays stuck.
            if i + 1 < t.rows.len() && k * x[i].abs() < 0.98 * mu * weight {
                assert!(slip[i + 1].abs() <= 1e-12, "broke loose at row {i}");
            }
        } else {
            slipping += 1;
            assert!(
                (f[i].abs() - mu * n[i]).abs() <= 1e-9 * n[i],
                "row {i}: {}",
                f[i]
            );
            assert!(f[i] * slip[i] < 0.0, "friction along the slip at row {i}");
        }
    }
    assert!(
        stuck > 1000 && slipping > 1000,
        "{stuck} stuck, {slipping} slipping"
    );
}

/// `lcsfmu check` on a model file prints the step's LCP only when it is small:
/// a large one must not be made dense on the way (the 20,000-bead chain's dense
/// matrix is 3.2 GB; the 100,000-bead chain's, 80 GB, aborted `check`). Run under
/// a 1 GiB address-space limit, which the dense matrix would exceed.
#[test]
fn check_of_a_large_chain_summarizes_its_lcp_without_a_dense_matrix() {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 1048576 && exec "$@""#)
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_lcsfmu"))
        .arg("check")
        .arg(super::model_path("bead_chain"))
        .args(["--define", "N=20000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("LCP of one step (h = 0.001): 20000 x 20000, not printed"),
        "{stdout}"
    );
}

/// `lcsfmu check` names theta only for schemes that read it: semi-explicit takes
/// its forces at the step's start, so a `theta = 1` line there would be false.
#[test]
fn check_prints_theta_only_for_schemes_that_use_it() {
    let scheme_line = |stem: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
            .arg("check")
            .arg(super::model_path(stem))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = stdout.lines().find(|l| l.starts_with("scheme: "));
        line.unwrap_or_else(|| panic!("{stdout}")).to_string()
    };
    assert_eq!(scheme_line("stick_slip"), "scheme: semi-explicit");
    assert_eq!(
        scheme_line("rocking_block"),
        "scheme: moreau-jean, theta = 0.5, impact = newton"
    );
}
