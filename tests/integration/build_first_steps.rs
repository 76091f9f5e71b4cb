//! `lcsfmu build` runs the first steps of the model's default experiment
//! before it says it built the FMU, as `lcsfmu check FILE.fmu` does, and warns
//! on stderr (the build still succeeds) when they do not run, naming the time
//! and the reason.

use std::path::{Path, PathBuf};
use std::process::Command;

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/test-fmus/build-first-steps")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `lcsfmu build MODEL -o DIR/NAME.fmu`: (succeeded, the FMU exists, stderr).
fn build(model: &Path, dir: &Path, name: &str) -> (bool, bool, String) {
    let fmu = dir.join(format!("{name}.fmu"));
    let _ = std::fs::remove_file(&fmu);
    let out = Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
        .arg("build")
        .arg(model)
        .arg("-o")
        .arg(&fmu)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), fmu.is_file(), stderr)
}

#[test]
fn a_model_whose_first_step_fails_is_built_with_a_warning() {
    // The saturated integrator with its lower limit above its upper one: it
    // validates (the limits are parameters), and no step has a solution.
    let dir = out_dir("infeasible");
    let text = std::fs::read_to_string(super::model_path("saturated_integrator")).unwrap();
    let text = text.replacen("value = -0.5", "value = 1.0", 1);
    assert!(text.contains("value = 1.0"));
    let model = dir.join("crossed_limits.toml");
    std::fs::write(&model, text).unwrap();
    let (ok, written, stderr) = build(&model, &dir, "crossed_limits");
    assert!(ok && written, "{stderr}");
    let warning = stderr
        .lines()
        .find(|l| l.contains("the first 100 steps of its default experiment do not run"))
        .unwrap_or_else(|| panic!("no warning: {stderr}"));
    assert!(warning.starts_with("warning: "), "{warning}");
    assert!(
        warning.contains("step from t = 0 ") && warning.contains("Infeasible"),
        "the time and the reason: {warning}"
    );
}

#[test]
fn a_model_that_runs_is_built_without_one() {
    let dir = out_dir("relay");
    let (ok, written, stderr) = build(&super::model_path("relay_feedback"), &dir, "relay");
    assert!(ok && written, "{stderr}");
    assert!(!stderr.contains("do not run"), "{stderr}");
}
