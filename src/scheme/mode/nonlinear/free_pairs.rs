//! The free pairs of a nonlinear mode, solved at a state: the model's
//! functions and their derivatives there ([`Evaluated`], two slots kept), the
//! Newton iteration on `G(u_F) = 0` with its scale-invariant test, and the
//! linearization that gives the guards' rates and the projection's rows (the
//! parent module's text says what each equation is).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::model::program::Point;
use crate::scheme::mode::nonlinear::{NonlinearMode, FREE_ITERATIONS, FREE_TOL};
use crate::scheme::StepError;
use crate::system::lcs::Lcs;
use nalgebra::DMatrix;

/// Which derivatives an evaluation of the model's functions computes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Jacobians {
    None,
    /// `∂c/∂x`, `∂c/∂u`, `∂c/∂t`, `∂f/∂u`.
    OfPairs,
    /// Those and `∂f/∂x`.
    WithStates,
}

/// The free pairs, the model's functions and their derivatives at one state.
pub(super) struct Evaluated {
    /// The state and time (bits compared) this holds; NaN time when none.
    pub(super) x: Vec<f64>,
    pub(super) t: f64,
    /// Whether the linearization (`gu`, `cy`, rates) was computed.
    pub(super) linearized: bool,
    pub(super) u: Vec<f64>,
    pub(super) c: Vec<f64>,
    pub(super) cmag: Vec<f64>,
    pub(super) f: Vec<f64>,
    /// `du/dx` (pinned rows zero), `dy/dx`, `du/dt`, `dy/dt`.
    pub(super) gu: DMatrix<f64>,
    pub(super) cy: DMatrix<f64>,
    pub(super) ut: Vec<f64>,
    pub(super) yt: Vec<f64>,
}

impl Evaluated {
    pub(super) fn new(nx: usize, nu: usize) -> Self {
        Evaluated {
            x: vec![0.0; nx],
            t: f64::NAN,
            linearized: false,
            u: vec![0.0; nu],
            c: vec![0.0; nu],
            cmag: vec![0.0; nu],
            f: vec![0.0; nx],
            gu: DMatrix::zeros(nu, nx),
            cy: DMatrix::zeros(nu, nx),
            ut: vec![0.0; nu],
            yt: vec![0.0; nu],
        }
    }

    pub(super) fn holds(&self, t: f64, x: &[f64]) -> bool {
        t.to_bits() == self.t.to_bits()
            && self
                .x
                .iter()
                .zip(x)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl NonlinearMode {
    /// The slot holding `(t, x)`, evaluated (and linearized when asked);
    /// the failure of the free pairs' iteration otherwise.
    pub(super) fn evaluate(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        linearize: bool,
    ) -> Result<usize, StepError> {
        let hit = (0..2).find(|&k| self.slots[k].holds(t, x));
        let k = match hit {
            Some(k) => k,
            None => {
                let k = 1 - self.newest;
                self.u_start.copy_from_slice(&self.u);
                // From a start the mode fixes (its free pairs at 0), so that
                // `x'` is a function of `(t, x)` in the mode, bit for bit,
                // whatever was evaluated before: an importer's finite
                // differences come back to a state and must find what it
                // found there. The last solution is the start only when that
                // iteration fails (a relation whose Jacobian is singular at
                // 0, or too nonlinear to converge from there).
                for &i in &self.free {
                    self.u[i] = 0.0;
                }
                if self.solve(lcs, t, x).is_err() {
                    self.u.copy_from_slice(&self.u_start);
                    if let Err(why) = self.solve(lcs, t, x) {
                        self.u.copy_from_slice(&self.u_start);
                        return Err(why);
                    }
                }
                let s = &mut self.slots[k];
                s.x.copy_from_slice(x);
                s.t = t;
                s.linearized = false;
                s.u.copy_from_slice(&self.u);
                s.c.copy_from_slice(&self.c);
                s.cmag.copy_from_slice(&self.cmag);
                s.f.copy_from_slice(&self.f);
                self.newest = k;
                k
            }
        };
        if linearize && !self.slots[k].linearized {
            self.linearize(lcs, k)?;
        }
        Ok(k)
    }

    /// The model's functions at `(t, x)` and the iterate `self.u`: `c` with
    /// its magnitudes, and what the free pairs' equations need.
    pub(super) fn functions(&mut self, lcs: &Lcs, t: f64, x: &[f64], jacobians: Jacobians) {
        let Some(ncs) = lcs.nl.as_ref() else {
            return;
        };
        let at = Point {
            x,
            u: &self.u,
            w: &self.w,
            t,
        };
        ncs.relation(&at, &mut self.c, &mut self.cmag);
        ncs.rhs(&at, &mut self.f, &mut self.fmag);
        if jacobians != Jacobians::None {
            ncs.relation_jacobian(lcs, &at, &mut self.cx, &mut self.cu);
            let fx = (jacobians == Jacobians::WithStates).then_some(&mut self.fx);
            ncs.rhs_jacobian(lcs, &at, fx, &mut self.fu);
            ncs.relation_time_derivative(&at, &mut self.ct);
        }
    }

    /// Newton's method on the free pairs' equations at `(t, x)` from `self.u`;
    /// on success `self.u`, `c`, `f` are the solution's.
    pub(super) fn solve(&mut self, lcs: &Lcs, t: f64, x: &[f64]) -> Result<(), StepError> {
        if lcs.nl.is_none() {
            return Err(StepError::NotFinite);
        }
        let (nx, nf) = (x.len(), self.free.len());
        let mut iterations = 0;
        loop {
            self.functions(
                lcs,
                t,
                x,
                if nf > 0 {
                    Jacobians::OfPairs
                } else {
                    Jacobians::None
                },
            );
            let mut worst = 0.0f64;
            for a in 0..nf {
                let i = self.free[a];
                let (g, scale) = if self.derivative[i] {
                    let (mut g, mut s) = (self.ct[i], self.ct[i].abs());
                    for k in 0..nx {
                        g += self.cx[(i, k)] * self.f[k];
                        s += self.cx[(i, k)].abs() * self.fmag[k];
                    }
                    (g, s)
                } else {
                    (self.c[i], self.cmag[i])
                };
                self.g[a] = g;
                let r = if scale > 0.0 {
                    g.abs() / scale
                } else if g == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                };
                worst = if r.is_nan() {
                    f64::INFINITY
                } else {
                    worst.max(r)
                };
            }
            if worst <= FREE_TOL {
                return Ok(());
            }
            let fail = |singular| StepError::ModeNewton {
                iterations,
                residual: worst,
                singular,
                t,
            };
            if iterations == FREE_ITERATIONS || !worst.is_finite() {
                return Err(fail(false));
            }
            self.jacobian(nx);
            if !self.lu.factor_block(&self.jac, &self.seq[..nf]) {
                return Err(fail(true));
            }
            for a in 0..nf {
                self.sol[a] = -self.g[a];
            }
            self.lu.solve(&mut self.sol[..nf]);
            for a in 0..nf {
                self.u[self.free[a]] += self.sol[a];
            }
            iterations += 1;
        }
    }

    /// `J = ∂G/∂u_F` into the leading block of `jac`.
    pub(super) fn jacobian(&mut self, nx: usize) {
        let nf = self.free.len();
        for a in 0..nf {
            let i = self.free[a];
            for b in 0..nf {
                let j = self.free[b];
                self.jac[(a, b)] = if self.derivative[i] {
                    (0..nx).map(|k| self.cx[(i, k)] * self.fu[(k, j)]).sum()
                } else {
                    self.cu[(i, j)]
                };
            }
        }
    }

    /// The linearization at slot `k`'s state (module text).
    pub(super) fn linearize(&mut self, lcs: &Lcs, k: usize) -> Result<(), StepError> {
        let (nx, nf) = (self.slots[k].x.len(), self.free.len());
        let t = self.slots[k].t;
        // The functions and Jacobians at the slot's solution.
        self.u.copy_from_slice(&self.slots[k].u);
        let x = std::mem::take(&mut self.slots[k].x);
        self.functions(lcs, t, &x, Jacobians::WithStates);
        self.slots[k].x = x;
        let mut gu = std::mem::replace(&mut self.slots[k].gu, DMatrix::zeros(0, 0));
        let mut ut = std::mem::take(&mut self.slots[k].ut);
        gu.fill(0.0);
        ut.fill(0.0);
        let solved = nf == 0 || {
            self.jacobian(nx);
            self.lu.factor_block(&self.jac, &self.seq[..nf])
        };
        if solved && nf > 0 {
            // One column of -∂G/∂x at a time, then -∂G/∂t.
            for col in 0..=nx {
                for a in 0..nf {
                    let i = self.free[a];
                    self.sol[a] = -match (self.derivative[i], col < nx) {
                        (false, true) => self.cx[(i, col)],
                        (false, false) => self.ct[i],
                        (true, true) => (0..nx).map(|m| self.cx[(i, m)] * self.fx[(m, col)]).sum(),
                        // The sliding pair's ∂G/∂t needs second derivatives.
                        (true, false) => 0.0,
                    };
                }
                self.lu.solve(&mut self.sol[..nf]);
                for a in 0..nf {
                    let i = self.free[a];
                    if col < nx {
                        gu[(i, col)] = self.sol[a];
                    } else {
                        ut[i] = self.sol[a];
                    }
                }
            }
        }
        // dy/dx = ∂c/∂x + ∂c/∂u_F ∂u_F/∂x, and alike in time.
        let s = &mut self.slots[k];
        for i in 0..self.u.len() {
            for col in 0..nx {
                let mut v = self.cx[(i, col)];
                for &j in &self.free {
                    v += self.cu[(i, j)] * gu[(j, col)];
                }
                s.cy[(i, col)] = v;
            }
            let mut v = self.ct[i];
            for &j in &self.free {
                v += self.cu[(i, j)] * ut[j];
            }
            s.yt[i] = v;
        }
        s.gu = gu;
        s.ut = ut;
        s.linearized = true;
        if solved {
            Ok(())
        } else {
            Err(StepError::ModeNewton {
                iterations: 0,
                residual: 0.0,
                singular: true,
                t,
            })
        }
    }

    /// After a failed entry: marks held through its derivative each free
    /// pair judged algebraic whose relation has zero coefficients `∂c_i/∂u_F`
    /// at the last iterate (a zero row of the Jacobian, which made it
    /// singular); true when there was one. Only modes that could not be
    /// entered change.
    pub(super) fn held_by_derivative_where_algebra_vanishes(&mut self) -> bool {
        let mut changed = false;
        for a in 0..self.free.len() {
            let i = self.free[a];
            if !self.derivative[i] && self.free.iter().all(|&j| self.cu[(i, j)] == 0.0) {
                self.derivative[i] = true;
                changed = true;
            }
        }
        changed
    }
}
