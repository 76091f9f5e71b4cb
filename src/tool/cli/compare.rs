//! `lcsfmu compare MODEL.toml|FILE.fmu`: time-stepping against event-driven
//! integration (of an FMU, the model embedded in it, as `simulate` runs it).

use crate::error::Error;
use crate::model::validate;
use crate::tool::compare::{self, Options};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Model file (TOML or a SPICE netlist) of a first-order model, or an FMU built by lcsfmu (its embedded model).
    model: PathBuf,
    /// Override a size declared in the file's [defines] (NAME=INTEGER, repeatable).
    #[arg(long = "define", value_name = "NAME=INTEGER", value_parser = super::parse_define)]
    defines: Vec<(String, i64)>,
    /// Stop time (default: the model's experiment).
    #[arg(long)]
    stop: Option<f64>,
    /// Time-stepping step sizes (default: the model's output step times 100, 10 and 1, those
    /// no longer than the run).
    #[arg(long, value_delimiter = ',')]
    steps: Vec<f64>,
    /// Event-driven relative tolerances (atol = rtol / 1000).
    #[arg(long, value_delimiter = ',', default_value = "1e-4,1e-6,1e-8")]
    tolerances: Vec<f64>,
    /// Draw every run's states side by side into an .svg or .png file.
    #[arg(long, value_name = "FILE.svg|FILE.png")]
    plot: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    if let Some(p) = &args.plot {
        crate::tool::plot::Format::from_path(p).map_err(Error::Plot)?;
    }
    let model = if args.model.extension().is_some_and(|e| e == "fmu") {
        if !args.defines.is_empty() {
            return Err(Error::Simulation(
                "--define applies to model files; an FMU's sizes were fixed when it was built"
                    .into(),
            ));
        }
        super::simulate::model_from_fmu(&args.model)?.0
    } else {
        validate::load_with_defines(&args.model, &args.defines)?
    };
    let opts = Options {
        stop: args.stop,
        steps: args.steps,
        tolerances: args.tolerances,
    };
    let result = compare::compare(&model, &opts)?;
    print!("{}", result.table());
    if let Some(p) = &args.plot {
        crate::tool::plot::write(&result.figure(), p)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
