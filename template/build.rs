//! Rebuild when `lcsfmu build` points at another generated model file; the
//! prebuilt runtime (feature `prebuilt`) has no generated model.

fn main() {
    println!("cargo:rerun-if-env-changed=LCSFMU_GENERATED");
    if std::env::var_os("CARGO_FEATURE_PREBUILT").is_some() {
        return;
    }
    match std::env::var("LCSFMU_GENERATED") {
        Ok(path) => println!("cargo:rerun-if-changed={path}"),
        Err(_) => panic!(
            "fmu-template is compiled by `lcsfmu build MODEL.toml`, which sets LCSFMU_GENERATED \
             (or, as the prebuilt runtime, with `--features prebuilt`: scripts/build-runtime.sh)"
        ),
    }
}
