//! One Newton–Josephy iteration's linear complementarity problem: the
//! step's equations linearized at the iterate, the state update eliminated
//! (`J_x⁻¹` applied by an LU of `J_x = I - hθ ∂f/∂x`), the LCP in the pairs
//! formed (`M = C_u - C_x J_x⁻¹ J_u`, `q`) and solved by the verified
//! [`Solver`](crate::lcp::Solver), at its size as a constant for up to four
//! pairs. See [`super`] for the iteration these serve.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp;
use crate::model::program::Point;
use crate::scheme::theta::newton::NewtonStepper;
use crate::scheme::theta::residual::StepData;
use crate::scheme::StepError;

impl NewtonStepper {
    /// Builds the LCP of the linearization at `(x_bar, u_bar)` (with `cur`
    /// evaluated there) and `a`, `g` for the state update.
    pub(super) fn linearize(&mut self, d: StepData) -> Result<(), StepError> {
        let Some(ncs) = d.lcs.nl.as_ref() else {
            return Err(StepError::NotFinite);
        };
        let (nx, nu, theta, h) = (self.nx, self.nu, self.theta, d.h);
        let end = Point {
            x: &self.x_bar,
            u: &self.u_bar,
            w: d.w,
            t: d.t + h,
        };
        let j = &mut self.end;
        if !self.jacobian_at_iterate {
            ncs.rhs_jacobian(d.lcs, &end, Some(&mut j.fx), &mut j.fu);
            ncs.relation_jacobian(d.lcs, &end, &mut j.cx, &mut j.cu);
        }
        // `fx` becomes `J_x` below: the next iterate needs its own.
        self.jacobian_at_iterate = false;
        if theta < 1.0 {
            let start = Point {
                x: d.x,
                u: &self.u_bar,
                w: d.w,
                t: d.t,
            };
            ncs.rhs_jacobian(d.lcs, &start, None, &mut self.fu0);
        } else {
            self.fu0.fill(0.0);
        }
        // fx becomes J_x = I - hθ ∂f/∂x, g becomes J_u, then J_x⁻¹ J_u.
        // The loops run over the column-major slices: indexing the matrices
        // entry by entry cost a bounds check and a reload of their shapes per
        // entry, which was most of this function for small models.
        let fx = j.fx.as_mut_slice();
        for (v, s) in fx.iter_mut().zip(self.spread_x.iter_mut()) {
            *v *= -h * theta;
            *s = v.abs();
        }
        for i in 0..nx {
            fx[i * nx + i] += 1.0;
        }
        if !self.lu.factor(&j.fx) {
            return Err(StepError::SingularIteration { h });
        }
        let (fu1, fu0) = (j.fu.as_slice(), self.fu0.as_slice());
        for ((g, a1), a0) in self.g.as_mut_slice().iter_mut().zip(fu1).zip(fu0) {
            *g = -h * (theta * a1 + (1.0 - theta) * a0);
        }
        self.lu.solve_columns(&mut self.g);
        // How a multiplier's rounding reaches the states' equations: through
        // the states the step computes from it, `J_x⁻¹ J_u` (every state down
        // a chain of couplings, not only those whose equations read it), each
        // entering the equations that read that state, `|J_x| <= I + |hθ ∂f/∂x|`:
        // `|g| + |hθ ∂f/∂x| |g|`, never less than `|J_u| = |J_x g|`. With
        // `|J_u|` alone a sign block holding a state at 0, whose rounding
        // passed through two more states to a third, left that third's scale
        // at 2e-21 against a residual of 4e-22 from that rounding, and the
        // line search refused a Newton step that had solved the step (issue
        // 28's random models, `tests/data/random/found_seed77_model21.toml`).
        let (g, sx) = (self.g.as_slice(), &self.spread_x[..nx * nx]);
        for c in 0..nu {
            let gc = &g[c * nx..(c + 1) * nx];
            let out = &mut self.spread_u[c * nx..(c + 1) * nx];
            for i in 0..nx {
                out[i] = gc[i].abs();
            }
            for k in 0..nx {
                let gk = gc[k].abs();
                if gk == 0.0 {
                    continue;
                }
                let column = &sx[k * nx..(k + 1) * nx];
                for i in 0..nx {
                    out[i] += column[i] * gk;
                }
            }
        }
        self.a.copy_from_slice(&self.cur.phi[..nx]);
        self.lu.solve(&mut self.a);
        // M = C_u - C_x g, q = c - C_x a - M ū.
        let p = &mut self.problem;
        let (cx, g) = (j.cx.as_slice(), self.g.as_slice());
        let m = p.m.as_mut_slice();
        m.copy_from_slice(j.cu.as_slice());
        for j in 0..nu {
            let gj = &g[j * nx..(j + 1) * nx];
            for i in 0..nu {
                let mut s = 0.0;
                for k in 0..nx {
                    s += cx[k * nu + i] * gj[k];
                }
                m[j * nu + i] -= s;
            }
        }
        for i in 0..nu {
            let mut q = self.cur.c[i];
            for k in 0..nx {
                q -= cx[k * nu + i] * self.a[k];
            }
            for j in 0..nu {
                q -= m[j * nu + i] * self.u_bar[j];
            }
            p.q[i] = q;
        }
        // The bounds are the assembly's (copied at each step's start): checked
        // once after it, not at every linearization.
        if self.bounds_new {
            self.solver.matrix_changed();
            self.bounds_new = false;
        } else {
            self.solver.matrix_values_changed();
        }
        Ok(())
    }

    /// The linearization's LCP into `u_try` (and `y_next`). A model with at
    /// most four pairs calls the solver at its size as a constant
    /// ([`Solver::solve_with`](crate::lcp::Solver::solve_with): the same operations in the same order as
    /// [`Solver::solve`](crate::lcp::Solver::solve), so the same numbers), so its warm start and its
    /// verification run with their loops unrolled, as the linear step's do.
    pub(super) fn solve_lcp(&mut self) -> lcp::Info {
        let (p, u, y) = (&self.problem, &mut self.u_try, &mut self.y_next);
        let q = p.q.as_slice();
        match self.nu {
            1 => self.solver.solve_with(1, p, q, u, y),
            2 => self.solver.solve_with(2, p, q, u, y),
            3 => self.solver.solve_with(3, p, q, u, y),
            4 => self.solver.solve_with(4, p, q, u, y),
            _ => self.solver.solve(p, u, y),
        }
    }
}
