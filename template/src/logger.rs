//! The importer's logger and the status levels, for both FMI versions.
//!
//! FMI 2.0 and 3.0 share the status values 0 to 4 ([`Level`], mapped to each
//! version's enum by the [`Status`] trait); their logger callbacks differ in
//! their arguments only ([`Sink`]). Every message is passed as the format
//! string with each `%` doubled ([`escape`]), since FMPy and OMSimulator run
//! it through printf; a NULL logger means no messages.

use crate::fmi2::ffi::*;
use lcsfmu::instance::{FmiError, FmiResult, Severity};
use std::ffi::{CStr, CString};

/// The status levels both FMI versions define, with the same values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Ok,
    Warning,
    Discard,
    Error,
    Fatal,
}

/// A status enum of one FMI version.
pub trait Status: Copy {
    /// The function that frees an instance, named in the refusal after a panic.
    const FREE_INSTANCE: &'static str;
    fn of(level: Level) -> Self;
}

impl Status for fmi2Status {
    const FREE_INSTANCE: &'static str = "fmi2FreeInstance";
    fn of(level: Level) -> Self {
        match level {
            Level::Ok => fmi2Status::fmi2OK,
            Level::Warning => fmi2Status::fmi2Warning,
            Level::Discard => fmi2Status::fmi2Discard,
            Level::Error => fmi2Status::fmi2Error,
            Level::Fatal => fmi2Status::fmi2Fatal,
        }
    }
}

/// The importer's logger, as the version's instantiation function received it.
#[derive(Clone, Copy)]
pub enum Sink {
    #[cfg_attr(feature = "fmi3", allow(dead_code))]
    Fmi2 {
        logger: fmi2CallbackLogger,
        environment: fmi2ComponentEnvironment,
    },
    #[cfg(feature = "fmi3")]
    Fmi3 {
        logger: crate::fmi3::ffi::fmi3LogMessageCallback,
        environment: *mut std::ffi::c_void,
    },
}

impl Sink {
    /// The FMI 2.0 logger of `functions` (NULL: none).
    ///
    /// # Safety
    /// `functions` is NULL or points to valid callbacks.
    #[cfg_attr(feature = "fmi3", allow(dead_code))]
    pub unsafe fn fmi2(functions: *const fmi2CallbackFunctions) -> Sink {
        match functions.as_ref() {
            None => Sink::Fmi2 {
                logger: None,
                environment: std::ptr::null_mut(),
            },
            Some(f) => Sink::Fmi2 {
                logger: f.logger,
                environment: f.componentEnvironment,
            },
        }
    }

    /// Sends one message; the text is escaped here.
    pub fn send(&self, name: &CStr, level: Level, message: &str) {
        let (category, text) = (escape(category_of(level)), escape(message));
        match *self {
            Sink::Fmi2 {
                logger: Some(logger),
                environment,
            } => {
                // SAFETY: the importer promised a valid logger for the instance's
                // lifetime; every string passed is NUL-terminated and free of
                // printf conversions.
                unsafe {
                    logger(
                        environment,
                        name.as_ptr(),
                        fmi2Status::of(level),
                        category.as_ptr(),
                        text.as_ptr(),
                    )
                }
            }
            #[cfg(feature = "fmi3")]
            Sink::Fmi3 {
                logger: Some(logger),
                environment,
            } => {
                use crate::fmi3::ffi::fmi3Status;
                // SAFETY: as above (FMI 3.0's logger is not variadic).
                unsafe {
                    logger(
                        environment,
                        fmi3Status::of(level),
                        category.as_ptr(),
                        text.as_ptr(),
                    )
                }
            }
            _ => {}
        }
    }
}

/// Categories this FMU logs to, as listed in modelDescription.xml.
pub const CATEGORIES: &[&str] = &[
    "logEvents",
    "logStatusWarning",
    "logStatusDiscard",
    "logStatusError",
    "logStatusFatal",
    "logAll",
];

/// Refuses a log category that modelDescription.xml does not list.
pub fn check_categories(names: impl Iterator<Item = String>) -> FmiResult<()> {
    for name in names {
        if !CATEGORIES.contains(&name.as_str()) {
            return Err(FmiError::error(format!(
                "unknown log category '{name}' (known: {})",
                CATEGORIES.join(", ")
            )));
        }
    }
    Ok(())
}

/// Doubles `%` and drops NUL bytes so any text is a safe printf format.
pub fn escape(text: &str) -> CString {
    CString::new(text.replace('%', "%%").replace('\0', "")).expect("NUL bytes were removed")
}

/// Logs with the callbacks an importer passed, before there is a component.
///
/// # Safety
/// `functions` is NULL or points to valid callbacks; `name` is a valid C string.
#[cfg_attr(feature = "fmi3", allow(dead_code))]
pub unsafe fn log_with(
    functions: *const fmi2CallbackFunctions,
    name: &CStr,
    status: fmi2Status,
    message: &str,
) {
    Sink::fmi2(functions).send(name, level_of_fmi2(status), message);
}

#[cfg_attr(feature = "fmi3", allow(dead_code))]
fn level_of_fmi2(status: fmi2Status) -> Level {
    match status {
        fmi2Status::fmi2OK | fmi2Status::fmi2Pending => Level::Ok,
        fmi2Status::fmi2Warning => Level::Warning,
        fmi2Status::fmi2Discard => Level::Discard,
        fmi2Status::fmi2Error => Level::Error,
        fmi2Status::fmi2Fatal => Level::Fatal,
    }
}

fn category_of(level: Level) -> &'static str {
    match level {
        Level::Ok => "logEvents",
        Level::Warning => "logStatusWarning",
        Level::Discard => "logStatusDiscard",
        Level::Error => "logStatusError",
        Level::Fatal => "logStatusFatal",
    }
}

pub fn level_of(severity: Severity) -> Level {
    match severity {
        Severity::Warning => Level::Warning,
        Severity::Discard => Level::Discard,
        Severity::Error => Level::Error,
        Severity::Fatal => Level::Fatal,
    }
}
