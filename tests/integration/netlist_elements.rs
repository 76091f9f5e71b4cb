//! The netlist's linear elements beyond `R C L V I` and its hierarchy:
//!
//! - `E F G H` (linear controlled sources) in one circuit of four RC stages,
//!   each charged to a value the gain fixes: every capacitor's voltage equals
//!   the trapezoidal rule's exact discrete solution `v_n = v∞ (1 - ρ^n)`,
//!   `ρ = (1 - h/2τ)/(1 + h/2τ)`, to 1e-12;
//! - `K` (coupled inductors): a transformer driven by a DC step settles at
//!   `k sqrt(L2/L1)` of the primary voltage with the leakage time constant
//!   `L2 (1 - k²)/R`, again the exact discrete solution; `k < 0` swaps the
//!   dots; a three-inductor `K` line equals its three pairwise lines;
//! - `.subckt` / `X`: Siconos' diode bridge written as a subcircuit (with a
//!   parameter) is `models/diode_bridge.cir` bit for bit, and written as
//!   nested subcircuits (two `arm` instances inside a `bridge`) agrees to
//!   1e-12; flattened names are `X1.R1` (element) and `X1.p` (node), variables
//!   `I_X1_R1`, `V_X1_p`;
//! - `.save` / `.probe` choose the outputs (with the diodes' always kept);
//! - ngspice (where installed) runs the same netlists: the linear circuits
//!   agree within its own truncation-error control, `reltol` = 1e-3 of the
//!   largest value (measured: 4e-4 of it at worst, the transformer at 10 us),
//!   the nested bridge within the
//!   device and step bound of `netlist_circuits`.

use super::netlist_circuits::{difference, exponential_drop, largest, ngspice, run};
use lcsfmu::model::{netlist, validate, Model};
use std::path::{Path, PathBuf};

fn read(text: &str) -> Model {
    netlist::read(text, Path::new("test.cir"), None)
        .unwrap_or_else(|e| panic!("{e}"))
        .model
}

/// `text` as a file ngspice can read.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lcsfmu-elements-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.cir"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The trapezoidal rule's exact discrete response of `v' = (v∞ - v)/τ` from 0.
fn trapezoidal_step(v_inf: f64, tau: f64, h: f64, n: usize) -> f64 {
    let rho = (1.0 - h / (2.0 * tau)) / (1.0 + h / (2.0 * tau));
    v_inf * (1.0 - rho.powi(n as i32))
}

/// `Vs` senses R0's 1 mA. E1 doubles V(in) into R1 C1 (v∞ = 2, τ = 1 ms);
/// G1 drives 1 mA/V V(in) into R2 || C2 (v∞ = 2, τ = 2 ms); F1 triples
/// i(Vs) into R3 || C3 (v∞ = 3, τ = 1 ms); H1 makes 500 Ω i(Vs) = 0.5 V
/// into R4 C4 (τ = 2 ms).
const EFGH: &str = "controlled sources
V1 in 0 DC 1
R0 in s 1k
Vs s 0 DC 0
E1 a 0 in 0 2
R1 a b 1k
C1 b 0 1u
G1 0 c in 0 1m
R2 c 0 2k
C2 c 0 1u
F1 0 d Vs 3
R3 d 0 1k
C3 d 0 1u
H1 e 0 Vs 500
R4 e f 1k
C4 f 0 2u
.options method=trap
.tran 10u 5m UIC
.end
";

#[test]
fn controlled_sources_follow_their_closed_forms() {
    let m = read(EFGH);
    let h = m.experiment.step;
    let t = run(m, None, None);
    let time = super::column(&t, "time");
    let mut worst = 0.0f64;
    for (state, v_inf, tau) in [
        ("V_C1", 2.0, 1e-3),
        ("V_C2", 2.0, 2e-3),
        ("V_C3", 3.0, 1e-3),
        ("V_C4", 0.5, 2e-3),
    ] {
        let v = super::column(&t, state);
        for (n, (&s, &x)) in time.iter().zip(&v).enumerate() {
            assert!((s - n as f64 * h).abs() < 1e-15);
            let err = (x - trapezoidal_step(v_inf, tau, h, n)).abs() / v_inf;
            worst = worst.max(err);
        }
    }
    eprintln!("E F G H stages: {worst:.1e} from the discrete closed form");
    assert!(worst < 1e-12, "{worst:e}");
    // The sources' own currents: F1 and G1 their gains' worth, E1 the
    // current into R1 (from its n+ through it to n-: negative).
    let last = |n: &str| *super::column(&t, n).last().unwrap();
    assert!((last("I_F1") - 3e-3).abs() < 1e-15);
    assert!((last("I_G1") - 1e-3).abs() < 1e-15);
    assert!((last("I_E1") + (2.0 - last("V_C1")) / 1e3).abs() < 1e-15);
    assert!((last("V_e") - 0.5).abs() < 1e-15);
}

fn transformer(k: &str) -> String {
    format!(
        "transformer
V1 in 0 DC 1
L1 in 0 1m
L2 s 0 4m
K1 L1 L2 {k}
R1 s 0 100
.options method=trap
.tran 1u 1m UIC
.end
"
    )
}

#[test]
fn a_transformer_steps_up_by_k_sqrt_l2_over_l1() {
    for k in [0.99, 0.5, -0.9] {
        let m = read(&transformer(&k.to_string()));
        let h = m.experiment.step;
        let t = run(m, None, None);
        let (l1, l2, r) = (1e-3f64, 4e-3f64, 100.0);
        let v_inf = k * (l2 / l1).sqrt();
        let tau = l2 * (1.0 - k * k) / r;
        let v = super::column(&t, "V_s");
        let worst = v.iter().enumerate().fold(0.0f64, |w, (n, x)| {
            w.max((x - trapezoidal_step(v_inf, tau, h, n)).abs())
        });
        eprintln!("transformer k = {k}: V(s) -> {:.6} (k sqrt(L2/L1) = {v_inf}), {worst:.1e} from the discrete closed form", v.last().unwrap());
        assert!(worst < 1e-12 * v_inf.abs().max(1.0), "{worst:e}");
    }
    // One K line over three inductors is its three pairwise lines.
    let three = |k: &str| {
        read(&format!(
            "three\nV1 a 0 SIN(0 1 1k)\nL1 a 0 1m\nL2 b 0 2m\nL3 c 0 3m\nR1 b 0 10\nR2 c 0 20\n{k}\n.tran 1u 1m\n"
        ))
    };
    let one = three("K1 L1 L2 L3 0.5");
    let pairs = three("K1 L1 L2 0.5\nK2 L1 L3 0.5\nK3 L2 L3 0.5");
    assert_eq!(one.system.a, pairs.system.a);
    assert_eq!(one.system.f, pairs.system.f);
}

/// Siconos' bridge as a subcircuit, in `models/diode_bridge.cir`'s order.
const BRIDGE_X: &str = "diode bridge as a subcircuit
C1 a 0 1u IC=10
L1 a 0 10m IC=0
X1 a 0 bridge params: rload=1k
.subckt bridge ac1 ac2 params: rload=10
DF1 ac1 p DI
DR1 ac2 p DI
DF2 m ac2 DI
DR2 m ac1 DI
R1 p m {rload}
.ends bridge
.model DI D(IS=1e-15 N=0.001)
.options method=trap
.tran 1u 5m UIC
.end
";

/// The same bridge as two `arm` instances inside a `bridge`.
const BRIDGE_NESTED: &str = "diode bridge of nested subcircuits
C1 a 0 1u IC=10
L1 a 0 10m IC=0
X1 a 0 bridge params: rload=1k
.subckt arm in top bot
D1 in top DI
D2 bot in DI
.ends arm
.subckt bridge ac1 ac2 params: rload=10
XF ac1 p m arm
XR ac2 p m arm
R1 p m {rload}
.ends
.model DI D(IS=1e-15 N=0.001)
.options method=trap
.tran 1u 5m UIC
.end
";

#[test]
fn subcircuits_flatten_to_the_circuit_they_describe() {
    let flat = run(
        validate::load(&super::netlist_circuits::circuit("diode_bridge")).unwrap(),
        None,
        None,
    );
    let m = read(BRIDGE_X);
    let pairs: Vec<&str> = m.pairs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(pairs, ["X1_DF1_vr", "X1_DR1_i", "X1_DF2_i", "X1_DR2_i"]);
    let sub = run(m, None, None);
    for (ours, theirs) in [
        ("V_C1", "V_C1"),
        ("I_L1", "I_L1"),
        ("I_X1_R1", "I_R1"),
        ("V_X1_p", "V_p"),
    ] {
        assert_eq!(
            super::column(&sub, ours),
            super::column(&flat, theirs),
            "{ours}"
        );
    }
    let nested = run(read(BRIDGE_NESTED), None, None);
    for (ours, theirs) in [("V_C1", "V_C1"), ("I_L1", "I_L1"), ("I_X1_R1", "I_R1")] {
        let (a, b) = (super::column(&nested, ours), super::column(&flat, theirs));
        let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = a
            .iter()
            .zip(&b)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
            / scale;
        eprintln!("nested bridge {ours}: {err:.1e} from diode_bridge.cir");
        assert!(err < 1e-12, "{ours}: {err:e}");
    }
    // The instance's parameter replaces the definition's default.
    let default = read(&BRIDGE_X.replace(" params: rload=1k", ""));
    let r = |m: &Model| {
        let o = m.outputs.iter().find(|o| o.name == "I_X1_R1").unwrap();
        o.states.len() + o.pairs.len()
    };
    assert!(r(&default) > 0);
    assert_ne!(default.system, read(BRIDGE_X).system);
}

#[test]
fn save_and_probe_choose_the_outputs() {
    let m = read(
        "saved\nV1 in 0 SIN(0 1 50)\nR1 in a 1k\nD1 a b DI\nC1 b 0 1u\nR2 b 0 1k\n.model DI D\n.save v(a) i(R1)\n.probe V(in, b) i(C1)\n.tran 1u 1m\n",
    );
    let names: Vec<&str> = m.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["V_a", "I_R1", "I_D1", "V_D1", "I_C1", "V_in_b"]);
    let all = read("all\nV1 in 0 1\nR1 in a 1k\nC1 a 0 1u\n.save all\n");
    assert_eq!(all.outputs.len(), 5);
}

#[test]
fn linear_elements_and_subcircuits_agree_with_ngspice() {
    let efgh = file("efgh", EFGH);
    let Some(ng) = ngspice(&efgh) else {
        return;
    };
    eprintln!("circuit      variable  max |lcsfmu - ngspice|  bound");
    let t = run(read(EFGH), None, None);
    for (ours, theirs, scale) in [
        ("V_b", "v(b)", 2.0),
        ("V_c", "v(c)", 2.0),
        ("V_d", "v(d)", 3.0),
        ("V_f", "v(f)", 0.5),
    ] {
        let (d, at) = difference(&t, ours, &ng, theirs);
        let bound = 1e-3 * scale;
        eprintln!("efgh         {theirs:<8}  {d:.2e} (t = {at:.5})       {bound:.1e}");
        assert!(d <= bound, "efgh {ours}: {d:e} > {bound:e}");
    }
    // k = 0.9: the leakage time constant L2 (1 - k²)/R is 7.6 us, resolved
    // at h = 0.1 us (lcsfmu's linear interpolation between its steps is
    // part of the difference).
    let text = transformer("0.9");
    let ng = ngspice(&file("xfmr", &text)).unwrap();
    let t = run(read(&text), Some(1e-7), None);
    for (ours, theirs, scale) in [("V_s", "v(s)", 1.8), ("I_L1", "i(l1)", largest(&t, "I_L1"))] {
        let (d, at) = difference(&t, ours, &ng, theirs);
        let bound = 1e-3 * scale;
        eprintln!("transformer  {theirs:<8}  {d:.2e} (t = {at:.5})       {bound:.1e}");
        assert!(d <= bound, "transformer {ours}: {d:e} > {bound:e}");
    }
    let ng = ngspice(&file("nested", BRIDGE_NESTED)).unwrap();
    let h = 1e-7;
    let t = run(read(BRIDGE_NESTED), Some(h), None);
    let i = largest(&t, "I_X1_R1");
    let bound = 2.0 * exponential_drop(i) + 2.0 * h * i / 1e-6;
    for (ours, theirs) in [
        ("V_a", "v(a)"),
        ("V_X1_p", "v(x1.p)"),
        ("V_X1_m", "v(x1.m)"),
    ] {
        let (d, at) = difference(&t, ours, &ng, theirs);
        eprintln!("nested       {theirs:<8}  {d:.2e} (t = {at:.5})       {bound:.2e}");
        assert!(d <= bound, "nested bridge {ours}: {d:e} > {bound:e}");
    }
}
