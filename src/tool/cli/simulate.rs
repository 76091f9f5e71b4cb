//! `lcsfmu simulate MODEL.toml|MODEL.fmu [--stop T] [--step H] [--set NAME=VALUE]... [-o out.csv]
//! [--plot out.svg|out.png [--plot-vars a,b]]`.

use crate::error::Error;
use crate::fmi::archive::Archive;
use crate::fmi::version::Interfaces;
use crate::fmi::{description, pack};
use crate::model::{validate, Model};
use crate::tool::plot::{self, trajectory};
use crate::tool::simulate::{self, InputTable, Options};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A model file (TOML, or a SPICE netlist: .cir, .sp, .net) or an FMU built by lcsfmu.
    model: PathBuf,
    /// Start time (default: the model's experiment).
    #[arg(long)]
    start: Option<f64>,
    /// Stop time (default: the model's experiment).
    #[arg(long)]
    stop: Option<f64>,
    /// Communication step size (default: the model's experiment).
    #[arg(long)]
    step: Option<f64>,
    /// Set a parameter, a state's start value or a constant input.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = super::parse_assignment)]
    sets: Vec<(String, f64)>,
    /// CSV file with a `time` column and one column per input (linear interpolation).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Override a size declared in the model file's [defines] (NAME=INTEGER, repeatable).
    #[arg(long = "define", value_name = "NAME=INTEGER", value_parser = super::parse_define)]
    defines: Vec<(String, i64)>,
    /// Replace the model file's [scheme] method (theta, zoh, event-driven, moreau-jean, moreau-jean-projected,
    /// moreau-jean-direct-projection,
    /// semi-explicit); the file's other scheme settings stay.
    #[arg(long = "scheme", value_name = "METHOD")]
    scheme: Option<String>,
    /// Print what the steps took on standard error (for nonlinear models, the
    /// number of Newton iterations per step; for the event-driven scheme, its steps and events).
    #[arg(short, long)]
    verbose: bool,
    /// Output CSV file (default: standard output, or none when --plot is given).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Draw the recorded variables against time into an .svg or .png file.
    #[arg(long, value_name = "FILE.svg|FILE.png")]
    plot: Option<PathBuf>,
    /// Variables to draw (comma-separated; default: all, at most 10 per panel).
    #[arg(
        long,
        value_name = "NAME,...",
        value_delimiter = ',',
        requires = "plot"
    )]
    plot_vars: Option<Vec<String>>,
}

/// Reads the model compiled into an FMU and checks it against the FMU's GUID.
/// The archive may be hostile: names, links and sizes are checked before
/// anything is read, every read is capped ([`crate::fmi::archive`]), nothing is
/// extracted and the binary is never loaded (the embedded model runs in the core).
pub(super) fn model_from_fmu(path: &Path) -> Result<(Model, String), Error> {
    let fail = |e: String| Error::Simulation(format!("{}: {e}", path.display()));
    let mut archive = Archive::open(path).map_err(fail)?;
    archive.refuse_hostile().map_err(fail)?;
    let json = archive.read_text(pack::MODEL_ENTRY).map_err(fail)?;
    let xml = archive.read_text("modelDescription.xml").map_err(fail)?;
    let model = Model::from_json(&json).map_err(|e| fail(e.to_string()))?;
    // FMI 2.0 names it `guid`, FMI 3.0 `instantiationToken`: the same value. A
    // Model Exchange FMU's GUID also covers its interface types; its model runs
    // here with the model's own scheme, as a Co-Simulation FMU's would.
    let named = |guid: &str, attribute: &str| xml.contains(&format!("{attribute}=\"{guid}\""));
    let kinds = [(true, false), (false, true), (true, true)];
    let guid = kinds
        .into_iter()
        .map(|(co_simulation, model_exchange)| {
            let interfaces = Interfaces {
                co_simulation,
                model_exchange,
            };
            description::guid_for(&model, interfaces)
        })
        .find(|g| named(g, "guid") || named(g, "instantiationToken"));
    let Some(guid) = guid else {
        return Err(fail(
            "the embedded model does not match modelDescription.xml (built by another lcsfmu version?)"
                .into(),
        ));
    };
    Ok((model, guid))
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    let (model, guid) = if args.model.extension().is_some_and(|e| e == "fmu") {
        if !args.defines.is_empty() || args.scheme.is_some() {
            return Err(Error::Simulation(
                "--define and --scheme apply to model files; an FMU's sizes and scheme were fixed when it was built"
                    .into(),
            ));
        }
        model_from_fmu(&args.model)?
    } else {
        let model = validate::load_with(&args.model, &args.defines, args.scheme.as_deref())?;
        let guid = description::guid(&model);
        (model, guid)
    };
    // The plot is set up before the run: a wrong file name or variable costs no
    // simulation and leaves no CSV behind.
    let plot_setup = match &args.plot {
        Some(path) => {
            plot::Format::from_path(path).map_err(Error::Plot)?;
            let selection =
                trajectory::select(&model, args.plot_vars.as_deref()).map_err(Error::Plot)?;
            Some((path, selection, model.name.clone()))
        }
        None => None,
    };
    let inputs = match &args.input {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| Error::Io {
                path: p.clone(),
                source,
            })?;
            Some(
                InputTable::from_csv(&text)
                    .map_err(|e| Error::Simulation(format!("{}: {e}", p.display())))?,
            )
        }
        None => None,
    };
    let opts = Options {
        start: args.start,
        stop: args.stop,
        step: args.step,
        sets: args.sets,
        inputs,
    };
    // Thousandths of the run; a short run finishes before the bar is drawn.
    let bar = super::progress::bar(1000, "{elapsed_precise} [{bar:40}] {percent}% simulated");
    let traj = simulate::run_with_progress(model, &guid, &opts, &mut |done| {
        if let Some(b) = &bar {
            b.set_position((done * 1000.0) as u64);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let written = match (&args.output, &plot_setup) {
        (Some(p), _) => {
            std::fs::File::create(p).and_then(|f| traj.write_csv(std::io::BufWriter::new(f)))
        }
        // Asked for a picture only: thousands of CSV lines on the terminal help no one.
        (None, Some(_)) => Ok(()),
        (None, None) => traj.write_csv(std::io::stdout().lock()),
    };
    written.map_err(|source| Error::Io {
        path: args.output.clone().unwrap_or_else(|| "<stdout>".into()),
        source,
    })?;
    if let Some((path, selection, name)) = &plot_setup {
        plot::write(&trajectory::figure(name, selection, &traj), path)?;
    }
    if let (true, Some(n)) = (args.verbose, &traj.newton) {
        let steps: usize = n.histogram.iter().sum();
        eprintln!("Newton iterations (LCP solves) per step, over {steps} steps:");
        let last = n.histogram.len() - 1;
        for (k, count) in n.histogram.iter().enumerate().filter(|(_, c)| **c > 0) {
            let more = if k == last { "+" } else { "" };
            eprintln!("  {k:>2}{more} iterations: {count} steps");
        }
        eprintln!(
            "  line-search halvings: {}; largest scaled residual at acceptance: {:e}",
            n.backtracks, n.worst_residual
        );
    }
    if let (true, Some(r)) = (args.verbose, &traj.events) {
        eprintln!(
            "event-driven: {} steps ({} rejected), {} right-hand sides, {} mode switches, {} time events, {} LCP solves",
            r.steps, r.rejected, r.rhs, r.events, r.time_events, r.lcp_solves
        );
        if r.accumulation.is_some() {
            eprintln!("  events accumulated: time-stepping finished the steps where they did");
        }
        if r.singular_mode {
            eprintln!(
                "  a mode was not an ODE (singular free pairs): time-stepping finished the steps where one was entered"
            );
        }
    }
    if let Some(why) = traj.failure {
        eprintln!("error: the simulation stopped early: {why}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
