//! Siconos' Woodpecker example (`tests/data/woodpecker.toml`: 3 coordinates,
//! full mass matrix, three frictional contacts, Moreau–Jean, h = 2e-5) against
//! Siconos' own result (`tests/data/woodpecker_siconos.csv`, rows of
//! `Woodpecker.ref`), and against itself in other units (issue 20, section 1).
//!
//! Tolerance. Differences are measured per column relative to the column's
//! largest magnitude over the run (`omega_M` is rounding noise, ~1e-16, while
//! the sleeve is jammed, and 32 rad/s at its largest, so a pointwise relative
//! difference means nothing there). Measured with the unit-free acceptance
//! test: in kilograms lcsfmu and Siconos differ by at most 3.0e-11 over all
//! 15,000 steps, in grams by 6.2e-14; kilograms against grams, 3.0e-11, with
//! the same contact modes at every step. The kilogram run's friction
//! directions at rest come out of the linear solves as round-off of 3e-18
//! (grams: 2e-22 after unscaling), which the motion then amplifies (the first
//! difference of 1e-12 is at step 4,183). With the previous, absolute-for-small-
//! data acceptance, contact p2 stayed stuck two steps too long in kilograms
//! and the runs differed by 3e-6 and more from step 3,062 on. `TOL = 1e-10`
//! sits three times above the round-off amplified over the run and four orders
//! of magnitude below that divergence.
//!
//! In millimetres the run is within 4.5e-12 of Siconos' over all steps. It
//! stopped at t = 0.0674 until enumeration left out the components an LCP
//! fixes with `lo == hi` (the open contacts): there a contact opens while
//! sliding (a friction direction free and zero at once), block pivoting meets
//! a singular block, Lemke a ray, and enumeration of the 4 unknowns of its
//! 12 finds the answer.

use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::{self, Options, Trajectory};
use std::path::{Path, PathBuf};

const TOL: f64 = 1e-10;
/// Compared columns: Siconos' `q` and `v` in its coordinate order.
const COLUMNS: [&str; 6] = ["y", "v", "phi_M", "omega_M", "phi_S", "omega_S"];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The woodpecker with its units chosen by the two defines.
fn woodpecker(mass_scale: i64, length_scale: i64) -> Model {
    validate::load_with_defines(
        &data("woodpecker.toml"),
        &[
            ("MASS_SCALE".into(), mass_scale),
            ("LENGTH_SCALE".into(), length_scale),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The default experiment (t = 0 to 0.3, h = 2e-5), which must run to the end.
fn simulate(mass_scale: i64, length_scale: i64) -> Trajectory {
    let t = simulate::run(
        woodpecker(mass_scale, length_scale),
        "{woodpecker}",
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        t.failure,
        None,
        "MASS_SCALE = {mass_scale}, LENGTH_SCALE = {length_scale}: the run stopped at t = {}",
        t.rows.last().map_or(0.0, |r| r[0])
    );
    assert_eq!(t.rows.len(), 15_001, "15,000 steps of 2e-5");
    t
}

/// Siconos' rows: `(step, [y, v, phi_M, omega_M, phi_S, omega_S])`.
fn siconos() -> Vec<(usize, [f64; 6])> {
    let text = std::fs::read_to_string(data("woodpecker_siconos.csv")).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("step,time,y,v,phi_M,omega_M,phi_S,omega_S")
    );
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), 8, "{l}");
            let step: usize = cells[0].parse().unwrap();
            let time: f64 = cells[1].parse().unwrap();
            assert!((time - step as f64 * 2e-5).abs() <= 1e-15, "{l}");
            let mut values = [0.0; 6];
            for (v, c) in values.iter_mut().zip(&cells[2..]) {
                *v = c.parse().unwrap();
            }
            (step, values)
        })
        .collect()
}

/// The columns of `t` named `names`, with `t`'s column `j` divided by `unit[j]`.
fn columns(t: &Trajectory, names: &[&str], unit: &[f64]) -> Vec<Vec<f64>> {
    names
        .iter()
        .zip(unit)
        .map(|(name, u)| super::column(t, name).iter().map(|x| x / u).collect())
        .collect()
}

/// The largest magnitude in `column`.
fn largest(column: &[f64]) -> f64 {
    column.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// `|a - b| <= TOL * scale` per column, over the rows `steps`; the message
/// names the first row where a column fails and the largest difference.
fn assert_agree(
    what: &str,
    names: &[&str],
    (a, b): (&[Vec<f64>], &[Vec<f64>]),
    scales: &[f64],
    steps: &[usize],
) {
    let mut failures = Vec::new();
    for (j, name) in names.iter().enumerate() {
        let scale = scales[j];
        assert!(scale > 0.0, "{name} is zero throughout");
        let (mut first, mut worst) = (None, (0.0f64, 0));
        for (i, &k) in steps.iter().enumerate() {
            let d = (a[j][i] - b[j][i]).abs() / scale;
            if d > worst.0 {
                worst = (d, k);
            }
            if d > TOL && first.is_none() {
                first = Some(k);
            }
        }
        if let Some(k) = first {
            failures.push(format!(
                "{name}: first beyond {TOL:e} at step {k}, largest {:.3e} at step {} (relative to {scale:.4e})",
                worst.0, worst.1
            ));
        }
    }
    assert!(failures.is_empty(), "{what}:\n{}", failures.join("\n"));
}

/// Every row of Siconos' file (every 10th step, and every step from 3,040 to
/// 3,099, where contact p2 starts to slip) agrees with lcsfmu's run.
#[test]
fn woodpecker_agrees_with_siconos() {
    let reference = siconos();
    assert_eq!(reference.len(), 1554);
    let t = simulate(1, 1);
    let ours = columns(&t, &COLUMNS, &[1.0; 6]);
    let steps: Vec<usize> = reference.iter().map(|(k, _)| *k).collect();
    let a: Vec<Vec<f64>> = ours
        .iter()
        .map(|c| steps.iter().map(|&k| c[k]).collect())
        .collect();
    let b: Vec<Vec<f64>> = (0..6)
        .map(|j| reference.iter().map(|(_, v)| v[j]).collect())
        .collect();
    let scales: Vec<f64> = b.iter().map(|c| largest(c)).collect();
    assert_agree(
        "lcsfmu vs Siconos' Woodpecker.ref",
        &COLUMNS,
        (&a, &b),
        &scales,
        &steps,
    );
}

/// Each contact's mode at each step: open (no normal percussion), sticking, or
/// slipping (its slip multiplier is the slip speed). The friction pairs of an
/// open contact are not compared: they are rounding noise or not meaningful.
fn modes(t: &Trajectory) -> Vec<[u8; 3]> {
    let cols: Vec<(Vec<f64>, Vec<f64>)> = ["p1", "p2", "p3"]
        .iter()
        .map(|c| (super::column(t, c), super::column(t, &format!("{c}_slip"))))
        .collect();
    (0..t.rows.len())
        .map(|k| {
            let mut m = [0u8; 3];
            for (mode, (p, slip)) in m.iter_mut().zip(&cols) {
                *mode = match (p[k] != 0.0, slip[k] != 0.0) {
                    (false, _) => 0,
                    (true, false) => 1,
                    (true, true) => 2,
                };
            }
            m
        })
        .collect()
}

/// The same motion in grams and in millimetres: a change of units must not
/// change which contacts are open, stuck or slipping at any step, and the
/// trajectories agree after unscaling (coordinates, velocities and the normal
/// and friction percussions) to rounding.
#[test]
fn woodpecker_scaled_units_same_active_sets() {
    let base = simulate(1, 1);
    let names = [
        "y",
        "v",
        "phi_M",
        "omega_M",
        "phi_S",
        "omega_S",
        "p1",
        "p1_t_plus",
        "p1_t_minus",
        "p2",
        "p2_t_plus",
        "p2_t_minus",
        "p3",
        "p3_t_plus",
        "p3_t_minus",
    ];
    let steps: Vec<usize> = (0..base.rows.len()).collect();
    let reference = columns(&base, &names, &[1.0; 15]);
    let reference_modes = modes(&base);
    // A friction percussion is measured against its contact's largest normal
    // percussion (it is bounded by mu times it; p1_t_plus is only ever
    // rounding noise, on steps where contact 1 is open).
    let scales: Vec<f64> = (0..names.len())
        .map(|j| largest(&reference[if j < 6 { j } else { 6 + (j - 6) / 3 * 3 }]))
        .collect();
    for (mass, length) in [(1000, 1), (1, 1000)] {
        let t = simulate(mass, length);
        let what = format!("MASS_SCALE = {mass}, LENGTH_SCALE = {length}");
        let differing: Vec<usize> = modes(&t)
            .iter()
            .zip(&reference_modes)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(k, _)| k)
            .collect();
        assert!(
            differing.is_empty(),
            "{what}: contact modes (open/stick/slip) differ at {} steps, the first {:?}",
            differing.len(),
            &differing[..differing.len().min(5)]
        );
        // y and v in length units; percussions in mass × length units.
        let (l, ml) = (length as f64, (mass * length) as f64);
        let mut unit = [1.0; 15];
        unit[..2].fill(l);
        unit[6..].fill(ml);
        let scaled = columns(&t, &names, &unit);
        assert_agree(&what, &names, (&scaled, &reference), &scales, &steps);
    }
}
