//! Cost of the event-driven scheme: nanoseconds per right-hand-side evaluation
//! and per located event, through the core [`Instance`] the FMU runs.
//!
//! - *per RHS evaluation*: `rlc_diode` over [0, 1.2] (before its switch: no
//!   event), wall time divided by the evaluations the report counts (the
//!   Runge–Kutta arithmetic, step-size control and guard checks included);
//! - *per located event*: `square_helix` over [0, 10], which switches at
//!   every axis crossing (one per unit of time, none accumulating): the run's
//!   time minus its RHS evaluations at the rate above, divided by the events
//!   (detection, Brent on the Hermite interpolant, the mode the guard
//!   suggests built and refused, the selection LCP, the next mode built).
//!
//! - *per RHS evaluation of a nonlinear mode*: `vdp_saturation` over [0, 4] (two
//!   switches), wall time divided by the evaluations (each one a Newton solve of the free
//!   pairs, the model's programs with their Jacobians by automatic differentiation, the
//!   guards as nonlinear functions; events included).
//!
//! Best of 5 runs of 200 repetitions each; figures depend on the machine and are
//! printed, never asserted. Run: `cargo bench --bench event`.

use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Method, Model};
use std::path::Path;
use std::time::Instant;

fn event_driven(stem: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(format!("{stem}.toml"));
    let mut m = validate::load(&path).unwrap_or_else(|e| panic!("{e}"));
    m.scheme.method = Method::EventDriven;
    m
}

/// Seconds for one run to `stop` in communication steps of `h`, and the report.
fn once(model: &Model, stop: f64, h: f64) -> (f64, lcsfmu::scheme::StepReport) {
    let mut i = Instance::new(model.clone(), "{bench}");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    let n = (stop / h).round() as usize;
    let start = Instant::now();
    for k in 0..n {
        let t = k as f64 * h;
        i.do_step(t, (k + 1) as f64 * h - t).unwrap();
    }
    (start.elapsed().as_secs_f64(), i.run_report().unwrap())
}

/// Best seconds per run over 5 × `reps` runs.
fn best(model: &Model, stop: f64, h: f64, reps: usize) -> (f64, lcsfmu::scheme::StepReport) {
    let mut best = (f64::INFINITY, Default::default());
    for _ in 0..5 {
        let mut total = 0.0;
        let mut report = Default::default();
        for _ in 0..reps {
            let (s, r) = once(model, stop, h);
            total += s;
            report = r;
        }
        if total / (reps as f64) < best.0 {
            best = (total / reps as f64, report);
        }
    }
    best
}

fn main() {
    let rlc = event_driven("rlc_diode");
    let (seconds, r) = best(&rlc, 1.2, 0.1, 200);
    let per_rhs = seconds / r.rhs as f64;
    println!(
        "rlc_diode over [0, 1.2] (rtol {:e}): {} steps, {} RHS evaluations, {} events: {:.1} ns per RHS evaluation",
        rlc.scheme.event.rtol, r.steps, r.rhs, r.events, per_rhs * 1e9
    );
    let vdp = event_driven("vdp_saturation");
    let (seconds, r) = best(&vdp, 4.0, 0.1, 50);
    println!(
        "vdp_saturation (nonlinear modes) over [0, 4]: {} steps, {} RHS evaluations, {} events: {:.1} ns per RHS evaluation",
        r.steps, r.rhs, r.events, seconds / r.rhs as f64 * 1e9
    );
    let helix = event_driven("square_helix");
    let (seconds, r) = best(&helix, 10.0, 0.1, 200);
    let per_event = (seconds - r.rhs as f64 * per_rhs) / r.events as f64;
    println!(
        "square_helix over [0, 10]: {} steps, {} RHS evaluations, {} events, {} LCP solves: {:.0} ns per located event",
        r.steps, r.rhs, r.events, r.lcp_solves, per_event * 1e9
    );
}
