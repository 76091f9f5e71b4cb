//! Time-stepping: one step of a scheme is one box LCP.
//!
//! Two families share this interface. [`ThetaStepper`] runs the theta-method on
//! a first-order LCS; [`MechStepper`] runs the mechanical schemes (semi-explicit
//! at position level, Moreau–Jean at velocity level) on a [`MechSystem`].
//! Both cache everything that depends only on the step size, allocate nothing
//! per step, and write a step's result into their own buffers: the caller
//! commits it only when the LCP was solved, so a failed step leaves the
//! caller's state untouched.
//!
//! The stepper enum every caller holds is in `stepper.rs`, the error a step
//! returns in `step_error.rs`, the step size the cached matrices belong to in
//! `step_size.rs`; each scheme has its own file (or folder), and `tidy` is
//! here, shared by all.
//!
//! [`MechSystem`]: crate::system::mechanics::MechSystem

mod contact;
pub mod dims;
mod direct_projection;
mod dynamics;
pub mod event;
pub mod exchange;
mod mech_newton;
mod mechanical;
mod memo;
mod mode;
pub mod mode_nl;
pub mod newton;
mod projection;
mod residual;
mod rk;
mod step_error;
mod step_size;
mod stepper;
mod theta;
pub mod trend;

pub use event::{EventLog, EventStepper, NonlinearEventStepper, StepReport};
pub use mech_newton::MechNewtonStepper;
pub use mechanical::MechStepper;
pub use newton::{NewtonStats, NewtonStepper};
pub use step_error::StepError;
pub(crate) use step_size::StepSize;
pub use step_size::SAME_STEP;
pub use stepper::Stepper;
pub use theta::ThetaStepper;

/// Replaces subnormal numbers by zero and tells whether all are finite.
///
/// A state decaying towards zero (every stable equilibrium) otherwise ends up in
/// the subnormal range, where `x / (1 + h)` can round back to the same subnormal
/// for ever and every operation on it costs a hundred cycles (measured: a decay
/// model went from 43 to 130 ns per step). The change is below 2.3e-308. The FMU
/// cannot switch the processor's flush-to-zero mode instead: that setting belongs
/// to the importing process.
#[inline]
pub(crate) fn tidy(v: &mut [f64]) -> bool {
    let mut finite = true;
    for x in v {
        let a = x.abs();
        // Also turns -0.0 into 0.0, which nobody wants to see in a result. A
        // select rather than a conditional store: no branch per entry.
        *x = if a < f64::MIN_POSITIVE { 0.0 } else { *x };
        // A comparison, not `is_finite` (integer bit tests); NaN fails it too.
        finite &= a < f64::INFINITY;
    }
    finite
}
