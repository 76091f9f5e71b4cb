//! Conformance of an `.fmu` file to FMI 2.0 Co-Simulation and Model Exchange on
//! linux64, or FMI 3.0 Co-Simulation on x86_64-linux: what `lcsfmu check
//! FILE.fmu` reports.
//!
//! An FMI 3.0 archive (`fmiVersion="3.0"`) gets the same checks with FMI 3.0's
//! rules ([`rules3`]), its binary directory and 75 exports, and its API in the
//! child's run.
//!
//! The checks are the ones importers apply before they run anything (shared
//! `fmi2-notes.md`): the archive layout, the rules of `modelDescription.xml`
//! ([`rules`]), the binary's exported functions ([`elf`]; a win64 DLL's, when the
//! FMU has one, from its PE export directory: [`pe`]), and, for FMUs that
//! carry their lcsfmu model, that the model matches the XML and runs. They live
//! in the project so that a clone without the shared checker (and without Python)
//! can still tell whether an FMU is one FMPy and the standard accept.
//!
//! The short run has two parts. The embedded model (`resources/model.json`) always
//! runs 10 default communication steps through the core `Instance`, the code the
//! binary wraps. The binary itself is loaded by `lcsfmu __run-binary` ([`loader`],
//! the crate's one module with `unsafe`) in a child process under time and memory
//! limits ([`run`]), so a crash, a hang or a bad status of a foreign binary is a
//! FAIL line and never a crash of `lcsfmu`. An FMI 2.0 archive that declares
//! Model Exchange is run through it too, in a child of its own ([`run_me`]):
//! explicit Euler with events, held to the states and event indicators the
//! description declares.
//!
//! The archive is read as a hostile one ([`crate::fmi::archive`]): entry names are
//! checked, never followed; links are refused; every read is capped.

pub mod description;
pub mod elf;
pub mod loader;
pub mod pe;
pub mod rules;
pub mod rules3;
pub mod run;
pub mod run_me;
pub mod structure;
mod variable_rules;

use crate::fmi::archive::{self, Archive};
use crate::fmi::pack;
use crate::fmi::version::{FmiVersion, Interfaces};
use crate::model::Model;
use crate::tool::simulate::{self, Options};
use std::path::Path;

pub use run::Limits;

/// Communication steps of the embedded model's and the binary's short runs.
pub const SHORT_RUN_STEPS: usize = 10;

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

/// Entry names an importer may refuse or extract outside its directory.
fn layout(archive: &Archive) -> Result<(), String> {
    match archive.unsafe_names().first() {
        Some(name) => Err(format!("entry \"{name}\"")),
        None => Ok(()),
    }
}

/// Symbolic links: an extracting importer would create them, and a later entry
/// written through one lands wherever it points.
fn links(archive: &Archive) -> Result<(), String> {
    match archive.symlinks().as_slice() {
        [] => Ok(()),
        names => Err(format!("{names:?}")),
    }
}

/// Runs every check on the FMU at `path`, with the default limits. `runner` is
/// the `lcsfmu` executable whose `__run-binary` runs the binary; without one,
/// the binary's run is skipped.
pub fn check(path: &Path, runner: Option<&Path>) -> Report {
    check_with(path, runner, Limits::default())
}

/// [`check`] with the binary's run under `limits`.
pub fn check_with(path: &Path, runner: Option<&Path>, limits: Limits) -> Report {
    let mut r = Report::default();
    let mut archive = match Archive::open(path) {
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
    r.add("no symbolic links among the entries", links(&archive));
    let sizes = format!(
        "entries decompress intact within the limits ({} for the XML and model.json, {} each, {} in all)",
        archive::size_text(archive::MAX_DESCRIPTION),
        archive::size_text(archive::MAX_ENTRY),
        archive::size_text(archive::MAX_TOTAL)
    );
    let intact = archive
        .declared_limits()
        .and_then(|()| archive.verify_all());
    // Past this point everything is read again: not from an archive that lied.
    if !r.add(sizes, intact) {
        return r;
    }
    let xml = match archive.read("modelDescription.xml") {
        Ok(Some(xml)) => xml,
        Ok(None) => {
            r.add(
                "modelDescription.xml at the root",
                Err("no such entry".into()),
            );
            return r;
        }
        Err(e) => {
            r.add("modelDescription.xml at the root", Err(e));
            return r;
        }
    };
    r.add("modelDescription.xml at the root", Ok(()));
    let parsed = std::str::from_utf8(&xml)
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
    let version = d
        .root
        .get("fmiVersion")
        .and_then(|v| FmiVersion::from_attribute(v));
    if version == Some(FmiVersion::V3) {
        for (name, result) in rules3::check(&d) {
            r.add(name, result);
        }
        let so = binary(&mut r, &mut archive, &d, FmiVersion::V3);
        embedded_model(&mut r, &mut archive, &d);
        run_me::binary_runs(&mut r, &mut archive, &d, so.as_deref(), runner, limits);
        return r;
    }
    for (name, result) in rules::check(&d) {
        r.add(name, result);
    }
    let so = binary(&mut r, &mut archive, &d, FmiVersion::V2);
    embedded_model(&mut r, &mut archive, &d);
    run_me::binary_runs(&mut r, &mut archive, &d, so.as_deref(), runner, limits);
    r
}

/// The binary's presence and its dynamic symbol table; its entry name when present.
fn binary(
    r: &mut Report,
    archive: &mut Archive,
    d: &description::Description,
    version: FmiVersion,
) -> Option<String> {
    let Some(id) = d.model_identifier() else {
        r.skip(
            version.binary_entry("<modelIdentifier>"),
            "no modelIdentifier",
        );
        return None;
    };
    let so = version.binary_entry(id);
    let bytes = match archive.read(&so) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            let others: Vec<&str> = archive
                .entries
                .iter()
                .map(|e| e.name.as_str())
                .filter(|n| n.starts_with("binaries/"))
                .collect();
            r.add(
                format!("{so} present"),
                Err(format!("binaries in the archive: {others:?}")),
            );
            return None;
        }
        Err(e) => {
            r.add(format!("{so} present"), Err(e));
            return None;
        }
    };
    r.add(format!("{so} present"), Ok(()));
    let (cs, me) = (d.co_simulation.is_some(), d.model_exchange.is_some());
    let (expected, what): (Vec<&str>, _) = match version {
        FmiVersion::V2 if me => (
            elf::fmi2_functions(cs, me),
            format!(
                "exports exactly the FMI 2.0 functions of its interface types ({})",
                if cs {
                    "44: 25 common, 9 co-simulation, 10 Model Exchange"
                } else {
                    "35: 25 common, 10 Model Exchange"
                }
            ),
        ),
        FmiVersion::V2 => (
            elf::FMI2_CS_FUNCTIONS.to_vec(),
            "exports exactly the 34 FMI 2.0 co-simulation functions".to_string(),
        ),
        FmiVersion::V3 => (
            elf::FMI3_FUNCTIONS.to_vec(),
            "exports exactly the 75 functions of fmi3Functions.h".to_string(),
        ),
    };
    let exports = elf::exported_symbols(&bytes).and_then(|names| exactly(&names, &expected));
    r.add(what, exports);
    if version == FmiVersion::V2 {
        win64(r, archive, id);
    }
    Some(so)
}

/// Whether a binary exports exactly `expected` (ELF and PE alike); the error
/// names what is missing and what is extra.
fn exactly(names: &[String], expected: &[&'static str]) -> Result<(), String> {
    match elf::compare(names, expected) {
        (missing, extra) if missing.is_empty() && extra.is_empty() => Ok(()),
        (missing, extra) => Err(format!("missing {missing:?} extra {extra:?}")),
    }
}

/// The win64 DLL, when the archive has one: its export directory (it cannot be run here).
fn win64(r: &mut Report, archive: &mut Archive, id: &str) {
    let dll = format!("binaries/win64/{id}.dll");
    let name = format!("{dll} exports exactly the 34 FMI 2.0 co-simulation functions");
    match archive.read(&dll) {
        Ok(None) => {}
        Ok(Some(bytes)) => {
            let exports = pe::exported_symbols(&bytes)
                .and_then(|names| exactly(&names, &elf::FMI2_CS_FUNCTIONS));
            r.add(name, exports);
        }
        Err(e) => {
            r.add(name, Err(e));
        }
    }
}

/// The lcsfmu model inside the FMU: it matches the XML and runs.
fn embedded_model(r: &mut Report, archive: &mut Archive, d: &description::Description) {
    let name = format!("{} is an lcsfmu model", pack::MODEL_ENTRY);
    let json = match archive.read(pack::MODEL_ENTRY) {
        Ok(json) => json,
        Err(e) => {
            r.add(name, Err(e));
            return;
        }
    };
    let Some(json) = json else {
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
    let model = std::str::from_utf8(&json)
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
    // A Model Exchange FMU's GUID also covers its interface types.
    let interfaces = Interfaces {
        co_simulation: d.co_simulation.is_some(),
        model_exchange: d.model_exchange.is_some(),
    };
    let guid = crate::fmi::description::guid_for(&model, interfaces);
    // FMI 3.0 calls the GUID the instantiation token.
    let token = d
        .root
        .get("guid")
        .or_else(|| d.root.get("instantiationToken"));
    let matches = match token {
        Some(g) if *g == guid => Ok(()),
        Some(g) => Err(format!(
            "the model gives {guid}, the XML says {g} (edited, or built by another lcsfmu version?)"
        )),
        None => Err("the XML has no guid".into()),
    };
    r.add("the embedded model's GUID is the XML's guid", matches);
    let run = format!("{SHORT_RUN_STEPS} default steps of the embedded model (core Instance)");
    r.add(run, first_steps(model, &guid, SHORT_RUN_STEPS));
}

/// Runs the first `steps` steps of the model's default experiment (all of them
/// when it has fewer) on the core instance, the code the FMU's binary wraps:
/// the reason, with the time, of the first one that fails, a missing row or a
/// non-finite output. `lcsfmu check FILE.fmu` and `lcsfmu build` use it.
pub fn first_steps(model: Model, guid: &str, steps: usize) -> Result<(), String> {
    let e = model.experiment;
    let steps = steps.min(((e.stop - e.start) / e.step).round().max(1.0) as usize);
    let opts = Options {
        start: None,
        stop: Some(e.start + steps as f64 * e.step),
        step: None,
        sets: vec![],
        inputs: None,
    };
    let t = simulate::run(model, guid, &opts).map_err(|e| e.to_string())?;
    if let Some(why) = t.failure {
        return Err(why);
    }
    if t.rows.len() != steps + 1 {
        return Err(format!("{} rows recorded", t.rows.len()));
    }
    let finite = t.rows.iter().flatten().all(|v| v.is_finite());
    finite
        .then_some(())
        .ok_or_else(|| "a non-finite output".into())
}
