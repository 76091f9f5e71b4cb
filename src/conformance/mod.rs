//! Conformance of an `.fmu` file to FMI 2.0 Co-Simulation on linux64: what
//! `lcsfmu check FILE.fmu` reports.
//!
//! The checks are the ones importers apply before they run anything (shared
//! `fmi2-notes.md`): the archive layout, the rules of `modelDescription.xml`
//! ([`rules`]), the binary's exported functions ([`elf`]), and, for FMUs that
//! carry their lcsfmu model, that the model matches the XML and runs. They live
//! in the project so that a clone without the shared checker (and without Python)
//! can still tell whether an FMU is one FMPy and the standard accept.
//!
//! The short run has two parts. The embedded model (`resources/model.json`) always
//! runs 10 default communication steps through the core `Instance`, the code the
//! binary wraps. The binary itself is loaded only by an external runner
//! (`examples/fmu_cycles.rs`: one life cycle with 10 steps, FMU states and refused
//! calls), in a child process so a crash is a FAIL line and not a crash of
//! `lcsfmu`; this crate forbids `unsafe`, so it never `dlopen`s a binary itself.
//! Without a runner that part is reported as SKIP.

pub mod description;
pub mod elf;
pub mod rules;
pub mod structure;

use crate::model::Model;
use crate::simulate::{self, Options};
use crate::{model_description, pack};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Communication steps of the embedded model's and the binary's short runs.
pub const SHORT_RUN_STEPS: usize = 10;

/// How long the binary's short run may take before it counts as a hang.
const RUNNER_DEADLINE: Duration = Duration::from_secs(120);

/// The result of one check.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    Fail(String),
    /// Not applicable to this FMU, or not possible here; never a failure.
    Skip(String),
}

/// One named check.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub name: String,
    pub outcome: Outcome,
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match &self.outcome {
            Outcome::Pass => write!(f, "PASS {}", self.name),
            Outcome::Fail(why) => write!(f, "FAIL {}: {why}", self.name),
            Outcome::Skip(why) => write!(f, "SKIP {}: {why}", self.name),
        }
    }
}

/// All checks of one FMU, in the order they ran.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    fn add(&mut self, name: impl Into<String>, result: Result<(), String>) -> bool {
        let ok = result.is_ok();
        let outcome = result.map_or_else(Outcome::Fail, |()| Outcome::Pass);
        self.checks.push(Check {
            name: name.into(),
            outcome,
        });
        ok
    }

    fn skip(&mut self, name: impl Into<String>, why: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            outcome: Outcome::Skip(why.into()),
        });
    }

    pub fn failed(&self) -> usize {
        let fail = |c: &&Check| matches!(c.outcome, Outcome::Fail(_));
        self.checks.iter().filter(fail).count()
    }

    /// One line per check, as `lcsfmu check` prints them.
    pub fn lines(&self) -> Vec<String> {
        self.checks.iter().map(Check::to_string).collect()
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary(&self) -> String {
        let skipped = self
            .checks
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Skip(_)))
            .count();
        let failed = self.failed();
        let passed = self.checks.len() - failed - skipped;
        format!("{passed} passed, {failed} failed, {skipped} skipped")
    }
}

/// The archive's entries by name, read into memory (FMUs are small).
struct Archive {
    entries: Vec<(String, Vec<u8>)>,
}

impl Archive {
    fn open(path: &Path) -> Result<Archive, String> {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
        let mut entries = vec![];
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
            if entry.is_dir() {
                continue;
            }
            let name = entry.name().to_string();
            let mut bytes = vec![];
            entry
                .read_to_end(&mut bytes)
                .map_err(|e| format!("{name}: {e}"))?;
            entries.push((name, bytes));
        }
        Ok(Archive { entries })
    }

    fn get(&self, name: &str) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// Entry names an importer may refuse or extract outside its directory.
fn layout(archive: &Archive) -> Result<(), String> {
    for (name, _) in &archive.entries {
        let bad = name.starts_with('/')
            || name.starts_with('.')
            || name.contains('\\')
            || name.split('/').any(|part| part == "..")
            || name.as_bytes().get(1) == Some(&b':');
        if bad {
            return Err(format!("entry \"{name}\""));
        }
    }
    Ok(())
}

/// Runs every check on the FMU at `path`. `runner` is the program that loads
/// the binary for the short run (`fmu_cycles`), if there is one.
pub fn check(path: &Path, runner: Option<&Path>) -> Report {
    let mut r = Report::default();
    let archive = match Archive::open(path) {
        Ok(a) => a,
        Err(e) => {
            r.add("the file is a zip archive", Err(e));
            return r;
        }
    };
    r.add("the file is a zip archive", Ok(()));
    r.add(
        "entry paths relative, with forward slashes and no '..'",
        layout(&archive),
    );
    let xml = archive.get("modelDescription.xml");
    let present = xml.ok_or_else(|| "no such entry".to_string()).map(|_| ());
    if !r.add("modelDescription.xml at the root", present) {
        return r;
    }
    let parsed = std::str::from_utf8(xml.unwrap_or_default())
        .map_err(|e| format!("not UTF-8: {e}"))
        .and_then(description::parse);
    let d = match parsed {
        Ok(d) => d,
        Err(e) => {
            r.add("modelDescription.xml is well-formed", Err(e));
            return r;
        }
    };
    r.add("modelDescription.xml is well-formed", Ok(()));
    for (name, result) in rules::check(&d) {
        r.add(name, result);
    }
    binary(&mut r, &archive, &d);
    embedded_model(&mut r, &archive, &d);
    binary_run(&mut r, path, runner);
    r
}

/// The binary's presence and its dynamic symbol table.
fn binary(r: &mut Report, archive: &Archive, d: &description::Description) {
    let id = d
        .co_simulation
        .as_ref()
        .and_then(|cs| cs.get("modelIdentifier"));
    let Some(id) = id else {
        r.skip(
            "binaries/linux64/<modelIdentifier>.so",
            "no modelIdentifier",
        );
        return;
    };
    let so = format!("binaries/linux64/{id}.so");
    let Some(bytes) = archive.get(&so) else {
        let others: Vec<&str> = archive
            .entries
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| n.starts_with("binaries/"))
            .collect();
        r.add(
            format!("{so} present"),
            Err(format!("binaries in the archive: {others:?}")),
        );
        return;
    };
    r.add(format!("{so} present"), Ok(()));
    let exports = elf::exported_symbols(bytes).and_then(|names| match elf::compare(&names) {
        (missing, extra) if missing.is_empty() && extra.is_empty() => Ok(()),
        (missing, extra) => Err(format!("missing {missing:?} extra {extra:?}")),
    });
    r.add(
        "exports exactly the 34 FMI 2.0 co-simulation functions",
        exports,
    );
}

/// The lcsfmu model inside the FMU: it matches the XML and runs.
fn embedded_model(r: &mut Report, archive: &Archive, d: &description::Description) {
    let name = format!("{} is an lcsfmu model", pack::MODEL_ENTRY);
    let Some(json) = archive.get(pack::MODEL_ENTRY) else {
        // Only lcsfmu's own FMUs must carry it; the standard does not ask for it.
        let ours = d
            .root
            .get("generationTool")
            .is_some_and(|t| t.starts_with("lcsfmu"));
        if ours {
            r.add(
                name,
                Err("no such entry in an FMU generated by lcsfmu".into()),
            );
        } else {
            r.skip(name, "not generated by lcsfmu");
        }
        return;
    };
    let model = std::str::from_utf8(json)
        .map_err(|e| e.to_string())
        .and_then(|text| Model::from_json(text).map_err(|e| e.to_string()));
    let model = match model {
        Ok(m) => m,
        Err(e) => {
            r.add(name, Err(e));
            return;
        }
    };
    r.add(name, Ok(()));
    let guid = model_description::guid(&model);
    let matches = match d.root.get("guid") {
        Some(g) if *g == guid => Ok(()),
        Some(g) => Err(format!(
            "the model gives {guid}, the XML says {g} (edited, or built by another lcsfmu version?)"
        )),
        None => Err("the XML has no guid".into()),
    };
    r.add("the embedded model's GUID is the XML's guid", matches);
    let run = format!("{SHORT_RUN_STEPS} default steps of the embedded model (core Instance)");
    r.add(run, short_run(model, &guid));
}

fn short_run(model: Model, guid: &str) -> Result<(), String> {
    let e = model.experiment;
    let opts = Options {
        start: None,
        stop: Some(e.start + SHORT_RUN_STEPS as f64 * e.step),
        step: None,
        sets: vec![],
        inputs: None,
    };
    let t = simulate::run(model, guid, &opts).map_err(|e| e.to_string())?;
    if let Some(why) = t.failure {
        return Err(why);
    }
    if t.rows.len() != SHORT_RUN_STEPS + 1 {
        return Err(format!("{} rows recorded", t.rows.len()));
    }
    let finite = t.rows.iter().flatten().all(|v| v.is_finite());
    finite
        .then_some(())
        .ok_or_else(|| "a non-finite output".into())
}

/// The binary loaded by the external runner, in a child process.
fn binary_run(r: &mut Report, fmu: &Path, runner: Option<&Path>) {
    let name = format!("binary loaded and run for {SHORT_RUN_STEPS} steps by fmu_cycles");
    let Some(runner) = runner else {
        r.skip(
            name,
            "no runner (cargo build --release --example fmu_cycles, or $LCSFMU_FMU_RUNNER)",
        );
        return;
    };
    r.add(name, run_child(runner, fmu));
}

fn run_child(runner: &Path, fmu: &Path) -> Result<(), String> {
    let mut child = Command::new(runner)
        .arg(fmu)
        .args(["1", &SHORT_RUN_STEPS.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", runner.display()))?;
    // Read on a thread: a runner that logs more than a pipe holds must not block.
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut err = String::new();
        if let Some(mut s) = stderr {
            drop(s.read_to_string(&mut err));
        }
        err
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if started.elapsed() > RUNNER_DEADLINE => {
                drop(child.kill());
                drop(child.wait());
                return Err(format!("no result after {RUNNER_DEADLINE:?}"));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let err = reader.join().unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    // A panic's message, not the `note: run with RUST_BACKTRACE=1` after it.
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with("note:"));
    Err(format!("{status}: {}", last.unwrap_or("no message")))
}

/// The runner next to the running executable (`target/release/examples/fmu_cycles`
/// beside `target/release/lcsfmu`), or `$LCSFMU_FMU_RUNNER`.
pub fn find_runner() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LCSFMU_FMU_RUNNER") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let candidate = exe.parent()?.join("examples").join("fmu_cycles");
    candidate.is_file().then_some(candidate)
}
