//! Embeds what `lcsfmu build` compiles into an FMU (the core's `src/`, the
//! template in `template/`, the manifest and the lock file) so that an installed
//! `lcsfmu` needs no source tree: `export.rs` writes them out into its cache.
//!
//! It also embeds the prebuilt runtimes (the template built once without a
//! model), which `lcsfmu build --runtime prebuilt` copies into FMUs without
//! compiling anything, so that every install route gives a tool that works
//! without a Rust toolchain:
//! - with `LCSFMU_RUNTIME_DIR` set, the ones found there (`linux64/runtime.so`,
//!   `win64/runtime.dll`, from `scripts/build-runtime*.sh`; the wheel and CI);
//! - otherwise, in a release build (`cargo install`, `pip install .`, `cargo
//!   build --release`), it compiles them itself: a nested `cargo build` of the
//!   embedded sources, written out under `OUT_DIR`, offline. The linux64 one
//!   always (its failure fails the build); the win64 one when a cross toolchain
//!   is there (see `win64_cargo`; its failure is a warning). A debug build
//!   compiles none, to keep the edit-compile loop short.
//!
//! No recursion: the nested build compiles the core without the `tool`
//! feature, for which this script embeds nothing, and its manifest has no build
//! script. No lock is shared: the nested build has its own target directory.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

include!("src/fmi/template_manifest.rs");

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
    std::fs::write(out.join("runtimes.rs"), runtimes(&entries, &out)).unwrap();
    writeln!(code, "pub const HASH: &str = \"{:016x}\";", hasher.finish()).unwrap();
    std::fs::write(out.join("embedded.rs"), code).unwrap();
}

/// The platforms a prebuilt runtime can be embedded for, and its file under
/// `$LCSFMU_RUNTIME_DIR` (the FMU's `binaries/` folder and the library suffix).
const RUNTIME_FILES: [(&str, &str); 2] = [("linux64", "runtime.so"), ("win64", "runtime.dll")];

/// The Rust target of the win64 runtime (MinGW-w64: no MSVC SDK to download).
const WIN64_TRIPLE: &str = "x86_64-pc-windows-gnu";

/// A platform's runtime: its file and where it came from, or why there is none.
type Found = Result<(PathBuf, String), String>;

/// `runtimes.rs`: `RUNTIMES` (platform, bytes), `ORIGINS` (platform, where its
/// runtime came from or why there is none) and `LONG_VERSION` (`lcsfmu
/// --version`, which says both, so a user sees what an install route gave).
fn runtimes(sources: &[(String, PathBuf)], out: &Path) -> String {
    for var in [
        "LCSFMU_RUNTIME_DIR",
        "LCSFMU_RUNTIME_TARGET_DIR",
        "LCSFMU_WIN64_TOOLCHAIN",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let found = match std::env::var_os("LCSFMU_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => from_dir(Path::new(&dir)),
        None => compile_runtimes(sources, out),
    };
    let mut code = String::from("pub const RUNTIMES: &[(&str, &[u8])] = &[\n");
    for (platform, found) in &found {
        if let Ok((path, _)) = found {
            writeln!(
                code,
                "    ({platform:?}, include_bytes!({:?})),",
                path.display().to_string()
            )
            .unwrap();
        }
    }
    code.push_str("];\npub const ORIGINS: &[(&str, &str)] = &[\n");
    let mut version = std::env::var("CARGO_PKG_VERSION").unwrap();
    for (platform, found) in &found {
        let origin = match found {
            Ok((_, origin)) => origin.clone(),
            Err(why) => format!("none: {why}"),
        };
        writeln!(code, "    ({platform:?}, {origin:?}),").unwrap();
        write!(version, "\nprebuilt runtime {platform}: {origin}").unwrap();
    }
    code.push_str("];\n");
    writeln!(code, "pub const LONG_VERSION: &str = {version:?};").unwrap();
    code
}

/// The runtimes in `dir`. A named directory without a Linux runtime is a
/// mistake worth stopping the build for.
fn from_dir(dir: &Path) -> Vec<(&'static str, Found)> {
    let mut found = Vec::new();
    for (platform, file) in RUNTIME_FILES {
        let path = dir.join(platform).join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_file() {
            // Not the path: it would show the build machine's in a wheel's --version.
            let origin = "embedded from LCSFMU_RUNTIME_DIR when this lcsfmu was built".to_string();
            found.push((platform, Ok((path, origin))));
        } else if platform == "linux64" {
            panic!(
                "LCSFMU_RUNTIME_DIR={} has no {platform}/{file}: build it with scripts/build-runtime.sh",
                dir.display()
            );
        } else {
            found.push((
                platform,
                Err(format!("LCSFMU_RUNTIME_DIR has no {platform}/{file}")),
            ));
        }
    }
    found
}

/// Compiles the runtimes this build can (see the top of this file) into
/// `out/runtime/<platform>/`.
fn compile_runtimes(sources: &[(String, PathBuf)], out: &Path) -> Vec<(&'static str, Found)> {
    // PROFILE is "release" for every profile that inherits from release
    // (cargo install, maturin, cargo build --release).
    if std::env::var("PROFILE").as_deref() != Ok("release") {
        return none(
            "a debug build of lcsfmu compiles no runtime (release builds do: cargo install, \
             pip install, cargo build --release; or set LCSFMU_RUNTIME_DIR)",
        );
    }
    // A lint run never uses the bytes, and would pay for a nested build of
    // its own (its build script runs apart from `cargo build`'s).
    let wrapper = std::env::var_os("RUSTC_WORKSPACE_WRAPPER").unwrap_or_default();
    if wrapper.to_string_lossy().contains("clippy") {
        return none("a clippy run compiles no runtime");
    }
    let src = out.join("runtime-src");
    write_sources(sources, &src);
    // LCSFMU_RUNTIME_TARGET_DIR (an absolute path: this runs in the package's
    // directory, not the caller's) shares the compiled dependencies between builds
    // (the install test's routes; `<dir>/linux64` is the target directory of
    // scripts/build-runtime.sh with target/runtime-build). Not `<dir>/win64`
    // with scripts/build-runtime-win64.sh's: cargo fingerprints std's sources
    // by their path relative to the workspace, and the two workspaces would
    // take turns recompiling std.
    let target_dir = std::env::var_os("LCSFMU_RUNTIME_TARGET_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| out.join("runtime-build"));
    // The outer cargo holds its own target directory's lock while this runs: a
    // nested build there would wait for it forever.
    if out.starts_with(&target_dir) {
        panic!(
            "LCSFMU_RUNTIME_TARGET_DIR={} holds this build's own output: name another directory",
            target_dir.display()
        );
    }
    std::fs::create_dir_all(&target_dir).unwrap();
    // Builds sharing LCSFMU_RUNTIME_TARGET_DIR write the same library file: each
    // copies its own before another can overwrite it.
    let lock_path = target_dir.join("lcsfmu-runtime.lock");
    let lock = std::fs::File::create(&lock_path).unwrap();
    lock.lock().unwrap();
    let dest = out.join("runtime");
    let target = std::env::var("TARGET").unwrap();
    let linux64 = if target == "x86_64-unknown-linux-gnu" {
        let library = compile_linux64(&src, &target_dir.join("linux64"), &target);
        let path = dest.join("linux64").join("runtime.so");
        copy_if_changed(&library, &path);
        Ok((
            path,
            "compiled when this lcsfmu was built, for its machine (its glibc or newer)".to_string(),
        ))
    } else {
        Err(format!(
            "this lcsfmu is built for {target}, not x86_64 Linux"
        ))
    };
    let win64 = compile_win64(&src, &target_dir.join("win64"), &dest.join("win64"));
    drop(lock);
    vec![("linux64", linux64), ("win64", win64)]
}

/// No runtime for any platform, for the reason `why`.
fn none(why: &str) -> Vec<(&'static str, Found)> {
    RUNTIME_FILES
        .iter()
        .map(|(platform, _)| (*platform, Err(why.to_string())))
        .collect()
}

/// The workspace of the core and the template (`export.rs` writes the same one
/// out at run time), rewriting only files that changed so that the nested
/// build recompiles only what did.
fn write_sources(sources: &[(String, PathBuf)], dir: &Path) {
    let template = (
        "fmu-template/Cargo.toml",
        TEMPLATE_MANIFEST.as_bytes().to_vec(),
    );
    // A source file the tree no longer has (a module moved or renamed since the
    // last build in this OUT_DIR) must go: left behind, it can clash with its
    // new place (`linalg.rs` beside `linalg/mod.rs`).
    let wanted: std::collections::HashSet<PathBuf> =
        sources.iter().map(|(rel, _)| dir.join(rel)).collect();
    let mut present = Vec::new();
    collect(dir, &mut present);
    for stale in present
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && !wanted.contains(*p))
    {
        let _ = std::fs::remove_file(stale);
    }
    let files = sources
        .iter()
        .map(|(rel, path)| (rel.as_str(), std::fs::read(path).unwrap()))
        .chain(std::iter::once(template));
    for (rel, bytes) in files {
        let path = dir.join(rel);
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
    }
}

/// `cargo build --release -p fmu-template --features prebuilt` of the workspace
/// in `src`, offline, into `target_dir`.
fn runtime_build(cargo: &OsStr, src: &Path, target_dir: &Path) -> Command {
    let mut cmd = Command::new(cargo);
    cmd.args([
        "build",
        "--release",
        "--offline",
        "--quiet",
        "-p",
        "fmu-template",
    ])
    .args(["--features", "prebuilt", "--manifest-path"])
    .arg(src.join("Cargo.toml"))
    .arg("--target-dir")
    .arg(target_dir);
    // Variables of the outer build that would move the output or change the
    // code: the runtime goes into FMUs for other machines, so flags such as
    // `-C target-cpu=native` meant for this tool must not reach it, and
    // `cargo clippy`'s wrapper would lint the nested build. CARGO_MAKEFLAGS
    // stays: the nested cargo takes its jobs from the outer one's jobserver.
    for var in [
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs a runtime build; when the lock file pins versions that are not in the
/// local registry cache (an install that resolved without `--locked`), once
/// more without it, so that cargo resolves to the versions the outer build
/// fetched. Nothing is downloaded either way.
fn run_runtime_build(mut cmd: Command, src: &Path) -> Result<(), String> {
    let output = cmd
        .output()
        .map_err(|e| format!("cargo could not be run: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !stderr.contains("offline") {
        return Err(stderr);
    }
    std::fs::remove_file(src.join("Cargo.lock")).unwrap();
    let output = cmd
        .output()
        .map_err(|e| format!("cargo could not be run: {e}"))?;
    match output.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{stderr}\n(and without the lock file:)\n{}",
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

/// The linux64 runtime, with the cargo and rustc of this build; returns the
/// library's path. Its failure stops the build: the same sources compile in
/// this build, so it is a defect to see, not a runtime to leave out quietly.
fn compile_linux64(src: &Path, target_dir: &Path, target: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap();
    let mut cmd = runtime_build(&cargo, src, target_dir);
    let mut dir = target_dir.to_path_buf();
    // Only when cross-compiling the tool: without --target the directory layout
    // is scripts/build-runtime.sh's, whose compiled dependencies can be shared.
    if std::env::var("HOST").as_deref() != Ok(target) {
        cmd.args(["--target", target]);
        dir.push(target);
    }
    if let Err(e) = run_runtime_build(cmd, src) {
        panic!(
            "compiling the prebuilt linux64 runtime (cargo build --release -p fmu-template \
             --features prebuilt, offline, in {}) failed:\n{e}\nTo embed runtimes built \
             beforehand instead, set LCSFMU_RUNTIME_DIR (scripts/build-runtime.sh)",
            src.display()
        );
    }
    dir.join("release").join("libfmu_template.so")
}

/// The win64 runtime, when this machine can cross-build it, copied (stripped)
/// to `dest/runtime.dll`; otherwise why not.
fn compile_win64(src: &Path, target_dir: &Path, dest: &Path) -> Found {
    let mut cmd = win64_cargo(src, target_dir)?;
    cmd.args(["--target", WIN64_TRIPLE])
        // The library is stripped below with MinGW's strip: cargo's own would
        // need rust-objcopy, which Debian's toolchain does not have.
        .env("CARGO_PROFILE_RELEASE_STRIP", "false");
    if let Err(e) = run_runtime_build(cmd, src) {
        let first = e
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("")
            .to_string();
        println!("cargo:warning=the win64 runtime was not built (FMUs will have no binaries/win64): {first}");
        return Err(format!("the cross build failed: {first}"));
    }
    let library = target_dir
        .join(WIN64_TRIPLE)
        .join("release")
        .join("fmu_template.dll");
    let path = dest.join("runtime.dll");
    std::fs::create_dir_all(dest).unwrap();
    let stripped = dest.join("runtime.dll.stripped");
    // MinGW's strip drops the symbol table and std's debug information
    // (3.1 MB -> 2.1 MB); the export directory stays. Without it, unstripped.
    let strip = Command::new("x86_64-w64-mingw32-strip")
        .arg("-o")
        .arg(&stripped)
        .arg(&library)
        .status();
    match strip {
        Ok(status) if status.success() => copy_if_changed(&stripped, &path),
        _ => copy_if_changed(&library, &path),
    }
    let _ = std::fs::remove_file(&stripped);
    Ok((
        path,
        format!("cross-compiled for {WIN64_TRIPLE} when this lcsfmu was built"),
    ))
}

/// The cargo that can build for x86_64-pc-windows-gnu here, with its
/// environment, or why there is none. MinGW-w64's gcc links the DLL (or the
/// linker CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER names); std for the target
/// comes from either
/// - the toolchain of this build, when it has it (`rustup target add
///   x86_64-pc-windows-gnu`), or
/// - `$LCSFMU_WIN64_TOOLCHAIN`, the Debian Rust that scripts/win64-toolchain.sh
///   unpacks (no rustup target; std compiled from its sources with
///   -Zbuild-std, which RUSTC_BOOTSTRAP=1 lets a stable compiler take: as
///   scripts/build-runtime-win64.sh does).
fn win64_cargo(src: &Path, target_dir: &Path) -> Result<Command, String> {
    let linker_var = "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER";
    println!("cargo:rerun-if-env-changed={linker_var}");
    let linker = std::env::var_os(linker_var).unwrap_or_else(|| "x86_64-w64-mingw32-gcc".into());
    if find_program(&linker).is_none() {
        return Err(format!(
            "no MinGW-w64 linker ({}) was found when this lcsfmu was built",
            linker.to_string_lossy()
        ));
    }
    if let Some(toolchain) = std::env::var_os("LCSFMU_WIN64_TOOLCHAIN").filter(|d| !d.is_empty()) {
        let usr = Path::new(&toolchain).join("root/usr");
        let cargo = usr.join("bin/cargo");
        if !cargo.is_file() {
            return Err(format!(
                "LCSFMU_WIN64_TOOLCHAIN={} has no root/usr/bin/cargo (scripts/win64-toolchain.sh)",
                Path::new(&toolchain).display()
            ));
        }
        let mut cmd = runtime_build(cargo.as_os_str(), src, target_dir);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(usr.join("bin")).chain(std::env::split_paths(&path));
        let ld = std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
        let lds =
            std::iter::once(usr.join("lib/x86_64-linux-gnu")).chain(std::env::split_paths(&ld));
        // Debian's own cargo and rustc (whose sysroot, with std's sources, is
        // `usr`), not this build's.
        for var in [
            "CARGO",
            "RUSTC",
            "RUSTDOC",
            "RUSTC_WRAPPER",
            "RUSTUP_TOOLCHAIN",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("PATH", std::env::join_paths(paths).unwrap())
            .env("LD_LIBRARY_PATH", std::env::join_paths(lds).unwrap())
            .env("RUSTC_BOOTSTRAP", "1")
            .env(linker_var, &linker)
            .arg("-Zbuild-std=std,panic_unwind");
        return Ok(cmd);
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let libdir = Command::new(&rustc)
        .args(["--print", "target-libdir", "--target", WIN64_TRIPLE])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let has_std = libdir
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .is_some_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
        });
    if !has_std {
        return Err(format!(
            "the Rust toolchain that built this lcsfmu has no standard library for {WIN64_TRIPLE} \
             (rustup target add {WIN64_TRIPLE}), and LCSFMU_WIN64_TOOLCHAIN names no other"
        ));
    }
    let cargo = std::env::var_os("CARGO").unwrap();
    let mut cmd = runtime_build(&cargo, src, target_dir);
    cmd.env(linker_var, &linker);
    Ok(cmd)
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

/// Copies `from` to `to` unless `to` already holds the same bytes (its time
/// then stays, and what embeds it is not rebuilt for nothing).
fn copy_if_changed(from: &Path, to: &Path) {
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    if std::fs::read(to).ok().as_deref() != Some(bytes.as_slice()) {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
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
