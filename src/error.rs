//! The library's error type: what went wrong, with enough context to act on.

use crate::model::validate::ModelError;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// The model file is wrong; the error names the file and the field.
    Model(ModelError),
    /// Reading or writing a file failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Compiling the FMU failed.
    Build(String),
    /// A simulation could not be set up or run.
    Simulation(String),
    /// A plot could not be set up or drawn.
    Plot(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Model(e) => e.fmt(f),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Build(m) | Error::Simulation(m) | Error::Plot(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<ModelError> for Error {
    fn from(e: ModelError) -> Self {
        Error::Model(e)
    }
}
