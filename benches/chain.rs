//! Time per step of the bead chain (`models/bead_chain.toml`) for N = 10 ... 10,000.
//!
//! Runs the core [`Instance`], the very code inside the FMU, without the C shell
//! (whose cost, about 30 ns per call, `cargo bench --bench dostep` measures).
//! The column of beads is struck from above and settles, so the figures cover
//! both phases: the whole run (1 s of model time: the blow travelling down the
//! column, active sets changing) and the last 200 steps with the column at rest
//! (every contact closed: an LCP of size N solved every step).
//!
//! Run: `cargo bench --bench chain`. Figures depend on the machine; they are
//! printed, never asserted.

use lcsfmu::fmi2::Instance;
use lcsfmu::model::validate;
use std::path::Path;
use std::time::Instant;

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/bead_chain.toml");
    println!("bead chain, Moreau-Jean, h = 1e-3, time per step (best of 3 runs)");
    println!(
        "{:>6} {:>7} {:>14} {:>14}",
        "N", "steps", "whole run", "at rest"
    );
    for n in [10i64, 100, 1000, 10000] {
        let model = validate::load_with_defines(&path, &[("N".into(), n)]).unwrap();
        let h = 1e-3;
        let steps = 1000;
        let mut best = (f64::INFINITY, f64::INFINITY);
        for _ in 0..3 {
            let mut inst = Instance::new(model.clone(), "bench");
            inst.setup_experiment(0.0, None).unwrap();
            inst.enter_initialization_mode().unwrap();
            inst.exit_initialization_mode().unwrap();
            let started = Instant::now();
            let mut rest_started = started;
            for k in 0..steps {
                if k == steps - 200 {
                    rest_started = Instant::now();
                }
                inst.do_step(k as f64 * h, h).unwrap();
            }
            let whole = started.elapsed().as_secs_f64() / steps as f64;
            let rest = rest_started.elapsed().as_secs_f64() / 200.0;
            best = (best.0.min(whole), best.1.min(rest));
        }
        println!(
            "{n:>6} {steps:>7} {:>11.1} us {:>11.1} us",
            best.0 * 1e6,
            best.1 * 1e6
        );
    }
}
