//! `lcsfmu check` on FMI 3.0 archives: the FMU of each kind of bundled model
//! built with `--fmi 3` passes every check, its binary run through FMI 3.0's
//! API in the child process included, and copies with one edit to the XML fail
//! with exactly the expected line of FMI 3.0's rules.

use super::fmu_check::{failures, rewrite};
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::version::FmiVersion;
use lcsfmu::model::validate;
use lcsfmu::tool::conformance;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The FMI 3.0 FMUs built so far: each once per run, since the tests run in
/// parallel and one must not rewrite an archive another is reading.
static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);

/// The FMI 3.0 FMU of a bundled model.
pub fn fmu3(stem: &str) -> PathBuf {
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let built = built.get_or_insert_with(HashMap::new);
    if let Some(out) = built.get(stem) {
        return out.clone();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = super::model_path(stem);
    let model = validate::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let out = root.join(format!("target/test-fmus/fmi3-check/{stem}.fmu"));
    let env = BuildEnv {
        fmi: FmiVersion::V3,
        ..BuildEnv::from_env()
    };
    export::build(&model, &path, &out, &env).unwrap_or_else(|e| panic!("{stem}: {e}"));
    built.insert(stem.to_string(), out.clone());
    out
}

/// One model of each scheme and kind: time-stepping with an input,
/// event-driven, Newton (nonlinear), mechanical, nonlinear mechanical.
pub const MODELS: [&str; 5] = [
    "saturated_integrator",
    "rlc_diode",
    "vdp_saturation",
    "bouncing_ball",
    "pendulum_stop",
];

#[test]
fn fmi3_archives_pass_every_check_and_their_binary_runs() {
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    for stem in MODELS {
        let report = conformance::check(&fmu3(stem), Some(runner));
        let lines = report.lines();
        assert_eq!(report.failed(), 0, "{stem}:\n{}", lines.join("\n"));
        let skipped: Vec<&String> = lines.iter().filter(|l| l.starts_with("SKIP")).collect();
        assert!(skipped.is_empty(), "{stem}: {skipped:?}");
        let run = "PASS binary loaded and run for 10 steps in a child process: 10 steps of h = ";
        let ran = lines.iter().find(|l| l.starts_with(run));
        let ran = ran.unwrap_or_else(|| panic!("{stem}: {lines:#?}"));
        assert!(ran.contains("replayed bit for bit (also through"), "{ran}");
        for rule in [
            "PASS exactly one independent variable",
            "PASS value references unique across all variables",
            "PASS InitialUnknown exactly the calculated and approx unknowns, once each",
        ] {
            assert!(lines.iter().any(|l| l == rule), "{stem}: {rule}");
        }
    }
}

#[test]
fn broken_fmi3_descriptions_fail_with_the_reason() {
    let original = fmu3("saturated_integrator");
    let cases: [(&str, &str, &str, &str); 8] = [
        (
            "vr_shared_across_types",
            r#"name="U" valueReference="2""#,
            r#"name="U" valueReference="1""#,
            r#"FAIL value references unique across all variables: value reference 1 of both "L" and "U""#,
        ),
        (
            "two_independents",
            r#"causality="parameter" variability="fixed" initial="exact" start="-0.5""#,
            r#"causality="independent" variability="continuous""#,
            "FAIL exactly one independent variable: 2 of them",
        ),
        (
            "output_missing",
            r#"<Output valueReference="5" dependencies=""/>"#,
            "",
            r#"FAIL ModelStructure Output lists exactly the outputs, once each: listed ["l", "y"] expected ["k", "l", "y"]"#,
        ),
        (
            "output_twice",
            r#"<Output valueReference="5" dependencies=""/>"#,
            r#"<Output valueReference="5" dependencies=""/><Output valueReference="5"/>"#,
            "FAIL ModelStructure Output lists exactly the outputs, once each: Output 5 listed twice",
        ),
        (
            "initial_unknown_missing",
            r#"<InitialUnknown valueReference="6"/>"#,
            "",
            r#"FAIL InitialUnknown exactly the calculated and approx unknowns, once each: listed ["k"] expected ["k", "l"]"#,
        ),
        (
            "output_depends_on_output",
            r#"<Output valueReference="4" dependencies=""/>"#,
            r#"<Output valueReference="4" dependencies="5"/>"#,
            "FAIL Output and ContinuousStateDerivative dependencies are inputs, states, parameters or time: Output 4 depends on 5, not one of its knowns",
        ),
        (
            "continuous_integer",
            r#"<Float64 name="l""#,
            r#"<Int32 name="l""#,
            "FAIL causality, variability and initial combined as FMI 3.0 allows: l: a continuous Int32 variable",
        ),
        (
            "derivative_of_nothing",
            r#"name="k" valueReference="5""#,
            r#"name="k" valueReference="5" derivative="99""#,
            r#"FAIL derivative attributes name a Float variable: k has derivative="99", no variable's value reference"#,
        ),
    ];
    for (label, from, to, expected) in cases {
        let broken = rewrite(&original, &format!("fmi3_{label}"), |name, bytes| {
            if name != "modelDescription.xml" {
                return vec![(name.into(), bytes)];
            }
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.contains(from), "{label}: no '{from}' in the XML");
            vec![(name.into(), text.replacen(from, to, 1).into_bytes())]
        });
        let failed = failures(&broken);
        assert_eq!(failed, vec![expected.to_string()], "{label}");
    }
}
