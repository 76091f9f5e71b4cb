//! Nonlinear forces, gaps and slips of mechanical models.
//!
//! A coordinate's `force` may be any smooth expression in the coordinates,
//! velocities, inputs and `time`; a contact's `gap` any smooth expression in
//! the coordinates; a `slip` velocity is linear in the velocities (and
//! inputs) with coefficients that may depend on the coordinates. Each is split
//! as the signal form splits its rows (see `model::rows`): linear terms with
//! parameter coefficients into the matrices of [`super::Mechanics`] (a linear
//! model lowers exactly as before), the rest into one compiled program per
//! row, kept in [`MechNonlinear`]. The programs' operands are the variables
//! `q` (`0..n`), `v` (`n..2n`), inputs (`2n..`) and `time`; the step
//! differentiates them by forward-mode automatic differentiation. Mass
//! entries that read coordinates are programs of `q` too (`M(q)`, see
//! `mechanical/mass.rs`), from whose derivatives the step forms the
//! gyroscopic and centrifugal forces. The
//! lowering itself is in `mech_rows` (tool builds only).

use super::expr::Expr;
use serde::{Deserialize, Serialize};

/// The nonlinear remainders of a mechanical model, each `(row, program)`:
/// forces per coordinate, gaps per contact, slips per contact (frictional
/// contacts only). A row without an entry is linear.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MechNonlinear {
    pub force: Vec<(usize, Expr)>,
    pub gap: Vec<(usize, Expr)>,
    pub slip: Vec<(usize, Expr)>,
    /// Entries `(i, j, program of q)` of a configuration-dependent mass
    /// matrix `M(q)` (the matrix holds a zero placeholder at each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mass: Vec<(usize, usize, Expr)>,
}

impl MechNonlinear {
    pub fn is_empty(&self) -> bool {
        self.force.is_empty() && self.gap.is_empty() && self.slip.is_empty() && self.mass.is_empty()
    }

    /// Whether every program is well formed over `np` parameters and the
    /// `2 dof + nw` variables, with rows in range.
    pub fn is_consistent(&self, np: usize, dof: usize, nw: usize, contacts: usize) -> bool {
        let nv = 2 * dof + nw;
        let ok = |list: &[(usize, Expr)], rows: usize| {
            list.iter()
                .all(|(i, e)| *i < rows && e.is_well_formed_program(np, nv))
        };
        // A mass entry reads coordinates only (and parameters).
        let mass_ok = self
            .mass
            .iter()
            .all(|(i, j, e)| *i < dof && *j < dof && e.is_well_formed_program(np, dof));
        ok(&self.force, dof) && ok(&self.gap, contacts) && ok(&self.slip, contacts) && mass_ok
    }
}
