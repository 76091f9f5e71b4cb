//! The FMI side of the tool: from a validated model to an `.fmu`, and back.
//!
//! [`version`] says which FMI version and interface types an FMU is built for;
//! [`description`] writes its `modelDescription.xml` (one writer for both
//! versions and both interface types); [`export`]
//! compiles the model into the `fmu-template` cdylib or picks a prebuilt
//! runtime ([`runtimes`]); [`pack`] zips the archive; [`archive`] reads one
//! that may be hostile (for `lcsfmu check` and `lcsfmu simulate FILE.fmu`).
//! The C functions themselves live in `template/` (the FMU's own crate).

pub mod archive;
pub mod description;
pub mod export;
pub mod pack;
pub mod runtimes;
pub mod version;
