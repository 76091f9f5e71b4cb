//! The mechanical schemes: Moreau–Jean at velocity level (with its projected
//! and direct-projection variants) and the semi-explicit scheme at position
//! level, on a mechanical system. One step is one LCP in the contact
//! reactions.
//!
//! One stepper, [`Mechanical`], in one of two forms chosen once, at
//! instantiation:
//!
//! - [`Mechanical::Linear`] (`linear.rs`): forces, gaps and slips are linear
//!   in the coordinates and velocities; the LCP matrix depends on the step
//!   size only and stays cached, and long chains get the band solver.
//! - [`Mechanical::Nonlinear`] (`nonlinear.rs`): nonlinear forces, gaps or
//!   slips; each step is a Newton loop of such LCPs on the linearization at
//!   the iterate, with the same schemes, projections and friction.
//!
//! Shared by both: the contacts' index sets and inverse mass (`contact`),
//! the projection onto the gaps (`projection`) and the direct-projection
//! index set (`direct_projection`).

pub(crate) mod contact;
pub(crate) mod direct_projection;
mod linear;
mod nonlinear;
pub(crate) mod projection;

pub use linear::MechStepper;
pub use nonlinear::MechNewtonStepper;

use crate::model::Scheme;
use crate::system::mechanics::MechSystem;

/// The mechanical schemes' workspace, in the form the model's system takes.
// Created once per instance and never moved on the step path (see
// `Contacts` in `contact`).
#[allow(clippy::large_enum_variant)]
pub enum Mechanical {
    Linear(MechStepper),
    Nonlinear(MechNewtonStepper),
}

impl Mechanical {
    /// The form `sys` takes, for the model's `scheme`.
    pub fn new(sys: &MechSystem, scheme: &Scheme) -> Mechanical {
        if sys.nonlinear.is_some() {
            Mechanical::Nonlinear(MechNewtonStepper::new(sys, scheme))
        } else {
            Mechanical::Linear(MechStepper::new(sys, scheme))
        }
    }
}
