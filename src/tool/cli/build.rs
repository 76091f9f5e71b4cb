//! `lcsfmu build MODEL.toml... [-o OUT]`.

use crate::error::Error;
use crate::fmi::description;
use crate::fmi::export::{self, BuildEnv};
use crate::fmi::runtimes::Runtime;
use crate::fmi::version::{parse_interfaces, FmiVersion, Interfaces};
use crate::model::validate;
use crate::tool::conformance;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// How many steps of the default experiment (at most) a build runs before it
/// says it built the FMU: cheap on the core (microseconds each for a small
/// model), and enough to meet what fails early (a degenerate start, a Newton
/// step that cannot leave the initial state).
const FIRST_STEPS: usize = 100;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Model files (TOML, or SPICE netlists: .cir, .sp, .net).
    #[arg(required = true)]
    models: Vec<PathBuf>,
    /// Output .fmu file (one model) or directory (several); default: <model name>.fmu here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Cargo target directory shared by FMU builds (default: target/fmu-build in the lcsfmu sources).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Override a size declared in the models' [defines] (NAME=INTEGER, repeatable).
    #[arg(long = "define", value_name = "NAME=INTEGER", value_parser = super::parse_define)]
    defines: Vec<(String, i64)>,
    /// Replace the model file's [scheme] method (theta, zoh, event-driven, moreau-jean, moreau-jean-projected,
    /// moreau-jean-direct-projection,
    /// semi-explicit); the file's other scheme settings stay.
    #[arg(long = "scheme", value_name = "METHOD")]
    scheme: Option<String>,
    /// FMI version of the FMU: 2 (FMI 2.0, the default) or 3 (FMI 3.0).
    #[arg(long = "fmi", value_name = "VERSION", default_value = "2", value_parser = FmiVersion::parse)]
    fmi: FmiVersion,
    /// Interface types: cs (Co-Simulation, the default), me (Model Exchange: linear first-order
    /// models, FMI 2.0 or 3.0), or cs,me (both in one FMU).
    #[arg(long = "interface", value_name = "TYPES", default_value = "cs", value_parser = parse_interfaces)]
    interface: Interfaces,
    /// How the FMU's binary is made: `compiled` for this model with cargo (the default when cargo is
    /// found; a faster step), or `prebuilt`, the runtime this lcsfmu carries, copied (no toolchain,
    /// a fraction of a second; it reads the model from the FMU's resources; FMI 2.0 only). The same
    /// numbers either way.
    #[arg(long, value_enum, value_name = "KIND")]
    runtime: Option<RuntimeArg>,
    /// Show cargo's output.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum RuntimeArg {
    Compiled,
    Prebuilt,
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    let mut env = BuildEnv::from_env();
    if let Some(dir) = args.cache_dir {
        env.cache_dir = dir;
    }
    env.verbose = args.verbose;
    env.fmi = args.fmi;
    env.interfaces = args.interface;
    env.runtime = args.runtime.map(|r| match r {
        RuntimeArg::Compiled => Runtime::Compiled,
        RuntimeArg::Prebuilt => Runtime::Prebuilt,
    });
    let many = args.models.len() > 1;
    let bar = many
        .then(|| {
            super::progress::bar(
                args.models.len() as u64,
                "{elapsed_precise} [{bar:40}] {pos}/{len} FMUs built {msg}",
            )
        })
        .flatten();
    for path in &args.models {
        if let Some(b) = &bar {
            b.set_message(path.display().to_string());
        }
        let model = validate::load_with(path, &args.defines, args.scheme.as_deref())?;
        let file = PathBuf::from(format!("{}.fmu", model.name));
        let out = match &args.output {
            Some(o) if many || o.is_dir() => o.join(file),
            Some(o) => o.clone(),
            None => file,
        };
        let started = Instant::now();
        let written = export::build(&model, path, &out, &env)?;
        // The first steps, on the core the binary wraps (as `lcsfmu check
        // FILE.fmu` runs them): a model that validates can still fail to step,
        // and the user hears of it now rather than from the first master.
        let guid = description::guid_for(&model, env.interfaces);
        let stepped = conformance::first_steps(model, &guid, FIRST_STEPS);
        let line = format!(
            "{} ({:.1} s)",
            written.display(),
            started.elapsed().as_secs_f64()
        );
        let warning = stepped.err().map(|why| {
            format!(
                "warning: {}: the FMU is built, but the first {FIRST_STEPS} steps of its default experiment do not run: {why}",
                written.display()
            )
        });
        let say = || {
            println!("{line}");
            if let Some(w) = &warning {
                eprintln!("{w}");
            }
        };
        match &bar {
            // Printed above the bar, so the list of FMUs stays on the screen.
            Some(b) => {
                b.suspend(say);
                b.inc(1);
            }
            None => say(),
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(ExitCode::SUCCESS)
}
