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
//! through printf; a NULL logger simply means no messages. The levels and the
//! logger are in `logger`, the conversion of C arguments (strings, arrays,
//! out-parameters) in `c_args`; the exports import both through this module.

pub use crate::c_args::{c_str, instance_name, out, slice, slice_mut};
use crate::logger::level_of;
#[cfg(not(feature = "fmi3"))]
pub use crate::logger::log_with;
pub use crate::logger::{check_categories, Level, Sink, Status};
use lcsfmu::instance::state::Call;
use lcsfmu::instance::{FmiError, FmiResult, Instance, Severity};
use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

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
    // Inlined as one test into every DoStep: only the event-driven scheme
    // reports its steps, and a call that found nothing to say cost the other
    // schemes 23 instructions per step (callgrind, sign_spiral).
    #[cfg_attr(all(feature = "me-only", not(feature = "fmi3")), allow(dead_code))]
    #[inline(always)]
    pub fn log_step_report(&self, what: &str, t: f64) {
        if self.instance.reports_steps() {
            self.log_event_step(what, t);
        }
    }

    /// [`Component::log_step_report`] for the event-driven scheme.
    #[cfg_attr(all(feature = "me-only", not(feature = "fmi3")), allow(dead_code))]
    #[inline(never)]
    fn log_event_step(&self, what: &str, t: f64) {
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
