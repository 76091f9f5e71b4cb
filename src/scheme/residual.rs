//! The residual of a nonlinear step and its scales (see [`super::newton`]).
//!
//! At an iterate `(x̄, ū)` of the step from `x` at `t`:
//! `Φ = (R, ū - mid(lo, hi, ū - c))` with
//! `R = x̄ - x - h [θ f(x̄, ū, w, t+h) + (1-θ) f(x, ū, w, t)]` and
//! `c = c(x̄, ū, w, t+h)`: zero exactly at solutions of the step's
//! nonlinear complementarity problem. Each component has a scale, the
//! magnitude of the terms it is made of, so that the convergence test and the
//! line search's merit do not depend on units: `|x̄_i| + |x_i| +
//! h (θ |f_i|₊ + (1-θ) |f_i|₊)` for a state, `|ū_j| + |c_j|₊` for a pair
//! (`|·|₊` sums the absolute values of the terms, see `Expr::eval_magnitude`).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcs::Lcs;
use crate::model::program::Point;

/// Buffers of the nonlinear residual at one iterate.
pub(super) struct Residual {
    f1: Vec<f64>,
    f0: Vec<f64>,
    m1: Vec<f64>,
    m0: Vec<f64>,
    /// `c` at the iterate and the magnitudes of its terms.
    pub(super) c: Vec<f64>,
    mc: Vec<f64>,
    /// `Φ` and its scales.
    pub(super) phi: Vec<f64>,
    pub(super) scale: Vec<f64>,
}

impl Residual {
    pub(super) fn new(nx: usize, nu: usize) -> Self {
        let v = |n| vec![0.0; n];
        Residual {
            f1: v(nx),
            f0: v(nx),
            m1: v(nx),
            m0: v(nx),
            c: v(nu),
            mc: v(nu),
            phi: v(nx + nu),
            scale: v(nx + nu),
        }
    }

    /// `Φ` at `(xb, ub)` for a step of method `theta`.
    pub(super) fn evaluate(&mut self, theta: f64, d: StepData, xb: &[f64], ub: &[f64]) {
        self.evaluate_states(theta, d, xb, ub);
        let Some(ncs) = d.lcs.nl.as_ref() else {
            return;
        };
        let nx = xb.len();
        let end = Point {
            x: xb,
            u: ub,
            w: d.w,
            t: d.t + d.h,
        };
        ncs.relation(&end, &mut self.c, &mut self.mc);
        let (lo, hi) = (&d.lcs.lo, &d.lcs.hi);
        for j in 0..ub.len() {
            let mid = (ub[j] - self.c[j]).max(lo[j]).min(hi[j]);
            self.phi[nx + j] = ub[j] - mid;
            self.scale[nx + j] = ub[j].abs() + self.mc[j];
        }
    }

    /// The states' part of [`Residual::evaluate`] (`Φ_i` and `s_i` for
    /// `i < nx`; the pairs' entries are left as they were).
    pub(super) fn evaluate_states(&mut self, theta: f64, d: StepData, xb: &[f64], ub: &[f64]) {
        let out = self;
        let Some(ncs) = d.lcs.nl.as_ref() else {
            out.phi.fill(f64::NAN);
            return;
        };
        let (nx, h) = (xb.len(), d.h);
        let end = Point {
            x: xb,
            u: ub,
            w: d.w,
            t: d.t + d.h,
        };
        let start = Point {
            x: d.x,
            u: ub,
            w: d.w,
            t: d.t,
        };
        ncs.rhs(&end, &mut out.f1, &mut out.m1);
        let explicit_part = theta < 1.0;
        if explicit_part {
            ncs.rhs(&start, &mut out.f0, &mut out.m0);
        }
        for i in 0..nx {
            // θ = 1: the start's terms are zeros, read as constants rather
            // than from buffers cleared on every call (the same numbers).
            let (f0, m0) = if explicit_part {
                (out.f0[i], out.m0[i])
            } else {
                (0.0, 0.0)
            };
            let step = theta * out.f1[i] + (1.0 - theta) * f0;
            out.phi[i] = xb[i] - d.x[i] - h * step;
            out.scale[i] =
                xb[i].abs() + d.x[i].abs() + h * (theta * out.m1[i] + (1.0 - theta) * m0);
        }
    }

    /// The largest `|Φ_i| / s_i` (components with `s_i = 0` count as 0 only
    /// when `Φ_i` is 0, else infinite; NaN, from a program evaluated outside
    /// its domain, counts as infinite, where `f64::max` would drop it).
    pub(super) fn scaled_max(&self) -> f64 {
        self.phi
            .iter()
            .zip(&self.scale)
            .map(|(p, s)| {
                let r = if *s > 0.0 {
                    p.abs() / s
                } else if *p == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                };
                if r.is_nan() {
                    f64::INFINITY
                } else {
                    r
                }
            })
            .fold(0.0, f64::max)
    }

    /// `|Φ / s|₂` with the scales `s` of another iterate (1 where a scale is 0).
    pub(super) fn merit(&self, scale: &[f64]) -> f64 {
        self.merit_of(scale, self.phi.len())
    }

    /// [`Residual::merit`] of the first `n` components (`n = nx`: the states').
    pub(super) fn merit_of(&self, scale: &[f64], n: usize) -> f64 {
        self.phi[..n]
            .iter()
            .zip(scale)
            .map(|(p, s)| {
                let r = if *s > 0.0 { p / s } else { *p };
                r * r
            })
            .sum::<f64>()
            .sqrt()
    }
}

/// The step's data that do not change during its iteration.
#[derive(Clone, Copy)]
pub(super) struct StepData<'a> {
    pub(super) lcs: &'a Lcs,
    pub(super) x: &'a [f64],
    pub(super) w: &'a [f64],
    pub(super) t: f64,
    pub(super) h: f64,
}
