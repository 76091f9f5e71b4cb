//! The FMI 2.0 shell (Co-Simulation and Model Exchange): the functions of
//! `fmi2Functions.h` the FMU declares, over the one core instance.
//!
//! - [`common`]: the 25 functions of both interface types (instantiation, the
//!   life cycle, values, FMU states, directional derivatives);
//! - [`cosimulation`]: the 9 of Co-Simulation (left out of a Model
//!   Exchange-only binary, the `me-only` feature);
//! - [`exchange`]: the 10 of Model Exchange (the `model-exchange` feature);
//! - [`ffi`]: the FMI 2.0 C types, which the shared shell's logger also uses,
//!   so they are compiled into FMI 3.0 binaries too.
//!
//! An FMI 3.0 build (the `fmi3` feature) exports none of these functions: a
//! binary exports exactly one version's. Each goes through the shared entry
//! helper [`crate::shell::enter`], exactly as the FMI 3.0 functions do.

#[cfg(not(feature = "fmi3"))]
mod common;
#[cfg(all(not(feature = "fmi3"), not(feature = "me-only")))]
mod cosimulation;
#[cfg(all(not(feature = "fmi3"), feature = "model-exchange"))]
mod exchange;
// An FMI 3.0 build uses few of the types.
#[cfg_attr(feature = "fmi3", allow(dead_code))]
pub mod ffi;
