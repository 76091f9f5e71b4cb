//! Instructions per `fmi2DoStep`, counted by callgrind: the figure that does
//! not move with the load of a shared machine, printed beside the timings so
//! that a regression of the step shows in the run where it lands.
//!
//! The FMU's binary is stepped by `benches/callgrind/step_driver.c` (the C
//! driver of `scripts/count-instructions.sh`, compiled here with `cc`) under
//! `valgrind --tool=callgrind --toggle-collect=fmi2DoStep`, so only the step's
//! own instructions are counted. Without `valgrind` or `cc` there is no
//! count, and the bench says so.

use std::path::Path;
use std::process::Command;

/// The compiled step driver, or why there is none.
pub fn driver(root: &Path, dir: &Path) -> Result<std::path::PathBuf, String> {
    let ok = |c: &mut Command| c.output().map(|o| o.status.success()).unwrap_or(false);
    if !ok(Command::new("valgrind").arg("--version")) {
        return Err("valgrind is not installed (apt-get install valgrind)".into());
    }
    let exe = dir.join("step_driver");
    let source = root.join("benches").join("callgrind").join("step_driver.c");
    let mut cc = Command::new("cc");
    cc.arg("-O2").arg("-o").arg(&exe).arg(&source).arg("-ldl");
    if !ok(&mut cc) {
        return Err(format!("cc could not compile {}", source.display()));
    }
    Ok(exe)
}

/// Instructions per `fmi2DoStep` of the FMI 2.0 binary `so` (GUID `guid`,
/// resource location `resources`) over `steps` steps of size `h`.
pub fn per_step(
    driver: &Path,
    so: &Path,
    guid: &str,
    resources: &str,
    h: f64,
    steps: u64,
) -> Result<u64, String> {
    let out = so.with_extension("callgrind");
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--toggle-collect=fmi2DoStep")
        .arg(driver)
        .arg("2")
        .arg(so)
        .arg(guid)
        .arg(h.to_string())
        .arg(steps.to_string())
        .arg(resources)
        .output()
        .map_err(|e| format!("valgrind: {e}"))?;
    if !run.status.success() {
        return Err(String::from_utf8_lossy(&run.stderr).into_owned());
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let total = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .ok_or("no total in the callgrind output")?;
    Ok(total / steps)
}
