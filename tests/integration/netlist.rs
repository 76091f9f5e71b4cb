//! The netlist front end (`src/model/netlist/`): every bad netlist in
//! `tests/data/bad_netlist/` refused with `file:line` and the reason; the
//! lowering of small circuits equal to their hand-derived matrices; the
//! reader's SPICE details (scale factors, case, continuation lines,
//! parameters, the ignored directives); arbitrary text never panics.

use lcsfmu::model::{netlist, validate, ExprMatrix, Model};
use std::path::Path;

fn read(text: &str) -> Result<Model, validate::ModelError> {
    netlist::read(text, Path::new("test.cir"), None).map(|l| l.model)
}

fn ok(text: &str) -> Model {
    read(text).unwrap_or_else(|e| panic!("{e}"))
}

/// A matrix of numbers as dense rows.
fn dense(m: &ExprMatrix) -> Vec<Vec<f64>> {
    let mut out = vec![vec![0.0; m.cols]; m.rows];
    for (i, j, e) in &m.entries {
        out[*i][*j] = e.as_constant().expect("netlist matrices are numbers");
    }
    out
}

fn assert_matrix(what: &str, m: &ExprMatrix, expected: &[&[f64]]) {
    let got = dense(m);
    assert_eq!(got.len(), expected.len(), "{what}: rows");
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_eq!(g.len(), e.len(), "{what}: columns");
        for (j, (a, b)) in g.iter().zip(e.iter()).enumerate() {
            assert!(
                (a - b).abs() <= 1e-15 * b.abs().max(1.0),
                "{what}[{i}][{j}] = {a}, expected {b}"
            );
        }
    }
}

#[test]
fn each_bad_netlist_is_refused_with_file_line_and_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad_netlist");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let header = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .unwrap_or_else(|| panic!("{} lacks '{key}'", path.display()))
                .trim()
                .to_string()
        };
        let (line, expect) = (header("* line:"), header("* expect:"));
        let err = validate::load(&path).expect_err(&format!("{} was accepted", path.display()));
        assert_eq!(err.file, path, "{err}");
        assert_eq!(err.field, line, "{}: {err}", path.display());
        assert!(
            err.message.contains(&expect),
            "{}: expected '{expect}' in: {err}",
            path.display()
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!("{}:{line}: ", path.display())),
            "{shown}"
        );
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} bad netlists");
}

/// `V1 in 0 DC 5`, `R1 in a 2`, `D1 a b`, `C1 b 0 0.5`, `R2 b 0 4`. The
/// diode's ends are joined by V1, R1 and C1, so its current is the
/// multiplier `u`:
/// `v' = (u - v/R2)/C`, `y = v(b) - v(a) = v - (5 - R1 u)`.
#[test]
fn a_diode_by_current_lowers_to_its_hand_derived_matrices() {
    let m = ok("rc with a diode
V1 in 0 DC 5
R1 in a 2
D1 a b DI
C1 b 0 0.5 IC=1
R2 b 0 4
.model DI D
.tran 1m 1
");
    assert_eq!(m.states[0].name, "V_C1");
    assert_eq!(m.states[0].start, 1.0);
    assert_eq!(m.pairs[0].name, "D1_i");
    assert_matrix("A", &m.system.a, &[&[-1.0 / (4.0 * 0.5)]]);
    assert_matrix("B", &m.system.b, &[&[1.0 / 0.5]]);
    assert_matrix("f", &m.system.f, &[&[0.0]]);
    assert_matrix("C", &m.system.c, &[&[1.0]]);
    assert_matrix("D", &m.system.d, &[&[2.0]]);
    assert_matrix("g", &m.system.g, &[&[-5.0]]);
    assert!(m.nonlinear.is_none());
    // Outputs: (name, constant, coefficient of v, coefficient of u).
    let expected = [
        ("V_in", 5.0, 0.0, 0.0),
        ("V_a", 5.0, 0.0, -2.0),
        ("V_b", 0.0, 1.0, 0.0),
        ("I_V1", 0.0, 0.0, -1.0),
        ("I_R1", 0.0, 0.0, 1.0),
        ("I_D1", 0.0, 0.0, 1.0),
        ("V_D1", 5.0, -1.0, -2.0),
        ("I_C1", 0.0, -0.25, 1.0),
        ("I_R2", 0.0, 0.25, 0.0),
    ];
    let names: Vec<&str> = m.outputs.iter().map(|o| o.name.as_str()).collect();
    let mut want: Vec<&str> = expected.iter().map(|e| e.0).collect();
    want.sort();
    let mut got = names.clone();
    got.sort();
    assert_eq!(got, want);
    for (name, c, kx, ku) in expected {
        let o = m.outputs.iter().find(|o| o.name == name).unwrap();
        let coef = |list: &[(usize, lcsfmu::model::expr::Expr)]| {
            list.first().map_or(0.0, |(_, e)| e.as_constant().unwrap())
        };
        assert_eq!(o.constant.as_constant().unwrap(), c, "{name}");
        assert_eq!(coef(&o.states), kx, "{name}");
        assert_eq!(coef(&o.pairs), ku, "{name}");
    }
}

/// `V1 in 0 PWL(...)`, `D1 in a`, `L1 a b 1m`, `R1 b 0 10`: nothing but the
/// inductor joins the diode's cathode, so the diode's reverse voltage `u`
/// is the multiplier and its current `i_L` the complementary variable:
/// `i' = (V(t) + u - R1 i)/L`, `y = i`.
#[test]
fn a_diode_in_series_with_an_inductor_gives_its_voltage() {
    let m = ok("diode into an inductor
V1 in 0 PWL(0 0 1m 5 2m -5)
D1 in a DI
L1 a b 1m
R1 b 0 10
.model DI D
");
    assert_eq!(m.pairs[0].name, "D1_vr");
    assert_matrix("A", &m.system.a, &[&[-10.0 / 1e-3]]);
    assert_matrix("B", &m.system.b, &[&[1.0 / 1e-3]]);
    assert_matrix("C", &m.system.c, &[&[1.0]]);
    assert_matrix("D", &m.system.d, &[&[0.0]]);
    let nl = m
        .nonlinear
        .as_ref()
        .expect("the source is a program of time");
    assert_eq!(nl.der.len(), 1);
    assert!(nl.y.is_empty());
}

/// Siconos writes the bridge with two diodes by voltage and two by current;
/// the normal tree takes one by voltage (DF1, the first to join the tank to
/// the load). The state equations are the tank's either way, and every
/// diode current reaches them through `B` only.
#[test]
fn the_diode_bridge_keeps_the_tanks_matrix() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/diode_bridge.cir");
    let m = validate::load(&path).unwrap();
    assert_matrix("A", &m.system.a, &[&[0.0, -1e6], &[100.0, 0.0]]);
    let pairs: Vec<&str> = m.pairs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(pairs, ["DF1_vr", "DR1_i", "DF2_i", "DR2_i"]);
    // The capacitor's row: the bridge's current -i_DF1 + i_DR2 over C, with
    // i_DF1 = i_DR2 - i_DR1 + i_DF2 by the cut-set around the load.
    assert_matrix("B", &m.system.b, &[&[0.0, 1e6, -1e6, 0.0], &[0.0; 4]]);
    assert_eq!(m.scheme.theta, 0.5);
    assert_eq!(m.experiment.step, 1e-6);
    assert_eq!(m.experiment.stop, 5e-3);
    assert_eq!(m.states[0].start, 10.0);
}

#[test]
fn spice_details_are_read_as_spice_reads_them() {
    let m = ok("Title line: R1 here is not an element
* a comment
.PARAM rload = 2K  cval={1/(2*rload)}
v1 IN 0 dc 3 ac 1 ; an inline comment
r1 in OUT {rload} $ another
C1 out 0
+ {cval} ic = 1.5
.OPTIONS reltol=1e-4 METHOD=TRAP
.print tran v(out)
.tran 1ms 20ms 0 0.5ms uic
.control
run
.endc
.END
R9 after the end is never read
");
    assert_eq!(m.description, "Title line: R1 here is not an element");
    assert_eq!(m.name, "test");
    assert_eq!(m.states[0].start, 1.5);
    // Node names keep their first spelling; nodes are case-insensitive.
    let outputs: Vec<&str> = m.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(outputs, ["V_IN", "V_OUT", "I_v1", "I_r1", "I_C1"]);
    assert_eq!(m.scheme.theta, 0.5);
    assert_eq!(m.scheme.max_step, Some(0.5e-3));
    assert_eq!((m.experiment.step, m.experiment.stop), (1e-3, 20e-3));
    // v' = (3 - v)/(R C) with R C = 2k * 1/(4k) = 1/2.
    assert_matrix("A", &m.system.a, &[&[-2.0]]);
    assert_matrix("f", &m.system.f, &[&[6.0]]);
}

#[test]
fn check_lists_what_was_ignored_and_where_each_row_came_from() {
    let l = netlist::read(
        "t\nV1 a 0 SIN(0 1 50) AC 1\nR1 a b 1k\nD1 b c DX\nC1 c 0 1u\nR2 c 0 1k\n.model DX D(IS=1e-14 N=1.5 Ron=0.1)\n.save all\n.options abstol=1e-12\n.tran 1u 1m 0.5m\n",
        Path::new("t.cir"),
        None,
    )
    .unwrap();
    let text = l.summary.join("\n");
    for needle in [
        "state V_C1: voltage of C1",
        "pair D1_i: the current of D1 is the multiplier",
        "IS, N ignored: the diode is piecewise linear (Ron = 0.1, Roff = inf, Vf = 0)",
        "AC specification ignored",
        ".save all (line 8): every node voltage and branch current is an output",
        ".options (line 9): abstol ignored",
        ".tran TSTART = 0.0005 (line 10) ignored",
    ] {
        assert!(text.contains(needle), "'{needle}' not in:\n{text}");
    }
}

/// A piecewise-linear diode: `Roff` in parallel with an ideal diode, `R2`
/// and `Vf` in series, `1/R2 = 1/Ron - 1/Roff`.
#[test]
fn a_piecewise_linear_diode_adds_its_knee_and_resistances() {
    let m = ok("pwl diode
V1 a 0 DC 2
D1 a b DP
R1 b 0 1
C1 b 0 1
.model DP D(Ron=0.5 Roff=10 Vf=0.7)
");
    // y = v(b) - v(a) + R2 u + Vf with v(b) = x (the capacitor), v(a) = 2.
    let r2 = 0.5 * 10.0 / (10.0 - 0.5);
    assert_matrix("C", &m.system.c, &[&[1.0]]);
    assert_matrix("D", &m.system.d, &[&[r2]]);
    assert_matrix("g", &m.system.g, &[&[-2.0 + 0.7]]);
    // x' = (u + (2 - x)/Roff - x/R1)/C.
    assert_matrix("A", &m.system.a, &[&[-1.0 / 10.0 - 1.0]]);
    assert_matrix("B", &m.system.b, &[&[1.0]]);
    assert_matrix("f", &m.system.f, &[&[2.0 / 10.0]]);
}

#[test]
fn netlists_are_model_files_of_every_command() {
    for ext in ["cir", "sp", "net", "CIR"] {
        assert!(netlist::is_netlist(Path::new(&format!("x.{ext}"))));
    }
    assert!(!netlist::is_netlist(Path::new("x.toml")));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/half_wave.cir");
    let e = validate::load_with(&path, &[("N".into(), 3)], None).unwrap_err();
    assert!(e.message.contains("declares no [defines]"), "{e}");
    let m = validate::load_with(&path, &[], Some("event-driven")).unwrap();
    assert_eq!(m.scheme.method, lcsfmu::model::Method::EventDriven);
    // The JSON an FMU carries reads back.
    Model::from_json(&m.to_json()).unwrap();
}

#[test]
fn arbitrary_text_never_panics() {
    let good = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/diode_bridge.cir"),
    )
    .unwrap();
    let bytes = good.as_bytes();
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let alphabet = b" \n+*(){}=,.;$'0123456789eEkKmMuUnpfgtTRCLVIDabcxyz-";
    for _ in 0..3000 {
        let mut t = bytes.to_vec();
        for _ in 0..1 + next() % 6 {
            let at = (next() as usize) % (t.len() + 1);
            match next() % 3 {
                0 if at < t.len() => {
                    t.remove(at);
                }
                1 => t.insert(at, alphabet[(next() as usize) % alphabet.len()]),
                _ if at < t.len() => t[at] = alphabet[(next() as usize) % alphabet.len()],
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&t);
        if let Err(e) = read(&text) {
            // Every refusal names a line of the text (or the whole file).
            let lines = text.lines().count().max(1);
            match e.line() {
                Some(l) => assert!(l >= 1 && l <= lines, "line {l} of {lines}: {e}"),
                None => assert_eq!(e.field, "(file)", "{e}"),
            }
        }
    }
}

/// An RC charged through a switch: with a constant control the switch is
/// the resistor RON (closed) or ROFF (open), step for step to rounding; with
/// a PULSE control it is ROFF until the pulse's edge and RON after, so the
/// run equals the ROFF circuit's up to the edge and then the RON circuit's
/// from the state there (backward Euler, h = 1 us, the edge at 0.5 ms on a
/// mid-step at 0.5005 ms: the step ending at 0.501 ms is the first
/// closed one).
#[test]
fn a_switch_is_its_resistance_by_its_control() {
    use lcsfmu::tool::simulate::{run, Options};
    let rc = |element: &str, ic: f64| {
        format!(
            "switched rc\nV1 in 0 DC 10\n{element}\nC1 a 0 1u IC={ic}\nR2 a 0 1k\nVG g 0 {{gate}}\nRG g 0 1k\n.param gate=0\n.model SM SW(VT=0.5 RON=10 ROFF=1e5)\n.tran 1u 1m\n"
        )
    };
    let simulate = |text: &str| {
        let m = ok(text);
        let t = run(m, "{g}", &Options::default()).unwrap();
        assert_eq!(t.failure, None);
        super::column(&t, "V_C1")
    };
    let same = |a: &[f64], b: &[f64], what: &str| {
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-12 * y.abs().max(1.0),
                "{what} at {k}: {x} {y}"
            );
        }
    };
    let closed = simulate(&rc("R1 in a 10", 0.0));
    let open = simulate(&rc("R1 in a 1e5", 0.0));
    let on = simulate(&rc("S1 in a g 0 SM", 0.0).replace("gate=0", "gate=1"));
    let off = simulate(&rc("S1 in a g 0 SM", 0.0));
    same(&on, &closed, "closed");
    same(&off, &open, "open");
    let pulse =
        rc("S1 in a g 0 SM", 0.0).replace("VG g 0 {gate}", "VG g 0 PULSE(0 1 0.5005m 1n 1n 1 2)");
    let switched = simulate(&pulse);
    // Up to the step ending at 0.5 ms: open.
    same(&switched[..=500], &open[..=500], "before the edge");
    let rest = simulate(&rc("R1 in a 10", switched[500]).replace(".tran 1u 1m", ".tran 1u 0.5m"));
    same(&switched[500..], &rest, "after the edge");
}
