//! The parent side of the binary's short run: `lcsfmu check` extracts the
//! binary into a temporary directory, runs `lcsfmu __run-binary` on it
//! ([`super::loader`]) as a child process under limits, and turns what happened
//! into one PASS or FAIL line.
//!
//! The child is its own process group, limited in address space, CPU time and
//! file size, and given a wall-clock deadline; at the deadline, or when it has
//! ended, the whole group is killed, so that nothing the FMU forked outlives the
//! check or holds its pipes open. Whatever ended the child (a `fail` line, a
//! signal, the deadline, an odd exit status) is reported with the FMI call it was
//! in, read from the child's `call` lines, and the last message the FMU logged
//! in that call.
//! Only the last lines are kept: a child that prints without end costs time, not
//! memory. Files are written only inside the temporary directory, which is the
//! child's working directory and is removed afterwards.

use super::description::Description;
use super::loader;
use crate::fmi::archive::{self, Archive};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The child's limits.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time until the child is killed.
    pub time: Duration,
    /// Address space of the child, in bytes.
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(20),
            memory: 2 << 30,
        }
    }
}

/// Largest file the child may write (`RLIMIT_FSIZE`).
pub const MAX_FILE: u64 = 256 << 20;

/// Real value references passed to the child at most (they travel as arguments).
const MAX_REALS: usize = 4096;

/// A directory under the system's temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> Result<TempDir, String> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for k in 0..100 {
            let dir = base.join(format!("{prefix}-{}-{nanos}-{k}", std::process::id()));
            // create, not create_all: an existing path (anyone's) is never reused.
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(TempDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("{}: {e}", dir.display())),
            }
        }
        Err(format!("no free temporary directory in {}", base.display()))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        drop(std::fs::remove_dir_all(&self.0));
    }
}

/// Writes the binary and the `resources/` files (regular entries with safe
/// names only) under `dir`; returns the binary's path.
fn extract(archive: &mut Archive, so: &str, dir: &Path) -> Result<PathBuf, String> {
    let mut names: Vec<String> = archive
        .entries
        .iter()
        .filter(|e| e.name.starts_with("resources/") && !e.dir && !e.symlink)
        .filter(|e| archive::safe_name(&e.name))
        .map(|e| e.name.clone())
        .collect();
    // The binary's name comes from the XML's modelIdentifier, which may be anything.
    if !archive::safe_name(so) {
        return Err(format!(
            "the binary's entry \"{so}\" is not a path inside the archive: not extracted"
        ));
    }
    names.push(so.to_string());
    for name in &names {
        let bytes = archive
            .read(name)?
            .ok_or_else(|| format!("no entry {name}"))?;
        // The names were checked: relative, no `..`, no backslash, no leading dot.
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        use std::io::Write;
        let written = options.open(&path).and_then(|mut f| f.write_all(&bytes));
        written.map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(dir.join(so))
}

/// A `file://` URI of a directory, with the characters that need it encoded.
fn file_uri(dir: &Path) -> String {
    let mut uri = String::from("file://");
    for b in dir.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(*b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri + "/"
}

/// Runs the binary `so` of the archive for `steps` communication steps in a
/// child `runner __run-binary`; `Ok` holds the child's summary.
pub fn binary(
    archive: &mut Archive,
    d: &Description,
    so: &str,
    runner: &Path,
    steps: usize,
    limits: Limits,
) -> Result<String, String> {
    let fmi3 = d.root.get("fmiVersion").is_some_and(|v| v == "3.0");
    let attr = |name: &str| d.co_simulation.as_ref().and_then(|cs| cs.get(name));
    // FMI 3.0 spells the FMU state with a capital S.
    let flag = |v2: &str, v3: &str| attr(if fmi3 { v3 } else { v2 }).is_some_and(|v| v == "true");
    let float = if fmi3 { "Float64" } else { "Real" };
    let reals: Vec<String> = d
        .variables
        .iter()
        .filter(|v| v.kind == float)
        .filter_map(|v| v.value_reference.as_deref()?.parse::<u32>().ok())
        .take(MAX_REALS)
        .map(|vr| vr.to_string())
        .collect();
    let mut args = vec![
        format!("--step={}", default_step(d)),
        format!("--steps={steps}"),
    ];
    if !reals.is_empty() {
        args.push(format!("--reals={}", reals.join(",")));
    }
    if flag("canGetAndSetFMUstate", "canGetAndSetFMUState") {
        args.push("--fmu-state".into());
        if flag("canSerializeFMUstate", "canSerializeFMUState") {
            args.push("--serialize".into());
        }
    }
    run_child(archive, d, so, runner, &args, limits)
}

/// A finite number of the `DefaultExperiment`.
pub fn experiment(d: &Description, name: &str) -> Option<f64> {
    let e = d.default_experiment.as_ref()?;
    e.get(name)?.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The default experiment's step; 0.01 for a description without one.
pub fn default_step(d: &Description) -> f64 {
    experiment(d, "stepSize")
        .filter(|&h| h > 0.0)
        .unwrap_or(0.01)
}

/// Extracts the binary and its resources into a temporary directory and runs
/// `runner __run-binary` on it with the arguments every run has and `args`.
pub fn run_child(
    archive: &mut Archive,
    d: &Description,
    so: &str,
    runner: &Path,
    args: &[String],
    limits: Limits,
) -> Result<String, String> {
    let tmp = TempDir::new("lcsfmu-check")?;
    let library = extract(archive, so, tmp.path())?;
    let fmi3 = d.root.get("fmiVersion").is_some_and(|v| v == "3.0");
    let token = d.root.get(if fmi3 { "instantiationToken" } else { "guid" });
    // FMI 2.0 passes the resources as a URI, FMI 3.0 as a path with a trailing separator.
    let resources = tmp.path().join("resources");
    let resources = match fmi3 {
        true => format!("{}/", resources.display()),
        false => file_uri(&resources),
    };
    let mut cmd = Command::new(runner);
    cmd.arg("__run-binary").arg(&library);
    if fmi3 {
        cmd.arg("--fmi3");
    }
    // `--name=value`: a value from the archive may begin with a dash.
    cmd.arg(format!("--guid={}", token.map_or("", String::as_str)))
        .arg(format!("--resources={resources}"))
        .arg(format!(
            "--start={}",
            experiment(d, "startTime").unwrap_or(0.0)
        ))
        .args(args)
        .arg(format!("--memory={}", limits.memory))
        // A second past the deadline: CPU time never runs ahead of the wall
        // clock, so the deadline's message wins; this limit is the backstop for
        // a child whose parent is gone.
        .arg(format!("--cpu-seconds={}", limits.time.as_secs() + 1))
        .arg(format!("--file-size={MAX_FILE}"));
    cmd.current_dir(tmp.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    supervise(cmd, limits.time)
}

/// The lines of the child's transcript that matter, kept as they arrive.
#[derive(Default)]
struct Transcript {
    call: Option<String>,
    logs: Vec<String>,
    end: Option<String>,
}

/// Reads `from` to its end in chunks, passing complete lines (cut at 1,000
/// bytes) to `line`.
fn read_lines(mut from: impl Read, mut line: impl FnMut(String)) {
    let mut buf = [0u8; 8192];
    let mut current = Vec::new();
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                line(String::from_utf8_lossy(&current).into_owned());
                current.clear();
            } else if current.len() < 1000 {
                current.push(b);
            }
        }
    }
    if !current.is_empty() {
        line(String::from_utf8_lossy(&current).into_owned());
    }
}

fn supervise(mut cmd: Command, deadline: Duration) -> Result<String, String> {
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{:?}: {e}", cmd.get_program()))?;
    let pid = child.id();
    let (out_tx, out_rx) = mpsc::channel();
    let stdout = child.stdout.take();
    std::thread::spawn(move || {
        let mut t = Transcript::default();
        if let Some(s) = stdout {
            read_lines(s, |l| match l.split_once(' ') {
                // Only what the FMU logged in the last call explains its end.
                Some(("call", what)) => {
                    t.call = Some(what.to_string());
                    t.logs.clear();
                }
                Some(("log", what)) => {
                    t.logs.push(what.to_string());
                    if t.logs.len() > 3 {
                        t.logs.remove(0);
                    }
                }
                Some(("pass" | "fail", _)) => t.end = Some(l),
                _ => {}
            });
        }
        drop(out_tx.send(t));
    });
    let (err_tx, err_rx) = mpsc::channel();
    let stderr = child.stderr.take();
    std::thread::spawn(move || {
        let mut last = String::new();
        if let Some(s) = stderr {
            read_lines(s, |l| {
                if !l.trim().is_empty() && !l.starts_with("note:") {
                    last = l;
                }
            });
        }
        drop(err_tx.send(last));
    });
    let started = Instant::now();
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (Some(status), false),
            Ok(None) if started.elapsed() < deadline => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Ok(None) | Err(_) => {
                loader::kill_group(pid);
                break (child.wait().ok(), true);
            }
        }
    };
    // The child is gone; what it forked goes too, so the pipes close.
    loader::kill_group(pid);
    let wait = Duration::from_secs(2);
    let t = out_rx.recv_timeout(wait).unwrap_or_default();
    let stderr = err_rx.recv_timeout(wait).unwrap_or_default();
    let during = t
        .call
        .as_deref()
        .map_or(String::from(" before its first FMI call"), |c| {
            format!(" during {c}")
        });
    let mut why = match (&t.end, status) {
        (Some(l), Some(s)) if s.success() && l.starts_with("pass ") => {
            return Ok(l["pass ".len()..].to_string())
        }
        (Some(l), _) if l.starts_with("fail ") && !timed_out => l["fail ".len()..].to_string(),
        _ if timed_out => format!(
            "no result after {} s: killed{during}",
            deadline.as_secs_f64()
        ),
        (_, Some(s)) => match s.signal() {
            Some(sig) => format!("killed by {}{during}", signal_name(sig)),
            None => format!("exited with status {}{during}", s.code().unwrap_or(-1)),
        },
        (_, None) => format!("lost{during}"),
    };
    if let Some(last) = t.logs.last() {
        why += &format!("; the FMU logged: {last}");
    }
    if !stderr.is_empty() && t.end.is_none() {
        why += &format!("; stderr: {stderr}");
    }
    Err(why)
}

/// A signal's name and what it usually means for a loaded library.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV (invalid memory access)",
        libc::SIGBUS => "SIGBUS (bad memory access)",
        libc::SIGABRT => "SIGABRT (aborted)",
        libc::SIGFPE => "SIGFPE (arithmetic exception)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGKILL => "SIGKILL",
        libc::SIGXCPU => "SIGXCPU (CPU time limit exceeded)",
        libc::SIGXFSZ => "SIGXFSZ (file size limit exceeded)",
        libc::SIGTERM => "SIGTERM",
        libc::SIGPIPE => "SIGPIPE",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}
