//! The index set and the position projection of
//! `moreau-jean-direct-projection`, with the meaning of Siconos'
//! `MoreauJeanDirectProjectionOSI` run by `TimeSteppingDirectProjection`.
//!
//! The velocity step is Moreau–Jean's, over an index set that remembers the
//! previous step's (a hysteresis, where plain Moreau–Jean decides afresh at
//! every step). With the predicted gap `ĝ = g + γ h G v` at the step's start:
//!
//! - a contact outside the index set joins it when `ĝ <= activation`;
//! - a contact in it leaves when `ĝ > deactivation` and `G v >= 0` (an
//!   approaching contact stays, however far its predicted gap).
//!
//! Siconos' defaults are `1e-7` for both thresholds (gaps, in the model's
//! length unit) and an empty index set at the start.
//!
//! After the velocity step, while some contact of the index set penetrates by
//! more than `tolerance`, the positions are projected onto the index set's
//! constraints, at most `max_iterations` times:
//!
//! `q⁺ ← q⁺ + Gᵀ μ`, `0 <= G q⁺ + g0 + G Gᵀ μ ⟂ μ >= 0` over the index set,
//!
//! the Euclidean projection (Siconos' `MLCPProjectOnConstraints` builds
//! `G Gᵀ` and adds `Gᵀ μ` to the positions: no mass matrix). Contacts outside
//! the index set take no part, even when they penetrate; velocities are left
//! as the velocity step made them. With gaps linear in `q` one projection
//! closes every penetration to rounding, so the loop ends after one pass; it
//! is kept for the tolerance's meaning.
//!
//! This differs from `moreau-jean-projected` (see [`super::projection`]):
//! that variant projects every contact in the mass norm and applies the
//! impact the velocity step missed.
//!
//! The projection's LCP is warm-started from the step's data (the index set's
//! penetrating contacts free), so a run restored from an FMU state repeats the
//! same solves. The index set itself travels in the saved active set: the
//! normal pair of a contact outside it is saved at `Upper` (its reaction is
//! pinned at its upper bound 0; a contact in the index set is unbounded above
//! and never there), see [`encode_index_set`].

use crate::lcp::{self, Bound};
use crate::model::DirectProjection;
use crate::scheme::mechanical::contact::{Contacts, Inverse};
use crate::scheme::mechanical::projection::normal_rows;
use crate::system::mechanics::{MechSystem, Sparse};

/// Workspace of the direct projection: the gap rows with the identity as the
/// metric, their LCP and buffers.
pub(super) struct DirectProjector {
    settings: DirectProjection,
    /// The model's gap rows with `M = I`, no forces and no friction.
    normal: MechSystem,
    inverse: Inverse,
    contacts: Contacts,
    warm: Vec<Bound>,
    multiplier: Vec<f64>,
    residual: Vec<f64>,
    correction: Vec<f64>,
}

impl DirectProjector {
    pub(super) fn new(sys: &MechSystem, settings: DirectProjection) -> Self {
        let nc = sys.contacts();
        let n = sys.dof;
        let mut normal = normal_rows(sys);
        normal.mass = Sparse::from_rows(n, n, (0..n).map(|i| (i, i, 1.0)).collect());
        let inverse = Inverse::new(&normal);
        let contacts = Contacts::new(&normal);
        DirectProjector {
            settings,
            normal,
            inverse,
            contacts,
            warm: vec![Bound::Lower; nc],
            multiplier: vec![0.0; nc],
            residual: vec![0.0; nc],
            correction: vec![0.0; n],
        }
    }

    /// Takes the gap rows of `sys` (assembled again after a parameter change)
    /// and builds `G Gᵀ`; false when that cannot be done.
    pub(super) fn prepare(&mut self, sys: &MechSystem) -> bool {
        self.normal.gap.entries.copy_from_slice(&sys.gap.entries);
        self.normal.gap0.copy_from_slice(&sys.gap0);
        if !self.inverse.factor(&self.normal, 0.0) {
            return false;
        }
        self.contacts.fill(&self.normal, &self.inverse, 1.0);
        true
    }

    /// Whether a contact is in this step's index set, given whether it was in
    /// the last one, its predicted gap `g + γ h G v` and its rate `G v`.
    pub(super) fn engaged(&self, was: bool, predicted: f64, rate: f64) -> bool {
        if was {
            !(predicted > self.settings.deactivation && rate >= 0.0)
        } else {
            predicted <= self.settings.activation
        }
    }

    /// Projects `q` onto the constraints of the contacts in `index_set`
    /// while one of them penetrates by more than the tolerance.
    pub(super) fn project(
        &mut self,
        sys: &MechSystem,
        q: &mut [f64],
        index_set: &[bool],
    ) -> lcp::Info {
        let mut info = lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        };
        for _ in 0..self.settings.max_iterations {
            let (gap, hi) = self.contacts.q_and_hi();
            gap.copy_from_slice(&sys.gap0);
            sys.gap.mul_acc(gap, q, 1.0);
            let mut violation = 0.0f64;
            for (k, &on) in index_set.iter().enumerate() {
                if on {
                    violation = violation.max(-gap[k]);
                }
                hi[k] = if on { f64::INFINITY } else { 0.0 };
                self.warm[k] = if on && gap[k] < 0.0 {
                    Bound::Free
                } else {
                    Bound::Lower
                };
            }
            if violation <= self.settings.tolerance {
                break;
            }
            self.contacts.set_active_set(&self.warm);
            // The bounds follow the index set, which may change at any step.
            info = self
                .contacts
                .solve(&mut self.multiplier, &mut self.residual, true);
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
        }
        info
    }
}

/// The active set saved in FMU states: the solver's warm start `solver`, with
/// the normal pair (`pair[k]`) of each contact outside `index_set` at `Upper`.
pub(super) fn encode_index_set(
    solver: &[Bound],
    index_set: &[bool],
    pair: &[usize],
    saved: &mut [Bound],
) {
    saved.copy_from_slice(solver);
    for (&on, &p) in index_set.iter().zip(pair) {
        if !on {
            saved[p] = Bound::Upper;
        }
    }
}

/// The inverse of [`encode_index_set`]: the index set, and the solver's warm
/// start (a contact outside the index set is fixed at 0, which the solvers
/// describe as `Lower`).
pub(super) fn decode_index_set(
    saved: &[Bound],
    pair: &[usize],
    index_set: &mut [bool],
    solver: &mut [Bound],
) {
    solver.copy_from_slice(saved);
    for (on, &p) in index_set.iter_mut().zip(pair) {
        *on = saved[p] != Bound::Upper;
        if !*on {
            solver[p] = Bound::Lower;
        }
    }
}
