//! `lcsfmu compare`: time-stepping against event-driven integration on one model.
//!
//! Each run is the core [`Instance`] the FMU runs, with the model's scheme
//! replaced: the theta-method at several step sizes (one communication step
//! per time step) and the event-driven scheme at several tolerances
//! (communication points at every reference time and 100 more for the
//! picture: each forces a step end). Errors are measured at the times of the model's `[reference]` table
//! (known values) or, without one, against a time-stepping run ten times finer
//! than the finest one compared, at the model's output step. A run's value at
//! a reference time it did not stop at is interpolated linearly between its
//! neighbouring communication points.

use crate::error::Error;
use crate::instance::{variables, Instance};
use crate::model::{Method, Model};
use crate::tool::plot::{Figure, Panel, Series};
use std::time::Instant;

/// What to compare.
#[derive(Clone, Debug)]
pub struct Options {
    pub stop: Option<f64>,
    /// Time-stepping step sizes; none: [`default_steps`].
    pub steps: Vec<f64>,
    /// Event-driven relative tolerances (`atol = rtol / 1000`).
    pub tolerances: Vec<f64>,
}

/// One run's figures.
#[derive(Clone, Debug)]
pub struct Run {
    pub scheme: &'static str,
    /// `h = ...` or `rtol = ...`.
    pub setting: String,
    pub steps: usize,
    /// Event-driven only.
    pub rejected: Option<usize>,
    pub rhs: Option<usize>,
    pub events: Option<usize>,
    /// Jumps of sources in time crossed as time events (event-driven).
    pub time_events: Option<usize>,
    pub lcp_solves: usize,
    pub seconds: f64,
    /// Largest absolute error over the reference's times and variables.
    pub max_error: f64,
    /// First communication point from which every state stays within 1e-12
    /// of its final value (a terminal state), if the run settles before its end.
    pub rest_from: Option<f64>,
    /// Recorded `(time, states)` for plots.
    pub times: Vec<f64>,
    pub states: Vec<Vec<f64>>,
}

/// All runs and what they were measured against.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub model: String,
    pub reference: String,
    pub runs: Vec<Run>,
    pub state_names: Vec<String>,
}

/// The reference values: times and `(value reference, values)`.
struct Known {
    time: Vec<f64>,
    columns: Vec<(u32, Vec<f64>)>,
}

/// The time-stepping steps compared when none are given: the model's output
/// step times 100, 10 and 1, those no longer than the run (a 1 ms circuit
/// stepped at 0.1 us is compared at 10, 1 and 0.1 us).
pub fn default_steps(output_step: f64, span: f64) -> Vec<f64> {
    [100.0, 10.0, 1.0]
        .iter()
        // Rounded to 12 digits: the table shows 1e-5, not 0.000009999999999999999.
        .map(|k| format!("{:.11e}", k * output_step).parse().unwrap())
        .filter(|h| *h <= span || *h == output_step)
        .collect()
}

pub fn compare(model: &Model, opts: &Options) -> Result<Comparison, Error> {
    if model.mechanics.is_some() {
        return Err(Error::Simulation(
            "compare runs first-order models (theta-method against event-driven)".into(),
        ));
    }
    let e = model.experiment;
    let stop = opts.stop.unwrap_or(e.stop);
    if !(stop > e.start)
        || opts
            .steps
            .iter()
            .chain(&opts.tolerances)
            .any(|v| !(*v > 0.0))
    {
        return Err(Error::Simulation(
            "stop, step sizes and tolerances must be positive".into(),
        ));
    }
    let default;
    let steps = if opts.steps.is_empty() {
        default = default_steps(e.step, stop - e.start);
        &default
    } else {
        &opts.steps
    };
    let vars = variables::variables(model);
    let vr_of = |name: &str| vars.iter().position(|v| v.name == name).map(|i| i as u32);
    let (known, reference) = match &model.reference {
        Some(r) => {
            let mut columns = Vec::new();
            for (name, values) in &r.values {
                let vr = vr_of(name).ok_or_else(|| {
                    Error::Simulation(format!("reference variable {name} is unknown"))
                })?;
                let keep: Vec<f64> = r
                    .time
                    .iter()
                    .zip(values)
                    .filter(|(t, _)| **t <= stop)
                    .map(|(_, v)| *v)
                    .collect();
                columns.push((vr, keep));
            }
            let time: Vec<f64> = r.time.iter().copied().filter(|t| *t <= stop).collect();
            let n = time.len();
            (
                Known { time, columns },
                format!("the model's [reference] table ({n} times)"),
            )
        }
        None => {
            let finest = steps.iter().copied().fold(e.step, f64::min) / 10.0;
            let states: Vec<u32> = state_vrs(model);
            let ((times, rows), _) = run_theta(model, finest, stop)?;
            let grid = grid(e.start, stop, e.step);
            // Rows hold every variable by value reference, as `measure` reads them.
            let columns = states
                .iter()
                .map(|&vr| {
                    let at = |t: &f64| interpolate(&times, &rows, vr as usize, *t);
                    (vr, grid.iter().map(at).collect())
                })
                .collect();
            (
                Known {
                    time: grid,
                    columns,
                },
                format!(
                    "time-stepping with h = {finest:e} at the output step {}",
                    e.step
                ),
            )
        }
    };
    let mut runs = Vec::new();
    for &h in steps {
        let started = Instant::now();
        let ((times, rows), n) = run_theta(model, h, stop)?;
        let seconds = started.elapsed().as_secs_f64();
        runs.push(measure(model, &known, times, rows, seconds, |r| {
            r.scheme = "theta";
            r.setting = format!("h = {h}");
            r.steps = n;
            r.lcp_solves = n;
        }));
    }
    for &rtol in &opts.tolerances {
        let mut m = model.clone();
        m.scheme.method = Method::EventDriven;
        m.scheme.event.rtol = rtol;
        m.scheme.event.atol = rtol * 1e-3;
        // Communication points force steps, so they stay few: 100 for the
        // picture, plus the reference times.
        let mut points = grid(e.start, stop, (stop - e.start) / 100.0);
        points.extend(known.time.iter().copied());
        points.sort_by(f64::total_cmp);
        points.dedup_by(|a, b| (*a - *b).abs() <= 1e-12 * b.abs().max(1.0));
        let started = Instant::now();
        let ((times, rows), inst) = run_points(&m, &points)?;
        let seconds = started.elapsed().as_secs_f64();
        let report = inst.run_report().unwrap_or_default();
        runs.push(measure(model, &known, times, rows, seconds, |r| {
            r.scheme = "event-driven";
            r.setting = format!("rtol = {rtol:e}");
            r.steps = report.steps;
            r.rejected = Some(report.rejected);
            r.rhs = Some(report.rhs);
            r.events = Some(report.events);
            r.time_events = Some(report.time_events);
            r.lcp_solves = report.lcp_solves;
        }));
    }
    Ok(Comparison {
        model: model.name.clone(),
        reference,
        runs,
        state_names: model.states.iter().map(|s| s.name.clone()).collect(),
    })
}

impl Comparison {
    /// The table `lcsfmu compare` prints.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{}: errors against {}\n\n| scheme | setting | steps | rejected | RHS evaluations | LCP solves | events | wall time | max error | at rest from |\n|---|---|---|---|---|---|---|---|---|---|\n",
            self.model, self.reference
        );
        let opt = |v: Option<usize>| v.map_or("-".to_string(), |v| v.to_string());
        for r in &self.runs {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {:.3} ms | {:.2e} | {} |\n",
                r.scheme,
                r.setting,
                r.steps,
                opt(r.rejected),
                opt(r.rhs),
                r.lcp_solves,
                match (r.events, r.time_events) {
                    (Some(e), Some(j)) if j > 0 => format!("{e} (+{j} time events)"),
                    (e, _) => opt(e),
                },
                r.seconds * 1e3,
                r.max_error,
                r.rest_from.map_or("-".to_string(), |t| format!("{t:.6}")),
            ));
        }
        out
    }

    /// One panel per state, every run's trajectory in it.
    pub fn figure(&self) -> Figure {
        let panels = self
            .state_names
            .iter()
            .enumerate()
            .map(|(k, name)| Panel {
                title: name.clone(),
                y_label: name.clone(),
                series: self
                    .runs
                    .iter()
                    .map(|r| Series {
                        name: format!("{} {}", r.scheme, r.setting),
                        points: r
                            .times
                            .iter()
                            .zip(&r.states)
                            .map(|(t, x)| (*t, x[k]))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Figure {
            title: format!("{}: time-stepping and event-driven", self.model),
            x_label: "time".into(),
            panels,
        }
    }
}

fn state_vrs(model: &Model) -> Vec<u32> {
    variables::variables(model)
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.kind, variables::Kind::State(_)))
        .map(|(i, _)| i as u32)
        .collect()
}

/// `start, start + step, ...` up to `stop` (products, the last one clipped).
fn grid(start: f64, stop: f64, step: f64) -> Vec<f64> {
    let mut out = vec![start];
    let mut k = 1.0;
    while start + k * step < stop - 1e-12 * stop.abs().max(1.0) {
        out.push(start + k * step);
        k += 1.0;
    }
    out.push(stop);
    out
}

/// Every variable at every communication point of a run.
type Recording = (Vec<f64>, Vec<Vec<f64>>);

/// Runs `model` through the communication `points` (the first is the start),
/// recording every variable; the instance is returned for its report.
fn run_points(model: &Model, points: &[f64]) -> Result<(Recording, Instance), Error> {
    let sim = |e: crate::instance::FmiError| Error::Simulation(e.message);
    let n = variables::variables(model).len() as u32;
    let all: Vec<u32> = (0..n).collect();
    let mut inst = Instance::new(model.clone(), "{compare}");
    inst.setup_experiment(points[0], None).map_err(sim)?;
    inst.enter_initialization_mode().map_err(sim)?;
    inst.exit_initialization_mode().map_err(sim)?;
    let mut row = vec![0.0; all.len()];
    let (mut times, mut rows) = (vec![], vec![]);
    inst.get_reals(&all, &mut row).map_err(sim)?;
    times.push(points[0]);
    rows.push(row.clone());
    for w in points.windows(2) {
        inst.do_step(w[0], w[1] - w[0]).map_err(sim)?;
        inst.get_reals(&all, &mut row).map_err(sim)?;
        times.push(w[1]);
        rows.push(row.clone());
    }
    Ok(((times, rows), inst))
}

/// Time-stepping with communication step `h` up to `stop`; returns the
/// recording and the number of steps.
fn run_theta(model: &Model, h: f64, stop: f64) -> Result<(Recording, usize), Error> {
    let mut m = model.clone();
    m.scheme.method = Method::Theta;
    m.scheme.max_step = None;
    let points = grid(model.experiment.start, stop, h);
    let (recording, _) = run_points(&m, &points)?;
    Ok((recording, points.len() - 1))
}

/// Column `k` of a recording at time `t`, linear between recorded points.
fn interpolate(times: &[f64], rows: &[Vec<f64>], k: usize, t: f64) -> f64 {
    let i = times.partition_point(|s| *s < t);
    if i < times.len() && (times[i] - t).abs() <= 1e-12 * t.abs().max(1.0) {
        return rows[i][k];
    }
    if i == 0 {
        return rows[0][k];
    }
    if i >= times.len() {
        return rows[times.len() - 1][k];
    }
    let (t0, t1) = (times[i - 1], times[i]);
    let a = (t - t0) / (t1 - t0);
    rows[i - 1][k] * (1.0 - a) + rows[i][k] * a
}

fn measure(
    model: &Model,
    known: &Known,
    times: Vec<f64>,
    rows: Vec<Vec<f64>>,
    seconds: f64,
    fill: impl FnOnce(&mut Run),
) -> Run {
    let mut max_error = 0.0f64;
    for (vr, values) in &known.columns {
        for (t, v) in known.time.iter().zip(values) {
            let got = interpolate(&times, &rows, *vr as usize, *t);
            max_error = max_error.max((got - v).abs());
        }
    }
    let states = state_vrs(model);
    let state_rows: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| states.iter().map(|vr| r[*vr as usize]).collect())
        .collect();
    let last = state_rows.last().cloned().unwrap_or_default();
    let settled = |r: &Vec<f64>| r.iter().zip(&last).all(|(a, b)| (a - b).abs() <= 1e-12);
    let first_settled = state_rows
        .iter()
        .rposition(|r| !settled(r))
        .map_or(0, |i| i + 1);
    let rest_from = (first_settled + 1 < times.len()).then(|| times[first_settled]);
    let mut run = Run {
        scheme: "",
        setting: String::new(),
        steps: 0,
        rejected: None,
        rhs: None,
        events: None,
        time_events: None,
        lcp_solves: 0,
        seconds,
        max_error,
        rest_from,
        times,
        states: state_rows,
    };
    fill(&mut run);
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_steps_follow_the_output_step_within_the_run() {
        assert_eq!(default_steps(1e-7, 1e-3), [1e-5, 1e-6, 1e-7]);
        assert_eq!(default_steps(0.01, 10.0), [1.0, 0.1, 0.01]);
        // A run shorter than 100 steps drops the steps longer than itself,
        // never the output step.
        assert_eq!(default_steps(0.1, 2.0), [1.0, 0.1]);
        assert_eq!(default_steps(0.5, 0.2), [0.5]);
    }

    /// Without a `[reference]` table the errors are against a finer theta run,
    /// variable by variable: the theta method then shows its first order
    /// (the reference once paired states with the wrong columns, and every
    /// run of relay_feedback read 2.97).
    #[test]
    fn errors_against_the_fine_run_show_the_first_order() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/relay_feedback.toml");
        let model = crate::model::validate::load(&path).unwrap();
        assert!(model.reference.is_none());
        let opts = Options {
            stop: None,
            steps: vec![1e-2, 1e-3],
            tolerances: vec![1e-8],
        };
        let c = compare(&model, &opts).unwrap();
        let (coarse, fine, events) = (
            c.runs[0].max_error,
            c.runs[1].max_error,
            c.runs[2].max_error,
        );
        let order = (coarse / fine).log10();
        assert!((0.8..1.2).contains(&order), "{coarse} {fine}");
        assert!(events < fine, "event-driven {events} vs theta {fine}");
    }
}
