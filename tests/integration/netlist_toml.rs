//! A netlist inside a TOML model (`[circuit] netlist = """..."""`): an FMU
//! input as a source's value, `[[outputs]]` over the circuit's quantities,
//! `[experiment]` and `[scheme]` over `.tran` and `.options`, refusals at
//! the TOML file's lines.

use crate::initialized;
use lcsfmu::model::{validate, Model};
use std::path::Path;

const RECTIFIER: &str = r#"[model]
name = "rectifier_input"
description = "a half-wave rectifier driven by an FMU input"

[experiment]
stop = 0.03
step = 1e-5

[[inputs]]
name = "vin"
unit = "V"

[circuit]
netlist = """
* the half-wave rectifier of models/half_wave.cir, its source an input
V1 in 0 {vin}
D1 in out DI
R1 out 0 1k
C1 out 0 10u
.model DI D
"""

[[outputs]]
name = "load_power"
value = "V_out*I_R1"
unit = "W"
"#;

fn model(text: &str) -> Result<Model, validate::ModelError> {
    validate::from_str(text, Path::new("circuit.toml"))
}

fn vr(m: &Model, name: &str) -> u32 {
    let vars = lcsfmu::instance::variables::variables(m);
    vars.iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no {name}")) as u32
}

/// Driven through its input with the source's value at each step's end
/// (where backward Euler reads a source in the relation), the model steps
/// as `half_wave.cir` does with its `SIN`, bit for bit.
#[test]
fn an_input_drives_a_source_as_the_netlist_source_would() {
    let driven = model(RECTIFIER).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(driven.nw(), 1);
    assert!(driven.nonlinear.as_ref().is_some_and(|n| !n.dynamics()));
    let cir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/half_wave.cir");
    let sine = validate::load(&cir).unwrap();
    let names = ["V_C1", "D1_i", "V_out", "I_R1"];
    let refs_a: Vec<u32> = names.iter().map(|n| vr(&sine, n)).collect();
    let refs_b: Vec<u32> = names.iter().map(|n| vr(&driven, n)).collect();
    let (w, power) = (vr(&driven, "vin"), vr(&driven, "load_power"));
    let (mut a, mut b) = (initialized(sine), initialized(driven));
    let source = |t: f64| 10.0 * (2.0 * std::f64::consts::PI * 50.0 * t).sin();
    let h = 1e-5;
    let (mut ya, mut yb) = ([0.0; 4], [0.0; 4]);
    let mut p = [0.0];
    for _ in 0..3000 {
        let t = a.time();
        b.set_reals(&[w], &[source(t + h)]).unwrap();
        a.do_step(t, h).unwrap();
        b.do_step(t, h).unwrap();
        a.get_reals(&refs_a, &mut ya).unwrap();
        b.get_reals(&refs_b, &mut yb).unwrap();
        assert_eq!(
            ya.map(f64::to_bits),
            yb.map(f64::to_bits),
            "t = {t}: {ya:?} vs {yb:?}"
        );
        b.get_reals(&[power], &mut p).unwrap();
        assert!((p[0] - yb[2] * yb[3]).abs() <= 1e-12 * p[0].abs().max(1e-12));
    }
}

#[test]
fn toml_settings_replace_tran_and_options() {
    let text = RECTIFIER.replace(
        ".model DI D\n",
        ".model DI D\n.tran 1m 1\n.options method=trap\n",
    );
    let m = model(&text).unwrap();
    assert_eq!((m.experiment.step, m.experiment.stop), (1e-5, 0.03));
    assert_eq!(m.scheme.theta, 0.5);
    let with_scheme = format!("{text}\n[scheme]\ntheta = 1.0\n");
    assert_eq!(model(&with_scheme).unwrap().scheme.theta, 1.0);
    assert_eq!(
        m.description,
        "a half-wave rectifier driven by an FMU input"
    );
}

#[test]
fn refusals_name_the_toml_files_line() {
    // The netlist's fourth line (after a comment) is the file's line 18.
    let text = RECTIFIER.replace("R1 out 0 1k", "R1 out 0 1k5");
    let e = model(&text).unwrap_err();
    assert_eq!(
        e.to_string().split(": ").next(),
        Some("circuit.toml:18"),
        "{e}"
    );
    assert!(
        e.message
            .contains("R1: its resistance: '1k5' is not a number"),
        "{e}"
    );
    let cases = [
        (
            "[[inputs]]",
            "[[parameters]]\nname = \"k\"\nvalue = 1\n\n[[inputs]]",
            "parameters",
        ),
        (
            "[circuit]",
            "[[states]]\nname = \"x\"\n\n[circuit]",
            "states",
        ),
        (
            "name = \"load_power\"",
            "name = \"V_out\"",
            "outputs[0].name",
        ),
    ];
    for (from, to, field) in cases {
        let e = model(&RECTIFIER.replace(from, to)).unwrap_err();
        assert_eq!(e.field, field, "{e}");
    }
    // An input name that is no input is an unknown name in an expression.
    let e = model(&RECTIFIER.replace("{vin}", "{vinn}")).unwrap_err();
    assert!(e.message.contains("unknown name 'vinn'"), "{e}");
}
