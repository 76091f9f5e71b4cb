//! `method = "zoh"`, the zero-order hold (Siconos' `ZeroOrderHoldOSI`): the
//! linear part's exact flow over each step with the multipliers, inputs and
//! sources held, complementarity at the step's end.
//!
//! - `rlc_diode` under zoh is the same recursion written out here, with the
//!   flow from a Taylor series of the block matrix (not nalgebra's Padé) and the
//!   scalar LCP solved in closed form: every step to 1e-14 (measured 4.4e-16);
//! - before the diode's switch the flow is exact: `rlc_diode`'s closed-form
//!   values at t = 0.5 and 1 to 1e-13 (4.4e-14 after 1,000 steps), where backward
//!   Euler is off by 3.3e-4;
//! - sources in time are read at the step's end, as Siconos reads `b`: with
//!   A = 0, `smc_implicit` under zoh is its theta = 1 run to rounding;
//! - `oscillator_pid` against Siconos is in `sampled.rs`; the refusals (theta,
//!   the θ-γ weights, a mechanical model, a model nonlinear in its states) in
//!   `tests/data/bad/zoh_*.toml`.

use super::{column, model, model_edited, run};
use lcsfmu::model::Method;
use lcsfmu::tool::simulate::Options;

/// `exp(h [[A, I], [0, 0]])`'s top row, `[e^{hA}, Ψ]`, by its Taylor series
/// (`h ||A||` is 2e-3 here: 25 terms are far past rounding).
fn flow(a: [[f64; 2]; 2], h: f64) -> ([[f64; 2]; 2], [[f64; 2]; 2]) {
    let mut phi = [[1.0, 0.0], [0.0, 1.0]];
    let mut psi = [[h, 0.0], [0.0, h]];
    // term_k = (hA)^k / k!; Ψ gains h (hA)^k / (k+1)!.
    let mut term = [[1.0, 0.0], [0.0, 1.0]];
    for k in 1..25 {
        let mut next = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                next[i][j] = (0..2).map(|l| term[i][l] * h * a[l][j]).sum::<f64>() / k as f64;
            }
        }
        term = next;
        for i in 0..2 {
            for j in 0..2 {
                phi[i][j] += term[i][j];
                psi[i][j] += h * term[i][j] / (k + 1) as f64;
            }
        }
    }
    (phi, psi)
}

#[test]
fn rlc_diode_under_zoh_is_the_same_scheme_written_out() {
    let m = model_edited(
        "rlc_diode",
        "[reference]",
        "[scheme]\nmethod = \"zoh\"\n\n[reference]",
    );
    assert_eq!(m.scheme.method, Method::Zoh);
    let t = run(m, Options::default());
    let (i_l, q_c, u_d) = (column(&t, "i_L"), column(&t, "q_C"), column(&t, "u_D"));
    // R = L = C = 1: x' = A x + B u, y = C x + D u.
    let a = [[0.0, -1.0], [1.0, -1.0]];
    let (b, c, d) = ([1.0, 1.0], [1.0, -1.0], 1.0);
    let h = 1e-3;
    let (phi, psi) = flow(a, h);
    let psi_b = [
        psi[0][0] * b[0] + psi[0][1] * b[1],
        psi[1][0] * b[0] + psi[1][1] * b[1],
    ];
    let m_lcp = d + c[0] * psi_b[0] + c[1] * psi_b[1];
    assert!(m_lcp > 0.0);
    let mut x = [1.0, 0.0];
    let mut worst = 0.0f64;
    for k in 1..i_l.len() {
        let free = [
            phi[0][0] * x[0] + phi[0][1] * x[1],
            phi[1][0] * x[0] + phi[1][1] * x[1],
        ];
        let q = c[0] * free[0] + c[1] * free[1];
        let u = (-q / m_lcp).max(0.0);
        x = [free[0] + psi_b[0] * u, free[1] + psi_b[1] * u];
        for (ours, theirs) in [(i_l[k], x[0]), (q_c[k], x[1]), (u_d[k], u)] {
            worst = worst.max((ours - theirs).abs());
        }
    }
    println!("rlc_diode under zoh against the recursion written out: {worst:e}");
    assert!(worst <= 1e-14, "{worst:e}");
}

#[test]
fn the_flow_is_exact_before_the_switch() {
    // rlc_diode's [reference] values are its closed form; the diode
    // switches at t = 1.2092, after these two.
    let exact = [
        (0.5, 0.8955945265449207, 0.37734520347490685),
        (1.0, 0.6597001533917017, 0.533507195114693),
    ];
    let error = |m| {
        let t = run(m, Options::default());
        let (time, i_l, q_c) = (column(&t, "time"), column(&t, "i_L"), column(&t, "q_C"));
        let mut worst = 0.0f64;
        for (at, i, q) in exact {
            let k = time.iter().position(|s| (s - at).abs() < 1e-9).unwrap();
            worst = worst.max((i_l[k] - i).abs()).max((q_c[k] - q).abs());
        }
        worst
    };
    let held = error(model_edited(
        "rlc_diode",
        "[reference]",
        "[scheme]\nmethod = \"zoh\"\n\n[reference]",
    ));
    let euler = error(model("rlc_diode"));
    println!("rlc_diode at t = 0.5 and 1: zoh {held:e}, backward Euler {euler:e}");
    assert!(held <= 1e-13, "{held:e}");
    assert!(euler >= 1e-5, "{euler:e}");
}

#[test]
fn sources_are_read_at_the_steps_end_as_siconos_reads_b() {
    // smc_implicit's plant has A = 0 and a sin disturbance: its flow is
    // x + h (b(t + h) + B u), the theta = 1 step.
    let implicit = run(model("smc_implicit"), Options::default());
    let held = run(
        model_edited(
            "smc_implicit",
            "[scheme]\ntheta = 1.0",
            "[scheme]\nmethod = \"zoh\"",
        ),
        Options::default(),
    );
    let mut worst = 0.0f64;
    for name in ["x0", "x1", "u"] {
        for (a, b) in column(&implicit, name).iter().zip(column(&held, name)) {
            worst = worst.max((a - b).abs());
        }
    }
    println!("smc_implicit: zoh against theta = 1: {worst:e}");
    assert!(worst <= 1e-13, "{worst:e}");
}
