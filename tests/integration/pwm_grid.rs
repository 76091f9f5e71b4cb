//! buck_pwm's switch on the step grid: which steps the switch was closed for,
//! read from the physics, against the carrier `step(d - frac(time/T))` on the
//! grid the run stepped on.
//!
//! The switch state is not read from the `switch` output (that is the carrier
//! formula itself, so comparing it with the formula could not fail) but from
//! the inductor: with θ = 1 the step ending at `t_k` is
//! `L (iL_k - iL_{k-1}) / h = s Vin + (1 - s) vx_k - vC_k`, so
//! `s = (L ΔiL / h + vC_k - vx_k) / (Vin - vx_k)`, which the trajectory gives to
//! about 1e-12 (`vx` is the diode's reverse voltage, an output). A scheme that
//! read the source at the step's start, or a step a switching instant late,
//! fails the comparison.
//!
//! The carrier is compared at the grid times `t_k = k h` in floating point,
//! the way the run computes them. Exact arithmetic would close the switch for
//! 51 of the 100 steps of every period (`step(0) = 1` counts both ends of
//! `frac(t/T) <= d`), but two of those instants are ties decided by the
//! rounding of `time/T`: at the half period it lands on `j + 0.5` exactly (128
//! of the 300 periods) or just below (172), on either way; at the period's end
//! on `j` exactly (132: on) or just below it (168: `frac` close to 1, off).
//! Measured at h = 1e-6 over the 30 ms run: 132 periods closed for 51 steps,
//! 168 for 50; realized duty 0.5044
//! over the run, 0.506 over the last ten periods, where vC averages 6.0790 V
//! against `d Vin = 6.0`. The carrier written half a step off the grid,
//! `frac(time/T + 0.005)` (0.005 = h/(2T)), has no tie: 50 steps in every
//! period, duty 0.5, vC 6.0000007 V over the last ten periods.
//! (docs: Nonlinear models and time, "Switching instants on the step grid".)

use crate::{column, model, model_edited, run};
use lcsfmu::model::Model;
use lcsfmu::tool::simulate::{Options, Trajectory};

const H: f64 = 1e-6;

fn parameter(m: &Model, name: &str) -> f64 {
    m.parameters.iter().find(|p| p.name == name).unwrap().value
}

/// The run at `H` over the model's 30 ms, and `(Vin, L, d, T)`.
fn simulate(m: Model) -> (Trajectory, [f64; 4]) {
    let p = ["Vin", "L", "d", "T"].map(|name| parameter(&m, name));
    let t = run(
        m,
        Options {
            step: Some(H),
            ..Options::default()
        },
    );
    (t, p)
}

/// The switch state over each step, `s[k]` for the step ending at row `k`
/// (`s[0]` is unused), read from the inductor's balance.
fn switch_from_the_inductor(t: &Trajectory, vin: f64, l: f64) -> Vec<f64> {
    let (il, vc, vx) = (column(t, "iL"), column(t, "vC"), column(t, "vx"));
    let mut s = vec![f64::NAN];
    for k in 1..il.len() {
        let v_l = l * (il[k] - il[k - 1]) / H;
        s.push((v_l + vc[k] - vx[k]) / (vin - vx[k]));
    }
    s
}

/// Which steps the switch was closed for; asserts every step read a clean 0 or 1.
fn closed_steps(t: &Trajectory, vin: f64, l: f64) -> Vec<bool> {
    let s = switch_from_the_inductor(t, vin, l);
    let worst = s[1..]
        .iter()
        .map(|x| x.abs().min((x - 1.0).abs()))
        .fold(0.0, f64::max);
    assert!(worst <= 1e-9, "a step's switch reads {worst:e} from 0 or 1");
    s.iter().map(|x| *x > 0.5).collect()
}

/// Steps closed in each period (steps `p n + 1 ..= (p + 1) n`, `n = T / h`).
fn per_period(closed: &[bool], n: usize) -> Vec<usize> {
    closed[1..]
        .chunks(n)
        .map(|c| c.iter().filter(|x| **x).count())
        .collect()
}

fn mean_vc_last_ten_periods(t: &Trajectory, n: usize) -> f64 {
    let vc = column(t, "vC");
    let last = &vc[vc.len() - 10 * n..];
    last.iter().sum::<f64>() / last.len() as f64
}

#[test]
fn buck_pwm_switch_read_from_the_inductor_follows_the_carrier_on_the_float_grid() {
    let (t, [vin, l, d, period]) = simulate(model("buck_pwm"));
    let n = (period / H).round() as usize;
    assert_eq!(n, 100);
    let closed = closed_steps(&t, vin, l);
    let time = column(&t, "time");
    let switch = column(&t, "switch");
    let (mut ties_low, mut ties_half) = (0, 0);
    // How t_k / T rounds at the two ties: (exact, below) at the half period, at the end.
    let (mut half, mut end) = ((0, 0), (0, 0));
    for k in 1..time.len() {
        // The grid the run steps on: products k h, never a running sum.
        let tk = k as f64 * H;
        assert_eq!(time[k].to_bits(), tk.to_bits(), "time at step {k}");
        let x = tk / period;
        let carrier = d - (x - x.floor()) >= 0.0;
        assert_eq!(closed[k], carrier, "step ending at {tk:e}");
        assert_eq!(switch[k], f64::from(u8::from(carrier)), "output at {tk:e}");
        // Exact arithmetic: closed for k mod n in 0..=d n.
        let exact = (k % n) as f64 <= d * n as f64;
        if carrier != exact {
            // Measured: the rounding only ever opens the switch at a period's end
            // (time/T just below j); every half period rounds to on.
            assert_eq!(k % n, 0, "step {k} differs from exact arithmetic");
            ties_low += 1;
        }
        let j = (k / n) as f64;
        if k % n == n / 2 {
            ties_half += usize::from(carrier);
            half.0 += usize::from(x == j + 0.5);
            half.1 += usize::from(x < j + 0.5);
        }
        if k % n == 0 {
            end.0 += usize::from(x == j);
            end.1 += usize::from(x < j);
        }
    }
    let periods = per_period(&closed, n);
    assert_eq!(periods.len(), 300);
    let count = |c| periods.iter().filter(|x| **x == c).count();
    // Measured (module text): 168 period ends where time/T rounds below j (open),
    // all 300 half periods closed.
    assert_eq!((ties_low, ties_half), (168, 300));
    assert_eq!((half, end), ((128, 172), (132, 168)));
    assert_eq!((count(50), count(51)), (168, 132));
    let duty = closed[1..].iter().filter(|x| **x).count() as f64 / (300 * n) as f64;
    assert_eq!(duty, 0.5044);
    let last_ten = periods[290..].iter().sum::<usize>() as f64 / (10 * n) as f64;
    assert_eq!(last_ten, 0.506);
    let mean = mean_vc_last_ten_periods(&t, n);
    assert!((mean - 6.0790).abs() < 1e-4, "mean vC {mean}");
    println!(
        "buck_pwm at h = {H:e}: {} periods closed 50 steps, {} closed 51; duty {duty} over \
         the run, {last_ten} over the last ten periods; mean vC there {mean:.4} (d Vin = {})",
        count(50),
        count(51),
        d * vin
    );
}

#[test]
fn a_carrier_half_a_step_off_the_grid_has_no_tie() {
    // h / (2 T) = 0.005: every grid time falls half a step from a switching instant.
    let m = model_edited("buck_pwm", "frac(time/T)", "frac(time/T + 0.005)");
    let (t, [vin, l, d, period]) = simulate(m);
    let n = (period / H).round() as usize;
    let closed = closed_steps(&t, vin, l);
    for (k, c) in closed.iter().enumerate().skip(1) {
        // The carrier reads (k mod n + 1/2) / n, never a tie: closed for
        // k mod n in 0..d n, d n = 50 steps in every period.
        let exact = ((k % n) as f64 + 0.5) < d * n as f64;
        assert_eq!(*c, exact, "step {k}");
    }
    let periods = per_period(&closed, n);
    assert!(periods.iter().all(|c| *c == 50), "{periods:?}");
    let mean = mean_vc_last_ten_periods(&t, n);
    assert!((mean - d * vin).abs() < 1e-5, "mean vC {mean}");
    println!("buck_pwm, carrier half a step off the grid: 50 steps closed in every period, mean vC over the last ten periods {mean:.7}");
}
