//! The component behind an `fmi2Component` pointer, and the one entry helper
//! every exported function goes through.
//!
//! [`enter`] does, in this order: NULL check of the component, panic guard,
//! refusal of a component poisoned by an earlier panic, the call itself (whose
//! state-machine check happens in the core instance, from its one table), the
//! mapping of the core's result to an `fmi2Status`, and logging of any failure
//! through the importer's logger. Messages are formatted here and passed as the
//! format string with every `%` doubled, since FMPy and OMSimulator run them
//! through printf; a NULL logger simply means no messages.

use crate::ffi::*;
use lcsfmu::fmi2::{FmiError, FmiResult, Instance, Severity};
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What an `fmi2Component` points to.
pub struct Component {
    pub instance: Instance,
    name: CString,
    logger: fmi2CallbackLogger,
    environment: fmi2ComponentEnvironment,
    /// Debug logging (the `logEvents` category) as set by the importer.
    logging_on: bool,
    /// Set when a panic escaped a call: the data may be inconsistent (the panic
    /// may have stopped a step half way), so every call but `fmi2FreeInstance`
    /// is refused, `fmi2Reset` included: it would reuse the same data.
    poisoned: bool,
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

/// Doubles `%` and drops NUL bytes so any text is a safe printf format.
pub fn escape(text: &str) -> CString {
    CString::new(text.replace('%', "%%").replace('\0', "")).expect("NUL bytes were removed")
}

/// Reads an optional C string (NULL gives None; invalid UTF-8 is replaced).
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string.
pub unsafe fn c_str(s: fmi2String) -> Option<String> {
    (!s.is_null()).then(|| CStr::from_ptr(s).to_string_lossy().into_owned())
}

/// Logs with the callbacks an importer passed, before there is a component.
///
/// # Safety
/// `functions` is NULL or points to valid callbacks; `name` is a valid C string.
pub unsafe fn log_with(
    functions: *const fmi2CallbackFunctions,
    name: &CStr,
    status: fmi2Status,
    message: &str,
) {
    if functions.is_null() {
        return;
    }
    let f = &*functions;
    if let Some(logger) = f.logger {
        let category = escape(category_of(status));
        logger(
            f.componentEnvironment,
            name.as_ptr(),
            status,
            category.as_ptr(),
            escape(message).as_ptr(),
        );
    }
}

fn category_of(status: fmi2Status) -> &'static str {
    match status {
        fmi2Status::fmi2OK | fmi2Status::fmi2Pending => "logEvents",
        fmi2Status::fmi2Warning => "logStatusWarning",
        fmi2Status::fmi2Discard => "logStatusDiscard",
        fmi2Status::fmi2Error => "logStatusError",
        fmi2Status::fmi2Fatal => "logStatusFatal",
    }
}

pub fn status_of(severity: Severity) -> fmi2Status {
    match severity {
        Severity::Warning => fmi2Status::fmi2Warning,
        Severity::Discard => fmi2Status::fmi2Discard,
        Severity::Error => fmi2Status::fmi2Error,
        Severity::Fatal => fmi2Status::fmi2Fatal,
    }
}

impl Component {
    /// # Safety
    /// `functions` is NULL or points to valid callbacks.
    pub unsafe fn new(
        instance: Instance,
        name: CString,
        functions: *const fmi2CallbackFunctions,
        logging_on: bool,
    ) -> Self {
        let (logger, environment) = if functions.is_null() {
            (None, std::ptr::null_mut())
        } else {
            ((*functions).logger, (*functions).componentEnvironment)
        };
        Component {
            instance,
            name,
            logger,
            environment,
            logging_on,
            poisoned: false,
        }
    }

    /// Sends one message to the importer's logger; status messages (warnings and
    /// worse) always, events only with debug logging on.
    pub fn log(&self, status: fmi2Status, message: &str) {
        if status == fmi2Status::fmi2OK && !self.logging_on {
            return;
        }
        if let Some(logger) = self.logger {
            let (category, text) = (escape(category_of(status)), escape(message));
            // SAFETY: the importer promised a valid logger for the instance's lifetime;
            // every string passed is NUL-terminated and free of printf conversions.
            unsafe {
                logger(
                    self.environment,
                    self.name.as_ptr(),
                    status,
                    category.as_ptr(),
                    text.as_ptr(),
                )
            }
        }
    }

    pub fn logging_on(&self) -> bool {
        self.logging_on
    }

    pub fn set_logging(&mut self, on: bool) {
        self.logging_on = on;
    }
}

/// The entry helper: runs `body` on the component behind `c` and turns the
/// outcome into a status. `what` names the FMI function in messages.
///
/// Everything that formats a message is in cold functions, so the common path
/// is the NULL and poison tests and the panic guard (which costs nothing
/// unless a panic unwinds).
#[inline(always)]
pub fn enter(
    c: fmi2Component,
    what: &str,
    body: impl FnOnce(&mut Component) -> FmiResult<fmi2Status>,
) -> fmi2Status {
    if c.is_null() {
        return fmi2Status::fmi2Error;
    }
    // SAFETY: a non-NULL component is one fmi2Instantiate returned and that was not freed.
    let comp = unsafe { &mut *(c as *mut Component) };
    if comp.poisoned {
        return refuse_poisoned(comp, what);
    }
    match catch_unwind(AssertUnwindSafe(|| body(comp))) {
        Ok(Ok(status)) => status,
        Ok(Err(e)) => report_error(comp, what, e),
        Err(panic) => report_panic(comp, what, panic),
    }
}

/// A call on a component that an earlier panic left unusable: `fmi2Fatal`
/// again, since `fmi2Error` would tell the importer that `fmi2Reset` helps.
#[cold]
#[inline(never)]
fn refuse_poisoned(comp: &Component, what: &str) -> fmi2Status {
    comp.log(
        fmi2Status::fmi2Fatal,
        &format!("{what}: the instance failed fatally earlier; only fmi2FreeInstance is possible"),
    );
    fmi2Status::fmi2Fatal
}

/// Logs a failed call and returns its status.
#[cold]
#[inline(never)]
fn report_error(comp: &Component, what: &str, e: FmiError) -> fmi2Status {
    let FmiError { severity, message } = e;
    let status = status_of(severity);
    comp.log(status, &format!("{what}: {message}"));
    status
}

/// Poisons the component after a panic and logs why.
#[cold]
#[inline(never)]
fn report_panic(
    comp: &mut Component,
    what: &str,
    panic: Box<dyn std::any::Any + Send>,
) -> fmi2Status {
    comp.poisoned = true;
    let why = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".into());
    comp.log(
        fmi2Status::fmi2Fatal,
        &format!("{what}: internal error ({why}); the instance cannot be used any more"),
    );
    fmi2Status::fmi2Fatal
}

/// Builds a slice from a C array; NULL is fine when `n == 0`.
///
/// # Safety
/// When `n > 0` and `p` is not NULL, `p` points to `n` valid elements.
pub unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> FmiResult<&'a [T]> {
    match (n, p.is_null()) {
        (0, _) => Ok(&[]),
        (_, true) => Err(FmiError::error(format!(
            "{what} is NULL but {n} values were announced"
        ))),
        _ => Ok(std::slice::from_raw_parts(p, n)),
    }
}

/// Mutable counterpart of [`slice`].
///
/// # Safety
/// As for [`slice`], and the memory is writable and not aliased.
pub unsafe fn slice_mut<'a, T>(p: *mut T, n: usize, what: &str) -> FmiResult<&'a mut [T]> {
    match (n, p.is_null()) {
        (0, _) => Ok(&mut []),
        (_, true) => Err(FmiError::error(format!(
            "{what} is NULL but {n} values were announced"
        ))),
        _ => Ok(std::slice::from_raw_parts_mut(p, n)),
    }
}

/// A writable out-parameter, or an error naming it.
///
/// # Safety
/// `p` is NULL or valid for writes.
pub unsafe fn out<'a, T>(p: *mut T, what: &str) -> FmiResult<&'a mut T> {
    p.as_mut()
        .ok_or_else(|| FmiError::error(format!("{what} is NULL")))
}
