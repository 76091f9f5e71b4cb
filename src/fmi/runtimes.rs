//! The prebuilt runtimes `lcsfmu build` can put into an FMU instead of compiling
//! one: the FMU template built once without a model (`fmu-template --features
//! prebuilt`, by `scripts/build-runtime.sh`), which reads `resources/model.json`
//! at instantiation.
//!
//! They are embedded in this executable (`build.rs`): the ones
//! `LCSFMU_RUNTIME_DIR` named when it was compiled (the wheel, CI), or else, in
//! a release build (`cargo install`, `pip install .`), the ones the build
//! compiled itself (linux64 always, win64 when a cross toolchain was there).
//! So an installed tool has nothing to locate on disk, and `lcsfmu --version`
//! says what it carries. At run time the same variable, if set, overrides the
//! embedded ones (tests, or a tool built without them).
//! Which runtime a build uses, and whether cargo is there to compile one, is
//! decided here too.

use crate::error::Error;
use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The runtimes embedded by `build.rs`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/runtimes.rs"));
}

/// A platform an FMU can carry a binary for: its folder under `binaries/`, the
/// file of its runtime under `$LCSFMU_RUNTIME_DIR/<folder>/`, and the suffix of
/// the binary in the FMU (FMI 2.0 §2.3).
pub const PLATFORMS: [(&str, &str, &str); 2] = [
    ("linux64", "runtime.so", "so"),
    ("win64", "runtime.dll", "dll"),
];

/// The library suffix of `platform`'s binaries.
pub fn suffix(platform: &str) -> &'static str {
    PLATFORMS
        .iter()
        .find(|(p, _, _)| *p == platform)
        .map_or("so", |(_, _, s)| s)
}

/// How the FMU's binary is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// Compiled for this model with cargo (`template/` + generated sizes and model).
    Compiled,
    /// The prebuilt runtime, copied; it reads the model from the FMU's resources.
    Prebuilt,
}

/// The prebuilt runtime for `platform`: `$LCSFMU_RUNTIME_DIR/<platform>/` when
/// that variable is set, else the one embedded, else `None`.
pub fn prebuilt(platform: &str) -> Result<Option<Cow<'static, [u8]>>, Error> {
    let Some((_, file, _)) = PLATFORMS.iter().find(|(p, _, _)| *p == platform) else {
        return Ok(None);
    };
    if let Some(dir) = std::env::var_os("LCSFMU_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        let path = Path::new(&dir).join(platform).join(file);
        return match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(Cow::Owned(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::Io { path, source }),
        };
    }
    Ok(embedded::RUNTIMES
        .iter()
        .find(|(p, _)| *p == platform)
        .map(|(_, bytes)| Cow::Borrowed(*bytes)))
}

/// `lcsfmu --version`: the version, and for each platform where its embedded
/// runtime came from or why there is none.
pub const LONG_VERSION: &str = embedded::LONG_VERSION;

/// Where the embedded runtime of `platform` came from, or why there is none.
pub fn origin(platform: &str) -> &'static str {
    embedded::ORIGINS
        .iter()
        .find(|(p, _)| *p == platform)
        .map_or("none", |(_, origin)| origin)
}

/// The error of `--runtime prebuilt` from a tool that has none.
pub fn missing_runtime() -> Error {
    Error::Build(format!(
        "this lcsfmu has no prebuilt runtime for linux64 ({}): reinstall it with a release \
         build (cargo install, pip install), or build one with scripts/build-runtime.sh DIR and \
         set LCSFMU_RUNTIME_DIR=DIR when running lcsfmu, or use --runtime compiled, which \
         needs cargo",
        origin("linux64")
    ))
}

/// The cargo a compiled build would run (`$CARGO`, else `cargo` on `PATH`), if
/// it exists.
pub fn cargo() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    find_program(&cargo)
}

/// `name` as a path (when it has a separator) or searched on `PATH`.
fn find_program(name: &OsStr) -> Option<PathBuf> {
    let path = Path::new(name);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    let dirs = std::env::var_os("PATH")?;
    std::env::split_paths(&dirs)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The runtime a build uses: `requested`, or compiled when cargo is found and
/// prebuilt (if this tool has one) when it is not.
pub fn choose(requested: Option<Runtime>) -> Result<Runtime, Error> {
    match requested {
        Some(runtime) => Ok(runtime),
        None if cargo().is_some() => Ok(Runtime::Compiled),
        None if prebuilt("linux64")?.is_some() => Ok(Runtime::Prebuilt),
        // No prebuilt runtime either: the compiled build will report the missing cargo.
        None => Ok(Runtime::Compiled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_path_or_by_path() {
        assert!(find_program(OsStr::new("sh")).is_some());
        assert!(find_program(OsStr::new("/bin/sh")).is_some());
        assert!(find_program(OsStr::new("/nonexistent/cargo")).is_none());
        assert!(find_program(OsStr::new("lcsfmu-no-such-program")).is_none());
    }

    #[test]
    fn the_version_says_what_each_platform_got() {
        let mut lines = LONG_VERSION.lines();
        assert_eq!(lines.next(), Some(env!("CARGO_PKG_VERSION")));
        for (platform, _, _) in PLATFORMS {
            let line = lines.next().unwrap();
            assert_eq!(
                line,
                format!("prebuilt runtime {platform}: {}", origin(platform))
            );
            // An embedded runtime has an origin; a missing one says why.
            let embedded = embedded::RUNTIMES.iter().any(|(p, _)| *p == platform);
            assert_eq!(origin(platform).starts_with("none: "), !embedded, "{line}");
        }
    }

    #[test]
    fn every_platform_has_its_suffix() {
        assert_eq!(suffix("linux64"), "so");
        assert_eq!(suffix("win64"), "dll");
    }
}
