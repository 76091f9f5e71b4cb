//! `lcsfmu build`: from a validated model to an `.fmu`.
//!
//! The FMU's binary is either the prebuilt runtime ([`crate::fmi::runtimes`], copied:
//! it reads the model from `resources/model.json`) or compiled for the model.
//! Compiled, the model goes into the `fmu-template` cdylib: this module writes a
//! small generated Rust file (identifier, GUID, sizes and the validated model),
//! runs cargo on the template with `LCSFMU_GENERATED` pointing at it, renames
//! the library to `<modelIdentifier>.so` and packs it with the description and
//! the documentation page that the same model produces. All models share one cargo target directory, so after
//! the first build only the template crate is recompiled (seconds). A lock file
//! serializes builds that share the cache, since the template's output file is
//! one path for every model.

use crate::error::Error;
use crate::fmi::runtimes::{self, Runtime};
use crate::fmi::version::{FmiVersion, Interfaces};
use crate::fmi::{description, pack};
use crate::model::Model;
use crate::tool::docs;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the sources and the build cache are.
#[derive(Clone, Debug)]
pub struct BuildEnv {
    /// The lcsfmu source tree (it holds `fmu-template/`, `template/` and the
    /// workspace `Cargo.lock`); `None`: the sources embedded in this binary,
    /// written out under the cache and compiled offline.
    pub source_dir: Option<PathBuf>,
    /// Cargo target directory shared by all FMU builds.
    pub cache_dir: PathBuf,
    /// Print cargo's output.
    pub verbose: bool,
    /// Cargo features of the template, for tests only (`forced-panic`); from
    /// `$LCSFMU_TEMPLATE_FEATURES` (comma-separated), deliberately not an option
    /// of `lcsfmu build`. Such builds get their own target directory under the
    /// cache: the template's library has one file name whatever its features,
    /// and cargo would otherwise take one variant's file for the other's.
    pub template_features: Vec<String>,
    /// The FMI version to build (`lcsfmu build --fmi`; FMI 2.0 by default).
    pub fmi: FmiVersion,
    /// `--runtime`; `None`: compiled when cargo is found, else prebuilt.
    pub runtime: Option<Runtime>,
    /// `--interface` (Co-Simulation alone by default).
    pub interfaces: Interfaces,
}

/// The sources embedded by `build.rs`: `FILES` (path, contents) and their `HASH`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

// `TEMPLATE_MANIFEST`: `fmu-template/Cargo.toml`, in a file of its own because
// `build.rs` needs it too (it compiles the prebuilt runtime from the same
// embedded sources).
include!("template_manifest.rs");

impl BuildEnv {
    /// The source tree this binary was built from when it is still there (or
    /// `$LCSFMU_SOURCE`), with its `target/fmu-build`; otherwise the embedded
    /// sources and `$XDG_CACHE_HOME/lcsfmu` (`~/.cache/lcsfmu`). `$LCSFMU_CACHE`
    /// overrides the cache in both cases.
    pub fn from_env() -> BuildEnv {
        let source_dir = match std::env::var_os("LCSFMU_SOURCE") {
            Some(dir) => Some(PathBuf::from(dir)),
            None => {
                let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
                (dir.join("fmu-template/Cargo.toml").is_file()
                    && dir.join("template/src/lib.rs").is_file())
                .then_some(dir)
            }
        };
        let cache_dir = std::env::var_os("LCSFMU_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| match &source_dir {
                Some(dir) => dir.join("target").join("fmu-build"),
                None => user_cache_dir().join("lcsfmu"),
            });
        let template_features = std::env::var("LCSFMU_TEMPLATE_FEATURES")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        BuildEnv {
            source_dir,
            cache_dir,
            verbose: false,
            template_features,
            fmi: FmiVersion::V2,
            runtime: None,
            interfaces: Interfaces::CO_SIMULATION,
        }
    }
}

fn user_cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
}

/// Writes the embedded sources into `<cache>/src/<version>-<hash>` once (the
/// caller holds the build lock) and returns that directory.
fn materialize(cache_dir: &Path) -> Result<PathBuf, Error> {
    let dir =
        cache_dir
            .join("src")
            .join(format!("{}-{}", env!("CARGO_PKG_VERSION"), embedded::HASH));
    let done = dir.join(".complete");
    if done.is_file() {
        return Ok(dir);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    let template = [("fmu-template/Cargo.toml", TEMPLATE_MANIFEST.as_bytes())];
    for (rel, bytes) in embedded::FILES.iter().chain(template.iter()) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, bytes).map_err(io(&path))?;
    }
    std::fs::write(&done, "").map_err(io(&done))?;
    Ok(dir)
}

/// The Rust source compiled into the FMU for `model`; the model itself is read
/// from `json_file`, written next to it.
pub fn generated_source(model: &Model, guid: &str, origin: &str, json_file: &str) -> String {
    format!(
        "// Generated by lcsfmu {} from {origin}; do not edit.\n\
         pub const MODEL_IDENTIFIER: &str = {:?};\n\
         pub const GUID: &str = {guid:?};\n\
         pub const NX: usize = {};\npub const NU: usize = {};\npub const NW: usize = {};\npub const NP: usize = {};\n\
         pub const MODEL_JSON: &str = include_str!({json_file:?});\n",
        env!("CARGO_PKG_VERSION"),
        model.name,
        model.nx(),
        model.nu(),
        model.nw(),
        model.np(),
    )
}

/// The error for a cargo that cannot be started.
fn no_toolchain(cargo: &std::ffi::OsStr, e: &std::io::Error) -> Error {
    // Whether the prebuilt runtime is a way out: it makes FMI 2.0 Co-Simulation
    // FMUs only, so a tool that carries one still needs cargo for the others.
    let instead = match runtimes::prebuilt("linux64") {
        Ok(Some(_)) => "the prebuilt runtime this lcsfmu carries (`--runtime prebuilt`) makes \
                        FMI 2.0 Co-Simulation FMUs only"
            .to_string(),
        _ => format!(
            "this lcsfmu has no prebuilt runtime to use instead ({})",
            runtimes::origin("linux64")
        ),
    };
    Error::Build(format!(
        "lcsfmu build needs a Rust toolchain (cargo) to compile the FMU, and `{}` cannot be run ({e}); \
         {instead}: \
         install cargo with rustup (https://rustup.rs: `curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh`) \
         and make sure cargo is on PATH (or point $CARGO at it)",
        cargo.to_string_lossy()
    ))
}

/// Makes the binaries of `model` (compiled or prebuilt, see [`BuildEnv::runtime`])
/// and packs them into `out`; returns the path written.
pub fn build(model: &Model, origin: &Path, out: &Path, env: &BuildEnv) -> Result<PathBuf, Error> {
    let interfaces = env.interfaces;
    if interfaces.model_exchange {
        if let Some(why) = crate::instance::model_exchange::refusal(model) {
            return Err(Error::Build(format!("--interface {interfaces}: {why}")));
        }
        if env.runtime == Some(Runtime::Prebuilt) {
            return Err(Error::Build(format!(
                "--interface {interfaces}: the prebuilt runtime is Co-Simulation only; Model Exchange FMUs are compiled for their model (--runtime compiled, which needs cargo)"
            )));
        }
    }
    let guid = description::guid_for(model, interfaces);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let runtime = match interfaces.model_exchange {
        true => Runtime::Compiled,
        false => runtimes::choose(env.runtime)?,
    };
    let mut binaries = Vec::new();
    match (env.fmi, runtime) {
        (FmiVersion::V2, Runtime::Compiled) => {
            binaries.push(("linux64", Cow::Owned(compile(model, &guid, origin, env)?)));
        }
        (FmiVersion::V2, Runtime::Prebuilt) => {
            let so = runtimes::prebuilt("linux64")?.ok_or_else(runtimes::missing_runtime)?;
            binaries.push(("linux64", so));
        }
        (FmiVersion::V3, Runtime::Compiled) => {
            let so = compile(model, &guid, origin, env)?;
            binaries.push((FmiVersion::V3.platform_dir(), Cow::Owned(so)));
        }
        (FmiVersion::V3, Runtime::Prebuilt) => {
            return Err(Error::Build(
                "the prebuilt runtime is FMI 2.0 only: an FMI 3.0 FMU (--fmi 3) is compiled for its model, which needs a Rust toolchain (cargo) and --runtime compiled".into(),
            ));
        }
    }
    // The win64 binary is always the prebuilt runtime (no per-model cross
    // compilation): every FMI 2.0 Co-Simulation FMU of a tool that carries one
    // runs on both platforms (the runtime has no Model Exchange).
    if env.fmi == FmiVersion::V2 && !interfaces.model_exchange {
        if let Some(dll) = runtimes::prebuilt("win64")? {
            binaries.push(("win64", dll));
        }
    }
    let xml = description::write(model, &guid, env.fmi, interfaces);
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    // The page runs the default experiment for its plot: the only part of a
    // build that grows with the model's run time.
    let page = docs::page_for(model, &guid, env.fmi);
    let binaries: Vec<(&str, &[u8])> = binaries.iter().map(|(p, b)| (*p, b.as_ref())).collect();
    pack::pack(out, &model.name, &xml, &binaries, &model.to_json(), &page).map_err(io(out))?;
    Ok(out.to_path_buf())
}

/// Compiles the template for `model` with cargo; returns the library's bytes.
fn compile(model: &Model, guid: &str, origin: &Path, env: &BuildEnv) -> Result<Vec<u8>, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    // Cargo compiles the template from its own directory, so every path handed
    // to it must be absolute.
    let cwd = std::env::current_dir().map_err(io(Path::new(".")))?;
    let cache_dir = cwd.join(&env.cache_dir);
    let gen_dir = cache_dir.join("generated");
    std::fs::create_dir_all(&gen_dir).map_err(io(&gen_dir))?;
    // Held until the library is copied: every model's build writes the same output file.
    let lock_path = cache_dir.join("build.lock");
    let lock = std::fs::File::create(&lock_path).map_err(io(&lock_path))?;
    lock.lock().map_err(io(&lock_path))?;

    let json_name = format!("{}.json", model.name);
    let generated = gen_dir.join(format!("{}.rs", model.name));
    let origin = origin.display().to_string();
    let source = generated_source(model, guid, &origin, &json_name);
    // Rewriting unchanged files would make cargo recompile the template.
    for (path, text) in [
        (gen_dir.join(&json_name), model.to_json()),
        (generated.clone(), source),
    ] {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, &text).map_err(io(&path))?;
        }
    }

    // From the source tree: the workspace and its lock, as in development. From
    // the embedded copy: offline, the dependencies come from the local registry
    // cache that installing lcsfmu filled (cargo prunes the lock's dev-only
    // entries, so it is not `--locked`).
    let (manifest, network) = match &env.source_dir {
        Some(dir) => (cwd.join(dir).join("Cargo.toml"), "--locked"),
        None => (materialize(&cache_dir)?.join("Cargo.toml"), "--offline"),
    };
    // The FMI 3.0 shell is the template's `fmi3` feature; like the test
    // features, it gets a target directory of its own.
    let mut features = env.template_features.clone();
    if env.fmi == FmiVersion::V3 {
        features.push("fmi3".into());
    }
    if env.interfaces.model_exchange {
        features.push("model-exchange".into());
        if !env.interfaces.co_simulation {
            features.push("me-only".into());
        }
    }
    let target_dir = match features.as_slice() {
        [] => cache_dir.clone(),
        features => cache_dir.join("features").join(features.join("+")),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.args([
        "build",
        "--release",
        network,
        "-p",
        "fmu-template",
        "--manifest-path",
    ])
    .arg(&manifest)
    .arg("--target-dir")
    .arg(&target_dir)
    .env("LCSFMU_GENERATED", &generated)
    // A cargo that runs us (cargo run, cargo test) exports variables meant for
    // its own child; they must not leak into this unrelated build.
    .env_remove("CARGO_TARGET_DIR")
    .env_remove("RUSTFLAGS")
    .env_remove("CARGO_ENCODED_RUSTFLAGS");
    if !features.is_empty() {
        cmd.arg("--features").arg(features.join(","));
    }
    if !env.verbose {
        cmd.arg("--quiet");
    }
    let output = cmd.output().map_err(|e| no_toolchain(&cargo, &e))?;
    if !output.status.success() {
        return Err(Error::Build(format!(
            "cargo failed to compile the FMU for {} ({}):\n{}",
            model.name,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    let library = target_dir.join("release").join("libfmu_template.so");
    let binary = std::fs::read(&library).map_err(io(&library))?;
    drop(lock);
    Ok(binary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_manifest_is_the_workspace_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fmu-template/Cargo.toml");
        assert_eq!(TEMPLATE_MANIFEST, std::fs::read_to_string(path).unwrap());
    }

    #[test]
    fn embedded_sources_hold_the_core_and_the_template() {
        let names: Vec<&str> = embedded::FILES.iter().map(|(n, _)| *n).collect();
        for name in [
            "Cargo.toml",
            "Cargo.lock",
            "src/lib.rs",
            "template/build.rs",
            "template/src/lib.rs",
        ] {
            assert!(names.contains(&name), "{name} not in {names:?}");
        }
        let manifest = std::str::from_utf8(embedded::FILES[0].1).unwrap();
        assert!(!manifest.contains("dev-dependencies") && !manifest.contains("[[bench]]"));
    }
}
