//! Hostile archives under `lcsfmu check` and `lcsfmu simulate FILE.fmu`: entry
//! paths that leave the directory, symbolic links, zip bombs (honest and lying
//! headers, entries sharing one compressed block), a 1 GiB modelDescription.xml,
//! and binaries that crash or loop. Each is refused or reported with the entry and
//! the limit named; nothing is written outside a temporary directory; the
//! commands run under a 1 GiB address-space limit (`ulimit -v`) and in bounded time.
//!
//! The archives are built here at test time with the `zip` crate from sign_spiral's
//! FMU plus the hostile entries: megabytes on disk, gigabytes when inflated. Each
//! case gets a directory with the archive in `in/`, an empty working directory
//! `work/` and an empty `TMPDIR` `tmp/`; after both commands all three must hold
//! what they held before, and the targets the entries name must not exist.

use super::binary_run::foreign;
use super::fmu_check::out_dir;
use super::fmus;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use zip::write::SimpleFileOptions;

/// Something added to sign_spiral's entries.
enum Extra {
    File(&'static str, Vec<u8>),
    /// `size` bytes of one repeated byte, compressed (a bomb's payload).
    Fill(&'static str, u8, usize),
    Link(&'static str, String),
    /// Entries sharing the data of an earlier one (the zip crate's shallow copy).
    Copies(&'static str, usize),
}

/// A fresh case directory with `in/<case>.fmu` built from sign_spiral's entries
/// (those `keep` accepts) and `extras`.
fn build(case: &str, keep: impl Fn(&str) -> bool, extras: Vec<Extra>) -> PathBuf {
    let dir = out_dir().join("hostile").join(case);
    drop(std::fs::remove_dir_all(&dir));
    for sub in ["in", "work", "tmp"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let fmu = dir.join("in").join(format!("{case}.fmu"));
    let mut source =
        zip::ZipArchive::new(std::fs::File::open(fmus::bundled("sign_spiral")).unwrap()).unwrap();
    let mut w = zip::ZipWriter::new(std::fs::File::create(&fmu).unwrap());
    let fast = SimpleFileOptions::default().compression_level(Some(1));
    for i in 0..source.len() {
        let mut e = source.by_index(i).unwrap();
        if !keep(e.name()) {
            continue;
        }
        let mut bytes = vec![];
        e.read_to_end(&mut bytes).unwrap();
        w.start_file(e.name(), fast).unwrap();
        w.write_all(&bytes).unwrap();
    }
    for extra in extras {
        match extra {
            Extra::File(name, bytes) => {
                w.start_file(name, fast).unwrap();
                w.write_all(&bytes).unwrap();
            }
            Extra::Fill(name, byte, size) => {
                w.start_file(name, fast.large_file(size >= 1 << 32))
                    .unwrap();
                let chunk = vec![byte; 16 << 20];
                let mut left = size;
                while left > 0 {
                    let n = left.min(chunk.len());
                    w.write_all(&chunk[..n]).unwrap();
                    left -= n;
                }
            }
            Extra::Link(name, target) => w.add_symlink(name, target, fast).unwrap(),
            Extra::Copies(name, n) => {
                for k in 0..n {
                    w.shallow_copy_file(name, &format!("{name}.copy{k}"))
                        .unwrap();
                }
            }
        }
    }
    w.finish().unwrap();
    fmu
}

/// Rewrites every declared uncompressed size equal to `from` (local headers and
/// central directory) as `to`: headers that lie about what the data inflates to.
fn lie_about_size(fmu: &Path, from: u32, to: u32) {
    let mut bytes = std::fs::read(fmu).unwrap();
    let mut patched = 0;
    // (signature, offset of the uncompressed size in that header)
    for (signature, offset) in [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)] {
        let mut at = 0;
        while let Some(k) = bytes[at..].windows(4).position(|w| w == signature) {
            let field = at + k + offset;
            if bytes[field..field + 4] == from.to_le_bytes() {
                bytes[field..field + 4].copy_from_slice(&to.to_le_bytes());
                patched += 1;
            }
            at += k + 4;
        }
    }
    assert!(patched >= 2, "no header declares {from} bytes");
    std::fs::write(fmu, bytes).unwrap();
}

/// What a command did: exit code, standard output, standard error, time taken.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// `lcsfmu ARGS... FMU` in the case's `work/` with `TMPDIR` its `tmp/`, under a
/// 1 GiB address-space limit (the shell's `ulimit -v`, inherited by the child).
fn lcsfmu(fmu: &Path, args: &[&str]) -> Ran {
    let case = fmu.parent().unwrap().parent().unwrap();
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 1048576 && exec "$@""#)
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_lcsfmu"))
        .args(args)
        .arg(fmu)
        .current_dir(case.join("work"))
        .env("TMPDIR", case.join("tmp"))
        .output()
        .unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// Nothing was written: `work/` and `tmp/` are empty, `in/` holds the archive
/// only, and none of `outside` exists.
fn nothing_written(fmu: &Path, outside: &[PathBuf]) {
    let case = fmu.parent().unwrap().parent().unwrap();
    let list = |d: &str| -> Vec<String> {
        let entries = std::fs::read_dir(case.join(d)).unwrap();
        entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(list("work"), Vec::<String>::new());
    assert_eq!(list("tmp"), Vec::<String>::new());
    assert_eq!(list("in").len(), 1);
    for path in outside {
        assert!(!path.exists(), "{} was written", path.display());
    }
}

/// `check` fails exactly with `fail` (one line) and exits 1; `simulate` exits 1
/// with `refused` in its error; both in bounded time; nothing written.
fn refused_by_both(fmu: &Path, fail: &str, refused: &str, outside: &[PathBuf]) {
    let check = lcsfmu(fmu, &["check"]);
    let fails: Vec<&str> = check
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    assert_eq!(check.code, Some(1), "{}{}", check.stdout, check.stderr);
    assert_eq!(fails, [fail], "{}", check.stdout);
    let simulate = lcsfmu(fmu, &["simulate"]);
    assert_eq!(simulate.code, Some(1), "{}", simulate.stderr);
    let expected = format!("error: {}: {refused}", fmu.display());
    assert_eq!(simulate.stderr.trim_end(), expected);
    for ran in [&check, &simulate] {
        assert!(ran.elapsed < Duration::from_secs(60), "{:?}", ran.elapsed);
    }
    eprintln!(
        "{}: check {:.2} s, simulate {:.2} s",
        fmu.display(),
        check.elapsed.as_secs_f64(),
        simulate.elapsed.as_secs_f64()
    );
    nothing_written(fmu, outside);
}

const LIMITS: &str = "entries decompress intact within the limits (64 MiB for the XML and model.json, 256 MiB each, 1 GiB in all)";

#[test]
fn entries_outside_the_directory_are_refused() {
    let absolute = std::env::temp_dir().join(format!("lcsfmu-hostile-{}.txt", std::process::id()));
    let abs_name: &'static str =
        Box::leak(absolute.to_string_lossy().into_owned().into_boxed_str());
    let fmu = build(
        "escape",
        |_| true,
        vec![
            Extra::File("../escape.txt", b"out".to_vec()),
            Extra::File(abs_name, b"out".to_vec()),
        ],
    );
    let case = fmu.parent().unwrap().parent().unwrap();
    refused_by_both(
        &fmu,
        r#"FAIL entry paths relative, with forward slashes and no '..': entry "../escape.txt""#,
        r#"entry "../escape.txt" is outside the archive's directory or not portable"#,
        &[
            case.join("escape.txt"),
            case.join("in/../escape.txt"),
            absolute,
        ],
    );
}

/// One entry of sign_spiral's FMU.
fn entry(name: &str) -> Vec<u8> {
    let file = std::fs::File::open(fmus::bundled("sign_spiral")).unwrap();
    let mut zip = zip::ZipArchive::new(file).unwrap();
    let mut bytes = vec![];
    zip.by_name(name).unwrap().read_to_end(&mut bytes).unwrap();
    bytes
}

#[test]
fn a_model_identifier_that_climbs_out_is_not_extracted() {
    // The binary's entry name comes from the XML: `binaries/linux64/<id>.so`.
    let id = "../../../../evil";
    let xml = String::from_utf8(entry("modelDescription.xml")).unwrap();
    let xml = xml.replace(
        r#"modelIdentifier="sign_spiral""#,
        &format!(r#"modelIdentifier="{id}""#),
    );
    let fmu = build(
        "identifier_escape",
        |name| name != "modelDescription.xml" && !name.ends_with(".so"),
        vec![
            Extra::File("modelDescription.xml", xml.into_bytes()),
            Extra::File(
                "binaries/linux64/../../../../evil.so",
                entry("binaries/linux64/sign_spiral.so"),
            ),
        ],
    );
    let case = fmu.parent().unwrap().parent().unwrap().to_path_buf();
    let check = lcsfmu(&fmu, &["check"]);
    let fails: Vec<&str> = check
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    assert_eq!(check.code, Some(1), "{}{}", check.stdout, check.stderr);
    assert_eq!(
        fails,
        [
            r#"FAIL entry paths relative, with forward slashes and no '..': entry "binaries/linux64/../../../../evil.so""#,
            r#"FAIL binary loaded and run for 10 steps in a child process: the binary's entry "binaries/linux64/../../../../evil.so" is not a path inside the archive: not extracted"#,
        ],
        "{}",
        check.stdout
    );
    nothing_written(&fmu, &[case.join("evil.so"), case.join("tmp/evil.so")]);
}

#[test]
fn symbolic_links_are_refused() {
    let fmu = build(
        "symlink",
        |_| true,
        vec![Extra::Link("resources/link", "../../link-target".into())],
    );
    let case = fmu.parent().unwrap().parent().unwrap();
    refused_by_both(
        &fmu,
        r#"FAIL no symbolic links among the entries: ["resources/link"]"#,
        r#"entry "resources/link" is a symbolic link"#,
        &[case.join("link-target"), case.join("work/resources")],
    );
}

#[test]
fn a_bomb_with_honest_headers_is_refused_before_inflating() {
    // 200 MiB of zeros, compressed to about 200 kB, listed six times.
    let fmu = build(
        "bomb_declared",
        |_| true,
        vec![
            Extra::Fill("documentation/zeros.bin", 0, 200 << 20),
            Extra::Copies("documentation/zeros.bin", 5),
        ],
    );
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    let total: u64 = (0..zip.len())
        .map(|i| zip.by_index_raw(i).unwrap().size())
        .sum();
    assert!(total > 6 * (200 << 20), "{total}");
    let why = format!("the entries declare {total} bytes in all, more than the 1 GiB limit");
    refused_by_both(&fmu, &format!("FAIL {LIMITS}: {why}"), &why, &[]);
}

#[test]
fn a_bomb_with_lying_headers_stops_at_the_total_cap() {
    // The same six 200 MiB entries, each declaring 1,000 bytes: only inflating
    // tells, and the check stops once 1 GiB has come out.
    let fmu = build(
        "bomb_lying",
        |_| true,
        vec![
            Extra::Fill("documentation/zeros.bin", 0, 200 << 20),
            Extra::Copies("documentation/zeros.bin", 5),
        ],
    );
    lie_about_size(&fmu, 200 << 20, 1000);
    let check = lcsfmu(&fmu, &["check"]);
    let fails: Vec<&str> = check
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    let why = "the entries decompress to more than the 1 GiB limit in all (reached at documentation/zeros.bin.copy4)";
    assert_eq!(check.code, Some(1), "{}{}", check.stdout, check.stderr);
    assert_eq!(fails, [format!("FAIL {LIMITS}: {why}")]);
    // simulate reads two entries only, and they are intact: it runs.
    let simulate = lcsfmu(&fmu, &["simulate", "--stop", "1"]);
    assert_eq!(simulate.code, Some(0), "{}", simulate.stderr);
    eprintln!("bomb_lying: check {:.2} s", check.elapsed.as_secs_f64());
    assert!(check.elapsed < Duration::from_secs(60));
    nothing_written(&fmu, &[]);
}

#[test]
fn an_entry_inflating_past_its_declared_size_is_cut_at_its_cap() {
    // model.json replaced by 100 MiB of spaces that declare 1,000 bytes.
    let fmu = build(
        "model_lying",
        |name| name != "resources/model.json",
        vec![Extra::Fill("resources/model.json", b' ', 100 << 20)],
    );
    lie_about_size(&fmu, 100 << 20, 1000);
    let why = "resources/model.json decompresses to more than 64 MiB (1000 bytes declared)";
    refused_by_both(&fmu, &format!("FAIL {LIMITS}: {why}"), why, &[]);
}

#[test]
fn a_1_gib_model_description_is_refused() {
    let fmu = build(
        "xml_1gib",
        |name| name != "modelDescription.xml",
        vec![Extra::Fill("modelDescription.xml", b' ', 1 << 30)],
    );
    let why = "modelDescription.xml declares 1073741824 bytes, more than the 64 MiB limit";
    refused_by_both(&fmu, &format!("FAIL {LIMITS}: {why}"), why, &[]);
}

#[test]
fn a_10_gib_entry_is_refused_before_inflating() {
    let fmu = build(
        "entry_10gib",
        |_| true,
        vec![Extra::Fill("resources/zeros.bin", 0, 10 << 30)],
    );
    let size = std::fs::metadata(&fmu).unwrap().len();
    eprintln!("entry_10gib: {size} bytes on disk");
    let why = "resources/zeros.bin declares 10737418240 bytes, more than the 256 MiB limit";
    refused_by_both(&fmu, &format!("FAIL {LIMITS}: {why}"), why, &[]);
    // About 100 MB that no later run needs.
    std::fs::remove_dir_all(fmu.parent().unwrap().parent().unwrap()).unwrap();
}

#[test]
fn simulate_never_loads_the_binary() {
    // The embedded model runs in the core: a binary that crashes or loops is not
    // simulate's concern (check reports it, see `binary_run`).
    for behaviour in ["SEGV", "LOOP"] {
        let src = foreign(behaviour);
        let fmu = build(&format!("simulate_{behaviour}"), |_| true, vec![]);
        std::fs::copy(&src, &fmu).unwrap();
        let ran = lcsfmu(&fmu, &["simulate", "--stop", "1"]);
        assert_eq!(ran.code, Some(0), "{behaviour}: {}", ran.stderr);
        assert_eq!(
            ran.stdout.lines().count(),
            7,
            "{behaviour}: header and t = 0, 0.2, ..., 1"
        );
        nothing_written(&fmu, &[]);
    }
}
