//! Command-line interface: argument definitions and dispatch, one file per
//! subcommand. Errors from the library are printed once, here, with their context.

// The doc comments of the argument structs are clap's help text, written for a
// terminal: `[defines]`, `[scheme]` and `<model name>` there are TOML sections
// and placeholders, not intra-doc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

mod build;
mod check;
mod compare;
mod mech_nonlinear;
mod nonlinear;
mod progress;
mod run_binary;
mod simulate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "lcsfmu",
    version,
    long_version = crate::fmi::runtimes::LONG_VERSION,
    about = "Turn linear complementarity systems into FMI 2.0 or 3.0 Co-Simulation and Model Exchange FMUs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile a model file into an .fmu.
    Build(build::Args),
    /// Simulate a model file or an .fmu in process and write CSV.
    Simulate(simulate::Args),
    /// Validate a model file and print its complementarity structure, or check an
    /// .fmu against FMI 2.0 or 3.0 (one PASS/FAIL line per rule; exit status 1 on a failure).
    Check(check::Args),
    /// Time-stepping against event-driven integration: steps, work, errors.
    Compare(compare::Args),
    /// The child process of `check FILE.fmu` that loads and runs the binary.
    #[command(name = "__run-binary", hide = true)]
    RunBinary(run_binary::Args),
}

/// Parses a `NAME=VALUE` argument.
fn parse_assignment(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not NAME=VALUE"))?;
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a number"))?;
    Ok((name.trim().to_string(), v))
}

/// Parses a `NAME=INTEGER` size override (`--define N=1000`).
fn parse_define(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not NAME=INTEGER"))?;
    let v: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not an integer"))?;
    Ok((name.trim().to_string(), v))
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(a) => build::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Check(a) => check::run(a),
        Command::Compare(a) => compare::run(a),
        Command::RunBinary(a) => run_binary::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
