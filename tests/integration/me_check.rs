//! `lcsfmu check` on Model Exchange archives: the `--interface me` and
//! `--interface cs,me` FMUs of every linear first-order bundled model pass
//! every check with nothing skipped, the binary's run through Model Exchange
//! in the child process included (both runs for `cs,me`), and copies whose
//! description declares the wrong numbers of states or event indicators, or a
//! `der(x)` variable at another's value reference, fail with one line naming
//! the call and what the FMU said. So do foreign binaries (gcc-built from
//! `tests/c/foreign_me.c`) with NaN derivatives, wrong directional
//! derivatives, no refusal before initialization, or a crash in an event,
//! while a well-behaved build of the same file passes, with a time event too.

use super::fmu_check::rewrite;
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::version::Interfaces;
use lcsfmu::instance::model_exchange::refusal;
use lcsfmu::model::validate;
use lcsfmu::tool::conformance::{self, Outcome};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The Model Exchange FMUs built so far, by file name: each once per run.
static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);

/// The `--interface me` (or, with `cs`, `cs,me`) FMU of a bundled model.
pub fn me_fmu(stem: &str, cs: bool) -> PathBuf {
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let built = built.get_or_insert_with(HashMap::new);
    let file = format!("{stem}-{}.fmu", if cs { "cs_me" } else { "me" });
    if let Some(out) = built.get(&file) {
        return out.clone();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = super::model_path(stem);
    let model = validate::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let out = root.join("target/test-fmus/me-check").join(&file);
    let env = BuildEnv {
        interfaces: Interfaces {
            co_simulation: cs,
            model_exchange: true,
        },
        ..BuildEnv::from_env()
    };
    export::build(&model, &path, &out, &env).unwrap_or_else(|e| panic!("{stem}: {e}"));
    built.insert(file, out.clone());
    out
}

/// The bundled models Model Exchange accepts: the first-order ones.
pub fn first_order() -> Vec<String> {
    let models = super::fmus::every_model().into_iter();
    let accepted = |stem: &String| refusal(&super::model(stem)).is_none();
    models.filter(accepted).collect()
}

const ME_RUN: &str = "binary run through Model Exchange in a child process";
const CS_RUN: &str = "PASS binary loaded and run for 10 steps in a child process: ";

/// The number before " events" in a Model Exchange summary.
fn events(line: &str) -> usize {
    let before = line.split(" events").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn every_first_order_model_passes_through_model_exchange() {
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    let models = first_order();
    // The 13 linear ones (filippov_slide among them) and vdp_saturation,
    // diode_bridge_source, buck_pwm, pm_braking_bridge, heat_losses_friction,
    // smc_implicit, smc_explicit, pid_zoh and oscillator_pid (sampled: their
    // samples are time events) and the four bundled netlists (half_wave,
    // diode_bridge, bridge_cap_filter, buck).
    assert_eq!(models.len(), 26, "{models:?}");
    let mut with_events = 0;
    for stem in &models {
        for cs in [false, true] {
            let report = conformance::check(&me_fmu(stem, cs), Some(runner));
            let lines = report.lines();
            let label = format!("{stem} (cs: {cs})");
            assert_eq!(report.failed(), 0, "{label}:\n{}", lines.join("\n"));
            let skipped: Vec<&String> = lines.iter().filter(|l| l.starts_with("SKIP")).collect();
            assert!(skipped.is_empty(), "{label}: {skipped:?}");
            let prefix = format!("PASS {ME_RUN}: ");
            let me = lines.iter().find(|l| l.starts_with(&prefix));
            let me = me.unwrap_or_else(|| panic!("{label}: {lines:#?}"));
            for part in [
                "state and der(x) variables by fmi2GetReal == fmi2GetContinuousStates and fmi2GetDerivatives",
                "directional derivatives == finite differences (largest relative difference ",
                "fmi2Reset to the same start states",
                "calls the state machine forbids refused without a change",
            ] {
                assert!(me.contains(part), "{label}: {me}");
            }
            // fmi2DoStep is refused too when the binary has it.
            let refused = if cs { "3 calls" } else { "2 calls" };
            assert!(me.contains(refused), "{label}: {me}");
            assert_eq!(lines.iter().any(|l| l.starts_with(CS_RUN)), cs, "{label}");
            with_events += usize::from(events(me) > 0);
        }
    }
    // The runs meet events: the Euler loop's Event Mode is exercised (measured:
    // 8 of the 12 linear models and the 3 nonlinear ones meet some in their
    // default experiment, in both builds).
    assert!(with_events >= 22, "{with_events} runs with events");
}

#[test]
fn rlc_diode_switches_once_under_euler() {
    // The diode blocks once, at t = 1.209 (validation.md), within the 5 s run.
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    let report = conformance::check(&me_fmu("rlc_diode", false), Some(runner));
    let lines = report.lines();
    let me = lines.iter().find(|l| l.contains(ME_RUN)).unwrap();
    assert!(
        me.contains("5000 explicit Euler steps of h = 0.001 from t = 0 to 5"),
        "{me}"
    );
    assert_eq!(events(me), 1, "{me}");
}

/// The FAIL lines of `check` with the binary run.
fn failures_with_run(fmu: &Path) -> Vec<String> {
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    let report = conformance::check(fmu, Some(runner));
    let failed = report.checks.iter();
    let failed = failed.filter(|c| matches!(c.outcome, Outcome::Fail(_)));
    failed.map(|c| c.to_string()).collect()
}

/// sign_spiral's `me` FMU with its description edited: each `(from, to)` once.
fn edited(label: &str, edits: &[(&str, &str)]) -> PathBuf {
    let edits: Vec<(String, String)> = edits
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    rewrite(&me_fmu("sign_spiral", false), label, move |name, bytes| {
        if name != "modelDescription.xml" {
            return vec![(name.into(), bytes)];
        }
        let mut text = String::from_utf8(bytes).unwrap();
        for (from, to) in &edits {
            assert!(text.contains(from.as_str()), "{label}: no '{from}'");
            text = text.replacen(from.as_str(), to, 1);
        }
        vec![(name.into(), text.into_bytes())]
    })
}

/// Replacements in the description, each made once.
type Edits<'a> = Vec<(&'a str, &'a str)>;

#[test]
fn wrong_counts_and_value_references_fail_with_one_line() {
    let der_x2 = r#"    <ScalarVariable name="der(x2)" valueReference="6" description="derivative of x2 in the current mode" causality="local" variability="continuous" initial="calculated">
      <Real derivative="2"/>
    </ScalarVariable>
"#;
    let cases: [(&str, Edits, &str); 3] = [
        (
            "me_indicators_miscounted",
            vec![(
                r#"numberOfEventIndicators="4""#,
                r#"numberOfEventIndicators="3""#,
            )],
            "fmi2GetEventIndicators with the description's 3 event indicators returned fmi2Error (t = 0); the FMU logged: ",
        ),
        (
            "me_state_missing",
            vec![
                (der_x2, ""),
                (r#"      <Unknown index="6" dependencies="1 2"/>"#, ""),
                (r#"      <Unknown index="6"/>"#, ""),
            ],
            "fmi2GetContinuousStates with the description's 1 states returned fmi2Error (t = 0); the FMU logged: ",
        ),
        (
            "me_derivatives_swapped",
            vec![
                (r#"name="der(x1)" valueReference="5""#, r#"name="der(x1)" valueReference="6""#),
                (r#"name="der(x2)" valueReference="6""#, r#"name="der(x2)" valueReference="5""#),
            ],
            "fmi2GetReal of value reference 6 (a derivative variable) gives 1 where fmi2GetDerivatives gives 3 (t = 0)",
        ),
    ];
    for (label, edits, expected) in cases {
        let failed = failures_with_run(&edited(label, &edits));
        assert_eq!(failed.len(), 1, "{label}: {failed:#?}");
        let line = &failed[0];
        // The FMU's message, when there is one, is the failing call's.
        let logged = line.contains("the FMU logged");
        assert_eq!(logged, !label.ends_with("swapped"), "{label}: {line}");
        assert!(
            line.starts_with(&format!("FAIL {ME_RUN}: {expected}")),
            "{label}: {line}"
        );
    }
}

/// `fmu` with its binary replaced by `tests/c/{source}` built with
/// `-D{behaviour}`: the description stays valid, so the Model Exchange run is
/// the only check that can fail (shared with the FMI 3.0 tests).
pub fn with_foreign_binary(fmu: &Path, source: &str, behaviour: &str) -> PathBuf {
    let stem = source.trim_end_matches(".c");
    let so = super::fmu_check::out_dir().join(format!("{stem}_{behaviour}.so"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(source);
    let out = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-O0", "-w"])
        .arg(format!("-D{behaviour}"))
        .arg("-o")
        .arg(&so)
        .arg(&source)
        .output()
        .expect("gcc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let binary = std::fs::read(&so).unwrap();
    let label = format!("{stem}_{behaviour}");
    rewrite(fmu, &label, |name, bytes| {
        let bytes = if name.ends_with(".so") {
            binary.clone()
        } else {
            bytes
        };
        vec![(name.to_string(), bytes)]
    })
}

/// sign_spiral's `me` FMU with the binary of `tests/c/foreign_me.c`.
fn foreign_me(behaviour: &str) -> PathBuf {
    with_foreign_binary(&me_fmu("sign_spiral", false), "foreign_me.c", behaviour)
}

#[test]
fn foreign_model_exchange_binaries_fail_with_what_they_did() {
    // A well-behaved foreign binary passes: the run tells good from bad.
    let good = failures_with_run(&foreign_me("BEHAVE"));
    assert!(good.is_empty(), "{good:#?}");
    // A time event at 0.5 ends the step from 0.4 there: 11 steps, and the
    // crossing of x1 near pi/4 is the second event.
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    let timed = conformance::check(&foreign_me("TIME_EVENT"), Some(runner)).lines();
    let expected =
        format!("PASS {ME_RUN}: 11 explicit Euler steps of h = 0.2 from t = 0 to 2, 2 events");
    assert!(timed.iter().any(|l| l.starts_with(&expected)), "{timed:#?}");
    let cases = [
        (
            "NAN_DER",
            "the derivative of value reference 5 is NaN at t = 0.6",
        ),
        (
            "WRONG_DIR",
            "fmi2GetDirectionalDerivative of the derivatives by value reference 1 differs from central finite differences by 1e0",
        ),
        (
            "NO_REFUSAL",
            "fmi2GetDerivatives before initialization returned fmi2OK, not fmi2Error",
        ),
        (
            "SEGV_EVENT",
            "killed by SIGSEGV (invalid memory access) during fmi2NewDiscreteStates",
        ),
    ];
    for (behaviour, expected) in cases {
        let failed = failures_with_run(&foreign_me(behaviour));
        assert_eq!(failed.len(), 1, "{behaviour}: {failed:#?}");
        let expected = format!("FAIL {ME_RUN}: {expected}");
        assert!(
            failed[0].starts_with(&expected),
            "{behaviour}: {}",
            failed[0]
        );
    }
}
