//! The selection LCP of a nonlinear mode at an event: the step LCP of a short
//! step linearized at the pairs last solved for, whose solution picks the
//! mode that follows the event (as `ModeSystem::selection` does for a linear
//! model).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp::Problem;
use crate::scheme::mode::nonlinear::free_pairs::Jacobians;
use crate::scheme::mode::nonlinear::NonlinearMode;
use crate::scheme::mode::{infinity_norm, selection_step};
use crate::system::lcs::Lcs;

impl NonlinearMode {
    /// The selection LCP at `(t, x)`, linearized at the pairs `self.u` (the
    /// last ones solved for, those of the mode the event ends): the step LCP
    /// of a step `delta` to first order, `y ≈ c + c_u (u' - u) + delta (c_x
    /// (f + f_u (u' - u)) + c_t)`, i.e. `M = c_u + delta c_x f_u`; rows whose
    /// `c_u` is zero (relative degree one) divided by `delta`, as in
    /// `ModeSystem::selection`. The step is `delta` or shorter on a stiff
    /// model (see [`selection_step`]); it is returned.
    pub fn selection(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        delta: f64,
        p: &mut Problem,
    ) -> f64 {
        let (nx, nu) = (x.len(), self.u.len());
        self.w.copy_from_slice(w);
        for j in 0..nu {
            if !self.u[j].is_finite() {
                self.u[j] = 0.0;
            }
        }
        self.functions(lcs, t, x, Jacobians::WithStates);
        let delta = selection_step(delta, infinity_norm(&self.fx));
        for i in 0..nu {
            let relative_degree_one = (0..nu).all(|j| self.cu[(i, j)] == 0.0);
            // c_x (f - f_u u) + c_t, and c - c_u u.
            let (mut rate, mut pos) = (self.ct[i], self.c[i]);
            for k in 0..nx {
                let mut fk = self.f[k];
                for j in 0..nu {
                    fk -= self.fu[(k, j)] * self.u[j];
                }
                rate += self.cx[(i, k)] * fk;
            }
            for j in 0..nu {
                pos -= self.cu[(i, j)] * self.u[j];
                let cxfu: f64 = (0..nx).map(|k| self.cx[(i, k)] * self.fu[(k, j)]).sum();
                p.m[(i, j)] = if relative_degree_one {
                    cxfu
                } else {
                    self.cu[(i, j)] + delta * cxfu
                };
            }
            p.q[i] = if relative_degree_one {
                pos / delta + rate
            } else {
                pos + delta * rate
            };
            p.lo[i] = lcs.lo[i];
            p.hi[i] = lcs.hi[i];
        }
        delta
    }
}
