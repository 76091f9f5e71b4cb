//! The mechanical form of a model: coordinates, masses, forces and contacts.
//!
//! A mechanical model keeps its dynamics here instead of in the first-order
//! [`super::System`]; the Moreau–Jean and direct-projection schemes step it
//! directly. The `mechanical` module lowers a file's `[mechanics]` tables into it.

use super::expr::Expr;
use super::mech_nonlinear;
use super::ExprMatrix;
use serde::{Deserialize, Serialize};

/// A mechanical system `M v' = Fq q + Fv v + F w + f + G^T λ + T^T λ_t`, `q' = v`
/// (stiffness `K = -Fq`, damping `C = -Fv`),
/// with `dof` coordinates `q` (the first `dof` states) and their velocities `v`
/// (the next `dof`). Each contact has a gap `g = G q + g0 >= 0` complementary to
/// its normal reaction (the contact's pair); a frictional contact adds three pairs
/// (positive and negative friction, and the slip speed) after its normal pair.
/// An equality constraint is a bilateral contact (see [`Contact::bilateral`])
/// after the unilateral ones: its gap row is the constraint's value, kept at
/// zero, and its pair the multiplier, free in sign.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mechanics {
    pub dof: usize,
    /// `M`, symmetric positive definite (`dof x dof`).
    pub mass: ExprMatrix,
    /// `Fq` (`dof x dof`): the force's dependence on positions.
    pub position_force: ExprMatrix,
    /// `Fv` (`dof x dof`): the force's dependence on velocities.
    pub velocity_force: ExprMatrix,
    /// `f` (`dof x 1`), constant forces.
    pub force: ExprMatrix,
    /// `F` (`dof x nw`), forces from inputs.
    pub input_force: ExprMatrix,
    /// `G` (`contacts x dof`) and `g0` (`contacts x 1`).
    pub gap: ExprMatrix,
    pub gap0: ExprMatrix,
    pub contacts: Vec<Contact>,
    /// Nonlinear remainders of forces, gaps and slips; `None` for a linear
    /// model, which then steps exactly as it always did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonlinear: Option<mech_nonlinear::MechNonlinear>,
}

/// One contact: unilateral, or an equality constraint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// Index of its normal pair; friction pairs follow it.
    pub pair: usize,
    /// Newton's restitution coefficient, in [0, 1] (used by Moreau–Jean).
    pub restitution: Expr,
    pub friction: Option<Friction>,
    /// An equality constraint (`[[constraints]]`): always active, its
    /// multiplier free in sign, restitution zero, no friction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bilateral: bool,
}

/// Coulomb friction along one tangential direction: the slip velocity is
/// `T v + Tw w + t0`, the friction force `T^T (λ+ - λ-)` with
/// `λ+ + λ- <= mu λ_n`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Friction {
    pub mu: Expr,
    /// `(coordinate, coefficient)`: the row of `T`.
    pub slip: Vec<(usize, Expr)>,
    /// `(input, coefficient)`: the row of `Tw`.
    pub slip_inputs: Vec<(usize, Expr)>,
    pub slip0: Expr,
}
