//! What the FMUs logged, per instance name.
//!
//! The `fmi` crate's default callbacks pass every FMU message through its own
//! printf-style C logger into the `log` facade, with the instance name as the
//! record's target. This test binary installs one `log` backend that files each
//! record under that name, so a test can ask "did instance X log a reason?"
//! while other tests run in parallel threads with other instance names.

use std::collections::HashMap;
use std::sync::{Mutex, Once};

/// One message from an FMU, with the status level the `fmi` crate mapped it to.
#[derive(Clone, Debug)]
pub struct Record {
    pub level: log::Level,
    pub message: String,
}

static RECORDS: Mutex<Option<HashMap<String, Vec<Record>>>> = Mutex::new(None);
static INSTALL: Once = Once::new();

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, record: &log::Record) {
        // The crate's own diagnostics (extraction, loading) are not FMU messages.
        if record.module_path() != Some("logger") {
            return;
        }
        let mut all = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
        all.get_or_insert_with(HashMap::new)
            .entry(record.target().to_string())
            .or_default()
            .push(Record {
                level: record.level(),
                message: record.args().to_string(),
            });
    }
    fn flush(&self) {}
}

/// Installs the backend (once per process); call before instantiating.
pub fn install() {
    INSTALL.call_once(|| {
        log::set_logger(&Capture).expect("no other logger in this test binary");
        log::set_max_level(log::LevelFilter::Trace);
    });
}

/// Removes and returns everything instance `name` logged so far.
pub fn take(name: &str) -> Vec<Record> {
    let mut all = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    all.as_mut()
        .and_then(|m| m.remove(name))
        .unwrap_or_default()
}
