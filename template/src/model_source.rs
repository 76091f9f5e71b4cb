//! Where instantiation gets its model: compiled in, or read from the FMU.
//!
//! Built by `lcsfmu build` with a generated model (`LCSFMU_GENERATED`), the
//! binary holds one model: it checks the GUID against its own and specializes
//! the step to the model's sizes at compile time. Built once with the `prebuilt`
//! feature, it is the prebuilt runtime every FMU can carry: it reads
//! `resources/model.json` under `fmuResourceLocation`, checks the XML's GUID
//! against that text, and runs with run-time sizes, or at compile-time sizes
//! when the model's are among the few it carries (`Instance::specialize_common`;
//! the same numbers, bit for bit: specializing only changes how fast a step runs).

use lcsfmu::instance::Instance;

/// The instance for the model of this binary (compiled in), after checking the
/// GUID (FMI 2.0) or instantiation token (FMI 3.0), named by `what`, the
/// importer read from the XML; `_location` is unused.
#[cfg(not(feature = "prebuilt"))]
pub fn instance(
    token: Option<&str>,
    _location: Option<&str>,
    what: &str,
) -> Result<Instance, String> {
    use crate::generated::{GUID, MODEL_JSON, NU, NW, NX};
    match token {
        Some(g) if g == GUID => {}
        g => return Err(format!("{what} {g:?} does not match this binary's {GUID}: the modelDescription.xml belongs to another build")),
    }
    let model = lcsfmu::model::Model::from_json(MODEL_JSON)?;
    let mut instance = Instance::new(model, GUID);
    // This binary is compiled for one model: its step runs at these sizes
    // (the same numbers as the run-time sizes of `lcsfmu simulate`, faster).
    instance.specialize::<NX, NU, NW>();
    Ok(instance)
}

/// The instance for the model in `resources/model.json` under `location` (an
/// FMI 2.0 resource URI), its GUID checked against the XML's.
#[cfg(feature = "prebuilt")]
pub fn instance(
    token: Option<&str>,
    location: Option<&str>,
    _what: &str,
) -> Result<Instance, String> {
    let (model, guid) = lcsfmu::instance::resources::load_model(location, token)?;
    let mut instance = Instance::new(model, guid);
    // Built for every model, this binary carries the step compiled at a few
    // common sizes; a model of one of them runs it (the same numbers).
    instance.specialize_common();
    Ok(instance)
}
