//! The FMU binary: one model compiled into the FMI 2.0 Co-Simulation C API.
//!
//! `lcsfmu build` generates a small Rust file for the model (identifier, GUID,
//! sizes and the validated model as JSON) and points `LCSFMU_GENERATED` at it.
//! Everything model-independent lives in the `lcsfmu` core (no TOML, XML or zip
//! code: it is built without its `tool` feature); this crate only adds the C
//! types ([`ffi`]), the entry helper ([`shell`]) and the 34 functions
//! ([`exports`]). Raw pointers and `unsafe` exist only in these files. With the
//! `prebuilt` feature it is built once, without a model: the prebuilt runtime,
//! which reads the model from the FMU's resources ([`model_source`]).

mod exports;
mod ffi;
#[cfg(feature = "forced-panic")]
mod forced_panic;
mod model_source;
mod shell;

#[cfg(not(feature = "prebuilt"))]
#[allow(dead_code)]
mod generated {
    include!(env!("LCSFMU_GENERATED"));
}
