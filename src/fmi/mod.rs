//! The FMI side of the tool: from a validated model to an `.fmu`, and back.
//!
//! [`version`] says which FMI version and interface types an FMU is built for;
//! the description writers produce its `modelDescription.xml`; [`export`]
//! compiles the model into the `fmu-template` cdylib or picks a prebuilt
//! runtime ([`runtimes`]); [`pack`] zips the archive; [`archive`] reads one
//! that may be hostile (for `lcsfmu check` and `lcsfmu simulate FILE.fmu`).
//! The C functions themselves live in `template/` (the FMU's own crate).

pub mod archive;
pub mod description;
pub mod description3;
pub mod description3_me;
pub mod description_me;
pub mod export;
pub mod pack;
pub mod runtimes;
pub mod version;
