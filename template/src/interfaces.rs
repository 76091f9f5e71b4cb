//! Which interface types this binary's FMU declares, and so which `fmuType`
//! (FMI 2.0) or which instantiation function (FMI 3.0) is accepted.
//!
//! A Co-Simulation FMU is the template without features. With the
//! `model-exchange` feature the binary also exports the Model Exchange
//! functions (`--interface cs,me`); with `me-only` as well (`--interface me`)
//! it exports no co-simulation functions (FMI 2.0; an FMI 3.0 binary exports
//! all 75 functions whatever it declares). An importer asking for an interface
//! type the modelDescription.xml does not declare is refused at instantiation
//! with the reason.

mod declared {
    pub(super) const CO_SIMULATION: bool = !cfg!(feature = "me-only");
    pub(super) const MODEL_EXCHANGE: bool = cfg!(feature = "model-exchange");
}

#[cfg(all(feature = "model-exchange", feature = "prebuilt"))]
compile_error!("the prebuilt runtime is Co-Simulation only");

/// What an FMI 2.0 importer may ask for, for messages.
#[cfg_attr(feature = "fmi3", allow(dead_code))]
pub const FMI2_SUPPORTED: &str = match (declared::CO_SIMULATION, declared::MODEL_EXCHANGE) {
    (true, true) => "Co-Simulation (1) and Model Exchange (0)",
    (false, true) => "Model Exchange (0) only",
    _ => "Co-Simulation (1) only",
};

/// Whether FMI 2.0 instantiation accepts `fmu_type`.
#[cfg_attr(feature = "fmi3", allow(dead_code))]
pub fn accepts_fmi2(fmu_type: crate::fmi2::ffi::fmi2Type) -> bool {
    use crate::fmi2::ffi::{fmi2CoSimulation, fmi2ModelExchange};
    (fmu_type == fmi2CoSimulation && declared::CO_SIMULATION)
        || (fmu_type == fmi2ModelExchange && declared::MODEL_EXCHANGE)
}

/// Whether Co-Simulation / Model Exchange are declared (for the FMI 3.0 shell).
#[allow(dead_code)]
pub const fn declared() -> (bool, bool) {
    (declared::CO_SIMULATION, declared::MODEL_EXCHANGE)
}
