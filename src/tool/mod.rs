//! The command-line tool: what `lcsfmu` does besides building FMUs.
//!
//! [`cli`] parses the commands; [`simulate`] runs a model in process as a
//! master would; [`conformance`] is `lcsfmu check` (the model's first steps
//! and an FMU's archive, description and binary); [`compare`] sets
//! time-stepping against event-driven runs; [`plot`] draws trajectories;
//! [`docs`] writes an FMU's documentation page.

pub mod cli;
pub mod compare;
pub mod conformance;
pub mod docs;
pub mod plot;
pub mod simulate;
