//! The bundled circuits against their references:
//!
//! - `models/diode_bridge.cir` against Siconos' `DiodeBridge.ref` (the same
//!   theta = 1/2 and h = 1 us; `tests/data/diode_bridge_siconos.csv`, every
//!   10th row) and against the matrix model of the same circuit
//!   (`tests/data/diode_bridge_theta_gamma.toml` at its plain scheme):
//!   states, diode currents and voltages and the load current within 1e-12
//!   of each column's largest magnitude (measured: 2.2e-13);
//! - `models/bridge_cap_filter.cir` against Siconos' `DiodeBridgeCapFilter.ref`
//!   (theta = 1, h = 1 us; `tests/data/bridge_cap_filter_siconos.csv`, every
//!   10th row): the tank's states and DR1's and DF1's currents within 1e-12
//!   of each column's largest magnitude; DR1's and DF2's voltages within
//!   1e-11 V while a diode conducts, and, while the whole bridge blocks (its
//!   nodes then float and the voltages are not unique), Siconos' voltages a
//!   solution of lcsfmu's circuit to 1e-11 V;
//! - `models/half_wave.cir` against the closed form: the diode opens at
//!   `w t = pi - atan(w R C)` and the capacitor then decays as
//!   `e^(-t/RC)` until the source catches up;
//! - both against ngspice (`ngspice -b`, when installed), which runs the
//!   same files with their near-ideal exponential diode (`IS=1e-15
//!   N=0.001`). The tolerance is derived from the two differences between
//!   the runs: the device (an exponential diode conducting current `I`
//!   drops `N Vt ln(1 + I/IS)`, 0.8 mV at 40 mA, where lcsfmu's drops
//!   nothing) and lcsfmu's time step (a commutation lands on a step's end,
//!   up to `h` late, and the derivative that jumps there is at most
//!   `I/C`): `|Δv| <= N Vt ln(1 + I/IS) (per conducting diode) + 2 h I/C`.

use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::{self, Options, Trajectory};
use std::path::{Path, PathBuf};

pub(super) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn circuit(stem: &str) -> PathBuf {
    root().join("models").join(format!("{stem}.cir"))
}

pub(super) fn run(m: Model, step: Option<f64>, stop: Option<f64>) -> Trajectory {
    let opts = Options {
        step,
        stop,
        ..Options::default()
    };
    let t = simulate::run(m, "{g}", &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.failure, None);
    t
}

/// Columns of a CSV with `#` comments, by header name.
pub(super) fn csv(path: &Path) -> Vec<(String, Vec<f64>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let mut cols: Vec<(String, Vec<f64>)> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|h| (h.to_string(), Vec::new()))
        .collect();
    for l in lines {
        for (c, v) in cols.iter_mut().zip(l.split(',')) {
            c.1.push(v.parse::<f64>().unwrap());
        }
    }
    cols
}

/// The largest difference, relative to `theirs`' largest magnitude.
pub(super) fn relative(ours: &[f64], theirs: &[f64]) -> f64 {
    assert_eq!(ours.len(), theirs.len());
    let scale = theirs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let worst = ours
        .iter()
        .zip(theirs)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    worst / scale
}

#[test]
fn diode_bridge_reproduces_siconos_reference() {
    let m = validate::load(&circuit("diode_bridge")).unwrap();
    let t = run(m, None, Some(4.999e-3));
    let reference = csv(&root().join("tests/data/diode_bridge_siconos.csv"));
    let every_tenth = |v: Vec<f64>| v.into_iter().step_by(10).collect::<Vec<_>>();
    for (ours, theirs, skip_first) in [
        ("time", "time", false),
        ("V_C1", "vC", false),
        ("I_L1", "iL", false),
        ("I_DR1", "i_DR1", true),
        ("V_DR1", "v_DR1", true),
        ("V_DF2", "v_DF2", true),
        ("I_DF1", "i_DF1", true),
        ("I_R1", "i_R", true),
    ] {
        let col = every_tenth(super::column(&t, ours));
        let theirs = &reference.iter().find(|c| c.0 == theirs).unwrap().1;
        // Siconos writes zero multipliers before its first step; lcsfmu
        // the consistent ones.
        let from = usize::from(skip_first);
        let err = relative(&col[from..], &theirs[from..]);
        eprintln!("DiodeBridge {ours:>6}: {err:.1e} from Siconos");
        assert!(err < 1e-12, "{ours}: {err:e} from Siconos");
    }
}

#[test]
fn bridge_cap_filter_reproduces_siconos_reference() {
    let m = validate::load(&circuit("bridge_cap_filter")).unwrap();
    assert_eq!(m.scheme.theta, 1.0);
    let t = run(m, None, Some(4.999e-3));
    let reference = csv(&root().join("tests/data/bridge_cap_filter_siconos.csv"));
    let every_tenth = |name: &str| {
        super::column(&t, name)
            .into_iter()
            .step_by(10)
            .collect::<Vec<_>>()
    };
    let theirs = |name: &str| &reference.iter().find(|c| c.0 == name).unwrap().1;
    // The states and the currents are unique.
    for (ours, name, skip_first) in [
        ("time", "time", false),
        ("V_C1", "vC", false),
        ("I_L1", "iL", false),
        ("I_DR1", "i_DR1", true),
        ("I_DF1", "i_DF1", true),
    ] {
        let col = every_tenth(ours);
        let theirs = theirs(name);
        assert_eq!(col.len(), theirs.len(), "{ours}");
        // Siconos writes zero multipliers before its first step.
        let from = usize::from(skip_first);
        let err = relative(&col[from..], &theirs[from..]);
        eprintln!("DiodeBridgeCapFilter {ours:>6}: {err:.1e} from Siconos");
        assert!(err < 1e-12, "{ours}: {err:e} from Siconos");
    }
    // The diodes' voltages are unique while a diode conducts (it ties p or
    // m to the tank or the ground, and V(p) - V(m) = V_CF). While all four
    // block, p and m float together: any V(m) that keeps the four reverse
    // voltages >= 0 is a solution, and the two LCP solvers may pick
    // different ones. There, Siconos' voltages must still be a solution
    // of lcsfmu's circuit: V(p) = V(m) + V_CF with lcsfmu's V_CF, and every
    // diode reverse-biased with lcsfmu's V_C1.
    let (v_dr1, v_df2) = (theirs("v_DR1"), theirs("v_DF2"));
    let (our_dr1, our_df2) = (every_tenth("V_DR1"), every_tenth("V_DF2"));
    let (vc, vcf) = (every_tenth("V_C1"), every_tenth("V_CF"));
    let currents: Vec<Vec<f64>> = ["I_DF1", "I_DR1", "I_DF2", "I_DR2"]
        .iter()
        .map(|n| every_tenth(n))
        .collect();
    let scale = currents
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let (mut unique, mut blocked, mut worst_unique, mut worst_blocked) = (0, 0, 0.0f64, 0.0f64);
    for k in 1..vc.len() {
        // Above rounding: a current of 1e-16 A is a blocking diode's.
        let conducting = currents.iter().any(|c| c[k] > 1e-12 * scale);
        if conducting {
            unique += 1;
            let d = (our_dr1[k] - v_dr1[k])
                .abs()
                .max((our_df2[k] - v_df2[k]).abs());
            worst_unique = worst_unique.max(d);
        } else {
            blocked += 1;
            // V(m) = v_DF2, V(p) = -v_DR1.
            let identity = (-v_dr1[k] - (v_df2[k] + vcf[k])).abs();
            let reverse = [-v_df2[k], -v_dr1[k], -v_dr1[k] - vc[k], vc[k] - v_df2[k]];
            let violation = reverse.iter().fold(0.0f64, |m, r| m.max(-r));
            worst_blocked = worst_blocked.max(identity).max(violation);
        }
    }
    eprintln!(
        "DiodeBridgeCapFilter diode voltages: {unique} rows with a diode conducting, |lcsfmu - Siconos| <= {worst_unique:.1e} V; {blocked} rows with the bridge blocking, Siconos' voltages a solution of lcsfmu's circuit to {worst_blocked:.1e} V"
    );
    assert!(unique > 100 && blocked > 100, "{unique} {blocked}");
    assert!(worst_unique < 1e-11, "{worst_unique:e}");
    assert!(worst_blocked < 1e-11, "{worst_blocked:e}");
}

#[test]
fn diode_bridge_equals_the_matrix_model_of_the_same_circuit() {
    let netlist = run(
        validate::load(&circuit("diode_bridge")).unwrap(),
        None,
        None,
    );
    let matrices = run(
        validate::load(&root().join("tests/data/diode_bridge_theta_gamma.toml")).unwrap(),
        None,
        Some(5e-3),
    );
    for (ours, theirs) in [("V_C1", "vC"), ("I_L1", "iL"), ("I_DF1", "l2")] {
        let (a, b) = (
            super::column(&netlist, ours),
            super::column(&matrices, theirs),
        );
        let err = relative(&a, &b);
        eprintln!("DiodeBridge {ours:>6} against the matrix model: {err:.1e}");
        assert!(err < 1e-12, "{ours}: {err:e}");
    }
}

/// The half-wave rectifier's closed form, under backward Euler at two steps.
#[test]
fn half_wave_opens_and_decays_as_the_closed_form_says() {
    let (vm, w, r, c) = (10.0, 2.0 * std::f64::consts::PI * 50.0, 1e3, 10e-6);
    let rc = r * c;
    let t_off = (std::f64::consts::PI - (w * rc).atan()) / w;
    let v_off = vm * (w * t_off).sin();
    // The next period's turn-on: vm sin(w t) = v_off e^(-(t - t_off)/RC).
    let gap = |t: f64| vm * (w * t).sin() - v_off * (-(t - t_off) / rc).exp();
    let (mut a, mut b) = (0.02, 0.025);
    for _ in 0..200 {
        let mid = 0.5 * (a + b);
        if gap(a) * gap(mid) <= 0.0 {
            b = mid;
        } else {
            a = mid;
        }
    }
    let t_on = b;
    for h in [1e-5, 1e-6] {
        let t = run(
            validate::load(&circuit("half_wave")).unwrap(),
            Some(h),
            Some(0.03),
        );
        let (time, v, i) = (
            super::column(&t, "time"),
            super::column(&t, "V_C1"),
            super::column(&t, "I_D1"),
        );
        let first_off = (1..time.len()).find(|&k| i[k] <= 0.0).unwrap();
        let first_on = (first_off..time.len()).find(|&k| i[k] > 0.0).unwrap();
        eprintln!(
            "half wave h = {h:e}: off at {:.7} (exact {t_off:.7}), on at {:.7} (exact {t_on:.7})",
            time[first_off], time[first_on]
        );
        // Turn-on: the first step ending past the instant. Turn-off: the
        // current falls to zero continuously, and backward Euler's
        // derivative lags the exact one by about h v''/2, which moves the
        // current's zero later by C Vm w^2 h / (2 |di/dt|), half a step
        // here: within two steps.
        assert!(time[first_off] >= t_off && time[first_off] - t_off <= 2.0 * h);
        assert!(time[first_on] >= t_on && time[first_on] - t_on <= h * 1.000001);
        // Conducting, the ideal diode ties the capacitor to the source.
        let mut tied = 0.0f64;
        let mut decay = 0.0f64;
        for k in 1..time.len() {
            let tk = time[k];
            if tk < t_off - h {
                tied = tied.max((v[k] - vm * (w * tk).sin()).abs());
            } else if tk > t_off + h && tk < t_on - h {
                decay = decay.max((v[k] - v_off * (-(tk - t_off) / rc).exp()).abs());
            }
        }
        // Backward Euler on v' = -v/RC: a local error h^2 v/(2 RC^2) per
        // step over the decay's (t_on - t_off)/h steps.
        let bound = h * (t_on - t_off) * v_off / (2.0 * rc * rc);
        eprintln!("  conducting |v - V| <= {tied:.1e}; decaying {decay:.2e} (bound {bound:.2e})");
        assert!(tied <= 1e-12, "{tied:e}");
        assert!(decay <= bound, "{decay:e} > {bound:e}");
    }
}

/// ngspice's result of a netlist: the ASCII raw file's columns by name.
pub(super) fn ngspice(file: &Path) -> Option<Vec<(String, Vec<f64>)>> {
    let probe = std::process::Command::new("ngspice")
        .arg("--version")
        .output();
    if probe.is_err() {
        eprintln!("ngspice is not installed: the comparison is skipped");
        return None;
    }
    // A directory per call: tests running the same netlist at once must not
    // share ngspice's output file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "lcsfmu-ngspice-{}-{call}-{}",
        std::process::id(),
        file.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".spiceinit"), "set filetype=ascii\n").unwrap();
    let out = std::process::Command::new("ngspice")
        .current_dir(&dir)
        .args(["-b", "-r", "out.raw"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ngspice failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("out.raw")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let mut lines = text.lines();
    let mut names = Vec::new();
    for l in lines.by_ref() {
        if l.starts_with("Values:") {
            break;
        }
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 3 && f[0].is_empty() {
            names.push(f[2].to_string());
        }
    }
    let numbers: Vec<f64> = lines
        .flat_map(|l| l.split_whitespace().collect::<Vec<_>>())
        .map(|w| w.parse().unwrap())
        .collect();
    let width = names.len() + 1;
    let mut cols: Vec<(String, Vec<f64>)> = names.into_iter().map(|n| (n, Vec::new())).collect();
    for point in numbers.chunks(width) {
        for (c, v) in cols.iter_mut().zip(&point[1..]) {
            c.1.push(*v);
        }
    }
    Some(cols)
}

/// The largest difference of ours (interpolated linearly) to ngspice's at
/// ngspice's time points, and where.
pub(super) fn difference(
    t: &Trajectory,
    ours: &str,
    ng: &[(String, Vec<f64>)],
    theirs: &str,
) -> (f64, f64) {
    let time = super::column(t, "time");
    let v = super::column(t, ours);
    let ng_time = &ng.iter().find(|c| c.0 == "time").unwrap().1;
    let ng_v = &ng
        .iter()
        .find(|c| c.0 == theirs)
        .unwrap_or_else(|| panic!("ngspice has no {theirs}"))
        .1;
    let (mut worst, mut at) = (0.0f64, 0.0);
    for (&s, &x) in ng_time.iter().zip(ng_v) {
        let k = time.partition_point(|&tk| tk <= s);
        if k == 0 || k >= time.len() {
            continue;
        }
        let (t0, t1) = (time[k - 1], time[k]);
        let ours_at = v[k - 1] + (v[k] - v[k - 1]) * (s - t0) / (t1 - t0);
        if (ours_at - x).abs() > worst {
            (worst, at) = ((ours_at - x).abs(), s);
        }
    }
    (worst, at)
}

/// The forward voltage of ngspice's diode at current `i`: `N Vt ln(1 + i/IS)`
/// with the bundled files' `IS = 1e-15`, `N = 0.001`, at ngspice's 27 °C.
pub(super) fn exponential_drop(i: f64) -> f64 {
    let vt = 1.380649e-23 * 300.15 / 1.602176634e-19;
    0.001 * vt * (1.0 + i / 1e-15).ln()
}

pub(super) fn largest(t: &Trajectory, name: &str) -> f64 {
    super::column(t, name)
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()))
}

#[test]
fn bundled_circuits_agree_with_ngspice_within_the_device_and_step_differences() {
    for stem in ["half_wave", "diode_bridge", "bridge_cap_filter"] {
        let text = std::fs::read_to_string(circuit(stem)).unwrap();
        assert!(text.contains(".model DI D(IS=1e-15 N=0.001)"), "{stem}");
    }
    let Some(hw) = ngspice(&circuit("half_wave")) else {
        return;
    };
    eprintln!("circuit       h (lcsfmu)  variable  max |lcsfmu - ngspice|  bound");
    for h in [1e-5, 1e-6] {
        let t = run(
            validate::load(&circuit("half_wave")).unwrap(),
            Some(h),
            None,
        );
        let i = largest(&t, "I_D1");
        let c = 10e-6;
        let bound = exponential_drop(i) + 2.0 * h * i / c;
        let (d, at) = difference(&t, "V_out", &hw, "v(out)");
        eprintln!("half_wave     {h:<10e}  V(out)    {d:.2e} (t = {at:.5})       {bound:.2e}");
        assert!(d <= bound, "half_wave h = {h:e}: {d:e} > {bound:e}");
    }
    let db = ngspice(&circuit("diode_bridge")).unwrap();
    for h in [1e-6, 1e-7] {
        let t = run(
            validate::load(&circuit("diode_bridge")).unwrap(),
            Some(h),
            None,
        );
        let i = largest(&t, "I_R1");
        let c = 1e-6;
        // Two diodes conduct at a time.
        let bound = 2.0 * exponential_drop(i) + 2.0 * h * i / c;
        for (ours, theirs) in [("V_a", "v(a)"), ("V_p", "v(p)"), ("V_m", "v(m)")] {
            let (d, at) = difference(&t, ours, &db, theirs);
            eprintln!(
                "diode_bridge  {h:<10e}  {theirs:<8}  {d:.2e} (t = {at:.5})       {bound:.2e}"
            );
            assert!(
                d <= bound,
                "diode_bridge h = {h:e} {ours}: {d:e} > {bound:e}"
            );
        }
        // The inductor's current integrates the voltage's difference:
        // at most T bound / L over the run.
        let (d, at) = difference(&t, "I_L1", &db, "i(l1)");
        let current_bound = 5e-3 * bound / 10e-3;
        eprintln!(
            "diode_bridge  {h:<10e}  i(l1)     {d:.2e} (t = {at:.5})       {current_bound:.2e}"
        );
        assert!(d <= current_bound, "{d:e} > {current_bound:e}");
    }
    // The filtered bridge at theta = 1: backward Euler's own error on the
    // tank (an O(h) phase drift, w^2 h T/2 of the amplitude over the run,
    // 0.16 of it at h = 1 us) would swamp the device difference, so the
    // comparison is at h = 1e-8, where it is 5e-4 of 10 V.
    let bcf = ngspice(&circuit("bridge_cap_filter")).unwrap();
    let h = 1e-8;
    let t = run(
        validate::load(&circuit("bridge_cap_filter")).unwrap(),
        Some(h),
        Some(1e-3),
    );
    // The largest current after the first 10 us: the empty filter's
    // charging impulse at t = 0 is 10 V C_F / h (300 A at h = 1e-8) in
    // lcsfmu, and not a current either run resolves.
    let time = super::column(&t, "time");
    let i = ["I_DF1", "I_DR1", "I_DF2", "I_DR2"]
        .iter()
        .flat_map(|n| {
            super::column(&t, n)
                .into_iter()
                .zip(&time)
                .filter(|(_, &s)| s >= 1e-5)
                .map(|(v, _)| v.abs())
                .collect::<Vec<_>>()
        })
        .fold(0.0f64, f64::max);
    let w = 1.0 / (10e-3f64 * 1e-6).sqrt();
    let bound = 2.0 * exponential_drop(i) + 2.0 * h * i / 300e-9 + 10.0 * w * w * h * 1e-3 / 2.0;
    // V(p) and V(m) alone float while the bridge blocks; their difference
    // is the filter's state.
    let mut bcf = bcf;
    let column = |n: &str| bcf.iter().find(|c| c.0 == n).unwrap().1.clone();
    let filter: Vec<f64> = column("v(p)")
        .iter()
        .zip(column("v(m)"))
        .map(|(p, m)| p - m)
        .collect();
    bcf.push(("v(p)-v(m)".into(), filter));
    for (ours, theirs) in [("V_a", "v(a)"), ("V_CF", "v(p)-v(m)")] {
        let (d, at) = difference(&t, ours, &bcf, theirs);
        eprintln!(
            "bridge_cap_filter {h:<10e}  {theirs:<8}  {d:.2e} (t = {at:.5})       {bound:.2e}"
        );
        assert!(d <= bound, "bridge_cap_filter {ours}: {d:e} > {bound:e}");
    }
}

/// `models/buck.cir` against ngspice over the whole millisecond (the start
/// transient and the steady ripple), column by column: the output voltage
/// and the inductor's current, at the netlist's scheme (backward Euler,
/// its `.tran` step h = 0.1 us). ngspice's own error is below what matters
/// here: the same file with `.options reltol=1e-6 abstol=1e-12 vntol=1e-9`
/// moves its V(out) by under 1e-8 V.
///
/// The bound of each column adds what differs between the runs:
/// - the device: ngspice's diode drops `N Vt ln(1 + I/IS)` (under 1 mV at
///   the 1.3 A peak) while it freewheels, lcsfmu's nothing; into the
///   output voltage at most that drop, into the current that drop over L
///   for the whole run;
/// - the scheme: backward Euler's global error on the LC filter, at most
///   `h/2 max|x''|` per unit time, damped with the filter's time constant
///   `2RC`: `h/2 (Vin/L)/C 2RC` for the voltage (`vC'' <= iL'/C`,
///   `iL' <= Vin/L`) and `h/2 (Vin/L)/(RC) 2RC` for the current (6.0e-2 V
///   and 1.2e-2 A); a switch edge inside a step is seen at the step's end,
///   up to h late, which this term covers (`h Vin/L` of current per edge,
///   alternating in sign).
#[test]
fn buck_agrees_with_ngspice_within_the_device_and_scheme_differences() {
    let path = circuit("buck");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(".model DI D(IS=1e-15 N=0.001)"));
    let Some(ng) = ngspice(&path) else {
        return;
    };
    let (vin, l, c, r, stop) = (12.0, 100e-6, 10e-6, 5.0, 1e-3);
    let model = validate::load(&path).unwrap();
    let h = model.experiment.step;
    assert_eq!(h, 1e-7);
    let t = run(model, None, None);
    let i = largest(&t, "I_L1");
    let drop = exponential_drop(i);
    let v_bound = drop + h / 2.0 * (vin / l) / c * 2.0 * r * c;
    let i_bound = drop * stop / l + h / 2.0 * (vin / l) / (r * c) * 2.0 * r * c;
    eprintln!("column  max |lcsfmu - ngspice|  bound");
    for (ours, theirs, bound) in [("V_out", "v(out)", v_bound), ("I_L1", "i(l1)", i_bound)] {
        let (d, at) = difference(&t, ours, &ng, theirs);
        eprintln!("{theirs:<6}  {d:.2e} (t = {at:.6})      {bound:.2e}");
        assert!(d <= bound, "buck {ours}: {d:e} > {bound:e}");
    }
    // The mean output over the last 0.1 ms is d Vin within the ripple.
    let time = super::column(&t, "time");
    let v = super::column(&t, "V_out");
    let last: Vec<f64> = v
        .iter()
        .zip(&time)
        .filter(|(_, s)| **s > 0.9e-3)
        .map(|(v, _)| *v)
        .collect();
    let mean = last.iter().sum::<f64>() / last.len() as f64;
    assert!((mean - 6.0).abs() <= 0.0375, "mean {mean}");
}

/// The event-driven scheme on the same buck converter: its modes are exact
/// between the gate's time events and the diode's commutations, so against
/// ngspice only the device's difference is left (the diode's forward drop,
/// into the voltage at most that drop and into the current that drop over L
/// for the whole run), with ngspice's own truncation error on top (its
/// default tolerances, 1e-3 relative). Its first step used to fail: the
/// selection LCP's step of 1e-8 s reached a hundred time constants of the
/// inductor behind the open switch (L / ROFF = 1e-10 s) and turned the
/// diode's row negative; the step is now shortened on stiff models.
#[test]
fn buck_event_driven_agrees_with_ngspice_within_the_device_difference() {
    let path = circuit("buck");
    let Some(ng) = ngspice(&path) else {
        return;
    };
    let (l, stop) = (100e-6, 1e-3);
    let mut model = validate::load(&path).unwrap();
    model.scheme.method = lcsfmu::model::Method::EventDriven;
    let t = run(model, None, None);
    let i = largest(&t, "I_L1");
    let drop = exponential_drop(i);
    let spice = 1e-3;
    let v_bound = drop + spice * largest(&t, "V_out");
    let i_bound = drop * stop / l + spice * i;
    eprintln!("column  max |lcsfmu event-driven - ngspice|  bound");
    for (ours, theirs, bound) in [("V_out", "v(out)", v_bound), ("I_L1", "i(l1)", i_bound)] {
        let (d, at) = difference(&t, ours, &ng, theirs);
        eprintln!("{theirs:<6}  {d:.2e} (t = {at:.6})      {bound:.2e}");
        assert!(d <= bound, "buck event-driven {ours}: {d:e} > {bound:e}");
    }
}
