//! A deliberate panic inside `fmi2DoStep`, compiled only with the template's
//! test-only `forced-panic` feature (`LCSFMU_TEMPLATE_FEATURES=forced-panic
//! lcsfmu build ...`; never in a shipped FMU).
//!
//! It exists so the tests can prove what [`crate::shell::enter`] promises for a
//! panic no test could otherwise provoke on purpose: the importer gets
//! `fmi2Fatal`, the panic's message reaches its logger, its process lives, and
//! the instance refuses everything after but `fmi2FreeInstance`. Steps that
//! start before t = 1 run normally, so a test shows the instance working
//! before the panic and not after.

/// The first communication point at which `fmi2DoStep` panics.
pub const FROM_TIME: f64 = 1.0;

/// Panics when a step starts at or after [`FROM_TIME`].
pub fn at(t: f64) {
    if t >= FROM_TIME {
        panic!("forced panic in fmi2DoStep at t = {t} (test build: forced-panic feature)");
    }
}
