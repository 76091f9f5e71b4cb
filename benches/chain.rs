//! Time per step of the bead chain (`models/bead_chain.toml`) for N = 10 ... 10,000.
//!
//! Runs the core [`Instance`], the very code inside the FMU, without the C shell
//! (whose cost, about 30 ns per call, `cargo bench --bench dostep` measures).
//! Two scenarios, each with the mean time per step over the run, over its last
//! 200 steps (the chain at rest: every contact closed, an LCP of size N solved
//! every step) and the slowest single step:
//!
//! - *struck column*, the model as bundled: the column rests on the floor and
//!   bead N strikes it; 1 s of model time. Hundreds of contacts open and close
//!   at once as the blow runs down, where the band solver's block pivoting may
//!   need many active-set solves in one step.
//! - *falling chain*: the beads start 2 mm apart (start values set through the
//!   FMI interface) and land one after the other; run until the last has
//!   landed and the pile has rested 200 steps. Contacts change a few at a time.
//!
//! Run: `cargo bench --bench chain`. Figures depend on the machine; they are
//! printed, never asserted.

use lcsfmu::fmi2::variables;
use lcsfmu::fmi2::Instance;
use lcsfmu::model::{validate, Model};
use std::path::Path;
use std::time::Instant;

const H: f64 = 1e-3;

/// Mean, at-rest mean and slowest step of the run with the best mean.
struct Figures {
    mean: f64,
    rest: f64,
    slowest: f64,
}

/// Runs `steps` steps `runs` times; `starts` are start values set before
/// initialization.
fn run(model: &Model, starts: &[(u32, f64)], steps: usize, runs: usize) -> Figures {
    let mut best = Figures {
        mean: f64::INFINITY,
        rest: f64::INFINITY,
        slowest: 0.0,
    };
    for _ in 0..runs {
        let mut inst = Instance::new(model.clone(), "bench");
        inst.setup_experiment(0.0, None).unwrap();
        for &(vr, v) in starts {
            inst.set_reals(&[vr], &[v]).unwrap();
        }
        inst.enter_initialization_mode().unwrap();
        inst.exit_initialization_mode().unwrap();
        let started = Instant::now();
        let mut rest_started = started;
        let mut slowest = 0.0f64;
        for k in 0..steps {
            if k == steps - 200 {
                rest_started = Instant::now();
            }
            let step_started = Instant::now();
            inst.do_step(k as f64 * H, H).unwrap();
            slowest = slowest.max(step_started.elapsed().as_secs_f64());
        }
        let mean = started.elapsed().as_secs_f64() / steps as f64;
        let rest = rest_started.elapsed().as_secs_f64() / 200.0;
        if mean < best.mean {
            best.mean = mean;
            best.slowest = slowest;
        }
        best.rest = best.rest.min(rest);
    }
    best
}

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/bead_chain.toml");
    println!("bead chain, Moreau-Jean, h = 1e-3: time per step (best mean of 3 runs; 1 run at N = 10000)");
    println!(
        "{:<15} {:>6} {:>7} {:>14} {:>14} {:>14}",
        "scenario", "N", "steps", "mean", "at rest", "slowest step"
    );
    for n in [10i64, 100, 1000, 10000] {
        let model = validate::load_with_defines(&path, &[("N".into(), n)]).unwrap();
        let runs = if n >= 10000 { 1 } else { 3 };
        let vr = |name: &str| {
            variables::variables(&model)
                .iter()
                .position(|v| v.name == name)
                .unwrap() as u32
        };
        let mut falling: Vec<(u32, f64)> = (1..=n)
            .map(|i| (vr(&format!("q{i}")), (i - 1) as f64 * 0.012 + 0.002))
            .collect();
        falling.push((vr(&format!("v{n}")), 0.0));
        // Until the top bead has fallen the 2 mm gaps of the beads below it.
        let fall = ((2.0 * 0.002 * n as f64 / 9.81).sqrt() / H) as usize + 400;
        for (name, starts, steps) in [
            ("struck column", &[][..], 1000),
            ("falling chain", &falling[..], fall),
        ] {
            let f = run(&model, starts, steps, runs);
            println!(
                "{name:<15} {n:>6} {steps:>7} {:>11.1} us {:>11.1} us {:>11.1} us",
                f.mean * 1e6,
                f.rest * 1e6,
                f.slowest * 1e6
            );
        }
    }
}
