//! The runs the importer tests compare: one [`Case`] per bundled model (step
//! size, steps, snapshot step, modified start values, an input signal), the
//! run through the `fmi` crate's instance with every output's bit pattern
//! ([`full_run`], [`run`]), and the same run on the core instance in this
//! process ([`core_run`]).

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
