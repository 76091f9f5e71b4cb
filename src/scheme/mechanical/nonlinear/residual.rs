//! The residual of a nonlinear Moreau–Jean step at an iterate and its
//! scales: the convergence test of [`super::MechNewtonStepper`] (see the
//! parent module for what it compares and why).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::system::mechanics::MechSystem;

impl MechNewtonStepper {
    /// The largest scaled component of the step's residual at the iterate.
    pub(super) fn residual(&mut self, sys: &MechSystem, x: &[f64], h: f64, solved: bool) -> f64 {
        let n = self.dof;
        let th = self.theta;
        let v = &x[n..];
        let vb = &self.xb[n..];
        let (r, s) = (&mut self.rhs, &mut self.v_free);
        for i in 0..n {
            r[i] = -h * (th * self.f1[i] + (1.0 - th) * self.f0[i]);
            s[i] = h * (th * self.m1[i] + (1.0 - th) * self.m0[i]);
        }
        // M at the iterate (the model's constant M copied once per assembly).
        for &(i, j, m) in &self.lin.mass.entries {
            r[i] += m * (vb[j] - v[j]);
            s[i] += m.abs() * (vb[j].abs() + v[j].abs());
        }
        for &(k, j, g) in &self.lin.gap.entries {
            let t = g * self.u_bar[sys.pair[k]];
            r[j] -= t;
            s[j] += t.abs();
        }
        for &(f, j, g) in &self.lin.slip.entries {
            let p = sys.pair[sys.friction_contact[f]];
            let t = g * (self.u_bar[p + 1] - self.u_bar[p + 2]);
            r[j] -= t;
            s[j] += t.abs();
        }
        let mut worst = 0.0f64;
        for i in 0..n {
            worst = worst.max(scaled(r[i], s[i]));
            // The size of the terms a velocity is made of (the momentum row's
            // terms per unit mass): a contact velocity's rounding is of the
            // order of eps times this, not of its own (often tiny) terms.
            self.sigma[i] = s[i] / self.mass_diag[i];
        }
        // Contact rows: y and its magnitude at the iterate.
        let (y, ymag) = (&mut self.y_next, &mut self.u_next);
        for k in 0..sys.contacts() {
            let p = sys.pair[k];
            y[p] = self.restitution[k] * self.rate0[k];
            ymag[p] = self.restitution[k] * self.rate0_mag[k];
        }
        for &(k, j, g) in &self.lin.gap.entries {
            y[sys.pair[k]] += g * vb[j];
            ymag[sys.pair[k]] += g.abs() * self.sigma[j];
        }
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            y[p + 1] = self.slip_offset[f];
            ymag[p + 1] = self.slip_offset[f].abs();
        }
        for &(f, j, g) in &self.lin.slip.entries {
            let p = sys.pair[sys.friction_contact[f]];
            y[p + 1] += g * vb[j];
            ymag[p + 1] += g.abs() * self.sigma[j];
        }
        for (f, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            let u = &self.u_bar;
            let (slip, smag) = (y[p + 1], ymag[p + 1]);
            y[p + 1] = slip + u[p + 3];
            y[p + 2] = -slip + u[p + 3];
            ymag[p + 1] = smag + u[p + 3].abs();
            ymag[p + 2] = smag + u[p + 3].abs();
            y[p + 3] = sys.mu[f] * u[p] - u[p + 1] - u[p + 2];
            ymag[p + 3] = sys.mu[f] * u[p].abs() + u[p + 1].abs() + u[p + 2].abs();
        }
        if solved {
            // The LCP verified (u, y_lcp) to its own tolerance; what is left
            // to the iteration is the contact velocities' linearization error.
            for j in 0..y.len() {
                worst = worst.max(scaled(y[j] - self.y_lcp[j], ymag[j]));
            }
            return worst;
        }
        let (_, hi) = self.contacts.q_and_hi();
        for j in 0..y.len() {
            let u = self.u_bar[j];
            let phi = u - (u - y[j]).max(0.0).min(hi[j]);
            worst = worst.max(scaled(phi, u.abs() + ymag[j]));
        }
        worst
    }
}

/// `|r| / s`; a zero scale counts only a zero residual as converged, and NaN
/// (a program evaluated outside its domain) as infinite.
pub(super) fn scaled(r: f64, s: f64) -> f64 {
    let x = if s > 0.0 {
        r.abs() / s
    } else if r == 0.0 {
        0.0
    } else {
        f64::INFINITY
    };
    if x.is_nan() {
        f64::INFINITY
    } else {
        x
    }
}
