//! The instance behind an `fmi2Component` or `fmi3Instance` pointer, and the one
//! entry helper every exported function of both FMI versions goes through.
//!
//! [`enter`] does, in this order: NULL check of the instance, panic guard,
//! refusal of an instance poisoned by an earlier panic, the call itself (whose
//! state-machine check happens in the core instance, from its one table), the
//! mapping of the core's result to the version's status (the [`Status`] trait:
//! `fmi2Status` and `fmi3Status` share the values 0 to 4), and logging of any
//! failure through the importer's logger ([`Sink`]: the two versions' callbacks
//! differ in their arguments only). Messages are formatted here and passed as
//! the format string with every `%` doubled, since FMPy and OMSimulator run them
//! through printf; a NULL logger simply means no messages.

use crate::ffi::*;
use lcsfmu::fmi2::state::Call;
use lcsfmu::fmi2::{FmiError, FmiResult, Instance, Severity};
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

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
        environment: *mut c_void,
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

/// What an `fmi2Component` or `fmi3Instance` points to.
pub struct Component {
    pub instance: Instance,
    name: CString,
    sink: Sink,
    /// Debug logging (the `logEvents` category) as set by the importer.
    logging_on: bool,
    /// Set when a panic escaped a call: the data may be inconsistent (the panic
    /// may have stopped a step half way), so every call but freeing the instance
    /// is refused, reset included: it would reuse the same data.
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

/// Reads an optional C string (NULL gives None; invalid UTF-8 is replaced).
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string.
pub unsafe fn c_str(s: *const c_char) -> Option<String> {
    (!s.is_null()).then(|| CStr::from_ptr(s).to_string_lossy().into_owned())
}

/// The instance name an importer passed (NULL: "unnamed"), as a C string.
///
/// # Safety
/// `s` is NULL or points to a NUL-terminated string.
pub unsafe fn instance_name(s: *const c_char) -> CString {
    let name = c_str(s).unwrap_or_else(|| "unnamed".into());
    CString::new(name.replace('\0', "")).expect("NUL bytes were removed")
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

/// A logged `Error` for what this FMU does not provide, as the standards ask.
pub fn unsupported<S>(what: &str) -> FmiResult<S> {
    Err(FmiError::error(format!(
        "not provided by this FMU ({what})"
    )))
}

/// Access to a type this FMU has no variables of (FMI 2.0 Integer, Boolean,
/// String; FMI 3.0 all but Float64): an empty request is fine, and a value
/// reference is refused, named with its variable and `real` type (`Real`,
/// `Float64`) when it is one of the FMU's.
pub fn no_variables<S: Status>(
    comp: &mut Component,
    call: Call,
    vr: *const u32,
    nvr: usize,
    kind: &str,
    real: &str,
) -> FmiResult<S> {
    comp.instance.check(call)?;
    // SAFETY: the importer passes nvr valid value references.
    match unsafe { slice(vr, nvr, "vr")? }.first() {
        None => Ok(S::of(Level::Ok)),
        Some(&v) => Err(FmiError::error(match comp.instance.name(v) {
            "?" => format!("unknown value reference {v}: this FMU has no {kind} variables"),
            name => format!(
                "value reference {v} ({name}) is a {real} variable, not {kind}: this FMU has no {kind} variables"
            ),
        })),
    }
}

/// A warning from leaving initialization (no consistent multipliers) as the
/// result of the call.
pub fn warning_as_status<S: Status>(warning: Option<String>) -> FmiResult<S> {
    match warning {
        Some(message) => Err(FmiError {
            severity: Severity::Warning,
            message,
        }),
        None => Ok(S::of(Level::Ok)),
    }
}

impl Component {
    pub fn new(instance: Instance, name: CString, sink: Sink, logging_on: bool) -> Self {
        Component {
            instance,
            name,
            sink,
            logging_on,
            poisoned: false,
        }
    }

    /// Sends one message to the importer's logger; status messages (warnings and
    /// worse) always, events only with debug logging on.
    pub fn log(&self, level: Level, message: &str) {
        if level == Level::Ok && !self.logging_on {
            return;
        }
        self.sink.send(&self.name, level, message);
    }

    pub fn logging_on(&self) -> bool {
        self.logging_on
    }

    pub fn set_logging(&mut self, on: bool) {
        self.logging_on = on;
    }

    /// Logs the event-driven scheme's account of the last step (logEvents),
    /// and warns when events accumulated; formatted only when it is logged.
    #[cfg_attr(all(feature = "me-only", not(feature = "fmi3")), allow(dead_code))]
    pub fn log_step_report(&self, what: &str, t: f64) {
        if let Some(report) = self.instance.step_report() {
            let warn = report.accumulation.is_some() || report.singular_mode;
            if warn || self.logging_on() {
                let (counts, warning) = self.instance.describe_step(t);
                self.log(Level::Ok, &format!("{what}: {counts}"));
                if let Some(w) = warning {
                    self.log(Level::Warning, &format!("{what}: {w}"));
                }
            }
        }
    }
}

/// The entry helper: runs `body` on the component behind `c` and turns the
/// outcome into a status. `what` names the FMI function in messages.
///
/// Everything that formats a message is in cold functions, so the common path
/// is the NULL and poison tests and the panic guard (which costs nothing
/// unless a panic unwinds).
#[inline(always)]
pub fn enter<S: Status>(
    c: *mut c_void,
    what: &str,
    body: impl FnOnce(&mut Component) -> FmiResult<S>,
) -> S {
    if c.is_null() {
        return S::of(Level::Error);
    }
    // SAFETY: a non-NULL component is one the instantiation function returned
    // and that was not freed.
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

/// A call on a component that an earlier panic left unusable: `Fatal` again,
/// since `Error` would tell the importer that a reset helps.
#[cold]
#[inline(never)]
fn refuse_poisoned<S: Status>(comp: &Component, what: &str) -> S {
    comp.log(
        Level::Fatal,
        &format!(
            "{what}: the instance failed fatally earlier; only {} is possible",
            S::FREE_INSTANCE
        ),
    );
    S::of(Level::Fatal)
}

/// Logs a failed call and returns its status.
#[cold]
#[inline(never)]
fn report_error<S: Status>(comp: &Component, what: &str, e: FmiError) -> S {
    let FmiError { severity, message } = e;
    let level = level_of(severity);
    comp.log(level, &format!("{what}: {message}"));
    S::of(level)
}

/// Poisons the component after a panic and logs why.
#[cold]
#[inline(never)]
fn report_panic<S: Status>(
    comp: &mut Component,
    what: &str,
    panic: Box<dyn std::any::Any + Send>,
) -> S {
    comp.poisoned = true;
    let why = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".into());
    comp.log(
        Level::Fatal,
        &format!("{what}: internal error ({why}); the instance cannot be used any more"),
    );
    S::of(Level::Fatal)
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
#[inline]
pub unsafe fn out<'a, T>(p: *mut T, what: &str) -> FmiResult<&'a mut T> {
    match p.as_mut() {
        Some(r) => Ok(r),
        None => Err(null_out(what)),
    }
}

/// The error of a NULL out-parameter, out of line: `fmi3DoStep` checks four
/// of them on every step, and the common path should be four tests only.
#[cold]
#[inline(never)]
fn null_out(what: &str) -> FmiError {
    FmiError::error(format!("{what} is NULL"))
}
