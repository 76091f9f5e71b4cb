//! Rebuild when `lcsfmu build` points at another generated model file.

fn main() {
    println!("cargo:rerun-if-env-changed=LCSFMU_GENERATED");
    match std::env::var("LCSFMU_GENERATED") {
        Ok(path) => println!("cargo:rerun-if-changed={path}"),
        Err(_) => panic!(
            "fmu-template is compiled by `lcsfmu build MODEL.toml`, which sets LCSFMU_GENERATED"
        ),
    }
}
