//! Nanoseconds per `fmi2DoStep` called through the C ABI of built FMUs, and per
//! `fmi3DoStep` of the same models built with `--fmi 3` (same core step, the
//! FMI 3.0 shell; no Event Mode), in the same rounds.
//!
//! Builds the FMUs with the library's own `export::build` (reporting how long a
//! build takes with a warm cache, unchanged and after an edit of the model),
//! extracts each binary, `dlopen`s it and calls the FMI functions as a C master
//! would: no Python, no Rust wrapper in between. A linear model without
//! complementarity (`x' = -x`) built the same way gives the floor that the FMI
//! shell and the theta step cost without any LCP.
//!
//! A peer from outside the project can be measured in the same run: set
//! `LCSFMU_PEER_BOUNCINGBALL` to the `BouncingBall.fmu` of the Modelica Reference
//! FMUs (built from modelica/Reference-FMUs with `-DFMI_VERSION=2
//! -DCMAKE_BUILD_TYPE=Release`; nothing of it is in this repository). It is
//! stepped with its own fixed solver step, 1 ms, so each `fmi2DoStep` is one
//! explicit Euler step without any LCP; without the variable that line and its
//! ratios are left out.
//!
//! The nonlinear step (Newton–Josephy, `vdp_saturation`) is measured beside
//! `vdp_linear`, the same model with its one nonlinear term made linear
//! (`mu*(1 - x1^2)*x2` -> `mu*x2`): same sizes, same blocks, the linear step.
//!
//! The nonlinear Moreau–Jean step (`pendulum_stop`, a Newton loop per step)
//! is measured beside `bouncing_ball`, a linear mechanical model of the same
//! size (one coordinate, one contact).
//!
//! Each model is also built with the prebuilt runtime (`--runtime prebuilt`:
//! one library for every model, the model read from `resources/model.json` at
//! instantiation, run-time sizes) when the tool has one (`LCSFMU_RUNTIME_DIR`,
//! from `scripts/build-runtime.sh`), and both binaries are stepped in the same
//! rounds; the build times of that route are printed too.
//!
//! Three ratios of issue 28 are printed last, each as the time ratio of this
//! run and the ratio of instructions per step, counted by callgrind when
//! valgrind is installed (`dostep/count.rs`): deterministic where the timings
//! are not, so a regression shows the day it lands. The smallest step,
//! `sign_spiral` (two states, two pairs), is the LCP's cost at its least: its
//! time over `decay`'s is held under 2.4. `bouncing_ball` (Moreau–Jean) over
//! the Reference FMUs' BouncingBall (the same physics), with the peer set, is
//! held under 2. The prebuilt runtime's step over the compiled one on
//! `sign_spiral`, `coulomb_friction`, `relay_feedback` and
//! `saturated_integrator` (which it runs at compile-time sizes) is held under 1.3.
//!
//! Run: `cargo bench --bench dostep`. Figures depend on the machine; they are
//! printed, never asserted. Times are CPU time of the stepping thread (see
//! `dostep/fmu.rs`). The five rounds visit every FMU in turn, so a burst of
//! load on a shared machine hits all of them alike, and the ratios compare
//! minima taken over the same stretch of time.

// Beside this file rather than in `benches/`, where cargo would take them for benches.
#[path = "dostep/count.rs"]
mod count;
#[path = "dostep/fmu.rs"]
mod fmu;

use fmu::Fmu;
use lcsfmu::fmi::export::{self, BuildEnv};
use lcsfmu::fmi::runtimes::{self, Runtime};
use lcsfmu::fmi::version::FmiVersion;
use lcsfmu::model::{validate, Model};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `vdp_saturation` with its nonlinear term made linear: the linear model of
/// the same size.
fn vdp_linear(root: &Path) -> (Model, PathBuf) {
    let p = root.join("models").join("vdp_saturation.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    let text = text
        .replace("mu*(1 - x1^2)*x2", "mu*x2")
        .replace("name = \"vdp_saturation\"", "name = \"vdp_linear\"");
    let model = validate::from_str(&text, &p).unwrap();
    assert!(!model.nonlinear_dynamics());
    (model, p)
}

fn timed_build(model: &Model, origin: &Path, out: &Path, env: &BuildEnv) -> f64 {
    let start = Instant::now();
    export::build(model, origin, out, env).unwrap_or_else(|e| panic!("{e}"));
    start.elapsed().as_secs_f64()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target").join("bench-fmus");
    std::fs::create_dir_all(&dir).unwrap();
    let env = BuildEnv::from_env();
    let decay = "[model]\nname = \"decay\"\ndescription = \"x' = -x, no complementarity\"\n[[states]]\nname = \"x\"\nstart = 1.0\n[system]\nA = [[-1]]\n";
    let models: Vec<(Model, PathBuf)> = [
        "sign_spiral",
        "coulomb_friction",
        "rlc_diode",
        "saturated_integrator",
        // The signal form: a sliding mode, a friction block with an algebraic
        // variable, two blocks of three pairs each.
        "relay_feedback",
        "friction_block",
        "servo_deadzone",
        // Nonlinear dynamics: the Newton step.
        "vdp_saturation",
        // Mechanical, one coordinate and one contact: the linear Moreau–Jean
        // step and the Newton loop (a nonlinear gravity torque).
        "bouncing_ball",
        "pendulum_stop",
    ]
    .iter()
    .map(|s| {
        let p = root.join("models").join(format!("{s}.toml"));
        (validate::load(&p).unwrap(), p)
    })
    .chain(std::iter::once(vdp_linear(&root)))
    .chain(std::iter::once((
        validate::from_str(decay, Path::new("decay.toml")).unwrap(),
        PathBuf::from("decay.toml"),
    )))
    .collect();

    println!("lcsfmu build with a warm cache (seconds):");
    for (model, origin) in &models {
        let out = dir.join(format!("{}.fmu", model.name));
        timed_build(model, origin, &out, &env);
        let again = timed_build(model, origin, &out, &env);
        let mut edited = model.clone();
        edited.description.push_str(" (edited)");
        let changed = timed_build(&edited, origin, &dir.join("edited.fmu"), &env);
        println!(
            "  {:<22} unchanged {again:>5.2}   after an edit {changed:>5.2}",
            model.name
        );
    }
    // Leave the template built for the unedited last model.
    timed_build(
        &models[0].0,
        &models[0].1,
        &dir.join(format!("{}.fmu", models[0].0.name)),
        &env,
    );

    let prebuilt_env = BuildEnv {
        runtime: Some(Runtime::Prebuilt),
        ..env.clone()
    };
    let has_runtime = runtimes::prebuilt("linux64").unwrap().is_some();
    if has_runtime {
        println!("\nlcsfmu build --runtime prebuilt (seconds, best of 3; no compiler):");
        for (model, origin) in &models {
            let out = dir.join(format!("{}-prebuilt.fmu", model.name));
            let best = (0..3)
                .map(|_| timed_build(model, origin, &out, &prebuilt_env))
                .fold(f64::INFINITY, f64::min);
            println!("  {:<22} {best:>5.3}", model.name);
        }
    } else {
        println!("\n(no prebuilt runtime: set LCSFMU_RUNTIME_DIR, see scripts/build-runtime.sh)");
    }

    // Name, step size and binary of every FMU measured.
    let mut fmus: Vec<(String, f64, Fmu)> = Vec::new();
    for (model, _) in &models {
        let fmu = Fmu::load(&dir.join(format!("{}.fmu", model.name)), &dir, "");
        fmus.push((model.name.clone(), model.experiment.step, fmu));
        if has_runtime {
            let path = dir.join(format!("{}-prebuilt.fmu", model.name));
            let fmu = Fmu::load(&path, &dir, "-prebuilt");
            let name = format!("{} (prebuilt)", model.name);
            fmus.push((name, model.experiment.step, fmu));
        }
    }
    // The FMI 3.0 builds of three of them, loaded from a directory of their own
    // (their binaries have the FMI 2.0 ones' names).
    let env3 = BuildEnv {
        fmi: FmiVersion::V3,
        runtime: Some(Runtime::Compiled),
        ..env.clone()
    };
    let dir3 = dir.join("fmi3");
    std::fs::create_dir_all(&dir3).unwrap();
    for (model, origin) in models
        .iter()
        .filter(|(m, _)| ["sign_spiral", "coulomb_friction", "decay"].contains(&m.name.as_str()))
    {
        let out = dir3.join(format!("{}.fmu", model.name));
        println!(
            "  {:<22} --fmi 3 {:>5.2}",
            model.name,
            timed_build(model, origin, &out, &env3)
        );
        let fmu = Fmu::load(&out, &dir3, "");
        fmus.push((
            format!("{} (fmi3DoStep)", model.name),
            model.experiment.step,
            fmu,
        ));
    }
    if let Some(peer) = std::env::var_os("LCSFMU_PEER_BOUNCINGBALL") {
        let peer_dir = dir.join("peer");
        std::fs::create_dir_all(&peer_dir).unwrap();
        // The Reference FMUs' fixed solver step: one Euler step per doStep.
        let fmu = Fmu::load(Path::new(&peer), &peer_dir, "");
        fmus.push(("BouncingBall (Reference FMUs)".into(), 1e-3, fmu));
    }
    let mut best = vec![f64::INFINITY; fmus.len()];
    for _ in 0..5 {
        for ((_, h, fmu), best) in fmus.iter().zip(best.iter_mut()) {
            *best = best.min(fmu.ns_per_step(*h, 1_000_000));
        }
    }
    println!("\nns per fmi2DoStep (fmi3DoStep where marked) through the C ABI (best of 5 rounds of 1e6 steps):");
    for ((name, h, _), ns) in fmus.iter().zip(&best) {
        println!("  {name:<30} h = {h:<6} {ns:>7.1} ns");
    }
    let ns = |name: &str| {
        fmus.iter()
            .position(|(n, _, _)| n.starts_with(name))
            .map(|i| best[i])
    };
    println!("\nratios measured in this run:");
    for (model, _) in models.iter().filter(|_| has_runtime) {
        let prebuilt = format!("{} (prebuilt)", model.name);
        if let (Some(p), Some(c)) = (ns(&prebuilt), ns(&model.name)) {
            println!("  {:<18} prebuilt / compiled {:>5.2}", model.name, p / c);
        }
    }
    if let (Some(a), Some(b)) = (ns("vdp_saturation"), ns("vdp_linear")) {
        println!(
            "  vdp_saturation     / vdp_linear {:>5.2}   (Newton step / linear step, same sizes)",
            a / b
        );
    }
    if let (Some(a), Some(b)) = (ns("pendulum_stop"), ns("bouncing_ball")) {
        println!(
            "  pendulum_stop      / bouncing_ball {:>5.2}   (Moreau–Jean with Newton / linear, 1 coordinate, 1 contact)",
            a / b
        );
    }
    for name in ["sign_spiral", "coulomb_friction", "decay"] {
        let three = format!("{name} (fmi3DoStep)");
        let pos = |n: &str| fmus.iter().position(|(m, _, _)| m == n).map(|i| best[i]);
        if let (Some(a), Some(b)) = (pos(&three), pos(name)) {
            println!("  {three:<30} / fmi2DoStep {:>5.2}", a / b);
        }
    }
    // One compiled driver for the instruction counts below (or why there is none).
    let driver = count::driver(&root, &dir);
    let counts = |names: [&str; 2]| -> Result<[u64; 2], String> {
        let driver = driver.as_ref().map_err(String::clone)?;
        let mut n = [0u64; 2];
        for (k, name) in names.iter().enumerate() {
            let (_, _, fmu) = fmus.iter().find(|(n, _, _)| n == name).unwrap();
            let resources = fmu.resources.to_str().unwrap();
            let guid = fmu.guid.to_str().unwrap();
            n[k] = count::per_step(driver, &fmu.so, guid, resources, 1e-3, 10_000)?;
        }
        Ok(n)
    };
    smallest_step(&fmus, &best, &counts);
    for lcp in ["sign_spiral", "coulomb_friction"] {
        let (Some(a), Some(decay)) = (ns(lcp), ns("decay")) else {
            continue;
        };
        print!("  {lcp:<18} / decay {:>5.2}", a / decay);
        match ns("BouncingBall") {
            Some(ball) => println!("   / BouncingBall {:>5.2}", a / ball),
            None => println!("   (set LCSFMU_PEER_BOUNCINGBALL for the peer ratio)"),
        }
    }
    against_the_peer(&fmus, &best, &counts);
    prebuilt_against_compiled(&fmus, &best, &counts);
}

/// Instructions per step of two FMUs (by name), counted by callgrind.
type Counts<'a> = dyn Fn([&str; 2]) -> Result<[u64; 2], String> + 'a;

/// A time ratio of this run and the instruction ratio of the same two FMUs.
fn ratio_lines(
    label: &str,
    names: [&str; 2],
    fmus: &[(String, f64, Fmu)],
    best: &[f64],
    counts: &Counts,
) {
    let find = |name: &str| fmus.iter().position(|(n, _, _)| n == name).unwrap();
    let (a, b) = (best[find(names[0])], best[find(names[1])]);
    println!(
        "  {label:<22} time          {a:>7.1} ns / {b:>5.1} ns = {:.2}",
        a / b
    );
    match counts(names) {
        Ok([a, b]) => println!(
            "  {label:<22} instructions  {a:>7} / {b:>7} = {:.2}",
            a as f64 / b as f64
        ),
        Err(why) => println!("  {label:<22} instructions  not counted: {why}"),
    }
}

/// The smallest LCP step against the LCP-free one: time ratio of this run,
/// and instructions per step counted by callgrind (h = 1e-3, 1e4 steps, as
/// `scripts/count-instructions.sh` counts them).
fn smallest_step(fmus: &[(String, f64, Fmu)], best: &[f64], counts: &Counts) {
    let has = |name: &str| fmus.iter().any(|(n, _, _)| n == name);
    if !(has("sign_spiral") && has("decay")) {
        return;
    }
    println!("\nthe smallest step, sign_spiral / decay (issue 28 holds it within 2.4x):");
    ratio_lines(
        "sign_spiral / decay",
        ["sign_spiral", "decay"],
        fmus,
        best,
        counts,
    );
}

/// The Moreau–Jean step of `bouncing_ball` against the Reference FMUs'
/// BouncingBall (one explicit Euler step per call, no LCP), the same physics:
/// issue 28 holds it within 2x.
fn against_the_peer(fmus: &[(String, f64, Fmu)], best: &[f64], counts: &Counts) {
    let peer = "BouncingBall (Reference FMUs)";
    if !fmus.iter().any(|(n, _, _)| n == peer) {
        println!("\n(set LCSFMU_PEER_BOUNCINGBALL for bouncing_ball against the Reference FMUs' BouncingBall)");
        return;
    }
    println!(
        "\nbouncing_ball against the Reference FMUs' BouncingBall (issue 28 holds it within 2x):"
    );
    ratio_lines(
        "bouncing_ball / peer",
        ["bouncing_ball", peer],
        fmus,
        best,
        counts,
    );
}

/// The prebuilt runtime's step against the compiled one on the small
/// first-order models, which it runs at compile-time sizes
/// (`Instance::specialize_common`): issue 28 holds it within 1.3x.
fn prebuilt_against_compiled(fmus: &[(String, f64, Fmu)], best: &[f64], counts: &Counts) {
    let models = [
        "sign_spiral",
        "coulomb_friction",
        "relay_feedback",
        "saturated_integrator",
    ];
    if !fmus.iter().any(|(n, _, _)| n == "sign_spiral (prebuilt)") {
        return;
    }
    println!("\nthe prebuilt runtime / the compiled binary (issue 28 holds it within 1.3x):");
    for model in models {
        let prebuilt = format!("{model} (prebuilt)");
        ratio_lines(model, [&prebuilt, model], fmus, best, counts);
    }
}
