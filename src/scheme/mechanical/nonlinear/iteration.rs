//! One Newton–Josephy iteration of a nonlinear Moreau–Jean step: the forces,
//! gap and slip matrices at the iterate, the contact LCP of that linearization
//! and the new iterate it gives, and the acceptance of a converged iterate
//! (see [`super`] for the scheme and its convergence test).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp;
use crate::model::program::Point;
use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::scheme::{tidy, StepError};
use crate::system::mechanics::{cholesky_failure, MechSystem};

impl MechNewtonStepper {
    /// Forces, gap and slip matrices at the iterate, time `t1` (what the
    /// residual needs); the forces' Jacobians too `with_jacobian`, else
    /// only when an iteration follows, see [`Self::force_jacobian`].
    pub(super) fn linearize(
        &mut self,
        sys: &MechSystem,
        w: &[f64],
        t1: f64,
        with_jacobian: bool,
    ) -> Result<(), StepError> {
        let nl = sys.nonlinear.as_ref().expect("nonlinear mechanics");
        let end = Point {
            x: &self.xb,
            u: &[],
            w,
            t: t1,
        };
        if nl.mass_varies() {
            // Siconos' MoreauJeanOSI evaluates M at the iterate, in the
            // residual and in the iteration matrix alike.
            nl.mass(&end, &mut self.lin);
            let n = self.dof;
            if let Some((row, value)) =
                cholesky_failure(n, &self.lin.mass.entries, &mut self.cholesky)
            {
                return Err(StepError::MassNotPositiveDefinite { row, value });
            }
            self.mass_diag.fill(0.0);
            for &(i, j, m) in &self.lin.mass.entries {
                if i == j {
                    self.mass_diag[i] += m;
                }
            }
        }
        let lin = with_jacobian.then_some(&mut self.lin);
        nl.force(sys, &end, &mut self.f1, &mut self.m1, lin);
        self.jacobian_at_iterate = with_jacobian;
        if nl.gaps_nonlinear() {
            nl.gap_jacobian(sys, &end, &mut self.lin);
        }
        if nl.slips_nonlinear() {
            nl.slip(sys, &end, &mut self.lin, &mut self.slip_offset);
        }
        Ok(())
    }

    /// `∂F/∂q`, `∂F/∂v` at the iterate, time `t1`, into the linearized system.
    pub(super) fn force_jacobian(&mut self, sys: &MechSystem, w: &[f64], t1: f64) {
        let nl = sys.nonlinear.as_ref().expect("nonlinear mechanics");
        let end = Point {
            x: &self.xb,
            u: &[],
            w,
            t: t1,
        };
        nl.force_jacobian(sys, &end, &mut self.lin);
    }

    /// One Newton–Josephy iteration: the LCP of the linearization, then the
    /// new iterate.
    pub(super) fn iterate(&mut self, x: &[f64], h: f64) -> Result<lcp::Info, StepError> {
        let n = self.dof;
        let th = self.theta;
        let sys = &self.lin;
        if !self.inverse.factor(sys, h * th) {
            return Err(StepError::SingularIteration { h });
        }
        // v_f = v̄ - Ŵ⁻¹ R₀, R₀ = M (v̄ - v) - h [θ F̄ + (1-θ) F₀].
        let (v, vb) = (&x[n..], &self.xb[n..]);
        let r = &mut self.rhs;
        for i in 0..n {
            r[i] = h * (th * self.f1[i] + (1.0 - th) * self.f0[i]);
        }
        for &(i, j, m) in &sys.mass.entries {
            r[i] -= m * (vb[j] - v[j]);
        }
        self.inverse.apply(r);
        for i in 0..n {
            self.v_free[i] = vb[i] + r[i];
        }
        let (qv, _) = self.contacts.q_and_hi();
        for k in 0..sys.contacts() {
            qv[sys.pair[k]] = self.restitution[k] * self.rate0[k];
        }
        sys.gap.entries.iter().for_each(|&(k, j, g)| {
            qv[sys.pair[k]] += g * self.v_free[j];
        });
        self.tangential.copy_from_slice(&self.slip_offset);
        sys.slip.mul_acc(&mut self.tangential, &self.v_free, 1.0);
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            qv[p + 1] = self.tangential[f];
            qv[p + 2] = -self.tangential[f];
            qv[p + 3] = 0.0;
        }
        // No contact takes part: every pair is pinned at zero and the LCP's
        // answer is `u = 0, y = q`, without forming its matrix.
        let info = if self.engaged.iter().any(|&e| e) {
            self.contacts.fill(sys, &self.inverse, 1.0);
            self.contacts
                .solve(&mut self.u_next, &mut self.y_next, true)
        } else {
            self.u_next.fill(0.0);
            self.y_next.copy_from_slice(qv);
            lcp::Info {
                status: lcp::Status::Solved,
                method: lcp::Method::None,
                residual: 0.0,
                iterations: 0,
            }
        };
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }
        self.y_lcp.copy_from_slice(&self.y_next);
        for k in 0..sys.contacts() {
            self.normal[k] = self.u_next[sys.pair[k]];
        }
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            self.tangential[f] = self.u_next[p + 1] - self.u_next[p + 2];
        }
        let dv = &mut self.rhs;
        dv.fill(0.0);
        sys.gap.mul_t_acc(dv, &self.normal, 1.0);
        sys.slip.mul_t_acc(dv, &self.tangential, 1.0);
        self.inverse.apply(dv);
        let (qb, vb) = self.xb.split_at_mut(n);
        for i in 0..n {
            vb[i] = self.v_free[i] + dv[i];
            qb[i] = x[i] + h * (th * vb[i] + (1.0 - th) * x[n + i]);
        }
        self.u_bar.copy_from_slice(&self.u_next);
        Ok(info)
    }

    pub(super) fn accept(
        &mut self,
        solves: usize,
        worst: f64,
        info: lcp::Info,
    ) -> Result<lcp::Info, StepError> {
        self.x_next.copy_from_slice(&self.xb);
        self.u_next.copy_from_slice(&self.u_bar);
        if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
            return Err(StepError::NotFinite);
        }
        self.iterations = solves;
        let s = &mut self.stats;
        s.histogram[solves.min(s.histogram.len() - 1)] += 1;
        s.worst_residual = s.worst_residual.max(worst);
        Ok(info)
    }
}
