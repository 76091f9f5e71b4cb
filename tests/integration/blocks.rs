//! The signal form and its blocks, through the core `Instance` and `simulate`:
//! lowering against the hand-written matrix models, the structure of the
//! lowered LCS, block outputs that follow inputs at once, and block
//! parameters checked at initialization. (The FMPy suite checks the block
//! models' trajectories against validation.md through the built FMUs.)

use super::{column, initialized, model, run};
use lcsfmu::instance::{Instance, Severity};
use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::{InputTable, Options};

fn signal_model(text: &str) -> Model {
    validate::from_str(text, std::path::Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}"))
}

/// Value reference of a variable by name.
fn vr(i: &Instance, name: &str) -> u32 {
    let vars = lcsfmu::instance::variables::variables(i.model());
    vars.iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}")) as u32
}

fn get(i: &mut Instance, name: &str) -> f64 {
    let r = vr(i, name);
    let mut v = [0.0];
    i.get_reals(&[r], &mut v).unwrap();
    v[0]
}

/// The RLC circuit of rlc_diode.toml written with derivatives and a diode block.
const RLC_SIGNALS: &str = r#"
[model]
name = "rlc_signals"
[experiment]
stop = 5.0
step = 0.001
[[parameters]]
name = "R"
value = 1.0
[[parameters]]
name = "L"
value = 1.0
[[parameters]]
name = "C"
value = 1.0
[[states]]
name = "i_L"
start = 1.0
der = "-q_C/(L*C) + u_D/L"
[[states]]
name = "q_C"
der = "i_L - q_C/(R*C) + u_D/R"
[[blocks]]
name = "u_D"
type = "diode"
input = "i_L - q_C/(R*C) + u_D/R"
"#;

#[test]
fn rlc_in_signal_form_reproduces_rlc_diode() {
    let matrix = run(model("rlc_diode"), Options::default());
    let signals = run(signal_model(RLC_SIGNALS), Options::default());
    assert_eq!(matrix.rows.len(), signals.rows.len());
    assert_eq!(matrix.header, signals.header);
    let worst = matrix
        .rows
        .iter()
        .zip(&signals.rows)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "largest difference {worst:e}");
}

/// `x = sin t` at the communication points.
fn sine(stop: f64, h: f64) -> InputTable {
    let n = (stop / h).round() as usize;
    let time: Vec<f64> = (0..=n).map(|k| k as f64 * h).collect();
    InputTable {
        names: vec!["x".into()],
        columns: vec![time.iter().map(|t| t.sin()).collect()],
        time,
    }
}

#[test]
fn saturated_integrator_block_equals_the_matrix_model() {
    let opts = || Options {
        inputs: Some(sine(10.0, 0.01)),
        ..Options::default()
    };
    let a = run(model("saturated_integrator"), opts());
    let b = run(model("saturated_integrator_blocks"), opts());
    for (name_a, name_b) in [("y", "y"), ("k", "y_lo"), ("l", "y_hi")] {
        let (ca, cb) = (column(&a, name_a), column(&b, name_b));
        let worst = ca
            .iter()
            .zip(&cb)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(worst <= 1e-12, "{name_a} vs {name_b}: {worst:e}");
    }
    // The same LCS, entry for entry.
    let (ma, mb) = (
        model("saturated_integrator"),
        model("saturated_integrator_blocks"),
    );
    assert_eq!(ma.system, mb.system);
}

#[test]
fn lowering_names_orders_and_flags_the_pairs() {
    let m = model("servo_deadzone");
    let names: Vec<&str> = m.pairs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["sat", "sat_lo", "sat_hi", "dzn", "dzn_lo", "dzn_hi"]
    );
    assert!(m.pairs.iter().all(|p| p.algebraic));
    // The two outputs are free pairs (equations); the ramps are one-sided.
    let free: Vec<bool> = m
        .pairs
        .iter()
        .map(|p| p.lo.as_constant() == Some(f64::NEG_INFINITY))
        .collect();
    assert_eq!(free, [true, false, false, true, false, false]);
    // Every pair follows the set-point r at once.
    assert!(m.pair_feedthrough().iter().all(|d| d == &[0]));

    // The friction force acts through the dynamics only: no feedthrough of F.
    let f = model("friction_block");
    assert!(f.pair_feedthrough().iter().all(|d| d.is_empty()));
    // Backlash and latch rates are step quantities; the latch's relay is static.
    let b = model("backlash_gear");
    assert!(b.pairs.iter().all(|p| !p.algebraic));
    let z = model("zero_crossing");
    let flags: Vec<(&str, bool)> = z
        .pairs
        .iter()
        .map(|p| (p.name.as_str(), p.algebraic))
        .collect();
    assert_eq!(flags, [("latch_on", true), ("latch_rate", false)]);
    assert_eq!(z.pair_feedthrough(), vec![vec![0], vec![]]);
    // Blocks with memory add a state with the block's name.
    assert_eq!(b.states[0].name, "y");
    assert_eq!(z.states[0].name, "latch");
}

#[test]
fn static_outputs_follow_an_input_set_between_steps() {
    let mut i = initialized(model("servo_deadzone"));
    let r = vr(&i, "r");
    i.do_step(0.0, 0.01).unwrap();
    let x_before = get(&mut i, "x");
    // A set-point far below: the controller saturates at -umax at once.
    i.set_reals(&[r], &[-10.0]).unwrap();
    assert_eq!(
        get(&mut i, "x"),
        x_before,
        "a state must not move before a step"
    );
    let u = 4.0 * (-10.0 - x_before) + 2.0 * get(&mut i, "z");
    assert_eq!(get(&mut i, "sat"), -1.5);
    assert!((get(&mut i, "sat_lo") - (-1.5 - u)).abs() <= 1e-12);
    assert_eq!(get(&mut i, "sat_hi"), 0.0);
    assert!((get(&mut i, "dzn") - (-1.3)).abs() <= 1e-12);
    // Back to the set-point of the step: the values are those of the step again.
    let mut again = initialized(model("servo_deadzone"));
    again.do_step(0.0, 0.01).unwrap();
    i.set_reals(&[r], &[1.0]).unwrap();
    for name in ["sat", "sat_lo", "sat_hi", "dzn", "dzn_lo", "dzn_hi"] {
        let (a, b) = (get(&mut i, name), get(&mut again, name));
        assert!((a - b).abs() <= 1e-12, "{name}: {a} vs {b}");
    }
}

#[test]
fn a_restored_state_repeats_reads_after_input_sets_bit_for_bit() {
    let mut i = initialized(model("servo_deadzone"));
    let r = vr(&i, "r");
    let all: Vec<u32> = (0..lcsfmu::instance::variables::kinds(i.model()).len() as u32).collect();
    let run = |i: &mut Instance, t0: f64| -> Vec<u64> {
        let mut out = vec![];
        let mut v = vec![0.0; all.len()];
        for k in 0..50 {
            let t = t0 + k as f64 * 0.01;
            i.set_reals(&[r], &[(3.0 * t).sin() * 4.0]).unwrap();
            i.get_reals(&all, &mut v).unwrap();
            out.extend(v.iter().map(|x| x.to_bits()));
            i.do_step(t, 0.01).unwrap();
        }
        out
    };
    run(&mut i, 0.0);
    let saved = i.snapshot();
    let first = run(&mut i, 0.5);
    i.restore(&saved).unwrap();
    assert_eq!(run(&mut i, 0.5), first);
}

#[test]
fn unsolvable_static_map_warns_and_keeps_the_outputs() {
    // A diode whose current is an input: a negative current has no solution.
    let m = signal_model(
        r#"
[model]
name = "diode_source"
[[inputs]]
name = "i"
start = 1.0
[[blocks]]
name = "v"
type = "diode"
input = "i"
"#,
    );
    let mut inst = initialized(m);
    let i = vr(&inst, "i");
    inst.do_step(0.0, 0.1).unwrap();
    let v = get(&mut inst, "v");
    let e = inst.set_reals(&[i], &[-1.0]).unwrap_err();
    assert_eq!(e.severity, Severity::Warning, "{e}");
    assert!(e.message.contains("keep their last values"), "{e}");
    assert_eq!(get(&mut inst, "v"), v);
    assert_eq!(get(&mut inst, "i"), -1.0, "the input itself is set");
}

#[test]
fn block_parameters_are_checked_at_initialization() {
    let mut i = Instance::new(model("servo_deadzone"), "{g}");
    let umax = vr(&i, "umax");
    i.setup_experiment(0.0, None).unwrap();
    i.set_reals(&[umax], &[-1.0]).unwrap();
    i.enter_initialization_mode().unwrap();
    let e = i.exit_initialization_mode().unwrap_err();
    assert_eq!(e.severity, Severity::Error);
    assert!(
        e.message.contains("block sat: lo <= hi does not hold"),
        "{e}"
    );
    i.reset().unwrap();
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i.do_step(0.0, 0.01).unwrap();
}

#[test]
fn an_algebraic_loop_of_blocks_is_solved_jointly() {
    // a reads b, b reads a (through c and d): one LCP per step resolves them.
    let m = signal_model(
        r#"
[model]
name = "loop4"
[experiment]
stop = 2.0
[[inputs]]
name = "w"
start = 0.7
[[states]]
name = "x"
der = "-x + a"
[[blocks]]
name = "a"
type = "saturation"
input = "w + 0.5*b - x"
lo = -1
hi = 1
[[blocks]]
name = "b"
type = "dead_zone"
input = "0.5*a + 0.25*d"
lo = -0.2
hi = 0.2
[[blocks]]
name = "c"
type = "abs"
input = "a - 1"
[[blocks]]
name = "d"
type = "max"
input = "c"
input2 = "0.1*b"
"#,
    );
    let t = run(m, Options::default());
    // Check every recorded instant against the block laws with the input held.
    let col = |n: &str| column(&t, n);
    let (a, b, c, d, x) = (col("a"), col("b"), col("c"), col("d"), col("x"));
    for k in 1..t.rows.len() {
        let sat = (0.7 + 0.5 * b[k] - x[k]).clamp(-1.0, 1.0);
        let e_b = 0.5 * a[k] + 0.25 * d[k];
        let dz = e_b - e_b.clamp(-0.2, 0.2);
        let checks = [
            (a[k], sat),
            (b[k], dz),
            (c[k], (a[k] - 1.0).abs()),
            (d[k], c[k].max(0.1 * b[k])),
        ];
        for (got, want) in checks {
            assert!(
                (got - want).abs() <= 1e-12,
                "t = {}: {got} vs {want}",
                t.rows[k][0]
            );
        }
    }
}

#[test]
fn a_refused_fmu_state_leaves_the_matrices_alone() {
    // A state whose parameters break the model is refused, whether a block
    // condition catches it (umax < 0 makes lo > hi) or an entry of C overflows
    // half way through assembly (kp = inf); the instance then steps exactly as
    // one that never saw it.
    let names = lcsfmu::instance::variables::kinds(&model("servo_deadzone")).len() as u32;
    let all: Vec<u32> = (0..names).collect();
    for (param, value, why) in [
        ("umax", -1.0, "lo <= hi does not hold"),
        ("kp", f64::INFINITY, "evaluates to inf"),
    ] {
        let mut reference = initialized(model("servo_deadzone"));
        let mut i = initialized(model("servo_deadzone"));
        let mut bad = i.snapshot();
        bad.params[vr(&i, param) as usize - 1] = value;
        let e = i.restore(&bad).unwrap_err();
        assert!(e.message.contains(why), "{e}");
        let (mut a, mut b) = (vec![0.0; all.len()], vec![0.0; all.len()]);
        for k in 0..100 {
            let t = k as f64 * 0.01;
            i.do_step(t, 0.01).unwrap();
            reference.do_step(t, 0.01).unwrap();
            i.get_reals(&all, &mut a).unwrap();
            reference.get_reals(&all, &mut b).unwrap();
            assert_eq!(a, b, "{param}: step {k}");
        }
    }
}
