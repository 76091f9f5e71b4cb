//! `lcsfmu check FILE.fmu`: every bundled model's FMU passes every check, and
//! deliberately broken copies fail with exactly the expected line.
//!
//! A broken copy is the FMU of a bundled model rewritten entry by entry with one
//! edit (a name duplicated, an `initial` on an input, an `Outputs` entry dropped,
//! a symbol of the binary renamed, an entry outside the archive's root, ...). Each
//! edit must make exactly one check fail, with its reason: one mistake, one line.
//! The binary's short run is left out of these (no runner is passed) but for the
//! bundled FMUs and the command line; `binary_run` covers it.

use super::fmus;
use lcsfmu::tool::conformance::{self, Outcome};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance/broken");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The FAIL lines of a report.
pub fn failures(fmu: &Path) -> Vec<String> {
    let report = conformance::check(fmu, None);
    report
        .checks
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Fail(_)))
        .map(|c| c.to_string())
        .collect()
}

/// Copies `fmu` to `target/conformance/broken/<label>.fmu`, passing each entry
/// through `edit` (name, bytes) -> entries to write instead.
pub fn rewrite(
    fmu: &Path,
    label: &str,
    edit: impl Fn(&str, Vec<u8>) -> Vec<(String, Vec<u8>)>,
) -> PathBuf {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    let out = out_dir().join(format!("{label}.fmu"));
    let mut w = zip::ZipWriter::new(std::fs::File::create(&out).unwrap());
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let name = entry.name().to_string();
        let mut bytes = vec![];
        entry.read_to_end(&mut bytes).unwrap();
        for (name, bytes) in edit(&name, bytes) {
            w.start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(&bytes).unwrap();
        }
    }
    w.finish().unwrap();
    out
}

/// A copy whose modelDescription.xml has the first `from` replaced by `to`.
fn xml_edited(stem: &str, label: &str, from: &str, to: &str) -> PathBuf {
    rewrite(&fmus::bundled(stem), label, |name, bytes| {
        if name != "modelDescription.xml" {
            return vec![(name.into(), bytes)];
        }
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(from), "{stem}: no '{from}' in the XML");
        vec![(name.into(), text.replacen(from, to, 1).into_bytes())]
    })
}

#[test]
fn every_bundled_fmu_passes() {
    // The binary runs in a child `lcsfmu __run-binary`, as under `lcsfmu check`.
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    for stem in fmus::every_model() {
        let report = conformance::check(&fmus::bundled(&stem), Some(runner));
        let lines = report.lines();
        assert_eq!(report.failed(), 0, "{stem}:\n{}", lines.join("\n"));
        // Nothing is skipped for our own FMUs.
        let skipped: Vec<&String> = lines.iter().filter(|l| l.starts_with("SKIP")).collect();
        assert!(skipped.is_empty(), "{stem}: {skipped:?}");
        let run = "PASS binary loaded and run for 10 steps in a child process: 10 steps of h = ";
        assert!(lines.iter().any(|l| l.starts_with(run)), "{stem}");
        assert!(lines.len() >= 29, "{stem}: {} checks", lines.len());
    }
}

/// Each XML edit, and the one line it must fail with.
#[test]
fn broken_descriptions_fail_with_the_reason() {
    let cases: [(&str, &str, &str, &str, &str); 10] = [
        (
            "sign_spiral",
            "duplicate_name",
            r#"name="x2""#,
            r#"name="x1""#,
            r#"FAIL variable names unique: duplicate name "x1" (variables 1 and 2)"#,
        ),
        (
            "saturated_integrator",
            "input_with_initial",
            r#"causality="input" variability="continuous""#,
            r#"causality="input" variability="continuous" initial="exact""#,
            r#"FAIL no initial attribute on inputs: input x has initial="exact""#,
        ),
        (
            "sign_spiral",
            "outputs_missing_one",
            r#"<Unknown index="3" dependencies=""/>"#,
            "",
            "FAIL ModelStructure/Outputs lists exactly the outputs, in order: listed [1, 2, 4] expected [1, 2, 3, 4]",
        ),
        (
            "sign_spiral",
            "initial_unknowns_missing_one",
            r#"<Unknown index="4"/>"#,
            "",
            "FAIL InitialUnknowns exactly the calculated and approx unknowns, in order: listed [3] expected [3, 4]",
        ),
        (
            "saturated_integrator",
            "start_on_calculated",
            "initial=\"calculated\">\n      <Real/>",
            "initial=\"calculated\">\n      <Real start=\"0\"/>",
            "FAIL no start value where initial is calculated: k (output) has a start value",
        ),
        (
            "saturated_integrator",
            "parameter_approx",
            r#"causality="parameter" variability="fixed" initial="exact""#,
            r#"causality="parameter" variability="fixed" initial="approx""#,
            r#"FAIL causality, variability and initial combined as FMI 2.0 allows: L: parameter/fixed with initial="approx""#,
        ),
        (
            "saturated_integrator",
            "dependency_on_output",
            r#"<Unknown index="5" dependencies=""/>"#,
            r#"<Unknown index="5" dependencies="4"/>"#,
            "FAIL Outputs dependencies refer to inputs or states: output 5 depends on 4, not an input or a state",
        ),
        (
            "sign_spiral",
            "bad_step",
            r#"stepSize="0.2""#,
            r#"stepSize="-0.2""#,
            "FAIL DefaultExperiment sane: stepSize -0.2 is not positive",
        ),
        (
            "sign_spiral",
            "unstructured_name",
            r#"name="x2""#,
            r#"name="x(2)""#,
            r#"FAIL names follow the naming convention: "x(2)" is not a structured name"#,
        ),
        (
            "sign_spiral",
            "other_guid",
            r#"guid="{"#,
            r#"guid="{0"#,
            "FAIL the embedded model's GUID is the XML's guid",
        ),
    ];
    for (stem, label, from, to, expected) in cases {
        let failed = failures(&xml_edited(stem, label, from, to));
        assert_eq!(failed.len(), 1, "{label}: {failed:#?}");
        assert!(
            failed[0].starts_with(expected),
            "{label}: got\n{}\nexpected\n{expected}",
            failed[0]
        );
    }
}

#[test]
fn broken_layouts_fail_with_the_reason() {
    let fmu = fmus::bundled("sign_spiral");
    let keep = |name: &str, bytes: Vec<u8>| vec![(name.to_string(), bytes)];
    let escaping = rewrite(&fmu, "entry_outside", |name, bytes| {
        let mut out = keep(name, bytes);
        if name == "modelDescription.xml" {
            out.push(("../outside.txt".into(), b"x".to_vec()));
        }
        out
    });
    assert_eq!(
        failures(&escaping),
        [r#"FAIL entry paths relative, with forward slashes and no '..': entry "../outside.txt""#]
    );
    // Without the win64 DLL, which a tool built with the win64 runtime adds.
    let no_binary = rewrite(&fmu, "binary_renamed", |name, bytes| {
        if name.starts_with("binaries/win64/") {
            return vec![];
        }
        let name = name.replace("sign_spiral.so", "libsign_spiral.so");
        keep(&name, bytes)
    });
    assert_eq!(
        failures(&no_binary),
        [
            r#"FAIL binaries/linux64/sign_spiral.so present: binaries in the archive: ["binaries/linux64/libsign_spiral.so"]"#
        ]
    );
    let nested = rewrite(&fmu, "description_nested", |name, bytes| {
        keep(
            &name.replace("modelDescription.xml", "x/modelDescription.xml"),
            bytes,
        )
    });
    assert_eq!(
        failures(&nested),
        ["FAIL modelDescription.xml at the root: no such entry"]
    );
    // A symbol renamed in the dynamic string table: one function missing, one extra.
    let renamed = rewrite(&fmu, "symbol_renamed", |name, mut bytes| {
        if name.ends_with(".so") {
            let from = b"fmi2CancelStep\0";
            let at = bytes
                .windows(from.len())
                .position(|w| w == from)
                .expect("the name in .dynstr");
            bytes[at..at + from.len()].copy_from_slice(b"fmi2CancelStop\0");
        }
        keep(name, bytes)
    });
    assert_eq!(
        failures(&renamed),
        [
            r#"FAIL exports exactly the 34 FMI 2.0 co-simulation functions: missing ["fmi2CancelStep"] extra ["fmi2CancelStop"]"#
        ]
    );
    // The embedded model is required of lcsfmu's FMUs only.
    let drop_model = |name: &str, bytes: Vec<u8>| {
        if name == "resources/model.json" {
            return vec![];
        }
        keep(name, bytes)
    };
    let no_model = rewrite(&fmu, "no_model", drop_model);
    assert_eq!(
        failures(&no_model),
        ["FAIL resources/model.json is an lcsfmu model: no such entry in an FMU generated by lcsfmu"]
    );
    let foreign = rewrite(&fmu, "foreign", |name, bytes| {
        let bytes = match name {
            "modelDescription.xml" => String::from_utf8(bytes)
                .unwrap()
                .replace("generationTool=\"lcsfmu", "generationTool=\"other")
                .into_bytes(),
            _ => bytes,
        };
        drop_model(name, bytes)
    });
    let report = conformance::check(&foreign, None);
    assert_eq!(report.failed(), 0, "{:#?}", report.lines());
    assert!(report
        .lines()
        .contains(&"SKIP resources/model.json is an lcsfmu model: not generated by lcsfmu".into()));
    let not_zip = out_dir().join("not_zip.fmu");
    std::fs::write(&not_zip, "not an archive").unwrap();
    let failed = failures(&not_zip);
    assert_eq!(failed.len(), 1);
    assert!(failed[0].starts_with("FAIL the file is a zip archive: "));
}

/// The command line: one line per check, the summary, and the exit status.
#[test]
fn command_line_reports_and_exits() {
    let good = fmus::bundled("sign_spiral");
    let bad = xml_edited(
        "sign_spiral",
        "cli_duplicate",
        r#"name="x2""#,
        r#"name="x1""#,
    );
    let run = |fmu: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
            .arg("check")
            .arg(fmu)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, text) = run(&good);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("PASS exports exactly the 34 FMI 2.0 co-simulation functions"));
    assert!(text.contains(" passed, 0 failed, 0 skipped"), "{text}");
    assert!(text.contains("PASS binary loaded and run for 10 steps in a child process: "));
    let (code, text) = run(&bad);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(r#"FAIL variable names unique: duplicate name "x1""#));
    assert!(text.contains(" passed, 1 failed, "), "{text}");
}
