//! The FMU binary: one model compiled into the FMI 2.0 or the FMI 3.0 C API
//! (Co-Simulation, Model Exchange or both).
//!
//! `lcsfmu build` generates a small Rust file for the model (identifier, GUID,
//! sizes and the validated model as JSON) and points `LCSFMU_GENERATED` at it.
//! Everything model-independent lives in the `lcsfmu` core (no TOML, XML or zip
//! code: it is built without its `tool` feature), the life cycle included: the
//! one core instance serves both FMI versions. This crate adds a thin shell per
//! version, selected by the `fmi3` feature so that a binary exports exactly one
//! version's functions: the C types ([`fmi2::ffi`], [`fmi3::ffi`]) and exported
//! functions ([`fmi2`]: 34 of FMI 2.0, 44 with Model Exchange; [`fmi3`]: 75 of FMI 3.0), over the
//! shared entry helper ([`shell`]) and FMU-state handling ([`fmu_state`]). Raw
//! pointers and `unsafe` exist only in these files. With the `prebuilt` feature
//! (FMI 2.0) it is built once, without a model: the prebuilt runtime, which
//! reads the model from the FMU's resources ([`model_source`]).

mod c_args;
mod fmi2;
#[cfg(feature = "fmi3")]
mod fmi3;
mod fmu_state;
#[cfg(feature = "forced-panic")]
mod forced_panic;
mod interfaces;
mod logger;
mod model_source;
mod shell;

#[cfg(not(feature = "prebuilt"))]
#[allow(dead_code)]
mod generated {
    include!(env!("LCSFMU_GENERATED"));
}
