//! Embeds what `lcsfmu build` compiles into an FMU (the core's `src/`, the
//! template in `template/`, the manifest and the lock file) so that an installed
//! `lcsfmu` needs no source tree: `export.rs` writes them out into its cache.
//! With `LCSFMU_RUNTIME_DIR` set, it also embeds the prebuilt runtimes found
//! there (`linux64/runtime.so`, `win64/runtime.dll`, from
//! `scripts/build-runtime.sh`), which `lcsfmu build --runtime prebuilt` copies
//! into FMUs without compiling anything.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // The FMU links the core without `tool`: nothing to embed there.
    if std::env::var_os("CARGO_FEATURE_TOOL").is_none() {
        return;
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let mut files = Vec::new();
    for dir in ["src", "template"] {
        println!("cargo:rerun-if-changed={dir}");
        collect(&root.join(dir), &mut files);
    }
    for name in ["Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={name}");
    }
    files.sort();
    // The manifest without what only the source tree has (tests, benches, dev
    // dependencies, the workspace with fmu-template's own directory).
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let manifest_out = out.join("Cargo.toml");
    std::fs::write(&manifest_out, core_manifest(&manifest)).unwrap();
    let mut entries = vec![("Cargo.toml".to_string(), manifest_out)];
    entries.push(("Cargo.lock".to_string(), root.join("Cargo.lock")));
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        entries.push((rel, path));
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut code = String::from("pub const FILES: &[(&str, &[u8])] = &[\n");
    for (rel, path) in &entries {
        rel.hash(&mut hasher);
        std::fs::read(path).unwrap().hash(&mut hasher);
        writeln!(
            code,
            "    ({rel:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    std::fs::write(out.join("runtimes.rs"), runtimes()).unwrap();
    writeln!(code, "pub const HASH: &str = \"{:016x}\";", hasher.finish()).unwrap();
    std::fs::write(out.join("embedded.rs"), code).unwrap();
}

/// The platforms a prebuilt runtime can be embedded for, and its file under
/// `$LCSFMU_RUNTIME_DIR` (the FMU's `binaries/` folder and the library suffix).
const RUNTIME_FILES: [(&str, &str); 2] = [("linux64", "runtime.so"), ("win64", "runtime.dll")];

/// `pub const RUNTIMES: &[(platform, bytes)]`: the runtimes in
/// `$LCSFMU_RUNTIME_DIR`; empty without it. A named directory without a Linux
/// runtime is a mistake worth stopping the build for.
fn runtimes() -> String {
    println!("cargo:rerun-if-env-changed=LCSFMU_RUNTIME_DIR");
    let mut code = String::from("pub const RUNTIMES: &[(&str, &[u8])] = &[\n");
    if let Some(dir) = std::env::var_os("LCSFMU_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        for (platform, file) in RUNTIME_FILES {
            let path = dir.join(platform).join(file);
            println!("cargo:rerun-if-changed={}", path.display());
            if path.is_file() {
                writeln!(
                    code,
                    "    ({platform:?}, include_bytes!({:?})),",
                    path.display().to_string()
                )
                .unwrap();
            } else if platform == "linux64" {
                panic!(
                    "LCSFMU_RUNTIME_DIR={} has no {platform}/{file}: build it with scripts/build-runtime.sh",
                    dir.display()
                );
            }
        }
    }
    code.push_str("];\n");
    code
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// `Cargo.toml` (as written in the repository, or as `cargo package` normalizes
/// it) reduced to the core crate and the template as a workspace.
fn core_manifest(manifest: &str) -> String {
    let mut text =
        String::from("[workspace]\nmembers = [\".\", \"fmu-template\"]\nresolver = \"2\"\n\n");
    let mut keep = true;
    let mut in_package = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            let name = t.trim_matches(|c| c == '[' || c == ']');
            in_package = name == "package";
            keep = !(name == "workspace"
                || name.starts_with("workspace.")
                || name.starts_with("dev-dependencies")
                || (name.starts_with("target.") && name.contains("dev-dependencies"))
                || matches!(t, "[[bench]]" | "[[test]]" | "[[example]]"));
        }
        // `cargo package` writes `build = "build.rs"` out; this script is not
        // embedded (the FMU's core has nothing to embed), so cargo must not look for it.
        let key = t.split('=').next().unwrap_or("").trim();
        if in_package && key == "build" {
            continue;
        }
        if keep {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}
