//! Golden hashes of `lcsfmu simulate`'s CSV: every bundled model, bit for bit.
//!
//! "A change to the nonlinear step leaves the linear models' numbers as they
//! were" was a claim checked by hand once (docs: Nonlinear models and time).
//! This test keeps it checked for every model in `models/`, linear and
//! nonlinear: it runs each model through the library's `simulate::run` (the
//! loop behind `lcsfmu simulate`, with the same GUID) at the model's own step
//! and at [`OTHER_STEP`], writes the CSV with `Trajectory::write_csv` (the
//! CLI's writer) and compares the SHA-256 of those bytes with the line of
//! `tests/data/golden/simulate_csv.sha256` for that model and step. Any moved
//! bit in any output at any communication point changes the hash; the failure
//! names every model and step whose bits moved. The second step is off every
//! model's own grid, so a change that only shows at other step sizes (a cached
//! step size, a clipped last step, a stop time off the grid) is caught too.
//!
//! When a change is meant to move numbers, rewrite the file and commit it with
//! the change that moved them:
//! `LCSFMU_UPDATE_GOLDEN=1 cargo test --release --test integration golden_csv`.
//! A model added to `models/` without a line, or a line whose model is gone,
//! fails until the file is rewritten.
//!
//! That the hashed bytes are the CLI's own output is checked on one model by
//! running the built binary ([`the_cli_prints_the_csv_that_is_hashed`]); the
//! other runs stay in process, which keeps the whole check to a few seconds.

use lcsfmu::fmi::description;
use lcsfmu::model::validate;
use lcsfmu::tool::simulate::{self, Options};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::process::Command;

/// The second step every model runs at: finer than most models' own steps,
/// coarser than the circuits', and a divisor of none of their stop times.
const OTHER_STEP: f64 = 0.0007;

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden/simulate_csv.sha256")
}

/// The CSV `lcsfmu simulate models/<stem>.toml [--step STEP]` prints.
fn simulate_csv(stem: &str, step: Option<f64>) -> Vec<u8> {
    let model = validate::load_with(&super::model_path(stem), &[], None)
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    let guid = description::guid(&model);
    let opts = Options {
        step,
        ..Options::default()
    };
    let trajectory = simulate::run(model, &guid, &opts).unwrap_or_else(|e| panic!("{stem}: {e}"));
    // A failed step still prints the CSV up to the failure; a golden hash of a
    // run that stopped early would hide that the model no longer runs.
    if let Some(why) = &trajectory.failure {
        panic!("{stem} at step {step:?} stopped early: {why}");
    }
    let mut bytes = Vec::new();
    trajectory.write_csv(&mut bytes).unwrap();
    bytes
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One line of the golden file: model, step as written (shortest round-trip
/// form of the f64), hash.
fn line(stem: &str, step: f64, hash: &str) -> String {
    format!("{stem} {step:?} {hash}")
}

/// The lines for every bundled model as this build computes them, sorted by
/// model, the model's own step first.
fn computed() -> Vec<String> {
    let mut lines = Vec::new();
    for stem in super::fmus::every_model() {
        let own = super::model(&stem).experiment.step;
        lines.push(line(&stem, own, &sha256_hex(&simulate_csv(&stem, None))));
        let other = simulate_csv(&stem, Some(OTHER_STEP));
        lines.push(line(&stem, OTHER_STEP, &sha256_hex(&other)));
    }
    lines
}

const HEADER: &str = "\
# SHA-256 of the CSV that `lcsfmu simulate models/<model>.toml|.cir [--step STEP]` prints,
# one line per bundled model and step: model, step, hash. Checked and rewritten
# (LCSFMU_UPDATE_GOLDEN=1) by tests/integration/golden_csv.rs.
";

#[test]
fn simulate_csvs_match_their_golden_hashes() {
    let now = computed();
    if std::env::var_os("LCSFMU_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(golden_path(), format!("{HEADER}{}\n", now.join("\n"))).unwrap();
    }
    let text = std::fs::read_to_string(golden_path()).unwrap();
    let golden: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    // Keyed by "model step": a moved hash, a missing line and a stale line are
    // each reported by name.
    let key = |l: &str| {
        l.rsplit_once(' ')
            .map_or(l.to_string(), |(k, _)| k.to_string())
    };
    let mut problems = Vec::new();
    for l in &now {
        match golden.iter().find(|g| key(g) == key(l)) {
            Some(g) if *g == l => {}
            Some(g) => problems.push(format!("{}: bits moved (golden {g}, now {l})", key(l))),
            None => problems.push(format!("{}: no golden line", key(l))),
        }
    }
    for g in &golden {
        if !now.iter().any(|l| key(l) == key(g)) {
            problems.push(format!("{}: golden line for no bundled model", key(g)));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} runs differ from {}:\n{}\nIf the change is meant to move these numbers: \
         LCSFMU_UPDATE_GOLDEN=1 cargo test --release --test integration golden_csv",
        problems.len(),
        now.len(),
        golden_path().display(),
        problems.join("\n")
    );
}

#[test]
fn the_cli_prints_the_csv_that_is_hashed() {
    for step in [None, Some(OTHER_STEP)] {
        let mut cli = Command::new(env!("CARGO_BIN_EXE_lcsfmu"));
        cli.arg("simulate").arg(super::model_path("sign_spiral"));
        if let Some(h) = step {
            cli.args(["--step", &format!("{h:?}")]);
        }
        let out = cli.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(
            out.stdout == simulate_csv("sign_spiral", step),
            "step {step:?}: the CLI's CSV is not the library's"
        );
    }
}
