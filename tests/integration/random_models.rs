//! Random first-order models in the signal form, as users write them: every
//! step must succeed (issue 28's "the first model a user writes must never
//! fail").
//!
//! Each model has 2–6 states with a dissipative linear part (decay plus a
//! skew coupling), some states starting at exactly 0, sources in `time`
//! (sines, square waves `sign(sin(w time))`, a `step` of time) and smooth
//! nonlinear terms in some derivatives and block inputs, and 1–4 blocks of
//! every type. A block's output acts back on the states its input reads in
//! the monotone direction (`der x_k += -κ c_k z` for an input `e = Σ c_k
//! x_k`, `+κ c_k z` for a diode, whose output is a reverse voltage): the
//! direction in which the step's LCP is positive definite, which is what
//! makes the model well-posed for every step size. `abs`, which is not
//! monotone, acts with a gain below the states' decay, and the latch of
//! `zero_crossing` as a constant push: every model stays bounded, so a step
//! that fails is the scheme's fault, not the model's. Step sizes are drawn
//! log-uniformly from 1e-4 to 0.1, θ from {1, 1/2}, and every third model runs
//! the zero-order hold (`method = "zoh"`) instead, without the smooth nonlinear
//! terms; each model runs 10^4
//! steps through `simulate`, and a single discarded step fails the test with
//! the model's text. The counts run are printed.
//!
//! `LCSFMU_RANDOM_MODELS=N` runs N models (default 60), `LCSFMU_RANDOM_SEED`
//! picks another seed.

use crate::sequence_args::Rng;
use lcsfmu::model::validate;
use lcsfmu::tool::simulate::{self, Options};
use std::fmt::Write;
use std::path::Path;

/// Block types and the sign of their monotone feedback (see the module text).
const BLOCKS: [(&str, f64); 14] = [
    ("sign", -1.0),
    ("relay", -1.0),
    ("coulomb_viscous", -1.0),
    ("diode", 1.0),
    ("max0", -1.0),
    ("max", -1.0),
    ("min", -1.0),
    ("abs", -1.0),
    ("pwa", -1.0),
    ("saturation", -1.0),
    ("dead_zone", -1.0),
    ("backlash", -1.0),
    ("saturated_integrator", -1.0),
    ("zero_crossing", 1.0),
];

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// A number printed so that the model file reads it back exactly.
fn num(v: f64) -> String {
    format!("{v:?}")
}

/// A source in time: a sine, a square wave, a cosine with a phase, or a step.
fn source(rng: &mut Rng) -> String {
    let a = num(uniform(rng, -0.8, 0.8));
    match rng.below(4) {
        0 => format!("{a}*sin({}*time)", num(uniform(rng, 0.5, 20.0))),
        // A square wave, whose jumps (and zeros) are time events.
        1 => format!("{a}*sign(sin({}*time))", num(uniform(rng, 0.5, 20.0))),
        2 => format!(
            "{a}*cos({}*time + {})",
            num(uniform(rng, 0.5, 20.0)),
            num(uniform(rng, 0.0, 3.0))
        ),
        _ => format!("{a}*step(time - {})", num(uniform(rng, 0.0, 2.0))),
    }
}

/// One random model's text and a short description of it.
pub fn random_model(rng: &mut Rng, index: usize) -> (String, String) {
    let nx = 2 + rng.below(5) as usize;
    let nb = 1 + rng.below(4) as usize;
    let h = 10f64.powf(uniform(rng, -4.0, -1.0));
    let theta = if rng.chance(50) { 1.0 } else { 0.5 };
    // der x_i = -a_i x_i + Σ s_ij x_j (s skew) + sources + smooth terms + blocks.
    let mut der: Vec<String> = (0..nx)
        .map(|i| format!("-{}*x{i}", num(uniform(rng, 0.5, 2.0))))
        .collect();
    for i in 0..nx {
        for j in i + 1..nx {
            if rng.chance(40) {
                let s = uniform(rng, -2.0, 2.0);
                let _ = write!(der[i], " + {}*x{j}", num(s));
                let _ = write!(der[j], " - {}*x{i}", num(s));
            }
        }
    }
    // Every third model runs the zero-order hold, which takes models affine in
    // their states: its smooth nonlinear terms are drawn and left out (chosen
    // by index and with the same draws: the random stream stays as it was).
    let zoh = index.is_multiple_of(3);
    let mut nonlinear = false;
    let mut sources = false;
    for (i, d) in der.iter_mut().enumerate() {
        if rng.chance(50) {
            let _ = write!(d, " + {}", source(rng));
            sources = true;
        }
        if rng.chance(40) {
            let j = rng.below(nx as u64);
            let c = num(uniform(rng, 0.01, 0.1));
            let term = match rng.below(4) {
                0 => format!(" - {c}*x{i}^3"),
                1 => format!(" + {c}*sin(x{j})"),
                2 => format!(" + {c}*x{j}/(1 + x{j}^2)"),
                _ => format!(" - {c}*tanh(x{i})"),
            };
            if !zoh {
                d.push_str(&term);
                nonlinear = true;
            }
        }
    }
    let kappa = uniform(rng, 0.2, 2.0);
    let mut blocks = String::new();
    let mut kinds = Vec::new();
    for b in 0..nb {
        let (kind, sign) = rng.pick(&BLOCKS);
        kinds.push(kind);
        // The input reads one or two states, with coefficients of size >= 0.5.
        let k0 = rng.below(nx as u64) as usize;
        let k1 = (k0 + 1 + rng.below(nx as u64 - 1) as usize) % nx;
        let reads: Vec<(usize, f64)> = if rng.chance(50) {
            vec![(k0, uniform(rng, 0.5, 1.5))]
        } else {
            vec![(k0, uniform(rng, 0.5, 1.5)), (k1, uniform(rng, -1.5, 1.5))]
        };
        let mut input: Vec<String> = reads
            .iter()
            .map(|(k, c)| format!("{}*x{k}", num(*c)))
            .collect();
        if rng.chance(30) {
            input.push(source(rng));
            sources = true;
        }
        if rng.chance(30) {
            // Along the first state's direction: the input stays monotone in it.
            let (k, c) = reads[0];
            if !zoh {
                input.push(format!("{}*sin(x{k})", num(0.2 * c)));
                nonlinear = true;
            }
        }
        let name = format!("z{b}");
        let _ = writeln!(
            blocks,
            "\n[[blocks]]\nname = \"{name}\"\ntype = \"{kind}\"\ninput = \"{}\"",
            input.join(" + ")
        );
        match kind {
            "relay" => blocks.push_str("on = 1.0\noff = -0.5\n"),
            "coulomb_viscous" => {
                let _ = writeln!(blocks, "Fc = {}\nG = 0.2", num(uniform(rng, 0.1, 1.0)));
            }
            "max" | "min" => {
                let _ = writeln!(blocks, "input2 = \"{}\"", source(rng));
                sources = true;
            }
            "pwa" => {
                let _ = writeln!(
                    blocks,
                    "k0 = 0.5\nbreakpoints = [-0.5, {}]\nslopes = [{}, {}]",
                    num(uniform(rng, 0.0, 1.0)),
                    num(uniform(rng, 0.1, 2.0)),
                    num(uniform(rng, 0.1, 2.0))
                );
            }
            "saturation" | "dead_zone" | "saturated_integrator" => {
                let _ = writeln!(
                    blocks,
                    "lo = {}\nhi = {}",
                    num(-uniform(rng, 0.1, 1.0)),
                    num(uniform(rng, 0.1, 1.0))
                );
            }
            "backlash" => {
                let _ = writeln!(blocks, "d = {}", num(uniform(rng, 0.0, 0.5)));
            }
            _ => {}
        }
        // The output acts back on the states the input reads, monotonically;
        // the latch's output is a constant push once set.
        for (k, c) in &reads {
            // `|e|` pushes e down on both sides: against e's own decay (at
            // least 0.5 per unit) only a gain below it keeps the model from
            // diverging (|c|² <= 4.5 here), which was found by this test.
            let g = match kind {
                "zero_crossing" => 0.1,
                "abs" => -0.1 * c,
                _ => sign * kappa * c,
            };
            let _ = write!(der[*k], " + {}*{name}", num(g));
        }
    }
    let scheme = if zoh {
        "method = \"zoh\"".to_string()
    } else {
        format!("theta = {}", num(theta))
    };
    let mut text = format!(
        "[model]\nname = \"random_{index}\"\n\n[experiment]\nstop = {}\nstep = {}\n\n[scheme]\n{scheme}\n",
        num(1e4 * h),
        num(h),
    );
    for (i, d) in der.iter().enumerate() {
        // About half the states start at exactly 0.
        let start = if rng.chance(50) {
            0.0
        } else {
            uniform(rng, -2.0, 2.0)
        };
        let _ = writeln!(
            text,
            "\n[[states]]\nname = \"x{i}\"\nstart = {}\nder = \"{d}\"",
            num(start)
        );
    }
    text.push_str(&blocks);
    let what = format!(
        "{nx} states, blocks {kinds:?}, h = {h:.3e}, {scheme}{}{}",
        if sources { ", sources in time" } else { "" },
        if nonlinear { ", nonlinear" } else { "" }
    );
    (text, what)
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_models_step_without_a_discard() {
    let count = env_or("LCSFMU_RANDOM_MODELS", 60) as usize;
    let mut rng = Rng(env_or("LCSFMU_RANDOM_SEED", 0x005e_ed28) | 1);
    let (mut steps, mut newton, mut linear, mut held) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for index in 0..count {
        let (text, what) = random_model(&mut rng, index);
        let model = validate::from_str(&text, Path::new("random.toml"))
            .unwrap_or_else(|e| panic!("model {index} ({what}) is refused: {e}\n{text}"));
        if model.nonlinear_dynamics() {
            newton += 1;
        } else {
            linear += 1;
        }
        held += usize::from(model.scheme.method == lcsfmu::model::Method::Zoh);
        let trajectory = simulate::run(model, "{random}", &Options::default())
            .unwrap_or_else(|e| panic!("model {index} ({what}): {e}\n{text}"));
        steps += trajectory.rows.len() - 1;
        if let Some(why) = trajectory.failure {
            failures.push(format!("model {index} ({what}): {why}\n{text}"));
        }
    }
    println!(
        "random models: {count} run ({newton} with nonlinear dynamics or sources in time, \
         {linear} linear; {held} under the zero-order hold), {steps} steps, {} with a discarded step",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The models in `tests/data/random/` whose name starts with `prefix`.
fn found(prefix: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/random");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".toml")
        })
        .collect();
    files.sort();
    files
}

fn runs_to_its_end(path: &Path) {
    let model = validate::load(path).unwrap_or_else(|e| panic!("{e}"));
    let t = simulate::run(model, "{random}", &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(t.failure, None, "{}", path.display());
}

/// Every model the random test found failing, once fixed: each runs to its
/// end (a stuck state at zero with a relay's output, states decaying into
/// the subnormal range, a free multiplier carrying a coupled one's rounding,
/// an LCP whose backlash or diode kept its multiplier on a bound by a
/// neighbour's scale, a multiplier's rounding reaching a state through two
/// others: see each file's first lines).
#[test]
fn models_found_by_the_random_test_run_to_their_end() {
    let files = found("found_");
    assert!(files.len() >= 7);
    for path in files {
        runs_to_its_end(&path);
    }
}

/// Found failing and not fixed yet, named `seed*.toml` (see each file's first
/// lines; none at present): kept here so that the fix is seen when it lands
/// (`cargo test -- --ignored`), then renamed `found_*.toml`.
#[test]
#[ignore = "open cases of the random test (issue 28)"]
fn models_found_failing_and_still_open() {
    for path in found("seed") {
        runs_to_its_end(&path);
    }
}
