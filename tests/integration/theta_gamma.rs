//! The θ-γ variants of the first-order theta-method (issue 20, section 3):
//! `gamma` weights the multiplier term, `gamma_relation` evaluates the
//! relation at `x_{k+γ}`, with the meaning of Siconos' `EulerMoreauOSI`.
//!
//! Checked against Siconos' own results of its Circuit-ThetaGammaSchemes
//! examples (an independent implementation):
//!
//! - CircuitRLCD (`tests/data/circuit_rlcd.toml`, h = 0.05, theta = 1/2), six
//!   published runs: `gamma` = 1, 1/2, 0 and `gamma_relation` = 1, 1/2, 0.
//!   Measured, relative to each column's largest magnitude: x and lambda within
//!   1.1e-13 (gamma = 1 and 0, whose files carry fewer digits) and 1.7e-15
//!   (the others). The variants differ from the plain scheme by 1e-2 to 0.15,
//!   so each comparison tells its variant apart.
//! - DiodeBridge (`tests/data/diode_bridge_theta_gamma.toml`, h = 1e-6, 5,000
//!   steps, theta = gamma_relation = 1/2) against `DiodeBridge.ref`: 3.4e-13;
//!   the plain scheme is 2e-3 away.

use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::{self, Options, Trajectory};
use std::path::{Path, PathBuf};

/// Relative to a column's largest magnitude: two orders above the largest
/// difference measured, far below the differences between the variants.
const TOL: f64 = 1e-11;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The model file `name` with `extra` lines added to its `[scheme]`.
fn model(name: &str, extra: &str) -> Model {
    let path = data(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace("theta = 0.5\n", &format!("theta = 0.5\n{extra}\n"));
    validate::from_str(&text, &path).unwrap_or_else(|e| panic!("{e}"))
}

fn run(m: Model) -> Trajectory {
    let t = simulate::run(m, "{g}", &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.failure, None);
    t
}

/// Columns of a CSV with `#` comments, by header name.
fn csv(name: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(data(name)).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let mut cols = vec![Vec::new(); header.len()];
    for l in lines {
        for (c, v) in cols.iter_mut().zip(l.split(',')) {
            c.push(v.parse::<f64>().unwrap());
        }
    }
    (header, cols)
}

/// The largest difference of `ours` to `theirs`, relative to `theirs`' largest magnitude.
fn relative(ours: &[f64], theirs: &[f64]) -> f64 {
    assert_eq!(ours.len(), theirs.len());
    let scale = theirs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let worst = ours
        .iter()
        .zip(theirs)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    worst / scale
}

#[test]
fn circuit_rlcd_reproduces_siconos_theta_gamma_runs() {
    let (header, cols) = csv("circuit_rlcd_siconos.csv");
    let column = |name: &str| &cols[header.iter().position(|h| h == name).unwrap()];
    let plain = run(model("circuit_rlcd.toml", ""));
    for (variant, extra) in [
        ("plain", ""),
        ("gamma_0.5", "gamma = 0.5"),
        ("gamma_0", "gamma = 0.0"),
        ("relation_1", "gamma_relation = 1.0"),
        ("relation_0.5", "gamma_relation = 0.5"),
        ("relation_0", "gamma_relation = 0.0"),
    ] {
        let t = run(model("circuit_rlcd.toml", extra));
        let time = super::column(&t, "time");
        assert!(
            relative(&time, column("time")) < 1e-14,
            "{variant}: time grid"
        );
        let mut apart = 0.0f64;
        for name in ["x1", "x2", "lambda"] {
            let ours = super::column(&t, name);
            let err = relative(&ours, column(&format!("{variant}:{name}")));
            eprintln!("CircuitRLCD {variant:>12} {name:>6}: {err:.1e}");
            assert!(err < TOL, "{variant} {name}: {err:e} from Siconos");
            apart = apart.max(relative(&super::column(&plain, name), &ours));
        }
        if variant.ends_with('1') || variant == "plain" {
            assert_eq!(apart, 0.0, "{variant} is the plain scheme, bit for bit");
        } else {
            assert!(apart > 1e-3, "{variant} must differ from the plain scheme");
        }
    }
}

#[test]
fn diode_bridge_reproduces_siconos_theta_gamma_reference() {
    let (_, cols) = csv("diode_bridge_theta_gamma_siconos.csv");
    let every_tenth = |v: Vec<f64>| v.into_iter().step_by(10).collect::<Vec<_>>();
    let t = run(model(
        "diode_bridge_theta_gamma.toml",
        "gamma_relation = 0.5",
    ));
    let plain = run(model("diode_bridge_theta_gamma.toml", ""));
    for (k, name) in ["time", "vC", "iL", "l1"].iter().enumerate() {
        let ours = every_tenth(super::column(&t, name));
        let err = relative(&ours, &cols[k]);
        eprintln!("DiodeBridge gamma_relation = 1/2 {name:>4}: {err:.1e}");
        assert!(err < TOL, "{name}: {err:e} from Siconos");
    }
    let apart = relative(&every_tenth(super::column(&plain, "vC")), &cols[1]);
    assert!(apart > 1e-4, "the plain scheme is {apart:e} away");
}

#[test]
fn the_weights_are_checked_and_belong_to_the_theta_method() {
    let path = data("circuit_rlcd.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let bad = |scheme_lines: &str| {
        let t = text.replace(
            "method = \"theta\"\ntheta = 0.5\n",
            &format!("{scheme_lines}\n"),
        );
        validate::from_str(&t, &path).unwrap_err().to_string()
    };
    let e = bad("method = \"theta\"\ngamma = 1.5");
    assert!(
        e.contains("scheme.gamma") && e.contains("outside [0, 1]"),
        "{e}"
    );
    let e = bad("method = \"theta\"\ngamma_relation = -0.5");
    assert!(
        e.contains("scheme.gamma_relation") && e.contains("outside"),
        "{e}"
    );
    let e = bad("method = \"event-driven\"\ngamma_relation = 0.5");
    assert!(
        e.contains("scheme.gamma_relation") && e.contains("theta"),
        "{e}"
    );
    let e = bad("method = \"event-driven\"\ngamma = 0.5");
    assert!(
        e.contains("scheme.gamma") && e.contains("theta-method"),
        "{e}"
    );
    // A nonlinear model's step has no separate multiplier term to weight.
    let vdp = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/vdp_saturation.toml");
    let t = std::fs::read_to_string(&vdp)
        .unwrap()
        .replace("theta = 1.0\n", "theta = 1.0\ngamma = 0.5\n");
    let e = validate::from_str(&t, &vdp).unwrap_err().to_string();
    assert!(e.contains("scheme.gamma") && e.contains("nonlinear"), "{e}");
}

#[test]
fn the_default_weights_leave_the_model_and_its_guid_as_they_were() {
    let plain = model("circuit_rlcd.toml", "");
    let ones = model("circuit_rlcd.toml", "gamma = 1.0\ngamma_relation = 1.0");
    assert_eq!(plain.to_json(), ones.to_json());
    let half = model("circuit_rlcd.toml", "gamma = 0.5");
    assert_ne!(plain.to_json(), half.to_json());
}
