//! The position correction of `moreau-jean-projected`.
//!
//! Moreau–Jean keeps the contacts at velocity level: a contact that closes
//! within a step penetrates by up to `(h/2)|ġ|`, and nothing at velocity level
//! brings it back. In a long column every blow that runs through it leaves such
//! penetrations behind, and they add up (a few per cent of the height after a
//! second for a thousand beads). After the velocity step this correction moves
//! the new positions onto the admissible set `G q + g0 >= 0` by the smallest
//! change in the mass norm,
//!
//! `q⁺ ← q⁺ + M⁻¹ Gᵀ μ`, `0 <= G q⁺ + g0 + G M⁻¹ Gᵀ μ ⟂ μ >= 0`,
//!
//! an LCP with the Delassus matrix of `M` (not `Ŵ`) over the normal rows only:
//! friction acts on velocities and has no say in where the bodies sit. The
//! velocities are left as the velocity step made them (the idea of Siconos'
//! direct-projection integrator). A step whose positions are admissible
//! already is left alone, so the variant coincides with plain Moreau–Jean until
//! something penetrates.
//!
//! A projected contact ends the step at `g = 0` to rounding, possibly with a
//! velocity that still points into the obstacle (the projection moves
//! positions only). The standard activation `g + (h/2) ġ <= 0` would then
//! leave it out of the next step whenever that velocity happens to point
//! outward, and a resting column would fall through its own projections
//! (velocities growing like `g t` at fixed positions). So a contact whose gap
//! is zero to the precision of its evaluation (`|g| <= 64 ε Σ|terms|`) also
//! takes part; Newton's law then leaves an opening contact free (its
//! percussion is zero unless something pushes it closed).
//!
//! The LCP is warm-started from the step's own index set (contacts with a
//! positive percussion), a function of the step's data: a run restored from an
//! FMU state repeats the same solves without saving a second active set.

use super::contact::{Contacts, Inverse};
use crate::lcp::{self, Bound};
use crate::mechanics::MechSystem;

/// Workspace of the projection: the normal rows of the model with `M` as the
/// iteration matrix, their LCP and buffers.
pub(super) struct Projection {
    /// The model's mass and gap rows, no forces and no friction, one pair per
    /// contact in contact order: what the contact machinery needs to build
    /// `G M⁻¹ Gᵀ`.
    normal: MechSystem,
    inverse: Inverse,
    contacts: Contacts,
    warm: Vec<Bound>,
    fresh: bool,
    multiplier: Vec<f64>,
    residual: Vec<f64>,
    correction: Vec<f64>,
    /// Per contact, the rounding scale of its gap: `64 ε (|g0| + Σ|G_kj q_j|)`.
    precision: Vec<f64>,
}

impl Projection {
    pub(super) fn new(sys: &MechSystem) -> Self {
        let nc = sys.contacts();
        let mut normal = sys.clone();
        // The iteration matrix is M alone: clearing the force patterns also lets
        // a lumped M take the diagonal path even when springs couple the bodies.
        normal.position_force.entries.clear();
        normal.velocity_force.entries.clear();
        normal.input_force.entries.clear();
        normal.friction_contact.clear();
        normal.mu.clear();
        normal.slip.entries.clear();
        normal.slip.rows = 0;
        normal.slip_inputs.entries.clear();
        normal.slip_inputs.rows = 0;
        normal.slip0.clear();
        normal.pair = (0..nc).collect();
        let inverse = Inverse::new(&normal);
        let contacts = Contacts::new(&normal);
        Projection {
            normal,
            inverse,
            contacts,
            warm: vec![Bound::Lower; nc],
            fresh: false,
            multiplier: vec![0.0; nc],
            residual: vec![0.0; nc],
            correction: vec![0.0; sys.dof],
            precision: vec![0.0; nc],
        }
    }

    /// Takes the values of `sys` (assembled again after a parameter change)
    /// and builds `M⁻¹` and `G M⁻¹ Gᵀ`; false when `M` cannot be inverted.
    pub(super) fn prepare(&mut self, sys: &MechSystem) -> bool {
        self.normal.mass.entries.copy_from_slice(&sys.mass.entries);
        self.normal.gap.entries.copy_from_slice(&sys.gap.entries);
        self.normal.gap0.copy_from_slice(&sys.gap0);
        if !self.inverse.factor(&self.normal, 0.0) {
            return false;
        }
        self.contacts.fill(&self.normal, &self.inverse, 1.0);
        self.fresh = false;
        true
    }

    /// The rounding scale of each gap at positions `q`, for [`Self::touching`].
    pub(super) fn gap_precision(&mut self, sys: &MechSystem, q: &[f64]) {
        for (p, g0) in self.precision.iter_mut().zip(&sys.gap0) {
            *p = g0.abs();
        }
        for &(k, j, a) in &sys.gap.entries {
            self.precision[k] += (a * q[j]).abs();
        }
        for p in self.precision.iter_mut() {
            *p *= 64.0 * f64::EPSILON;
        }
    }

    /// Whether contact `k`, with gap `gap`, is closed to rounding.
    pub(super) fn touching(&self, k: usize, gap: f64) -> bool {
        gap <= self.precision[k]
    }

    /// Moves `q` onto `G q + g0 >= 0`; `percussion` (per contact) is the
    /// velocity step's, used as the warm start.
    pub(super) fn project(
        &mut self,
        sys: &MechSystem,
        q: &mut [f64],
        percussion: &[f64],
    ) -> lcp::Info {
        let (gap, hi) = self.contacts.q_and_hi();
        gap.copy_from_slice(&sys.gap0);
        sys.gap.mul_acc(gap, q, 1.0);
        if gap.iter().all(|g| *g >= 0.0) {
            return lcp::Info {
                status: lcp::Status::Solved,
                method: lcp::Method::None,
                residual: 0.0,
                iterations: 0,
            };
        }
        hi.fill(f64::INFINITY);
        for (w, p) in self.warm.iter_mut().zip(percussion) {
            *w = if *p > 0.0 { Bound::Free } else { Bound::Lower };
        }
        self.contacts.set_active_set(&self.warm);
        let info = self
            .contacts
            .solve(&mut self.multiplier, &mut self.residual, !self.fresh);
        self.fresh = true;
        if info.status != lcp::Status::Solved {
            return info;
        }
        self.correction.fill(0.0);
        sys.gap
            .mul_t_acc(&mut self.correction, &self.multiplier, 1.0);
        self.inverse.apply(&mut self.correction);
        for (x, dx) in q.iter_mut().zip(&self.correction) {
            *x += dx;
        }
        info
    }
}
