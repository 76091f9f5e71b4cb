//! `lcsfmu __run-binary LIBRARY ...`: the hidden child of `lcsfmu check FILE.fmu`
//! that loads an FMU's binary and runs its short life cycle
//! ([`crate::tool::conformance::loader`]). Not for people: `check` builds its arguments
//! from the FMU's description and reads its transcript (`call`, `log`, then one
//! `pass` or `fail` line). It limits itself before it loads anything.

use crate::error::Error;
use crate::tool::conformance::loader::{self, ExchangeSpec, Spec};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shared library, extracted from the FMU.
    library: PathBuf,
    /// Drive FMI 3.0's API (fmi3InstantiateCoSimulation ...) instead of FMI 2.0's.
    #[arg(long)]
    fmi3: bool,
    /// The GUID, or FMI 3.0's instantiation token.
    #[arg(long)]
    guid: String,
    /// The resource location passed to the instantiation (FMI 2.0: a file://
    /// URI; FMI 3.0: a directory path ending in `/`).
    #[arg(long)]
    resources: String,
    #[arg(long, allow_negative_numbers = true)]
    start: f64,
    #[arg(long)]
    step: f64,
    #[arg(long)]
    steps: usize,
    /// Value references of the Real variables to read after each step.
    #[arg(long, value_delimiter = ',')]
    reals: Vec<u32>,
    /// Take, restore and replay an FMU state.
    #[arg(long)]
    fmu_state: bool,
    /// ... and through its serialization too.
    #[arg(long)]
    serialize: bool,
    /// Run Model Exchange, the states and event indicators below as
    /// the description declares them, instead of Co-Simulation.
    #[arg(long)]
    model_exchange: bool,
    /// Value references of the continuous states, in the states vector's order.
    #[arg(long, value_delimiter = ',')]
    states: Vec<u32>,
    /// Value references of their derivatives, in the same order.
    #[arg(long, value_delimiter = ',')]
    derivatives: Vec<u32>,
    /// Value references of the continuous Real inputs.
    #[arg(long, value_delimiter = ',')]
    inputs: Vec<u32>,
    #[arg(long, default_value_t = 0)]
    event_indicators: usize,
    /// FMI 3.0: value references of the named event indicators, in order.
    #[arg(long, value_delimiter = ',')]
    indicators: Vec<u32>,
    /// The FMU provides directional derivatives.
    #[arg(long)]
    directional: bool,
    /// The FMU provides adjoint derivatives (FMI 3.0).
    #[arg(long)]
    adjoint: bool,
    /// Address space limit in bytes.
    #[arg(long)]
    memory: u64,
    #[arg(long)]
    cpu_seconds: u64,
    /// Largest file the FMU may write, in bytes.
    #[arg(long)]
    file_size: u64,
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    let result = loader::limit_self(args.memory, args.cpu_seconds, args.file_size).and_then(|()| {
        loader::run(&Spec {
            library: args.library,
            fmi3: args.fmi3,
            guid: args.guid,
            resources: args.resources,
            start: args.start,
            step: args.step,
            steps: args.steps,
            reals: args.reals,
            fmu_state: args.fmu_state,
            serialize: args.serialize,
            model_exchange: args.model_exchange.then_some(ExchangeSpec {
                states: args.states,
                derivatives: args.derivatives,
                inputs: args.inputs,
                event_indicators: args.event_indicators,
                indicators: args.indicators,
                directional: args.directional,
                adjoint: args.adjoint,
            }),
        })
    });
    let (line, code) = match result {
        Ok(summary) => (format!("pass {summary}"), ExitCode::SUCCESS),
        Err(why) => (format!("fail {why}"), ExitCode::FAILURE),
    };
    let mut out = std::io::stdout().lock();
    drop(writeln!(out, "{line}").and_then(|()| out.flush()));
    Ok(code)
}
