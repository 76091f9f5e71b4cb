//! Systems: what a validated model becomes at run time, for one set of
//! parameters, in the form the schemes step.
//!
//! Two kinds, each with a linear form and its nonlinear extension:
//!
//! - first-order complementarity systems: [`lcs::Lcs`], the matrices of
//!   `x' = A x + B u + E w + f`, `y = C x + D u + F w + g`, and [`ncs::Ncs`],
//!   the nonlinear remainders `φ, ψ` added to them, with their Jacobians by
//!   automatic differentiation;
//! - mechanical systems: [`mechanics::MechSystem`], coordinates with a constant
//!   mass matrix, forces and contacts (sparse), and
//!   [`mech_nonlinear::MechPrograms`], its nonlinear forces, gaps and slips.
//!
//! A nonlinear system always carries its linear part: the linear form is the
//! nonlinear one with no remainder, which the schemes detect once, at
//! instantiation, and step without a Newton loop.

pub mod lcs;
pub mod mech_nonlinear;
pub mod mechanics;
pub mod ncs;
