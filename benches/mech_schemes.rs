//! Time per step of the nonlinear mechanical models under each scheme that
//! steps them: `moreau-jean`, `moreau-jean-projected` and `semi-explicit`
//! (without restitution, which it refuses), on `pendulum_stop` (nonlinear
//! force, linear gap) and `rocking_block` (nonlinear gaps and slips), beside
//! `bouncing_ball` (the linear Moreau–Jean step of one coordinate and one
//! contact) for scale.
//!
//! Runs the core [`Instance`], the code inside the FMU, without the C shell
//! (about 30 ns per call, measured by `cargo bench --bench dostep`). Each
//! trajectory (the model's own experiment, h = 1e-3) runs 5 times; printed:
//! the best mean time per step (`lcsfmu simulate -v` and
//! `tests/integration/mech_schemes.rs` print the LCP solves per step).
//!
//! Run: `cargo bench --bench mech_schemes`. Figures depend on the machine;
//! they are printed, never asserted.

use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};
use std::path::PathBuf;
use std::time::Instant;

fn model(stem: &str, method: &str) -> Model {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(format!("{stem}.toml"));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text = text.replace(
        "method = \"moreau-jean\"\n",
        &format!("method = \"{method}\"\n"),
    );
    if method == "semi-explicit" {
        text = text.replace("restitution = \"e\"\n", "");
    }
    validate::from_str(&text, &path).unwrap_or_else(|e| panic!("{e}"))
}

/// Mean nanoseconds per `do_step` over one run of the experiment.
fn run(m: &Model) -> (f64, usize) {
    let (h, stop) = (m.experiment.step, m.experiment.stop);
    let mut i = Instance::new(m.clone(), "{bench}");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    let steps = (stop / h).round() as usize;
    let start = Instant::now();
    for k in 0..steps {
        i.do_step(k as f64 * h, h).unwrap();
    }
    (start.elapsed().as_secs_f64() * 1e9 / steps as f64, steps)
}

fn main() {
    println!(
        "ns per step (core Instance, best mean of 5 runs of the model's experiment, h = 1e-3):"
    );
    let cases = [
        ("bouncing_ball", "moreau-jean"),
        ("pendulum_stop", "moreau-jean"),
        ("pendulum_stop", "moreau-jean-projected"),
        ("pendulum_stop", "semi-explicit"),
        ("rocking_block", "moreau-jean"),
        ("rocking_block", "moreau-jean-projected"),
        ("rocking_block", "semi-explicit"),
    ];
    for (stem, method) in cases {
        let m = model(stem, method);
        let mut best = f64::INFINITY;
        let mut steps = 0;
        for _ in 0..5 {
            let (ns, n) = run(&m);
            best = best.min(ns);
            steps = n;
        }
        println!("  {stem:<15} {method:<23} {best:>8.0} ns   ({steps} steps)");
    }
}
