//! `lcsfmu check` on arbitrary bytes as the `.fmu`: the hostile-archive reader,
//! the XML parser and rules, the ELF symbol reader and the embedded model's
//! short run, all in this process (no runner: the binary is never executed).
//! The checker reads a path, so each input is written to one file per process.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

static FILE: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let path = FILE.get_or_init(|| {
        std::env::temp_dir().join(format!("lcsfmu-fuzz-{}.fmu", std::process::id()))
    });
    std::fs::write(path, data).expect("the temporary directory is writable");
    let report = lcsfmu::tool::conformance::check(path, None);
    let _ = (report.failed(), report.lines(), report.summary());
});
