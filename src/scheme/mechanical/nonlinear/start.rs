//! The start of a nonlinear Moreau–Jean step: the forces, gaps and contact
//! rates at the step's start state, the restitution each contact applies, the
//! index set of the contacts that take part (see [`super`]), and the first
//! iterate `v̄ = v` with no percussions.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::model::program::Point;
use crate::model::Impact;
use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::system::mechanics::MechSystem;

impl MechNewtonStepper {
    /// Copies what the linearized system shares with the assembled model
    /// (the mass matrix, the friction coefficients, the mass matrix's
    /// diagonal, and `G` when the gaps are linear) once per assembly: a
    /// step's start reads them, none of the iterations writes them.
    pub(super) fn take_assembly(&mut self, sys: &MechSystem, start: &Point) {
        if self.assembly_taken {
            return;
        }
        for (l, m) in self.lin.mass.entries.iter_mut().zip(&sys.mass.entries) {
            l.2 = m.2;
        }
        self.lin.mu.copy_from_slice(&sys.mu);
        self.mass_diag.fill(0.0);
        for &(i, j, m) in &sys.mass.entries {
            if i == j {
                self.mass_diag[i] += m;
            }
        }
        let nl = sys.nonlinear.as_ref().expect("nonlinear mechanics");
        if !nl.gaps_nonlinear() {
            nl.gap_jacobian(sys, start, &mut self.lin);
        }
        self.assembly_taken = true;
    }

    /// The step's start: forces, gaps, rates and the index set at `(q, v, t)`;
    /// the iterate at `v̄ = v`, no percussions.
    pub(super) fn begin(&mut self, sys: &MechSystem, x: &[f64], w: &[f64], t: f64, h: f64) {
        let nl = sys.nonlinear.as_ref().expect("nonlinear mechanics");
        let n = self.dof;
        let start = Point { x, u: &[], w, t };
        self.take_assembly(sys, &start);
        // Forces that do not read time: the memo's point at any time is this one.
        let at_time = nl.force_reads_time().then_some(t);
        if self.theta < 1.0 && self.memo.holds([x, &[], w], at_time) {
            self.f0.copy_from_slice(&self.memo.value);
            self.m0.copy_from_slice(&self.memo.magnitude);
        } else if self.theta < 1.0 {
            nl.force(sys, &start, &mut self.f0, &mut self.m0, None);
        } else {
            self.f0.fill(0.0);
            self.m0.fill(0.0);
        }
        nl.gap(sys, &start, &mut self.gap);
        if nl.gaps_nonlinear() {
            nl.gap_jacobian(sys, &start, &mut self.lin);
        }
        // Slips without programs read neither `q` nor `v`: their matrix and
        // offset (inputs held over the step) are the iterates' too, set once
        // here rather than at every linearization.
        if !nl.slips_nonlinear() && !self.slip_offset.is_empty() {
            nl.slip(sys, &start, &mut self.lin, &mut self.slip_offset);
        }
        if let Some(pr) = &mut self.projection {
            pr.gap_precision(nl, sys, &start);
        }
        self.rate0.fill(0.0);
        self.rate0_mag.fill(0.0);
        for &(k, j, g) in &self.lin.gap.entries {
            let r = g * x[n + j];
            self.rate0[k] += r;
            self.rate0_mag[k] += r.abs();
        }
        let (_, hi) = self.contacts.q_and_hi();
        for k in 0..sys.contacts() {
            let u = self.rate0[k];
            // Energy-safe as in the linear scheme: an active contact already
            // opening gets e = 1, so its percussion does no work.
            self.restitution[k] = if self.impact == Impact::EnergySafe && u > 0.0 {
                1.0
            } else {
                sys.restitution[k]
            };
            // The projected variant: a closed contact takes part too (see
            // `projection`).
            // An equality constraint always takes part, and keeps its value's
            // rate at zero (no restitution).
            if sys.bilateral[k] {
                self.restitution[k] = 0.0;
            }
            let engaged = sys.bilateral[k]
                || self.gap[k] + self.gamma * h * u <= 0.0
                || self
                    .projection
                    .as_ref()
                    .is_some_and(|p| p.touching(self.gap[k]));
            self.engaged[k] = engaged;
            hi[sys.pair[k]] = if engaged { f64::INFINITY } else { 0.0 };
        }
        for &k in &sys.friction_contact {
            let p = sys.pair[k];
            let top = hi[p];
            hi[p + 1] = top;
            hi[p + 2] = top;
            hi[p + 3] = top;
        }
        self.xb.copy_from_slice(x);
        let (qb, vb) = self.xb.split_at_mut(n);
        for i in 0..n {
            qb[i] = x[i] + h * vb[i];
        }
        self.u_bar.fill(0.0);
    }
}
