//! What the fuzz targets and the seed writer share: the models an FMU state
//! is deserialized into, and where the seed corpora live.
//!
//! The state target needs instances of real models in a phase where
//! `fmi2DeSerializeFMUstate` is allowed; building them is the same for the
//! target and for the seeds (serialized states of these instances), so both
//! take them from here and the seeds always fit the target's models.

use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};
use std::path::{Path, PathBuf};

/// The repository's root (this crate lives in `fuzz/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The models whose states are fuzzed: one per scheme family (first-order
/// time stepping, event-driven, Moreau–Jean with impacts, a mechanical chain
/// with a `[defines]` size), so restoring and stepping reaches each stepper.
pub const STATE_MODELS: [(&str, &[(&str, i64)]); 4] = [
    ("coulomb_friction", &[]),
    ("zero_crossing", &[]),
    ("bouncing_ball", &[]),
    ("bead_chain", &[("N", 3)]),
];

/// A bundled model, with some of its `[defines]` overridden.
pub fn bundled(stem: &str, defines: &[(&str, i64)]) -> Model {
    let path = root().join("models").join(format!("{stem}.toml"));
    let defines: Vec<(String, i64)> = defines.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    validate::load_with_defines(&path, &defines).unwrap_or_else(|e| panic!("{e}"))
}

/// An initialized instance of `model` (start values, time 0), ready for
/// `fmi2DeSerializeFMUstate`.
pub fn initialized(model: Model) -> Instance {
    let mut i = Instance::new(model, "{fuzz}");
    i.setup_experiment(0.0, None).expect("setup");
    i.enter_initialization_mode().expect("enter");
    i.exit_initialization_mode().expect("exit");
    i
}

/// The checksum that ends a serialized FMU state (64-bit FNV-1a, as in
/// `src/instance/snapshot.rs`), so the state target can make mutated bytes pass it.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
