//! Time per step of bead chains for N = 10 ... 10,000.
//!
//! Runs the core [`Instance`], the very code inside the FMU, without the C shell
//! (whose cost, about 30 ns per call, `cargo bench --bench dostep` measures).
//! Scenarios, each with the mean time per step over the run, over its last
//! 200 steps (at rest for the small chains) and the slowest single step:
//!
//! - *struck column*, `models/bead_chain.toml` as bundled: the column rests on
//!   the floor and bead N strikes it; 1 s of model time. Hundreds of contacts
//!   open and close at once as the blow runs down (the band solver).
//! - *falling chain*: the same model with the beads 2 mm apart (start values
//!   set through the FMI interface), landing one after the other; run until
//!   the last has landed and the pile has rested 200 steps.
//! - *friction column*: the struck column whose beads can also slide sideways
//!   (`y_i`, starting with a shear of 1 mm/s between neighbours), with Coulomb
//!   friction `mu = 0.3` at every contact: a dense LCP of 4N unknowns
//!   (`tests/data/friction_column.toml` is N = 10 with its experiment, which
//!   `tests/integration/friction_column.rs` runs through `simulate`).
//! - *coupled column*: the struck column with springs between neighbouring
//!   beads (`k = 100 N/m`, `tests/data/coupled_chain.toml`), which couples `Ŵ`
//!   and makes the LCP dense.
//!
//! The trajectory is the same in every run, so besides the slowest step of
//! the run with the best mean the bench prints the slowest of the per-step
//! best times (`steady max`): the cost of the most expensive step itself,
//! without the pauses a shared machine inflicts on whichever step is running.
//!
//! Run: `cargo bench --bench chain`. Figures depend on the machine; they are
//! printed, never asserted.

use lcsfmu::instance::variables;
use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

const H: f64 = 1e-3;

/// Figures over several runs of one trajectory.
struct Figures {
    /// Best mean time per step.
    mean: f64,
    /// Best mean over the last 200 steps.
    rest: f64,
    /// Slowest step of the run with the best mean.
    slowest: f64,
    /// Slowest of the per-step best times.
    steady: f64,
}

/// Runs `steps` steps `runs` times; `starts` are start values set before
/// initialization.
fn run(model: &Model, starts: &[(u32, f64)], steps: usize, runs: usize) -> Result<Figures, String> {
    let mut best = Figures {
        mean: f64::INFINITY,
        rest: f64::INFINITY,
        slowest: 0.0,
        steady: 0.0,
    };
    let mut fastest = vec![f64::INFINITY; steps];
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
        for (k, f) in fastest.iter_mut().enumerate() {
            if k == steps.saturating_sub(200) {
                rest_started = Instant::now();
            }
            let step_started = Instant::now();
            if let Err(e) = inst.do_step(k as f64 * H, H) {
                return Err(format!("step {k} failed: {}", e.message));
            }
            let t = step_started.elapsed().as_secs_f64();
            slowest = slowest.max(t);
            *f = f.min(t);
        }
        let mean = started.elapsed().as_secs_f64() / steps as f64;
        let rest = rest_started.elapsed().as_secs_f64() / steps.min(200) as f64;
        if mean < best.mean {
            best.mean = mean;
            best.slowest = slowest;
        }
        best.rest = best.rest.min(rest);
    }
    best.steady = fastest.iter().fold(0.0, |a, b| a.max(*b));
    Ok(best)
}

/// The bundled bead chain with friction added (each bead can also slide
/// sideways), written out for `n` beads.
fn friction_chain(n: usize) -> String {
    let mut t = String::new();
    writeln!(t, "[model]\nname = \"friction_chain\"\n").unwrap();
    writeln!(t, "[scheme]\nmethod = \"moreau-jean\"\n").unwrap();
    for (p, v) in [
        ("m", 0.01),
        ("d", 0.01),
        ("g", 9.81),
        ("e", 0.5),
        ("mu", 0.3),
    ] {
        writeln!(t, "[[parameters]]\nname = \"{p}\"\nvalue = {v}\n").unwrap();
    }
    for i in 1..=n {
        let (start, v0) = if i == n {
            ((i - 1) as f64 * 0.01 + 0.005, -1.0)
        } else {
            ((i - 1) as f64 * 0.01, 0.0)
        };
        writeln!(
            t,
            "[[coordinates]]\nname = \"q{i}\"\nvelocity = \"v{i}\"\nstart = {start}\n\
             velocity_start = {v0}\nmass = \"m\"\nforce = \"-m*g\"\n"
        )
        .unwrap();
        writeln!(
            t,
            "[[coordinates]]\nname = \"y{i}\"\nvelocity = \"w{i}\"\n\
             velocity_start = {}\nmass = \"m\"\n",
            i as f64 * 1e-3
        )
        .unwrap();
    }
    for i in 1..=n {
        let gap = if i == 1 {
            "q1".to_string()
        } else {
            format!("q{i} - q{} - d", i - 1)
        };
        writeln!(
            t,
            "[[contacts]]\nname = \"p{i}\"\ngap = \"{gap}\"\nrestitution = \"e\""
        )
        .unwrap();
        let slip = if i == 1 {
            "w1".to_string()
        } else {
            format!("w{i} - w{}", i - 1)
        };
        writeln!(t, "friction = \"mu\"\nslip = \"{slip}\"").unwrap();
        t.push('\n');
    }
    t
}

fn print(name: &str, n: usize, steps: usize, f: &Result<Figures, String>) {
    let f = match f {
        Ok(f) => f,
        Err(e) => return println!("{name:<16} {n:>6} {steps:>6} {e}"),
    };
    let us = |s: f64| s * 1e6;
    println!(
        "{name:<16} {n:>6} {steps:>6} {:>11.1} us {:>11.1} us {:>11.1} us {:>11.1} us {:>9.1} ns",
        us(f.mean),
        us(f.rest),
        us(f.slowest),
        us(f.steady),
        f.mean * 1e9 / n as f64
    );
}

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/bead_chain.toml");
    println!("bead chains, Moreau-Jean, h = 1e-3: time per step (3 runs of each trajectory)");
    println!(
        "{:<16} {:>6} {:>6} {:>14} {:>14} {:>14} {:>14} {:>12}",
        "scenario", "N", "steps", "mean", "last 200", "slowest step", "steady max", "mean / N"
    );
    for n in [10usize, 100, 1000, 10000] {
        let model = validate::load_with_defines(&path, &[("N".into(), n as i64)]).unwrap();
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
            print(name, n, steps, &run(&model, starts, steps, 3));
        }
    }
    // The dense contact problems: 4N unknowns with friction, N coupled
    // through Ŵ⁻¹; their cold solves grow like the cube of the size.
    let coupled = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/coupled_chain.toml");
    for n in [10, 30, 100] {
        let file = Path::new("friction_chain.toml");
        let model = validate::from_str(&friction_chain(n), file).unwrap();
        print("friction column", n, 1000, &run(&model, &[], 1000, 3));
    }
    for n in [10, 30, 100] {
        let model = validate::load_with_defines(&coupled, &[("N".into(), n as i64)]).unwrap();
        print("coupled column", n, 1000, &run(&model, &[], 1000, 3));
    }
}
