//! The bundled models against the known answers of `../shared/validation.md`.
//! Same scheme and step: 1e-9 relative, discrete outcomes exact. Exact
//! solutions: the O(h) bounds stated there.

use super::{close, column, model, model_edited, run};
use lcsfmu::tool::simulate::{InputTable, Options};

fn opts(stop: f64, step: f64) -> Options {
    Options {
        stop: Some(stop),
        step: Some(step),
        ..Options::default()
    }
}

/// First index from which every listed column stays within 1e-12 of zero.
fn first_zero(cols: &[Vec<f64>]) -> Option<usize> {
    let n = cols[0].len();
    (0..n).find(|&k| (k..n).all(|i| cols.iter().all(|c| c[i].abs() <= 1e-12)))
}

#[test]
fn sign_spiral_h_0_2_lands_on_the_origin_at_step_4() {
    let t = run(model("sign_spiral"), opts(2.0, 0.2));
    let (x1, x2) = (column(&t, "x1"), column(&t, "x2"));
    let want = [(-1.0, 1.0), (-0.4, 1.2), (0.0, 1.0), (0.2, 0.4), (0.0, 0.0)];
    for (k, (a, b)) in want.iter().enumerate() {
        assert!(
            close(x1[k], *a, 1e-9) && close(x2[k], *b, 1e-9),
            "x_{k} = ({}, {})",
            x1[k],
            x2[k]
        );
    }
    assert_eq!(first_zero(&[x1, x2]), Some(4));
    assert_eq!(t.rows.len(), 11);
}

#[test]
fn sign_spiral_h_0_01_first_zero_96() {
    let t = run(model("sign_spiral"), opts(2.0, 0.01));
    let (x1, x2) = (column(&t, "x1"), column(&t, "x2"));
    assert!(
        close(x1[50], 0.16, 1e-9) && close(x2[50], 0.82, 1e-9),
        "x_50 = ({}, {})",
        x1[50],
        x2[50]
    );
    let k = first_zero(&[x1, x2]).unwrap();
    assert_eq!(k, 96);
    // Backward Euler reaches the origin early, by at most 5h (exact t* = 1).
    let t_zero = column(&t, "time")[k];
    assert!((1.0 - 5.0 * 0.01..=1.0).contains(&t_zero), "{t_zero}");
}

#[test]
fn sign_spiral_sub_steps_equal_small_communication_steps() {
    // max_step = 0.01 inside communication steps of 0.2 takes 20 equal sub-steps.
    let sub = run(
        model_edited(
            "sign_spiral",
            "step = 0.2",
            "step = 0.2\n[scheme]\nmax_step = 0.01",
        ),
        opts(2.0, 0.2),
    );
    let fine = run(model("sign_spiral"), opts(2.0, 0.01));
    for name in ["x1", "x2"] {
        let (a, b) = (column(&sub, name), column(&fine, name));
        for k in 0..a.len() {
            assert!(
                (a[k] - b[20 * k]).abs() <= 1e-12,
                "{name} at {k}: {} vs {}",
                a[k],
                b[20 * k]
            );
        }
    }
}

#[test]
fn coulomb_friction_sticks_at_step_6_with_h_0_2() {
    let t = run(model("coulomb_friction"), opts(5.0, 0.2));
    let (v, x, f) = (column(&t, "v"), column(&t, "x"), column(&t, "F_f"));
    for (k, want) in [100.0, 80.38, 60.76, 41.14, 21.52, 1.90].iter().enumerate() {
        assert!(close(v[k], *want, 1e-9), "v_{k} = {}", v[k]);
        assert!(close(f[k], -9810.0, 1e-9), "F_f_{k} = {}", f[k]);
    }
    assert_eq!(first_zero(&[v]), Some(6));
    assert!(close(*x.last().unwrap(), 41.14, 1e-9));
}

#[test]
fn coulomb_friction_stick_steps_for_h_0_1_and_0_01() {
    for (h, step, x_end) in [(0.1, 11, 46.045), (0.01, 102, 50.46869)] {
        let t = run(model("coulomb_friction"), opts(5.0, h));
        assert_eq!(first_zero(&[column(&t, "v")]), Some(step), "h = {h}");
        let x = *column(&t, "x").last().unwrap();
        assert!((x - x_end).abs() <= 1e-5 * x_end, "h = {h}: x = {x}");
        // Exact: stops at v0/(mu g) = 1.0193680 s after x = 50.968400 m; O(h) off.
        assert!((x - 50.9684).abs() <= 100.0 * h * 1.0, "h = {h}: x = {x}");
    }
}

#[test]
fn coulomb_friction_parameters_change_the_stop() {
    let mut o = opts(5.0, 0.01);
    o.sets = vec![("mu".into(), 5.0)];
    let t = run(model("coulomb_friction"), o);
    let k = first_zero(&[column(&t, "v")]).unwrap();
    let t_stop = column(&t, "time")[k];
    let exact = 100.0 / (5.0 * 9.81);
    assert!((t_stop - exact).abs() <= 2.0 * 0.01, "{t_stop} vs {exact}");
}

/// Exact solution of validation.md §4 at t = 1, 2, 5: (i_L, q_C).
const RLC_EXACT: [(f64, f64, f64); 3] = [
    (1.0, 0.65970015, 0.53350720),
    (2.0, 0.24773387, 0.54629302),
    (5.0, 0.01233394, 0.54629302),
];

fn rlc_errors(theta: f64) -> Vec<f64> {
    let m = if theta == 1.0 {
        model("rlc_diode")
    } else {
        model_edited(
            "rlc_diode",
            "step = 0.001",
            &format!("step = 0.001\n[scheme]\ntheta = {theta}"),
        )
    };
    let t = run(m, opts(5.0, 1e-3));
    let (time, i, q) = (column(&t, "time"), column(&t, "i_L"), column(&t, "q_C"));
    RLC_EXACT
        .iter()
        .map(|(te, ie, qe)| {
            let k = time.iter().position(|tk| (tk - te).abs() < 1e-9).unwrap();
            (i[k] - ie).abs().max((q[k] - qe).abs())
        })
        .collect()
}

#[test]
fn rlc_diode_backward_euler_error_is_3_3e_4() {
    for e in rlc_errors(1.0) {
        assert!(e <= 0.55 * 1e-3, "error {e}");
        assert!((e - 3.30e-4).abs() <= 0.1e-4, "error {e}");
    }
}

#[test]
fn rlc_diode_trapezoidal_is_second_order_before_the_switch() {
    let e = rlc_errors(0.5);
    assert!(e[0] <= 1e-7, "t = 1: {}", e[0]);
    assert!(e[1] <= 0.55 * 1e-3 && e[2] <= 0.55 * 1e-3, "{e:?}");
}

#[test]
fn rlc_diode_keeps_complementarity() {
    let t = run(model("rlc_diode"), opts(5.0, 1e-3));
    let (time, i, q, u) = (
        column(&t, "time"),
        column(&t, "i_L"),
        column(&t, "q_C"),
        column(&t, "u_D"),
    );
    for k in 1..time.len() {
        let y = i[k] - q[k] + u[k];
        assert!(
            u[k] >= 0.0 && y >= -1e-9 && (u[k] * y).abs() <= 1e-9,
            "t = {}: u = {}, y = {y}",
            time[k],
            u[k]
        );
        if time[k] > 1.25 {
            assert!(u[k] > 0.0, "diode should block at t = {}", time[k]);
        }
    }
}

/// `x = sin t` sampled at the communication points of a run.
fn sine_input(stop: f64, h: f64) -> InputTable {
    let n = (stop / h).round() as usize;
    let time: Vec<f64> = (0..=n).map(|k| k as f64 * h).collect();
    InputTable {
        names: vec!["x".into()],
        columns: vec![time.iter().map(|t| t.sin()).collect()],
        time,
    }
}

#[test]
fn saturated_integrator_is_the_clamped_euler_recursion_and_the_stop_operator() {
    let h = 0.01;
    let o = Options {
        inputs: Some(sine_input(10.0, h)),
        ..opts(10.0, h)
    };
    let t = run(model("saturated_integrator"), o);
    let (time, y) = (column(&t, "time"), column(&t, "y"));
    let mut yr = 0.0f64;
    for k in 1..y.len() {
        yr = (yr + h * time[k - 1].sin()).clamp(-0.5, 0.5);
        assert!((y[k] - yr).abs() <= 1e-12, "k = {k}: {} vs {yr}", y[k]);
        assert!((-0.5..=0.5).contains(&y[k]));
    }
    // The stop operator; the input is held one step late, and Euler adds O(h):
    // |error| <= h max|x| + h max|x'| t-independent (the operator is 1-Lipschitz
    // in its input in the sup norm), so 2h is a safe bound.
    for (te, ye) in [
        (1.0, 0.45969769),
        (4.0, 0.15364362),
        (5.0, -0.5),
        (7.0, -0.25390225),
        (10.0, 0.33907153),
    ] {
        let k = time.iter().position(|tk| (tk - te).abs() < 1e-9).unwrap();
        assert!((y[k] - ye).abs() <= 2.0 * h, "y({te}) = {} vs {ye}", y[k]);
    }
}
