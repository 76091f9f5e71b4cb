//! The same bundled model written in other units (issue 20, section 1): grams
//! instead of kilograms, milliamperes instead of amperes. A change of units
//! rescales the rows and columns of every step's LCP, so with the unit-free
//! acceptance test (`src/lcp/acceptance.rs`) each step must keep the same
//! active set, and the trajectories must agree after unscaling to rounding.
//! (With the previous test, absolute for small data, the grams versions of the
//! friction models kept other active sets.) The nonlinear models' Newton
//! iteration is held to the same: its convergence test measures each pair in
//! the units of its relation (`src/scheme/theta/residual.rs`), so a multiplier in
//! other units than its relation (`diode_square`, `diode_bridge_source` in
//! units of 2^-30 A) takes the same iterations to the same answer.

use super::model;
use lcsfmu::instance::variables::Kind;
use lcsfmu::instance::Instance;
use lcsfmu::lcp::Bound;
use lcsfmu::model::{validate, Model};

/// The units' factors: powers of two, so that the rescaled model's numbers
/// are the original ones times exact factors and every rounding is the same
/// (after unscaling the runs must agree bit for bit), and far from one, so
/// that the multipliers are of order 1e-9 of the original ones (masses in
/// megatonnes, currents in nanoamperes), where an acceptance test that is
/// absolute for small data accepts them whatever they are.
const M30: f64 = 1.0 / (1u64 << 30) as f64;
const P30: f64 = (1u64 << 30) as f64;

/// An input as a function of time, in the original units.
type Signal = fn(f64) -> f64;

/// A bundled model and a change of its units.
struct Case {
    stem: &'static str,
    /// Parameters, states (start values) and inputs with their factor: the
    /// rescaled model sets each to `factor` times the original value.
    factors: &'static [(&'static str, f64)],
    /// The factor of the multipliers, and of the pairs that have another one
    /// (a slip speed among forces).
    pairs: f64,
    other_pairs: &'static [(&'static str, f64)],
    /// An input that varies in time (original units), applied at each point.
    input: Option<(&'static str, Signal)>,
    /// Communication steps to run.
    steps: usize,
}

const CASES: &[Case] = &[
    // A mass in grams: forces (and friction bounds) in mN.
    Case {
        stem: "coulomb_friction",
        factors: &[("m", M30), ("F_a", M30)],
        pairs: M30,
        other_pairs: &[("v_abs", 1.0)],
        input: Some(("F_a", |t| 3.0 * t.sin())),
        steps: 25,
    },
    Case {
        stem: "friction_block",
        factors: &[("m", M30), ("Fc", M30), ("G", M30), ("F", M30)],
        pairs: M30,
        other_pairs: &[("Ff_sign", 1.0)],
        input: Some(("F", |t| 3.0 * (2.0 * t).sin())),
        steps: 500,
    },
    // Currents (and charges) in milliamperes: R and L per mA, C in mA·s/V.
    Case {
        stem: "rlc_diode",
        factors: &[
            ("R", P30),
            ("L", P30),
            ("C", M30),
            ("i_L", M30),
            ("q_C", M30),
        ],
        pairs: 1.0,
        other_pairs: &[],
        input: None,
        steps: 5000,
    },
    // Mechanical: masses and stiffnesses in grams, percussions in g·m/s.
    Case {
        stem: "two_carts",
        factors: &[("m1", M30), ("m2", M30), ("k1", M30), ("k2", M30)],
        pairs: M30,
        other_pairs: &[],
        input: None,
        steps: 100,
    },
    Case {
        stem: "stick_slip",
        factors: &[("m", M30), ("k", M30)],
        pairs: M30,
        other_pairs: &[("N_slip", 1.0)],
        input: None,
        steps: 20000,
    },
    Case {
        stem: "newtons_cradle",
        factors: &[("m", M30)],
        pairs: M30,
        other_pairs: &[],
        input: None,
        steps: 1000,
    },
    // Nonlinear (the Newton step): a multiplier 2^30 times larger than in
    // the original units, its relation unchanged (tests/data/units/).
    Case {
        stem: "diode_square",
        factors: &[("g", P30)],
        pairs: P30,
        other_pairs: &[],
        input: None,
        steps: 30,
    },
    // Currents in units of 2^-30 A (voltages unchanged): the bridge's pairs
    // are two currents and two voltages, in one LCP per Newton iteration.
    Case {
        stem: "diode_bridge_source",
        factors: &[("Rs", M30), ("R", M30), ("C", P30)],
        pairs: P30,
        other_pairs: &[("r3", 1.0), ("r4", 1.0)],
        input: None,
        steps: 4000,
    },
];

/// The model of a case: a bundled one, or one of tests/data/units/.
fn case_model(stem: &str) -> Model {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/units")
        .join(format!("{stem}.toml"));
    if own.exists() {
        validate::load(&own).unwrap_or_else(|e| panic!("{e}"))
    } else {
        model(stem)
    }
}

/// A run's states, multipliers and active set after each step.
struct Run {
    states: Vec<Vec<f64>>,
    pairs: Vec<Vec<f64>>,
    modes: Vec<Vec<Bound>>,
}

fn run(case: &Case, scaled: bool) -> Run {
    let m = case_model(case.stem);
    let h = m.experiment.step;
    let vars = lcsfmu::instance::variables::variables(&m);
    let vr = |name: &str| -> u32 {
        vars.iter()
            .position(|v| v.name == name)
            .unwrap_or_else(|| panic!("{}: no variable {name}", case.stem)) as u32
    };
    let factor = |name: &str| -> f64 {
        let f = case.factors.iter().find(|(n, _)| *n == name);
        if scaled {
            f.map_or(1.0, |(_, f)| *f)
        } else {
            1.0
        }
    };
    let starts: Vec<(u32, f64)> = case
        .factors
        .iter()
        .map(|(name, f)| {
            let v = vars.iter().find(|v| v.name == *name).unwrap();
            let start = v.start.unwrap_or(0.0);
            (vr(name), if scaled { start * f } else { start })
        })
        .collect();
    let input = case.input.map(|(name, f)| (vr(name), factor(name), f));
    let mut i = Instance::new(m, "{units}");
    i.setup_experiment(0.0, None).unwrap();
    for (vr, value) in &starts {
        i.set_reals(&[*vr], &[*value]).unwrap();
    }
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    let mut out = Run {
        states: Vec::new(),
        pairs: Vec::new(),
        modes: Vec::new(),
    };
    for k in 0..case.steps {
        let t = k as f64 * h;
        if let Some((vr, f, value)) = input {
            i.set_reals(&[vr], &[f * value(t)]).unwrap();
        }
        i.do_step(t, (k + 1) as f64 * h - t)
            .unwrap_or_else(|e| panic!("{} (scaled: {scaled}) at t = {t}: {e}", case.stem));
        out.states.push(i.states().to_vec());
        out.pairs.push(i.pairs().to_vec());
        out.modes.push(i.active_set().to_vec());
    }
    out
}

/// The largest difference between `a` and `b / f` over all steps, relative to
/// the largest magnitude of each component over the run (a multiplier at
/// rounding noise while its pair is idle would make a pointwise ratio
/// meaningless).
fn largest_difference(a: &[Vec<f64>], b: &[Vec<f64>], f: &dyn Fn(usize) -> f64) -> f64 {
    let n = a.first().map_or(0, |r| r.len());
    let mut worst = 0.0f64;
    for j in 0..n {
        let scale = a.iter().fold(0.0f64, |m, r| m.max(r[j].abs()));
        for (ra, rb) in a.iter().zip(b) {
            let d = (ra[j] - rb[j] / f(j)).abs();
            if d > 0.0 {
                worst = worst.max(d / scale.max(f64::MIN_POSITIVE));
            }
        }
    }
    worst
}

#[test]
fn bundled_models_in_other_units_keep_their_active_sets_and_trajectories() {
    for case in CASES {
        let (base, scaled) = (run(case, false), run(case, true));
        let differing: Vec<usize> = (0..case.steps)
            .filter(|&k| base.modes[k] != scaled.modes[k])
            .collect();
        assert!(
            differing.is_empty(),
            "{}: the active sets differ at {} of {} steps, the first at step {}",
            case.stem,
            differing.len(),
            case.steps,
            differing[0]
        );
        // The factors of the states and pairs, by name, in their order.
        let m = case_model(case.stem);
        let vars = lcsfmu::instance::variables::variables(&m);
        let of = |kind: fn(&Kind) -> bool, list: &[(&str, f64)], default: f64| -> Vec<f64> {
            vars.iter()
                .filter(|v| kind(&v.kind))
                .map(|v| {
                    list.iter()
                        .find(|(n, _)| *n == v.name)
                        .map_or(default, |(_, f)| *f)
                })
                .collect()
        };
        let state_factor = of(|k| matches!(k, Kind::State(_)), case.factors, 1.0);
        let pair_factor = of(|k| matches!(k, Kind::Pair(_)), case.other_pairs, case.pairs);
        let dx = largest_difference(&base.states, &scaled.states, &|j| state_factor[j]);
        let du = largest_difference(&base.pairs, &scaled.pairs, &|j| pair_factor[j]);
        println!(
            "{}: {} steps, same active sets; largest difference after unscaling: states {dx:.1e}, multipliers {du:.1e}",
            case.stem, case.steps
        );
        assert!(
            dx <= 1e-12 && du <= 1e-10,
            "{}: states {dx:e}, multipliers {du:e}",
            case.stem
        );
    }
}
