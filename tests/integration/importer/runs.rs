//! The runs the importer tests compare: one [`Case`] per bundled model (step
//! size, steps, snapshot step, modified start values, an input signal), the
//! run through the `fmi` crate's instance with every output's bit pattern
//! ([`full_run`], [`run`]), and the same run on the core instance in this
//! process ([`core_run`]). The mechanical nonlinear models' runs are chosen to
//! reach past a first impact, with the snapshot before it: a run cut at the
//! derived 400 steps ended in flight for two of them (pendulum_stop hits its
//! stop at t = 0.637, duffing_impact its wall at 1.232), so the comparisons
//! never saw the Newton loop with an active contact. [`assert_crosses_an_impact`]
//! keeps that from coming back unnoticed.

use crate::fmus;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::fmi2::schema::Causality;
use fmi::fmi2::Fmi2Res;
use fmi::traits::FmiImport;

/// An input's name and its value as a function of time.
pub(super) type Signal = (&'static str, fn(f64) -> f64);

/// One run per model: step size, steps, the step of the snapshot, other start
/// values, and an input signal applied at each communication point.
pub(super) struct Case {
    pub(super) model: String,
    pub(super) h: f64,
    pub(super) n: usize,
    pub(super) mid: usize,
    pub(super) modified: Vec<(&'static str, f64)>,
    pub(super) input: Option<Signal>,
    /// Whether the run is known to change after the snapshot and with the
    /// modified start values (so the comparisons cannot pass vacuously).
    pub(super) known: bool,
    /// The contact impulses (outputs) of a mechanical model whose run crosses
    /// an impact after the snapshot: all zero at the snapshot, one nonzero at
    /// some step after it.
    pub(super) impulses: &'static [&'static str],
}

/// The run for `model`: chosen by hand for the first-order models, derived from
/// the default experiment (at most 400 steps) for any other bundled model.
pub(super) fn case(model: &str, import: &Fmi2Import) -> Case {
    let known = |h, n, mid, modified: &[(&'static str, f64)], input| Case {
        model: model.to_string(),
        h,
        n,
        mid,
        modified: modified.to_vec(),
        input,
        known: true,
        impulses: &[],
    };
    match model {
        // the snapshot is taken before the origin is reached (t = 0.5 of ~0.96)
        "sign_spiral" => known(0.05, 40, 10, &[("x1", 2.0), ("x2", 0.5)], None),
        // sliding at the snapshot; the applied force makes it stick and slip again
        "coulomb_friction" => known(
            0.1,
            60,
            6,
            &[("mu", 5.0), ("v", 60.0)],
            Some(("F_a", |t| 2000.0 * (1.5 * t).sin())),
        ),
        // conducting at the snapshot, the diode switches at t = 1.21 after it
        "rlc_diode" => known(
            1e-3,
            2000,
            1100,
            &[("R", 2.0), ("L", 0.5), ("C", 0.25)],
            None,
        ),
        "saturated_integrator" => known(
            0.01,
            800,
            300,
            &[("U", 0.2), ("y", 0.1)],
            Some(("x", f64::sin)),
        ),
        // in flight at the snapshot (t = 0.4); hits the stop at t = 0.637 (0.650
        // with the modified start values)
        "pendulum_stop" => Case {
            impulses: &["p"],
            ..known(1e-3, 1000, 400, &[("e", 0.5), ("theta", 0.8)], None)
        },
        // hits the wall at t = 1.232, after the snapshot at t = 1 (0.915 modified)
        "duffing_impact" => Case {
            impulses: &["p"],
            ..known(1e-3, 1500, 1000, &[("A", 3.0), ("e", 0.5)], None)
        },
        // falling at the snapshot (t = 0.1); corner 1 lands at t = 0.185, corner 2 at
        // 0.297 (0.167 and 0.297 modified)
        "rocking_block" => Case {
            impulses: &["p1", "p2"],
            ..known(1e-3, 500, 100, &[("e", 0.3), ("th", 0.3)], None)
        },
        _ => {
            let e = import.model_description().default_experiment.as_ref();
            let h = e.and_then(|e| e.step_size).unwrap_or(0.01);
            let span = e.map_or(1.0, |e| e.stop_time() - e.start_time());
            let n = ((span / h).round() as usize).clamp(3, 400);
            Case {
                model: model.to_string(),
                h,
                n,
                mid: n / 3,
                modified: Vec::new(),
                input: None,
                known: false,
                impulses: &[],
            }
        }
    }
}

/// Every bundled model with its run.
pub(super) fn cases() -> Vec<(Fmi2Import, Case)> {
    fmus::every_model()
        .iter()
        .map(|m| {
            let import = fmus::import(&fmus::bundled(m));
            let c = case(m, &import);
            (import, c)
        })
        .collect()
}

/// For a case with contact impulses: asserts that every impulse is zero in the
/// output row `at_start` and that one is nonzero in some row of `after` (the
/// outputs after each step of the compared window), so the window crosses an
/// impact. Nothing for a case without.
#[track_caller]
pub(super) fn assert_crosses_an_impact(
    import: &Fmi2Import,
    case: &Case,
    at_start: &[u64],
    after: &[u64],
) {
    if case.impulses.is_empty() {
        return;
    }
    let outputs = fmus::vrs_of(import, Causality::Output);
    let columns: Vec<usize> = case
        .impulses
        .iter()
        .map(|name| {
            let vr = fmus::vr(import, name);
            outputs.iter().position(|o| *o == vr).unwrap()
        })
        .collect();
    let value = |row: &[u64], j: usize| f64::from_bits(row[j]);
    assert!(
        columns.iter().all(|&j| value(at_start, j) == 0.0),
        "{}: a contact is active at the start of the window",
        case.model
    );
    assert!(
        after
            .chunks(outputs.len())
            .any(|row| columns.iter().any(|&j| value(row, j) != 0.0)),
        "{}: no impact in the window ({:?} zero at every step)",
        case.model,
        case.impulses
    );
}

/// Asserts an `fmi` crate result is a plain OK.
#[track_caller]
pub(super) fn ok<E: std::fmt::Debug>(r: Result<Fmi2Res, E>) {
    assert!(matches!(r, Ok(Fmi2Res::OK)), "{r:?}");
}

pub(super) fn instance(import: &Fmi2Import, name: &str) -> InstanceCS {
    import
        .instantiate_cs(name, false, false)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// setupExperiment, start values, initialization; returns the outputs at t = 0.
pub(super) fn initialize(
    i: &mut InstanceCS,
    import: &Fmi2Import,
    start: &[(&str, f64)],
) -> Vec<u64> {
    ok(Common::setup_experiment(i, None, 0.0, None));
    for (name, v) in start {
        ok(i.set_real(&[fmus::vr(import, name)], &[*v]));
    }
    ok(Common::enter_initialization_mode(i));
    // a model may warn that no multipliers are consistent with its start values
    let exit = Common::exit_initialization_mode(i);
    assert!(
        matches!(exit, Ok(Fmi2Res::OK | Fmi2Res::Warning)),
        "{exit:?}"
    );
    outputs(i, import)
}

/// Every output's bit pattern (so -0.0 and 0.0 differ).
pub(super) fn outputs(i: &mut InstanceCS, import: &Fmi2Import) -> Vec<u64> {
    let vrs = fmus::vrs_of(import, Causality::Output);
    let mut v = vec![f64::NAN; vrs.len()];
    ok(i.get_real(&vrs, &mut v));
    v.iter().map(|x| x.to_bits()).collect()
}

/// Steps `from..to` (t_k = k h), the input set at each point; the outputs after each step.
pub(super) fn run(
    i: &mut InstanceCS,
    import: &Fmi2Import,
    case: &Case,
    from: usize,
    to: usize,
) -> Vec<u64> {
    let input = case.input.map(|(name, f)| (fmus::vr(import, name), f));
    let mut rows = Vec::new();
    for k in from..to {
        let t = k as f64 * case.h;
        if let Some((vr, f)) = input {
            ok(i.set_real(&[vr], &[f(t)]));
        }
        ok(i.do_step(t, (k + 1) as f64 * case.h - t, false));
        rows.extend(outputs(i, import));
    }
    rows
}

pub(super) fn full_run(
    i: &mut InstanceCS,
    import: &Fmi2Import,
    case: &Case,
    modified: bool,
) -> Vec<u64> {
    let start = if modified { &case.modified[..] } else { &[] };
    let mut rows = initialize(i, import, start);
    rows.extend(run(i, import, case, 0, case.n));
    rows
}
/// The run of [`full_run`] on the core `Instance` in this process, which takes
/// its sizes at run time like `lcsfmu simulate`.
pub(super) fn core_run(import: &Fmi2Import, case: &Case, modified: bool) -> Vec<u64> {
    let mut i = lcsfmu::instance::Instance::new(crate::model(&case.model), "{core}");
    let outs = fmus::vrs_of(import, Causality::Output);
    let mut v = vec![f64::NAN; outs.len()];
    let mut rows = Vec::new();
    let mut read = |i: &mut lcsfmu::instance::Instance, rows: &mut Vec<u64>| {
        i.get_reals(&outs, &mut v).unwrap();
        rows.extend(v.iter().map(|x| x.to_bits()));
    };
    i.setup_experiment(0.0, None).unwrap();
    if modified {
        for (name, x) in &case.modified {
            i.set_reals(&[fmus::vr(import, name)], &[*x]).unwrap();
        }
    }
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    read(&mut i, &mut rows);
    let input = case.input.map(|(name, f)| (fmus::vr(import, name), f));
    for k in 0..case.n {
        let t = k as f64 * case.h;
        if let Some((vr, f)) = input {
            i.set_reals(&[vr], &[f(t)]).unwrap();
        }
        i.do_step(t, (k + 1) as f64 * case.h - t).unwrap();
        read(&mut i, &mut rows);
    }
    rows
}
