//! Why a step with equality constraints failed: when the contact problem of
//! an iteration is not solved, whether the Jacobian rows at the iterate of
//! the constraints and the contacts taking part are linearly dependent
//! (redundant constraints, or a constraint and a contact that ask for
//! incompatible velocities), so the discard can name two of them. A
//! dependent set whose problem is solved (consistent redundancy) is not an
//! error: the motion is determined, only the split of the impulse among the
//! dependent rows is the solver's choice.
//!
//! Modified Gram–Schmidt on the rows scaled to unit length (constraints may
//! have any units), in a buffer sized at instantiation: nothing allocates.

use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::scheme::ConstraintRow;
use crate::system::mechanics::MechSystem;

/// A unit row whose component outside the span of the earlier rows is below
/// this counts as dependent on them.
const DEPENDENT: f64 = 1e-10;

/// Buffers of the check: the rows checked (contact indices), the
/// orthonormalized rows, and each row unit-scaled.
pub(super) struct RankCheck {
    /// The constraints (in file order), then the contacts taking part.
    checked: Vec<usize>,
    /// The number of constraints (the first contact index among them).
    constraints: usize,
    basis: Vec<f64>,
    rows: Vec<f64>,
}

impl RankCheck {
    pub(super) fn new(sys: &MechSystem) -> Self {
        let nc = sys.contacts();
        let constraints = sys.bilateral.iter().filter(|&&b| b).count();
        let size = if constraints > 0 { nc * sys.dof } else { 0 };
        RankCheck {
            checked: Vec::with_capacity(if constraints > 0 { nc } else { 0 }),
            constraints,
            basis: vec![0.0; size],
            rows: vec![0.0; size],
        }
    }
}

impl MechNewtonStepper {
    /// Two rows of `G(q̄)`, at least one a constraint's, that are
    /// dependent: a row in the span of the earlier ones (constraints first,
    /// then the contacts taking part), and the earlier row closest to it in
    /// direction. `None` without constraints.
    pub(super) fn dependent_rows(&mut self) -> Option<(ConstraintRow, ConstraintRow)> {
        let n = self.dof;
        let rc = &mut self.rank;
        if rc.constraints == 0 {
            return None;
        }
        let nc = self.lin.contacts();
        let first = nc - rc.constraints;
        rc.checked.clear();
        rc.checked.extend(first..nc);
        rc.checked.extend((0..first).filter(|&k| self.engaged[k]));
        let nb = rc.checked.len();
        let rows = &mut rc.rows[..nb * n];
        rows.fill(0.0);
        for &(k, j, g) in &self.lin.gap.entries {
            if let Some(i) = rc.checked.iter().position(|&c| c == k) {
                rows[i * n + j] += g;
            }
        }
        for i in 0..nb {
            let row = &mut rows[i * n..(i + 1) * n];
            let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                row.iter_mut().for_each(|x| *x /= norm);
            }
        }
        let basis = &mut rc.basis[..nb * n];
        basis.copy_from_slice(rows);
        let name = |i: usize| {
            if i < rc.constraints {
                ConstraintRow::Constraint(i)
            } else {
                ConstraintRow::Contact(rc.checked[i])
            }
        };
        for i in 0..nb {
            let (done, rest) = basis.split_at_mut(i * n);
            let b = &mut rest[..n];
            for a in 0..i {
                let e = &done[a * n..(a + 1) * n];
                let d: f64 = e.iter().zip(b.iter()).map(|(x, y)| x * y).sum();
                b.iter_mut().zip(e).for_each(|(y, x)| *y -= d * x);
            }
            let norm = b.iter().map(|x| x * x).sum::<f64>().sqrt();
            if !(norm >= DEPENDENT) {
                let row = &rows[i * n..(i + 1) * n];
                // Among the earlier rows, a constraint's when the row is a contact's.
                let candidates = if i < rc.constraints {
                    i
                } else {
                    rc.constraints
                };
                let closest = (0..candidates)
                    .map(|a| {
                        let other = &rows[a * n..(a + 1) * n];
                        let c: f64 = other.iter().zip(row).map(|(x, y)| x * y).sum();
                        (a, c.abs())
                    })
                    .max_by(|x, y| x.1.total_cmp(&y.1))?;
                return Some((name(closest.0), name(i)));
            }
            b.iter_mut().for_each(|x| *x /= norm);
        }
        None
    }
}
