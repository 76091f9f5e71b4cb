//! The schemes: how a system moves over one communication step.
//!
//! [`Stepper`] (in `stepper.rs`) holds one variant per method, each a folder
//! here with its own forms, chosen once at instantiation from the system:
//!
//! - [`theta`]: the theta-method on a first-order system: one box LCP per
//!   step for an affine system, a Newton–Josephy iteration of them for a
//!   nonlinear one;
//! - [`mechanical`]: Moreau–Jean (and its projected variants) and the
//!   semi-explicit scheme on a mechanical system: one LCP in the contact
//!   reactions per step, a Newton loop of them for nonlinear forces, gaps or
//!   slips;
//! - [`event`]: event-driven integration of a first-order system's [`mode`]s,
//!   finished by the theta step where events accumulate.
//!
//! Within a method the nonlinear form is the general one: a linear system is
//! the nonlinear one whose Jacobians are constant, and the linear form is its
//! specialization (the linearization computed once, the step's matrices
//! cached per step size), taken at instantiation by the models that need
//! nothing more. A new capability (a configuration-dependent mass, equality
//! constraints, sampled partitions) is written once, in the general form;
//! a model that uses it simply does not take the specialization.
//!
//! [`exchange`] is the Model Exchange side of the same modes (what an
//! importer's integrator is handed). Every stepper caches what depends only
//! on the step size ([`SAME_STEP`], `step_size.rs`), allocates nothing per
//! step, and writes a step's result into its own buffers: the caller commits
//! it only when the step succeeded, so a failed step ([`StepError`]) leaves
//! the caller's state untouched. `dims.rs` compiles the theta step at a few
//! fixed sizes, `memo.rs` remembers the last point a nonlinear program was
//! evaluated at, and `tidy` (here) is shared by all.

pub mod dims;
pub mod event;
pub mod exchange;
pub mod mechanical;
mod memo;
pub mod mode;
mod step_error;
mod step_size;
mod stepper;
pub mod theta;

pub use event::{EventDriven, EventLog, EventStepper, NonlinearEventStepper, StepReport};
pub use mechanical::{MechNewtonStepper, MechStepper, Mechanical};
pub use step_error::{ConstraintRow, StepError};
pub(crate) use step_size::StepSize;
pub use step_size::SAME_STEP;
pub use stepper::Stepper;
pub use theta::{NewtonStats, NewtonStepper, Theta, ThetaStepper};

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
