//! Why a step with equality constraints failed: when the contact problem of
//! an iteration is not solved, whether the constraints' Jacobian rows at the
//! iterate are linearly dependent (redundant or, with the contacts,
//! inconsistent constraints), so the discard can name two of them.
//!
//! Modified Gram–Schmidt on the rows scaled to unit length (constraints may
//! have any units), in a buffer sized at instantiation: nothing allocates.

use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::system::mechanics::MechSystem;

/// A unit row whose component outside the span of the earlier rows is below
/// this counts as dependent on them.
const DEPENDENT: f64 = 1e-10;

/// Buffers of the check: the orthonormalized rows, and each row unit-scaled.
pub(super) struct RankCheck {
    /// Per constraint (in file order), its contact index.
    contacts: Vec<usize>,
    basis: Vec<f64>,
    rows: Vec<f64>,
}

impl RankCheck {
    pub(super) fn new(sys: &MechSystem) -> Self {
        let contacts: Vec<usize> = (0..sys.contacts()).filter(|&k| sys.bilateral[k]).collect();
        let size = contacts.len() * sys.dof;
        RankCheck {
            contacts,
            basis: vec![0.0; size],
            rows: vec![0.0; size],
        }
    }
}

impl MechNewtonStepper {
    /// Two constraints (file indices) whose rows of `G(q̄)` are dependent: a
    /// row in the span of the earlier ones, and the earlier row closest to
    /// it in direction.
    pub(super) fn redundant_constraints(&mut self) -> Option<(usize, usize)> {
        let n = self.dof;
        let rc = &mut self.rank;
        let nb = rc.contacts.len();
        if nb < 2 {
            return None;
        }
        rc.rows.fill(0.0);
        for &(k, j, g) in &self.lin.gap.entries {
            if let Some(i) = rc.contacts.iter().position(|&c| c == k) {
                rc.rows[i * n + j] += g;
            }
        }
        for i in 0..nb {
            let row = &mut rc.rows[i * n..(i + 1) * n];
            let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                row.iter_mut().for_each(|x| *x /= norm);
            }
        }
        rc.basis.copy_from_slice(&rc.rows);
        for i in 0..nb {
            let (done, rest) = rc.basis.split_at_mut(i * n);
            let b = &mut rest[..n];
            for a in 0..i {
                let e = &done[a * n..(a + 1) * n];
                let d: f64 = e.iter().zip(b.iter()).map(|(x, y)| x * y).sum();
                b.iter_mut().zip(e).for_each(|(y, x)| *y -= d * x);
            }
            let norm = b.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm < DEPENDENT || !norm.is_finite() {
                let row = &rc.rows[i * n..(i + 1) * n];
                let closest = (0..i)
                    .map(|a| {
                        let other = &rc.rows[a * n..(a + 1) * n];
                        let c: f64 = other.iter().zip(row).map(|(x, y)| x * y).sum();
                        (a, c.abs())
                    })
                    .max_by(|x, y| x.1.total_cmp(&y.1))
                    .map_or(0, |(a, _)| a);
                return Some((closest, i));
            }
            b.iter_mut().for_each(|x| *x /= norm);
        }
        None
    }
}
