//! `lcsfmu check FILE.fmu` runs the FMU's binary in a child process: foreign
//! binaries that crash, hang, fail, hog memory or lack a function each give one
//! FAIL line naming what happened, and `lcsfmu` itself exits with the check's
//! failure status (1, not a signal) in bounded time.
//!
//! The foreign binaries are `tests/c/foreign_fmu.c`, built by gcc with one `-D`
//! per behaviour and put into a copy of sign_spiral's FMU in place of its own
//! `binaries/linux64/sign_spiral.so`; the rest of the archive stays valid, so the
//! run is the only check that can fail (two for the missing symbol, which the
//! export check sees too). A well-behaved build of the same C file must pass:
//! the harness can tell a good binary from a bad one. Besides `fmi2DoStep`, a
//! binary may crash while it loads, call `exit`, or fork a process that outlives it.

use super::fmu_check::{out_dir, rewrite};
use super::fmus;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// sign_spiral's FMU with its binary replaced by foreign_fmu.c built with `-D{behaviour}`.
pub fn foreign(behaviour: &str) -> PathBuf {
    let so = out_dir().join(format!("foreign_{behaviour}.so"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/foreign_fmu.c");
    let out = Command::new("gcc")
        .args(["-shared", "-fPIC", "-O0", "-w"])
        .arg(format!("-D{behaviour}"))
        .arg("-o")
        .arg(&so)
        .arg(&source)
        .output()
        .expect("gcc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let binary = std::fs::read(&so).unwrap();
    rewrite(
        &fmus::bundled("sign_spiral"),
        &format!("foreign_{behaviour}"),
        |name, bytes| {
            let bytes = if name.ends_with(".so") {
                binary.clone()
            } else {
                bytes
            };
            vec![(name.to_string(), bytes)]
        },
    )
}

/// `lcsfmu check ARGS... FMU`: exit code (None for a signal), FAIL lines, time.
fn check(fmu: &Path, args: &[&str]) -> (Option<i32>, Vec<String>, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_lcsfmu"))
        .arg("check")
        .args(args)
        .arg(fmu)
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let text = String::from_utf8(out.stdout).unwrap();
    let fails = text
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .map(String::from)
        .collect();
    (out.status.code(), fails, elapsed)
}

const RUN: &str = "FAIL binary loaded and run for 10 steps in a child process: ";

#[test]
fn a_well_behaved_foreign_binary_passes() {
    let (code, fails, _) = check(&foreign("BEHAVE"), &[]);
    assert_eq!((code, fails), (Some(0), vec![]));
}

#[test]
fn a_crash_in_do_step_is_a_fail_line() {
    let (code, fails, _) = check(&foreign("SEGV"), &[]);
    let expected =
        "killed by SIGSEGV (invalid memory access) during fmi2DoStep (step 1 of 10, t = 0)";
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(fails, [format!("{RUN}{expected}")]);
}

#[test]
fn a_hang_in_do_step_is_killed_at_the_time_limit() {
    let (code, fails, elapsed) = check(&foreign("LOOP"), &["--time-limit", "2"]);
    let expected = "no result after 2 s: killed during fmi2DoStep (step 1 of 10, t = 0)";
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(fails, [format!("{RUN}{expected}")]);
    // The deadline, plus the rest of the check and a loaded machine's slack.
    assert!(elapsed < Duration::from_secs(12), "{elapsed:?}");
}

#[test]
fn an_error_status_is_a_fail_line_with_the_logged_message() {
    let (code, fails, _) = check(&foreign("ERROR"), &[]);
    // The message as the FMU passed it: printf arguments are not substituted.
    let expected = "fmi2DoStep (step 1 of 10, t = 0) returned fmi2Error; \
                    the FMU logged: fmi2Error logStatusError: step refused by design at t = %g";
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(fails, [format!("{RUN}{expected}")]);
}

#[test]
fn memory_is_limited_by_the_memory_limit() {
    // Without the limit this binary takes all the memory there is.
    let (code, fails, _) = check(&foreign("HOG"), &["--memory-limit", "256"]);
    let expected = "fmi2DoStep (step 1 of 10, t = 0) returned fmi2Fatal; \
                    the FMU logged: fmi2Fatal logStatusFatal: out of memory";
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(fails, [format!("{RUN}{expected}")]);
}

#[test]
fn a_missing_function_is_named() {
    let (code, fails, _) = check(&foreign("NO_DOSTEP"), &[]);
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(
        fails,
        [
            r#"FAIL exports exactly the 34 FMI 2.0 co-simulation functions: missing ["fmi2DoStep"] extra []"#
                .to_string(),
            format!("{RUN}the library does not export fmi2DoStep"),
        ]
    );
}

#[test]
fn a_crash_while_loading_is_a_fail_line() {
    let (code, fails, _) = check(&foreign("CTOR_SEGV"), &[]);
    let expected = "killed by SIGSEGV (invalid memory access) during dlopen";
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(fails, [format!("{RUN}{expected}")]);
}

#[test]
fn an_exit_in_do_step_is_a_fail_line() {
    let (code, fails, _) = check(&foreign("EXIT"), &[]);
    let expected = "exited with status 3 during fmi2DoStep (step 1 of 10, t = 0)";
    assert_eq!(code, Some(1), "{fails:?}");
    assert_eq!(fails, [format!("{RUN}{expected}")]);
}

#[test]
fn what_the_binary_forks_is_killed_with_the_child() {
    // The forked process holds the child's pipes for 1,000 s: the run only ends
    // (and passes) because the child's process group is killed when it exits.
    let (code, fails, elapsed) = check(&foreign("FORK"), &[]);
    assert_eq!((code, fails), (Some(0), vec![]));
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}
