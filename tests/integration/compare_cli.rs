//! `lcsfmu compare` on an FMU it built runs the model embedded in the archive,
//! as `simulate` does: the same runs as from the model file (steps, events,
//! solves, rest times). An FMU does not carry the file's `[reference]` table,
//! so its errors are measured against the finer time-stepping run instead, and
//! the table says so. `--define`, which sizes a model file, is refused for an FMU.

use std::path::Path;
use std::process::Command;

/// `compare`'s reference line and its rows without the wall time and the error.
fn table(model: &Path) -> (String, Vec<String>) {
    let out = Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
        .arg("compare")
        .arg(model)
        .args(["--steps", "0.01", "--tolerances", "1e-6"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = stdout
        .lines()
        .filter(|l| l.starts_with("| theta") || l.starts_with("| event-driven"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').collect();
            // | scheme | setting | steps | rejected | rhs | lcp | events | wall time | error | rest |
            [&cells[..8], &cells[10..]].concat().join("|")
        })
        .collect();
    (stdout.lines().next().unwrap_or_default().to_string(), rows)
}

#[test]
fn compare_of_an_fmu_is_compare_of_its_model() {
    let toml = super::model_path("sign_spiral");
    let fmu = super::fmus::bundled("sign_spiral");
    let (file_reference, from_file) = table(&toml);
    assert_eq!(from_file.len(), 2, "{from_file:?}");
    let (fmu_reference, from_fmu) = table(&fmu);
    assert_eq!(from_fmu, from_file);
    assert!(
        file_reference.contains("errors against the model's [reference] table"),
        "{file_reference}"
    );
    assert!(
        fmu_reference.contains("errors against time-stepping"),
        "{fmu_reference}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
        .arg("compare")
        .arg(&fmu)
        .args(["--define", "N=3"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--define applies to model files"));
}
