//! The semi-explicit scheme on a model with nonlinear forces, gaps or slips:
//! the position-level step of the linear scheme (`scheme/mechanical/linear.rs`) with
//! a Newton–Josephy loop for the curved gaps and slips.
//!
//! The forces are explicit, at the step's start: `v_f = v + h M⁻¹ F(q, v, t)`.
//! Unknowns `v⁺` and the contact forces `λ` (normal) and `λ±` (friction),
//! `q⁺ = q + h v⁺`:
//!
//! `M (v⁺ - v_f) = h G(q⁺)ᵀ λ + h T(q⁺)ᵀ (λ+ - λ-)`,
//! `0 <= g(q⁺) ⟂ λ >= 0` for every contact (the gap at the step's end: no
//! penetration, plastic impacts), and Coulomb's block with the slip
//! `s = T(q⁺) v⁺ + Tw w + t0`.
//!
//! Each iteration linearizes at the iterate `v̄` (`q̄ = q + h v̄`): the gap
//! `g(q⁺) ≈ g(q̄) + h G(q̄)(v⁺ - v̄)`, and `G`, `T` at `q̄`; that is the linear
//! scheme's LCP (matrix `h² H M⁻¹ Hᵀ` scaled as there) with the gaps
//! `g(q̄) + h G(q̄)(v_f - v̄)`, after which `v̄ ← v_f + h M⁻¹ (Ḡᵀ λ + T̄ᵀ λ_t)`.
//! The iteration starts at `v̄ = v_f`; with linear gaps and slips its first
//! LCP is the linear step's and the loop stops there. The iteration matrix is
//! `M` whatever the forces (they are explicit); left out, as in the
//! Moreau–Jean loop, the curvature of the gaps and slips times the forces.
//!
//! Convergence after each solve, scale-invariant: the momentum rows'
//! residual `M (v̄ - v) - h F - h G(q̄)ᵀ λ - h T(q̄)ᵀ λ_t` against the
//! magnitude of its terms; each gap's linearization error `g(q̄) - y` (`y`
//! the gap the LCP predicted) against the magnitude of the gap's terms; each
//! slip's `T(q̄) v̄ + Tw w + t0 - s_lcp` against its terms (a velocity
//! counted with its momentum row's terms per unit mass, as in the Moreau–Jean
//! residual), every one below `TOL` (1e-10), then taken to rounding as the
//! Moreau–Jean loop is ([`super::polish`]). After 50 solves above `TOL`, or a
//! residual that is not finite, the step is discarded. The iteration starts
//! from the step's data alone and the LCP's warm start (held in FMU states):
//! a restored run repeats bit for bit. Nothing here allocates per step.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp;
use crate::model::program::Point;
use crate::scheme::mechanical::nonlinear::polish::Polish;
use crate::scheme::mechanical::nonlinear::residual::scaled;
use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::scheme::StepError;
use crate::system::mechanics::MechSystem;

impl MechNewtonStepper {
    /// One semi-explicit step of size `h` from `x = (q, v)` at time `t`.
    pub(super) fn step_semi_explicit(
        &mut self,
        sys: &MechSystem,
        x: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let nl = sys.nonlinear.as_ref().expect("nonlinear mechanics");
        let n = self.dof;
        let start = Point { x, u: &[], w, t };
        self.take_assembly(sys, &start);
        nl.force(sys, &start, &mut self.f0, &mut self.m0, None);
        let (_, hi) = self.contacts.q_and_hi();
        hi.fill(f64::INFINITY);
        let mut info = lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        };
        // v_f = v + h M⁻¹ F(q, v, t), the first iterate v̄ = v_f.
        if !self.inverse.factor(&self.lin, 0.0) {
            return Err(StepError::SingularIteration { h });
        }
        for i in 0..n {
            self.v_free[i] = h * self.f0[i];
        }
        self.inverse.apply(&mut self.v_free);
        for i in 0..n {
            self.v_free[i] += x[n + i];
            self.xb[n + i] = self.v_free[i];
            self.xb[i] = x[i] + h * self.v_free[i];
        }
        let mut solves = 0;
        let mut polish = Polish::new();
        let mut kept_info = info;
        loop {
            let at = Point {
                x: &self.xb,
                u: &[],
                w,
                t: t + h,
            };
            nl.gap(sys, &at, &mut self.gap);
            nl.gap_jacobian(sys, &at, &mut self.lin);
            nl.slip(sys, &at, &mut self.lin, &mut self.slip_offset);
            if solves > 0 {
                // The gaps' term magnitudes (`rate0_mag` is free here).
                nl.gap_magnitude(sys, &at, &mut self.rate0_mag);
                let worst = self.semi_explicit_residual(sys, x, h);
                if let Some((residual, info)) =
                    self.settle(&mut polish, worst, solves, info, &mut kept_info)?
                {
                    return self.accept(solves, residual, info);
                }
            }
            // The dense inverse keeps M⁻¹Hᵀ: rebuilt with every G and T.
            let solved = if self.inverse.factor(&self.lin, 0.0) {
                self.semi_explicit_iterate(sys, x, h)
            } else {
                Err(StepError::SingularIteration { h })
            };
            match solved {
                Ok(solved) => info = solved,
                // The kept iterate met TOL; rounding could not be had.
                Err(_) if polish.polishing() => {
                    self.back_to_kept();
                    return self.accept(solves + 1, polish.kept(), kept_info);
                }
                Err(e) => return Err(e),
            }
            solves += 1;
        }
    }

    /// One iteration: the LCP of the linearization at `v̄`, then the new iterate.
    fn semi_explicit_iterate(
        &mut self,
        sys: &MechSystem,
        x: &[f64],
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let n = self.dof;
        let lin = &self.lin;
        self.contacts.fill(lin, &self.inverse, h);
        let (qv, hi) = self.contacts.q_and_hi();
        hi.fill(f64::INFINITY);
        for k in 0..sys.contacts() {
            qv[sys.pair[k]] = self.gap[k];
        }
        for &(k, j, g) in &lin.gap.entries {
            qv[sys.pair[k]] += h * g * (self.v_free[j] - self.xb[n + j]);
        }
        self.tangential.copy_from_slice(&self.slip_offset);
        lin.slip.mul_acc(&mut self.tangential, &self.v_free, 1.0);
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            qv[p + 1] = self.tangential[f];
            qv[p + 2] = -self.tangential[f];
            qv[p + 3] = 0.0;
        }
        let info = self
            .contacts
            .solve(&mut self.u_next, &mut self.y_next, true);
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }
        self.y_lcp.copy_from_slice(&self.y_next);
        for k in 0..sys.contacts() {
            self.normal[k] = h * self.u_next[sys.pair[k]];
        }
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            self.tangential[f] = h * (self.u_next[p + 1] - self.u_next[p + 2]);
        }
        let dv = &mut self.rhs;
        dv.fill(0.0);
        lin.gap.mul_t_acc(dv, &self.normal, 1.0);
        lin.slip.mul_t_acc(dv, &self.tangential, 1.0);
        self.inverse.apply(dv);
        let (qb, vb) = self.xb.split_at_mut(n);
        for i in 0..n {
            vb[i] = self.v_free[i] + dv[i];
            qb[i] = x[i] + h * vb[i];
        }
        self.u_bar.copy_from_slice(&self.u_next);
        Ok(info)
    }

    /// The largest scaled component of the residual at the iterate, whose
    /// gaps, `G`, `T` and slip offsets are in place.
    fn semi_explicit_residual(&mut self, sys: &MechSystem, x: &[f64], h: f64) -> f64 {
        let n = self.dof;
        let v = &x[n..];
        let vb = &self.xb[n..];
        let (r, s) = (&mut self.rhs, &mut self.sigma);
        for i in 0..n {
            r[i] = -h * self.f0[i];
            s[i] = h * self.m0[i];
        }
        for &(i, j, m) in &sys.mass.entries {
            r[i] += m * (vb[j] - v[j]);
            s[i] += m.abs() * (vb[j].abs() + v[j].abs());
        }
        for &(k, j, g) in &self.lin.gap.entries {
            let t = h * g * self.u_bar[sys.pair[k]];
            r[j] -= t;
            s[j] += t.abs();
        }
        for &(f, j, g) in &self.lin.slip.entries {
            let p = sys.pair[sys.friction_contact[f]];
            let t = h * g * (self.u_bar[p + 1] - self.u_bar[p + 2]);
            r[j] -= t;
            s[j] += t.abs();
        }
        let mut worst = 0.0f64;
        for i in 0..n {
            worst = worst.max(scaled(r[i], s[i]));
            s[i] /= self.mass_diag[i];
        }
        // Gaps: the linearization error is a velocity error times h, so it
        // counts against h times the velocities' term sizes (positions are far
        // larger: against them the velocities would converge only to TOL |q|/h);
        // an error within the gap's own rounding (64 eps times its terms) counts
        // as none.
        // (`rate0` is Moreau–Jean's and free here.)
        let vel_mag = &mut self.rate0;
        vel_mag.fill(0.0);
        for &(k, j, g) in &self.lin.gap.entries {
            vel_mag[k] += h * g.abs() * self.sigma[j];
        }
        for k in 0..sys.contacts() {
            let err = self.gap[k] - self.y_lcp[sys.pair[k]];
            if err.abs() > 64.0 * f64::EPSILON * self.rate0_mag[k] {
                worst = worst.max(scaled(err, vel_mag[k]));
            }
        }
        // Slips: T(q̄) v̄ + offset against the slip the LCP saw (y = s + β).
        let nf = sys.mu.len();
        // `y_next` is scratch after the LCP (its answer is in `y_lcp`).
        let (slip, mag) = (&mut self.tangential, &mut self.y_next[..nf]);
        slip.copy_from_slice(&self.slip_offset);
        for (m, o) in mag.iter_mut().zip(&self.slip_offset) {
            *m = o.abs();
        }
        for &(f, j, g) in &self.lin.slip.entries {
            slip[f] += g * vb[j];
            mag[f] += g.abs() * self.sigma[j];
        }
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            let seen = self.y_lcp[p + 1] - self.u_bar[p + 3];
            worst = worst.max(scaled(slip[f] - seen, mag[f]));
        }
        worst
    }
}
