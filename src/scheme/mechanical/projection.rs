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
//! friction acts on velocities and has no say in where the bodies sit (the
//! idea of Siconos' direct-projection integrator). A step whose positions are
//! admissible already is left alone, so the variant coincides with plain
//! Moreau–Jean until something penetrates.
//!
//! Velocities are left as the velocity step made them, except where a
//! projected contact (`μ_k > 0`) still approaches: the velocity step left it
//! out (its predicted gap was positive) and it penetrated within the step. The
//! projection has put the bodies in contact with an inward velocity; the impact
//! that the velocity step missed is applied now, with the same matrix:
//! `0 <= G_k (v⁺ + M⁻¹ Gᵀ ν) + e_k min(G_k v, 0) ⟂ ν_k >= 0` over the projected
//! contacts (`v` the velocity at the step's start). A contact that was
//! approaching at the start of the step bounces with its restitution, applied
//! to that earlier approach speed; one that was at rest or opening, and closed
//! only because of this step's forces, stops. Without this, a bead resting on
//! a column cycles for ever (free fall for a step, projection, bounce, ...) at
//! speeds of the order of `g h`, the projection feeding the energy that the
//! bounces lose. Restitution on the end-of-step speed (what the next step
//! would use) does not fit either: the projection has already lifted the
//! bodies out of the penetration, and the two together pump energy (the ball
//! with e = 0.9, h = 2e-3 then bounces for ever at 0.05 m/s). With the
//! start-of-step speed the correction only dissipates, and an accumulation of
//! impacts ends somewhat earlier than with the plain scheme.
//!
//! A projected contact ends the step at `g = 0` to rounding, possibly with a
//! velocity that still points into the obstacle (the projection moves
//! positions only). The standard activation `g + (h/2) ġ <= 0` would then
//! leave it out of the next step whenever that velocity happens to point
//! outward, and a resting column would fall through its own projections
//! (velocities growing like `g t` at fixed positions). So a contact whose gap
//! is zero to the precision of the contact problem also takes part; Newton's
//! law then leaves an opening contact free (its percussion is zero unless
//! something pushes it closed). That precision is one for all contacts,
//! `64 ε max_k (|g0_k| + Σ_j |G_kj q_j|)`: the projection's LCP errs relative
//! to the whole problem, so a gap near a zero coordinate (a bead on the
//! floor) comes out at 1e-22 as often as at 0, far above its own rounding.
//!
//! The LCP is warm-started from the step's own index set (contacts with a
//! positive percussion), a function of the step's data: a run restored from an
//! FMU state repeats the same solves without saving a second active set.

use crate::lcp::{self, Bound};
use crate::scheme::mechanical::contact::{Contacts, Inverse};
use crate::system::mechanics::MechSystem;

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
    impulse: Vec<f64>,
    residual: Vec<f64>,
    correction: Vec<f64>,
    /// Gaps below this are zero to the precision of the contact problem.
    precision: f64,
    /// Per contact, `|g0_k| + Σ_j |G_kj q_j|`.
    terms: Vec<f64>,
}

/// The mass and gap rows of `sys` without forces or friction, one pair per
/// contact in contact order: what the contact machinery needs to build a
/// position-level Delassus matrix `G M⁻¹ Gᵀ`.
pub(super) fn normal_rows(sys: &MechSystem) -> MechSystem {
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
    normal.pair = (0..sys.contacts()).collect();
    normal
}

impl Projection {
    pub(super) fn new(sys: &MechSystem) -> Self {
        let nc = sys.contacts();
        let normal = normal_rows(sys);
        let inverse = Inverse::new(&normal);
        let contacts = Contacts::new(&normal);
        Projection {
            normal,
            inverse,
            contacts,
            warm: vec![Bound::Lower; nc],
            fresh: false,
            multiplier: vec![0.0; nc],
            impulse: vec![0.0; nc],
            residual: vec![0.0; nc],
            correction: vec![0.0; sys.dof],
            precision: 0.0,
            terms: vec![0.0; nc],
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

    /// The precision of the gaps at positions `q`, for [`Self::touching`].
    pub(super) fn gap_precision(&mut self, sys: &MechSystem, q: &[f64]) {
        for (t, g0) in self.terms.iter_mut().zip(&sys.gap0) {
            *t = g0.abs();
        }
        for &(k, j, a) in &sys.gap.entries {
            self.terms[k] += (a * q[j]).abs();
        }
        let largest = self.terms.iter().fold(0.0, |m: f64, t| m.max(*t));
        self.precision = 64.0 * f64::EPSILON * largest;
    }

    /// Whether a contact with gap `gap` is closed to that precision.
    pub(super) fn touching(&self, gap: f64) -> bool {
        gap <= self.precision
    }

    /// Moves `q` onto `G q + g0 >= 0`, and applies the impact the velocity
    /// step missed to the projected contacts that still approach;
    /// `start_rate` is `G v` at the step's start, `percussion` (per contact)
    /// the velocity step's, used as the warm start.
    pub(super) fn project(
        &mut self,
        sys: &MechSystem,
        q: &mut [f64],
        v: &mut [f64],
        start_rate: &[f64],
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

        let (rate, hi) = self.contacts.q_and_hi();
        rate.fill(0.0);
        sys.gap.mul_acc(rate, v, 1.0);
        let mut approaching = false;
        for k in 0..rate.len() {
            // Every projected contact takes part: stopping one may push the
            // next one into approach.
            let on = self.multiplier[k] > 0.0;
            rate[k] += sys.restitution[k] * start_rate[k].min(0.0);
            hi[k] = if on { f64::INFINITY } else { 0.0 };
            self.warm[k] = if on && rate[k] < 0.0 {
                Bound::Free
            } else {
                Bound::Lower
            };
            approaching |= on && rate[k] < 0.0;
        }
        if !approaching {
            return info;
        }
        self.contacts.set_active_set(&self.warm);
        let stop = self
            .contacts
            .solve(&mut self.impulse, &mut self.residual, true);
        // The next projection's bounds differ from these.
        self.fresh = false;
        if stop.status != lcp::Status::Solved {
            return stop;
        }
        self.correction.fill(0.0);
        sys.gap.mul_t_acc(&mut self.correction, &self.impulse, 1.0);
        self.inverse.apply(&mut self.correction);
        for (x, dx) in v.iter_mut().zip(&self.correction) {
            *x += dx;
        }
        info
    }
}
