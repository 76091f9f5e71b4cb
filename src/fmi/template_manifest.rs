// Included by `export.rs` and by `build.rs` (a build script cannot use the
// crate's modules), not a module of its own.

/// `fmu-template/Cargo.toml`, which `cargo package` leaves out of the crate (a
/// directory with its own manifest); the sources it names are in `template/`.
const TEMPLATE_MANIFEST: &str = r#"[package]
name = "fmu-template"
version = "0.1.0"
edition = "2021"
publish = false
# The sources live in ../template: cargo leaves a directory with its own
# Cargo.toml out of the root crate's package, and the installed lcsfmu must carry
# them (build.rs embeds them; `lcsfmu build` writes this manifest out again).
build = "../template/build.rs"

[lib]
name = "fmu_template"
path = "../template/src/lib.rs"
crate-type = ["cdylib"]

[dependencies]
lcsfmu = { path = "..", default-features = false }

[features]
# Test only: fmi2DoStep panics from t = 1 on (template/src/forced_panic.rs).
# `lcsfmu build` turns it on when LCSFMU_TEMPLATE_FEATURES names it.
forced-panic = []
# The FMI 3.0 shell (template/src/fmi3/) instead of FMI 2.0's (template/src/fmi2/):
# `lcsfmu build --fmi 3` turns it on.
fmi3 = []
# The Model Exchange functions (template/src/fmi2/exchange.rs): `lcsfmu build
# --interface cs,me` turns it on; `--interface me` also turns on me-only, which
# leaves out the co-simulation functions.
model-exchange = []
me-only = ["model-exchange"]
# The prebuilt runtime: built once without a generated model, it reads the model
# from the FMU's resources/model.json at instantiation (scripts/build-runtime.sh).
prebuilt = ["lcsfmu/guid"]
"#;
