//! `lcsfmu check` on FMI 3.0 Model Exchange archives: the `--fmi 3 --interface
//! me` and `cs,me` FMUs of every linear first-order bundled model pass every
//! check with nothing skipped, the binary's run through FMI 3.0 Model Exchange
//! in the child process included (both runs for `cs,me`): the numbers of
//! states and event indicators the binary reports, the named event indicators
//! read by value reference, the adjoint derivatives against the directional
//! ones. Copies whose description lists one `EventIndicator` too few, a
//! `ContinuousStateDerivative` whose `derivative` attribute names the other
//! state, or the indicators in another order fail with one line; so do
//! foreign binaries (gcc-built from `tests/c/foreign_me3.c`) with adjoint
//! derivatives that are not the directional ones' transpose, a wrong count of
//! states, or an indicator variable that reads another value than its
//! indicator, while a well-behaved build of the same file passes the run.

use super::fmu_check::rewrite;
use super::me_check::{first_order, with_foreign_binary};
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::version::{FmiVersion, Interfaces};
use lcsfmu::model::validate;
use lcsfmu::tool::conformance::{self, Outcome};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The FMI 3.0 Model Exchange FMUs built so far, by file name: each once per run.
static BUILT: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);

/// The `--fmi 3 --interface me` (or, with `cs`, `cs,me`) FMU of a bundled model.
pub fn me3_fmu(stem: &str, cs: bool) -> PathBuf {
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let built = built.get_or_insert_with(HashMap::new);
    let file = format!("{stem}-{}.fmu", if cs { "cs_me" } else { "me" });
    if let Some(out) = built.get(&file) {
        return out.clone();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = super::model_path(stem);
    let model = validate::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let out = root.join("target/test-fmus/me3-check").join(&file);
    let env = BuildEnv {
        fmi: FmiVersion::V3,
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

const ME_RUN: &str = "binary run through Model Exchange in a child process";
const CS_RUN: &str = "PASS binary loaded and run for 10 steps in a child process: ";

#[test]
fn every_first_order_model_passes_through_fmi3_model_exchange() {
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
            let report = conformance::check(&me3_fmu(stem, cs), Some(runner));
            let lines = report.lines();
            let label = format!("{stem} (cs: {cs})");
            assert_eq!(report.failed(), 0, "{label}:\n{}", lines.join("\n"));
            let skipped: Vec<&String> = lines.iter().filter(|l| l.starts_with("SKIP")).collect();
            assert!(skipped.is_empty(), "{label}: {skipped:?}");
            let prefix = format!("PASS {ME_RUN}: ");
            let me = lines.iter().find(|l| l.starts_with(&prefix));
            let me = me.unwrap_or_else(|| panic!("{label}: {lines:#?}"));
            for part in [
                "as declared and by fmi3GetNumberOfContinuousStates and fmi3GetNumberOfEventIndicators",
                "state and der(x) variables by fmi3GetFloat64 == fmi3GetContinuousStates and fmi3GetContinuousStateDerivatives",
                "directional derivatives == finite differences (largest relative difference ",
                "adjoint derivatives == their transpose (largest relative difference ",
                "fmi3Reset to the same start states",
                // Every FMI 3.0 binary exports fmi3DoStep, which must refuse too.
                "; 3 calls the state machine forbids refused without a change",
            ] {
                assert!(me.contains(part), "{label}: {part}\n{me}");
            }
            // The SMC models have no pairs, so no indicators: their events are samples.
            let indicators = !me.contains(" 0 event indicators as declared");
            let part = "the event indicator variables by fmi3GetFloat64 == fmi3GetEventIndicators";
            assert_eq!(me.contains(part), indicators, "{label}: {part}\n{me}");
            assert_eq!(lines.iter().any(|l| l.starts_with(CS_RUN)), cs, "{label}");
            let before = me.split(" events").next().unwrap();
            let events: usize = before.rsplit(' ').next().unwrap().parse().unwrap();
            with_events += usize::from(events > 0);
        }
    }
    // The runs meet events: the Euler loop's Event Mode is exercised (measured:
    // 8 of the 12 linear models and the 3 nonlinear ones meet some in their
    // default experiment, in both builds).
    assert!(with_events >= 22, "{with_events} runs with events");
}

/// The FAIL lines of `check` with the binary run.
fn failures_with_run(fmu: &Path) -> Vec<String> {
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    let report = conformance::check(fmu, Some(runner));
    let failed = report.checks.iter();
    let failed = failed.filter(|c| matches!(c.outcome, Outcome::Fail(_)));
    failed.map(|c| c.to_string()).collect()
}

/// Replacements in the description, each made once, in order.
type Edits<'a> = Vec<(&'a str, &'a str)>;

#[test]
fn broken_fmi3_model_exchange_descriptions_fail_with_one_line() {
    let cases: [(&str, Edits, &str); 3] = [
        (
            "me3_indicator_missing",
            vec![(r#"    <EventIndicator valueReference="10"/>"#, "")],
            "fmi3GetNumberOfEventIndicators gives 4 where the description declares 3",
        ),
        (
            "me3_derivative_of_the_other_state",
            vec![
                (r#" derivative="1"/>"#, r#" derivative="Y"/>"#),
                (r#" derivative="2"/>"#, r#" derivative="1"/>"#),
                (r#" derivative="Y"/>"#, r#" derivative="2"/>"#),
            ],
            "fmi3GetFloat64 of value reference 2 (a state variable) gives 1 where fmi3GetContinuousStates gives -1 (t = 0)",
        ),
        (
            "me3_indicators_reordered",
            vec![
                (r#"<EventIndicator valueReference="7"/>"#, r#"<EventIndicator valueReference="X"/>"#),
                (r#"<EventIndicator valueReference="9"/>"#, r#"<EventIndicator valueReference="7"/>"#),
                (r#"<EventIndicator valueReference="X"/>"#, r#"<EventIndicator valueReference="9"/>"#),
            ],
            "fmi3GetFloat64 of value reference 9 (an event indicator variable) gives ",
        ),
    ];
    for (label, edits, expected) in cases {
        let broken = rewrite(&me3_fmu("sign_spiral", false), label, |name, bytes| {
            if name != "modelDescription.xml" {
                return vec![(name.into(), bytes)];
            }
            let mut text = String::from_utf8(bytes).unwrap();
            for (from, to) in &edits {
                assert!(text.contains(from), "{label}: no '{from}'");
                text = text.replacen(from, to, 1);
            }
            vec![(name.into(), text.into_bytes())]
        });
        let failed = failures_with_run(&broken);
        assert_eq!(failed.len(), 1, "{label}: {failed:#?}");
        let line = &failed[0];
        assert!(
            line.starts_with(&format!("FAIL {ME_RUN}: {expected}")),
            "{label}: {line}"
        );
    }
}

/// The line of the Model Exchange run of sign_spiral's FMI 3.0 `me` FMU with
/// its binary replaced by `tests/c/foreign_me3.c` built with `-D{behaviour}`.
fn foreign_me3_run(behaviour: &str) -> String {
    let fmu = with_foreign_binary(&me3_fmu("sign_spiral", false), "foreign_me3.c", behaviour);
    let runner = Path::new(env!("CARGO_BIN_EXE_lcsfmu"));
    let lines = conformance::check(&fmu, Some(runner)).lines();
    let run = lines.iter().find(|l| l.contains(ME_RUN));
    run.unwrap_or_else(|| panic!("{behaviour}: {lines:#?}"))
        .clone()
}

#[test]
fn foreign_fmi3_model_exchange_binaries_fail_with_what_they_did() {
    // A well-behaved foreign binary passes the run: the checks tell good from bad.
    let good = foreign_me3_run("BEHAVE");
    assert!(good.starts_with(&format!("PASS {ME_RUN}: ")), "{good}");
    assert!(
        good.contains("adjoint derivatives == their transpose (largest relative difference 0.0e0)"),
        "{good}"
    );
    let cases = [
        (
            "WRONG_ADJOINT",
            "fmi3GetAdjointDerivative of the derivative of value reference 5 by the states and inputs gives 2 by value reference 2 where fmi3GetDirectionalDerivative gives 1",
        ),
        (
            "WRONG_COUNT",
            "fmi3GetNumberOfContinuousStates gives 3 where the description declares 2",
        ),
        (
            "WRONG_INDICATOR",
            "fmi3GetFloat64 of value reference 7 (an event indicator variable) gives 0 where fmi3GetEventIndicators gives -1 (t = 0)",
        ),
    ];
    for (behaviour, expected) in cases {
        let line = foreign_me3_run(behaviour);
        assert_eq!(line, format!("FAIL {ME_RUN}: {expected}"), "{behaviour}");
    }
}
