//! The FMI 3.0 shell (Co-Simulation and Model Exchange): all 75 functions of `fmi3Functions.h`.
//!
//! FMI 3.0 (§2.5) asks an FMU to export every function of the header, also
//! those of interface types and capabilities it does not have, and FMPy refuses
//! to load a binary that lacks one. The functions are grouped by what they do:
//!
//! - [`life`]: instantiation, initialization, Event and Step Mode, `fmi3DoStep`,
//!   termination and reset: the core instance's life cycle, which is the same
//!   as FMI 2.0's plus events (`lcsfmu::instance::EventOptions`); [`fmu_states`]:
//!   getting, setting and serializing FMU states;
//! - [`values`]: the Float64 getter and setter (the FMU's variables are all
//!   Float64); [`empty_getters`] and [`empty_setters`]: those of every other
//!   type, which has no variable;
//! - [`exchange`]: Model Exchange and the directional and adjoint derivatives,
//!   over the core's Model Exchange (the same as FMI 2.0's);
//! - [`unsupported`]: Scheduled Execution, clocks, dependencies, output
//!   derivatives and configuration mode: each logs why and returns `fmi3Error`.
//!
//! Each function goes through the shared entry helper [`crate::shell::enter`]
//! (NULL check, panic guard, the core's state table, status mapping, `%`-safe
//! logging), exactly as the FMI 2.0 functions of [`crate::fmi2::common`] do.

mod empty_getters;
mod empty_setters;
mod exchange;
pub mod ffi;
mod fmu_states;
mod life;
mod unsupported;
mod values;
