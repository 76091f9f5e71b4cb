//! Runs N steps of a model through the core Instance (for profilers:
//! `valgrind --tool=callgrind target/release/examples/steps models/X.toml 100000`).
use lcsfmu::instance::Instance;
use lcsfmu::model::validate;
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("model file");
    let n: usize = args
        .next()
        .map_or(1_000_000, |s| s.parse().expect("step count"));
    let m = validate::load(Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
    let h = m.experiment.step;
    let mut i = Instance::new(m, "profile");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    let start = std::time::Instant::now();
    for k in 0..n {
        let t = k as f64 * h;
        i.do_step(t, (k + 1) as f64 * h - t).unwrap();
    }
    println!(
        "{:.1} ns per step",
        start.elapsed().as_nanos() as f64 / n as f64
    );
}
