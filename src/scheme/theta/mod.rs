//! The theta-method on a first-order model, the scheme of every first-order
//! model that does not ask for event-driven integration.
//!
//! One stepper, [`Theta`], in one of two forms chosen once, at instantiation,
//! from the model's system:
//!
//! - [`Theta::Affine`] (`affine.rs`): the system is affine in the states and
//!   multipliers (a linear model, or one whose nonlinear remainders read only
//!   `time`, inputs and parameters: sources of an affine time-varying LCS).
//!   Its Jacobians are constant, so a step is one box LCP whose matrices are
//!   cached per step size.
//! - [`Theta::Newton`] ([`newton`]): the remainders read the states or the
//!   multipliers. A step is the same theta step, a nonlinear complementarity
//!   problem, solved by a Newton–Josephy iteration of box LCPs on the
//!   linearization, globalized by a line search on the residual of
//!   `residual`, started from the right-hand side's [`trend`]. For an
//!   affine system its first iteration is the affine form's step.
//!
//! The affine form is the nonlinear one with the linearization computed once;
//! it is kept as its own arithmetic because it is the cheapest step there is
//! (`scripts/count-instructions.sh`), and every model that can take it does.

mod affine;
pub mod newton;
pub(crate) mod residual;
pub mod trend;

pub(in crate::scheme) use affine::Sources;
pub use affine::ThetaStepper;
pub use newton::{NewtonStats, NewtonStepper};

use crate::model::{Method, Model};
use crate::system::lcs::Lcs;

/// The theta-method's workspace, in the form the model's system takes.
// Created once per instance and never moved on the step path.
#[allow(clippy::large_enum_variant)]
pub enum Theta {
    Affine(ThetaStepper),
    Newton(NewtonStepper),
}

impl Theta {
    /// The form `model` takes; `lcs` must be [`Lcs::new`] of the same model.
    pub fn new(model: &Model, lcs: &Lcs) -> Theta {
        let (nx, nu, nw) = (model.nx(), model.nu(), model.nw());
        let theta = model.scheme.theta;
        // Remainders that read only time, inputs and parameters are sources
        // of an affine time-varying LCS: one LCP per step, no Newton.
        let sources = lcs.nl.as_ref().and_then(Sources::of);
        if model.nonlinear_dynamics() && sources.is_none() {
            Theta::Newton(NewtonStepper::new(nx, nu, nw, theta))
        } else {
            let gammas = model.scheme.theta_gamma;
            let stepper = ThetaStepper::with_sources(nx, nu, nw, theta, gammas, sources);
            // Validation gives `zoh` only to models this stepper takes.
            Theta::Affine(if model.scheme.method == Method::Zoh {
                stepper.hold()
            } else {
                stepper
            })
        }
    }
}
