//! One mode of a linear complementarity system: the linear ODE it follows
//! and the guards that end it.
//!
//! A mode is an active set: each pair pinned at its lower or upper bound, or
//! free. Pinned pairs are constants. A free pair keeps its `y_i = 0`, which
//! determines it: directly when its row of `D` reaches the free pairs
//! (`C_i x + D_i u + F_i w + g_i = 0`), and through the derivative when it
//! does not (relative degree one, as in a relay's sliding mode or the sign
//! spiral: `C_i x' = C_i (A x + B u + E w + f) = 0`, i.e. the matrix `C B`).
//! With the inputs held, both give `u = G x + k`, and the mode is the linear
//! ODE `x' = (A + B G) x + (B k + E w + f)`. Its guards are affine in `x`: `y_i`
//! (or `-y_i`) for a pair pinned at its lower (upper) bound, and the distance
//! of `u_i` to each finite bound for a free pair; the mode holds while all are
//! nonnegative. Every buffer is sized when the stepper is made, so building a
//! mode at an event allocates nothing.
//!
//! This file holds the mode's workspace, its entry (`build`), its right-hand
//! side and the selection LCP; the guards, the consistency test and the
//! projection are in `mode/linear/consistency.rs`.

// Index loops over rows and columns of several matrices read more plainly here.
#![allow(clippy::needless_range_loop)]

mod consistency;

use crate::lcp::{Bound, Problem};
use crate::linalg::{gemv_acc, Lu};
use crate::scheme::mode::{infinity_norm, selection_step};
use crate::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};

/// A mode whose sliding pairs are further than this from `y = 0` at a state
/// (relative to the size of their terms, see [`ModeSystem::drift`]) does not
/// describe the motion there.
pub const DRIFT_TOL: f64 = 1e-10;

/// What a guard watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// `y_i >= 0` of a pair at its lower bound.
    LowerY(usize),
    /// `-y_i >= 0` of a pair at its upper bound.
    UpperY(usize),
    /// `u_i - lo_i >= 0` of a free pair.
    AboveLo(usize),
    /// `hi_i - u_i >= 0` of a free pair.
    BelowHi(usize),
}

/// Why a mode cannot be followed as an ODE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SingularMode;

/// The linear ODE and the guards of the current mode, with its workspace.
pub struct ModeSystem {
    /// `x' = a x + b`.
    pub a: DMatrix<f64>,
    pub b: DVector<f64>,
    /// `u = gu x + ku`.
    gu: DMatrix<f64>,
    ku: DVector<f64>,
    /// Guards `g = gx x + g0` (rows `0..count` are in use).
    gx: DMatrix<f64>,
    g0: DVector<f64>,
    pub guards: Vec<Guard>,
    /// `C A`, `C B`, `C E`, `C f`: the derivative rows, per assembly.
    ca: DMatrix<f64>,
    cb: DMatrix<f64>,
    ce: DMatrix<f64>,
    cf: DVector<f64>,
    /// The rows that determine the free pairs, and the free pairs.
    k: DMatrix<f64>,
    free: Vec<usize>,
    /// The free pairs held at `y = 0` through their derivative only.
    derivative: Vec<usize>,
    lu: Lu,
    rhs: Vec<f64>,
    sol: Vec<f64>,
    /// `0, 1, ...`: the leading block for `Lu::factor_block`.
    seq: Vec<usize>,
    /// The constraints a projection keeps.
    rows: Vec<usize>,
    /// `C + D G` and `D k + F w + g`: the y of every pair as a function of x.
    cy: DMatrix<f64>,
    y0: DVector<f64>,
    /// Whether `ca..cf` belong to the current assembly.
    derived: bool,
    /// `||A||∞`, which bounds the selection step (with the products above).
    stiffness: f64,
    /// `x'` at the state being checked.
    xdot: Vec<f64>,
}

impl ModeSystem {
    pub fn new(nx: usize, nu: usize, nw: usize) -> Self {
        ModeSystem {
            a: DMatrix::zeros(nx, nx),
            b: DVector::zeros(nx),
            gu: DMatrix::zeros(nu, nx),
            ku: DVector::zeros(nu),
            gx: DMatrix::zeros(2 * nu, nx),
            g0: DVector::zeros(2 * nu),
            guards: Vec::with_capacity(2 * nu),
            ca: DMatrix::zeros(nu, nx),
            cb: DMatrix::zeros(nu, nu),
            ce: DMatrix::zeros(nu, nw),
            cf: DVector::zeros(nu),
            k: DMatrix::zeros(nu, nu),
            free: Vec::with_capacity(nu),
            derivative: Vec::with_capacity(nu),
            lu: Lu::new(nu),
            rhs: vec![0.0; nu],
            sol: vec![0.0; nu],
            seq: (0..nu).collect(),
            rows: vec![0; nu],
            cy: DMatrix::zeros(nu, nx),
            y0: DVector::zeros(nu),
            derived: false,
            stiffness: 0.0,
            xdot: vec![0.0; nx],
        }
    }

    /// Forgets the products of the last assembly.
    pub fn invalidate(&mut self) {
        self.derived = false;
    }

    /// `C A`, `C B`, `C E`, `C f` for the current assembly.
    fn derive(&mut self, lcs: &Lcs) {
        if !self.derived {
            self.ca.gemm(1.0, &lcs.c, &lcs.a, 0.0);
            self.cb.gemm(1.0, &lcs.c, &lcs.b, 0.0);
            self.ce.gemm(1.0, &lcs.c, &lcs.e, 0.0);
            self.cf.gemv(1.0, &lcs.c, &lcs.f, 0.0);
            self.stiffness = infinity_norm(&lcs.a);
            self.derived = true;
        }
    }

    /// The mode-selection LCP at `x`: the step LCP of a step of size `delta`
    /// to first order, `M = D + delta C B`, `q = y(x) + delta C x'_0`, with the
    /// rows whose `D` is zero (relative degree one) divided by `delta`:
    /// `M = C B`, `q = y(x) / delta + C x'_0`, where `x'_0 = A x + E w + f`.
    /// Scaling a row does not change the solutions, but it keeps these rows,
    /// which are of the order of `delta` before it, above the solver's
    /// acceptance tolerance, which scales with the largest entries (a
    /// friction force of 9810 N against a velocity change of 1e-6). The step
    /// is `delta`, or shorter on a stiff model (see
    /// [`selection_step`]); it is returned.
    pub fn selection(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        delta: f64,
        p: &mut Problem,
    ) -> f64 {
        self.derive(lcs);
        let delta = selection_step(delta, self.stiffness);
        let nu = lcs.lo.len();
        for i in 0..nu {
            let mut pos = lcs.g[i] + dot_row(&lcs.fw, i, w);
            let mut rate = self.cf[i] + dot_row(&self.ce, i, w);
            for (c, xc) in x.iter().enumerate() {
                pos += lcs.c[(i, c)] * xc;
                rate += self.ca[(i, c)] * xc;
            }
            let relative_degree_one = (0..nu).all(|j| lcs.d[(i, j)] == 0.0);
            for j in 0..nu {
                p.m[(i, j)] = if relative_degree_one {
                    self.cb[(i, j)]
                } else {
                    lcs.d[(i, j)] + delta * self.cb[(i, j)]
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

    /// Builds the mode `active` for inputs `w`.
    pub fn build(&mut self, lcs: &Lcs, active: &[Bound], w: &[f64]) -> Result<(), SingularMode> {
        let (nx, nu) = (lcs.a.nrows(), lcs.lo.len());
        self.derive(lcs);
        // Pinned pairs are their bounds; u starts as those (free entries 0).
        self.free.clear();
        self.derivative.clear();
        self.ku.fill(0.0);
        self.gu.fill(0.0);
        for i in 0..nu {
            match active[i] {
                Bound::Free => self.free.push(i),
                Bound::Lower => self.ku[i] = lcs.lo[i],
                Bound::Upper => self.ku[i] = lcs.hi[i],
            }
        }
        // One equation per free pair: its y = 0, or its derivative where y
        // does not read the free pairs. Written as k u + R x + r0 = 0 over all
        // pairs, with R x kept in gu's free rows and r0 in ku's (negated below).
        for &i in &self.free {
            let algebraic = self.free.iter().any(|&j| lcs.d[(i, j)] != 0.0);
            if !algebraic {
                self.derivative.push(i);
            }
            let (kr, rx, mut r) = if algebraic {
                (&lcs.d, &lcs.c, lcs.g[i] + dot_row(&lcs.fw, i, w))
            } else {
                (&self.cb, &self.ca, self.cf[i] + dot_row(&self.ce, i, w))
            };
            for j in 0..nu {
                self.k[(i, j)] = kr[(i, j)];
                // The pinned pairs' contribution joins the constant.
                if active[j] != Bound::Free {
                    r += kr[(i, j)] * self.ku[j];
                }
            }
            for c in 0..nx {
                self.gu[(i, c)] = rx[(i, c)];
            }
            self.rhs[i] = r;
        }
        if !self.free.is_empty() {
            if !self.lu.factor_block(&self.k, &self.free) {
                return Err(SingularMode);
            }
            // u_F = -K_FF⁻¹ (R_F x + r_F): one solve per state column, one for r.
            let nf = self.free.len();
            for c in 0..=nx {
                for (a, &i) in self.free.iter().enumerate() {
                    self.sol[a] = -if c < nx { self.gu[(i, c)] } else { self.rhs[i] };
                }
                self.lu.solve(&mut self.sol[..nf]);
                for (a, &i) in self.free.iter().enumerate() {
                    if c < nx {
                        self.gu[(i, c)] = self.sol[a];
                    } else {
                        self.ku[i] = self.sol[a];
                    }
                }
            }
        }
        // x' = (A + B G) x + (B k + E w + f)
        self.a.copy_from(&lcs.a);
        self.a.gemm(1.0, &lcs.b, &self.gu, 1.0);
        self.b.copy_from(&lcs.f);
        gemv_acc(self.b.as_mut_slice(), &lcs.b, self.ku.as_slice());
        gemv_acc(self.b.as_mut_slice(), &lcs.e, w);
        // y = (C + D G) x + (D k + F w + g)
        self.cy.copy_from(&lcs.c);
        self.cy.gemm(1.0, &lcs.d, &self.gu, 1.0);
        self.y0.copy_from(&lcs.g);
        gemv_acc(self.y0.as_mut_slice(), &lcs.d, self.ku.as_slice());
        gemv_acc(self.y0.as_mut_slice(), &lcs.fw, w);
        self.guards.clear();
        for i in 0..nu {
            let (lo, hi) = (lcs.lo[i], lcs.hi[i]);
            match active[i] {
                Bound::Lower => self.push_guard(Guard::LowerY(i), 1.0, i, true, 0.0),
                Bound::Upper => self.push_guard(Guard::UpperY(i), -1.0, i, true, 0.0),
                Bound::Free => {
                    if lo.is_finite() {
                        self.push_guard(Guard::AboveLo(i), 1.0, i, false, -lo);
                    }
                    if hi.is_finite() {
                        self.push_guard(Guard::BelowHi(i), -1.0, i, false, hi);
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds the guard `sign * (row i of y or of u) + offset`.
    fn push_guard(&mut self, guard: Guard, sign: f64, i: usize, of_y: bool, offset: f64) {
        let r = self.guards.len();
        let (m, v) = if of_y {
            (&self.cy, &self.y0)
        } else {
            (&self.gu, &self.ku)
        };
        for c in 0..m.ncols() {
            self.gx[(r, c)] = sign * m[(i, c)];
        }
        self.g0[r] = sign * v[i] + offset;
        self.guards.push(guard);
    }

    /// `x' = a x + b` into `out`.
    pub fn rhs(&self, x: &[f64], out: &mut [f64]) {
        crate::linalg::gemv_from(out, self.b.as_slice(), &self.a, x);
    }

    /// The pairs at state `x`.
    pub fn multipliers(&self, x: &[f64], u: &mut [f64]) {
        crate::linalg::gemv_from(u, self.ku.as_slice(), &self.gu, x);
    }
}

/// Row `i` of `m` times `v`.
fn dot_row(m: &DMatrix<f64>, i: usize, v: &[f64]) -> f64 {
    v.iter().enumerate().map(|(j, vj)| m[(i, j)] * vj).sum()
}
